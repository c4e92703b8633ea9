"""_common.py — shared set-up of the torch 2.13 findings' reproducers (docs/findings/*.py).

Each reproducer is a standalone script for `torchrun --nproc-per-node N script.py` on CPU with
gloo (no GPU needed), written so it can be attached to an upstream report: it builds the global
tensor as an arange, lays it out with torch's own APIs, runs one real redistribute, and compares
every rank's local result with the slice of the global tensor that the target placements name.
Exit status: 1 when the finding reproduced, 0 when torch behaved, 2 on a set-up problem.
"""
import os
import sys
from datetime import timedelta

import torch
import torch.distributed as dist


def init(world, timeout_s=60):
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    torch.set_num_threads(1)
    dist.init_process_group("gloo", timeout=timedelta(seconds=timeout_s))
    if dist.get_world_size() != world:
        if dist.get_rank() == 0:
            print("run me with torchrun --nproc-per-node %d" % world, file=sys.stderr)
        sys.exit(2)
    return dist.get_rank()


def mesh(shape, flatten=()):
    from torch.distributed.device_mesh import init_device_mesh
    names = tuple("d%d" % i for i in range(len(shape)))
    m = init_device_mesh("cpu", tuple(shape), mesh_dim_names=names)
    for dims in flatten:
        m[tuple(names[d] for d in dims)]._flatten()
    return m


def expected_local(glob, m, placements):
    """The slice of glob the placements give this rank: Replicate the global tensor, then let
    torch chunk it locally (no collectives), the layout DTensor promises."""
    from torch.distributed.tensor import distribute_tensor
    return distribute_tensor(glob, m, placements, src_data_rank=None).to_local()


def report(rank, ok, what):
    """Gather every rank's verdict; rank 0 prints them and the script's outcome."""
    verdicts = [None] * dist.get_world_size()
    dist.all_gather_object(verdicts, (rank, ok, what))
    reproduced = not all(v[1] for v in verdicts)
    if rank == 0:
        for r, good, text in verdicts:
            print("rank %d: %s%s" % (r, "ok" if good else "WRONG ", "" if good else text))
        print("torch %s: %s" % (torch.__version__,
                                "REPRODUCED" if reproduced else "not reproduced (torch behaved)"))
    dist.destroy_process_group()
    sys.exit(1 if reproduced else 0)
