"""torch_rng_offsets.py — the rng-offsets family computed by torch 2.13's own tracker.

What it is for: every golden rng-offsets case is recomputed with the code of
torch/distributed/tensor/_random.py (torch 2.13): for each rank, a DeviceMesh
that knows that rank's coordinate (built without a process group:
_init_backend=False, _rank=r, so DeviceMesh itself computes the coordinate
from the rank map), a DTensorSpec of the case (with its shard order, if any),
and OffsetBasedRNGTracker._compute_rng_offsets — the very method
_set_pre_op_offset / _set_post_op_offset call — on a tracker object whose
__init__ is skipped (it demands a CUDA device; the method reads no instance
state but _calc_shard_linear_idx).  first_shard_numel is torch's
_calc_first_shard_size; local_numel is the rank's local shape from torch's
_compute_local_shape_and_global_offset, obtained through the shard-layout
family's torch adapter (torch_shard_layout.compute, which applies shard
orders as torch does).  Nothing here re-derives the offset
arithmetic.

The findings are recomputed by a small audit written here, independently of
lib/rng_audit.c, from torch's numbers: a rank's window is
[start_incr, start_incr + local_numel); distinct shards are distinct shard
linear indices; empty windows take part in nothing.

Why not LocalTensor mode: torch 2.13's _LocalOffsetBasedRNGTracker
(torch/distributed/_local_tensor/__init__.py, _set_pre_op_offset) computes each
rank's coordinate as (rank // stride) % size, i.e. as if the mesh were arange,
so on a rank map such as [3, 1, 2, 0] with Shard(0) of 16 elements it gives
rank 0 start 0 where the per-process tracker gives 12.  The per-process path
used here is the one real jobs run.

How it is tested: `python tools/harness/run.py --family rng-offsets` must
report 0 mismatches.
"""

import math

import torch
from torch.distributed.device_mesh import DeviceMesh
from torch.distributed.tensor._dtensor_spec import DTensorSpec, TensorMeta
from torch.distributed.tensor._random import OffsetBasedRNGTracker, _calc_first_shard_size

try:
    from . import _torch_common as tc
    from . import torch_shard_layout as sl
except ImportError:  # loaded as a file path
    import _torch_common as tc  # type: ignore
    import torch_shard_layout as sl  # type: ignore

FAMILY = "rng-offsets"

# A tracker without __init__: OffsetBasedRNGTracker.__init__ requires a CUDA
# device, which the offset arithmetic does not use.
_TRACKER = object.__new__(OffsetBasedRNGTracker)
_MESHES = {}


def rank_mesh(shape, rank_map, rank):
    """DeviceMesh as global rank `rank` sees it (coordinate computed by torch)."""
    key = (tuple(shape), tuple(rank_map), rank)
    m = _MESHES.get(key)
    if m is None:
        if len(_MESHES) > 20000:
            _MESHES.clear()
        t = torch.tensor(rank_map, dtype=torch.int).view(tuple(shape))
        m = DeviceMesh("cpu", t, _init_backend=False, _rank=rank)
        _MESHES[key] = m
    return m


def contiguous_stride(shape):
    stride, acc = [], 1
    for s in reversed(shape):
        stride.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(stride))


def tracker_offsets(mesh, placements, order, gshape):
    """(start_incr, end_incr, first_shard_numel) from torch's tracker code."""
    meta = TensorMeta(torch.Size(gshape), contiguous_stride(gshape), torch.float32)
    kw = {}
    if order is not None and any(o is not None for o in order):
        kw["shard_order"] = tc.shard_order_of(placements, order)
    spec = DTensorSpec(mesh, tuple(placements), tensor_meta=meta, **kw)
    start, end = OffsetBasedRNGTracker._compute_rng_offsets(_TRACKER, spec)
    first = math.prod(_calc_first_shard_size(spec))
    return int(start), int(end), int(first)


def shard_linear_index(mesh, placements, gshape):
    """torch's shard linear index: _calc_shard_info + _calc_shard_linear_idx."""
    from torch.distributed.tensor._random import _calc_shard_info, _calc_shard_linear_idx
    meta = TensorMeta(torch.Size(gshape), contiguous_stride(gshape), torch.float32)
    spec = DTensorSpec(mesh, tuple(placements), tensor_meta=meta)
    coord = [mesh._sym_get_coordinate(i) for i in range(mesh.ndim)]
    idx, total = _calc_shard_info(coord, spec)
    return int(_calc_shard_linear_idx(idx, total))


def audit(lin, start, local, end):
    """Independent audit of the windows (see module docstring)."""
    shards = {}
    for r in range(len(lin)):
        shards.setdefault(lin[r], (start[r], start[r] + local[r]))
    wins = sorted((lo, k, hi) for k, (lo, hi) in shards.items() if hi > lo)
    kinds = set()
    for i, (lo, k, hi) in enumerate(wins):
        if hi > end:
            kinds.add("OffsetOverrun")
        for lo2, k2, hi2 in wins[i + 1:]:
            if lo2 >= hi:
                break
            kinds.add("OffsetOverlap")
            if lo2 == lo:
                kinds.add("OffsetSameStart")
    order = ["OffsetSameStart", "OffsetOverrun", "OffsetOverlap"]
    return [k for k in order if k in kinds]


def compute(group, test):
    if "op" in group:
        # the random-data variant needs torch's CUDA kernels (flag GpuOnly)
        raise NotImplementedError("random data needs a CUDA GPU (GpuOnly)")
    mesh_shape, rank_map = sl.mesh_inputs(group, test)
    gshape = tc.parse_int_list(tc.field(group, test, "shape"), "shape")
    torch.empty(tuple(gshape), device="meta")  # torch's own size/overflow checks
    placements, order = tc.parse_placements(tc.field(group, test, "placements"))
    if len(placements) != len(mesh_shape):
        raise ValueError("`placements` must have the same length as `device_mesh.ndim`! "
                         "Found placements length: %d, and device_mesh.ndim: %d."
                         % (len(placements), len(mesh_shape)))
    for p in placements:
        if hasattr(p, "dim") and not 0 <= p.dim < len(gshape):
            raise IndexError("shard dim %d of a %d-d tensor: _calc_shard_info indexes "
                             "dim_map out of range" % (p.dim, len(gshape)))
    # local shapes through the shard-layout family's torch adapter (its public contract)
    local_shapes = sl.compute(group, test)["perRank"]["localShape"]
    coords = sl.coordinates(mesh_shape, rank_map)
    lin, start, local = [], [], []
    end = first = None
    for r, coord in enumerate(coords):
        if coord is None:
            raise ValueError("rank %d of the world is not in the mesh" % r)
        mesh = rank_mesh(mesh_shape, rank_map, r)
        s, e, f = tracker_offsets(mesh, placements, order, gshape)
        lin.append(shard_linear_index(mesh, placements, gshape))
        start.append(s)
        local.append(math.prod(local_shapes[r]))
        end, first = e, f
    return {
        "end_incr": end,
        "first_shard_numel": first,
        "findings": audit(lin, start, local, end),
        "perRank": {"shard_linear_index": lin, "start_incr": start, "local_numel": local},
    }
