"""test_placement.py — `shardcheck placement` answers what torch's own functions answer.

Issue 34 item 3: placement predicates and equality (placement_types.py: is_shard() is False
for a _StridedShard, _S(3, 1) != S(3)), is_tensor_shardable / is_tensor_evenly_shardable
(_ops/utils.py), a _StridedShard decoded into a shard order and a shard order encoded back
(_dtensor_spec.py), and the global shape and stride from a local tensor
(torch._C._DTensor_compute_global_tensor_info).  Each query goes to the built CLI and to the
imported torch (a mesh of sizes only, no process group), and the answers must be equal,
torch's refusals included (its exception type and message, which the CLI prints).
compute_global_tensor_shape all-gathers every rank's local shape, so its cases run in a gloo
world of 4 CPU processes (global_shape_worker.py), each rank with its own local shape.

Needs a built shardcheck ($SHARDCHECK or _build/tools/shardcheck); skipped otherwise.
"""

import json
import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_input_worker import register, session_answers  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
EXE = os.environ.get("SHARDCHECK") or os.path.join(REPO, "_build", "tools", "shardcheck")
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "adapters"))

pytestmark = pytest.mark.skipif(not os.access(EXE, os.X_OK), reason="no built shardcheck")


def cli(*args):
    p = subprocess.run([EXE, "placement"] + list(args) + ["--json"], capture_output=True,
                       text=True, timeout=60)
    if p.returncode == 0:
        return json.loads(p.stdout)
    assert p.returncode == 2, p.stderr
    return {"error": p.stderr.strip()}


def torch_pl(text):
    import _torch_common as tc
    pl, order = tc.parse_placements(text)
    return list(pl), order


def mesh(shape):
    import _torch_common as tc
    return tc.layout_mesh(shape)


SHOW = ["S(3),_S(3, 1)", "_S(3, 1),_S(3, 2),_S(3, 1)", "R,P(sum),P(Sum),P(avg),P(prod),R",
        "S(0),S(1),S(-1),_S(-1, 4),R"]


@pytest.mark.parametrize("text", SHOW)
def test_show(text):
    pls, _ = torch_pl(text)
    got = cli("show", "--placements", text)
    want = [{"str": str(p), "repr": repr(p), "is_shard": p.is_shard(),
             "is_shard_like": type(p).__name__ in ("Shard", "_StridedShard"),
             "is_replicate": p.is_replicate(), "is_partial": p.is_partial()} for p in pls]
    assert got["placements"] == want
    classes = []
    for i, p in enumerate(pls):
        for c in classes:
            if pls[c[0]] == p:
                assert p == pls[c[0]] and hash(p) == hash(pls[c[0]])
                c.append(i)
                break
        else:
            classes.append([i])
    assert got["equal"] == classes


SHARDABLE = [  # mesh, placements, shape
    ([2, 3], "_S(0, 2),S(0)", [12, 4]), ([2, 3], "_S(0, 2),S(0)", [10, 4]),
    ([2, 3], "_S(0, 3),S(0)", [5, 4]), ([2, 3], "S(0),S(-1)", [5, 3]),
    ([4], "S(0)", [3, 8]), ([4], "S(1)", [3, 8]), ([2, 2], "S(2),R", [4, 4]),
    ([2, 2], "S(0),S(0)", [4]), ([2, 2], "S(0),S(0)", [3]), ([2, 2], "P(sum),R", [1]),
    ([3, 2], "S(1),_S(1, 3)", [2, 6]), ([3, 2], "S(1),_S(1, 3)", [2, 18]),
    ([2, 4], "S(0),S(1)", [0, 4]),
]


@pytest.mark.parametrize("m,text,shape", SHARDABLE)
def test_shardable(m, text, shape):
    from torch.distributed.tensor._dtensor_spec import DTensorSpec
    from torch.distributed.tensor._ops.utils import (is_tensor_evenly_shardable,
                                                     is_tensor_shardable)
    pls, _ = torch_pl(text)
    # the user-facing normalisation (distribute_tensor) the CLI applies to --placements
    pls = [type(p)(p.dim + len(shape), **({"split_factor": p.split_factor}
                                          if type(p).__name__ == "_StridedShard" else {}))
           if hasattr(p, "dim") and p.dim < 0 else p for p in pls]
    spec = DTensorSpec(mesh(m), tuple(pls))
    want = {"is_tensor_shardable": bool(is_tensor_shardable(shape, spec)),
            "is_tensor_evenly_shardable": bool(is_tensor_evenly_shardable(shape, spec))}
    got = cli("shardable", "--mesh", "x".join(map(str, m)), "--placements", text,
              "--shape", ",".join(map(str, shape)))
    assert got == want


DECODE = [([4, 3, 2], "_S(0, 2),_S(0, 2),S(0)"), ([4, 3, 2], "_S(0, 5),S(0),R"),
          ([2, 2], "_S(0, 2),S(0)"), ([2, 2], "S(0),S(0)"), ([2, 4], "_S(1, 4),S(1)"),
          ([2, 2, 2], "_S(0, 2),S(1),S(0)"), ([2, 3], "_S(0, 3),_S(1, 1)"),
          ([2, 2], "R,P(sum)"), ([2, 2], "_S(0, 3),S(0)")]


@pytest.mark.parametrize("m,text", DECODE)
def test_decode(m, text):
    from torch.distributed.tensor._dtensor_spec import DTensorSpec
    pls, _ = torch_pl(text)
    so = DTensorSpec._maybe_convert_StridedShard_to_shard_order(tuple(pls), mesh(m))
    got = cli("order", "--mesh", "x".join(map(str, m)), "--placements", text)
    want = None if so is None else [[e.tensor_dim, list(e.mesh_dims)] for e in so]
    assert got["shard_order"] == want


ENCODE = [  # mesh, placements, shard order as ((tensor_dim, mesh dims), ...)
    ([4, 3, 2], "S(0),S(0),S(0)", ((0, (2, 0, 1)),)),
    ([2, 2], "S(0),S(0)", ((0, (1, 0)),)),
    ([2, 4], "S(1),S(1)", ((1, (1, 0)),)),
    ([2, 2, 2], "S(0),S(1),S(0)", ((0, (2, 0)), (1, (1,)))),
    ([3, 2, 2], "S(0),S(0),S(0)", ((0, (1, 2, 0)),)),
    ([2, 2], "_S(0, 2),S(0)", ((0, (1, 0)),)),
]


def trace_text(pls, order):
    """The CLI's trace form of placements with a shard order."""
    idx = {}
    for td, mds in order:
        for k, md in enumerate(mds):
            idx[md] = k
    return "".join(str(p) + ("[%d]" % idx[i] if i in idx else "") for i, p in enumerate(pls))


@pytest.mark.parametrize("m,text,order", ENCODE)
def test_encode(m, text, order):
    from torch.distributed.tensor._dtensor_spec import DTensorSpec, ShardOrderEntry
    pls, _ = torch_pl(text)
    so = tuple(ShardOrderEntry(tensor_dim=t, mesh_dims=md) for t, md in order)
    got = cli("order", "--mesh", "x".join(map(str, m)), "--placements", trace_text(pls, order))
    try:
        out = DTensorSpec._convert_shard_order_to_StridedShard(so, tuple(pls), mesh(m))
    except ValueError as e:
        assert "ValueError: Only Shard placement can be converted to _StridedShard" in got["error"]
        assert str(e).startswith("Only Shard placement can be converted to _StridedShard")
        return
    assert got["placements"] == ",".join(str(p) for p in out)
    # and back: torch decodes its own encoding into the order given
    back = DTensorSpec._maybe_convert_StridedShard_to_shard_order(out, mesh(m))
    assert [[e.tensor_dim, list(e.mesh_dims)] for e in back] == got["shard_order"]


GLOBAL = [  # mesh, placements, local shape, local stride
    ([2, 3], "S(0),S(1)", [4, 6], [6, 1]), ([2, 3], "S(0),S(1)", [6, 4], [1, 6]),
    ([2, 3], "S(1),S(0)", [4, 6], [6, 1]), ([2, 3], "S(0),S(0)", [4, 6], [6, 1]),
    ([2, 3], "_S(0, 3),S(0)", [4, 6], [6, 1]), ([2, 2], "R,P(sum)", [4, 6], [6, 1]),
    ([2, 2], "S(-1),R", [4, 6], [6, 1]), ([2, 2], "S(2),R", [4, 6], [6, 1]),
    ([4], "S(1)", [2, 3, 5], [15, 1, 3]), ([2, 2], "S(0),S(2)", [3, 1, 4], [4, 4, 1]),
]


@pytest.mark.parametrize("m,text,shape,stride", GLOBAL)
def test_global_info(m, text, shape, stride):
    import torch
    from torch.distributed.tensor._utils import compute_global_tensor_info
    pls, _ = torch_pl(text)
    # from_local normalises a negative dim by the local tensor's ndim first (_api.py)
    pls = [type(p)(p.dim + len(shape)) if type(p).__name__ == "Shard" and p.dim < 0 else p
           for p in pls]
    got = cli("global", "--mesh", "x".join(map(str, m)), "--placements", text,
              "--local-shape", ",".join(map(str, shape)),
              "--local-stride", ",".join(map(str, stride)))
    try:
        gs, gst = compute_global_tensor_info(torch.empty_strided(shape, stride), mesh(m), pls)
    except RuntimeError as e:
        assert got == {"error": "shardcheck placement global: RuntimeError: %s" % e}
        return
    assert got == {"global_shape": list(gs), "global_stride": list(gst)}


GLOBAL_SHAPE = [  # mesh, placements (worker form), every rank's local shape
    ([4], [["S", 0]], [[3, 2], [3, 2], [2, 2], [1, 2]]),
    ([4], [["S", 1]], [[5, 0], [5, 1], [5, 2], [5, 3]]),
    ([4], [["R"]], [[5, 5]] * 4),
    ([4], [["S", 0]], [[3, 2], [3, 2], [2, 2], [1, 3]]),
    ([4], [["S", -1]], [[3, 2]] * 4),
    ([4], [["S", -1]], [[3, 2], [3, 4], [3, 2], [3, 2]]),
    ([4], [["S", 2]], [[3, 2]] * 4),
    ([4], [["_S", 0, 2]], [[3, 2]] * 4),
    ([4], [["P", "sum"]], [[3, 2]] * 4),
    ([2, 2], [["S", 0], ["S", 1]], [[2, 2]] * 4),
    ([2, 2], [["S", 0]], [[2, 2]] * 4),
]


def _text(pl):
    return ",".join("S(%d)" % p[1] if p[0] == "S" else "_S(%d, %d)" % (p[1], p[2])
                    if p[0] == "_S" else "P(%s)" % p[1] if p[0] == "P" else "R" for p in pl)


register("global_shape_worker.py",
         [{"mesh": m, "placements": pl, "locals": ls} for m, pl, ls in GLOBAL_SHAPE])


@pytest.fixture(scope="module")
def torch_global_shapes(tmp_path_factory):
    return session_answers("global_shape_worker.py", tmp_path_factory)


@pytest.mark.parametrize("i", range(len(GLOBAL_SHAPE)))
def test_global_shape(torch_global_shapes, i):
    m, pl, ls = GLOBAL_SHAPE[i]
    per_rank = torch_global_shapes[i]
    assert all(a == per_rank[0] for a in per_rank), per_rank  # every rank answers alike
    want = per_rank[0]
    got = cli("global", "--mesh", "x".join(map(str, m)), "--placements", _text(pl),
              "--local-shapes", ";".join(",".join(map(str, s)) for s in ls))
    if "raises" in want:
        r = want["raises"]
        assert got == {"error": "shardcheck placement global: %s: %s" % (r["type"], r["message"])}
    else:
        assert got == {"global_shape": want["shape"]}
