#!/bin/sh
# plugin_v2.sh — the vendor plugin ABI v2 (lib/shardcheck_backend.h, docs/backends/plugin.md)
# end to end, with examples/plugin_v2.so (built by make check):
#   - certify on it, every case of shard-layout, group-ranks, rng-offsets, redistribute-plan,
#     redistribute-data (executed over the communicator table) and view-sharding in a corpus
#     of a few of each family's files, in one process: each row and the verdict CONFORMANT
#     (the whole corpus is the main job's plugin stages, tools/main_job.sh); the package names the plugin (name, file,
#     sha256), holds no path of this machine to the .so, and certify --check finds it intact;
#   - its name, file and sha256 in run's text, TAP, JUnit and JSON;
#   - the planted bug (SHARDCHECK_EXAMPLE_BUG=uneven): run fails, and every failing case is
#     an UnevenShard case;
#   - a v1 plugin (examples/plugin_ref.so) still loads: rng-offsets' per-op cases and every
#     view-sharding case are NotSupported with the reason, never failures, and the rest pass;
#   - bad plugins, each a named error and never a crash: an ABI version the runner does not
#     know, a v2 table without answer, one without execute that claims redistribute-data,
#     a table shorter than v2's, answers the host refuses (bad JSON, a key given twice);
#   - under mpirun (tools/run/mpirun_runner.sh) at np 1, 2 and 4: one rank per process, the
#     closing block once, every sampled case passing; certify --np 2,4 runs its rows under
#     mpirun; processes loading different files behind the same --backend (a relative path
#     from another directory on rank 1, as two nodes' copies) refused at start naming the rank
#     and host.
. "$(dirname "$0")/testlib.sh"
use_tmpdir
need_golden shard-layout group-ranks rng-offsets redistribute-plan view-sharding
need_python "to read the reports"
so="$top_builddir/examples/.libs/plugin_v2.so"
ref="$top_builddir/examples/.libs/plugin_ref.so"
[ -f "$so" ] || skip_all "examples/.libs/plugin_v2.so not built (make check builds it)"
FAMS=shard-layout,group-ranks,rng-offsets,redistribute-plan,redistribute-data,view-sharding
# A corpus of a few files of each family, over 300 cases each: every process of every run below
# parses the family's files whole, however few cases it runs (3 s of CPU per ASan process for
# shard-layout's), and the whole corpus in one certify was 80 s of CPU here; the main job's
# plugin stages certify every case of it at np 1, 2 and 4 (issue 36: CI time).  Sampled (the
# ASan and distcheck make checks, testlib.sh) 300 cases of each family of it.
cmax= row=pass; sampled && cmax="--max-cases 300" row=partial
sample_corpus "$tmp/gs" shard-layout:invalid,rank-maps-explicit,shard-order,chunk-sweep-2d,sub-world \
  group-ranks:invalid,rank-maps-explicit,large-meshes,rank-maps rng-offsets:invalid,examples,random-data,ops \
  redistribute-plan:invalid,notable,strided-literal redistribute-data view-sharding ||
  { echo "Bail out! sample corpus"; exit 99; }
G=$tmp/gs

# --- certify: every case of the six families' sample corpus, one process ---
# shellcheck disable=SC2086  # cmax is empty or an option and its value
"$SHARDCHECK" certify --out "$tmp/pkg" --name "example v2" --backend plugin:"$so" \
  --families $FAMS --golden "$G" $cmax >"$tmp/cert.out" 2>"$tmp/cert.err"
rc=$?
# rows FILE: "family verdict failed" per row of a statement.json
"$PY" -c 'import json,sys
s = json.load(open(sys.argv[1]))
for r in s["rows"]:
    print(r["family"], r["verdict"], r["failed"], r["notSupported"], r["backend"])' \
  "$tmp/pkg/statement.json" >"$tmp/rows" 2>&1
for f in shard-layout group-ranks rng-offsets redistribute-plan redistribute-data \
  view-sharding; do
  if grep -q "^$f $row 0 0 plugin:plugin_v2.so$" "$tmp/rows"; then
    tap_ok "certify: $f CONFORMANT (every required case passed, none NotSupported)"
  else tap_not_ok "certify: $f CONFORMANT" "exit $rc" "$(cat "$tmp/rows")" "$(tail -c 400 "$tmp/cert.err")"; fi
done
if [ -z "$cmax" ]; then
  expect_file "certify: the verdict is CONFORMANT (every required test of the six families' sample corpus)" \
    "$tmp/pkg/statement.txt" "verdict: CONFORMANT: every claimed family passed"
else tap_skip "certify: the verdict is CONFORMANT" "sampled make check: a sample is PARTIAL by design"; fi
expect_file "certify: the statement names the plugin, its file and sha256" "$tmp/pkg/statement.txt" \
  "example-v2 (libshardcheck); note: file plugin_v2.so, sha256 $(sha256sum "$so" | cut -c1-64), ABI v2"
expect_exit "certify --check on the plugin's package: intact (its JUnit re-rendered with the plugin)" 0 \
  "intact: .* files match MANIFEST" "$SHARDCHECK" certify --check "$tmp/pkg" --golden "$G"
expect_file "certify: report.html names the plugin" "$tmp/pkg/report.html" "plugin example-v2 (libshardcheck)"
if grep -rlF "$(dirname "$so")" "$tmp/pkg" >"$tmp/paths" 2>/dev/null; then
  tap_not_ok "certify: no path of this machine to the plugin in the package" "$(cat "$tmp/paths")"
else tap_ok "certify: no path of this machine to the plugin in the package"; fi

# --- run's outputs name the plugin ---
sha=$(sha256sum "$so" | cut -c1-64)
run() { "$SHARDCHECK" run --backend plugin:"$so" --golden "$G" --max-cases 20 "$@"; }
expect_exit "run text: the implementation line" 0 \
  "implementation: plugin example-v2 \(libshardcheck\) \(plugin_v2.so, sha256 $sha\)" run --family shard-layout
expect_exit "run --tap: the implementation line" 0 "# implementation: plugin example-v2" \
  run --family shard-layout --tap
run --family shard-layout --junit "$tmp/j.xml" >/dev/null 2>&1
expect_file "run --junit: the implementation property" "$tmp/j.xml" \
  "<property name=\"implementation\" value=\"plugin example-v2 (libshardcheck) (plugin_v2.so, sha256 $sha)\"/>"
run --family shard-layout --json >"$tmp/r.json" 2>/dev/null
got=$("$PY" -c 'import json,sys
p = json.load(open(sys.argv[1]))["plugin"]
print(p["name"], p["file"], p["sha256"], p["abi"])' "$tmp/r.json" 2>&1)
[ "$got" = "example-v2 (libshardcheck) plugin_v2.so $sha 2" ] && tap_ok "run --json: \"plugin\": name, file, sha256, abi" \
  || tap_not_ok "run --json: \"plugin\"" "got: $got"

# --- the planted bug ---
SHARDCHECK_EXAMPLE_BUG=uneven "$SHARDCHECK" run --backend plugin:"$so" --golden "$G" \
  --family shard-layout --max-cases 400 --json >"$tmp/bug.json" 2>/dev/null
rc=$?
got=$("$PY" -c 'import json,sys,glob
bad = {c["tcId"] for c in json.load(open(sys.argv[1]))["cases"] if c["status"] == "Fail"}
flags = {}
for f in glob.glob(sys.argv[2] + "/shard-layout/*.json"):
    for g in json.load(open(f))["testGroups"]:
        for t in g["tests"]:
            flags[t["tcId"]] = t.get("flags", [])
print(len(bad), sum("UnevenShard" not in flags[t] for t in bad))' "$tmp/bug.json" "$G" 2>&1)
case $rc:$got in
  1:[1-9]*\ 0) tap_ok "SHARDCHECK_EXAMPLE_BUG=uneven: exit 1, every one of ${got% *} failures an UnevenShard case" ;;
  *) tap_not_ok "SHARDCHECK_EXAMPLE_BUG=uneven" "exit $rc, failures / not UnevenShard: $got" ;;
esac

# --- a v1 plugin still loads; its per-op rng-offsets cases are NotSupported ---
if [ -f "$ref" ]; then
  mkdir -p "$tmp/ops/rng-offsets" && cp "$G/rng-offsets/ops.json" "$tmp/ops/rng-offsets/"
  write_manifest "$tmp/ops"
  "$SHARDCHECK" run --backend plugin:"$ref" --golden "$tmp/ops" --family rng-offsets --json \
    >"$tmp/v1.json" 2>"$tmp/v1.err"
  rc=$?
  got=$("$PY" -c 'import json,sys
j = json.load(open(sys.argv[1]))
why = {c["detail"] for c in j["cases"] if c["status"] == "NotSupported"}
print(j["failed"], j["skipped"], len([w for w in why if "ABI v1'"'"'s offsets() is not told the op" not in w]))' \
    "$tmp/v1.json" 2>&1)
  case $rc:$got in
    77:0\ [1-9]*\ 0|0:0\ [1-9]*\ 0) tap_ok "v1 plugin: rng-offsets per-op cases NotSupported with the reason, none failed ($got)" ;;
    *) tap_not_ok "v1 plugin: per-op cases" "exit $rc, failed skipped other-reasons: $got" "$(tail -c 300 "$tmp/v1.err")" ;;
  esac
  "$SHARDCHECK" run --backend plugin:"$ref" --golden "$G" --family view-sharding --json \
    >"$tmp/v1v.json" 2>"$tmp/v1v.err"
  rc=$?
  # passed failed skipped cases, and the NotSupported reasons that are not ABI v1's
  got=$("$PY" -c 'import json,sys
j = json.load(open(sys.argv[1]))
why = {c["detail"] for c in j["cases"] if c["status"] == "NotSupported"}
print(j["passed"], j["failed"], j["skipped"], len(j["cases"]),
      len([w for w in why if "no ABI v1 entry point for family view-sharding" not in w]))' \
    "$tmp/v1v.json" 2>&1)
  # shellcheck disable=SC2086  # got: five numbers
  set -- $got
  if [ $rc = 77 ] && [ "$1 $2 $5" = "0 0 0" ] && [ "$3" = "$4" ] && [ "$3" -gt 0 ]; then
    tap_ok "v1 plugin: every view-sharding case NotSupported with the reason ($3), exit 77"
  else tap_not_ok "v1 plugin: view-sharding" "exit $rc, passed failed skipped cases other: $got" \
    "$(tail -c 300 "$tmp/v1v.err")"; fi
  expect_passes "v1 plugin: shard-layout still passes" \
    "$SHARDCHECK" run --backend plugin:"$ref" --golden "$G" --family shard-layout --max-cases 200
  # a mesh smaller than the world: ABI v1 has no world to state (the v2 example answers it:
  # the certify above holds sub-world.json)
  sample_corpus "$tmp/gsw" shard-layout:sub-world || { echo "Bail out! sample corpus"; exit 99; }
  expect_exit "v1 plugin: a sub-world case is NotSupported, naming the world ABI v1 lacks" 77 \
    "ABI v1 states no world larger than the mesh \(group world 4, mesh of 2 ranks\)" \
    "$SHARDCHECK" run --backend plugin:"$ref" --golden "$tmp/gsw" --family shard-layout \
    --max-cases 3 --verbose
else for i in 1 2 3 4; do tap_skip "v1 plugin" "examples/.libs/plugin_ref.so not built"; done; fi

# --- bad plugins: each a named error ---
CC=${CC:-cc}
mk() { # mk NAME BODY: a plugin from a few lines of C against the installed header
  printf '#include <string.h>\n#include <stdio.h>\n#include "shardcheck_backend.h"\n%s\n' "$2" >"$tmp/$1.c"
  "$CC" -shared -fPIC -I"$top_srcdir/lib" -o "$tmp/$1.so" "$tmp/$1.c" 2>"$tmp/$1.cc"
}
ANS='static int ans(void *s, const shc_host_v2 *h, const shc_case_v2 *c, int64_t r, shc_answer_v2 *o, char *e, size_t n)'
TAB='static shc_backend_v2 t = {SHC_BACKEND_ABI_V2, sizeof(shc_backend_v2), "bad", 0'
ENTRY='uint32_t shardcheck_backend_abi(void) { return 2; }
const shc_backend_v2 *shardcheck_backend_v2(void) { return &t; }'
if mk v3 'uint32_t shardcheck_backend_abi(void) { return 3; }'; then
  expect_exit "ABI version 3: exit 2 naming the versions it knows" 2 \
    "plugin .*v3.so: ABI version 3; this runner speaks versions 1 and 2" \
    "$SHARDCHECK" run --backend plugin:"$tmp/v3.so" --family shard-layout --golden "$G"
  mk noanswer "$TAB, 0, 0, 0, 0, 0};
$ENTRY"
  expect_exit "v2 table without answer: refused at load" 2 "ABI v2 table has no answer entry point" \
    "$SHARDCHECK" run --backend plugin:"$tmp/noanswer.so" --family shard-layout --golden "$G"
  mk noexec "$ANS { return 0; }
$TAB, 0, ans, 0, 0, 0};
$ENTRY"
  expect_exit "v2 table without execute, claiming redistribute-data: refused at load" 2 \
    "no execute entry point, yet it claims redistribute-data \(supports\(\) is NULL\)" \
    "$SHARDCHECK" run --backend plugin:"$tmp/noexec.so" --family shard-layout --golden "$G"
  mk short "static uint32_t t[2] = {2, 8};
uint32_t shardcheck_backend_abi(void) { return 2; }
const void *shardcheck_backend_v2(void) { return t; }"
  expect_exit "v2 table shorter than v2's: refused" 2 "backend table says ABI 2, size 8 \(want 2, >= [0-9]+" \
    "$SHARDCHECK" run --backend plugin:"$tmp/short.so" --family shard-layout --golden "$G"
  SUP='static int sup(void *s, const char *f, char *e, size_t n) { snprintf(e, n, "no"); return strcmp(f, "redistribute-data") ? 0 : SHC_BACKEND_UNSUPPORTED; }'
  mk badjson "$SUP
$ANS { return h->put_json(o, \"localShape\", \"[1, 2\") ? 0 : 0; }
$TAB, sup, ans, 0, 0, 0};
$ENTRY"
  expect_exit "an answer with bad JSON: Fail naming the key and the rank" 1 \
    "rank 0: answer refused: put_json\(\"localShape\"\): not JSON" \
    "$SHARDCHECK" run --backend plugin:"$tmp/badjson.so" --family shard-layout --golden "$G" --max-cases 3
  mk twice "$SUP
$ANS { h->put_int(o, \"x\", 1); h->put_str(o, \"x\", \"y\"); return 0; }
$TAB, sup, ans, 0, 0, 0};
$ENTRY"
  expect_exit "an answer giving a key twice: Fail naming it" 1 "answer refused: \"x\" given twice" \
    "$SHARDCHECK" run --backend plugin:"$tmp/twice.so" --family group-ranks --golden "$G" --max-cases 3
  mk unsup "$SUP
$ANS { snprintf(e, n, \"no meshes of %lld ranks\", (long long)r); return SHC_BACKEND_UNSUPPORTED; }
$TAB, sup, ans, 0, 0, 0};
$ENTRY"
  expect_exit "a case the plugin says it does not model: NotSupported with its reason" 77 \
    "NotSupported .*no meshes of 0 ranks" \
    "$SHARDCHECK" run --backend plugin:"$tmp/unsup.so" --family shard-layout --golden "$G" --max-cases 3 --verbose
else for i in 1 2 3 4 5 6 7; do tap_skip "bad plugins" "no C compiler ($CC) to build them"; done; fi

# --- under mpirun: one rank per process ---
if ! have_mpi || ! have_mpi_build; then
  for i in 1 2 3 4 5; do tap_skip "plugin under mpirun" "no mpirun or shardcheck built without MPI"; done
  tap_done; exit $?
fi
export OMPI_MCA_mpi_warn_on_fork=0
[ "${SHARDCHECK_SANITIZED:-0}" = 1 ] && export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
# sampled (the ASan and distcheck make checks, testlib.sh): np 1 and 4, 50 cases a family (np 2
# runs in certify --np 2,4 below)
nps="1 2 4" n=${PLUGIN_V2_SAMPLE:-150}; sampled && nps="1 4" n=${PLUGIN_V2_SAMPLE:-50}
for np in $nps; do
  ok=1 why=
  for f in shard-layout group-ranks rng-offsets redistribute-plan redistribute-data \
    view-sharding; do
    out=$(MPIRUN_ARGS="--oversubscribe --allow-run-as-root" MPIRUN="$MPIRUN" timeout 600 \
          "$top_srcdir/tools/run/mpirun_runner.sh" -np $np --shardcheck "$SHARDCHECK" \
          --backend plugin:"$so" -- --family $f --golden "$G" --max-cases $n 2>&1)
    rc=$?
    closing=$(printf '%s\n' "$out" | grep -cE '^[0-9]+ passed, [0-9]+ failed')
    last=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
    if [ $rc -ne 0 ] || [ "$closing" != 1 ] || ! printf '%s' "$last" | grep -Eq '^[1-9][0-9]* passed, 0 failed, 0 skipped'; then
      ok=0 why="$f: exit $rc, $closing closing lines: $(printf '%s\n' "$out" | tail -c 400)"
    fi
  done
  [ $ok = 1 ] && tap_ok "mpirun -np $np: the six families' samples pass, one report each" \
    || tap_not_ok "mpirun -np $np" "$why"
done
# certify --np 2,4: the rows run under mpirun (their results say the job's size), and pass
rm -rf "$tmp/pkg2"
MPIRUN_ARGS="--oversubscribe --allow-run-as-root" MPIRUN="$MPIRUN" timeout 900 "$SHARDCHECK" certify \
  --out "$tmp/pkg2" --backend plugin:"$so" --families shard-layout,rng-offsets --np 2,4 \
  --max-cases 40 --golden "$G" >"$tmp/cert2.out" 2>&1
rc=$?
got=$("$PY" -c 'import json,sys,os
s = json.load(open(os.path.join(sys.argv[1], "statement.json")))
for r in s["rows"]:
    j = json.load(open(os.path.join(sys.argv[1], r["results"])))
    print(r["family"], r["np"], j["ranks"], r["failed"], r["verdict"])' "$tmp/pkg2" 2>&1 | tr '\n' ';')
[ $rc = 3 ] && [ "$got" = "shard-layout 2 2 0 partial;rng-offsets 2 2 0 partial;shard-layout 4 4 0 partial;rng-offsets 4 4 0 partial;" ] \
  && tap_ok "certify --np 2,4: every row under mpirun at its size, nothing failed (partial: sampled)" \
  || tap_not_ok "certify --np 2,4 on the plugin" "exit $rc: $got" "$(tail -c 400 "$tmp/cert2.out")"
# the same --backend on every rank (the ranks agree on their options at start), but another
# file behind it on rank 1: a relative path from a directory of its own, as two nodes would
# hold different copies at one path
mkdir -p "$tmp/r0" "$tmp/r1" && cp "$so" "$tmp/r0/libacme.so" && cp "$ref" "$tmp/r1/libacme.so"
sc_abs=$(cd "$(dirname "$SHARDCHECK")" && pwd)/$(basename "$SHARDCHECK")
g_abs=$(cd "$G" && pwd)
cat >"$tmp/wrap.sh" <<EOF
#!/bin/sh
cd "$tmp/r\${OMPI_COMM_WORLD_RANK:-0}" || exit 99
exec "$sc_abs" run --backend plugin:./libacme.so --golden "$g_abs" "\$@"
EOF
chmod +x "$tmp/wrap.sh"
host=$(hostname | cut -c1-62)
expect_exit "mpirun: another .so behind the same path on rank 1 refused at start, naming the rank and host" 2 \
  "the processes load different plugin files: rank 1 on host $host loads libacme.so with sha256 [0-9a-f]{64}, rank 0 on host $host loads libacme.so with sha256 [0-9a-f]{64}" \
  timeout 300 $MPIRUN --oversubscribe --allow-run-as-root -np 2 "$tmp/wrap.sh" --family shard-layout --max-cases 5
tap_done
