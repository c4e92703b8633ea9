#!/bin/sh
# run_multinode.sh — issue 38's multi-node defects of tools/run/mpirun_runner.sh, tested on
# this one machine as far as it can be:
#   D1  rank 0 on another node than the launcher: rank 0 writes the journal on its standard
#       output (run --journal -) and the runner takes it out of the forwarded output, so a
#       rank 0 that cannot see the launcher's temporary directory (here: an empty tmpfs over
#       it in the rank's own mount namespace, what another node is to it) still gives the real
#       closing line, no Crash;
#   D2  --srun passes srun --mpi=pmix (SHARDCHECK_SRUN_MPI) and its messages say srun;
#   D3  every SHARDCHECK_* variable reaches the ranks (mpirun -x);
#   D5  a process dying inside a chunk of cases names each case of the chunk as lost and keeps
#       the results of the chunks before (SHARDCHECK_FAULT=die:RANK:TCID kills the MPI process);
#   D4  after rank 0's report the launcher gets SHARDCHECK_RUNNER_GRACE seconds, then it is
#       ended and the report stands (a lost host keeps mpirun waiting for minutes);
#   D6  a launcher that cannot start the job is said as such, exit 2, not a Crash;
#   and a normal run's output has no "Killed" line from the runner's own timer.
# What this cannot test here: real nodes (ssh, a real Slurm); README "Multi-node jobs" says so.
. "$(dirname "$0")/testlib.sh"
use_tmpdir
have_mpi || skip_all "no mpirun (MPI not built)"
need_golden
G="$top_srcdir/golden"
have_mpi_build || skip_all "shardcheck built without MPI (the runner has nothing to run)"
R="$top_srcdir/tools/run/mpirun_runner.sh"
# under ASan OpenMPI's own allocations (in MCA components already unloaded) read as leaks no
# suppression can name: MPI processes run without leak detection (run_faults.sh alike)
[ "${SHARDCHECK_SANITIZED:-0}" = 1 ] && export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
G="$top_srcdir/golden"
MA="--oversubscribe --allow-run-as-root"

# --- a normal run: the journal lines never reach the user, no "Killed" line ---
out=$(MPIRUN_ARGS="$MA" bash "$R" -np 2 --shardcheck "$SHARDCHECK" -- --family philox-kat \
      --golden "$G" 2>"$tmp/err"); rc=$?
if [ $rc -eq 0 ] && printf '%s\n' "$out" | tail -n 1 | grep -q '^30 passed, 0 failed, 0 skipped$' &&
   ! cat "$tmp/err" - <<EOS | grep -Eq 'Killed|shardcheck-journal'
$out
EOS
then
  tap_ok "a run under bash: the closing line, no journal marker and no 'Killed' in the output"
else tap_not_ok "a run under bash: no journal marker, no Killed" "exit $rc" "$out"; fi

# --- D1: rank 0 cannot see the launcher's temporary directory ---
# A rank "on another node": the runner's TMPDIR ($tmp/launch) is an empty tmpfs of its own there
# (a mount namespace), as another node's /tmp is to the launcher; the rest of the tree is shared.
mkdir -p "$tmp/launch"
if unshare -m --propagation private true 2>/dev/null; then
  cat >"$tmp/remote" <<EOS
#!/bin/sh
exec unshare -m --propagation private sh -c 'mount -t tmpfs remote "$tmp/launch" && exec "\$0" "\$@"' "$SHARDCHECK" "\$@"
EOS
  chmod +x "$tmp/remote"
  # (stdout alone: stderr's idle note, and PMIx's lines about its own session directory in
  # that TMPDIR, may come after the closing line)
  out=$(MPIRUN_ARGS="$MA" TMPDIR="$tmp/launch" sh "$R" -np 2 --shardcheck "$tmp/remote" -- \
        --family philox-kat --golden "$G" 2>"$tmp/d1.err"); rc=$?
  if [ $rc -eq 0 ] && printf '%s\n' "$out" | tail -n 1 | grep -q '^30 passed, 0 failed, 0 skipped$' &&
     ! printf '%s\n' "$out" | grep -q '^Crash'; then
    tap_ok "D1 rank 0 with a temporary directory of its own: the report and closing line, no false Crash"
  else tap_not_ok "D1 rank 0 with a temporary directory of its own" "exit $rc" "$out"; fi
  # the journal still names the case a dying rank was in: kill rank 1 in a redistribute case
  tc=$(sed -n 's/.*"tcId": *\([0-9]*\).*"result": *"valid".*/\1/p' "$G/redistribute-data/one-dim.json" | head -n 1)
  out=$(SHARDCHECK_FAULT="kill:1:$tc" MPIRUN_ARGS="$MA" TMPDIR="$tmp/launch" timeout 120 sh "$R" -np 2 \
        --shardcheck "$tmp/remote" -- --family redistribute-data --golden "$G" --max-cases 3 2>&1); rc=$?
  if [ $rc -eq 1 ] && printf '%s\n' "$out" | grep -Eq "^(Crash|Timeout) +.*$tc"; then
    tap_ok "D1 ... a rank killed there: the case is named from the forwarded journal"
  else tap_not_ok "D1 ... a rank killed there" "exit $rc" "$(printf '%s\n' "$out" | tail -n 8)"; fi
else
  tap_skip "D1 rank 0 with a temporary directory of its own" "unshare -m not permitted here"
  tap_skip "D1 ... a rank killed there" "unshare -m not permitted here"
fi

# --- D5: a process dying inside a chunk (a lost node): every case of that chunk is named as
# lost, the chunks before keep their results ---
tc=$("$SHARDCHECK" run --backend ref --family shard-layout --golden "$G" --max-cases 300 --journal - |
     sed -n 's/^#shardcheck-journal# Pass shard-layout //p' | sed -n 260p)
out=$(SHARDCHECK_FAULT="die:1:$tc" MPIRUN_ARGS="$MA" timeout 300 sh "$R" -np 2 --shardcheck "$SHARDCHECK" \
      -- --family shard-layout --golden "$G" --max-cases 300 2>&1); rc=$?
nl=$(printf '%s\n' "$out" | grep -c "^Crash  *shard-layout tc [0-9]*: lost: a process died while its chunk of 44 cases")
if [ $rc -eq 1 ] && [ "$nl" = 44 ] && printf '%s\n' "$out" | grep -q "shard-layout tc $tc: lost" &&
   [ "$(printf '%s\n' "$out" | tail -n 1)" = "256 passed, 44 failed, 0 skipped" ]; then
  tap_ok "D5 a process killed in the second chunk: its 44 cases named lost, the first chunk's 256 kept"
else tap_not_ok "D5 a process killed in a chunk" "exit $rc, $nl lost lines" "$(printf '%s\n' "$out" | tail -n 4)"; fi

# --- D2: srun gets --mpi=pmix (or SHARDCHECK_SRUN_MPI) and is named as srun ---
mkdir -p "$tmp/bin"
cat >"$tmp/bin/srun" <<EOS
#!/bin/sh
echo "\$*" >"$tmp/srun.args"
echo "srun: error: Unable to allocate resources: Invalid node name specified" >&2
exit 1
EOS
chmod +x "$tmp/bin/srun"
out=$(PATH="$tmp/bin:$PATH" sh "$R" -np 3 --srun --shardcheck "$SHARDCHECK" -- --family philox-kat \
      --golden "$G" 2>&1); rc=$?
if grep -q -- "^--mpi=pmix -n 3 " "$tmp/srun.args" 2>/dev/null; then
  tap_ok "D2 --srun: srun --mpi=pmix -n 3"
else tap_not_ok "D2 --srun: srun --mpi=pmix -n 3" "$(cat "$tmp/srun.args" 2>/dev/null)"; fi
out=$(PATH="$tmp/bin:$PATH" SHARDCHECK_SRUN_MPI=pmi2 sh "$R" -np 2 --srun --shardcheck "$SHARDCHECK" \
      -- --family philox-kat --golden "$G" 2>&1); rc=$?
grep -q -- "^--mpi=pmi2 -n 2 " "$tmp/srun.args" 2>/dev/null && tap_ok "D2 SHARDCHECK_SRUN_MPI=pmi2 reaches srun" \
  || tap_not_ok "D2 SHARDCHECK_SRUN_MPI=pmi2" "$(cat "$tmp/srun.args")"
# --- D6: ... and a launcher that cannot start the job is said so: exit 2, no Crash row ---
if [ $rc -eq 2 ] && printf '%s\n' "$out" | grep -q "srun could not start the job (srun exit 1)" &&
   ! printf '%s\n' "$out" | grep -q '^Crash'; then
  tap_ok "D6 a job srun could not start: said so, exit 2, no Crash"
else tap_not_ok "D6 a job srun could not start" "exit $rc" "$out"; fi
cat >"$tmp/mpirun_down" <<'EOS'
#!/bin/sh
echo "ssh: Could not resolve hostname node7: Name or service not known" >&2
echo "ORTE was unable to reliably start one or more daemons." >&2
exit 255
EOS
chmod +x "$tmp/mpirun_down"
expect_exit "D6 mpirun cannot reach a host: exit 2 naming the launch, not a Crash" 2 \
  "mpirun could not start the job \(mpirun exit 255\): no rank began; a host down or unknown" \
  env MPIRUN="$tmp/mpirun_down" sh "$R" -np 2 --shardcheck "$SHARDCHECK" -- --family philox-kat --golden "$G"

# --- D3: SHARDCHECK_* settings are passed on (-x) ---
cat >"$tmp/mpirun_args" <<EOS
#!/bin/sh
echo "\$*" >"$tmp/mpirun.args"; exit 255
EOS
chmod +x "$tmp/mpirun_args"
SHARDCHECK_GOLDEN="$G" SHARDCHECK_HOSTING=1 MPIRUN="$tmp/mpirun_args" sh "$R" -np 2 \
  --shardcheck "$SHARDCHECK" -- --family philox-kat >/dev/null 2>&1
a=$(cat "$tmp/mpirun.args" 2>/dev/null)
if printf '%s\n' "$a" | grep -q -- "-x SHARDCHECK_GOLDEN " && printf '%s\n' "$a" | grep -q -- "-x SHARDCHECK_HOSTING "; then
  tap_ok "D3 every SHARDCHECK_* variable is passed to mpirun with -x"
else tap_not_ok "D3 SHARDCHECK_* passed with -x" "$a"; fi

# --- D3: ranks that disagree on their settings are refused at start, naming rank and host ---
cat >"$tmp/rank1_env" <<EOS
#!/bin/sh
# rank 1 alone has a setting the others lack (what a remote rank without -x sees, inverted)
[ "\$OMPI_COMM_WORLD_RANK" = 1 ] && export SHARDCHECK_HOSTING=1
exec "$SHARDCHECK" "\$@"
EOS
chmod +x "$tmp/rank1_env"
h=$(hostname)
expect_exit "D3 a rank whose SHARDCHECK_* settings differ: exit 2 naming rank, host and the variable" 2 \
  "rank 1 \(host $h\) does not agree with rank 0 \(host $h\) on its settings: here 'environment SHARDCHECK_HOSTING=1', on rank 0 '\(no such setting\)'" \
  env MPIRUN_ARGS="$MA" sh "$R" -np 3 --shardcheck "$tmp/rank1_env" -- --family philox-kat --golden "$G"
mkdir -p "$tmp/r2/golden"; cp -r "$G/philox-kat" "$G/schemas" "$tmp/r2/golden/"
grep -E ' (philox-kat/|schemas/philox-kat|schemas/common\.json)' "$G/MANIFEST" >"$tmp/r2/golden/MANIFEST"
cat >"$tmp/rank2_corpus" <<EOS
#!/bin/sh
# rank 2 reads another corpus under the same --golden (another node's copy, out of date)
[ "\$OMPI_COMM_WORLD_RANK" = 2 ] && cd "$tmp/r2"
exec "$SHARDCHECK" "\$@"
EOS
chmod +x "$tmp/rank2_corpus"
mkdir -p "$tmp/r0"; ln -s "$G" "$tmp/r0/golden"
expect_exit "D3 a rank reading another corpus: exit 2 naming it" 2 \
  "rank 2 \(host $h\) does not agree with rank 0 .* on its settings: here 'corpus MANIFEST sha256=[0-9a-f]{64}', on rank 0 'corpus MANIFEST sha256=[0-9a-f]{64}'" \
  sh -c "cd '$tmp/r0' && MPIRUN_ARGS='$MA' sh '$R' -np 3 --shardcheck '$tmp/rank2_corpus' -- --family philox-kat --golden golden"

# --- D4: a launcher that stays after the report is ended after the grace ---
# Its wait lasts a time of this run's own: the plain and the ASan+UBSan make checks run side by
# side (tools/test_job.sh), and the check below must not find, or end, the other build's.
linger=$((60000 + $$ % 10000))
cat >"$tmp/mpirun_linger" <<'EOS'
#!/bin/sh
# rank 0 alone runs the job and reports; then "mpirun" waits on a lost daemon
while [ "$1" != -np ]; do shift; done; shift 2
"$@"
exec sleep LINGER
EOS
sed -i "s/LINGER/$linger/" "$tmp/mpirun_linger"
chmod +x "$tmp/mpirun_linger"
t0=$(date +%s)
out=$(SHARDCHECK_RUNNER_GRACE=2 MPIRUN="$tmp/mpirun_linger" sh "$R" -np 1 --shardcheck "$SHARDCHECK" \
      -- --family philox-kat --golden "$G" 2>&1); rc=$?
el=$(( $(date +%s) - t0 ))
if [ $rc -eq 0 ] && [ $el -lt 30 ] && printf '%s\n' "$out" | grep -q '^30 passed, 0 failed, 0 skipped$' &&
   printf '%s\n' "$out" | grep -q "mpirun had not ended 2 s after the report"; then
  tap_ok "D4 mpirun lingering after the report is ended after the grace (${el}s), the report stands"
else tap_not_ok "D4 mpirun lingering after the report" "exit $rc after ${el}s" "$out"; fi
pgrep -f "sleep $linger\$" >/dev/null 2>&1 && { pkill -f "sleep $linger\$"; tap_not_ok "D4 ... nothing left behind" "a sleep $linger was left"; } \
  || tap_ok "D4 ... nothing left behind"
expect_exit "SHARDCHECK_RUNNER_GRACE that is not a number: exit 2" 2 "SHARDCHECK_RUNNER_GRACE 'x' is not a number" \
  env SHARDCHECK_RUNNER_GRACE=x sh "$R" -np 1 --shardcheck "$SHARDCHECK" -- --family philox-kat
tap_done
