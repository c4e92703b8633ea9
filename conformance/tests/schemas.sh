#!/bin/sh
# schemas.sh — every golden/<family>/*.json is valid against golden/schemas/<family>_v1.json.
#
# What it is for: `make check` proves each golden file matches its family's
# JSON Schema (draft 2020-12: python jsonschema-rs when installed, else
# jsonschema; tools/harness/harnesslib.py) plus the checks a schema cannot
# express (numberOfTests, unique tcId across the family, declared flags); each
# schema must itself be a valid 2020-12 schema and must reject an empty object
# (a schema that accepts anything cannot fail).  Python comes from
# $SHARDCHECK_PYTHON or $top_srcdir/.venv (tools/harness/setup_venv.sh);
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

schemas = os.path.join(golden, "schemas")
names = sorted(f for f in os.listdir(schemas) if f.endswith("_v1.json")) if os.path.isdir(schemas) else []
for name in names:
    try:
        with open(os.path.join(schemas, name)) as fh:
            sch = json.load(fh)
        jsonschema.Draft202012Validator.check_schema(sch)
        if "2020-12" not in sch.get("$schema", ""):
            raise ValueError("$schema is not draft 2020-12")
        if jsonschema.Draft202012Validator(sch).is_valid({}):
            raise ValueError("accepts an empty object")
        print("ok - schema %s is a valid draft 2020-12 schema" % name)
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
