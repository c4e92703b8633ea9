#!/bin/sh
# verify_candidate.sh — `shardcheck verify` on vendor candidates built from golden/shard-layout:
# the golden itself and a results file pass; one altered value fails that case and shows expected vs
# got; missing and extra cases fail; malformed candidates exit 2 naming the entry; TAP/JUnit/JSON.
. "$(dirname "$0")/testlib.sh"
fam=shard-layout
use_tmpdir
need_golden $fam
need_python "to build candidates"
f=$(ls "$G/$fam"/*.json | head -n1)
V() { "$SHARDCHECK" verify --family "$fam" --golden "$G" "$@"; }

# Results file: one entry per (test, rank) from the first file only, plus the rest of the family as golden.
"$PY" - "$G" "$tmp" "$tests_dir" <<'PYEOF'
import json, os, sys
G, out = sys.argv[1], sys.argv[2]
sys.path.insert(0, sys.argv[3])
import golden_results
res = golden_results.entries(G, "shard-layout")
json.dump({"family": "shard-layout", "results": res}, open(os.path.join(out, "good.json"), "w"))
# altered: first valid per-rank entry, first field, rank 1 if present
alt = json.loads(json.dumps(res))
for x in alt:
    if "values" in x and x.get("rank") == 1:
        k = sorted(x["values"])[0]; x["values"][k] = "ALTERED"; victim = (x["tcId"], k); break
json.dump({"family": "shard-layout", "results": alt}, open(os.path.join(out, "altered.json"), "w"))
# the old CLI spelling of the same answers (local_shape, global_offset as integers)
old = json.loads(json.dumps(res))
for x in old:
    v = x.get("values")
    if v and "localShape" in v:
        v["local_shape"] = v.pop("localShape")
        v["global_offset"] = [int(o) for o in v.pop("globalOffset")]
json.dump({"family": "shard-layout", "results": old}, open(os.path.join(out, "old.json"), "w"))
open(os.path.join(out, "victim"), "w").write("%d %s" % victim)
json.dump({"family": "shard-layout", "results": res[1:]}, open(os.path.join(out, "missing.json"), "w"))
json.dump({"family": "shard-layout", "results": res + [{"tcId": 99999999, "values": {}}]},
          open(os.path.join(out, "extra.json"), "w"))
json.dump({"family": "shard-layout", "results": [{"rank": 0, "values": {}}]}, open(os.path.join(out, "noid.json"), "w"))
json.dump({"family": "shard-layout", "results": [{"tcId": 1, "rank": -3, "values": {}}]}, open(os.path.join(out, "negrank.json"), "w"))
json.dump({"family": "group-ranks", "results": []}, open(os.path.join(out, "wrongfam.json"), "w"))
json.dump({"family": "shard-layout"}, open(os.path.join(out, "neither.json"), "w"))
# notSupported: the first per-rank test's entries replaced by one notSupported entry
ns_tc = next(x["tcId"] for x in res if x.get("rank") == 1)
ns = [x for x in res if x["tcId"] != ns_tc] + [{"tcId": ns_tc, "notSupported": "no strided shards yet"}]
json.dump({"family": "shard-layout", "results": ns}, open(os.path.join(out, "ns.json"), "w"))
json.dump({"family": "shard-layout", "results": res + [{"tcId": ns_tc, "notSupported": "no"}]},
          open(os.path.join(out, "ns-dup.json"), "w"))
json.dump({"family": "shard-layout", "results": [{"tcId": ns_tc, "notSupported": 1}]},
          open(os.path.join(out, "ns-int.json"), "w"))
json.dump({"family": "shard-layout", "results": [{"tcId": ns_tc, "notSupported": "x", "values": {}}]},
          open(os.path.join(out, "ns-values.json"), "w"))
open(os.path.join(out, "ns_tc"), "w").write(str(ns_tc))
PYEOF
read ns_tc <"$tmp/ns_tc"
read tc field <"$tmp/victim"
expect_exit "a results file equal to golden passes" 0 "^[0-9]+ passed, 0 failed" V --candidate "$tmp/good.json"
expect_exit "the old spelling (local_shape, global_offset) still passes" 0 "^[0-9]+ passed, 0 failed" \
  V --candidate "$tmp/old.json"
V --candidate "$tmp/old.json" >/dev/null 2>"$tmp/old.err"
grep -q 'old spelling of "localShape"/"globalOffset"; accepted' "$tmp/old.err" && [ "$(wc -l <"$tmp/old.err")" -eq 1 ] \
  && tap_ok "... with one warning naming the new spelling" \
  || tap_not_ok "... with one warning naming the new spelling" "$(head -c 400 "$tmp/old.err")"
expect_exit "one golden file as candidate: the family's other cases are missing" 1 "missing from the candidate" V --candidate "$f"
expect_exit "an altered value fails that case with expected vs got" 1 \
  "Fail +tcId $tc rank 1: $field: expected .*, got \"ALTERED\"" V --candidate "$tmp/altered.json"
expect_exit "exactly one case fails" 1 "passed, 1 failed" V --candidate "$tmp/altered.json"
expect_exit "a case missing from the candidate fails" 1 "missing from the candidate" V --candidate "$tmp/missing.json"
expect_exit "an extra tcId fails" 1 "tcId 99999999: not a tcId of the golden family" V --candidate "$tmp/extra.json"
expect_exit "an entry without tcId is bad input" 2 "results\[0\]: needs an integer \"tcId\"" V --candidate "$tmp/noid.json"
expect_exit "a negative rank is bad input" 2 "results\[0\] \(tcId 1\): \"rank\" must be a non-negative integer" V --candidate "$tmp/negrank.json"
expect_exit "a candidate of another family is bad input" 2 "family \"group-ranks\", verifying \"shard-layout\"" V --candidate "$tmp/wrongfam.json"
expect_exit "a candidate with neither form is bad input" 2 "neither \"testGroups\"" V --candidate "$tmp/neither.json"
expect_exit "a notSupported entry is that case NotSupported with its reason, not Fail" 0 \
  "^ok [0-9]+ - tcId $ns_tc # SKIP NotSupported: no strided shards yet" V --tap --candidate "$tmp/ns.json"
expect_exit "... counted apart from the passes" 0 "passed, 0 failed, 1 skipped" V --candidate "$tmp/ns.json"
expect_exit "notSupported beside per-rank answers is bad input" 2 \
  "tcId $ns_tc is answered twice \(once for the whole test, once per rank\)" V --candidate "$tmp/ns-dup.json"
expect_exit "notSupported that is not a string is bad input" 2 \
  "results\[0\] \(tcId $ns_tc\): \"notSupported\" takes the reason as a string" V --candidate "$tmp/ns-int.json"
expect_exit "notSupported with values is bad input" 2 \
  "\"notSupported\" takes the reason as a string, on an entry without" V --candidate "$tmp/ns-values.json"
head -c 100 "$tmp/good.json" >"$tmp/trunc.json"
expect_exit "a truncated candidate is bad input with line and column" 2 "trunc.json: line 1 column [0-9]+" V --candidate "$tmp/trunc.json"
expect_exit "a missing candidate file is bad input" 2 "nonexistent.json" V --candidate "$tmp/nonexistent.json"
expect_exit "TAP output marks the altered case not ok" 1 "^not ok [0-9]+ - tcId $tc rank 1 \[Fail\]" V --tap --candidate "$tmp/altered.json"
V --junit "$tmp/j.xml" --candidate "$tmp/altered.json" >/dev/null 2>&1
if grep -q "<failure message=\"Fail\">$field: expected" "$tmp/j.xml"; then tap_ok "JUnit output records the failure"
else tap_not_ok "JUnit output records the failure" "$(head -c 300 "$tmp/j.xml")"; fi
V --json --candidate "$tmp/altered.json" >"$tmp/out.json" 2>/dev/null
if "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["failed"]==1 and d["passed"]>0' "$tmp/out.json"; then
  tap_ok "JSON output counts one failure"; else tap_not_ok "JSON output counts one failure"; fi
expect_exit "verify needs --family and --candidate" 2 "--family and --candidate are required" "$SHARDCHECK" verify
expect_exit "verify rejects an unknown family" 2 "unknown family 'nope'" "$SHARDCHECK" verify --family nope --candidate x
tap_done
