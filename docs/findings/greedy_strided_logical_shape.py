"""greedy_strided_logical_shape.py — torch 2.13: `_S(1, 4),S(1) -> R,R` on a 2x2 mesh (8x8
tensor) is planned, but executing it raises "RuntimeError: Expected cond to be True" in
Shard._maybe_unpad_tensor (placement_types.py: torch._check(orig_size >= logical_dim_size)).

Cause: the _StridedShard cannot be decoded into a shard order (split factor 4 is no product of
the mesh dims after it), so _gen_transform_infos_non_cached falls back to
generate_greedy_transform_infos, whose per-mesh-dim logical shapes narrow only on
`isinstance(src, Shard)` (_redistribute.py, "build the logical shape for each mesh dim"): the
_StridedShard on mesh dim 0 is skipped.  The first step, S(1) -> R on mesh dim 1, is told the
logical size of tensor dim 1 is 8 where the rank's data span 4 of it: the all-gather returns
2 x 2 = 4 columns and the unpad check 4 >= 8 fails.  Any Shard -> Replicate/_StridedShard step
whose logical size divides evenly by the group size n but is not n x the rank's local size
fails so (a larger gather: "narrow unexpectedly changed concrete size").  The issue's
`[_S(1, 16), S(1)] -> [R, R]` on 4x8 (64x64) is the same; so is strided_target_unpad.py, where an
earlier R -> _S(1, 2) step chunks the local tensor that a later S(1) -> R step's logical shape
does not see.  `shardcheck plan` flags such plans ("torch cannot execute this plan",
JSON torchCannotExecute).

    torchrun --nproc-per-node 4 docs/findings/greedy_strided_logical_shape.py

An 8x8 arange laid out _S(1, 4),S(1) (torch's own local split), redistributed with
DTensor.redistribute to R,R; each rank's result is compared with the global tensor.
Exit 1: reproduced.
"""
import traceback

import torch
from torch.distributed.tensor import DTensor
from torch.distributed.tensor.placement_types import Replicate, Shard, _StridedShard

import _common as c

rank = c.init(4)
m = c.mesh([2, 2])
glob = torch.arange(64, dtype=torch.float32).reshape(8, 8)
src = [_StridedShard(1, split_factor=4), Shard(1)]
try:
    local = c.expected_local(glob, m, src)
    d = DTensor.from_local(local, m, src, shape=glob.shape, stride=glob.stride(),
                           run_check=False)
    got = d.redistribute(m, [Replicate(), Replicate()]).to_local()
    ok = got.shape == glob.shape and torch.equal(got, glob)
    what = ": got %s" % (got.tolist(),)
except Exception as e:  # noqa: BLE001 - the finding is the exception
    ok, what = False, ": redistribute raised %s" % (
        traceback.format_exception_only(type(e), e)[-1].strip()[:160])
c.report(rank, ok, what)
