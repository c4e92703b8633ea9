#!/bin/sh
# run_failure_groups.sh — `run` leads to the cause as verify does (issue 32 item 4).  The broken
# example plugin (examples/plugin_broken.c, ABI v1) plants an off-by-one uneven split: the last
# rank of an unevenly sharded mesh dim gets one element too many.  Its shard-layout run must
# lead with the failure groups (verify's grouping, tools/common/report_groups.c), the first of
# them UnevenShard with the flag's note and its smallest case's inputs; the failure lines
# follow, bounded, with a count of the rest; TAP, JUnit (tests named family + tcId) and
# `run --json` carry each failing case's flags and inputs; `explain --candidate` reads the
# run's JSON and shows the case rank by rank.  The correct example plugin has no group at all,
# so the groups come from the bug.  Bad input: a run JSON without the case, with malformed
# views (exit 2, named).
. "$(dirname "$0")/testlib.sh"
need_golden shard-layout
broken="$top_builddir/examples/.libs/plugin_broken.so"
good="$top_builddir/examples/.libs/plugin_ref.so"
[ -f "$broken" ] && [ -f "$good" ] ||
  skip_all "examples/.libs/plugin_{broken,ref}.so not built (make check builds them)"
use_tmpdir
# a case's inputs as the golden test has them: its mesh, placements and shape
IN='"mesh":\[[0-9,]+\],"placements":"[^"]+","shape":\[[0-9,]+\]'
# sampled (ASan, distcheck): a sample (every path, fewer cases; issue 36: CI time)
SAMPLE=; sampled && SAMPLE="--max-cases 3000"
# shellcheck disable=SC2086  # SAMPLE is empty or an option and its value
R() { "$S" run --family shard-layout --golden "$G" $SAMPLE "$@"; }
R --backend plugin:"$broken" >"$tmp/text" 2>"$tmp/err"; rc=$?
# the counts come from the closing line, which lists every case
failed=$(sed -n 's/^[0-9]* passed, \([0-9]*\) failed.*/\1/p' "$tmp/text")
d="the planted uneven-split bug: run's first line opens the groups, the first group is UnevenShard"
if [ $rc -eq 1 ] &&
   sed -n 1p "$tmp/text" | grep -Eq '^Failures of shard-layout by flag \([0-9]+ failing tests' &&
   sed -n 2p "$tmp/text" | grep -Eq '^  UnevenShard +[0-9]+ of [0-9]+ failing tests'; then
  tap_ok "$d"
else tap_not_ok "$d" "exit $rc" "$(head -n 3 "$tmp/text")" "$(head -c 300 "$tmp/err")"; fi
# the UnevenShard group: its note (golden's notes.UnevenShard) and its smallest case
sed -n '/^  UnevenShard /,/^  [A-Za-z]/p' "$tmp/text" >"$tmp/first"
expect_exit "... with the flag's note" 0 \
  '^    note: Ranks hold local shapes of different sizes: the torch.chunk rule' cat "$tmp/first"
expect_exit "... and its smallest case's inputs (mesh, placements, shape)" 0 \
  "smallest: tcId [0-9]+ \\(shard-layout/[a-z0-9-]+\\.json\\) inputs \\{$IN\\}" cat "$tmp/first"
expect_exit "... the rank and field that differ" 0 \
  '^      rank [0-9]+: localShape: expected \[[0-9,]+\], got \[[0-9,]+\]$' cat "$tmp/first"
expect_exit "the groups by field follow the groups by flag" 0 '^Failures of shard-layout by field' \
  cat "$tmp/text"
# the failure lines: after the groups, in the format other tests grep, at most 50, the rest counted
g=$(grep -n '^Failures of' "$tmp/text" | head -n 1 | cut -d: -f1)
f=$(grep -n '^Fail ' "$tmp/text" | head -n 1 | cut -d: -f1)
lines=$(grep -c '^Fail  ' "$tmp/text")
more=$(sed -n 's/^(\([0-9]*\) more Fail lines not listed: --verbose lists every one.*/\1/p' \
       "$tmp/text")
if [ -n "$g" ] && [ -n "$f" ] && [ "$g" -lt "$f" ] && [ "$lines" -eq 50 ] && [ -n "$failed" ] &&
   [ -n "$more" ] && [ $((lines + more)) -eq "$failed" ]; then
  tap_ok "the failure lines follow the groups: 50 of $failed listed, the other $more counted"
else tap_not_ok "the failure lines follow the groups, bounded" \
  "groups at ${g:-none}, first Fail at ${f:-none}" \
  "$lines lines, ${more:-no} more, ${failed:-?} failed"; fi
expect_exit "a failure line keeps its format: status, family, tc, comment, rank, field" 0 \
  '^Fail +shard-layout tc [0-9]+ \([^)]*\): rank [0-9]+: localShape: expected' cat "$tmp/text"
R --backend plugin:"$broken" --verbose >"$tmp/verbose" 2>/dev/null
n=$(grep -c '^Fail  ' "$tmp/verbose")
[ "$n" -eq "${failed:-x}" ] 2>/dev/null && ! grep -q 'more Fail lines not listed' "$tmp/verbose" &&
  tap_ok "--verbose lists every failure ($n)" ||
  tap_not_ok "--verbose lists every failure" "$n of ${failed:-?}"
# TAP: each failing case with its flags and inputs under it; the groups as comments
R --backend plugin:"$broken" --tap --junit "$tmp/j.xml" >"$tmp/tap" 2>/dev/null
grep -A3 '^not ok [0-9]* - shard-layout tc [0-9]* (.*) \[Fail\]' "$tmp/tap" | head -n 4 >"$tmp/tap1"
if sed -n 2p "$tmp/tap1" | grep -Eq '^#   rank [0-9]+: localShape' &&
   sed -n 3p "$tmp/tap1" | grep -Eq '^#   flags: \[[^]]*"UnevenShard"' &&
   sed -n 4p "$tmp/tap1" | grep -Eq "^#   inputs: \\{$IN\\}"; then
  tap_ok "TAP: a failing case carries its detail, flags and inputs"
else tap_not_ok "TAP: a failing case carries its detail, flags and inputs" "$(cat "$tmp/tap1")"; fi
expect_exit "TAP: the groups as comments" 0 '^#   UnevenShard +[0-9]+ of' cat "$tmp/tap"
# JUnit: stable names (family as classname, tc N as name), flags and inputs in the failure
expect_exit "JUnit: a failing test is named by family and tcId alone" 0 \
  '<testcase classname="shard-layout" name="tc [0-9]+"( time="[0-9.]+")?>' cat "$tmp/j.xml"
if grep -A6 '<failure message="Fail">' "$tmp/j.xml" | head -n 7 >"$tmp/j1" &&
   grep -Eq '^flags: \[[^]]*&quot;UnevenShard&quot;' "$tmp/j1" &&
   grep -Eq '^inputs: \{&quot;mesh&quot;:\[[0-9,]+\],&quot;placements&quot;' "$tmp/j1" &&
   grep -Eq '^file: shard-layout/[a-z0-9-]+\.json$' "$tmp/j1" &&
   grep -q '^comment: ' "$tmp/j1"; then
  tap_ok "JUnit: a failure carries its comment, file, flags and inputs"
else tap_not_ok "JUnit: a failure carries its comment, file, flags and inputs" "$(cat "$tmp/j1")"
fi
# JSON: groups per family, each failing case's flags, inputs, fields and (a world of at most 64
# ranks) views
R --backend plugin:"$broken" --json >"$tmp/run.json" 2>/dev/null
if "$PY" -c 'import json' 2>/dev/null; then
  expect_out "JSON: groups[0] is shard-layout's, byFlag[0] UnevenShard; every Fail carries file, \
flags, inputs, fields, views" \
    "ok" "$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
g = d["groups"][0]
assert g["family"] == "shard-layout" and g["byFlag"][0]["name"] == "UnevenShard", g["byFlag"][0]
assert set(g["byFlag"][0]["smallest"]["inputs"]) >= {"mesh", "placements", "shape"}
f = [c for c in d["cases"] if c["status"] == "Fail"]
assert len(f) == d["failed"] == g["failingTests"], (len(f), d["failed"])
for c in f:
    x = c["failure"]
    assert x["tcId"] == c["tcId"] and x["file"].startswith("shard-layout/"), x
    # the planted bug only touches uneven splits: every failure carries the flag
    assert "UnevenShard" in x["flags"] and x["fields"] == ["localShape"], x
    assert set(x["inputs"]) >= {"mesh", "placements", "shape"}, x
# what the plugin answered, kept for explain (meshes of at most 64 ranks)
v = [c for c in f if "views" in c]
assert len(v) > len(f) // 2, (len(v), len(f))
assert all(len(c["views"]) > c["failure"]["rank"] for c in v)
print("ok")' "$tmp/run.json"
else tap_skip "JSON: groups and failing cases" "no python3 at $PY"; fi
# explain --candidate: a run's JSON, the case rank by rank
tc=$(grep -m 1 '^Fail  ' "$tmp/text" | sed 's/^Fail *shard-layout tc \([0-9]*\) .*/\1/')
X() { "$S" explain --family shard-layout --golden "$G" "$@"; }
expect_exit "explain --candidate RUN.json --tcid $tc: the run's verdict, the differing \
field marked, exit 1" 1 \
  "candidate $tmp/run.json \\(shardcheck run --backend plugin\\):
  Fail  rank [0-9]+: localShape: expected.*
    \\* localShape +expected \\[[0-9,]+\\] +got \\[[0-9,]+\\]" \
  X --tcid "$tc" --candidate "$tmp/run.json"
pass=$("$PY" -c 'import json, sys
print(next(c["tcId"] for c in json.load(open(sys.argv[1]))["cases"] if c["status"] == "Pass"))' \
       "$tmp/run.json" 2>/dev/null)
if [ -n "$pass" ]; then
  expect_exit "explain --candidate RUN.json of a case the run passed: Pass, exit 0" 0 \
    "\\(shardcheck run --backend plugin\\):
  Pass" X --tcid "$pass" --candidate "$tmp/run.json"
else tap_skip "explain of a passed case" "no python3 at $PY to find one"; fi
"$S" run --family shard-layout --golden "$G" --backend plugin:"$broken" --json --max-cases 3 >"$tmp/few.json" 2>/dev/null
expect_exit "explain --candidate of a run that did not report the case: exit 2 naming it" 2 \
  "candidate $tmp/few.json: the run reported no case shard-layout tcId $tc" \
  X --tcid "$tc" --candidate "$tmp/few.json"
sed 's/"views":\[/"views":[{},/' "$tmp/run.json" >"$tmp/badviews.json"
expect_exit "explain --candidate of a run JSON with malformed views: exit 2 naming them" 2 \
  "candidate $tmp/badviews.json: cases\\[[0-9]+\\]: \"views\" must be an array of the case's \
[0-9]+ ranks' views" \
  X --tcid "$tc" --candidate "$tmp/badviews.json"
# the correct plugin: no groups, no failure lines
R --backend plugin:"$good" >"$tmp/good" 2>&1; rc=$?
if [ $rc -eq 0 ] && ! grep -q '^Failures of\|^Fail ' "$tmp/good"; then
  tap_ok "the correct example plugin: no failure groups, no failures"
else tap_not_ok "the correct example plugin: no failure groups" "exit $rc" \
  "$(head -n 3 "$tmp/good")"; fi
tap_done
