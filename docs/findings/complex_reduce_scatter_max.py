"""complex_reduce_scatter_max.py — torch 2.13 on gloo: a complex DTensor redistributed from
Partial("max") to Shard(0) returns the real parts' maximum beside the imaginary parts' maximum,
a number neither rank holds (max(1+5j, 2+1j) gives 2+5j), while the same tensor redistributed to
Replicate is refused ("all_reduce: reduce_op max does not support complex tensors"): the
functional reduce_scatter checks no complex op, its all_reduce does.  max has no meaning on
complex numbers, so the answer torch should give is that refusal.  Found while measuring what
gloo refuses of each dtype (lib/plan/gloo_dtype.c: `shardcheck plan --dtype complex64` answers
the refusal for R and nothing for S, as torch behaves).

    torchrun --nproc-per-node 2 docs/findings/complex_reduce_scatter_max.py

Exit 1: reproduced (a rank's shard holds a value neither rank's partial value had there).
"""
import traceback

import torch
from torch.distributed.tensor import DTensor
from torch.distributed.tensor.placement_types import Partial, Shard

import _common as c

rank = c.init(2)
m = c.mesh([2])
held = [torch.tensor([1 + 5j, 4 + 0j, 1 + 5j, 4 + 0j]),
        torch.tensor([2 + 1j, 3 + 9j, 2 + 1j, 3 + 9j])]
dt = DTensor.from_local(held[rank].to(torch.complex64), m, [Partial("max")])
try:
    got = dt.redistribute(m, [Shard(0)]).to_local()
    got = got.wait() if hasattr(got, "wait") else got
    mine = [held[r][2 * rank:2 * rank + 2].tolist() for r in range(2)]
    ok = all(any(g == h[i] for h in mine) for i, g in enumerate(got.tolist()))
    what = ": got %s, the ranks held %s" % (got.tolist(), mine)
except Exception as e:  # noqa: BLE001 - a refusal, as the all_reduce gives, is the behaviour
    ok, what = True, ": refused: %s" % traceback.format_exception_only(type(e), e)[-1].strip()
c.report(rank, ok, what)
