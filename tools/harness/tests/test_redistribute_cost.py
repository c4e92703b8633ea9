"""test_redistribute_cost.py — `shardcheck plan --json`'s "redistributeCost" is torch's own
redistribute_cost(src, dst) (issue 34 item 4: the costs torch's sharding strategies price a
redistribution at; torch/distributed/tensor/_collective_utils.py).

torch runs in this process on a fake world (rank 0, the redistribute-plan adapter's meshes and
devices-per-host patch, tools/harness/adapters/torch_redistribute_plan.py): for a deterministic
sample of golden/redistribute-plan's valid cases (every file, every mesh, both strided modes,
shard orders, float64, several host sizes) and the cases below, torch's float and the CLI's
must be the same double (Python's repr of both), or both inf.  torch's planner caches are
cleared per case, as the adapter does.

The CLI is asked for the release of the torch imported (--torch-version), so another
release's python checks that release: tools/scripts/release_check.sh runs this file as a
script (`python test_redistribute_cost.py`: "cost: N passed, N failed", exit 1 on a failure)
with the test command's second release.

Needs a built shardcheck ($SHARDCHECK or _build/tools/shardcheck) and torch; skipped otherwise.
"""

import glob
import json
import os
import subprocess
import sys

try:
    import pytest
except ImportError:  # a release's venv has none: the script form below needs none
    pytest = None

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
EXE = os.environ.get("SHARDCHECK") or os.path.join(REPO, "_build", "tools", "shardcheck")
GOLDEN = os.environ.get("SHARDCHECK_GOLDEN") or os.path.join(REPO, "golden")

if pytest is None or __name__ == "__main__":  # the script form: torch must import
    sys.path.insert(0, os.path.dirname(HERE))
    import torch
else:
    pytestmark = pytest.mark.skipif(not os.access(EXE, os.X_OK), reason="no built shardcheck")
    torch = pytest.importorskip("torch")
REL = ".".join(torch.__version__.split("+")[0].split(".")[:2])

# (mesh, dtype, devices per host, src, dst, shape, strided literal[, planner]): what the sample
# may miss; planner "graph" or "greedy" is use_min_cost_redistribution_plan(True or False)
# around torch's call and --planner for the CLI
EXTRA = [
    ([2, 4], "float32", 8, "R,R", "S(0),S(1)", [8, 8], False),          # replicated source: 0
    ([2, 4], "float32", 8, "S(0),S(1)", "S(0),S(1)", [8, 8], False),    # the same spec: 0
    ([2, 4], "float32", 8, "S(0)[1]S(0)[0]", "S(0),S(0)", [8, 8], False),  # orders differ
    ([2, 4], "float32", 1, "P(sum),S(0)", "R,S(1)", [8, 8], False),
    ([2, 4], "float64", 2, "P(sum),P(sum)", "S(0),S(1)", [16, 8], False),
    ([2, 4], "float32", 8, "S(0),R", "P(sum),R", [8, 8], False),        # S -> P: inf
    ([2, 4], "float32", 8, "P(sum),R", "P(max),R", [8, 8], False),      # P -> P: inf
    ([2, 2, 2], "float32", 8, "S(0),S(0),S(0)", "S(1),S(1),S(1)", [8, 8, 8], False),
    ([2, 2, 2], "float32", 1, "S(0),S(0),S(0)", "S(1),S(1),S(1)", [8, 8, 8], False),
    ([2, 2, 2], "float64", 8, "S(0),S(0),S(0)", "S(1),S(1),S(1)", [8, 8, 8], False),
    ([2, 2], "float32", 8, "_S(0, 2),S(0)", "R,R", [8, 8], False),      # shard_order None: inf
    ([2, 2], "float32", 8, "_S(0, 2),S(0)", "R,R", [8, 8], True),       # literal: priced
    ([2, 2], "float32", 8, "_S(0, 2),S(0)", "_S(0, 2),S(0)", [8, 8], False),  # same: 0, not inf
    ([1, 4], "float32", 8, "S(0),S(1)", "R,R", [8, 8], False),          # a size-1 dim
    ([4], "int8", 8, "S(0)", "S(1)", [7, 9], False),                    # uneven
    ([2], "float32", 8, "S(0)", "R", [8], False),  # cli_plan.sh's sub-world plan, 7.2001699106179453
    ([4], "float32", 8, "P(Sum)", "R", [8, 4], False),   # cli_torch_input.sh: 10.20203892741535
    ([4], "float32", 8, "P(prod)", "P(prod)", [8, 4], False),  # the same spec: 0
    # past 2^53 bytes Python's int / int rounds once, correctly; past 2^63 bytes no int64 holds them
    ([6], "int8", 8, "S(0)", "R", [9007199254740995, 1], False),
    ([3], "int8", 8, "P(sum)", "S(0)", [9007199254740993, 1], False),
    ([7], "int8", 8, "S(0)", "S(1)", [9007199254741001, 1], False),
    ([2], "float32", 8, "S(0)", "R", [4611686018427387904], False),
    # test_graph_based_redistribute_cost's kind: shard orders on 2x2x2, the min-cost plan forced
    ([2, 2, 2], "float32", 8, "S(0)[1]S(0)[0]S(1)", "S(1)S(0)[1]S(0)[0]", [16, 8], False, "graph"),
    ([2, 2, 2], "float32", 8, "S(0)S(1)S(0)", "S(1)S(0)S(1)", [13, 2, 13], False, "graph"),
    ([2, 2, 2], "float32", 8, "S(0)S(1)S(0)", "S(1)S(0)S(1)", [13, 2, 13], False, "greedy"),
    ([2, 2, 2], "float32", 8, "P(sum)S(1)S(0)", "S(1)RS(0)", [16, 8], False, "graph"),
]


def _cli_cost(mesh, dtype, dph, src, dst, shape, literal, planner="auto"):
    cmd = [EXE, "plan", "--mesh", "x".join(map(str, mesh)), "--shape",
           ",".join(map(str, shape)), "--src", src, "--dst", dst, "--dtype", dtype,
           "--devices-per-host", str(dph), "--rank", "0", "--torch-version", REL, "--json"]
    if literal:
        cmd.append("--strided-literal")
    if planner != "auto":
        cmd += ["--planner", planner]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    if p.returncode:
        return ("refused", p.stderr.strip())
    c = json.loads(p.stdout)["ranks"][0]["redistributeCost"]
    return float(c) if c == "inf" else c


def _torch_cost(mesh, dtype, dph, src, dst, shape, literal, planner="auto"):
    from adapters import torch_redistribute_plan as rp
    from torch.distributed.tensor._collective_utils import redistribute_cost
    S = rp._setup()
    m = rp._mesh(S, mesh, None)
    rp._set_devices_per_host(S, dph)
    S["R"].clear_redistribute_planner_cache()
    S["R"]._gen_transform_infos.cache_clear()
    S["memo"].clear()
    shp = torch.Size(shape)
    stride = [1] * len(shape)  # contiguous, as a meta tensor's (computed: sizes past int64 bytes)
    for i in range(len(shape) - 2, -1, -1):
        stride[i] = stride[i + 1] * shape[i + 1]
    meta = S["TensorMeta"](shp, tuple(stride), getattr(torch, dtype))

    def spec(text):
        pl, order = rp._parse(text, S)
        kw = {"tensor_meta": meta}
        if literal:
            kw["use_strided_shard_as_shard_order"] = False
        if order:
            kw["shard_order"] = rp._shard_order(pl, order, S)
        return S["DTensorSpec"](m, pl, **kw)

    from torch.distributed.tensor._redistribute import use_min_cost_redistribution_plan
    try:
        if planner == "auto":
            return redistribute_cost(spec(src), spec(dst))
        with use_min_cost_redistribution_plan(enabled=planner == "graph"):
            return redistribute_cost(spec(src), spec(dst))
    except Exception as e:  # noqa: BLE001 — torch's refusal: the CLI must refuse too
        return ("refused", "%s: %s" % (type(e).__name__, e))


def _sample(per_file=24):
    out = []
    for path in sorted(glob.glob(os.path.join(GOLDEN, "redistribute-plan", "*.json"))):
        d = json.load(open(path))
        cases = [(g, t) for g in d["testGroups"] for t in g["tests"]
                 if t["result"] == "valid" and "srcShardOrder" not in t]
        step = max(1, len(cases) // per_file)
        for g, t in cases[::step][:per_file]:
            out.append((g["mesh"], g["dtype"], g["devicesPerHost"], t["src"], t["dst"],
                        t["shape"], bool(g.get("stridedLiteral")), g["planner"]))
    return out


def _why(case):
    """None when the CLI answers case as torch does, else why not."""
    want, got = _torch_cost(*case), _cli_cost(*case)
    if isinstance(want, tuple):
        return None if isinstance(got, tuple) else "torch refuses (%s), the CLI answers %r" % (
            want[1], got)
    if want == float("inf") and isinstance(got, tuple):
        # plan refuses what torch's executor refuses (a shard-like source to a Partial, one
        # Partial to another): no plan to price; torch prices the same move inf
        executor = ("not supported yet" in got[1] or "from one partial type" in got[1])
        return None if executor else "the CLI refuses: %s" % got[1]
    if isinstance(got, tuple):
        return "torch prices it %r, the CLI refuses: %s" % (want, got[1])
    return None if repr(float(got)) == repr(float(want)) else "torch %r, the CLI %r" % (want, got)


CASES = EXTRA + _sample()


if pytest is not None:
    @pytest.mark.parametrize("case", CASES)
    def test_redistribute_cost(case):
        why = _why(case)
        assert why is None, (case, why)


if __name__ == "__main__":
    bad = [(c, w) for c in CASES for w in [_why(c)] if w]
    for c, w in bad[:20]:
        print("DIFF %s: %s" % (c, w))
    print("cost: %d passed, %d failed (torch %s)" % (len(CASES) - len(bad), len(bad), REL))
    sys.exit(1 if bad else 0)
