"""common.py — probes several torch test files' rows share (see pins/__init__.py).

A mesh here is a DeviceMesh of sizes only (no process group: _torch_common.layout_mesh), and
placements are written in the CLI's notation, parsed by the harness's _torch_common into torch
objects, so a row's "args" read as its "cli" does.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "adapters"))
import _torch_common as tc  # noqa: E402

from pins import refusal  # noqa: E402


def parse(text):
    """Torch placement objects for the CLI's notation ("S(0),_S(0, 2),P(sum)")."""
    pls, _ = tc.parse_placements(text)
    return list(pls)


def local_shape_offset(mesh, shape, placements, rank):
    """torch's _compute_local_shape_and_global_offset for the rank's coordinate on a
    row-major mesh: {"shape": [...], "offset": [...]}."""
    from torch.distributed.tensor._utils import _compute_local_shape_and_global_offset
    coord, r = [], rank
    for size in reversed(mesh):
        coord.insert(0, r % size)
        r //= size
    try:
        ls, off = _compute_local_shape_and_global_offset(list(shape), list(mesh), coord,
                                                        parse(placements))
    except Exception as e:  # torch's refusal, compared by the row
        return refusal(e)
    return {"shape": list(ls), "offset": list(off)}
