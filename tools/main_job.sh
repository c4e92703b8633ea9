#!/usr/bin/env bash
# tools/main_job.sh — the README's main command: set up, build, then run the conformance suite over
# every golden family with the built-in backends — ref (one process), local (simulated ranks),
# mpi under mpirun at several rank counts, the example C plugin certified at np 1, 2 and 4, cuda (a
# GPU per rank; 77 with the reason without one) and torch (real DTensor per rank) — and print the
# report.
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
# The report: each stage's output goes to its log (_build/run-*.out, mpirun's banners and all);
# tools/scripts/job_report.sh prints one line per stage from the logs (counts, time, status, the
# log; a failing stage's Fail lines under it) and the closing table with the verdict.
ledger=_build/main-job.ledger; : >"$ledger"
report() { sh tools/scripts/job_report.sh "$@"; }
echo
echo "=== the conformance suite: one line per stage (backend, np, time, status, counts, log) ==="
t_first=$SECONDS t0=$SECONDS
"$S" verify --manifest --golden "$G" >_build/run-corpus.out 2>&1; rc=$?
report stage "$ledger" corpus - $((SECONDS - t0)) _build/run-corpus.out $rc
# The one-process stages (ref, local, the example plugin at np 1) use one core of the two, so
# they run beside another stage: bg starts one in the background, its exit code and seconds to
# _build/stage-NAME.done, and its report line is printed in the usual order once it has ended
# (two stages never write the ledger at once).
declare -A bgpid
bg() { local name=$1; shift; rm -f "_build/stage-$name.done"
  ( t0=$SECONDS; "$@"; echo "$? $((SECONDS - t0))" >"_build/stage-$name.done" ) &
  bgpid[$name]=$!; }
# wait for background stage NAME: its exit code and seconds in rc and secs (99 if it left none)
bg_wait() { wait "${bgpid[$1]}"; rc=99 secs=0
  [ -s "_build/stage-$1.done" ] && read -r rc secs <"_build/stage-$1.done"; }
one_process() { "$S" run --backend "$1" --golden "$G" --max-ranks 64 >"_build/run-$1.out" 2>&1; }
bg ref one_process ref
bg local one_process local
for backend in ref local; do
  bg_wait "$backend"
  report stage "$ledger" "$backend" - "$secs" "_build/run-$backend.out" "$rc"
done
# the example plugin at np 1 (below) runs beside mpi at np 1
plugin_ok=0 plugin_nps=" ${SHARDCHECK_PLUGIN_NP:-1 2 4} "
make -C _build examples/plugin_v2.la >_build/plugin-v2-build.out 2>&1 && plugin_ok=1
certify_plugin() { local np=$1 pkg=_build/certify-plugin-$1; rm -rf "$pkg"
  MPIRUN_ARGS="$MPIARGS" "$S" certify --out "$pkg" --golden "$G" --np "$np" \
    --backend plugin:"$here/_build/examples/.libs/plugin_v2.so" \
    --families shard-layout,group-ranks,rng-offsets,redistribute-plan,redistribute-data,view-sharding \
    >"_build/run-plugin-$np.out" 2>&1; }
[ $plugin_ok -eq 1 ] && [ "${plugin_nps#* 1 }" != "$plugin_nps" ] && bg plugin-1 certify_plugin 1
for np in ${SHARDCHECK_NP:-1 2 3 4 8}; do
  # Every case at every np: a mesh larger than the job runs with each process hosting a block of
  # its ranks (README "Any rank count"), so no case may be NotSupported for its mesh's size.
  # tools/run/mpirun_runner.sh turns a rank that dies (mpirun ends the job) into a Crash line and a summary
  t0=$SECONDS
  MPIRUN_ARGS="$MPIARGS" bash tools/run/mpirun_runner.sh -np "$np" --shardcheck "$S" -- --golden "$G" \
    --verbose >"_build/run-mpi-$np.out" 2>&1; rc=$?
  big=$(grep -c "NotSupported.*needs [0-9]* ranks" "_build/run-mpi-$np.out")
  bad=(); [ "$big" -eq 0 ] || bad=(--bad "$big cases NotSupported for their mesh's size (must be 0)")
  report stage "$ledger" mpi "$np" $((SECONDS - t0)) "${bad[@]}" "_build/run-mpi-$np.out" $rc
done
# The example C plugin (examples/plugin_v2.so, ABI v2, its collectives over MPI) certified on
# the families it answers (as plugin_v2.sh), every case, at np 1 (one process) and under mpirun
# at np 2 and 4: each np a package in _build/certify-plugin-N whose verdict must be CONFORMANT (issue 32's "done
# when"); the stage's counts are its rows' run logs'. Measured on 2 shared cores (load ~11):
# 965 s wall for np 1, 2 and 4 together, 288 s of CPU (user + sys), every row passing.
if [ $plugin_ok -eq 1 ]; then
  for np in $plugin_nps; do
    t0=$SECONDS pkg=_build/certify-plugin-$np
    if [ "$np" = 1 ]; then bg_wait plugin-1; t0=$((SECONDS - secs))
    else certify_plugin "$np"; rc=$?; fi
    runs=(); for l in "$pkg"/logs/*.stderr; do [ -f "$l" ] && runs+=("$l" "$rc"); done
    [ ${#runs[@]} -gt 0 ] || runs=("_build/run-plugin-$np.out" "$rc")
    verdict=$(grep -m1 '^verdict' "_build/run-plugin-$np.out" | cut -c1-120)
    bad=(); [ "${verdict#verdict: CONFORMANT}" != "$verdict" ] ||
      bad=(--bad "certify: ${verdict:-no verdict} (_build/run-plugin-$np.out)")
    report stage "$ledger" plugin "$np" $((SECONDS - t0)) "${bad[@]}" "${runs[@]}"
  done
else
  report stage "$ledger" plugin - 0 --bad "examples/plugin_v2.so does not build" \
    _build/plugin-v2-build.out 1
fi
# The cuda backend: each rank's view on a GPU (torch-cuda-rng, rng-offsets random data). Without a
# GPU (or a CUDA build) it says why and exits 77; with one it also runs under mpirun at np 2 and 4.
t0=$SECONDS
"$S" run --backend cuda --golden "$G" >"_build/run-cuda.out" 2>&1; rc=$?
report stage "$ledger" cuda - $((SECONDS - t0)) "_build/run-cuda.out" $rc
if [ $rc -ne 77 ]; then
  for np in 2 4; do
    t0=$SECONDS
    MPIRUN_ARGS="$MPIARGS" bash tools/run/mpirun_runner.sh -np "$np" --backend cuda --shardcheck "$S" \
      -- --golden "$G" >"_build/run-cuda-$np.out" 2>&1; rc=$?
    report stage "$ledger" cuda "$np" $((SECONDS - t0)) "_build/run-cuda-$np.out" $rc
  done
fi
# The torch backend: real DTensor per rank (tools/harness/torch_worker.py, gloo), every family it
# supports, with torch's recorded findings waived (waivers/torch.json: each case a finding in
# docs/findings explains is reported Waived with it, so a torch that behaves as recorded ends
# green and one that changed is noticed: a waived case that passes says so); each np runs the
# cases whose mesh spans the job (the others are NotSupported), every such case at every np.
# np 8 runs redistribute-plan's 5,872 whole since every gloo group of a worker shares one gloo
# device (worker_world.share_gloo_device): the stage took 955 s on 2 cores where the whole
# family alone had taken 1,025 s, and a 2,000-case sample of it was all the job could afford.
# SHARDCHECK_TORCH_CASES (per family, every np; 0 = every case) and SHARDCHECK_TORCH_CASES_NP8
# (redistribute-plan's at np 8 only; unset or 0 = every case) make a sample for a quick run.
if [ -x "$here/.venv/bin/python" ] && "$here/.venv/bin/python" -c "import torch" 2>/dev/null; then
  # No torch zygote here (tools/scripts/zygote.sh), unlike the test command: through one, a
  # worker's death by a signal reaches its rank's runner a few milliseconds later (the zygote
  # reaps it), so when a gloo abort on one rank makes another's worker exit with an error,
  # the case's Crash can name the latter, which the waivers of the recorded gloo findings
  # ("died with signal") do not match (CI: waivers_torch.sh at np 4, tc 16057).
  for np in ${SHARDCHECK_TORCH_NP:-1 2 3 4 8}; do
    t0=$SECONDS runs=()
    cases=${SHARDCHECK_TORCH_CASES:-}
    if [ -n "$cases" ]; then sample=(--max-cases "$cases")
    elif [ "$np" -ge 8 ] && [ "${SHARDCHECK_TORCH_CASES_NP8:-0}" != 0 ]; then
      sample=(--max-cases-of "redistribute-plan=$SHARDCHECK_TORCH_CASES_NP8")
    else sample=(); fi
    # every family in one run: the workers start once per np, not once per family (eleven
    # starts of 8 torch processes cost minutes at np 8); the run prints a line per family
    SHARDCHECK_PYTHON="$here/.venv/bin/python" MPIRUN_ARGS="$MPIARGS" bash tools/run/mpirun_runner.sh \
      -np "$np" --backend torch --shardcheck "$S" -- --golden "$G" \
      --waivers waivers/torch.json "${sample[@]}" >"_build/run-torch-$np.out" 2>&1; rc=$?
    runs+=("_build/run-torch-$np.out" $rc)
    report stage "$ledger" torch "$np" $((SECONDS - t0)) "${runs[@]}"
  done
else
  report skip "$ledger" torch - "skipped: no torch in $here/.venv (tools/harness/setup_venv.sh)"
fi
# The full release matrix on request (--matrix or SHARDCHECK_MATRIX=1): every release
# `shardcheck registry releases` lists (a venv each), the harness and the torch backend, and
# the findings reproducers.
if [ "${SHARDCHECK_MATRIX:-0}" = 1 ] || [ "$matrix" = 1 ]; then
  t0=$SECONDS
  MATRIX_FINDINGS=1 bash tools/scripts/torch_matrix.sh _build >_build/torch-matrix.out 2>&1; rc=$?
  report stage "$ledger" matrix - $((SECONDS - t0)) --no-counts _build/torch-matrix.out $rc
fi
echo
echo "=== report (waived: torch's recorded findings, waivers/torch.json; skipped: NotSupported) ==="
report summary "$ledger" $((SECONDS - t_first))
