"""_megatron_common.py — Megatron-core 0.19.2's own code, loaded for the harness's peer adapters.

What it is for: the megatron_* adapters check our golden answers with NVIDIA Megatron-core's
own source, not with a re-statement of it: random.py's model_parallel_cuda_manual_seed (the
tp / dp / expert seeds, its duplicate-seed refusal) and parallel_state.py's RankGenerator.

How Megatron gets here: megatron-core 0.19.2 requires Python >= 3.12 and its wheel is cp312
(one compiled helper, megatron/core/datasets/helpers_cpp, which these two files never load),
while the harness venv is Python 3.11.  tools/harness/setup_venv.sh therefore installs the
pinned wheel (sha256 in tools/harness/peers.txt) with pip's ordinary client as sources only:
`pip install --target VENV/peers/megatron-core-0.19.2 --python-version 3.12
--only-binary=:all: --no-deps --ignore-requires-python --require-hashes`.  It is never put on
sys.path as a package: importing `megatron.core` runs its __init__, which imports the whole
library (triton, transformer_engine, apex).  Instead `load()` registers empty parent packages
(megatron, megatron.core, megatron.core.tensor_parallel, megatron.core.inference) whose
__path__ is the installed tree, so exactly parallel_state.py, tensor_parallel/random.py and
the small modules they import (megatron/core/utils.py, tensor_parallel/utils.py, ...) load,
unmodified, on a CPU-only torch.  $SHARDCHECK_MEGATRON names another install directory.

The one thing replaced is CUDA: model_parallel_cuda_manual_seed seeds CUDA generators.
`seeds()` runs it with torch.cuda.manual_seed / get_rng_state and random.py's
_set_cuda_rng_state / _get_cuda_rng_state standing in for one CUDA generator whose state is
its seed (and, for the GTP weight-remat states, random.py's four getters of this rank's GTP
rank and world size answering the given ones, as parallel_state's groups would), and with
Megatron's own CudaRNGStatesTracker (whose add() keeps its duplicate-seed and duplicate-name
checks); it then reads back the seed each generator was left with.

How it is tested: tools/harness/tests/test_megatron_peer.py (loads the peer, runs both
adapters over the golden families, and mutates a golden seed and group to show they fail).
"""

import contextlib

try:
    from ._peer_sources import Peer
except ImportError:  # loaded as a file path
    from _peer_sources import Peer  # type: ignore

VERSION = "0.19.2"
_PEER = Peer("Megatron-core", "megatron-core", VERSION, "megatron_core", "SHARDCHECK_MEGATRON",
             ("megatron", "megatron.core", "megatron.core.tensor_parallel",
              "megatron.core.inference"))


def install_dir():
    """Where setup_venv.sh installs the pinned Megatron-core ($SHARDCHECK_MEGATRON wins)."""
    return _PEER.install_dir()


def installed_version(root):
    """The version its dist-info records, or None."""
    return _PEER.installed_version(root)


def load():
    """(parallel_state, random) modules of the pinned Megatron-core; ImportError naming the
    install step when it is not there."""
    return _PEER.load("megatron.core.parallel_state", "megatron.core.tensor_parallel.random")


class _OneCudaGenerator:
    """Stands in for the CUDA generator: its state is the seed it was last given."""

    def __init__(self):
        self.state = None

    def manual_seed(self, seed):
        self.state = int(seed)

    def get_rng_state(self, *a, **k):
        return self.state

    def set_rng_state(self, state, *a, **k):
        self.state = state


@contextlib.contextmanager
def _cuda_stand_in(rnd, gen):
    import torch
    saved = (torch.cuda.manual_seed, torch.cuda.get_rng_state, rnd._set_cuda_rng_state,
             rnd._get_cuda_rng_state)
    torch.cuda.manual_seed, torch.cuda.get_rng_state = gen.manual_seed, gen.get_rng_state
    rnd._set_cuda_rng_state, rnd._get_cuda_rng_state = gen.set_rng_state, gen.get_rng_state
    try:
        yield
    finally:
        (torch.cuda.manual_seed, torch.cuda.get_rng_state, rnd._set_cuda_rng_state,
         rnd._get_cuda_rng_state) = saved


@contextlib.contextmanager
def _gtp_axes(rnd, gtp, egtp):
    """random.py reads the GTP weight-remat rank and world size of this rank from
    parallel_state's process groups (which initialize_model_parallel would have made): the
    four getters it imported answer the (rank, world size) given instead."""
    names = ("get_gtp_weight_remat_rank", "get_gtp_weight_remat_world_size",
             "get_expert_gtp_weight_remat_rank", "get_expert_gtp_weight_remat_world_size")
    saved = tuple(getattr(rnd, n) for n in names)
    for n, v in zip(names, (gtp[0], gtp[1], egtp[0], egtp[1])):
        setattr(rnd, n, lambda _v=v: _v)
    try:
        yield
    finally:
        for n, f in zip(names, saved):
            setattr(rnd, n, f)


def seeds(seed, tp_rank, ep_rank, etp_rank, gtp=(0, 1), egtp=(0, 1), draw=None):
    """Megatron's model_parallel_cuda_manual_seed(seed, tp_rank=, ep_rank=, etp_rank=) run as
    is: {"default": the default generator's seed (data parallel), tracker name: seed} for
    every generator its CudaRNGStatesTracker added.  gtp and egtp: this rank's (rank, world
    size) on the GTP weight-remat axes (world size 1: off, as without GTP).  draw: a tracker
    state to fork then, as a random op under it would (Megatron's own fork refuses a state
    it never added).  Its refusals (a seed added twice, a state not added) propagate."""
    _, rnd = load()
    gen = _OneCudaGenerator()
    with _cuda_stand_in(rnd, gen), _gtp_axes(rnd, gtp, egtp):
        rnd.model_parallel_cuda_manual_seed(int(seed), tp_rank=tp_rank, ep_rank=ep_rank,
                                            etp_rank=etp_rank, force_reset_rng=True)
        tracker = rnd.get_cuda_rng_tracker()
        if type(tracker) is not rnd.CudaRNGStatesTracker:
            raise RuntimeError("Megatron made a %s tracker, not its CudaRNGStatesTracker"
                               % type(tracker).__name__)
        out = {"default": gen.state}
        out.update(tracker.get_states())
        if draw is not None:
            with tracker.fork(draw):
                pass
    return out


def gtp_order(order, after):
    """Megatron's own _inject_gtp_remat_axis (parallel_state.py): the order with gtp_remat
    right after `after` (tp for the decoder ranks, ep for the expert ranks)."""
    ps, _ = load()
    return ps._inject_gtp_remat_axis(order, after=after)


def rank_generator(**sizes):
    """Megatron's RankGenerator(tp, ep, dp, pp, cp, order, gtp_remat) (parallel_state.py);
    sizes not given are 1, the order is initialize_model_parallel's default unless given."""
    ps, _ = load()
    kw = {k: 1 for k in ("tp", "ep", "dp", "pp", "cp")}
    kw["order"] = "tp-cp-ep-dp-pp"
    kw.update(sizes)
    return ps.RankGenerator(**kw)


def rank_in(groups, rank):
    """(index of the group holding rank, its position in that group)."""
    for i, g in enumerate(groups):
        if rank in g:
            return i, g.index(rank)
    raise ValueError("rank %d is in no group Megatron made: %s" % (rank, groups))
