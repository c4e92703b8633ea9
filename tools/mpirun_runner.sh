#!/bin/sh
# mpirun_runner.sh — run `shardcheck run --backend mpi` across ranks, on one
# node, across nodes with a hostfile, or under Slurm's srun, and make sure a
# rank that dies still ends in a readable report.
#
#   tools/mpirun_runner.sh -np 8 [--hostfile FILE | --srun] [--shardcheck PATH] -- [run options]
#
# OpenMPI ends the whole job when a process dies; the runner's rank 0 keeps a
# journal (--journal) of finished cases and of the redistribute case it is
# executing, so this wrapper can name the case that was running (Crash) and
# print the closing "N passed, N failed, N skipped" line itself.
# Environment: MPIRUN (default mpirun), MPIRUN_ARGS (extra mpirun options).
# Tested by conformance/tests/run_faults.sh (a killed rank) and run_mpi.sh.
set -u
np=2 hostfile= use_srun=0
sc=${SHARDCHECK:-$(dirname "$0")/shardcheck}
while [ $# -gt 0 ]; do
  case $1 in
    -np|-n) np=$2; shift 2 ;;
    --hostfile) hostfile=$2; shift 2 ;;
    --srun) use_srun=1; shift ;;
    --shardcheck) sc=$2; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "mpirun_runner.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case $np in ''|*[!0-9]*) echo "mpirun_runner.sh: -np '$np' is not a number" >&2; exit 2 ;; esac
journal=$(mktemp "${TMPDIR:-/tmp}/shardcheck-journal.XXXXXX") || exit 99
trap 'rm -f "$journal"' EXIT
# A dead rank must end the job promptly, and fork() in the per-case workers is expected.
export OMPI_MCA_mpi_warn_on_fork=0
if [ "$use_srun" = 1 ]; then
  srun -n "$np" "$sc" run --backend mpi --journal "$journal" "$@"
else
  set -- --journal "$journal" "$@"
  if [ -n "$hostfile" ]; then
    ${MPIRUN:-mpirun} ${MPIRUN_ARGS:-} --hostfile "$hostfile" -np "$np" "$sc" run --backend mpi "$@"
  else
    ${MPIRUN:-mpirun} ${MPIRUN_ARGS:-} -np "$np" "$sc" run --backend mpi "$@"
  fi
fi
rc=$?
if grep -q '^done ' "$journal"; then
  exit $rc
fi
# The job ended without a report: a process died (or mpirun could not start it).
passed=$(grep -c '^Pass ' "$journal")
skipped=$(grep -c '^NotSupported ' "$journal")
failed=$(grep -Ec '^(Fail|Crash|Timeout|InternalError) ' "$journal")
last=$(grep '^start ' "$journal" | tail -n 1)
if [ -n "$last" ]; then
  set -- $last
  if ! grep -v '^start ' "$journal" | grep -Eq "^[A-Za-z]+ $2 $3\$"; then
    echo "Crash         $2 tc $3: a rank died while rank 0 executed this case (mpirun exit $rc); the job ended"
    failed=$((failed + 1))
  fi
else
  echo "Crash         the mpi job ended before reporting (mpirun exit $rc)"
  failed=$((failed + 1))
fi
echo "$passed passed, $failed failed, $skipped skipped"
exit 1
