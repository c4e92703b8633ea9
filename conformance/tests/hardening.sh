#!/bin/sh
# hardening.sh — regression tests for the defects of issue 9 found by probing, each with its
# exit code and message asserted: huge torch-cuda shapes (D2), duplicate results in a candidate
# (D3), unreadable golden files (D4), lost output (D5), unbounded or blocking candidates (D6),
# plugin code run in the runner's own process (D7), the mpirun wrapper's exit codes (D8),
# golden-supplied shift counts (D9); and the stated limits (README, Limits).  D10 (MANIFEST)
# is in golden_regen.sh. The refusals that need no setup (D2, D6's /dev/zero, D8's usage
# errors, the limits) are rows of refusals/*.txt, run by refusals.sh.
. "$(dirname "$0")/testlib.sh"
use_tmpdir

# D2: a block count of 2^32 wrapped to 0 and divided by zero (SIGFPE).
expect_exit "D2 torch-cuda: the largest grid torch can launch still computes" 0 "" \
  $S rng --engine torch-cuda --seed 0 --shape 1099511627520 --op uniform --dtype float32 --start 0 --count 4

# D3: in the minimal form a second, wrong entry for a tcId was ignored (exit 0).
if "$PY" -c 'import json' 2>/dev/null && [ -d "$G/philox-kat" ]; then
  "$PY" - "$G" "$tmp" <<'PYEOF'
import json, glob, os, sys
g, out = sys.argv[1], sys.argv[2]
res = []
for p in sorted(glob.glob(os.path.join(g, "philox-kat", "*.json"))):
    for grp in json.load(open(p))["testGroups"]:
        for t in grp["tests"]:
            res.append({"tcId": t["tcId"], "values": t["expected"]})
dup = res + [{"tcId": res[0]["tcId"], "values": {"wrong": 1}}]
json.dump({"family": "philox-kat", "results": dup}, open(os.path.join(out, "dup.json"), "w"))
mix = res + [{"tcId": res[1]["tcId"], "rank": 0, "values": {"wrong": 1}}]
json.dump({"family": "philox-kat", "results": mix}, open(os.path.join(out, "mix.json"), "w"))
json.dump({"family": "philox-kat", "results": res}, open(os.path.join(out, "good.json"), "w"))
PYEOF
  V() { $S verify --family philox-kat --golden "$G" "$@"; }
  expect_exit "D3 a duplicate tcId in a results file is malformed (exit 2), as in the golden form" 2 \
    "dup.json: results\[0\] and results\[[0-9]+\]: tcId [0-9]+ appears twice" V --candidate "$tmp/dup.json"
  expect_exit "D3 a whole-test answer next to a per-rank one is a duplicate" 2 \
    "tcId [0-9]+ is answered twice \(once for the whole test, once per rank\)" V --candidate "$tmp/mix.json"
  expect_exit "D3 the same results without the duplicate pass" 0 "30 passed, 0 failed" V --candidate "$tmp/good.json"
else
  tap_skip "D3 duplicate results" "no python3 or golden/philox-kat"
fi

# D4: an unreadable file in a family folder was NotSupported (exit 0 or 77).
mkdir -p "$tmp/g4" && cp -r "$G/philox-kat" "$tmp/g4/" && chmod -R u+w "$tmp/g4"
mkdir "$tmp/g4/philox-kat/zz.json"
# (the loader's own checks: the MANIFEST check that comes first is skipped, loudly)
expect_exit "D4 run: a directory named zz.json in a family folder is bad input (exit 2)" 2 \
  "philox-kat/zz.json is not a regular file \(a directory\)" \
  $S run --backend ref --family philox-kat --golden "$tmp/g4" --no-manifest-check
rmdir "$tmp/g4/philox-kat/zz.json"; mkdir "$tmp/g4/threefry"
expect_exit "D4 run: a family folder without .json files is bad input" 2 "no .json files in" \
  $S run --backend ref --family threefry --golden "$tmp/g4" --no-manifest-check

# D5: lost output exited 0.
if [ -w /dev/full ]; then
  full() { "$@" >/dev/full; }
  expect_exit "D5 layout --json >/dev/full: exit 2 and a message" 2 "cannot write the JSON output: No space left on device" \
    full $S layout --mesh 2 --placements 'S(0)' --shape 4 --json
  expect_exit "D5 layout (text) >/dev/full" 2 "shardcheck layout: cannot write standard output" \
    full $S layout --mesh 2 --placements 'S(0)' --shape 4
  for q in "groups --mesh 2x2 --json" "offsets --mesh 2 --placements S(0) --shape 8 --json" \
           "plan --mesh 2 --shape 4 --src S(0) --dst R --json" "audit plan --mesh 2 --shape 4 --src S(0) --dst R --json" \
           "audit rng --mesh 4 --placements S(0) --shape 3 --json" "policies --json" \
           "rng --engine philox --json" "--version" "gen --list"; do
    # shellcheck disable=SC2086
    expect_exit "D5 $q >/dev/full: exit 2" 2 "cannot write" full $S $q
  done
  expect_exit "D5 verify --junit /dev/full: exit 2 naming the file" 2 "verify: --junit /dev/full: write failed" \
    $S verify --family philox-kat --golden "$G" --candidate "$tmp/good.json" --junit /dev/full
  expect_exit "D5 verify --tap >/dev/full" 2 "cannot write standard output" \
    full $S verify --family philox-kat --golden "$G" --candidate "$tmp/good.json" --tap
  expect_exit "D5 run --junit /dev/full: exit 2" 2 "run: --junit /dev/full: write failed" \
    $S run --backend ref --family philox-kat --golden "$G" --junit /dev/full
  expect_exit "D5 run --json >/dev/full: exit 2" 2 "cannot write the JSON output" \
    full $S run --backend ref --family philox-kat --golden "$G" --json
else
  tap_skip "D5 lost output" "no writable /dev/full"
fi
expect_exit "D5 gen: an unwritable --out is exit 2" 2 "shardcheck gen: .*$tmp/file" \
  sh -c ": >'$tmp/file'; exec $S gen --family philox-kat --out '$tmp/file/x'"

# D6: the candidate was read whole, unbounded; a FIFO with no writer blocked forever.
V6() { timeout 20 $S verify --family philox-kat --golden "$G" --candidate "$@"; }
mkfifo "$tmp/fifo" 2>/dev/null && expect_exit "D6 a FIFO with no writer is refused at once" 2 \
  "fifo is not a regular file \(a FIFO\)" V6 "$tmp/fifo"
if truncate -s 1100M "$tmp/big.json" 2>/dev/null; then
  expect_exit "D6 a candidate over the 1 GiB limit is refused before reading" 2 \
    "big.json is 1153433600 bytes; the limit for a JSON input is 1073741824 bytes" V6 "$tmp/big.json"
else tap_skip "D6 candidate size limit" "no truncate"; fi

{ printf '{"family":"philox-kat","results":'; i=0; while [ $i -lt 2100 ]; do printf '['; i=$((i+1)); done; } >"$tmp/deep.json"
expect_exit "limit: JSON nesting deeper than 2048 is refused with line and column" 2 \
  "deep.json: line 1 column [0-9]+: maximum parsing depth reached" V6 "$tmp/deep.json"

# D7: dlopen ran plugin code in the runner's own process.
CC=${CC:-cc}
printf '__attribute__((constructor)) static void boom(void) { volatile int *p = 0; *p = 1; }\n' >"$tmp/crash.c"
printf '#include <stdlib.h>\n__attribute__((constructor)) static void bye(void) { exit(0); }\n' >"$tmp/ex0.c"
cat >"$tmp/exitcase.c" <<'CEOF'
#include <stdlib.h>
#include "shardcheck_backend.h"
static int layout(const shc_backend_case *c, int64_t rank, int64_t *ls, int64_t *off, char *err,
                  size_t n) { exit(0); }
static const shc_backend_v1 be = {SHC_BACKEND_ABI_VERSION, sizeof(shc_backend_v1), "exits", layout};
uint32_t shardcheck_backend_abi(void) { return SHC_BACKEND_ABI_VERSION; }
const shc_backend_v1 *shardcheck_backend_v1(void) { return &be; }
CEOF
if "$CC" -shared -fPIC -o "$tmp/crash.so" "$tmp/crash.c" 2>/dev/null &&
   "$CC" -shared -fPIC -o "$tmp/ex0.so" "$tmp/ex0.c" 2>/dev/null &&
   "$CC" -shared -fPIC -I"$top_srcdir/lib" -o "$tmp/exitcase.so" "$tmp/exitcase.c" 2>/dev/null; then
  expect_exit "D7 a plugin whose constructor crashes: Crash with a message, the runner lives" 1 \
    "Crash +plugin .*loading it killed the process with signal 11 .*a constructor crashes.*
.*0 passed, 1 failed" $S run --backend plugin:"$tmp/crash.so" --family shard-layout --golden "$G" --max-cases 5
  expect_exit "D7 a plugin whose constructor calls exit(0): Crash, not 99" 1 \
    "loading it ended the process with exit\(0\) before the backend was checked" \
    $S run --backend plugin:"$tmp/ex0.so" --family shard-layout --golden "$G" --max-cases 5
  expect_exit "D7 a plugin calling exit(0) in a case: Crash for that case, not 99" 1 \
    "Crash +shard-layout tc [0-9]+ .*the plugin ended the worker with exit\(0\) before answering" \
    $S run --backend plugin:"$tmp/exitcase.so" --family shard-layout --golden "$G" --max-cases 3
else
  tap_skip "D7 plugins that crash or exit" "no C compiler ($CC)"
fi

# D8: the mpirun wrapper called a usage error a Crash (exit 1), and could sum up "0 failed" with exit 1.
R="$top_srcdir/tools/run/mpirun_runner.sh"
# A stand-in mpirun: each rank would refuse the option (exit 2, journal untouched) ...
cat >"$tmp/mpirun_usage" <<'SEOF'
#!/bin/sh
echo "shardcheck run: unknown option (see shardcheck run --help)" >&2; exit 2
SEOF
# ... or rank 0 finished every case it started, then a rank hung and mpirun was killed.
cat >"$tmp/mpirun_hung" <<'SEOF'
#!/bin/sh
while [ $# -gt 0 ]; do [ "$1" = --journal ] && j=$2; shift; done
[ "$j" = - ] || exit 3  # the runner asks for the journal on rank 0's standard output
printf '#shardcheck-journal# %s\n' 'begin 2' 'start shard-layout 1' 'Pass shard-layout 1'; exit 1
SEOF
chmod +x "$tmp/mpirun_usage" "$tmp/mpirun_hung"
expect_exit "D8 runner: run options refused by the ranks stay exit 2, no Crash" 2 "^shardcheck run: unknown option[^C]*$" \
  env MPIRUN="$tmp/mpirun_usage" sh "$R" -np 2 --shardcheck "$S" -- --bogus
out=$(MPIRUN="$tmp/mpirun_hung" sh "$R" -np 2 --shardcheck "$S" -- --family shard-layout 2>&1); rc=$?
if [ $rc -eq 1 ] && printf '%s\n' "$out" | tail -n 1 | grep -q '^1 passed, 1 failed, 0 skipped$' &&
   printf '%s\n' "$out" | grep -q '^Crash .*the mpi job ended before reporting (mpirun exit 1)'; then
  tap_ok "D8 runner: a job that ends without a report never sums up 0 failed"
else tap_not_ok "D8 runner: a job that ends without a report never sums up 0 failed" "exit $rc" "$out"; fi

# D9: "flattened" from a golden file was a shift count (UBSan: shift exponent 40).
f9=$(grep -l '"flattened":\[\[0,1\]\]' "$G"/redistribute-plan/*.json 2>/dev/null | head -n 1)
if [ -n "$f9" ] && "$PY" -c 'import json' 2>/dev/null; then
  mkdir -p "$tmp/g9/redistribute-plan"
  "$PY" - "$f9" "$tmp/g9/redistribute-plan/f.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
g = next(g for g in d["testGroups"] if g.get("flattened"))
g["flattened"] = [[40]]; g["tests"] = g["tests"][:1]
d["testGroups"] = [g]; d["numberOfTests"] = 1
json.dump(d, open(sys.argv[2], "w"))
PYEOF
  write_manifest "$tmp/g9"  # the run checks its corpus first: this one is consistent
  expect_exit "D9 a golden mesh dim outside the mesh is rejected by name, not shifted" 1 \
    "flattened\[0\]\[0\] is not a mesh dim of this [0-9]+-dim mesh" \
    $S run --backend ref --family redistribute-plan --golden "$tmp/g9"
else tap_skip "D9 golden flattened dims" "no flattened case in golden/redistribute-plan or no python3"; fi

# D11: a golden group's "world" (shard-layout/sub-world.json) tampered: a world smaller than
# its mesh, and one that is not a number, must fail the cases they touch by name, never pass.
f11=$G/shard-layout/sub-world.json
if "$PY" -c 'import json' 2>/dev/null && [ -f "$f11" ]; then
  for bad in 1 '"4"'; do
    mkdir -p "$tmp/g11/shard-layout" && rm -f "$tmp/g11/shard-layout/"*.json
    "$PY" - "$f11" "$tmp/g11/shard-layout/w.json" "$bad" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
g = d["testGroups"][0]  # mesh [2] on ranks 0,1 of a world of 4
g["world"] = json.loads(sys.argv[3]); g["tests"] = g["tests"][:1]
d["testGroups"] = [g]; d["numberOfTests"] = 1
json.dump(d, open(sys.argv[2], "w"))
PYEOF
    write_manifest "$tmp/g11"
    case $bad in
      1) why="world: 1 ranks, fewer than the mesh's 2 \\(torch: RuntimeError: Mesh should not be bigger than default world size 1, but found 2 ranks!\\)" ;;
      *) why="group world: expected a positive integer" ;;
    esac
    expect_exit "D11 a golden world of $bad fails its case by name (run, ref)" 1 "$why" \
      $S run --backend ref --family shard-layout --golden "$tmp/g11"
  done
else tap_skip "D11 golden world" "no golden/shard-layout/sub-world.json or no python3"; fi

# Limits (README): each refusal is a row of refusals/{layout,groups,plan}.txt; here the answer
# that stays within a limit.
expect_exit "limit: one rank of a 2^24-rank mesh is answered" 0 "all_gather" \
  $S plan --mesh 4096x4096 --shape 16777216 --src '_S(0,2),R' --dst R,R --rank 16777215
tap_done
