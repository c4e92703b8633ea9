"""test_results.py — run.py --results: the harness writes the results form that
`shardcheck verify` and `shardcheck certify --candidate` read, so a Python port
becomes a submission package without a hand-written adapter of its own.

On the toy family: one entry per rank with the adapter's values (an int where golden
holds a decimal string written as that string, fields golden does not have left out),
an error entry for a rejected input, a notSupported entry (the adapter's reason) for a
skipped case, FIELDS as "fields";
bad usage (a sampled run, an unwritable directory) is exit 2 before anything runs.
With a built shardcheck ($SHARDCHECK or _build/tools/shardcheck): the worked partial
port's results over a golden corpus cut to the cases it ports verify with the
harness's own counts, and certify turns them into a conformant package (a test left
notSupported is listed with its reason); one value changed in the file makes it
nonconformant.
"""

import hashlib
import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import HARNESS, fixture_adapter, python_cmd
import harnesslib as hl

RUN = os.path.join(HARNESS, "run.py")
REPO = os.path.dirname(os.path.dirname(HARNESS))
EXAMPLE = os.path.join(HARNESS, "examples", "rng_offsets_partial.py")
RESULTS_SCHEMA = os.path.join(REPO, "golden", "schemas", "results_v1.json")


def run_cli(*args):
    p = subprocess.run(python_cmd() + [RUN] + list(args), capture_output=True, text=True,
                       timeout=600)
    return p.returncode, p.stdout, p.stderr


def test_toy_results_file(toy_golden, tmp_path):
    out = str(tmp_path / "res")
    rc, stdout, err = run_cli("--golden", toy_golden, "--adapter", fixture_adapter("toy_good"),
                              "--results", out)
    assert rc == 0, err
    path = os.path.join(out, "toy.json")
    assert "# toy: results written to %s (8 entries)" % path in stdout
    # the skipped case is written as notSupported, with the adapter's reason
    assert "1 cases the adapter skipped (NotImplementedError) are written as" in err
    doc = json.load(open(path))
    assert doc["family"] == "toy" and "fields" not in doc
    by = {(e["tcId"], e.get("rank")): e for e in doc["results"]}
    # toy_good returns total as an int; golden holds "6": written as golden spells it
    assert by[(1, 0)] == {"tcId": 1, "rank": 0, "values": {"total": "6", "scaled": 2}}
    assert by[(1, 2)]["values"] == {"total": "6", "scaled": 6}
    assert by[(2, None)] == {"tcId": 2, "error": "ValueError: negative value"}
    assert by[(3, 0)]["values"] == {"total": "5", "scaled": 10}   # an alternative's answer
    assert [k for k in by if k[0] == 4] == [(4, 0), (4, 1)]
    assert by[(5, None)] == {"tcId": 5, "notSupported": "toy adapter does not do this"}
    # its provenance, and the whole file as golden/schemas/results_v1.json specifies it
    assert doc["producer"]["tool"] == "tools/harness/run.py"
    assert doc["producer"]["command"][:2] == ["run.py", "--golden"]
    assert doc["producer"]["python"] == sys.version.split()[0]
    assert list(hl.schema_validator(RESULTS_SCHEMA)(doc)) == []


def test_results_schema_refuses_what_verify_refuses():
    """The schema is not a formality: each form verify refuses by name fails it too."""
    check = hl.schema_validator(RESULTS_SCHEMA)
    good = {"family": "toy", "results": [{"tcId": 1, "rank": 0, "values": {"a": 1}}]}
    assert list(check(good)) == []
    for bad in ({"results": []},                                           # no family
                {"family": "toy", "results": [{"rank": 0, "values": {}}]},  # no tcId
                {"family": "toy", "results": [{"tcId": 1, "rank": -1, "values": {}}]},
                {"family": "toy", "results": [{"tcId": 1}]},                # no answer
                {"family": "toy", "results": [{"tcId": 1, "values": {}, "notSupported": "x"}]},
                {"family": "toy", "results": [{"tcId": 1, "notSupported": 3}]}):
        assert list(check(bad)), bad


def test_entries_leave_out_what_golden_does_not_ask_and_keep_wrong_values():
    exp = {"total": "6", "perRank": {"scaled": [2, 4]}}
    got = {"total": 6, "extra": 1, "perRank": {"scaled": [2, 5], "more": [0, 0]}}
    assert hl.result_entries(7, exp, got, None) == [
        {"tcId": 7, "rank": 0, "values": {"total": "6", "scaled": 2}},
        {"tcId": 7, "rank": 1, "values": {"total": "6", "scaled": 5}}]
    # a wrong int stays the adapter's value, only spelled as golden spells numbers
    assert hl.result_entries(7, exp, {"total": 7}, None) == [{"tcId": 7, "values": {"total": "7"}}]
    # per-rank lists of unequal length: one whole-test entry, verify reports the difference
    assert hl.result_entries(7, {"perRank": {"a": [1], "b": [1]}},
                             {"perRank": {"a": [1], "b": [1, 2]}}, None) == [
        {"tcId": 7, "values": {"perRank": {"a": [1], "b": [1, 2]}}}]
    assert hl.encode_like("5", True) is True and hl.encode_like(["1"], [1, 2]) == ["1", 2]


def test_partial_adapter_declares_fields(toy_golden, tmp_path):
    out = str(tmp_path / "res")
    rc, _, err = run_cli("--golden", toy_golden, "--adapter", fixture_adapter("toy_partial"),
                         "--results", out)
    assert rc == 0, err
    doc = json.load(open(os.path.join(out, "toy.json")))
    assert doc["fields"] == sorted(hl.adapter_fields(hl.load_adapter(
        fixture_adapter("toy_partial"))))


@pytest.mark.parametrize("extra", [["--max-cases", "2"], ["--stride", "2"], ["--tcid", "1"]])
def test_results_of_a_sample_is_bad_usage(toy_golden, tmp_path, extra):
    rc, out, err = run_cli("--golden", toy_golden, "--adapter", fixture_adapter("toy_good"),
                           "--results", str(tmp_path / "res"), *extra)
    assert rc == 2 and "--results writes whole families" in err and extra[0] in err
    assert out == "" and not os.path.exists(str(tmp_path / "res"))


def test_results_unwritable_is_bad_usage(toy_golden, tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    rc, out, err = run_cli("--golden", toy_golden, "--adapter", fixture_adapter("toy_good"),
                           "--results", str(f / "res"))
    assert rc == 2 and "--results %s: cannot create" % (f / "res") in err and out == ""


# ---- end to end: harness -> results file -> shardcheck verify / certify ----

def shardcheck():
    exe = os.environ.get("SHARDCHECK") or os.path.join(REPO, "_build", "tools", "shardcheck")
    if not os.access(exe, os.X_OK):
        pytest.skip("no built shardcheck at %s (set SHARDCHECK)" % exe)
    return exe


def ported_corpus(root):
    """golden/rng-offsets' mesh-1d file cut to the cases the worked port computes, with
    its schema and a MANIFEST (certify checks the corpus against it)."""
    src = os.path.join(hl.DEFAULT_GOLDEN, "rng-offsets", "mesh-1d.json")
    if not os.path.isfile(src):
        pytest.fail("golden/rng-offsets/mesh-1d.json is missing")
    port = hl.load_adapter(EXAMPLE)
    doc = json.load(open(src))
    n = 0
    for g in doc["testGroups"]:
        params = {k: v for k, v in g.items() if k != "tests"}
        keep = []
        for t in g["tests"]:
            try:
                port.compute(params, {k: v for k, v in t.items() if k not in hl.HIDDEN_FIELDS})
            except NotImplementedError:
                continue
            except Exception:  # noqa: BLE001 — a rejection is an answer
                pass
            keep.append(t)
        g["tests"] = keep
        n += len(keep)
    doc["numberOfTests"] = n
    os.makedirs(os.path.join(root, "rng-offsets"))
    shutil.copytree(os.path.join(hl.DEFAULT_GOLDEN, "schemas"), os.path.join(root, "schemas"))
    json.dump(doc, open(os.path.join(root, "rng-offsets", "mesh-1d.json"), "w"))
    with open(os.path.join(root, "MANIFEST"), "w") as fh:
        for d, _, names in sorted(os.walk(root)):
            for nm in sorted(names):
                if nm != "MANIFEST":
                    p = os.path.join(d, nm)
                    fh.write("%s  %s\n" % (hashlib.sha256(open(p, "rb").read()).hexdigest(),
                                           os.path.relpath(p, root)))
    return n


def test_harness_results_make_a_certify_package(tmp_path):
    exe = shardcheck()
    golden = str(tmp_path / "golden")
    ntests = ported_corpus(golden)
    assert ntests > 100
    res = str(tmp_path / "res")
    rc, out, err = run_cli("--golden", golden, "--adapter", EXAMPLE, "--results", res, "--json")
    assert rc == 0, err
    summary = json.loads(out)
    assert summary["passed"] == ntests and summary["skipped"] == 0
    cand = os.path.join(res, "rng-offsets.json")
    v = subprocess.run([exe, "verify", "--family", "rng-offsets", "--golden", golden,
                        "--candidate", cand, "--json"], capture_output=True, text=True)
    assert v.returncode == 0, v.stderr[-2000:]
    rep = json.loads(v.stdout)
    assert (rep["passed"], rep["failed"]) == (summary["passed"], 0)
    assert "NotSupported field local_numel" in v.stderr
    pkg = str(tmp_path / "pkg")
    c = subprocess.run([exe, "certify", "--golden", golden, "--out", pkg, "--candidate", cand,
                        "--name", "mini_rng_tracker"], capture_output=True, text=True)
    # the example computes 4 of rng-offsets' 5 required fields: a narrower claim is PARTIAL,
    # exit 3, never CONFORMANT (issue 22 item 2), and the statement says what it covers
    assert c.returncode == 3, c.stdout[-2000:] + c.stderr[-2000:]
    st = open(os.path.join(pkg, "statement.txt")).read()
    assert "verdict: PARTIAL" in st and "CONFORMANT" not in st
    assert "field local_numel not computed by the candidate" in st
    assert "4 of 5 required fields" in st
    # one test the port does not do, written as the harness writes a skipped case: certify
    # lists it NotSupported with its reason, and the verdict holds
    doc = json.load(open(cand))
    drop = doc["results"][0]["tcId"]
    ns = dict(doc, results=[e for e in doc["results"] if e["tcId"] != drop] +
              [{"tcId": drop, "notSupported": "no multi-dim meshes yet"}])
    nsf = str(tmp_path / "ns" / "rng-offsets.json")
    os.makedirs(os.path.dirname(nsf))
    json.dump(ns, open(nsf, "w"))
    c = subprocess.run([exe, "certify", "--golden", golden, "--out", str(tmp_path / "nspkg"),
                        "--candidate", nsf], capture_output=True, text=True)
    assert c.returncode == 3, c.stdout[-2000:] + c.stderr[-2000:]
    st = open(os.path.join(str(tmp_path / "nspkg"), "statement.txt")).read()
    assert "verdict: PARTIAL" in st and "1 cases NotSupported" in st, st[-2000:]
    assert "no multi-dim meshes yet" in st
    # one value changed in the results file: the package says nonconformant
    entry = next(e for e in doc["results"] if "values" in e and "start_incr" in e["values"])
    entry["values"]["start_incr"] = str(int(entry["values"]["start_incr"]) + 1)
    json.dump(doc, open(cand, "w"))
    c = subprocess.run([exe, "certify", "--golden", golden, "--out", str(tmp_path / "bad"),
                        "--candidate", cand], capture_output=True, text=True)
    assert c.returncode == 1 and "verdict: NONCONFORMANT" in c.stdout, c.stdout[-2000:]
