"""strided_target_unpad.py — torch 2.13: `S(1),R -> R,_S(1, 2)` on a 2x2 mesh is planned with one
all-gather (golden redistribute-plan tc 15174, strided.json), but executing it raises
"RuntimeError: Expected cond to be True" in Shard._maybe_unpad_tensor (placement_types.py:
torch._check(orig_size >= logical_dim_size)): the gathered tensor is smaller than the logical
shape the plan gives that all-gather (cause: an earlier R -> _S(1, 2) step chunks the
local tensor, which the greedy planner's logical shapes do not see;
greedy_strided_logical_shape.py).  The planner-only harness never executes plans; found by
the real-process torch
backend (`shardcheck run --backend torch --family redistribute-plan` at 4 ranks).

    torchrun --nproc-per-node 4 docs/findings/strided_target_unpad.py

An 8x8 arange distributed S(1),R, redistributed with DTensor.redistribute to R,_S(1, 2); each
rank's result is compared with torch's own local split of the global tensor.  Exit 1: reproduced.
"""
import traceback

import torch
from torch.distributed.tensor import distribute_tensor
from torch.distributed.tensor.placement_types import Replicate, Shard, _StridedShard

import _common as c

rank = c.init(4)
m = c.mesh([2, 2])
glob = torch.arange(64, dtype=torch.float32).reshape(8, 8)
dst = [Replicate(), _StridedShard(1, split_factor=2)]
try:
    got = distribute_tensor(glob, m, [Shard(1), Replicate()]).redistribute(m, dst).to_local()
    want = c.expected_local(glob, m, dst)
    ok = got.shape == want.shape and torch.equal(got, want)
    what = ": got %s, want %s" % (got.tolist(), want.tolist())
except Exception as e:  # noqa: BLE001 - the finding is the exception
    ok, what = False, ": redistribute raised %s" % (
        traceback.format_exception_only(type(e), e)[-1].strip()[:160])
c.report(rank, ok, what)
