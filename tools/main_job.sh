#!/usr/bin/env bash
# tools/main_job.sh — the README's main command: set up, build, then run the conformance suite over
# every golden family with the built-in backends — ref (one process), local (simulated ranks),
# mpi under mpirun at several rank counts, cuda (a GPU per rank; 77 with the reason without one) and
# torch (real DTensor per rank) — and print the report.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
matrix=0
for a in "$@"; do
  case $a in
    --matrix) matrix=1 ;;   # also the torch release matrix (SHARDCHECK_MATRIX=1 alike)
    *) echo "main_job.sh: unknown option $a (--matrix)" >&2; exit 2 ;;
  esac
done
bash tools/setup.sh --venv || exit 2
bash tools/build.sh _build || exit 2
S="$here/_build/tools/shardcheck"
G="$here/golden"
export OMPI_MCA_mpi_warn_on_fork=0
MPIARGS="--oversubscribe --bind-to none"
[ "$(id -u)" -eq 0 ] && MPIARGS="$MPIARGS --allow-run-as-root"
pass=0; fail=0; skip=0; waived=0; worst=0
tally() { # tally LOG RC: add a run's closing "N passed, N failed[, N skipped]" line
  local line; line=$(grep -E "^(# )?[0-9]+ passed, [0-9]+ failed" "$1" | tail -n1 | sed 's/^# //')
  if [ -n "$line" ]; then
    pass=$((pass + $(echo "$line" | awk '{print $1}'))); fail=$((fail + $(echo "$line" | awk '{print $3}')))
    s=$(echo "$line" | awk '{print $5}'); skip=$((skip + ${s:-0}))
    w=$(echo "$line" | grep -Eo '[0-9]+ waived' | awk '{print $1}'); waived=$((waived + ${w:-0}))
  fi
  [ "$2" -eq 0 ] || [ "$2" -eq 77 ] || worst=1
}
section() { echo; echo "=== $* ==="; }

section "golden corpus"
"$S" verify --manifest --golden "$G" || worst=1
for backend in ref local; do
  section "backend $backend"
  "$S" run --backend "$backend" --golden "$G" --max-ranks 64 >"_build/run-$backend.out" 2>&1; rc=$?
  tail -n 25 "_build/run-$backend.out"; tally "_build/run-$backend.out" $rc
done
for np in ${SHARDCHECK_NP:-1 2 3 4 8}; do
  section "backend mpi, mpirun -np $np"
  # Every case at every np: a mesh larger than the job runs with each process hosting a block of
  # its ranks (README "Any rank count"), so no case may be NotSupported for its mesh's size.
  # tools/run/mpirun_runner.sh turns a rank that dies (mpirun ends the job) into a Crash line and a summary
  t0=$(date +%s)
  MPIRUN_ARGS="$MPIARGS" bash tools/run/mpirun_runner.sh -np "$np" --shardcheck "$S" -- --golden "$G" \
    --verbose >"_build/run-mpi-$np.out" 2>&1; rc=$?
  grep -v '^Pass ' "_build/run-mpi-$np.out" | tail -n 25; tally "_build/run-mpi-$np.out" $rc
  big=$(grep -c "NotSupported.*needs [0-9]* ranks" "_build/run-mpi-$np.out")
  echo "mpi at np $np: $(grep -c '^Pass ' "_build/run-mpi-$np.out") cases passed, $big NotSupported for their mesh's size, $(( $(date +%s) - t0 )) s"
  [ "$big" -eq 0 ] || worst=1
done
# The cuda backend: each rank's view on a GPU (torch-cuda-rng, rng-offsets random data). Without a
# GPU (or a CUDA build) it says why and exits 77; with one it also runs under mpirun at np 2 and 4.
section "backend cuda"
"$S" run --backend cuda --golden "$G" >"_build/run-cuda.out" 2>&1; rc=$?
tail -n 5 "_build/run-cuda.out"; tally "_build/run-cuda.out" $rc
if [ $rc -ne 77 ]; then
  for np in 2 4; do
    section "backend cuda, mpirun -np $np"
    MPIRUN_ARGS="$MPIARGS" bash tools/run/mpirun_runner.sh -np "$np" --backend cuda --shardcheck "$S" \
      -- --golden "$G" >"_build/run-cuda-$np.out" 2>&1; rc=$?
    tail -n 5 "_build/run-cuda-$np.out"; tally "_build/run-cuda-$np.out" $rc
  done
fi
# The torch backend: real DTensor per rank (tools/harness/torch_worker.py, gloo), every family it
# supports, with torch's recorded findings waived (waivers/torch.json: each case a finding in
# docs/findings explains is reported Waived with it, so a torch that behaves as recorded ends
# green and one that changed is noticed: a waived case that passes says so); each np runs the cases whose mesh spans the job (the others are NotSupported).  Every
# such case at np 1-4 (measured on 2 shared cores, load 8-37: np 2, 4,650 cases in 99 s; np 4,
# 9,861 cases in 565 s), a deterministic sample at np 8, where a case costs 8 processes on 2
# cores and every case (18,500) would take the better part of an hour:
# SHARDCHECK_TORCH_CASES (per family, every np; 0 = every case) and SHARDCHECK_TORCH_CASES_NP8
# (default 2000) override.
if [ -x "$here/.venv/bin/python" ] && "$here/.venv/bin/python" -c "import torch" 2>/dev/null; then
  for np in ${SHARDCHECK_TORCH_NP:-1 2 3 4 8}; do
    section "backend torch, mpirun -np $np"
    t0=$(date +%s)
    cases=${SHARDCHECK_TORCH_CASES:-}
    [ -n "$cases" ] || { [ "$np" -ge 8 ] && cases=${SHARDCHECK_TORCH_CASES_NP8:-2000} || cases=0; }
    sample=(); [ "$cases" -gt 0 ] && sample=(--max-cases "$cases")
    for fam in $("$S" gen --list | awk '{print $1}'); do  # the registry; unsupported: NotSupported
      SHARDCHECK_PYTHON="$here/.venv/bin/python" MPIRUN_ARGS="$MPIARGS" bash tools/run/mpirun_runner.sh \
        -np "$np" --backend torch --shardcheck "$S" -- --golden "$G" --family "$fam" \
        --waivers waivers/torch.json "${sample[@]}" >"_build/run-torch-$np-$fam.out" 2>&1; rc=$?
      tail -n 3 "_build/run-torch-$np-$fam.out"; tally "_build/run-torch-$np-$fam.out" $rc
    done
    echo "torch backend at np $np: $(( $(date +%s) - t0 )) s wall"
  done
else
  section "backend torch"; echo "skipped: no torch in $here/.venv (tools/harness/setup_venv.sh)"
fi
# The full release matrix on request (--matrix or SHARDCHECK_MATRIX=1): every torch release
# 2.11 .. 2.15 (a venv each), the harness and the torch backend, and the findings reproducers.
if [ "${SHARDCHECK_MATRIX:-0}" = 1 ] || [ "$matrix" = 1 ]; then
  section "torch release matrix (tools/scripts/torch_matrix.sh)"
  MATRIX_FINDINGS=1 bash tools/scripts/torch_matrix.sh _build >_build/torch-matrix.out 2>&1; rc=$?
  tail -n 40 _build/torch-matrix.out
  [ $rc -eq 0 ] || worst=1
fi
section "report"
printf 'backends ref, local, mpi (np %s), cuda, torch (np %s); full logs in _build/run-*.out\n' \
  "${SHARDCHECK_NP:-1 2 3 4 8}" "${SHARDCHECK_TORCH_NP:-1 2 3 4 8}"
echo "$pass passed, $fail failed, $skip skipped, $waived waived (torch's recorded findings: waivers/torch.json)"
exit $worst
