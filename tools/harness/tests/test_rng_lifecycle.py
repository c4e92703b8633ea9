"""test_rng_lifecycle.py — `shardcheck lifecycle` answers what torch does at DTensor's RNG
set-up (issue 34 item 5), where a CPU torch can show it.

On a CPU device mesh (a real gloo world of 4 processes, lifecycle_worker.py), per rank and with
no tracker made before: manual_seed warns and changes nothing, on the mesh or off it; a
rand/randn factory asserts; a first random op draws from the rank's own generator on the mesh
and runs nothing off it.  torch's _PhiloxState is run in-process: its 16 bytes for a seed and
an offset must be the CLI's, both ways.
The CUDA-like answers (manual_seed's (seed, 0) state and its RuntimeError off the mesh, the
tracker's broadcast, the wait a sub-world first op leads to) need a CUDA-like device: no CPU
torch can run them, so they are checked against torch's source only (cli_lifecycle.sh).

Needs a built shardcheck ($SHARDCHECK or _build/tools/shardcheck); skipped otherwise.
"""

import json
import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_input_worker import register, session_answers  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
EXE = os.environ.get("SHARDCHECK") or os.path.join(REPO, "_build", "tools", "shardcheck")
WORLD = 4

pytestmark = pytest.mark.skipif(not os.access(EXE, os.X_OK), reason="no built shardcheck")

CASES = [  # mesh, rank map, seed
    ([2, 2], [0, 1, 2, 3], 7),
    ([2], [1, 3], 7),
    ([1], [2], 18446744073709551615),
]


def _cli(*args):
    p = subprocess.run([EXE, "lifecycle"] + list(args) + ["--json"], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


register("lifecycle_worker.py", [{"mesh": m, "ranks": r, "seed": s} for m, r, s in CASES])


@pytest.fixture(scope="module")
def torch_answers(tmp_path_factory):
    return session_answers("lifecycle_worker.py", tmp_path_factory)


@pytest.mark.parametrize("i", range(len(CASES)))
def test_cpu_mesh(torch_answers, i):
    m, ranks, seed = CASES[i]
    got = _cli("--mesh", "x".join(map(str, m)), "--ranks", ",".join(map(str, ranks)), "--world",
               str(WORLD), "--seed", str(seed), "--device", "cpu")
    assert [x["rank"] for x in got["ranks"]] == list(range(WORLD))
    for rank, (want, mine) in enumerate(zip(torch_answers[i], got["ranks"])):
        assert (mine["coord"] is not None) == want["inMesh"], (rank, mine, want)
        ms, w = mine["manualSeed"], want["manualSeed"]
        torch_did = "raises" if w["raises"] else "runs" if w["moved"] else "noop"
        assert ms["outcome"] == torch_did, (rank, ms, w)
        assert ms["what"].split(": ", 1)[1] in w["warnings"], (rank, ms, w)
        assert not w["tracker"] and ms["collectives"] == 0
        f, wf = mine["factory"], want["factory"]
        assert f["outcome"] == ("raises" if wf["raises"] else "runs"), (rank, f, wf)
        assert f["what"].startswith(wf["raises"]["type"] + ":"), (rank, f, wf)
        fo, wo = mine["firstOp"], want["firstOp"]
        if want["inMesh"]:  # untracked: the rank's own generator's draws
            assert fo["outcome"] == "runs" and wo["own_draws"] and wo["numel"] > 0, (rank, fo, wo)
        else:  # no op on this rank: an empty tensor, the state untouched
            assert fo["outcome"] == "noop" and wo["numel"] == 0 and not wo["moved"], (rank, fo, wo)
        ug, wg = mine["userGenerator"], want["userGenerator"]
        if want["inMesh"]:  # g dropped: the default generator draws and moves, g does not
            assert ug["outcome"] == "runs" and "g never moves" in ug["what"], (rank, ug)
            assert wg["own_draws"] and not wg["user_draws"] and wg["moved"], (rank, wg)
            assert not wg["user_moved"], (rank, wg)
        else:
            assert ug["outcome"] == "noop" and wg["numel"] == 0, (rank, ug, wg)
            assert not wg["moved"] and not wg["user_moved"], (rank, wg)


@pytest.mark.parametrize("i", range(len(CASES)))
def test_offsets_world_off_mesh(torch_answers, i):
    """`offsets --world`: a rank off the mesh draws nothing and keeps its offset; torch's first
    random op there returns an empty tensor and leaves the generator where it was."""
    m, ranks, _ = CASES[i]
    p = subprocess.run([EXE, "offsets", "--mesh", "x".join(map(str, m)), "--ranks",
                        ",".join(map(str, ranks)), "--world", str(WORLD), "--placements",
                        ",".join(["S(0)"] + ["R"] * (len(m) - 1)), "--shape", "8", "--offset",
                        "12", "--json"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    got = json.loads(p.stdout)["ranks"]
    assert [x["rank"] for x in got] == list(range(WORLD))
    for rank, (want, mine) in enumerate(zip(torch_answers[i], got)):
        assert mine["draws"] == want["inMesh"], (rank, mine, want)
        if not want["inMesh"]:
            wo = want["firstOp"]
            assert wo["numel"] == 0 and not wo["moved"], (rank, wo)
            assert mine["start_offset"] == mine["post_offset"] == "12", (rank, mine)


PAIRS = [(0, 0), (7, 0), (2**63 + 5, 12345), (2**64 - 1, 2**63), (1, 2**64 - 1)]


@pytest.mark.parametrize("seed,offset", PAIRS)
def test_philox_state(seed, offset):
    import torch
    from torch.distributed.tensor._random import _PhiloxState
    st = _PhiloxState(torch.zeros(16, dtype=torch.uint8))
    st.seed = torch.tensor([seed], dtype=torch.uint64)
    st.offset = torch.tensor([offset - 2**64 if offset >= 2**63 else offset], dtype=torch.int64)
    want = bytes(st.state.tolist()).hex()
    got = _cli("--philox", "%d,%d" % (seed, offset))
    assert got["bytes"] == want
    assert got["offsetInt64"] == str(int(st.offset.item()))
    back = _cli("--philox-bytes", want)
    assert (back["seed"], back["offset"]) == (str(seed), str(offset))
    assert int(st.seed.item()) % 2**64 == seed
