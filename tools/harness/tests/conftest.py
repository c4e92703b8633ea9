"""conftest.py — shared fixtures for the harness's own tests.

`toy_golden` writes a small golden directory for the "toy" family (schema
plus one file) into a temporary directory; tests tamper with it and run the
harness over it with the adapters in fixtures/.

A session that collected no test fails (exit 1) instead of pytest's exit 5,
so a filter that selects nothing can never pass as "ran fine".
"""

import copy
import json
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
HARNESS = os.path.dirname(HERE)
FIXTURES = os.path.join(HERE, "fixtures")
sys.path.insert(0, HARNESS)


def python_cmd():
    """How a test starts a harness script: this python, forked from the job's torch zygote
    where one runs (SHARDCHECK_TORCH_ZYGOTE, tools/harness/torch_zygote.py: a script that
    imports torch then starts without importing it again; issue 36, CI time)."""
    sock = os.environ.get("SHARDCHECK_TORCH_ZYGOTE")
    if sock:
        return [sys.executable, "-S", "-u", os.path.join(HARNESS, "torch_zygote.py"), "client", sock]
    return [sys.executable]

TOY_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["schema", "family", "source", "numberOfTests", "notes", "testGroups"],
    "properties": {
        "schema": {"const": "toy_v1.json", "description": "this schema"},
        "family": {"const": "toy", "description": "the family"},
        "numberOfTests": {"type": "integer", "minimum": 0, "description": "tests in the file"},
        "testGroups": {"description": "the groups", "type": "array", "items": {
            "type": "object", "required": ["scale", "tests"],
            "properties": {
                "scale": {"type": "integer", "description": "the factor"},
                "tests": {"description": "the group's tests", "type": "array", "items": {
                    "type": "object",
                    "required": ["tcId", "result", "values", "expected"],
                    "properties": {
                        "tcId": {"type": "integer", "minimum": 1, "description": "the id"},
                        "result": {"enum": ["valid", "invalid", "acceptable"],
                                   "description": "valid, invalid or acceptable"},
                        "values": {"type": "array", "items": {"type": "integer"},
                                   "description": "the inputs"},
                        "expected": {"type": "object", "description": "the answer"}}}}}}}},
}

TOY_DOC = {
    "schema": "toy_v1.json", "family": "toy",
    "source": {"name": "toy", "version": "1"},
    "numberOfTests": 5, "notes": {"Neg": "has a negative value"},
    "testGroups": [
        {"scale": 2, "tests": [
            {"tcId": 1, "comment": "", "flags": [], "result": "valid", "values": [1, 2, 3],
             "expected": {"total": "6", "perRank": {"scaled": [2, 4, 6]}}},
            {"tcId": 2, "comment": "", "flags": ["Neg"], "result": "invalid", "values": [1, -1],
             "expected": {"error": "negative value"}},
            {"tcId": 3, "comment": "", "flags": [], "result": "acceptable", "values": [5],
             "expected": {"total": "5", "perRank": {"scaled": [0]},
                          "alternatives": [{"total": "5", "perRank": {"scaled": [10]}}]}},
        ]},
        {"scale": 3, "tests": [
            {"tcId": 4, "comment": "", "flags": [], "result": "valid", "values": [0, 7],
             "expected": {"total": "7", "perRank": {"scaled": [0, 21]}}},
            {"tcId": 5, "comment": "skip me", "flags": [], "result": "valid", "values": [1],
             "expected": {"total": "1", "perRank": {"scaled": [3]}}},
        ]},
    ],
}


def write_golden(root, doc=None, schema=None, name="a.json"):
    os.makedirs(os.path.join(root, "schemas"), exist_ok=True)
    os.makedirs(os.path.join(root, "toy"), exist_ok=True)
    with open(os.path.join(root, "schemas", "toy_v1.json"), "w") as fh:
        json.dump(TOY_SCHEMA if schema is None else schema, fh)
    with open(os.path.join(root, "toy", name), "w") as fh:
        json.dump(TOY_DOC if doc is None else doc, fh)
    return root


@pytest.fixture
def toy_doc():
    return copy.deepcopy(TOY_DOC)


@pytest.fixture
def toy_golden(tmp_path):
    return write_golden(str(tmp_path))


def fixture_adapter(name):
    return os.path.join(FIXTURES, name + ".py")


def pytest_sessionfinish(session, exitstatus):
    if exitstatus == 5:  # pytest.ExitCode.NO_TESTS_COLLECTED
        session.exitstatus = 1
        sys.stderr.write("harness tests: no test was collected; failing on purpose\n")
