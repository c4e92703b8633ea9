#!/bin/sh
# mpirun_runner.sh — run `shardcheck run --backend mpi` across ranks, on one
# node, across nodes with a hostfile, or under Slurm's srun, and make sure a
# rank that dies still ends in a readable report.
#
#   tools/run/mpirun_runner.sh -np 8 [--hostfile FILE | --srun] [--shardcheck PATH]
#                          [--backend mpi|cuda|torch[:gloo|:nccl]|plugin:FILE.so] [--time-limit SEC]
#                          -- [run options]
#
# OpenMPI ends the whole job when a process dies; the runner's rank 0 keeps a
# journal of finished cases and of the redistribute case it is executing, so this
# wrapper can name the case that was running (Crash) and print the closing
# "N passed, N failed, N skipped" line itself.  Rank 0 writes the journal on its
# standard output (`run --journal -`, each line after a marker), which mpirun and srun
# forward to this node whatever node rank 0 runs on; this script takes those lines out
# of the output into its own journal file.  After rank 0's report the launcher has
# SHARDCHECK_RUNNER_GRACE seconds (default 60) to end; past them it is ended (a lost
# host keeps mpirun waiting for its daemon far longer) and the report stands.
# The whole job has a time limit (--time-limit SEC, else SHARDCHECK_RUNNER_TIME_LIMIT, default
# 10800 s = 3 h): past it the job is ended and reported as a Timeout.  SIGTERM, SIGINT or
# SIGHUP to this script end mpirun and every process under it (a stopped rank too) and
# remove the journal; the script then dies of that signal.
# A case whose mesh has more ranks than -np runs with each process hosting a block of them, so
# any -np runs every case.  --hostfile FILE is passed to mpirun as it is (OpenMPI's format; add
# --map-by node in MPIRUN_ARGS to place consecutive processes on different nodes); --srun
# launches `srun --mpi=TYPE -n NP` instead (TYPE: SHARDCHECK_SRUN_MPI, default pmix, which
# Debian's OpenMPI needs when Slurm's MpiDefault is none).  Every SHARDCHECK_* variable set
# here is passed to the ranks (mpirun -x; srun exports the environment), and the ranks check
# at start that they agree.  Environment: MPIRUN (default mpirun), MPIRUN_ARGS (extra mpirun
# options), SRUN (default srun).
# A job the launcher could not start at all (a host down or unknown) is exit 2 with the
# launcher's own message above, not a Crash.
# Exit codes are shardcheck's: 0 all passed, 1 failures (the closing line then counts at
# least one), 2 bad usage (this script's options or the run options), 77 skipped, 99 internal.
# Tested by conformance/tests/run_faults.sh (a killed rank), run_mpi.sh, hardening.sh (the
# time limit, SIGTERM and SIGINT), refusals.sh (refusals/mpirun_runner.txt: usage errors) and
# main_report.sh (no "Killed" line, no timer left).
set -u
np=2 hostfile= use_srun=0 backend=mpi limit=${SHARDCHECK_RUNNER_TIME_LIMIT:-10800}
# shardcheck: beside this script where both are installed (bin/), else a build in the
# source tree (tools/shardcheck, this script being tools/run/mpirun_runner.sh)
sc=${SHARDCHECK:-$(dirname "$0")/shardcheck}
[ -n "${SHARDCHECK:-}" ] || [ -x "$sc" ] || [ ! -x "$(dirname "$0")/../shardcheck" ] ||
  sc=$(dirname "$0")/../shardcheck
usage_error() { echo "mpirun_runner.sh: $1 (see --help)" >&2; exit 2; }
need_arg() { [ $# -ge 2 ] || usage_error "$1 needs an argument"; }
while [ $# -gt 0 ]; do
  case $1 in
    -np|-n) need_arg "$@"; np=$2; shift 2 ;;
    --hostfile) need_arg "$@"; hostfile=$2; shift 2 ;;
    --srun) use_srun=1; shift ;;
    --shardcheck) need_arg "$@"; sc=$2; shift 2 ;;
    --backend) need_arg "$@"; backend=$2; shift 2 ;;
    --time-limit) need_arg "$@"; limit=$2; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,38p' "$0"; exit 0 ;;
    *) echo "mpirun_runner.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case $np in ''|*[!0-9]*|0*) echo "mpirun_runner.sh: -np '$np' is not a positive number" >&2; exit 2 ;; esac
case $limit in ''|*[!0-9]*|0*) usage_error "--time-limit '$limit' is not a positive number of seconds" ;; esac
command -v "$sc" >/dev/null 2>&1 || usage_error "--shardcheck '$sc' is not an executable"
grace=${SHARDCHECK_RUNNER_GRACE:-60}
case $grace in ''|*[!0-9]*) usage_error "SHARDCHECK_RUNNER_GRACE '$grace' is not a number of seconds" ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/shardcheck-runner.XXXXXX") || exit 99
journal=$work/journal fifo=$work/out
: >"$journal" && mkfifo "$fifo" || exit 99
child= timer= filter= why=
launcher=mpirun; [ "$use_srun" = 1 ] && launcher=srun
trap 'stop_grace; rm -rf "$work"; stop_timer' EXIT
# A dead rank must end the job promptly, and fork() in the per-case workers is expected.
export OMPI_MCA_mpi_warn_on_fork=0

alive() { # alive PID: running or stopped, not a zombie waiting to be reaped
  st=$(ps -o stat= -p "$1" 2>/dev/null) && [ -n "$st" ] && case $st in Z*) false ;; *) true ;; esac
}
descendants() { # every process under PID (ranks run in process groups of their own)
  ps -eo pid=,ppid= 2>/dev/null | awk -v root="$1" '{ p[$1] = $2 } END {
    for (x in p) { y = x; while ((y in p) && y != root && y > 1) y = p[y]; if (y == root && x != root) print x } }'
}
stop_timer() { # the timer and its sleep: frozen first, so it cannot fork one unseen.  The
  # timer is no child of this shell (started detached below), so bash has no job to report
  # "Killed" for, and its own stderr is /dev/null for the sleep's death.
  [ -n "$timer" ] || return 0
  kill -STOP "$timer" 2>/dev/null
  kill -KILL "$timer" $(descendants "$timer") 2>/dev/null
  timer=
}
stop_grace() { # the grace timer the output filter started after rank 0's report, if any
  [ -s "$work/grace" ] || return 0
  g=$(cat "$work/grace"); : >"$work/grace"
  kill -KILL $(descendants "$g") "$g" 2>/dev/null
  return 0
}
stop_children() { # mpirun ends its job on SIGTERM; whatever is left (a stopped rank) is killed
  [ -n "$child" ] || return 0
  kids=$(descendants "$child")
  kill -TERM "$child" 2>/dev/null
  i=0
  while [ $i -lt 50 ] && alive "$child"; do sleep 0.1; i=$((i + 1)); done
  kill -KILL "$child" $kids 2>/dev/null
  return 0
}
on_signal() { # dash runs no EXIT trap on a signal: clean up here, then die of the signal
  trap '' TERM INT HUP USR1
  stop_children
  [ -z "$child" ] || wait "$child" 2>/dev/null
  stop_grace
  rm -rf "$work"
  stop_timer
  trap - EXIT "$1"
  kill -"$1" $$
  exit "$2"
}
trap 'on_signal TERM 143' TERM
trap 'on_signal INT 130' INT
trap 'on_signal HUP 129' HUP
# A timer that fired has ended or is ending: its pid is forgotten before anything kills by it,
# for on a busy machine (pid_max 32768) the number soon names another process -- another
# job's grace timer, whose killing left that job waiting on a lingering mpirun for the whole
# 600 s of run_multinode.sh's D4 once.
trap 'why=limit; timer=; stop_children' USR1
trap 'why=grace; : >"$work/grace"; stop_children' USR2

# The output filter: journal lines (after the marker; --tag-output may put text before it)
# go to the journal file, the rest through; rank 0's "done" line starts the grace timer.
marker='#shardcheck-journal# '
# mawk reads a pipe in blocks unless interactive: the report and the grace must not wait on it
awkf=; awk -W interactive 'BEGIN { }' </dev/null >/dev/null 2>&1 && awkf="-W interactive"
awk $awkf -v m="$marker" -v j="$journal" -v pid=$$ -v g="$grace" -v gf="$work/grace" '
  (i = index($0, m)) > 0 {
    line = substr($0, i + length(m)); print line >> j; fflush(j)
    if (line ~ /^done / && !started) {
      started = 1
      system("(sleep " g " && kill -USR2 " pid ") >/dev/null 2>&1 & echo $! >" gf)
    }
    next
  }
  { print; fflush() }' <"$fifo" &
filter=$!
# Every SHARDCHECK_* setting reaches the ranks on other nodes too (mpirun passes only what -x
# names; srun exports the whole environment).
fwd=
for v in $(env | sed -n 's/^\(SHARDCHECK_[A-Za-z0-9_]*\)=.*/\1/p'); do fwd="$fwd -x $v"; done
# The job runs in the background so that a signal reaches the traps at once (a shell runs a
# trap only after its foreground command); a timer process sends USR1 at the limit.
set -- --journal - "$@"
if [ "$use_srun" = 1 ]; then
  ${SRUN:-srun} --mpi="${SHARDCHECK_SRUN_MPI:-pmix}" -n "$np" "$sc" run --backend "$backend" "$@" >"$fifo" &
elif [ -n "$hostfile" ]; then
  ${MPIRUN:-mpirun} ${MPIRUN_ARGS:-} $fwd --hostfile "$hostfile" -np "$np" "$sc" run --backend "$backend" "$@" >"$fifo" &
else
  ${MPIRUN:-mpirun} ${MPIRUN_ARGS:-} $fwd -np "$np" "$sc" run --backend "$backend" "$@" >"$fifo" &
fi
child=$!
# The timer is started detached (its parent subshell exits at once): were it this shell's job,
# bash could print "N Killed ( sleep ... )" for it whenever it reaps it, after any redirection.
timer=$( (sleep "$limit" && kill -USR1 $$) >/dev/null 2>&1 & echo $!)
while :; do
  wait "$child"; rc=$?
  kill -0 "$child" 2>/dev/null || break  # reaped: rc is the job's; otherwise a trap ran
done
child=
stop_timer
stop_grace
# the filter ends when the last writer of the job's output has gone; one left behind (a rank
# on a lost host) does not hold the report
i=0
while [ $i -lt 50 ] && kill -0 "$filter" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
kill "$filter" 2>/dev/null
wait "$filter" 2>/dev/null
filter=
count() { grep -Ec "$1" "$journal"; }
passed=$(count '^Pass ') skipped=$(count '^NotSupported ')
failed=$(count '^(Fail|Crash|Timeout|InternalError) ')
done_code=$(sed -n 's/^done \([0-9][0-9]*\)$/\1/p' "$journal" | tail -n 1)
if [ -n "$done_code" ]; then
  # Rank 0 printed the report; its code stands unless mpirun failed after a clean one.
  [ "$why" = grace ] && echo "mpirun_runner.sh: $launcher had not ended $grace s after the report" \
    "(SHARDCHECK_RUNNER_GRACE): it was ended; the report above stands" >&2
  [ "$done_code" -ne 0 ] && exit "$done_code"
  [ "$rc" -eq 0 ] || [ "$why" = grace ] && exit 0
  echo "Crash         the mpi job failed after its report ($launcher exit $rc): a rank did not finish"
  echo "$passed passed, $((failed + 1)) failed, $skipped skipped"
  exit 1
fi
if [ "$why" = limit ]; then
  echo "Timeout       the mpi job ran past the runner's time limit of $limit s (--time-limit, SHARDCHECK_RUNNER_TIME_LIMIT) and was ended"
  echo "$passed passed, $((failed + 1)) failed, $skipped skipped"
  exit 1
fi
if ! grep -q '^begin ' "$journal" && { [ "$rc" -eq 2 ] || [ "$rc" -eq 77 ]; }; then
  # Nothing ran: the ranks refused the options (their message is above) or were built without MPI.
  exit "$rc"
fi
if [ ! -s "$journal" ]; then
  # Rank 0 never began: the launcher could not start the job (its own message is above).
  echo "mpirun_runner.sh: $launcher could not start the job ($launcher exit $rc): no rank began;" \
    "a host down or unknown, or the launcher's own error above (no case ran)" >&2
  exit 2
fi
# The job ended without a report: a process died or hung.  Every case of the chunk it was in
# that has no result is named (a case rank 0 was executing, by its "start" line); with no chunk
# to name, the end itself is one Crash.
awk -v how="$launcher exit $rc" '
  $1 == "chunk" { fam = $2; n = 0; for (i = 3; i <= NF; i++) tcs[++n] = $i; delete got; exec = ""; next }
  $1 == "start" { exec = $2 " " $3; next }
  $1 != "begin" && $1 != "done" { got[$2 " " $3] = 1 }
  END {
    lost = 0
    for (i = 1; i <= n; i++) {
      k = fam " " tcs[i]
      if (k in got) continue
      lost++
      if (k == exec) printf "Crash         %s tc %s: a rank died while rank 0 executed this case (%s); the job ended\n", fam, tcs[i], how
      else printf "Crash         %s tc %s: lost: a process died while its chunk of %d cases was computed (%s); the job ended\n", fam, tcs[i], n, how
    }
    if (!lost && exec != "" && !(exec in got)) {
      split(exec, e, " ")
      printf "Crash         %s tc %s: a rank died while rank 0 executed this case (%s); the job ended\n", e[1], e[2], how
      lost = 1
    }
    if (!lost) printf "Crash         the mpi job ended before reporting (%s)\n", how
    print (lost ? lost : 1) >"/dev/stderr"
  }' "$journal" 2>"$work/lost"
lost=$(cat "$work/lost" 2>/dev/null); lost=${lost:-1}
echo "$passed passed, $((failed + lost)) failed, $skipped skipped"
exit 1
