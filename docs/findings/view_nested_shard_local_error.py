"""view_nested_shard_local_error.py — torch 2.13: the view rule keeps two mesh dims sharding
one tensor dim where the local data cannot follow, so the local view raises on some ranks
(found by `shardcheck view`, issue 35; verdict local-error):

  A. `[6, 4]` `S(0),S(0)` on a 2x2 mesh, `x.view(24)`: the rule gives `S(0),S(0)` with no
     redistribution.  Rows are split 6 -> 3 -> (2, 1), so ranks hold 8 or 4 elements, but the
     output spec asks each for 24 -> 12 -> 6: the local view of 8 elements into [6] raises.
  B. `[12, 8]` `S(1),S(1)` on a 2x2 mesh, `x.view(12, 2, 4)`: both mesh dims are rewritten to
     the unflatten's first piece, `S(1),S(1)` on a dim of size 2 (local sizes 1 and 0), while
     each rank holds [12, 2]: the local view into [12, 1, 4] or [12, 0, 4] raises.

The correct answer needs a redistribution (A: to even pieces) or another output (B: the second
mesh dim on the second piece); either way every rank's result must be its slice of the view.

    torchrun --nproc-per-node 4 docs/findings/view_nested_shard_local_error.py

Each case views a DTensor of an arange and compares each rank's local result with its slice of
the global view under the placements torch gives.  Exit 1: reproduced.
"""
import traceback

import torch
from torch.distributed.tensor import distribute_tensor
from torch.distributed.tensor.placement_types import Shard

import _common as c

rank = c.init(4)
m = c.mesh([2, 2])
CASES = [((6, 4), (24,)), ((12, 8), (12, 2, 4))]
ok, what = True, ""
for shape, view in CASES:
    glob = torch.arange(float(shape[0] * shape[1])).reshape(shape)
    dim = 0 if view == (24,) else 1
    try:
        out = distribute_tensor(glob, m, [Shard(dim), Shard(dim)]).view(*view)
        got = out.to_local()
        want = c.expected_local(glob.view(*view), m, list(out.placements))
        good = got.shape == want.shape and torch.equal(got, want)
        note = "" if good else " %s: got %s, want %s" % (view, list(got.shape), list(want.shape))
    except Exception as e:  # noqa: BLE001 - the finding is the exception
        good, note = False, " %s raised %s" % (view, traceback.format_exception_only(
            type(e), e)[-1].strip()[:160])
    ok &= good
    what += note
c.report(rank, ok, ":" + what if what else "")
