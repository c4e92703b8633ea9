"""plan_quirks.py — demonstrates, with torch 2.13 itself, the planner quirks
`shardcheck audit plan` reports (run: .venv/bin/python tools/harness/plan_quirks.py).

1. MergedUnevenAllGather: with a flattened mesh, _optimize_transform_infos
   merges the all-gathers of S(0),S(0) -> R,R without an evenness check; on a
   5-row tensor over a 2x2 mesh the nested shards hold 2,1,1,1 rows but the
   flattened gather unpads as torch.chunk(5, 4) = 2,2,1,0, so the replicated
   result is wrong on every rank (LocalTensorMode shows it).
2. RankDivergentPlan: the reduce-scatter merge checks divisibility of the
   rank's own logical size, so on a 2x2x2 mesh with a 9-row tensor ranks 0-3
   run two reduce-scatters and ranks 4-7 one flattened reduce-scatter.
Prints "QUIRK ... reproduced" lines; exit 0 when both reproduce.
"""
import os
import sys

import torch
import torch.distributed as dist
from torch.testing._internal.distributed.fake_pg import FakeStore

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def merged_uneven_all_gather():
    from torch.distributed._local_tensor import LocalTensorMode
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import distribute_tensor, Shard, Replicate
    with LocalTensorMode(4):
        mesh = init_device_mesh("cpu", (2, 2), mesh_dim_names=("a", "b"))
        mesh["a", "b"]._flatten()
        x = torch.arange(20.).reshape(5, 4)
        r = distribute_tensor(x, mesh, [Shard(0), Shard(0)]).redistribute(
            mesh, [Replicate(), Replicate()])
        per = r.to_local()._local_tensors
        wrong = [k for k in sorted(per) if not torch.equal(per[k], x)]
        print("QUIRK MergedUnevenAllGather %s: ranks %s hold rows %s, expected %s" % (
            "reproduced" if wrong else "NOT reproduced", wrong,
            per[0][:, 0].tolist(), x[:, 0].tolist()))
        return bool(wrong)


def rank_divergent_plan():
    from adapters import torch_redistribute_plan as A
    out = A.compute({"mesh": [2, 2, 2], "planner": "graph", "dtype": "float32",
                     "devicesPerHost": 8, "flattened": [[1, 2]]},
                    {"src": "S(0),P(sum),P(sum)", "dst": "S(0),S(0),S(0)", "shape": [9, 8]})
    n = len(out["plans"])
    print("QUIRK RankDivergentPlan %s: %d distinct plans, per rank %s" % (
        "reproduced" if n > 1 else "NOT reproduced", n, out["perRank"]["plan"]))
    return n > 1


if __name__ == "__main__":
    import logging
    logging.getLogger("torch.distributed.tensor._redistribute").setLevel(logging.ERROR)
    dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=64)
    ok = merged_uneven_all_gather() & rank_divergent_plan()
    sys.exit(0 if ok else 1)
