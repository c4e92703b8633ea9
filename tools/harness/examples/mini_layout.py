"""mini_layout.py — a small independent port of shard-layout, written from
docs/families/shard-layout.md alone: Shard, Replicate and Partial placements over
any mesh and rank map (no _StridedShard, no shard order), localShape and
globalOffset per rank.

What it is for: the failure-groups check (conformance/tests/failure_groups.sh)
plants a classic porting bug in it — uneven splits the numpy.array_split way
(n // k each, the remainder spread over the first ranks) instead of torch.chunk's
(ceil(n / k) each, the last ranks what is left) — and asserts that verify's
output leads with the UnevenShard group, whose note names that bug.
MINI_LAYOUT_ARRAY_SPLIT=1 plants it.
"""

import os

import shardcheck_harness as sh

FAMILY = "shard-layout"
FIELDS = {"localShape", "globalOffset"}


def split(n, k, c, array_split):
    """(size, start) of chunk c of n elements cut into k."""
    if array_split:                      # the planted bug
        base, extra = divmod(n, k)
        return base + (1 if c < extra else 0), c * base + min(c, extra)
    full = -(-n // k)                    # torch.chunk: ceil(n / k) each
    start = full * c
    if start > n:
        return 0, n
    return min(n, start + full) - start, start


def layout(shape, mesh, placements, coord, array_split=False):
    local, offset = list(shape), [0] * len(shape)
    for i, p in enumerate(placements):
        if p.kind in ("R", "P"):
            continue
        if p.kind != "S" or p.split_factor is not None:
            raise NotImplementedError("only Shard, Replicate and Partial are ported")
        d = p.dim + len(shape) if p.dim < 0 else p.dim
        if not 0 <= d < len(shape):
            raise ValueError("shard dim %d out of range" % p.dim)
        size, start = split(local[d], mesh[i], coord[i], array_split)
        local[d] = size
        # an empty shard's offset is the global dim size (docs: torch's zero_global_offset)
        offset[d] = shape[d] if size == 0 else offset[d] + start
    return local, [str(o) for o in offset]


def compute(group, test):
    mesh = sh.parse_mesh(sh.field(group, test, "mesh"))
    shape = sh.parse_shape(sh.field(group, test, "shape"))
    placements, order = sh.parse_placements(sh.field(group, test, "placements"))
    if order is not None:
        raise NotImplementedError("shard order is not ported")
    if len(placements) != len(mesh):
        raise ValueError("%d placements for a %d-d mesh" % (len(placements), len(mesh)))
    if any(s < 0 for s in shape):
        raise ValueError("negative size")
    bug = os.environ.get("MINI_LAYOUT_ARRAY_SPLIT") == "1"
    shapes, offsets = [], []
    for coord in sh.coordinates(mesh, sh.rank_map(group, test)):   # by global rank
        s, o = layout(shape, mesh, placements, coord, bug)
        shapes.append(s)
        offsets.append(o)
    return {"perRank": {"localShape": shapes, "globalOffset": offsets}}
