"""user_generator_cpu_mesh.py — on a CPU DeviceMesh, a DTensor random op given a generator of the
user's ignores it: `x.uniform_(generator=g)` draws from the rank's default generator, which
advances, and g stays where it was (found with `shardcheck lifecycle --device cpu`, issue 34
item 5; the CLI's answer for it is checked against this behaviour by
tools/harness/tests/test_rng_lifecycle.py).

torch 2.13's OpDispatcher (_dispatch.py) pops `generator` from the local kwargs of every random
op before it looks for an RNG tracker, so that the tracker's _distribute_region can run the op
on g's state; a CPU mesh has no tracker (is_rng_supported_mesh: torch.cpu has no
set_rng_state), so the op runs with neither.  A plain tensor honours g.

    torchrun --nproc-per-node 2 docs/findings/user_generator_cpu_mesh.py

Each rank: default generator seeded 100 + rank, g seeded 7, `[8]` `Shard(0)`; the rank's
`[4]` local values must be g's first four uniforms.  Exit 1: reproduced.
"""
import torch
from torch.distributed.tensor import distribute_tensor
from torch.distributed.tensor.placement_types import Shard

import _common as c

rank = c.init(2)
m = c.mesh([2])
x = distribute_tensor(torch.zeros(8), m, [Shard(0)])
torch.manual_seed(100 + rank)
g = torch.Generator().manual_seed(7)
g_before = g.get_state().clone()
got = x.uniform_(generator=g).to_local()
want = torch.empty(4).uniform_(generator=torch.Generator().manual_seed(7))
default = torch.empty(4).uniform_(generator=torch.Generator().manual_seed(100 + rank))
ok = torch.equal(got, want) and not torch.equal(g_before, g.get_state())
c.report(rank, ok, "" if ok else ": the local values are %s's draws, g %s" % (
    "the default generator" if torch.equal(got, default) else "neither generator",
    "did not move" if torch.equal(g_before, g.get_state()) else "moved"))
