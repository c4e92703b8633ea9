#!/bin/sh
# cli_errors.sh — the CLI's shared contract: help, version, unknown commands and options, exit codes.
. "$(dirname "$0")/testlib.sh"
expect_exit "--help lists the commands" 0 "commands:" $S --help
expect_exit "--version names the pinned reference" 0 "pytorch 2.13.0" $S --version
expect_exit "no command is a usage error" 2 "usage: shardcheck COMMAND" $S
expect_exit "an unknown command is a usage error" 2 "unknown command 'frobnicate'" $S frobnicate
expect_exit "audit needs rng or plan" 2 "expected 'rng' or 'plan'" $S audit
expect_exit "gen rejects an unknown option" 2 "--bogus: unknown option" $S gen --bogus
expect_exit "gen rejects a positional argument" 2 "unexpected argument 'extra'" $S gen extra
expect_exit "gen --list names the families" 0 "shard-layout" $S gen --list
# D1 (issue 9): an unterminated quote in P('op' once stepped past the end of the argument and
# printed whatever followed it in memory (here the next argument, --json). Exact message, exit 2.
out=$($S layout --mesh 2 --shape 4 --placements "P('avg" --json 2>&1); rc=$?
want="shardcheck layout: --placements: placement 0 of 'P('avg': missing closing ' after reduce op 'avg'"
if [ $rc -eq 2 ] && [ "$out" = "$want" ]; then tap_ok "an unterminated quote in P('avg is exit 2, exact message"
else tap_not_ok "an unterminated quote in P('avg is exit 2, exact message" "exit $rc (want 2)" "output: $out" "want: $want"; fi
out=$($S layout --mesh 2 --shape 4 --placements 'P("max' 2>&1); rc=$?
want="shardcheck layout: --placements: placement 0 of 'P(\"max': missing closing \" after reduce op 'max'"
if [ $rc -eq 2 ] && [ "$out" = "$want" ]; then tap_ok "an unterminated double quote is exit 2, exact message"
else tap_not_ok "an unterminated double quote is exit 2, exact message" "exit $rc (want 2)" "output: $out" "want: $want"; fi
expect_exit "a closed quote is still accepted" 0 '"localShape":\[4\]' $S layout --mesh 2 --shape 4 --placements "P('avg')" --json
tap_done
