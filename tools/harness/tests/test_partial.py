"""test_partial.py — the public adapter contract: package, notation, partial adapters.

A vendor imports shardcheck_harness with no path edits (setup_venv.sh's .pth);
an adapter's FIELDS limits the comparison to what it computes, every other
expected field is NotSupported (never Fail), and a field it claims but leaves
out fails with a message naming it (run.py exit 1); a malformed FIELDS is bad
usage (exit 2).  The worked partial port (examples/) passes the whole
rng-offsets corpus on the fields it computes.
"""

import os
import subprocess
import sys

import pytest

from conftest import HARNESS, fixture_adapter, python_cmd
import harnesslib as hl
import shardcheck_harness as sh

RUN = os.path.join(HARNESS, "run.py")
EXAMPLE = os.path.join(HARNESS, "examples", "rng_offsets_partial.py")


def run_cli(*args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run(python_cmd() + [RUN] + list(args), capture_output=True, text=True,
                       timeout=600, env=e)
    return p.returncode, p.stdout, p.stderr


def test_package_imports_without_path_edits(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    p = subprocess.run([sys.executable, "-c",
                        "import shardcheck_harness as sh; print(sh.__name__, sh.run_family.__name__)"],
                       cwd=str(tmp_path), capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, ("shardcheck_harness must import from the venv "
                               "(run tools/harness/setup_venv.sh): " + p.stderr)
    assert p.stdout.split() == ["shardcheck_harness", "run_family"]


@pytest.mark.parametrize("text,kinds,order", [
    ("S(0),R,P(sum)", ["S", "R", "P"], None),
    ("_S(0, 2),S(1)", ["_S", "S"], None),
    ("S(0)[1]S(0)[0]R", ["S", "S", "R"], [1, 0, None]),
    ("R", ["R"], None),
])
def test_placements_round_trip(text, kinds, order):
    pl, got_order = sh.parse_placements(text)
    assert [p.kind for p in pl] == kinds and got_order == order
    assert sh.format_placements(pl, got_order) == text


def test_placement_fields_and_errors():
    (p,), _ = sh.parse_placements("_S(1, 4)")
    assert (p.dim, p.split_factor, p.is_shard) == (1, 4, True)
    for bad in ("S(x)", "Shard(0)", "S(0)R", "", "S(0)[1]Q"):
        with pytest.raises(ValueError):
            sh.parse_placements(bad)


def test_mesh_shape_and_coordinates():
    assert sh.parse_mesh("2x2x2") == [2, 2, 2] and sh.parse_mesh([4]) == [4]
    assert sh.parse_shape("13,2") == [13, 2] and sh.parse_shape([]) == []
    with pytest.raises(ValueError):
        sh.parse_mesh("2x0")
    with pytest.raises(ValueError):
        sh.parse_shape([3, -1])
    # rank map [3, 1, 2, 0] on a 2x2 mesh: rank 3 is at position 0 = (0, 0)
    ranks = sh.rank_map({"mesh": [2, 2], "rankMap": [3, 1, 2, 0]})
    assert sh.coordinates([2, 2], ranks) == [(1, 1), (0, 1), (1, 0), (0, 0)]
    with pytest.raises(ValueError):
        sh.rank_map({"mesh": [2], "rankMap": [0, 0]})


def test_iter_cases_withholds_answers(toy_golden):
    cases = list(sh.iter_cases("toy", toy_golden))
    assert [t["tcId"] for _, _, t in cases] == [1, 2, 3, 4, 5]
    assert all("expected" not in t and "result" not in t for _, _, t in cases)
    assert cases[0][1] == {"scale": 2}


def test_partial_adapter_reports_not_supported_never_fail(toy_golden):
    res = hl.run_family("toy", hl.load_adapter(fixture_adapter("toy_partial")), toy_golden)
    assert (res.passed, res.failed, res.skipped, res.not_supported) == (5, 0, 0, 0)
    # "total" is in the 4 valid/acceptable cases and not in the invalid one's expected
    assert res.not_supported_fields == {"total": 4} and res.partial == 4


def test_partial_adapter_still_fails_on_claimed_fields(tmp_path, toy_doc):
    from conftest import write_golden
    toy_doc["testGroups"][1]["tests"][0]["expected"]["perRank"]["scaled"][1] = 22
    toy_doc["testGroups"][1]["tests"][0]["expected"]["total"] = "999"
    res = hl.run_family("toy", hl.load_adapter(fixture_adapter("toy_partial")),
                        write_golden(str(tmp_path), toy_doc))
    (m,) = res.mismatches
    assert (m.tcid, m.field, m.rank, res.failed) == (4, "scaled", 1, 1)


def test_case_with_no_claimed_field_is_not_supported(tmp_path, toy_doc):
    from conftest import write_golden
    toy_doc["testGroups"][1]["tests"][0]["expected"] = {"total": "7"}
    res = hl.run_family("toy", hl.load_adapter(fixture_adapter("toy_partial")),
                        write_golden(str(tmp_path), toy_doc))
    assert (res.passed, res.failed, res.not_supported) == (4, 0, 1)


def test_claimed_field_omitted_fails_exit_1(toy_golden):
    rc, out, _ = run_cli("--golden", toy_golden, "--adapter", fixture_adapter("toy_partial"),
                         env={"SHC_TOY_PARTIAL_OMIT": "1"})
    assert rc == 1
    assert ("MISMATCH toy tcId=1 field=total: field claimed in FIELDS but missing from the "
            "result: expected 6 got null") in out
    assert out.strip().splitlines()[-1] == "1 passed, 4 failed"


def test_cli_partial_summary_exit_0(toy_golden):
    rc, out, _ = run_cli("--golden", toy_golden, "--adapter", fixture_adapter("toy_partial"))
    assert rc == 0, out
    assert "#   NotSupported fields (cases): total (4); 0 cases NotSupported as a whole, " \
           "4 passed on their claimed fields only" in out
    assert out.strip().splitlines()[-1] == "5 passed, 0 failed"


def test_malformed_fields_is_bad_usage_exit_2(toy_golden):
    rc, _, err = run_cli("--golden", toy_golden, "--adapter", fixture_adapter("toy_badfields"))
    assert rc == 2
    assert "FIELDS must be a non-empty set of field names, got 'scaled'" in err


def test_worked_partial_port_passes_rng_offsets():
    if not hl.family_files(hl.DEFAULT_GOLDEN, "rng-offsets"):
        pytest.fail("golden/rng-offsets is missing")
    res = hl.run_family("rng-offsets", hl.load_adapter(EXAMPLE), schema=False)
    assert res.failed == 0, [str(m) for m in res.mismatches[:5]]
    assert res.passed > 10000
    # what it does not port is skipped (never passed) and named
    assert set(res.skip_reasons) == {"_StridedShard is not ported by mini_rng_tracker",
                                     "the op dimension is not ported by mini_rng_tracker"}
    assert {"local_numel", "findings"} <= set(res.not_supported_fields)
    # the random-data group has none of its fields: NotSupported as a whole
    assert res.not_supported >= 1 and "digest" in res.not_supported_fields


def test_coverage_reports_lines_branches_and_lcov(toy_golden, tmp_path):
    impl = fixture_adapter("toy_impl")
    lcov = str(tmp_path / "v.info")
    rc, out, err = run_cli("--golden", toy_golden, "--adapter", fixture_adapter("toy_covered"),
                           "--coverage", impl, "--lcov", lcov)
    assert rc == 0, err
    row = [l for l in err.splitlines() if l.split()[:1] and l.split()[0].endswith("toy_impl.py")]
    assert len(row) == 1, err
    # never_called's two lines are uncovered: "Missing" names them
    assert row[0].split()[-1] == "15-16", row[0]
    assert "# coverage: " in err and "lcov tracefile " + lcov in err
    text = open(lcov).read()
    assert [l for l in text.splitlines() if l.startswith("SF:") and l.endswith("toy_impl.py")]
    assert "DA:15,0" in text and "BRDA:" in text
    assert text.rstrip().endswith("end_of_record")


def test_coverage_bad_input_exit_2(toy_golden, tmp_path):
    rc, _, err = run_cli("--golden", toy_golden, "--adapter", fixture_adapter("toy_covered"),
                         "--coverage", "no_such_vendor_module")
    assert rc == 2 and "--coverage no_such_vendor_module: none of its code ran" in err
    rc, _, err = run_cli("--golden", toy_golden, "--adapter", fixture_adapter("toy_covered"),
                         "--coverage", fixture_adapter("toy_impl"),
                         "--lcov", str(tmp_path / "nodir" / "v.info"))
    assert rc == 2 and "--lcov %s: cannot write: no such directory %s" \
        % (tmp_path / "nodir" / "v.info", tmp_path / "nodir") in err
    rc, _, err = run_cli("--golden", toy_golden, "--lcov", str(tmp_path / "v.info"))
    assert rc == 2 and "--lcov needs --coverage MODULE" in err


def test_acceptable_rejection_or_reference_answer(tmp_path, toy_doc):
    """StricterThanSeed: shardcheck rejects (expected.error), a reference answers
    (expected.alternatives); a rejection passes, an answer must equal an alternative."""
    from conftest import write_golden
    toy_doc["testGroups"][0]["tests"][2] = {
        "tcId": 3, "comment": "", "flags": [], "result": "acceptable", "values": [5],
        "expected": {"error": "shardcheck rejects", "alternatives": [
            {"total": "5", "perRank": {"scaled": [10]}}]}}
    golden = write_golden(str(tmp_path), toy_doc)
    good = hl.run_family("toy", hl.load_adapter(fixture_adapter("toy_good")), golden)
    assert good.failed == 0, [str(m) for m in good.mismatches]
    raises = hl.run_family("toy", hl.load_adapter(fixture_adapter("toy_raises")), golden)
    assert 3 not in {m.tcid for m in raises.mismatches}
    toy_doc["testGroups"][0]["tests"][2]["expected"]["alternatives"][0]["perRank"]["scaled"] = [11]
    bad = hl.run_family("toy", hl.load_adapter(fixture_adapter("toy_good")),
                        write_golden(str(tmp_path / "b"), toy_doc))
    assert {m.tcid for m in bad.mismatches} == {3}


def test_torch_input_notation():
    """Issue 34 item 1: any reduce-op string, negative dims normalised as torch does (the
    values are real torch 2.13's, tests/test_torch_input.py asks it again)."""
    pl, _ = sh.parse_placements("P(prod),S(-1)")
    assert str(pl[0]) == "P(prod)" and sh.c10d_reduce_op(pl[0]) is None
    assert sh.c10d_reduce_op(sh.parse_placement("P(PRODUCT)")) == "product"
    assert sh.format_placements(sh.normalize(pl, 2)) == "P(prod),S(1)"
    (s,), _ = sh.parse_placements("_S(-2, 2)")
    assert str(sh.normalize([s], 2)[0]) == "_S(0, 2)"
    with pytest.raises(ValueError, match="AssertionError: Shard dim -1 in placements"):
        sh.normalize(sh.parse_placements("S(-3),R")[0], 2)
    with pytest.raises(ValueError, match="out of range for a 2-d tensor"):
        sh.normalize(sh.parse_placements("R,S(2)")[0], 2)
