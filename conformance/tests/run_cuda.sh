#!/bin/sh
# run_cuda.sh — `shardcheck run --backend cuda`.  Without CUDA built in, or without a usable GPU,
# it must exit 77 with the reason on one line (and not touch the golden files).  With CUDA built in,
# CUDA_VISIBLE_DEVICES= hides every GPU, so the no-GPU path is checked on any machine, under
# mpirun too (every rank skips).  Where a GPU is visible, the torch-cuda-rng family must pass on it
# (nothing failed; GpuOnly values the CPU model of CUDA math misses are NotSupported, with the count).
# SHARDCHECK_CUDA_EMULATE runs the backend with the CPU grid emulator as its device (no GPU used).
. "$(dirname "$0")/testlib.sh"
if [ -f "$top_builddir/lib/cuda/torch_rng_kernels.o" ]; then built=yes; else built=no; fi

if [ $built = no ]; then
  expect_exit "built without CUDA: exit 77, reason named" 77 \
    'skipped: this shardcheck was built without CUDA \(configure --with-cuda' \
    "$SHARDCHECK" run --backend cuda --golden "$G" --family torch-cuda-rng
else
  expect_exit "no visible GPU: exit 77, reason named" 77 \
    '^shardcheck run: --backend cuda: skipped: no (usable )?CUDA device' \
    env CUDA_VISIBLE_DEVICES= "$SHARDCHECK" run --backend cuda --golden "$G" --family torch-cuda-rng
  out=$(env CUDA_VISIBLE_DEVICES= "$SHARDCHECK" run --backend cuda --golden "$G" --json 2>&1 >/dev/null)
  if [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ]; then tap_ok "the reason is one line: $out"
  else tap_not_ok "the reason is one line" "$out"; fi
  if have_mpi_build; then
    expect_exit "no visible GPU under mpirun -np 2: every rank skips, exit 77" 77 'skipped: no' \
      env CUDA_VISIBLE_DEVICES= OMPI_MCA_mpi_warn_on_fork=0 \
      "$MPIRUN" --oversubscribe --allow-run-as-root -x CUDA_VISIBLE_DEVICES -np 2 \
      "$SHARDCHECK" run --backend cuda --golden "$G" --family torch-cuda-rng
  else
    tap_skip "no visible GPU under mpirun" "no MPI"
  fi
fi
# The backend's plumbing without a GPU: SHARDCHECK_CUDA_EMULATE puts the CPU grid emulator in the
# device's place (views from the kernel bodies, the reference for another profile, reports).
if [ $built = yes ]; then
  emu() { prof=$1; shift; env SHARDCHECK_CUDA_EMULATE=$prof "$SHARDCHECK" run --backend cuda --golden "$G" "$@"; }
  out=$(emu a100 --family torch-cuda-rng 2>&1); rc=$?
  if [ $rc -eq 0 ] && printf '%s\n' "$out" | tail -n 1 | grep -Eq '^250 passed, 0 failed' &&
     printf '%s' "$out" | grep -q 'no GPU used: SHARDCHECK_CUDA_EMULATE'; then
    tap_ok "emulated device, golden's own profile (a100): every torch-cuda-rng case passes"
  else tap_not_ok "emulated a100" "exit $rc" "$(printf '%s\n' "$out" | tail -n 5)"; fi
  out=$(emu 66x2048 --family torch-cuda-rng --json 2>/dev/null); rc=$?
  if [ $rc -eq 0 ] && printf '%s' "$out" | grep -Eq '"failed": *0' &&
     printf '%s' "$out" | grep -q "checked against the CPU reference for the device's profile custom (66x2048)"; then
    tap_ok "emulated 66-SM device: checked against the CPU reference for its own profile, named"
  else tap_not_ok "emulated 66x2048" "exit $rc" "$(printf '%s' "$out" | head -c 600)"; fi
  # a custom profile with a capability (issue 25 item 4): 132x2048@sm_90 passes the h100-sxm
  # group's SfuModel cases as the named profile does; 132x2048 alone models no SFU
  out=$(emu 132x2048@sm_90 --family torch-cuda-rng 2>&1); rc=$?
  plain=$(emu 132x2048 --family torch-cuda-rng 2>&1 | tail -n 1)
  named=$(emu h100-sxm --family torch-cuda-rng 2>&1 | tail -n 1)
  if [ $rc -eq 0 ] && printf '%s' "$named" | grep -Eq '^[1-9][0-9]* passed, 0 failed' &&
     [ "$(printf '%s\n' "$out" | tail -n 1)" = "$named" ] &&
     printf '%s' "$out" | grep -q 'profile custom (132x2048@sm_90)' &&
     [ "$plain" != "$named" ]; then
    tap_ok "emulated 132x2048@sm_90: the sm_90 SFU model, as h100-sxm ($plain without @sm_90)"
  else tap_not_ok "emulated 132x2048@sm_90" "exit $rc" "$(printf '%s\n' "$out" | tail -n 3)" "$plain"; fi
  out=$(emu h100-sxm --family rng-offsets 2>&1); rc=$?
  last=$(printf '%s\n' "$out" | tail -n 1)
  if [ $rc -eq 0 ] && printf '%s' "$last" | grep -Eq '^[1-9][0-9]* passed, 0 failed'; then
    tap_ok "emulated device: rng-offsets random data per rank ($last)"
  else tap_not_ok "emulated rng-offsets" "exit $rc" "$last"; fi
  expect_exit "SHARDCHECK_CUDA_EMULATE with no such profile is bad usage" 2 "unknown gpu profile" \
    env SHARDCHECK_CUDA_EMULATE=nosuchgpu "$SHARDCHECK" run --backend cuda --golden "$G"
fi
expect_exit "a backend name it does not know is bad usage" 2 "expected ref, local, mpi, torch.*, cuda, plugin:FILE.so or worker:CMD" \
  "$SHARDCHECK" run --backend cudax --golden "$G"

# on a machine with a GPU: the family runs on it
expect_pass_or_skip "torch-cuda-rng on a GPU" "$SHARDCHECK" run --backend cuda --golden "$G" --family torch-cuda-rng
tap_done
