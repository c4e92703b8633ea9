#!/bin/sh
# cli_framework.sh — the common contract of every command (tools/cli/cli_opt.c): the commands come
# from the program itself (shardcheck --list-commands), so a new command is covered without
# editing this file.  For each: --help exits 0 with a usage line on stdout; an unknown option,
# an option missing its argument and a stray argument each exit 2 with
# "shardcheck CMD: --opt: reason" (or "unexpected argument 'X'"); so does a flag given twice, and
# options of several commands given twice (issue 38 M16: only a repeatable option may be), and
# every FILE or DIR option given "" (issue 38 M9).
. "$(dirname "$0")/testlib.sh"
use_tmpdir # the repeated-option checks write there when the option is not refused
cmds=$($S --list-commands); rc=$?
if [ "$rc" -eq 0 ] && [ -n "$cmds" ]; then tap_ok "--list-commands lists the commands"
else tap_not_ok "--list-commands lists the commands" "exit $rc"; fi
# Every command of `shardcheck --help` is in the list the checks below walk.
for c in $($S --help | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }'); do
  if printf '%s\n' "$cmds" | grep -qx "$c"; then tap_ok "--help's '$c' is listed"
  else tap_not_ok "--help's '$c' is listed" "$cmds"; fi
done

nl='
'
IFS_SAVE=$IFS
IFS=$nl
for c in $cmds; do
  IFS=$IFS_SAVE
  # shellcheck disable=SC2086  # "audit rng" is two words
  set -- $c
  help=$($S "$@" --help 2>/dev/null); rc=$?
  if [ "$rc" -eq 0 ] && printf '%s\n' "$help" | head -n 1 | grep -q "^usage: shardcheck $c"; then
    tap_ok "$c --help: exit 0 and a usage line"
  else tap_not_ok "$c --help: exit 0 and a usage line" "exit $rc" "$(printf '%s' "$help" | head -c 200)"; fi
  if printf '%s\n' "$help" | grep -q -- "^  --help "; then tap_ok "$c --help lists --help"
  else tap_not_ok "$c --help lists --help"; fi
  expect_exit "$c: an unknown option is exit 2 naming it" 2 \
    "^shardcheck $c: --no-such-option: unknown option" $S "$@" --no-such-option
  expect_exit "$c: -Z is exit 2 naming it" 2 "^shardcheck $c: -Z: unknown option" $S "$@" -Z
  opt=$(printf '%s\n' "$help" | grep -E '^  --[a-z0-9-]+ [^ ]' | head -n 1 | awk '{ print $1 }')
  if [ -n "$opt" ]; then
    expect_exit "$c: $opt without its argument is exit 2 naming it" 2 \
      "^shardcheck $c: $opt: needs an argument" $S "$@" "$opt"
  else
    tap_skip "$c: an option without its argument" "no option of $c takes an argument"
  fi
  # issue 38 M16: an option given twice kept the last value silently; a flag (no value to
  # refuse first) given twice is exit 2 naming it.  Here and below, a trailing unknown option
  # keeps a shardcheck without the check from acting on what it accepted (`gen --out ""`
  # wrote the corpus into /): the refusal must come first, by name.
  flag=$(printf '%s\n' "$help" | grep -E '^  --[a-z0-9-]+  ' | grep -v -- '^  --help ' | head -n 1 |
         awk '{ print $1 }')
  if [ -n "$flag" ]; then
    expect_exit "$c: $flag given twice is exit 2 naming it" 2 \
      "^shardcheck $c: $flag: given more than once" $S "$@" "$flag" "$flag" --no-such-option
  else
    tap_skip "$c: a flag given twice" "$c has no flag"
  fi
  # issue 38 M9: `gen --out ""` wrote /MANIFEST; every FILE or DIR option refuses ""
  for p in $(printf '%s\n' "$help" | grep -E '^  --[a-z0-9-]+ (FILE|DIR)' | awk '{ print $1 }'); do
    expect_exit "$c: $p \"\" is exit 2 naming it" 2 "^shardcheck $c: $p: empty" \
      $S "$@" "$p" "" --no-such-option
  done
  if printf '%s\n' "$help" | grep -q '^arguments:'; then
    tap_skip "$c: a stray argument" "$c takes arguments"
  else
    expect_exit "$c: a stray argument is exit 2 naming it" 2 \
      "^shardcheck $c: unexpected argument 'stray-arg'" $S "$@" stray-arg
  fi
  IFS=$nl
done
IFS=$IFS_SAVE

# issue 38 M16: `verify --candidate bad --candidate good` exited 0 having checked only the good
# one; every option takes one value unless its help says "repeatable" (a CLI_LIST).
expect_exit "verify --candidate twice: exit 2 naming it" 2 \
  "^shardcheck verify: --candidate: given more than once" \
  $S verify --family threefry --candidate "$tmp/bad.json" --candidate "$tmp/good.json" --no-such-option
expect_exit "certify --out twice: exit 2 naming it" 2 "^shardcheck certify: --out: given more than once" \
  $S certify --golden "$G" --families threefry --max-cases 1 --out "$tmp/a" --out "$tmp/b" --no-such-option
expect_exit "gen --family twice: exit 2 naming it" 2 "^shardcheck gen: --family: given more than once" \
  $S gen --family threefry --family philox-kat --out "$tmp/g" --no-such-option
expect_exit "run --max-cases twice: exit 2 naming it" 2 "^shardcheck run: --max-cases: given more than once" \
  $S run --golden "$G" --family threefry --max-cases 1 --max-cases 2 --no-such-option
expect_exit "layout --mesh twice: exit 2 naming it" 2 "^shardcheck layout: --mesh: given more than once" \
  $S layout --mesh 2 --mesh 4 --placements 'S(0)' --shape 8 --no-such-option
expect_exit "audit rng --seed twice: exit 2 naming it" 2 "^shardcheck audit rng: --seed: given more than once" \
  $S audit rng --seed 1 --seed 2 --no-such-option
expect_exit "certify --candidate twice (repeatable): not refused as repeated" 2 \
  "--candidate threefry=$tmp/b.json: cannot read" \
  $S certify --golden "$G" --out "$tmp/o" --candidate threefry="$tmp/b.json" --candidate threefry="$tmp/c.json"
expect_exit "a flag given a value is exit 2 naming it" 2 "^shardcheck layout: --json: takes no argument" \
  $S layout --json=yes
expect_exit "an ambiguous abbreviation is exit 2 naming it" 2 \
  "^shardcheck layout: --r: ambiguous abbreviation" $S layout --r 1
expect_exit "a bad integer names the option" 2 "^shardcheck run: --max-cases: 'many' is not an integer" \
  $S run --max-cases many
expect_exit "an integer out of range names the option" 2 "^shardcheck run: --max-ranks: 0 is outside 1..4096" \
  $S run --max-ranks 0
expect_exit "a bad value of a parsed option names it" 2 "^shardcheck run: --backend: 'nope': expected" \
  $S run --backend nope
tap_done
