"""test_torch_input.py — the CLI takes what torch 2.13 takes, and answers as real torch does.

Issue 34 item 1: torch's Partial takes any reduce-op string and its user-facing APIs count
a negative shard dim from the end.  Each case below is put to real torch 2.13 (a gloo world
of 4 CPU processes, torch_input_worker.py) and to the built CLI, and the answers must agree:
the placements as torch prints them after distribute_tensor / from_local / redistribute,
every rank's local shape, and where torch raises, its exception and message (the CLI exits
2 for inputs torch refuses, or says "torch raises at step i" for a plan torch refuses to
run).  conformance/tests/cli_torch_input.sh pins the same answers without torch.

Needs a built shardcheck ($SHARDCHECK or _build/tools/shardcheck); skipped otherwise.
"""

import json
import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
EXE = os.environ.get("SHARDCHECK") or os.path.join(REPO, "_build", "tools", "shardcheck")
sys.path.insert(0, HERE)
from torch_input_worker import register, session_answers  # noqa: E402


def _s(pl):
    """Worker placements [["S", -1], ["R"]] -> the CLI's "S(-1),R"."""
    out = []
    for p in pl:
        if p[0] == "S":
            out.append("S(%d)" % p[1])
        elif p[0] == "_S":
            out.append("_S(%d, %d)" % (p[1], p[2]))
        elif p[0] == "P":
            out.append("P(%s)" % p[1])
        else:
            out.append("R")
    return ",".join(out)


def _layout(pl):
    return {"kind": "layout", "mesh": [2, 2], "shape": [6, 8], "placements": pl}


def _plan(src, dst, mesh=(4,), dtype=None):
    case = {"kind": "plan", "mesh": list(mesh), "shape": [8, 4], "src": src, "dst": dst}
    if dtype:
        case["dtype"] = dtype
    return case


CASES = [
    _layout([["S", -1], ["R"]]),
    _layout([["S", -2], ["S", -1]]),
    _layout([["_S", -2, 2], ["S", -2]]),
    _layout([["_S", -1, 2], ["S", 1]]),
    _layout([["P", "prod"], ["S", -1]]),
    _layout([["S", -3], ["R"]]),
    _layout([["R"], ["S", 2]]),
    _layout([["_S", -3, 2], ["R"]]),
    _plan([["P", "prod"]], [["R"]]),
    _plan([["P", "PROD"]], [["S", 0]]),
    _plan([["P", "Sum"]], [["R"]]),
    _plan([["P", "product"]], [["S", -1]]),
    _plan([["R"]], [["P", "product"]]),
    _plan([["R"]], [["P", "Sum"]]),
    _plan([["R"]], [["P", "avg"]]),
    _plan([["P", "prod"]], [["P", "prod"]]),
    _plan([["P", "Sum"]], [["P", "sum"]]),
    _plan([["S", -1]], [["S", 0]]),
    _plan([["P", "prod"], ["P", "max"]], [["R"], ["R"]], mesh=(2, 2)),
    _plan([["P", "Sum"], ["P", "sum"]], [["R"], ["R"]], mesh=(2, 2)),
    # what gloo's collectives refuse of the elements (lib/plan/gloo_dtype.c)
    _plan([["P", "band"]], [["R"]], dtype="float32"),
    _plan([["P", "bor"]], [["S", 0]], dtype="bfloat16"),
    _plan([["P", "bxor"]], [["R"]], dtype="float64"),
    _plan([["P", "bor"]], [["R"]], dtype="int32"),
    _plan([["P", "bxor"]], [["S", 0]], dtype="bool"),
    _plan([["P", "band"]], [["R"]], dtype="complex64"),
    _plan([["P", "band"]], [["S", 0]], dtype="complex64"),
    _plan([["P", "max"]], [["R"]], dtype="complex64"),
    _plan([["P", "product"]], [["R"]], dtype="complex128"),
    _plan([["P", "max"]], [["S", 0]], dtype="complex64"),
    _plan([["P", "avg"]], [["R"]], dtype="complex64"),
    _plan([["P", "avg"]], [["R"]], dtype="int64"),
    _plan([["P", "avg"]], [["S", 0]], dtype="uint8"),
    _plan([["P", "avg"]], [["S", 0]], dtype="bool"),
    _plan([["P", "avg"]], [["R"]], dtype="float16"),
    _plan([["P", "sum"]], [["S", 0]], dtype="int8"),
    _plan([["P", "sum"]], [["R"]], dtype="int16"),
    _plan([["S", 0]], [["R"]], dtype="float8_e4m3fn"),
    _plan([["S", 0]], [["S", 1]], dtype="int16"),
    _plan([["R"]], [["S", 0]], dtype="int16"),
    _plan([["S", 0], ["P", "avg"]], [["R"], ["R"]], mesh=(2, 2), dtype="int32"),
]


register("torch_input_worker.py", CASES)


@pytest.fixture(scope="module")
def torch_answers(tmp_path_factory):
    if not os.access(EXE, os.X_OK):
        pytest.skip("no built shardcheck at %s (set SHARDCHECK)" % EXE)
    return session_answers("torch_input_worker.py", tmp_path_factory)


def _cli(*args):
    p = subprocess.run([EXE] + list(args), capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def _torch_error(a):
    """torch's 'Type: message', with the placements tuple it echoes elided as the CLI does."""
    msg = re.sub(r"in placements \(.*\) must", "in placements ... must", a["raises"]["message"])
    return "%s: %s" % (a["raises"]["type"], msg)


def _mixed(text):
    """The op set of a 'Found reduce ops: {...}' message (torch prints a set: any order)."""
    m = re.search(r"Found reduce ops: \{([^}]*)\}", text)
    return m and sorted(x.strip() for x in m.group(1).split(","))


@pytest.mark.parametrize("i", range(len(CASES)),
                         ids=["%s-%s%s" % (c["kind"], _s(c.get("placements") or c["src"]) +
                                           ("->" + _s(c["dst"]) if "dst" in c else ""),
                                           "-" + c["dtype"] if "dtype" in c else "")
                              for c in CASES])
def test_cli_answers_as_torch(torch_answers, i):
    case, a = CASES[i], torch_answers[i]
    mesh = "x".join(str(n) for n in case["mesh"])
    shape = ",".join(str(n) for n in case["shape"])
    if case["kind"] == "layout":
        rc, out, err = _cli("layout", "--mesh", mesh, "--placements", _s(case["placements"]),
                            "--shape", shape)
        if "raises" in a and a["raises"]["type"] == "IndexError" and "range of" in \
                a["raises"]["message"]:  # a dim past the tensor: the existing check's words
            assert rc == 2 and "out of range for a %d-d tensor" % len(case["shape"]) in err
            return
        if "raises" in a:
            assert rc == 2 and _torch_error(a) in err, (a, err)
            return
        assert rc == 0, err
        assert out.splitlines()[0].split("  ")[1] == "placements " + a["placements"]
        rc, out, err = _cli("layout", "--mesh", mesh, "--placements", _s(case["placements"]),
                            "--shape", shape, "--json")
        assert [r["localShape"] for r in json.loads(out)["ranks"]] == a["localShape"]
        return
    args = ["plan", "--mesh", mesh, "--shape", shape, "--src", _s(case["src"]),
            "--dst", _s(case["dst"])] + (["--dtype", case["dtype"]] if "dtype" in case else [])
    rc, out, err = _cli(*args)
    if "raises" in a and a["where"] == "assert_no_mixed_partial_types":  # torch's refusal
        assert rc == 2 and "Mixed Partial reduce types are not supported" in err, err
        assert _mixed(err) == _mixed(a["raises"]["message"])
        return
    if "raises" in a and a["where"] == "redistribute_local_tensor":  # one Partial to another
        assert rc == 2 and _torch_error(a) in err, (a, err)
        return
    assert rc == 0, err
    rc, js, err = _cli(*args, "--json")
    ranks = json.loads(js)["ranks"]
    if "raises" not in a:
        head = "%s -> %s" % (a["src"].replace(",", ""), a["dst"].replace(",", ""))
        assert head in out.splitlines()[0], (head, out)
        assert all("torchRaises" not in r for r in ranks), js
        return
    assert all(r.get("torchRaises", {}).get("error", "").startswith(_torch_error(a))
               for r in ranks), (a, js)


# Plans with reduce-op strings torch's planners take like any other: torch's own planner
# (the redistribute-plan adapter: _gen_transform_infos on a fake world) against the CLI's
# steps and trace, the graph planner's reduce-op set included (R,R -> P(prod),S(0)).
PLANS = [
    ("graph", "2x2", "P(prod),P(prod)", "R,R"),
    ("auto", "2x2", "P(prod),P(prod)", "R,R"),
    ("auto", "4", "P(prod)", "R"),
    ("graph", "2x2", "R,R", "P(prod),S(0)"),
    ("graph", "2x2", "S(1),P(Sum)", "R,S(0)"),
    ("auto", "2x2", "P(Sum),P(Sum)", "R,R"),
    ("auto", "2x2", "S(-1),P(prod)", "R,S(-2)"),
]


@pytest.mark.parametrize("planner,mesh,src,dst", PLANS)
def test_plans_as_torch_plans(planner, mesh, src, dst):
    if not os.access(EXE, os.X_OK):
        pytest.skip("no built shardcheck at %s (set SHARDCHECK)" % EXE)
    from adapters import torch_redistribute_plan as trp
    from shardcheck_harness import notation
    sizes = [int(n) for n in mesh.split("x")]
    # torch's planner takes the DTensor's normalised placements (from_local, redistribute)
    norm = [notation.format_placements(notation.normalize(notation.parse_placements(p)[0], 2))
            for p in (src, dst)]
    want = trp.compute({"mesh": sizes, "planner": planner, "dtype": "float32",
                        "devicesPerHost": 8}, {"src": norm[0], "dst": norm[1], "shape": [8, 4]})
    rc, out, err = _cli("plan", "--mesh", mesh, "--shape", "8,4", "--src", src, "--dst", dst,
                        "--planner", planner, "--json")
    assert rc == 0, err
    got = {(r["trace"], tuple(s["comm"] for s in r["steps"])) for r in json.loads(out)["ranks"]}
    assert got == {(p["trace"], tuple(s[3] for s in p["steps"])) for p in want["plans"]}


def test_complex_max_reduce_scatter_finding():
    """docs/findings/complex_reduce_scatter_max.py, run as a user would (torchrun, 2 ranks):
    P(max) -> S(0) on complex64 runs and returns component-wise maxima, as the CLI says it runs
    (no torchRaises), while P(max) -> R raises (torchRaises above)."""
    script = os.path.join(REPO, "docs", "findings", "complex_reduce_scatter_max.py")
    env = dict(os.environ, OMP_NUM_THREADS="1")
    p = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--standalone",
                        "--nproc-per-node", "2", script],
                       capture_output=True, text=True, timeout=180, env=env)
    assert p.returncode == 1, p.stdout + p.stderr
    assert "rank 0: WRONG : got [(2+5j), (4+9j)]" in p.stdout, p.stdout
    assert "REPRODUCED" in p.stdout
