"""torch_view_sharding.py — the view-sharding family computed by torch 2.13 itself (issue 35).

For each golden case (mesh, rank map, input placements, global shape, op spec such as
"view:16,6"):

- the global output shape is the op on a meta tensor (ATen refuses bad arguments: sizes that
  do not match, -1 twice, dims out of range);
- the rule is torch's propagate_shape_and_sharding (torch/distributed/tensor/_ops/_view_ops.py)
  fed the dim map torch's own functions build for the op (view_groups, dim_squeeze,
  dim_unsqueeze, dim_transpose, the permute map) and the strict_view flag the op is registered
  with (aten.view strict; aten.reshape.default not; flatten/unflatten reach DTensor as view).
  Where it raises, the case is rejected with torch's exception;
- each rank's output slice and input shard after the redistribution are torch's
  _compute_local_shape_and_global_offset (through the shard-layout adapter);
- the verdict is checked on arange data: every rank's input shard laid out on the rule's
  target placements (torch's own index lists), the op run on it as DTensor runs it (a view's
  sizes rewritten to the output's local shape when an output placement shards; squeeze on the
  globally size-1 dims; the others unchanged), compared element by element with the rank's
  slice of the op on the global tensor.  That local step is the adapter's reading of DTensor's
  dispatch, so wherever torch can run the case for real it is cross-checked against torch's
  real dispatch in a LocalTensorMode world (DTensor.from_local, the op, its sharding
  propagation, redistribution and local op): the placements it gives and every rank's local
  result must be the ones above, or it must fail where a rank's local op fails.  Not run for
  real: a Partial input (laid out as Replicate for the data, whose positions it does not
  change) and reshape (Tensor.reshape reaches DTensor as aten.view, so torch never runs
  aten.reshape.default's rule on data), nor on a rank map that is not an arange (torch's
  collectives order a group by global rank: docs/findings/distribute_nonarange_rank_map.py).

How it is tested: `python tools/harness/run.py --family view-sharding` must report 0
mismatches; tools/harness/tests/test_view_sharding.py checks the CLI against the same torch
functions query by query.
"""

import torch
from torch.distributed.tensor.placement_types import Partial, Replicate, Shard, _StridedShard

try:
    from . import _torch_common as tc
    from . import torch_shard_layout as ts
except ImportError:  # loaded as a file path
    import _torch_common as tc  # type: ignore
    import torch_shard_layout as ts  # type: ignore

FAMILY = "view-sharding"
ORACLE = "torch"

VIEW_LIKE = ("view", "reshape", "flatten", "unflatten")


def parse_op(spec):
    """"view:16,6" -> ("view", [16, 6], None); "unflatten:1:2,4" -> ("unflatten", [2, 4], 1)."""
    name, _, args = spec.partition(":")
    dim = None
    if name == "unflatten":
        d, _, args = args.partition(":")
        dim = int(d)
    vals = [int(v) for v in args.split(",")] if args else []
    return name, vals, dim


def op_call(x, op):
    """The bound method and arguments of the op as a user writes it on a tensor."""
    name, vals, dim = op
    if name == "unflatten":
        return x.unflatten, (dim, vals)
    if name == "squeeze":
        return x.squeeze, ((vals,) if vals else ())
    return getattr(x, name), tuple(vals)


def apply_op(x, op):
    fn, args = op_call(x, op)
    return fn(*args)


def squeeze_rewritten():
    """Whether this torch's sharding propagation rewrites every squeeze to aten.squeeze.dims on
    the globally size-1 dims (2.12 on: _adjust_squeeze_to_global_singletons); torch 2.11 runs
    squeeze.default on the local tensor as it is."""
    from torch.distributed.tensor import DTensor
    return hasattr(DTensor._op_dispatcher.sharding_propagator, "squeeze_op_to_dims_variant")


def registration(op):
    """The aten overload DTensor looks up for the op and the strategy this torch registers for
    it (None where it registers none), read off torch's own table."""
    from torch.distributed.tensor import DTensor
    aten = torch.ops.aten
    name, vals, _ = op
    if name == "squeeze":
        overload = aten.squeeze.dims if vals or squeeze_rewritten() else aten.squeeze.default
    else:
        overload = {"view": aten.view.default, "flatten": aten.view.default,
                    "unflatten": aten.view.default, "reshape": aten.reshape.default,
                    "unsqueeze": aten.unsqueeze.default, "transpose": aten.transpose.int,
                    "permute": aten.permute.default}[name]
    return overload, DTensor._op_dispatcher.sharding_propagator.op_strategy_funcs.get(overload)


def registered_strict(op):
    """The strict_view flag torch registered the op's strategy with (register_op_strategy_map's
    closure: view strict in every release, squeeze from 2.13 on)."""
    _, fn = registration(op)
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    return bool(cells["strict_view"].cell_contents)


def torch_rule(shape, out_shape, src, op, mesh_shape):
    """torch's propagate_shape_and_sharding as the op's registration calls it."""
    from torch.distributed.tensor._ops import _view_ops as vo
    name, vals, _ = op
    strict = registered_strict(op)
    if name in VIEW_LIKE:
        if name == "flatten" and tuple(out_shape) == tuple(shape):
            rule = tuple(vo.InputDim(i) for i in range(len(shape)))  # ATen returns self
        else:
            rule = vo.view_groups(tuple(shape), tuple(out_shape))
    elif name == "squeeze" and not squeeze_rewritten():
        rule = vo.dim_squeeze(tuple(shape), None)  # squeeze.default: vals is refused earlier
    elif name == "squeeze":
        dims = [d for d in range(len(shape)) if shape[d] == 1]
        if vals:
            dims = [d % len(shape) for d in vals if shape[d % len(shape)] == 1]
        rule = vo.dim_squeeze(tuple(shape), dims)
    elif name == "unsqueeze":
        rule = vo.dim_unsqueeze(len(shape), vals[0])
    elif name == "transpose":
        rule = vo.dim_transpose(len(shape), vals[0], vals[1])
    else:
        rule = vo.dim_maps[torch.permute](torch.empty(shape, device="meta"), vals)
    return vo.propagate_shape_and_sharding(list(src), tuple(shape), rule, tuple(mesh_shape),
                                           strict)


def fmt(pls):
    """Placements as the golden files print them (torch's str(), comma-joined)."""
    return ",".join(str(p) for p in pls)


def as_data(pls):
    """A Partial's positions are Replicate's: the data check lays it out as Replicate."""
    return [Replicate() if isinstance(p, Partial) else p for p in pls]


def slice_of(t, mesh_shape, coord, pls):
    """The part of t that placements give the rank at coord (torch's own index lists)."""
    lists = ts.index_lists(list(t.shape), mesh_shape, coord, pls)
    for d, idx in sorted(lists.items()):
        t = t.index_select(d, torch.tensor(idx, dtype=torch.long))
    return t.contiguous()


def local_op(x, op, shape, out_shape, out_local):
    """The op on a rank's local tensor as DTensor runs it."""
    name, vals, _ = op
    if name in VIEW_LIKE:
        return getattr(x, "reshape" if name == "reshape" else "view")(*out_local)
    if name == "squeeze" and not squeeze_rewritten():
        return x.squeeze()  # torch 2.11: squeeze.default on the local tensor as it is
    if name == "squeeze":
        dims = [d for d in range(len(shape)) if shape[d] == 1] if not vals else vals
        return x.squeeze(dims)
    return apply_op(x, op)


def position(result_flat, value, out_shape):
    """The global output index (multi-index) holding value (arange data: values are unique)."""
    f = int((result_flat == value).nonzero()[0])
    idx = []
    for s in reversed(out_shape):
        idx.insert(0, f % s)
        f //= s
    return idx


def check_ranks(shape, out_shape, op, mesh_shape, rank_map, coords, tgt, out):
    """Per rank (mesh order): status and the first wrong detail; each rank's local result."""
    numel = 1
    for s in shape:
        numel *= s
    full = torch.arange(numel, dtype=torch.float64).reshape(shape)
    result = apply_op(full, op)
    rflat = result.reshape(-1)
    shards = any(isinstance(p, (Shard, _StridedShard)) for p in out)
    status, first, got_by_rank = {}, None, {}
    for pos, rank in enumerate(rank_map):
        coord = coords[rank]
        xin = slice_of(full, mesh_shape, coord, as_data(tgt))
        want = slice_of(result, mesh_shape, coord, as_data(out))
        out_local = list(want.shape) if shards else list(out_shape)
        detail = None
        try:
            got = local_op(xin, op, shape, out_shape, out_local)
        except RuntimeError as e:
            got = None
            st, detail = "local-error", {"localError": "RuntimeError: %s" % e}
        if got is not None:
            got_by_rank[rank] = got
            if tuple(got.shape) != tuple(want.shape):
                st, detail = "wrong-shape", {"resultShape": list(got.shape)}
            elif torch.equal(got, want):
                st = "correct"
            else:
                g, w = got.reshape(-1), want.reshape(-1)
                k = int((g != w).nonzero()[0])
                st, detail = "wrong", {"localIndex": k,
                                       "holds": position(rflat, g[k], out_shape),
                                       "shouldHold": position(rflat, w[k], out_shape)}
        status[rank] = st
        if detail is not None and first is None:
            first = dict({"rank": rank}, **detail)
    return status, first, got_by_rank


_WORLD = {}


def real_dispatch(shape, op, mesh_shape, rank_map, coords, src):
    """torch's real DTensor dispatch in a LocalTensorMode world: (placements, {rank: local})
    or the exception it raises."""
    from torch.distributed._local_tensor import LocalTensor, LocalTensorMode
    from torch.distributed.device_mesh import DeviceMesh
    from torch.distributed.tensor import DTensor
    world = len(rank_map)
    tc.WORLD.enter(world, 0)
    key = (tuple(mesh_shape), tuple(rank_map), tc.WORLD.generation)
    if _WORLD.get("key") != key:
        with LocalTensorMode(world):
            _WORLD["dm"] = DeviceMesh("cpu", torch.tensor(rank_map).view(tuple(mesh_shape)))
        _WORLD["key"] = key
    numel = 1
    for s in shape:
        numel *= s
    full = torch.arange(numel, dtype=torch.float64).reshape(shape)
    locs = {r: slice_of(full, mesh_shape, coords[r], src) for r in rank_map}
    with LocalTensorMode(world):
        dt = DTensor.from_local(LocalTensor(locs), _WORLD["dm"], list(src), run_check=False,
                                shape=torch.Size(shape), stride=full.stride())
        try:
            res = apply_op(dt, op)
        except Exception as e:  # noqa: BLE001 — the answer is torch's failure
            return None, e
        lt = res._local_tensor
        got = getattr(lt, "_local_tensors", None) or {r: lt for r in rank_map}
        return (list(res.placements), {r: got[r].clone() for r in rank_map}), None


def cross_check(shape, op, mesh_shape, rank_map, coords, src, tgt, out, status, got_by_rank):
    """The real dispatch must agree with the per-rank run; an AssertionError otherwise.  It
    fails as a whole where any rank's local op fails (the verdict names the first rank in mesh
    order that is not right, which may hold wrong data before a later rank fails)."""
    ans, err = real_dispatch(shape, op, mesh_shape, rank_map, coords, src)
    failing = [r for r in rank_map if status[r] == "local-error"]
    try:
        agree_with_run(ans, err, failing, out, got_by_rank)
    except AssertionError:
        redistribution_runs_right(shape, mesh_shape, rank_map, coords, src, tgt)
        raise


def redistribution_runs_right(shape, mesh_shape, rank_map, coords, src, tgt):
    """Where the real dispatch disagrees with the per-rank run: whether torch's own
    redistribution of the input (src -> the rule's target) gives each rank its target shard.
    Where it does not, the case cannot say anything of the view rule: NotImplementedError (a
    skip, with the reason), as torch's redistribution defects are the redistribute-data
    family's findings (docs/findings/strided_wrong_data.py, distribute_strided_uneven.py)."""
    from torch.distributed._local_tensor import LocalTensor, LocalTensorMode
    from torch.distributed.tensor import DTensor
    if list(src) == list(tgt):
        return
    numel = 1
    for s in shape:
        numel *= s
    full = torch.arange(numel, dtype=torch.float64).reshape(shape)
    locs = {r: slice_of(full, mesh_shape, coords[r], src) for r in rank_map}
    with LocalTensorMode(len(rank_map)):
        dt = DTensor.from_local(LocalTensor(locs), _WORLD["dm"], list(src), run_check=False,
                                shape=torch.Size(shape), stride=full.stride())
        try:
            lt = dt.redistribute(_WORLD["dm"], list(tgt))._local_tensor
            got = getattr(lt, "_local_tensors", None) or {r: lt for r in rank_map}
            wrong = ["gives rank %d other data than its target shard" % r for r in rank_map
                     if not torch.equal(got[r], slice_of(full, mesh_shape, coords[r], tgt))]
        except Exception as e:  # noqa: BLE001 — torch's redistribution fails: the same case
            wrong = ["raises %s" % type(e).__name__]
    if wrong:
        raise NotImplementedError(
            "torch's own redistribution %s -> %s %s (a redistribute-data or -plan finding), "
            "so the view rule's answer cannot be run for real" % (fmt(src), fmt(tgt), wrong[0]))


def agree_with_run(ans, err, failing, out, got_by_rank):
    """The real dispatch's answer (or exception) against the per-rank run."""
    if err is not None:
        assert failing, "real dispatch raised %s: %s where no rank's local op fails" % (
            type(err).__name__, err)
        return
    placements, locs = ans
    assert fmt(placements) == fmt(out), "real dispatch gives %s, the rule %s" % (
        fmt(placements), fmt(out))
    assert not failing, "real dispatch ran where rank %d's local op fails" % failing[0]
    for r, t in got_by_rank.items():
        assert tuple(locs[r].shape) == tuple(t.shape) and torch.equal(locs[r], t), \
            "rank %d: real dispatch's local result differs from the per-rank run" % r


def correct_answer(shape, out_shape, src, op, mesh_shape, rank_map, coords):
    """Where torch's rule is wrong: the fewest mesh dims' shards replaced by Replicate (the
    first such set in mesh-dim order) for which torch's rule answers right on the data."""
    from itertools import combinations
    dims = [i for i, p in enumerate(src) if isinstance(p, (Shard, _StridedShard))]
    for size in range(1, len(dims) + 1):
        for chosen in sorted(combinations(dims, size),
                             key=lambda c: sum(1 << dims.index(d) for d in c)):
            cand = [Replicate() if i in chosen else p for i, p in enumerate(src)]
            try:
                tgt, out = torch_rule(shape, out_shape, cand, op, mesh_shape)
            except Exception:  # noqa: BLE001 — torch's rule refuses this input: not an answer
                continue
            _, first, _ = check_ranks(shape, out_shape, op, mesh_shape, rank_map, coords, tgt,
                                      out)
            if first is None:
                return {"inputTarget": fmt(tgt), "output": fmt(out)}
    raise AssertionError("no redistribution answers right")


def compute(group, test, real=None):
    """real: the cross-check on real dispatch (default cross_check, in a LocalTensorMode world;
    the torch backend's worker passes its own, over its real process group)."""
    mesh_shape, rank_map = tc.mesh_inputs(group, test)
    shape = tc.parse_int_list(tc.field(group, test, "shape"), "shape")
    src, _ = tc.parse_placements(tc.field(group, test, "placements"))
    op = parse_op(tc.field(group, test, "op"))
    ts.torch_validate(mesh_shape, src, None, shape)  # distribute_tensor judges the layout
    # torch normalises a negative shard dim (distribute_tensor); the rule reads it normalised
    src = tuple(Shard(p.dim % len(shape)) if type(p) is Shard else p for p in src)
    fn, args = op_call(torch.empty(shape, device="meta"), op)
    out_shape = list(tc.native(fn, *args).shape)  # ATen refuses bad arguments
    coord_list = ts.coordinates(mesh_shape, rank_map)
    coords = {r: coord_list[r] for r in rank_map}
    if registration(op)[1] is None:  # torch 2.11's squeeze.dims: DTensor's refusal, for real
        _, err = real_dispatch(shape, op, mesh_shape, rank_map, coords,
                               [Replicate()] * len(mesh_shape))
        # torch's NotImplementedError is its refusal of the input, not the adapter's skip: kept
        # with torch's traceback, so the harness finds where torch raised it
        raise RuntimeError("%s: %s" % (type(err).__name__, err)).with_traceback(err.__traceback__)
    tgt, out = torch_rule(shape, out_shape, src, op, mesh_shape)
    status, first, got = check_ranks(shape, out_shape, op, mesh_shape, rank_map, coords, tgt,
                                     out)
    verdict = "correct" if first is None else status[first["rank"]]
    # Not run for real: reshape and Partial (module docstring), and a rank map that is not an
    # arange, where torch's collectives order a group by global rank and not by mesh coordinate
    # (docs/findings/distribute_nonarange_rank_map.py: the redistribution's all-gather
    # concatenates in that order too), so its data is wrong for a reason no view rule has.
    arange = list(rank_map) == list(range(len(rank_map)))
    if op[0] != "reshape" and not any(isinstance(p, Partial) for p in src) and arange:
        (real or cross_check)(shape, op, mesh_shape, rank_map, coords, src, tgt, out, status,
                              got)
    strided = any(isinstance(p, _StridedShard) for p in out)
    world = len(rank_map)
    per = {"localShape": [None] * world, "globalOffset": [None] * world,
           "inputLocalShape": [None] * world, "status": [None] * world}
    if strided:
        per["indices"] = [None] * world
    for r in rank_map:
        o = ts.layout_for(out_shape, mesh_shape, coords[r], list(out), strided)
        i = ts.layout_for(shape, mesh_shape, coords[r], list(tgt), False)
        per["localShape"][r] = o["localShape"]
        per["globalOffset"][r] = [str(v) for v in o["globalOffset"]]
        per["inputLocalShape"][r] = i["localShape"]
        per["status"][r] = status[r]
        if strided:
            per["indices"][r] = o["indices"]
    return {"outputShape": out_shape, "inputTarget": fmt(tgt), "output": fmt(out),
            "redistribute": list(tgt) != list(src), "verdict": verdict,
            "firstWrongRank": None if first is None else first["rank"],
            "firstWrong": first, "perRank": per,
            "correct": None if first is None else correct_answer(shape, out_shape, src, op,
                                                                 mesh_shape, rank_map, coords)}
