#!/bin/sh
# tools/scripts/lcov_keep_tmp.sh LCOV [args...] — run lcov without the "/tmp/*" --remove pattern
# that AX_CODE_COVERAGE's capture rule hard-codes: with the tree under /tmp it removes
# every source file and genhtml stops with "no valid records".  Other patterns (system
# headers, tests) stay.  Used by mk/coverage.am; checked by running
# `make check-code-coverage` in a build under /tmp.
lcov=$1; shift
n=$#
while [ "$n" -gt 0 ]; do
  a=$1; shift; n=$((n - 1))
  [ "$a" = "/tmp/*" ] && continue
  set -- "$@" "$a"
done
exec $lcov "$@"
