"""_vescale_common.py — veScale 0.0.1's own RNG tracker, loaded for the harness's peer adapter.

What it is for: adapters/vescale_rng_policies.py checks the single-device-equal policy
(lib/offsets/rng_policy.c) with ByteDance veScale's own ThreadBasedRNGTracker
(vescale/dtensor/random.py), not with a re-statement of it: the Philox offset and the sharding
spec the tracker hands the CUDA generator before a random op on a DTensor, and the offset it
leaves after it.

How veScale gets here: tools/harness/setup_venv.sh installs the pinned wheel (PyPI vescale
0.0.1, py3-none-any, sha256 in tools/harness/peers.txt) as sources under
VENV/peers/vescale-0.0.1.  It is never imported as the package `vescale`: that __init__
imports the whole library (grpc, optree, its checkpointing).  `load()` registers empty parent
packages (vescale, vescale.dtensor) whose __path__ is the installed tree, so exactly
dtensor/random.py and the modules it imports (device_mesh.py, placement_types.py, _utils.py,
...) load, unmodified, on a CPU-only torch.  $SHARDCHECK_VESCALE names another directory.

What is replaced, and only that: the GPU and the process group.
  - The CUDA device: random.py asks `_get_device_handle("cuda")` for the device module and
    torch.cuda for the device's properties (its multiprocessor count and threads per
    multiprocessor size the launch grid, which sets the offset step).  `tracker()` runs
    ThreadBasedRNGTracker.__init__ with a stand-in device whose properties are the profile's
    and whose RNG state is a byte tensor, as CUDA's is (seed, offset, then veScale's sharding
    spec, int64 each).
  - The process group: OffsetBasedRNGTracker.__init__ broadcasts rank 0's state; each rank
    here is one tracker, all seeded alike, so the broadcast is left out (a no-op).  The mesh
    is a stand-in with the rank's coordinate (veScale's DeviceMesh needs a live world group);
    veScale's own DTensorSpec, placements and compute_local_shape_and_global_offset run on it.
`region()` then runs the tracker's own _distribute_region around an empty op and returns what
the device was given inside it and the offset after it.

How it is tested: tools/harness/tests/test_vescale_peer.py (loads the peer, runs the adapter
over the golden family, and changes a golden offset and a device geometry to show it fails).
"""

import contextlib

try:
    from ._peer_sources import Peer
except ImportError:  # loaded as a file path
    from _peer_sources import Peer  # type: ignore

VERSION = "0.0.1"
_PEER = Peer("veScale", "vescale", VERSION, "vescale", "SHARDCHECK_VESCALE",
             ("vescale", "vescale.dtensor"))


def install_dir():
    """Where setup_venv.sh installs the pinned veScale ($SHARDCHECK_VESCALE wins)."""
    return _PEER.install_dir()


def installed_version(root):
    """The version its dist-info records, or None."""
    return _PEER.installed_version(root)


def load():
    """(random, placement_types) modules of the pinned veScale; ImportError naming the install
    step when it is not there."""
    return _PEER.load("vescale.dtensor.random", "vescale.dtensor.placement_types")


class _Props:
    def __init__(self, sm_count, threads_per_sm):
        self.multi_processor_count = sm_count
        self.max_threads_per_multi_processor = threads_per_sm


class _Device:
    """Stands in for torch.cuda as veScale's tracker uses it: one device, whose RNG state is
    the byte tensor last set (what a CUDA generator would be handed)."""

    def __init__(self, sm_count, threads_per_sm):
        import torch
        self.props = _Props(sm_count, threads_per_sm)
        self.state = torch.zeros(16, dtype=torch.uint8)   # seed 0, offset 0
        self.given = []   # every state set_rng_state received

    def is_available(self):
        return True

    def current_device(self):
        return 0

    def get_device_properties(self, _device=None):
        return self.props

    def get_rng_state(self, _device=None):
        return _OnDevice(self.state.clone())

    def set_rng_state(self, state, _device=None):
        if isinstance(state, _OnDevice):
            state = state.tensor
        self.state = state.clone()
        self.given.append(self.state)


class _OnDevice:
    """A state tensor "on the GPU": .to("cuda") keeps it there, .to("cpu") gives the tensor
    (the tracker's __init__ moves rank 0's state to the device to broadcast it, then back)."""

    def __init__(self, tensor):
        self.tensor = tensor

    def to(self, device, *a, **k):
        return self.tensor.clone() if str(device) == "cpu" else self


class _NoGroup:
    """torch.distributed as random.py's tracker __init__ uses it: the broadcast of rank 0's
    state, with every rank's tracker seeded alike here."""

    def __getattr__(self, name):
        import torch.distributed as dist
        return getattr(dist, name)

    @staticmethod
    def broadcast(tensor, src, *a, **k):
        return None


@contextlib.contextmanager
def _stand_in(rnd, dev):
    import torch
    saved = (rnd._get_device_handle, rnd.dist, torch.cuda.get_device_properties,
             torch.cuda.current_device, torch.cuda.get_rng_state, torch.cuda.set_rng_state,
             torch.cuda.device_count)
    rnd._get_device_handle = lambda device_type="cuda": dev
    rnd.dist = _NoGroup()
    torch.cuda.get_device_properties = dev.get_device_properties
    torch.cuda.current_device = dev.current_device
    # torch.random.fork_rng saves and restores the devices' states through torch.cuda
    torch.cuda.get_rng_state, torch.cuda.set_rng_state = dev.get_rng_state, dev.set_rng_state
    torch.cuda.device_count = lambda: 1
    try:
        yield
    finally:
        (rnd._get_device_handle, rnd.dist, torch.cuda.get_device_properties,
         torch.cuda.current_device, torch.cuda.get_rng_state, torch.cuda.set_rng_state,
         torch.cuda.device_count) = saved


class Mesh:
    """Stands in for veScale's DeviceMesh on one rank: the rank map and this rank's coordinate
    (None when the rank holds no part of the mesh)."""

    device_type = "cuda"

    def __init__(self, shape, rank):
        import torch
        n = 1
        for s in shape:
            n *= s
        self.mesh = torch.arange(n, dtype=torch.int).view(tuple(shape))
        coord = (self.mesh == rank).nonzero().tolist()
        self._coordinate = coord[0] if coord else None

    def get_coordinate(self):
        return self._coordinate

    def size(self, dim=None):
        return self.mesh.numel() if dim is None else self.mesh.size(dim)

    @property
    def ndim(self):
        return self.mesh.ndim


def region(sm_count, threads_per_sm, seed, spec_of_rank, rank):
    """One random op on a DTensor, on one rank, through veScale's ThreadBasedRNGTracker:
    (state the device was handed inside _distribute_region as (seed, offset, sharding spec),
    the tracker's offset after it).  spec_of_rank(rank, placement_types) builds veScale's
    DTensorSpec.  The tracker is new and seeded (veScale's manual_seed on every rank)."""
    import torch
    rnd, pt = load()
    dev = _Device(sm_count, threads_per_sm)
    with _stand_in(rnd, dev):
        tracker = rnd.ThreadBasedRNGTracker("cuda")
        tracker._manual_seed(int(seed))
        spec = spec_of_rank(rank, pt)
        with tracker._distribute_region(spec):
            inside = dev.state.clone()
        after = tracker.get_offset("parallel-rng")
    words = inside.view(torch.int64).tolist()
    return {"seed": words[0], "offset": words[1], "sharding_spec": words[2:]}, after
