"""test_plan_torch.py — what `shardcheck plan` says torch does with a plan, asked of real torch.

Issue 34 item 4.  Each plan is made by the CLI (--json) and by torch 2.13's planner, and then
executed by torch's redistribute_local_tensor on a fake process group per rank (the harness
adapters' world: no communication, but every local op torch runs, and the collectives it issues
counted by CommDebugMode):
- a step on a mesh dim of one device: the CLI names it as torch's _TransformInfo._comm_type_key
  does, marks it skipped, and counts no collective for it; torch issues none;
- a plan torch cannot execute (torchCannotExecute): torch raises at that step on exactly the
  ranks the CLI names, with the exception the CLI names; on the other ranks it runs;
- the refusals of a Partial target torch cannot reach (exit 2, torch's exception type and
  message): torch raises that exception.

Needs a built shardcheck ($SHARDCHECK or _build/tools/shardcheck); skipped otherwise.
"""

import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
EXE = os.environ.get("SHARDCHECK") or os.path.join(REPO, "_build", "tools", "shardcheck")
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "adapters"))

pytestmark = pytest.mark.skipif(not os.access(EXE, os.X_OK), reason="no built shardcheck")


def cli_plan(mesh, shape, src, dst, *extra):
    p = subprocess.run([EXE, "plan", "--mesh", "x".join(map(str, mesh)), "--shape",
                        ",".join(map(str, shape)), "--src", src, "--dst", dst, "--json"]
                       + list(extra), capture_output=True, text=True, timeout=120)
    if p.returncode == 0:
        return json.loads(p.stdout)
    assert p.returncode == 2, p.stderr
    return {"error": p.stderr.strip()}


def torch_run(mesh_shape, shape, src, dst, rank):
    """torch's plan and its execution for one rank: (infos, collective counts, exception)."""
    import torch
    import _torch_common as tc
    from torch.distributed.device_mesh import DeviceMesh
    from torch.distributed.tensor import _redistribute as R
    from torch.distributed.tensor._dtensor_spec import DTensorSpec, TensorMeta
    from torch.distributed.tensor._utils import compute_local_shape_and_global_offset
    from torch.distributed.tensor.debug import CommDebugMode
    n = 1
    for s in mesh_shape:
        n *= s
    tc.WORLD.enter(n, rank)
    mesh = DeviceMesh("cpu", torch.arange(n).reshape(tuple(mesh_shape)))
    sp, _ = tc.parse_placements(src)
    dp, _ = tc.parse_placements(dst)
    size = torch.Size(shape)
    meta = TensorMeta(size, torch.empty(size, device="meta").stride(), torch.float32)
    s_spec = DTensorSpec(mesh, tuple(sp), tensor_meta=meta)
    d_spec = DTensorSpec(mesh, tuple(dp), tensor_meta=meta)
    # torch caches plans by spec, and a mesh's spec does not name the rank: each rank (a
    # process of its own in a real run) plans afresh
    R.clear_redistribute_planner_cache()
    R._gen_transform_infos.cache_clear()
    infos = R._gen_transform_infos_non_cached(s_spec, d_spec)
    local_shape, _ = compute_local_shape_and_global_offset(size, mesh, list(sp))
    local = torch.zeros(local_shape)
    comm = CommDebugMode()
    err = None
    try:
        with comm:
            R.redistribute_local_tensor(local, s_spec, d_spec)
    except Exception as ex:  # noqa: BLE001 - the exception is the answer
        err = ex
    counts = {str(k).split(".")[-1]: v for k, v in comm.get_comm_counts().items()}
    return infos, sum(counts.values()), err


@pytest.fixture(autouse=True, scope="module")
def _close_world():
    yield
    import _torch_common as tc
    tc.WORLD.close()


# size-1 mesh dims: (mesh, shape, src, dst)
SIZE_ONE = [([1, 4], [8, 8], "S(0),S(1)", "R,R"), ([4, 1], [8, 8], "S(1),S(0)", "R,R"),
            ([1, 2], [8], "P(sum),P(sum)", "R,R"), ([2, 1, 2], [8, 8], "S(0),S(1),S(0)", "R,R,R"),
            ([1, 2], [8, 4], "S(0),R", "S(1),R"), ([1], [8], "P(prod)", "R"),
            ([1, 2], [8, 8], "R,R", "S(0),S(1)")]


@pytest.mark.parametrize("mesh,shape,src,dst", SIZE_ONE)
def test_size_one_dim_label(mesh, shape, src, dst):
    got = cli_plan(mesh, shape, src, dst)
    assert "error" not in got, got
    n = 1
    for s in mesh:
        n *= s
    skipped_seen = 0
    for r in range(n):
        mine = got["ranks"][r]
        infos, ncoll, err = torch_run(mesh, shape, src, dst, r)
        assert err is None, err
        assert "torchRaises" not in mine  # a skipped step runs nothing, so raises nothing
        assert len(infos) == len(mine["steps"])
        for info, st in zip(infos, mine["steps"]):
            assert [info.mesh_dim] == st["mesh_dims"]
            one = mesh[info.mesh_dim] == 1
            assert st.get("skipped", False) == one
            if one:
                skipped_seen += 1
                assert st["comm"] == (info._comm_type_key() or "none")
        assert mine["ncollectives"] == ncoll  # torch issues none for a skipped step
    assert skipped_seen > 0


# plans torch cannot execute on some ranks (raises: whether any rank raises), and plans it
# runs (an uneven logical size is padded and unpadded; a decodable _S plans right shapes)
CANNOT = [([4, 8], [64, 64], "_S(1, 16),S(1)", "R,R", True),
          ([4, 8], [16, 16], "_S(1, 16),S(1)", "R,R", True),
          ([2, 2], [8, 8], "_S(1, 4),S(1)", "R,R", True),
          ([2, 2], [8, 8], "S(1),R", "R,_S(1, 2)", True),
          ([4, 8], [128, 4], "_S(1, 16),S(1)", "R,R", False),
          ([2, 2], [8, 8], "_S(0, 2),S(0)", "R,R", False)]


@pytest.mark.parametrize("mesh,shape,src,dst,raises", CANNOT)
def test_cannot_execute(mesh, shape, src, dst, raises):
    got = cli_plan(mesh, shape, src, dst)
    assert "error" not in got, got
    n = 1
    for s in mesh:
        n *= s
    ranks = range(n) if n <= 8 else sorted({0, 1, 7, 8, 9, 17, 31})
    raised = 0
    for r in ranks:
        flag = got["ranks"][r].get("torchCannotExecute")
        _, _, err = torch_run(mesh, shape, src, dst, r)
        raised += err is not None
        if flag is None:
            assert err is None, (r, err)
            continue
        assert err is not None, (r, flag)
        assert flag["error"].startswith(type(err).__name__ + ": "), (flag, err)
        gist = flag["error"].split(": ", 1)[1].split(" (Shard._maybe")[0]
        assert str(err).startswith(gist), (flag, err)
        assert flag["finding"].startswith("docs/findings/")
    assert (raised > 0) == raises


# a shard-like source to a Partial target: (mesh, shape, src, dst)
REFUSED = [([4], [8], "S(0)", "P(sum)"), ([4], [8], "_S(0, 2)", "P(sum)"),
           ([2, 2], [8, 8], "R,S(1)", "R,P(max)"), ([4], [8], "S(0)", "P(avg)")]


@pytest.mark.parametrize("mesh,shape,src,dst", REFUSED)
def test_refused_partial_target(mesh, shape, src, dst):
    got = cli_plan(mesh, shape, src, dst)
    assert "error" in got, got
    head, msg = got["error"].split(": RuntimeError: ", 1)
    _, _, err = torch_run(mesh, shape, src, dst, 0)
    assert type(err).__name__ == "RuntimeError", err
    assert msg.startswith(str(err) + " ("), (msg, err)
    # the public API refuses first, by the message the CLI quotes
    api = torch_api_refusal(mesh, shape, src, dst)
    assert api and got["error"].endswith("; DTensor.redistribute raises before planning: " + api)


def torch_api_refusal(mesh, shape, src, dst):
    """DTensor.redistribute's own refusal ("Type: message"), or None where it plans."""
    import torch
    from torch.distributed.tensor import DTensor
    from torch.distributed.device_mesh import DeviceMesh
    from torch.distributed.tensor._utils import compute_local_shape_and_global_offset
    import _torch_common as tc
    sp, _ = tc.parse_placements(src)
    dp, _ = tc.parse_placements(dst)
    n = 1
    for s in mesh:
        n *= s
    m = DeviceMesh("cpu", torch.arange(n).reshape(tuple(mesh)))
    ls, _ = compute_local_shape_and_global_offset(torch.Size(shape), m, list(sp))
    d = DTensor.from_local(torch.zeros(ls), m, sp, shape=torch.Size(shape),
                           stride=torch.empty(shape).stride(), run_check=False)
    try:
        d.redistribute(m, dp)
    except RuntimeError as ex:
        if "Can not redistribute" in str(ex):
            return "RuntimeError: %s" % ex
    return None


def test_replicate_to_partial_runs():
    """R -> P(sum) is the Partial target torch's executor reaches: no refusal, and it runs."""
    got = cli_plan([4], [8], "R", "P(sum)")
    assert "error" not in got and got["ranks"][0]["steps"][0]["comm"] == "partition"
    # ... by redistribute_local_tensor: DTensor.redistribute refuses it, as the plan says
    assert got["apiRaises"] == torch_api_refusal([4], [8], "R", "P(sum)")
    _, ncoll, err = torch_run([4], [8], "R", "P(sum)", 1)
    assert err is None and ncoll == 0


# the min-cost planner's per-step costs: (mesh, shape, src, dst, dtype, devices per host)
COSTS = [([2, 2, 2], [8, 8, 8], "S(0),S(0),S(0)", "S(1),S(1),S(1)", "float32", 1),
         ([2, 2], [8, 8], "S(0)[1]S(0)[0]", "R,S(1)", "float32", 8),
         ([2, 4], [16, 12], "P(sum),S(1)", "S(0),R", "float64", 2),
         ([4, 2], [9, 7], "S(0),P(max)", "R,S(1)", "bfloat16", 8),
         ([2, 2], [8, 6], "_S(0, 2),S(0)", "R,S(1)", "float32", 8)]


@pytest.mark.parametrize("mesh,shape,src,dst,dtype,dph", COSTS)
def test_min_cost_step_costs(mesh, shape, src, dst, dtype, dph):
    """Each step's cost is what torch's Dijkstra added for that edge: get_next_state's
    transition cost on torch's own min-cost path, bit for bit."""
    got = cli_plan(mesh, shape, src, dst, "--planner", "graph", "--dtype", dtype,
                   "--devices-per-host", str(dph), "--rank", "0")
    mine = got["ranks"][0]
    assert mine["planner"] == "graph"
    import itertools
    import torch
    import _torch_common as tc
    from torch.distributed.device_mesh import DeviceMesh, _mesh_resources
    from torch.distributed.tensor import _collective_utils as CU
    from torch.distributed.tensor import _redistribute as R
    from torch.distributed.tensor._dtensor_spec import DTensorSpec, TensorMeta, ShardOrderEntry
    n = 1
    for s in mesh:
        n *= s
    tc.WORLD.enter(n, 0)
    m = DeviceMesh("cpu", torch.arange(n).reshape(tuple(mesh)))
    old = _mesh_resources.num_devices_per_host
    _mesh_resources.num_devices_per_host = lambda device_type: dph
    CU.MeshTopoInfo.build_from_mesh.cache_clear()
    try:
        size = torch.Size(shape)
        meta = TensorMeta(size, torch.empty(size, device="meta").stride(), getattr(torch, dtype))

        def spec(text):
            pl, order = tc.parse_placements(text)
            kw = {}
            if order is not None:  # order[i]: mesh dim i's place among its dim's shards
                by_dim = {}
                for md, p in enumerate(pl):
                    if type(p).__name__ == "Shard":
                        by_dim.setdefault(p.dim, []).append((order[md], md))
                kw["shard_order"] = tuple(
                    ShardOrderEntry(tensor_dim=d, mesh_dims=tuple(md for _, md in sorted(v)))
                    for d, v in sorted(by_dim.items()))
            return DTensorSpec(m, tuple(pl), tensor_meta=meta, **kw)

        planner = R.DTensorRedistributePlanner(m, meta)
        paths = []
        find = planner.find_min_cost_path
        planner.find_min_cost_path = lambda a, b: paths.append(find(a, b)) or paths[-1]
        infos = planner.generate_graph_based_transform_infos(spec(src), spec(dst), tuple(shape))
        want = []
        for a, b in itertools.pairwise(paths[0]):
            if a.placements != b.placements:
                want.append(planner.get_next_state(a.placements, a.tensor_dim_to_mesh_dim)[b])
    finally:
        _mesh_resources.num_devices_per_host = old
        CU.MeshTopoInfo.build_from_mesh.cache_clear()
    assert len(infos) == len(mine["steps"])
    assert [st["cost"] for st in mine["steps"]] == want
    assert any(c > 0 for c in want)


# Flattened meshes with size-1 dims (--flatten; golden "flattened"): torch finds a flattened
# mesh for a group of steps by layout (_redistribute.py 2.13 _get_flattened_mesh_by_layout_impl),
# so size-1 dims count on neither side; the CLI's merged steps (their mesh dims) must be
# torch's own, planned by the redistribute-plan adapter with the same flattened meshes made.
FLATTENED = [  # mesh, flattened sets, src, dst
    ([1, 4], [[0, 1]], "P(sum),P(sum)", "R,R"),
    ([1, 4], [[1, 0]], "P(sum),P(sum)", "R,R"),
    ([1, 4], [[0, 0]], "P(sum),P(sum)", "R,R"),
    ([2, 1, 2], [[0, 1, 2]], "P(sum),P(sum),P(sum)", "R,R,R"),
    ([2, 1, 2], [[0, 2]], "P(sum),P(sum),P(sum)", "R,R,R"),
    ([2, 1, 2], [[0, 2]], "P(sum),R,P(sum)", "R,R,R"),
    ([2, 1, 2], [[0, 2, 1]], "P(sum),R,P(sum)", "R,R,R"),
    ([2, 1, 2], [[0, 1, 2]], "P(sum),R,P(sum)", "R,R,R"),
    ([2, 1, 2], [[1, 0]], "P(sum),P(sum),R", "R,R,R"),
    ([2, 2, 2], [[0, 2]], "S(0),R,S(0)", "R,R,R"),
]


@pytest.mark.parametrize("mesh,flat,src,dst", FLATTENED)
def test_flattened_size_one_dims(mesh, flat, src, dst):
    import torch_redistribute_plan as rp
    shape = [8, 8]
    group = {"mesh": mesh, "flattened": flat, "devicesPerHost": 8, "dtype": "float32",
             "planner": "auto"}
    want = [s[0] for s in rp.compute(group, {"src": src, "dst": dst, "shape": shape})
            ["plans"][0]["steps"]]
    got = cli_plan(mesh, shape, src, dst, "--flatten",
                   ",".join("+".join(map(str, f)) for f in flat), "--rank", "0")
    assert [st["mesh_dims"] for st in got["ranks"][0]["steps"]] == want, (got, want)


def test_reduce_op_raises_mirror_matches_the_corpus():
    """torch_worker's Python mirror of which steps raise for their reduce op (the torch backend's
    rule when the C runner is not the one checking) marks exactly the redistribute-plan cases the
    generator flagged ReduceOpRaises (lib's shc_plan_raising_step) in the partial-ops files."""
    sys.path.insert(0, os.path.dirname(HERE))
    import torch_worker as tw
    seen = {True: 0, False: 0}
    for stem in ("partial-ops", "partial-ops-graph"):
        with open(os.path.join(REPO, "golden", "redistribute-plan", stem + ".json")) as f:
            doc = json.load(f)
        for g in doc["testGroups"]:
            for t in g["tests"]:
                exp = t["expected"]
                raises = any(st[3] != "none" and tw._reduce_op_raises(st[1], st[2])
                             for p in exp["plans"] for st in p["steps"])
                assert raises == ("ReduceOpRaises" in t.get("flags", ())), (t["tcId"], t["src"],
                                                                           t["dst"])
                seen[raises] += 1
    assert seen[True] > 100 and seen[False] > 100, seen
