"""test_view_sharding.py — `shardcheck view` against torch 2.13's own view-op sharding.

Issue 35.  For a grid of queries (global shape, mesh, input placements, op) two checks:

- the rule: torch's propagate_shape_and_sharding (torch/distributed/tensor/_ops/_view_ops.py),
  fed the dim map torch's own functions build for the op (view_groups, dim_squeeze,
  dim_unsqueeze, dim_transpose, the permute map) and the strict_view flag the op is registered
  with, must give the CLI's input target and output placements, or raise the exception the CLI
  names;
- real data: the op is run on a DTensor of arange values in a LocalTensorMode world (every
  rank simulated in this process, torch's real dispatch: sharding propagation, the
  redistribution, the local op with its shape rewritten); each rank's local result is
  compared with distribute_tensor of the op's global result on the output placements, and the
  verdict (correct / wrong / wrong-shape / local-error / rule-raises) must be the CLI's.

Needs a built shardcheck ($SHARDCHECK or _build/tools/shardcheck) and torch; skipped otherwise.
"""

import json
import os
import subprocess

import pytest

torch = pytest.importorskip("torch")

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
EXE = os.environ.get("SHARDCHECK") or os.path.join(REPO, "_build", "tools", "shardcheck")

# (shape, op spec) pairs; each is put to every placement row of every mesh below.
OPS = [
    ((12, 8), "view:16,6"),      # pytorch#179502
    ((12, 8), "view:96"),
    ((12, 8), "view:3,4,8"),
    ((12, 8), "view:12,2,4"),
    ((12, 8), "view:-1,4"),
    ((12, 8), "reshape:16,6"),
    ((12, 8), "reshape:3,32"),
    ((6, 4), "view:24"),
    ((6, 4), "view:2,3,4"),
    ((6, 4), "view:4,6"),
    ((2, 3, 4), "flatten"),
    ((2, 3, 4), "flatten:0,1"),
    ((2, 3, 4), "flatten:1,2"),
    ((4, 6, 2), "flatten:0,1"),
    ((24,), "unflatten:0:2,3,4"),
    ((24,), "unflatten:0:4,6"),
    ((24,), "unflatten:0:6,4"),
    ((6, 4), "unflatten:0:2,3"),
    ((6, 4), "unflatten:1:2,2"),
    ((5, 4), "view:20"),
    ((5, 4), "view:10,2"),
    ((7, 6), "view:42"),
    ((7, 6), "view:7,2,3"),
    ((4, 1, 6), "squeeze"),
    ((4, 1, 6), "squeeze:1"),
    ((4, 6), "unsqueeze:0"),
    ((4, 6), "unsqueeze:-1"),
    ((4, 6), "transpose:0,1"),
    ((2, 3, 4), "permute:2,0,1"),
    ((8, 6), "view:48"),
    ((8, 6), "view:4,12"),
    ((8, 6), "view:2,4,6"),
]

MESHES = {
    (4,): ["R", "S(0)", "S(1)", "P(sum)", "S(-1)"],
    (3,): ["S(0)", "S(1)"],
    (2, 2): ["S(0),S(0)", "S(0),S(1)", "S(1),S(0)", "S(1),S(1)", "R,S(1)", "P(sum),S(0)"],
    (2, 3): ["S(0),S(1)", "S(1),S(0)"],
}

# Strided inputs: (shape, mesh, placements, op); torch's own flatten output fed back.
STRIDED = [
    ((6, 4), (3,), "_S(0, 2)", "unflatten:0:2,3"),
    ((24,), (3,), "_S(0, 2)", "unflatten:0:2,3,4"),
    ((24,), (2,), "_S(0, 3)", "unflatten:0:3,8"),
    ((12, 4), (2, 2), "S(0),_S(0, 2)", "view:2,6,4"),
    ((24,), (2,), "_S(0, 2)", "view:4,6"),
    # torch's rule is wrong on these (docs/findings/view_strided_wrong_data.py)
    ((12, 8), (2,), "_S(0, 3)", "view:2,48"),
    ((12, 8), (2,), "_S(0, 3)", "view:2,6,8"),
    ((12, 8), (2, 2), "S(1),_S(1, 2)", "flatten:0,1"),
    ((12, 8), (2, 2), "_S(1, 2),S(1)", "view:96"),
    ((12, 8), (2, 2), "R,_S(0, 3)", "view:2,4,12"),
]


def _queries():
    for shape, op in OPS:
        for mesh, rows in MESHES.items():
            for pl in rows:
                if pl.count("S(") and "S(-1)" not in pl:
                    dims = [int(x.split(")")[0]) for x in pl.split("S(")[1:]]
                    if max(dims) >= len(shape):
                        continue
                yield shape, mesh, pl, op
    for q in STRIDED:
        yield q


QUERIES = list(_queries())


def _cli(shape, mesh, pl, op):
    r = subprocess.run([EXE, "view", "--mesh", "x".join(map(str, mesh)), "--placements", pl,
                        "--shape", ",".join(map(str, shape)), "--op", op, "--json"],
                       capture_output=True, text=True, timeout=60)
    return r.returncode, r.stdout, r.stderr


def _placements(s):
    from torch.distributed.tensor.placement_types import (Partial, Replicate, Shard,
                                                          _StridedShard)
    out = []
    for tok in s.replace(", ", ";").split(","):
        if tok == "R":
            out.append(Replicate())
        elif tok.startswith("P("):
            out.append(Partial(tok[2:-1]))
        elif tok.startswith("_S("):
            d, sf = tok[3:-1].split(";")
            out.append(_StridedShard(int(d), split_factor=int(sf)))
        else:
            out.append(Shard(int(tok[2:-1])))
    return out


def _fmt(pls):
    from torch.distributed.tensor.placement_types import Partial, Shard, _StridedShard
    out = []
    for p in pls:
        if isinstance(p, _StridedShard):
            out.append("_S(%d, %d)" % (p.dim, p.split_factor))
        elif isinstance(p, Shard):
            out.append("S(%d)" % p.dim)
        elif isinstance(p, Partial):
            out.append("P(%s)" % p.reduce_op)
        else:
            out.append("R")
    return ",".join(out)


def _apply(x, op):
    """The op as a user writes it on a tensor (a plain one or a DTensor)."""
    name, _, args = op.partition(":")
    if name == "unflatten":
        d, _, sizes = args.partition(":")
        return x.unflatten(int(d), [int(v) for v in sizes.split(",")])
    vals = [int(v) for v in args.split(",")] if args else []
    if name in ("view", "reshape"):
        return getattr(x, name)(*vals)
    if name == "squeeze":
        return x.squeeze(vals) if vals else x.squeeze()
    if name == "flatten":
        return x.flatten(*vals)
    if name == "permute":
        return x.permute(*vals)
    return getattr(x, name)(*vals)


def _torch_rule(shape, mesh, pl, op):
    """torch's propagate_shape_and_sharding for the op, as its registration calls it."""
    from torch.distributed.tensor._ops import _view_ops as vo
    name = op.partition(":")[0]
    src = _placements(pl)
    src = [type(p)(p.dim % len(shape)) if type(p).__name__ == "Shard" else p for p in src]
    x = torch.empty(shape)
    y = _apply(x, op)
    if name in ("view", "reshape", "flatten", "unflatten"):
        if name == "flatten" and y.shape == x.shape:
            rule = tuple(vo.InputDim(i) for i in range(len(shape)))
        else:
            rule = vo.view_groups(tuple(shape), tuple(y.shape))
        strict = name != "reshape"
    elif name == "squeeze":
        dims = [d for d in range(len(shape)) if shape[d] == 1]
        rule, strict = vo.dim_squeeze(tuple(shape), dims), True
    elif name == "unsqueeze":
        rule, strict = vo.dim_unsqueeze(len(shape), int(op.split(":")[1])), False
    elif name == "transpose":
        a, b = [int(v) for v in op.split(":")[1].split(",")]
        rule, strict = vo.dim_transpose(len(shape), a, b), False
    else:
        rule = vo.dim_maps[torch.permute](x, [int(v) for v in op.split(":")[1].split(",")])
        strict = False
    try:
        tgt, out = vo.propagate_shape_and_sharding(src, tuple(shape), rule, mesh, strict)
    except Exception as e:  # torch's answer is the exception
        return {"raises": "%s: %s" % (type(e).__name__, e)}
    return {"inputTarget": _fmt(tgt), "output": _fmt(out)}


@pytest.fixture(scope="module")
def exe():
    if not os.access(EXE, os.X_OK):
        pytest.skip("no built shardcheck at %s" % EXE)
    return EXE


@pytest.mark.parametrize("q", QUERIES, ids=lambda q: "%s-%s-%s-%s" % q)
def test_rule_matches_torch(exe, q):
    rc, out, err = _cli(*q)
    assert rc == 0, err
    got = json.loads(out)["rule"]
    want = _torch_rule(*q)
    if "raises" in want:
        assert got["raises"] is not None, (want, got)
        assert want["raises"].startswith(got["raises"].rstrip(".")), (want, got)
    else:
        assert got["raises"] is None, (want, got)
        assert (got["inputTarget"], got["output"]) == (want["inputTarget"], want["output"])


_WORLD = {}


def _mesh(mesh):
    import torch.distributed as dist
    from torch.distributed._local_tensor import LocalTensorMode
    from torch.distributed.device_mesh import init_device_mesh
    from torch.testing._internal.distributed.fake_pg import FakeStore
    world = 1
    for s in mesh:
        world *= s
    if _WORLD.get("mesh") != mesh:
        if dist.is_initialized():
            dist.destroy_process_group()
        dist.init_process_group(backend="fake", store=FakeStore(), rank=0, world_size=world)
        with LocalTensorMode(world):
            _WORLD["dm"] = init_device_mesh("cpu", tuple(mesh))
        _WORLD["mesh"] = mesh
    return _WORLD["dm"], world


def _slice(t, mesh, placements, rank):
    """The part of t that placements give the rank (row-major mesh coordinates): torch.chunk
    per Shard; a _StridedShard chunks into split_factor pieces, chunks each piece and joins
    the rank's chunk of every piece (placement_types.py _StridedShard._split_tensor)."""
    from torch.distributed.tensor.placement_types import Shard, _StridedShard
    coord, rest = [], rank
    for s in reversed(mesh):
        coord.insert(0, rest % s)
        rest //= s
    idx = [list(range(n)) for n in t.shape]

    def chunk(v, n, c):
        size = -(-len(v) // n)
        return v[size * c:size * (c + 1)]
    for k, p in enumerate(placements):
        if isinstance(p, _StridedShard):
            pieces = [chunk(idx[p.dim], p.split_factor, j) for j in range(p.split_factor)]
            idx[p.dim] = [i for piece in pieces for i in chunk(piece, mesh[k], coord[k])]
        elif isinstance(p, Shard):
            idx[p.dim] = chunk(idx[p.dim], mesh[k], coord[k])
    for d, v in enumerate(idx):
        t = t.index_select(d, torch.tensor(v, dtype=torch.long))
    return t


def _real_verdict(shape, mesh, pl, op):
    """torch's real dispatch on arange data: the verdict, or None where torch cannot lay the
    input out (distribute_tensor refuses Partial; see docs/findings for _StridedShard)."""
    from torch.distributed._local_tensor import LocalTensorMode
    from torch.distributed.tensor import distribute_tensor
    if "P(" in pl:
        return None, None
    dm, world = _mesh(mesh)
    numel = 1
    for s in shape:
        numel *= s
    # The global result compared against is a plain tensor, made outside the mode; the input
    # is made inside it, a LocalTensor (a plain tensor distributed on a _StridedShard gives
    # every rank rank 0's shard under LocalTensorMode).
    result = _apply(torch.arange(float(numel)).reshape(shape), op)
    with LocalTensorMode(world):
        full = torch.arange(float(numel)).reshape(shape)
        try:
            dt = distribute_tensor(full, dm, _placements(pl))
        except Exception:
            return None, None
        try:
            res = _apply(dt, op)
        except Exception as e:
            if "Sharding propagation failed" in str(e) or "Please redistribute" in str(e) or \
                    "requires redistribution" in str(e):
                return "rule-raises", None
            return "local-error", "%s: %s" % (type(e).__name__, e)
        lt = res._local_tensor
        # a rank-independent local tensor (nothing rank-specific happened) is every rank's
        got_l = getattr(lt, "_local_tensors", None) or {r: lt for r in range(world)}
    for r in range(world):
        want = _slice(result, mesh, res.placements, r)
        if got_l[r].shape != want.shape:
            return "wrong-shape", _fmt(res.placements)
        if not torch.equal(got_l[r], want):
            return "wrong", _fmt(res.placements)
    return "correct", _fmt(res.placements)


@pytest.mark.parametrize("q", QUERIES, ids=lambda q: "%s-%s-%s-%s" % q)
def test_verdict_matches_real_data(exe, q):
    # Tensor.reshape reaches DTensor as aten.view (reshape is CompositeImplicitAutograd), so
    # its real run is the view's answer; aten.reshape.default's own rule is checked above.
    cli_q = q[:3] + (q[3].replace("reshape:", "view:"),)
    rc, out, err = _cli(*cli_q)
    assert rc == 0, err
    ans = json.loads(out)
    verdict, placements = _real_verdict(*q)
    if verdict is None:
        pytest.skip("torch cannot distribute this input")
    assert ans["verdict"] == verdict, (ans, placements)
    if verdict in ("correct", "wrong", "wrong-shape"):
        assert ans["rule"]["output"] == placements
