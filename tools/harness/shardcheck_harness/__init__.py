"""shardcheck_harness — the public adapter contract of shardcheck's Python harness.

What it is for: a vendor checks their own DTensor port against the golden
corpus with an adapter module (FAMILY, compute(group, test), optionally
FIELDS) and needs nothing private: this package re-exports the harness
(run_family, load_adapter, iter_cases, results) and the torch-free parsing of
the golden notation (meshes, rank maps, shapes, placements in torch's
`S(0),_S(0, 2),P(sum)` and trace `S(0)[1]S(0)[0]R` forms).  It is importable
from the venv that tools/harness/setup_venv.sh sets up (a .pth file), with no
sys.path edits:

    import shardcheck_harness as sh
    placements, order = sh.parse_placements("S(0)[1]S(0)[0]R")
    res = sh.run_family("rng-offsets", sh.load_adapter("my_adapter.py"))

Partial ports: an adapter that sets FIELDS = {"start_incr", ...} is compared
on those fields only; every other expected field is reported NotSupported
(never Fail), and a field it claims but leaves out of its result fails with
"field claimed in FIELDS but missing from the result".  The contract is in
tools/harness/README.md; a worked partial port is tools/harness/examples/.

How it is tested: tools/harness/tests/test_partial.py (imports it from a
subprocess with no path edits, partial adapters, notation round trips).
"""

import os as _os
import sys as _sys

_HERE = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
if _HERE not in _sys.path:  # harnesslib lives beside this package
    _sys.path.append(_HERE)

from harnesslib import (DEFAULT_GOLDEN, FamilyResult, Mismatch,  # noqa: E402,F401
                        adapter_fields, check_adapter, families_in, family_files, iter_cases,
                        load_adapter, results_document, run_family, values_equal)
from .notation import (Placement, c10d_reduce_op, coordinates, field,  # noqa: E402,F401
                       format_placements, normalize, parse_mesh, parse_placement,
                       parse_placements, parse_shape, rank_map)

__all__ = ["DEFAULT_GOLDEN", "FamilyResult", "Mismatch", "Placement", "adapter_fields",
           "c10d_reduce_op", "check_adapter", "coordinates", "families_in", "family_files",
           "field", "format_placements", "iter_cases", "load_adapter", "normalize",
           "parse_mesh", "parse_placement", "parse_placements", "parse_shape", "rank_map",
           "results_document", "run_family", "values_equal"]
