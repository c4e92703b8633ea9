#!/usr/bin/env bash
# gpu_check.sh — the CUDA backend on a GPU in one call (issue 33 item 5): the device test, `run
# --backend cuda` in one process and under mpirun at np 1, 2 and 4 (NCCL where each rank has a GPU,
# host-staged MPI where they share one), bench_cuda (fills against cuRAND and the fill bandwidth);
# every step under its own timeout, its log kept, its status in a summary (text and JSON).
#
#   gpu_check.sh [--bin DIR | --build DIR] [--out DIR] [--golden DIR] [--dry-run]
#                [--budget S] [--max-cases N] [--mpirun PATH]
#
#   --bin DIR    binaries staged by tools/gpu/gpu_stage.sh (DIR/shardcheck, DIR/rng_device_test,
#                DIR/bench_cuda, DIR/lib) or a build folder (DIR/tools/shardcheck, ...)
#   --build DIR  configure --with-cuda (sm_90 only) and make the three programs in DIR first
#   --out DIR    where summary.txt, summary.json, gpu_check.log and logs.tar.gz go (default $OUT)
#   --dry-run    no GPU is used (CUDA_VISIBLE_DEVICES= for every step): the run steps put the CPU
#                grid emulator in the device's place (SHARDCHECK_CUDA_EMULATE=a100, --max-cases 6),
#                the GPU-only steps report "skipped: no GPU"; the summary is written the same way
#   --budget S   seconds for the whole script (default 540: inside the device tool's 600-s call);
#                each step's timeout is cut to what is left, a step with none left is "skipped"
#
# Exit: 0 every step passed (or, in a dry run, passed or skipped), 1 a step failed, 3 incomplete
# (a real run in which a GPU step was skipped), 2 bad usage.  Tested by
# conformance/tests/gpu_script_dry.sh (the dry run, in make check); docs/gpu-check.md says how
# to run it on a lent GPU.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
bin=""; build=""; out=${OUT:-}; golden="$here/golden"; dry=no; budget=540; maxc=""
mpirun_cmd=$(command -v mpirun || true)
usage() { echo "usage: gpu_check.sh [--bin DIR|--build DIR] [--out DIR] [--golden DIR]" \
  "[--dry-run] [--budget S] [--max-cases N] [--mpirun PATH]" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --bin) [ $# -ge 2 ] || usage; bin=$2; shift 2 ;;
    --build) [ $# -ge 2 ] || usage; build=$2; shift 2 ;;
    --out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
    --golden) [ $# -ge 2 ] || usage; golden=$2; shift 2 ;;
    --dry-run) dry=yes; shift ;;
    --budget) [ $# -ge 2 ] || usage; budget=$2; shift 2 ;;
    --max-cases) [ $# -ge 2 ] || usage; maxc=$2; shift 2 ;;
    --mpirun) [ $# -ge 2 ] || usage; mpirun_cmd=$2; shift 2 ;;
    *) echo "gpu_check.sh: unknown argument '$1'" >&2; usage ;;
  esac
done
[ -n "$out" ] || { echo "gpu_check.sh: no --out and \$OUT is unset" >&2; exit 2; }
case $budget in
  ''|*[!0-9]*) echo "gpu_check.sh: --budget '$budget': not a number of seconds" >&2; exit 2 ;;
esac
[ -z "$bin" ] || [ -d "$bin" ] || { echo "gpu_check.sh: --bin '$bin': no such folder" >&2; exit 2; }
[ -n "$bin" ] || [ -n "$build" ] ||
  { echo "gpu_check.sh: give --bin DIR or --build DIR" >&2; exit 2; }
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
logs=$(mktemp -d); trap 'rm -rf "$logs"' EXIT
t0=$(date +%s)
steps=()          # "name<TAB>status<TAB>seconds<TAB>detail"
[ $dry = yes ] && { export CUDA_VISIBLE_DEVICES=; [ -n "$maxc" ] || maxc=6; }
export OMPI_MCA_mpi_warn_on_fork=0

say() { printf '%s\n' "$*" | tee -a "$out/gpu_check.log"; }
left() { echo $((budget - ($(date +%s) - t0))); }
record() { steps+=("$1	$2	$3	$4"); say "[$1] $2 (${3}s)${4:+: $4}"; }

# step NAME TIMEOUT CMD...: runs CMD with its output in $logs/NAME.log; sets rc (124: timed out)
step() {
  local name=$1 lim=$2; shift 2
  local l; l=$(left); [ "$lim" -le "$l" ] || lim=$((l - 5))
  if [ "$lim" -le 0 ]; then rc=125; return; fi
  local s; s=$(date +%s)
  { echo "\$ $*"; timeout -k 5 "$lim" "$@"; } >"$logs/$name.log" 2>&1; rc=$?
  secs=$(($(date +%s) - s))
  [ $rc -eq 137 ] && rc=124
}
lastline() { grep -v '^\$ ' "$logs/$1.log" | tail -n 1; }
skip77() {   # NAME: the status of a step whose program exited 77
  if grep -q 'built without CUDA' "$logs/$1.log"; then echo "skipped: built without CUDA"
  else echo "skipped: no GPU"; fi
}
reason77() { grep -m1 -iE 'skipped|no usable|no CUDA|built without' "$logs/$1.log" | head -c 200; }

# ---- environment (always): what the machine has, for the summary ----
{
  echo "date: $(date -u +%FT%TZ)  host: $(uname -n)  dry-run: $dry"
  [ -f "$bin/stage.txt" ] && cat "$bin/stage.txt"
  timeout 30 nvidia-smi -L 2>&1 || echo "nvidia-smi: not found or failed"
  command -v nvcc >/dev/null && nvcc --version | tail -n 2
  if [ -n "$mpirun_cmd" ]; then timeout 30 "$mpirun_cmd" --version 2>&1 | head -n 1
  else echo "mpirun: not found"; fi
  # torch's view of the device, on a real run only (the import alone takes seconds)
  [ $dry = yes ] || timeout 60 python3 -c \
    'import torch; print("torch", torch.__version__, torch.cuda.is_available())' 2>&1 | tail -n 1
} >"$logs/env.log" 2>&1
gpu_name=$(timeout 30 nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
[ $dry = yes ] && gpu_name=""
record env pass 0 "${gpu_name:-no GPU}"

# libraries a run needs beside the staged ones: NCCL and cuRAND from the python's nvidia packages
nv_dirs=()
for sp in $(python3 -c 'import site; print(" ".join(site.getsitepackages()))' 2>/dev/null); do
  for d in "$sp"/nvidia/*/lib; do
    [ -d "$d" ] && nv_dirs+=("$d") && LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$d"
  done
done
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}

# ---- build (only with --build) ----
if [ -n "$build" ]; then
  mkdir -p "$build" 2>/dev/null
  # NCCL's header from the python's nvidia-nccl wheel, where configure's own search (a .venv in
  # the tree) finds none
  cfg=(--with-cuda=yes "NVCC_ARCH=-gencode arch=compute_90,code=sm_90")
  for d in "${nv_dirs[@]}"; do
    [ -f "$d/../include/nccl.h" ] && cfg+=("--with-nccl=$(cd "$d/.." && pwd)") && break
  done
  # a child shell, not a function: timeout runs programs
  step build 300 bash -c 'cd "$1" && h=$2 && shift 2 &&
    { [ -x "$h/configure" ] || (cd "$h" && autoreconf -fi); } &&
    { [ -f Makefile ] || "$h/configure" "$@"; } &&
    make -j"$(nproc)" tools/shardcheck lib/cuda/rng_device_test bench/bench_cuda' \
    _ "$build" "$here" "${cfg[@]}"
  if [ $rc -eq 0 ]; then record build pass "$secs" "$build"; bin=$build
  else
    why=$(grep -m1 -E 'error|No rule|not found|timed out' "$logs/build.log" || lastline build)
    record build fail "${secs:-0}" "exit $rc: $(printf '%s' "$why" | head -c 160)"
  fi
else
  record build "skipped: prebuilt binaries" 0 "$bin"
fi

# the three programs, staged or in a build folder
if [ -n "$bin" ] && [ -x "$bin/shardcheck" ]; then
  SC=$bin/shardcheck; DT=$bin/rng_device_test; BC=$bin/bench_cuda
  export LD_LIBRARY_PATH="$bin/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  # OpenMPI: the machine's own libmpi.so.40 where it has one (its mpirun's plugins belong to it),
  # else the staged one (Debian 12's OpenMPI 4.1, whose plugins the machine may lack)
  own=""
  [ -n "$mpirun_cmd" ] && own=$(dirname "$(readlink -f "$(command -v "$mpirun_cmd")")")/../lib
  if [ -d "$bin/lib/mpi" ]; then
    if [ -n "$own" ] && [ -e "$own/libmpi.so.40" ]; then
      export LD_LIBRARY_PATH="$(cd "$own" && pwd):$LD_LIBRARY_PATH"
      say "libmpi: the machine's ($own)"
    elif /sbin/ldconfig -p 2>/dev/null | grep -q 'libmpi\.so\.40 '; then say "libmpi: the machine's"
    else export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$bin/lib/mpi"; say "libmpi: staged"; fi
  fi
else
  SC=$bin/tools/shardcheck; DT=$bin/lib/cuda/rng_device_test; BC=$bin/bench/bench_cuda
fi
# staged binaries are plain executables (a build folder's shardcheck is libtool's wrapper)
[ -x "$bin/shardcheck" ] && ldd "$SC" "$DT" "$BC" 2>/dev/null |
  grep 'not found' | sort -u >"$logs/ldd_missing.log"
[ -s "$logs/ldd_missing.log" ] &&
  say "missing libraries: $(tr -s ' \t\n' ' ' <"$logs/ldd_missing.log")"
cuda_built=no; [ -x "$DT" ] && cuda_built=yes
no_cuda="built without CUDA"; [ -z "$bin" ] && no_cuda="the build failed"

# a program that exits 77 names why: a skip, not a failure; a GPU step skipped in a real run
# leaves the run incomplete
judge_gpu() {   # NAME: after step, for a program run directly on the device
  local name=$1
  if [ $rc -eq 0 ]; then record "$name" pass "$secs" "$(lastline "$name" | head -c 160)"
  elif [ $rc -eq 77 ]; then record "$name" "$(skip77 "$name")" "$secs" "$(reason77 "$name")"
  elif [ $rc -eq 125 ]; then record "$name" "skipped: out of time budget" 0 ""
  elif [ $rc -eq 124 ]; then record "$name" fail "$secs" "timed out"
  else record "$name" fail "$secs" "exit $rc: $(lastline "$name" | head -c 160)"; fi
}

# ---- the device test: GPU output against the CPU reference ----
if [ $cuda_built = yes ]; then step device_test 90 "$DT"; judge_gpu device_test
else record device_test "skipped: $no_cuda" 0 "no $DT"; fi

# ---- bench_cuda: shardcheck's fills against cuRAND's Philox and the plain fill; before the
# runs, which take the longest, so the budget cuts them rather than the figures ----
bench_json=""
if [ $cuda_built = yes ]; then
  step bench_cuda 90 "$BC"; judge_gpu bench_cuda
  if [ $rc -eq 0 ]; then
    num() { grep -m1 "^$1" "$logs/bench_cuda.log" | sed -n 's/^[^0-9]*\([0-9.]*\) GB\/s.*/\1/p'; }
    for k in "fill:fill " "uniform:shardcheck uniform" "normal:shardcheck normal" \
             "curand_uniform:cuRAND Philox uniform" "curand_normal:cuRAND Philox normal"; do
      v=$(num "${k#*:}")
      [ -n "$v" ] && bench_json="$bench_json${bench_json:+, }\"${k%%:*}_gbps\": $v"
    done
  fi
else record bench_cuda "skipped: $no_cuda" 0 "no $BC"; fi

# ---- run --backend cuda: in one process, then under mpirun ----
emu=(); maxa=()
[ $dry = yes ] && emu=(env SHARDCHECK_CUDA_EMULATE=a100)
[ -n "$maxc" ] && maxa=(--max-cases "$maxc")
comm_of() { grep -o 'redistribute collectives [^(]*' "$logs/$1.log" | head -n 1 | sed 's/ *$//'; }
judge_run() {   # NAME WANT: WANT, if set, is the pass line the run must equal (the mpi backend's)
  local name=$1 want=${2:-} got; got=$(lastline "$name")
  local how; how=$(comm_of "$name"); how=${how:+, $how}
  # a run that checked nothing ("0 passed") is no pass
  if [ $rc -eq 0 ] && printf '%s' "$got" | grep -Eq '^[1-9][0-9]* passed, 0 failed' &&
     { [ -z "$want" ] || [ "$got" = "$want" ]; }; then
    record "$name" pass "$secs" "$got$how"
  elif [ $rc -eq 77 ]; then record "$name" "$(skip77 "$name")" "$secs" "$(reason77 "$name")"
  elif [ $rc -eq 125 ]; then record "$name" "skipped: out of time budget" 0 ""
  elif [ $rc -eq 124 ]; then record "$name" fail "$secs" "timed out"
  else record "$name" fail "$secs" "exit $rc: $got${want:+ (mpi backend: $want)}"; fi
}
if [ $cuda_built = no ]; then
  for n in run_np1_torch-cuda-rng run_np1_redistribute-data mpi_np1 mpi_np2 mpi_np4; do
    record $n "skipped: $no_cuda" 0 ""; done
else
  for f in torch-cuda-rng redistribute-data; do
    step run_np1_$f 120 "${emu[@]}" "$SC" run --backend cuda --golden "$golden" --family $f \
      "${maxa[@]}"
    judge_run run_np1_$f
  done
  mpi=("$mpirun_cmd" --oversubscribe --allow-run-as-root -x CUDA_VISIBLE_DEVICES \
    -x LD_LIBRARY_PATH)
  [ $dry = yes ] && mpi+=(-x SHARDCHECK_CUDA_EMULATE)
  # can this mpirun start shardcheck's MPI at all (another MPI, plugins missing)?  If not, the
  # mpi steps skip with its message instead of each waiting out its timeout
  no_mpi=""; no_mpi_why=""
  if [ -z "$mpirun_cmd" ]; then no_mpi="no mpirun"
  else
    step mpi_probe 30 "${mpi[@]}" -np 1 "$SC" run --backend mpi --golden "$golden" \
      --family redistribute-data --max-cases 1
    if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then
      no_mpi="mpirun cannot start MPI"
      no_mpi_why="$mpirun_cmd -np 1: exit $rc: $(lastline mpi_probe | head -c 120) (mpi_probe.log)"
    fi
  fi
  for np in 1 2 4; do
    if [ -n "$no_mpi" ]; then record mpi_np$np "skipped: $no_mpi" 0 "$no_mpi_why"; continue; fi
    step mpi_np${np}_ref 45 "${mpi[@]}" -np $np "$SC" run --backend mpi --golden "$golden" \
      --family redistribute-data "${maxa[@]}"
    want=$(lastline mpi_np${np}_ref)
    if [ $rc -eq 77 ]; then
      record mpi_np$np "skipped: $(reason77 mpi_np${np}_ref | sed 's/.*skipped: //')" "$secs" ""
      continue
    fi
    if [ $rc -ne 0 ]; then
      record mpi_np$np fail "$secs" "the mpi backend itself: exit $rc: $want"; continue
    fi
    step mpi_np$np 90 "${emu[@]}" "${mpi[@]}" -np $np "$SC" run --backend cuda --golden "$golden" \
      --family redistribute-data "${maxa[@]}"
    judge_run mpi_np$np "$want"
  done
fi

# ---- summary ----
fails=0; skips=0
for s in "${steps[@]}"; do
  st=$(printf '%s' "$s" | cut -f2)
  case $st in
    fail) fails=$((fails + 1)) ;;
    "skipped: prebuilt binaries") ;;
    skipped:*) skips=$((skips + 1)) ;;
  esac
done
if [ $fails -gt 0 ]; then verdict=fail; code=1
elif [ $dry = yes ]; then verdict=dry-run; code=0
elif [ $skips -gt 0 ]; then verdict=incomplete; code=3
else verdict=pass; code=0; fi
total=$(($(date +%s) - t0))
jstr() { printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g' | tr -d '\000-\037')"; }
{
  echo "gpu_check: $verdict ($fails failed, $skips skipped; ${total}s; dry-run: $dry;" \
    "GPU: ${gpu_name:-none})"
  for s in "${steps[@]}"; do
    printf '%s\n' "$s" | awk -F'\t' '{printf "%-28s %-30s %4ss  %s\n", $1, $2, $3, $4}'
  done
  [ -n "$bench_json" ] && echo "bench: $bench_json"
} >"$out/summary.txt"
{
  printf '{\n  "verdict": "%s", "dry_run": %s, "failed": %d, "skipped": %d, "seconds": %d,\n' \
    "$verdict" "$([ $dry = yes ] && echo true || echo false)" $fails $skips $total
  printf '  "gpu": %s,\n  "bench": {%s},\n  "steps": [\n' "$(jstr "${gpu_name:-}")" "$bench_json"
  i=0
  for s in "${steps[@]}"; do
    i=$((i + 1)); IFS='	' read -r n st sec det <<EOF
$s
EOF
    printf '    {"name": %s, "status": %s, "seconds": %s, "detail": %s}%s\n' \
      "$(jstr "$n")" "$(jstr "$st")" \
      "${sec:-0}" "$(jstr "${det:-}")" "$([ $i -lt ${#steps[@]} ] && echo ,)"
  done
  printf '  ]\n}\n'
} >"$out/summary.json"
tar -czf "$out/logs.tar.gz" -C "$logs" . 2>/dev/null || say "logs.tar.gz: could not be written"
cat "$out/summary.txt"
exit $code
