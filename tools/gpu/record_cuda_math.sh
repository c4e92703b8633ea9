#!/bin/sh
# record_cuda_math.sh — record the CUDA math tables on this machine's GPU (docs/cuda-math.md):
#   tools/gpu/record_cuda_math.sh OUTDIR
# Builds tools/gpu/record_cuda_math.cu for the local GPU (nvcc -arch=native), writes the SFU
# binades (lg2, sin, cos, ex2, rcp), the MUFU.RCP64H tables and libdevice_gpu.txt into OUTDIR,
# compares the MUFU.RCP64H tables with lib/rng/cuda_rcp64h.c's model (tools/gpu/rcp64h_compare.c;
# rcp64h_model_diff.txt lists where the model is wrong in libdevice log's range), compresses the
# binades with xz, and diffs the libdevice outputs against the committed host-oracle vectors (a
# difference means libdevice or its host oracle disagree on this GPU: report it; the oracle
# models MUFU.RCP64H as the truncated reciprocal, so a log or log1p line may differ by the seed
# alone).  Send OUTDIR with the GPU name printed first; shared/gpu/sfu/README.md shows how the
# H100 set was described.
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
# the model of MUFU.RCP64H against the table just recorded (self-contained C: an empty config.h)
mkdir -p "$out/cmp" && : > "$out/cmp/config.h"
${CC:-cc} -O2 -I"$out/cmp" -I"$top/lib/rng" -o "$out/cmp/rcp64h_compare" \
    "$top/tools/gpu/rcp64h_compare.c" "$top/lib/rng/cuda_rcp64h.c" -lm
"$out/cmp/rcp64h_compare" "$out" || echo "MUFU.RCP64H: the model differs from this GPU (see $out/rcp64h_model_diff.txt)"
for f in "$out"/*.raw "$out"/*.u8; do xz -f -T0 "$f"; done
if grep -v '^#' "$vec" | diff -q - "$out/libdevice_gpu.txt" >/dev/null; then
    echo "libdevice vectors: GPU agrees with the committed host oracle"
else
    echo "libdevice vectors: GPU DIFFERS from the committed host oracle:"
    grep -v '^#' "$vec" | diff - "$out/libdevice_gpu.txt" | head -20
fi
