#!/bin/sh
# bench_runner.sh — what `shardcheck run` costs per case against `verify` on the same cases,
# and the mpi backend at np 2 and 4 against ref (issue 36 item 1), in one run, as CPU seconds
# (user + system of the command and every process it waited for: mpirun's ranks included).
#
# For each family it times, on the same machine in the same run:
#   verify   `verify --family F --candidate R`, R a results file holding golden's own answers
#            (conformance/tests/golden_results.py: Python's json, not shardcheck's code);
#   ref      `run --backend ref --family F` (computes every case, compares);
#   mpi N    `mpirun -np N run --backend mpi --family F`, N = 2 and 4;
# and prints one row per family: the CPU seconds and the ratios ref/verify (goal: within 3x)
# and mpi N/ref (goal: within 1.5x).  Each figure is the median of BENCH_REPEAT runs (1).
# Then a row of floors per family: the same commands with --max-cases 1 (a process's start,
# MPI_Init and Finalize at np N, the family's index, the workers' fork: what no per-case
# saving removes), and "best mpiN/ref", the ratio an mpi run would reach if its per-case CPU
# were ref's own: (mpiN floor + ref - ref floor) / ref.  Where that is above 1.5 the goal
# asks less CPU per case of mpi than ref spends, so only a lower floor can meet it.
#
# Usage: bench/bench_runner.sh [FAMILY...]   (default: every family `shardcheck registry`
#        lists)
#   SHARDCHECK (default $top_builddir/tools/shardcheck, then _build/tools/shardcheck),
#   GOLDEN (default $top_srcdir/golden), MPIRUN (default mpirun), MPIRUN_ARGS (default
#   "--oversubscribe --allow-run-as-root"), NP (default "2 4").
# Not run by make check: timing never happens inside tests.  On a shared machine figures move
# between runs; the ratios of one run are what to compare.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
sc=${SHARDCHECK:-}
for c in ${top_builddir:+"$top_builddir/tools/shardcheck"} "$top_srcdir/_build/tools/shardcheck"; do
  [ -z "$sc" ] && [ -x "$c" ] && sc=$c
done
[ -n "$sc" ] && [ -x "$sc" ] || { echo "bench_runner: shardcheck not found (set SHARDCHECK)" >&2; exit 2; }
golden=${GOLDEN:-$top_srcdir/golden}
mpirun=${MPIRUN:-mpirun}
margs=${MPIRUN_ARGS:---oversubscribe --allow-run-as-root}
nps=${NP:-2 4}
rep=${BENCH_REPEAT:-1}
py=${SHARDCHECK_PYTHON:-python3}
# shellcheck disable=SC2046  # one family name per word
[ $# -gt 0 ] || set -- $("$sc" registry families --names)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_runner.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

# cpu CMD...: median over $rep runs of user+system seconds (GNU time), the command's status kept
cpu() {
  i=0; : >"$tmp/t"
  while [ $i -lt "$rep" ]; do
    /usr/bin/time -f "%U %S" -o "$tmp/t1" "$@" >"$tmp/out" 2>&1 || {
      echo "bench_runner: failed: $*" >&2; tail -n 5 "$tmp/out" >&2; echo nan; return; }
    awk '{printf "%.2f\n", $1 + $2}' "$tmp/t1" >>"$tmp/t"; i=$((i + 1))
  done
  sort -n "$tmp/t" | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'
}
num() { case $1 in ''|*[!0-9.]*) return 1 ;; esac; } # a figure cpu() printed, not "nan"
ratio() { if num "$1" && num "$2"; then awk -v a="$1" -v b="$2" \
  'BEGIN {if (b > 0) printf "%.2f", a / b; else print "-"}'; else echo -; fi; }

have_mpi=0
"$sc" run --help 2>&1 | grep -q "mpi" && command -v "$mpirun" >/dev/null 2>&1 && have_mpi=1
printf '%-18s %8s %8s %9s' family verify ref ref/verify
for n in $nps; do printf ' %8s %9s' "mpi$n" "mpi$n/ref"; done; echo
floor_row() { # floor_row FAMILY REF: the --max-cases 1 runs and the best mpiN/ref they allow
  r1=$(cpu "$sc" run --backend ref --family "$1" --golden "$golden" --max-cases 1)
  printf '%-18s %8s %8s %9s' "  floor" "" "$r1" ""
  for n in $nps; do
    if [ $have_mpi = 1 ]; then
      # shellcheck disable=SC2086  # MPIRUN_ARGS is a list of options
      m1=$(cpu "$mpirun" $margs -np "$n" "$sc" run --backend mpi --family "$1" --golden "$golden" \
             --max-cases 1)
      best=-
      num "$m1" && num "$2" && num "$r1" && best=$(awk -v m="$m1" -v r="$2" -v r1="$r1" \
        'BEGIN {if (r > 0) printf "%.2f", (m + r - r1) / r; else print "-"}')
    else m1=- best=-; fi
    printf ' %8s %9s' "$m1" "best $best"
  done
  echo
}
for fam in "$@"; do
  "$py" "$top_srcdir/conformance/tests/golden_results.py" "$golden" "$fam" "$tmp/r.json" || exit 2
  v=$(cpu "$sc" verify --family "$fam" --golden "$golden" --candidate "$tmp/r.json")
  r=$(cpu "$sc" run --backend ref --family "$fam" --golden "$golden")
  printf '%-18s %8s %8s %9s' "$fam" "$v" "$r" "$(ratio "$r" "$v")"
  for n in $nps; do
    if [ $have_mpi = 1 ]; then
      # shellcheck disable=SC2086  # MPIRUN_ARGS is a list of options
      m=$(cpu "$mpirun" $margs -np "$n" "$sc" run --backend mpi --family "$fam" --golden "$golden")
    else m=-; fi
    printf ' %8s %9s' "$m" "$(ratio "$m" "$r")"
  done
  echo
  floor_row "$fam" "$r"
done
echo "CPU seconds (user+system, median of $rep); goals: ref/verify <= 3, mpiN/ref <= 1.5"
echo "floor: --max-cases 1 (start, MPI_Init, index, fork); best: (mpiN floor + ref - ref floor) / ref"
