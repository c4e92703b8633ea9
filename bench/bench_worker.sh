#!/bin/sh
# bench_worker.sh — the worker protocol's overhead per case: `shardcheck run --backend
# worker:CMD` with the tiny worker that answers from the golden file (conformance/tests/
# worker_golden.py: a dictionary lookup, so nearly all its time is the protocol: the case to
# JSON, the pipe, the parse, the answers back) against the in-process reference backend (`--backend
# ref`: forked workers computing each rank), on the same cases, in one process and under mpirun.
# Startup (the worker's import and golden load, shardcheck's corpus check) is left out: the
# time is the sum of the cases' own seconds in `run --json` (each chunk's time over its cases:
# requests, answers and the checks, which are the same for both), per case.  Wall time beside.
#
#   SHARDCHECK=_build/tools/shardcheck sh bench/bench_worker.sh [NP...]   (default 1 2)
#
# Environment: SHARDCHECK, MPIRUN (default mpirun), GOLDEN (default golden), FAMILY (default
# shard-layout), N (cases, default 4000), REPS (best of, default 3), PYTHON (default python3),
# SHARDCHECK_WORKER_PIPELINE (cases sent ahead, default 16; 1 to wait for each answer).
set -u
nps=${*:-1 2}
here=$(cd "$(dirname "$0")/.." && pwd)
S=${SHARDCHECK:-_build/tools/shardcheck}
G=${GOLDEN:-golden}
F=${FAMILY:-shard-layout}
N=${N:-4000}
REPS=${REPS:-3}
PY=${PYTHON:-python3}
MPI="${MPIRUN:-mpirun} --oversubscribe --bind-to none"
[ "$(id -u)" -eq 0 ] && MPI="$MPI --allow-run-as-root"
export OMPI_MCA_mpi_warn_on_fork=0 SHARDCHECK_NO_PROGRESS=1 GOLDEN="$G"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf '#!/bin/sh\nexec %s %s "$@"\n' "$PY" "$here/conformance/tests/worker_golden.py" >"$tmp/w.sh"
chmod +x "$tmp/w.sh"
one() { # one NP BACKEND: "wall ms/case" (the run must pass)
  pre=; [ "$1" -gt 1 ] && pre="$MPI -np $1"
  t0=$(date +%s.%N)
  $pre "$S" run --backend "$2" --golden "$G" --family "$F" --max-cases "$N" --json \
    >"$tmp/out" 2>"$tmp/err" ||
    { echo "bench_worker: $2 at np $1 did not pass:" >&2; tail -n 3 "$tmp/err" >&2; exit 1; }
  t1=$(date +%s.%N)
  "$PY" -c 'import json, sys
d = json.load(open(sys.argv[1])); c = d["cases"]
print("%.2f %.4f" % (float(sys.argv[2]), 1000 * sum(x["seconds"] for x in c) / len(c)))' \
    "$tmp/out" "$(echo "$t1 - $t0" | bc)"
}
printf '%4s %-8s %7s %10s %12s\n' np backend cases "wall(s)" "ms/case"
for np in $nps; do
  # the ref backend runs in one process only; under mpirun its peer is mpi
  for be in ref "worker:$tmp/w.sh"; do
    b=$be; [ "$np" -gt 1 ] && [ "$be" = ref ] && b=mpi
    best=; i=0
    while [ $i -lt "$REPS" ]; do
      r=$(one "$np" "$b") || exit 1
      ms=${r#* }
      [ -z "$best" ] || [ "$(echo "$ms < ${best#* }" | bc)" -eq 1 ] && best=$r
      i=$((i + 1))
    done
    printf '%4s %-8s %7s %10s %12s\n' "$np" "${b%%:*}" "$N" "${best% *}" "${best#* }"
  done
done
