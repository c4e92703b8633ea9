#!/bin/sh
# certify.sh — `shardcheck certify`: a package from the ref backend is conformant, complete
# (results, JUnit, report, environment, golden MANIFEST, statement, MANIFEST that sha256sum -c
# accepts) and passes --check; a failing candidate makes it nonconformant (exit 1) and a
# partial one lists its NotSupported fields (and is PARTIAL, exit 3: certify_claims.sh); the mpi
# backend runs under mpirun at np 1 and 2 (--max-cases: a partial claim); the cuda backend without
# a GPU is a "not run" row with run's reason (exit 77, incomplete), and on the emulated device
# (SHARDCHECK_CUDA_EMULATE) a package whose rows passed (partial: --max-cases).
# --check finds the corpus by $SHARDCHECK_GOLDEN here (it verifies the candidates again).
# Bad input, each exit 2 with the reason: unwritable --out, --out non-empty, unknown family,
# bad --np, a tampered golden corpus, a child that refuses its input (a missing plugin, a
# malformed candidate).  A rank killed under mpirun: the row is rebuilt from run's journal; a
# backend that cannot run (no torch): the row is "not run", the verdict incomplete (exit 77).
# Altered packages, each --check exit 1 naming the file: one file changed, one missing, one
# added, the statement edited to say pass (MANIFEST rewritten to match), statement.txt edited,
# a MANIFEST line outside the package ('..', absolute) or given twice (N4), an empty MANIFEST
# or a directory in its place (N15); a CRLF MANIFEST is intact (N18).
. "$(dirname "$0")/testlib.sh"
use_tmpdir
need_golden threefry philox-kat
need_python "to build candidates"
C() { "$SHARDCHECK" certify --golden "$G" "$@"; }
SHARDCHECK_GOLDEN=$G; export SHARDCHECK_GOLDEN

# ---- a conformant package ----
P="$tmp/pkg"
expect_exit "ref backend, two families: conformant, exit 0" 0 "verdict: CONFORMANT" \
  C --out "$P" --families threefry,philox-kat --name "reference build"
for f in MANIFEST statement.json statement.txt report.html environment.json golden-MANIFEST \
    results/threefry.ref.np1.json results/threefry.ref.np1.junit.xml results/philox-kat.ref.np1.json \
    logs/threefry.ref.np1.stderr; do
  if [ -f "$P/$f" ]; then tap_ok "the package holds $f"; else tap_not_ok "the package holds $f" "$(ls -R "$P" | head -30)"; fi
done
expect_file "statement.txt gives the corpus's MANIFEST sha256" "$P/statement.txt" "$(sha256sum "$G/MANIFEST" | cut -d' ' -f1)"
expect_file "statement.txt has a row per family with counts and verdict" "$P/statement.txt" \
  "threefry             run     ref                       1        40         0         0  pass"
expect_file "statement.json names the implementation" "$P/statement.json" '"implementation": "reference build"'
expect_file "the report's matrix has the families" "$P/report.html" "<td class=pass>40 passed"
expect_file "environment.json gives versions and the command" "$P/environment.json" '"shardcheck": "'
if (cd "$P" && sha256sum -c --quiet MANIFEST) >/dev/null 2>&1; then tap_ok "sha256sum -c accepts MANIFEST"
else tap_not_ok "sha256sum -c accepts MANIFEST"; fi
expect_exit "--check: the package is intact" 0 "intact: 1[0-9] files match MANIFEST.*verdict: conformant" \
  "$SHARDCHECK" certify --check "$P"
expect_exit "--check --golden: certified against this corpus" 0 "intact" C --check "$P"

# ---- altered packages: --check exits 1 naming the file ----
alter() { rm -rf "$tmp/alt"; cp -r "$P" "$tmp/alt"; }
remanifest() { write_manifest "$tmp/alt"; }
alter; sed -i 's/"Pass"/"Fail"/' "$tmp/alt/results/threefry.ref.np1.json"
expect_exit "one results file altered: exit 1 naming it" 1 "alt/results/threefry.ref.np1.json: altered" \
  "$SHARDCHECK" certify --check "$tmp/alt"
alter; rm "$tmp/alt/report.html"
expect_exit "a file missing: exit 1 naming it" 1 "alt/report.html: missing" "$SHARDCHECK" certify --check "$tmp/alt"
alter; echo extra >"$tmp/alt/results/extra.json"
expect_exit "a file added: exit 1 naming it" 1 "alt/results/extra.json: added" "$SHARDCHECK" certify --check "$tmp/alt"
alter; rm "$tmp/alt/MANIFEST"
expect_exit "MANIFEST removed: exit 1" 1 "alt/MANIFEST: missing" "$SHARDCHECK" certify --check "$tmp/alt"
alter; sed -i 's/CONFORMANT/conformant!/' "$tmp/alt/statement.txt"; remanifest
expect_exit "statement.txt edited, MANIFEST rewritten: exit 1 naming it" 1 \
  "alt/statement.txt: inconsistent" "$SHARDCHECK" certify --check "$tmp/alt"
alter; sed -i 's/"shardcheck": "[^"]*"/"shardcheck": "0.0.0-other"/' "$tmp/alt/statement.json"; remanifest
expect_exit "a statement from another shardcheck version: its text is checked for the verdict line" 0 \
  "intact" "$SHARDCHECK" certify --check "$tmp/alt"
sed -i 's/verdict: CONFORMANT/verdict: NONCONFORMANT/' "$tmp/alt/statement.txt"; remanifest
expect_exit "... and a text with another verdict: exit 1" 1 "alt/statement.txt: inconsistent: no line \"verdict: CONFORMANT:\"" \
  "$SHARDCHECK" certify --check "$tmp/alt"
expect_exit "--check on a missing directory: exit 2" 2 "not a directory" "$SHARDCHECK" certify --check "$tmp/none"
# N4: the package MANIFEST is read by the golden MANIFEST's parser: no path outside the
# package is hashed or counted, a line given twice is an alteration.
n=$(( $(wc -l <"$P/MANIFEST") + 1 ))
alter; printf '%s  ../../../etc/passwd\n' "$(sha256sum /etc/passwd | cut -d' ' -f1)" >>"$tmp/alt/MANIFEST"
expect_exit "N4 a MANIFEST line ../../../etc/passwd (right hash): exit 1, outside the package" 1 \
  "alt/MANIFEST: altered: .*MANIFEST line $n: \"../../../etc/passwd\": a '..' component" \
  "$SHARDCHECK" certify --check "$tmp/alt"
alter; sed -i 's|  environment.json$|  ../other/environment.json|' "$tmp/alt/MANIFEST"
mkdir -p "$tmp/other"; mv "$tmp/alt/environment.json" "$tmp/other/"
expect_exit "N4 a line rewritten to ../other/environment.json, the file moved there: exit 1" 1 \
  "\"../other/environment.json\": a '..' component" "$SHARDCHECK" certify --check "$tmp/alt"
alter; printf '%s  %s/statement.json\n' "$(sha256sum "$P/statement.json" | cut -d' ' -f1)" "$P" >>"$tmp/alt/MANIFEST"
expect_exit "N4 an absolute path: exit 1" 1 "MANIFEST line $n: \"$P/statement.json\": an absolute path" \
  "$SHARDCHECK" certify --check "$tmp/alt"
alter; tail -n 1 "$P/MANIFEST" >>"$tmp/alt/MANIFEST"
expect_exit "N4 a line given twice: exit 1 naming both lines" 1 \
  "MANIFEST line $n: [^ ]+ is listed twice \(also on line $((n - 1))\)" "$SHARDCHECK" certify --check "$tmp/alt"
# N15: an empty MANIFEST, or a directory in its place, passed NULL to bsearch (UBSan).
alter; : >"$tmp/alt/MANIFEST"
expect_exit "N15 an empty MANIFEST: exit 1, it lists no file" 1 \
  "alt/MANIFEST: altered: it lists no file" "$SHARDCHECK" certify --check "$tmp/alt"
expect_exit "N15 ... and every file is added" 1 \
  "alt/statement.json: added: not listed in MANIFEST" "$SHARDCHECK" certify --check "$tmp/alt"
alter; rm "$tmp/alt/MANIFEST"; mkdir "$tmp/alt/MANIFEST"
expect_exit "N15 a directory named MANIFEST: exit 1, not a regular file" 1 \
  "alt/MANIFEST: altered: not a regular file" "$SHARDCHECK" certify --check "$tmp/alt"
# N18: a CRLF MANIFEST was "missing" every file; it is read as sha256sum -c reads it.
alter; sed -i 's/$/\r/' "$tmp/alt/MANIFEST"
expect_exit "N18 a CRLF MANIFEST (sha256sum -c accepts it): intact" 0 "intact: 1[0-9] files match MANIFEST" \
  "$SHARDCHECK" certify --check "$tmp/alt"

# ---- candidates: a failing one (nonconformant) and a partial one (NotSupported fields) ----
"$PY" - "$G" "$tmp" <<'PYEOF'
import json, os, sys
G, out = sys.argv[1], sys.argv[2]
d = json.load(open(os.path.join(G, "threefry", "threefry.json")))
t = d["testGroups"][0]["tests"][0]
t["expected"]["bits"] = ["00000000"]
json.dump(d, open(os.path.join(out, "bad-threefry.json"), "w"))
PYEOF
"$PY" "$tests_dir/golden_results.py" "$G" rng-offsets "$tmp/partial.json" \
  --fields end_incr,first_shard_numel,shard_linear_index,start_incr
N="$tmp/nc"
expect_exit "a failing candidate: nonconformant, exit 1" 1 "verdict: NONCONFORMANT: failures in threefry \(verify candidate\)" \
  C --out "$N" --candidate threefry="$tmp/bad-threefry.json"
expect_file "the candidate is in the package" "$N/inputs/threefry.candidate.json" '"family"'
expect_file "the statement row says fail" "$N/statement.txt" "threefry             verify  candidate               all        39         1         0  fail"
expect_exit "--check: intact, verdict nonconformant (exit 0: the package is what certify wrote)" 0 \
  "intact.*verdict: nonconformant" "$SHARDCHECK" certify --check "$N"
rm -rf "$tmp/alt"; cp -r "$N" "$tmp/alt"
"$PY" - "$tmp/alt/statement.json" <<'PYEOF'
import json, sys
s = json.load(open(sys.argv[1]))
for r in s["rows"]:
    r["passed"] += r["failed"]; r["failed"] = 0; r["verdict"] = "pass"
s["verdict"] = "conformant"
json.dump(s, open(sys.argv[1], "w"), indent=1)
PYEOF
cp "$tmp/alt/statement.json" "$tmp/edited.json"
expect_exit "statement edited to say pass: exit 1 naming it" 1 "alt/statement.json: altered" \
  "$SHARDCHECK" certify --check "$tmp/alt"
remanifest
expect_exit "statement edited to say pass, MANIFEST rewritten: exit 1, inconsistent with the results" 1 \
  "alt/statement.json: inconsistent with the results: row 0 \(threefry verify candidate np 0\) says pass" \
  "$SHARDCHECK" certify --check "$tmp/alt"
if [ -d "$G/rng-offsets" ]; then
  expect_exit "a partial candidate (FILE naming its family): partial, exit 3" 3 "verdict: PARTIAL" \
    C --out "$tmp/partial" --candidate "$tmp/partial.json"
  expect_file "the statement lists the fields it does not compute" "$tmp/partial/statement.txt" \
    "field local_numel not computed by the candidate"
else tap_skip "a partial candidate" "no golden/rng-offsets"; fi

# ---- bad input: exit 2 ----
expect_exit "--out under a file: exit 2 naming it" 2 "--out /proc/version/pkg: cannot create" \
  C --out /proc/version/pkg --families threefry
mkdir "$tmp/full"; echo x >"$tmp/full/old"
expect_exit "--out an existing non-empty directory: exit 2" 2 "exists and is not empty" \
  C --out "$tmp/full" --families threefry
expect_exit "unknown family: exit 2" 2 "--families: unknown family 'threefy'" C --out "$tmp/u" --families threefy
[ -e "$tmp/u" ] && tap_not_ok "nothing is written on bad input" || tap_ok "nothing is written on bad input"
expect_exit "--np 0: exit 2" 2 "--np '0': '0' is not a rank count" C --out "$tmp/u" --backend mpi --np 0
expect_exit "--np x: exit 2" 2 "is not a rank count" C --out "$tmp/u" --backend mpi --np 1,x
expect_exit "--np twice the same: exit 2" 2 "given twice" C --out "$tmp/u" --backend mpi --np 2,2
expect_exit "--np 2 on the ref backend: exit 2" 2 "only mpi and torch take rank counts" C --out "$tmp/u" --np 2
echo '{"results": []}' >"$tmp/nofam.json"
expect_exit "a candidate naming no family: exit 2" 2 "no known \"family\"" C --out "$tmp/u" --candidate "$tmp/nofam.json"
expect_exit "an unreadable candidate: exit 2" 2 "--candidate threefry=$tmp/nothere.json: cannot read" \
  C --out "$tmp/u" --candidate threefry="$tmp/nothere.json"
expect_exit "no --out: exit 2" 2 "--out DIR is required" C --families threefry
echo '{"family": "threefry", "results": [{"values": {}}]}' >"$tmp/malformed.json"
expect_exit "a malformed candidate: exit 2 with verify's reason" 2 \
  "verify threefry: .*results\[0\]: needs an integer .tcId.*is incomplete" C --out "$tmp/mal" --candidate "$tmp/malformed.json"
"$SHARDCHECK" gen --family threefry --out "$tmp/g" >/dev/null 2>&1
sed -i '3s/"f29a4fa7"/"f29a4fa8"/' "$tmp/g/threefry/threefry.json"
expect_exit "a tampered golden corpus: exit 2 naming the file" 2 "threefry/threefry.json has sha256" \
  "$SHARDCHECK" certify --golden "$tmp/g" --out "$tmp/u" --families threefry
expect_exit "a child refusing its input (missing plugin): exit 2, package incomplete" 2 \
  "run threefry at np 1: .*cannot load.*exit 2.*is incomplete" \
  C --out "$tmp/plug" --backend plugin:"$tmp/none.so" --families threefry

# ---- cuda: `run --backend cuda`, np 1; no GPU is a "not run" row (exit 77), never a failure ----
expect_exit "--np 2 on the cuda backend: exit 2" 2 "only mpi and torch take rank counts" \
  C --out "$tmp/u" --backend cuda --np 2 --families torch-cuda-rng
if [ -f "$top_builddir/lib/cuda/torch_rng_kernels.o" ]; then why='skipped: no (usable )?CUDA device'
else why='skipped: this shardcheck was built without CUDA'; fi
expect_exit "cuda without a GPU: incomplete, exit 77" 77 "verdict: INCOMPLETE" \
  env CUDA_VISIBLE_DEVICES= "$SHARDCHECK" certify --golden "$G" --out "$tmp/nogpu" --backend cuda \
  --families torch-cuda-rng --max-cases 4
if grep -Eq "torch-cuda-rng +run +cuda +1 +0 +0 +0 +notrun" "$tmp/nogpu/statement.txt" &&
   grep -Eq "torch-cuda-rng \(run cuda, np 1\): not run: shardcheck run: --backend cuda: $why" "$tmp/nogpu/statement.txt"; then
  tap_ok "the cuda row is not run, with run's reason"
else tap_not_ok "the cuda row is not run, with run's reason" "$(tail -n 8 "$tmp/nogpu/statement.txt" 2>/dev/null)"; fi
expect_exit "--check the package without a GPU" 0 "intact.*verdict: incomplete" "$SHARDCHECK" certify --check "$tmp/nogpu"
if [ -f "$top_builddir/lib/cuda/torch_rng_kernels.o" ] && [ -d "$G/torch-cuda-rng" ]; then
  # SHARDCHECK_CUDA_EMULATE: the backend runs for real with the CPU grid emulator as its device
  expect_exit "cuda, emulated a100 device, 40 cases: partial (--max-cases), exit 3" 3 "verdict: PARTIAL" \
    env SHARDCHECK_CUDA_EMULATE=a100 "$SHARDCHECK" certify --golden "$G" --out "$tmp/cuda" \
    --backend cuda --families torch-cuda-rng --max-cases 40
  if grep -Eq "torch-cuda-rng +run +cuda +1 +[1-9][0-9]* +0 +[0-9]+ +partial" "$tmp/cuda/statement.txt"; then
    tap_ok "the cuda row passed cases on the emulated device"
  else tap_not_ok "the cuda row passed cases on the emulated device" "$(cat "$tmp/cuda/statement.txt" 2>/dev/null)"; fi
  expect_file "environment.json records the emulation" "$tmp/cuda/environment.json" '"SHARDCHECK_CUDA_EMULATE": "a100"'
  expect_file "the results file is run's, backend cuda" "$tmp/cuda/results/torch-cuda-rng.cuda.np1.json" '"backend":"cuda"'
  expect_file "the row's log says no GPU was used" "$tmp/cuda/logs/torch-cuda-rng.cuda.np1.stderr" "no GPU used: SHARDCHECK_CUDA_EMULATE"
  expect_exit "--check the cuda package" 0 "intact.*verdict: partial" "$SHARDCHECK" certify --check "$tmp/cuda"
else tap_skip "cuda on an emulated device" "shardcheck built without CUDA (configure --with-cuda)"; fi

# ---- mpi under mpirun ----
if ! have_mpi; then
  tap_skip "mpi backend at np 1,2 and a killed rank" "mpirun not found"
elif ! have_mpi_build; then
  tap_skip "mpi backend at np 1,2 and a killed rank" "shardcheck built without MPI"
else
  [ "${SHARDCHECK_SANITIZED:-0}" = 1 ] && export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
  MPIRUN_ARGS="--oversubscribe --allow-run-as-root" expect_exit "mpi backend at np 1,2, 10 cases: partial, exit 3" 3 \
    "verdict: PARTIAL: .*threefry \(run mpi, np 2\): all 3 required fields, 10 of 40 required tests" \
    C --out "$tmp/mpi" --backend mpi --np 1,2 --families threefry --max-cases 10
  expect_file "np 2 row" "$tmp/mpi/statement.txt" "threefry             run     mpi                       2        10"
  expect_file "environment.json names mpirun's version" "$tmp/mpi/environment.json" '"mpirun": "mpirun'
  expect_exit "--check the mpi package" 0 "intact" "$SHARDCHECK" certify --check "$tmp/mpi"
  # A backend that cannot run (torch backend, a Python without torch): the row is "not run" with
  # the child's reason, the verdict INCOMPLETE, exit 77.
  nopy=$(command -v python3 || true)
  if [ -n "$nopy" ] && ! "$nopy" -c 'import torch' 2>/dev/null; then
    SHARDCHECK_PYTHON=$nopy MPIRUN_ARGS="--oversubscribe --allow-run-as-root" expect_exit \
      "a backend that cannot run: incomplete, exit 77" 77 "verdict: INCOMPLETE" \
      C --out "$tmp/notrun" --backend torch --np 1 --families threefry --max-cases 2
    expect_file "the row says why it did not run" "$tmp/notrun/statement.txt" "not run: shardcheck run: --backend torch"
  else
    tap_skip "a backend that cannot run" "no python3 without torch"; tap_skip "the row says why" "no python3 without torch"
  fi
  # A rank killed in a 2-rank collective ends the mpirun job: the row is rebuilt from the run's
  # journal with a Crash, and the package stays checkable.
  F=redistribute-data
  "$SHARDCHECK" gen --family $F --out "$tmp/rd" >/dev/null 2>&1
  TC=$(grep -o '"tcId":[0-9]*,"comment":"mesh 2, S(0) -> R,' "$tmp/rd/$F/one-dim.json" | head -n 1 | grep -o '[0-9][0-9]*' | head -n 1)
  SHARDCHECK_FAULT=kill:1:${TC:-3} MPIRUN_ARGS="--oversubscribe --allow-run-as-root" expect_exit \
    "a rank killed mid-job: nonconformant, exit 1" 1 "NONCONFORMANT: failures in $F \(run mpi, np 2\)" \
    "$SHARDCHECK" certify --golden "$tmp/rd" --out "$tmp/kill" --backend mpi --np 2 --families $F --timeout 30
  expect_file "the row's results come from the journal, with the Crash" "$tmp/kill/results/$F.mpi.np2.json" \
    "the job ended before its report"
  expect_exit "--check the package of the dead job (its corpus)" 0 "intact.*nonconformant" "$SHARDCHECK" certify --check "$tmp/kill" --golden "$tmp/rd"
fi
tap_done
