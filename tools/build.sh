#!/usr/bin/env bash
# tools/build.sh DIR [configure args...] — out-of-tree build of shardcheck in DIR
# (autoreconf when needed, configure with the cuRAND oracle from the venv when present, make).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dir=$1; shift
[ -x "$here/configure" ] || (cd "$here" && autoreconf -fi >/dev/null 2>&1)
curand=$(ls -d "$here"/.venv/lib/python3*/site-packages/nvidia/cu13 2>/dev/null | head -n1 || true)
extra=()
[ -n "$curand" ] && extra+=("--with-curand=$curand")
mkdir -p "$dir"
cd "$dir"
if [ ! -f Makefile ]; then
  "$here/configure" "${extra[@]}" "$@" >configure.out 2>&1 || { tail -n 30 configure.out; exit 1; }
  sed -n '/shardcheck [0-9]/,$p' configure.out
fi
make -j"$(nproc)" >make.out 2>&1 || { grep -E "error|Error" -A3 make.out | head -n 40; exit 1; }
