#!/bin/sh
# registry.sh — `shardcheck registry` (issue 37 item 3) says what the tree holds, checked against
# the tree itself, never against the code that prints it: every family has its golden directory,
# schema and doc page and golden/ holds no other family; a harness family has an adapter that
# declares it; every release (name and patch) is one --torch-version takes, and the refusal
# lists exactly them; every flag a family's files declare has its row on the family's doc page,
# and a release-decided flag its row in docs/torch-releases.md; every backend is one `run
# --backend` names; the text forms say what the JSON says; the harness asks the same releases.
# fuzz/ keeps its own family order (seeds name a family by index) but must hold every family.
# registry_lint.sh checks that no script lists releases or families itself.
. "$(dirname "$0")/testlib.sh"
use_tmpdir
need_golden shard-layout
need_python "the JSON checks"
"$S" registry --json --golden "$G" >"$tmp/reg.json" 2>"$tmp/err" \
  && tap_ok "registry --json: exit 0" || tap_not_ok "registry --json: exit 0" "$(cat "$tmp/err")"

# One line per finding from the Python checks below: "ok DESC" or "not ok DESC: why".
"$PY" - "$tmp/reg.json" "$top_srcdir" >"$tmp/checks" 2>&1 <<'PYEOF'
import json, os, re, sys
reg = json.load(open(sys.argv[1]))
top = sys.argv[2]
def check(desc, bad):
    print("ok %s" % desc if not bad else "not ok %s: %s" % (desc, "; ".join(bad)[:600]))
check("the JSON has every section", [k for k in ("releases", "families", "flags", "backends",
                                                  "pinned", "newest") if k not in reg])
rel = reg["releases"]
pins = [r["name"] for r in rel if r["pinned"]]
newest = [r["name"] for r in rel if r["newest"]]
check("one pinned release, named by \"pinned\"", [] if pins == [reg["pinned"]] else [str(pins)])
check("the last release is the newest", [] if newest == [reg["newest"]] == [rel[-1]["name"]]
      else [str(newest)])
check("each release's patch is of its minor",
      [r["patch"] for r in rel if not r["patch"].startswith(r["name"] + ".")])
fams = [f["name"] for f in reg["families"]]
bad = []
for f in reg["families"]:
    d = os.path.join(top, f["golden"])
    if not os.path.isdir(d) or not [x for x in os.listdir(d) if x.endswith(".json")]:
        bad.append("%s: no golden files in %s" % (f["name"], f["golden"]))
    for k in ("schema", "doc"):
        if not os.path.isfile(os.path.join(top, f[k])):
            bad.append("%s: no %s %s" % (f["name"], k, f[k]))
    if sorted(f["releases"]) and not set(f["releases"]) <= {r["name"] for r in rel}:
        bad.append("%s: unknown releases %s" % (f["name"], f["releases"]))
    if ("harness" in f["capabilities"]) != (f["harnessStride"] > 0):
        bad.append("%s: harness capability without a stride" % f["name"])
check("every family has its golden files, schema and doc page", bad)
dirs = sorted(x for x in os.listdir(os.path.join(top, "golden"))
              if os.path.isdir(os.path.join(top, "golden", x)) and x != "schemas")
check("golden/ holds the registry's families and no other", [] if dirs == sorted(fams)
      else ["golden: %s, registry: %s" % (dirs, sorted(fams))])
adapters = set()
adir = os.path.join(top, "tools", "harness", "adapters")
for a in os.listdir(adir):
    if a.endswith(".py"):
        m = re.search(r'^FAMILY\s*=\s*"([^"]+)"', open(os.path.join(adir, a)).read(), re.M)
        if m:
            adapters.add(m.group(1))
check("every harness family has an adapter declaring it",
      [f["name"] for f in reg["families"] if "harness" in f["capabilities"]
       and f["name"] not in adapters])
bad = []
for fl in reg["flags"]:
    for fam in fl["families"]:
        page = open(os.path.join(top, "docs", "families", fam + ".md")).read()
        if "| `%s` |" % fl["flag"] not in page:
            bad.append("%s: no row in docs/families/%s.md" % (fl["flag"], fam))
    if "releases" in fl and fl["flag"] not in open(os.path.join(top, "docs",
                                                                  "torch-releases.md")).read():
        bad.append("%s: not in docs/torch-releases.md" % fl["flag"])
check("every flag has its row on its families' doc pages", bad)
# The fuzz tables name a family by its index (their seeds' byte 0), so they keep their own
# order (registry_lint.allow); they must still hold every family.
bad = []
for path, rx in (("fuzz/fuzz_verify_diff.c", r"families\[\]\s*=\s*\{([^}]*)\}"),
                 ("fuzz/make_seeds.py", r"VERIFY_FAMILIES\s*=\s*\[([^\]]*)\]")):
    m = re.search(rx, open(os.path.join(top, path)).read())
    got = sorted(re.findall(r'"([^"]+)"', m.group(1))) if m else []
    if got != sorted(fams):
        bad.append("%s: %s" % (path, got))
check("the fuzz tables hold every family", bad)
check("some flags are decided by a torch release",
      [] if any("releases" in fl for fl in reg["flags"]) else ["none"])
PYEOF
while read -r line; do
  case $line in "ok "*) tap_ok "${line#ok }" ;; *) tap_not_ok "${line#not ok }" ;; esac
done <"$tmp/checks"
[ -s "$tmp/checks" ] || tap_not_ok "the registry's JSON was checked" "python printed nothing"

# Every release, by its name and by its patch, is one --torch-version takes; the refusal of
# another lists exactly the registry's releases, in its order.
"$S" registry releases >"$tmp/rel" 2>&1
bad=; want=
while read -r name patch rest; do
  for v in "$name" "$patch"; do
    "$S" plan --mesh 2 --shape 4 --src 'S(0)' --dst R --torch-version "$v" >/dev/null 2>&1 \
      || bad="$bad $v"
  done
  tag=; case " $rest " in *" pinned "*) tag=", the pinned default" ;; esac
  want="$want${want:+, }$name ($patch$tag)"
done <"$tmp/rel"
[ -z "$bad" ] && [ -n "$want" ] && tap_ok "--torch-version takes every release and patch the registry lists" \
  || tap_not_ok "--torch-version takes every release and patch the registry lists" "refused:$bad"
"$S" plan --mesh 2 --shape 4 --src 'S(0)' --dst R --torch-version 1.0 >/dev/null 2>"$tmp/refusal"
grep -qF "supported: $want" "$tmp/refusal" && tap_ok "the refusal lists exactly the registry's releases" \
  || tap_not_ok "the refusal lists exactly the registry's releases" "want: $want" "$(cat "$tmp/refusal")"

# Every backend's spelling is one `run --backend` documents.
"$S" run --help >"$tmp/runhelp" 2>&1
bad=
for u in $("$S" registry backends | cut -d' ' -f2); do grep -qF -- "$u" "$tmp/runhelp" || bad="$bad $u"; done
[ -z "$bad" ] && tap_ok "every backend is one run --backend names" \
  || tap_not_ok "every backend is one run --backend names" "missing:$bad"

# A waiver's "backends" takes every backend (tools/run/waivers.c asks the same table).
printf '{"waivers": [{"family": "threefry", "tcIds": [1], "reason": "r", "backends": ["x"]}]}\n' \
  >"$tmp/w.json"
"$S" run --backend ref --family threefry --golden "$G" --waivers "$tmp/w.json" >/dev/null 2>"$tmp/werr"
want=$("$S" registry --names backends | tr '\n' ',' | sed 's/,/, /g')
grep -qF "expected one of ${want}candidate, harness)" "$tmp/werr" \
  && tap_ok "a waiver's refused backend: the refusal names every backend" \
  || tap_not_ok "a waiver's refused backend: the refusal names every backend" "$(cat "$tmp/werr")"

# The text forms say what the JSON says.
"$PY" -c 'import json,sys; print("\n".join(f["name"] for f in json.load(open(sys.argv[1]))["families"]))' \
  "$tmp/reg.json" >"$tmp/jfam"
"$S" registry --names families >"$tmp/tfam"
cmp -s "$tmp/jfam" "$tmp/tfam" && tap_ok "--names families is the JSON's family list" \
  || tap_not_ok "--names families is the JSON's family list" "$(diff "$tmp/jfam" "$tmp/tfam" | head -5)"
"$S" registry --names --capable releases families >"$tmp/cap"
"$PY" -c 'import json,sys; print("\n".join(f["name"] for f in json.load(open(sys.argv[1]))["families"] if f["releases"]))' \
  "$tmp/reg.json" >"$tmp/jcap"
cmp -s "$tmp/jcap" "$tmp/cap" && tap_ok "--capable releases: the families answering per release" \
  || tap_not_ok "--capable releases: the families answering per release" "$(diff "$tmp/jcap" "$tmp/cap" | head -5)"

# The harness asks the binary: its releases are the registry's.
SHARDCHECK=$S "$PY" -c 'import sys; sys.path.insert(0, sys.argv[1]); import harnesslib as hl
print(" ".join("%s %s" % kv for kv in hl.patches().items()), hl.pinned_release())' \
  "$top_srcdir/tools/harness" >"$tmp/hl" 2>&1
w=$(awk '{s = s (NR > 1 ? " " : "") $1 " " $2} / pinned/ {p = $1} END {print s " " p}' "$tmp/rel")
[ "$(cat "$tmp/hl")" = "$w" ] && tap_ok "the harness's releases are the registry's" \
  || tap_not_ok "the harness's releases are the registry's" "harness: $(cat "$tmp/hl")" "registry: $w"

# Refusals: exit 2 naming what is wrong.
expect_exit "an unknown section" 2 "unknown section 'nope'" "$S" registry nope
expect_exit "an unknown capability" 2 "--capable: unknown capability 'gpu'" "$S" registry --capable gpu
expect_exit "--json with --names" 2 "exclude each other" "$S" registry --json --names
expect_exit "flags from a corpus that is not there" 2 "/nowhere/shard-layout" \
  "$S" registry flags --golden /nowhere
mkdir -p "$tmp/g/shard-layout"
printf '{"schema":"x"}\n' >"$tmp/g/shard-layout/a.json"
expect_exit "a golden file without notes" 2 'a.json: its first line holds no "notes"' \
  "$S" registry flags --golden "$tmp/g"
expect_exit "releases need no corpus" 0 "^2\.[0-9]+ 2\.[0-9]+\.[0-9]+ pinned$" \
  env SHARDCHECK_GOLDEN=/nowhere "$S" registry releases
tap_done
