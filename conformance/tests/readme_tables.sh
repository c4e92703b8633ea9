#!/bin/sh
# readme_tables.sh — README.md's generated tables are not written by hand: the policy x property
# table must equal `shardcheck policies` and the family table `shardcheck families --markdown`
# (the registry is the one list of families).  Refresh both with tools/scripts/update_readme.sh.
. "$(dirname "$0")/testlib.sh"
use_tmpdir
"$SHARDCHECK" policies >"$tmp/now" 2>&1
sed -n '/<!-- policies:begin -->/,/<!-- policies:end -->/p' "$top_srcdir/README.md" | sed '1,2d;$d' | sed '$d' >"$tmp/readme"
if diff "$tmp/readme" "$tmp/now" >"$tmp/diff"; then tap_ok "README's policy table is shardcheck policies' output"
else tap_not_ok "README's policy table is shardcheck policies' output" "$(head -c 500 "$tmp/diff")" "run tools/scripts/update_readme.sh"; fi
"$SHARDCHECK" families --markdown --golden "$top_srcdir/golden" >"$tmp/fam" 2>&1
sed -n '/<!-- families:begin -->/,/<!-- families:end -->/p' "$top_srcdir/README.md" | sed '1d;$d' >"$tmp/readme-fam"
if diff "$tmp/readme-fam" "$tmp/fam" >"$tmp/diff"; then tap_ok "README's family table is the registry's (shardcheck families --markdown)"
else tap_not_ok "README's family table is the registry's (shardcheck families --markdown)" "$(head -c 500 "$tmp/diff")" "run tools/scripts/update_readme.sh"; fi
# The harness list the test job walks comes from the same registry.
"$SHARDCHECK" families --harness >"$tmp/h" 2>&1
if grep -qx "shard-layout:[0-9]*" "$tmp/h" && ! grep -q "philox-kat" "$tmp/h"; then
  tap_ok "families --harness lists the families with a harness adapter and their stride"
else tap_not_ok "families --harness lists the families with a harness adapter and their stride" "$(cat "$tmp/h")"; fi
# The outside peers' adapters (--peers) come from it too, and each names a shipped adapter file.
"$SHARDCHECK" families --peers >"$tmp/p" 2>&1
bad=""
while IFS=: read -r fam ad; do
  [ -f "$top_srcdir/tools/harness/${ad%%.*}/${ad#*.}.py" ] || bad="$bad $fam:$ad"
done <"$tmp/p"
what="families --peers lists the outside peers' adapters (Megatron-core, veScale, torch's tracker), each a shipped file"
if grep -qx "rng-policies:adapters.megatron_rng_policies" "$tmp/p" &&
   grep -qx "rng-policies:adapters.vescale_rng_policies" "$tmp/p" &&
   grep -qx "rng-policies:adapters.torch_rng_policies" "$tmp/p" &&
   grep -qx "group-ranks:adapters.megatron_group_ranks" "$tmp/p" && [ -z "$bad" ]; then
  tap_ok "$what"
else tap_not_ok "$what" "$(cat "$tmp/p"; echo "missing:$bad")"; fi
expect_exit "families rejects a stray argument" 2 "unexpected argument" "$SHARDCHECK" families extra
expect_exit "families with a missing golden dir names it" 2 "nowhere" "$SHARDCHECK" families --golden /nowhere
tap_done
