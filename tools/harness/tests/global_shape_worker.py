"""global_shape_worker.py — real torch 2.13's compute_global_tensor_shape, every rank its own
local shape.

What it is for: test_placement.py compares `shardcheck placement global --local-shapes` with
torch (_utils.py compute_global_tensor_shape all-gathers the local shapes, so one process
cannot ask it: a gloo world of 4 CPU processes does).  Run as a script with the case list as
JSON on stdin; rank 0 writes one JSON object to argv[1]: per case, every rank's answer (the
global shape, or the exception torch raised: type and first line).

Cases: {"mesh": [4] or [2, 2], "placements": [[kind, arg...], ...], "locals": [shape per
rank]}, placements as in torch_input_worker.py.

How it is tested: it is the torch side of test_placement.py's test_global_shape.
"""

import json
import os
import sys
import warnings

from torch_input_worker import _error, _placement


def _body(rank, world, init, cases, out_path):
    import torch
    import torch.distributed as dist
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor._utils import compute_global_tensor_shape
    warnings.filterwarnings("ignore")
    dist.init_process_group("gloo", init_method=init, rank=rank, world_size=world)
    meshes = {(4,): init_device_mesh("cpu", (4,)), (2, 2): init_device_mesh("cpu", (2, 2))}
    answers = []
    for case in cases:
        try:
            got = {"shape": list(compute_global_tensor_shape(
                torch.Size(case["locals"][rank]), meshes[tuple(case["mesh"])],
                [_placement(p) for p in case["placements"]]))}
        except Exception as e:  # torch's refusal is the answer
            got = {"raises": _error(e)}
        answers.append(got)
    every = [None] * world
    dist.all_gather_object(every, answers)
    if rank == 0:
        with open(out_path, "w") as f:
            json.dump({"torch": torch.__version__,
                       "answers": [[every[r][i] for r in range(world)]
                                   for i in range(len(cases))]}, f)
    dist.barrier()
    dist.destroy_process_group()


def main():
    import torch.multiprocessing as mp
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    cases = json.load(sys.stdin)
    out_path = sys.argv[1]
    init = "file://" + os.path.abspath(out_path) + ".rendezvous"
    mp.spawn(_body, args=(4, init, cases, out_path), nprocs=4)


if __name__ == "__main__":
    main()
