#!/bin/sh
# torch_version.sh — every command names the torch release it judges against (issue 21):
# verify picks each test's byVersion answer for --torch-version / SHARDCHECK_TORCH_VERSION /
# the release a results file records (else the pinned 2.13); a candidate of torch 2.15's
# answers (built here from golden's own byVersion entries, in Python) passes under 2.15 and
# fails under 2.13 on exactly the tests whose answer changed; a recorded release checked
# against another is refused by name; unsupported spellings are refused listing the
# supported releases; every report format records the release; a torch family's golden
# file without version data is read as the pinned release's with one note; run judges its
# backend against the release too.  (The same check with a candidate the torch 2.15 harness
# wrote runs in tools/test_job.sh's 2.15 stage.)  The recorded release is read wherever it
# stands (after "results", past 64 KiB, escaped) and a non-string one is refused (issue 38 M3).
. "$(dirname "$0")/testlib.sh"
fam=redistribute-data
use_tmpdir
need_golden $fam
need_python "to build candidates"
V() { "$SHARDCHECK" verify --family "$fam" --golden "$G" "$@"; }

"$PY" - "$G" "$tmp" "$tests_dir" <<'PYEOF'
import copy, json, os, sys
G, out = sys.argv[1], sys.argv[2]
sys.path.insert(0, sys.argv[3])
import golden_results
changed = []
for t in golden_results.tests(G, "redistribute-data"):
    for e in t.get("byVersion", []):
        if "2.15" in e["torch"]:
            t["result"], t["expected"] = e["result"], e["expected"]
            changed.append(t["tcId"])
# golden_results.entries reads the files: give it the 2.15 view through a patched tests()
orig = golden_results.tests
def tests215(golden, family):
    for t in orig(golden, family):
        for e in t.get("byVersion", []):
            if "2.15" in e["torch"]:
                t = dict(t, result=e["result"], expected=e["expected"])
        yield t
golden_results.tests = tests215
res = golden_results.entries(G, "redistribute-data")
json.dump({"family": "redistribute-data", "results": res}, open(os.path.join(out, "c215.json"), "w"))
json.dump({"family": "redistribute-data", "torch": "2.15", "results": res},
          open(os.path.join(out, "c215rec.json"), "w"))
# issue 38 M3: the recorded release read wherever it stands and however it is spelt: last, as
# jq -S, Go and sort_keys=True write it (after "results", past the first 64 KiB), escaped
rec = {"family": "redistribute-data", "torch": "2.15", "results": res}
json.dump(rec, open(os.path.join(out, "c215last.json"), "w"), sort_keys=True)
json.dump(rec, open(os.path.join(out, "c215ind.json"), "w"), sort_keys=True, indent=1)
text = json.dumps(rec, sort_keys=True)
open(os.path.join(out, "c215esc.json"), "w").write(
    text.replace('"torch": "2.15"', '"tor\\u0063h": "2.1\\u0035"'))
open(os.path.join(out, "c215num.json"), "w").write(text.replace('"torch": "2.15"', '"torch": 2.15'))
open(os.path.join(out, "c215arr.json"), "w").write(text.replace('"torch": "2.15"', '"torch": ["2.15"]'))
open(os.path.join(out, "changed"), "w").write("\n".join(str(c) for c in sorted(changed)) + "\n")
# the family without version data: source.releases and every byVersion dropped
os.makedirs(os.path.join(out, "old", "redistribute-data"))
os.makedirs(os.path.join(out, "old", "schemas"))
for f in os.listdir(os.path.join(G, "redistribute-data")):
    d = json.load(open(os.path.join(G, "redistribute-data", f)))
    d["source"].pop("releases")
    for g in d["testGroups"]:
        for t in g["tests"]:
            t.pop("byVersion", None)
    json.dump(d, open(os.path.join(out, "old", "redistribute-data", f), "w"))
s = os.path.join(G, "schemas", "redistribute-data_v1.json")
open(os.path.join(out, "old", "schemas", "redistribute-data_v1.json"), "w").write(open(s).read())
s = os.path.join(G, "schemas", "common.json")   # the definitions the family schema refers to
open(os.path.join(out, "old", "schemas", "common.json"), "w").write(open(s).read())
PYEOF
n=$(wc -l <"$tmp/changed")
[ "$n" -gt 0 ] && tap_ok "golden holds $n tests whose torch 2.15 answer differs" || tap_not_ok "golden holds 2.15 answers"

expect_exit "2.15's answers pass under --torch-version 2.15" 0 "judged against torch 2.15 \(--torch-version\)" \
  V --candidate "$tmp/c215.json" --torch-version 2.15
expect_exit "... and under its newest patch's spelling" 0 "^[0-9]+ passed, 0 failed" \
  V --candidate "$tmp/c215.json" --torch-version 2.15.0
V --candidate "$tmp/c215.json" --torch-version 2.13 >"$tmp/out13" 2>&1; rc=$?
grep -Eo '^Fail +tcId [0-9]+' "$tmp/out13" | awk '{print $3}' | sort -n | uniq >"$tmp/failed"
if [ $rc -eq 1 ] && cmp -s "$tmp/failed" "$tmp/changed"; then
  tap_ok "the same candidate fails under 2.13 on exactly the $n tests that changed"
else tap_not_ok "fails under 2.13 on exactly the changed tests" "exit $rc" \
  "failed: $(tr '\n' ' ' <"$tmp/failed" | head -c 300)" "changed: $(tr '\n' ' ' <"$tmp/changed" | head -c 300)"; fi
expect_exit "the pinned 2.13 is the default" 1 "judged against torch 2.13 \(the pinned default\)" \
  V --candidate "$tmp/c215.json"
expect_exit "SHARDCHECK_TORCH_VERSION picks it too" 0 "judged against torch 2.15 \(SHARDCHECK_TORCH_VERSION\)" \
  env SHARDCHECK_TORCH_VERSION=2.15 "$SHARDCHECK" verify --family $fam --golden "$G" --candidate "$tmp/c215.json"
expect_exit "a results file's recorded release is the default" 0 "judged against torch 2.15 \(recorded in" \
  V --candidate "$tmp/c215rec.json"
expect_exit "checked against another release it is refused by name" 2 \
  "c215rec.json was judged against torch 2.15 \(its \"torch\"\), not 2.13 \(--torch-version\)" \
  V --candidate "$tmp/c215rec.json" --torch-version 2.13
expect_exit "... also when the other release comes from SHARDCHECK_TORCH_VERSION" 2 \
  "not 2.11 \(SHARDCHECK_TORCH_VERSION\)" \
  env SHARDCHECK_TORCH_VERSION=2.11 "$SHARDCHECK" verify --family $fam --golden "$G" --candidate "$tmp/c215rec.json"
for bad in 2.10 2.16 latest 2.13.0+cu130; do
  expect_exit "--torch-version $bad is refused listing the supported releases" 2 \
    "shardcheck verify: --torch-version: torch version '$(printf %s "$bad" | sed 's/[+.]/\\&/g')': .*supported: 2.11 \(2.11.0\), 2.12 \(2.12.1\), 2.13 \(2.13.0, the pinned default\), 2.14 \(2.14.1\), 2.15 \(2.15.0\)" \
    V --candidate "$tmp/c215.json" --torch-version "$bad"
done
expect_exit "a local version tag is named as such" 2 "a local version tag" \
  V --candidate "$tmp/c215.json" --torch-version 2.13.0+cu130
expect_exit "SHARDCHECK_TORCH_VERSION=latest is refused the same way" 2 "SHARDCHECK_TORCH_VERSION: torch version 'latest'" \
  env SHARDCHECK_TORCH_VERSION=latest "$SHARDCHECK" verify --family $fam --golden "$G" --candidate "$tmp/c215.json"
sed 's/"torch": "2.15"/"torch": "2.16"/' "$tmp/c215rec.json" >"$tmp/c216.json"
expect_exit "a results file recording an unsupported release is bad input" 2 "records \"torch\": \"2.16\"" \
  V --candidate "$tmp/c216.json"

# issue 38 M3: the same answers, the same verdict whatever the key order
sz=$(wc -c <"$tmp/c215last.json")
[ "$sz" -gt 65536 ] && tap_ok "the sorted results file is $sz bytes: its \"torch\" lies past 64 KiB" ||
  tap_not_ok "the sorted results file lies past 64 KiB" "$sz bytes"
for f in c215last c215ind c215esc; do
  expect_exit "$f.json: \"torch\" after \"results\" is read: judged against 2.15, passes" 0 \
    "judged against torch 2.15 \(recorded in .*$f.json\)" V --candidate "$tmp/$f.json"
done
expect_exit "c215last.json checked against 2.13: refused by name as with \"torch\" first" 2 \
  "c215last.json was judged against torch 2.15 \(its \"torch\"\), not 2.13" \
  V --candidate "$tmp/c215last.json" --torch-version 2.13
expect_exit "\"torch\": 2.15 (a number) is refused, not read as no release" 2 \
  "c215num.json: \"torch\" is a number; a results file records its release as a string" \
  V --candidate "$tmp/c215num.json"
expect_exit "\"torch\": [\"2.15\"] is refused" 2 "c215arr.json: \"torch\" is an array" \
  V --candidate "$tmp/c215arr.json"
expect_exit "explain --candidate reads it last too" 0 "torch 2.15" \
  "$SHARDCHECK" explain --family $fam --golden "$G" --tcid "$(head -n 1 "$tmp/changed")" \
  --candidate "$tmp/c215last.json"

# every report format records the release
V --candidate "$tmp/c215.json" --torch-version 2.15 --json >"$tmp/r.json" 2>/dev/null
expect_file "JSON report: \"torch\"" "$tmp/r.json" '"torch":"2.15"'
V --candidate "$tmp/c215.json" --torch-version 2.15 --junit "$tmp/r.xml" >/dev/null 2>&1
expect_file "JUnit: a torch property" "$tmp/r.xml" '<property name="torch" value="2.15"/>'
expect_exit "TAP: a comment" 0 "^# judged against torch 2.15" V --candidate "$tmp/c215.json" --torch-version 2.15 --tap

# a golden file without version data: read as what it is, with one note
write_manifest "$tmp/old"
"$SHARDCHECK" verify --family $fam --golden "$tmp/old" --candidate "$tmp/c215.json" --torch-version 2.15 >"$tmp/old.out" 2>&1
notes=$(grep -c "has no version data" "$tmp/old.out")
if [ "$notes" -eq 1 ] && grep -q "read as what it is, torch 2.13's answers" "$tmp/old.out" && \
   grep -Eq "^[0-9]+ passed, $n failed" "$tmp/old.out"; then
  tap_ok "an unversioned golden file is read as the pinned release's answers, one note"
else tap_not_ok "unversioned golden file" "$(tail -n 3 "$tmp/old.out")"; fi

# run judges its backend against the release: the local backend executes 2.15's plans
# (S -> P(sum) zero-filled) and passes 2.15's answers; its report records the release
expect_exit "run --backend local --torch-version 2.15 passes 2.15's answers" 0 \
  "judged against torch 2.15 \(--torch-version\)" \
  "$SHARDCHECK" run --backend local --family $fam --golden "$G" --torch-version 2.15
# (what is checked is the record: 40 cases will do; the whole family took 39 s of CPU under ASan)
"$SHARDCHECK" run --backend ref --family $fam --golden "$G" --torch-version 2.11 --max-cases 40 \
  --json >"$tmp/run.json" 2>/dev/null
expect_file "run --json records the release" "$tmp/run.json" '"torch":"2.11"'
expect_exit "run --torch-version latest: exit 2 listing the supported releases" 2 \
  "shardcheck run: --torch-version: torch version 'latest': not a supported release; supported: 2.11" \
  "$SHARDCHECK" run --family $fam --golden "$G" --torch-version latest

# certify: the release the candidates record judges the package; the statement says it, and
# --check refuses the package for another release by name
"$SHARDCHECK" certify --out "$tmp/pkg" --golden "$G" --candidate "$tmp/c215rec.json" >"$tmp/cert.out" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q '"torch": "2.15"' "$tmp/pkg/statement.json" && \
   grep -q "judged against  torch 2.15" "$tmp/pkg/statement.txt"; then
  tap_ok "certify: the statement records torch 2.15, recorded by the candidate"
else tap_not_ok "certify records the release" "exit $rc" "$(tail -n 3 "$tmp/cert.out")"; fi
expect_exit "certify --check --torch-version 2.15: intact" 0 "intact" \
  "$SHARDCHECK" certify --check "$tmp/pkg" --golden "$G" --torch-version 2.15
expect_exit "certify --check --torch-version 2.13: refused by name" 2 \
  "statement.json was judged against torch 2.15 \(its \"torch\"\), not 2.13 \(--torch-version\)" \
  "$SHARDCHECK" certify --check "$tmp/pkg" --golden "$G" --torch-version 2.13
expect_exit "certify --torch-version 2.13 with a 2.15 candidate: refused by name" 2 \
  "c215rec.json was judged against torch 2.15" \
  "$SHARDCHECK" certify --out "$tmp/pkg2" --golden "$G" --candidate "$tmp/c215rec.json" --torch-version 2.13
# report: the page names the release; inputs judged against different ones are refused
expect_exit "report: the page records the release" 0 "matrix cells" \
  "$SHARDCHECK" report --out "$tmp/r.html" --golden "$G" "$tmp/r.json"
expect_file "report.html: judged against torch 2.15" "$tmp/r.html" "<th>judged against</th><td>torch 2.15</td>"
expect_exit "report: inputs of two releases are refused" 2 "one report is about one release" \
  "$SHARDCHECK" report --out "$tmp/r2.html" --golden "$G" "$tmp/r.json" "$tmp/run.json"
expect_exit "report --torch-version 2.13 of 2.15 results: refused by name" 2 \
  "was judged against torch 2.15 \(its \"torch\"\), not 2.13" \
  "$SHARDCHECK" report --out "$tmp/r3.html" --golden "$G" --torch-version 2.13 "$tmp/r.json"
# explain --op: the release's own dispatch
expect_exit "explain --op exponential --torch-version 2.11: torch 2.11's rejection" 2 \
  "torch 2.11: Operator aten.exponential_.default does not have a sharding strategy" \
  "$SHARDCHECK" explain --mesh 4 --placements 'S(0)' --shape 8 --op exponential --torch-version 2.11
expect_exit "explain --op exponential in 2.12: accepted but untracked, no windows to draw" 2 \
  "untracked in torch 2.12" \
  "$SHARDCHECK" explain --mesh 4 --placements 'S(0)' --shape 8 --op exponential --torch-version 2.12
expect_exit "explain --op uniform in 2.11 draws the tracker's windows" 0 "4 distinct shards" \
  "$SHARDCHECK" explain --mesh 4 --placements 'S(0)' --shape 8 --op uniform --torch-version 2.11
expect_exit "explain --torch-version without --op is refused by name" 2 "--torch-version: not used without --op" \
  "$SHARDCHECK" explain --mesh 4 --placements 'S(0)' --shape 8 --torch-version 2.11
# ops: the random-op table as each release has it
expect_exit "ops --torch-version 2.11: exponential_ rejected (no strategy in 2.11)" 0 \
  "exponential_ +rejected .*\[ExponentialNoStrategy\]" "$SHARDCHECK" ops --torch-version 2.11
expect_exit "ops --torch-version 2.12: multinomial rejected, log_normal_ needs shardable layouts" 0 \
  "log_normal_ .*\[DecomposedRandomOp: shardable layouts only\]" "$SHARDCHECK" ops --torch-version 2.12
expect_exit "ops --torch-version 2.16: refused" 2 "not a supported release" "$SHARDCHECK" ops --torch-version 2.16
tap_done
