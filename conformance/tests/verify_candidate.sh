#!/bin/sh
# verify_candidate.sh — `shardcheck verify` on vendor candidates built from golden/shard-layout:
# the golden itself and a results file pass; one altered value fails that case and shows expected vs
# got; missing and extra cases fail; malformed candidates exit 2 naming the entry; TAP/JUnit/JSON.
. "$(dirname "$0")/testlib.sh"
fam=shard-layout
use_tmpdir
need_golden $fam
need_python "to build candidates"
# On a few files of each family (every path kept: one- and many-rank tests, invalid ones, a null
# trace): the whole of shard-layout made each candidate 30 MB of Python to write and seconds to
# verify, 70 s of CPU for this test (issue 36: CI time); verify_partial.sh verifies candidates of
# a whole family (rng-offsets), and bench/ times verify on whole families.
sample_corpus "$tmp/gs" shard-layout:chunk-sweep-1d,invalid,rank-maps-tiny,shard-order \
  redistribute-plan:invalid,notable,strided philox-kat || { echo "Bail out! sample corpus"; exit 99; }
G=$tmp/gs
f=$(ls "$G/$fam"/*.json | head -n1)
V() { "$SHARDCHECK" verify --family "$fam" --golden "$G" "$@"; }

# Results file: one entry per (test, rank) from the first file only, plus the rest of the family as golden.
"$PY" - "$G" "$tmp" "$tests_dir" <<'PYEOF'
import json, os, sys
G, out = sys.argv[1], sys.argv[2]
sys.path.insert(0, sys.argv[3])
import golden_results
res = golden_results.entries(G, "shard-layout")
# json.dumps then one write: json.dump writes its output in small pieces (several times slower
# on these 30 MB files).  The variants copy only the entries they change.
def save(name, results, fam="shard-layout"):
    open(os.path.join(out, name), "w").write(json.dumps({"family": fam, "results": results}))
def save_doc(name, d): open(os.path.join(out, name), "w").write(json.dumps(d))
save("good.json", res)
# altered: first valid per-rank entry, first field, rank 1 if present
alt = list(res)
for i, x in enumerate(alt):
    if "values" in x and x.get("rank") == 1:
        k = sorted(x["values"])[0]; victim = (x["tcId"], k)
        alt[i] = dict(x, values=dict(x["values"], **{k: "ALTERED"})); break
save("altered.json", alt)
# the old CLI spelling of the same answers (local_shape, global_offset as integers)
def old_form(x):
    v = x.get("values")
    if not (v and "localShape" in v): return x
    v = dict(v)
    v["local_shape"] = v.pop("localShape")
    v["global_offset"] = [int(o) for o in v.pop("globalOffset")]
    return dict(x, values=v)
save("old.json", [old_form(x) for x in res])
open(os.path.join(out, "victim"), "w").write("%d %s" % victim)
save("missing.json", res[1:])
save("extra.json", res + [{"tcId": 99999999, "values": {}}])
save("noid.json", [{"rank": 0, "values": {}}])
save("negrank.json", [{"tcId": 1, "rank": -3, "values": {}}])
save("wrongfam.json", [], "group-ranks")
save_doc("neither.json", {"family": "shard-layout"})
# notSupported: the first per-rank test's entries replaced by one notSupported entry
ns_tc = next(x["tcId"] for x in res if x.get("rank") == 1)
save("ns.json", [x for x in res if x["tcId"] != ns_tc] + [{"tcId": ns_tc, "notSupported": "no strided shards yet"}])
save("ns-dup.json", res + [{"tcId": ns_tc, "notSupported": "no"}])
save("ns-int.json", [{"tcId": ns_tc, "notSupported": 1}])
save("ns-values.json", [{"tcId": ns_tc, "notSupported": "x", "values": {}}])
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
# issue 22 item 3: a refused candidate prints no "0 passed, 0 failed" line a CI grep would misread
for c in noid negrank neither ns-dup; do
  out=$(V --candidate "$tmp/$c.json" 2>&1); rc=$?
  if [ $rc -eq 2 ] && ! printf '%s\n' "$out" | grep -Eq '[0-9]+ passed, [0-9]+ failed'; then
    tap_ok "$c.json: exit 2 with no closing count line"
  else tap_not_ok "$c.json: exit 2 with no closing count line" "exit $rc" "$(printf '%s' "$out" | tail -n 3)"; fi
done
expect_exit "answered twice names the rule for per-rank answers" 2 \
  "a test with per-rank fields is answered by one entry per rank, each with every field of that rank" \
  V --candidate "$tmp/ns-dup.json"
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
# Issue 27: a wrong answer or invalid JSON must never pass (the byte fast path, the scan hook
# that vouches for values while scanning, and the trees alike), and input the scanner reads
# itself stays off the jansson trees (SHARDCHECK_VERIFY_TREES=0: the scanned path only).
"$PY" - "$G" "$tmp" "$tests_dir" <<'PYEOF'
import json, os, sys
G, out = sys.argv[1], sys.argv[2]
sys.path.insert(0, sys.argv[3])
import golden_results
def put(name, text): open(os.path.join(out, name), "w").write(text)
def doc(fam, res): return json.dumps({"family": fam, "results": res})   # json.dump's spacing, as good.json
res = golden_results.entries(G, "shard-layout")
good = doc("shard-layout", res)
# N1: a number split by a space ([1 0] for [10]) in rank 0 of a one-rank test (tcId 11 when
# the corpus is as today), and in a test of more ranks whose rank 1 fails as well (N1b)
def split_at(x):
    v = x["values"]["localShape"]; i = next(k for k, n in enumerate(v) if n >= 10)
    w = json.dumps(v); return w, w.replace(str(v[i]), str(v[i])[0] + " " + str(v[i])[1:], 1)
ranks = {}
for x in res: ranks.setdefault(x["tcId"], []).append(x)
def splittable(x): return "values" in x and x.get("rank") == 0 and any(n >= 10 for n in x["values"].get("localShape", []))
one = next(x for x in res if splittable(x) and len(ranks[x["tcId"]]) == 1 and x["tcId"] >= 11)
many = next(x for x in res if splittable(x) and len(ranks[x["tcId"]]) >= 2)
def with_split(x, text):
    e = json.dumps(x); w, w2 = split_at(x)
    assert text.count(e) == 1
    return text.replace(e, e.replace('"localShape": ' + w, '"localShape": ' + w2, 1))
n1 = with_split(one, good)
put("n1.json", n1)
put("n1b-extra-rank.json", n1.replace(json.dumps(one).replace(*split_at(one)), json.dumps(one).replace(*split_at(one))
    + ', {"tcId": %d, "rank": 1, "values": {"localShape": [3], "globalOffset": ["0"]}}' % one["tcId"], 1))
r1 = ranks[many["tcId"]][1]; bad1 = json.loads(json.dumps(r1)); bad1["values"]["localShape"] = [999]
put("n1b.json", with_split(many, good).replace(json.dumps(r1), json.dumps(bad1), 1))
# N1 for a literal: "trace": nu ll in redistribute-plan (a golden value null)
plan = doc("redistribute-plan", golden_results.entries(G, "redistribute-plan"))
assert '"trace": null' in plan
put("n1-null.json", plan.replace('"trace": null', '"trace": nu ll', 1))
# N2: a real that overflows a double, as an extra member of an entry
put("n2.json", good.replace('{"tcId": ', '{"x": 1' + "0" * 250 + 'e99, "tcId": ', 1))
# N3: a repeated key, the wrong value first (jansson kept the last): philox-kat's words,
# and two "values" members in one entry
kat = golden_results.entries(G, "philox-kat")
first = json.dumps(kat[0]); right = json.dumps(kat[0]["values"]["words"])
katdoc = doc("philox-kat", kat)
put("n3-words.json", katdoc.replace(first, first.replace('{"words": ' + right,
    '{"words": ["00000000", "00000000", "00000000", "00000000"], "words": ' + right, 1), 1))
put("n3-values.json", katdoc.replace(first, first.replace('"values": {',
    '"values": {"words": ["00000000", "00000000", "00000000", "00000000"]}, "values": {', 1), 1))
put("n3-escaped.json", katdoc.replace(first, first.replace('{"words": ' + right,
    '{"words": ["00000000", "00000000", "00000000", "00000000"], "w\\u006frds": ' + right, 1), 1))
put("kat-good.json", katdoc)
# N10: input the scanner reads itself: an escape and a non-ASCII byte in members verify does
# not compare, escaped keys, an error text with an escape, a notSupported entry
put("n10-escape.json", good.replace('{"family": "shard-layout",', '{"family": "shard-layout", "note": "caf\\u00e9 \\ud83d\\ude00",', 1))
put("n10-utf8.json", good.replace('{"family": "shard-layout",', '{"family": "shard-layout", "note": "caf\u00e9",', 1))
put("n10-keys.json", good.replace('"tcId": ', '"t\\u0063Id": ').replace('"values": ', '"v\\u0061lues": '))
put("n10-error.json", good.replace('"error": "rejected"', '"error": "r\\u00e9jet\u00e9"'))
put("fields.json", json.dumps({"family": "shard-layout", "fields": ["localShape"], "results": []}))
PYEOF
# each on the default path, the tree path (the reference), and the scanned path alone (=0: a
# file refused is worded by jansson from a tree of one entry, not of the file)
for tf in "" 1 0; do
  p=${tf:+"trees=$tf: "}
  E() { if [ -n "$tf" ]; then SHARDCHECK_VERIFY_TREES=$tf "$@"; else "$@"; fi; }
  expect_exit "${p}N1: a number split by whitespace ([1 0] for [10]) is invalid JSON, not a pass" 2 \
    "n1.json: line 1 column [0-9]+: ']' expected near '0'" E V --candidate "$tmp/n1.json"
  expect_exit "${p}N1b: ... with another rank of the test failing: exit 2, not 99" 2 \
    "n1b.json: line 1 column [0-9]+: ']' expected near '0'" E V --candidate "$tmp/n1b.json"
  expect_exit "${p}N1b: ... with an extra rank beside it: exit 2, not 99" 2 \
    "n1b-extra-rank.json: line 1 column [0-9]+: ']' expected" E V --candidate "$tmp/n1b-extra-rank.json"
  expect_exit "${p}N1: a literal split by whitespace (nu ll for null) is invalid JSON" 2 \
    "n1-null.json: line 1 column [0-9]+: invalid token near 'nu'" \
    E "$SHARDCHECK" verify --family redistribute-plan --golden "$G" --candidate "$tmp/n1-null.json"
  expect_exit "${p}N2: a real that overflows a double is refused as jansson refuses it" 2 \
    "n2.json: line 1 column [0-9]+: real number overflow" E V --candidate "$tmp/n2.json"
  for k in words values escaped; do
    expect_exit "${p}N3: a repeated key ($k) is bad input naming the key, not the last one's pass" 2 \
      "n3-$k.json: line 1 column [0-9]+: repeated key \"(words|values|w\\\\u006frds)\" in an object" \
      E "$SHARDCHECK" verify --family philox-kat --golden "$G" --candidate "$tmp/n3-$k.json"
  done
done
expect_exit "N3: ... the same file without the repeat passes" 0 "^[0-9]+ passed, 0 failed" \
  "$SHARDCHECK" verify --family philox-kat --golden "$G" --candidate "$tmp/kat-good.json"
for k in escape utf8 keys error; do
  expect_exit "N10: $k: read by the scanner, not the trees (SHARDCHECK_VERIFY_TREES=0), and passes" 0 \
    "^[0-9]+ passed, 0 failed" env SHARDCHECK_VERIFY_TREES=0 "$SHARDCHECK" verify --family "$fam" \
    --golden "$G" --candidate "$tmp/n10-$k.json"
done
expect_exit "N10: a notSupported entry is read by the scanner too" 0 "passed, 0 failed, 1 skipped" \
  env SHARDCHECK_VERIFY_TREES=0 "$SHARDCHECK" verify --family "$fam" --golden "$G" --candidate "$tmp/ns.json"
expect_exit "N10: the old spelling is read by the scanner too, with its one warning" 0 \
  "old spelling of \"localShape\"/\"globalOffset\"; accepted" \
  env SHARDCHECK_VERIFY_TREES=0 "$SHARDCHECK" verify --family "$fam" --golden "$G" --candidate "$tmp/old.json"
expect_exit "SHARDCHECK_VERIFY_TREES=0: a results file with fields is the scanner's too (issue 38 M14)" 1 \
  "^0 passed, [0-9]+ failed" \
  env SHARDCHECK_VERIFY_TREES=0 "$SHARDCHECK" verify --family "$fam" --golden "$G" --candidate "$tmp/fields.json"
expect_exit "verify needs --family and --candidate" 2 "--family and --candidate are required" "$SHARDCHECK" verify
expect_exit "verify rejects an unknown family" 2 "unknown family 'nope'" "$SHARDCHECK" verify --family nope --candidate x
tap_done
