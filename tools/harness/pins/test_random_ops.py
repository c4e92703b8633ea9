"""test_random_ops.py — probes for conformance/torch_pins/test_random_ops.json.

The rows pin what torch's test/distributed/tensor/test_random_ops.py asserts about DTensor's
RNG: the shard linear index OffsetBasedRNGTracker gives each rank, which ranks draw the same
random values and which draw different ones (the Philox windows torch's tracker computes),
manual_seed's seed per rank and its refusal off the mesh, the tracker's seed synchronisation,
_PhiloxState's seed round trip, and a CPU mesh's untracked draws.

Everything runs torch 2.13's own code in ONE process, on CPU:
- offsets: OffsetBasedRNGTracker._compute_rng_offsets / _calc_shard_info /
  _calc_shard_linear_idx on a DTensorSpec whose DeviceMesh knows one rank's coordinate
  (DeviceMesh(..., _init_backend=False, _rank=r)); the tracker object skips __init__ (it
  demands a CUDA-like device; these methods read no instance state).  Two ranks draw the same
  values exactly when their windows (start offset, local shape) agree: one seed, one Philox
  stream.  Whether the op enters the tracker's region at all is decided by torch's dispatcher,
  run on a fake process group (pins.common.tc.WORLD) with a recording tracker installed.
- manual_seed and the tracker's construction need a CUDA-like device handle: torch's code runs
  unchanged with _random._get_device_handle answering a stand-in handle (available, one
  device, set_rng_state present) and, for the state sync, the tracker's _get/_set_device_state
  reading a per-rank table of 16-byte Philox states (_PhiloxState) and
  torch.distributed.broadcast simulated over that table.  The decisions (create the tracker,
  check the coordinate, broadcast from which rank, which state to keep) are torch's.
Every probe restores _random._rng_tracker and the CPU generator it touched.  No probe reads
shardcheck.
"""

import contextlib
import logging
import math
import warnings
from unittest import mock

from pins import refusal
from pins.common import parse, tc
from torch_rng_offsets import contiguous_stride as _stride  # the harness's one copy


def _torch():
    import torch
    return torch


# ----------------------------------------------------------------------------------- helpers

def _prod(xs):
    return math.prod(xs) if xs else 1


def _rank_mesh(shape, rank, ranks=None, device="cpu"):
    """A DeviceMesh as global rank `rank` sees it (no process group: coordinate only)."""
    torch = _torch()
    from torch.distributed.device_mesh import DeviceMesh
    rm = list(ranks) if ranks is not None else list(range(_prod(shape)))
    t = torch.tensor(rm, dtype=torch.int).view(tuple(shape))
    return DeviceMesh(device, t, _init_backend=False, _rank=rank)


def _spec(mesh, placements, shape):
    torch = _torch()
    from torch.distributed.tensor._dtensor_spec import DTensorSpec, TensorMeta
    meta = TensorMeta(torch.Size(shape), _stride(shape), torch.float32)
    return DTensorSpec(mesh, tuple(placements), tensor_meta=meta)


def _tracker():
    from torch.distributed.tensor._random import OffsetBasedRNGTracker
    return object.__new__(OffsetBasedRNGTracker)


@contextlib.contextmanager
def _keep_rng_state():
    """Restore _random._rng_tracker and the CPU generator afterwards."""
    torch = _torch()
    import torch.distributed.tensor._random as rnd
    saved = rnd._rng_tracker
    try:
        with torch.random.fork_rng(devices=[]):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                yield rnd
    finally:
        rnd._rng_tracker = saved


# ------------------------------------------------------------------- shard linear index

def shard_linear_index(mesh, shape, placements, rank):
    """test_deterministic_uniform_2d's own computation: shard_coord / shard_size from the
    spec's dim_map and the rank's mesh coordinate, then the tracker's _calc_shard_linear_idx."""
    m = _rank_mesh(mesh, rank)
    spec = _spec(m, parse(placements), shape)
    coordinate = m.get_coordinate()
    shard_coord = [coordinate[d] if d >= 0 else 0 for d in spec.dim_map]
    shard_size = [m.size(d) if d >= 0 else 1 for d in spec.dim_map]
    return int(_tracker()._calc_shard_linear_idx(shard_coord, shard_size))


# ------------------------------------------------------------- which ranks draw alike

class _Recording:
    """Builds a recording subclass of torch's tracker lazily (torch imported on demand)."""
    cls = None

    @classmethod
    def make(cls, enabled):
        if cls.cls is None:
            from torch.distributed.tensor._random import OffsetBasedRNGTracker

            class Rec(OffsetBasedRNGTracker):
                @contextlib.contextmanager
                def _distribute_region(self, spec, generator=None):
                    # torch's own region shifts offsets only when enabled (_random.py)
                    if self.distribute_region_enabled:
                        self.calls.append(spec)
                    yield
            cls.cls = Rec
        t = object.__new__(cls.cls)
        t._use_distribute_region = enabled
        t.calls = []
        return t


def _call(op, x, mesh, placements, shape):
    torch = _torch()
    import torch.nn.functional as F
    import torch.distributed.tensor as dt
    calls = {
        "uniform_": lambda: x.uniform_(0, 1),
        "normal_": lambda: x.normal_(),
        "kaiming_uniform_": lambda: torch.nn.init.kaiming_uniform_(x, a=math.sqrt(5)),
        "dropout": lambda: F.dropout(x, p=0.2, training=True),
        "dtensor.rand": lambda: dt.rand(shape, device_mesh=mesh, placements=placements),
        "dtensor.randn": lambda: dt.randn(shape, device_mesh=mesh, placements=placements),
    }
    return calls[op]()


def dispatch(mesh, shape, placements, op, region=True):
    """'tracked' when torch's dispatcher runs `op` on a DTensor of this layout inside the
    tracker's _distribute_region (with distribute_region_enabled = region), else 'untracked'.
    A fake world of the mesh's size, seen from rank 0; a recording tracker is installed."""
    torch = _torch()
    from torch.distributed.device_mesh import DeviceMesh
    from torch.distributed.tensor import DTensor
    from torch.distributed.tensor._utils import compute_local_shape_and_global_offset
    pls = parse(placements)
    n = _prod(mesh)
    tc.WORLD.enter(n, 0)
    m = DeviceMesh("cpu", torch.arange(n).view(tuple(mesh)))
    with _keep_rng_state() as rnd:
        rec = _Recording.make(region)
        rnd._rng_tracker = rec
        local, _ = compute_local_shape_and_global_offset(shape, m, pls)
        x = DTensor.from_local(torch.ones(tuple(local)), m, pls, run_check=False,
                               shape=torch.Size(shape), stride=_stride(shape))
        _call(op, x, m, pls, shape)
    return "tracked" if rec.calls else "untracked"


def draws(mesh, shape, placements, op, sub_dim=None, region=True):
    """Which ranks of the mesh draw the same random values for `op` on this layout.

    Per rank: torch's window (start offset increment, local shape) — _compute_rng_offsets when
    the dispatcher tracks the op, the generator's own offset (0 after a manual_seed, every rank
    alike) when it does not.  One seed everywhere, so equal windows are equal values.  With
    sub_dim the DTensor lives on the 1-d submesh along that dim (TP inside a dp x tp world):
    each rank's window is computed on its own submesh.
    Returns {"dispatch", "distinct": distinct windows among the ranks, "shards": distinct shard
    linear indices, "sameStart": pairs of distinct shards starting at the same offset,
    "start": per-rank start offset (decimal strings)}."""
    from torch.distributed.tensor._random import _calc_shard_info, _calc_shard_linear_idx
    from torch.distributed.tensor._utils import compute_local_shape_and_global_offset
    pls = parse(placements)
    n = _prod(mesh)
    one_d = [mesh[sub_dim]] if sub_dim is not None else list(mesh)
    kind = dispatch(one_d, shape, placements, op, region)
    tr = _tracker()
    windows, lin, start = [], [], []
    for r in range(n):
        if sub_dim is None:
            m = _rank_mesh(mesh, r)
        else:
            full = _rank_mesh(mesh, r)
            coord = full.get_coordinate()
            members = []
            for k in range(mesh[sub_dim]):
                c = list(coord)
                c[sub_dim] = k
                members.append(int(full.mesh[tuple(c)]))
            m = _rank_mesh([mesh[sub_dim]], r, members)
        spec = _spec(m, pls, shape)
        local, _ = compute_local_shape_and_global_offset(shape, m, pls)
        cs = [m._sym_get_coordinate(i) for i in range(m.ndim)]
        idx, tot = _calc_shard_info(cs, spec)
        lin.append(int(_calc_shard_linear_idx(idx, tot)))
        s = int(tr._compute_rng_offsets(spec)[0]) if kind == "tracked" else 0
        start.append(s)
        windows.append((s, tuple(local)))
    firsts = {}
    for r in range(n):
        firsts.setdefault(lin[r], start[r])
    st = list(firsts.values())
    same = sum(1 for i in range(len(st)) for j in range(i + 1, len(st)) if st[i] == st[j])
    return {"dispatch": kind, "distinct": len(set(windows)), "shards": len(firsts),
            "sameStart": same, "start": [str(s) for s in start]}


# --------------------------------------------------- manual_seed and the tracker's set-up

class _Handle:
    """A CUDA-like device handle for torch's checks: available, one device, set_rng_state."""

    def is_available(self):
        return True

    def device_count(self):
        return 1

    def set_rng_state(self, state):  # is_rng_supported_mesh looks for it; states are per rank
        raise AssertionError("the stand-in handle holds no state")

    def get_rng_state(self):
        raise AssertionError("the stand-in handle holds no state")


@contextlib.contextmanager
def _cuda_like(world, rank, states=None, calls=None):
    """torch's _random module seeing a CUDA-like device; broadcast simulated over `states`."""
    torch = _torch()
    import torch.distributed.tensor._random as rnd
    tc.WORLD.enter(world, rank)
    logging.getLogger("torch.distributed.tensor._random").setLevel(logging.ERROR)

    def broadcast(tensor, src, group=None, async_op=False, group_src=None):
        calls.append(("broadcast", src))
        tensor.copy_(states[src])

    with _keep_rng_state():
        rnd._rng_tracker = None
        with mock.patch.object(rnd, "_get_device_handle", lambda device_type: _Handle()), \
                mock.patch.object(torch.distributed, "broadcast", broadcast):
            yield rnd


def _philox(seed, offset=0):
    torch = _torch()
    from torch.distributed.tensor._random import _PhiloxState
    st = _PhiloxState(torch.zeros(16, dtype=torch.uint8))
    st.seed = torch.tensor([seed], dtype=torch.uint64)
    st.offset = torch.tensor([offset], dtype=torch.int64)
    return st.state


def manual_seed(mesh, seed, rank, ranks=None, world=None):
    """torch's DTensor manual_seed(seed, mesh) on a CUDA-like mesh as `rank` sees it, no
    tracker made before: {"outcome": "runs"|"raises", "what" (the exception, if any),
    "seed": the generator's seed after it (decimal), "collectives", "tracker"}."""
    torch = _torch()
    from torch.distributed.tensor.debug import CommDebugMode
    n = world or _prod(mesh)
    calls = []
    with _cuda_like(n, rank, calls=calls) as rnd:
        m = _rank_mesh(mesh, rank, ranks, device="cuda")
        torch.manual_seed(987654321)  # a state manual_seed must replace
        with CommDebugMode() as comm:
            try:
                rnd.manual_seed(seed, m)
                out = {"outcome": "runs"}
            except Exception as e:
                out = {"outcome": "raises", "what": refusal(e)["error"]}
        out["seed"] = str(torch.initial_seed())
        out["collectives"] = comm.get_total_counts() + len(calls)
        out["tracker"] = type(rnd._rng_tracker).__name__ if rnd._rng_tracker else None
    return out


def tracker_sync(mesh, rank, seeds):
    """torch's OffsetBasedRNGTracker(mesh) (run_state_sync=True, as the dispatcher builds it at a
    first random op) as `rank` sees it, every rank q having called torch.manual_seed(seeds[q]):
    {"stateFrom": the rank whose state `rank` ends with, "seed", "collectives"}."""
    torch = _torch()
    from torch.distributed.tensor._random import OffsetBasedRNGTracker, _PhiloxState
    n = _prod(mesh)
    init = {q: _philox(seeds[q]) for q in range(n)}
    table = {q: s.clone() for q, s in init.items()}
    calls = []

    class Sim(OffsetBasedRNGTracker):
        def _get_device_state(self):
            return table[rank].clone()

        def _set_device_state(self, state):
            table[rank] = state.clone()

    with _cuda_like(n, rank, states=init, calls=calls):
        Sim(_rank_mesh(mesh, rank, device="cuda"))
    frm = [q for q in range(n) if torch.equal(table[rank], init[q])]
    return {"stateFrom": frm[0] if len(frm) == 1 else frm,
            "seed": str(int(_PhiloxState(table[rank]).seed.item())), "collectives": len(calls)}


def philox_seed_roundtrip(seed, offset=0):
    """test_philox_state_seed_roundtrip: a seed with the sign bit set read back from
    _PhiloxState and set again: {"seed", "offset", "bytes"} of the resulting state."""
    torch = _torch()
    from torch.distributed.tensor._random import _PhiloxState
    st = _PhiloxState(torch.zeros(16, dtype=torch.uint8, device="cpu"))
    try:
        st.seed = torch.tensor([seed], dtype=torch.uint64)
        st.offset = torch.tensor([offset], dtype=torch.int64)
        st.seed = st.seed.clone()
    except Exception as e:
        return refusal(e)
    return {"seed": str(int(st.seed.item())), "offset": str(int(st.offset.item())),
            "bytes": bytes(st.state.tolist()).hex()}


# ---------------------------------------------------------------- a CPU mesh's first op

def cpu_first_op(world, rank, op):
    """_run_init_op's CPU branch (is_rng_supported_mesh False): on a fake world seen from
    `rank`, the DTensor init op's local values against the same op on a clone after
    torch.manual_seed(rank).  {"outcome", "own_draws", "collectives", "tracker"}."""
    torch = _torch()
    from torch.distributed.device_mesh import DeviceMesh
    from torch.distributed.tensor import DTensor, Shard
    from torch.distributed.tensor.debug import CommDebugMode
    ops = {
        "kaiming_uniform_": lambda t: torch.nn.init.kaiming_uniform_(
            t, a=0, mode="fan_in", nonlinearity="leaky_relu"),
        "normal_": lambda t: torch.nn.init.normal_(t, mean=1.5, std=0.8),
        "uniform_": lambda t: torch.nn.init.uniform_(t, a=0, b=1.2),
        "log_normal_": lambda t: t.log_normal_(),
        "exponential_": lambda t: t.exponential_(),
        "geometric_": lambda t: t.geometric_(p=0.3),
    }
    tc.WORLD.enter(world, rank)
    m = DeviceMesh("cpu", torch.arange(world))
    with _keep_rng_state() as rnd:
        rnd._rng_tracker = None
        if rnd.is_rng_supported_mesh(m):
            return {"error": "AssertionError: the CPU mesh is rng-supported"}
        x = torch.randn(8, 4)
        dtensor = DTensor.from_local(x, m, [Shard(0)])
        clone = torch.clone(x)
        torch.manual_seed(rank)
        clone = ops[op](clone)
        torch.manual_seed(rank)
        with CommDebugMode() as comm:
            try:
                dtensor = ops[op](dtensor)
            except Exception as e:
                return refusal(e)
        own = bool(torch.equal(clone, dtensor.to_local()))
        if not own:  # what the test asserts; a row reading other fields must not pass without it
            return {"error": "AssertionError: the DTensor op's local values are not the "
                             "rank's own generator's draws"}
        return {"outcome": "runs", "own_draws": own, "collectives": comm.get_total_counts(),
                "tracker": type(rnd._rng_tracker).__name__ if rnd._rng_tracker else None}
