"""test_schemas_sh.py — conformance/tests/schemas.sh must be able to fail.

Runs the TAP shell test on a throw-away top_srcdir holding the toy family
(conftest.py): a valid file gives "ok" lines and exit 0; a schema violation, a
wrong "schema" name, a schema that accepts anything, a property without a
description or a family schema that redefines or restates what common.json
defines gives "not ok" and exit 1; a common.json reference is resolved; without a usable python the test is a TAP skip, never a pass.
"""

import copy
import json
import os
import shutil
import subprocess
import sys

from conftest import HARNESS, TOY_SCHEMA, write_golden

REPO = os.path.dirname(os.path.dirname(HARNESS))
SCRIPT = os.path.join(REPO, "conformance", "tests", "schemas.sh")


def make_top(tmp_path, doc=None, schema=None):
    top = str(tmp_path / "top")
    os.makedirs(os.path.join(top, "conformance", "tests"))
    os.makedirs(os.path.join(top, "tools"))
    shutil.copy(os.path.join(REPO, "conformance", "tests", "testlib.sh"),
                os.path.join(top, "conformance", "tests", "testlib.sh"))
    os.symlink(HARNESS, os.path.join(top, "tools", "harness"))
    write_golden(os.path.join(top, "golden"), doc, schema)
    return top


def run(top, python=sys.executable):
    env = dict(os.environ, top_srcdir=top, SHARDCHECK_PYTHON=python)
    p = subprocess.run(["sh", SCRIPT], capture_output=True, text=True, env=env, timeout=120)
    return p.returncode, p.stdout


def test_valid_golden_passes(tmp_path):
    rc, out = run(make_top(tmp_path))
    assert rc == 0, out
    assert "ok 1 - schema toy_v1.json is a valid draft 2020-12 schema" in out
    assert "ok 2 - toy/a.json matches toy_v1.json (5 tests)" in out
    assert out.rstrip().endswith("1..2")


def test_schema_violation_fails(tmp_path, toy_doc):
    toy_doc["testGroups"][0]["scale"] = "two"
    rc, out = run(make_top(tmp_path, toy_doc))
    assert rc == 1
    assert "not ok 2 - toy/a.json matches toy_v1.json" in out
    assert "at /testGroups/0/scale" in out


def test_wrong_schema_name_fails(tmp_path, toy_doc):
    toy_doc["schema"] = "other_v1.json"
    rc, out = run(make_top(tmp_path, toy_doc))
    assert rc == 1 and "\"schema\" is 'other_v1.json', want 'toy_v1.json'" in out


def test_schema_that_accepts_anything_fails(tmp_path):
    loose = {"$schema": TOY_SCHEMA["$schema"], "type": "object"}
    rc, out = run(make_top(tmp_path, schema=loose))
    assert rc == 1 and "accepts an empty object" in out


def test_no_python_is_a_skip(tmp_path):
    rc, out = run(make_top(tmp_path), python="/nonexistent/python")
    assert rc == 0 and "# SKIP no python venv at /nonexistent/python" in out


def test_truncated_golden_fails(tmp_path):
    top = make_top(tmp_path)
    path = os.path.join(top, "golden", "toy", "a.json")
    with open(path) as fh:
        text = fh.read()
    with open(path, "w") as fh:
        fh.write(text[:40])
    rc, out = run(top)
    assert rc == 1 and "toy/a.json: unreadable" in out


COMMON = {"$schema": TOY_SCHEMA["$schema"], "$id": "common.json", "description": "shared",
          "$defs": {"tcId": {"type": "integer", "minimum": 1, "description": "the id"}}}


def with_common(top, common=COMMON):
    with open(os.path.join(top, "golden", "schemas", "common.json"), "w") as fh:
        json.dump(common, fh)
    return top


def toy_tests(schema):
    return schema["properties"]["testGroups"]["items"]["properties"]["tests"]["items"]


def test_property_without_description_fails(tmp_path):
    schema = copy.deepcopy(TOY_SCHEMA)
    del schema["properties"]["testGroups"]["items"]["properties"]["scale"]["description"]
    rc, out = run(make_top(tmp_path, schema=schema))
    assert rc == 1 and "not ok 1 - schema toy_v1.json: 1 finding(s)" in out
    assert "toy_v1.json: property /properties/testGroups/items/properties/scale has no " \
        "description" in out


def test_common_reference_is_resolved_and_described(tmp_path, toy_doc):
    schema = copy.deepcopy(TOY_SCHEMA)
    toy_tests(schema)["properties"]["tcId"] = {"$ref": "common.json#/$defs/tcId"}
    top = with_common(make_top(tmp_path, schema=schema))
    rc, out = run(top)
    assert rc == 0 and "ok 1 - schema common.json is a valid" in out, out
    toy_doc["testGroups"][0]["tests"][0]["tcId"] = 0   # common.json's minimum
    write_golden(os.path.join(top, "golden"), toy_doc, schema)
    with_common(top)
    rc, out = run(top)
    assert rc == 1 and "at /testGroups/0/tests/0/tcId: 0 is less than the minimum of 1" in out
    undescribed = copy.deepcopy(COMMON)
    del undescribed["$defs"]["tcId"]["description"]
    rc, out = run(with_common(top, undescribed))
    assert rc == 1 and "property /$defs/test" not in out
    assert "/items/properties/tcId has no description" in out


def test_redefining_common_fails(tmp_path):
    schema = copy.deepcopy(TOY_SCHEMA)
    schema["$defs"] = {"tcId": {"type": "integer", "minimum": 1, "description": "mine"}}
    rc, out = run(with_common(make_top(tmp_path, schema=schema)))
    assert rc == 1 and "$defs/tcId redefines common.json#/$defs/tcId: refer to it" in out
    rc, out = run(with_common(make_top(tmp_path / "inline")))   # TOY_SCHEMA inlines tcId
    assert rc == 1 and "/items/properties/tcId restates common.json#/$defs/tcId" in out
