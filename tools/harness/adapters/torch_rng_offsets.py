"""torch_rng_offsets.py — the rng-offsets family computed by torch 2.13's own tracker.

What it is for: every golden rng-offsets case is recomputed with the code of
torch/distributed/tensor/_random.py (torch 2.13): for each rank, a DeviceMesh
that knows that rank's coordinate (built without a process group:
_init_backend=False, _rank=r, so DeviceMesh itself computes the coordinate
from the rank map), a DTensorSpec of the case (with its shard order, if any),
and OffsetBasedRNGTracker._compute_rng_offsets — the very method
_set_pre_op_offset / _set_post_op_offset call — on a tracker object whose
__init__ is skipped (it demands a CUDA device; the method reads no instance
state but _calc_shard_linear_idx).  first_shard_numel is torch's
_calc_first_shard_size; local_numel is the rank's local shape from torch's
_compute_local_shape_and_global_offset, obtained through the shard-layout
family's torch adapter (torch_shard_layout.compute, which applies shard
orders as torch does).  Nothing here re-derives the offset
arithmetic.

The findings are recomputed by a small audit written here, independently of
lib/offsets/rng_audit.c, from torch's numbers: a rank's window is
[start_incr, start_incr + local_numel); distinct shards are distinct shard
linear indices; empty windows take part in nothing.

Why not LocalTensor mode: torch 2.13's _LocalOffsetBasedRNGTracker
(torch/distributed/_local_tensor/__init__.py, _set_pre_op_offset) computes each
rank's coordinate as (rank // stride) % size, i.e. as if the mesh were arange,
so on a rank map such as [3, 1, 2, 0] with Shard(0) of 16 elements it gives
rank 0 start 0 where the per-process tracker gives 12.  The per-process path
used here is the one real jobs run.

The op dimension (golden/rng-offsets/ops.json, tests with an "op"): which
ops DTensor tracks is decided by torch's own dispatcher, not re-derived here.
On a fake process group the op is called on a DTensor of the case's layout
with a recording OffsetBasedRNGTracker installed as torch's _rng_tracker
(its _distribute_region only records the spec it is given and yields: on a
CPU mesh torch's dispatcher takes that path for every op of
OpDispatcher._random_ops, torch 2.13 _dispatch.py:384-394).  Tracked: the
region ran (on the input's spec; the offsets then follow as above);
untracked: the op ran without it; rejected: torch raised, and the adapter
raises torch's message (first paragraph; tests/test_torch_adapters.py
compares it with the golden error).  F.dropout on a CPU takes the
bernoulli_ path where CUDA takes native_dropout: both tracked on the same
spec, which is what the cases claim.

How it is tested: `python tools/harness/run.py --family rng-offsets` must
report 0 mismatches.
"""

import contextlib
import warnings

import math

import torch
from torch.distributed.device_mesh import DeviceMesh
from torch.distributed.tensor._dtensor_spec import DTensorSpec, TensorMeta
from torch.distributed.tensor._random import OffsetBasedRNGTracker, _calc_first_shard_size

try:
    from . import _torch_common as tc
    from . import torch_shard_layout as sl
except ImportError:  # loaded as a file path
    import _torch_common as tc  # type: ignore
    import torch_shard_layout as sl  # type: ignore

FAMILY = "rng-offsets"
# an oracle: every rejection must be torch's own (harnesslib.invalid_outcome)
ORACLE = "torch"

# A tracker without __init__: OffsetBasedRNGTracker.__init__ requires a CUDA
# device, which the offset arithmetic does not use.
_TRACKER = object.__new__(OffsetBasedRNGTracker)
_MESHES = {}


def rank_mesh(shape, rank_map, rank):
    """DeviceMesh as global rank `rank` sees it (coordinate computed by torch)."""
    key = (tuple(shape), tuple(rank_map), rank)
    m = _MESHES.get(key)
    if m is None:
        if len(_MESHES) > 20000:
            _MESHES.clear()
        t = torch.tensor(rank_map, dtype=torch.int).view(tuple(shape))
        m = DeviceMesh("cpu", t, _init_backend=False, _rank=rank)
        _MESHES[key] = m
    return m


def contiguous_stride(shape):
    stride, acc = [], 1
    for s in reversed(shape):
        stride.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(stride))


def tracker_offsets(mesh, placements, order, gshape):
    """(start_incr, end_incr, first_shard_numel) from torch's tracker code."""
    meta = TensorMeta(torch.Size(gshape), contiguous_stride(gshape), torch.float32)
    kw = {}
    if order is not None and any(o is not None for o in order):
        kw["shard_order"] = tc.shard_order_of(placements, order)
    spec = DTensorSpec(mesh, tuple(placements), tensor_meta=meta, **kw)
    if hasattr(OffsetBasedRNGTracker, "_compute_rng_offsets"):  # torch >= 2.12
        start, end = OffsetBasedRNGTracker._compute_rng_offsets(_TRACKER, spec)
    else:
        # torch 2.11 computes the same increments inside _set_pre_op_offset /
        # _set_post_op_offset (_random.py:337-364, :382-390): run them on a state
        # whose offset starts at 0 and read the increments back
        import types
        st = types.SimpleNamespace(offset=0)
        OffsetBasedRNGTracker._set_pre_op_offset(_TRACKER, st, spec)
        start = st.offset
        OffsetBasedRNGTracker._set_post_op_offset(_TRACKER, st, spec, 0)
        end = st.offset
    first = math.prod(_calc_first_shard_size(spec))
    return int(start), int(end), int(first)


def shard_linear_index(mesh, placements, gshape):
    """torch's shard linear index: _calc_shard_info + _calc_shard_linear_idx."""
    from torch.distributed.tensor._random import _calc_shard_info, _calc_shard_linear_idx
    meta = TensorMeta(torch.Size(gshape), contiguous_stride(gshape), torch.float32)
    spec = DTensorSpec(mesh, tuple(placements), tensor_meta=meta)
    coord = [mesh._sym_get_coordinate(i) for i in range(mesh.ndim)]
    idx, total = _calc_shard_info(coord, spec)
    return int(_calc_shard_linear_idx(idx, total))


def audit(lin, start, local, end):
    """Independent audit of the windows (see module docstring)."""
    shards = {}
    for r in range(len(lin)):
        shards.setdefault(lin[r], (start[r], start[r] + local[r]))
    wins = sorted((lo, k, hi) for k, (lo, hi) in shards.items() if hi > lo)
    kinds = set()
    for i, (lo, k, hi) in enumerate(wins):
        if hi > end:
            kinds.add("OffsetOverrun")
        for lo2, k2, hi2 in wins[i + 1:]:
            if lo2 >= hi:
                break
            kinds.add("OffsetOverlap")
            if lo2 == lo:
                kinds.add("OffsetSameStart")
    order = ["OffsetSameStart", "OffsetOverrun", "OffsetOverlap"]
    return [k for k in order if k in kinds]


class _RecordingTracker(OffsetBasedRNGTracker):
    """torch's tracker class with a _distribute_region that records its spec."""

    @contextlib.contextmanager
    def _distribute_region(self, spec, generator=None):
        self.calls.append(spec)
        yield


def _recording_tracker():
    t = object.__new__(_RecordingTracker)
    t._use_distribute_region = True
    t.calls = []
    return t


def _call_op(name, x, mesh, placements, gshape):
    """The call an op row models (lib/offsets/rng_ops.c `api`) on DTensor x."""
    import torch.nn.functional as F
    import torch.distributed.tensor as dt
    aten = torch.ops.aten
    calls = {
        "uniform_": lambda: x.uniform_(),
        "normal_": lambda: x.normal_(),
        "normal.Tensor_float": lambda: torch.normal(x, 1.0),
        "normal.float_Tensor": lambda: torch.normal(0.0, x),
        "normal.Tensor_Tensor": lambda: torch.normal(x, x),
        "bernoulli_.float": lambda: x.bernoulli_(0.5),
        "bernoulli_.Tensor": lambda: x.bernoulli_(x),
        "bernoulli": lambda: torch.bernoulli(x),
        "bernoulli.p": lambda: torch.bernoulli(x, 0.5),
        "random_": lambda: x.random_(),
        "random_.from": lambda: x.random_(0, 10),
        "random_.to": lambda: x.random_(10),
        "randint_like": lambda: torch.randint_like(x, 10),
        "randint_like.low_dtype": lambda: torch.randint_like(x, 2, 10),
        "rand_like": lambda: torch.rand_like(x),
        "randn_like": lambda: torch.randn_like(x),
        "exponential_": lambda: x.exponential_(),
        "log_normal_": lambda: x.log_normal_(),
        "geometric_": lambda: x.geometric_(0.5),
        "cauchy_": lambda: x.cauchy_(),
        "multinomial": lambda: torch.multinomial(x, 2, replacement=True),
        "multinomial.noreplace": lambda: torch.multinomial(x, 1, replacement=False),
        "native_dropout": lambda: aten.native_dropout(x, 0.5, True),
        "dropout": lambda: F.dropout(x, 0.5, training=True),
        "dtensor.rand": lambda: dt.rand(gshape, device_mesh=mesh, placements=placements),
        "dtensor.randn": lambda: dt.randn(gshape, device_mesh=mesh, placements=placements),
        "poisson": lambda: torch.poisson(x),
    }
    if name not in calls:
        raise NotImplementedError("op %r has no call in this adapter" % name)
    return calls[name]()


_DISPATCH = {}


def op_dispatch(name, mesh_shape, rank_map, placements, gshape, local_shape):
    """'tracked' or 'untracked' as torch's dispatcher decides on rank 0's view,
    or raise torch's rejection (first paragraph of its message)."""
    import torch.distributed.tensor._random as rnd
    from torch.distributed.tensor import DTensor
    key = (name, tuple(mesh_shape), tuple(rank_map), tc.placements_key(placements),
           tuple(gshape))
    if key in _DISPATCH:
        kind, exc = _DISPATCH[key]
        if kind == "rejected":
            raise exc[0].with_traceback(exc[1])  # torch's own exception, raised where it was
        return kind
    mesh = tc.device_mesh(mesh_shape, rank_map, rank_map[0])
    rec = _recording_tracker()
    saved = rnd._rng_tracker
    rnd._rng_tracker = rec
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            x = DTensor.from_local(torch.ones(tuple(local_shape)), mesh, placements,
                                   run_check=False, shape=torch.Size(gshape),
                                   stride=contiguous_stride(gshape))
            _call_op(name, x, mesh, placements, gshape)
        kind, msg = ("tracked" if rec.calls else "untracked"), None
        if rec.calls and tuple(rec.calls[0].placements) != tuple(placements):
            raise AssertionError("the tracker saw %s, not the input's %s"
                                 % (rec.calls[0].placements, placements))
    except (RuntimeError, NotImplementedError) as e:
        # torch's rejection, kept with its traceback: re-raised as it is, it names the line
        # of torch that raised it (harnesslib.rejection_origin); the message's first
        # paragraph is what the golden error quotes
        kind, msg = "rejected", (e, e.__traceback__)
    finally:
        rnd._rng_tracker = saved
    _DISPATCH[key] = (kind, msg)
    if kind == "rejected":
        raise msg[0].with_traceback(msg[1])
    return kind


def audit_untracked(lin, local):
    """Untracked: every shard draws [0, local) of its own stream."""
    seen = {}
    for r in range(len(lin)):
        if local[r] > 0:
            seen.setdefault(lin[r], r)
    return ["UntrackedOpSharedDraws"] if len(seen) > 1 else []


# random-data groups name torch-cuda-rng kernels; the op rows they model (lib/offsets/rng_ops.c)
_KERNEL_ROW = {"uniform": "uniform_", "normal": "normal_", "random": "random_",
               "bernoulli": "bernoulli_.float", "dropout": "native_dropout",
               "exponential": "exponential_"}


def compute(group, test):
    if "op" in group:
        # torch's dispatcher still decides whether the layout is accepted ...
        mesh_shape, rank_map = tc.mesh_inputs(group, test)
        gshape = tc.parse_int_list(tc.field(group, test, "shape"), "shape")
        placements, _ = tc.parse_placements(tc.field(group, test, "placements"))
        local_shapes = sl.compute(group, test)["perRank"]["localShape"]
        op_dispatch(_KERNEL_ROW[group["op"]], mesh_shape, list(rank_map), placements, gshape,
                    local_shapes[rank_map[0]])
        # ... but the random data needs torch's CUDA kernels (flag GpuOnly)
        raise NotImplementedError("random data needs a CUDA GPU (GpuOnly)")
    out = _compute_offsets(group, test)
    if "op" not in test:
        return out
    mesh_shape, rank_map = tc.mesh_inputs(group, test)
    gshape = tc.parse_int_list(tc.field(group, test, "shape"), "shape")
    placements, _ = tc.parse_placements(tc.field(group, test, "placements"))
    local_shapes = sl.compute(group, test)["perRank"]["localShape"]
    kind = op_dispatch(test["op"], mesh_shape, list(rank_map), placements, gshape,
                       local_shapes[rank_map[0]])
    if kind == "tracked":
        return out
    per = out["perRank"]
    return {"dispatch": "untracked",
            "findings": audit_untracked(per["shard_linear_index"], per["local_numel"]),
            "perRank": {"shard_linear_index": per["shard_linear_index"],
                        "start_incr": [0] * len(per["start_incr"]),
                        "local_numel": per["local_numel"]}}


def _compute_offsets(group, test):
    mesh_shape, rank_map = tc.mesh_inputs(group, test)
    gshape = tc.parse_int_list(tc.field(group, test, "shape"), "shape")
    placements, order = tc.parse_placements(tc.field(group, test, "placements"))
    # local shapes through the shard-layout family's torch adapter (its public contract);
    # it also lets torch refuse the DTensor the random op would run on (distribute_tensor's
    # checks: sl.torch_validate), and nothing here checks anything of its own
    local_shapes = sl.compute(group, test)["perRank"]["localShape"]
    coords = sl.coordinates(mesh_shape, rank_map)
    lin, start, local = [], [], []
    end = first = None
    for r, coord in enumerate(coords):
        if coord is None:
            raise ValueError("rank %d of the world is not in the mesh" % r)
        mesh = rank_mesh(mesh_shape, rank_map, r)
        s, e, f = tracker_offsets(mesh, placements, order, gshape)
        lin.append(shard_linear_index(mesh, placements, gshape))
        start.append(s)
        local.append(math.prod(local_shapes[r]))
        end, first = e, f
    return {
        "end_incr": end,
        "first_shard_numel": first,
        "findings": audit(lin, start, local, end),
        "perRank": {"shard_linear_index": lin, "start_incr": start, "local_numel": local},
    }
