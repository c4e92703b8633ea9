"""test_dtensor.py — probes for conformance/torch_pins/test_dtensor.json (see pins/__init__.py).

The rows pin what test/distributed/tensor/test_dtensor.py asserts about DTensor's global shape and
stride from a local tensor, local shapes and offsets, sub-mesh (non-participating) ranks, the
collectives a redistribute or a backward runs, padded splits and shard orders.  Each probe runs
the test's own torch calls in ONE process, in a fake process-group world of the test's size
entered as the rank the row names (_torch_common.WORLD: real group bookkeeping, collectives
with their real output shapes and CommDebugMode counts, no data).  Offsets come back as decimal
strings, the encoding `shardcheck layout --json` gives them (docs/DESIGN.md, CLI contract).
Nothing here reads shardcheck's answer.
"""

import warnings

import torch

from pins.common import parse, tc


def _n(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _mesh(mesh, rank, ranks=None, world=None):
    """The test's mesh as `rank` sees it: init_device_mesh(shape) over a world of its size,
    or DeviceMesh(ranks) in a larger world (a sub-mesh, test_from_local_sub_mesh)."""
    from torch.distributed.device_mesh import DeviceMesh, init_device_mesh
    tc.WORLD.enter(world or _n(mesh), rank)
    if ranks is not None:
        return DeviceMesh("cpu", torch.tensor(ranks).reshape(tuple(mesh)))
    return init_device_mesh("cpu", tuple(mesh))


def from_local(mesh, placements, local_shape, rank=0, permute=None, ranks=None, world=None):
    """DTensor.from_local of a local tensor of local_shape (or torch.randn(local_shape)
    .permute(permute), test_dtensor_stride's transposed one): its global shape and stride,
    its placements as torch prints them, its local shape on `rank`."""
    from torch.distributed.tensor import DTensor
    m = _mesh(mesh, rank, ranks, world)
    local = torch.randn(*local_shape)
    if permute is not None:
        local = local.permute(*permute)
    dt = DTensor.from_local(local, m, parse(placements))
    return {"shape": list(dt.size()), "stride": list(dt.stride()),
            "placements": [str(p) for p in dt.placements],
            "local_shape": list(dt.to_local().shape)}


def backward_comms(fwd, grad, world=4):
    """test_from_local_backward: under CommDebugMode, from_local(fwd) * 2 backpropagated from
    a from_local(grad) gradient: the total collectives and the all_reduce count."""
    from torch.distributed.tensor import DTensor
    from torch.distributed.tensor.debug import CommDebugMode
    m = _mesh([world], 0)
    comm = CommDebugMode()
    with comm:
        local = torch.randn(3, 3, requires_grad=True)
        out = DTensor.from_local(local, m, parse(fwd)) * 2
        g = DTensor.from_local(torch.ones(3, 3), m, parse(grad), run_check=False)
        out.backward(g)
    return {"total": comm.get_total_counts(),
            "all_reduce": comm.get_comm_counts()[torch.ops.c10d_functional.all_reduce]}


def grad_hint_comms(world=4):
    """test_to_local_grad_hint: distribute (8, 3) as S(0), redistribute to R, to_local with
    grad_placements [Partial()], backward: the counts of all_gather_into_tensor and
    reduce_scatter_tensor."""
    from torch.distributed.tensor import Partial, Replicate, Shard, distribute_tensor
    from torch.distributed.tensor.debug import CommDebugMode
    m = _mesh([world], 0)
    sharded = distribute_tensor(torch.ones(8, 3, requires_grad=True), m, [Shard(0)])
    comm = CommDebugMode()
    with comm:
        out = sharded.redistribute(placements=[Replicate()]).to_local(grad_placements=[Partial()])
        out.backward(torch.ones_like(out))
    ops = torch.ops.c10d_functional
    return {"all_gather_into_tensor": comm.comm_counts[ops.all_gather_into_tensor],
            "reduce_scatter_tensor": comm.comm_counts[ops.reduce_scatter_tensor]}


def local_shard(mesh, shape, placements, rank, how="compute", ranks=None, world=None):
    """`rank`'s local shape and global offset (decimal strings) of a tensor of `shape`:
    how="compute": compute_local_shape_and_global_offset(shape, mesh, placements) as
    test_dtensor_spec_local_shard_offset calls it; "distribute": distribute_tensor's local
    shape; "shard_tensor": _shard_tensor's (test_shard_tensor*), the offset from compute."""
    from torch.distributed.tensor import distribute_tensor
    from torch.distributed.tensor._api import _shard_tensor
    from torch.distributed.tensor._utils import compute_local_shape_and_global_offset
    m = _mesh(mesh, rank, ranks, world)
    pl = parse(placements)
    ls, off = compute_local_shape_and_global_offset(torch.Size(shape), m, pl)
    if how == "distribute":
        ls = distribute_tensor(torch.randn(*shape), m, pl).to_local().shape
    elif how == "shard_tensor":  # deprecated in 2.13 (DeprecationWarning): the test calls it
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            st = _shard_tensor(torch.arange(_n(shape)).reshape(shape), pl, m)
        ls = st.to_local().shape
    return {"shape": list(ls), "offset": [str(o) for o in off]}


def context_manager(rank, world=8):
    """test_dtensor_api_device_mesh_context_manager on `rank`: under `with mesh`, from_local
    of (3, 3) as S(0) redistributed to R: its size; distribute_tensor of (3w, 3) as S(0): the
    local shape; inside `with mesh_2d` (2, w/2) as S(0),R: the local shape; back in the 1-d
    mesh: the local shape."""
    from torch.distributed.device_mesh import DeviceMesh
    from torch.distributed.tensor import DTensor, Replicate, Shard, distribute_tensor
    m = _mesh([world], rank)
    out = {}
    with m:
        st = DTensor.from_local(torch.randn(3, 3), placements=[Shard(0)])
        out["replica_size"] = list(st.redistribute(placements=[Replicate()]).size())
    with m:
        g = torch.randn(3 * world, 3)
        out["local_1d"] = list(distribute_tensor(g, placements=[Shard(0)]).to_local().shape)
        m2 = DeviceMesh("cpu", torch.arange(world).reshape(2, world // 2))
        with m2:
            out["local_2d"] = list(distribute_tensor(g, placements=[Shard(0), Replicate()])
                                   .to_local().shape)
        out["local_after"] = list(distribute_tensor(g, placements=[Shard(0)]).to_local().shape)
    return out


def sub_mesh(ranks, rank, world=8):
    """test_from_local_sub_mesh / test_redistribute_sub_mesh on `rank` of a world with a 1-d
    mesh of `ranks`: from_local (3, 4) as S(0): size and local shape; from_local (4, 3) as
    S(0) redistributed to R, then back to S(0): the local shapes."""
    from torch.distributed.device_mesh import DeviceMesh
    from torch.distributed.tensor import DTensor, Replicate, Shard
    tc.WORLD.enter(world, rank)
    m = DeviceMesh("cpu", list(ranks))
    dt = DTensor.from_local(torch.ones(3, 4), m, [Shard(0)])
    rep = DTensor.from_local(torch.ones(4, 3), m, [Shard(0)]).redistribute(
        placements=[Replicate()])
    again = rep.redistribute(placements=[Shard(0)])
    return {"size": list(dt.size()), "local": list(dt.to_local().shape),
            "replicated_local": list(rep.to_local().shape),
            "sharded_again_local": list(again.to_local().shape)}


def split_tensor_1d(world, size, rank):
    """test_split_tensor_1D: Shard(0)._split_tensor of torch.rand(size) into `world` padded
    pieces: `rank`'s pad size and the shape of its piece unpadded as the test unpads it."""
    from torch.distributed.tensor import Shard
    from torch.distributed.tensor._collective_utils import unpad_tensor
    pieces, pads = Shard(0)._split_tensor(torch.rand(size), world, with_padding=True,
                                          contiguous=True)
    t = pieces[rank]
    if pads[rank] > 0:
        t = unpad_tensor(t, 0, pads[rank])
    return {"pad": pads[rank], "shape": list(t.shape), "empty": not t.numel() > 0}


def shard_order(mesh, placements, local_shape=(8, 6, 5)):
    """test_dtensor_spec_default_shard_order_generation / test_default_shard_order: the
    shard_order of from_local(placements)'s spec, entries as [tensor_dim, [mesh_dims]]."""
    from torch.distributed.tensor import DTensor
    m = _mesh(mesh, 0)
    dt = DTensor.from_local(torch.randn(*local_shape), m, parse(placements))
    return [[e.tensor_dim, list(e.mesh_dims)] for e in dt._spec.shard_order]


def format_order(placements, order=None):
    """test_dtensor_spec_print: DTensorSpec.format_shard_order_str(placements, order), the
    order given as [[tensor_dim, [mesh_dims]], ...] or None."""
    from torch.distributed.tensor._dtensor_spec import DTensorSpec, ShardOrderEntry
    so = None if order is None else tuple(ShardOrderEntry(tensor_dim=t, mesh_dims=tuple(m))
                                          for t, m in order)
    return DTensorSpec.format_shard_order_str(tuple(parse(placements)), so)
