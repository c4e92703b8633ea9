"""torch_group_ranks.py — the group-ranks family computed by torch 2.13 DeviceMesh.

What it is for: every golden group-ranks case recomputed by a real DeviceMesh on
torch's fake process group, built once per rank of the world (the group a rank
belongs to, and its rank in it, are only visible from that rank):
  - op "device_mesh": the groups over ascending mesh dims "axes" in DeviceMesh
    order (one dim: DeviceMesh._get_all_submeshes; several: the layout of
    mesh[dims]._flatten() remapped over the rank map, as _get_all_submeshes
    does); per rank the index of its group, its coordinate in it
    (get_coordinate) and its rank in the c10d communicator
    (torch.distributed.get_rank(group), c10d sorts the ranks of a group).
    Quirk (torch 2.13 device_mesh.py): DeviceMesh.get_local_rank(dim) returns
    the communicator rank, i.e. golden "groupRank", not the coordinate
    "localRank" -- the two differ on non-arange rank maps;
  - op "rank_lists": seed 002's get_split_rank_lists_for_axes /
    get_rank_list_for_axes.  The lists themselves are flattened DeviceMesh
    groups (torch); the seed's conventions (sorted(set(axes)), [rank] and
    "the whole mesh" for no axes) are re-stated here;
  - op "hsdp": seed 002's HSDP groups (hsdp_param.py _init_group_infos): the
    sharded group is mesh.get_group(shard_dim), the unsharded one the group
    over the Replicate axes minus that dim, both read back from c10d
    (get_process_group_ranks, sorted); the seed's "invalid when size <= 1" and
    rank_size = max(1, shard_size * dp_size) are re-stated here.
hyper_parallel (seed 002) cannot be imported, so the re-stated conventions are
a second reading of the seed, not an independent oracle (README.md).

Invalid inputs are rejected by torch itself where torch rejects them (a rank
out of range: new_group; a duplicated rank: DeviceMesh's coordinate assertion;
an empty world: init_process_group; unordered or repeated dims: mesh slicing).

How it is tested: `python tools/harness/run.py --family group-ranks` must
report 0 mismatches over every golden case; tests/test_torch_adapters.py.
"""

import torch.distributed as dist

try:
    from . import _torch_common as tc
except ImportError:  # loaded as a file path
    import _torch_common as tc  # type: ignore

FAMILY = "group-ranks"
# an oracle: every rejection must be torch's own (harnesslib.invalid_outcome)
ORACLE = "torch"

_views = {}   # (shape, rank_map) -> MeshView
_hsdp_checked = {}  # (shape, rank_map) -> placements distribute_tensor accepted on that mesh


class MeshView:
    """What torch says about one (mesh shape, rank map), for every rank of the
    world, a few axes sets at a time.  Each pass costs one DeviceMesh per rank, and each
    set a submesh per rank: a pass fills the sets prepare() announced for the mesh (the
    tests about to be asked), or, when none was, every set of the mesh (issue 36: filling
    every set for a sample that asks one cost the torch 2.15 sample 195 s)."""

    def __init__(self, shape, rank_map):
        self.shape, self.rank_map = tuple(shape), tuple(rank_map)
        self.world = 1
        for s in shape:
            self.world *= s
        self.names = tc.dim_names(len(shape))
        self.axes = {}    # axes tuple -> facts (see _compute)
        self.wanted = set()  # well-formed axes sets prepare() announced, not yet computed

    def well_formed(self, axes):
        """Axes torch accepts on this mesh, so that one pass can fill several: a set torch
        refuses is asked alone, and its error is its own test's."""
        nd = len(self.shape)
        return bool(axes) and all(0 <= a < nd for a in axes) and list(axes) == sorted(set(axes))

    def want(self, axes):
        axes = tuple(axes)
        if axes not in self.axes and self.well_formed(axes):
            self.wanted.add(axes)

    def groups(self, axes):
        axes = tuple(axes)
        got = self.axes.get(axes)
        if got is None:
            nd = len(self.shape)
            if not self.well_formed(axes):
                want = [axes]
            elif self.wanted:
                want = sorted(self.wanted | {axes})
            elif nd <= 4:
                want = [tuple(a for a in range(nd) if bits >> a & 1)
                        for bits in range(1, 1 << nd)]
            else:
                want = [axes]
            self._compute([a for a in want if a not in self.axes])
            self.wanted.difference_update(want)
            got = self.axes[axes]
        return got

    def _compute(self, sets):
        res = {a: {"all": None, "mesh": {}, "sorted": {}, "local": {}, "crank": {}}
               for a in sets}
        outside = []
        # every rank of the world builds the mesh, as every process of a job would, and
        # torch refuses what it refuses on any of them (a duplicated rank raises on the
        # rank it names only); a world of no ranks is init_process_group's to refuse
        for r in range(max(self.world, 1)):
            m = tc.device_mesh(self.shape, list(self.rank_map), r)
            if m.get_coordinate() is None:
                outside.append(r)
                continue
            for axes in sets:
                self._one(m, axes, r, res[axes])
        if outside:  # torch built every rank's mesh: no view of a rank it leaves out
            raise NotImplementedError("torch accepts this mesh, but ranks %s are not in it: "
                                      "no group view for them" % outside)
        self.axes.update(res)

    def _one(self, m, axes, r, out):
        # dims are looked up by torch (get_group, mesh_dim_names), never by our own tables
        if len(axes) == 1:
            pg = m.get_group(axes[0])
            name = "d%d" % axes[0]
            sub = m[name]
            local = m.get_coordinate()[axes[0]]
            if out["all"] is None:
                out["all"] = [s.mesh.tolist() for s in m._get_all_submeshes(name)]
        else:
            # torch: dims must be ascending and distinct (KeyError / RuntimeError)
            sub = m[tuple("d%d" % a for a in axes)]._flatten()
            pg = sub.get_group()
            local = sub.get_coordinate()[0]
            if out["all"] is None:
                # a flattened mesh's layout has one axis: its groups over the rank map
                out["all"] = sub._layout.remap_to_tensor(m._rank_map).tolist()
        out["mesh"][r] = [int(x) for x in sub.mesh.flatten().tolist()]
        out["sorted"][r] = list(dist.get_process_group_ranks(pg))
        out["local"][r] = int(local)
        out["crank"][r] = dist.get_rank(pg)


def view(shape, rank_map):
    key = (tuple(shape), tuple(rank_map))
    v = _views.get(key)
    if v is None:
        if len(_views) > 256:
            _views.clear()
        v = _views[key] = MeshView(shape, rank_map)
    return v


def device_mesh_case(v, axes):
    g = v.groups(axes)
    index = {tuple(grp): i for i, grp in enumerate(g["all"])}
    per = {"group": [], "localRank": [], "groupRank": []}
    for r in range(v.world):
        per["group"].append(index[tuple(g["mesh"][r])])
        per["localRank"].append(g["local"][r])
        per["groupRank"].append(g["crank"][r])
    return {"groups": g["all"], "perRank": per}


def seed_axes(v, axes):
    """Seed 002 normalises axes as sorted(set(axes)).  An axis outside the mesh is left to
    torch's DeviceMesh to refuse (the seed itself ignores it: golden flag StricterThanSeed)."""
    return tuple(sorted(set(axes)))


def rank_lists_case(v, axes):
    axes = seed_axes(v, axes)
    if axes:
        g = v.groups(axes)
        split, mine = g["all"], [g["mesh"][r] for r in range(v.world)]
    else:
        # seed conventions: one list of the whole mesh; [rank] for the rank list
        split, mine = [list(v.rank_map)], [[r] for r in range(v.world)]
    # golden compact form: the index of the equal split list, else the list
    index = {tuple(s): i for i, s in reversed(list(enumerate(split)))}
    lists = [index.get(tuple(l), l) for l in mine]
    return {"split": split, "perRank": {"rankList": lists}}


def hsdp_case(v, placements, shard_dim):
    """HSDP's parameter is a DTensor of these placements on the mesh: torch's
    distribute_tensor refuses placements that do not fit it; the shard dim is torch's
    get_group's to refuse (-1: none, the seed's convention)."""
    from torch.distributed.tensor import distribute_tensor
    key = tc.placements_key(placements)
    if key not in _hsdp_checked.setdefault((v.shape, v.rank_map), set()):
        m = tc.device_mesh(v.shape, list(v.rank_map), v.rank_map[0] if v.rank_map else 0)
        distribute_tensor(tc.hsdp_parameter(placements), m, placements, src_data_rank=None)
        _hsdp_checked[(v.shape, v.rank_map)].add(key)  # torch accepted: the same answer again
    shard_axes, axes = hsdp_axes(placements, shard_dim)
    per = {k: [] for k in ("sharded", "unsharded", "shardSize", "dpSize", "rankSize")}
    for r in range(v.world):
        sharded = v.groups(shard_axes)["sorted"][r] if shard_axes else []
        unsharded = v.groups(axes)["sorted"][r] if axes else []
        shard_size = len(sharded) if len(sharded) > 1 else 1
        dp_size = len(unsharded) if len(unsharded) > 1 else 1
        per["sharded"].append(sharded if shard_size > 1 else "invalid")
        per["unsharded"].append(unsharded if dp_size > 1 else "invalid")
        per["shardSize"].append(shard_size)
        per["dpSize"].append(dp_size)
        per["rankSize"].append(max(1, shard_size * dp_size))
    return {"perRank": per}


def hsdp_axes(placements, shard_dim):
    """The axes sets HSDP's two groups are read from: the shard dim's, and the Replicate
    dims' but that one (either may be empty: no group)."""
    rep = tuple(a for a, p in enumerate(placements) if p.is_replicate() and a != shard_dim)
    return [(shard_dim,) if shard_dim >= 0 else (), rep]


def prepare(group, tests):
    """harnesslib's hint: the tests of a group about to be asked.  Each mesh's view learns
    the axes sets they name, so that its next pass fills them all and no other."""
    for test in tests:
        try:
            v = view(*tc.mesh_inputs(group, test))
            op = test.get("op")
            if op == "device_mesh":
                v.want([int(a) for a in test["axes"]])
            elif op == "rank_lists":
                v.want(seed_axes(v, [int(a) for a in test["axes"]]))
            elif op == "hsdp":
                placements, _ = tc.parse_placements(test["placements"])
                for axes in hsdp_axes(placements, int(test["shardDim"])):
                    v.want(axes)
        except Exception:  # noqa: BLE001 -- a malformed test: compute reports it
            continue


def compute(group, test):
    shape, rank_map = tc.mesh_inputs(group, test)
    v = view(shape, rank_map)
    op = test.get("op")
    if op == "device_mesh":
        return device_mesh_case(v, [int(a) for a in test["axes"]])
    if op == "rank_lists":
        return rank_lists_case(v, [int(a) for a in test["axes"]])
    if op == "hsdp":
        placements, _ = tc.parse_placements(test["placements"])
        return hsdp_case(v, placements, int(test["shardDim"]))
    raise ValueError("unknown op %r" % (op,))
