"""partial_avg_integer_gloo.py — torch 2.13 on gloo: redistributing an integer DTensor from
Partial(avg) raises "result type Float can't be cast to the desired output type Int": gloo has no
AVG reduction, so the functional all_reduce sums and then divides in place, and an integer tensor
cannot hold the float quotient.  torch's LocalTensor simulation (what the harness uses) returns a
result, and golden redistribute-data tc 743 (int32) and 765 (int64), `P(avg),P(avg) -> R,R` on
2x2, hold that result; a real gloo run refuses.  Found by the real-process torch backend
(`shardcheck run --backend torch --family redistribute-data` at 4 ranks).

    torchrun --nproc-per-node 4 docs/findings/partial_avg_integer_gloo.py

Exit 1: reproduced (the redistribute raised on gloo).
"""
import traceback

import torch
from torch.distributed.tensor import DTensor
from torch.distributed.tensor.placement_types import Partial, Replicate

import _common as c

rank = c.init(4)
m = c.mesh([2, 2])
local = torch.full((5, 3), 4, dtype=torch.int32)
dt = DTensor.from_local(local, m, [Partial("avg"), Partial("avg")])
try:
    got = dt.redistribute(m, [Replicate(), Replicate()]).to_local()
    ok, what = True, ": got %s" % got[0].tolist()
except Exception as e:  # noqa: BLE001 - the finding is the exception
    ok, what = False, ": redistribute raised %s" % (
        traceback.format_exception_only(type(e), e)[-1].strip()[:160])
c.report(rank, ok, what)
