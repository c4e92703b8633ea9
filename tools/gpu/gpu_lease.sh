#!/usr/bin/env bash
# gpu_lease.sh — everything shardcheck asks of a lent GPU, in one device call of at most 10
# minutes (docs/gpu-check.md):
#   1. tools/gpu/gpu_check.sh: the CUDA backend (device test, bench_cuda, run --backend cuda at
#      np 1, 2, 4) -> OUT/check/{summary.txt,summary.json,gpu_check.log,logs.tar.gz};
#   2. record_cuda_math (staged, built here for sm_90): the MUFU.RCP64H tables and the libdevice
#      vectors kept, the SFU binades hashed (sha256 against the H100 recordings in
#      shared/gpu/sfu, which do not travel) -> OUT/math.tar.xz;
#      rcp64h_scan: all 2^32 high words through the unit against lib/rng/cuda_rcp64h.c;
#      sfu_scan: all 2^32 floats through MUFU.RCP and MUFU.EX2 against cuda_sfu_rcp_ex2.c;
#   3. tools/gpu/record_float64_sms.py: torch's float64 normal_/exponential_ against the model at
#      the GPU's own SM count and, under MPS, at fewer SMs (LEASE_MPS percentages) -> OUT/f64.tar.xz;
#   4. the harness's torch-cuda-rng adapter: torch's own CUDA kernels against golden/ -> lease.log;
#   5. (LEASE_STEPS torchbench, not by default) bench_cuda and torch's own fills in one call.
# LEASE_STEPS picks steps (default "check math f64 harness"), LEASE_BUDGET the seconds (520),
# LEASE_KEEP the SFU binades brought back whole (file-name prefixes, e.g. "ex2 rcp_").
# Usage: tools/gpu/gpu_stage.sh, then the device tool's run with command `tar -xJf
# .gpu_carry/stage.tar.xz && bash tools/gpu/gpu_lease.sh .gpu_stage`, carry [".gpu_carry"]
# (docs/gpu-check.md: the stage with record_cuda_math, rcp64h_compare and rcp64h_scan, built
# for sm_90, tarred: the tree and the stage together exceed the tool's 64 MiB untarred).
# Seven files come back (the tool returns at most eight).  Not run by make check: it needs
# a GPU (gpu_check.sh's own dry run is tested).
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
st=${1:?usage: gpu_lease.sh STAGE}
st=$(cd "$st" && pwd)
out=${OUT:?gpu_lease.sh: \$OUT is unset}
t0=$(date +%s)
log=$out/lease.log
say() { printf '[%4ss] %s\n' $(($(date +%s) - t0)) "$*" | tee -a "$log"; }
left() { echo $((${LEASE_BUDGET:-520} - ($(date +%s) - t0))); }

steps=" ${LEASE_STEPS:-check math f64 harness} "
want() { case $steps in *" $1 "*) return 0 ;; esac; return 1; }
say "gpu_lease: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1)"
cat "$st/stage.txt" >>"$log" 2>/dev/null

# ---- 1. the CUDA backend ----
if want check; then
  bash "$here/tools/gpu/gpu_check.sh" --bin "$st" --out "$out/check" --budget 250 >>"$log" 2>&1
  say "gpu_check: exit $?: $(head -n 1 "$out/check/summary.txt" 2>/dev/null)"
fi
export LD_LIBRARY_PATH="$st/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# ---- 2. CUDA math tables ----
if want math; then
m=$(mktemp -d)
mkdir -p "$m/keep"
if timeout 90 "$st/record_cuda_math" "$m" "$here/conformance/tests/data/libdevice/vectors.txt" \
     >"$m/keep/record.log" 2>&1; then
  (cd "$m" && sha256sum ./*.raw ./*.u8) >"$m/keep/binades.sha256"
  # binades to bring back whole (LEASE_KEEP, e.g. "ex2 rcp_"): one xz file each in OUT
  for k in ${LEASE_KEEP:-}; do
    for r in "$m/$k"*.raw; do [ -f "$r" ] && xz -T0 -6 "$r" && mv "$r.xz" "$out/"; done
  done
  mv "$m"/rcp64h_*.raw "$m"/libdevice_gpu.txt "$m/keep/"
  "$st/rcp64h_compare" "$m/keep" >"$m/keep/rcp64h_compare.txt" 2>&1
  say "rcp64h_compare: exit $?: $(tail -n 1 "$m/keep/rcp64h_compare.txt")"
  if grep -v '^#' "$here/conformance/tests/data/libdevice/vectors.txt" |
     diff - "$m/keep/libdevice_gpu.txt" >"$m/keep/libdevice_diff.txt"; then
    say "libdevice vectors: the GPU agrees with the host oracle"
  else say "libdevice vectors: $(grep -c '^<' "$m/keep/libdevice_diff.txt") lines differ"; fi
else say "record_cuda_math: failed: $(tail -n 2 "$m/keep/record.log")"; fi
if [ -x "$st/rcp64h_scan" ]; then
  OMP_NUM_THREADS=$(nproc) timeout 120 "$st/rcp64h_scan" 64 >"$m/keep/rcp64h_scan.txt" 2>&1
  say "rcp64h_scan: exit $?: $(tail -n 1 "$m/keep/rcp64h_scan.txt")"
fi
if [ -x "$st/sfu_scan" ]; then
  OMP_NUM_THREADS=$(nproc) timeout 150 "$st/sfu_scan" 32 >"$m/keep/sfu_scan.txt" 2>&1
  say "sfu_scan: exit $?: $(tail -n 1 "$m/keep/sfu_scan.txt")"
fi
tar -cJf "$out/math.tar.xz" -C "$m/keep" . && rm -rf "$m"
say "math.tar.xz: $(du -h "$out/math.tar.xz" | cut -f1)"
fi

# ---- 3. float64 at this GPU's SM count, then at fewer under MPS ----
export PYTHONUNBUFFERED=1
if want f64; then
f=$(mktemp -d)
f64() {   # LABEL LIMIT: one recording, cut to what is left of the budget
  local l; l=$(left); [ "$l" -gt 40 ] || { say "f64 $1: skipped, out of budget"; return; }
  [ "$l" -lt "$2" ] || l=$2
  timeout -k 5 "$l" python3 "$here/tools/gpu/record_float64_sms.py" --shardcheck \
    "$st/shardcheck" --out "$f/f64_$1.json" --label "$1" >>"$f/f64.log" 2>&1
  say "f64 $1: exit $?: $(grep 'record_float64_sms:' "$f/f64.log" | tail -n 1)"
}
f64 full 150
if command -v nvidia-cuda-mps-control >/dev/null; then
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps/pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps/log
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  if timeout 20 nvidia-cuda-mps-control -d; then
    # does a client see fewer SMs?  A probe first, so a broken MPS costs seconds, not recordings
    sms=$(CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50 timeout 40 python3 -c \
      'import torch; print(torch.cuda.get_device_properties(0).multi_processor_count)' 2>&1 |
      tail -n 1)
    say "MPS at 50%: the client sees '$sms' SMs"
    case $sms in
      ''|*[!0-9]*|132) say "MPS: no smaller SM count seen; no MPS recordings" ;;
      *) for pct in ${LEASE_MPS:-50 29}; do
           CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$pct f64 mps$pct 100; done ;;
    esac
    echo quit | timeout 20 nvidia-cuda-mps-control
    cp "$CUDA_MPS_LOG_DIRECTORY/control.log" "$f/mps_control.log" 2>/dev/null
  else say "MPS: nvidia-cuda-mps-control -d failed"; fi
else say "MPS: no nvidia-cuda-mps-control"; fi
tar -cJf "$out/f64.tar.xz" -C "$f" . && rm -rf "$f"
fi

# ---- 4. torch's own CUDA random kernels against the golden torch-cuda-rng cases ----
if want harness; then
  l=$(left); [ "$l" -lt 200 ] || l=200
  if [ "$l" -gt 30 ]; then
    SHARDCHECK=$st/shardcheck timeout -k 5 "$l" python3 "$here/tools/harness/run.py" \
      --adapter "$here/tools/harness/adapters/torch_cuda_rng.py" --family torch-cuda-rng \
      --no-schema >"$out/harness.log" 2>&1
    say "harness torch-cuda-rng: exit $?: $(grep -v '^ ' "$out/harness.log" | tail -n 3 | tr '\n' ' ')"
  else say "harness: skipped, out of budget"; fi
fi
# ---- 5. torch's own fills beside bench_cuda's, in the same call (the ratio's peer) ----
if want torchbench; then
  for sp in $(python3 -c 'import site; print(" ".join(site.getsitepackages()))' 2>/dev/null); do
    for d in "$sp"/nvidia/*/lib; do [ -d "$d" ] && LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$d"; done
  done
  timeout 120 "$st/bench_cuda" >"$out/bench_cuda.log" 2>&1
  timeout 120 python3 "$here/tools/gpu/bench_torch_fill.py" "$out/bench_cuda.log" \
    >"$out/bench_torch.log" 2>&1
  say "torchbench: exit $?: $(grep -c GB/s "$out/bench_torch.log") figures"
fi
say "done"
