"""strided_unpad_stall.py — torch 2.13: when the unpad check of greedy_strided_logical_shape.py
fails on some ranks only, the others do not get an error: they wait.  `S(1),_S(0, 4),S(0) ->
_S(1, 2),R,_S(1, 2)` on a 2x2x2 mesh (a [4, 6, 5] tensor; redistribute-plan tc 15959).

Every rank runs the same three steps (mesh dim 2, then 1, then 0).  Ranks 2, 3, 6 and 7 hold no
rows of tensor dim 0, so step 0's gather (S(0) -> _S(1, 2) over mesh dim 2) returns 0 rows where
the step's logical shape says 4 and Shard._maybe_unpad_tensor raises "Expected cond to be True"
(placement_types.py, torch._check(orig_size >= logical_dim_size)).  Ranks 0, 1, 4 and 5 pass
step 0 and enter step 1's all-gather over mesh dim 1, whose other member (rank 2 for rank 0)
has already left: they wait out the process group's timeout (30 minutes by default).  The gather
runs before the check, so a rank that raises has taken part in its own step's collective and in
no later one; where ranks raise at different steps, or a rank that raises and one that passes
send different sizes to the same gather, the job hangs or gloo aborts (redistribute-plan tc
16057 on 2x1x2 aborts with SIGABRT).  `shardcheck audit plan` names the waiting rank
(finding ExecStall) and the golden case carries the flag ExecStalls; the torch backend's Timeout
or Crash on such a case is waived by that flag (waivers/torch.json).

    torchrun --nproc-per-node 8 docs/findings/strided_unpad_stall.py

A rank still inside redistribute after 60 s says so and exits; a rank that raised prints its
error and stays up until then (were it to exit, the waiting ranks would see its connection close
instead of waiting).  Exit 1: reproduced (some ranks raised the unpad check while the others were
still waiting in a collective); 0: every rank finished.
"""
import os
import threading
import time
import traceback

import torch
from torch.distributed.tensor import DTensor
from torch.distributed.tensor.placement_types import Replicate, Shard, _StridedShard

import _common as c

WAIT_S = 60
rank = c.init(8, timeout_s=600)  # longer than WAIT_S: the waiting ranks must not time out first
m = c.mesh([2, 2, 2])
glob = torch.arange(120, dtype=torch.float32).reshape(4, 6, 5)
src = [Shard(1), _StridedShard(0, split_factor=4), Shard(0)]
dst = [_StridedShard(1, split_factor=2), Replicate(), _StridedShard(1, split_factor=2)]
local = c.expected_local(glob, m, src)
c.dist.barrier()
deadline = time.monotonic() + WAIT_S


def still_waiting():
    print("rank %d (%d rows of dim 0): still waiting in a collective after %d s: REPRODUCED"
          % (rank, local.shape[0], WAIT_S), flush=True)
    os._exit(1)


timer = threading.Timer(WAIT_S, still_waiting)
timer.start()
try:
    d = DTensor.from_local(local, m, src, shape=glob.shape, stride=glob.stride(),
                           run_check=False)
    got = d.redistribute(m, dst).to_local()
except Exception as e:  # noqa: BLE001 - the finding is the exception
    timer.cancel()
    text = traceback.format_exception_only(type(e), e)[-1].strip()
    if "Expected cond to be True" not in text:
        raise  # torch refused the input before the finding's step (2.11: the _S does not decode)
    print("rank %d (%d rows of dim 0): redistribute raised %s" % (rank, local.shape[0],
                                                                text[:100]), flush=True)
    time.sleep(max(0.0, deadline - time.monotonic()) + 5)  # stay up: the others are waiting
    os._exit(1)
timer.cancel()
c.report(rank, True, "")  # every rank finished: torch behaved
