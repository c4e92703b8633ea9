"""test_waivers.py — run.py --waivers (issue 32 item 5): the harness reads the waiver file
`shardcheck run`, `verify` and `certify` read (waivers.py), with the same rules.

On the toy family with one expected value changed (tc 4, rank 1): the failure a waiver
describes is WAIVED with its reason and counted apart (exit 0, never a pass); a failure its
pattern does not match, or a waiver for another backend or release, leaves it a failure; a
listed case that passes is reported; a cause waiver that waived nothing is noted; a bad file
(an entry that is not an object, members of the wrong type, unknown family, tcId, flag or
backend, a bad pattern, a case waived twice) is exit 2 naming the entry and the member.
"""

import json
import os
import subprocess

import pytest

from conftest import HARNESS, fixture_adapter, python_cmd, write_golden
import waivers as wv

RUN = os.path.join(HARNESS, "run.py")


@pytest.fixture
def bad_golden(tmp_path, toy_doc):
    toy_doc["testGroups"][1]["tests"][0]["expected"]["perRank"]["scaled"][1] = 22
    return write_golden(str(tmp_path / "g"), toy_doc)


def run(golden, tmp_path, waivers, *extra):
    args = python_cmd() + [RUN, "--golden", golden, "--adapter", fixture_adapter("toy_good"),
            "--torch-version", "2.13"]
    if waivers is not None:
        path = tmp_path / "w.json"
        path.write_text(waivers if isinstance(waivers, str) else json.dumps(waivers))
        args += ["--waivers", str(path)]
    p = subprocess.run(args + list(extra), capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def one(**w):
    return {"waivers": [dict({"family": "toy", "reason": "known"}, **w)]}


def test_without_waivers_the_case_fails(bad_golden, tmp_path):
    rc, out, _ = run(bad_golden, tmp_path, None)
    assert rc == 1 and "MISMATCH toy tcId=4" in out and "waived" not in out


def test_a_cause_waiver_waives_the_failure_it_describes(bad_golden, tmp_path):
    rc, out, _ = run(bad_golden, tmp_path, one(match="^Fail: field=scaled rank=1: expected 22",
                                               finding="docs/findings/README.md"))
    assert rc == 0, out
    assert "WAIVED toy tcId=4: waived: known (docs/findings/README.md); Fail: field=scaled " \
        "rank=1: expected 22 got 21" in out
    assert "MISMATCH" not in out
    assert out.rstrip().endswith("3 passed, 0 failed, 1 skipped, 1 waived")


def test_json_counts_waived_apart(bad_golden, tmp_path):
    rc, out, _ = run(bad_golden, tmp_path, one(match="expected 22"), "--json")
    d = json.loads(out)
    assert rc == 0 and d["waived"] == 1 and d["failed"] == 0 and d["passed"] == 3
    assert d["families"][0]["waived_cases"][0]["tcId"] == 4


def test_a_pattern_that_does_not_match_leaves_the_failure(bad_golden, tmp_path):
    rc, out, _ = run(bad_golden, tmp_path, one(match="^Crash: "))
    assert rc == 1 and "MISMATCH toy tcId=4" in out
    assert "waivers[0] matched no failure: the 3 cases of its scope that ran passed" in out


@pytest.mark.parametrize("extra", [{"backends": ["torch"]}, {"torch": ["2.15"]}])
def test_a_waiver_for_another_backend_or_release_does_not_apply(bad_golden, tmp_path, extra):
    rc, out, _ = run(bad_golden, tmp_path, one(tcIds=[4], **extra))
    assert rc == 1 and "MISMATCH toy tcId=4" in out


def test_backend_harness_and_a_release_apply(bad_golden, tmp_path):
    rc, out, _ = run(bad_golden, tmp_path, one(tcIds=[4], backends=["plugin", "harness"],
                                               torch=["2.13"]))
    assert rc == 0 and "WAIVED toy tcId=4" in out


def test_every_run_backend_is_a_waiver_backend(bad_golden, tmp_path):
    """The backends are the binary's (`shardcheck registry`), as tools/run/waivers.c takes them:
    the worker backend, once missing from a list kept here, is one; a made-up one is not."""
    rc, out, _ = run(bad_golden, tmp_path, one(tcIds=[4], backends=["worker:x", "harness"]))
    assert rc == 0 and "WAIVED toy tcId=4" in out
    rc, out, err = run(bad_golden, tmp_path, one(tcIds=[4], backends=["nccl-tests"]))
    assert rc == 2 and "is not a backend" in out + err and "worker" in out + err


def test_a_listed_case_that_passes_is_reported(bad_golden, tmp_path):
    rc, out, _ = run(bad_golden, tmp_path, one(tcIds=[1]))
    assert rc == 1
    assert "NOTE toy tcId=1: waived (known), but passed: the deviation may be fixed" in out


def test_a_flag_scopes_the_waiver(bad_golden, tmp_path):
    rc, out, _ = run(bad_golden, tmp_path, one(flag="Neg", match="expected 22"))
    assert rc == 1 and "MISMATCH toy tcId=4" in out


@pytest.mark.parametrize("waivers,message", [
    ('{"waivers": [5]}', r"w.json: waivers[0]: not an object"),
    ('[1]', "not a waiver file"),
    (json.dumps({"waivers": [{"tcIds": [4], "reason": "r"}]}), 'waivers[0]: no "family"'),
    (json.dumps({"waivers": [{"family": 5, "tcIds": [4], "reason": "r"}]}),
     'waivers[0]: "family" must be a non-empty string'),
    (json.dumps(one(tcIds=[4], torch=[2.13])), "waivers[0]: torch[0] must be a string"),
    (json.dumps(one(tcIds=[4], torch="2.13")), 'waivers[0]: "torch" must be a non-empty array'),
    (json.dumps(one(tcIds=[4], backends="harness")),
     'waivers[0]: "backends" must be a non-empty array'),
    (json.dumps(one(tcIds=[4], backends=["gpu"])), "waivers[0]: backends[0] is not a backend"),
    (json.dumps(one(tcIds=[4], torch=["3.0"])), "waivers[0]: torch[0]"),
    (json.dumps(one(tcIds=[99])), "waivers[0]: tcIds[0] is not a tcId of family toy"),
    (json.dumps(one(flag="Nope")), 'waivers[0]: flag "Nope" is not one family toy declares'),
    (json.dumps(one(match="(")), 'waivers[0]: "match" is not a regular expression'),
    (json.dumps(one(tcids=[4])), 'waivers[0]: unknown member "tcids"'),
    (json.dumps(one()), 'waivers[0]: names its cases by "tcIds" or by "flag", or its failures'),
    (json.dumps({"waivers": [{"family": "nope", "tcIds": [4], "reason": "r"}]}),
     'waivers[0]: "family" is not a family'),
    (json.dumps({"waivers": [{"family": "toy", "tcIds": [4], "reason": "a"},
                             {"family": "toy", "tcIds": [4], "reason": "b"}]}),
     "waivers[0] and waivers[1] both waive toy tcId 4"),
])
def test_a_bad_waiver_file_is_refused_naming_the_entry(bad_golden, tmp_path, waivers, message):
    path = tmp_path / "w.json"
    path.write_text(waivers)
    with pytest.raises(wv.WaiverError) as e:
        wv.Waivers(str(path), bad_golden, "2.13")
    assert message in str(e.value)


def test_a_bad_waiver_file_is_exit_2_before_the_first_case(bad_golden, tmp_path):
    rc, out, err = run(bad_golden, tmp_path, '{"waivers": [5]}')
    assert rc == 2 and "run.py: " in err and "w.json: waivers[0]: not an object" in err
    assert "MISMATCH" not in out
