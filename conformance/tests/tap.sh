# tap.sh — tiny TAP helpers for the shell tests (sourced).
# ok_run DESC EXPECTED_EXIT EXPECTED_STDERR_REGEX -- CMD...: runs CMD, checks exit and stderr.
TAP_N=0
TAP_FAIL=0
tap_ok() { TAP_N=$((TAP_N+1)); echo "ok $TAP_N - $1"; }
tap_not_ok() { TAP_N=$((TAP_N+1)); TAP_FAIL=$((TAP_FAIL+1)); echo "not ok $TAP_N - $1"; shift; for l in "$@"; do echo "#   $l"; done; }
tap_skip() { TAP_N=$((TAP_N+1)); echo "ok $TAP_N - $1 # SKIP $2"; }
tap_done() { echo "1..$TAP_N"; [ "$TAP_FAIL" -eq 0 ]; }
# expect_exit DESC CODE REGEX CMD... : CMD must exit CODE and its stderr (or stdout) must match REGEX.
expect_exit() {
  desc=$1; code=$2; re=$3; shift 3
  out=$("$@" 2>&1); rc=$?
  if [ "$rc" -eq "$code" ] && printf '%s' "$out" | grep -Eq -- "$re"; then tap_ok "$desc"
  else tap_not_ok "$desc" "exit $rc (want $code)" "output: $(printf '%s' "$out" | head -c 400)" "want /$re/"; fi
}
