"""view_strided_wrong_data.py — torch 2.13: a view of a _StridedShard input keeps the
_StridedShard on a new dim whose pieces are not the input's, with no redistribution, so every
rank silently holds the wrong elements (found by `shardcheck view`, issue 35; verdict wrong).

`[3, 4, 8]` `S(1)` on 2 ranks, `flatten(0, 1)` gives `[12, 8]` `_S(0, 3)` (right: each rank
holds rows 2k..2k+1 of every group of 4).  Then `view(2, 48)`: torch's rule keeps `_S(1, 3)`
with no redistribution, but `_S(1, 3)` of `[2, 48]` cuts each of the 2 rows into 3 pieces of 16
columns, while each rank's local data is 3 pairs of input rows (its 48 elements viewed as
[2, 24] — the right shape, the wrong elements): rank 1 holds global elements 16.. where its
slice starts at 8.  `shardcheck view --mesh 2 --placements '_S(0, 3)' --shape 12,8 --op
view:2,48` gives the first wrong element per rank.

    torchrun --nproc-per-node 2 docs/findings/view_strided_wrong_data.py

The chain runs on a DTensor of an arange; each rank's local result is compared with its slice
of the global result under the placements torch gives.  Exit 1: reproduced.
"""
import torch
from torch.distributed.tensor import distribute_tensor
from torch.distributed.tensor.placement_types import Shard

import _common as c

rank = c.init(2)
m = c.mesh([2])
glob = torch.arange(96, dtype=torch.float32).reshape(3, 4, 8)
out = distribute_tensor(glob, m, [Shard(1)]).flatten(0, 1).view(2, 48)
got = out.to_local()
want = c.expected_local(glob.reshape(2, 48), m, list(out.placements))
ok = got.shape == want.shape and torch.equal(got, want)
c.report(rank, ok, ": %s gives %s, want %s" % (
    list(out.placements), got.reshape(-1)[:6].tolist(), want.reshape(-1)[:6].tolist()))
