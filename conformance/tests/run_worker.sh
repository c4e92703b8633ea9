#!/bin/sh
# run_worker.sh — `shardcheck run --backend worker:CMD` and its protocol (docs/backends/worker.md)
# with a tiny deterministic worker (worker_golden.py: answers from the golden file, standard
# library only, faults planted on request).  In one process and under mpirun -np 2: a sample of
# three families passes with the worker seeing only its hosted block and the case's inputs, one
# report per run; then every fault, each with its status and message asserted and the run going
# on: a worker that dies (Crash), hangs (Timeout within --timeout, twice in one chunk under
# mpirun), writes garbage or logs on stdout, answers another case or another rank (named
# protocol errors, Fail), answers wrongly or refuses a valid case (Fail), says NotSupported
# (with its reason), a family its hello does not support; and at start: a hello of another
# protocol version, no hello, a garbage hello, a command that does not run (exit 2, named).
# certify --np 1,2 through the worker: a row per rank count, the package without machine paths.
# The mpirun half is skipped without MPI.  About a minute on 2 cores.
. "$(dirname "$0")/testlib.sh"
need_python "the tiny worker"
need_golden redistribute-data shard-layout rng-offsets
export OMPI_MCA_mpi_warn_on_fork=0 GOLDEN="$G" WORKER_PRELOAD=redistribute-data
use_tmpdir
W=$tmp/worker.sh   # one word, so that $RUN splits where it should
printf '#!/bin/sh\nexec %s %s "$@"\n' "$PY" "$tests_dir/worker_golden.py" >"$W"
chmod +x "$W"
F=redistribute-data
# its sample of 8 cases: tc 1 (world 2), 99 and 197 (world 4), 296, 394, 492, 591, 689
RUN="run --backend worker:$W --golden $G --family $F --max-cases 8"

# expect_case DESC STATUS TCID REGEX CMD...: exit 1, the case's line says STATUS and matches
# REGEX, and the other 7 cases passed (the run went on).
expect_case() {
  desc=$1; st=$2; tc=$3; re=$4; shift 4
  out=$("$@" 2>&1); rc=$?
  line=$(printf '%s\n' "$out" | grep -E "^$st +$F tc $tc " | head -n 1)
  want=1; [ "$st" = NotSupported ] && want=0
  if [ "$rc" -eq "$want" ] && printf '%s' "$line" | grep -Eq -- "$re" &&
     printf '%s\n' "$out" | grep -q "7 passed"; then tap_ok "$desc"
  else tap_not_ok "$desc" "exit $rc" "line: $line" "want /$re/" "$(printf '%s\n' "$out" | tail -n 6)"; fi
}

# modes: "" (one process) and "mpi" (mpirun -np 2, the faults in process 1)
modes=one
have_mpi_build && modes="one mpi"
for mode in $modes; do
  if [ "$mode" = mpi ]; then
    pre="$MPIRUN --oversubscribe --allow-run-as-root -np 2 $S"; at="np 2"
    export WORKER_FAULT_PROCESS=1
    # under ASan OpenMPI's own allocations (in MCA components already unloaded) read as leaks
    # no suppression can name: MPI processes run without leak detection (run_faults.sh alike)
    [ "${SHARDCHECK_SANITIZED:-0}" = 1 ] && export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
  else
    pre=$S; at="np 1"
    unset WORKER_FAULT_PROCESS
  fi
  for fam in shard-layout rng-offsets $F; do
    expect_passes "$at: $fam sample through the worker" \
      $pre run --backend "worker:$W" --golden "$G" --family $fam --max-cases 12
  done
  # one worker per process, told its index; one report
  rm -f "$tmp/log"
  out=$(WORKER_LOG="$tmp/log" $pre $RUN 2>&1)
  n=$(printf '%s\n' "$out" | grep -c '^8 passed, 0 failed')
  starts=$(wc -l <"$tmp/log")
  if [ "$mode" = mpi ]; then want_log="start process 1 of 2"; want_n=2; else want_log="start process 0 of 1"; want_n=1; fi
  if [ "$n" -eq 1 ] && [ "$starts" -eq "$want_n" ] && grep -q "$want_log" "$tmp/log"; then
    tap_ok "$at: one worker per process ($starts started), one report"
  else tap_not_ok "$at: one worker per process, one report" "reports: $n, starts: $starts" "$(cat "$tmp/log")"; fi

  blk="ranks 0..3"; other="rank 1 where rank 0 was due"
  [ "$mode" = mpi ] && blk="ranks 2..3" && other="rank 3 where rank 2 was due"
  rm -f "$tmp/log"
  expect_case "$at: a worker that dies is Crash, the next case runs on a new one" Crash 99 \
    "the worker died with exit status 3" env WORKER_FAULT=die:99 WORKER_LOG="$tmp/log" $pre $RUN
  [ "$(grep -c . "$tmp/log")" -eq $((want_n + 1)) ] && tap_ok "$at: the worker was started again" ||
    tap_not_ok "$at: the worker was started again" "$(cat "$tmp/log")"
  t0=$(date +%s)
  expect_case "$at: a worker that hangs is Timeout" Timeout 197 \
    "no answer within 3 s \\(worker killed\\)" env WORKER_FAULT=hang:197 $pre $RUN --timeout 3
  [ $(( $(date +%s) - t0 )) -lt 40 ] && tap_ok "$at: the hang cost the limit, not the run" ||
    tap_not_ok "$at: the hang cost the limit" "$(( $(date +%s) - t0 )) s"
  expect_case "$at: garbage on stdout is a named protocol error" Fail 99 \
    "$blk.*worker protocol error: a line that is not a JSON object" env WORKER_FAULT=garbage:99 $pre $RUN
  expect_case "$at: a log line on stdout is a protocol error naming stdout" Fail 99 \
    "outside the protocol \\(stdout is the protocol's: write logs to stderr\\): 'debug: computing tc 99'" \
    env WORKER_FAULT=stdout:99 $pre $RUN
  expect_case "$at: an answer to another case is named" Fail 99 \
    "it answered tc 100 while tc 99 was asked" env WORKER_FAULT=othercase:99 $pre $RUN
  expect_case "$at: an answer for another rank is named" Fail 99 \
    "it answered $other" env WORKER_FAULT=otherrank:99 $pre $RUN
  expect_case "$at: a wrong value fails against golden" Fail 99 "rank [0-9]+: " \
    env WORKER_FAULT=wrong:99 $pre $RUN
  expect_case "$at: a valid case refused fails" Fail 99 "refused on purpose" \
    env WORKER_FAULT=error:99 $pre $RUN
  expect_case "$at: notSupported is NotSupported with the reason" NotSupported 99 \
    "the tiny worker skips it" env WORKER_FAULT=notsup:99 $pre $RUN --verbose
  expect_exit "$at: a family the hello does not support is NotSupported with its reason" 77 \
    "NotSupported +$F tc 1 .*the tiny worker does not do $F" \
    env WORKER_FAMILIES=shard-layout $pre $RUN --verbose
  # at start: the version, a missing or garbage hello, a command that does not run
  pw=""; [ "$mode" = mpi ] && pw="process 0: "
  expect_exit "$at: a hello of protocol 2 is refused naming both versions" 2 \
    "worker:.*: ${pw}it speaks worker protocol 2; this shardcheck speaks protocol 1 only" \
    env WORKER_HELLO=v2 $pre $RUN
  expect_exit "$at: a worker that ends before its hello is refused" 2 \
    "${pw}it ended with exit status 0 before its hello" env WORKER_HELLO=none $pre $RUN
  expect_exit "$at: a first line that is not a hello is refused" 2 \
    "${pw}its first line is not a hello .*'Welcome to the acme worker!'" \
    env WORKER_HELLO=garbage $pre $RUN
  expect_exit "$at: a command that does not run is refused" 2 \
    "worker:$tmp/nowhere: ${pw}it ended with exit status 127 before its hello" \
    $pre run --backend "worker:$tmp/nowhere" --golden "$G" --family $F --max-cases 2
done

if [ "$modes" = "one mpi" ]; then
  # four hangs in one chunk in process 1 (20 s, past rank 0's usual wait of its own time, one
  # case limit and 10 s): rank 0, which had none, waits for all four, never taking process 1
  # for lost
  out=$(env WORKER_FAULT=hang:99,hang:197,hang:296,hang:492 WORKER_FAULT_PROCESS=1 \
        $MPIRUN --oversubscribe --allow-run-as-root -np 2 $S $RUN --timeout 5 2>&1); rc=$?
  if [ $rc -eq 1 ] && printf '%s\n' "$out" | grep -q '^4 passed, 4 failed' &&
     [ "$(printf '%s\n' "$out" | grep -c '^Timeout .*the worker gave no answer within 5 s')" -eq 4 ]; then
    tap_ok "np 2: four timeouts in one chunk of process 1: four Timeouts, the rest passed"
  else tap_not_ok "np 2: four timeouts in one chunk" "exit $rc" "$(printf '%s\n' "$out" | grep -v '^--' | head -n 12)"; fi
  # certify --np 1,2: np 2 under mpirun (its results say 2 ranks), one row per rank count, and
  # the package names the worker's command, --out and --golden without this machine's paths
  MPIRUN_ARGS="--oversubscribe --allow-run-as-root" "$S" certify --out "$tmp/pkg" --golden "$G" \
    --backend "worker:$PY $tests_dir/worker_golden.py" --families $F --np 1,2 --max-cases 4 \
    >"$tmp/cert.out" 2>&1; rc=$?
  got=$("$PY" -c 'import json, os, sys
s = json.load(open(os.path.join(sys.argv[1], "statement.json")))
for r in s["rows"]:
    j = json.load(open(os.path.join(sys.argv[1], r["results"])))
    print(r["np"], j["ranks"], r["passed"], r["failed"], r["verdict"], r["backend"])' \
        "$tmp/pkg" 2>&1 | tr '\n' ';')
  py=$(basename "$PY")
  want="1 1 4 0 partial worker:$py worker_golden.py;2 2 4 0 partial worker:$py worker_golden.py;"
  if [ $rc -eq 3 ] && [ "$got" = "$want" ]; then
    tap_ok "certify --np 1,2: a row per rank count, np 2 under mpirun, the command by base names"
  else tap_not_ok "certify --np 1,2 on the worker" "exit $rc: $got" "$(tail -c 400 "$tmp/cert.out")"
  fi
  pydir=$tmp; case $PY in */*) pydir=$(dirname "$PY") ;; esac
  paths=$(grep -rlF -e "$tmp/" -e "$tests_dir/" -e "$pydir/" "$tmp/pkg")
  chk=$("$S" certify --check "$tmp/pkg" --golden "$G" 2>&1); rc=$?
  if [ -z "$paths" ] && [ $rc -eq 0 ] && printf '%s' "$chk" | grep -q intact; then
    tap_ok "certify: the worker's package holds no path of this machine; certify --check: intact"
  else tap_not_ok "the worker's package" "paths in: $paths" "check: exit $rc $chk"; fi
else
  tap_skip "np 2: the worker under mpirun" "no MPI (mpirun or an MPI build)"
  tap_skip "certify --np 1,2 on the worker" "no MPI (mpirun or an MPI build)"
  tap_skip "the worker's package" "no MPI (mpirun or an MPI build)"
fi
tap_done
