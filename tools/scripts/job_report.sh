#!/bin/sh
# job_report.sh — the main job's report (tools/main_job.sh): one line per stage as it ends and a
# closing table, read from the stages' logs, so that what a person reads is the counts, the
# time and where to look, not the launchers' chatter (mpirun's "Primary job terminated
# normally ... Exit code: 77" banners; those stay in the logs, which the lines name).
#
#   job_report.sh stage LEDGER BACKEND NP SECONDS [--bad REASON] [--no-counts] LOG RC [LOG RC ...]
#   job_report.sh skip LEDGER BACKEND NP REASON
#   job_report.sh summary LEDGER [WALL]
#
# stage: a stage ran as one or more runs (the torch backend: one per family), each with its log
# and exit code.  Its counts are the sum of each log's closing "N passed, N failed, N skipped[,
# N waived]" line; a log without one (verify --manifest, a run that said why it could not run)
# gives its last line as the note instead (--no-counts: every log does, for a log that holds
# several runs' closing lines, such as the torch release matrix's).  Status: FAIL when a run
# exited other than 0 or 77, a case failed or --bad gave a reason (under the line: the reason,
# then up to 5 of the logs' Fail/Crash/Timeout/InternalError lines, else the log's last lines,
# never an mpirun banner nor a "Killed" line); skipped when every run exited 77 and no case
# passed or failed; else ok.  Each stage is appended to LEDGER (tab-separated); summary prints
# the table (backend x np: passed, failed, waived, skipped, time, status), a total and the
# verdict line (with WALL, the seconds the stages took from the first's start to the last's end,
# which is less than their sum where stages ran side by side), and exits 0 when every stage is ok
# or skipped, else 1.  Tested by
# conformance/tests/main_report.sh on fabricated logs.
set -u
die() { echo "job_report.sh: $*" >&2; exit 2; }
[ $# -ge 1 ] || die "usage: stage|skip|summary LEDGER ..."
cmd=$1; shift

# noise LOG...: the logs without mpirun's help banners (a block between two lines of dashes),
# the shell's "Killed" notices for a sleeper, and Pass lines (what an excerpt may show)
noise_free() {
  awk '/^-----------------+$/ { inblock = !inblock; next }
       inblock { next }
       /Killed[ \t]+\(? *sleep / || /^Pass / || /^[ \t]*$/ { next }
       { print }' "$@"
}

# shown NAME...: one name as is; several as their common prefix, "*" and common suffix
shown() {
  [ $# -gt 1 ] || { printf '%s' "${1:--}"; return; }
  printf '%s\n' "$@" | awk '
    NR == 1 { pre = $0; suf = $0; next }
    { while (substr($0, 1, length(pre)) != pre) pre = substr(pre, 1, length(pre) - 1)
      while (suf != "" && substr($0, length($0) - length(suf) + 1) != suf) suf = substr(suf, 2) }
    END { # whole parts of the names only: the prefix up to a separator, the suffix from one
      while (pre != "" && substr(pre, length(pre)) !~ /[-\/_.]/)
        pre = substr(pre, 1, length(pre) - 1)
      while (suf != "" && substr(suf, 1, 1) !~ /[-\/_.]/) suf = substr(suf, 2)
      printf "%s*%s", pre, suf }'
}

stage() {
  [ $# -ge 6 ] || die "stage: LEDGER BACKEND NP SECONDS [--bad REASON] [--no-counts] LOG RC ..."
  ledger=$1 backend=$2 np=$3 secs=$4; shift 4
  bad= counts=1
  while :; do
    case $1 in
      --bad) [ $# -ge 2 ] || die "stage: --bad needs a reason"; bad=$2; shift 2 ;;
      --no-counts) counts=0; shift ;;
      *) break ;;
    esac
  done
  [ $# -ge 2 ] && [ $(($# % 2)) -eq 0 ] || die "stage $backend np $np: LOG RC pairs expected"
  p=0 f=0 w=0 s=0 counted=0 runs=0 skips=0 badrc=0 note= pairs=$(($# / 2))
  while [ "$runs" -lt "$pairs" ]; do
    log=$1 rc=$2; shift 2
    runs=$((runs + 1))
    case $rc in 0) ;; 77) skips=$((skips + 1)) ;; *) badrc=$((badrc + 1)) ;; esac
    set -- "$@" "$log"   # each log goes to the end: after the loop "$@" is the logs
    line=; [ "$counts" = 0 ] ||
      line=$(grep -E '^(# )?[0-9]+ passed, [0-9]+ failed' "$log" 2>/dev/null | tail -n 1 |
        sed 's/^# //')
    if [ -n "$line" ]; then
      counted=1
      p=$((p + $(echo "$line" | awk '{ print $1 }')))
      f=$((f + $(echo "$line" | awk '{ print $3 }')))
      n=$(echo "$line" | sed -n 's/.* \([0-9][0-9]*\) skipped.*/\1/p'); s=$((s + ${n:-0}))
      n=$(echo "$line" | sed -n 's/.* \([0-9][0-9]*\) waived.*/\1/p'); w=$((w + ${n:-0}))
    fi
  done
  status=ok
  [ "$skips" -eq "$runs" ] && [ "$p" -eq 0 ] && [ "$f" -eq 0 ] && status=skipped
  [ "$badrc" -eq 0 ] && [ "$f" -eq 0 ] && [ -z "$bad" ] || status=FAIL
  if [ "$counted" = 1 ]; then
    what="$p passed, $f failed, $w waived, $s skipped"
  else
    note=$(noise_free "$1" 2>/dev/null | tail -n 1 | sed -E 's/^shardcheck [a-z]+: //')
    what=${note:-no closing count line}
  fi
  printf '%-7s %-3s %6s s  %-7s %s  (log %s)\n' "$backend" "$np" "$secs" "$status" "$what" \
    "$(shown "$@")" | cut -c1-200
  [ -z "$bad" ] || echo "    $bad"
  if [ "$badrc" -gt 0 ] || [ "$f" -gt 0 ]; then
    ex=$(noise_free "$@" 2>/dev/null | grep -E '^(Fail|Crash|Timeout|InternalError) ' | head -n 5)
    [ -n "$ex" ] || ex=$(noise_free "$@" 2>/dev/null | tail -n 3)
    printf '%s\n' "$ex" | sed 's/^/    /' | cut -c1-160
  fi
  [ "$counted" = 1 ] || { p=- f=- w=- s=-; }
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$backend" "$np" "$p" "$f" "$w" "$s" "$secs" \
    "$status" >>"$ledger"
}

skip() {
  [ $# -eq 4 ] || die "skip: LEDGER BACKEND NP REASON"
  printf '%-7s %-3s %6s s  %-7s %s\n' "$2" "$3" 0 skipped "$4"
  printf '%s\t%s\t-\t-\t-\t-\t0\tskipped\n' "$2" "$3" >>"$1"
}

summary() {
  [ $# -eq 1 ] || [ $# -eq 2 ] || die "summary: LEDGER [WALL]"
  [ -s "$1" ] || die "summary: $1: no stage recorded"
  case ${2:-} in *[!0-9]*) die "summary: wall '$2' is not a number of seconds" ;; esac
  awk -F '\t' -v wall="${2:-}" '
    function num(x) { return x == "-" ? 0 : x }
    BEGIN { printf "%-7s %-3s %9s %7s %7s %8s %8s  %s\n", "backend", "np", "passed", "failed",
            "waived", "skipped", "time", "status" }
    { printf "%-7s %-3s %9s %7s %7s %8s %6s s  %s\n", $1, $2, $3, $4, $5, $6, $7, $8
      P += num($3); F += num($4); W += num($5); S += num($6); T += $7
      if ($8 == "FAIL") { nbad++; bad = bad (nbad > 1 ? ", " : "") $1 ($2 == "-" ? "" : " np " $2) }
    }
    END {
      printf "%-7s %-3s %9d %7d %7d %8d %6d s\n", "total", "", P, F, W, S, T
      counts = sprintf("%d passed, %d failed, %d waived, %d skipped in %d s", P, F, W, S, T)
      if (wall != "")
        counts = sprintf("%d passed, %d failed, %d waived, %d skipped in %d s (stages %d s, " \
                         "some side by side)", P, F, W, S, wall, T)
      if (nbad) printf "verdict: FAIL: %d stage%s failed (%s); %s\n", nbad, (nbad > 1 ? "s" : ""),
        bad, counts
      else printf "verdict: PASS: %s\n", counts
      exit nbad ? 1 : 0
    }' "$1"
}

case $cmd in
  stage|skip|summary) "$cmd" "$@" ;;
  *) die "unknown command '$cmd' (stage, skip, summary)" ;;
esac
