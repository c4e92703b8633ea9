#!/bin/sh
# run_faults.sh — `shardcheck run` under faults and bad input, each with its
# message asserted: a killed rank is Crash for that case and the run ends
# cleanly (ref worker; a real dead MPI process through mpirun_runner.sh); a
# hung rank is Timeout within the per-case limit (ref worker; a stuck MPI
# process); a corrupt golden file, a plugin without the symbols or with
# another ABI version, and a bad fault spec are clear errors (exit 2); the
# broken example plugin is caught with the case, the rank and the bytes.
. "$(dirname "$0")/testlib.sh"
use_tmpdir
G="$tmp/golden"; F=redistribute-data
"$SHARDCHECK" gen --family $F --out "$G" >/dev/null 2>&1 || tap_not_ok "gen --family $F"

# A 2-rank all-gather case (every rank enters a collective at once, so a dead
# rank stops rank 0 in this very case).
TC=$(grep -o '"tcId":[0-9]*,"comment":"mesh 2, S(0) -> R,' "$G/$F/one-dim.json" | head -n 1 | grep -o '[0-9][0-9]*' | head -n 1)
[ -n "$TC" ] && tap_ok "tc $TC is a 2-rank all-gather case" || { tap_not_ok "a 2-rank all-gather case exists"; TC=3; }

expect_exit "killed rank: Crash for that case only" 1 \
  "Crash +$F tc $TC .*signal 9.*
.*793 passed, 1 failed, 0 skipped" \
  env SHARDCHECK_FAULT=kill:1:$TC "$SHARDCHECK" run --backend ref --family $F --golden "$G"
start=$(date +%s)
expect_exit "hung rank: Timeout within --timeout, the run goes on" 1 \
  "Timeout +$F tc $TC .*no answer within 2 s.*
.*793 passed, 1 failed, 0 skipped" \
  env SHARDCHECK_FAULT=hang:0:$TC "$SHARDCHECK" run --backend local --family $F --golden "$G" --timeout 2
el=$(( $(date +%s) - start ))
[ "$el" -lt 60 ] && tap_ok "hung rank run ended in ${el}s" || tap_not_ok "hung rank run ended in ${el}s"
expect_exit "bad SHARDCHECK_FAULT" 2 "expected kill:RANK:TCID or hang:RANK:TCID" \
  env SHARDCHECK_FAULT=explode:1 "$SHARDCHECK" run --backend ref --family $F --golden "$G"
expect_exit "world too large for --max-ranks is NotSupported" 0 \
  "SKIP NotSupported: needs 4 ranks" \
  "$SHARDCHECK" run --backend local --family $F --golden "$G" --max-ranks 3 --tap --max-cases 100

# Corrupt golden.
cp -r "$G" "$tmp/bad"; printf '{"schema": ' > "$tmp/bad/$F/invalid.json"
expect_exit "corrupt golden file: exit 2 naming it" 2 "invalid.json" \
  "$SHARDCHECK" run --backend ref --family $F --golden "$tmp/bad"
expect_exit "missing golden directory: NotSupported, not a crash" 77 "0 passed, 0 failed, 1 skipped" \
  "$SHARDCHECK" run --backend ref --family $F --golden "$tmp/nowhere"

# Plugins.
expect_exit "plugin file missing" 2 "plugin $tmp/none.so: cannot load" \
  "$SHARDCHECK" run --backend plugin:"$tmp/none.so" --family $F --golden "$G"
lib=$(ls "$top_builddir"/lib/.libs/libshardcheck.so 2>/dev/null | head -n 1)
if [ -n "$lib" ]; then
  expect_exit "plugin without the symbols" 2 "missing symbol shardcheck_backend_abi" \
    "$SHARDCHECK" run --backend plugin:"$lib" --family $F --golden "$G"
else tap_skip "plugin without the symbols" "libshardcheck.so not found"; fi
CC=${CC:-cc}
printf '#include <stdint.h>\nuint32_t shardcheck_backend_abi(void){return 2;}\nvoid *shardcheck_backend_v1(void){return 0;}\n' > "$tmp/v2.c"
if "$CC" -shared -fPIC -o "$tmp/v2.so" "$tmp/v2.c" 2>/dev/null; then
  expect_exit "plugin with ABI version 2" 2 "ABI version 2, this runner speaks version 1" \
    "$SHARDCHECK" run --backend plugin:"$tmp/v2.so" --family $F --golden "$G"
else tap_skip "plugin with ABI version 2" "no C compiler ($CC) to build it"; fi
broken="$top_builddir/examples/.libs/plugin_broken.so"
if [ -f "$broken" ]; then
  expect_exit "broken plugin caught: case, rank and bytes" 1 \
    "Fail +$F tc [0-9]+ .*rank [0-9]+: element [0-9]+ \\(bytes [0-9]+\\.\\.[0-9]+\\) is" \
    "$SHARDCHECK" run --backend plugin:"$broken" --family $F --golden "$G"
  if [ -d "$top_srcdir/golden/shard-layout" ]; then
    expect_exit "broken plugin: off-by-one uneven shard" 1 "rank [0-9]+: localShape: expected" \
      "$SHARDCHECK" run --backend plugin:"$broken" --family shard-layout --golden "$top_srcdir/golden" --max-cases 400
  else tap_skip "broken plugin: off-by-one uneven shard" "no golden/shard-layout"; fi
  if [ -d "$top_srcdir/golden/rng-offsets" ]; then
    expect_exit "broken plugin: reused RNG offset" 1 "rank [0-9]+: start_incr: expected \"[1-9][0-9]*\", got \"0\"" \
      "$SHARDCHECK" run --backend plugin:"$broken" --family rng-offsets --golden "$top_srcdir/golden" --max-cases 400
  else tap_skip "broken plugin: reused RNG offset" "no golden/rng-offsets"; fi
  if [ -d "$top_srcdir/golden/torch-cuda-rng" ]; then
    expect_exit "broken plugin: random_fill reuses offset 0" 1 \
      "Fail +torch-cuda-rng tc [0-9]+ .*rank 0: bits: expected \\[\"3f78e4cd\",[^]]*\\], got \\[\"3ecc4fd2\"" \
      "$SHARDCHECK" run --backend plugin:"$broken" --family torch-cuda-rng --golden "$top_srcdir/golden"
  else tap_skip "broken plugin: random_fill reuses offset 0" "no golden/torch-cuda-rng"; fi
else
  tap_skip "broken plugin caught" "examples/.libs/plugin_broken.so not built"
fi

# A dead or stuck MPI process.
if ! have_mpi_build; then
  tap_skip "killed MPI rank" "no MPI"; tap_skip "hung MPI rank" "no MPI"
else
  export OMPI_MCA_mpi_warn_on_fork=0
  # Under the ASan+UBSan build (tools/test_job.sh sets SHARDCHECK_SANITIZED=1) OpenMPI's own
  # allocations, many in MCA components it has already unloaded, show up as leaks no suppression
  # can name: MPI processes run without leak detection (ASan's other checks stay on; the ref and
  # local backends above keep leak detection).
  [ "${SHARDCHECK_SANITIZED:-0}" = 1 ] && export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
  out=$(SHARDCHECK_FAULT=kill:1:$TC MPIRUN_ARGS="--oversubscribe --allow-run-as-root" MPIRUN="$MPIRUN" \
        timeout 120 "$top_srcdir/tools/mpirun_runner.sh" -np 2 --shardcheck "$SHARDCHECK" -- \
        --family $F --golden "$G" 2>"$tmp/err"); rc=$?
  if [ $rc -eq 1 ] && printf '%s\n' "$out" | grep -q "^Crash .*$F tc $TC: a rank died" &&
     printf '%s\n' "$out" | tail -n 1 | grep -Eq '^[0-9]+ passed, [1-9][0-9]* failed'; then
    tap_ok "killed MPI rank: Crash for tc $TC and a closing summary"
  else tap_not_ok "killed MPI rank" "exit $rc" "$(printf '%s\n' "$out" | tail -n 3)" "$(head -c 300 "$tmp/err")"; fi
  start=$(date +%s)
  out=$(SHARDCHECK_FAULT=hang:1:$TC timeout 150 "$MPIRUN" --oversubscribe --allow-run-as-root -np 2 \
        "$SHARDCHECK" run --backend mpi --family $F --golden "$G" --timeout 3 2>"$tmp/err"); rc=$?
  el=$(( $(date +%s) - start ))
  if [ $rc -ne 0 ] && [ $rc -ne 124 ] && printf '%s\n' "$out" | grep -q "^Timeout .*$F tc $TC" &&
     printf '%s\n' "$out" | tail -n 1 | grep -Eq '^[0-9]+ passed, [1-9][0-9]* failed'; then
    tap_ok "hung MPI rank: Timeout for tc $TC, report printed, job ended in ${el}s"
  else tap_not_ok "hung MPI rank" "exit $rc after ${el}s" "$(printf '%s\n' "$out" | tail -n 3)" "$(head -c 300 "$tmp/err")"; fi
fi
tap_done
