"""mini_rng_tracker.py — a small RNG-offset tracker, as a vendor's port would be.

What it is for: the worked example of a *partial* port (tools/harness/README.md,
"A partial port").  It is our own pure-Python reading of torch 2.13's
OffsetBasedRNGTracker offset arithmetic (torch/distributed/tensor/_random.py:
_compute_rng_offsets, _calc_first_shard_size, _calc_shard_info,
_calc_shard_linear_idx), written without torch, for Shard, Replicate and
Partial placements.  It does not port _StridedShard (NotImplementedError: the
harness counts those cases as skipped), and it computes neither the local
element count nor the window audit, which its adapter leaves NotSupported.

How it is tested: tools/harness/tests/test_partial.py runs its adapter
(rng_offsets_partial.py) over the whole rng-offsets corpus and expects
0 failures, the _StridedShard cases skipped and local_numel/findings NotSupported.
"""

import math


def ceil4(n):
    # CUDA Philox offsets advance in multiples of 4 (torch 2.13 _random.py cites
    # aten/src/ATen/cuda/CUDAGeneratorImpl.cpp).
    return (n + 3) // 4 * 4


def first_shard_size(shape, mesh, placements):
    """torch 2.13 _calc_first_shard_size: rank 0's shard on every sharded dim,
    each split from the *global* dim size, so when several mesh dims shard one
    tensor dim the last one wins (a quirk this port reproduces on purpose)."""
    size = list(shape)
    for i, p in enumerate(placements):
        if p.kind == "_S":
            # torch calls _StridedShard's own _local_shard_size_and_offset here,
            # whose first shard differs from Shard's; not ported.
            raise NotImplementedError("_StridedShard is not ported by mini_rng_tracker")
        if p.kind == "S":
            g = shape[p.dim]
            size[p.dim] = min(g, -(-g // mesh[i]))   # Shard's chunk 0 (torch.chunk sizes)
    return size


def shard_linear_index(shape, mesh, placements, coord):
    """torch 2.13 _calc_shard_info + _calc_shard_linear_idx for one mesh coordinate."""
    dims = [[] for _ in shape]
    for i, p in enumerate(placements):
        if p.is_shard:
            dims[p.dim].append(i)
    lin, stride = 0, 1
    for mesh_dims in reversed(dims):
        idx, total = 0, 1
        for d in mesh_dims:                       # mesh-dim order: a shard order is ignored
            idx = idx * mesh[d] + coord[d]
            total *= mesh[d]
        lin += idx * stride
        stride *= total
    return lin


def offsets(shape, mesh, placements, coord):
    """(start_incr, end_incr, first_shard_numel, shard_linear_index) of one rank."""
    if len(placements) != len(mesh):
        raise ValueError("%d placements for a %d-d mesh" % (len(placements), len(mesh)))
    for p in placements:
        if p.is_shard and not 0 <= p.dim < len(shape):
            raise IndexError("shard dim %d of a %d-d tensor" % (p.dim, len(shape)))
    first = math.prod(first_shard_size(shape, mesh, placements))
    lin = shard_linear_index(shape, mesh, placements, coord)
    return ceil4(lin * first), ceil4(math.prod(shape)), first, lin
