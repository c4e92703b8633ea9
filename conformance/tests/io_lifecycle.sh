#!/bin/sh
# io_lifecycle.sh — issue 27's file defects and issue 25 item 3, each with its exit code and
# message asserted:
#   N4  every MANIFEST reader (verify --manifest, verify --family, run, report) refuses a '..'
#       or absolute path, a '.' spelling and a path listed twice, naming the line;
#   N18 a listed golden file that cannot be read is "unreadable" with the reason, not
#       "missing"; a CRLF MANIFEST is read as sha256sum -c reads it;
#   N9  run (ref, local, cuda, mpi under mpirun; run_torch.sh has the torch backend) checks
#       its golden files against MANIFEST before the first case: the issue's reproducer (one
#       group's "flattened" changed to [[40]]) is exit 2 naming the file instead of 90 Fail;
#       no MANIFEST, no golden directory: exit 2; --no-manifest-check runs and warns, every
#       time; report checks the corpus whose MANIFEST hash it prints, the same way;
#   N6  an output option naming an input (by name, another spelling, a symbolic or a hard
#       link, a golden file, a new file in the golden directory) is refused, the input intact;
#   N19 a write that fails part-way (RLIMIT_FSIZE, /dev/full) leaves no file and no temporary
#       (gen, verify --junit, report --out, explain --svg);
#   issue 38 M6, M11: run's --views, --journal and --junit against the --waivers file and
#       each other (also names that do not exist yet, X and ./X); concurrent runs sharing
#       --views leave one run's whole file; a full disk leaves no views or journal file;
#   N12 tools/run/mpirun_runner.sh: its time limit ends a job that never finishes (Timeout, exit
#       1), and SIGTERM or SIGINT end mpirun and every process under it (a stopped one too),
#       remove the journal and kill the script by that signal (a stand-in mpirun here;
#       run_faults.sh does it with OpenMPI).
. "$(dirname "$0")/testlib.sh"
use_tmpdir
need_golden threefry philox-kat redistribute-plan
need_python "to build candidates and tamper with copies"

# A scratch corpus of three families, MANIFEST as gen writes it; fresh copies to tamper with.
C="$tmp/c"
mkdir -p "$C/schemas"
for f in threefry philox-kat redistribute-plan; do
  cp -r "$G/$f" "$C/" && cp "$G/schemas/${f}_v1.json" "$C/schemas/"
done
cp "$G/schemas/common.json" "$C/schemas/"
chmod -R u+w "$C"
write_manifest "$C"
fresh() { rm -rf "$tmp/m"; cp -r "$C" "$tmp/m"; M="$tmp/m"; }
n=$(( $(wc -l <"$C/MANIFEST") + 1 ))  # the line a test appends
CAND="$C/threefry/threefry.json"      # a golden-shaped candidate: every answer right
"$SHARDCHECK" run --backend ref --golden "$C" --family threefry --json >"$tmp/run.json" 2>/dev/null
cp "$tmp/run.json" "$tmp/run19.json"  # N19's own: N6 aims an output at run.json

# ---- N4: one parser for every MANIFEST reader ----
fresh; printf '%s  ../../../etc/passwd\n' "$(sha256sum /etc/passwd | cut -d' ' -f1)" >>"$M/MANIFEST"
for cmd in "verify --manifest" "verify --family threefry --candidate $CAND" \
           "run --backend ref --family threefry" "report --out $tmp/r.html $tmp/run.json"; do
  expect_exit "N4 $cmd: a '..' path in MANIFEST is refused naming the line" 2 \
    "MANIFEST line $n: \"../../../etc/passwd\": a '..' component \\(outside the MANIFEST's directory\\)" \
    $S $cmd --golden "$M"
done
fresh; printf '%s  /etc/passwd\n' "$(sha256sum /etc/passwd | cut -d' ' -f1)" >>"$M/MANIFEST"
expect_exit "N4 verify --manifest: an absolute path is refused" 2 \
  "MANIFEST line $n: \"/etc/passwd\": an absolute path" $S verify --manifest --golden "$M"
fresh; grep ' threefry/' "$C/MANIFEST" >>"$M/MANIFEST"
expect_exit "N4 verify --manifest: a line given twice is refused with both lines" 2 \
  "MANIFEST line $n: threefry/threefry.json is listed twice \\(also on line [0-9]+\\)" \
  $S verify --manifest --golden "$M"
expect_exit "N4 run: the same" 2 "line $n: threefry/threefry.json is listed twice" \
  $S run --backend ref --family philox-kat --golden "$M"
fresh; sed 's|  threefry/|  ./threefry/|' "$C/MANIFEST" >"$M/MANIFEST"
expect_exit "N4 verify: another spelling of a listed path (./) is refused" 2 \
  "\"./threefry/threefry.json\": an empty or '.' component" \
  $S verify --family threefry --candidate "$CAND" --golden "$M"

# ---- N18: unreadable is not missing; CRLF is read as sha256sum -c reads it ----
fresh; rm "$M/threefry/threefry.json"; ln -s threefry.json "$M/threefry/threefry.json"
expect_exit "N18 a listed file that cannot be read (a symlink loop) is unreadable, with the reason" 2 \
  "threefry/threefry.json is listed but unreadable: cannot read .*: Too many levels of symbolic links" \
  $S verify --family threefry --candidate "$CAND" --golden "$M"
fresh; rm "$M/threefry/threefry.json"; mkdir "$M/threefry/threefry.json"
expect_exit "N18 ... a directory in its place: unreadable, a directory" 2 \
  "threefry/threefry.json is listed but unreadable: cannot read .*: a directory" \
  $S run --backend ref --family threefry --golden "$M"
fresh; rm "$M/threefry/threefry.json"
expect_exit "N18 a listed file that is gone is still \"missing\"" 2 \
  "threefry/threefry.json is listed but missing" $S verify --family threefry --candidate "$CAND" --golden "$M"
fresh; sed 's/$/\r/' "$C/MANIFEST" >"$M/MANIFEST"
if (cd "$M" && sha256sum -c --quiet MANIFEST) >/dev/null 2>&1; then
  expect_exit "N18 a CRLF MANIFEST (which sha256sum -c accepts) is read: verify passes" 0 \
    "40 passed, 0 failed" $S verify --family threefry --candidate "$CAND" --golden "$M"
else tap_skip "N18 a CRLF MANIFEST" "this sha256sum refuses CRLF"; fi

# ---- N9 and issue 25 item 3: run and report check the corpus before the first case ----
fresh
f9=$(grep -l '"flattened":\[\[0,1\]\]' "$M"/redistribute-plan/*.json | head -n 1)
"$PY" - "$f9" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
g = next(g for g in d["testGroups"] if g.get("flattened"))
g["flattened"] = [[40]]                           # the issue's reproducer: every test kept
json.dump(d, open(sys.argv[1], "w"), separators=(",", ":"))
PYEOF
rel=redistribute-plan/$(basename "$f9")
cp "$f9" "$tmp/tampered.json"
for b in ref local cuda; do
  expect_exit "N9 run --backend $b: a golden file that differs from MANIFEST is exit 2 naming it" 2 \
    "^shardcheck run: corpus check: $M/MANIFEST line [0-9]+: $rel has sha256 [0-9a-f]+\\.\\.\\., MANIFEST says" \
    $S run --backend $b --family redistribute-plan --golden "$M"
done
expect_exit "N9 run over every family checks every file" 2 "$rel has sha256" $S run --golden "$M"
expect_exit "N9 run --family threefry checks only what it reads (its files and schema)" 0 \
  "40 passed, 0 failed" $S run --family threefry --golden "$M"
fresh; "$PY" - "$M/threefry/threefry.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
t = d["testGroups"][0]["tests"][0]
k = sorted(t["expected"])[0]
t["expected"][k] = "tampered"
json.dump(d, open(sys.argv[1], "w"))
PYEOF
expect_exit "N9 --no-manifest-check runs the tampered corpus, and says so" 1 \
  "warning: --no-manifest-check: the golden files in $M were not checked" \
  $S run --family threefry --golden "$M" --no-manifest-check
out=$($S run --family threefry --golden "$M" --no-manifest-check 2>&1)
if printf '%s\n' "$out" | grep -q "^39 passed, 1 failed"; then tap_ok "N9 ... where the tampered case fails"
else tap_not_ok "N9 ... where the tampered case fails" "$(printf '%s' "$out" | tail -n 3)"; fi
fresh; rm "$M/MANIFEST"
expect_exit "N9 run with no MANIFEST: exit 2 (was: exit 0)" 2 \
  "corpus check: cannot read $M/MANIFEST: No such file or directory" $S run --family threefry --golden "$M"
expect_exit "N9 SHARDCHECK_GOLDEN=/nonexistent: exit 2 naming it (was: 77, 1 not supported)" 2 \
  "golden directory $tmp/none .*: No such file or directory" env SHARDCHECK_GOLDEN="$tmp/none" $S run
fresh; echo '{}' >"$M/threefry/threefry.json"
expect_exit "N9 report: a tampered corpus is refused before its MANIFEST hash is printed" 2 \
  "^shardcheck report: corpus check: .*threefry/threefry.json has sha256" \
  $S report --golden "$M" --out "$tmp/r.html" "$tmp/run.json"
[ -e "$tmp/r.html" ] && tap_not_ok "N9 report: no page written" || tap_ok "N9 report: no page written"
expect_exit "N9 report --no-manifest-check writes the page and warns" 0 \
  "warning: --no-manifest-check: .*vouches for nothing" \
  $S report --golden "$M" --out "$tmp/r.html" --no-manifest-check "$tmp/run.json"
expect_exit "N9 report --golden /nonexistent is refused (was: ignored)" 2 "--golden $tmp/none: No such file" \
  $S report --golden "$tmp/none" --out "$tmp/r2.html" "$tmp/run.json"
if have_mpi_build; then
  [ "${SHARDCHECK_SANITIZED:-0}" = 1 ] && export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
  fresh; cp "$tmp/tampered.json" "$M/$rel"
  out=$(OMPI_MCA_mpi_warn_on_fork=0 timeout 120 "$MPIRUN" --oversubscribe --allow-run-as-root -np 2 \
        $S run --backend mpi --family redistribute-plan --golden "$M" 2>&1); rc=$?
  k=$(printf '%s\n' "$out" | grep -c "corpus check: .*$rel has sha256")
  if [ $rc -eq 2 ] && [ "$k" -eq 1 ]; then tap_ok "N9 mpi under mpirun -np 2: every rank checks, one says why, exit 2"
  else tap_not_ok "N9 mpi under mpirun -np 2" "exit $rc, message $k times" "$(printf '%s' "$out" | head -c 500)"; fi
else tap_skip "N9 mpi under mpirun" "no MPI"; fi

# ---- N6: an output never overwrites an input ----
fresh
"$PY" "$tests_dir/golden_results.py" "$M" threefry "$tmp/cand.json"
cp "$tmp/cand.json" "$tmp/cand.orig"
ln "$tmp/cand.json" "$tmp/hard.xml"; ln -s cand.json "$tmp/soft.xml"
V() { $S verify --family threefry --golden "$M" --candidate "$tmp/cand.json" "$@"; }
for j in "$tmp/cand.json" "$tmp/./cand.json" "$tmp/hard.xml" "$tmp/soft.xml"; do
  expect_exit "N6 verify --junit $(basename "$j"): the candidate itself, refused" 2 \
    "^shardcheck verify: --junit $j: that is $tmp/cand.json, given as --candidate, an input of this command" \
    V --junit "$j"
done
if cmp -s "$tmp/cand.json" "$tmp/cand.orig"; then tap_ok "N6 ... and the candidate is intact"
else tap_not_ok "N6 ... and the candidate is intact"; fi
expect_exit "N6 verify --junit at a golden file: refused" 2 \
  "--junit $M/threefry/threefry.json: that is $M/threefry/threefry.json, in the golden directory $M" \
  V --junit "$M/threefry/threefry.json"
expect_exit "N6 verify --junit: a new file in the golden directory is refused" 2 \
  "--junit $M/threefry/report.xml: that is inside $M/threefry, in the golden directory $M" \
  V --junit "$M/threefry/report.xml"
expect_exit "N6 run --junit at a golden file: refused" 2 \
  "^shardcheck run: --junit $M/MANIFEST: that is $M/MANIFEST, in the golden directory" \
  $S run --family threefry --golden "$M" --junit "$M/MANIFEST"
expect_exit "N6 run --journal at a golden file: refused" 2 \
  "^shardcheck run: --journal $M/schemas/threefry_v1.json: that is $M/schemas/threefry_v1.json" \
  $S run --family threefry --golden "$M" --journal "$M/schemas/threefry_v1.json"
expect_exit "N6 run --junit and --journal at one file: refused" 2 \
  "--junit [^ ]+ and --journal [^ ]+ name the same file" \
  $S run --family threefry --golden "$M" --junit "$tmp/o.xml" --journal "$tmp/o.xml"
expect_exit "N6 report --out at one of its inputs: refused" 2 \
  "^shardcheck report: --out $tmp/run.json: that is $tmp/run.json, given as an INPUT" \
  $S report --golden "$M" --out "$tmp/run.json" "$tmp/run.json"
expect_exit "N6 certify --out inside the golden directory: refused" 2 \
  "^shardcheck certify: --out $M/pkg: that is inside $M, the golden directory" \
  $S certify --golden "$M" --out "$M/pkg" --families threefry
if (cd "$M" && sha256sum -c --quiet MANIFEST) >/dev/null 2>&1 && [ ! -e "$M/pkg" ] &&
   [ ! -e "$M/threefry/report.xml" ]; then tap_ok "N6 ... and the golden copy is intact, nothing added"
else tap_not_ok "N6 ... and the golden copy is intact, nothing added" "$(ls -R "$M" | head -20)"; fi

# ---- N19: whole or nothing ----
# RLIMIT_FSIZE makes a write fail part-way with EFBIG, as a full disk fails with ENOSPC
# (SIGXFSZ ignored, so the write returns the error); 1 block is 512 bytes in dash, 1 KiB in bash.
small() { (trap '' XFSZ; ulimit -f 1 && "$@"); }
left() { find "$tmp/w" -name "$1" | head -n 3; }
mkdir "$tmp/w"
expect_exit "N19 gen: a write that fails part-way is exit 2 naming the file" 2 \
  "^shardcheck gen: cannot write $tmp/w/gen/threefry/threefry.json: File too large" \
  small $S gen --family threefry --out "$tmp/w/gen"
[ -z "$(left '*.tmp*')" ] && tap_ok "N19 gen: no .json.tmp left" || tap_not_ok "N19 gen: no .json.tmp left" "$(left '*.tmp*')"
expect_exit "N19 verify --junit: exit 2, the report incomplete" 2 \
  "--junit $tmp/w/j.xml: write failed \\(File too large\\)" \
  small $S verify --family threefry --golden "$C" --candidate "$CAND" --junit "$tmp/w/j.xml"
expect_exit "N19 report --out: exit 2" 2 "--out $tmp/w/r.html: cannot write: File too large" \
  small $S report --golden "$C" --out "$tmp/w/r.html" "$tmp/run19.json"
expect_exit "N19 explain --svg: exit 2" 2 "--svg $tmp/w/x.svg: cannot write: File too large" \
  small $S explain --mesh 4x2 --placements 'S(0),S(1)' --shape 16,16 --svg "$tmp/w/x.svg"
for f in j.xml r.html x.svg; do
  if [ -z "$(left "$f*")" ]; then tap_ok "N19 no $f and no temporary left"
  else tap_not_ok "N19 no $f and no temporary left" "$(left "$f*")"; fi
done
echo old >"$tmp/w/keep.xml"
small $S verify --family threefry --golden "$C" --candidate "$CAND" --junit "$tmp/w/keep.xml" >/dev/null 2>&1
if [ "$(cat "$tmp/w/keep.xml")" = old ]; then tap_ok "N19 a failed write leaves the old file as it was"
else tap_not_ok "N19 a failed write leaves the old file as it was" "$(head -c 200 "$tmp/w/keep.xml")"; fi
if [ -w /dev/full ]; then
  expect_exit "N19 verify --junit /dev/full: exit 2, no space" 2 \
    "--junit /dev/full: write failed \\(No space left on device\\)" \
    $S verify --family threefry --golden "$C" --candidate "$CAND" --junit /dev/full
else tap_skip "N19 verify --junit /dev/full" "no writable /dev/full"; fi
expect_exit "N19 a whole write still works (the temporary renamed into place)" 0 "40 passed" \
  $S verify --family threefry --golden "$C" --candidate "$CAND" --junit "$tmp/w/ok.xml"
expect_file "N19 ... the JUnit file is complete" "$tmp/w/ok.xml" "</testsuites>"

# ---- issue 38 M6, M11: outputs against every input and each other; journal and views whole ----
mkdir "$tmp/o"
printf '{"waivers": []}\n' >"$tmp/o/w.json"; cp "$tmp/o/w.json" "$tmp/o/w.orig"
RW() { $S run --backend ref --family threefry --golden "$C" --waivers "$tmp/o/w.json" "$@"; }
for opt in views journal junit; do
  expect_exit "M6 run --$opt naming the --waivers file: refused naming both" 2 \
    "^shardcheck run: --$opt $tmp/o/./w.json: that is $tmp/o/w.json, given as --waivers, an input" \
    RW --$opt "$tmp/o/./w.json"
done
if cmp -s "$tmp/o/w.json" "$tmp/o/w.orig"; then tap_ok "M6 ... and the waivers file is intact"
else tap_not_ok "M6 ... and the waivers file is intact" "$(head -c 200 "$tmp/o/w.json")"; fi
R1() { $S run --backend ref --family threefry --golden "$C" "$@"; }
expect_exit "M11 --views X --journal ./X, X not existing yet: refused naming both" 2 \
  "^shardcheck run: --journal $tmp/o/./X and --views $tmp/o/X name the same file" \
  R1 --views "$tmp/o/X" --journal "$tmp/o/./X"
mkdir "$tmp/o/d"
expect_exit "M11 --junit d/../Y --journal Y (not existing): refused" 2 \
  "^shardcheck run: --junit $tmp/o/d/../Y and --journal $tmp/o/Y name the same file" \
  R1 --junit "$tmp/o/d/../Y" --journal "$tmp/o/Y"
[ ! -e "$tmp/o/X" ] && [ ! -e "$tmp/o/Y" ] && tap_ok "M11 ... and neither file was made" ||
  tap_not_ok "M11 ... and neither file was made" "$(ls "$tmp/o")"
R1 --views "$tmp/o/v.ref" >/dev/null 2>&1
$S run --backend ref --family philox-kat --golden "$C" --views "$tmp/o/p.ref" >/dev/null 2>&1
bad=
for k in 1 2 3; do # two different runs into one --views at once: one whole file, never a mix
  R1 --views "$tmp/o/v.both" >/dev/null 2>&1 & p1=$!
  $S run --backend ref --family philox-kat --golden "$C" --views "$tmp/o/v.both" >/dev/null 2>&1 &
  p2=$!
  wait $p1; r1=$?; wait $p2; r2=$?
  { [ $r1 -eq 0 ] && [ $r2 -eq 0 ]; } || bad="$bad exit $r1 $r2;"
  cmp -s "$tmp/o/v.both" "$tmp/o/v.ref" || cmp -s "$tmp/o/v.both" "$tmp/o/p.ref" ||
    bad="$bad try $k: $(wc -c <"$tmp/o/v.both") bytes, neither run's views;"
done
[ -z "$bad$(ls "$tmp/o" | grep tmp)" ] && tap_ok "M11 concurrent runs sharing --views: the file is one run's, whole" ||
  tap_not_ok "M11 concurrent runs sharing --views: the file is one run's, whole" "$bad" "$(ls "$tmp/o")"
echo old >"$tmp/o/v.keep"
expect_exit "M11 --views on a full disk (RLIMIT_FSIZE): exit 2, no file written" 2 \
  "^shardcheck run: --views $tmp/o/v.keep: write failed \\(File too large\\): no file written" \
  small $S run --backend ref --family threefry --golden "$C" --views "$tmp/o/v.keep"
[ "$(cat "$tmp/o/v.keep")" = old ] && [ -z "$(ls "$tmp/o" | grep 'v.keep.tmp')" ] &&
  tap_ok "M11 ... the old views file as it was, no temporary left" ||
  tap_not_ok "M11 ... the old views file as it was, no temporary left" "$(ls "$tmp/o")"
expect_exit "M11 --journal on a full disk: exit 2, the journal removed, not left partial" 2 \
  "^shardcheck run: --journal $tmp/o/j.full: write failed \\([^)]+\\): removed" \
  small $S run --backend ref --family threefry --golden "$C" --journal "$tmp/o/j.full"
[ -z "$(ls "$tmp/o" | grep 'j.full')" ] && tap_ok "M11 ... no journal and no temporary left" ||
  tap_not_ok "M11 ... no journal and no temporary left" "$(ls "$tmp/o")"
R1 --journal "$tmp/o/j.ok" >/dev/null 2>&1
[ "$(tail -n 1 "$tmp/o/j.ok")" = "done 0" ] && [ "$(grep -c '^Pass threefry' "$tmp/o/j.ok")" = 40 ] &&
  tap_ok "M11 a whole journal: 40 Pass lines and done 0" ||
  tap_not_ok "M11 a whole journal: 40 Pass lines and done 0" "$(head -c 300 "$tmp/o/j.ok")"

# ---- N12: the mpirun runner ends what it started ----
R="$top_srcdir/tools/run/mpirun_runner.sh"
# A stand-in mpirun whose "ranks" never end, one of them stopped (kill -STOP ignores SIGTERM).
# Their sleeps last a time of this run's own: the plain and the ASan+UBSan make checks run side by
# side (tools/test_job.sh), and the other build's run of this test must not be taken for ours.
s1=$((30000 + $$ % 10000 * 2)); s2=$((s1 + 1))
cat >"$tmp/w/fake_mpirun" <<SEOF
#!/bin/sh
sleep $s1 & sleep $s2 & kill -STOP \$!
wait
SEOF
chmod +x "$tmp/w/fake_mpirun"
mkdir "$tmp/jr"
ours() { ps -eo pid=,stat=,args= | grep -v '^ *[0-9]* Z' | grep -E "$tmp/w/fake_mpirun|sleep ($s1|$s2)\$" | grep -v grep; }
# gone PID SECS: PID ended (or is a zombie to reap) within SECS; a runner that ignores the
# signal must fail this test, not hang it: what is left is killed by its PID afterwards
gone() {
  i=0
  while [ $i -lt $(($2 * 10)) ]; do
    st=$(ps -o stat= -p "$1" 2>/dev/null) || return 0
    case $st in Z*|'') return 0 ;; esac
    sleep 0.1; i=$((i + 1))
  done
  return 1
}
reap() { for p in $1 $(ours | awk '{print $1}'); do kill -KILL "$p" 2>/dev/null; done; wait "$1" 2>/dev/null; }
start=$(date +%s)
out=$(TMPDIR="$tmp/jr" MPIRUN="$tmp/w/fake_mpirun" sh "$R" -np 2 --shardcheck "$S" --time-limit 2 -- \
      --family threefry 2>&1); rc=$?
el=$(( $(date +%s) - start ))
if [ $rc -eq 1 ] && printf '%s\n' "$out" | grep -q "^Timeout .*the mpi job ran past the runner's time limit of 2 s" &&
   [ "$(printf '%s\n' "$out" | tail -n 1)" = "0 passed, 1 failed, 0 skipped" ]; then
  tap_ok "N12 runner: a job past --time-limit is ended: Timeout, a closing line, exit 1"
else tap_not_ok "N12 runner: a job past --time-limit" "exit $rc" "$(printf '%s' "$out" | tail -n 3)"; fi
if [ $el -lt 30 ] && [ -z "$(ours)" ] && [ -z "$(ls "$tmp/jr")" ]; then
  tap_ok "N12 ... in ${el}s, no process left, no journal"
else tap_not_ok "N12 ... in ${el}s, no process left, no journal" "$(ours)" "$(ls "$tmp/jr")"; fi
reap ""; rm -f "$tmp/jr"/*
expect_exit "N12 runner: --time-limit must be a positive number" 2 "--time-limit 'x' is not a positive number" \
  sh "$R" -np 2 --shardcheck "$S" --time-limit x
# INT is ignored by a job a non-interactive shell starts in the background; env resets it.
for sig in TERM INT; do
  if [ $sig = INT ] && ! env --default-signal=INT true 2>/dev/null; then
    tap_skip "N12 runner: SIGINT" "env has no --default-signal"; continue
  fi
  if [ $sig = INT ]; then set -- env --default-signal=INT; else set -- env; fi
  TMPDIR="$tmp/jr" MPIRUN="$tmp/w/fake_mpirun" "$@" sh "$R" -np 2 --shardcheck "$S" -- --family threefry \
    >/dev/null 2>&1 &
  rp=$!
  i=0; while [ $i -lt 50 ] && [ -z "$(ours)" ]; do sleep 0.1; i=$((i + 1)); done
  kill -$sig $rp
  if gone $rp 20; then wait $rp; rc=$?; else rc=hung; fi
  want=$([ $sig = TERM ] && echo 143 || echo 130)
  sleep 0.3
  if [ "$rc" = "$want" ] && [ -z "$(ours)" ] && [ -z "$(ls "$tmp/jr")" ]; then
    tap_ok "N12 runner: SIG$sig ends mpirun and its stopped and running ranks, removes the journal, exit $rc"
  else tap_not_ok "N12 runner: SIG$sig" "exit $rc (want $want)" "left: $(ours)" "journal: $(ls "$tmp/jr")"; fi
  reap $rp; rm -f "$tmp/jr"/*
done
tap_done
