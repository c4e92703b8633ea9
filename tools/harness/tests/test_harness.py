"""test_harness.py — the harness must report every kind of disagreement.

Each test runs harnesslib/run.py over the toy golden family (conftest.py) with
a correct or a deliberately broken adapter and asserts the exact report:
a tampered golden value names tcId, field and rank; an adapter that raises on
a valid case, or accepts an invalid one, is a failure; schema violations,
duplicate tcIds and a wrong numberOfTests are failures; skips are counted as
skips and never as passes.
"""

import json
import os
import subprocess

import pytest

from conftest import HARNESS, fixture_adapter, write_golden, python_cmd
import harnesslib as hl

RUN = os.path.join(HARNESS, "run.py")


def run_toy(golden, adapter="toy_good", **kw):
    mod = hl.load_adapter(fixture_adapter(adapter))
    return hl.run_family("toy", mod, golden, **kw)


def run_cli(*args):
    p = subprocess.run(python_cmd() + [RUN] + list(args), capture_output=True, text=True,
                       timeout=300)
    return p.returncode, p.stdout, p.stderr


def test_correct_adapter_passes(toy_golden):
    res = run_toy(toy_golden)
    assert (res.passed, res.failed, res.skipped) == (4, 0, 1)
    assert res.mismatches == []
    assert res.skip_reasons == {"toy adapter does not do this": 1}
    # 3 + 2 + 1 ranks of valid/acceptable cases (the invalid case has none)
    assert res.rank_values == 6


def test_tampered_value_is_reported_with_tcid_field_rank(tmp_path, toy_doc):
    toy_doc["testGroups"][1]["tests"][0]["expected"]["perRank"]["scaled"][1] = 22
    res = run_toy(write_golden(str(tmp_path), toy_doc))
    assert res.failed == 1 and res.passed == 3
    (m,) = res.mismatches
    assert (m.tcid, m.field, m.rank, m.expected, m.got) == (4, "scaled", 1, 22, 21)
    assert "tcId=4 field=scaled rank=1" in str(m) and "expected 22 got 21" in str(m)


def test_tampered_rank_independent_field(tmp_path, toy_doc):
    toy_doc["testGroups"][0]["tests"][0]["expected"]["total"] = "7"
    res = run_toy(write_golden(str(tmp_path), toy_doc))
    (m,) = res.mismatches
    assert (m.tcid, m.field, m.rank) == (1, "total", None)


def test_wrong_rank_count_is_reported(tmp_path, toy_doc):
    toy_doc["testGroups"][0]["tests"][0]["expected"]["perRank"]["scaled"].append(8)
    res = run_toy(write_golden(str(tmp_path), toy_doc))
    (m,) = res.mismatches
    assert m.tcid == 1 and "length" in m.note


def test_adapter_raising_on_valid_case_is_a_mismatch(toy_golden):
    res = run_toy(toy_golden, "toy_raises")
    # the invalid case passes (it raised); the four others fail
    assert (res.passed, res.failed) == (1, 4)
    assert {m.tcid for m in res.mismatches} == {1, 3, 4, 5}
    assert all("adapter raised" in m.note and "boom" in m.note for m in res.mismatches)


def test_invalid_case_accepted_is_a_mismatch(toy_golden):
    res = run_toy(toy_golden, "toy_accepts")
    bad = [m for m in res.mismatches if m.tcid == 2]
    assert len(bad) == 1 and "invalid case accepted" in bad[0].note
    assert bad[0].expected == "negative value"


def test_adapter_cannot_read_the_answer(toy_golden):
    res = run_toy(toy_golden, "toy_cheat")
    # "expected" and "result" are hidden: reading them raises KeyError, so
    # every valid case fails (the invalid one passes only because it raised)
    assert res.passed == 1 and res.failed == 4
    assert all("KeyError" in m.note for m in res.mismatches)


def test_acceptable_without_matching_alternative_fails(tmp_path, toy_doc):
    toy_doc["testGroups"][0]["tests"][2]["expected"]["alternatives"] = []
    res = run_toy(write_golden(str(tmp_path), toy_doc))
    assert [m.tcid for m in res.mismatches] == [3]


@pytest.fixture(params=["fast", "pure"])
def validator_kind(request, monkeypatch):
    """Run a schema test with jsonschema_rs (when installed) and with jsonschema."""
    if request.param == "pure":
        monkeypatch.setenv("SHARDCHECK_PURE_JSONSCHEMA", "1")
    else:
        pytest.importorskip("jsonschema_rs")
        monkeypatch.delenv("SHARDCHECK_PURE_JSONSCHEMA", raising=False)
    return request.param


def test_schema_violation_is_reported(tmp_path, toy_doc, validator_kind):
    toy_doc["testGroups"][0]["tests"][0]["values"] = [1, "2", 3]
    res = run_toy(write_golden(str(tmp_path), toy_doc))
    schema = [m for m in res.mismatches if m.field == "schema"]
    assert len(schema) == 1 and "testGroups/0/tests/0/values/1" in schema[0].note
    assert "is not of type" in schema[0].note
    # --no-schema turns the JSON Schema check off (the adapter then sees "2")
    res2 = run_toy(str(tmp_path), schema=False)
    assert not [m for m in res2.mismatches if m.field == "schema"]


def test_structure_errors_are_reported(tmp_path, toy_doc):
    toy_doc["testGroups"][1]["tests"][0]["tcId"] = 1
    toy_doc["numberOfTests"] = 9
    toy_doc["testGroups"][0]["tests"][0]["flags"] = ["Undeclared"]
    res = run_toy(write_golden(str(tmp_path), toy_doc))
    notes = " | ".join(m.note for m in res.mismatches if m.field == "schema")
    assert "duplicate tcId 1" in notes
    assert "numberOfTests is 9 but the file holds 5 tests" in notes
    assert "flag Undeclared not declared" in notes


def test_many_schema_errors_are_capped(tmp_path, toy_doc, validator_kind):
    toy_doc["testGroups"][0]["tests"][0]["values"] = ["x"] * 50
    res = run_toy(write_golden(str(tmp_path), toy_doc), max_cases=0)
    notes = [m.note for m in res.mismatches if m.field == "schema"]
    assert len(notes) == 21 and notes[-1].endswith("(more schema errors not shown)")


def test_missing_schema_file_is_reported(tmp_path, toy_doc):
    toy_doc["schema"] = "nope_v1.json"
    res = run_toy(write_golden(str(tmp_path), toy_doc))
    assert any("schema nope_v1.json not found" in m.note for m in res.mismatches)


def test_truncated_file_is_reported(toy_golden):
    path = os.path.join(toy_golden, "toy", "a.json")
    with open(path) as fh:
        text = fh.read()
    with open(path, "w") as fh:
        fh.write(text[: len(text) // 2])
    res = run_toy(toy_golden)
    assert res.failed == 1 and "cannot read golden file" in res.mismatches[0].note


def test_max_cases_and_tcid_filter(toy_golden):
    assert run_toy(toy_golden, max_cases=2).passed == 2
    res = run_toy(toy_golden, tcids={4})
    assert (res.passed, res.failed, res.skipped) == (1, 0, 0)


def test_prepare_hears_the_tests_about_to_be_asked(toy_golden):
    # the hint names, per group, exactly the tests about to be asked, with their inputs only
    mod = hl.load_adapter(fixture_adapter("toy_good"))
    heard = []
    mod.prepare = lambda group, tests: heard.append(
        (group["scale"], [t["tcId"] for t in tests], sorted({k for t in tests for k in t})))
    hl.run_family("toy", mod, toy_golden)
    inputs = ["comment", "flags", "tcId", "values"]
    assert heard == [(2, [1, 2, 3], inputs), (3, [4, 5], inputs)]
    heard.clear()
    hl.run_family("toy", mod, toy_golden, stride=2)  # tests 0, 2, 4 in file order
    assert [(g, ids) for g, ids, _ in heard] == [(2, [1, 3]), (3, [5])]
    heard.clear()
    hl.run_family("toy", mod, toy_golden, max_cases=2)
    assert [(g, ids) for g, ids, _ in heard] == [(2, [1, 2])]


def test_a_failing_prepare_changes_no_outcome(toy_golden):
    mod = hl.load_adapter(fixture_adapter("toy_good"))
    want = hl.run_family("toy", mod, toy_golden)

    def boom(group, tests):
        raise RuntimeError("hint failed")
    mod.prepare = boom
    got = hl.run_family("toy", mod, toy_golden)
    assert (got.passed, got.failed, got.skipped) == (want.passed, want.failed, want.skipped)
    assert got.mismatches == []


def test_values_equal_is_exact():
    assert hl.values_equal("6", 6) and hl.values_equal([["6"]], [[6]])
    assert not hl.values_equal(1, True) and not hl.values_equal(1, 1.0)
    assert not hl.values_equal("6", "6.0") and not hl.values_equal([1], [1, 2])
    assert hl.values_equal("-12345678901234567890", -12345678901234567890)
    assert not hl.values_equal({"a": 1}, {"a": 1, "b": 2})
    assert hl.normalize((1, (2, 3))) == [1, [2, 3]]


def test_adapter_contract_is_checked():
    with pytest.raises(TypeError, match="FAMILY"):
        hl.load_adapter(fixture_adapter("toy_nofamily"))


# ---- the command line ----

def test_cli_pass_exit_0_and_closing_line(toy_golden):
    rc, out, err = run_cli("--golden", toy_golden, "--adapter", fixture_adapter("toy_good"))
    assert rc == 0, err
    assert out.splitlines()[-1] == "4 passed, 0 failed, 1 skipped"


def test_cli_mismatch_exit_1_prints_every_mismatch(tmp_path, toy_doc):
    toy_doc["testGroups"][0]["tests"][0]["expected"]["perRank"]["scaled"] = [0, 0, 0]
    write_golden(str(tmp_path), toy_doc)
    rc, out, _ = run_cli("--golden", str(tmp_path), "--adapter", fixture_adapter("toy_good"))
    assert rc == 1
    lines = [l for l in out.splitlines() if l.startswith("MISMATCH")]
    assert len(lines) == 3
    assert lines[2] == "MISMATCH toy tcId=1 field=scaled rank=2: expected 0 got 6"
    assert out.splitlines()[-1] == "3 passed, 1 failed, 1 skipped"


def test_cli_json(toy_golden):
    rc, out, _ = run_cli("--golden", toy_golden, "--adapter", fixture_adapter("toy_raises"),
                         "--json")
    doc = json.loads(out)
    assert rc == 1 and doc["failed"] == 4 and doc["passed"] == 1
    assert doc["families"][0]["mismatches"][0]["tcid"] == 1


def test_cli_bad_usage_exit_2(toy_golden):
    assert run_cli("--golden", "/nonexistent/dir")[0] == 2
    rc, _, err = run_cli("--golden", toy_golden, "--adapter", fixture_adapter("toy_nofamily"))
    assert rc == 2 and "FAMILY" in err
    rc, _, err = run_cli("--golden", toy_golden, "--adapter", fixture_adapter("toy_good"),
                         "--family", "nosuch")
    assert rc == 2 and "no adapter for family nosuch" in err
    assert run_cli("--max-cases", "-1")[0] == 2
