"""pins — the probes that ask real torch what conformance/torch_pins/*.json asks shardcheck.

Issue 34 item 6.  A row's "torch" entry names a probe as MODULE.FUNCTION (one module here per
torch test file, named for it: test_utils.py answers conformance/torch_pins/test_utils.json;
common.py holds the probes several files share) with keyword arguments; the probe calls torch
2.x's own functions and returns plain JSON values, or {"error": "Type: message"} where torch
refuses.  A probe computes with torch only: it must never read shardcheck's answer (the rows'
expected values come from torch's tests, and the two sides are checked apart).
"""

import importlib


def probe(name):
    """The probe function a row names ("test_utils.local_shape_offset")."""
    module, _, func = name.rpartition(".")
    if not module:
        raise ValueError(f"probe '{name}' is not MODULE.FUNCTION")
    return getattr(importlib.import_module(f"pins.{module}"), func)


def refusal(exc):
    """A torch exception as the rows' want_error texts are matched against it."""
    return {"error": f"{type(exc).__name__}: {exc}"}
