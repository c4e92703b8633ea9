#!/bin/sh
# schemas.sh — every golden/<family>/*.json is valid against golden/schemas/<family>_v1.json,
# and the schemas say what every field means.
#
# What it is for: `make check` proves each golden file matches its family's
# JSON Schema (draft 2020-12: python jsonschema-rs when installed, else
# jsonschema; tools/harness/harnesslib.py) plus the checks a schema cannot
# express (numberOfTests, unique tcId across the family, declared flags); each
# schema must itself be a valid 2020-12 schema and must reject an empty object
# (a schema that accepts anything cannot fail).  Field meanings live in the
# schemas (docs/families is rendered from them): every property of every schema
# has a description (its own or that of the definition it refers to), and what
# golden/schemas/common.json defines (the $defs every family shares, referred to
# as common.json#/$defs/<name>) no family schema redefines or restates inline.
# Python comes from $SHARDCHECK_PYTHON or $top_srcdir/.venv (tools/harness/setup_venv.sh);
# without one, or without jsonschema in it, the test is a TAP skip.
# How it is tested: tools/harness/tests/test_schemas_sh.py runs it on good and
# deliberately broken golden trees (and without python: a skip).
. "$(dirname "$0")/testlib.sh"

py=${SHARDCHECK_PYTHON:-$top_srcdir/.venv/bin/python}
[ -x "$py" ] || skip_all "no python venv at $py (run tools/harness/setup_venv.sh or set SHARDCHECK_PYTHON)"
"$py" -c "import jsonschema" 2>/dev/null || skip_all "python jsonschema not installed in $py"

# The Python part prints TAP lines without numbers ("ok - ..."/"not ok - ...").
out=$("$py" - "$top_srcdir/golden" "$top_srcdir/tools/harness" <<'PY'
import json, os, sys
golden, harness = sys.argv[1], sys.argv[2]
sys.path.insert(0, harness)
import jsonschema
import harnesslib as hl

def bare(v):
    """v without its descriptions: what it accepts."""
    if isinstance(v, dict):
        return {k: bare(x) for k, x in v.items() if k != "description"}
    return [bare(x) for x in v] if isinstance(v, list) else v


def target(ref, doc, common):
    """The node a $ref names, in doc or (common.json#...) in common; None when absent."""
    base, _, ptr = ref.partition("#")
    node = common if base == "common.json" else doc if not base else None
    for part in ptr.lstrip("/").split("/") if node is not None and ptr else []:
        node = node.get(part) if isinstance(node, dict) else None
    return node


def lint(name, doc, common):
    """Field meanings live in the schemas: every property has a description (its own, or the
    one of the definition it refers to), and a family schema neither redefines nor restates
    inline what common.json defines."""
    errs, cdefs = [], (common or {}).get("$defs", {})
    def walk(v, path):
        if isinstance(v, list):
            for i, x in enumerate(v):
                walk(x, "%s/%d" % (path, i))
        if not isinstance(v, dict):
            return
        props = v.get("properties")
        for k, x in (props.items() if isinstance(props, dict) else []):
            p = "%s/properties/%s" % (path, k)
            if not isinstance(x, dict):
                continue
            t = target(x["$ref"], doc, common) if isinstance(x.get("$ref"), str) else None
            if not x.get("description") and not (isinstance(t, dict) and t.get("description")):
                errs.append("property %s has no description" % p)
            if name != "common.json" and k in cdefs and "$ref" not in x and \
                    bare(x) == bare(cdefs[k]):
                errs.append("property %s restates common.json#/$defs/%s: refer to it" % (p, k))
        for k, x in v.items():
            walk(x, "%s/%s" % (path, k))
    walk(doc, "")
    for k in doc.get("$defs", {}) if name != "common.json" else []:
        if k in cdefs:
            errs.append("$defs/%s redefines common.json#/$defs/%s: refer to it" % (k, k))
    return errs


schemas = os.path.join(golden, "schemas")
names = sorted(f for f in os.listdir(schemas) if f.endswith("_v1.json")) if os.path.isdir(schemas) else []
common = None
if os.path.isfile(os.path.join(schemas, "common.json")):
    names.insert(0, "common.json")
for name in names:
    try:
        with open(os.path.join(schemas, name)) as fh:
            sch = json.load(fh)
        if name == "common.json":
            common = sch
        jsonschema.Draft202012Validator.check_schema(sch)
        if "2020-12" not in sch.get("$schema", ""):
            raise ValueError("$schema is not draft 2020-12")
        # common.json holds definitions only: it accepts anything by design
        path = os.path.join(schemas, name)
        if name != "common.json" and not list(hl.schema_validator(path)({})):
            raise ValueError("accepts an empty object")
        errs = lint(name, sch, common)
        if errs:
            print("not ok - schema %s: %d finding(s): an undescribed property, common.json "
                  "redefined or restated" % (name, len(errs)))
            for e in errs:
                print("#   %s: %s" % (name, e))
        else:
            print("ok - schema %s is a valid draft 2020-12 schema, every property described, "
                  "nothing of common.json restated" % name)
    except Exception as e:
        print("not ok - schema %s: %s" % (name, str(e).splitlines()[0]))

fams = hl.families_in(golden)
if not fams:
    print("skip - golden files # no golden/<family>/*.json yet")
for fam in fams:
    sname = "%s_v1.json" % fam
    if not os.path.isfile(os.path.join(schemas, sname)):
        print("not ok - %s: golden/schemas/%s missing" % (fam, sname))
        continue
    seen = set()
    for path in hl.family_files(golden, fam):
        rel = os.path.relpath(path, golden)
        try:
            doc = hl.load_file(path)
        except (OSError, ValueError) as e:
            print("not ok - %s: unreadable: %s" % (rel, e))
            continue
        errs = []
        if doc.get("schema") != sname:
            errs.append("%s: \"schema\" is %r, want %r" % (rel, doc.get("schema"), sname))
        if doc.get("family") != fam:
            errs.append("%s: \"family\" is %r, want %r" % (rel, doc.get("family"), fam))
        errs += hl.schema_errors(dict(doc, schema=sname), golden, rel, seen=seen)
        if errs:
            print("not ok - %s matches %s" % (rel, sname))
            for e in errs:
                print("#   " + e)
        else:
            print("ok - %s matches %s (%d tests)" % (rel, sname, doc.get("numberOfTests", 0)))
PY
)
rc=$?
if [ $rc -ne 0 ]; then
  out="$out
not ok - schema validation ran to the end (python exited $rc)"
fi
# Renumber the Python output through testlib.sh.
printf '%s\n' "$out" | {
  while IFS= read -r line; do
    case $line in
      "ok - "*) tap_ok "${line#ok - }" ;;
      "not ok - "*) tap_not_ok "${line#not ok - }" ;;
      "skip - "*) rest=${line#skip - }; tap_skip "${rest%% \# *}" "${rest#* \# }" ;;
      "#"*) echo "$line" ;;
    esac
  done
  tap_done
}
