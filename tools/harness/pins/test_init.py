"""test_init.py — probes for conformance/torch_pins/test_init.json (torch's
test/distributed/tensor/test_init.py), see pins/__init__.py.

DTensorConstructorTest builds DTensors with torch.distributed.tensor's factories (ones, empty,
full, zeros) on 1-d, 2-d and sub-meshes of a world of 4 and asserts each rank's local tensor.
The probe runs that factory as the rank itself would: a fake process group of the world's size
(_torch_common.WORLD) entered as that rank, a DeviceMesh of the test's rank list on it, torch's
factory, then to_local(); the world is closed again afterwards.
"""

from pins.common import parse, tc


def constructor_local_shape(op, world, mesh, ranks, shape, placements, rank):
    """torch.distributed.tensor.OP(shape, device_mesh=DeviceMesh("cpu", ranks viewed as mesh),
    placements=...) on `rank` of a `world`-rank fake process group: {"local_shape",
    "global_shape"} (a rank off the mesh holds torch's empty local tensor)."""
    import torch
    import torch.distributed.tensor as dtensor
    from torch.distributed.device_mesh import DeviceMesh
    tc.WORLD.enter(int(world), int(rank))
    try:
        dm = DeviceMesh("cpu", torch.tensor(ranks).view(mesh))
        args = (123.4,) if op == "full" else ()  # test_full's fill value
        d = getattr(dtensor, op)(shape, *args, device_mesh=dm, placements=parse(placements),
                                 requires_grad=True)
        local = d.to_local()
        return {"local_shape": list(local.shape), "global_shape": list(d.size())}
    finally:
        tc.WORLD.close()
