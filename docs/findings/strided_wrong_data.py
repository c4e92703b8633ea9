"""strided_wrong_data.py — torch 2.13: `_S(0, 2),S(1) -> R,S(0)` falls back to the greedy planner
and returns data that is not the global tensor's slice (golden redistribute-data tc 631, flag
WrongDataFinding).

    torchrun --nproc-per-node 4 docs/findings/strided_wrong_data.py

Mesh 2x2; a 9x3 arange laid out as _S(0, 2),S(1) (torch's own local split, no communication),
redistributed for real to R,S(0): each rank must hold rows of the global tensor as Shard(0) over
mesh dim 1 names them.  Exit 1: reproduced.
"""
import torch
from torch.distributed.tensor import DTensor, distribute_tensor
from torch.distributed.tensor.placement_types import Replicate, Shard, _StridedShard

import _common as c

rank = c.init(4)
m = c.mesh([2, 2])
glob = torch.arange(27, dtype=torch.float32).reshape(9, 3)
src = [_StridedShard(0, split_factor=2), Shard(1)]
dst = [Replicate(), Shard(0)]
# lay the source out by torch's own local split (distribute_tensor's scatter asserts on uneven
# _StridedShard pieces: see distribute_strided_uneven.py)
dt = distribute_tensor(glob, m, src, src_data_rank=None)
got = dt.redistribute(m, dst).to_local()
want = c.expected_local(glob, m, dst)
ok = got.shape == want.shape and torch.equal(got, want)
c.report(rank, ok, ": got %s, want %s" % (got.tolist(), want.tolist()))
