"""torch_rng_policies.py — rng-policies' torch-offset windows computed by torch's own tracker.

What it is for: an outside peer for the torch-offset policy (lib/offsets/rng_policy.c: torch's
OffsetBasedRNGTracker, one seed, each shard's window at its shard's offset).  For each rank of
the world, torch's own code gives (through the rng-offsets family's adapter,
torch_rng_offsets.py, which says how a tracker runs without a CUDA device):
  - shard_linear_index: _calc_shard_info + _calc_shard_linear_idx on a DeviceMesh that
    computes the rank's coordinate itself from the rank map;
  - start_offset: the offset the op starts at, OffsetBasedRNGTracker._compute_rng_offsets's
    start increment (the tracker's offset starts at 0: manual_seed resets it);
  - post_offset: the offset after the op, its end increment (the global numel, rounded up to 4).
The increments do not read the dtype (torch 2.13 _random.py _compute_rng_offsets: element
counts, not Philox words), so the float64 rows of dtypes.json are asked as they are.  A device
profile does not enter either: torch_npu's registered tracker keeps OffsetBasedRNGTracker's
offsets (the NPU rows of npu-ascend-910b.json); what a profile changes is what the offsets mean
(a window of one stream, or a stream each), which is the verdicts'.

Not claimed (FIELDS): "seed" (the group's seed on every rank: torch's manual_seed; on a CPU
torch's generator is no Philox state to read it back from) and the verdicts "holds" (they need
draws from torch's CUDA kernels).  Every other policy is NotSupported.

How it is tested: tools/harness/tests/test_torch_policy_peer.py; the test command runs it over
the whole family (`shardcheck families --peers`).
"""

try:
    from . import _torch_common as tc
    from . import torch_rng_offsets as ro
except ImportError:  # loaded as a file path
    import _torch_common as tc  # type: ignore
    import torch_rng_offsets as ro  # type: ignore

import torch

FAMILY = "rng-policies"
FIELDS = {"start_offset", "post_offset", "shard_linear_index"}
PEER = "torch " + torch.__version__.split("+")[0]


def compute(group, test):
    if group.get("policy") != "torch-offset":
        raise NotImplementedError("policy %s is not torch's OffsetBasedRNGTracker "
                                  "(torch-offset is)" % group.get("policy"))
    mesh_shape, rank_map = tc.mesh_inputs(group, test)
    gshape = tc.parse_int_list(test["shape"], "shape")
    placements, order = tc.parse_placements(test["placements"])
    start, post, lin = [], [], []
    for r in range(len(rank_map)):  # the golden lists ranks 0..N-1 of the world
        mesh = ro.rank_mesh(mesh_shape, rank_map, r)
        s, e, _ = ro.tracker_offsets(mesh, placements, order, gshape)
        start.append(str(s))
        post.append(str(e))
        lin.append(ro.shard_linear_index(mesh, placements, gshape))
    return {"perRank": {"start_offset": start, "post_offset": post, "shard_linear_index": lin}}
