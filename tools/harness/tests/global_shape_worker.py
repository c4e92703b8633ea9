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

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_input_worker import _placement, merge_per_rank, refusal_raises, spawn  # noqa: E402


def _answer(case, meshes, rank):
    import torch
    from torch.distributed.tensor._utils import compute_global_tensor_shape
    return {"shape": list(compute_global_tensor_shape(
        torch.Size(case["locals"][rank]), meshes[tuple(case["mesh"])],
        [_placement(p) for p in case["placements"]]))}




WORKER = (_answer, refusal_raises, merge_per_rank)

if __name__ == "__main__":
    spawn("global_shape_worker")
