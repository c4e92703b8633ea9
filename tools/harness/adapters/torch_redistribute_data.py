"""torch_redistribute_data.py — the redistribute-data family recomputed by torch (2.11-2.15).

What it is for: every golden case is executed by torch itself, on LocalTensor
(torch/distributed/_local_tensor: one process simulating every rank, with the
collectives done as the equivalent tensor ops), and the per-rank sha256 of
each local result is compared bitwise with shardcheck's.

The deterministic data are re-implemented here from the description in
lib/exec/testdata.c (global element g(i) and per-rank partial values p(i, c)), not
imported from it.  The source placements are reached the way torch itself
would lay the data out: every rank starts from the full tensor (its partial
values on Partial mesh dims, Replicate elsewhere) and torch redistributes that
to the source spec (its own local chunking, _StridedShard and shard-order
rules); then torch redistributes source -> target with
redistribute_local_tensor, with the shard order in the DTensorSpec when the
case gives one in trace form.  An exception torch raises is the expected
rejection of an "invalid" case.

How it is tested: tools/harness/run.py --family redistribute-data (0
mismatches is the bar).
"""

import hashlib

import torch
import torch.distributed as dist

from adapters import _torch_common as tc

FAMILY = "redistribute-data"
# an oracle: every rejection must be torch's own (harnesslib.invalid_outcome)
ORACLE = "torch"

_M64 = (1 << 64) - 1
_DTYPES = {"float32": torch.float32, "float64": torch.float64, "bfloat16": torch.bfloat16,
           "float16": torch.float16, "int32": torch.int32, "int64": torch.int64}
_NVALUES = 4


def _mix64(x):
    x = (x + 0x9E3779B97F4A7C15) & _M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _M64
    return x ^ (x >> 31)


class _Data:
    """g(i) and p(i, c) of lib/exec/testdata.c's header comment."""

    def __init__(self, mesh_shape, src):
        self.mesh = mesh_shape
        self.k = [d for d, p in enumerate(src) if p.is_partial()]
        ops = {src[d].reduce_op for d in self.k}
        if len(ops) > 1:
            raise ValueError("mixed partial types")
        self.op = ops.pop() if ops else None
        n = 1
        for d in self.k:
            n *= mesh_shape[d]
        self.G = max(1, min(100, 256 // n - len(self.k)))

    def g(self, i):
        return _mix64(i) % (2 * self.G + 1) - self.G

    def p(self, i, c):
        g, s = self.g(i), (i % 3) - 1
        at_root, total, v, prod, bits, xr = True, 0, 0, 1, 0, 0
        for k in self.k:
            n = self.mesh[k]
            z = (i + 3 * k) % n
            ck = c[k]
            pair = n >= 2 and (ck == z or ck == (z + 1) % n)
            at_root = at_root and ck == z
            total += s * (0 if (n % 2 and ck == n - 1) else (-1 if ck % 2 else 1))
            v += (ck - z) % n
            if pair and (i & 1):
                prod = -prod
            if ck != z:
                bits |= 1 << ((1 + k) if self.op == "band" else (k % 7))
            if pair:
                xr ^= 5 << k
        op = self.op
        if op == "sum":
            return (g if at_root else 0) + total
        if op == "avg":
            return g + total
        if op == "min":
            return g + v
        if op == "max":
            return g - v
        if op == "product":
            return (g if at_root else 1) * prod
        if op == "band":
            return g | bits
        if op == "bor":
            return g & ~bits
        return (g if at_root else 0) ^ xr

    def full(self, shape, coord, dtype):
        n = 1
        for s in shape:
            n *= s
        vals = [self.p(i, coord) if self.k else self.g(i) for i in range(n)]
        return torch.tensor(vals, dtype=torch.int64).to(dtype).reshape(tuple(shape))


def _coords(shape):
    out = [[]]
    for s in shape:
        out = [c + [x] for c in out for x in range(s)]
    return out


def _spec(mesh, placements, order, shape, dtype):
    from torch.distributed.tensor._dtensor_spec import DTensorSpec, TensorMeta
    stride, acc = [], 1
    for s in reversed(shape):
        stride.insert(0, acc)
        acc *= s
    meta = TensorMeta(torch.Size(shape), tuple(stride), dtype)
    so = tc.check_shard_order(placements, order, list(mesh.shape)) if order is not None \
        else None
    return DTensorSpec(mesh, tuple(placements), tensor_meta=meta, shard_order=so)


def _view(t):
    t = t.contiguous()
    raw = t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b""
    flat = t.reshape(-1)[:_NVALUES].tolist()
    return list(t.shape), hashlib.sha256(raw).hexdigest(), flat


def compute(group, test):
    from torch.distributed._local_tensor import LocalTensor, LocalTensorMode
    from torch.distributed.tensor._redistribute import redistribute_local_tensor
    from torch.distributed.tensor.placement_types import Replicate

    mesh_shape = tc.parse_int_list(tc.field(group, test, "mesh"), "mesh")
    shape = tc.parse_int_list(tc.field(group, test, "shape"), "shape")
    dtype = _DTYPES[tc.field(group, test, "dtype")]
    src, src_order = tc.parse_placements(tc.field(group, test, "src"))
    dst, dst_order = tc.parse_placements(tc.field(group, test, "dst"))
    world = 1
    for s in mesh_shape:
        world *= s
    # torch's own check of a DTensor's placements (from_local and redistribute_local_tensor
    # call it) before the data below assume one reduce op
    from torch.distributed.tensor._utils import assert_no_mixed_partial_types
    assert_no_mixed_partial_types(src)
    data = _Data(mesh_shape, src)
    coords = _coords(mesh_shape)  # row-major: coords[rank] for an arange mesh

    mesh = _mesh(mesh_shape)
    mode = LocalTensorMode(world)
    _carry_coordinates(mode, mesh)
    with mode:
        full = LocalTensor({r: data.full(shape, coords[r], dtype) for r in range(world)})
        start = [p if p.is_partial() else Replicate() for p in src]
        start_spec = _spec(mesh, start, None, shape, dtype)
        src_spec = _spec(mesh, src, src_order, shape, dtype)
        dst_spec = _spec(mesh, dst, dst_order, shape, dtype)
        local = redistribute_local_tensor(full, start_spec, src_spec)
        out = redistribute_local_tensor(local, src_spec, dst_spec)
    _keep_coordinates(mode, mesh)
    locals_ = out._local_tensors if isinstance(out, LocalTensor) else {r: out for r in range(world)}
    views = [_view(locals_[r]) for r in range(world)]
    return {"perRank": {"localShape": [v[0] for v in views], "sha256": [v[1] for v in views],
                        "values": [v[2] for v in views]}}


_MESH = {"shape": None, "mesh": None, "coords": {}}


# Each case runs in a LocalTensorMode of its own, and torch's LocalTensorMode computes a mesh's
# per-rank coordinates once per mode (_LocalDeviceMesh.get_coordinate in
# torch/distributed/_local_tensor/__init__.py: a remap of the rank map per rank, kept in the
# mode's _coordinate_cache): 0.1-0.25 s per case, most of the family's time (issue 36).  The
# entries torch computed in one case's mode are carried into the next case's, as one
# long-lived mode over the same ranks would keep them.  torch 2.15 keys an entry by the mesh's
# (ndim, rank map, layout), a value: every entry is carried.  torch 2.13 keys it by id(mesh):
# only the entry of the mesh that lives across the cases (_mesh) is carried, since the id of a
# submesh that died may name another one later.  A release without the cache computes them
# every case, as before.
def _carry_coordinates(mode, mesh):
    cache = getattr(mode, "_coordinate_cache", None)
    if isinstance(cache, dict) and mesh is _MESH["mesh"]:
        cache.update(_MESH["coords"])


def _keep_coordinates(mode, mesh):
    cache = getattr(mode, "_coordinate_cache", None)
    if isinstance(cache, dict) and mesh is _MESH["mesh"]:
        _MESH["coords"].update((k, v) for k, v in cache.items()
                               if not isinstance(k, int) or k == id(mesh))


def _mesh(mesh_shape):
    """One fake world and DeviceMesh per mesh shape, kept while cases share it
    (creating the process groups dominates the run time otherwise)."""
    from torch.distributed._local_tensor import LocalTensorMode
    from torch.distributed.device_mesh import init_device_mesh
    key = (tuple(mesh_shape), tc.WORLD.generation)
    if _MESH["shape"] != key or not dist.is_initialized():
        world = 1
        for s in mesh_shape:
            world *= s
        tc.WORLD.enter(world, 0)
        with LocalTensorMode(world):
            _MESH["mesh"] = init_device_mesh("cpu", tuple(mesh_shape),
                                             mesh_dim_names=tc.dim_names(len(mesh_shape)))
        _MESH["shape"] = (tuple(mesh_shape), tc.WORLD.generation)
        _MESH["coords"] = {}
    return _MESH["mesh"]
