"""test_subworld.py — `shardcheck layout`, `groups` and `plan` with --world answer what torch
does with a DeviceMesh smaller than the world (issue 34 item 3).

torch 2.13 lets a DeviceMesh name any distinct ranks of the world; the others are
"non-participating ranks" (device_mesh.py _is_current_rank_part_of_mesh): no coordinate, no
process group of the mesh, an empty local tensor (shape (0,), offset ()).  Each case runs in
a real gloo world of 4 CPU processes (subworld_worker.py: real new_group calls,
compute_local_shape_and_global_offset, distribute_tensor and a redistribute's collectives on
every rank) and goes to the built CLI; every rank's answers must be equal, and torch's refusals (a rank outside the
world, a mesh bigger than the world) must be the CLI's, by type and message.

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

CASES = [  # mesh, rank map, global shape, placements (worker form)[, redistribute target]
    ([2], [1, 3], [8], [["S", 0]], [["R"]]),
    ([2], [2, 0], [7, 3], [["S", 0]], [["S", 1]]),
    ([3], [0, 1, 2], [4, 5], [["S", 1]], [["R"]]),
    ([3], [3, 0, 2], [5], [["S", 0]]),
    ([1], [3], [4], [["R"]], [["S", 0]]),
    ([1, 2], [3, 2], [6, 5], [["S", 0], ["S", 1]], [["R"], ["R"]]),
    ([2, 1], [0, 3], [5, 2], [["S", 1], ["S", 0]], [["S", 0], ["R"]]),
    ([4], [3, 1, 0, 2], [9], [["S", 0]], [["R"]]),  # the whole world, out of order
    ([2], [1, 4], [8], [["S", 0]]),  # a rank outside the world
    ([2, 3], [0, 1, 2, 3, 4, 5], [8], [["S", 0], ["R"]]),  # bigger than the world
    ([2], [1, 1], [8], [["S", 0]]),  # a duplicate rank
]


def _text(pl):
    return ",".join("S(%d)" % p[1] if p[0] == "S" else "R" for p in pl)


def _args(case):
    m, ranks, shape, pl = case[:4]
    return ["--mesh", "x".join(map(str, m)), "--ranks", ",".join(map(str, ranks)),
            "--world", str(WORLD)], shape, pl


def _cli(cmd, *args):
    p = subprocess.run([EXE, cmd] + list(args) + ["--json"], capture_output=True, text=True,
                       timeout=60)
    if p.returncode == 0:
        return json.loads(p.stdout)
    assert p.returncode == 2, p.stderr
    return {"error": p.stderr.strip()}


register("subworld_worker.py", [{"mesh": c[0], "ranks": c[1], "shape": c[2], "placements": c[3],
                                 "dst": c[4] if len(c) > 4 else None} for c in CASES])


@pytest.fixture(scope="module")
def torch_answers(tmp_path_factory):
    return session_answers("subworld_worker.py", tmp_path_factory)


@pytest.mark.parametrize("i", range(len(CASES)))
def test_layout(torch_answers, i):
    mesh_args, shape, pl = _args(CASES[i])
    per_rank = torch_answers[i]
    got = _cli("layout", *mesh_args, "--placements", _text(pl), "--shape",
               ",".join(map(str, shape)))
    if "raises" in per_rank[0]:
        r = per_rank[0]["raises"]
        assert all(a == per_rank[0] for a in per_rank), per_rank
        if "duplicate" in r["message"] or "rank_coords" in r["message"]:
            assert "duplicate rank" in got["error"], got
        else:
            assert "(torch: %s: %s)" % (r["type"], r["message"]) in got["error"], (got, r)
        return
    assert got["world"] == WORLD
    assert [x["rank"] for x in got["ranks"]] == list(range(WORLD))
    for rank, (want, mine) in enumerate(zip(per_rank, got["ranks"])):
        assert want["distributed"] == want["localShape"], want  # torch agrees with itself
        assert mine["coord"] == want["coord"], (rank, mine, want)
        assert mine["localShape"] == want["localShape"], (rank, mine, want)
        assert mine["globalOffset"] == [str(o) for o in want["globalOffset"]], (rank, mine, want)


@pytest.mark.parametrize("i", [i for i, c in enumerate(CASES) if len(set(c[1])) == len(c[1])
                               and max(c[1]) < WORLD and len(c[1]) <= WORLD])
def test_groups(torch_answers, i):
    mesh_args, _, _ = _args(CASES[i])
    for rank, want in enumerate(torch_answers[i]):
        got = _cli("groups", *mesh_args, "--rank", str(rank))
        assert got["coord"] == want["coord"], (rank, got, want)
        assert len(got["dim_groups"]) == want["dim_group_names"], (rank, got, want)
        for mine, pg, comm in zip(got["dim_groups"], want["groups"], got["group_ranks"]):
            assert sorted(mine) == pg["ranks"] and comm == pg["rank"], (rank, got, want)


@pytest.mark.parametrize("i", [i for i, c in enumerate(CASES) if len(c) > 4])
def test_plan(torch_answers, i):
    """Each rank's collective count: the mesh's ranks run the plan's, a rank off it none."""
    mesh_args, shape, pl = _args(CASES[i])
    got = _cli("plan", *mesh_args, "--shape", ",".join(map(str, shape)), "--src", _text(pl),
               "--dst", _text(CASES[i][4]))
    mine = {x["rank"]: x for x in got["ranks"]}
    assert sorted(mine) == list(range(WORLD)), got
    for rank, want in enumerate(torch_answers[i]):
        assert mine[rank]["ncollectives"] == want["collectives"], (rank, mine[rank], want)
        assert mine[rank]["coord"] == want["coord"], (rank, mine[rank], want)
        if want["coord"] is None:
            assert want["redistributed"] == [0] and mine[rank]["steps"] == [], (rank, want)
