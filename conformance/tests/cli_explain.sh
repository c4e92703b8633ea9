#!/bin/sh
# cli_explain.sh — `shardcheck explain`: the picture of who holds what.  Uneven and empty shards
# are marked, replicas share a letter, _StridedShard interleaving alternates letters, the groups
# of every mesh dim are listed, and with --op the Philox windows show overruns (!) and the audit's
# findings; --svg writes a well-formed SVG.  Bad input: missing options, an unknown op, a mesh too
# large to draw, an unwritable --svg path: exit 2 naming it.  The largest shapes (INT64_MAX) scale
# to the same bounded picture and end on a full disk or a closed pipe (issue 38 M2).
# A golden case (--family F --tcid N): its flags and notes, inputs, picture (both layouts of a
# redistribute, into one SVG; a view op's input and expected output layouts) and expected
# answer per rank; with --candidate (a results file,
# golden-shaped, partial, NotSupported) the candidate's answer per rank beside it, each
# differing field marked '*', exit 1 when it fails.  Bad input: an unknown family, a tcId the
# family lacks, an invalid case, options of the other form, a candidate of another family or
# answering a rank twice, --svg of a case with no layout: exit 2 naming it.
. "$(dirname "$0")/testlib.sh"
use_tmpdir
X() { "$SHARDCHECK" explain "$@"; }
out=$(X --mesh 4 --placements 'S(0)' --shape 3 --op uniform 2>&1); rc=$?
check() { # DESC REGEX: against $out (exit must be 0)
  if [ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -Eq -- "$2"; then tap_ok "$1"
  else tap_not_ok "$1" "exit $rc" "output: $(printf '%s' "$out" | head -c 600)" "want /$2/"; fi
}
check "1-d tensor of 3 on 4 ranks: one row, the fourth shard holds nothing" "^  ABC$"
check "the empty shard is marked" "D: rank 3  local \[0\]  offset \[3\]  \(empty\)"
check "tiny shards past end_incr overrun (!)" "^  B      !  \[4, 5\)$"
check "shards starting together are named" "same start as B"
check "the audit's findings are listed" "findings: OffsetSameStart \(1\) OffsetOverrun \(2\) OffsetOverlap \(1\)"
out=$(X --mesh 2x2 --placements 'S(0),R' --shape 5,2 2>&1); rc=$?
check "replicas share a letter" "A: ranks 0,1  local \[3,2\]  offset \[0,0\]$"
check "the shorter shard is marked uneven" "B: ranks 2,3  local \[2,2\]  offset \[3,0\]  \(uneven\)"
check "every row of the global tensor is drawn" "^  AA$"
check "the groups of each mesh dim" "dim 0 \(size 2\): \[0,2\] \[1,3\]"
out=$(X --mesh 2 --placements '_S(0, 2)' --shape 8 2>&1); rc=$?
check "_StridedShard interleaving alternates letters" "^  AABBAABB$"
check "strided shards are marked" "\(strided: interleaved indices\)"
out=$(X --mesh 2 --ranks 1,0 --placements 'S(0)' --shape 4 2>&1); rc=$?
check "a rank map: rank 1 sits first in the mesh and holds the first half" "B: rank 1  local \[2\]  offset \[0\]"
check "a rank map: the picture follows the map" "^  BBAA$"
expect_exit "--svg writes the picture and the text" 0 "Philox windows of normal" \
  X --mesh 2x2 --placements 'S(0),S(0)' --shape 6,3 --op normal --svg "$tmp/p.svg"
if "$PY" -c 'import sys, xml.dom.minidom as m; d = m.parse(sys.argv[1]); assert d.documentElement.tagName == "svg"; assert len(d.getElementsByTagName("rect")) > 18' "$tmp/p.svg" 2>"$tmp/err"; then
  tap_ok "the SVG is well-formed XML with the grid's cells"
else tap_not_ok "the SVG is well-formed XML with the grid's cells" "$(cat "$tmp/err")"; fi
expect_exit "--placements and --shape are required" 2 "--placements and --shape are required" X --mesh 2
expect_exit "an unknown --op is bad usage" 2 "--op: unknown random op 'shuffle'" \
  X --mesh 2 --placements 'S(0)' --shape 4 --op shuffle
expect_exit "a mesh too large to draw is bad input" 2 "--mesh: 512 ranks; explain draws at most 256" \
  X --mesh 512 --placements 'S(0)' --shape 4
expect_exit "a bad placement names the option" 2 "--placements" X --mesh 2 --placements 'S(x)' --shape 4
expect_exit "--svg into a missing directory: exit 2 naming the path" 2 \
  "explain: --svg $tmp/nodir/p.svg: cannot write: No such file or directory" \
  X --mesh 2 --placements 'S(0)' --shape 4 --svg "$tmp/nodir/p.svg"
mkdir "$tmp/ro" && chmod a-w "$tmp/ro"
if [ "$(id -u)" = 0 ]; then tap_skip "--svg into a read-only directory" "root ignores permissions"
else expect_exit "--svg into a read-only directory: exit 2" 2 "cannot write: Permission denied" \
  X --mesh 2 --placements 'S(0)' --shape 4 --svg "$tmp/ro/p.svg"; fi
expect_exit "--svg to /dev/full: the write error is caught" 2 "explain: --svg /dev/full: cannot write: No space left on device" \
  X --mesh 2 --placements 'S(0)' --shape 4 --svg /dev/full
# issue 38 M2: the largest shape scales to the same bounded picture (the block count's ceiling
# overflowed to a negative step: gigabytes, and on past a closed pipe); a write error stops it
big=9223372036854775807
# bounded CMD...: CMD's output into $tmp/b.out, at most 10 s and about 1 MB (a file-size limit),
# so that the unfixed picture fails the check without filling the disk; $rc its exit status
bounded() { (ulimit -f 2048; exec timeout 10 "$@" >"$tmp/b.out" 2>&1); rc=$?; }
bounded "$SHARDCHECK" explain --mesh 2 --placements 'S(0)' --shape $big
if [ "$rc" -eq 0 ] && [ "$(wc -c <"$tmp/b.out")" -lt 4000 ] && grep -Eq '^  A{32}B{32}$' "$tmp/b.out"
then tap_ok "--shape INT64_MAX: one scaled row of 64 cells, exit 0"
else tap_not_ok "--shape INT64_MAX: one scaled row of 64 cells, exit 0" "exit $rc" \
  "$(wc -c <"$tmp/b.out") bytes: $(head -c 400 "$tmp/b.out")"; fi
bounded "$SHARDCHECK" explain --mesh 2x2 --placements 'S(0),S(1)' --shape 4294967296,2147483647 \
  --svg "$tmp/big.svg"
if [ "$rc" -eq 0 ] && [ "$(grep -Ec '^  (A{32}B{32}|C{32}D{32})$' "$tmp/b.out")" -eq 32 ] &&
   [ "$(wc -c <"$tmp/big.svg")" -lt 400000 ]; then
  tap_ok "--shape 2^32,2^31-1: 32 rows of 64, a bounded SVG"
else tap_not_ok "--shape 2^32,2^31-1: 32 rows of 64, a bounded SVG" "exit $rc" \
  "$(head -c 400 "$tmp/b.out")"; fi
rm -f "$tmp/big.svg"
expect_exit "--shape INT64_MAX to /dev/full: exit 2, the write error named" 2 \
  "cannot write standard output: No space left on device" \
  sh -c 'timeout 10 "$0" explain --mesh 2 --placements "S(0)" --shape "$1" >/dev/full' \
  "$SHARDCHECK" $big
rc=$( (trap '' PIPE; timeout 10 "$SHARDCHECK" explain --mesh 2 --placements 'S(0)' --shape $big \
       2>/dev/null; echo $? >"$tmp/rc") | head -c 10 >/dev/null; cat "$tmp/rc")
case $rc in # the picture fits a pipe's buffer now: 0, or 2 if the reader left first
  0|2) tap_ok "--shape INT64_MAX into a closed pipe (SIGPIPE ignored): ends, exit $rc" ;;
  *) tap_not_ok "--shape INT64_MAX into a closed pipe (SIGPIPE ignored): ends" "exit $rc" ;;
esac
out=$(timeout 10 "$SHARDCHECK" explain --mesh 2 --placements 'S(0)' --shape 4611686018427387903 \
      --op uniform 2>&1); rc=$?
if [ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -Eq '^     -{64}\|$' &&
   printf '%s\n' "$out" | grep -Eq '^  B {34}={32}  \[2305843009213693952, 4611686018427387903\)$'; then
  tap_ok "--op on a 2^62-element shape: the counter line is 64 chars, end_incr at its end"
else tap_not_ok "--op on a 2^62-element shape: the counter line is 64 chars, end_incr at its end" \
  "exit $rc" "$(printf '%s' "$out" | tail -c 500)"; fi

# ---- a golden case ----
export SHARDCHECK_GOLDEN="$G" # where make check runs there is no ./golden
SL=395 # shard-layout: mesh 2, _S(0, 3), shape [4]: rank 0 holds [0,2], rank 1 [1,3]
failed() { [ "$1" -eq 1 ] && echo 0 || echo "$1"; } # exit 1 expected: check's rc 0 for it
out=$(X --family shard-layout --tcid $SL 2>&1); rc=$?
check "a golden case: family, tcId, file and result" "^shard-layout tcId $SL: .*\(shard-layout/chunk-sweep-1d.json, result valid\)$"
check "its flags with their notes" "^  StridedShard: A _StridedShard placement"
check "its inputs" '^inputs: \{"mesh":\[2\],"placements":"_S\(0, 3\)","shape":\[4\]\}$'
check "its picture" "^  ABAB$"
check "its expected answer per rank" '^  rank 1 +localShape \[2\]  globalOffset \["1"\]  indices \[\[1,3\]\]$'
if "$PY" -c 'import json' 2>/dev/null; then
  # the candidates answer the whole family; sampled (the ASan and distcheck make checks,
  # testlib.sh) only the case's file: explain reads the candidate's answer for the one case
  gc=$G; sampled && { sample_corpus "$tmp/gs" shard-layout:chunk-sweep-1d && gc=$tmp/gs; }
  "$PY" "$tests_dir/golden_results.py" "$gc" shard-layout "$tmp/good.json"
  "$PY" - "$tmp" $SL <<'PYEOF'
import json, sys
tmp, tc = sys.argv[1], int(sys.argv[2])
doc = json.load(open(tmp + "/good.json"))
def write(name, results, **extra): # dumps, one write: json.dump writes in small pieces (30 MB here)
    open(tmp + "/" + name, "w").write(json.dumps(dict({"family": "shard-layout"}, **extra, results=results)))
# the one entry changed is a copy: doc's own entries go on into the files below unchanged
bad = [dict(e, values=dict(e["values"], localShape=[3], indices=[[0, 1, 2]]))
       if e["tcId"] == tc and e.get("rank") == 0 else e for e in doc["results"]]
write("bad.json", bad)
write("missing.json", [e for e in doc["results"] if e["tcId"] != tc])
write("twice.json", doc["results"] + [e for e in doc["results"] if e["tcId"] == tc and e.get("rank") == 0])
write("ns.json", [{"tcId": tc, "notSupported": "no _StridedShard yet"}])
write("extra.json", doc["results"] + [dict(e, rank=2) for e in doc["results"] if e["tcId"] == tc and e.get("rank") == 1])
part = [{"tcId": tc, "values": {"perRank": {"localShape": [[2], [3]]}}}]
write("partial.json", part, fields=["localShape"])
json.dump({"family": "threefry", "results": []}, open(tmp + "/other.json", "w"))
PYEOF
  "$PY" - "$G/shard-layout/chunk-sweep-1d.json" "$tmp/shaped.json" $SL <<'PYEOF'
import json, sys
doc = json.load(open(sys.argv[1]))
for grp in doc["testGroups"]:
    for t in grp["tests"]:
        if t["tcId"] == int(sys.argv[3]):
            t["expected"]["perRank"]["globalOffset"][1] = ["2"]
json.dump(doc, open(sys.argv[2], "w"))
PYEOF
  out=$(X --family shard-layout --tcid $SL --candidate "$tmp/good.json" 2>&1); rc=$?
  check "a right candidate: each rank passes" "^  rank 1: Pass$"
  check "a right candidate: no rank differs" "^  0 of 2 ranks differ from the expected answer$"
  out=$(X --family shard-layout --tcid $SL --candidate "$tmp/bad.json" 2>&1); rc=$(failed $?)
  check "a wrong candidate: exit 1, saying so" "^candidate $tmp/bad.json:$"
  check "the failing rank with verify's words" '^  rank 0: Fail  localShape: expected \[2\], got \[3\]; indices: expected \[\[0,2\]\], got \[\[0,1,2\]\]$'
  check "a differing field is marked, expected beside got" '^    \* localShape    expected \[2\]      got \[3\]$'
  check "every differing field is marked" '^    \* indices       expected \[\[0,2\]\]  got \[\[0,1,2\]\]$'
  check "an equal field is not marked" '^      globalOffset  expected \["0"\]    got \["0"\]$'
  check "the other rank passes" "^  rank 1: Pass$"
  check "how many ranks differ" "^  1 of 2 ranks differ from the expected answer$"
  out=$(X --family shard-layout --tcid $SL --candidate "$tmp/shaped.json" 2>&1); rc=$(failed $?)
  check "a golden-shaped candidate: rank 1's offset marked" '^    \* globalOffset  expected \["1"\]    got \["2"\]$'
  out=$(X --family shard-layout --tcid $SL --candidate "$tmp/partial.json" 2>&1); rc=$(failed $?)
  check "a partial candidate: the declared field compared" '^    \* localShape    expected \[2\]      got \[3\]$'
  check "a partial candidate: the other fields not claimed" 'globalOffset  expected \["1"\]    got -  \(not claimed: NotSupported\)$'
  expect_exit "a NotSupported answer: its reason, exit 0" 0 "^  NotSupported: no _StridedShard yet$" \
    X --family shard-layout --tcid $SL --candidate "$tmp/ns.json"
  expect_exit "a rank the case does not have: a failure in verify's words, exit 1" 1 \
    "^  rank 2: Fail  rank 2 is outside the test's world \(2 ranks\)$" \
    X --family shard-layout --tcid $SL --candidate "$tmp/extra.json"
  expect_exit "a candidate lacking the case: missing, exit 1" 1 "^  Fail  missing from the candidate" \
    X --family shard-layout --tcid $SL --candidate "$tmp/missing.json"
  expect_exit "a candidate answering a rank twice: exit 2, as verify refuses it" 2 \
    "shardcheck explain: $tmp/twice.json: results\[[0-9]+\] and results\[[0-9]+\]: tcId $SL is answered twice" \
    X --family shard-layout --tcid $SL --candidate "$tmp/twice.json"
  expect_exit "a candidate of another family: exit 2" 2 \
    "--candidate $tmp/other.json: family \"threefry\", explaining \"shard-layout\"" \
    X --family shard-layout --tcid $SL --candidate "$tmp/other.json"
  printf '{"family": "threefry", "results": [{"tcId": 1, "values": {"bits": ["f29a4fa7"]}}]}\n' >"$tmp/tf.json"
  expect_exit "a rank-independent case: one answer for every rank" 0 "^  every rank: Pass$" \
    X --family threefry --tcid 1 --candidate "$tmp/tf.json"
else
  tap_skip "explain --candidate" "no python3 at $PY (golden_results.py writes the candidates)"
fi
expect_exit "a redistribute case draws its source and target" 0 "^target \(dst\):$" \
  X --family redistribute-plan --tcid 12340 --svg "$tmp/r.svg"
if "$PY" -c 'import sys, xml.dom.minidom as m; d = m.parse(sys.argv[1]); assert len(d.getElementsByTagName("g")) == 2' "$tmp/r.svg" 2>"$tmp/err"; then
  tap_ok "its SVG holds both pictures"
else tap_not_ok "its SVG holds both pictures" "$(cat "$tmp/err")"; fi
# a view op's case: the input layout, then the output layout its answer names (view-sharding
# tc 16: [12,8] S(1) on 2 ranks, view(3,4,8) gives S(2): [3,4,4] per rank, offset 4 on dim 2)
out=$(X --family view-sharding --tcid 16 --svg "$tmp/v.svg" 2>&1); rc=$?
check "a view case: its input layout" "^input layout:$"
check "a view case: the output layout it names" \
  "^mesh 2  placements S\(2\)  shape \[3,4,8\]  \(2 distinct shards over 2 ranks\)$"
check "a view case: the output's shards per rank" "^  B: rank 1  local \[3,4,4\]  offset \[0,0,4\]$"
if "$PY" -c 'import sys, xml.dom.minidom as m; d = m.parse(sys.argv[1]); assert len(d.getElementsByTagName("g")) == 2' "$tmp/v.svg" 2>"$tmp/err"; then
  tap_ok "a view case: its SVG holds the input and output pictures"
else tap_not_ok "a view case: its SVG holds the input and output pictures" "$(cat "$tmp/err")"; fi
expect_exit "--svg naming a golden file: refused, exit 2" 2 "^shardcheck explain: --svg" \
  X --family shard-layout --tcid $SL --svg "$G/shard-layout/chunk-sweep-1d.json"
expect_exit "an unknown family: exit 2" 2 "^shardcheck explain: --family: unknown family 'nope'" \
  X --family nope --tcid 1
expect_exit "a tcId the family lacks: exit 2" 2 "^shardcheck explain: --tcid 999999: family shard-layout has no such case" \
  X --family shard-layout --tcid 999999
inv=$(grep -o '"tcId":[0-9]*' "$G/shard-layout/invalid.json" | head -n 1 | cut -d: -f2)
expect_exit "an invalid case: exit 2, nothing to draw" 2 \
  "^shardcheck explain: --tcid $inv: an invalid case of shard-layout: its answer is a refusal" \
  X --family shard-layout --tcid "$inv"
expect_exit "--family without --tcid: exit 2" 2 "^shardcheck explain: --family: give the case with --tcid N" \
  X --family shard-layout
expect_exit "--mesh with --family: refused by name" 2 "^shardcheck explain: --mesh: not used with --family" \
  X --family shard-layout --tcid $SL --mesh 2
expect_exit "--candidate without --family: refused by name" 2 "^shardcheck explain: --candidate: not used without --family" \
  X --mesh 2 --placements 'S(0)' --shape 4 --candidate x.json
expect_exit "--svg of a case without a layout: exit 2" 2 "^shardcheck explain: --svg: threefry tcId 1 has no layout to draw" \
  X --family threefry --tcid 1 --svg "$tmp/t.svg"
# a mesh smaller than the world (issue 34): the ranks off it hold torch's empty local tensor
expect_exit "--world: the shards of the mesh's ranks, the ranks off it listed" 0 \
  "off the mesh: ranks 0,2  local \[0\]  offset \[\]" \
  X --mesh 2 --ranks 1,3 --world 4 --placements 'S(0)' --shape 8,6
expect_exit "--world: shard B is rank 3's second half, over 2 ranks of a world of 4" 0 \
  "B: rank 3  local \[4,6\]  offset \[4,0\]" \
  X --mesh 2 --ranks 1,3 --world 4 --placements 'S(0)' --shape 8,6
expect_exit "--world with --op: each mesh rank's window, none off the mesh" 0 \
  "D +=+ +\[12, 16\)" X --mesh 2x2 --ranks 4,5,6,7 --world 8 --placements 'S(0),S(1)' \
  --shape 4,4 --op uniform
expect_exit "--world with --svg: written" 0 "" \
  X --mesh 2x2 --ranks 4,5,6,7 --world 8 --placements 'S(0),S(1)' --shape 4,4 --op uniform \
  --svg "$tmp/w.svg"
expect_exit "--family: a sub-world case is drawn with its world" 0 \
  "2 distinct shards over 2 ranks of a world of 4" X --family shard-layout --tcid 31759
expect_exit "bad: --world smaller than the mesh, torch's refusal named" 2 \
  "Mesh should not be bigger than default world size 3, but found 4 ranks" \
  X --mesh 2x2 --world 3 --placements 'S(0),S(1)' --shape 4,4
expect_exit "bad: --world past what explain draws" 2 "^shardcheck explain: --world: 300 ranks; explain draws at most 256" \
  X --mesh 2 --world 300 --placements 'S(0)' --shape 4
expect_exit "bad: --world with --family: refused by name" 2 "^shardcheck explain: --world: not used with --family" \
  X --family shard-layout --tcid 31759 --world 4
tap_done
