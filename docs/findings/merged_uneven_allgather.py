"""merged_uneven_allgather.py — torch 2.13: with a flattened mesh, redistribute merges the
all-gathers of uneven nested shards into one all-gather over the flattened group without checking
that the shards are even, and the ranks get wrong rows back (golden redistribute-plan tc 20320,
flag Merged + UnevenShard; README finding MergedUnevenAllGather).

    torchrun --nproc-per-node 4 docs/findings/merged_uneven_allgather.py

Mesh 2x2 with dims (0, 1) flattened; a 5x4 arange sharded S(0),S(0) (local rows 2,1,1,1)
redistributed to R,R: every rank must hold the whole 5x4 tensor.  Exit 1: reproduced.
"""
import torch
from torch.distributed.tensor import distribute_tensor
from torch.distributed.tensor.placement_types import Replicate, Shard

import _common as c

rank = c.init(4)
m = c.mesh([2, 2], flatten=[(0, 1)])
glob = torch.arange(20, dtype=torch.float32).reshape(5, 4)
dt = distribute_tensor(glob, m, [Shard(0), Shard(0)])
got = dt.redistribute(m, [Replicate(), Replicate()]).to_local()
ok = torch.equal(got, glob)
c.report(rank, ok, ": got rows %s, want the 5x4 arange" % got[:, 0].tolist())
