#!/bin/sh
# run_cuda_redist.sh — `shardcheck run --backend cuda --family redistribute-data`: the plan executed
# with the tensors in device memory (lib/exec/redistribute_dev.c: slicing and packing as kernels,
# collectives through a device communicator).  No GPU is needed: SHARDCHECK_CUDA_EMULATE puts the
# CPU grid emulator in the device's place, so
#   - in one process (every rank a thread, collectives host-staged over the local communicator) it
#     must pass every case the local backend passes;
#   - under mpirun at 1, 2 and 4 ranks (collectives host-staged over MPI; the backend says so) it
#     must pass exactly the cases the mpi backend passes at the same size;
# and where a GPU is visible, the same runs without emulation, in one process and under mpirun at 1, 2
# and 4 ranks (NCCL when each rank has a GPU of its own, host-staged MPI when ranks share one).
# Skipped with the reason without CUDA built in, or without mpirun for the mpirun part.
. "$(dirname "$0")/testlib.sh"
F=redistribute-data
[ -f "$top_builddir/lib/cuda/redist_kernels.o" ] || skip_all "cuda backend, $F: built without CUDA (configure --with-cuda)"
last() { printf '%s\n' "$1" | tail -n 1; }

want=$(last "$("$SHARDCHECK" run --backend local --golden "$G" --family $F 2>&1)")
out=$(env SHARDCHECK_CUDA_EMULATE=a100 "$SHARDCHECK" run --backend cuda --golden "$G" --family $F 2>&1); rc=$?
got=$(last "$out")
if [ $rc -eq 0 ] && [ "$got" = "$want" ] && printf '%s' "$got" | grep -Eq '^[1-9][0-9]* passed, 0 failed, 0 skipped'; then
  tap_ok "emulated device, one process: as the local backend ($got)"
else tap_not_ok "emulated device, one process" "exit $rc, cuda: $got, local: $want"; fi

if ! have_mpi_build; then
  for np in 1 2 4; do tap_skip "emulated device under mpirun -np $np" "no MPI (mpirun not found or not built in)"; done
else
  err=$(mktemp); trap 'rm -f "$err"' EXIT
  for np in 1 2 4; do
    mpi=$(last "$(env OMPI_MCA_mpi_warn_on_fork=0 "$MPIRUN" --oversubscribe --allow-run-as-root -np $np \
          "$SHARDCHECK" run --backend mpi --golden "$G" --family $F 2>&1)")
    # stdout and stderr apart: mpirun forwards them on separate channels, in no fixed order
    out=$(env SHARDCHECK_CUDA_EMULATE=a100 OMPI_MCA_mpi_warn_on_fork=0 "$MPIRUN" --oversubscribe \
          --allow-run-as-root -x SHARDCHECK_CUDA_EMULATE -np $np \
          "$SHARDCHECK" run --backend cuda --golden "$G" --family $F 2>"$err"); rc=$?
    got=$(last "$out")
    out="$out
$(cat "$err")"
    if [ $rc -eq 0 ] && [ "$got" = "$mpi" ] && printf '%s' "$got" | grep -Eq '^[1-9][0-9]* passed, 0 failed' &&
       printf '%s' "$out" | grep -q 'redistribute collectives host-staged over MPI (SHARDCHECK_CUDA_EMULATE)'; then
      tap_ok "emulated device under mpirun -np $np, host-staged MPI: as the mpi backend ($got)"
    else tap_not_ok "emulated device under mpirun -np $np" "exit $rc, cuda: $got, mpi: $mpi" \
      "$(printf '%s\n' "$out" | grep -v '^ok' | head -c 600)"; fi
  done
fi

# on a machine with a GPU: the family on it, in one process
out=$("$SHARDCHECK" run --backend cuda --golden "$G" --family $F 2>&1); rc=$?
got=$(last "$out")
if [ $rc -eq 77 ]; then
  tap_skip "$F on a GPU" "$(printf '%s\n' "$out" | grep skipped | head -n 1)"
elif [ $rc -eq 0 ] && [ "$got" = "$want" ]; then
  tap_ok "$F on a GPU: $got"
else
  tap_not_ok "$F on a GPU" "exit $rc, $got (local: $want)" "$(printf '%s\n' "$out" | grep -v '^ok' | head -c 900)"
fi
# ... and under mpirun (NCCL where each rank has a GPU, host-staged MPI where they share), as mpi
if [ $rc -ne 77 ] && [ -n "${err:-}" ]; then
  for np in 1 2 4; do
    mpi=$(last "$(env OMPI_MCA_mpi_warn_on_fork=0 "$MPIRUN" --oversubscribe --allow-run-as-root -np $np \
          "$SHARDCHECK" run --backend mpi --golden "$G" --family $F 2>&1)")
    out=$(env OMPI_MCA_mpi_warn_on_fork=0 "$MPIRUN" --oversubscribe --allow-run-as-root -np $np \
          "$SHARDCHECK" run --backend cuda --golden "$G" --family $F 2>"$err"); rc2=$?
    got=$(last "$out")
    how=$(grep -o 'redistribute collectives [^(]*' "$err" | head -n 1)
    if [ $rc2 -eq 0 ] && [ "$got" = "$mpi" ]; then tap_ok "$F on GPUs under mpirun -np $np, $how: $got"
    else tap_not_ok "$F on GPUs under mpirun -np $np" "exit $rc2, cuda: $got, mpi: $mpi" "$(head -c 600 "$err")"; fi
  done
fi
tap_done
