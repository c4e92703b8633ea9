"""_torch_common.py — shared helpers for the torch adapters (every release 2.11-2.15).

What it is for: turning golden inputs (mesh "2x2", rank maps, placement strings
"S(0),_S(0, 2),P(sum)" or the trace form "S(0)[1]S(0)[0]R", shapes) into torch
objects, and a fake-process-group world that is re-created only when the
(world size, rank) changes.  Placement strings are parsed here, then checked
against torch's own str() of the placement it built, so a parse that torch
would print differently is an error rather than a silent disagreement.

How it is tested: tools/harness/tests/test_torch_common.py, and through every
golden case the torch adapters recompute.
"""

import re

import torch
import torch.distributed as dist

from shardcheck_harness import notation
from torch.distributed.tensor.placement_types import (Partial, Replicate, Shard,
                                                      _StridedShard)

TORCH_VERSION = torch.__version__.split("+")[0]

try:  # torch >= 2.12 (placement_types.py)
    from torch.distributed.tensor.placement_types import _is_shard_like as is_shard_like
except ImportError:  # torch 2.11: _StridedShard is no Shard subclass there either
    def is_shard_like(p):
        return isinstance(p, (Shard, _StridedShard))

# P(op): any reduce-op string, as torch's Partial takes (placement_types.py, 2.13)
_TOKEN = re.compile(r"\s*(_S\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)|S\(\s*(-?\d+)\s*\)|"
                    r"P\(\s*([^()\[\]'\"]+?)\s*\)|R)\s*")
_TRACE = re.compile(r"(_S\(-?\d+, ?-?\d+\)|S\(-?\d+\)|P\([^()\[\]'\"]+\)|R)(?:\[(\d+)\])?")


# The notation helpers are the public ones vendors use (shardcheck_harness.notation):
# one parser for golden inputs, so the torch adapters and a vendor's read them alike.
field = notation.field


def parse_int_list(v, what):
    """[2, 2], "2x2", "2,2", "13" -> [ints]."""
    return notation._int_list(v, what)


def mesh_inputs(group, test):
    """Mesh shape and rank map ("mesh": [sizes], "rankMap": [ranks] or absent: the arange),
    as every adapter that builds a DeviceMesh from a golden case reads them."""
    shape = parse_int_list(field(group, test, "mesh"), "mesh")
    n = 1
    for x in shape:
        n *= x
    rm = field(group, test, "rankMap", default=None)
    rank_map = list(range(n)) if rm is None else parse_int_list(rm, "rankMap")
    return shape, rank_map


def make_placement(tok):
    """One token -> torch placement; torch's str() must give the token back."""
    m = _TOKEN.fullmatch(tok)
    if not m:
        raise ValueError("unparsable placement %r" % tok)
    if m.group(2) is not None:
        p = _StridedShard(int(m.group(2)), split_factor=int(m.group(3)))
    elif m.group(4) is not None:
        p = Shard(int(m.group(4)))
    elif m.group(5) is not None:
        p = Partial(m.group(5))
    else:
        p = Replicate()
    canon = re.sub(r"\s+", "", tok)
    if re.sub(r"\s+", "", str(p)) != canon:
        raise ValueError("placement %r prints as %r in torch %s" % (tok, str(p), TORCH_VERSION))
    return p


def split_placements(s):
    """Comma-separated placements; commas inside _S(d, sf) do not split."""
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return [t.strip() for t in out]


def parse_placements(v):
    """Placements from a list of strings, a comma string, or the trace form.
    Returns (tuple of torch placements, shard order or None)."""
    if isinstance(v, (list, tuple)):
        return tuple(make_placement(str(t)) for t in v), None
    if not isinstance(v, str):
        raise ValueError("placements must be a string or a list, got %r" % (v,))
    s = v.strip()
    if "[" in s or ("," not in s and _TRACE.fullmatch(s) is None and s):
        toks = _TRACE.findall(s)
        rebuilt = "".join(t + ("[%s]" % o if o else "") for t, o in toks)
        if rebuilt.replace(" ", "") != s.replace(" ", ""):
            raise ValueError("unparsable placements %r" % v)
        order = [int(o) if o else None for _, o in toks]
        return tuple(make_placement(t) for t, _ in toks), order
    if s == "":
        raise ValueError("empty placements")
    return tuple(make_placement(t) for t in split_placements(s)), None


def native(fn, *args, **kwargs):
    """Call one of torch's native (C++) functions, such as torch.empty: whatever it raises is
    torch's rejection.  A C++ error has no Python frame inside torch, so the harness
    (harnesslib.rejection_origin) recognises it by this frame; an adapter's own `raise`
    anywhere else counts as the adapter's check, which an oracle must not have."""
    return fn(*args, **kwargs)


def hsdp_parameter(placements):
    """HSDP's parameter on the meta device, for distribute_tensor to judge the placements
    against the mesh: the family names no parameter shape, so it has one dim of size 1 per
    tensor dim its placements shard (a 1-d tensor would make torch refuse S(1) for a reason
    that is no HSDP's)."""
    import torch
    ndim = 1 + max([p.dim for p in placements if hasattr(p, "dim")] + [0])
    return native(torch.empty, (1,) * ndim, device="meta")


def placements_key(pl):
    return tuple(str(p) for p in pl)


class FakeWorld:
    """One fake process-group world (torch's FakeProcessGroup: no
    communication, but real group bookkeeping).  Re-created only when the
    (world size, rank) pair changes; destroying it drops every group made.
    Every adapter that needs a world enters it here, so no family inherits
    another's: torch 2.15's DeviceMesh checks its size against the default
    group's world size (device_mesh.py, "Mesh should not be bigger than default
    world size"), which earlier releases did not.  `generation` counts the
    worlds made: a cache of meshes or groups keys on it, since a new world
    drops the groups it holds."""

    def __init__(self):
        self.key = None
        self.generation = 0

    def enter(self, world_size, rank):
        if self.key == (world_size, rank) and dist.is_initialized():
            return
        self.close()
        from torch.testing._internal.distributed.fake_pg import FakeStore
        dist.init_process_group(backend="fake", store=FakeStore(), rank=rank,
                                world_size=world_size)
        self.key = (world_size, rank)
        self.generation += 1

    def close(self):
        if dist.is_initialized():
            dist.destroy_process_group()
        self.key = None


WORLD = FakeWorld()


def dim_names(ndim):
    return tuple("d%d" % i for i in range(ndim))


def device_mesh(shape, rank_map, rank):
    """A DeviceMesh over the fake world as seen from `rank`."""
    from torch.distributed.device_mesh import DeviceMesh
    n = 1
    for s in shape:
        n *= s
    # the world is the mesh's (the family's premise: a rank map names ranks 0..n-1), so a
    # rank outside it is torch's to refuse (new_group: "Rank N is out of range")
    WORLD.enter(n, rank)
    # the rank map laid out as the mesh: a map of the wrong length is torch's view to refuse
    mesh = native(torch.tensor(rank_map, dtype=torch.int).view, tuple(shape))
    return DeviceMesh("cpu", mesh, mesh_dim_names=dim_names(len(shape)))


_MESHES = {}


def layout_mesh(shape):
    """A DeviceMesh used only for its sizes (no process group is created)."""
    from torch.distributed.device_mesh import DeviceMesh
    key = tuple(shape)
    m = _MESHES.get(key)
    if m is None:
        n = 1
        for s in shape:
            n *= s
        m = DeviceMesh("cpu", torch.arange(n).view(key), _init_backend=False, _rank=0)
        _MESHES[key] = m
    return m


def _shard_order_entries(placements, order):
    """The torch ShardOrder named by trace-form indices ("S(0)[1]S(0)[0]"): per tensor dim,
    its shard-like mesh dims sorted by their [i] (a missing [i] is a notation error)."""
    from torch.distributed.tensor._dtensor_spec import ShardOrderEntry
    by_dim = {}
    for mesh_dim, p in enumerate(placements):
        if is_shard_like(p):
            by_dim.setdefault(p.dim, []).append(mesh_dim)
    entries = []
    for tdim in sorted(by_dim):
        dims = by_dim[tdim]
        if len(dims) > 1:
            if any(order[m] is None for m in dims):
                raise ValueError("shard order: every mesh dim sharding tensor dim %d needs an "
                                 "[i]" % tdim)
            dims = sorted(dims, key=lambda m: order[m])
        entries.append(ShardOrderEntry(tensor_dim=tdim, mesh_dims=tuple(dims)))
    return tuple(entries)


def _check_printed(placements, order, so):
    """The notation's own rule: torch has no parser for the trace form, so an order is one
    torch can express only if DTensorSpec.format_shard_order_str prints it back identically
    (two mesh dims with the same [i] name no ShardOrder: golden flag NotTorchInput)."""
    from torch.distributed.tensor._dtensor_spec import DTensorSpec
    given = "".join(str(p) + ("[%d]" % o if o is not None else "")
                    for p, o in zip(placements, order))
    printed = DTensorSpec.format_shard_order_str(tuple(placements), so)
    if printed.replace(" ", "") != given.replace(" ", ""):
        raise ValueError("shard order %s is not one torch prints (torch: %s)" % (given, printed))


def shard_order_of(placements, order):
    """The torch ShardOrder named by trace-form indices, accepted only if torch prints it
    back identically (_check_printed).  No validity check of torch's: check_shard_order."""
    so = _shard_order_entries(placements, order)
    _check_printed(placements, order, so)
    return so


def check_shard_order(placements, order, mesh_shape):
    """The torch ShardOrder of a trace-form order, validated by torch itself: a DTensorSpec is
    built with it, so DTensorSpec.__post_init__ (a shard order together with _StridedShard)
    and _verify_shard_order (via __setattr__) raise what torch raises; then the notation's
    printing rule (_check_printed).  No check of the adapters' own."""
    from torch.distributed.tensor._dtensor_spec import DTensorSpec
    so = _shard_order_entries(placements, order)
    DTensorSpec(layout_mesh(mesh_shape), tuple(placements), shard_order=so)
    _check_printed(placements, order, so)
    return so


def shard_order_sequence(placements, order, mesh_shape):
    """Mesh dims in the order their shards are applied: each tensor dim's mesh
    dims in its shard order (redistribute applies one mesh dim at a time, each
    chunking what the previous left); tensor dims are independent, so the
    k-th shard of every tensor dim goes before any (k+1)-th."""
    so = check_shard_order(placements, order, mesh_shape)
    pos = {}
    for entry in so:
        for k, mesh_dim in enumerate(entry.mesh_dims):
            pos[mesh_dim] = k
    return sorted(range(len(placements)), key=lambda m: (pos.get(m, 0), m))


def strided_equivalent(placements, order, mesh_shape):
    """torch's own _StridedShard encoding of a shard order
    (DTensorSpec._convert_shard_order_to_StridedShard, torch 2.13).  Quirk: for
    uneven sizes its layout differs from applying the shards in order."""
    from torch.distributed.tensor._dtensor_spec import DTensorSpec
    so = check_shard_order(placements, order, mesh_shape)
    return DTensorSpec._convert_shard_order_to_StridedShard(so, tuple(placements),
                                                           layout_mesh(mesh_shape))
