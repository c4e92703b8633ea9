"""duplicate_rank_map_hang.py — torch 2.13: a DeviceMesh whose rank map names a rank twice
(mesh [[0, 1], [1, 3]] on a world of 4) is not rejected up front on every rank.  DeviceMesh
builds one process group per mesh row and column (device_mesh.py _init_process_groups); with a
duplicate, the ranks disagree: on a real gloo run rank 1 raises "Each device mesh dimension should
get only one process group", rank 2 (absent from the mesh) builds it without complaint, and ranks
0 and 3 wait in group creation for peers that never join, until the process-group timeout.  Found by the real-process
torch backend (`shardcheck run --backend torch --family group-ranks`, tc 21101, a Timeout),
where the golden file (and a simulation) expect every rank to reject the mesh.

    torchrun --nproc-per-node 4 docs/findings/duplicate_rank_map_hang.py

Each rank builds the mesh under a 20 s process-group timeout and prints what happened (raised,
built, or hung).  Exit 1: reproduced (some rank did not raise).
"""
import os
import threading
import time

import torch
from torch.distributed.device_mesh import DeviceMesh

import _common as c

LIMIT_S = 20
rank = c.init(4, timeout_s=LIMIT_S)
outcome = {"what": "hung"}


def build():
    try:
        DeviceMesh("cpu", torch.tensor([[0, 1], [1, 3]]))
        outcome["what"] = "built"
    except Exception as exc:  # torch's own rejection is the behaviour the corpus expects
        outcome["what"] = "raised: %s" % str(exc).splitlines()[0][:120]


t = threading.Thread(target=build, daemon=True)
t0 = time.monotonic()
t.start()
t.join(LIMIT_S + 5)
time.sleep(max(0.0, LIMIT_S + 5 - (time.monotonic() - t0)))  # every rank reports at the deadline
what = outcome["what"]
# No collective after this point: a hung peer would make it hang too.  Each rank prints its own
# outcome; torchrun's exit status is 1 when any rank built the mesh or hung (reproduced).
good = what.startswith("raised")
print("rank %d: %s%s" % (rank, "ok " if good else "WRONG ", what), flush=True)
os._exit(0 if good else 1)
