#!/bin/sh
# verify_select.sh — verify checks a subset when asked (issue 22 item 1): --tcid, --flag,
# --answered; a case left out is neither printed nor counted, and a bad selection is exit 2
# naming it.  The candidate is one golden file of shard-layout (invalid.json, 16 tests, right
# answers), so everything else of the family is missing from it.
. "$(dirname "$0")/testlib.sh"
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
tap_done
