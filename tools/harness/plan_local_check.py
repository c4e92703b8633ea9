"""plan_local_check.py — what `shardcheck plan` says torch does locally on each rank (the
local tensor after each step, and the ops each step dispatches), against what torch itself does,
on one process simulating every rank on torch's fake process group (tc.device_mesh).

Shared by tools/harness/tests/test_plan_local.py (pytest, the pinned release) and
tools/scripts/release_check.sh, which runs

  python plan_local_check.py --torch-version V     (V: the release of the python running it)

with the newest release's python: every rank of every plan below, the CLI's "ops" (asked with
--torch-version V) against a TorchDispatchMode's record of torch V's redistribute_local_tensor.
Prints "ops: N ranks compared, M differ" (each difference first) and exits 1 when any does, 2
when the CLI states no ops at all for V (a release it does not claim them for).
"""

import itertools
import json
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
EXE = os.environ.get("SHARDCHECK") or os.path.join(REPO, "_build", "tools", "shardcheck")
sys.path.insert(0, os.path.join(HERE, "adapters"))

PLACEMENTS = ["R", "S(0)", "S(1)", "S(2)", "P(sum)", "P(max)", "_S(0, 2)", "_S(1, 2)"]
TARGETS = ["R", "S(0)", "S(1)", "S(2)", "_S(0, 2)"]
SHAPES = [(8, 8, 8), (7, 5, 3), (13, 3, 10), (3, 2, 1)]


def cases():
    rnd = random.Random(34)
    out = []
    for mesh in [(4,), (2, 4), (4, 2)]:
        pairs = list(itertools.product(itertools.product(PLACEMENTS, repeat=len(mesh)),
                                       itertools.product(TARGETS, repeat=len(mesh))))
        for shape in SHAPES:
            for src, dst in rnd.sample(pairs, min(len(pairs), 12)):
                out.append((mesh, shape, ",".join(src), ",".join(dst)))
    # the uneven reshards and reduce-scatters that leave views, by name
    out += [((4,), (7, 5, 3), "S(1)", "S(0)"), ((4,), (7, 5, 3), "P(sum)", "S(1)"),
            ((4,), (5, 9, 6), "S(2)", "S(1)"), ((2, 2), (7, 5, 3), "R,S(0)", "R,S(2)")]
    return out


# merged steps over a flattened mesh (torch merges them when the flattened mesh exists)
MERGED = [((2, 4), (13, 6), "S(0),S(0)", "R,R"), ((2, 4), (9, 7), "P(sum),P(sum)", "R,R"),
          ((2, 2), (7, 5), "S(1),S(1)", "R,R"), ((2, 4), (8, 3), "P(avg),P(avg)", "R,R")]


def cli_locals(mesh, shape, src, dst, flatten=False):
    p = subprocess.run([EXE, "plan", "--mesh", "x".join(map(str, mesh)), "--shape",
                        ",".join(map(str, shape)), "--src", src, "--dst", dst, "--json"]
                       + (["--flatten", "0+1"] if flatten else []),
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        return None  # a plan the CLI refuses (torch's refusal): nothing to hold
    out = {}
    for r in json.loads(p.stdout)["ranks"]:
        if r.get("torchRaises") or r.get("torchCannotExecute"):
            return None
        steps = r["steps"]
        if steps and "local" not in steps[-1]:
            out[r["rank"]] = "not modelled"
        elif steps:
            out[r["rank"]] = steps[-1]["local"]
    return out


def torch_local(mesh, shape, src, dst, rank, flatten=False, mode=None):
    import torch
    import _torch_common as tc
    from torch.distributed.tensor._dtensor_spec import DTensorSpec, TensorMeta
    from torch.distributed.tensor._redistribute import (_gen_transform_infos,
                                                        clear_redistribute_planner_cache,
                                                        redistribute_local_tensor)
    from torch.distributed.tensor._utils import compute_local_shape_and_global_offset
    n = 1
    for s in mesh:
        n *= s
    m = tc.device_mesh(list(mesh), list(range(n)), rank)
    # each process of a job plans for itself: torch's planner caches key on specs and meshes
    # that compare equal across ranks, so one process simulating several ranks clears them
    _gen_transform_infos.cache_clear()
    clear_redistribute_planner_cache()
    if flatten:
        m[tuple(tc.dim_names(len(mesh)))]._flatten()
    sp, _ = tc.parse_placements(src)
    dp, _ = tc.parse_placements(dst)
    meta = TensorMeta(torch.Size(shape), torch.empty(shape).stride(), torch.float32)
    ls, _ = compute_local_shape_and_global_offset(torch.Size(shape), m, list(sp))
    x = torch.zeros(ls)
    import contextlib
    with mode if mode is not None else contextlib.nullcontext():
        y = redistribute_local_tensor(x, DTensorSpec(m, tuple(sp), tensor_meta=meta),
                                      DTensorSpec(m, tuple(dp), tensor_meta=meta))
    # the strides no element is addressed by (a size-1 dim, an empty tensor) are the CLI's
    # null: they differ by device (cmd_plan.c local_json)
    stride = [None if n == 1 else s for n, s in zip(y.shape, y.stride())]
    return {"shape": list(y.shape), "stride": stride if y.numel() else None,
            "contiguous": y.is_contiguous()}


BOOKKEEPING = {"_c10d_functional._wrap_tensor_autograd.default",
               "_c10d_functional.wait_tensor.default"}


def cli_ops(mesh, shape, src, dst, flatten=False, release=None):
    """Every rank's ops over its whole plan (the steps' "ops" one after another), or None where
    the CLI refuses the plan, says torch raises, or leaves a step's ops unstated."""
    p = subprocess.run([EXE, "plan", "--mesh", "x".join(map(str, mesh)), "--shape",
                        ",".join(map(str, shape)), "--src", src, "--dst", dst, "--json"]
                       + (["--flatten", "0+1"] if flatten else [])
                       + (["--torch-version", release] if release else []),
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        return None
    out = {}
    for r in json.loads(p.stdout)["ranks"]:
        if r.get("torchRaises") or r.get("torchCannotExecute"):
            return None
        if any("ops" not in st for st in r["steps"]):
            return None
        out[r["rank"]] = [op for st in r["steps"] for op in st["ops"]]
    return out


def torch_ops(mesh, shape, src, dst, rank, flatten=False):
    """The ops torch 2.13 dispatches in redistribute_local_tensor on this rank, as a
    TorchDispatchMode records them, less the functional collectives' bookkeeping."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    class Record(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.ops = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.ops.append(str(func))
            return func(*args, **(kwargs or {}))

    rec = Record()
    torch_local(mesh, shape, src, dst, rank, flatten=flatten, mode=rec)
    return [op for op in rec.ops if op not in BOOKKEEPING]


# Beyond cases(): the branches the ops depend on, by name — a gather's view (every dim before
# the gathered one of size 1), a logical size past Python's small-int cache (one more slice),
# empty chunks (new_zeros; split_with_sizes of an empty dim), a non-contiguous source of a
# gather (clone first), reduce-scatters of uneven dims other than 0.
OPS_CASES = [((4,), (1, 8, 3), "S(1)", "R"), ((4,), (1, 1, 8), "S(2)", "R"),
             ((4,), (2, 8), "S(1)", "R"), ((4,), (300, 2), "S(0)", "R"),
             ((4,), (301, 2), "S(0)", "R"), ((4,), (2, 300), "S(1)", "R"),
             ((4,), (5, 3), "R", "S(0)"), ((4,), (3, 2), "R", "S(0)"), ((4,), (0, 3), "R", "S(0)"),
             ((4,), (0, 3), "S(0)", "R"), ((4,), (7, 5, 3), "P(sum)", "S(2)"),
             ((4,), (7, 5), "P(sum)", "S(0)"), ((2, 4), (7, 6, 5), "S(1),S(2)", "R,R"),
             ((2, 2), (6, 5, 3), "S(2),S(1)", "S(0),R"), ((4,), (5, 9, 6), "S(2)", "S(0)"),
             ((4,), (8, 8), "R", "P(sum)"), ((4,), (8, 8), "R", "P(max)"),
             ((4,), (8, 8), "P(avg)", "R"), ((4,), (3, 1), "S(0)", "S(1)")]


def compare_ops(release=None, out=sys.stdout):
    """Every rank of cases() + OPS_CASES whose ops the CLI states: (compared, differ)."""
    import logging
    logging.disable(logging.WARNING)  # the CPU all_to_all fallback's warning
    n = bad = 0
    for mesh, shape, src, dst in cases() + OPS_CASES:
        got = cli_ops(mesh, shape, src, dst, release=release)
        for rank, ops in (got or {}).items():
            n += 1
            theirs = torch_ops(mesh, shape, src, dst, rank)
            if ops != theirs:
                bad += 1
                print("DIFF mesh %s shape %s %s -> %s rank %d\n  shardcheck %s\n  torch      %s"
                      % (mesh, shape, src, dst, rank, ops, theirs), file=out)
    return n, bad


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--torch-version", help="the release the CLI answers for (the python's own)")
    a = ap.parse_args()
    n, bad = compare_ops(a.torch_version)
    print("ops: %d ranks compared, %d differ" % (n, bad))
    sys.exit(2 if n == 0 else (1 if bad else 0))
