"""vescale_rng_policies.py — rng-policies' single-device-equal offsets computed by veScale 0.0.1.

What it is for: an outside peer for the single-device-equal policy (lib/offsets/rng_policy.c:
each element drawn as one GPU of the profile would draw it), which is veScale's
ThreadBasedRNGTracker (vescale/dtensor/random.py, `shardcheck trackers`).  For each rank the
tracker's own _distribute_region runs around the op (_vescale_common.py says what stands in
for the GPU and the process group), and the state it hands the device is read back:
  - seed: the generator's seed word (veScale's manual_seed: the same on every rank);
  - start_offset: the offset word the device gets for the op (veScale keeps the global
    offset and passes the rank's sharding spec instead of moving the offset per shard);
  - post_offset: the tracker's offset after the op (_set_post_op_offset: the offset step of
    the whole tensor's launch on one GPU, from the profile's multiprocessors and threads).
shard_linear_index and the verdicts are not claimed (FIELDS): veScale computes neither (the
verdicts need draws from its patched CUDA kernels).

The device profile's geometry: a group's gpu "SMSxTHREADS" is read as written; a named profile
is looked up in _PROFILES, NVIDIA's published figures (not shardcheck's table): A100, 108 SMs
of 2,048 threads (NVIDIA A100 Tensor Core GPU Architecture whitepaper, table 3; veScale's own
comment in ThreadBasedRNGTracker.__init__ gives the same two numbers).  Other names, a
"@sm_XY" or a ":window"/":stream"/"/ALIGN" suffix (semantics veScale has no notion of) and
placements veScale lacks (`_S`: veScale has no _StridedShard) are NotSupported, and so is a
layout its Shard refuses (a rank's size on the sharded dim below the mesh dim's size, its
assertion "Size to be sharded on dim D must be at least as large as the number of devices",
where torch gives that rank an empty shard: tcIds 155 and 170).  A rank map
other than arange is NotSupported too (the stand-in mesh is veScale's arange layout).

A float64 group (golden/rng-policies/dtypes.json) is NotSupported, naming the finding: veScale's
_set_post_op_offset steps by float32's kernel (its self.unroll = 4) whatever the tensor's dtype,
where torch's float64 kernel takes two values per Philox block (DistributionTemplates.h,
curand_uniform2_double), so its post offset is not one GPU's (docs/findings/vescale/
float64_post_offset.py; test_vescale_peer.py asserts the disagreement case by case).  The half
types draw as float32 does, and are checked.

How it is tested: tools/harness/tests/test_vescale_peer.py; the test command runs it over the
whole family (`shardcheck families --peers`).
"""

import re

try:
    from . import _vescale_common as vc
    from ._torch_common import split_placements
except ImportError:  # loaded as a file path
    import _vescale_common as vc  # type: ignore
    from _torch_common import split_placements  # type: ignore

FAMILY = "rng-policies"
FIELDS = {"seed", "start_offset", "post_offset"}
PEER = "vescale " + vc.VERSION

vc.load()   # an adapter whose peer is not installed does not load (run.py says why)

_PROFILES = {"a100": (108, 2048)}
_GEOMETRY = re.compile(r"([1-9][0-9]*)x([1-9][0-9]*)")


def geometry(gpu):
    """(multiprocessors, threads per multiprocessor) of a group's gpu."""
    if gpu in _PROFILES:
        return _PROFILES[gpu]
    m = _GEOMETRY.fullmatch(gpu or "")
    if not m:
        raise NotImplementedError("device profile %r: veScale's tracker reads a CUDA device's "
                                  "multiprocessor count and threads per multiprocessor; no "
                                  "published figures for it here" % (gpu,))
    return int(m.group(1)), int(m.group(2))


def placements(text, pt):
    """veScale placements for a golden placements string."""
    out = []
    for tok in split_placements(text):
        m = re.fullmatch(r"S\((-?[0-9]+)\)", tok)
        if m:
            out.append(pt.Shard(int(m.group(1))))
        elif tok == "R":
            out.append(pt.Replicate())
        elif tok == "P(sum)":
            out.append(pt.Partial())
        else:
            raise NotImplementedError("placement %s: veScale has no such placement" % tok)
    return tuple(out)


def _prod(v):
    n = 1
    for x in v:
        n *= x
    return n


FLOAT64_FINDING = ("dtype float64: veScale 0.0.1 steps its offset by float32's kernel (unroll 4) "
                   "for every dtype, where torch's float64 kernel takes 2 values per Philox "
                   "block: a veScale defect (docs/findings/vescale/float64_post_offset.py)")


def compute(group, test):
    if group.get("policy") == "single-device-equal" and group.get("dtype") == "float64":
        raise NotImplementedError(FLOAT64_FINDING)
    return answer(group, test)


def answer(group, test):
    """veScale's own answer, whatever the dtype (compute() declines float64: the finding)."""
    if group.get("policy") != "single-device-equal":
        raise NotImplementedError("policy %s is not veScale's (single-device-equal is its "
                                  "ThreadBasedRNGTracker)" % group.get("policy"))
    mesh = [int(x) for x in group["mesh"]]
    if group.get("rankMap") not in (None, list(range(_prod(mesh)))):
        raise NotImplementedError("the stand-in mesh is veScale's arange layout: no rank map")
    sms, threads = geometry(group.get("gpu"))
    import torch
    _, pt = vc.load()
    pl = placements(test["placements"], pt)
    shape = torch.Size(int(x) for x in test["shape"])
    stride = torch.empty(shape, device="meta").stride()

    dtype = getattr(torch, group.get("dtype", "float32"))  # veScale's tracker never reads it

    def spec(rank, pt):
        return pt.DTensorSpec(vc.Mesh(mesh, rank), pl,
                              tensor_meta=pt.TensorMeta(shape, stride, dtype))

    out = {"seed": [], "start_offset": [], "post_offset": []}
    for rank in range(_prod(mesh)):
        try:
            given, after = vc.region(sms, threads, group["seed"], spec, rank)
        except AssertionError as e:
            if not str(e).startswith("Size to be sharded"):
                raise
            # veScale cannot lay the tensor out (Shard._local_shard_size_on_dim), where torch
            # gives the rank an empty shard: a layout it lacks, as _S is, not an answer
            raise NotImplementedError("veScale refuses the layout on rank %d: %s"
                                      % (rank, e)) from None
        out["seed"].append(str(given["seed"]))
        out["start_offset"].append(str(given["offset"]))
        out["post_offset"].append(str(after))
    return {"perRank": out}
