"""subworld_worker.py — what real torch 2.13 does with a DeviceMesh smaller than the world.

What it is for: test_subworld.py compares `shardcheck layout --world` and `groups --world`
with torch (issue 34 item 3: sub-world meshes, whose ranks off the mesh are torch's
"non-participating ranks", device_mesh.py _is_current_rank_part_of_mesh).  A gloo world of 4
CPU processes builds each case's DeviceMesh from its rank map (real new_group calls), and
every rank reports its coordinate, its process group per mesh dim (the group's ranks and its
own rank in it), compute_local_shape_and_global_offset, the local shape distribute_tensor
gives it and, for a case with "dst", the collectives DTensor.redistribute runs on it
(CommDebugMode) and its local shape after; or the exception torch raised building the mesh.
Run as a script with the case list as JSON on stdin; rank 0 writes one JSON object to argv[1].

Cases: {"mesh": [2], "ranks": [1, 3], "shape": [8], "placements": [["S", 0]]},
placements as in torch_input_worker.py.

How it is tested: it is the torch side of test_subworld.py.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_input_worker import _placement, merge_per_rank, refusal_raises, spawn  # noqa: E402


def _answer(case, meshes, rank):
    import torch
    import torch.distributed as dist
    from torch.distributed.device_mesh import DeviceMesh
    from torch.distributed.tensor import distribute_tensor
    from torch.distributed.tensor._utils import compute_local_shape_and_global_offset
    mesh = DeviceMesh("cpu", torch.tensor(case["ranks"]).reshape(case["mesh"]))
    pl = [_placement(p) for p in case["placements"]]
    shape = torch.Size(case["shape"])
    coord = mesh.get_coordinate()
    groups = []
    if coord is not None:
        for d in range(mesh.ndim):
            g = mesh.get_group(d)
            groups.append({"ranks": dist.get_process_group_ranks(g), "rank": dist.get_rank(g)})
    local, offset = compute_local_shape_and_global_offset(shape, mesh, pl)
    g = torch.arange(shape.numel(), dtype=torch.float32).reshape(shape)
    dt = distribute_tensor(g, mesh, pl)
    got = {"coord": None if coord is None else list(coord),
           "dim_group_names": len(mesh._dim_group_names), "groups": groups,
           "localShape": list(local), "globalOffset": list(offset),
           "distributed": list(dt.to_local().shape)}
    if case.get("dst"):
        from torch.distributed.tensor.debug import CommDebugMode
        with CommDebugMode() as comm:
            out = dt.redistribute(mesh, [_placement(p) for p in case["dst"]])
        got["collectives"] = comm.get_total_counts()
        got["redistributed"] = list(out.to_local().shape)
    return got




WORKER = (_answer, refusal_raises, merge_per_rank)

if __name__ == "__main__":
    spawn("subworld_worker")
