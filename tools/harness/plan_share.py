"""plan_share.py — torch's redistribute plan graph searched on one rank per case, not on every rank.

What it is for: torch's graph planner (DTensorRedistributePlanner.find_min_cost_path, a Dijkstra
search over placement states) is nine tenths of a redistribute-plan case's CPU, and every rank
runs the same search: its inputs are the mesh's shape, the tensor's meta, the planner's target
sets and the two states, never the rank or its coordinate (torch 2.13 _redistribute.py
get_next_state, cost_function; _collective_utils.py one_step_redistribute_cost).  At np 8 on
2 cores that is eight searches per case where one would do.  So per case one rank (the owner,
tcId mod world) runs the plan first (_gen_transform_infos_non_cached, as redistribute would),
recording each search's inputs and answer, and sends the record to the other ranks on the
workers' own channel; then every rank runs the real redistribute_local_tensor, whose searches
are answered from the record where the inputs are the same, and searched afresh where not.  The
rest stays each rank's own: the transform infos from its coordinate, the optimisation, the
collectives CommDebugMode counts.  The harness adapter memoises the same search across its
simulated ranks on the same ground (adapters/torch_redistribute_plan.py).

That ground is torch's, so it is checked, not assumed: every CHECK_EVERY-th case (tcId) shares
nothing, every rank searches for itself, and the ranks compare their searches' answers after
the case; ranks that found different paths make the case an error naming them (a torch finding:
redistribute would run different plans on different ranks).  SHARDCHECK_TORCH_PLAN_SHARE=0
turns the sharing off (every case searched on every rank, as before); =check checks every case.

The exchange is one broadcast (_exchange) on the workers' own channel (World.ctrl) at a point
every rank reaches: after the case's specs are made (rank-independent) and before anything
that reads the rank.  The owner's own planning cannot leave it early: whatever it raises is
recorded (a search that raises is sent as its exception) or dropped (the others then search
themselves).  Sharing is kept to where it pays (_pays): 4 or more ranks, a mesh of 2 or more
dims.

While the ranks wait on a case's owner, the others plan the cases sent ahead that they own
(worker_requests.py: the runner sends a chunk of 16 ahead), on the same mesh as it stands, with
their own devices-per-host setting; kept in World.plans until the case's turn, when its owner
sends that record at once.  So at np 8 on 2 cores both cores plan, not one.  Planning ahead is
local: nothing is exchanged early, and a case planned ahead is sent at its own turn like any.

How it is tested: tools/harness/tests/test_plan_share.py, rank by rank on torch's fake process
group: every rank's view shared (and planned ahead) is the view of ranks that search for
themselves, the ranks that are not the owner search nothing, and a checked case with ranks that
disagree fails naming them.  The make checks' and the main job's torch stages run every
redistribute-plan case through it with real collectives, held to golden.
"""

import hashlib
import os
import pickle
from contextlib import contextmanager

# every CHECK_EVERY-th case checks the sharing's ground instead of using it
CHECK_EVERY = 16
# the most bytes a case's record may take on the wire (_exchange)
WIRE = 1 << 16
# sharing starts at this many ranks (_pays)
MIN_WORLD = 4
# at most this many cases planned ahead are kept (a chunk is 16 cases: run_torch.c)
PLANS_KEPT = 64
MODE = os.environ.get("SHARDCHECK_TORCH_PLAN_SHARE", "1")
MODES = ("0", "1", "check")


def mode_problem():
    """None, or what is wrong with SHARDCHECK_TORCH_PLAN_SHARE (torch_worker.start: exit 2)."""
    if MODE in MODES:
        return None
    return ("SHARDCHECK_TORCH_PLAN_SHARE=%r: expected 0 (every rank searches), 1 (shared, the "
            "default) or check (every case checked)" % MODE)


def _key(planner, src_state, dst_state):
    """What a search's answer depends on within one case (the case fixes the mesh and meta): as
    text, because DistState's hash is computed once per process from str hashes."""
    def state(s):
        return (s.placements, s.tensor_dim_to_mesh_dim)
    return repr((state(src_state), state(dst_state),
                 sorted(map(repr, planner.partial_reduce_ops_in_target)),
                 sorted(map(repr, planner.strided_shard_placements_in_target))))


def _hooks(R):
    """torch's planner class and the unmemoised plan function, or None for a release without
    the graph planner (nothing to share)."""
    P = getattr(R, "DTensorRedistributePlanner", None)
    plan = getattr(R, "_gen_transform_infos_non_cached", None)
    if P is None or plan is None or not hasattr(P, "find_min_cost_path"):
        return None
    return P, plan


@contextmanager
def _searches(P, answer):
    """Within the block, torch's find_min_cost_path goes through answer(orig, planner, a, b)."""
    orig = P.find_min_cost_path

    def find_min_cost_path(self, src_state, dst_state):
        return answer(orig, self, src_state, dst_state)
    P.find_min_cost_path = find_min_cost_path
    try:
        yield
    finally:
        P.find_min_cost_path = orig


def _record(log):
    def answer(orig, planner, a, b):
        try:
            path = orig(planner, a, b)
        except Exception as e:
            log.append((_key(planner, a, b), ("raise", e)))
            raise
        log.append((_key(planner, a, b),
                    ("path", [(s.placements, s.tensor_dim_to_mesh_dim) for s in path])))
        return path
    return answer


def _pack(log):
    """The record as bytes; an entry that does not pickle is left out (its search is redone)."""
    out = []
    for key, got in log:
        try:
            out.append(pickle.dumps((key, got)))
        except Exception:  # noqa: BLE001 — an exception torch made unpicklable: not shared
            continue
    return pickle.dumps(out)


def _unpack(blob):
    memo = {}
    for item in pickle.loads(blob):
        key, (kind, val) = pickle.loads(item)
        memo.setdefault(key, (kind, val))
    return memo


def _replay(P, memo):
    def answer(orig, planner, a, b):
        got = memo.get(_key(planner, a, b))
        if got is None:
            return orig(planner, a, b)
        kind, val = got
        if kind == "raise":
            raise val
        return [P.DistState(p, o) for p, o in val]
    return answer


def _owner_plan(R, P, plan, src, dst, use_graph):
    log = []
    with _searches(P, _record(log)):
        try:
            plan(src, dst, use_graph)
        except Exception:  # noqa: BLE001 — the real run raises it again on every rank
            pass
    R.clear_redistribute_planner_cache()  # the real run starts from the state every rank has
    return _pack(log)


def _exchange(w, owner, blob):
    """The owner's record, on every rank, in one broadcast of WIRE bytes (its length, then the
    bytes): a collective costs milliseconds on oversubscribed cores, and broadcast_object_list
    is two.  A record that does not fit is not sent (each rank searches for itself)."""
    torch = w.torch
    buf = torch.zeros(WIRE, dtype=torch.uint8)
    if w.rank == owner and len(blob) + 4 <= WIRE:
        buf[:4] = torch.frombuffer(bytearray(len(blob).to_bytes(4, "little")), dtype=torch.uint8)
        if blob:
            buf[4:4 + len(blob)] = torch.frombuffer(bytearray(blob), dtype=torch.uint8)
    w.dist.broadcast(buf, src=owner, group=w.ctrl)
    n = int.from_bytes(bytes(buf[:4].tolist()), "little")
    return bytes(buf[4:4 + n].tolist()) if n else pickle.dumps([])


def _digest(log):
    return hashlib.sha256(repr([(k, g if g[0] == "path" else ("raise", repr(g[1])))
                                for k, g in log]).encode()).hexdigest()


def _pays(w, src):
    """Whether sharing saves more than its exchange costs, decided alike on every rank from the
    job and the case alone.  At np 2 and 3 each rank has a core of its own here, so the ranks'
    searches run side by side, and on a 1-D mesh a search is a few states: there the exchange
    costs more than it saves (with every case shared, and two broadcasts a case, the main job's
    torch stage took 26 -> 41 s at np 2 and 22 -> 33 s at np 3).  At np 4, one broadcast, 2-D
    meshes only: redistribute-plan's 4,878 cases 139 -> 115 s; at np 8 its 2,000-case sample is
    most of the main job's 765 -> 520 s."""
    return w.size >= MIN_WORLD and src.mesh.ndim >= 2


def _checked_case(tcid):
    return MODE == "check" or tcid % CHECK_EVERY == 0


def _plan_ahead(w, R, P, plan, ahead):
    """Plan the cases sent ahead that this rank owns (while the ranks wait on this case's
    owner, so the two cores plan two cases at once); kept in w.plans until their turn."""
    for tcid, specs in ahead():
        if tcid % w.size != w.rank or tcid in w.plans or _checked_case(tcid):
            continue
        try:
            src, dst, use_graph = specs()[:3]
        except Exception:  # noqa: BLE001 — its own turn raises it on every rank
            continue
        R.clear_redistribute_planner_cache()
        if len(w.plans) >= PLANS_KEPT:
            w.plans.clear()
        w.plans[tcid] = _owner_plan(R, P, plan, src, dst, use_graph)


@contextmanager
def shared_search(w, tcid, src, dst, use_graph, ahead=None):
    """The block runs the case's redistribute_local_tensor(src -> dst) on this rank; inside it
    torch's graph search is answered as the module's header says.  Every rank enters it for
    every case, at the same point.  ahead: () -> iterable of (tcId, () -> specs) for the cases
    sent ahead that the rank may plan now (torch_worker._plans_ahead)."""
    from torch.distributed.tensor import _redistribute as R
    hooks = _hooks(R)
    if MODE == "0" or hooks is None or w.ctrl is None or w.size == 1:
        yield
        return
    P, plan = hooks
    if not _pays(w, src):
        yield
        return
    if _checked_case(tcid):
        with _checked(w, P):
            yield
        return
    owner = tcid % w.size
    if w.rank == owner:
        blob = w.plans.pop(tcid, None) or _owner_plan(R, P, plan, src, dst, use_graph)
    else:
        blob = None
        if ahead is not None:
            _plan_ahead(w, R, P, plan, ahead)
    with _searches(P, _replay(P, _unpack(_exchange(w, owner, blob)))):
        yield


@contextmanager
def _checked(w, P):
    """Every rank searches; after the block (raised or not) the ranks compare what they found."""
    log = []
    raised = None
    try:
        with _searches(P, _record(log)):
            yield
    except Exception as e:  # noqa: BLE001 — raised again below, after the comparison
        raised = e
    every = [None] * w.size
    w.dist.all_gather_object(every, _digest(log), group=w.ctrl)
    if raised is not None:
        raise raised
    odd = [r for r in range(w.size) if every[r] != every[0]]
    if odd:
        raise RuntimeError("torch's graph planner found different paths on rank 0 and rank(s) %s "
                           "for the same inputs (plan_share.py)" % odd)
