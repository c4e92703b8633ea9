#!/bin/sh
# bench_zygote.sh — what a torch worker's start costs with the zygote (tools/harness/
# torch_zygote.py: each worker a fork of a process that imported torch) against without it
# (each worker imports torch itself), in one invocation on the same command:
# `mpirun -np NP shardcheck run --backend torch --max-cases CASES` over every family, RUNS
# times per mode, the modes alternating, as a job runs it again and again (each np, each test).
#
#   SHARDCHECK=_build/tools/shardcheck sh bench/bench_zygote.sh [NP] [CASES] [RUNS]
#
# Environment: SHARDCHECK (default _build/tools/shardcheck), SHARDCHECK_PYTHON (default
# .venv/bin/python), MPIRUN (default mpirun), GOLDEN (default golden).
# CPU is the whole machine's (user + system from /proc/stat over each run): the forked workers
# are the zygote's children, not mpirun's, so no one process's rusage holds them all; run it
# on an otherwise idle machine.  The zygote starts once, before the runs, and its own import
# is printed apart (a job pays it once).  Prints the mean CPU-s and wall per run of each mode
# and the ratio zygote/exec.
set -u
np=${1:-2}; cases=${2:-12}; runs=${3:-3}
S=${SHARDCHECK:-_build/tools/shardcheck}
PY=${SHARDCHECK_PYTHON:-.venv/bin/python}
G=${GOLDEN:-golden}
MPI="${MPIRUN:-mpirun} --oversubscribe --bind-to none"
[ "$(id -u)" -eq 0 ] && MPI="$MPI --allow-run-as-root"
export SHARDCHECK_PYTHON="$PY" OMPI_MCA_mpi_warn_on_fork=0 OMP_NUM_THREADS=1
tmp=$(mktemp -d)
ticks() { awk '/^cpu / { print $2 + $3 + $4 }' /proc/stat; }
hz=$(getconf CLK_TCK)
secs() { awk -v t="$1" -v hz="$hz" 'BEGIN { printf "%.2f", t / hz }'; }
t0=$(ticks)
"$PY" tools/harness/torch_zygote.py serve "$tmp/z.sock" >"$tmp/z.log" 2>&1 &
zp=$!
trap 'kill $zp 2>/dev/null; rm -rf "$tmp"' EXIT
while ! grep -q serving "$tmp/z.log" 2>/dev/null; do
  kill -0 $zp 2>/dev/null || { cat "$tmp/z.log"; exit 1; }; sleep 0.1
done
echo "zygote's start (its import of torch, once per job): $(secs $(( $(ticks) - t0 ))) CPU-s"
cpu_e=0 cpu_z=0 wall_e=0 wall_z=0
for k in $(seq "$runs"); do
  for mode in exec zygote; do
    z=; [ $mode = zygote ] && z="$tmp/z.sock"
    a=$(ticks); w=$(date +%s.%N)
    last=$(SHARDCHECK_TORCH_ZYGOTE=$z $MPI -np "$np" "$S" run --backend torch --golden "$G" \
           --max-cases "$cases" --timeout 120 2>/dev/null | grep -E '^[0-9]+ passed' | tail -n 1)
    c=$(( $(ticks) - a )); dw=$(echo "$(date +%s.%N) - $w" | bc)
    echo "  run $k, $mode: $(secs $c) CPU-s, ${dw%??????} s wall: $last"
    if [ $mode = exec ]; then cpu_e=$((cpu_e + c)); wall_e=$(echo "$wall_e + $dw" | bc)
    else cpu_z=$((cpu_z + c)); wall_z=$(echo "$wall_z + $dw" | bc); fi
  done
done
awk -v e="$cpu_e" -v z="$cpu_z" -v we="$wall_e" -v wz="$wall_z" -v n="$runs" -v hz="$hz" \
    -v np="$np" -v c="$cases" 'BEGIN {
  printf "np %d, every family, %d cases each, mean of %d runs:\n", np, c, n
  printf "  exec   (each worker imports torch): %.2f CPU-s, %.2f s wall\n", e / hz / n, we / n
  printf "  zygote (each worker a fork):        %.2f CPU-s, %.2f s wall\n", z / hz / n, wz / n
  printf "  zygote/exec: CPU %.2fx, wall %.2fx\n", z / e, wz / we }'
