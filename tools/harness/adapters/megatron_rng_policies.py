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

megatron-train-tp / -dp / -ep / -dp-random are the same generators as Megatron-LM's training
entry seeds them (megatron/training/initialize.py _set_random_seed, NVIDIA/Megatron-LM
00c2c0ad, shipped): model_parallel_cuda_manual_seed(seed + 100 * pp_rank [+ 10 * dp_rank with
--data-parallel-random-init]).  That file is Megatron-LM's, not megatron-core's, and imports
the whole training package, so its one line of arithmetic is restated here (cited); the pp and
dp ranks come from Megatron's RankGenerator and the tracker seeds from its random.py, run.
Mesh dim 0 is pp (a 1-d mesh is all pp), the rest follow the policy's core convention; for
-dp-random the rest is data parallel (tp 1).  Megatron-LM's "seed > 0" check is not run
(it is not megatron-core's): the golden family has no seed-0 case.
A group's "tp" (megatron-ep only) is Megatron's decoder tensor-parallel size where it differs
from the expert one (etp != tp): Megatron's decoder generator then uses it.

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
            "megatron-ep": "expert-parallel-rng", "megatron-gtp": "gtp-remat-rng",
            "megatron-egtp": "egtp-remat-rng"}
# Megatron-LM training's policies: the core policy whose generator they read
_TRAINING = {"megatron-train-tp": "megatron-tp", "megatron-train-dp": "megatron-dp",
             "megatron-train-ep": "megatron-ep", "megatron-train-dp-random": "megatron-dp"}


_ORDER = "tp-cp-ep-dp-pp"   # initialize_model_parallel's default order


def _prod(v):
    n = 1
    for x in v:
        n *= x
    return n


def configuration(policy, mesh, tp=None):
    """Megatron's parallel sizes for a mesh under the policy's dim convention:
    (decoder sizes, expert sizes) as RankGenerator keywords.  tp: the decoder tp where it
    differs from etp (a group's "tp")."""
    world = _prod(mesh)
    pp = 1
    if policy in _TRAINING:
        pp, mesh = mesh[0], mesh[1:]
        policy = "dp-random" if policy == "megatron-train-dp-random" else _TRAINING[policy]
    gtp = egtp = 1
    if not mesh or policy == "dp-random":
        etp = dtp = 1
        ep = 1
    elif policy == "megatron-gtp":   # tp the last dim, gtp_remat the one before (or the one)
        etp = dtp = mesh[-1] if len(mesh) > 1 else 1
        gtp, ep = mesh[-2] if len(mesh) > 1 else mesh[-1], 1
    elif policy == "megatron-egtp":  # etp, ep, egtp from the last dim back
        etp = dtp = mesh[-1] if len(mesh) > 2 else 1
        ep = mesh[-2] if len(mesh) > 2 else (mesh[-1] if len(mesh) == 2 else 1)
        egtp = mesh[-3] if len(mesh) > 2 else (mesh[-2] if len(mesh) == 2 else mesh[-1])
    elif policy == "megatron-ep":
        etp, ep = (1, mesh[0]) if len(mesh) == 1 else (mesh[-1], mesh[-2])
        dtp = etp   # initialize_model_parallel: expert_tensor_parallel_size defaults to tp
    else:
        dtp, ep = mesh[-1], 1
        etp = dtp
    if tp is not None:
        dtp = tp
    return ({"tp": dtp, "pp": pp, "dp": world // (dtp * gtp * pp), "gtp_remat": gtp,
             "order": mc.gtp_order(_ORDER, "tp")},
            {"tp": etp, "ep": ep, "pp": pp, "dp": world // (etp * ep * egtp * pp),
             "gtp_remat": egtp, "order": mc.gtp_order(_ORDER, "ep")})


def megatron_ranks(policy, mesh, tp=None):
    """Per global rank (tp_rank, ep_rank, etp_rank, pp_rank, dp_rank, (gtp_rank, gtp size),
    (egtp_rank, egtp size)), from Megatron's RankGenerators."""
    dec, exp = configuration(policy, mesh, tp)
    world = _prod(mesh)
    dgen = mc.rank_generator(**dec)
    tp_groups, pp_groups, dp_groups = dgen.get_ranks("tp"), dgen.get_ranks("pp"), \
        dgen.get_ranks("dp")
    gtp_groups = dgen.get_gtp_ranks(dec["gtp_remat"])
    egen = mc.rank_generator(**exp)
    ep_groups, etp_groups = egen.get_ranks("ep"), egen.get_ranks("tp")
    egtp_groups = egen.get_gtp_ranks(exp["gtp_remat"])
    return [(mc.rank_in(tp_groups, r)[1], mc.rank_in(ep_groups, r)[1],
             mc.rank_in(etp_groups, r)[1], mc.rank_in(pp_groups, r)[1],
             mc.rank_in(dp_groups, r)[1], (mc.rank_in(gtp_groups, r)[1], dec["gtp_remat"]),
             (mc.rank_in(egtp_groups, r)[1], exp["gtp_remat"])) for r in range(world)]


def base_seed(policy, seed, pp_rank, dp_rank):
    """Megatron-LM training/initialize.py _set_random_seed's base seed (restated, cited):
    seed + 100 * pp rank, + 10 * dp rank with --data-parallel-random-init."""
    if policy not in _TRAINING:
        return seed
    seed = seed + 100 * pp_rank
    if policy == "megatron-train-dp-random":
        seed = seed + 10 * dp_rank
    return seed


def compute(group, test):
    policy = group.get("policy")
    if policy not in _TRACKER and policy not in _TRAINING:
        raise NotImplementedError("policy %s is not Megatron's (megatron-tp, -dp, -ep and "
                                  "megatron-train-* are)" % policy)
    if group.get("rankMap") not in (None, list(range(_prod(group["mesh"])))):
        raise NotImplementedError("Megatron lays ranks out in order (RankGenerator): "
                                  "no permuted rank map")
    mesh = [int(x) for x in group["mesh"]]
    seed = int(group["seed"])
    tp = int(group["tp"]) if "tp" in group else None
    tracker = _TRACKER[_TRAINING.get(policy, policy)]
    out = []
    for tp_rank, ep_rank, etp_rank, pp_rank, dp_rank, gtp, egtp in \
            megatron_ranks(policy, mesh, tp):
        got = mc.seeds(base_seed(policy, seed, pp_rank, dp_rank), tp_rank, ep_rank, etp_rank,
                       gtp=gtp, egtp=egtp, draw=None if tracker == "default" else tracker)
        out.append(got[tracker])
    return {"perRank": {"seed": out}}
