#!/bin/sh
# failure_groups.sh — from a failure to its cause in one look (issue 22 item 1).  A small
# independent shard-layout port (tools/harness/examples/mini_layout.py) with a planted
# bug — uneven splits the numpy.array_split way, not torch.chunk's — is run through the
# harness into a results file, and verify's output must lead with the UnevenShard group (the
# flag whose note names that bug), show its smallest case's inputs, list every differing
# field of a case, and carry the same in JSON, TAP and JUnit.  The port without the bug
# has no UnevenShard failure, so the group comes from the bug, not from the port.
. "$(dirname "$0")/testlib.sh"
need_python "to run the harness"
"$PY" -c 'import jsonschema' 2>/dev/null || skip_all "no jsonschema in $PY (tools/harness/setup_venv.sh)"
need_golden shard-layout
use_tmpdir
# a corpus of two shard-layout files: the chunk sweep (every uneven split of small sizes) and
# the explicit rank maps (where a wrong split moves an offset too)
mkdir -p "$tmp/g/shard-layout" "$tmp/g/schemas"
cp "$G/shard-layout/chunk-sweep-1d.json" "$G/shard-layout/rank-maps-explicit.json" "$tmp/g/shard-layout/"
cp "$G/schemas/shard-layout_v1.json" "$G/schemas/common.json" "$tmp/g/schemas/"
write_manifest "$tmp/g"
port=$top_srcdir/tools/harness/examples/mini_layout.py
for v in bug ok; do
  MINI_LAYOUT_ARRAY_SPLIT=$([ $v = bug ] && echo 1 || echo 0) "$PY" "$top_srcdir/tools/harness/run.py" \
    --golden "$tmp/g" --adapter "$port" --results "$tmp/$v" >"$tmp/$v.run" 2>&1
done
[ -s "$tmp/bug/shard-layout.json" ] || { tap_not_ok "the harness wrote the port's results" "$(tail -n 5 "$tmp/bug.run")"; tap_done; exit 1; }
V() { "$S" verify --family shard-layout --golden "$tmp/g" "$@"; }
V --candidate "$tmp/bug/shard-layout.json" >"$tmp/text" 2>/dev/null; rc=$?
first=$(grep -v '^verify: ' "$tmp/text" | head -n 2)
if [ $rc -eq 1 ] && printf '%s\n' "$first" | sed -n 2p | grep -Eq '^  UnevenShard +[0-9]+ of [0-9]+ failing tests'; then
  tap_ok "the planted array_split bug: the output's first group is UnevenShard"
else tap_not_ok "the planted array_split bug: the output's first group is UnevenShard" "exit $rc" "$first"; fi
expect_exit "... with the flag's note naming the bug" 0 "note: .*numpy.array_split" cat "$tmp/text"
expect_exit "... and its smallest case's inputs and what differed" 0 \
  'smallest: tcId [0-9]+ \(shard-layout/chunk-sweep-1d.json\) inputs \{"mesh":\[[0-9]+\],"placements":"S\(0\)","shape":\[[0-9]+\]\}' cat "$tmp/text"
expect_exit "a failing case names every field that differs, not only the first" 0 \
  'localShape: expected [^;]*; globalOffset: expected' cat "$tmp/text"
expect_exit "the failures follow the groups" 0 '^Fail +tcId [0-9]+ rank [0-9]+: localShape' cat "$tmp/text"
# the groups come before the first failure line
g=$(grep -n '^Failures by flag' "$tmp/text" | head -n1 | cut -d: -f1); f=$(grep -n '^Fail ' "$tmp/text" | head -n1 | cut -d: -f1)
[ -n "$g" ] && [ -n "$f" ] && [ "$g" -lt "$f" ] && tap_ok "the groups lead the text output" \
  || tap_not_ok "the groups lead the text output" "groups at line ${g:-none}, first failure at ${f:-none}"
V --candidate "$tmp/bug/shard-layout.json" --json >"$tmp/json" 2>/dev/null
expect_out "JSON: groups.byFlag[0] is UnevenShard; a failing case carries its file, flags, inputs and fields" "ok" \
  "$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
g = d["groups"]
assert g["byFlag"][0]["name"] == "UnevenShard", g["byFlag"][0]["name"]
assert g["byField"][0]["name"] in ("localShape", "globalOffset")
assert g["byFlag"][0]["smallest"]["inputs"]["placements"] == "S(0)"
f = [c["failure"] for c in d["cases"] if c["status"] == "Fail"]
assert f and all(x["file"].startswith("shard-layout/") for x in f)
assert all("UnevenShard" in x["flags"] for x in f if x["fields"] == ["localShape"])
assert all(set(x["inputs"]) >= {"mesh", "placements", "shape"} for x in f)
assert any(x["fields"] == ["localShape", "globalOffset"] for x in f)
print("ok")' "$tmp/json"
expect_exit "TAP: the groups as comments" 1 "^#   UnevenShard +[0-9]+ of" V --candidate "$tmp/bug/shard-layout.json" --tap
V --candidate "$tmp/bug/shard-layout.json" --junit "$tmp/junit.xml" >/dev/null 2>&1
expect_exit "JUnit: a failure carries its file, flags and inputs" 0 'flags: \[[^]]*&quot;UnevenShard&quot;' cat "$tmp/junit.xml"
V --candidate "$tmp/ok/shard-layout.json" >"$tmp/ok.text" 2>/dev/null
if grep -q '^  UnevenShard' "$tmp/ok.text"; then
  tap_not_ok "the port without the bug has no UnevenShard failure" "$(grep -A3 '^  UnevenShard' "$tmp/ok.text")"
else tap_ok "the port without the bug has no UnevenShard failure"; fi
tap_done
