#!/bin/sh
# bench_hosting.sh — the whole corpus under `mpirun -np N shardcheck run --backend mpi`, with
# processes hosting several mesh ranks (issue 24, the default) and without
# (SHARDCHECK_HOSTING=0: the runner as it was, a case whose mesh has more ranks than N is
# NotSupported), in the same invocation, alternating, best of REPS each.  Prints per N: the
# cases each ran (every case not NotSupported), their wall time, and the seconds per case run
# of each with their ratio (hosting / one rank per process): whether hosting makes the cases
# it adds cost more per case than the ones that ran before.
#
#   SHARDCHECK=_build/tools/shardcheck sh bench/bench_hosting.sh [NP...]   (default 2 4 8)
#
# Environment: SHARDCHECK, MPIRUN (default mpirun), GOLDEN (default golden), REPS (default 1),
# FAMILY (one family instead of all), PYTHON (default python3).
set -u
nps=${*:-2 4 8}
S=${SHARDCHECK:-_build/tools/shardcheck}
G=${GOLDEN:-golden}
REPS=${REPS:-1}
PY=${PYTHON:-python3}
MPI="${MPIRUN:-mpirun} --oversubscribe --bind-to none"
[ "$(id -u)" -eq 0 ] && MPI="$MPI --allow-run-as-root"
export OMPI_MCA_mpi_warn_on_fork=0 SHARDCHECK_NO_PROGRESS=1
fam=; [ -n "${FAMILY:-}" ] && fam="--family $FAMILY"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ran() { # ran JSON: cases run (not NotSupported) and failures
  "$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(sum(c["status"] != "NotSupported" for c in d["cases"]), d["failed"] + d["crash"] + d["timeout"] + d["internal_error"], len(d["cases"]))' "$1"
}
one() { # one NP HOSTING: "wall cases_run failures total"
  t0=$(date +%s.%N)
  SHARDCHECK_HOSTING=$2 $MPI -np "$1" "$S" run --backend mpi --golden "$G" $fam --json >"$tmp/r.json" 2>/dev/null
  t1=$(date +%s.%N)
  echo "$(echo "$t1 - $t0" | bc) $(ran "$tmp/r.json")"
}
printf '%4s %9s %10s %9s %10s %12s %12s %7s\n' np "ran(1/p)" "wall(1/p)" "ran(host)" "wall(host)" "s/case(1/p)" "s/case(host)" ratio
for np in $nps; do
  best0=; best1=
  i=0
  while [ $i -lt "$REPS" ]; do
    set -- $(one "$np" 0); w0=$1; r0=$2; f0=$3; n=$4
    set -- $(one "$np" 1); w1=$1; r1=$2; f1=$3
    [ -z "$best0" ] || [ "$(echo "$w0 < $best0" | bc)" = 1 ] && best0=$w0
    [ -z "$best1" ] || [ "$(echo "$w1 < $best1" | bc)" = 1 ] && best1=$w1
    i=$((i + 1))
  done
  printf '%4s %9s %10.1f %9s %10.1f %12.6f %12.6f %7.2f   (of %s cases; failures %s / %s)\n' "$np" "$r0" "$best0" "$r1" "$best1" \
    "$(echo "$best0 / $r0" | bc -l)" "$(echo "$best1 / $r1" | bc -l)" \
    "$(echo "($best1 / $r1) / ($best0 / $r0)" | bc -l)" "$n" "$f0" "$f1"
done
