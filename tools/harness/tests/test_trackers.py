"""test_trackers.py — `shardcheck trackers` (lib/offsets/rng_tracker.c) against the frameworks'
own code where this venv has it (issue 33 item 1: a vendor names its tracker and gets the
oracle's answer for it).

  - torch 2.13's row: the class is torch.distributed.tensor._random.OffsetBasedRNGTracker, and
    it is the class DTensor's random ops make (the module's own manual_seed/_dispatch name it);
  - Megatron-core 0.19.2's rows: each bracketed name is a state its CudaRNGStatesTracker gets
    from model_parallel_cuda_manual_seed, and `offsets --tracker ROW` gives each rank the seed
    of that state, with the rank's tp/ep/etp ranks from Megatron's own RankGenerator (the peer
    adapter's machinery, tools/harness/adapters/megatron_rng_policies.py);
  - hyper_parallel's row: seed 000 (its coverage listing of hyper_parallel/core/random.py,
    ../shared/seeds or $SHARDCHECK_SEEDS) defines the class and defaults to device type "npu",
    which the row's profile (an NPU's) says.
torch_npu and veScale are not installed here: their rows cite their sources only.
"""

import glob
import importlib
import json
import os
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))


def shardcheck(*args):
    exe = os.environ.get("SHARDCHECK") or os.path.join(REPO, "_build", "tools", "shardcheck")
    if not os.access(exe, os.X_OK):
        pytest.skip("no built shardcheck at %s (set SHARDCHECK)" % exe)
    p = subprocess.run([exe] + list(args), capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def rows():
    return {t["name"]: t for t in shardcheck("trackers", "--json")["trackers"]}


def test_torch_row_is_torchs_class():
    torch = pytest.importorskip("torch")
    t = rows()["torch.distributed.tensor._random.OffsetBasedRNGTracker"]
    mod = importlib.import_module("torch.distributed.tensor._random")
    cls = mod.OffsetBasedRNGTracker
    assert cls.__module__ + "." + cls.__qualname__ == t["name"]
    assert t["framework"] == "torch " + ".".join(torch.__version__.split(".")[:2])
    # the class DTensor's random ops make when no tracker exists (_dispatch.py)
    src = open(importlib.import_module("torch.distributed.tensor._dispatch").__file__).read()
    assert "OffsetBasedRNGTracker(" in src
    assert t["policy"] == "torch-offset"


def test_megatron_rows_are_its_tracker_states():
    pytest.importorskip("torch")
    import sys
    sys.path.insert(0, os.path.dirname(HERE))
    from adapters import _megatron_common as mc
    try:
        _, rnd = mc.load()
    except ImportError as e:  # pragma: no cover - depends on the venv
        pytest.skip("Megatron-core peer not installed: %s" % e)
    from adapters import megatron_rng_policies as mrp
    meg = {n: t for n, t in rows().items() if n.startswith("megatron.")}
    assert len(meg) == 5
    seed, mesh = 1234, [2, 4]
    for name, t in meg.items():
        cls, state = name[:-1].split("[")
        assert cls == rnd.CudaRNGStatesTracker.__module__ + "." + \
            rnd.CudaRNGStatesTracker.__qualname__
        got = shardcheck("offsets", "--tracker", name, "--mesh", "2x4", "--placements", "R,R",
                         "--shape", "8", "--seed", str(seed), "--json")
        assert got["tracker"]["name"] == name and got["policy"] == t["policy"]
        want = []
        for tp_rank, ep_rank, etp_rank, _, _, gtp, egtp in mrp.megatron_ranks(t["policy"], mesh):
            states = mc.seeds(seed, tp_rank, ep_rank, etp_rank, gtp=gtp, egtp=egtp)
            assert state in states, (state, sorted(states))
            want.append(str(states[state]))
        assert [r["seed"] for r in got["ranks"]] == want, (name, got["ranks"], want)


def test_hyper_parallel_row_is_seed_000s_npu_tracker():
    seeds = os.environ.get("SHARDCHECK_SEEDS") or os.path.join(os.path.dirname(REPO), "shared",
                                                              "seeds")
    files = glob.glob(os.path.join(seeds, "000_*.txt"))
    if not files:
        pytest.skip("seed 000 not at %s (set SHARDCHECK_SEEDS)" % seeds)
    # the listing's spaces are thin and no-break ones: compare without any
    text = "".join(open(files[0], encoding="utf-8").read().split())
    t = rows()["hyper_parallel.core.random.OffsetBasedRNGTracker"]
    assert "hyper_parallel/core/random.py" in text
    assert "classOffsetBasedRNGTracker(_RNGStateTracker)" in text
    assert 'device_type="npu"' in text
    assert t["devices"] == "npu" and t["policy"] == "hyper-parallel"
    prof = shardcheck("policies", "--tracker", t["name"], "--json")
    assert prof["offset_semantics"] == "stream"
