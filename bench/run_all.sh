#!/bin/sh
# bench/run_all.sh — run every bench once, in one go, and print one table:
# each row is one case with shardcheck's min/median/max, the peer measured in
# the same run, the peer's min/median/max and the ratio of the medians (the
# README's "Measured" section is pasted from this output).  The full output
# of each bench is kept in the log directory it names.
#
#   bench/run_all.sh [BUILD_DIR]     (default: _build in the source tree)
#
# Environment: SHARDCHECK_PYTHON (default .venv/bin/python: torch 2.13 for the
# planner, offsets and verify peers), MPIRUN (default mpirun), NP (ranks for
# bench_comm, default "2 4"), QUICK=1 (smaller sizes; not for the README).
# Not run by make check: timing never happens inside tests.  On a shared
# machine figures move between runs: read the spread, not only the ratio.
set -u
top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
b=$(cd "${1:-$top_srcdir/_build}" && pwd) || exit 2
py=${SHARDCHECK_PYTHON:-$top_srcdir/.venv/bin/python}
mpirun=${MPIRUN:-mpirun}
quick=${QUICK:-0}
logs=$(mktemp -d "${TMPDIR:-/tmp}/shardcheck-bench.XXXXXX") || exit 99

run() { # run NAME CMD...: the bench's output into $logs/NAME.txt
  name=$1; shift
  echo "running $name: $*" >&2
  "$@" >"$logs/$name.txt" 2>&1 || echo "# $name exited with status $?" >>"$logs/$name.txt"
}

if [ "$quick" = 1 ]; then mb=2 melems=16 secs=0.05 maxmib=16; else mb=16 melems=64 secs=0.2 maxmib=64; fi
run philox "$b/bench/bench_philox" $mb
run torch_rng "$b/bench/bench_torch_rng" $melems
run randn "$b/bench/bench_randn" $((melems / 8))
run randn_f64 "$b/bench/bench_randn_f64" $((melems / 16))
run layout "$b/bench/bench_layout"
run offsets env SHARDCHECK_PYTHON="$py" top_srcdir="$top_srcdir" "$b/bench/bench_offsets" 512
run plan env SHARDCHECK_PYTHON="$py" top_srcdir="$top_srcdir" "$b/bench/bench_plan" $secs
run view env SHARDCHECK_PYTHON="$py" top_srcdir="$top_srcdir" "$b/bench/bench_view" \
  $([ "$quick" = 1 ] && echo 4 || echo 20)
if [ -x "$b/bench/bench_comm" ] && command -v "$mpirun" >/dev/null 2>&1; then
  for np in ${NP:-2 4}; do
    run comm-np$np "$mpirun" --allow-run-as-root --oversubscribe -np "$np" "$b/bench/bench_comm" \
      --min-mib 4 --max-mib $maxmib
  done
fi
run verify env SHARDCHECK="$b/tools/shardcheck" SHARDCHECK_PYTHON="$py" top_srcdir="$top_srcdir" \
  sh "$top_srcdir/bench/bench_verify.sh" 2000
run verify-mbps env SHARDCHECK="$b/tools/shardcheck" SHARDCHECK_PYTHON="$py" top_srcdir="$top_srcdir" \
  sh "$top_srcdir/bench/bench_verify_mbps.sh"

echo "# shardcheck benches, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, build $b; logs in $logs"
echo "| bench | case | shardcheck min/med/max | peer | peer min/med/max | ratio (medians) |"
echo "|---|---|---|---|---|---:|"
for f in "$logs"/*.txt; do
  name=$(basename "$f" .txt)
  case $name in
  comm-*) # bench_comm's own columns: busbw GB/s, runner path (wd) vs raw MPI
    awk -v n="$name" '/^  [SP]/ { printf "| %s | %s %s %g MiB (busbw GB/s) | %s | raw MPI | %s | %sx |\n",
      n, $1, $2, $3 / 1048576, $9, $10, $7 }' "$f" ;;
  verify)
    grep -E "^ratio|^shardcheck verify|^torch" "$f" | sed "s/^/| verify | /; s/\$/ | | | | |/" ;;
  verify-mbps)
    grep -E "^JSON read|^candidate alone|^peak RSS" "$f" | sed "s/^/| verify-mbps | /; s/\$/ | | | | |/" ;;
  *) # bench_stats.h rows: fixed columns (label 24, ours 30, peer 16, peer spread 30, ratio)
    awk -v n="$name" 'length($0) > 100 && $NF ~ /x$/ && !/^case/ {
      l=substr($0,1,24); o=substr($0,26,30); p=substr($0,57,16); q=substr($0,74,30); r=$NF;
      gsub(/ +$/,"",l); gsub(/ +$/,"",o); gsub(/ +$/,"",p); gsub(/ +$/,"",q);
      printf "| %s | %s | %s | %s | %s | %s |\n", n, l, o, p, q, r }' "$f" ;;
  esac
  grep -h "^# .*exited with status" "$f" | sed "s/^# /| $name | /; s/\$/ | | | | |/"
done
grep -h "^all ranks\|^layout (" "$logs"/offsets.txt "$logs"/layout.txt 2>/dev/null | sed 's/^/# /'
