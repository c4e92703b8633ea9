#!/bin/sh
# cli_explain.sh — `shardcheck explain`: the picture of who holds what.  Uneven and empty shards
# are marked, replicas share a letter, _StridedShard interleaving alternates letters, the groups
# of every mesh dim are listed, and with --op the Philox windows show overruns (!) and the audit's
# findings; --svg writes a well-formed SVG.  Bad input: missing options, an unknown op, a mesh too
# large to draw, an unwritable --svg path: exit 2 naming it.
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
tap_done
