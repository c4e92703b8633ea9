#!/bin/sh
# libdevice_vectors.sh — reference vectors for lib/rng/cuda_libdevice.c, produced by
# CUDA's own libdevice IR compiled for the host (an oracle independent of our C).
#
#   tools/gpu/libdevice_vectors.sh [OUT]   (default conformance/tests/data/libdevice/vectors.txt)
#
# Steps: llvm-extract __nv_log, __nv_sincospi, __nv_logf, __nv_exp, __nv_log1p,
# __nv_tan, __nv_log1pf from libdevice.10.bc (tan's |a| >= 2^31 slow path is left out: a stub);
# retarget the IR to the host (triple/datalayout); rename the llvm.nvvm.*
# intrinsics it calls to plain functions defined in tools/gpu/libdevice_oracle/
# nvvm_host.c (IEEE fma/round/trunc and word moves; rcp.approx.ftz.d modelled
# there); compile with clang and run gen.c, which writes random and edge-case
# inputs with libdevice's outputs as hex bits.  Needs CUDA (libdevice.10.bc),
# llvm-extract-14 and clang-14.  Deterministic: the inputs come from a fixed
# xorshift seed, so rerunning must reproduce the committed file exactly.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$top/conformance/tests/data/libdevice/vectors.txt}
bc=${LIBDEVICE_BC:-$(ls /usr/local/cuda/nvvm/libdevice/libdevice.10.bc 2>/dev/null || true)}
[ -n "$bc" ] && [ -f "$bc" ] || { echo "libdevice_vectors.sh: libdevice.10.bc not found (set LIBDEVICE_BC)" >&2; exit 2; }
ext=$(command -v llvm-extract-14 || command -v llvm-extract) || { echo "libdevice_vectors.sh: llvm-extract not found" >&2; exit 2; }
# The IR is compiled by clang, or (where only LLVM's tools are installed) by
# llc into an object that the C compiler links; both without FP contraction.
clang=$(command -v clang-14 || command -v clang || true)
llc=$(command -v llc-14 || command -v llc || true)
[ -n "$clang" ] || [ -n "$llc" ] || { echo "libdevice_vectors.sh: neither clang nor llc found" >&2; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$ext" --func=__nv_log --func=__nv_sincospi --func=__nv_logf --func=__nv_exp --func=__nv_log1p \
    --func=__nv_tan --func=__nv_log1pf "$bc" -S -o "$tmp/ext.ll"
sed -e 's/^target datalayout = .*/target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"/' \
    -e 's/^target triple = .*/target triple = "x86_64-pc-linux-gnu"/' \
    -e 's/^@.str = external hidden unnamed_addr constant \[11 x i8\], align 1/@.str = private unnamed_addr constant [11 x i8] c"__CUDA_FTZ\\00", align 1/' \
    -e 's/@llvm\.nvvm\.\([a-z0-9.]*\)/@nvvm_host_\1/g' "$tmp/ext.ll" |
    sed -e ':a' -e 's/\(@nvvm_host_[a-z0-9_]*\)\./\1_/' -e 'ta' > "$tmp/host.ll"
d=$top/tools/gpu/libdevice_oracle
if [ -n "$clang" ]; then
    "$clang" -O1 -ffp-contract=off -o "$tmp/gen" "$tmp/host.ll" "$d/nvvm_host.c" "$d/gen.c" -lm
    how="$("$clang" --version | head -1)"
else
    cc=${CC:-cc}
    "$llc" -O1 --fp-contract=off -relocation-model=pic -filetype=obj -o "$tmp/host.o" "$tmp/host.ll"
    "$cc" -O1 -ffp-contract=off -o "$tmp/gen" "$tmp/host.o" "$d/nvvm_host.c" "$d/gen.c" -lm
    how="$("$llc" --version | grep -m1 'LLVM version' | sed 's/^ *//') llc, linked by $("$cc" --version | head -1)"
fi
ver=$(basename "$(dirname "$(dirname "$(dirname "$(readlink -f "$bc")")")")")
sum=$(sha256sum "$bc" | cut -c1-16)
mkdir -p "$(dirname "$out")"
{
    echo "# libdevice reference vectors: FUNC INPUT_BITS OUTPUT_BITS [OUTPUT2_BITS] (hex)"
    echo "# produced by tools/gpu/libdevice_vectors.sh from $ver libdevice.10.bc (sha256 $sum...)"
    echo "# IR compiled for the host by $how"
    "$tmp/gen"
} > "$out"
echo "wrote $out ($(grep -vc '^#' "$out") vectors)"
