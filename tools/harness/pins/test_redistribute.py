"""test_redistribute.py — probes for conformance/torch_pins/test_redistribute.json.

The rows pin what torch's test/distributed/tensor/test_redistribute.py asserts about
redistribute plans: collective counts (CommDebugMode), the placements a redistribute ends in,
plan traces (DebugMode's "trace:" as the test reads it), the ops an all_gather dispatches
(DebugMode's debug_string, as _test_all_gather_optimization reads it),
_TransformInfo._comm_type_key, _optimize_transform_infos's merging over flattened meshes,
refusals, and per-rank local shapes.

Each probe runs torch's own code in ONE process: a fake process group (torch's FakeProcessGroup,
entered through _torch_common.WORLD as the harness's adapters do) of the mesh's size, seen from
one rank; DTensor.redistribute / redistribute_local_tensor then run their real code path and
CommDebugMode counts the functional collectives they issue (fake collectives move no data; the
counts, placements and local shapes are what the rank computes).  Torch on CPU performs
Shard->Shard as all_gather + chunk ("CPU process group does not support alltoall"), so a probe
that counts by kind says so where it matters; totals are the same as on an accelerator.
Placements are written in the CLI's notation (pins.common.parse).  No probe reads shardcheck.
"""

import contextlib
import logging

from pins import refusal
from pins.common import parse, tc

_NAMES = "ABCDEFGH"


def _quiet():
    # torch warns about unflattened sequential collectives and the CPU alltoall fallback
    logging.getLogger("torch.distributed.tensor._redistribute").setLevel(logging.ERROR)
    logging.getLogger("torch._logging._internal").setLevel(logging.ERROR)


def _mesh(shape, flatten=(), rank=0):
    """A DeviceMesh over a fake world of the mesh's size seen from `rank`, dims named A, B, C..
    (as the test's meshes are), with the named dim sets flattened (mesh["A", "B"]._flatten())."""
    import torch
    from torch.distributed.device_mesh import DeviceMesh
    _quiet()
    n = 1
    for s in shape:
        n *= s
    tc.WORLD.enter(n, rank)
    names = tuple(_NAMES[i] for i in range(len(shape)))
    mesh = DeviceMesh("cpu", torch.arange(n).view(tuple(shape)), mesh_dim_names=names)
    for dims in flatten or ():
        sub = tuple(names[d] for d in dims)
        mesh[sub]._flatten("_".join(sub))
    return mesh


def _source(mesh, shape, src, requires_grad=False, dtype="float32", via=None, device="cpu"):
    """The test's source DTensor.  Without Partial (or via="distribute", as
    test_partial_to_partial_forward_backward does): distribute_tensor(global, mesh, src).
    With Partial: distribute_tensor with the Partial entries replaced by Replicate, then
    DTensor.from_local reinterpreting them as Partial (test_multi_dim_mesh,
    test_partial_to_replicate_forward_backward).  Returns (dtensor, leaf) with leaf the tensor
    whose .grad the backward fills.  The data are ones: a fake process group moves none, and
    counts, placements and shapes do not depend on it (device="meta" holds no data at all,
    for the test's 1x8192x6144 tensors)."""
    import torch
    from torch.distributed.tensor import DTensor, Replicate, distribute_tensor
    pls = parse(src)
    repl = [Replicate() if p.is_partial() else p for p in pls]
    full = torch.ones(tuple(shape), dtype=getattr(torch, dtype), device=device)
    if repl == pls or via == "distribute":
        dt = distribute_tensor(full.requires_grad_(requires_grad), mesh, pls)
        return dt, dt
    local = distribute_tensor(full, mesh, repl).to_local().detach()
    local.requires_grad_(requires_grad)
    return DTensor.from_local(local, mesh, pls, run_check=False), local


def _counts(mode):
    return {str(op).rsplit(".", 1)[-1]: int(n) for op, n in mode.get_comm_counts().items()}


def _placements_str(pls):
    return "".join(str(p) for p in pls)


def redistribute_comms(mesh, shape, src, dst, flatten=(), rank=0, backward=False,
                       forward_dtype=None, backward_dtype=None, dtype="float32", via=None,
                       grad_output=None, device="cpu"):
    """DTensor.redistribute(src -> dst) under CommDebugMode, as the test does it:
    {"total", "counts" {op: n}, "placements" [str], "final" (the placements as one string),
    and with backward=True "backward_total", "backward_counts", "grad_placements" (backward of
    ones_like(out), counted apart as the test's second `with comm_mode:` does; grad_output
    names placements to build that gradient with DTensor.from_local instead, as
    test_partial_to_partial_forward_backward does)}."""
    import torch
    from torch.distributed.tensor.debug import CommDebugMode
    try:
        m = _mesh(mesh, flatten, rank)
        dt, leaf = _source(m, shape, src, requires_grad=backward, dtype=dtype, via=via,
                           device=device)
        kw = {}
        if forward_dtype:
            kw["forward_dtype"] = getattr(torch, forward_dtype)
        if backward_dtype:
            kw["backward_dtype"] = getattr(torch, backward_dtype)
        mode = CommDebugMode()
        with mode:
            out = dt.redistribute(m, parse(dst), **kw)
    except Exception as e:
        return refusal(e)
    res = {"total": int(mode.get_total_counts()), "counts": _counts(mode),
           "placements": [str(p) for p in out.placements],
           "final": _placements_str(out.placements), "size": list(out.size())}
    if backward:
        mode = CommDebugMode()
        if grad_output is None:
            g = torch.ones_like(out)
        else:
            from torch.distributed.tensor import DTensor
            g = DTensor.from_local(torch.ones(out.to_local().shape, dtype=out.dtype), m,
                                   parse(grad_output))
        with mode:
            out.backward(g)
        grad = leaf.grad
        res["backward_total"] = int(mode.get_total_counts())
        res["backward_counts"] = _counts(mode)
        res["grad_placements"] = ([str(p) for p in grad.placements]
                                  if hasattr(grad, "placements") else None)
    return res


def redistribute_debug_ops(mesh, shape, src, dst, rank=0, device="meta"):
    """RedistributeTest._test_all_gather_optimization: distribute_tensor(src) then
    DTensor.redistribute(dst) inside torch's DebugMode(record_torchfunction=False), as the test
    does; {"debug_string": debug_mode.debug_string() (the string the test's assertIn /
    assertNotIn read), "ops": [str(op) of each aten/c10d op DebugMode recorded],
    "placements"}.  The ops of the all_gather's view-vs-split+cat choice
    (_functional_collectives.all_gather_single) depend on shapes only, so device="meta" (the
    test's 4x8192x6144 holds no data) dispatches the same view, split and cat."""
    from torch._ops import OpOverload
    from torch.utils._debug_mode import DebugMode, _OpCall
    try:
        m = _mesh(mesh, rank=rank)
        dt, _ = _source(m, shape, src, device=device)
        with DebugMode(record_torchfunction=False) as debug_mode:
            out = dt.redistribute(m, parse(dst))
    except Exception as e:
        return refusal(e)
    return {"debug_string": debug_mode.debug_string(),
            "ops": [str(c.op) for c in debug_mode.operators
                    if isinstance(c, _OpCall) and isinstance(c.op, OpOverload)],
            "placements": [str(p) for p in out.placements]}


def to_local_partial_grad(mesh, shape, src, dst, grad_placements):
    """test_replicate_to_local_partial_grad: redistribute(dst).to_local(grad_placements=...)
    and its backward of ones, both inside one CommDebugMode: {"total", "counts"}."""
    import torch
    from torch.distributed.tensor.debug import CommDebugMode
    m = _mesh(mesh)
    dt, _ = _source(m, shape, src, requires_grad=True)
    mode = CommDebugMode()
    with mode:
        out = dt.redistribute(placements=parse(dst)).to_local(
            grad_placements=parse(grad_placements))
        out.backward(torch.ones_like(out))
    return {"total": int(mode.get_total_counts()), "counts": _counts(mode)}


def partial_to_shard_local_shape(mesh, shape, dst, rank):
    """test_partial_to_shard: a Partial DTensor (from_local of the global-size tensor, as the
    test builds it) redistributed to `dst` on `rank`'s fake process group:
    {"local_shape", "counts", "placements"}."""
    import torch
    from torch.distributed.tensor import DTensor, Partial
    from torch.distributed.tensor.debug import CommDebugMode
    m = _mesh(mesh, rank=rank)
    dt = DTensor.from_local(torch.ones(tuple(shape)), m, [Partial()] * len(mesh),
                            run_check=False)
    mode = CommDebugMode()
    with mode:
        out = dt.redistribute(m, parse(dst))
    return {"local_shape": list(out.to_local().shape), "counts": _counts(mode),
            "placements": [str(p) for p in out.placements]}


def local_partial_type_change(mesh, shape, src, dst):
    """test_redistribute_partial_to_different_partial_not_supported: redistribute_local_tensor
    between specs of two Partial types: torch's refusal, or {"ok": True}."""
    import torch
    from torch.distributed.tensor._dtensor_spec import DTensorSpec, TensorMeta
    from torch.distributed.tensor._redistribute import redistribute_local_tensor
    m = _mesh(mesh)
    t = torch.randn(tuple(shape))
    meta = TensorMeta(t.size(), t.stride(), t.dtype)
    try:
        redistribute_local_tensor(t, DTensorSpec(m, tuple(parse(src)), tensor_meta=meta),
                                  DTensorSpec(m, tuple(parse(dst)), tensor_meta=meta))
    except Exception as e:
        return refusal(e)
    return {"ok": True}


def api_redistribute(mesh, shape, src, dst):
    """test_redistribute_to_partial / test_replicate_to_partial: DTensor.redistribute (the
    public API, which checks the target before planning) from a DTensor.from_local of the
    global-size tensor on `src`: torch's refusal ({"error": "Type: message"}), else
    {"placements": the output's}."""
    import torch
    from torch.distributed.tensor import DTensor
    m = _mesh(mesh)
    dt = DTensor.from_local(torch.ones(tuple(shape)), m, parse(src), run_check=False)
    try:
        out = dt.redistribute(m, parse(dst))
    except Exception as e:
        return refusal(e)
    return {"placements": [str(p) for p in out.placements]}


def comm_type_key(src, dst, logical_shape=(8, 8)):
    """TransformInfoTest: _TransformInfo(0, (src, dst), logical_shape)._comm_type_key(), and the
    collectives torch issues running that one step on a 2-rank mesh ("collectives"), or torch's
    refusal of the _TransformInfo."""
    import torch
    from torch.distributed.tensor._dtensor_spec import DTensorSpec, TensorMeta
    from torch.distributed.tensor._redistribute import _TransformInfo, redistribute_local_tensor
    from torch.distributed.tensor.debug import CommDebugMode
    s, d = parse(src)[0], parse(dst)[0]
    try:
        key = _TransformInfo(0, (s, d), list(logical_shape))._comm_type_key()
    except Exception as e:
        return refusal(e)
    m = _mesh([2])
    full = torch.randn(tuple(logical_shape))
    from torch.distributed.tensor._utils import compute_local_shape_and_global_offset
    local = torch.randn(tuple(compute_local_shape_and_global_offset(full.shape, m, [s])[0]))
    meta = TensorMeta(full.shape, full.stride(), full.dtype)
    mode = CommDebugMode()
    with mode:
        redistribute_local_tensor(local, DTensorSpec(m, (s,), tensor_meta=meta),
                                  DTensorSpec(m, (d,), tensor_meta=meta))
    return {"key": key, "collectives": int(mode.get_total_counts())}


def optimize_infos(mesh, flatten, infos, src, dst):
    """OptimizeFlattenedReductionsTest: torch's _optimize_transform_infos on the test's own
    _TransformInfo list (infos: [[mesh_dim, "src", "dst", [logical shape]], ...]) over a mesh
    with dims A, B, C and the named dims flattened: {"n" (len of the result), "flattened"
    [is a _FlattenedTransformInfo], "dims" [original_mesh_dims or [mesh_dim]]}."""
    from torch.distributed.tensor._redistribute import (_FlattenedTransformInfo, _TransformInfo,
                                                        _optimize_transform_infos)
    m = _mesh(mesh, flatten)
    tis = [_TransformInfo(mesh_dim=md, src_dst_placements=(parse(s)[0], parse(d)[0]),
                          logical_shape=list(ls)) for md, s, d, ls in infos]
    out = _optimize_transform_infos(tis, m, tuple(parse(src)), tuple(parse(dst)))
    return {"n": len(out),
            "flattened": [isinstance(r, _FlattenedTransformInfo) for r in out],
            "dims": [list(r.original_mesh_dims) if isinstance(r, _FlattenedTransformInfo)
                     else [r.mesh_dim] for r in out]}


def redistribute(dtensor_input, device_mesh, placements, shard_order,
                 use_graph_based_transform=True):
    """common_dtensor.redistribute of torch's test suite (torch 2.13's
    torch/testing/_internal/distributed/_tensor/common_dtensor.py), restated here because that
    module imports expecttest, which the harness's venv does not carry; the work is torch's
    redistribute_local_tensor on a copy of the spec with the new placements and shard order."""
    import copy
    from torch.distributed.tensor import DTensor
    from torch.distributed.tensor._redistribute import redistribute_local_tensor
    placements = tuple(placements)
    old_spec = dtensor_input._spec
    new_spec = copy.deepcopy(old_spec)
    new_spec.placements = placements
    new_spec.shard_order = shard_order if shard_order is not None else ()
    if old_spec == new_spec:
        return dtensor_input
    out = DTensor.from_local(
        redistribute_local_tensor(dtensor_input.to_local(), old_spec, new_spec,
                                  use_graph_based_transform=use_graph_based_transform),
        device_mesh)
    out._spec = copy.deepcopy(new_spec)
    return out


def patched_distribute_tensor(input_tensor, device_mesh, placements, shard_order,
                              use_graph_based_transform=True, src_data_rank=0):
    """common_dtensor.patched_distribute_tensor (see redistribute above): torch's
    distribute_tensor, then the spec told not to read _StridedShard as a shard order, then
    redistribute into the shard order."""
    from torch.distributed.tensor import distribute_tensor
    placements = tuple(placements)
    dt = distribute_tensor(input_tensor, device_mesh, placements, src_data_rank=src_data_rank)
    dt._spec.use_strided_shard_as_shard_order = False
    dt._spec.__post_init__()
    return redistribute(dt, device_mesh, placements, shard_order, use_graph_based_transform)


def _order(entries):
    from torch.distributed.tensor._dtensor_spec import ShardOrderEntry
    return tuple(ShardOrderEntry(tensor_dim=d, mesh_dims=tuple(m)) for d, m in entries)


@contextlib.contextmanager
def record_traces():
    """The trace strings DebugMode would record for every redistribute_local_tensor run inside
    (its `redistribute_input(..., trace: ...)`), without DebugMode itself: DebugMode's
    constructor imports torch._inductor (seconds), so this wraps _redistribute's
    _optimize_transform_infos, which redistribute_local_tensor calls right before it hands
    DebugMode DTensorRedistributePlanner.stringify_transform_infos(mesh, optimized infos,
    current placements, current shard order, use_strided_shard_as_shard_order) — the same
    call on the same arguments here.  Yields the list the traces are appended to."""
    import inspect
    from torch.distributed.tensor import _redistribute as R
    orig = R._optimize_transform_infos
    traces = []

    def wrapped(transform_infos, device_mesh, src_placements, dst_placements):
        out = orig(transform_infos, device_mesh, src_placements, dst_placements)
        frame = inspect.currentframe().f_back
        while frame is not None and "current_spec" not in frame.f_locals:
            frame = frame.f_back  # redistribute_local_tensor's frame holds it
        spec = frame.f_locals["current_spec"]
        traces.append(R.DTensorRedistributePlanner.stringify_transform_infos(
            device_mesh, out, spec.placements, spec.shard_order,
            spec.use_strided_shard_as_shard_order))
        return out

    R._optimize_transform_infos = wrapped
    try:
        yield traces
    finally:
        R._optimize_transform_infos = orig


def ordered_trace(mesh, shape, src, src_order, dst, dst_order, min_cost=None):
    """DistributeWithDeviceOrderTest: the test's own helpers (common_dtensor's
    patched_distribute_tensor and redistribute, use_graph_based_transform=True), the
    redistribute's trace as DebugMode records it (record_traces); min_cost wraps the
    redistribute in use_min_cost_redistribution_plan(enabled=min_cost), as
    test_force_min_cost_redistribution_plan does.  Returns {"trace"}."""
    import torch
    from torch.distributed.tensor._redistribute import (_gen_transform_infos,
                                                        use_min_cost_redistribution_plan)
    m = _mesh(mesh)
    _gen_transform_infos.cache_clear()
    dt = patched_distribute_tensor(torch.ones(tuple(shape)), m, parse(src),
                                   shard_order=_order(src_order))
    ctx = (use_min_cost_redistribution_plan(enabled=min_cost) if min_cost is not None
           else contextlib.nullcontext())
    with ctx, record_traces() as traces:
        redistribute(dt, m, parse(dst), _order(dst_order))
    _gen_transform_infos.cache_clear()
    return {"trace": traces[-1] if traces else ""}


def strided_vs_ordered(mesh, shape, strided, ordered, order):
    """test_shard_order_same_data_as_strided_shard: every rank's local tensor of
    distribute_tensor(x, strided placements) against the ordered-shard distribution (the
    test's patched_distribute_tensor with shard_order), all ranks at once under torch's
    LocalTensorMode.  Both distribute with src_data_rank=None (each rank splits the full tensor
    itself): under LocalTensorMode, torch 2.13's scatter from rank 0 hands _StridedShard's
    chunks out wrongly (ranks off coordinate 0 get chunk 0), which a real gloo world does not.
    Returns {"strided_of_order": torch's _StridedShard encoding of the order
    (DTensorSpec._convert_shard_order_to_StridedShard), "order_of_strided": torch's decoding
    of the strided placements (_maybe_convert_StridedShard_to_shard_order) as
    [[tensor_dim, [mesh dims]]]}, or an error when some rank's data differ."""
    import torch
    from torch.distributed._local_tensor import LocalTensorMode
    from torch.distributed.tensor import distribute_tensor
    from torch.distributed.tensor._dtensor_spec import DTensorSpec
    m = _mesh(mesh)
    n = m.size()
    x = torch.arange(float(torch.Size(shape).numel())).view(tuple(shape))
    with LocalTensorMode(n):
        lm = _mesh_local(mesh)
        a = distribute_tensor(x, lm, parse(strided), src_data_rank=None)
        b = patched_distribute_tensor(x, lm, parse(ordered), shard_order=_order(order),
                                      src_data_rank=None)
        a_loc, b_loc = a.to_local(), b.to_local()
        differ = [r for r in range(n)
                  if not torch.equal(a_loc._local_tensors[r], b_loc._local_tensors[r])]
    if differ:
        return {"error": f"DataMismatch: ranks {differ} hold different data"}
    enc = DTensorSpec._convert_shard_order_to_StridedShard(_order(order), tuple(parse(ordered)),
                                                           m)
    dec = DTensorSpec._maybe_convert_StridedShard_to_shard_order(tuple(a.placements), m)
    return {"strided_of_order": ",".join(str(p) for p in enc),
            "order_of_strided": None if dec is None else
            [[e.tensor_dim, list(e.mesh_dims)] for e in dec]}


def _mesh_local(shape):
    import torch
    from torch.distributed.device_mesh import DeviceMesh
    n = 1
    for s in shape:
        n *= s
    return DeviceMesh("cpu", torch.arange(n).view(tuple(shape)))
