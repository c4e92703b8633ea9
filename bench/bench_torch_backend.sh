#!/bin/sh
# bench_torch_backend.sh — cases per second of `shardcheck run --backend torch` (real DTensor in
# real processes, tools/harness/torch_worker.py), before and after a change a setting undoes
# (BENCH_BEFORE; by default the runner sending cases ahead, tools/run/run_torch.c:
# SHARDCHECK_TORCH_PIPELINE=1 is the runner as it was, one case at a time with the ranks
# agreeing in a blocking MPI_Allreduce; the default sends a chunk ahead and waits without
# spinning), and shardcheck's own mpi backend on the same cases as the peer.  The three
# run on the same sample in the same invocation, before and after alternating REPS times (the
# best of each is kept: the machine is shared), so the ratio compares like with like.
#
#   SHARDCHECK=_build/tools/shardcheck sh bench/bench_torch_backend.sh [NP] [CASES] [FAMILY...]
#
# Environment: SHARDCHECK (default _build/tools/shardcheck), SHARDCHECK_PYTHON (default
# .venv/bin/python), MPIRUN (default mpirun), GOLDEN (default golden), REPS (default 2),
# BENCH_BEFORE (the before-run's setting, default SHARDCHECK_TORCH_PIPELINE=1;
# SHARDCHECK_TORCH_PLAN_SHARE=0 is the worker before redistribute-plan's graph search ran on one
# rank per case, tools/harness/plan_share.py; SHARDCHECK_TORCH_GLOO_DEVICE=per-group the worker
# before its gloo groups shared one device, tools/harness/worker_world.py).
# Prints one line per family: cases, cases/s before, after, after/before, and the mpi backend's
# cases/s.  Cases/s is the runner's own per-case figure (--json "seconds": each chunk's time over
# its cases), so the job's start-up and the workers' torch import are not counted; "wall" is
# the whole after-run, start-up included.
set -u
np=${1:-2}; cases=${2:-200}; shift 2 2>/dev/null || shift $#
S=${SHARDCHECK:-_build/tools/shardcheck}
# default: the families the torch backend answers (its worker's own table)
fams=${*:-$(python3 tools/harness/torch_worker.py --families)}
PY=${SHARDCHECK_PYTHON:-.venv/bin/python}
G=${GOLDEN:-golden}
REPS=${REPS:-2}
BEFORE=${BENCH_BEFORE:-SHARDCHECK_TORCH_PIPELINE=1}
MPI="${MPIRUN:-mpirun} --oversubscribe --bind-to none"
[ "$(id -u)" -eq 0 ] && MPI="$MPI --allow-run-as-root"
export SHARDCHECK_PYTHON="$PY" OMPI_MCA_mpi_warn_on_fork=0 OMP_NUM_THREADS=1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
per_case() { # per_case JSON: seconds per case by the runner's own figure, and the passed count
  "$PY" -c 'import json, sys
d = json.load(open(sys.argv[1])); r = d["cases"]
print("%.6f %d %d" % (sum(x["seconds"] for x in r) / max(1, len(r)), len(r), d["passed"]))' "$1"
}
printf '%-18s %6s %11s %11s %8s %11s %8s   (np %s, best of %s; before: %s)\n' family cases \
  before/s after/s after/bef mpi/s wall_s "$np" "$REPS" "$BEFORE"
for f in $fams; do
  # the torch sample, as tcIds, then the same cases as a scratch corpus (no MANIFEST: a scratch
  # corpus is not the committed one, hence --no-manifest-check)
  $MPI -np "$np" "$S" run --backend torch --family "$f" --golden "$G" --max-cases "$cases" --tap \
    >"$tmp/tap" 2>/dev/null
  grep -v SKIP "$tmp/tap" | grep -Eo "^ok [0-9]+ - $f tc [0-9]+" | awk '{print $NF}' >"$tmp/ids"
  n=$(wc -l <"$tmp/ids")
  [ "$n" -gt 0 ] || { printf '%-18s %6s (no passing torch case at np %s)\n' "$f" 0 "$np"; continue; }
  rm -rf "$tmp/g"; mkdir -p "$tmp/g/$f"
  "$PY" - "$G/$f" "$tmp/g/$f" "$tmp/ids" <<'PYEOF'
import glob, json, os, sys
src, dst, ids = sys.argv[1:]
want = {int(x) for x in open(ids).read().split()}
for p in sorted(glob.glob(src + "/*.json")):
    d = json.load(open(p))
    for g in d["testGroups"]:
        g["tests"] = [t for t in g["tests"] if t["tcId"] in want]
    d["testGroups"] = [g for g in d["testGroups"] if g["tests"]]
    d["numberOfTests"] = sum(len(g["tests"]) for g in d["testGroups"])
    if d["numberOfTests"]:
        json.dump(d, open(os.path.join(dst, os.path.basename(p)), "w"))
PYEOF
  run="$S run --family $f --golden $tmp/g --no-manifest-check --json"
  best_b=; best_a=; wall=
  r=0
  while [ "$r" -lt "$REPS" ]; do
    env $BEFORE $MPI -np "$np" $run --backend torch >"$tmp/b.json" 2>/dev/null
    t0=$(date +%s.%N)
    $MPI -np "$np" $run --backend torch >"$tmp/a.json" 2>/dev/null
    t1=$(date +%s.%N)
    set -- $(per_case "$tmp/b.json"); b=$1
    set -- $(per_case "$tmp/a.json"); a=$1; na=$2; pa=$3
    best_b=$(echo "$b ${best_b:-$b}" | awk '{print ($1 < $2) ? $1 : $2}')
    best_a=$(echo "$a ${best_a:-$a}" | awk '{print ($1 < $2) ? $1 : $2}')
    wall=$(echo "$t0 $t1" | awk '{printf "%.1f", $2 - $1}')
    r=$((r + 1))
  done
  $MPI -np "$np" $run --backend mpi >"$tmp/m.json" 2>/dev/null
  set -- $(per_case "$tmp/m.json"); m=$1
  [ "$pa" = "$na" ] || echo "# $f: only $pa of $na cases passed in the after-run" >&2
  "$PY" -c 'import sys
f, n, b, a, m, wall = sys.argv[1:]
inv = lambda x: 1 / float(x) if float(x) > 0 else 0.0
b, a, m = inv(b), inv(a), inv(m)
print("%-18s %6d %11.1f %11.1f %7.2fx %11.0f %8s" % (f, int(n), b, a, a / b if b else 0, m, wall))' \
    "$f" "$na" "$best_b" "$best_a" "$m" "$wall"
done
