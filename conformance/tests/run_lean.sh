#!/bin/sh
# run_lean.sh — a trusted worker's lean check (tools/run/run_lean.c: the test parsed without its
# expected object, each computed view compared with the golden bytes) says byte for byte what
# the whole-tree check says (SHARDCHECK_RUN_TREES=1): the report, every case listed (--verbose),
# and the exit code, on a sample of every family of the corpus, and on a corpus with planted
# wrong answers in every family (each must fail, worded by the trees).  The counting hook
# (SHARDCHECK_RUN_LEAN_COUNT=1) shows that the lean path did decide the right cases and handed
# every planted one to the trees, so the two runs compare two paths, not one path twice.
# Under mpirun (a block of ranks per process) the same, where the build has MPI.
. "$(dirname "$0")/testlib.sh"
use_tmpdir
need_golden shard-layout
need_python "to plant wrong answers"

fams=$("$S" registry families --names) || { echo "Bail out! registry families"; exit 99; }

# both_ways DESC WANT_EXIT CMD...: the same stdout and exit code with and without the trees;
# the lean run's counts are added to $tmp/count.
both_ways() {
  desc=$1; want=$2; shift 2
  SHARDCHECK_RUN_LEAN_COUNT=1 "$@" >"$tmp/lean.out" 2>>"$tmp/count"; a=$?
  SHARDCHECK_RUN_TREES=1 "$@" >"$tmp/trees.out" 2>/dev/null; b=$?
  if [ $a -eq "$want" ] && [ $b -eq "$want" ] && cmp -s "$tmp/lean.out" "$tmp/trees.out"; then
    tap_ok "$desc"
  else
    tap_not_ok "$desc" "exit lean $a, trees $b (want $want)" \
      "$(diff "$tmp/lean.out" "$tmp/trees.out" | head -n 8)"
  fi
}
# counted WHICH: the sum of the lean run's "N passed in bytes" (1) or "M by the trees" (2)
counted() {
  sed -n 's/^run: lean check: \([0-9]*\) passed in bytes, \([0-9]*\) by the trees$/\1 \2/p' \
    "$tmp/count" | awk -v k="$1" '{s += $k} END {print s + 0}'
}

# 1. The corpus as shipped: every family, a sample spread over each (run --max-cases).
n=120
sampled && n=30
for f in $fams; do
  both_ways "$f: $n cases spread over the family, the same report both ways" 0 \
    "$S" run --backend ref --family "$f" --golden "$G" --max-cases $n --verbose
done
both_ways "local: redistribute-data (executed for real), the same both ways" 0 \
  "$S" run --backend local --family redistribute-data --golden "$G" --max-cases $n --verbose
bytes=$(counted 1)
: >"$tmp/count"
if [ "$bytes" -gt 0 ]; then tap_ok "the lean path passed $bytes of those cases in bytes"
else tap_not_ok "the lean path passed none in bytes: the runs above compared one path" "$(cat "$tmp/count")"; fi

# 2. Planted wrong answers: the first file of every family, its first 40 tests, every third
# valid one with one value of its expected object changed (an integer + 1, a string with a
# letter added, a boolean flipped: the first such leaf, rank 1's where there is a perRank).
mkdir -p "$tmp/g"
cp -r "$G/schemas" "$tmp/g/"
"$PY" - "$G" "$tmp/g" $fams >"$tmp/planted" <<'PYEOF'
import json, os, sys
G, out, fams = sys.argv[1], sys.argv[2], sys.argv[3:]

def change(v):
    """v with its first leaf changed (None: no leaf to change)."""
    if isinstance(v, bool):
        return not v
    if isinstance(v, int):
        return v + 1
    if isinstance(v, str):
        return v + "x"
    if isinstance(v, list):
        for i, x in enumerate(v):
            c = change(x)
            if c is not None:
                return v[:i] + [c] + v[i + 1:]
    if isinstance(v, dict):
        for k in sorted(v):
            if k in ("alternatives", "error"):
                continue
            c = change(v[k])
            if c is not None:
                return dict(v, **{k: c})
    return None

planted = 0
for fam in fams:
    names = sorted(f for f in os.listdir(os.path.join(G, fam)) if f.endswith(".json"))
    doc = json.load(open(os.path.join(G, fam, names[0])))
    kept, left = [], 40
    for g in doc["testGroups"]:
        if left <= 0:
            break
        g["tests"] = g["tests"][:left]
        left -= len(g["tests"])
        kept.append(g)
    doc["testGroups"] = kept
    doc["numberOfTests"] = sum(len(g["tests"]) for g in kept)
    k = 0
    for g in kept:
        for t in g["tests"]:
            e = t["expected"]
            if t["result"] != "valid" or "error" in e:
                continue
            k += 1
            if k % 3:
                continue
            per = e.get("perRank")
            for key in sorted(per or {}):
                col = per[key]
                if len(col) > 1 and change(col[1]) is not None:
                    col[1] = change(col[1])
                    break
            else:
                c = change({x: y for x, y in e.items() if x != "perRank"})
                if c is None:
                    continue
                e.update(c)
            planted += 1
    os.makedirs(os.path.join(out, fam))
    json.dump(doc, open(os.path.join(out, fam, names[0]), "w"), indent=1)
print(planted)
PYEOF
write_manifest "$tmp/g"
planted=$(cat "$tmp/planted")
both_ways "planted wrong answers in every family: the same failures, worded the same, both ways" 1 \
  "$S" run --backend ref --golden "$tmp/g" --verbose
failed=$(sed -n 's/^[0-9]* passed, \([0-9]*\) failed.*/\1/p' "$tmp/lean.out")
trees=$(counted 2)
if [ "${failed:-0}" -ge "$planted" ] && [ "$planted" -gt 20 ] && [ "$trees" -ge "$planted" ]; then
  tap_ok "each of the $planted planted answers fails ($failed failed), each handed to the trees ($trees)"
else
  tap_not_ok "planted answers fail, handed to the trees" "planted $planted, failed ${failed:-?}, by the trees $trees"
fi

# 3. Under mpirun: each process checks its block of ranks (run_check.c check_block_in_worker).
if have_mpi_build; then
  for np in 2 3; do
    both_ways "mpi np $np: planted wrong answers, the same report both ways" 1 \
      "$MPIRUN" --oversubscribe --allow-run-as-root -np $np "$S" run --backend mpi \
      --golden "$tmp/g" --verbose
  done
else
  tap_skip "mpi: planted wrong answers both ways" "no MPI build or no \$MPIRUN"
fi
tap_done
