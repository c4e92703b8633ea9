"""lifecycle_worker.py — what real torch 2.13 does at DTensor's RNG set-up on a CPU mesh.

What it is for: test_rng_lifecycle.py compares `shardcheck lifecycle --device cpu` with torch
(issue 34 item 5).  A gloo world of 4 CPU processes builds each case's DeviceMesh ("cpu", its
rank map: a sub-world mesh leaves ranks off it), and every rank reports, with no tracker made
before (_random._rng_tracker reset per case):
  - manual_seed(seed, mesh): the warnings, the exception, whether the generator's state moved;
  - torch.distributed.tensor.rand on the mesh: the exception;
  - a first random op (uniform_ on a distributed zeros tensor): whether its local values are
    the rank's own generator's draws (untracked), and whether the state moved when it ran none;
  - the same op given a generator of the user's (generator=g): whose draws its values are, and
    whether the default generator and g moved.
Run as a script with the case list as JSON on stdin; rank 0 writes one JSON object to argv[1].
Cases: {"mesh": [2, 2], "ranks": [0, 1, 2, 3], "seed": 7}.

How it is tested: it is the torch side of test_rng_lifecycle.py.
"""

import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_input_worker import _error, merge_per_rank, refusal_raises, spawn  # noqa: E402


def _manual_seed(mesh, seed):
    import torch
    from torch.distributed.tensor import _random
    before = torch.get_rng_state()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            _random.manual_seed(seed, mesh)
            raised = None
        except Exception as e:
            raised = _error(e)
    return {"warnings": [str(x.message) for x in w], "raises": raised,
            "moved": not torch.equal(before, torch.get_rng_state()),
            "tracker": _random._rng_tracker is not None}


def _factory(mesh):
    import torch.distributed.tensor as dt
    try:
        dt.rand(8, device_mesh=mesh, placements=[dt.Replicate()] * mesh.ndim)
        return {"raises": None}
    except Exception as e:
        return {"raises": _error(e)}


def _first_op(mesh, rank):
    import torch
    import torch.distributed.tensor as dt
    torch.manual_seed(100 + rank)
    x = dt.distribute_tensor(torch.zeros(8), mesh, [dt.Shard(0)] + [dt.Replicate()] * (mesh.ndim - 1))
    before = torch.get_rng_state()
    local = x.uniform_().to_local()
    mine = torch.Generator().manual_seed(100 + rank)
    own = torch.empty(local.shape).uniform_(generator=mine)
    return {"numel": local.numel(), "own_draws": bool(torch.equal(local, own)),
            "moved": not torch.equal(before, torch.get_rng_state())}


def _user_generator_op(mesh, rank):
    """A first random op given a generator of the user's: whose draws the local values are,
    and which generators moved."""
    import torch
    import torch.distributed.tensor as dt
    torch.manual_seed(100 + rank)
    x = dt.distribute_tensor(torch.zeros(8), mesh, [dt.Shard(0)] + [dt.Replicate()] * (mesh.ndim - 1))
    g = torch.Generator().manual_seed(7)
    before, g_before = torch.get_rng_state(), g.get_state()
    local = x.uniform_(generator=g).to_local()
    own = torch.empty(local.shape).uniform_(generator=torch.Generator().manual_seed(100 + rank))
    users = torch.empty(local.shape).uniform_(generator=torch.Generator().manual_seed(7))
    return {"numel": local.numel(), "own_draws": bool(torch.equal(local, own)),
            "user_draws": bool(torch.equal(local, users)),
            "moved": not torch.equal(before, torch.get_rng_state()),
            "user_moved": not torch.equal(g_before, g.get_state())}


def _answer(case, meshes, rank):
    import torch
    from torch.distributed.device_mesh import DeviceMesh
    from torch.distributed.tensor import _random
    mesh = DeviceMesh("cpu", torch.tensor(case["ranks"]).reshape(case["mesh"]))
    _random._rng_tracker = None
    got = {"manualSeed": _manual_seed(mesh, case["seed"])}
    _random._rng_tracker = None
    got["factory"] = _factory(mesh)
    _random._rng_tracker = None
    got["firstOp"] = _first_op(mesh, rank)
    _random._rng_tracker = None
    got["userGenerator"] = _user_generator_op(mesh, rank)
    got["inMesh"] = mesh.get_coordinate() is not None
    return got




WORKER = (_answer, refusal_raises, merge_per_rank)

if __name__ == "__main__":
    spawn("lifecycle_worker")
