"""test_releases.py — the harness and torch releases: a test's answer for release V is its
byVersion entry listing V, else its top-level one; --torch-version (and
SHARDCHECK_TORCH_VERSION) pick V and refuse what the reference does not model; a results
file records the release it was judged against; a torch family's file without version data
is read as its top-level answers, with a note.  The Python list of releases is held to
lib/core/torch_release.c's by comparing it with shardcheck's own message.
"""

import copy
import json
import os
import subprocess

import pytest

from conftest import HARNESS, write_golden, python_cmd
import harnesslib as hl

RUN = os.path.join(HARNESS, "run.py")
TOY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "toy_good.py")


def run_cli(*args, env=None):
    e = dict(os.environ)
    e.pop("SHARDCHECK_TORCH_VERSION", None)
    e.update(env or {})
    p = subprocess.run(python_cmd() + [RUN] + list(args), capture_output=True, text=True,
                       timeout=300, env=e)
    return p.returncode, p.stdout, p.stderr


def versioned_doc(toy_doc):
    """tcId 1's answer differs in 2.14 and 2.15 (as the toy adapter computes it, total 6 ->
    its top level is made wrong for them); tcId 4 is invalid in 2.11."""
    doc = copy.deepcopy(toy_doc)
    doc["source"] = {"name": "pytorch", "version": "2.13.0",
                     "releases": ["2.11", "2.12", "2.13", "2.14", "2.15"]}
    t1 = doc["testGroups"][0]["tests"][0]
    t1["byVersion"] = [{"torch": ["2.14", "2.15"], "result": "valid",
                        "expected": copy.deepcopy(t1["expected"])}]
    t1["expected"]["total"] = "7"   # the pinned answer: the toy adapter does not give it
    t4 = doc["testGroups"][1]["tests"][0]
    t4["byVersion"] = [{"torch": ["2.11"], "result": "invalid", "expected": {"error": "x"}}]
    return doc


def test_answer_for():
    t = {"result": "valid", "expected": {"a": 1},
         "byVersion": [{"torch": ["2.14", "2.15"], "result": "invalid", "expected": {"error": "e"}}]}
    assert hl.answer_for(t, "2.15") == ("invalid", {"error": "e"})
    assert hl.answer_for(t, "2.13") == ("valid", {"a": 1})
    assert hl.answer_for(t, None) == ("valid", {"a": 1})


@pytest.mark.parametrize("bad", ["2.10", "2.16", "latest", "2.13.0+cu130", "2.12.0", ""])
def test_bad_versions_exit_2_listing_the_supported(tmp_path, toy_doc, bad):
    golden = write_golden(str(tmp_path), versioned_doc(toy_doc))
    rc, out, err = run_cli("--golden", golden, "--adapter", TOY, "--torch-version", bad)
    assert rc == 2, (out, err)
    assert "supported: 2.11 (2.11.0), 2.12 (2.12.1), 2.13 (2.13.0, the pinned default), " \
           "2.14 (2.14.1), 2.15 (2.15.0)" in err
    rc, _, err = run_cli("--golden", golden, "--adapter", TOY,
                         env={"SHARDCHECK_TORCH_VERSION": bad or "x"})
    assert rc == 2 and "SHARDCHECK_TORCH_VERSION" in err


def test_each_release_gets_its_answer(tmp_path, toy_doc):
    golden = write_golden(str(tmp_path), versioned_doc(toy_doc))
    rc, out, _ = run_cli("--golden", golden, "--adapter", TOY, "--torch-version", "2.15.0")
    assert rc == 0 and "judged against torch 2.15" in out, out
    assert out.splitlines()[-1] == "4 passed, 0 failed, 1 skipped"
    rc, out, _ = run_cli("--golden", golden, "--adapter", TOY, "--torch-version", "2.13")
    assert rc == 1 and "tcId=1 field=total" in out and "tcId=4" not in out, out
    rc, out, _ = run_cli("--golden", golden, "--adapter", TOY, "--torch-version", "2.11")
    assert rc == 1 and "tcId=4" in out and "invalid case accepted" in out, out
    rc, out, _ = run_cli("--golden", golden, "--adapter", TOY, env={"SHARDCHECK_TORCH_VERSION": "2.14"})
    assert rc == 0 and "judged against torch 2.14 (SHARDCHECK_TORCH_VERSION)" in out, out


def test_results_record_the_release(tmp_path, toy_doc):
    golden = write_golden(str(tmp_path / "g"), versioned_doc(toy_doc))
    rc, _, err = run_cli("--golden", golden, "--adapter", TOY, "--torch-version", "2.14",
                         "--results", str(tmp_path / "r"))
    assert rc == 0, err
    with open(tmp_path / "r" / "toy.json") as fh:
        doc = json.load(fh)
    assert list(doc)[:2] == ["family", "torch"] and doc["torch"] == "2.14"


def test_unversioned_torch_file_is_read_with_a_note(tmp_path, toy_doc):
    doc = copy.deepcopy(toy_doc)
    doc["source"] = {"name": "pytorch", "version": "2.13.0"}
    golden = write_golden(str(tmp_path), doc)
    rc, out, err = run_cli("--golden", golden, "--adapter", TOY, "--torch-version", "2.15")
    assert rc == 0, (out, err)
    assert err.count("has no answers for torch 2.15") == 1, err


def test_releases_match_the_library():
    """The harness's releases are lib/core/torch_release.c's table, asked of the binary
    (`shardcheck registry`): the refusal lists what shardcheck's own refusal lists."""
    exe = os.environ.get("SHARDCHECK") or os.path.join(os.path.dirname(os.path.dirname(HARNESS)),
                                                      "_build", "tools", "shardcheck")
    if not os.access(exe, os.X_OK):
        pytest.skip("no built shardcheck at %s (set SHARDCHECK)" % exe)
    p = subprocess.run([exe, "verify", "--family", "shard-layout", "--candidate", "/dev/null",
                        "--torch-version", "2.10"], capture_output=True, text=True)
    assert p.returncode == 2
    with pytest.raises(hl.ReleaseError) as e:
        hl.parse_release("2.10")
    assert str(e.value).split("supported: ")[1] in p.stderr, (str(e.value), p.stderr)
