"""gpu_tolerance.py — the harness's mirror of conformance/corpus/golden_tolerance.c: how a
GpuOnly case's sampled values are compared within its stated tolerance.

What it is for: a GpuOnly case carrying "tolerance": {"dtype", "ulp"} has its sampled values
compared within ulp units in the last place of dtype at max(|expected|, 1), and a digest that
differs is a note, not a failure; every other field stays exact (harnesslib.diff_expected routes
only the value and digest fields here).  The numbers live in the golden file (written from the one
C table), so this module holds none.

How it is tested: tools/harness/tests/test_tolerance.py (the golden torch-cuda-rng cases moved
within, at and one ulp past their tolerance; bad words, NaN, other indices), and verify_gpuonly.sh
holds the C side to the same answers.
"""

import json
import math
import struct

_MBITS = {"float32": 23, "float64": 52, "float16": 10, "bfloat16": 7}
DIGEST_FIELDS = ("sha256", "digest")
VALUE_FIELDS = ("samples", "sample", "bits")


def tolerance_of(test):
    """The test's tolerance dict when it is a well-formed one on a GpuOnly case, else
    None (compare exactly; the C loader refuses such a golden file outright)."""
    tol = test.get("tolerance") if isinstance(test, dict) else None
    if not isinstance(tol, dict) or "GpuOnly" not in (test.get("flags") or []):
        return None
    ulp = tol.get("ulp")
    if set(tol) != {"dtype", "ulp"} or tol.get("dtype") not in _MBITS or \
            type(ulp) is not int or not 1 <= ulp <= 1 << 20:
        return None
    return tol


def _word(dtype, w):
    """A hex word of dtype as a float, or None when it is not one."""
    width = {52: 16, 23: 8}.get(_MBITS[dtype], 4)
    if not isinstance(w, str) or len(w) != width or \
            any(c not in "0123456789abcdefABCDEF" for c in w):
        return None
    b = int(w, 16)
    if dtype == "float64":
        return struct.unpack("<d", struct.pack("<Q", b))[0]
    if dtype == "float16":
        return struct.unpack("<e", struct.pack("<H", b))[0]
    return struct.unpack("<f", struct.pack("<I", b << 16 if dtype == "bfloat16" else b))[0]


def ulp_distance(dtype, want, got):
    """|got - want| in ulp of dtype at max(|want|, 1) (below 1 the GPU's error is absolute)."""
    e = math.frexp(max(abs(want), 1.0))[1]
    return abs(got - want) / math.ldexp(1.0, e - 1 - _MBITS[dtype])


def _words_within(tol, where, want, got, state):
    """None when every word of got is within tol of want (state["worst"] updated), else why."""
    dt = tol["dtype"]
    if not isinstance(got, list):
        return "%s: expected an array of %d values, got none" % (where, len(want))
    if len(got) != len(want):
        return "%s: expected %d values, got %d" % (where, len(want), len(got))
    for i, (w, g) in enumerate(zip(want, got)):
        a, b = _word(dt, w), _word(dt, g)
        if a is None:
            return "%s[%d]: the golden value is not a %s word" % (where, i, dt)
        if b is None:
            return "%s[%d]: expected a %s word (%d hex digits) like \"%s\", got %s" % (
                where, i, dt, len(w), w, g if isinstance(g, str) else "a non-string")
        if w == g:
            continue
        if not (math.isfinite(a) and math.isfinite(b)):
            return "%s[%d]: expected %s, got %s (%s): not finite, no tolerance applies" % (
                where, i, w, g, "NaN" if math.isnan(b) else "inf")
        d = ulp_distance(dt, a, b)
        if d > tol["ulp"]:
            return "%s[%d]: expected %s (%.9g), got %s (%.9g): %d ulp, over the GpuOnly " \
                "tolerance of %d ulp (%s)" % (where, i, w, a, g, b, math.ceil(d), tol["ulp"], dt)
        state["worst"] = max(state["worst"], d)
    return None


def tolerant_field(tol, field, want, got, state):
    """None when field's value passes under tol, else why.  Sampled values within the
    tolerance; a digest that differs is remembered in state["digest"] for the note;
    everything else exact.  state: {"worst": 0.0, "digest": None, "values": 0}."""
    if field in VALUE_FIELDS:
        state["values"] += 1
        if field != "samples":
            return _words_within(tol, field, want, got, state)
        if not isinstance(got, dict) or got.get("index") != want.get("index"):
            return "samples.index: the candidate's sample indices differ from golden's " \
                "(they must be the same elements)"
        return _words_within(tol, "samples.bits", want.get("bits") or [], got.get("bits"), state)
    if field in DIGEST_FIELDS and isinstance(got, str) and len(got) == len(want):
        if got != want:
            state["digest"] = field
        return None
    # a digest of another type or length: never equal to golden's string
    return "%s: expected %s, got %s" % (field, _short(want), _short(got))


def tolerant_outcome(tol, state):
    """(why it fails or None, note or None) once every field passed under tol."""
    if state["digest"] and not state["values"]:
        return ("%s: differs, and the case has no samples to compare within its GpuOnly "
                "tolerance" % state["digest"]), None
    if state["digest"] or state["worst"] > 0:
        return None, "note: %s differs (GpuOnly: samples within %d ulp of %s, largest %d)" % (
            state["digest"] or "samples", tol["ulp"], tol["dtype"], math.ceil(state["worst"]))
    return None, None


def _short(v, limit=200):
    s = json.dumps(v, separators=(",", ":")) if not isinstance(v, str) else v
    return s if len(s) <= limit else s[:limit] + "...(%d chars)" % len(s)
