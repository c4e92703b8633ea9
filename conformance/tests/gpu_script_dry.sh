#!/bin/sh
# gpu_script_dry.sh — tools/gpu/gpu_check.sh, the one-call GPU run of the CUDA backend (issue 33
# item 5), as a dry run here: no GPU is used (CUDA_VISIBLE_DEVICES=), the run steps use the CPU grid
# emulator, the GPU-only steps (device test, bench_cuda) say "skipped: no GPU", and the summary
# (summary.txt, summary.json, logs.tar.gz) is still written with every step's status.  Built without
# CUDA, every CUDA step says "skipped: built without CUDA" instead.  Also: a broken run is reported
# (a step "fail", exit 1), a staged tree (tools/gpu/gpu_stage.sh) runs as the build folder does,
# a real run with stand-ins for the GPU programs puts bench_cuda's figures in summary.json and is
# incomplete (exit 3) where the runs skip, a failing GPU program is a failure (exit 1), and bad
# usage exits 2.  The dry run takes a few seconds; the whole test well under a minute.
. "$(dirname "$0")/testlib.sh"
use_tmpdir
GC=$top_srcdir/tools/gpu/gpu_check.sh
mp=""; have_mpi_build && mp=$MPIRUN
if [ -f "$top_builddir/lib/cuda/torch_rng_kernels.o" ]; then cuda=yes; else cuda=no; fi
js() { tr -d '\n' <"$1/summary.json"; }
status_of() {
  js "$1" | grep -o "\"name\": \"$2\", \"status\": \"[^\"]*\"" | sed 's/.*"status": "//; s/"$//'
}

s=$(date +%s)
out=$(env -u CUDA_VISIBLE_DEVICES bash "$GC" --bin "$top_builddir" --out "$tmp/dry" --golden "$G" \
      --mpirun "$mp" --dry-run 2>&1); rc=$?
secs=$(($(date +%s) - s))
if [ $rc -eq 0 ] && [ -f "$tmp/dry/summary.txt" ] && [ -f "$tmp/dry/logs.tar.gz" ] &&
   head -n 1 "$tmp/dry/summary.txt" | grep -q '^gpu_check: dry-run (0 failed'; then
  tap_ok "dry run: exit 0, summary and logs written (${secs}s)"
else tap_not_ok "dry run" "exit $rc" "$(printf '%s' "$out" | tail -n 12)"; fi
if [ $secs -lt 60 ]; then tap_ok "dry run within a minute (${secs}s)"
else tap_not_ok "dry run within a minute" "${secs}s"; fi
if js "$tmp/dry" | grep -q '"verdict": "dry-run", "dry_run": true'; then
  tap_ok "summary.json: verdict dry-run"
else tap_not_ok "summary.json: verdict dry-run" "$(head -c 300 "$tmp/dry/summary.json")"; fi
if ! "$PY" -c 'import json' 2>/dev/null; then tap_skip "summary.json is JSON" "no python3 at $PY"
elif "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["steps"]) == 9' \
     "$tmp/dry/summary.json"; then tap_ok "summary.json is JSON with 9 steps"
else tap_not_ok "summary.json is JSON with 9 steps" "$(head -c 300 "$tmp/dry/summary.json")"; fi

# every step is in the summary with a status, none silent
for n in env build device_test run_np1_torch-cuda-rng run_np1_redistribute-data mpi_np1 mpi_np2 \
         mpi_np4 bench_cuda; do
  st=$(status_of "$tmp/dry" $n)
  case $cuda:$n:$st in
    yes:device_test:"skipped: no GPU"|yes:bench_cuda:"skipped: no GPU") tap_ok "$n: $st" ;;
    yes:run_np1_*:pass|*:env:pass|*:build:"skipped: prebuilt binaries") tap_ok "$n: $st" ;;
    yes:mpi_np*:pass) tap_ok "$n: $st (emulated device under mpirun)" ;;
    yes:mpi_np*:"skipped: no mpirun"|yes:mpi_np*:"skipped: "*MPI*) tap_ok "$n: $st" ;;
    no:*:"skipped: built without CUDA") tap_ok "$n: $st" ;;
    *) tap_not_ok "$n: status '$st' (CUDA built: $cuda)" "$(grep "^$n " "$tmp/dry/summary.txt")" ;;
  esac
done
if [ $cuda = yes ] && [ -n "$mp" ]; then
  expect_file "mpi_np2 names how collectives went (host-staged under emulation)" \
    "$tmp/dry/summary.txt" \
    "redistribute collectives host-staged over MPI"
fi

# a run that breaks is a failure in the summary and exit 1, never a pass or a silent skip
if [ $cuda = yes ]; then
  mkdir -p "$tmp/nogolden"
  bash "$GC" --bin "$top_builddir" --out "$tmp/bad" --golden "$tmp/nogolden" --mpirun "" --dry-run \
    >/dev/null 2>&1; rc=$?
  st=$(status_of "$tmp/bad" run_np1_redistribute-data)
  if [ $rc -eq 1 ] && [ "$st" = fail ] && js "$tmp/bad" | grep -q '"verdict": "fail"'; then
    tap_ok "an empty corpus: the run steps fail, verdict fail, exit 1"
  else tap_not_ok "an empty corpus fails" "exit $rc, status '$st'" \
    "$(head -n 6 "$tmp/bad/summary.txt")"
  fi
  # the staged tree that travels to a GPU machine runs the same steps
  if bash "$top_srcdir/tools/gpu/gpu_stage.sh" "$top_builddir" "$tmp/stage" >/dev/null 2>&1 &&
     bash "$GC" --bin "$tmp/stage" --out "$tmp/st" --golden "$G" --mpirun "$mp" --dry-run \
       >/dev/null 2>&1 &&
     [ "$(status_of "$tmp/st" run_np1_redistribute-data)" = pass ]; then
    tap_ok "gpu_stage.sh: the staged binaries run the dry run ($(du -sh "$tmp/stage" | cut -f1))"
  else tap_not_ok "gpu_stage.sh then a dry run" "$(head -n 8 "$tmp/st/summary.txt" 2>/dev/null)"; fi
  # an mpirun that cannot start MPI: the mpi steps skip with its exit, the others still run
  bash "$GC" --bin "$top_builddir" --out "$tmp/nompi" --golden "$G" --mpirun false --dry-run \
    >/dev/null 2>&1; rc=$?
  st=$(status_of "$tmp/nompi" mpi_np2)
  if [ $rc -eq 0 ] && [ "$st" = "skipped: mpirun cannot start MPI" ] &&
     grep -q '^mpi_np2 .*false -np 1: exit 1' "$tmp/nompi/summary.txt" &&
     [ "$(status_of "$tmp/nompi" run_np1_redistribute-data)" = pass ]; then
    tap_ok "an mpirun that cannot start MPI: the mpi steps skip with its exit, the rest run"
  else tap_not_ok "an mpirun that cannot start MPI" "exit $rc" "$(cat "$tmp/nompi/summary.txt")"; fi
else
  tap_skip "an empty corpus fails" "built without CUDA (configure --with-cuda)"
  tap_skip "an mpirun that cannot start MPI" "built without CUDA (configure --with-cuda)"
  tap_skip "gpu_stage.sh" "built without CUDA (configure --with-cuda)"
fi

# a real (not dry) run, with stand-ins for the two GPU programs and no visible GPU: their figures
# reach the summary, the run steps skip with shardcheck's reason, and the verdict is incomplete
mkdir -p "$tmp/fake"
printf '#!/bin/sh\nexec "%s" "$@"\n' "$SHARDCHECK" >"$tmp/fake/shardcheck"
printf '#!/bin/sh\necho "14 outputs: 14 match the CPU reference"\n' >"$tmp/fake/rng_device_test"
cat >"$tmp/fake/bench_cuda" <<'EOF'
#!/bin/sh
echo "NVIDIA H200 (profile custom, 132 SMs), 268435456 float32"
echo "fill                   3141.5 GB/s"
echo "shardcheck uniform     2900.2 GB/s  (0.92 x fill)"
echo "shardcheck normal      2800.0 GB/s"
echo "cuRAND Philox uniform  2700.7 GB/s  (shardcheck 0.93 x)"
echo "cuRAND Philox normal   2600.1 GB/s  (shardcheck 0.93 x)"
EOF
chmod +x "$tmp/fake"/*
env CUDA_VISIBLE_DEVICES= bash "$GC" --bin "$tmp/fake" --out "$tmp/real" --golden "$G" --mpirun "" \
  >/dev/null 2>&1; rc=$?
want='"bench": {"fill_gbps": 3141.5, "uniform_gbps": 2900.2, "normal_gbps": 2800.0,'
want="$want \"curand_uniform_gbps\": 2700.7, \"curand_normal_gbps\": 2600.1}"
if [ $rc -eq 3 ] && js "$tmp/real" | grep -q '"verdict": "incomplete", "dry_run": false' &&
   js "$tmp/real" | grep -qF "$want" && [ "$(status_of "$tmp/real" device_test)" = pass ] &&
   [ "$(status_of "$tmp/real" bench_cuda)" = pass ] &&
   [ "$(status_of "$tmp/real" mpi_np2)" = "skipped: no mpirun" ] &&
   status_of "$tmp/real" run_np1_redistribute-data |
     grep -Eq '^skipped: (no GPU|built without CUDA)$'
then tap_ok "a real run, no GPU: bench figures in summary.json, runs skipped, incomplete, exit 3"
else tap_not_ok "a real run without a GPU" "exit $rc (want 3)" "$(cat "$tmp/real/summary.json")"; fi

# a GPU program that fails is a "fail" in the summary and exit 1, whatever else passed
printf '#!/bin/sh\necho "3 of 14 outputs differ from the CPU reference"; exit 1\n' \
  >"$tmp/fake/rng_device_test"
env CUDA_VISIBLE_DEVICES= bash "$GC" --bin "$tmp/fake" --out "$tmp/real2" --golden "$G" \
  --mpirun "" >/dev/null 2>&1; rc=$?
st=$(status_of "$tmp/real2" device_test)
if [ $rc -eq 1 ] && [ "$st" = fail ] && js "$tmp/real2" | grep -q '"verdict": "fail"' &&
   grep -q '^device_test .*exit 1: 3 of 14 outputs differ' "$tmp/real2/summary.txt"; then
  tap_ok "a failing device test: fail with its last line, verdict fail, exit 1"
else tap_not_ok "a failing device test" "exit $rc (want 1), status '$st'" \
  "$(head -n 5 "$tmp/real2/summary.txt" 2>/dev/null)"; fi

# --build: a build that fails is the build step's "fail", and the steps after it say why they skip
mkdir -p "$tmp/b"; printf 'all:\n' >"$tmp/b/Makefile"
bash "$GC" --build "$tmp/b" --out "$tmp/bo" --golden "$G" >/dev/null 2>&1; rc=$?
if [ $rc -eq 1 ] && [ "$(status_of "$tmp/bo" build)" = fail ] &&
   [ "$(status_of "$tmp/bo" mpi_np4)" = "skipped: the build failed" ] &&
   grep -q '^build .*No rule to make target' "$tmp/bo/summary.txt"; then
  tap_ok "--build that fails: build fail with make's message, the rest skipped, exit 1"
else tap_not_ok "--build that fails" "exit $rc (want 1)" "$(head -n 4 "$tmp/bo/summary.txt")"; fi

expect_exit "no --out and no \$OUT: bad usage" 2 'no --out and \$OUT is unset' \
  env -u OUT bash "$GC" --bin "$top_builddir" --dry-run
expect_exit "--budget not a number: bad usage" 2 "--budget 'soon': not a number" \
  bash "$GC" --bin "$top_builddir" --out "$tmp/u" --budget soon
expect_exit "--bin that is no folder: bad usage" 2 "--bin '$tmp/none': no such folder" \
  bash "$GC" --bin "$tmp/none" --out "$tmp/u"
tap_done
