#!/bin/sh
# bench_worker.sh — the worker protocol's overhead per case: `shardcheck run --backend
# worker:CMD` with the tiny worker that answers from the golden file (conformance/tests/
# worker_golden.py: a dictionary lookup, so nearly all its time is the protocol: the case to
# JSON, the pipe, the parse, the answers back) against the in-process reference backend (`--backend
# ref`: forked workers computing each rank), on the same cases, in one process and under mpirun.
# Startup (the worker's import and golden load) is taken out by timing two sample sizes and
# dividing the difference by the difference in cases: seconds per case, each backend.
#
#   SHARDCHECK=_build/tools/shardcheck sh bench/bench_worker.sh [NP...]   (default 1 2)
#
# Environment: SHARDCHECK, MPIRUN (default mpirun), GOLDEN (default golden), FAMILY (default
# shard-layout), N1 and N2 (the two sample sizes, default 200 and 1200), PYTHON (default python3),
# SHARDCHECK_WORKER_PIPELINE (cases sent ahead, default 16; 1 to wait for each answer).
set -u
nps=${*:-1 2}
here=$(cd "$(dirname "$0")/.." && pwd)
S=${SHARDCHECK:-_build/tools/shardcheck}
G=${GOLDEN:-golden}
F=${FAMILY:-shard-layout}
N1=${N1:-200}
N2=${N2:-1200}
PY=${PYTHON:-python3}
MPI="${MPIRUN:-mpirun} --oversubscribe --bind-to none"
[ "$(id -u)" -eq 0 ] && MPI="$MPI --allow-run-as-root"
export OMPI_MCA_mpi_warn_on_fork=0 SHARDCHECK_NO_PROGRESS=1 GOLDEN="$G"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf '#!/bin/sh\nexec %s %s "$@"\n' "$PY" "$here/conformance/tests/worker_golden.py" >"$tmp/w.sh"
chmod +x "$tmp/w.sh"
one() { # one NP BACKEND N: wall seconds (the run must pass)
  pre=; [ "$1" -gt 1 ] && pre="$MPI -np $1"
  [ "$1" -eq 1 ] && [ "$2" != ref ] && [ -n "${UNDER_MPIRUN:-}" ] && pre="$MPI -np 1"
  t0=$(date +%s.%N)
  $pre "$S" run --backend "$2" --golden "$G" --family "$F" --max-cases "$3" >"$tmp/out" 2>&1 ||
    { echo "bench_worker: $2 at np $1 did not pass:" >&2; tail -n 3 "$tmp/out" >&2; exit 1; }
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc
}
printf '%4s %-8s %10s %10s %12s\n' np backend "wall($N1)" "wall($N2)" "ms/case"
for np in $nps; do
  # the ref backend runs in one process only; under mpirun its peer is mpi
  for be in ref "worker:$tmp/w.sh"; do
    b=$be; [ "$np" -gt 1 ] && [ "$be" = ref ] && b=mpi
    a=$(one "$np" "$b" "$N1"); z=$(one "$np" "$b" "$N2")
    printf '%4s %-8s %10.2f %10.2f %12.3f\n' "$np" "${b%%:*}" "$a" "$z" \
      "$(echo "($z - $a) * 1000 / ($N2 - $N1)" | bc -l)"
  done
done
