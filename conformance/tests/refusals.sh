#!/bin/sh
# refusals.sh — the CLI's refusals as data (issue 37 item 6, after jansson's data-driven suites):
# every row of every table in refusals/ (read from $top_srcdir, so out-of-tree and distcheck
# runs find them) is one command that must be refused. A row is
#   NAME | EXIT | STDERR | ARGS [| OPTIONS]
# NAME   the TAP description;  EXIT  the exit code the command must return (2, 77, ...);
# STDERR what standard error must hold: a fixed string; "re:ERE" an extended regex some line
#        matches; "=TEXT" the whole of standard error, exactly;
# ARGS   the arguments, as sh words (quote with ' or "; no ` $ ; & | < >); @GOLDEN@ is
#        $top_srcdir/golden, @SRCDIR@ $top_srcdir, @SHARDCHECK@ the binary under test;
# OPTIONS space-separated: stdout=any (default: standard output must stay empty),
#        env=NAME=VALUE (repeatable). Standard input is /dev/null, so nothing waits on it.
# A table's line "%program WORDS" runs its rows with WORDS instead of $SHARDCHECK (the mpirun
# wrapper's table). Blank lines and lines starting with # are ignored; any other line that is
# not a well-formed row fails, so a typo cannot drop a check.
# A row also fails when the command crashes or hangs: exit >= 128, the timeout's 124, or a
# sanitizer report on standard error. The last check runs this script on the tables of
# data/refusals_wrong and wants every row there not ok, each for its own reason, so a runner
# that passed everything would fail.
. "$(dirname "$0")/testlib.sh"
use_tmpdir
# REFUSALS_TABLES: another tables folder (the self-check below runs data/refusals_wrong)
dir=${REFUSALS_TABLES:-$top_srcdir/conformance/tests/refusals}
tables=$(ls "$dir"/*.txt 2>/dev/null)
[ -n "$tables" ] || { echo "Bail out! no tables in $dir"; exit 99; }
to=""; command -v timeout >/dev/null 2>&1 && to="timeout 120"
sanitizer='(Address|Leak|Memory|Thread|UndefinedBehavior)Sanitizer|runtime error:'

# subst TEXT: the placeholders replaced (sed with | as delimiter: paths hold no |)
subst() {
  printf '%s' "$1" | sed -e "s|@GOLDEN@|$G|g" -e "s|@SRCDIR@|$top_srcdir|g" -e "s|@SHARDCHECK@|$S|g"
}
# oneline: a multi-line text on one TAP comment line, its newlines shown as " / "
oneline() { awk 'NR > 1 { printf "%s", " / " } { printf "%s", $0 }'; }
trim() { printf '%s' "$1" | sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//'; }

# run_row TABLE LINENO LINE PROGRAM (PROGRAM: sh words, as the %program line wrote them)
run_row() {
  t=$1; n=$2; prog=$4
  # An empty field ("| |") and a row ending in " |" (no ARGS) get their separators whole.
  line=$(printf '%s \n' "$3" | sed -e 's/ | | / |  | /g' -e 's/ | | / |  | /g')
  case $line in *" | "*" | "*" | "*) ;; *)
    tap_not_ok "$t:$n: malformed row (want NAME | EXIT | STDERR | ARGS [| OPTIONS])" "$line"
    return;;
  esac
  name=$(trim "${line%% | *}"); rest=${line#* | }
  code=$(trim "${rest%% | *}"); rest=${rest#* | }
  want=$(trim "${rest%% | *}"); rest=${rest#* | }
  case $rest in *" | "*) args=${rest%% | *}; opts=${rest#* | };; *) args=$rest; opts="";; esac
  desc="$(basename "$t" .txt): $name"
  case $code in ''|*[!0-9]*) tap_not_ok "$desc" "$t:$n: EXIT '$code' is not a number"; return;; esac
  [ -n "$want" ] || { tap_not_ok "$desc" "$t:$n: STDERR is empty (a refusal says why)"; return; }
  stdout_any=0; envs=""
  for o in $opts; do
    case $o in
      stdout=any) stdout_any=1;;
      env=*=*) envs="$envs ${o#env=}";;
      *) tap_not_ok "$desc" "$t:$n: unknown option '$o'"; return;;
    esac
  done
  # The row's words, parsed as sh words; the rows are this suite's own data, not input.
  case $args in *[\`\$\;\&\|\<\>]*)
    tap_not_ok "$desc" "$t:$n: a shell metacharacter in ARGS (only %program may hold one)"; return;;
  esac
  words="$prog $(subst "$args")"
  # (a syntax error in eval would end the whole script: try it in a subshell first)
  (eval "set -- $words") 2>/dev/null ||
    { tap_not_ok "$desc" "$t:$n: ARGS do not parse as sh words"; return; }
  eval "set -- $words"
  # shellcheck disable=SC2086
  env $envs $to "$@" </dev/null >"$tmp/out" 2>"$tmp/err"; rc=$?
  err=$(cat "$tmp/err")
  why=""
  if [ "$rc" -ge 128 ] || [ "$rc" -eq 124 ]; then why="crashed or hung: exit $rc"
  elif grep -Eq "$sanitizer" "$tmp/err"; then why="sanitizer report on standard error"
  elif [ "$rc" -ne "$code" ]; then why="exit $rc (want $code)"
  elif [ "$stdout_any" -eq 0 ] && [ -s "$tmp/out" ]; then why="standard output is not empty"
  else
    case $want in
      re:*) grep -Eq -- "${want#re:}" "$tmp/err" || why="standard error lacks /${want#re:}/";;
      =*) [ "$err" = "${want#=}" ] || why="standard error is not exactly: ${want#=}";;
      *) grep -Fq -- "$want" "$tmp/err" || why="standard error lacks: $want";;
    esac
  fi
  if [ -z "$why" ]; then tap_ok "$desc"
  else tap_not_ok "$desc" "$t:$n: $why" "stderr: $(printf '%s' "$err" | head -c 400 | oneline)" \
    "stdout: $(head -c 200 "$tmp/out" | oneline)"; fi
}

for t in $tables; do
  prog="'$S'"; n=0; rows=0
  while IFS= read -r line || [ -n "$line" ]; do
    n=$((n+1))
    case $line in
      ''|'#'*) continue;;
      '%program '*) prog=$(subst "${line#%program }"); continue;;
    esac
    rows=$((rows+1))
    run_row "$t" "$n" "$line" "$prog"
  done <"$t"
  [ "$rows" -gt 0 ] || tap_not_ok "$(basename "$t"): a table without rows" "$t"
done

# The suite can fail: every row of data/refusals_wrong (a flipped exit code, a wrong message,
# stdout written, a crash, a sanitizer report, malformed rows) must be not ok, for its reason.
if [ -z "${REFUSALS_TABLES:-}" ]; then
  wrong=$top_srcdir/conformance/tests/data/refusals_wrong
  out=$(REFUSALS_TABLES=$wrong sh "$0" 2>&1); rc=$?
  bad=$(printf '%s\n' "$out" | grep -c '^not ok'); good=$(printf '%s\n' "$out" | grep -c '^ok')
  rows=$(grep -cv -e '^#' -e '^%' -e '^$' "$wrong"/*.txt | awk -F: '{n+=$NF} END{print n}')
  miss=""
  for why in "exit 2 (want 77)" "standard error lacks: unknown command 'frobnicatX'" \
             "is not exactly" "standard error lacks /" "standard output is not empty" \
             "crashed or hung: exit 139" "sanitizer report" "malformed row" "is not a number" \
             "unknown option 'stdout=some'" "ARGS do not parse" "shell metacharacter"; do
    printf '%s\n' "$out" | grep -qF -- "$why" || miss="$miss [$why]"
  done
  if [ "$rc" -eq 1 ] && [ "$good" -eq 0 ] && [ "$bad" -eq "$rows" ] && [ -z "$miss" ]; then
    tap_ok "self-check: all $rows wrong rows of data/refusals_wrong fail, each for its reason"
  else tap_not_ok "self-check: the wrong rows of data/refusals_wrong fail" \
    "exit $rc (want 1), $bad not ok of $rows rows, $good ok; reasons missing:$miss" \
    "$(printf '%s\n' "$out" | head -c 1500)"; fi
fi
tap_done
