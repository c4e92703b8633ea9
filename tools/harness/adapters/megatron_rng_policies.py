"""megatron_rng_policies.py — rng-policies' megatron-* seeds computed by Megatron-core 0.19.2.

What it is for: an outside peer for the per-rank generator seeds of the megatron-tp,
megatron-dp and megatron-ep policies (lib/offsets/rng_policy.c).  Each rank's Megatron ranks
come from Megatron's own RankGenerator (parallel_state.py) and its seeds from Megatron's own
model_parallel_cuda_manual_seed (tensor_parallel/random.py), run unmodified except for the
CUDA generator it seeds (_megatron_common.py says how):
  - megatron-dp: the default generator's seed (random.py: data_parallel_seed = seed);
  - megatron-tp: the "model-parallel-rng" tracker's (seed + 2718 + tp_rank);
  - megatron-ep: the "expert-parallel-rng" tracker's (seed + 1024 + 100*ep_rank + etp_rank).
How the mesh dims name Megatron's parallel dims is the policy's convention (rng_policy.c and
docs/families/rng-policies.md): the last, fastest mesh dim is tp (etp, as large: Megatron's
default expert_tensor_parallel_size), the dim before it ep for megatron-ep (on a 1-d mesh the
one dim is ep and etp is 1), and the dims before those data parallel; the ranks are laid out
by Megatron's default order "tp-cp-ep-dp-pp", the first token fastest.  Megatron's generators
for that configuration (its decoder and expert RankGenerators, as initialize_model_parallel
builds them) give each global rank its tp, ep and etp rank.

Only "seed" is claimed (FIELDS): the offsets are torch's CUDA kernel's and the verdicts need
draws, neither of which Megatron computes.  Policies other than megatron-* are NotSupported.
A Megatron refusal (its duplicate-seed check) is raised as is; this adapter adds no check of
its own.

How it is tested: tools/harness/tests/test_megatron_peer.py; the test command runs it over
the whole family (`shardcheck families --peers`).
"""

try:
    from . import _megatron_common as mc
except ImportError:  # loaded as a file path
    import _megatron_common as mc  # type: ignore

FAMILY = "rng-policies"
FIELDS = {"seed"}
PEER = "megatron-core " + mc.VERSION

mc.load()   # an adapter whose peer is not installed does not load (run.py says why)

_TRACKER = {"megatron-dp": "default", "megatron-tp": "model-parallel-rng",
            "megatron-ep": "expert-parallel-rng"}


def _prod(v):
    n = 1
    for x in v:
        n *= x
    return n


def configuration(policy, mesh):
    """Megatron's parallel sizes for a mesh under the policy's dim convention:
    (decoder sizes, expert sizes) as RankGenerator keywords."""
    world = _prod(mesh)
    if policy == "megatron-ep":
        etp, ep = (1, mesh[0]) if len(mesh) == 1 else (mesh[-1], mesh[-2])
        tp = etp   # initialize_model_parallel: expert_tensor_parallel_size defaults to tp
    else:
        tp, ep = mesh[-1], 1
        etp = tp
    return ({"tp": tp, "dp": world // tp}, {"tp": etp, "ep": ep, "dp": world // (etp * ep)})


def megatron_ranks(policy, mesh):
    """Per global rank (tp_rank, ep_rank, etp_rank), from Megatron's RankGenerators."""
    dec, exp = configuration(policy, mesh)
    world = _prod(mesh)
    tp_groups = mc.rank_generator(**dec).get_ranks("tp")
    egen = mc.rank_generator(**exp)
    ep_groups, etp_groups = egen.get_ranks("ep"), egen.get_ranks("tp")
    return [(mc.rank_in(tp_groups, r)[1], mc.rank_in(ep_groups, r)[1],
             mc.rank_in(etp_groups, r)[1]) for r in range(world)]


def compute(group, test):
    policy = group.get("policy")
    if policy not in _TRACKER:
        raise NotImplementedError("policy %s is not Megatron's (megatron-tp, -dp, -ep are)"
                                  % policy)
    if group.get("rankMap") not in (None, list(range(_prod(group["mesh"])))):
        raise NotImplementedError("Megatron lays ranks out in order (RankGenerator): "
                                  "no permuted rank map")
    mesh = [int(x) for x in group["mesh"]]
    seed = int(group["seed"])
    out = []
    for tp_rank, ep_rank, etp_rank in megatron_ranks(policy, mesh):
        got = mc.seeds(seed, tp_rank, ep_rank, etp_rank)
        out.append(got[_TRACKER[policy]])
    return {"perRank": {"seed": out}}
