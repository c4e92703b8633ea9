"""test_utils.py — probes for conformance/torch_pins/test_utils.json (torch's
test/distributed/tensor/test_utils.py), see pins/__init__.py.

Every probe computes with torch 2.13's own functions on CPU in this one process: the sharding
utilities of torch.distributed.tensor._utils, _StridedShard._split_tensor, DTensorSpec's
shard-order conversions, and for what needs many ranks torch's LocalTensorMode over a fake
process group (_torch_common.WORLD), which each probe closes again.  Offsets are returned as
decimal strings, the spelling of shardcheck's `layout --json` globalOffset (the rows' wants are
written the same way).
"""

import contextlib
import functools
import math

from pins import refusal
from pins.common import local_shape_offset, parse, tc


def _prod(xs):
    return math.prod(int(x) for x in xs)


def _coord(mesh, rank):
    coord, r = [], int(rank)
    for size in reversed(mesh):
        coord.insert(0, r % size)
        r //= size
    return coord


@contextlib.contextmanager
def _local_world(world):
    """torch's LocalTensorMode simulating `world` ranks over a fake process group (rank 0),
    closed again afterwards."""
    from torch.distributed._local_tensor import LocalTensorMode
    tc.WORLD.enter(world, 0)
    try:
        with LocalTensorMode(world) as lm:
            yield lm
    finally:
        tc.WORLD.close()


def _offset_of_first(local, shape):
    """The global offset of a non-empty local shard of arange(numel).view(shape): the
    multi-index of its first element."""
    flat = int(local.reshape(-1)[0])
    off = []
    for size in reversed(shape):
        off.insert(0, flat % size)
        flat //= size
    return off


def shape_offset(mesh, shape, placements, rank):
    """torch's _compute_local_shape_and_global_offset for the rank's coordinate (as
    pins.common.local_shape_offset), the offset as decimal strings."""
    got = local_shape_offset(mesh, shape, placements, rank)
    if "error" in got:
        return got
    return {"shape": got["shape"], "offset": [str(o) for o in got["offset"]]}


def distributed_slice(mesh, shape, placements, rank):
    """What UtilTest.test_compute_local_shape_and_global_offset_1D/_2D check: distribute_tensor
    of arange(numel).view(shape) (LocalTensorMode) gives the rank exactly the slice
    [offset, offset + local_shape) that _compute_local_shape_and_global_offset names.  Returns
    that local shape and offset (the offset only for a non-empty shard: an empty slice is the
    same at any offset), or an error when torch's two answers differ."""
    return _distributed_slices(tuple(mesh), tuple(shape), placements)[int(rank)]


@functools.lru_cache(maxsize=None)
def _distributed_slices(mesh, shape, placements):
    """distributed_slice's answer for every rank of one layout (one LocalTensorMode run)."""
    import torch
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import distribute_tensor
    from torch.distributed.tensor._utils import _compute_local_shape_and_global_offset
    pls = parse(placements)
    world = _prod(mesh)
    with _local_world(world):
        g = torch.arange(_prod(shape)).view(shape)
        dm = init_device_mesh("cpu", tuple(mesh))
        local = distribute_tensor(g, dm, pls).to_local()
        mine = [local._local_tensors[r].clone() for r in range(world)]
    out = []
    for r in range(world):
        ls, off = _compute_local_shape_and_global_offset(list(shape), list(mesh),
                                                        _coord(mesh, r), pls)
        want = g[tuple(slice(o, o + n) for o, n in zip(off, ls))]
        if list(mine[r].shape) != list(ls) or not torch.equal(mine[r], want):
            out.append({"error": f"Mismatch: rank {r}'s to_local {list(mine[r].shape)} is not "
                                 f"the slice at {list(off)} of shape {list(ls)}"})
            continue
        res = {"shape": list(ls)}
        if mine[r].numel():
            res["offset"] = [str(o) for o in _offset_of_first(mine[r], shape)]
        out.append(res)
    return out


def global_tensor_shape(mesh, placements, local_shapes):
    """torch's compute_global_tensor_shape on a mesh of fake-process-group ranks under
    LocalTensorMode, rank r holding a local tensor of local_shapes[r] (it all-gathers them):
    {"global_shape": [...]} or torch's refusal."""
    import torch
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor._utils import compute_global_tensor_shape
    with _local_world(_prod(mesh)) as lm:
        dm = init_device_mesh("cpu", tuple(mesh))
        lt = lm.rank_map(lambda r: torch.empty(local_shapes[r]))
        try:
            got = compute_global_tensor_shape(lt.shape, dm, parse(placements))
        except Exception as e:  # torch's refusal, compared by the row
            return refusal(e)
    return {"global_shape": [int(x) for x in got]}


def global_tensor_info(mesh, placements, local_shape, local_stride=None):
    """torch's compute_global_tensor_info of a local tensor (every rank's alike) on a mesh of
    sizes only: {"global_shape", "global_stride"}."""
    import torch
    from torch.distributed.tensor._utils import compute_global_tensor_info
    if local_stride is None:
        local = torch.empty(local_shape)
    else:
        local = torch.empty_strided(local_shape, local_stride)
    try:
        gs, gst = compute_global_tensor_info(local, tc.layout_mesh(mesh), parse(placements))
    except Exception as e:  # torch's refusal, compared by the row
        return refusal(e)
    return {"global_shape": [int(x) for x in gs], "global_stride": [int(x) for x in gst]}


def tensor_info_roundtrip(mesh, placements, local_shape):
    """UtilSingleDeviceTest.test_compute_tensor_info as the test runs it (fake process group,
    rank 0 of the mesh's size): DTensor.from_local of a contiguous local tensor, its
    compute_global_tensor_info checked against redistribute to Replicate, then
    compute_local_tensor_info of the global tensor checked against redistribute back.
    {"global_shape", "global_stride", "local_shape"} or an error naming the mismatch."""
    import torch
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import DTensor, Replicate
    from torch.distributed.tensor._utils import (compute_global_tensor_info,
                                                 compute_local_tensor_info)
    pls = tuple(parse(placements))
    tc.WORLD.enter(_prod(mesh), 0)
    try:
        dm = init_device_mesh("cpu", tuple(mesh))
        local = torch.empty(local_shape)
        gs, gst = compute_global_tensor_info(local, dm, pls)
        gdt = DTensor.from_local(local, dm, pls).redistribute(dm, [Replicate()] * dm.ndim)
        if list(gs) != list(gdt.size()) or list(gst) != list(gdt.stride()):
            return {"error": f"Mismatch: global info {list(gs)} {list(gst)} vs redistribute "
                             f"{list(gdt.size())} {list(gdt.stride())}"}
        nls, nlst = compute_local_tensor_info(torch.empty_strided(gs, gst), dm, pls)
        back = gdt.redistribute(dm, pls).to_local()
        if list(nls) != list(back.size()) or list(nlst) != list(back.stride()):
            return {"error": f"Mismatch: local info {list(nls)} vs redistribute "
                             f"{list(back.size())}"}
    finally:
        tc.WORLD.close()
    return {"global_shape": [int(x) for x in gs], "global_stride": [int(x) for x in gst],
            "local_shape": [int(x) for x in nls]}


def split_indices(mesh, shape, placements, rank, dim):
    """TestStridedSharding's nested _split_tensor: the tensor is split by each mesh dim's
    placement in turn (placement._split_tensor(x, mesh size)), the rank keeping its
    coordinate's piece; returns the global indices along `dim` the rank ends up holding."""
    import torch
    pls = parse(placements)
    n = shape[dim]
    view = [1] * len(shape)
    view[dim] = n
    x = torch.arange(n).view(view).expand(shape).contiguous()
    for p, size, c in zip(pls, mesh, _coord(mesh, rank)):
        if not hasattr(p, "_split_tensor"):
            continue  # Replicate keeps the whole
        pieces, _ = p._split_tensor(x, size)
        x = pieces[c]
    return x.movedim(dim, -1).reshape(-1, x.shape[dim])[0].tolist() if x.numel() else []


def shard_order(mesh, placements):
    """DTensorSpec._maybe_convert_StridedShard_to_shard_order: [[tensor_dim, [mesh dims]],..]
    or None where no shard order gives the split factors."""
    from torch.distributed.tensor._dtensor_spec import DTensorSpec
    so = DTensorSpec._maybe_convert_StridedShard_to_shard_order(tuple(parse(placements)),
                                                               tc.layout_mesh(mesh))
    if so is None:
        return {"shard_order": None}
    return {"shard_order": [[e.tensor_dim, list(e.mesh_dims)] for e in so]}


def redistribute_local(mesh, shape, src, dst, rank):
    """DTensor.redistribute of arange(numel).view(shape) laid out as `src` (LocalTensorMode,
    fake process group) to `dst` under CommDebugMode: the collectives torch issued
    ({"counts": {op name: n}}) and the rank's resulting local shape and offset."""
    counts, locals_ = _redistributed(tuple(mesh), tuple(shape), src, dst)
    mine = locals_[int(rank)]
    res = {"counts": dict(counts), "shape": list(mine.shape)}
    if mine.numel():
        res["offset"] = [str(o) for o in _offset_of_first(mine, shape)]
    return res


@functools.lru_cache(maxsize=None)
def _redistributed(mesh, shape, src, dst):
    """One redistribute run for redistribute_local: (counts, every rank's local tensor)."""
    import torch
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import distribute_tensor
    from torch.distributed.tensor.debug import CommDebugMode
    world = _prod(mesh)
    with _local_world(world):
        g = torch.arange(_prod(shape)).view(shape)
        dm = init_device_mesh("cpu", tuple(mesh))
        d = distribute_tensor(g, dm, parse(src))
        with CommDebugMode() as cm:
            out = d.redistribute(dm, parse(dst))
        local = out.to_local()
        locals_ = [local._local_tensors[r].clone() for r in range(world)]
        counts = {str(k).rsplit(".", 1)[-1]: int(v) for k, v in cm.get_comm_counts().items()}
    return counts, locals_


@functools.lru_cache(maxsize=None)
def fsdp2_rows():
    """Test2DStridedLocalShard.test_fsdp2_tp_2d_dtensor_local_shards_and_offsets as the test
    builds it on a 2x2 (DP, TP) mesh (LocalTensorMode, fake process group): each rank's
    parameter is chunk rank//2 of its TP shard of arange(8).view(4, 2), wrapped as a DTensor
    with spec (_StridedShard(0, split_factor=2), Shard(0)).  When full_tensor() gives the
    global tensor back (the test's assertion) it returns the rows each rank holds, by rank."""
    import torch
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import DTensor, Shard, distribute_tensor
    from torch.distributed.tensor._dtensor_spec import DTensorSpec, TensorMeta
    from torch.distributed.tensor.placement_types import _StridedShard
    g = torch.arange(8).view(4, 2)
    with _local_world(4) as lm:
        dm = init_device_mesh("cpu", (2, 2), mesh_dim_names=("DP", "TP"))
        tp_local = distribute_tensor(g, dm["TP"], placements=[Shard(0)]).to_local()
        chunks = list(torch.chunk(tp_local, 2, dim=0))
        param = lm.rank_map(lambda r: chunks[0 if r // 2 == 0 else 1]._local_tensors[r])
        spec = DTensorSpec(mesh=dm, placements=(_StridedShard(0, split_factor=2), Shard(0)),
                           tensor_meta=TensorMeta(g.size(), g.stride(), g.dtype))
        d = DTensor(param, spec, requires_grad=False)
        full = d.full_tensor()
        ok = all(torch.equal(full._local_tensors[r], g) for r in range(4))
        rows = [(param._local_tensors[r][:, 0] // 2).tolist() for r in range(4)]
    if not ok:
        return {"error": "Mismatch: full_tensor() is not the global tensor"}
    return rows
