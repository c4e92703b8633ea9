"""test_debug_mode.py — probes for conformance/torch_pins/test_debug_mode.json.

torch's test/distributed/tensor/debug/test_debug_mode.py asserts whole DebugMode strings
(TestDTensorDebugMode, @requires_cuda, a fake process group of 8 ranks on rank 0).  The rows
pin the DTensor semantics inside them: the global shape DTensor.from_local gives each input
(the "dt: f32[8, 32]| S(0)" annotations), the trace of each redistribute_input block and the
collectives it issues.  These probes run the same scenarios on CPU in one process: a fake
process group of the mesh's size (_torch_common.WORLD, as the harness's adapters enter it),
rank 0, the ops themselves (torch.mm, +, .sum().backward()) or torch's redistribute_local_tensor
for a plan the test's string records.  Traces are the string DebugMode records
(pins.test_redistribute.record_traces: torch's stringify_transform_infos on the same arguments,
without importing DebugMode, whose constructor imports torch._inductor); collectives are
counted by CommDebugMode.  On CPU torch performs Shard -> Shard as all_gather + chunk, not
_dtensor::shard_dim_alltoall: rows compare the number of collectives.  No probe reads
shardcheck.
"""

from pins.common import tc
from pins.test_redistribute import _counts, _mesh, record_traces


def _placements(text):
    """Placements and the shard order ([(tensor_dim, (mesh dims..))]) of the CLI's notation,
    trace form included ("S(0)[0]S(0)[1]")."""
    pls, order = tc.parse_placements(text)
    so = None
    if order is not None and any(o is not None for o in order):
        so = tc.shard_order_of(pls, order)
    return list(pls), so


def from_local_shape(mesh, placements, local_shape):
    """DTensor.from_local(local tensor, mesh, placements, run_check=False) on rank 0 of a fake
    world of the mesh's size, the shard order assigned to its spec as the test does
    (x_dtensor._spec.shard_order = ...): {"shape": the DTensor's global shape,
    "placements": its placements as DebugMode prints them (DTensorSpec.format_shard_order_str)}."""
    import torch
    from torch.distributed.tensor import DTensor
    from torch.distributed.tensor._dtensor_spec import DTensorSpec
    m = _mesh(mesh)
    pls, so = _placements(placements)
    dt = DTensor.from_local(torch.ones(tuple(local_shape)), m, pls, run_check=False)
    if so is not None:
        dt._spec.shard_order = so
    return {"shape": list(dt.shape),
            "placements": DTensorSpec.format_shard_order_str(dt._spec.placements,
                                                             dt._spec.shard_order)}


def scenario(name):
    """One of the test's own DTensor programs on an 8-rank 1-d mesh (the test's
    DeviceMesh(device_type, list(range(8)))), on CPU:
      "mm"       — test_debug_mode_mm: torch.mm(x [1, 8] S(0), y [1, 32] S(0)).sum()
      "backward" — test_debug_mode_backward: z = x [1, 8] S(0) + y [8, 1] S(1);
                   z.sum().backward()
    Returns {"traces": every redistribute's trace in order, "forward_total"/"forward_counts":
    CommDebugMode over the forward, "backward_total": over the backward}."""
    import torch
    from torch.distributed.tensor import DTensor, Shard
    from torch.distributed.tensor.debug import CommDebugMode
    m = _mesh([8])
    fwd, bwd = CommDebugMode(), CommDebugMode()
    with record_traces() as traces:
        if name == "mm":
            x = DTensor.from_local(torch.randn(1, 8), m, [Shard(0)], run_check=False)
            y = DTensor.from_local(torch.randn(1, 32, requires_grad=True), m, [Shard(0)],
                                   run_check=False)
            with fwd:
                torch.mm(x, y).sum()
        elif name == "backward":
            x = DTensor.from_local(torch.randn(1, 8, requires_grad=True), m, [Shard(0)],
                                   run_check=False)
            y = DTensor.from_local(torch.randn(8, 1, requires_grad=True), m, [Shard(1)],
                                   run_check=False)
            with fwd:
                z = x + y
                s = z.sum()
            with bwd:
                s.backward()
        else:
            raise ValueError(f"no scenario {name!r}")
    return {"traces": list(traces), "forward_total": int(fwd.get_total_counts()),
            "forward_counts": _counts(fwd), "backward_total": int(bwd.get_total_counts())}


def planned(mesh, shape, src, dst):
    """The redistribute a DebugMode redistribute_input block records, run by torch itself:
    redistribute_local_tensor from a DTensor made as the test makes its inputs
    (DTensor.from_local of rank 0's local shard, the shard order assigned to its spec) to the
    target placements, as DTensor's dispatch calls it for an op's input.  Returns {"trace",
    "total" (CommDebugMode), "collective_mesh_dims": the mesh dim each collective ran over
    (torch's optimized _TransformInfos with a communication, in order)}."""
    import torch
    from torch.distributed.tensor import DTensor
    from torch.distributed.tensor import _redistribute as R
    from torch.distributed.tensor._dtensor_spec import DTensorSpec
    from torch.distributed.tensor._utils import compute_local_shape_and_global_offset
    from torch.distributed.tensor.debug import CommDebugMode
    m = _mesh(mesh)
    spls, sso = _placements(src)
    dpls, _ = _placements(dst)
    local_shape, _ = compute_local_shape_and_global_offset(torch.Size(shape), m, spls)
    dt = DTensor.from_local(torch.ones(tuple(local_shape)), m, spls, run_check=False,
                            shape=torch.Size(shape),
                            stride=torch.empty(tuple(shape), device="meta").stride())
    if sso is not None:
        dt._spec.shard_order = sso
    target = DTensorSpec(m, tuple(dpls), tensor_meta=dt._spec.tensor_meta)
    infos = []
    mode = CommDebugMode()
    R._gen_transform_infos.cache_clear()
    with record_traces() as traces:
        traced = R._optimize_transform_infos  # record_traces' wrapper

        def keep(*args):
            out = traced(*args)
            infos[:] = list(out)
            return out

        R._optimize_transform_infos = keep
        try:
            with mode:
                R.redistribute_local_tensor(dt._local_tensor, dt._spec, target)
        finally:
            R._optimize_transform_infos = traced
    dims = [int(i.mesh_dim) for i in infos if i._comm_type_key() is not None]
    return {"trace": traces[-1] if traces else "", "total": int(mode.get_total_counts()),
            "collective_mesh_dims": dims}
