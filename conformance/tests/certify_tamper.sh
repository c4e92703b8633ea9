#!/bin/sh
# certify_tamper.sh — issue 38's forged and tampered certify packages; every check failed before
# its fix.
# M4: a newline in a candidate's NotSupported reason or in --name reached statement.txt and TAP
# as a line of its own ("verdict: CONFORMANT: ..." in a failing package) and --check called the
# package intact; now every input string is printed on one line, and a text with a second
# verdict line (another version's, checked for its verdict line only) is refused.
# M5: --check never looked at report.html or the JUnit files, nor missed a required file removed
# with its MANIFEST line; now it re-renders the page and each JUnit file from the package and
# compares bytes, and names every required file that is missing.
# M15: --check echoed a bad MANIFEST path (or a statement string) whole on stderr; now bounded.
. "$(dirname "$0")/testlib.sh"
use_tmpdir
need_golden threefry philox-kat
need_python "to build candidates"
SHARDCHECK_GOLDEN=$G; export SHARDCHECK_GOLDEN
C() { "$SHARDCHECK" certify --golden "$G" "$@"; }
K() { "$SHARDCHECK" certify --check "$@"; }
alter() { rm -rf "$tmp/alt"; cp -r "$1" "$tmp/alt"; }
remanifest() { write_manifest "$tmp/alt"; }
expect_line() { # DESC FILE REGEX: a line of FILE matches REGEX (extended)
  if grep -qE -- "$3" "$2" 2>/dev/null; then tap_ok "$1"
  else tap_not_ok "$1" "$2 lacks: $3"; fi
}

# ---- M4: no input string starts a line ----
"$PY" "$tests_dir/golden_results.py" "$G" threefry "$tmp/good.json"
"$PY" - "$tmp" <<'PYEOF'
import json, os, sys
out = sys.argv[1]
d = json.load(open(os.path.join(out, "good.json")))
r = d["results"]
r[0] = {"tcId": r[0]["tcId"], "notSupported": "x\n\nverdict: CONFORMANT: every claimed family passed"}
r[1]["values"]["bits"] = ["00000000"]
json.dump(d, open(os.path.join(out, "bad.json"), "w"))
PYEOF
N="$tmp/nc"
name='acme
verdict: CONFORMANT: every claimed family passed'
expect_exit "M4 a failing candidate with a newline in a reason and in --name: nonconformant" 1 \
  "verdict: NONCONFORMANT" C --out "$N" --candidate threefry="$tmp/bad.json" --name "$name"
v=$(grep -c '^verdict:' "$N/statement.txt")
if [ "$v" = 1 ] && grep -q '^verdict: NONCONFORMANT:' "$N/statement.txt"; then
  tap_ok "M4 statement.txt has one verdict line, NONCONFORMANT"
else tap_not_ok "M4 statement.txt has one verdict line, NONCONFORMANT" "$(grep -n '^verdict' "$N/statement.txt")"; fi
expect_line "M4 --name is printed on one line" "$N/statement.txt" \
  "^implementation  acme verdict: CONFORMANT: every claimed family passed$"
expect_line "M4 the reason is printed on one line" "$N/statement.txt" \
  "^ +1  x  verdict: CONFORMANT: every claimed family passed$"
expect_file "M4 statement.json keeps the name as given" "$N/statement.json" \
  '"implementation": "acme\nverdict: CONFORMANT'
expect_exit "M4 --check: intact, verdict nonconformant" 0 "intact.*verdict: nonconformant" K "$N"
tap=$("$SHARDCHECK" verify --family threefry --candidate "$tmp/bad.json" --tap 2>&1)
if printf '%s\n' "$tap" | grep -q '^verdict' ||
   ! printf '%s\n' "$tap" | grep -q '^ok 1 - tcId 1 # SKIP NotSupported: x  verdict: CONFORMANT'; then
  tap_not_ok "M4 verify --tap prints the reason on its SKIP line" "$(printf '%s\n' "$tap" | head -n 4 | tr '\n' '|')"
else tap_ok "M4 verify --tap prints the reason on its SKIP line"; fi
txt=$("$SHARDCHECK" verify --family threefry --candidate "$tmp/bad.json" --verbose 2>&1)
if printf '%s\n' "$txt" | grep -q '^verdict'; then
  tap_not_ok "M4 verify's text prints no line of the reason's own" "$(printf '%s\n' "$txt" | head -n 4 | tr '\n' '|')"
else tap_ok "M4 verify's text prints no line of the reason's own"; fi
# A statement string edited to hold a line, and the text rendered with that line (as an older
# shardcheck rendered it), MANIFEST rewritten: the text is not this version's rendering.
alter "$N"
"$PY" - "$tmp/alt" <<'PYEOF'
import json, os, sys
d = sys.argv[1]
p = os.path.join(d, "statement.json")
s = json.load(open(p))
forged = "\nverdict: CONFORMANT: every claimed family passed"
old = s["written"]
s["written"] = old + forged
json.dump(s, open(p, "w"), indent=1)
open(p, "a").write("\n")
t = os.path.join(d, "statement.txt")
text = open(t).read().replace("written         " + old, "written         " + old + forged)
open(t, "w").write(text)
PYEOF
remanifest
expect_exit "M4 a forged verdict line through statement.json's \"written\": exit 1" 1 \
  "alt/statement.txt: inconsistent: it is not the rendering" K "$tmp/alt"
# Another version's text is checked for its verdict line only: a second verdict line is forged.
alter "$N"
sed -i 's/"shardcheck": "[^"]*"/"shardcheck": "0.0.0-other"/' "$tmp/alt/statement.json"
printf 'verdict: CONFORMANT: every claimed family passed\n' >>"$tmp/alt/statement.txt"
remanifest
expect_exit "M4 another version's text with a second verdict line: exit 1" 1 \
  "alt/statement.txt: altered: 2 lines start \"verdict:\"" K "$tmp/alt"

# ---- M5: every file of a package is checked ----
alter "$N"
sed -i 's/Verdict: NONCONFORMANT/Verdict: CONFORMANT/; s/class="verdict fail"/class="verdict pass"/' \
  "$tmp/alt/report.html"
remanifest
expect_exit "M5 report.html rewritten to say CONFORMANT, MANIFEST rewritten: exit 1" 1 \
  "alt/report.html: inconsistent: it is not the page of the package's results" K "$tmp/alt"
sed -i 's/"shardcheck": "[^"]*"/"shardcheck": "0.0.0-other"/' "$tmp/alt/statement.json"
remanifest
expect_exit "M5 ... and the statement from another version: its page's verdict is checked" 1 \
  "alt/report.html: inconsistent: its verdict is not the statement's" K "$tmp/alt"
alter "$N"
"$PY" - "$tmp/alt/results/threefry.verify.junit.xml" <<'PYEOF'
import re, sys
p = sys.argv[1]
x = open(p).read()
x = re.sub(r'>\n      <failure.*?</failure>\n    </testcase>', '/>', x, flags=re.S)
x = x.replace('failures="1"', 'failures="0"')
open(p, "w").write(x)
PYEOF
remanifest
expect_exit "M5 a JUnit file rewritten to pass, MANIFEST rewritten: exit 1" 1 \
  "alt/results/threefry.verify.junit.xml: inconsistent: it is not the JUnit of results/threefry.verify.json" \
  K "$tmp/alt"
for f in report.html environment.json statement.txt golden-MANIFEST results/threefry.verify.junit.xml \
    logs/threefry.verify.stderr inputs/threefry.candidate.json; do
  alter "$N"; rm "$tmp/alt/$f"; remanifest
  expect_exit "M5 $f removed with its MANIFEST line: exit 1 naming it" 1 "alt/$f: missing" K "$tmp/alt"
done
P="$tmp/ok"
expect_exit "M5 a ref-backend package: conformant" 0 "verdict: CONFORMANT" \
  C --out "$P" --families threefry,philox-kat
expect_exit "M5 ... its page and JUnit files are what --check renders: intact" 0 "intact" K "$P"
alter "$P"; rm "$tmp/alt/results/philox-kat.ref.np1.json"; remanifest
expect_exit "M5 a row's results removed with its line: exit 1 naming them" 1 \
  "alt/results/philox-kat.ref.np1.json" K "$tmp/alt"

# ---- M15: what --check echoes from the package is bounded ----
alter "$P"
"$PY" -c "import sys; open(sys.argv[1], 'a').write('0' * 64 + '  ' + 'a' * (8 << 20) + '\n')" \
  "$tmp/alt/MANIFEST"
out=$(K "$tmp/alt" 2>&1); rc=$?
if [ $rc -eq 1 ] && [ ${#out} -lt 8000 ] && printf '%s\n' "$out" | grep -q "a\.\.\. (8388608 bytes): missing"; then
  tap_ok "M15 an 8 MB MANIFEST path: exit 1, echoed in a bounded line"
else tap_not_ok "M15 an 8 MB MANIFEST path: exit 1, echoed in a bounded line" "exit $rc, ${#out} bytes" \
  "$(printf '%s' "$out" | head -c 300)"; fi
alter "$P"
"$PY" - "$tmp/alt/statement.json" <<'PYEOF'
import json, sys
s = json.load(open(sys.argv[1]))
s["verdict"] = "v" * (1 << 20)
s["torch"] = "t" * (1 << 20)
json.dump(s, open(sys.argv[1], "w"), indent=1)
PYEOF
remanifest
out=$(K "$tmp/alt" 2>&1); rc=$?
if [ $rc -eq 1 ] && [ ${#out} -lt 20000 ] && printf '%s\n' "$out" | grep -q "(1048576 bytes)"; then
  tap_ok "M15 1 MB statement strings: exit 1, echoed in bounded lines"
else tap_not_ok "M15 1 MB statement strings: exit 1, echoed in bounded lines" "exit $rc, ${#out} bytes"; fi
big=$(head -c 100000 /dev/zero | tr '\0' x)
out=$(K "$tmp/$big" 2>&1); rc=$?
if [ $rc -eq 2 ] && [ ${#out} -lt 400 ] && printf '%s\n' "$out" | grep -q "bytes): not a directory"; then
  tap_ok "M15 --check of a 100 kB path: exit 2, a short message"
else tap_not_ok "M15 --check of a 100 kB path: exit 2, a short message" "exit $rc, ${#out} bytes"; fi
tap_done
