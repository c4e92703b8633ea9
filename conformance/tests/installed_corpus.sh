#!/bin/sh
# installed_corpus.sh BIN LIBDIR GOLDEN DESTDIR — run by `make installcheck` (and so distcheck):
# the installed corpus is complete (its MANIFEST checks) and the installed shardcheck finds it
# with no --golden, no $SHARDCHECK_GOLDEN and no ./golden (issue 22 item 7).  Under a DESTDIR
# the binary's built-in path is not where the files are, so only the files are checked.
bin=$1 libdir=$2 golden=$3 destdir=$4
fail() { echo "installed_corpus.sh: $*" >&2; exit 1; }
[ -f "$golden/MANIFEST" ] || fail "no corpus installed at $golden"
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
if [ -n "$destdir" ]; then
  out=$(SHARDCHECK_GOLDEN="$golden" "$bin" verify --manifest 2>&1) ||
    fail "the installed corpus does not check against its MANIFEST: $out"
else
  out=$(env -u SHARDCHECK_GOLDEN "$bin" verify --manifest 2>&1) ||
    fail "shardcheck verify --manifest, run with no corpus named, did not find $golden: $out"
  out=$(env -u SHARDCHECK_GOLDEN "$bin" families 2>&1) ||
    fail "shardcheck families, run with no corpus named: $out"
fi
if [ -n "$destdir" ]; then echo "installed corpus: $golden checks against its MANIFEST"
else echo "installed corpus: $golden checks against its MANIFEST and is found without --golden"; fi
