"""megatron_group_ranks.py — group-ranks' DeviceMesh groups computed by Megatron's RankGenerator.

What it is for: an outside peer for the process groups of the group-ranks family's
"device_mesh" cases, from Megatron-core 0.19.2's own RankGenerator (parallel_state.py, the
class initialize_model_parallel builds every process group from), loaded as
_megatron_common.py says.  A mesh of k <= 4 dims is Megatron's decoder generator with the
last, fastest mesh dim as tp and the ones before it as cp, dp and pp, in Megatron's default
order "tp-cp-ep-dp-pp" (ep is 1 in the decoder generator, as initialize_model_parallel makes
it); the groups over a set of mesh dims are RankGenerator.get_ranks of their tokens joined by
"-" (e.g. mesh dims (0, 2) of a 4-d mesh: "pp-cp").  Per rank: the index of the group holding
it in Megatron's list ("group") and its position in that group ("localRank").

Claimed fields (FIELDS): groups, group, localRank.  "groupRank", a rank's rank in the c10d
communicator, is torch's (new_group sorts the ranks), not Megatron's: NotSupported.
What Megatron cannot express is NotSupported, with the reason: a rank map other than the
arange (RankGenerator lays ranks out in order, shifted by rank_offset at most), a mesh of
0 ranks (RankGenerator is built by initialize_model_parallel only, from torch.distributed's
world of >= 1 rank; called directly on a size-0 dim it returns no groups, or divides by zero),
the seed's "rank_lists" and "hsdp" ops (hyper_parallel's API, not Megatron's), dims given as a
list that is not an ascending set (Megatron names a group by a set of tokens), meshes of more
than 4 dims.  No check is added: every case it answers, it answers with Megatron's groups.

How it is tested: tools/harness/tests/test_megatron_peer.py; the test command runs it over
the whole family (`shardcheck families --peers`).
"""

try:
    from . import _megatron_common as mc
except ImportError:  # loaded as a file path
    import _megatron_common as mc  # type: ignore

FAMILY = "group-ranks"
FIELDS = {"groups", "group", "localRank"}
PEER = "megatron-core " + mc.VERSION

mc.load()   # an adapter whose peer is not installed does not load (run.py says why)

# mesh dims from the last (fastest) one: Megatron's decoder tokens in its default order
_TOKENS = ("tp", "cp", "dp", "pp")
_groups = {}   # (mesh, axes) -> Megatron's groups


def expressible(group, test):
    """(mesh, axes), or NotImplementedError naming what Megatron cannot express."""
    if test.get("op") != "device_mesh":
        raise NotImplementedError("op %s is seed 002's (hyper_parallel), not Megatron's"
                                  % test.get("op"))
    mesh = [int(x) for x in group["mesh"]]
    if not 1 <= len(mesh) <= len(_TOKENS):
        raise NotImplementedError("a %d-d mesh: Megatron's decoder generator has %d "
                                  "parallel dims" % (len(mesh), len(_TOKENS)))
    world = 1
    for s in mesh:
        world *= s
    if world == 0:
        # RankGenerator is reached through initialize_model_parallel only, whose world is
        # torch.distributed's (>= 1 rank) and which divides it by tp*pp*cp: no size-0 dim
        raise NotImplementedError("a mesh of 0 ranks: no Megatron job has one "
                                  "(initialize_model_parallel's world is torch.distributed's)")
    rm = group.get("rankMap", test.get("rankMap"))
    if rm is not None and list(rm) != list(range(world)):
        raise NotImplementedError("Megatron lays ranks out in order (RankGenerator): no "
                                  "other rank map")
    axes = [int(a) for a in test["axes"]]
    if not axes or axes != sorted(set(axes)) or axes[0] < 0 or axes[-1] >= len(mesh):
        raise NotImplementedError("axes %s: Megatron names a group by a set of its parallel "
                                  "dims" % axes)
    return mesh, axes


def megatron_groups(mesh, axes):
    key = (tuple(mesh), tuple(axes))
    got = _groups.get(key)
    if got is None:
        k = len(mesh)
        sizes = {_TOKENS[k - 1 - d]: mesh[d] for d in range(k)}
        token = "-".join(_TOKENS[k - 1 - a] for a in axes)
        got = _groups[key] = mc.rank_generator(**sizes).get_ranks(token)
    return got


def compute(group, test):
    mesh, axes = expressible(group, test)
    groups = megatron_groups(mesh, axes)
    world = 1
    for s in mesh:
        world *= s
    per = {"group": [], "localRank": []}
    for r in range(world):
        i, pos = mc.rank_in(groups, r)
        per["group"].append(i)
        per["localRank"].append(pos)
    return {"groups": groups, "perRank": per}
