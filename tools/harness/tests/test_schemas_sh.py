"""test_schemas_sh.py — conformance/tests/schemas.sh must be able to fail.

Runs the TAP shell test on a throw-away top_srcdir holding the toy family
(conftest.py): a valid file gives "ok" lines and exit 0; a schema violation, a
wrong "schema" name or a schema that accepts anything gives "not ok" and exit
1; without a usable python the test is a TAP skip, never a pass.
"""

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
