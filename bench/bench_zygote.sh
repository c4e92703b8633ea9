#!/bin/sh
# bench_zygote.sh — what a torch worker's start costs with the zygote (tools/harness/
# torch_zygote.py: each worker a fork of a process that imported torch) against without it
# (each worker imports torch itself), in one invocation on the same command, alternating REPS
# times: `mpirun -np NP shardcheck run --backend torch --max-cases CASES` over every family.
#
#   SHARDCHECK=_build/tools/shardcheck sh bench/bench_zygote.sh [NP] [CASES]
#
# Environment: SHARDCHECK (default _build/tools/shardcheck), SHARDCHECK_PYTHON (default
# .venv/bin/python), MPIRUN (default mpirun), GOLDEN (default golden), REPS (default 2).
# CPU is the whole machine's (user + system from /proc/stat over the run): the forked workers
# are the zygote's children, not mpirun's, so no one process's rusage holds them all; run it
# on an otherwise idle machine.  The zygote's own import (once per job) is counted in its
# column.  Prints CPU-s and wall per mode (the best of REPS) and the ratio zygote/exec.
set -u
np=${1:-2}; cases=${2:-12}
S=${SHARDCHECK:-_build/tools/shardcheck}
PY=${SHARDCHECK_PYTHON:-.venv/bin/python}
G=${GOLDEN:-golden}
REPS=${REPS:-2}
MPI="${MPIRUN:-mpirun} --oversubscribe --bind-to none"
[ "$(id -u)" -eq 0 ] && MPI="$MPI --allow-run-as-root"
export SHARDCHECK_PYTHON="$PY" OMPI_MCA_mpi_warn_on_fork=0 OMP_NUM_THREADS=1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ticks() { awk '/^cpu / { print $2 + $3 + $4 }' /proc/stat; }
hz=$(getconf CLK_TCK)
one() { # one MODE: "cpu_s wall_s passed-line" of one run
  t0=$(ticks); w0=$(date +%s.%N)
  if [ "$1" = zygote ]; then
    "$PY" tools/harness/torch_zygote.py serve "$tmp/z.sock" >"$tmp/z.log" 2>&1 &
    zp=$!
    export SHARDCHECK_TORCH_ZYGOTE="$tmp/z.sock"
  else
    unset SHARDCHECK_TORCH_ZYGOTE
  fi
  last=$($MPI -np "$np" "$S" run --backend torch --golden "$G" --max-cases "$cases" --timeout 120 \
         2>/dev/null | grep -E '^[0-9]+ passed' | tail -n 1)
  if [ "$1" = zygote ]; then kill "$zp"; wait "$zp" 2>/dev/null; unset SHARDCHECK_TORCH_ZYGOTE; fi
  t1=$(ticks); w1=$(date +%s.%N)
  echo "$(( (t1 - t0) )) $w0 $w1 $last" | awk -v hz="$hz" '{ printf "%.1f %.1f", $1 / hz, $3 - $2;
    $1 = $2 = $3 = ""; print " " $0 }'
}
best_e=; best_z=
for k in $(seq "$REPS"); do
  for mode in exec zygote; do
    r=$(one $mode); c=${r%% *}
    echo "  rep $k $mode: $r"
    case $mode in
      exec) [ -z "$best_e" ] || awk -v a="$c" -v b="${best_e%% *}" 'BEGIN{exit !(a < b)}' && best_e=$r ;;
      zygote) [ -z "$best_z" ] || awk -v a="$c" -v b="${best_z%% *}" 'BEGIN{exit !(a < b)}' && best_z=$r ;;
    esac
  done
done
echo "np $np, every family, $cases cases each (best of $REPS):"
echo "  exec   (each worker imports torch): ${best_e%% *} CPU-s, $(echo "$best_e" | cut -d' ' -f2) s wall"
echo "  zygote (each worker a fork):        ${best_z%% *} CPU-s, $(echo "$best_z" | cut -d' ' -f2) s wall"
awk -v z="${best_z%% *}" -v e="${best_e%% *}" 'BEGIN { printf "  zygote/exec CPU: %.2fx\n", z / e }'
