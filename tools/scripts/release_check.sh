#!/usr/bin/env bash
# tools/scripts/release_check.sh — the test command's check of a second torch release (2.15 in CI):
#   1. the harness with that release's python on every torch family with a harness adapter,
#      a deterministic sample (each family's registry stride x RELEASE_STRIDE_SCALE, default
#      20, every K-th test in file order; issue 36: CI time), judged against that release's answers;
#   2. issue 21's acceptance check: the harness writes a candidate for redistribute-data (the
#      whole family), `shardcheck verify --torch-version R` passes it, and the same candidate
#      (its recorded release removed) fails under the pinned release (`shardcheck registry
#      releases` says which) on exactly the tests whose answer for R differs from its in golden.
#   3. plan's local ops against this release's own dispatch (tools/harness/plan_local_check.py).
# Ends with "N passed, N failed" (tools/test_job.sh sums it).  Exit 0 when both hold.
#   bash tools/scripts/release_check.sh VENV [BUILD]     (VENV: a venv whose python imports the release)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
cd "$here"
venv=${1:?usage: release_check.sh VENV [BUILD]}
S="$here/${2:-_build}/tools/shardcheck"
G="$here/golden"
py="$venv/bin/python"
ver=$("$py" -c 'import torch; print(torch.__version__.split("+")[0])') || { echo "0 passed, 1 failed"; exit 1; }
rel=${ver%.*}
pin=$("$S" registry releases | awk '/ pinned/ {print $1}')
[ -n "$pin" ] || { echo "release_check: $S registry releases names no pinned release"; echo "0 passed, 1 failed"; exit 1; }
# the harness families whose answers differ by torch release (not jax's threefry)
torchfams=" $("$S" registry --names --capable releases families | tr '\n' ' ') "
# the release's own zygote (tools/scripts/zygote.sh): its families fork from one import of it
. "$here/tools/scripts/zygote.sh"
zygote_start "$py" "$here/${2:-_build}/zygote-$rel.out"
trap zygote_stop EXIT
zygote_wait
scale=${RELEASE_STRIDE_SCALE:-20}
work="$here/${2:-_build}/release-$rel"
mkdir -p "$work"
pass=0; fail=0; rc=0
echo "torch $ver ($py): harness sample (registry stride x $scale) and the $rel candidate check"
for fk in $("$S" families --harness); do
  f=${fk%%:*}; k=$(( ${fk##*:} * scale ))
  case $torchfams in *" $f "*) ;; *) continue ;; esac
  zygote_run "$py" tools/harness/run.py --golden "$G" --family "$f" --stride "$k" --max-report 20 --no-schema \
    >"$work/harness-$f.out" 2>&1 || rc=1
  grep -E "^MISMATCH" "$work/harness-$f.out" | head -n 20
  line=$(grep -E "^[0-9]+ passed, [0-9]+ failed" "$work/harness-$f.out" | tail -n1)
  [ -n "$line" ] || { tail -n 10 "$work/harness-$f.out"; rc=1; line="0 passed, 1 failed"; }
  echo "harness $f (every ${k}th, torch $rel): $line"
  pass=$((pass + $(echo "$line" | awk '{print $1}'))); fail=$((fail + $(echo "$line" | awk '{print $3}')))
done

# the candidate the torch release's harness writes: passes under R, fails under $pin exactly
# where the answers changed
fam=redistribute-data
check() { if [ "$1" = ok ]; then pass=$((pass+1)); echo "ok - $2"; else fail=$((fail+1)); rc=1; echo "not ok - $2"; fi; }
rm -rf "$work/cand"
if zygote_run "$py" tools/harness/run.py --golden "$G" --family $fam --results "$work/cand" --no-schema \
     >"$work/cand.out" 2>&1; then
  "$S" verify --family $fam --golden "$G" --candidate "$work/cand/$fam.json" --torch-version "$rel" \
    >"$work/v-rel.out" 2>&1 && check ok "verify --torch-version $rel passes the candidate torch $ver's harness wrote" \
    || { tail -n 5 "$work/v-rel.out"; check no "verify --torch-version $rel passes the candidate"; }
  "$py" - "$work/cand/$fam.json" "$work/cand/nover.json" "$G" "$rel" "$work/changed" <<'PY'
import glob, json, os, sys
src, dst, golden, rel, changed = sys.argv[1:]
d = json.load(open(src))
d.pop("torch", None)
json.dump(d, open(dst, "w"))
ids = []
for f in glob.glob(os.path.join(golden, "redistribute-data", "*.json")):
    for g in json.load(open(f))["testGroups"]:
        for t in g["tests"]:
            if any(rel in e["torch"] for e in t.get("byVersion", [])):
                ids.append(t["tcId"])
open(changed, "w").write("".join("%d\n" % i for i in sorted(ids)))
PY
  "$S" verify --family $fam --golden "$G" --candidate "$work/cand/nover.json" --torch-version "$pin" \
    >"$work/v-pin.out" 2>&1; v=$?
  grep -Eo '^Fail +tcId [0-9]+' "$work/v-pin.out" | awk '{print $3}' | sort -n | uniq >"$work/failed"
  n=$(wc -l <"$work/changed")
  if [ "$v" -eq 1 ] && [ "$n" -gt 0 ] && cmp -s "$work/failed" "$work/changed"; then
    check ok "under $pin the same candidate fails on exactly the $n tests whose $rel answer changed"
  elif [ "$rel" = "$pin" ] && [ "$v" -eq 0 ]; then
    check ok "(the pinned release: nothing changed)"
  else
    tail -n 3 "$work/v-pin.out"
    check no "under $pin it fails on exactly the changed tests (exit $v, $(wc -l <"$work/failed") failed, $n changed)"
  fi
else
  tail -n 10 "$work/cand.out"; check no "the harness writes a $fam candidate with torch $ver"
fi

# 3. plan's local ops (issue 34 item 4) against this release's own dispatch: every rank of
# plan_local_check.py's plans, `plan --torch-version R --json`'s "ops" against what a
# TorchDispatchMode records of torch R's redistribute_local_tensor (exit 2: the CLI states no
# ops for R, a release cmd_plan.c does not claim them for)
SHARDCHECK="$S" zygote_run "$py" tools/harness/plan_local_check.py --torch-version "$rel" \
  >"$work/ops.out" 2>&1; v=$?
head -n 12 "$work/ops.out" | grep -E "^DIFF|^  " ; line=$(grep -E "^ops: " "$work/ops.out" | tail -n 1)
case $v in
  0) check ok "plan's local ops are torch $ver's ($line)" ;;
  2) echo "(plan states no local ops for torch $rel)" ;;
  *) tail -n 3 "$work/ops.out"; check no "plan's local ops are torch $ver's (exit $v: ${line:-no answer})" ;;
esac
# 4. plan's redistribute_cost (issue 34 item 4) against this release's own, on the same specs
# as the pinned release's pytest (tools/harness/tests/test_redistribute_cost.py as a script)
SHARDCHECK="$S" zygote_run "$py" tools/harness/tests/test_redistribute_cost.py \
  >"$work/cost.out" 2>&1; v=$?
grep -E "^DIFF" "$work/cost.out" | head -n 5; line=$(grep -E "^cost: " "$work/cost.out" | tail -n 1)
if [ "$v" -eq 0 ] && [ -n "$line" ]; then check ok "plan's redistribute_cost is torch $ver's ($line)"
else tail -n 3 "$work/cost.out"; check no "plan's redistribute_cost is torch $ver's (exit $v: ${line:-no answer})"; fi
echo "release check torch $ver: $pass passed, $fail failed"
echo "$pass passed, $fail failed"
exit $rc
