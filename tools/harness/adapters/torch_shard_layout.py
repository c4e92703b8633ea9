"""torch_shard_layout.py — the shard-layout family computed by torch 2.13 itself.

What it is for: the worked example of the adapter contract (README.md).  For
each golden case it asks torch for every rank's local shape and global offset
(torch.distributed.tensor._utils._compute_local_shape_and_global_offset, the
routine behind compute_local_shape_and_global_offset, given the rank's
coordinate as DeviceMesh computes it) and, for _StridedShard, the index list
of global indices each rank holds (torch's own _get_shard_size_and_offsets
composed left to right with _StridedShard.local_shard_size_and_offset in
offset_mode=ALL, exactly as _compute_local_shape_and_global_offset does before
it keeps only the first index).  Nothing here computes a layout itself.

A shard order in trace form ("S(0)[1]S(0)[0]") is validated by torch
(DTensorSpec._verify_shard_order, format_shard_order_str) and honoured by
giving torch's routine the mesh dims in the order the shards are applied, as
redistribute applies them.  Quirk: torch's own _StridedShard encoding of a
shard order (_convert_shard_order_to_StridedShard) differs from that on uneven
sizes (tests/test_torch_adapters.py pins it).

Results are cached per (mesh shape, placements, global shape, order): the rank
map only decides which rank holds which coordinate.  A group "world" larger than the
mesh (sub-world.json) lists every rank of the world; one the rank map does not name
gets torch's own answer for a rank outside its mesh (off_mesh_layout).

How it is tested: `python tools/harness/run.py --family shard-layout` must
report 0 mismatches over every golden case; tools/harness/tests/ checks the
framework around it.
"""

import torch
from torch.distributed.device_mesh import DeviceMesh
from torch.distributed.tensor import _utils as dt_utils
from torch.distributed.tensor.placement_types import Partial, Shard, _StridedShard

try:
    from . import _torch_common as tc
except ImportError:  # loaded as a file path
    import _torch_common as tc  # type: ignore

FAMILY = "shard-layout"
# an oracle: every rejection must be torch's own (harnesslib.invalid_outcome)
ORACLE = "torch"

_layout_cache = {}
_coord_cache = {}


def coordinates(shape, rank_map, world=None):
    """rank -> coordinate for every rank of the world (the group's "world", else the map's
    largest rank + 1), as DeviceMesh computes it (None: not in the mesh)."""
    key = (tuple(shape), tuple(rank_map), world)
    hit = _coord_cache.get(key)
    if hit is None:
        mesh = torch.tensor(rank_map, dtype=torch.int).view(tuple(shape))
        if world is None:
            world = max(rank_map) + 1 if rank_map else 0
        hit = [DeviceMesh._compute_coordinates_from_mesh(mesh, r) for r in range(world)]
        if len(_coord_cache) > 4096:
            _coord_cache.clear()
        _coord_cache[key] = hit
    return hit


def index_lists(global_shape, mesh_shape, coord, placements):
    """Global indices held on each sharded tensor dim, composed left to right
    with torch's own per-placement routine (the loop of
    _compute_local_shape_and_global_offset in torch 2.13 _utils.py)."""
    local = list(global_shape)
    offsets = {}
    for mesh_dim, p in enumerate(placements):
        if not isinstance(p, (Shard, _StridedShard)):
            continue
        d = p.dim
        size, idx = dt_utils._get_shard_size_and_offsets(
            local[d], mesh_shape[mesh_dim], coord[mesh_dim], p, offsets.get(d),
            global_shape[d], False)
        local[d] = size
        offsets[d] = idx
    return {d: ([] if local[d] == 0 else idx.tolist()) for d, idx in offsets.items()}


def layout_for(global_shape, mesh_shape, coord, placements, strided):
    local, offset = dt_utils._compute_local_shape_and_global_offset(
        tuple(global_shape), tuple(mesh_shape), list(coord), placements)
    out = {"localShape": list(local), "globalOffset": list(offset)}
    if strided:
        # lists are reported for the dims a _StridedShard touches
        lists = index_lists(global_shape, mesh_shape, coord, placements)
        sdims = {p.dim for p in placements if isinstance(p, _StridedShard)}
        out["indices"] = [lists.get(d) if d in sdims else None for d in range(len(global_shape))]
    return out


def off_mesh_layout(mesh_shape, rank_map, rank, gshape, placements, strided):
    """A rank of the world the mesh does not hold (a sub-world case): torch's own answer for
    it, compute_local_shape_and_global_offset on a DeviceMesh whose current rank is that rank
    (torch 2.13 _utils.py: ((0,), ()) when the rank is not part of the mesh).  Its local
    tensor is 1-d and no dim of it is index-listed."""
    mesh = DeviceMesh("cpu", torch.tensor(rank_map, dtype=torch.int).view(tuple(mesh_shape)),
                      _init_backend=False, _rank=rank)
    local, offset = dt_utils.compute_local_shape_and_global_offset(tuple(gshape), mesh,
                                                                   placements)
    out = {"localShape": list(local), "globalOffset": list(offset)}
    if strided:
        out["indices"] = [None] * len(local)
    return out


def torch_inputs(group, test):
    """Parse a case; returns (mesh shape, rank map, placements as torch computes layouts,
    global shape, whether the case lists _StridedShard indices, the order the mesh dims
    apply their shards).  Nothing is checked here: torch_validate lets torch do it."""
    mesh_shape, rank_map = tc.mesh_inputs(group, test)
    gshape = tc.parse_int_list(tc.field(group, test, "shape"), "shape")
    placements, order = tc.parse_placements(tc.field(group, test, "placements"))
    strided = any(isinstance(p, _StridedShard) for p in placements)
    return mesh_shape, rank_map, placements, gshape, strided, order


def torch_validate(mesh_shape, placements, order, gshape):
    """Let torch refuse the case as distribute_tensor does, and say nothing of our own
    (an oracle adapter adds no check torch lacks: docs/invalid-audit.md).  The global
    tensor is torch.empty on the meta device (ATen refuses a negative size or an element
    count that overflows, "Storage size calculation overflowed"), distributed over a mesh
    of the case's shape (no process group: src_data_rank=None splits locally, the path
    torch takes where its scatter would assert on an uneven _StridedShard).  A Partial is
    laid out as Replicate, its layout: distribute_tensor partitions a value only for the
    reduce ops Partial._partition_value knows, which is no layout question.  A shard order
    is validated by a DTensorSpec holding it (tc.check_shard_order).  Returns the order in
    which the mesh dims apply their shards, and the placements as the DTensor holds them
    (distribute_tensor makes d + ndim of a negative shard dim: S(-1) of a 2-d tensor is S(1)),
    a Partial kept as given."""
    from torch.distributed.tensor import distribute_tensor
    from torch.distributed.tensor.placement_types import Replicate
    meta = tc.native(torch.empty, tuple(gshape), device="meta")
    lay = [Replicate() if isinstance(p, Partial) else p for p in placements]
    x = distribute_tensor(meta, tc.layout_mesh(mesh_shape), lay, src_data_rank=None)
    held = [p if isinstance(p, Partial) else q for p, q in zip(placements, x.placements)]
    if order is not None and any(o is not None for o in order):
        return tc.shard_order_sequence(placements, order, mesh_shape), held
    return list(range(len(placements))), held


def compute(group, test):
    mesh_shape, rank_map, placements, gshape, strided, order = torch_inputs(group, test)
    key = (tuple(mesh_shape), tc.placements_key(placements), tuple(gshape),
           tuple(order) if order is not None else None)
    hit = _layout_cache.get(key)
    if hit is None:
        seq, held = torch_validate(mesh_shape, placements, order, gshape)
        if len(_layout_cache) > 4096:
            _layout_cache.clear()
        hit = _layout_cache[key] = (seq, held, {})
    seq, placements, per_coord = hit
    ranks = []
    world = tc.field(group, test, "world", default=None)
    for rank, coord in enumerate(coordinates(mesh_shape, rank_map, world)):
        if coord is None:
            ranks.append(off_mesh_layout(mesh_shape, rank_map, rank, gshape, placements,
                                         strided))
            continue
        got = per_coord.get(coord)
        if got is None:
            # torch applies placements left to right over mesh dims; a shard
            # order is honoured by handing it the mesh dims in that order
            got = layout_for(gshape, [mesh_shape[i] for i in seq], [coord[i] for i in seq],
                             [placements[i] for i in seq], strided)
            per_coord[coord] = got
        ranks.append(got)
    per = {f: [r[f] for r in ranks] for f in ("localShape", "globalOffset")}
    if strided:
        per["indices"] = [r["indices"] for r in ranks]
    return {"perRank": per}
