"""rank_divergent_reduce_scatter.py — torch 2.13: the reduce-scatter merge over a flattened mesh
tests each rank's own logical size, so on an uneven tensor ranks of one mesh plan different
collectives and the job hangs (golden redistribute-plan tc 20319, flag RankDivergent).

    torchrun --nproc-per-node 8 docs/findings/rank_divergent_reduce_scatter.py

Mesh 2x2x2 with every dim set flattened; a 9x8 tensor S(0),P(sum),P(sum) -> S(0),S(0),S(0) with the
graph planner.  Each rank prints the collectives torch plans for it (the divergence), then runs
the redistribute for real under a 20 s process-group timeout (a hang would end in gloo's timeout
error) and compares each rank's result with its slice of the global tensor.
On a real gloo run (torch 2.13.0+cpu) the plans differ as golden says — ranks 0-3 run two
reduce-scatters of 2 ranks, ranks 4-7 one merged reduce-scatter of 4 — but the job does not hang:
the two sets of ranks never share a process group, so each set's collectives match.  The script
also checks the data.  Exit 1: reproduced (plans differ, the collective timed out, or wrong data).
"""
import torch
import torch.distributed as dist
from torch.distributed.tensor import _redistribute as R
from torch.distributed.tensor._dtensor_spec import DTensorSpec, TensorMeta
from torch.distributed.tensor._utils import compute_local_shape_and_global_offset
from torch.distributed.tensor.placement_types import Partial, Shard

import _common as c

rank = c.init(8, timeout_s=20)
m = c.mesh([2, 2, 2], flatten=[(0, 1), (0, 2), (1, 2), (0, 1, 2)])
shape = torch.Size([9, 8])
meta = TensorMeta(shape, (8, 1), torch.float32)
src = DTensorSpec(m, (Shard(0), Partial("sum"), Partial("sum")), tensor_meta=meta)
dst = DTensorSpec(m, (Shard(0), Shard(0), Shard(0)), tensor_meta=meta)
infos = R._optimize_transform_infos(R._gen_transform_infos_non_cached(src, dst, True), m,
                                    src.placements, dst.placements)
plan = ["%s%s->%s" % (getattr(i, "original_mesh_dims", [i.mesh_dim]), i.src_dst_placements[0],
                      i.src_dst_placements[1]) for i in infos]
plans = [None] * 8
dist.all_gather_object(plans, plan)
if rank == 0:
    for r, p in enumerate(plans):
        print("rank %d plans %s" % (r, " ; ".join(p)))
diverge = any(p != plans[0] for p in plans)
local_shape, offset = compute_local_shape_and_global_offset(shape, m, src.placements)
# Partial(sum) over mesh dims 1 and 2: the rank at coordinate (., 0, 0) holds the S(0) chunk of
# a 9x8 arange, the others zeros, so the sum is the arange and the result is checkable.
glob = torch.arange(72, dtype=torch.float32).reshape(9, 8)
co = m.get_coordinate()
local = glob[offset[0]:offset[0] + local_shape[0]].clone()
if co[1] or co[2]:
    local.zero_()
ran, got = "ran", None
try:
    got = R.redistribute_local_tensor(local, src, dst, use_graph_based_transform=True)
except Exception as e:  # noqa: BLE001 - gloo's timeout would be the hang
    ran = "raised %s" % str(e).splitlines()[0][:200]
want = c.expected_local(glob, m, list(dst.placements))
data_ok = got is not None and got.shape == want.shape and torch.equal(got, want)
what = ": %s; the redistribute %s; data %s" % (
    "plans differ across ranks" if diverge else "plans agree", ran,
    "right" if data_ok else "WRONG (got %s, want %s)" % (
        None if got is None else got.tolist(), want.tolist()))
c.report(rank, not diverge and data_ok, what)
