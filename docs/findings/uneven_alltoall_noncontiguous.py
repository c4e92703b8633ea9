"""uneven_alltoall_noncontiguous.py — torch 2.13 (and 2.15) on CPU: an uneven Shard(d>0) ->
Shard(0) redistribute (the all_to_all path) leaves the local tensor of every rank with more than
one row non-contiguous, a view into the padded buffer, where the same input redistributed to
Replicate comes back contiguous since upstream made it so (PR #174134, and #184443: "Make
DTensor local tensor contiguous after uneven Shard->Replicate redistribute", for the reshapes
in parallelized nn.Linear).  The values are right; the strides are not the contiguous ones, and they differ
from what shard_dim_alltoall's fake registration (cat, narrow, .contiguous()) promises a
compiled graph.  (issue 34 item 4: the local tensor's metadata after each step.)

    torchrun --nproc-per-node 4 docs/findings/uneven_alltoall_noncontiguous.py

Mesh [4]; a 7x5x3 arange sharded S(1) (local widths 2, 2, 1, 0) redistributed to S(0): each
rank must hold its rows of the tensor, and (as after S(1) -> R) contiguously.  Seen with
torch 2.13.0 and 2.15.0 on gloo: stride (24, 3, 1) where the contiguous one is (15, 3, 1);
S(2) -> S(0) gives (20, 4, 1).  Exit 1: reproduced.
"""
import torch
from torch.distributed.tensor import distribute_tensor
from torch.distributed.tensor.placement_types import Replicate, Shard

import _common as c

rank = c.init(4)
m = c.mesh([4])
glob = torch.arange(105, dtype=torch.float32).reshape(7, 5, 3)
dt = distribute_tensor(glob, m, [Shard(1)])
got = dt.redistribute(m, [Shard(0)]).to_local()
rep = dt.redistribute(m, [Replicate()]).to_local()
want = c.expected_local(glob, m, [Shard(0)])
ok = torch.equal(got, want) and got.is_contiguous()
c.report(rank, ok, ": local %s stride %s, contiguous %s (values %s); after S(1) -> R stride %s, "
         "contiguous %s" % (tuple(got.shape), got.stride(), got.is_contiguous(),
                            "right" if torch.equal(got, want) else "WRONG", rep.stride(),
                            rep.is_contiguous()))
