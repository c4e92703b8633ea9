#!/bin/sh
# run_checked.sh — the ref and local backends' workers check the views they compute and send
# back the verdict (run_backend.checks_in_worker, issue 36 item 1); a plugin's views are checked
# by the runner.  Both must say the same of the same cases, so this runs one corpus through ref,
# local and the example v2 plugin (which answers with libshardcheck, as ref does) and compares
# what each prints: TAP line for line, the JSON report's cases and failure groups (views of a
# failure included), the --views file byte for byte.  The corpus is tampered (one localShape of
# a strided case, one globalOffset of a 256-rank case) so that failures, their views and their
# groups are compared too, not passes alone; --max-ranks 16 makes the worker decide NotSupported
# (the runner parses no test that passes).  Also: a case that crashes the worker is still
# named, with its ranks, when the runner never parsed it.
. "$(dirname "$0")/testlib.sh"
need_golden shard-layout
need_python "to tamper with a corpus and compare JSON reports"
v2="$top_builddir/examples/.libs/plugin_v2.so"
[ -f "$v2" ] || skip_all "examples/.libs/plugin_v2.so not built (make check builds it)"
use_tmpdir
mkdir -p "$tmp/g/shard-layout" && cp -R "$G/schemas" "$tmp/g/" || exit 1
for f in rank-maps-tiny shard-order invalid large-meshes; do
  cp "$G/shard-layout/$f.json" "$tmp/g/shard-layout/" || exit 1
done
"$PY" - "$tmp/g/shard-layout" <<'PYEOF' || exit 1
import json, sys
d = sys.argv[1]
p = d + "/rank-maps-tiny.json"; j = json.load(open(p))
t = j["testGroups"][3]["tests"][5]          # tc 29348, mesh 2x3, _S(0, 2),_S(0, 2)
t["expected"]["perRank"]["localShape"][1][0] += 1
json.dump(j, open(p, "w"))
p = d + "/large-meshes.json"; j = json.load(open(p))
t = j["testGroups"][-1]["tests"][-1]        # tc 29822, 256 ranks
o = t["expected"]["perRank"]["globalOffset"][-1]
o[0] = str(int(o[0]) + 1)
json.dump(j, open(p, "w"))
PYEOF
write_manifest "$tmp/g"

# --max-ranks 256 everywhere: local's own default is 64
MR=256
R() { "$S" run --family shard-layout --golden "$tmp/g" --max-ranks $MR "$@"; }
# the implementation line names the plugin: the only line allowed to differ
R --backend plugin:"$v2" --tap >"$tmp/plugin.tap" 2>&1
grep -v '^# implementation: ' "$tmp/plugin.tap" >"$tmp/want.tap"
grep -Eq '^not ok [0-9]+ - shard-layout tc 29348 .*\[Fail\]' "$tmp/want.tap" &&
  grep -Eq '^not ok [0-9]+ - shard-layout tc 29822 .*\[Fail\]' "$tmp/want.tap" &&
  tap_ok "the plugin fails both tampered cases" ||
  tap_not_ok "the plugin fails both tampered cases" "$(grep '^not ok' "$tmp/want.tap" | head -n 3)"
for b in ref local; do
  R --backend $b --tap >"$tmp/$b.tap" 2>&1
  if cmp -s "$tmp/want.tap" "$tmp/$b.tap"; then tap_ok "$b: TAP as the runner checks it"
  else tap_not_ok "$b: TAP as the runner checks it" \
    "$(diff "$tmp/want.tap" "$tmp/$b.tap" | head -n 6)"; fi
done
MR=16
R --backend plugin:"$v2" --tap 2>&1 | grep -v '^# implementation: ' >"$tmp/want16"
R --backend ref --tap >"$tmp/ref16" 2>&1
MR=256
n=$(grep -c 'SKIP NotSupported: needs [0-9]* ranks, the backend (--max-ranks) has 16' "$tmp/ref16")
if cmp -s "$tmp/want16" "$tmp/ref16" && [ "$n" -gt 0 ]; then
  tap_ok "ref --max-ranks 16: the worker's NotSupported ($n) as the runner's"
else tap_not_ok "ref --max-ranks 16: the worker's NotSupported as the runner's" "$n skipped" \
  "$(diff "$tmp/want16" "$tmp/ref16" | head -n 6)"; fi

# JSON: cases (less their timings) and groups equal; a failure keeps its views up to 64 ranks
# (RUN_KEEP_VIEWS): the 6-rank one all, the 256-rank one none
for b in plugin ref; do
  be=$b; [ $b = plugin ] && be=plugin:$v2
  R --backend "$be" --json --views "$tmp/$b.views" >"$tmp/$b.json" 2>/dev/null
done
d=$("$PY" - "$tmp/plugin.json" "$tmp/ref.json" <<'PYEOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for r in (a, b):
    for c in r["cases"]:
        c.pop("seconds", None)
bad = [k for k in ("cases", "groups", "passed", "failed", "skipped") if a[k] != b[k]]
v = [len(c.get("views") or []) for c in b["cases"] if c["status"] == "Fail"]
print("differ: " + ",".join(bad) if bad else "views %s" % v)
PYEOF
)
[ "$d" = "views [6, 0]" ] && tap_ok "ref --json: cases and groups as the runner's; a failure's views kept up to 64 ranks" \
  || tap_not_ok "ref --json: cases and groups as the runner's" "$d"
if cmp -s "$tmp/plugin.views" "$tmp/ref.views" && [ -s "$tmp/ref.views" ]; then
  tap_ok "ref --views: every case's views, byte for byte the runner's"
else tap_not_ok "ref --views: the runner's views" "$(wc -l "$tmp/plugin.views" "$tmp/ref.views")"; fi

# a crash on a test the runner never parsed: the world is found for the message
expect_exit "a worker killed on rank 3 of tc 29822 (256 ranks): Crash naming ranks 0..255" 1 \
  'Crash +shard-layout tc 29822 .*ranks 0\.\.255: worker died with signal 9' \
  env SHARDCHECK_FAULT=kill:3:29822 "$S" run --backend ref --family shard-layout \
  --golden "$tmp/g"
tap_done
