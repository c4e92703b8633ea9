"""distribute_strided_uneven.py — torch 2.13: distribute_tensor of an uneven _StridedShard fails
with a bare AssertionError (placement_types.py, _StridedShard._shard_tensor: the padded pieces of
its scatter list do not all have one shape), though the layout itself is well defined
(_compute_local_shape_and_global_offset gives it, and src_data_rank=None splits it).  Found by the
real-process torch backend (`shardcheck run --backend torch`, shard-layout tc 26128).

    torchrun --nproc-per-node 2 docs/findings/distribute_strided_uneven.py

Exit 1: reproduced (distribute_tensor raised on some rank).
"""
import traceback

import torch
from torch.distributed.tensor import distribute_tensor
from torch.distributed.tensor.placement_types import _StridedShard

import _common as c

rank = c.init(2)
m = c.mesh([2])
glob = torch.arange(5 * 3).reshape(5, 3)
pl = [_StridedShard(0, split_factor=2)]
try:
    got = distribute_tensor(glob, m, pl).to_local()
    want = c.expected_local(glob, m, pl)
    ok, what = torch.equal(got, want), ": got %s, want %s" % (got.tolist(), want.tolist())
except Exception as e:  # noqa: BLE001 - the finding is the exception
    ok, what = False, ": distribute_tensor raised %s" % (
        traceback.format_exception_only(type(e), e)[-1].strip() or type(e).__name__)
c.report(rank, ok, what)
