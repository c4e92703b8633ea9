#!/bin/sh
# cuda_rng.sh — runs lib/cuda's device test (GPU output vs the CPU reference) where it was
# built (--with-cuda) and a GPU is present; otherwise a TAP skip saying which is missing.
. "$(dirname "$0")/testlib.sh"
T="$top_builddir/lib/cuda/rng_device_test"
[ -x "$T" ] || skip_all "not built: configure found no nvcc (use --with-cuda)"
expect_pass_or_skip "CUDA RNG kernels on a GPU match the CPU reference" "$T"
tap_done
