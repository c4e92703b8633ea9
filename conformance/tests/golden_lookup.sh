#!/bin/sh
# golden_lookup.sh — every command finds the corpus the same way (issue 22 item 7): --golden,
# then $SHARDCHECK_GOLDEN, then the installed copy, then ./golden, and an error naming all
# four when none has one.  Run from scratch directories so the checkout's ./golden is not
# found by accident; installed_corpus.sh (installcheck) covers the installed copy.
. "$(dirname "$0")/testlib.sh"
need_golden philox-kat
use_tmpdir
mkdir "$tmp/empty" "$tmp/here" "$tmp/bad"
ln -s "$G" "$tmp/here/golden"
cand=$tmp/cand.json
printf '[]' >"$cand"
installed=$(cd "$tmp/empty" && env -u SHARDCHECK_GOLDEN "$S" verify --manifest 2>&1 \
  | sed -n 's/.*none installed (\([^)]*\)\/MANIFEST).*/\1/p')
if [ -z "$installed" ]; then
  tap_skip "no corpus anywhere: exit 2 naming all four places" "a corpus is installed here"
else
  for c in "verify --manifest" "verify --family philox-kat --candidate $cand" \
           "report --out $tmp/r.html $cand" "families" "run --backend ref --family philox-kat"; do
    # shellcheck disable=SC2086
    expect_exit "no corpus anywhere: $c is exit 2 naming --golden, \$SHARDCHECK_GOLDEN, the installed copy and ./golden" \
      2 "no golden corpus: none given by --golden, \\\$SHARDCHECK_GOLDEN is not set, none installed \\($installed/MANIFEST\\) and none in this directory \\(\\./golden/MANIFEST\\)" \
      sh -c "cd '$tmp/empty' && env -u SHARDCHECK_GOLDEN $S $c"
  done
fi
expect_exit "\$SHARDCHECK_GOLDEN names the corpus for verify" 0 "MANIFEST ok|ok" \
  sh -c "cd '$tmp/empty' && SHARDCHECK_GOLDEN='$G' $S verify --manifest"
expect_exit "\$SHARDCHECK_GOLDEN names the corpus for families" 0 "philox-kat" \
  sh -c "cd '$tmp/empty' && SHARDCHECK_GOLDEN='$G' $S families"
expect_exit "./golden is found last" 0 "philox-kat" \
  sh -c "cd '$tmp/here' && env -u SHARDCHECK_GOLDEN $S families"
expect_exit "--golden beats \$SHARDCHECK_GOLDEN" 0 "philox-kat" \
  sh -c "cd '$tmp/empty' && SHARDCHECK_GOLDEN='$tmp/bad' $S families --golden '$G'"
expect_exit "\$SHARDCHECK_GOLDEN beats ./golden, and a wrong one is named" 2 "$tmp/bad" \
  sh -c "cd '$tmp/here' && SHARDCHECK_GOLDEN='$tmp/bad' $S verify --manifest"
expect_exit "an empty \$SHARDCHECK_GOLDEN counts as unset" 0 "philox-kat" \
  sh -c "cd '$tmp/here' && SHARDCHECK_GOLDEN= $S families"
tap_done
