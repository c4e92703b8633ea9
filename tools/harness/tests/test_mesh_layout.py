"""test_mesh_layout.py — `shardcheck mesh-layout` answers what torch's own layout algebra does
(issue 34 item 3: _MeshLayout algebra).

torch 2.13 keeps each DeviceMesh dim as a CuTe-style layout (torch/distributed/_mesh_layout.py
_FlatLayout over torch/distributed/_pycute) and derives every flattened or sliced dim's process
groups from it.  For a few hundred layouts drawn with a fixed seed (sizes 0-5 with many 1s,
strides 0-12, up to 4 modes, worlds 1-40) and the ones torch's own docstrings give, the CLI
and torch's _FlatLayout must agree on the normal form, numel, ranks from zero, check_sorted,
cosize, check_orthogonal (its ZeroDivisionError included), complement (its AssertionError
included) and global_ranks; for root meshes and ascending dim sets, on the layout DeviceMesh
slicing keeps and the rank lists remap_to_tensor gives through a rank map.  No process group
is needed: torch runs in this process.

Needs a built shardcheck ($SHARDCHECK or _build/tools/shardcheck); skipped otherwise.
"""

import itertools
import json
import os
import random
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
EXE = os.environ.get("SHARDCHECK") or os.path.join(REPO, "_build", "tools", "shardcheck")

pytestmark = pytest.mark.skipif(not os.access(EXE, os.X_OK), reason="no built shardcheck")


def _cli(*args):
    p = subprocess.run([EXE, "mesh-layout"] + list(args) + ["--json"], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def _text(shape, stride):
    return "(%s):(%s)" % (",".join(map(str, shape)), ",".join(map(str, stride)))


def _draw(n, seed=20261129):
    rng = random.Random(seed)
    out = [((2, 2), (4, 1), 8), ((4,), (1,), 8), ((2, 3), (6, 1), 12), ((2, 3), (2, 1), 12),
           ((4, 2), (1, 1), 8), ((6, 2), (2, 1), 12), ((2, 3), (0, 1), 6), ((), (), 4),
           ((2, 2), (1, 1), 8), ((4,), (1,), 2), ((2, 2), (4, 1), 7), ((3,), (0,), 8)]
    while len(out) < n:
        k = rng.randint(1, 4)
        shape = tuple(rng.choice([1, 1, 2, 2, 3, 4, 5, 0]) for _ in range(k))
        stride = tuple(rng.choice([0, 1, 1, 2, 3, 4, 6, 8, 12]) for _ in range(k))
        out.append((shape, stride, rng.randint(1, 40)))
    return out


LAYOUTS = _draw(300)


def _torch(shape, stride, world):
    from torch.distributed._mesh_layout import _FlatLayout, _MeshLayout
    lay = _FlatLayout(shape, stride)
    want = {"layout": {"shape": list(lay.shape), "stride": list(lay.stride)},
            "numel": lay.numel(), "ranks": lay.all_ranks_from_zero(), "sorted": lay.check_sorted()}
    if lay.numel():
        want["cosize"] = _MeshLayout([lay]).cosize()
    try:
        want["orthogonal"] = lay.check_orthogonal()
    except ZeroDivisionError as e:
        want["orthogonal"] = {"raises": "ZeroDivisionError: %s" % e}
    try:
        c = lay.complement(world)
        want["complement"] = {"shape": list(c.shape), "stride": list(c.stride)}
        want["groups"] = lay.global_ranks(world)
    except AssertionError:
        want["complement"] = "AssertionError"
    return want


@pytest.mark.parametrize("shape,stride,world", LAYOUTS)
def test_flat_layout(shape, stride, world):
    want = _torch(shape, stride, world)
    got = _cli("--layout", _text(shape, stride), "--world", str(world))
    if want["complement"] == "AssertionError":
        assert got["complement"]["raises"].startswith("AssertionError"), got
        del want["complement"]
    for k, v in want.items():
        assert got[k] == v, (k, got, want)


MESHES = [(2, 2, 2), (2, 3, 4), (4, 2), (8,), (2, 1, 3), (3, 2, 2, 2)]


def _dim_sets(ndim):
    for r in range(1, ndim + 1):
        yield from itertools.combinations(range(ndim), r)


@pytest.mark.parametrize("mesh", MESHES)
def test_mesh_dims(mesh):
    """The layout of root dims taken together, and its groups through a shuffled rank map."""
    import torch
    from torch.distributed._mesh_layout import _MeshLayout
    n = 1
    for s in mesh:
        n *= s
    rank_map = list(range(n))
    random.Random(n).shuffle(rank_map)
    root = _MeshLayout.from_sizes_strides(mesh)
    for dims in _dim_sets(len(mesh)):
        flat = _MeshLayout([root[d] for d in dims]).collapse()
        groups = _MeshLayout([flat]).remap_to_tensor(torch.tensor(rank_map)).tolist()
        got = _cli("--mesh", "x".join(map(str, mesh)), "--ranks", ",".join(map(str, rank_map)),
                   "--dims", ",".join(map(str, dims)))
        assert got["layout"] == {"shape": list(flat.shape), "stride": list(flat.stride)}, dims
        assert got["groups"] == groups, (dims, got, groups)


# test/distributed/_pycute/test_complement.py (torch 2.13, TestComplement.test_complement):
# its eleven layouts, nested ones flattened as _FlatLayout flattens them, and its
# post-condition on the CLI's complement (max_idx 1: --world 1): no rank but 0 is both the
# layout's and the complement's.
TORCH_COMPLEMENT = [((1,), (0,)), ((1,), (1,)), ((4,), (0,)), ((2, 4), (1, 2)), ((2, 3), (1, 2)),
                    ((2, 4), (1, 4)), ((2, 4, 8), (8, 1, 64)), ((2, 2, 2, 2), (1, 4, 8, 32)),
                    ((2, 3, 4), (3, 1, 6)), ((4, 6), (1, 6)), ((4, 10), (1, 10))]


@pytest.mark.parametrize("shape,stride", TORCH_COMPLEMENT)
def test_torch_complement_invariant(shape, stride):
    got = _cli("--layout", _text(shape, stride), "--world", "1")
    want = _torch(shape, stride, 1)
    if want["complement"] == "AssertionError":  # torch's own complement refuses it too
        assert got["complement"]["raises"].startswith("AssertionError"), got
        return
    assert got["complement"] == want["complement"], (got, want)
    from torch.distributed._mesh_layout import _FlatLayout
    c = got["complement"]
    mine = set(got["ranks"])
    theirs = _FlatLayout(tuple(c["shape"]), tuple(c["stride"])).all_ranks_from_zero()
    assert all(r == 0 or r not in mine for r in theirs), (got, theirs)


# Slicing dims in any order, a dim twice, a dim past the mesh (issue 34, bad input): torch's
# own DeviceMesh (a fake world, rank 0) slices mesh[names] and flattens the slice; the CLI
# must keep the same layout and rank 0's flattened group, or refuse with torch's exception
# and message.  Size-1 dims leave the layout, so torch takes them in any order or twice.
SLICE_MESHES = [(2, 4), (1, 4), (2, 1, 2), (2, 2, 2), (4, 1), (1, 1, 3)]


def _dim_tuples(ndim):
    """Every tuple of up to ndim dims out of ndim + 1 (one past the mesh), and every dim
    followed by dim 0 again (one more than the mesh has)."""
    for r in range(1, ndim + 1):
        yield from itertools.product(range(ndim + 1), repeat=r)
    yield tuple(range(ndim)) + (0,)


def _cli_any(*args):
    p = subprocess.run([EXE, "mesh-layout"] + list(args) + ["--json"], capture_output=True,
                       text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


@pytest.mark.parametrize("mesh", SLICE_MESHES)
def test_slice_any_order(mesh):
    import warnings
    from adapters import _torch_common as tc
    n = 1
    for s in mesh:
        n *= s
    for dims in _dim_tuples(len(mesh)):
        # a mesh of its own: a flatten adds its name to the root's valid names
        dm = tc.device_mesh(list(mesh), list(range(n)), 0)
        names = tuple("d%d" % d for d in dims)
        rc, out, err = _cli_any("--mesh", "x".join(map(str, mesh)),
                                "--dims", ",".join(map(str, dims)))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                sub = dm[names]
                lay = sub._layout.collapse()
                mine = sub._flatten().mesh.flatten().tolist() if len(names) > 1 else \
                    sub.mesh.flatten().tolist()
        except (KeyError, RuntimeError) as e:
            assert rc == 2, (dims, out)
            text = e.args[0] if isinstance(e, KeyError) else str(e)
            assert "%s: %s" % (type(e).__name__, text) in err, (dims, err)
            continue
        assert rc == 0, (dims, err)
        got = json.loads(out)
        assert got["layout"] == {"shape": list(lay.shape), "stride": list(lay.stride)}, dims
        assert [g for g in got["groups"] if 0 in g] == [mine], (dims, got["groups"], mine)
