"""rng_offsets_partial.py — the harness adapter of mini_rng_tracker (a partial port).

What it is for: the worked example of an adapter that computes only some of a
family's fields.  FIELDS names them; the harness compares those and reports
every other expected field (rng-offsets' local_numel and findings, and the
whole random-data group: post_offset, start_offset, digest, sample) as
NotSupported, never as a failure.  It imports only the public
shardcheck_harness package (installed into the venv by setup_venv.sh).

    .venv/bin/python tools/harness/run.py --adapter tools/harness/examples/rng_offsets_partial.py

How it is tested: tools/harness/tests/test_partial.py.
"""

import shardcheck_harness as sh

import mini_rng_tracker as port   # the implementation under test (beside this file)

FAMILY = "rng-offsets"
FIELDS = {"end_incr", "first_shard_numel", "shard_linear_index", "start_incr"}


def compute(group, test):
    if "op" in test or "op" in group:   # which op (ops.json, random-data): tracked or not
        raise NotImplementedError("the op dimension is not ported by mini_rng_tracker")
    mesh = sh.parse_mesh(sh.field(group, test, "mesh"))
    shape = sh.parse_shape(sh.field(group, test, "shape"))
    placements, _order = sh.parse_placements(sh.field(group, test, "placements"))
    coords = sh.coordinates(mesh, sh.rank_map(group, test))
    lin, start = [], []
    end = first = None
    for coord in coords:                        # indexed by global rank
        s, end, first, k = port.offsets(shape, mesh, placements, coord)
        lin.append(k)
        start.append(s)
    return {"end_incr": end, "first_shard_numel": first,
            "perRank": {"shard_linear_index": lin, "start_incr": start}}
