#!/bin/sh
# mpi_watchdog_run.sh — the mpi backend's blocking collectives keep hang
# detection: conformance/tests/mpi_watchdog (see its header) under
# `$MPIRUN -np 2`; a peer that stops taking part turns rank 0's stuck
# all-gather into "mpi: timeout: all_gather on group [0,1]" after its 2 s
# deadline, the communicator then refuses further collectives at once, and
# the normal path never fires the watchdog.  Skipped without MPI.
. "$(dirname "$0")/testlib.sh"
prog="$top_builddir/conformance/tests/mpi_watchdog"
{ have_mpi && [ -x "$prog" ]; } || skip_all "no MPI (or mpi_watchdog not built)"
export OMPI_MCA_mpi_warn_on_fork=0
[ "${SHARDCHECK_SANITIZED:-0}" = 1 ] && export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
start=$(date +%s)
out=$(timeout 120 "$MPIRUN" --oversubscribe --allow-run-as-root -np 2 "$prog" 2>&1); rc=$?
el=$(( $(date +%s) - start ))
printf '%s\n' "$out" | grep -q "^rank 0: first all_gather ok: 10 11" &&
  printf '%s\n' "$out" | grep -q "^rank 1: first all_gather ok: 10 11" \
  && tap_ok "both ranks all-gather under the watchdog" \
  || tap_not_ok "both ranks all-gather under the watchdog" "exit $rc" "$(printf '%s' "$out" | head -c 600)"
printf '%s\n' "$out" | grep -q "^rank 0: no stray watchdog" \
  && tap_ok "a disarmed watchdog never fires" || tap_not_ok "a disarmed watchdog never fires" "$(printf '%s' "$out" | head -c 600)"
printf '%s\n' "$out" | grep -Eq "^rank 0: second all_gather rc [1-9][0-9]* after [1-4]\.[0-9] s: mpi: timeout: all_gather on group \[0,1\] did not complete within 2 s" \
  && tap_ok "stuck all_gather: timeout error after ~2 s" \
  || tap_not_ok "stuck all_gather: timeout error after ~2 s" "exit $rc" "$(printf '%s' "$out" | head -c 600)"
printf '%s\n' "$out" | grep -Eq "^rank 0: then all_reduce rc [1-9][0-9]* after 0\.[0-9] s: mpi: timeout: all_reduce on group \[0,1\]" \
  && tap_ok "after a timeout the communicator refuses collectives at once" \
  || tap_not_ok "after a timeout the communicator refuses collectives at once" "$(printf '%s' "$out" | head -c 600)"
# each collective of the broken communicator, by the name its error gives (all_reduce_to is
# all_reduce's out-of-place form and says all_reduce)
for op in all_gatherv:all_gatherv all_to_all:all_to_all reduce_scatter:reduce_scatter \
          all_reduce_to:all_reduce all_to_all_runs:all_to_all; do
  printf '%s\n' "$out" | grep -Eq "^rank 0: then ${op%%:*} rc [1-9][0-9]* after 0\.[0-9] s: mpi: timeout: ${op#*:} on group \[0,1\]" \
    && tap_ok "after a timeout ${op%%:*} is refused at once" \
    || tap_not_ok "after a timeout ${op%%:*} is refused at once" "$(printf '%s' "$out" | grep "then ${op%%:*}")"
done
[ $rc -ne 0 ] && [ $rc -ne 124 ] && [ "$el" -lt 60 ] && tap_ok "job ended (MPI_Abort) in ${el}s" \
  || tap_not_ok "job ended (MPI_Abort) in ${el}s" "exit $rc"
tap_done
