#!/bin/sh
# verify_select.sh — verify checks a subset when asked (issue 22 item 1): --tcid, --flag,
# --answered; a case left out is neither printed nor counted, and a bad selection is exit 2
# naming it.  The candidate is one golden file of shard-layout (invalid.json, 16 tests, right
# answers), so everything else of the family is missing from it.  A rank missing from a test
# the candidate answers is a failure under --answered too (issue 38 M12).
. "$(dirname "$0")/testlib.sh"
use_tmpdir
need_golden shard-layout
c=$G/shard-layout/invalid.json
V() { "$S" verify --family shard-layout --golden "$G" --candidate "$c" "$@"; }
expect_exit "without a selection the family's other tests fail as missing" 1 "missing from the candidate" V
expect_exit "--answered: only the 16 answered tests, all pass" 0 "^16 passed, 0 failed, 0 skipped" V --answered
expect_exit "... and says how many tests it left out" 0 "--answered: [0-9]+ golden tests the candidate does not answer were not checked" V --answered
out=$(V --answered 2>&1)
if printf '%s\n' "$out" | grep -q "missing"; then tap_not_ok "--answered prints no missing line" "$(printf '%s' "$out" | grep missing | head -n 2)"
else tap_ok "--answered prints no missing line"; fi
expect_exit "--tcid: one answered test" 0 "^1 passed, 0 failed, 0 skipped" V --tcid 31719
expect_exit "--tcid: two, one of them unanswered, fails only that one" 1 "^Fail +tcId 1: missing from the candidate" V --tcid 31719,1
expect_exit "... counted alone" 1 "^1 passed, 1 failed, 0 skipped" V --tcid 31719,1
expect_exit "--flag: the tests carrying it (Int64Overflow: 2 of the 16)" 0 "^2 passed, 0 failed, 0 skipped" V --flag Int64Overflow --answered
expect_exit "--flag with --tcid: their intersection" 0 "^1 passed, 0 failed, 0 skipped" V --flag Int64Overflow --tcid 31719,31733
expect_exit "an empty intersection is exit 2, not a run that checked nothing" 2 \
  "--tcid 31719 --flag Int64Overflow: no test of family shard-layout is selected" V --flag Int64Overflow --tcid 31719
expect_exit "--tcid of a test the family lacks is exit 2 naming it" 2 "--tcid 99999999: not a tcId of family shard-layout" V --tcid 99999999
expect_exit "--tcid that is not a list is exit 2" 2 "--tcid: '3,x' is not a list of tcIds" V --tcid 3,x
expect_exit "an unknown --flag is exit 2 naming it" 2 "--flag NoSuchFlag: family shard-layout declares no such flag" V --flag NoSuchFlag
expect_exit "--tcid with --manifest is refused by name" 2 "--tcid" "$S" verify --manifest --golden "$G" --tcid 3
# issue 38 M12: --answered leaves out only tests the candidate does not answer at all; a test
# answered for some ranks is checked, its missing rank a failure by name (a rank >= world, too)
need_python "to build results files"
"$PY" - "$G/shard-layout/rank-maps-explicit.json" "$tests_dir" "$tmp" <<'PYEOF'
import json, sys
sys.path.insert(0, sys.argv[2])
import golden_results
golden_results.tests = lambda g, f: (t for grp in json.load(open(sys.argv[1]))["testGroups"]
                                     for t in grp["tests"])
res = golden_results.entries(None, "shard-layout")
tc = next(e["tcId"] for e in res if e.get("rank") == 1)
mine = [e for e in res if e["tcId"] == tc]
world = len(mine)
def dump(name, es):
    json.dump({"family": "shard-layout", "results": es}, open(sys.argv[3] + "/" + name, "w"))
dump("all.json", mine)
dump("miss.json", [e for e in mine if e["rank"] != 1])
dump("past.json", [dict(e, rank=world + 3) if e["rank"] == 1 else e for e in mine])
open(sys.argv[3] + "/tc", "w").write("%d %d\n" % (tc, world))
PYEOF
read tc world <"$tmp/tc"
VA() { "$S" verify --family shard-layout --golden "$G" --answered --candidate "$@"; }
expect_exit "M12 --answered: a test answered for all $world ranks passes" 0 "^1 passed, 0 failed" \
  VA "$tmp/all.json"
expect_exit "M12 --answered: rank 1 left out of an answered test fails by name, exit 1" 1 \
  "^Fail +tcId $tc rank 1: missing from the candidate, which answers this test for other ranks" \
  VA "$tmp/miss.json"
expect_exit "M12 --answered: rank 1 answered as rank $((world + 3)) (>= world $world): exit 1" 1 \
  "^Fail +tcId $tc rank 1: missing from the candidate" VA "$tmp/past.json"
expect_exit "M12 ... counted as failed" 1 "^0 passed, 1 failed, 0 skipped" VA "$tmp/past.json"
# An invalid case flagged StricterThanTorch (tc 31731: a reduce op longer than shardcheck's 31
# characters, which torch takes) answered on every rank, as a port that follows torch answers
# it: NotSupported with the reason (no claim requires it; shc_stricter_answered), never a Fail;
# an unflagged invalid case answered (tc 31729, Q(0)) stays a Fail.
cat >"$tmp/stricter.json" <<'JEOF'
{"family": "shard-layout", "results": [
 {"tcId": 31731, "rank": 0, "values": {"localShape": [8], "globalOffset": [0]}},
 {"tcId": 31731, "rank": 1, "values": {"localShape": [8], "globalOffset": [0]}},
 {"tcId": 31729, "rank": 0, "values": {"localShape": [8], "globalOffset": [0]}}]}
JEOF
expect_exit "StricterThanTorch answered: NotSupported naming the flag; an unflagged invalid answer fails" 1 \
  "^ok [0-9]+ - tcId 31731 # SKIP NotSupported: answered as torch does \\(flag StricterThanTorch" \
  "$SHARDCHECK" verify --family shard-layout --candidate "$tmp/stricter.json" --golden "$G" --answered --tap
expect_exit "... counted: 0 passed, 1 failed (tc 31729), 1 skipped (tc 31731)" 1 "^0 passed, 1 failed, 1 skipped" \
  "$SHARDCHECK" verify --family shard-layout --candidate "$tmp/stricter.json" --golden "$G" --answered
tap_done
