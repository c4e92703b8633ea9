"""torch_redistribute_plan.py — harness adapter: recompute redistribute-plan
golden cases with the planners of the torch it imports (2.11-2.15).

What it is for: every case of golden/redistribute-plan is planned by torch's
_gen_transform_infos_non_cached (greedy or min-cost, torch's choice rule and
_StridedShardNotDecodableError fallback), then _optimize_transform_infos and
DTensorRedistributePlanner.stringify_transform_infos, exactly as
redistribute_local_tensor does, once per rank of the mesh.  Ranks are
simulated on one fake process group (world size 64, entered per case through
_torch_common.WORLD): the mesh is built once per shape and flattened-dim sets, and the rank's coordinate is patched in
(the planners only read the coordinate).  Torch-side validation mirrors what
redistribute does: assert_no_mixed_partial_types, DTensorSpec's shard-order
checks, and compute_local_shape_and_global_offset for src and dst (which
rejects shard dims beyond the tensor).  It checks nothing of its own: torch
does not check that the placements number the mesh's dims (DTensor.from_local
and redistribute do not; golden flag StricterThanTorch).

Two torch caches would make the answer depend on earlier calls and are
cleared per case: the DTensorRedistributePlanner cache (its reduce-op and
_StridedShard sets only ever grow — a torch quirk) and MeshTopoInfo's
lru_cache (the devices-per-host setting is patched per group).  The
min-cost search itself does not depend on the rank, so it is memoised within
one case (the memo key is torch's own DistState pair).

How it is tested: tools/harness/run.py --family redistribute-plan runs it on
every golden case (0 mismatches is the bar); the comm classification below is
written from redistribute_local_tensor's branches, independently of lib/.
"""

import itertools
import logging
import re

try:
    from . import _torch_common as tc
except ImportError:  # loaded as a file path
    import _torch_common as tc  # type: ignore

FAMILY = "redistribute-plan"
# an oracle: every rejection must be torch's own (harnesslib.invalid_outcome)
ORACLE = "torch"

_state = {}
_ORIG_FIND = None  # torch's find_min_cost_path (bench_plan.py times it unmemoised)


def _setup():
    if _state:
        return _state
    import torch
    # torch warns once per unmergeable run; the harness output stays clean
    logging.getLogger("torch.distributed.tensor._redistribute").setLevel(logging.ERROR)
    from torch.distributed.device_mesh import DeviceMesh, _mesh_resources
    from torch.distributed.tensor import _redistribute as R
    from torch.distributed.tensor import _collective_utils as CU
    from torch.distributed.tensor._dtensor_spec import DTensorSpec, TensorMeta, ShardOrderEntry
    from torch.distributed.tensor._utils import (assert_no_mixed_partial_types,
                                                 compute_local_shape_and_global_offset)
    from torch.distributed.tensor.placement_types import (Shard, Replicate, Partial,
                                                          _StridedShard)
    _state.update(torch=torch, DeviceMesh=DeviceMesh, R=R, CU=CU, DTensorSpec=DTensorSpec,
                  TensorMeta=TensorMeta, ShardOrderEntry=ShardOrderEntry,
                  mixed=assert_no_mixed_partial_types,
                  local_shape=compute_local_shape_and_global_offset, Shard=Shard,
                  Replicate=Replicate, Partial=Partial, StridedShard=_StridedShard,
                  meshes={}, mesh_resources=_mesh_resources, dph=None)
    # memoise the (rank-independent) Dijkstra search within one case
    global _ORIG_FIND
    orig = _ORIG_FIND = R.DTensorRedistributePlanner.find_min_cost_path
    memo = {}

    def find_min_cost_path(self, src_state, dst_state):
        key = (src_state, dst_state, frozenset(self.partial_reduce_ops_in_target),
               frozenset(self.strided_shard_placements_in_target))
        if key not in memo:
            memo[key] = orig(self, src_state, dst_state)
        return list(memo[key])

    R.DTensorRedistributePlanner.find_min_cost_path = find_min_cost_path
    _state["memo"] = memo
    # record which planner torch ran last (its rule and fallback decide)
    for name, tag in (("generate_greedy_transform_infos", "greedy"),
                      ("generate_graph_based_transform_infos", "graph")):
        def wrap(f, tag=tag):
            def g(self, *a, **k):
                _state["ran"] = tag
                return f(self, *a, **k)
            return g
        setattr(R.DTensorRedistributePlanner, name, wrap(getattr(R.DTensorRedistributePlanner, name)))
    return _state


_PLACEMENT = re.compile(r"\s*(_S\((\d+),\s*(\d+)\)|S\((\d+)\)|P\((\w+)\)|R)(\[(\d+)\])?\s*,?")


def _parse(s, S):
    """'S(0)[1]S(0)[0]R' or 'S(0),P(sum),_S(0, 2)' -> (placements, {mesh dim: order index})."""
    out, order, pos = [], {}, 0
    while pos < len(s):
        m = _PLACEMENT.match(s, pos)
        if not m or m.end() == pos:
            raise ValueError("cannot parse placements %r at %d" % (s, pos))
        pos = m.end()
        if m.group(2) is not None:
            out.append(S["StridedShard"](int(m.group(2)), split_factor=int(m.group(3))))
        elif m.group(4) is not None:
            out.append(S["Shard"](int(m.group(4))))
        elif m.group(5) is not None:
            out.append(S["Partial"](m.group(5)))
        else:
            out.append(S["Replicate"]())
        if m.group(7) is not None:
            order[len(out) - 1] = int(m.group(7))
    return tuple(out), order


def _shard_order(placements, order, S):
    by_dim = {}
    for md, p in enumerate(placements):
        if isinstance(p, S["Shard"]):  # no [i] (a dim sharded once): left-to-right position
            pos = order.get(md, len(by_dim.get(p.dim, ())))
            by_dim.setdefault(p.dim, []).append((pos, md))
    return tuple(S["ShardOrderEntry"](tensor_dim=d, mesh_dims=tuple(md for _, md in sorted(v)))
                 for d, v in sorted(by_dim.items()))


def _mesh(S, shape, flattened):
    # Every case runs in this adapter's own fake world of 64 ranks (every mesh of the
    # corpus fits): a world another family left behind may be smaller, which torch 2.15's
    # DeviceMesh refuses.  Meshes are kept while that world lives.
    tc.WORLD.enter(64, 0)
    if S.get("generation") != tc.WORLD.generation:
        S["meshes"].clear()
        S["generation"] = tc.WORLD.generation
    key = (tuple(shape), tuple(tuple(f) for f in flattened or ()))
    m = S["meshes"].get(key)
    if m is None:
        torch = S["torch"]
        n = 1
        for x in shape:
            n *= x
        names = tuple("d%d" % i for i in range(len(shape)))
        m = S["DeviceMesh"]("cpu", torch.arange(n).reshape(tuple(shape)), mesh_dim_names=names)
        for dims in flattened or ():
            m[tuple(names[d] for d in dims)]._flatten()
        S["meshes"][key] = m
    return m


def _set_devices_per_host(S, dph):
    if S["dph"] != dph:
        S["mesh_resources"].num_devices_per_host = lambda device_type, _n=dph: _n
        S["dph"] = dph
    S["CU"].MeshTopoInfo.build_from_mesh.cache_clear()


def _comm(S, mesh, info, src, dst):
    """redistribute_local_tensor's branch for a step (written from its source)."""
    R = S["R"]
    mesh_to_use = info.mesh if isinstance(info, R._FlattenedTransformInfo) else mesh
    if src == dst or mesh_to_use.size(mesh_dim=info.mesh_dim) == 1:
        return "none"
    strided = S["StridedShard"]
    # torch 2.11 raises NotImplementedError for _StridedShard -> Shard, Partial ->
    # _StridedShard and Shard -> _StridedShard (its _redistribute.py:1600-1640); 2.12 goes
    # through Replicate
    raises_211 = tc.TORCH_VERSION.startswith("2.11.")
    if dst.is_replicate():
        return "all_reduce" if src.is_partial() else "all_gather"
    if dst.is_shard():
        if src.is_partial():
            return "reduce_scatter"
        if src.is_replicate():
            return "local_chunk"
        if src.is_shard():
            return "all_to_all"
        return "unsupported" if raises_211 else "strided"
    if dst.is_partial():
        if src.is_replicate():
            return "partition"
        # torch >= 2.14: Shard -> Partial("sum") embeds the shard in zeros
        # (Shard._to_partial_tensor; _redistribute.py's target.is_partial() branch),
        # no collective; earlier releases raise "not supported yet"
        if (hasattr(S["Shard"], "_to_partial_tensor") and isinstance(src, S["Shard"])
                and type(dst) is S["Partial"] and dst.reduce_op == "sum"):
            return "zero_fill"
        return "unsupported"
    if isinstance(dst, strided):
        if src.is_replicate():
            return "local_chunk"
        return "unsupported" if raises_211 and not isinstance(src, strided) else "strided"
    return "unsupported"


def _plan_rank(S, mesh, coord, src_spec, dst_spec, use_graph):
    R = S["R"]
    mesh._coordinate_on_dim = tuple(coord)
    R.clear_redistribute_planner_cache()
    S["ran"] = None
    infos = R._gen_transform_infos_non_cached(src_spec, dst_spec, use_graph)
    used = S["ran"]
    opt = R._optimize_transform_infos(infos, mesh, src_spec.placements, dst_spec.placements)
    try:
        trace = R.DTensorRedistributePlanner.stringify_transform_infos(
            mesh, opt, src_spec.placements, src_spec.shard_order,
            src_spec.use_strided_shard_as_shard_order)
    except (ValueError, AssertionError):
        trace = None
    steps, shapes, ncoll = [], [], 0
    for info in opt:
        src, dst = info.src_dst_placements
        dims = list(info.original_mesh_dims) if isinstance(info, R._FlattenedTransformInfo) \
            else [info.mesh_dim]
        comm = _comm(S, mesh, info, src, dst)
        step = [dims, str(src), str(dst), comm]
        if getattr(info, "avg_scale", None):
            step.append(info.avg_scale)
        steps.append(step)
        shapes.append([int(x) for x in info.logical_shape])
        ncoll += comm in ("all_gather", "all_reduce", "reduce_scatter", "all_to_all", "strided")
    return used, {"steps": steps, "trace": trace, "ncollectives": ncoll}, shapes


def compute(group, test):
    S = _setup()
    torch = S["torch"]
    mesh = _mesh(S, group["mesh"], group.get("flattened"))
    _set_devices_per_host(S, group["devicesPerHost"])
    S["memo"].clear()
    src_p, src_o = _parse(test["src"], S)
    dst_p, dst_o = _parse(test["dst"], S)
    literal = bool(group.get("stridedLiteral"))
    shape = torch.Size(test["shape"])
    stride = tuple(int(x) for x in torch.empty(shape, device="meta").stride())
    meta = S["TensorMeta"](shape, stride, getattr(torch, group["dtype"]))

    def spec(placements, order, explicit):
        kw = {"tensor_meta": meta}
        if literal:
            kw["use_strided_shard_as_shard_order"] = False
        if explicit is not None:
            kw["shard_order"] = tuple(S["ShardOrderEntry"](tensor_dim=d, mesh_dims=tuple(m))
                                      for d, m in explicit)
        elif order:
            kw["shard_order"] = _shard_order(placements, order, S)
        return S["DTensorSpec"](mesh, placements, **kw)

    src_spec = spec(src_p, src_o, test.get("srcShardOrder"))
    dst_spec = spec(dst_p, dst_o, None)
    # what redistribute_local_tensor and the output DTensor check
    S["mixed"](src_spec.placements)
    S["mixed"](dst_spec.placements)
    # the source's local shape, as the DTensor's from_local needs it (the torch backend
    # sizes its local tensor so); the target layout is asked of the same routine: the
    # planner alone never indexes the target's shard dims, but redistribute ends in that
    # layout and torch's executor refuses a target it cannot lay out (a shard dim beyond
    # the tensor: torch.chunk's IndexError, placement_types.py), which this raises on too
    for p in (src_p, dst_p):
        S["local_shape"](shape, mesh, p)
    use_graph = {"auto": None, "greedy": False, "graph": True}[group["planner"]]
    plans, shapes, per_plan, per_shapes = [], [], [], []
    planner = "greedy"
    for coord in itertools.product(*[range(n) for n in group["mesh"]]):
        planner, plan, sh = _plan_rank(S, mesh, coord, src_spec, dst_spec, use_graph)
        if plan not in plans:
            plans.append(plan)
        if sh not in shapes:
            shapes.append(sh)
        per_plan.append(plans.index(plan))
        per_shapes.append(shapes.index(sh))
    return {"planner": planner, "plans": plans, "shapeSets": shapes,
            "perRank": {"plan": per_plan, "shapes": per_shapes}}
