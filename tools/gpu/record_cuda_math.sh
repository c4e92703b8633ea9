#!/bin/sh
# record_cuda_math.sh — record the CUDA math tables on this machine's GPU (docs/cuda-math.md):
#   tools/gpu/record_cuda_math.sh OUTDIR
# Builds tools/gpu/record_cuda_math.cu for the local GPU (nvcc -arch=native), writes the SFU
# binades, the MUFU.RCP64H table and libdevice_gpu.txt into OUTDIR, compresses the binades with
# xz, and diffs the libdevice outputs against the committed host-oracle vectors (a difference
# means libdevice or its host oracle disagree on this GPU: report it).  Send OUTDIR with the
# GPU name printed first; shared/gpu/sfu/README.md shows how the H100 set was described.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: record_cuda_math.sh OUTDIR}
mkdir -p "$out"
nvcc=${NVCC:-nvcc}
"$nvcc" -O2 -std=c++17 -arch=native -o "$out/record_cuda_math" "$top/tools/gpu/record_cuda_math.cu"
vec=$top/conformance/tests/data/libdevice/vectors.txt
"$out/record_cuda_math" "$out" "$vec"
"$nvcc" --version | tail -1 > "$out/nvcc_version.txt"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/gpu.txt" 2>/dev/null || true
for f in "$out"/*.raw "$out"/*.u8; do xz -f -T0 "$f"; done
if grep -v '^#' "$vec" | diff -q - "$out/libdevice_gpu.txt" >/dev/null; then
    echo "libdevice vectors: GPU agrees with the committed host oracle"
else
    echo "libdevice vectors: GPU DIFFERS from the committed host oracle:"
    grep -v '^#' "$vec" | diff - "$out/libdevice_gpu.txt" | head -20
fi
