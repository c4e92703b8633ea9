#!/bin/sh
# testlib_check.sh — the shell tests' scaffold (testlib.sh) can fail: each check, handed a command
# that does not do what it asks, prints "not ok", and "ok" for one that does; exit 77 is a skip
# carrying the reason; skip_all and need_* print a plan of 0 with theirs; tap_done's status is
# that of the checks; use_tmpdir's directory is gone at exit; write_manifest's MANIFEST is one
# sha256sum -c accepts.  Each check runs in a subshell, so this test's own counters stay its own.
. "$(dirname "$0")/testlib.sh"
use_tmpdir
# want DESC PREFIX SNIPPET: the first line SNIPPET prints in a fresh subshell starts with PREFIX
want() {
  got=$( (TAP_N=0; TAP_FAIL=0; eval "$3") 2>&1 | head -n 1)
  case $got in "$2"*) tap_ok "$1";; *) tap_not_ok "$1" "got:  $got" "want: $2...";; esac
}
want "expect_exit: the code and the message" "ok 1" 'expect_exit d 3 "boom" sh -c "echo boom; exit 3"'
want "expect_exit: another code" "not ok 1" 'expect_exit d 3 "boom" sh -c "echo boom; exit 2"'
want "expect_exit: another message" "not ok 1" 'expect_exit d 3 "boom" sh -c "echo bam; exit 3"'
want "expect_out: exactly" "ok 1" 'expect_out d "a b" echo "a b"'
want "expect_out: other output" "not ok 1" 'expect_out d "a b" echo "a  b"'
want "expect_out: a non-zero exit" "not ok 1" 'expect_out d "a" sh -c "echo a; exit 1"'
printf 'hello world\n' >"$tmp/f"
want "expect_file: the text is there" "ok 1" 'expect_file d "$tmp/f" "lo wo"'
want "expect_file: it is not" "not ok 1" 'expect_file d "$tmp/f" "lo  wo"'
want "expect_file: no file" "not ok 1" 'expect_file d "$tmp/none" "x"'
want "expect_passes: passed, none failed" "ok 1 - d: 3 passed, 0 failed" \
  'expect_passes d sh -c "echo 3 passed, 0 failed, 0 skipped"'
want "expect_passes: a failure" "not ok 1" 'expect_passes d sh -c "echo 3 passed, 1 failed, 0 skipped"'
want "expect_passes: nothing passed" "not ok 1" 'expect_passes d sh -c "echo 0 passed, 0 failed, 2 skipped"'
want "expect_passes: a non-zero exit" "not ok 1" 'expect_passes d sh -c "echo 3 passed, 0 failed; exit 1"'
want "expect_passes: no summary" "not ok 1" 'expect_passes d true'
want "expect_pass_or_skip: 77 is a skip with the skipped line" "ok 1 - d # SKIP x: skipped: no GPU" \
  'expect_pass_or_skip d sh -c "echo a; echo x: skipped: no GPU; echo b; exit 77"'
want "expect_pass_or_skip: 77, else the last line" "ok 1 - d # SKIP no device" \
  'expect_pass_or_skip d sh -c "echo a; echo no device; exit 77"'
want "expect_pass_or_skip: exit 0" "ok 1 - d" 'expect_pass_or_skip d true'
want "expect_pass_or_skip: exit 0 with a failed case" "not ok 1" 'expect_pass_or_skip d sh -c "echo 2 passed, 1 failed"'
want "expect_pass_or_skip: exit 1" "not ok 1" 'expect_pass_or_skip d false'
want "skip_all: a plan of 0 with the reason" "1..0 # SKIP why" 'skip_all why; echo after'
want "need_golden: a missing family skips" "1..0 # SKIP golden/no-such not generated yet" 'need_golden no-such'
want "need_python: no python skips" "1..0 # SKIP no python3 at /nonexistent" 'PY=/nonexistent; need_python'
if (TAP_N=0; TAP_FAIL=0; tap_ok a; tap_not_ok b; tap_done) >/dev/null; then tap_not_ok "tap_done fails after a not ok"
else tap_ok "tap_done fails after a not ok"; fi
if (TAP_N=0; TAP_FAIL=0; tap_ok a; tap_skip b c; tap_done) >/dev/null; then tap_ok "tap_done passes without one"
else tap_not_ok "tap_done passes without one"; fi
d=$( (use_tmpdir; echo "$tmp") )
if [ -n "$d" ] && [ ! -e "$d" ]; then tap_ok "use_tmpdir's directory is gone at exit"
else tap_not_ok "use_tmpdir's directory is gone at exit" "$d"; fi
mkdir -p "$tmp/m/a"; echo 1 >"$tmp/m/a/x"; echo 2 >"$tmp/m/b"
write_manifest "$tmp/m"
if [ "$(wc -l <"$tmp/m/MANIFEST")" -eq 2 ] && (cd "$tmp/m" && sha256sum -c --quiet MANIFEST) >/dev/null 2>&1; then
  tap_ok "write_manifest: every other file, sha256sum -c accepts it"
else tap_not_ok "write_manifest: every other file, sha256sum -c accepts it" "$(cat "$tmp/m/MANIFEST")"; fi
tap_done
