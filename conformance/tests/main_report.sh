#!/bin/sh
# main_report.sh — the main job's report reads as a report (issue 36 item 4): on fabricated stage
# logs (no run: seconds, not the job's hour), tools/scripts/job_report.sh prints one line per
# stage with its time, status, counts (passed, failed, waived, skipped) and log, a failing
# stage's Fail lines under it, and a closing table (backend x np) with a total and the verdict;
# the expected lines are written out here by hand.  An mpirun banner ("Primary job terminated
# normally ... Exit code: 77") or a shell's "Killed ( sleep ... )" line in a log never reaches
# the report.  tools/main_job.sh hands every stage's output to its log and the report to the
# script (it tails no log); tools/run/mpirun_runner.sh, run by bash with a stand-in mpirun,
# prints no "Killed" line and leaves no timer behind.
. "$(dirname "$0")/testlib.sh"
use_tmpdir
J="$top_srcdir/tools/scripts/job_report.sh"
cd "$tmp" || exit 99
lines() { printf '%s\n' "$1" | sed '2,$s/^/#   /'; }  # a multi-line detail, each line a TAP comment
banner() {
  cat <<'EOF'
--------------------------------------------------------------------------
Primary job  terminated normally, but 1 process returned
a non-zero exit code. Per user-direction, the job has been aborted.
--------------------------------------------------------------------------
--------------------------------------------------------------------------
mpirun detected that one or more processes exited with non-zero status, thus causing
the job to be terminated. The first process to do so was:

  Process name: [[10422,1],0]
  Exit code:    77
--------------------------------------------------------------------------
EOF
}
killed() {
  echo 'tools/run/mpirun_runner.sh: line 116: 4242 Killed                  ( sleep "$limit" && kill -USR1 $$ )'
}
echo 'golden golden: MANIFEST ok, 62 files, 100777 tests, structure ok' >corpus.out
printf 'shard-layout  31734 cases\n100687 passed, 0 failed, 0 skipped\n' >run-ref.out
{ echo 'Pass          shard-layout tc 1'; echo '100687 passed, 0 failed, 0 skipped'; killed; } >run-mpi-2.out
{ echo 'Fail          group-ranks tc 7: rank 3 holds [0, 2], want [0, 1]'; banner
  echo 'Crash         redistribute-plan tc 9: a rank died'; killed
  echo '100600 passed, 2 failed, 85 skipped'; } >run-mpi-4.out
{ echo 'philox-kat  30 cases: 0 passed'; echo '0 passed, 0 failed, 30 skipped, 0 waived'; banner
  killed; } >run-torch-2-philox-kat.out
{ echo '4511 passed, 0 failed, 0 skipped, 139 waived'; banner; } >run-torch-2-shard-layout.out
echo 'shardcheck run: --backend cuda: skipped: this shardcheck was built without CUDA' >run-cuda.out
{ echo "shardcheck run: unknown option '--bogus' (see --help)"; banner; killed; } >run-torch-3-x.out

out=$( { sh "$J" stage L corpus - 4 corpus.out 0
  sh "$J" stage L ref - 31 run-ref.out 0
  sh "$J" stage L mpi 2 405 run-mpi-2.out 0
  sh "$J" stage L mpi 4 284 --bad "3 cases NotSupported for their mesh's size (must be 0)" run-mpi-4.out 1
  sh "$J" stage L cuda - 0 run-cuda.out 77
  sh "$J" stage L torch 2 348 run-torch-2-philox-kat.out 77 run-torch-2-shard-layout.out 0
  sh "$J" stage L torch 3 12 run-torch-3-x.out 2
  sh "$J" skip L torch 8 "skipped: no torch in .venv"; } 2>&1)
want='corpus  -        4 s  ok      golden golden: MANIFEST ok, 62 files, 100777 tests, structure ok  (log corpus.out)
ref     -       31 s  ok      100687 passed, 0 failed, 0 waived, 0 skipped  (log run-ref.out)
mpi     2      405 s  ok      100687 passed, 0 failed, 0 waived, 0 skipped  (log run-mpi-2.out)
mpi     4      284 s  FAIL    100600 passed, 2 failed, 0 waived, 85 skipped  (log run-mpi-4.out)
    3 cases NotSupported for their mesh'"'"'s size (must be 0)
    Fail          group-ranks tc 7: rank 3 holds [0, 2], want [0, 1]
    Crash         redistribute-plan tc 9: a rank died
cuda    -        0 s  skipped --backend cuda: skipped: this shardcheck was built without CUDA  (log run-cuda.out)
torch   2      348 s  ok      4511 passed, 0 failed, 139 waived, 30 skipped  (log run-torch-2-*.out)
torch   3       12 s  FAIL    unknown option '"'"'--bogus'"'"' (see --help)  (log run-torch-3-x.out)
    shardcheck run: unknown option '"'"'--bogus'"'"' (see --help)
torch   8        0 s  skipped skipped: no torch in .venv'
if [ "$out" = "$want" ]; then tap_ok "one line per stage: time, status, counts or the log's word, the log"
else tap_not_ok "one line per stage" "got:" "$(lines "$out")" "want:" "$(lines "$want")"; fi

sum=$(sh "$J" summary L 2>&1); rc=$?
wsum='backend np     passed  failed  waived  skipped     time  status
corpus  -           -       -       -        -      4 s  ok
ref     -      100687       0       0        0     31 s  ok
mpi     2      100687       0       0        0    405 s  ok
mpi     4      100600       2       0       85    284 s  FAIL
cuda    -           -       -       -        -      0 s  skipped
torch   2        4511       0     139       30    348 s  ok
torch   3           -       -       -        -     12 s  FAIL
torch   8           -       -       -        -      0 s  skipped
total          306485       2     139      115   1084 s
verdict: FAIL: 2 stages failed (mpi np 4, torch np 3); 306485 passed, 2 failed, 139 waived, 115 skipped in 1084 s'
if [ "$rc" = 1 ] && [ "$sum" = "$wsum" ]; then tap_ok "the closing table (backend x np), the total and a FAIL verdict, exit 1"
else tap_not_ok "the closing table and a FAIL verdict" "exit $rc (want 1)" "got:" "$(lines "$sum")" "want:" "$(lines "$wsum")"; fi

all="$out
$sum"
if printf '%s\n' "$all" | grep -Eq 'Primary job|Exit code|Process name|mpirun detected|Killed|sleep|^-----'; then
  tap_not_ok "no mpirun banner and no Killed line reaches the report" \
    "$(printf '%s\n' "$all" | grep -E 'Primary job|Exit code|Process name|mpirun detected|Killed|sleep|^-----')"
else tap_ok "no mpirun banner and no Killed line reaches the report (they stay in the logs)"; fi

sh "$J" stage P ref - 3 run-ref.out 0 >/dev/null
sh "$J" stage P torch 2 7 run-torch-2-philox-kat.out 77 run-torch-2-shard-layout.out 0 >/dev/null
p=$(sh "$J" summary P 2>&1); rc=$?
wp='verdict: PASS: 105198 passed, 0 failed, 139 waived, 30 skipped in 10 s'
if [ "$rc" = 0 ] && [ "$(printf '%s\n' "$p" | tail -n 1)" = "$wp" ]; then tap_ok "every stage ok: a PASS verdict, exit 0"
else tap_not_ok "a PASS verdict, exit 0" "exit $rc" "$(lines "$p")"; fi

p=$(sh "$J" summary P 6 2>&1); rc=$?
wp='verdict: PASS: 105198 passed, 0 failed, 139 waived, 30 skipped in 6 s (stages 10 s, some side by side)'
if [ "$rc" = 0 ] && [ "$(printf '%s\n' "$p" | tail -n 1)" = "$wp" ]; then tap_ok "with the wall time: the verdict gives it and the stages' sum"
else tap_not_ok "the verdict with the wall time" "exit $rc" "$(lines "$p")"; fi
expect_exit "a wall time that is not a number is refused (exit 2)" 2 "wall '6s' is not a number" \
  sh "$J" summary P 6s

expect_exit "a stage without its LOG RC pairs is refused (exit 2)" 2 'LOG RC' \
  sh "$J" stage L ref - 3 run-ref.out
expect_exit "a summary of no stage is refused (exit 2)" 2 'no stage recorded' sh "$J" summary empty

# The main job itself: every stage's output to its log, the report from job_report.sh only
M="$top_srcdir/tools/main_job.sh"
if grep -En 'tail -n|cat "?_build|section ' "$M" >/dev/null; then
  tap_not_ok "main_job.sh shows no log itself" "$(grep -En 'tail -n|cat "?_build|section ' "$M")"
else tap_ok "main_job.sh shows no log itself (no tail of a run's output)"; fi
if [ "$(grep -v '^[[:space:]]*\(#.*\)\{0,1\}$' "$M" | tail -n 1)" = 'report summary "$ledger" $((SECONDS - t_first))' ]; then
  tap_ok "main_job.sh ends with the table and verdict (its exit code)"
else tap_not_ok "main_job.sh ends with report summary" "$(tail -n 2 "$M")"; fi

# The runner under bash with a stand-in mpirun: no "Killed" line for its timer, none left behind
printf '#!/bin/sh\nsleep 0.3\necho "launcher: cannot start" >&2\nexit 1\n' >fake-mpirun
chmod +x fake-mpirun
lim=$((86000 + $$ % 400))
n=0 noisy=
while [ $n -lt 3 ]; do
  n=$((n + 1))
  r=$(MPIRUN="$tmp/fake-mpirun" bash "$top_srcdir/tools/run/mpirun_runner.sh" -np 2 \
    --shardcheck /bin/true --time-limit $lim -- 2>&1)
  printf '%s\n' "$r" | grep -q 'Killed' && noisy=$r
done
left=$(ps -eo args= | grep -c "^sleep $lim\$")
if [ -z "$noisy" ] && [ "$left" = 0 ]; then
  tap_ok "mpirun_runner.sh under bash: no 'Killed' line from its timer, no timer left (3 runs)"
else tap_not_ok "mpirun_runner.sh: no Killed line, no timer left" "$left timers left" "$noisy"; fi
tap_done
