#!/bin/sh
# mpi_comm_run.sh — the mpi backend's copy-free collectives (all_reduce_to's
# ring, all_to_all_runs' messages per run) give OpenMPI's bytes:
# conformance/tests/mpi_comm (see its header) under `$MPIRUN -np N` for
# N = 2, 3 and 4, with the ring forced on at every size above 64 KiB.  Skipped
# without MPI.
. "$(dirname "$0")/testlib.sh"
prog="$top_builddir/conformance/tests/mpi_comm"
{ have_mpi && [ -x "$prog" ]; } || skip_all "copy-free collectives match OpenMPI's: no MPI (or mpi_comm not built)"
export OMPI_MCA_mpi_warn_on_fork=0
[ "${SHARDCHECK_SANITIZED:-0}" = 1 ] && export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
for np in 2 3 4; do
  # segment threshold 0: the ring runs on 3 and 4 ranks too at these test sizes
  out=$(SHC_MPI_RING_SEGMENT=0 timeout 300 "$MPIRUN" --oversubscribe --allow-run-as-root -np $np "$prog" 2>&1); rc=$?
  if [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -Eq "^mpi_comm: $np ranks, [1-9][0-9]* checks, 0 failed"; then
    tap_ok "np $np: $(printf '%s\n' "$out" | grep '^mpi_comm:')"
  else
    tap_not_ok "np $np: all_reduce_to and all_to_all_runs match OpenMPI's bytes" "exit $rc" \
      "$(printf '%s\n' "$out" | grep -v '^ok' | head -c 800)"
  fi
done
tap_done
