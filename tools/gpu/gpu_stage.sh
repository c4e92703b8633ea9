#!/usr/bin/env bash
# gpu_stage.sh BUILD DEST — copies what tools/gpu/gpu_check.sh runs on a GPU machine out of a
# CUDA build (configure --with-cuda) into DEST, small enough to travel with the working tree
# (the device tool's carry, 64 MiB with the tree): the real shardcheck binary (not libtool's
# wrapper), rng_device_test, bench_cuda, stripped, and in DEST/lib the shared libraries they load
# that a bare CUDA image may lack (libshardcheck, jansson, OpenMPI's).  glibc, libstdc++ and
# libcrypto are left to the machine.  Building here saves the device's minutes; docs/gpu-check.md.
# Checked by conformance/tests/gpu_script_dry.sh (a staged tree runs the dry run).
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: gpu_stage.sh BUILD DEST" >&2; exit 2; }
b=$1; d=$2
for f in tools/.libs/shardcheck lib/cuda/rng_device_test bench/bench_cuda; do
  [ -x "$b/$f" ] ||
    { echo "gpu_stage.sh: $b/$f: not built (configure --with-cuda; make ${f/.libs\//})" >&2
      exit 1; }
done
rm -rf "$d"; mkdir -p "$d/lib"
cp "$b/tools/.libs/shardcheck" "$b/lib/cuda/rng_device_test" "$b/bench/bench_cuda" "$d/"
cp -L "$b/lib/.libs/libshardcheck.so.0" "$d/lib/"
# the CUDA math recorders gpu_lease.sh runs, where this build made them (make
# tools/gpu/record_cuda_math tools/gpu/rcp64h_compare tools/gpu/rcp64h_scan tools/gpu/sfu_scan)
for f in record_cuda_math rcp64h_compare rcp64h_scan sfu_scan; do
  [ -x "$b/tools/gpu/$f" ] && cp "$b/tools/gpu/$f" "$d/"
done
# the libraries ldd resolves outside the C/C++ runtime and OpenSSL; OpenMPI's apart, in lib/mpi:
# gpu_check.sh uses them only where the machine has no libmpi.so.40 of its own (its mpirun's
# plugins match its own library, not ours)
libs() { ldd "$1" | awk '$3 ~ /^\// {print $3}' | grep -v "$b" |
  grep -vE '/(libc|libm|libstdc\+\+|libgcc_s|libcrypto|libdl|librt|libpthread)\.so'; }
mkdir -p "$d/lib/mpi"
mpi=$(LD_LIBRARY_PATH="$b/lib/.libs" ldd "$d/shardcheck" | awk '$1 ~ /^libmpi\.so/ {print $3}')
mpidep=""; [ -n "$mpi" ] && mpidep=$(libs "$mpi"; echo "$mpi")
LD_LIBRARY_PATH="$b/lib/.libs" libs "$d/shardcheck" | while read -r l; do
  if printf '%s\n' "$mpidep" | grep -qxF "$l"; then cp -L "$l" "$d/lib/mpi/"
  else cp -L "$l" "$d/lib/"; fi
done
strip "$d/shardcheck" "$d/rng_device_test" "$d/bench_cuda" "$d"/lib/*.so* "$d"/lib/mpi/*.so* \
  "$d"/record_cuda_math "$d"/rcp64h_compare "$d"/rcp64h_scan "$d"/sfu_scan 2>/dev/null || true
# what was staged, for the run's env.log: the source commit and the build's CUDA settings
{
  echo "staged $(date -u +%FT%TZ) from $(cd "$b" && pwd)"
  src=$(sed -n 's/^abs_top_srcdir = //p' "$b/Makefile" 2>/dev/null)
  echo "source: $src $(git -C "${src:-.}" describe --always --dirty 2>/dev/null || echo unknown)"
  grep -E '^(NVCC_ARCH|NCCL_LIBDIR|CUDA_LIBS) =' "$b/Makefile" 2>/dev/null
} >"$d/stage.txt"
du -sh "$d" | sed 's/^/gpu_stage.sh: staged /'
