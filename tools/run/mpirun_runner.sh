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
# journal (--journal) of finished cases and of the redistribute case it is
# executing, so this wrapper can name the case that was running (Crash) and
# print the closing "N passed, N failed, N skipped" line itself.
# The whole job has a time limit (--time-limit SEC, else SHARDCHECK_RUNNER_TIME_LIMIT, default
# 10800 s = 3 h): past it the job is ended and reported as a Timeout.  SIGTERM, SIGINT or
# SIGHUP to this script end mpirun and every process under it (a stopped rank too) and
# remove the journal; the script then dies of that signal.
# A case whose mesh has more ranks than -np runs with each process hosting a block of them, so
# any -np runs every case.  --hostfile FILE is passed to mpirun as it is (OpenMPI's format; add
# --map-by node in MPIRUN_ARGS to place consecutive processes on different nodes); --srun
# launches `srun -n NP` instead (Slurm, with OpenMPI's PMI support).
# Environment: MPIRUN (default mpirun), MPIRUN_ARGS (extra mpirun options).
# Exit codes are shardcheck's: 0 all passed, 1 failures (the closing line then counts at
# least one), 2 bad usage (this script's options or the run options), 77 skipped, 99 internal.
# Tested by conformance/tests/run_faults.sh (a killed rank), run_mpi.sh and hardening.sh (the
# time limit, SIGTERM and SIGINT).
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
    -h|--help) sed -n '2,27p' "$0"; exit 0 ;;
    *) echo "mpirun_runner.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case $np in ''|*[!0-9]*|0*) echo "mpirun_runner.sh: -np '$np' is not a positive number" >&2; exit 2 ;; esac
case $limit in ''|*[!0-9]*|0*) usage_error "--time-limit '$limit' is not a positive number of seconds" ;; esac
command -v "$sc" >/dev/null 2>&1 || usage_error "--shardcheck '$sc' is not an executable"
journal=$(mktemp "${TMPDIR:-/tmp}/shardcheck-journal.XXXXXX") || exit 99
child= timer= why=
trap 'rm -f "$journal"; stop_timer' EXIT
# A dead rank must end the job promptly, and fork() in the per-case workers is expected.
export OMPI_MCA_mpi_warn_on_fork=0

alive() { # alive PID: running or stopped, not a zombie waiting to be reaped
  st=$(ps -o stat= -p "$1" 2>/dev/null) && [ -n "$st" ] && case $st in Z*) false ;; *) true ;; esac
}
descendants() { # every process under PID (ranks run in process groups of their own)
  ps -eo pid=,ppid= 2>/dev/null | awk -v root="$1" '{ p[$1] = $2 } END {
    for (x in p) { y = x; while ((y in p) && y != root && y > 1) y = p[y]; if (y == root && x != root) print x } }'
}
stop_timer() { # the timer and its sleep: frozen first, so it cannot fork one unseen
  [ -n "$timer" ] || return 0
  kill -STOP "$timer" 2>/dev/null
  kill -KILL "$timer" $(descendants "$timer") 2>/dev/null
  timer=
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
  rm -f "$journal"
  stop_timer
  trap - EXIT "$1"
  kill -"$1" $$
  exit "$2"
}
trap 'on_signal TERM 143' TERM
trap 'on_signal INT 130' INT
trap 'on_signal HUP 129' HUP
trap 'why=limit; stop_children' USR1

# The job runs in the background so that a signal reaches the traps at once (a shell runs a
# trap only after its foreground command); a timer process sends USR1 at the limit.
if [ "$use_srun" = 1 ]; then
  srun -n "$np" "$sc" run --backend "$backend" --journal "$journal" "$@" &
else
  set -- --journal "$journal" "$@"
  if [ -n "$hostfile" ]; then
    ${MPIRUN:-mpirun} ${MPIRUN_ARGS:-} --hostfile "$hostfile" -np "$np" "$sc" run --backend "$backend" "$@" &
  else
    ${MPIRUN:-mpirun} ${MPIRUN_ARGS:-} -np "$np" "$sc" run --backend "$backend" "$@" &
  fi
fi
child=$!
( sleep "$limit" && kill -USR1 $$ ) &
timer=$!
while :; do
  wait "$child"; rc=$?
  kill -0 "$child" 2>/dev/null || break  # reaped: rc is the job's; otherwise a trap ran
done
child=
stop_timer
count() { grep -Ec "$1" "$journal"; }
passed=$(count '^Pass ') skipped=$(count '^NotSupported ')
failed=$(count '^(Fail|Crash|Timeout|InternalError) ')
done_code=$(sed -n 's/^done \([0-9][0-9]*\)$/\1/p' "$journal" | tail -n 1)
if [ -n "$done_code" ]; then
  # Rank 0 printed the report; its code stands unless mpirun failed after a clean one.
  [ "$done_code" -ne 0 ] && exit "$done_code"
  [ "$rc" -eq 0 ] && exit 0
  echo "Crash         the mpi job failed after its report (mpirun exit $rc): a rank did not finish"
  echo "$passed passed, $((failed + 1)) failed, $skipped skipped"
  exit 1
fi
if [ "$why" = limit ]; then
  echo "Timeout       the mpi job ran past the runner's time limit of $limit s (--time-limit, SHARDCHECK_RUNNER_TIME_LIMIT) and was ended"
  echo "$passed passed, $((failed + 1)) failed, $skipped skipped"
  exit 1
fi
if [ ! -s "$journal" ] && { [ "$rc" -eq 2 ] || [ "$rc" -eq 77 ]; }; then
  # Nothing ran: the ranks refused the options (their message is above) or were built without MPI.
  exit "$rc"
fi
# The job ended without a report: a process died or hung (or mpirun could not start it).
last=$(grep '^start ' "$journal" | tail -n 1)
crash="the mpi job ended before reporting (mpirun exit $rc)"
if [ -n "$last" ]; then
  set -- $last
  if ! grep -v '^start ' "$journal" | grep -Eq "^[A-Za-z]+ $2 $3\$"; then
    crash="$2 tc $3: a rank died while rank 0 executed this case (mpirun exit $rc); the job ended"
  fi
fi
echo "Crash         $crash"
echo "$passed passed, $((failed + 1)) failed, $skipped skipped"
exit 1
