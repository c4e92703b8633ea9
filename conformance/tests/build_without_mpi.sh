#!/bin/sh
# build_without_mpi.sh — a build configured --without-mpi still compiles (issue 27 N7: the torch
# backend's run_torch_compare sat after `#endif /* HAVE_MPI */` but needed includes inside it, so
# `./configure --without-mpi && make` failed while every MPI build passed).
# The guard costs seconds, not a second configure and build: every C file of the shardcheck CLI
# and of lib/exec (comm_mpi.c aside: it is built only with MPI) is compiled here, syntax only,
# against this build's config.h with HAVE_MPI removed, implicit declarations as errors, so a
# function or a type that only an MPI build declares fails here.  The whole configuration,
# `./configure --without-mpi && make check`, is what `make distcheck` runs in the test job
# (tools/test_job.sh: DISTCHECK_CONFIGURE_FLAGS="--without-cuda --without-mpi").
. "$(dirname "$0")/testlib.sh"
cfg=$top_builddir/config.h
mk=$top_builddir/Makefile
[ -f "$cfg" ] && [ -f "$mk" ] || skip_all "no config.h or Makefile in $top_builddir"
grep -q '^#define HAVE_MPI' "$cfg" || skip_all "this build is configured without MPI already (make itself checks it)"
cc=$(sed -n 's/^CC = //p' "$mk" | head -n 1)
jansson=$(sed -n 's/^JANSSON_CFLAGS = //p' "$mk" | head -n 1)
[ -n "$cc" ] || skip_all "no CC in $mk"
use_tmpdir
grep -v '^#define HAVE_MPI' "$cfg" >"$tmp/config.h"
inc="-I$tmp"
for d in lib lib/core lib/layout lib/rng lib/offsets lib/plan lib/exec conformance/corpus \
         conformance/families tools/cli tools/common tools/run tools/verify tools/kit; do
  inc="$inc -I$top_srcdir/$d"
done
n=0
for f in "$top_srcdir"/tools/cli/*.c "$top_srcdir"/tools/common/*.c "$top_srcdir"/tools/run/*.c "$top_srcdir"/tools/verify/*.c \
         "$top_srcdir"/tools/kit/*.c "$top_srcdir"/lib/exec/*.c; do
  case $f in */comm_mpi.c) continue ;; esac
  n=$((n+1))
  # shellcheck disable=SC2086  # word lists
  if out=$($cc -std=c11 -D_GNU_SOURCE -DHAVE_CONFIG_H $inc $jansson -fsyntax-only \
           -Werror=implicit-function-declaration -Werror=implicit-int "$f" 2>&1); then
    :
  else
    tap_not_ok "${f#"$top_srcdir"/} compiles without HAVE_MPI" "$(printf '%s\n' "$out" | head -n 8)"
  fi
done
[ "$TAP_FAIL" -eq 0 ] && tap_ok "$n files of tools/ and lib/exec/ compile without HAVE_MPI"
# The guard itself: the same check on a file that uses an MPI-only declaration must fail.
cat >"$tmp/uses_mpi.c" <<'EOF'
#include "config.h"
#include "run.h"
int probe(run_opts *o, int *argc, char ***argv) { return run_mpi_init(o, argc, argv); }
EOF
# shellcheck disable=SC2086
if $cc -std=c11 -D_GNU_SOURCE -DHAVE_CONFIG_H $inc $jansson -fsyntax-only \
     -Werror=implicit-function-declaration "$tmp/uses_mpi.c" >/dev/null 2>&1; then
  tap_not_ok "a call of an MPI-only function fails the check" "it compiled"
else tap_ok "a call of an MPI-only function fails the check"; fi
tap_done
