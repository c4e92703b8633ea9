#!/bin/sh
# mpirun_runner.sh — run `shardcheck run --backend mpi` across ranks, on one
# node, across nodes with a hostfile, or under Slurm's srun, and make sure a
# rank that dies still ends in a readable report.
#
#   tools/mpirun_runner.sh -np 8 [--hostfile FILE | --srun] [--shardcheck PATH]
#                          [--backend mpi|cuda|torch[:gloo|:nccl]] -- [run options]
#
# OpenMPI ends the whole job when a process dies; the runner's rank 0 keeps a
# journal (--journal) of finished cases and of the redistribute case it is
# executing, so this wrapper can name the case that was running (Crash) and
# print the closing "N passed, N failed, N skipped" line itself.
# Environment: MPIRUN (default mpirun), MPIRUN_ARGS (extra mpirun options).
# Exit codes are shardcheck's: 0 all passed, 1 failures (the closing line then counts at
# least one), 2 bad usage (this script's options or the run options), 77 skipped, 99 internal.
# Tested by conformance/tests/run_faults.sh (a killed rank), run_mpi.sh and hardening.sh.
set -u
np=2 hostfile= use_srun=0 backend=mpi
sc=${SHARDCHECK:-$(dirname "$0")/shardcheck}
usage_error() { echo "mpirun_runner.sh: $1 (see --help)" >&2; exit 2; }
need_arg() { [ $# -ge 2 ] || usage_error "$1 needs an argument"; }
while [ $# -gt 0 ]; do
  case $1 in
    -np|-n) need_arg "$@"; np=$2; shift 2 ;;
    --hostfile) need_arg "$@"; hostfile=$2; shift 2 ;;
    --srun) use_srun=1; shift ;;
    --shardcheck) need_arg "$@"; sc=$2; shift 2 ;;
    --backend) need_arg "$@"; backend=$2; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "mpirun_runner.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case $np in ''|*[!0-9]*|0*) echo "mpirun_runner.sh: -np '$np' is not a positive number" >&2; exit 2 ;; esac
command -v "$sc" >/dev/null 2>&1 || usage_error "--shardcheck '$sc' is not an executable"
journal=$(mktemp "${TMPDIR:-/tmp}/shardcheck-journal.XXXXXX") || exit 99
trap 'rm -f "$journal"' EXIT
# A dead rank must end the job promptly, and fork() in the per-case workers is expected.
export OMPI_MCA_mpi_warn_on_fork=0
if [ "$use_srun" = 1 ]; then
  srun -n "$np" "$sc" run --backend "$backend" --journal "$journal" "$@"
else
  set -- --journal "$journal" "$@"
  if [ -n "$hostfile" ]; then
    ${MPIRUN:-mpirun} ${MPIRUN_ARGS:-} --hostfile "$hostfile" -np "$np" "$sc" run --backend "$backend" "$@"
  else
    ${MPIRUN:-mpirun} ${MPIRUN_ARGS:-} -np "$np" "$sc" run --backend "$backend" "$@"
  fi
fi
rc=$?
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
