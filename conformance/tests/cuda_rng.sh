#!/bin/sh
# cuda_rng.sh — runs lib/cuda's device test (GPU output vs the CPU reference) where it was
# built (--with-cuda) and a GPU is present; otherwise a TAP skip saying which is missing.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$(pwd)}"
: "${SHARDCHECK:=$top_builddir/tools/shardcheck}"
. "$top_srcdir/conformance/tests/tap.sh"
T="$top_builddir/lib/cuda/rng_device_test"
if [ ! -x "$T" ]; then
  tap_skip "CUDA RNG kernels on a GPU" "not built: configure found no nvcc (use --with-cuda)"
elif out=$("$T" 2>&1); rc=$?; [ $rc -eq 77 ]; then
  tap_skip "CUDA RNG kernels on a GPU" "$(printf '%s' "$out" | tail -n 1)"
elif [ $rc -eq 0 ]; then
  tap_ok "CUDA RNG kernels on a GPU match the CPU reference"
else
  tap_not_ok "CUDA RNG kernels on a GPU match the CPU reference" "$(printf '%s' "$out" | tail -n 5)"
fi
tap_done
