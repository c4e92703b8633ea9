#!/bin/sh
# progress.sh — progress bars (tools/common/progress.h): gen, verify, run and certify draw one on
# stderr when it is a terminal (a pty from util-linux's `script -qc`), with counts and, on a
# run long enough to estimate, an ETA; never when stderr is piped or a file, and not on a
# terminal with SHARDCHECK_NO_PROGRESS=1.  SHARDCHECK_PROGRESS=1 forces it without a terminal.
# A bar is erased when its work ends, and a failure line printed meanwhile starts on a clean
# line (the bar is hidden before it).
. "$(dirname "$0")/testlib.sh"
use_tmpdir
need_golden threefry
unset SHARDCHECK_NO_PROGRESS SHARDCHECK_PROGRESS
# bar FILE: the file holds a drawn bar (carriage return, label, [###, counts)
bar() { tr '\r' '\n' <"$1" | grep -Eq "$2 \[[#.]+\] [0-9]+/[0-9]+ +[0-9]+%"; }
check_bar() { # DESC FILE LABEL
  if bar "$2" "$3"; then tap_ok "$1"; else tap_not_ok "$1" "$(head -c 300 "$2" | od -c | head -5)"; fi; }
check_none() { # DESC FILE
  if grep -q "$(printf '\033')\\[K" "$2" || grep -Eq '\[[#.]+\] [0-9]+/' "$2"; then tap_not_ok "$1" "$(head -c 300 "$2" | od -c | head -5)"
  else tap_ok "$1"; fi; }

if command -v script >/dev/null 2>&1 && script -qc true /dev/null </dev/null >/dev/null 2>&1; then
  pty() { out=$1; shift; script -qc "$*" /dev/null </dev/null >"$out" 2>&1; }
  pty "$tmp/run.tty" "'$S' run --backend ref --golden '$G' --family threefry"
  check_bar "run on a terminal draws a bar" "$tmp/run.tty" "run threefry"
  if grep -q "40 passed, 0 failed" "$tmp/run.tty"; then tap_ok "and its report follows"; else tap_not_ok "and its report follows"; fi
  pty "$tmp/verify.tty" "'$S' verify --golden '$G' --family threefry --candidate '$G/threefry/threefry.json'"
  check_bar "verify on a terminal draws a bar" "$tmp/verify.tty" "verify threefry"
  pty "$tmp/gen.tty" "'$S' gen --family threefry --out '$tmp/g'"
  check_bar "gen on a terminal draws a bar" "$tmp/gen.tty" "gen( threefry: [0-9]+ tests)?"
  pty "$tmp/cert.tty" "'$S' certify --golden '$G' --families threefry --out '$tmp/c1'"
  check_bar "certify on a terminal draws a bar" "$tmp/cert.tty" "certify( threefry np 1)?"
  sed '3s/"f29a4fa7"/"f29a4fa8"/' "$G/threefry/threefry.json" >"$tmp/bad.json"
  pty "$tmp/fail.tty" "'$S' verify --golden '$G' --family threefry --candidate '$tmp/bad.json'"
  if tr '\r' '\n' <"$tmp/fail.tty" | grep -q "Fail .*tcId 1" && ! tr '\r' '\n' <"$tmp/fail.tty" | grep -Eq '[0-9]%.*Fail'; then
    tap_ok "a failure line starts on a clean line, not on the bar"
  else tap_not_ok "a failure line starts on a clean line, not on the bar" "$(tr '\r' '\n' <"$tmp/fail.tty" | head -5)"; fi
  pty "$tmp/off.tty" "SHARDCHECK_NO_PROGRESS=1 '$S' run --backend ref --golden '$G' --family threefry"
  check_none "SHARDCHECK_NO_PROGRESS=1: no bar on a terminal" "$tmp/off.tty"
else
  for c in run verify gen certify failure-line off; do tap_skip "$c on a terminal" "no util-linux script(1)"; done
  tap_skip "run's report" "no script(1)"
fi

"$S" run --backend ref --golden "$G" --family threefry 2>&1 | cat >"$tmp/run.pipe"
check_none "run piped: no bar" "$tmp/run.pipe"
"$S" verify --golden "$G" --family threefry --candidate "$G/threefry/threefry.json" 2>"$tmp/verify.err" >/dev/null
check_none "verify with stderr to a file: no bar" "$tmp/verify.err"
"$S" gen --family threefry --out "$tmp/g2" 2>&1 | cat >"$tmp/gen.pipe"
check_none "gen piped: no bar" "$tmp/gen.pipe"
"$S" certify --golden "$G" --families threefry --out "$tmp/c2" 2>&1 | cat >"$tmp/cert.pipe"
check_none "certify piped: no bar" "$tmp/cert.pipe"
if cmp -s "$tmp/g/threefry/threefry.json" "$G/threefry/threefry.json" && cmp -s "$tmp/g2/threefry/threefry.json" "$G/threefry/threefry.json"; then
  tap_ok "gen's files are the same with and without a bar"
else tap_not_ok "gen's files are the same with and without a bar"; fi

# Forced (no terminal needed): counts, an ETA on a long run, a failure line on a clean line.
if [ -d "$G/group-ranks" ]; then
  SHARDCHECK_PROGRESS=1 "$S" run --backend ref --golden "$G" --family group-ranks --max-cases 3000 2>"$tmp/gr.err" >/dev/null
  if tr '\r' '\n' <"$tmp/gr.err" | grep -Eq '^run group-ranks \[#+\.*\] [0-9]+/3000 +[0-9]+% +[0-9]+:[0-9]{2}  ETA [0-9]+:[0-9]{2}'; then
    tap_ok "a long run shows counts and an ETA"
  else tap_not_ok "a long run shows counts and an ETA" "$(tr '\r' '\n' <"$tmp/gr.err" | tail -3)"; fi
  if tail -c 4 "$tmp/gr.err" | od -c | grep -q '\\r 033   \[   K'; then tap_ok "the bar is erased at the end"
  else tap_not_ok "the bar is erased at the end" "$(tail -c 20 "$tmp/gr.err" | od -c)"; fi
else tap_skip "a long run shows an ETA" "no golden/group-ranks"; tap_skip "the bar is erased" "no golden/group-ranks"; fi
tap_done
