#!/bin/sh
# run_hosted.sh — issue 24: under `mpirun -np N` every case runs, whatever its mesh's size.
# A case of world W > N runs with each process hosting a contiguous block of mesh ranks
# (lib/exec/comm.c shc_comm_host_block; redistribute-data's hosted ranks exchange over MPI
# through lib/exec/comm_hosted.c).  Checked here:
#   - redistribute-data (regenerated into a scratch directory) at np 1, 2, 3 (a non-divisor),
#     4 and 8: every case passes, none is NotSupported, and every rank's view (its bytes'
#     sha256 and values, `run --views`) is identical to np 1's, where one process hosts all;
#   - samples of the committed families with the largest meshes at np 2 and 3: no case
#     NotSupported for its mesh's size, the same views as np 1;
#   - np larger than every mesh: the idle processes are said once, not per case;
#   - a process killed while it hosts several mesh ranks: a forked worker's death is Crash
#     naming the hosted ranks and the run goes on; the MPI process itself dying (in a
#     collective of hosted ranks) is Crash for that case through mpirun_runner.sh, with a
#     closing summary and no process left behind;
#   - mpirun_runner.sh with a hostfile naming this machine twice and --map-by node;
#   - mpirun_runner.sh refuses -np 0 and a negative -np (exit 2).
# Also run --views' bad output paths.  The MPI checks are skipped with the reason where MPI is
# absent.
. "$(dirname "$0")/testlib.sh"
use_tmpdir
# --- run --views FILE: bad output paths (any backend; these need no MPI) ---
GR="$top_srcdir/golden"
if [ -d "$GR/philox-kat" ]; then
  expect_exit "--views inside the golden directory: exit 2" 2 "--views .*inside .*the golden directory" \
    "$SHARDCHECK" run --family philox-kat --golden "$GR" --views "$GR/views.jsonl"
  expect_exit "--views and --journal the same file: exit 2" 2 "--journal [^ ]+ and --views [^ ]+ name the same file" \
    "$SHARDCHECK" run --family philox-kat --golden "$GR" --views "$tmp/same" --journal "$tmp/same"
  expect_exit "--views in a missing directory: exit 2" 2 "--views $tmp/none/v.jsonl: cannot write" \
    "$SHARDCHECK" run --family philox-kat --golden "$GR" --views "$tmp/none/v.jsonl"
  if [ -w /dev/full ]; then
    expect_exit "--views on a full disk: exit 2" 2 "--views /dev/full: write failed" \
      "$SHARDCHECK" run --family philox-kat --golden "$GR" --views /dev/full
  else tap_skip "--views on a full disk" "no /dev/full"; fi
else for i in 1 2 3 4; do tap_skip "--views bad paths" "no golden/philox-kat"; done; fi
if ! have_mpi || ! have_mpi_build; then
  for i in $(seq 1 19); do tap_skip "hosted ranks under mpirun" "no mpirun or shardcheck built without MPI"; done
  tap_done; exit $?
fi
export OMPI_MCA_mpi_warn_on_fork=0
# OpenMPI's own allocations look like leaks under ASan (see run_mpi.sh)
[ "${SHARDCHECK_SANITIZED:-0}" = 1 ] && export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
MPI="$MPIRUN --oversubscribe --allow-run-as-root"
G="$tmp/golden"; F=redistribute-data
"$SHARDCHECK" gen --family $F --out "$G" >"$tmp/gen.out" 2>&1 \
  && tap_ok "gen --family $F" || tap_not_ok "gen --family $F" "$(head -c 400 "$tmp/gen.out")"
n=$(grep -o '"numberOfTests":[0-9]*' "$G"/$F/*.json | awk -F: '{ s += $NF } END { print s }')

# counts FILE: "passed failed skipped" of a run --json report (NotSupported is skipped)
counts() {
  "$PY" -c 'import json,sys
j = json.load(open(sys.argv[1]))
print(j["passed"], j["failed"] + j["crash"] + j["timeout"] + j["internal_error"], j["skipped"])' \
    "$1" 2>/dev/null
}
# worlds FILE MIN: how many cases of a --views file have at least MIN ranks
worlds() {
  "$PY" -c 'import json,sys
print(sum(len(json.loads(l)["views"]) >= int(sys.argv[2]) for l in open(sys.argv[1])))' "$1" "$2"
}

# --- redistribute-data at every rank count, per-rank bytes compared with np 1 ---
# Under ASan+UBSan (SHARDCHECK_SANITIZED=1, the test command's second build) the rank counts that
# reach both paths, hosted (np 3: blocks of 1-22 ranks) and one rank per process (np 8), keep
# the stage within CI's time; the plain build runs them all.
NPS="1 2 3 4 8"; sampled && NPS="1 3 8"
for np in $NPS; do
  $MPI -np $np "$SHARDCHECK" run --backend mpi --family $F --golden "$G" --timeout 120 --json \
    --views "$tmp/v$np.jsonl" >"$tmp/r$np.json" 2>"$tmp/e$np"; rc=$?
  c=$(counts "$tmp/r$np.json")
  if [ $rc -eq 0 ] && [ "$c" = "$n 0 0" ]; then tap_ok "np $np: all $n cases of $F pass, none NotSupported"
  else tap_not_ok "np $np: every case of $F passes" "exit $rc, passed/failed/skipped: $c (want $n 0 0)" \
    "$(head -c 400 "$tmp/e$np")"; fi
  if [ "$np" = 1 ]; then
    lines=$(wc -l <"$tmp/v1.jsonl")
    [ "$lines" -eq "$n" ] && tap_ok "np 1: --views holds $n cases" \
      || tap_not_ok "np 1: --views holds every case" "$lines lines, want $n"
  elif cmp -s "$tmp/v1.jsonl" "$tmp/v$np.jsonl"; then
    tap_ok "np $np: every rank's view (bytes' sha256 and values) identical to np 1's"
  else
    tap_not_ok "np $np: every rank's view identical to np 1's" \
      "$(diff "$tmp/v1.jsonl" "$tmp/v$np.jsonl" | head -c 600)"
  fi
done
# Each check above could fail: a view that went through another path differs from np 1's.
printf '%s\n' "$(head -n 1 "$tmp/v1.jsonl" | sed 's/"sha256":"[0-9a-f]/"sha256":"x/')" >"$tmp/tampered"
cmp -s "$tmp/v1.jsonl" "$tmp/tampered" && tap_not_ok "a changed view is told apart" \
  || tap_ok "a changed view is told apart (the comparison can fail)"

# --- the committed families with the largest meshes, sampled ---
SNPS="2 3"; sampled && SNPS=3
for fam in shard-layout group-ranks rng-offsets; do
  if [ ! -d "$GR/$fam" ]; then tap_skip "$fam at np $SNPS" "no golden/$fam"; continue; fi
  for np in 1 $SNPS; do
    $MPI -np $np "$SHARDCHECK" run --backend mpi --family $fam --golden "$GR" --max-cases 150 \
      --tap --views "$tmp/$fam-$np.jsonl" >"$tmp/$fam-$np.tap" 2>&1
  done
  big=$(worlds "$tmp/$fam-1.jsonl" 4) bad=
  for np in $SNPS; do
    if grep -q "NotSupported: needs" "$tmp/$fam-$np.tap" || ! grep -q '^1\.\.150$' "$tmp/$fam-$np.tap" ||
       grep -q '^not ok' "$tmp/$fam-$np.tap" || ! cmp -s "$tmp/$fam-1.jsonl" "$tmp/$fam-$np.jsonl"; then
      bad="np $np: $(grep -m 3 -E 'NotSupported: needs|^not ok' "$tmp/$fam-$np.tap") $(diff "$tmp/$fam-1.jsonl" "$tmp/$fam-$np.jsonl" | head -c 300)"
    fi
  done
  if [ -z "$bad" ]; then tap_ok "$fam (150 cases, $big on meshes of 4+ ranks) at np $SNPS: all run, views as at np 1"
  else tap_not_ok "$fam at np $SNPS" "$bad"; fi
done

# --- more processes than any mesh has ranks: said once ---
if [ -d "$GR/philox-kat" ]; then
  $MPI -np 3 "$SHARDCHECK" run --backend mpi --family philox-kat --golden "$GR" >"$tmp/idle.out" 2>&1; rc=$?
  k=$(grep -c "stayed idle" "$tmp/idle.out")
  if [ $rc -eq 0 ] && [ "$k" -eq 1 ] &&
     grep -q "the largest mesh run has 1 ranks: processes 1..2 of the 3-process job hosted no rank" "$tmp/idle.out"; then
    tap_ok "np 3 over 1-rank meshes: the idle processes said once"
  else tap_not_ok "idle processes said once" "exit $rc, $k notes" "$(tail -c 400 "$tmp/idle.out")"; fi
else tap_skip "idle processes said once" "no golden/philox-kat"; fi

# --- a process killed while it hosts several mesh ranks ---
# An 8-rank all-gather case: at np 2, process 1 hosts mesh ranks 4..7.
TC=$(grep -o '"tcId":[0-9]*,"comment":"mesh 2x2x2, [^"]*' "$G/$F/three-dim.json" | head -n 1 | grep -o '^"tcId":[0-9]*' | grep -o '[0-9]*')
[ -n "$TC" ] || TC=1
# A shard-layout case of the sample above with W >= 4 ranks: at np 2, process 1 hosts
# W/2..W-1 in one forked worker; killing mesh rank W-1 there kills that worker.
if [ -s "$tmp/shard-layout-1.jsonl" ]; then
  set -- $("$PY" -c 'import json,sys
for l in open(sys.argv[1]):
    j = json.loads(l); w = len(j["views"])
    if w >= 4: print(j["tcId"], w // 2, w - 1); break' "$tmp/shard-layout-1.jsonl")
  SL=$1; lo=$2; hi=$3
  out=$(SHARDCHECK_FAULT=kill:$hi:$SL $MPI -np 2 "$SHARDCHECK" run --backend mpi --family shard-layout \
        --golden "$GR" --max-cases 150 2>&1 | grep -E "^Crash|passed, [0-9]+ failed")
  if printf '%s\n' "$out" | grep -q "^Crash .*shard-layout tc $SL .*ranks $lo\.\.$hi: worker died with signal 9" &&
     printf '%s\n' "$out" | tail -n 1 | grep -Eq '^149 passed, 1 failed'; then
    tap_ok "the worker hosting ranks $lo..$hi of tc $SL killed: Crash naming them, the other 149 cases pass"
  else tap_not_ok "killed worker hosting several ranks (tc $SL, ranks $lo..$hi)" "$(printf '%s\n' "$out" | tail -c 400)"; fi
else tap_skip "killed worker hosting several ranks" "no shard-layout sample ran"; fi
out=$(SHARDCHECK_FAULT=kill:5:$TC MPIRUN_ARGS="--oversubscribe --allow-run-as-root" MPIRUN="$MPIRUN" \
      timeout 180 "$top_srcdir/tools/run/mpirun_runner.sh" -np 2 --shardcheck "$SHARDCHECK" -- \
      --family $F --golden "$G" --timeout 20 2>"$tmp/kerr"); rc=$?
sleep 0.3
left=$(ps -eo stat=,args= | grep -v '^Z' | grep -F -- "--family $F --golden $G --timeout 20" | grep -v grep)
if [ $rc -eq 1 ] && printf '%s\n' "$out" | grep -q "^Crash .*$F tc $TC: a rank died" &&
   printf '%s\n' "$out" | tail -n 1 | grep -Eq '^[0-9]+ passed, [1-9][0-9]* failed' && [ -z "$left" ]; then
  tap_ok "the MPI process hosting ranks 4..7 killed in tc $TC: Crash, a closing summary, no process left"
else tap_not_ok "MPI process hosting several ranks killed" "exit $rc" "$(printf '%s\n' "$out" | tail -n 3)" \
  "left: $left" "$(head -c 300 "$tmp/kerr")"; fi

# --- a hostfile naming this machine twice (two slots), processes mapped by node ---
# (what a two-node job does, both nodes being this one; srun is not installed here)
printf 'localhost\nlocalhost\n' >"$tmp/hostfile"
out=$(MPIRUN_ARGS="--allow-run-as-root --map-by node" MPIRUN="$MPIRUN" timeout 180 \
      "$top_srcdir/tools/run/mpirun_runner.sh" -np 2 --hostfile "$tmp/hostfile" --shardcheck "$SHARDCHECK" \
      -- --family $F --golden "$G" --json 2>"$tmp/hf.err")
printf '%s\n' "$out" >"$tmp/hf.json"
c=$(counts "$tmp/hf.json")
[ "$c" = "$n 0 0" ] && tap_ok "mpirun_runner.sh --hostfile (this machine twice) with --map-by node: all $n cases pass" \
  || tap_not_ok "mpirun_runner.sh --hostfile with --map-by node" "passed/failed/skipped: $c" "$(tail -c 400 "$tmp/hf.err")"

# --- --srun: Slurm is not installed here, so a stand-in srun on PATH launches the same
# processes with mpirun (what srun -n N does under Slurm with OpenMPI's PMI support); it
# checks that the runner hands srun the job whole: rank count, run options and journal.
mkdir -p "$tmp/bin"
cat >"$tmp/bin/srun" <<EOS
#!/bin/sh
[ "\$1" = --mpi=pmix ] || { echo "srun stand-in: expected --mpi=pmix first, got \$*" >&2; exit 2; }
shift
[ "\$1" = -n ] || { echo "srun stand-in: expected -n N, got \$*" >&2; exit 2; }
n=\$2; shift 2
echo "srun --mpi=pmix -n \$n" >"$tmp/srun.called"
exec "$MPIRUN" --oversubscribe --allow-run-as-root -np "\$n" "\$@"
EOS
chmod +x "$tmp/bin/srun"
out=$(PATH="$tmp/bin:$PATH" timeout 180 "$top_srcdir/tools/run/mpirun_runner.sh" -np 3 --srun \
      --shardcheck "$SHARDCHECK" -- --family $F --golden "$G" --json 2>"$tmp/srun.err")
printf '%s\n' "$out" >"$tmp/srun.json"
c=$(counts "$tmp/srun.json")
if [ "$c" = "$n 0 0" ] && grep -q "srun --mpi=pmix -n 3" "$tmp/srun.called" 2>/dev/null; then
  tap_ok "mpirun_runner.sh --srun -np 3: srun --mpi=pmix -n 3 ran the job, all $n cases pass"
else tap_not_ok "mpirun_runner.sh --srun" "passed/failed/skipped: $c" "$(tail -c 400 "$tmp/srun.err")"; fi

# --- bad rank counts ---
for bad in 0 -1; do
  expect_exit "mpirun_runner.sh -np $bad: exit 2" 2 "-np '$bad' is not a positive number" \
    "$top_srcdir/tools/run/mpirun_runner.sh" -np "$bad" --shardcheck "$SHARDCHECK" -- --family $F --golden "$G"
done
tap_done
