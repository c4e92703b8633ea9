#!/usr/bin/env bash
# tools/test_job.sh — the README's test command (and all that .ci/run does):
#   1. set-up (Debian packages; venv with torch 2.13.0, jax, cuRAND for the oracles)
#   2. build (CUDA kernels compiled by nvcc where the image has it) and `make check` (Check unit
#      tests, golden regeneration + MANIFEST + schemas,
#      verify, the mpirun runner at 1, 2, 3, 4, 8 ranks, fault injection)
#   3. the same under ASan+UBSan (its make check runs beside step 2's)
#   4. the harness: every golden family cross-checked against real torch 2.13 and jax, and the
#      outside peers' adapters (`shardcheck families --peers`: Megatron-core 0.19.2, veScale 0.0.1)
#   5. the newest release `shardcheck registry releases` names (2.15 today) on a deterministic
#      sample, and issue 21's check that verify passes a candidate its harness wrote under
#      --torch-version NEWEST and fails it under the pinned release on exactly the changed tests
#      (tools/scripts/release_check.sh; a second venv, $SHARDCHECK_VENV_NEWEST or
#      .venv-torch-NEWEST; SHARDCHECK_RELEASE_CHECK=0 skips it)
#   6. `make distcheck` (SHARDCHECK_DISTCHECK=0 skips it), configured --without-mpi: the tarball
#      holds every tracked file (Makefile.am distcheck-hook), builds, installs, and passes the
#      tests whose result the configuration steps 2-3 do not build can change (Makefile.am
#      DISTCHECK_TESTS: every test with a branch without MPI or CUDA, the package's tests, the
#      Check programs; conformance/tests/build_without_mpi.sh guards it in every make check),
#      walking the slow tests' paths on samples (SHARDCHECK_SAMPLED=1), as step 3 does
# To keep CI within 30 minutes on 2 cores (issue 36), work that waits on other things runs beside
# the stages that leave a core idle: the newest release's venv (downloads) installs during the
# builds and make checks; the plain and the ASan+UBSan make checks run side by side; once the
# plain one is done, distcheck, the harness's pytest and step 5 start beside step 4's family
# cross-checks (mostly one Python process each) and the rest of the ASan one; each result is
# collected, with its time, before the summary.
# Each make check runs -j3: its longest tests start first (Makefile.am SLOW_TESTS), and many
# wait on mpirun, torch imports and watchdogs, whose idle time the other slots fill.
# Ends with one line "N passed, N failed" summing every stage.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
pass=0; fail=0; skip=0; stages_failed=()
add_counts() { # add_counts LOG: sum automake's "# PASS:" style totals
  local p f s x e
  p=$(awk '/^# PASS:/{print $3}' "$1" | tail -n1); f=$(awk '/^# FAIL:/{print $3}' "$1" | tail -n1)
  s=$(awk '/^# SKIP:/{print $3}' "$1" | tail -n1); x=$(awk '/^# XPASS:/{print $3}' "$1" | tail -n1)
  e=$(awk '/^# ERROR:/{print $3}' "$1" | tail -n1)
  pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0} + ${x:-0} + ${e:-0})); skip=$((skip + ${s:-0}))
}
# failed_details BUILDDIR: for each test make check marked FAIL or ERROR, its "not ok" lines with
# the "#" detail lines under them (else its log's last lines), first: what CI shows of a long
# output is its head and its tail, and a flaky test must say why it failed the one time it did
failed_details() {
  local t log
  for t in $(sed -n 's/^\(FAIL\|ERROR\): \([^ ]*\).*/\2/p' "$1/check.out" | sort -u); do
    log="$1/${t%.*}.log"; [ -f "$log" ] || continue
    echo "--- $t:"
    if grep -q '^not ok' "$log"; then awk '/^not ok/{n=12; print; next} /^(FAIL|XPASS|ERROR):/{next}
      n>0 && /^#/{print; n--; next} {n=0}' "$log" | head -n 40
    else tail -n 15 "$log"; fi
  done
}
# cpu_file FILE: the CPU seconds this (sub)shell's finished children used, into FILE (bash's
# `times`, whose second line is the children's; it must run in the shell itself, not in a $(...)
# of it, whose children are its own).  Each stage that runs beside others writes one, and the
# summary prints them: on 2 cores the job is CPU-bound, so CPU-s is what a cut is measured in.
cpu_file() {
  times >"$1.times" # not `times | ...`: a pipeline's builtin runs in a subshell of its own
  awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); sub("s", "", a[2]); t += a[1] * 60 + a[2] }
                 printf "%d\n", t + 0.5 }' "$1.times" >"$1"
}
cpu_of() { cat "$1" 2>/dev/null || echo "?"; } # cpu_of FILE: what cpu_file wrote
# disk_free_gb: whole GiB free on the file system of the clone.  CI's machines share their disk
# with others, and one run ran out of it (ENOSPC in the ASan build while the newest release's
# CUDA wheels were unpacking beside it), so the job prints it and sizes step 5 against it.
disk_free_gb() { df -Pk . | awk 'NR == 2 { print int($4 / 1048576) }'; }
# The newest release's venv: 6.1 GB at its peak (measured: tools/harness/setup_venv.sh --release
# 2.15.0 DIR, with df sampled every 2 s; 4.3 GB once done), and the rest of the job after set-up
# about 1 GB (the builds, distcheck's tree, the logs); a margin above both.
release_disk_gb=8

# stage NAME: each stage's heading says how long the one before took (CI's budget is 30 minutes)
t_job=$(date +%s); t_stage=$t_job; stage_name=
stage() {
  local now; now=$(date +%s)
  [ -n "$stage_name" ] && echo "(stage \"$stage_name\": $((now - t_stage)) s; $((now - t_job)) s so far)"
  t_stage=$now; stage_name=$*
  echo; echo "=== $* ==="
}

stage "set-up"
echo "disk: $(disk_free_gb) GB free where the job runs ($here)"
bash tools/setup.sh --venv --browser || { echo "set-up failed"; echo "0 passed, 1 failed"; exit 1; }
export SHARDCHECK_PYTHON="$here/.venv/bin/python"
mkdir -p _build
# One torch zygote for the whole job (tools/scripts/zygote.sh): the make checks' torch workers and
# the harness's families fork from it instead of importing torch each (issue 36: CI time)
. tools/scripts/zygote.sh
zygote_start "$SHARDCHECK_PYTHON" _build/zygote.out
trap zygote_stop EXIT
venv_new_pid= newest= release_skipped=

stage "build: plain (with CUDA where nvcc is) and ASan+UBSan"
# The CUDA kernels (lib/cuda), the device test and bench/bench_cuda are compiled with nvcc whenever
# this image has it (/usr/local/cuda): --with-cuda makes a missing CUDA runtime an error instead
# of a silent skip.  No GPU here: the device tests and run --backend cuda skip with the reason.
cuda_flag=()
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then cuda_flag=(--with-cuda); fi
echo "CUDA build: ${cuda_flag[*]:-no nvcc on this machine}"
plain_ok=0 asan_ok=0
if bash tools/build.sh _build "${cuda_flag[@]}"; then
  plain_ok=1
  export SHARDCHECK="$here/_build/tools/shardcheck" # the harness asks this binary (the registry)
  # the newest release (the registry: no script lists releases) and its venv, downloading
  # beside the builds and make checks
  newest=$("$SHARDCHECK" registry releases | awk '$NF == "newest" {print $2}')
  if [ "${SHARDCHECK_RELEASE_CHECK:-1}" != 0 ] && [ -n "$newest" ] && [ -z "${SHARDCHECK_VENV_NEWEST:-}" ] &&
     [ ! -d "$here/.venv-torch-$newest" ] && [ "$(disk_free_gb)" -lt $release_disk_gb ]; then
    # not enough disk for its CUDA wheels: it would fill the disk under the builds beside it
    # (that run failed its ASan build), so step 5 is skipped with the reason, as a GPU test is
    release_skipped="torch $newest release check: $(disk_free_gb) GB free, its venv needs about $release_disk_gb"
    echo "SKIPPED: $release_skipped"
  elif [ "${SHARDCHECK_RELEASE_CHECK:-1}" != 0 ] && [ -n "$newest" ]; then
    venv_new=${SHARDCHECK_VENV_NEWEST:-$here/.venv-torch-$newest}
    ( bash tools/harness/setup_venv.sh --release "$newest" "$venv_new" >_build/venv-newest.out 2>&1
      rc=$?; cpu_file _build/venv-newest.cpu; exit $rc ) &
    venv_new_pid=$!
  fi
else
  stages_failed+=("build"); fail=$((fail+1))
fi
san="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
if bash tools/build.sh _build-asan --without-cuda CFLAGS="$san" LDFLAGS="-fsanitize=address,undefined"; then
  asan_ok=1
else
  stages_failed+=("asan build"); fail=$((fail+1))
fi

stage "make check: the plain build's (the ASan+UBSan build's runs beside it and on into the next stages)"
# The two make checks run at once (issue 36: CI time): each alone leaves about a fifth of the
# two cores idle (tests waiting on mpirun, torch imports and watchdogs), and together they fill
# it.  Each runs -j3, its longest tests first (Makefile.am SLOW_TESTS); the sanitized one walks
# the slow tests' paths on samples (SHARDCHECK_SANITIZED=1, testlib.sh's sampled).
plain_pid= asan_pid=
cpu_file _build/setup-builds.cpu # the foreground so far: set-up and the two builds
if [ $plain_ok = 1 ]; then
  ( t=$(date +%s); make -C _build -j3 check >_build/check.out 2>&1; rc=$?; cpu_file _build/check.cpu
    echo "plain make check: $(( $(date +%s) - t )) s, $(cpu_of _build/check.cpu) CPU-s" >_build/check.time; exit $rc ) &
  plain_pid=$!
fi
if [ $asan_ok = 1 ]; then
  ( t=$(date +%s)
    export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0" UBSAN_OPTIONS="print_stacktrace=1"
    SHARDCHECK_SANITIZED=1 make -C _build-asan -j3 check >_build-asan/check.out 2>&1; rc=$?
    cpu_file _build-asan/check.cpu
    echo "ASan+UBSan make check: $(( $(date +%s) - t )) s, $(cpu_of _build-asan/check.cpu) CPU-s" \
      >_build-asan/check.time; exit $rc ) &
  asan_pid=$!
fi
if [ -n "$plain_pid" ]; then
  if wait "$plain_pid"; then rc=0; else rc=$?; fi
  echo "--- plain build: $(cat _build/check.time 2>/dev/null)"
  grep -E "^(FAIL|XPASS|ERROR):|^# (TOTAL|PASS|SKIP|XFAIL|FAIL|XPASS|ERROR):" _build/check.out | tail -n 60
  failed_details _build
  add_counts _build/check.out
  [ $rc -eq 0 ] || { stages_failed+=("make check"); tail -n 30 _build/test-suite.log 2>/dev/null; }
fi
# Once the plain make check is done, what needs only the plain build starts at once, beside the
# rest of the ASan+UBSan make check (which ends two to three minutes later; waiting for it left a
# core idle): distcheck (its make check sampled: SHARDCHECK_SAMPLED=1, testlib.sh's sampled; the
# two builds above ran every case), the harness's pytest, the newest release's check, and the
# harness's family cross-checks in the foreground.  Each writes its log; their results, the ASan
# make check's first, are read in this order below.
distcheck_pid=
if [ "${SHARDCHECK_DISTCHECK:-1}" != 0 ]; then
  ( t=$(date +%s)
    # its make check: the tests whose result this configuration can change, the package's and
    # the Check programs (Makefile.am DISTCHECK_TESTS); the others ran in both builds above
    # (the inner make expands it: its own check_PROGRAMS, without MPI's)
    SHARDCHECK_SAMPLED=1 make -C _build -j2 distcheck 'TESTS=$(DISTCHECK_TESTS)' \
      DISTCHECK_CONFIGURE_FLAGS="--without-cuda --without-mpi" >_build/distcheck.out 2>&1; rc=$?
    cpu_file _build/distcheck.cpu
    echo "distcheck: exit $rc, $(( $(date +%s) - t )) s, $(cpu_of _build/distcheck.cpu) CPU-s" \
      >>_build/distcheck.out; exit $rc ) &
  distcheck_pid=$!
fi
# The pytest runs as two processes, its files split by cost (the C plugin's certify runs, the
# invalid-case audit and JAX's sharded draws in one, about 150 s alone; the rest in the other,
# about 190 s), so that its last minutes, when the jobs beside it have ended, fill both cores
# (one process left a core idle for the last three minutes: issue 36).
pytest_heavy="tools/harness/tests/test_example_worker.py tools/harness/tests/test_invalid_audit.py
tools/harness/tests/test_jax_policy.py"
pytest_part() { # pytest_part NAME FILE...: in the background, its log and CPU-s under _build
  local n=$1; shift
  ( t=$(date +%s); .venv/bin/python -m pytest -q "$@" >"_build/pytest-$n.out" 2>&1; rc=$?
    cpu_file "_build/pytest-$n.cpu"
    echo "pytest ($n): $(( $(date +%s) - t )) s, $(cpu_of "_build/pytest-$n.cpu") CPU-s" \
      >>"_build/pytest-$n.out"; exit $rc ) &
}
# shellcheck disable=SC2086  # word lists of file names
pytest_part heavy $pytest_heavy
pytest_a_pid=$!
# shellcheck disable=SC2046
pytest_part rest $(ls tools/harness/tests/test_*.py | grep -vxF "$pytest_heavy")
pytest_b_pid=$!
release_pid=
if [ "${SHARDCHECK_RELEASE_CHECK:-1}" != 0 ] && [ -z "$release_skipped" ]; then
  venv_ok=0 # its install ran beside the make checks: long done by now
  [ -n "$venv_new_pid" ] && wait "$venv_new_pid" && venv_ok=1
  ( t=$(date +%s)
    if [ $venv_ok = 1 ]; then
      bash tools/scripts/release_check.sh "$venv_new" _build >_build/release-newest.out 2>&1; rc=$?
    else echo "no venv for torch ${newest:-(newest)}" >_build/release-newest.out; rc=99; fi
    cpu_file _build/release-newest.cpu
    echo "torch $newest stage: $(( $(date +%s) - t )) s, $(cpu_of _build/release-newest.cpu) CPU-s" \
      "(the install ran beside make check)" >>_build/release-newest.out; exit $rc ) &
  release_pid=$!
fi

pinned=$("${SHARDCHECK:-_build/tools/shardcheck}" registry releases 2>/dev/null | awk '$NF == "pinned" {print $1}')
stage "harness: golden vs torch ${pinned:-(pinned)}, jax and the outside peers"
# Every family with an adapter is cross-checked, each in its own Python process (the adapters set up
# torch's fake process-group world differently). To keep CI near 30 minutes on 2 cores the slowest
# families are sampled deterministically (every K-th case; every file and group is still reached);
# SHARDCHECK_HARNESS_FULL=1 checks every case (about 15 minutes more). torch-cuda-rng needs a GPU.
# The families and their sampling strides come from the registry (shard_family.harness_stride).
harness_families=$(_build/tools/shardcheck families --harness) || stages_failed+=("harness family list")
rc=0; : >_build/harness.out
# Two at a time, each family in its own Python process, the next family to whichever finishes
# first (xargs -P 2; the registry lists the costly ones first): once the jobs beside this stage
# end, the last families still fill both cores (one process left a core idle for the last
# minutes, and two fixed lanes one: the three costliest families fell to the same lane, issue
# 36).  Each family's log is read in the list's order below.
harness_one() { # harness_one FAMILY:STRIDE
  local fam=${1%%:*} k=${1##*:}
  [ "${SHARDCHECK_HARNESS_FULL:-0}" = 1 ] && k=1
  zygote_run "$SHARDCHECK_PYTHON" tools/harness/run.py --golden golden --family "$fam" --stride "$k" \
    --max-report 50 >_build/harness-$fam.out 2>&1
  echo $? >_build/harness-$fam.rc
}
export -f harness_one
( printf '%s\n' $harness_families | xargs -P 2 -I{} bash -c 'harness_one "$1"' _ {}
  cpu_file _build/harness.cpu )
for fk in $harness_families; do
  fam=${fk%%:*}
  [ "$(cat _build/harness-$fam.rc 2>/dev/null)" = 0 ] || rc=1
  grep -E "^MISMATCH|^# $fam |sampled" _build/harness-$fam.out | head -n 60
  line=$(grep -E "^[0-9]+ passed, [0-9]+ failed" _build/harness-$fam.out | tail -n1)
  [ -n "$line" ] || { tail -n 20 _build/harness-$fam.out; rc=1; }
  echo "$line" >>_build/harness.out
done
# Outside peers (the registry's harness_peers, `families --peers`: Megatron-core 0.19.2's own
# random.py and RankGenerator, veScale 0.0.1's RNG tracker, installed by setup_venv.sh) over
# every case of their family; a few seconds each.  A peer that does not load fails the stage (run.py exits 2).
peers=$(_build/tools/shardcheck families --peers) || stages_failed+=("harness peer list")
for fa in $peers; do
  fam=${fa%%:*}; ad=${fa#*:}; out=_build/harness-$fam-${ad##*.}.out
  zygote_run "$SHARDCHECK_PYTHON" tools/harness/run.py --golden golden --family "$fam" --adapter "$ad" \
    --max-report 50 >"$out" 2>&1 || rc=1
  grep -E "^MISMATCH|^# $fam |^#   skipped" "$out" | head -n 60
  line=$(grep -E "^[0-9]+ passed, [0-9]+ failed" "$out" | tail -n1)
  [ -n "$line" ] || { tail -n 20 "$out"; rc=1; }
  echo "$line" >>_build/harness.out
done
hp=$(awk '{s+=$1} END {print s+0}' _build/harness.out); hf=$(awk '{s+=$3} END {print s+0}' _build/harness.out)
echo "harness: $hp passed, $hf failed"
pass=$((pass+hp)); fail=$((fail+hf))
[ $rc -eq 0 ] || stages_failed+=("harness")

if [ -n "$asan_pid" ]; then
  stage "ASan+UBSan make check (started beside the plain one)"
  if wait "$asan_pid"; then rc=0; else rc=$?; fi
  echo "--- ASan+UBSan build: $(cat _build-asan/check.time 2>/dev/null)"
  grep -E "^(FAIL|XPASS|ERROR):|^# (TOTAL|PASS|SKIP|XFAIL|FAIL|XPASS|ERROR):" _build-asan/check.out | tail -n 60
  failed_details _build-asan
  add_counts _build-asan/check.out
  [ $rc -eq 0 ] || { stages_failed+=("asan make check"); tail -n 30 _build-asan/test-suite.log 2>/dev/null; }
fi

stage "harness pytest (started beside the harness stage)"
rc=0
wait "$pytest_a_pid" || rc=$?
wait "$pytest_b_pid" || rc=$?
for part in heavy rest; do
  tail -n 5 "_build/pytest-$part.out"
  pp=$(grep -Eo "[0-9]+ passed" "_build/pytest-$part.out" | tail -n1 | awk '{print $1}')
  pass=$((pass+${pp:-0}))
done
cat _build/pytest-heavy.out _build/pytest-rest.out >_build/pytest.out
ca=$(cpu_of _build/pytest-heavy.cpu) cb=$(cpu_of _build/pytest-rest.cpu)
case "$ca$cb" in *[!0-9]*) echo "?" ;; *) echo $((ca + cb)) ;; esac >_build/pytest.cpu
[ $rc -eq 0 ] || { stages_failed+=("harness pytest"); fail=$((fail+1)); }

if [ -n "$release_pid" ]; then
  stage "torch ${newest:-(newest)}: harness sample and the release candidate check (started beside)"
  if wait "$release_pid"; then rc=0; else rc=$?; fi
  if [ $rc -eq 99 ]; then
    tail -n 20 _build/venv-newest.out 2>/dev/null
    stages_failed+=("torch ${newest:-(newest)} venv"); fail=$((fail+1))
  else
    grep -E "^(MISMATCH|ok|not ok|harness|torch)" _build/release-newest.out | head -n 40
    line=$(tail -n2 _build/release-newest.out | head -n1)
    rp=$(echo "$line" | awk '{print $1}'); rf=$(echo "$line" | awk '{print $3}')
    pass=$((pass+${rp:-0})); fail=$((fail+${rf:-0}))
    [ $rc -eq 0 ] || stages_failed+=("torch $newest")
  fi
fi

if [ -n "$distcheck_pid" ]; then
  stage "make distcheck (started beside the harness stage)"
  if wait "$distcheck_pid"; then
    echo "distcheck: $(grep -Eo "shardcheck-[0-9.]+ archives ready for distribution" _build/distcheck.out | head -n1)"
    grep -E "^distcheck: (the tarball|not a git)" _build/distcheck.out | head -n 1   # its hook
    grep -E "^# (TOTAL|PASS|SKIP|FAIL):" _build/distcheck.out | tail -n 4
    tail -n 1 _build/distcheck.out
  else
    tail -n 40 _build/distcheck.out; stages_failed+=("distcheck"); fail=$((fail+1))
  fi
fi

stage "summary"
zygote_stop  # before the CPU total: the workers it forked are its children
[ -s _build/zygote.out ] && tail -n 1 _build/zygote.out
# the workers it forked are counted there, not in the stage that asked for them (the harness's
# families all run in it)
zcpu=$(sed -n 's/.* forked, \([0-9]*\) CPU-s in them$/\1/p' _build/zygote.out 2>/dev/null | tail -n 1)
cpu_file _build/total.cpu
echo "CPU-s: set-up and builds $(cpu_of _build/setup-builds.cpu), torch zygote's workers ${zcpu:-0}, plain make check" \
  "$(cpu_of _build/check.cpu), ASan+UBSan make check $(cpu_of _build-asan/check.cpu), harness" \
  "$(cpu_of _build/harness.cpu), pytest" \
  "$(cpu_of _build/pytest.cpu), torch ${newest:-(newest)} install $(cpu_of _build/venv-newest.cpu)" \
  "and check $(cpu_of _build/release-newest.cpu), distcheck $(cpu_of _build/distcheck.cpu);" \
  "$(cpu_of _build/total.cpu) in all, in $(( $(date +%s) - t_job )) s"
echo "disk: $(disk_free_gb) GB free at the end"
if [ -n "$release_skipped" ]; then echo "skipped stage: $release_skipped"; skip=$((skip+1)); fi
if [ ${#stages_failed[@]} -gt 0 ]; then
  echo "failed stages: ${stages_failed[*]}"
  [ $fail -gt 0 ] || fail=${#stages_failed[@]}
fi
echo "$pass passed, $fail failed, $skip skipped"
[ ${#stages_failed[@]} -eq 0 ]
