"""view_squeeze_local.py — torch 2.11: `squeeze()` on a DTensor runs on each rank's local
tensor, so a rank whose shard is 1 long on a dim loses that dim too and its local result has
another shape than its slice of the global result (found by `shardcheck view --torch-version
2.11`; view-sharding, release row ViewRuleLegacy, verdict wrong-shape):

  `[4, 1, 6]` `S(0)` on 4 ranks, `x.squeeze()`: the rule (on the global shape) drops dim 1
  and keeps `S(0)` of the `[4, 6]` output, so each rank's slice is `[1, 6]`; each rank holds
  `[1, 1, 6]`, and aten.squeeze.default on it gives `[6]`.

torch 2.11.0's dim_squeeze carries a FIXME saying as much (_ops/_view_ops.py:431-440); torch
2.12 rewrites every squeeze to aten.squeeze.dims on the globally size-1 dims
(_sharding_prop.py:1034-1075), so 2.12 on behave (exit 0).

    torchrun --nproc-per-node 4 docs/findings/view_squeeze_local.py

Exit 1: reproduced.
"""
import torch
from torch.distributed.tensor import distribute_tensor
from torch.distributed.tensor.placement_types import Shard

import _common as c

rank = c.init(4)
m = c.mesh([4])
glob = torch.arange(24.0).reshape(4, 1, 6)
out = distribute_tensor(glob, m, [Shard(0)]).squeeze()
got = out.to_local()
want = c.expected_local(glob.squeeze(), m, list(out.placements))
ok = got.shape == want.shape and torch.equal(got, want)
c.report(rank, ok, "" if ok else ": squeeze() gives local %s, the slice of %s is %s"
         % (list(got.shape), list(out.placements), list(want.shape)))
