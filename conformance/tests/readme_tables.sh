#!/bin/sh
# readme_policies.sh — the policy x property table in README.md is generated, not written by hand:
# it must equal what `shardcheck policies` prints now (refresh with tools/update_readme.sh).
. "$top_srcdir/conformance/tests/tap.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$SHARDCHECK" policies >"$tmp/now" 2>&1
sed -n '/<!-- policies:begin -->/,/<!-- policies:end -->/p' "$top_srcdir/README.md" | sed '1,2d;$d' | sed '$d' >"$tmp/readme"
if diff "$tmp/readme" "$tmp/now" >"$tmp/diff"; then tap_ok "README's policy table is shardcheck policies' output"
else tap_not_ok "README's policy table is shardcheck policies' output" "$(head -c 500 "$tmp/diff")" "run tools/update_readme.sh"; fi
tap_done
