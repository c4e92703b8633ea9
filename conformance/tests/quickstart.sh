#!/bin/sh
# quickstart.sh — README's vendor quick start works as written (issue 22 item 8).  The lines
# between <!-- quickstart:begin --> and <!-- quickstart:end --> are taken from README.md and run,
# unchanged, as one shell script in a scratch directory laid out as the checkout is after the
# first README command: `tools` and `golden` (links to the source tree), `_build/tools/shardcheck`
# (this build) and `.venv/bin/python` ($SHARDCHECK_PYTHON).  Every step's exit code is recorded:
# the adapter is named, the harness writes the results (exit 0), verify passes them (exit 0),
# certify writes a package whose verdict is partial, exit 3 (the example ports rng-offsets in
# part: a narrower claim is never conformant), and certify --check finds it intact (exit 0).  The block must hold
# exactly five commands.  Without SHARDCHECK_PYTHON the test is skipped with the reason (TAP
# "1..0 # SKIP", which automake's TAP driver reports as SKIP).
. "$(dirname "$0")/testlib.sh"
# The quick start is README prose run as written: most of its time is the harness's Python, the
# same in every build, and its C commands (verify of a results file, certify, certify --check)
# run under the sanitizers in verify_candidate.sh, certify.sh and certify_claims.sh (issue 36:
# CI time)
[ "${SHARDCHECK_SANITIZED:-0}" = 1 ] && skip_all "sanitized build: the plain build's make check runs the quick start"
[ -n "${SHARDCHECK_PYTHON:-}" ] || skip_all "SHARDCHECK_PYTHON is not set (the quick start runs the harness)"
"$SHARDCHECK_PYTHON" -c 'import jsonschema' 2>/dev/null ||
  skip_all "no jsonschema in $SHARDCHECK_PYTHON (tools/harness/setup_venv.sh)"
need_golden rng-offsets
use_tmpdir
sed -n '/<!-- quickstart:begin -->/,/<!-- quickstart:end -->/p' "$top_srcdir/README.md" |
  sed -e '1,2d' -e '$d' | sed '$d' >"$tmp/block"
n=$(grep -cv '^[[:space:]]*\(#.*\)\{0,1\}$' "$tmp/block")
if [ "$n" = 5 ] && [ "$(head -c 5 "$tmp/block")" != '```' ]; then tap_ok "README's quick start holds five commands"
else tap_not_ok "README's quick start holds five commands" "found $n in:" "$(cat "$tmp/block")"; fi

# the checkout as the quick start expects it after the first README command
w=$tmp/checkout
mkdir -p "$w/_build/tools" "$w/.venv/bin"
ln -s "$top_srcdir/tools" "$w/tools"
ln -s "$G" "$w/golden"
printf '#!/bin/sh\nexec "%s" "$@"\n' "$SHARDCHECK" >"$w/_build/tools/shardcheck"
printf '#!/bin/sh\nexec "%s" "$@"\n' "$SHARDCHECK_PYTHON" >"$w/.venv/bin/python"
chmod +x "$w/_build/tools/shardcheck" "$w/.venv/bin/python"

# one script: each command as written, then its step's exit code recorded
awk -v steps="$tmp/steps" '
  /^[[:space:]]*(#.*)?$/ { print; next }
  { k++; print; printf "echo \"%d $?\" >>\"%s\"\n", k, steps }' "$tmp/block" >"$tmp/run.sh"
(cd "$w" && unset SHARDCHECK_GOLDEN && SHARDCHECK_NO_PROGRESS=1 sh "$tmp/run.sh" >"$tmp/out" 2>&1)
step() { awk -v k="$1" '$1 == k { print $2 }' "$tmp/steps"; }
show=$(tail -n 8 "$tmp/out")
[ "$(step 1)" = 0 ] && tap_ok "1. the adapter named" || tap_not_ok "1. the adapter named" "exit $(step 1)" "$show"
if [ "$(step 2)" = 0 ] && [ -s "$w/results/rng-offsets.json" ]; then tap_ok "2. the harness wrote results/rng-offsets.json"
else tap_not_ok "2. the harness wrote results/rng-offsets.json" "exit $(step 2)" "$show"; fi
if [ "$(step 3)" = 0 ] && grep -Eq '^[1-9][0-9]* passed, 0 failed, [0-9]+ skipped$' "$tmp/out"; then
  tap_ok "3. verify passes the results"
else tap_not_ok "3. verify passes the results" "exit $(step 3)" "$show"; fi
verdict=$("$SHARDCHECK_PYTHON" -c 'import json, sys; print(json.load(open(sys.argv[1]))["verdict"])' \
  "$w/pkg/statement.json" 2>/dev/null)
case "$(step 4) $verdict" in
  "3 partial") tap_ok "4. certify wrote the package, exit $(step 4) for its verdict ($verdict)" ;;
  *) tap_not_ok "4. certify wrote the package, its exit its verdict's" "exit $(step 4), verdict '${verdict:-none}'" "$show" ;;
esac
if [ "$(step 5)" = 0 ] && grep -q "^certify --check pkg: intact" "$tmp/out"; then tap_ok "5. certify --check finds it intact"
else tap_not_ok "5. certify --check finds it intact" "exit $(step 5)" "$show"; fi
tap_done
