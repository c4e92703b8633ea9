"""torch_input_worker.py — what real torch 2.13 does with the inputs of issue 34 item 1.

What it is for: test_torch_input.py asks real torch (a gloo world of 4 CPU processes, real
c10d collectives, not a simulation) about reduce-op strings in Partial and negative shard
dims, and compares its answers with the shardcheck CLI's.  Run as a script with the case
list as JSON on stdin; rank 0 prints one JSON object: per case, torch's printed placements
and every rank's local shape, or the exception torch raised (type and first line).

Cases:
  {"kind": "layout", "mesh": [2, 2], "shape": [6, 8], "placements": [...]}
      DTensor.redistribute from Replicate to the placements (torch normalises the target's
      negative dims there, _api.py:718-725; a Partial through from_local): the placements
      printed, local shapes.
  {"kind": "plan", "mesh": [4], "shape": [8, 4], "src": [...], "dst": [...], "dtype": "int32"}
      The source DTensor (from_local for a Partial, distribute_tensor otherwise: both
      normalise), then DTensor.redistribute to dst, or for a Partial target the internal
      redistribute_local_tensor (what `shardcheck plan` models; the public redistribute
      refuses a Partial target the tensor does not already have); dtype (default float32)
      is the tensor's, whose elements gloo's collectives may refuse.
Placements are given as [kind, arg...]: ["S", d], ["_S", d, sf], ["P", op], ["R"].

The gloo plumbing of every torch worker script here lives in this file too: serve and spawn
(a world of 4 CPU processes answering a case list), and run_jobs / register /
session_answers, by which the test modules share one world per pytest session (`--jobs`:
stdin holds [worker name, cases] pairs and each worker's WORKER answers its own).

How it is tested: it is the torch side of test_torch_input.py.
"""

import json
import os
import sys
import traceback
import warnings


def _placement(p):
    from torch.distributed.tensor import Partial, Replicate, Shard
    from torch.distributed.tensor.placement_types import _StridedShard
    if p[0] == "S":
        return Shard(p[1])
    if p[0] == "_S":
        return _StridedShard(p[1], split_factor=p[2])
    if p[0] == "P":
        return Partial(p[1])
    return Replicate()


def _error(e):
    lines = str(e).splitlines()
    return {"type": type(e).__name__, "message": lines[0] if lines else ""}


def _layout(case, meshes):
    import torch
    from torch.distributed.tensor import Replicate, distribute_tensor
    from torch.distributed.tensor import DTensor
    mesh = meshes[tuple(case["mesh"])]
    g = torch.arange(1, 1 + torch.Size(case["shape"]).numel(), dtype=torch.float32)
    g = g.reshape(case["shape"])
    pl = [_placement(p) for p in case["placements"]]
    d = distribute_tensor(g, mesh, [Replicate()] * mesh.ndim)
    if any(p.is_partial() for p in pl):  # redistribute refuses a Partial target: the
        # partial value is the shard of the placements without it, taken by from_local
        # (which normalises too, _api.py:547-558)
        local = d.redistribute(mesh, [Replicate() if p.is_partial() else p for p in pl])
        out = DTensor.from_local(local.to_local(), mesh, pl, run_check=False)
    else:
        out = d.redistribute(mesh, pl)
    return {"placements": ",".join(str(p) for p in out.placements),
            "localShape": list(out.to_local().shape)}


def _plan(case, meshes):
    import torch
    from torch.distributed.tensor import DTensor
    from torch.distributed.tensor._dtensor_spec import DTensorSpec, TensorMeta
    from torch.distributed.tensor._redistribute import redistribute_local_tensor
    from torch.distributed.tensor import distribute_tensor
    mesh = meshes[tuple(case["mesh"])]
    rank = torch.distributed.get_rank()
    dtype = getattr(torch, case.get("dtype", "float32"))
    shape, stride = torch.Size(case["shape"]), (case["shape"][1], 1)
    srcp = [_placement(p) for p in case["src"]]
    if any(p.is_partial() for p in srcp):  # each rank's partial value, full-size
        local = torch.tensor([2.0 + rank, 3.0, 5.0, 7.0]).repeat(case["shape"][0], 1)
        local = local[:, :case["shape"][1]].contiguous().to(dtype)
        src = DTensor.from_local(local, mesh, srcp, run_check=False, shape=shape, stride=stride)
    else:  # distribute_tensor normalises negative dims too (_api.py:971-990); it sends
        # float32 (gloo carries no int16 or float8), and each rank's shard then takes the dtype
        g = torch.arange(shape.numel(), dtype=torch.float32)
        f = distribute_tensor(g.reshape(case["shape"]), mesh, srcp)
        src = DTensor.from_local(f.to_local().to(dtype), mesh, f.placements, run_check=False,
                                 shape=shape, stride=stride)
    dst = [_placement(p) for p in case["dst"]]
    if not any(p.is_partial() for p in dst):  # the public API, which normalises dst
        out = src.redistribute(mesh, dst)
        return {"src": ",".join(str(p) for p in src.placements),
                "dst": ",".join(str(p) for p in out.placements),
                "localShape": list(_waited(out.to_local()).shape)}
    meta = TensorMeta(shape, stride, dtype)
    dst_spec = DTensorSpec(mesh, tuple(dst), tensor_meta=meta)
    out = redistribute_local_tensor(src.to_local(), src._spec, dst_spec)
    return {"src": ",".join(str(p) for p in src.placements),
            "dst": ",".join(str(p) for p in dst_spec.placements),
            "localShape": list(_waited(out).shape)}


def _waited(t):
    """The result once its collective has ended: an error gloo raises while it runs (avg on
    integers) is this case's, not a later case's."""
    wait = getattr(t, "wait", None)
    return wait() if callable(wait) else t


def _worker(name):
    """A worker script's (answer, refusal, merge): its WORKER, imported by module name."""
    import importlib
    return importlib.import_module(name).WORKER


def serve(rank, world, init, jobs, out_path):
    """One rank of the gloo world, answering each job [worker module name, cases] in turn:
    answer(case, meshes, rank) for each case (an exception is torch's refusal and the answer:
    refusal(e)); every rank's answers are all-gathered per job and rank 0 writes {"torch",
    "answers": {name: merge(cases, every)}} to out_path.  Every worker script joins, gathers
    and leaves the world this way, alone or several in one world (run_jobs)."""
    import torch
    import torch.distributed as dist
    from torch.distributed.device_mesh import init_device_mesh
    warnings.filterwarnings("ignore")
    dist.init_process_group("gloo", init_method=init, rank=rank, world_size=world)
    meshes = {(4,): init_device_mesh("cpu", (4,)), (2, 2): init_device_mesh("cpu", (2, 2))}
    merged = {}
    for name, cases in jobs:
        answer, refusal, merge = _worker(name)
        answers = []
        for case in cases:
            try:
                got = answer(case, meshes, rank)
            except Exception as e:  # torch's refusal is the answer
                got = refusal(e)
            answers.append(got)
        every = [None] * world
        dist.all_gather_object(every, answers)
        merged[name] = merge(cases, every)
    if rank == 0:
        with open(out_path, "w") as f:
            json.dump({"torch": torch.__version__, "answers": merged}, f)
    dist.barrier()
    dist.destroy_process_group()


def spawn(name):
    """Run serve in a gloo world of 4 CPU processes, out to argv[1] (its rendezvous file
    beside it), on stdin's JSON: a case list for worker `name`, or with --jobs a list of
    [worker name, cases] jobs."""
    import torch.multiprocessing as mp
    given = json.load(sys.stdin)
    jobs = given if "--jobs" in sys.argv[2:] else [[name, given]]
    out_path = sys.argv[1]
    init = "file://" + os.path.abspath(out_path) + ".rendezvous"
    mp.spawn(serve, args=(4, init, jobs, out_path), nprocs=4)


def refusal_raises(e):
    """torch's refusal as the answer: {"raises": {type, message}} (the gloo workers' form)."""
    return {"raises": _error(e)}


def merge_per_rank(cases, every):
    """Per case, every rank's answer (the gloo workers' form)."""
    return [[every[r][i] for r in range(len(every))] for i in range(len(cases))]


def run_jobs(jobs, out_dir, timeout=540):
    """Run several gloo workers' cases ({script: cases}) in one world of this folder's and
    return {script: answers}, checking it ran torch 2.13: what every test on such a worker
    starts with."""
    import subprocess
    here = os.path.dirname(os.path.abspath(__file__))
    out = os.path.join(str(out_dir), "answers.json")
    given = [[script[:-3], cases] for script, cases in jobs.items()]
    p = subprocess.run([sys.executable, os.path.join(here, "torch_input_worker.py"), out,
                        "--jobs"], input=json.dumps(given), capture_output=True, text=True,
                       timeout=timeout, cwd=here)
    assert p.returncode == 0, p.stderr[-3000:]
    with open(out) as f:
        doc = json.load(f)
    assert doc["torch"].startswith("2.13"), doc["torch"]
    return {script: doc["answers"][script[:-3]] for script in jobs}


# The test modules' cases for the session's one world (issue 36: a world is four torch
# imports, 15-25 s of a 2-core CI each; the modules had one apiece).  Each module registers
# its worker's cases as it is imported (collected); the first module fixture to need an
# answer runs them all, and the rest read theirs.
_registered = {}
_answered = {}


def register(script, cases):
    """Add a worker script's cases to the session's world (at a test module's import)."""
    _registered[script] = cases


def session_answers(script, tmp_path_factory):
    """The answers to script's registered cases, from the session's one world."""
    if script not in _answered:
        pending = {s: c for s, c in _registered.items() if s not in _answered}
        _answered.update(run_jobs(pending, tmp_path_factory.mktemp("gloo_world")))
    return _answered[script]


def _answer(case, meshes, rank):
    return (_layout if case["kind"] == "layout" else _plan)(case, meshes)


def _refusal(e):
    return {"raises": _error(e), "where": traceback.extract_tb(e.__traceback__)[-1].name}


def _merge(cases, every):
    """One answer per case: rank 0's, with every rank's local shape."""
    merged = []
    for i in range(len(cases)):
        per = [every[r][i] for r in range(len(every))]
        one = dict(per[0])
        if "localShape" in one:
            one["localShape"] = [p.get("localShape") for p in per]
        merged.append(one)
    return merged


WORKER = (_answer, _refusal, _merge)

if __name__ == "__main__":
    spawn("torch_input_worker")
