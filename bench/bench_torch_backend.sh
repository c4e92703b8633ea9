#!/bin/sh
# bench_torch_backend.sh — per-case time of `shardcheck run --backend torch` (real DTensor in real
# processes, tools/harness/torch_worker.py) against shardcheck's own mpi backend on the same cases
# and the same number of ranks, and the ratio.  Both runs use the same --max-cases sample (the
# torch backend samples among the cases whose mesh spans the job; the mpi run is given exactly
# those cases through a scratch corpus), so the per-case figures compare like with like.
#
#   SHARDCHECK=_build/tools/shardcheck sh bench/bench_torch_backend.sh [NP] [CASES] [FAMILY...]
#
# Environment: SHARDCHECK (default _build/tools/shardcheck), SHARDCHECK_PYTHON (default
# .venv/bin/python), MPIRUN (default mpirun), GOLDEN (default golden).  Prints one line per family:
# cases, seconds per case for each backend (the runner's own per-case figure, start-up excluded),
# and torch/mpi.
set -u
np=${1:-2}; cases=${2:-40}; shift 2 2>/dev/null || shift $#
fams=${*:-shard-layout group-ranks redistribute-plan redistribute-data}
S=${SHARDCHECK:-_build/tools/shardcheck}
PY=${SHARDCHECK_PYTHON:-.venv/bin/python}
G=${GOLDEN:-golden}
MPI="${MPIRUN:-mpirun} --oversubscribe --bind-to none"
[ "$(id -u)" -eq 0 ] && MPI="$MPI --allow-run-as-root"
export SHARDCHECK_PYTHON="$PY" OMPI_MCA_mpi_warn_on_fork=0 OMP_NUM_THREADS=1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf '%-20s %6s %12s %12s %8s   (np %s)\n' family cases torch_s/case mpi_s/case ratio "$np"
for f in $fams; do
  # the torch sample, as tcIds, then the same cases as a scratch corpus for the mpi backend
  $MPI -np "$np" "$S" run --backend torch --family "$f" --golden "$G" --max-cases "$cases" --tap \
    >"$tmp/tap" 2>/dev/null
  grep -Eo "^ok [0-9]+ - $f tc [0-9]+" "$tmp/tap" | grep -v SKIP | awk '{print $NF}' >"$tmp/ids"
  n=$(wc -l <"$tmp/ids")
  [ "$n" -gt 0 ] || { printf '%-20s %6s (no passing torch case at np %s)\n' "$f" 0 "$np"; continue; }
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
  # per-case seconds as the runner reports them (--json "seconds": each chunk's time over its
  # cases, so the job's start-up and the torch workers' import are not counted)
  $MPI -np "$np" "$S" run --backend torch --family "$f" --golden "$tmp/g" --json >"$tmp/t.json" 2>/dev/null
  $MPI -np "$np" "$S" run --backend mpi --family "$f" --golden "$tmp/g" --json >"$tmp/m.json" 2>/dev/null
  "$PY" - "$f" "$tmp/t.json" "$tmp/m.json" <<'PYEOF'
import json, sys
f, t, m = sys.argv[1:]
def per_case(p):
    r = json.load(open(p))["results"]
    return len(r), sum(x["seconds"] for x in r) / max(1, len(r))
n, ts = per_case(t)
_, ms = per_case(m)
print("%-20s %6d %12.5f %12.5f %7.0fx" % (f, n, ts, ms, ts / ms if ms > 0 else float("inf")))
PYEOF
done
