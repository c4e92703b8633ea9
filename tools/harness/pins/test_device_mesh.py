"""test_device_mesh.py — probes for conformance/torch_pins/test_device_mesh.json (pins/__init__.py).

The rows pin what test/distributed/test_device_mesh.py asserts about DeviceMesh process groups,
local ranks, sub-meshes, flattened meshes and the shapes its collectives give.  Each probe runs
the test's own torch calls in ONE process: a fake process-group world of the test's size entered
as one rank (_torch_common.WORLD: torch's FakeProcessGroup keeps real group bookkeeping and
gives collectives their real output shapes, no data), so a per-rank assertion is asked of the
rank the row names.  Nothing here reads shardcheck's answer.
"""

import warnings

import torch
import torch.distributed as dist

from pins import refusal
from pins.common import tc


def _n(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _root(mesh, rank, names=None, build="init"):
    """The test's mesh as `rank` sees it: init_device_mesh(shape, names) or, for
    build="tensor", DeviceMesh(arange(n).reshape(shape)) (the tests' two spellings)."""
    from torch.distributed.device_mesh import DeviceMesh, init_device_mesh
    tc.WORLD.enter(_n(mesh), rank)
    if build == "tensor":
        return DeviceMesh("cpu", torch.arange(_n(mesh)).reshape(tuple(mesh)))
    return init_device_mesh("cpu", tuple(mesh),
                            mesh_dim_names=None if names is None else tuple(names))


def _key(key, as_list=False):
    """A row's key as the test indexes: a name, a tuple of names (mesh["a", "b"]) or, with
    as_list, a list (mesh[["a", "b"]])."""
    if isinstance(key, list):
        return list(key) if as_list else tuple(key)
    return key


def rank_groups(mesh, rank, names=None, build="init"):
    """One rank's view of the mesh: per mesh dim (get_all_groups order) the group's global
    ranks (get_global_rank over its size, as test_device_mesh_2d/nd read them), the group
    sizes, the coordinate, get_local_rank per dim, each group's rank 0 (mesh_broadcast's
    source) and its member at the rank's coordinate (mesh_scatter's pick)."""
    m = _root(mesh, rank, names, build)
    groups = [[dist.get_global_rank(g, i) for i in range(dist.get_world_size(g))]
              for g in m.get_all_groups()]
    coord = list(m.get_coordinate())
    return {"groups": groups, "sizes": [dist.get_world_size(g) for g in m.get_all_groups()],
            "coord": coord, "local_ranks": [m.get_local_rank(d) for d in range(m.ndim)],
            "broadcast_src": [g[0] for g in groups],
            "scatter_pick": [dist.get_global_rank(m.get_group(d), coord[d])
                             for d in range(m.ndim)]}


def all_groups(mesh, build="init"):
    """Every rank's group per mesh dim, the distinct ones per dim, sorted: what the test's
    per-rank assertions say taken over all its ranks."""
    per_dim = [set() for _ in mesh]
    for r in range(_n(mesh)):
        for d, g in enumerate(rank_groups(mesh, r, build=build)["groups"]):
            per_dim[d].add(tuple(g))
    return [[list(g) for g in sorted(s)] for s in per_dim]


def submesh(mesh, names, rank, key, flatten=False, as_list=False):
    """mesh[key] as `rank` sees it: its mesh tensor (and flattened, row-major), for a 1-d
    sub-mesh its group's ranks and get_local_rank(); with flatten, sub._flatten()'s mesh.
    torch's refusal of the key as {"error": "Type: message"}."""
    m = _root(mesh, rank, names)
    try:
        sub = m[_key(key, as_list)]
    except Exception as e:  # torch's refusal, compared by the row
        return refusal(e)
    out = {"mesh": sub.mesh.tolist(), "flat": sub.mesh.flatten().tolist()}
    if sub.ndim == 1:
        out["group"] = dist.get_process_group_ranks(sub.get_group())
        out["local_rank"] = sub.get_local_rank()
    if flatten:
        out["flattened"] = sub._flatten().mesh.tolist()
    return out


def submesh_all(mesh, names, key, what="flat"):
    """submesh(...)[what] over every rank, the distinct answers sorted: the rank lists the
    sub-mesh's groups (or its mesh tensors) take across the world."""
    seen = set()
    for r in range(_n(mesh)):
        seen.add(tuple(submesh(mesh, names, r, key)[what]))
    return [list(s) for s in sorted(seen)]


def sliced_row(mesh, names, rank, key, row_dim, col_key):
    """test_get_item_3d_noncontiguous_slicing: mesh[key].mesh indexed by its
    get_local_rank(row_dim), and mesh[col_key].mesh: {"row": [...], "col": [...]}."""
    m = _root(mesh, rank, names)
    sub = m[_key(key)]
    return {"row": sub.mesh[sub.get_local_rank(row_dim)].tolist(),
            "col": m[col_key].mesh.tolist()}


def submesh_local_ranks(mesh, names, rank):
    """get_local_rank of the named 1-d sub-meshes (test_get_local_rank) and of the root by
    name: {"root": [...], "sub": [...]}, in the order of names."""
    m = _root(mesh, rank, names)
    return {"root": [m.get_local_rank(n) for n in names],
            "sub": [m[n].get_local_rank() for n in names]}


def _funcol(name, *args, **kwargs):
    """torch's functional collective `name` as the test calls it (all_gather_tensor and
    reduce_scatter_tensor, deprecated in 2.13: the warning is not the row's), waited on."""
    import torch.distributed._functional_collectives as funcol
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        out = getattr(funcol, name)(*args, **kwargs)
    return funcol.wait_tensor(out)


def all_gather_shape(world, local_shape, gather_dim=0):
    """test_fake_pg_device_mesh: funcol.all_gather_tensor of a local tensor over a 1-d mesh
    of the whole world: the gathered tensor's shape."""
    from torch.distributed.device_mesh import DeviceMesh
    tc.WORLD.enter(world, 0)
    mesh = DeviceMesh("cpu", torch.arange(world))
    out = _funcol("all_gather_tensor", torch.randn(*local_shape), gather_dim=gather_dim,
                  group=(mesh, 0))
    return list(out.shape)


def _mesh1d(world, rank):
    from torch.distributed.device_mesh import DeviceMesh
    tc.WORLD.enter(world, rank)
    return DeviceMesh("cpu", list(range(world)))


def scatter_even(world, shape, dim, rank):
    """test_scatter_1d: the shape of the tensor mesh_scatter fills on `rank` (empty_like of
    its entry of Shard(dim)._split_tensor, padded and contiguous)."""
    from torch.distributed.tensor import Shard
    from torch.distributed.tensor._collective_utils import mesh_scatter
    mesh = _mesh1d(world, rank)
    chunks, _ = Shard(dim)._split_tensor(torch.randn(*shape), mesh.size(), with_padding=True,
                                         contiguous=True)
    recv = torch.empty_like(chunks[mesh.get_rank()])
    mesh_scatter(recv, chunks, mesh, mesh_dim=0)
    return list(recv.shape)


def uneven_collective(world, shape, dim, rank, via):
    """test_scatter_uneven / test_reduce_scatter_uneven / test_all_gather_uneven, run as the
    test runs them on `rank`: the padded split of Shard(dim), then mesh_scatter (via
    "scatter") or funcol.reduce_scatter_tensor of the concatenated pieces ("reduce_scatter"),
    unpadded by the rank's pad size; or funcol.all_gather_tensor of the rank's piece, chunked,
    each chunk unpadded and concatenated ("all_gather").  {"size": [...], "numel": n}."""
    from torch.distributed.tensor import Shard
    from torch.distributed.tensor._collective_utils import mesh_scatter, unpad_tensor
    mesh = _mesh1d(world, rank)
    me = mesh.get_rank()
    t = torch.ones(*shape)
    pieces, pads = Shard(dim)._split_tensor(t, mesh.size(), with_padding=True, contiguous=True)
    if via == "scatter":
        out = torch.empty_like(pieces[me])
        mesh_scatter(out, pieces, mesh, mesh_dim=0)
    elif via == "reduce_scatter":
        out = _funcol("reduce_scatter_tensor", torch.cat(pieces, dim), reduceOp="sum",
                      scatter_dim=dim, group=(mesh, 0))
    elif via == "all_gather":
        big = _funcol("all_gather_tensor", pieces[me], gather_dim=dim, group=(mesh, 0))
        chunks = list(torch.chunk(big, mesh.size(), dim=dim))
        out = torch.cat([unpad_tensor(c, dim, pads[i]) if pads[i] > 0 else c
                         for i, c in enumerate(chunks)], dim=dim)
        return {"size": list(out.size()), "numel": out.numel()}
    else:
        raise ValueError(via)
    if pads[me] > 0:
        out = unpad_tensor(out, dim, pads[me])
    return {"size": list(out.size()), "numel": out.numel()}


def reduce_scatter_contiguous(world, rank):
    """test_reduce_scatter_contiguous: a Partial DTensor of tensor[::2, :2] (tensor of
    (2w, 2w)) redistributed to Shard(0): the local tensor's size on `rank`."""
    from torch.distributed.tensor import DTensor, Partial, Shard
    mesh = _mesh1d(world, rank)
    step = world * 2
    t = torch.arange(0, step * step).view(step, -1) * (rank + 1)
    dt = DTensor.from_local(t[::2, :2], mesh, [Partial()])
    return list(dt.redistribute(mesh, [Shard(0)])._local_tensor.size())
