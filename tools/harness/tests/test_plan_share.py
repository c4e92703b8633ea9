"""test_plan_share.py — torch's redistribute plan graph searched on one rank per case (plan_share.py).

plan_share.py lets the owner rank of a case run torch's graph search and the other ranks take
its answer.  Here, on torch's fake process group, rank by rank, with the broadcast played by the
test (the owner runs first):
  - every rank's view of a sample of graph-planned cases (4- and 8-rank meshes, some of which
    torch refuses) is the same shared as searched by every rank itself, and the ranks other
    than the owner ran no search of their own (so the sharing is not silently off);
  - the checked cases (tcId a multiple of CHECK_EVERY, or SHARDCHECK_TORCH_PLAN_SHARE=check)
    pass when the ranks' searches agree and fail naming the ranks whose search differed.
Skipped (not passed) without torch.
"""

import math
import os
import types

import pytest

torch = pytest.importorskip("torch")
import torch.distributed as dist  # noqa: E402

import harnesslib as hl  # noqa: E402
import plan_share  # noqa: E402
import torch_worker as tw  # noqa: E402
from adapters import _torch_common as tc  # noqa: E402

GOLDEN = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))), "golden")


def graph_cases(sizes, per_size):
    """The first cases torch plans with its graph search on meshes of each size and more than
    one dim, inputs only."""
    got = {n: [] for n in sizes}
    for _path, group, test in hl.iter_cases("redistribute-plan", GOLDEN):
        n = math.prod(int(x) for x in group["mesh"])
        if group.get("planner") != "graph" or n not in got or len(got[n]) >= per_size \
                or len(group["mesh"]) < 2:  # 1-D meshes are not shared (plan_share._pays)
            continue
        if test["tcId"] % plan_share.CHECK_EVERY == 0:
            continue
        got[n].append((group, {k: v for k, v in test.items() if k not in hl.HIDDEN_FIELDS}))
    return [c for n in sizes for c in got[n]]


class Channel:
    """dist for one rank, with the workers' channel played by the test: the owner's broadcast
    is kept for the ranks that run after it, and an all-gather returns `every`."""

    def __init__(self, box, every=None):
        self.box, self.every = box, every

    def __getattr__(self, name):
        return getattr(dist, name)

    def broadcast(self, t, src, group=None):
        if dist.get_rank() == src:
            self.box["blob"] = t.clone()
        else:
            t.copy_(self.box["blob"])

    def all_gather_object(self, out, obj, group=None):
        for r in range(len(out)):
            out[r] = self.every(r, obj) if self.every else obj


def fresh():
    """torch's @cache of whole plans, emptied: one process plays every rank here, and a rank
    must plan as its own process would."""
    from torch.distributed.tensor import _redistribute as R
    R._gen_transform_infos.cache_clear()


def world(n, rank, box, every=None):
    tc.WORLD.enter(n, rank)
    w = tw.World(torch, dist, "cpu")
    w.ctrl, w.dist = object(), Channel(box, every)
    return w


def view(group, test, rank, box, every=None, w=None):
    n = math.prod(int(x) for x in group["mesh"])
    fresh()
    w = w or world(n, rank, box, every)
    w.dist.box = box
    try:
        return tw.FAMILIES["redistribute-plan"](w, group, test)
    except Exception as e:  # noqa: BLE001 — torch's refusal is the rank's answer
        return {"error": tw._last_line(e)}


@pytest.fixture
def searches(monkeypatch):
    """Counts torch's own searches (the planner method plan_share wraps)."""
    from torch.distributed.tensor import _redistribute as R
    P = R.DTensorRedistributePlanner
    orig, count = P.find_min_cost_path, {"n": 0}

    def counted(self, a, b):
        count["n"] += 1
        return orig(self, a, b)
    monkeypatch.setattr(P, "find_min_cost_path", counted)
    return count


def test_shared_search_gives_every_rank_its_own_answer(monkeypatch, searches):
    cases = graph_cases((4, 8), 5)
    assert len(cases) == 10, "too few graph-planned cases in golden/redistribute-plan"
    shared_somewhere = False
    for group, test in cases:
        n, tcid = math.prod(int(x) for x in group["mesh"]), test["tcId"]
        owner = tcid % n
        monkeypatch.setattr(plan_share, "MODE", "0")
        own = [view(group, test, r, {}) for r in range(n)]
        monkeypatch.setattr(plan_share, "MODE", "1")
        box, shared = {}, {}
        for r in [owner] + [r for r in range(n) if r != owner]:
            before = searches["n"]
            shared[r] = view(group, test, r, box)
            if r == owner:
                owner_searched = searches["n"] - before
            else:
                assert searches["n"] == before, "tc %d rank %d searched itself" % (tcid, r)
        shared_somewhere |= owner_searched > 0
        assert [shared[r] for r in range(n)] == own, "tc %d" % tcid
    assert shared_somewhere, "no case of the sample ran torch's graph search"
    tc.WORLD.close()


def test_cases_sent_ahead_are_planned_by_their_owner_before_their_turn(monkeypatch, searches):
    """While rank b waits on case A's owner it plans case B (sent ahead, b owns it, same mesh,
    another devices-per-host setting); on B's turn b searches nothing, and both answers are
    those of ranks that search for themselves."""
    monkeypatch.setattr(plan_share, "MODE", "1")
    cases = graph_cases((4,), 40)
    (ga, a), (gb, b) = next((x, y) for x in cases for y in cases
                            if x[0]["mesh"] == y[0]["mesh"]
                            and x[0].get("flattened") == y[0].get("flattened")
                            and x[1]["tcId"] % 4 != y[1]["tcId"] % 4)
    rb = b["tcId"] % 4
    monkeypatch.setattr(plan_share, "MODE", "0")
    own_a, own_b = view(ga, a, rb, {}), view(gb, b, rb, {})
    monkeypatch.setattr(plan_share, "MODE", "1")
    box = {}
    view(ga, a, a["tcId"] % 4, box)  # A's owner: its broadcast
    w = world(4, rb, box)
    w.upcoming = lambda: [{"family": "redistribute-plan", "group": gb, "test": b}]
    before = searches["n"]
    assert view(ga, a, rb, box, w=w) == own_a
    assert b["tcId"] in w.plans and searches["n"] > before, "B was not planned ahead"
    before = searches["n"]
    w.upcoming = lambda: []
    assert view(gb, b, rb, {}, w=w) == own_b
    assert searches["n"] == before and not w.plans, "B searched again on its turn"
    tc.WORLD.close()


def test_checked_case_names_ranks_whose_search_differs(monkeypatch):
    group, test = graph_cases((4,), 1)[0]
    monkeypatch.setattr(plan_share, "MODE", "check")
    same = [view(group, test, r, {}) for r in range(4)]
    assert all("collectives" in v for v in same), same
    odd = view(group, test, 1, {}, every=lambda r, mine: mine if r != 2 else "another path")
    assert odd == {"error": "RuntimeError: torch's graph planner found different paths on rank 0 "
                   "and rank(s) [2] for the same inputs (plan_share.py)"}, odd
    tc.WORLD.close()


def test_not_shared_where_it_does_not_pay(monkeypatch, searches):
    """Below MIN_WORLD ranks, or on a 1-D mesh, every rank searches for itself."""
    monkeypatch.setattr(plan_share, "MODE", "1")
    for n, want_1d in ((4, True), (2, False)):
        group, test = next((g, {k: v for k, v in t.items() if k not in hl.HIDDEN_FIELDS})
                           for _p, g, t in hl.iter_cases("redistribute-plan", GOLDEN)
                           if g.get("planner") == "graph" and t["tcId"] % plan_share.CHECK_EVERY
                           and math.prod(g["mesh"]) == n and (len(g["mesh"]) == 1) == want_1d)
        rank = (test["tcId"] + 1) % n  # not the owner: it would wait for a broadcast if shared
        before = searches["n"]
        assert "collectives" in view(group, test, rank, {}) and searches["n"] > before, (n, test)
    tc.WORLD.close()


def test_no_channel_no_sharing(monkeypatch, searches):
    """A World without the workers' channel (invalid_audit's, on the fake group) searches itself."""
    group, test = graph_cases((4,), 1)[0]
    tc.WORLD.enter(4, 1)
    w = tw.World(torch, dist, "cpu")
    w.dist = types.SimpleNamespace(**{k: getattr(dist, k) for k in dir(dist)
                                      if not k.startswith("__")})
    fresh()
    tw.FAMILIES["redistribute-plan"](w, group, test)
    assert searches["n"] > 0
    tc.WORLD.close()


def test_requests_ahead_are_the_whole_lines_already_sent():
    """worker_requests.Requests: next() blocks for a line, ahead() shows the whole lines already
    in the pipe (not a part-written one, not consumed), None at the pipe's end."""
    from worker_requests import Requests
    r, wfd = os.pipe()
    try:
        q = Requests(r)
        os.write(wfd, b'{"n": 1}\n\n{"n": 2}\n{"n": ')
        assert q.next() == {"n": 1}
        assert q.ahead() == [{"n": 2}]
        os.write(wfd, b'3}\n')
        assert q.ahead() == [{"n": 2}, {"n": 3}]
        assert q.next() == {"n": 2}
        os.close(wfd)
        wfd = None
        assert q.next() == {"n": 3} and q.ahead() == [] and q.next() is None
    finally:
        os.close(r)
        if wfd is not None:
            os.close(wfd)
