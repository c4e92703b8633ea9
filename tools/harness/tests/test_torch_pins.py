"""test_torch_pins.py — what PyTorch's own DTensor tests assert, asked of real torch.

Issue 34 item 6.  Every row of conformance/torch_pins/*.json with a "torch" probe is computed
by the torch this venv imports (pins/, torch's own functions) and compared with the value the
row says torch's test asserts; conformance/tests/torch_pins.py asks the built shardcheck the
same rows in make check.  Rows no CPU torch can compute carry "no_torch" (with why) and are
counted, not run.  A table with no rows, or a row without a probe or its reason, fails.
"""

import glob
import json
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
HARNESS = os.path.dirname(HERE)
REPO = os.path.dirname(os.path.dirname(HARNESS))
sys.path.insert(0, HARNESS)
sys.path.insert(0, os.path.join(REPO, "conformance", "tests"))

import pins  # noqa: E402
from torch_pins import agree, dig, row_problem  # noqa: E402

torch = pytest.importorskip("torch")

TABLES = sorted(glob.glob(os.path.join(REPO, "conformance", "torch_pins", "*.json")))


def rows():
    out = []
    for path in TABLES:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        for row in doc["rows"]:
            out.append(pytest.param(row, id=f"{os.path.basename(path)[:-5]}:{row['id']}"))
    return out


ROWS = rows()


def test_tables_have_rows():
    assert TABLES, "no conformance/torch_pins/*.json"
    for path in TABLES:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        assert doc.get("rows"), f"{path}: no rows"
        assert doc.get("torch_test") and doc.get("assertions"), f"{path}: header incomplete"


@pytest.mark.parametrize("row", ROWS)
def test_row(row):
    assert row_problem(row) is None, row_problem(row)
    if "no_torch" in row:
        pytest.skip(f"no CPU torch computes it: {row['no_torch']}")
    spec = row["torch"]
    got = pins.probe(spec["probe"])(**spec.get("args", {}))
    if "want_error" in row:
        assert isinstance(got, dict) and "error" in got, f"torch did not refuse: {got}"
        assert row["want_error"] in got["error"], got["error"]
    else:  # a want_contains row may read a refusal the answer reports (its "get")
        if "want" in row:
            assert not (isinstance(got, dict) and "error" in got), f"torch refused: {got['error']}"
        why = agree(dig(got, spec.get("get")), row)
        assert why is None, why
