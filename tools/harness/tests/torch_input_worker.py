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
  {"kind": "plan", "mesh": [4], "shape": [8, 4], "src": [...], "dst": [...]}
      The source DTensor (from_local for a Partial, distribute_tensor otherwise: both
      normalise), then DTensor.redistribute to dst, or for a Partial target the internal
      redistribute_local_tensor (what `shardcheck plan` models; the public redistribute
      refuses a Partial target the tensor does not already have).
Placements are given as [kind, arg...]: ["S", d], ["_S", d, sf], ["P", op], ["R"].

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
    srcp = [_placement(p) for p in case["src"]]
    if any(p.is_partial() for p in srcp):  # each rank's partial value, full-size
        local = torch.tensor([2.0 + rank, 3.0, 5.0, 7.0]).repeat(case["shape"][0], 1)
        local = local[:, :case["shape"][1]].contiguous()
        src = DTensor.from_local(local, mesh, srcp, run_check=False,
                                 shape=torch.Size(case["shape"]), stride=(case["shape"][1], 1))
    else:  # distribute_tensor normalises negative dims too (_api.py:971-990)
        g = torch.arange(torch.Size(case["shape"]).numel(), dtype=torch.float32)
        src = distribute_tensor(g.reshape(case["shape"]), mesh, srcp)
    dst = [_placement(p) for p in case["dst"]]
    if not any(p.is_partial() for p in dst):  # the public API, which normalises dst
        out = src.redistribute(mesh, dst)
        return {"src": ",".join(str(p) for p in src.placements),
                "dst": ",".join(str(p) for p in out.placements),
                "localShape": list(out.to_local().shape)}
    meta = TensorMeta(torch.Size(case["shape"]), (case["shape"][1], 1), torch.float32)
    dst_spec = DTensorSpec(mesh, tuple(dst), tensor_meta=meta)
    out = redistribute_local_tensor(src.to_local(), src._spec, dst_spec)
    return {"src": ",".join(str(p) for p in src.placements),
            "dst": ",".join(str(p) for p in dst_spec.placements),
            "localShape": list(out.shape)}


def serve(rank, world, init, cases, out_path, answer, refusal, merge):
    """One rank of the gloo world: answer(case, meshes, rank) for each case (an exception is
    torch's refusal and the answer: refusal(e)); every rank's answers are all-gathered and
    rank 0 writes {"torch", "answers": merge(cases, every)} to out_path.  Shared with
    global_shape_worker.py so both workers join, gather and leave the world the same way."""
    import torch
    import torch.distributed as dist
    from torch.distributed.device_mesh import init_device_mesh
    warnings.filterwarnings("ignore")
    dist.init_process_group("gloo", init_method=init, rank=rank, world_size=world)
    meshes = {(4,): init_device_mesh("cpu", (4,)), (2, 2): init_device_mesh("cpu", (2, 2))}
    answers = []
    for case in cases:
        try:
            got = answer(case, meshes, rank)
        except Exception as e:  # torch's refusal is the answer
            got = refusal(e)
        answers.append(got)
    every = [None] * world
    dist.all_gather_object(every, answers)
    if rank == 0:
        with open(out_path, "w") as f:
            json.dump({"torch": torch.__version__, "answers": merge(cases, every)}, f)
    dist.barrier()
    dist.destroy_process_group()


def spawn(answer, refusal, merge):
    """Run serve in a gloo world of 4 CPU processes on the cases on stdin, out to argv[1]
    (its rendezvous file beside it)."""
    import torch.multiprocessing as mp
    cases = json.load(sys.stdin)
    out_path = sys.argv[1]
    init = "file://" + os.path.abspath(out_path) + ".rendezvous"
    mp.spawn(serve, args=(4, init, cases, out_path, answer, refusal, merge), nprocs=4)


def refusal_raises(e):
    """torch's refusal as the answer: {"raises": {type, message}} (the gloo workers' form)."""
    return {"raises": _error(e)}


def merge_per_rank(cases, every):
    """Per case, every rank's answer (the gloo workers' form)."""
    return [[every[r][i] for r in range(len(every))] for i in range(len(cases))]


def run_cases(script, cases, out_dir, timeout=540):
    """Run a gloo worker script (one of this folder's, serving with spawn) on cases and return
    its answers, checking it ran torch 2.13: what every test on such a worker starts with."""
    import subprocess
    here = os.path.dirname(os.path.abspath(__file__))
    out = os.path.join(str(out_dir), "answers.json")
    p = subprocess.run([sys.executable, os.path.join(here, script), out],
                       input=json.dumps(cases), capture_output=True, text=True,
                       timeout=timeout, cwd=here)
    assert p.returncode == 0, p.stderr[-3000:]
    with open(out) as f:
        doc = json.load(f)
    assert doc["torch"].startswith("2.13"), doc["torch"]
    return doc["answers"]


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


if __name__ == "__main__":
    spawn(_answer, _refusal, _merge)
