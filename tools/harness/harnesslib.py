"""harnesslib.py — the reference harness: load golden files, run an adapter, compare.

What it is for: every golden case that lib/ wrote is recomputed by an
independent implementation (torch 2.13 itself, jax, or a vendor's own Python
code) through an *adapter* module, and every disagreement is reported with its
tcId, field and rank.  The adapter contract is in README.md beside this file.

How it is tested: tools/harness/tests/ (pytest) feeds hand-made golden files
and deliberately wrong adapters through run_family() and checks that each kind
of disagreement (tampered value, raising adapter, accepted invalid case,
schema violation) is reported; tests/test_partial.py checks partial adapters
(FIELDS: undeclared fields are NotSupported, a declared field left out fails).

Public entry point for vendors: the `shardcheck_harness` package (this module's
API plus torch-free parsing of the golden notation), importable from the venv
that tools/harness/setup_venv.sh sets up.
"""

import importlib
import importlib.util
import json
import os
import sys
import sysconfig
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
# As the C commands find it (tools/cli/cli_common.c): --golden, then $SHARDCHECK_GOLDEN, then
# the checkout's corpus (the harness runs from a checkout, beside its golden/).
DEFAULT_GOLDEN = os.environ.get("SHARDCHECK_GOLDEN") or os.path.join(REPO, "golden")
DEFAULT_ADAPTER_DIR = os.path.join(HERE, "adapters")

# Exceptions an adapter raises to say "I do not compute this case": the case is
# counted as skipped, never as passed.
SKIP_EXCEPTIONS = (NotImplementedError,)

# Test fields an adapter never sees: the answer, whether the case is invalid
# (an adapter that could read them would pass without computing anything), and
# how the answer is compared (a GpuOnly tolerance).
HIDDEN_FIELDS = ("expected", "result", "tolerance", "byVersion")


# ---------------------------------------------------------------- torch releases
# Each torch family's golden files answer for the releases listed in source.releases
# (docs/torch-releases.md); a test whose answer differs in some of them carries
# "byVersion": [{"torch": [releases], "result", "expected"}].  The answer for release V is
# the entry listing V, else the top-level result/expected (the pinned release's).

class ReleaseError(ValueError):
    """An unknown or unsupported torch version (the message lists the supported ones)."""


def torch_minor(version):
    """'2.13.0+cpu' -> '2.13' (the minor a torch build belongs to)."""
    base = str(version).split("+", 1)[0]
    return ".".join(base.split(".")[:2])


# The releases the reference models, the patch of each minor and the pinned one (the
# release the top-level answers are) are the binary's: `shardcheck registry --json releases`
# prints lib/core/torch_release.c's table, so a new release is added there alone
# (tests/test_releases.py holds the two together).  The binary is $SHARDCHECK, else the
# checkout's _build/tools/shardcheck, else `shardcheck` on PATH.
_REGISTRY = {}


def shardcheck_exe():
    """The shardcheck binary the harness asks, or None when none is built or installed."""
    exe = os.environ.get("SHARDCHECK") or os.path.join(REPO, "_build", "tools", "shardcheck")
    if os.access(exe, os.X_OK):
        return exe
    import shutil
    return shutil.which("shardcheck")


def registry(section):
    """One section of `shardcheck registry --json` (releases, families, flags, backends),
    asked once per process; ReleaseError when no binary answers."""
    if section not in _REGISTRY:
        import subprocess
        exe = shardcheck_exe()
        if exe is None:
            raise ReleaseError("the torch releases and families come from `shardcheck registry`: "
                               "no shardcheck found (build it, or set SHARDCHECK to the binary)")
        p = subprocess.run([exe, "registry", "--json", section], capture_output=True, text=True,
                           check=False)
        if p.returncode != 0:
            raise ReleaseError("%s registry --json %s: exit %d: %s"
                               % (exe, section, p.returncode, p.stderr.strip()[:300]))
        _REGISTRY[section] = json.loads(p.stdout)
    return _REGISTRY[section]


def patches():
    """{minor: the patch modelled} for every release, oldest first ('2.13': '2.13.0')."""
    return {r["name"]: r["patch"] for r in registry("releases")["releases"]}


def pinned_release():
    """The release whose answers the golden files' top level holds ('2.13')."""
    return registry("releases")["pinned"]


def parse_release(spec):
    """A --torch-version value ('2.15' or its newest patch '2.15.0') -> '2.15', or
    ReleaseError naming the supported releases."""
    s = str(spec).strip()
    table, pin = patches(), pinned_release()
    if s in table:
        return s
    for minor, patch in table.items():
        if s == patch:
            return minor
    why = "empty" if not s else "a local version tag (+...) is not a release" if "+" in s \
        else "not a supported release"
    raise ReleaseError("torch version '%s': %s; supported: %s (a minor, or its newest patch)"
                       % (s, why, ", ".join("%s (%s%s)" % (m, p, ", the pinned default"
                                                            if m == pin else "")
                                            for m, p in table.items())))


def answer_for(test, release):
    """(result, expected) of a golden test for torch release `release` ('2.15'; None: the
    top-level answer, the pinned release's)."""
    if release is not None:
        for e in test.get("byVersion") or []:
            if isinstance(e, dict) and release in (e.get("torch") or []):
                return e.get("result", "valid"), e.get("expected", {})
    return test.get("result", "valid"), test.get("expected", {})


class Mismatch:
    """One disagreement between a golden file and an adapter."""

    __slots__ = ("family", "tcid", "field", "rank", "expected", "got", "note", "path")

    def __init__(self, family, tcid, field, rank, expected, got, note="", path=""):
        self.family, self.tcid, self.field, self.rank = family, tcid, field, rank
        self.expected, self.got, self.note, self.path = expected, got, note, path

    def as_dict(self):
        return {k: getattr(self, k) for k in self.__slots__}

    def __str__(self):
        where = [self.family]
        if self.tcid is not None:
            where.append("tcId=%s" % self.tcid)
        if self.field:
            where.append("field=%s" % self.field)
        if self.rank is not None:
            where.append("rank=%s" % self.rank)
        if self.path and self.tcid is None:
            where.append("file=%s" % self.path)
        s = "MISMATCH " + " ".join(where)
        if self.note:
            s += ": " + self.note
        if self.expected is not None or self.got is not None:
            s += ": expected %s got %s" % (_short(self.expected), _short(self.got))
        return s


def _short(v, limit=300):
    s = json.dumps(v, separators=(",", ":")) if not isinstance(v, str) else v
    return s if len(s) <= limit else s[:limit] + "...(%d chars)" % len(s)


class FamilyResult:
    """Counts and mismatches for one family."""

    def __init__(self, family):
        self.family = family
        self.passed = self.failed = self.skipped = 0
        self.rank_values = 0          # per-rank expectations checked (for bench)
        self.files = 0
        self.compute_seconds = 0.0    # wall time spent inside the adapter only
        self.compute_cpu_seconds = 0.0  # CPU time of this process inside the adapter
        self.mismatches = []
        self.passed_tcids = []        # the tcIds that passed (waivers.py: a stale waiver)
        # With --waivers (waivers.py): failures a waiver explains, moved out of failed and
        # mismatches, [(tcId, reason, detail)]; waived cases that passed [(tcId, reason)]
        self.waived, self.waived_cases, self.waived_passed = 0, [], []
        self.skip_reasons = {}
        # Partial adapters (FIELDS): cases with nothing to compare, and per
        # field the number of cases where it was reported NotSupported.
        self.not_supported = 0
        self.partial = 0              # passed cases that left some field NotSupported
        self.not_supported_fields = {}
        # Passed cases that carry a note: (tcId, text), e.g. a GpuOnly sha256 that
        # differs while the samples are within the case's tolerance.
        self.notes = []
        # With run_family(record=True): the adapter's answers as entries of a
        # results file (`shardcheck verify`'s and `certify --candidate`'s format).
        self.entries = None
        # Files read as another release than the one asked for (no version data).
        self.version_notes = []
        # Invalid cases by who rejected them: "torch", "flag StricterThanTorch" (torch
        # accepts, as the flag says: checked), "flag NotTorchInput", or "adapter" (a
        # vendor's adapter; for an ORACLE adapter that is a failure).
        self.rejections = {}

    def as_dict(self):
        return {
            "family": self.family, "files": self.files, "passed": self.passed,
            "failed": self.failed, "skipped": self.skipped,
            "rank_values": self.rank_values,
            "compute_seconds": round(self.compute_seconds, 6),
            "compute_cpu_seconds": round(self.compute_cpu_seconds, 6),
            "skip_reasons": self.skip_reasons,
            "not_supported": self.not_supported, "partial": self.partial,
            "not_supported_fields": self.not_supported_fields,
            "notes": [{"tcId": t, "note": n} for t, n in self.notes],
            "rejections": self.rejections,
            "mismatches": [m.as_dict() for m in self.mismatches],
            "waived": self.waived,
            "waived_cases": [{"tcId": t, "reason": r, "detail": d}
                             for t, r, d in self.waived_cases],
            "waived_passed": [{"tcId": t, "reason": r} for t, r in self.waived_passed],
        }


# ---------------------------------------------------------------- who rejected an input
# An oracle adapter (ORACLE = "torch") must never add a check torch itself lacks
# (docs/invalid-audit.md): every rejection of an invalid case has to be raised by torch.
# Two golden flags name the exceptions: StricterThanTorch (shardcheck rejects what torch
# accepts: a torch adapter must then *accept* it, which the harness checks) and
# NotTorchInput (the input cannot be written as a torch object at all, so the notation's
# parser refuses it).

STRICTER = "StricterThanTorch"
NOT_TORCH_INPUT = "NotTorchInput"
_STDLIB = os.path.realpath(sysconfig.get_paths()["stdlib"])


def _torch_dir():
    mod = sys.modules.get("torch")
    f = getattr(mod, "__file__", None) if mod is not None else None
    return os.path.realpath(os.path.dirname(f)) if f else None


def rejection_origin(exc):
    """Where an adapter's exception was raised: ("torch", "torch/distributed/tensor/_api.py:941")
    when the innermost frame outside the standard library is torch's own Python code,
    ("torch", "native torch.empty (adapters/x.py:12)") when torch's C++ raised through
    adapters/_torch_common.native(), else ("adapter", "adapters/x.py:113"): the adapter's
    (or the harness's) own check."""
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        frames.append(tb)
        tb = tb.tb_next
    torch_dir = _torch_dir()
    for k in range(len(frames) - 1, -1, -1):
        code = frames[k].tb_frame.f_code
        path = os.path.realpath(code.co_filename)
        if path.startswith(_STDLIB + os.sep) and "site-packages" not in path:
            continue  # a library helper torch called: look at its caller
        line = frames[k].tb_lineno
        if torch_dir and path.startswith(torch_dir + os.sep):
            rel = os.path.relpath(path, os.path.dirname(torch_dir))
            return "torch", "%s:%d" % (rel, line)
        if code.co_name == "native" and os.path.basename(path) == "_torch_common.py":
            fn = frames[k].tb_frame.f_locals.get("fn")
            name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", "?")
            name = "torch." + name.replace("_VariableFunctionsClass.", "")
            caller = frames[k - 1] if k else frames[k]
            return "torch", "native %s (%s:%d)" % (
                name, _harness_rel(caller.tb_frame.f_code.co_filename), caller.tb_lineno)
        return "adapter", "%s:%d" % (_harness_rel(path), line)
    return "adapter", "?"


def _harness_rel(path):
    path, here = os.path.realpath(path), os.path.realpath(HERE)
    return os.path.relpath(path, here) if path.startswith(here + os.sep) else path


# ---------------------------------------------------------------- adapters

def load_adapter(spec):
    """Import an adapter from a module name ("adapters.torch_shard_layout",
    "mypkg.myadapter") or from a path to a .py file."""
    if spec.endswith(".py") or os.sep in spec:
        path = os.path.abspath(spec)
        name = "shc_adapter_" + os.path.splitext(os.path.basename(path))[0]
        if os.path.dirname(path) not in sys.path:  # sibling helper modules
            sys.path.insert(0, os.path.dirname(path))
        mod_spec = importlib.util.spec_from_file_location(name, path)
        if mod_spec is None:
            raise ImportError("cannot load adapter file %s" % path)
        mod = importlib.util.module_from_spec(mod_spec)
        sys.modules[name] = mod
        mod_spec.loader.exec_module(mod)
    else:
        if HERE not in sys.path:
            sys.path.insert(0, HERE)
        mod = importlib.import_module(spec)
    check_adapter(mod)
    return mod


def check_adapter(mod):
    """The contract: a FAMILY string and a compute(group, test) callable; an
    optional FIELDS, a non-empty set (list, tuple) of the expected field names
    the adapter computes (top-level or perRank names alike)."""
    fam = getattr(mod, "FAMILY", None)
    if not isinstance(fam, str) or not fam:
        raise TypeError("adapter %s: missing FAMILY = \"<family>\"" % mod.__name__)
    if not callable(getattr(mod, "compute", None)):
        raise TypeError("adapter %s: missing compute(group, test)" % mod.__name__)
    adapter_fields(mod)


def adapter_fields(mod):
    """The adapter's FIELDS as a frozenset, or None when it computes every field."""
    f = getattr(mod, "FIELDS", None)
    if f is None:
        return None
    if isinstance(f, (str, bytes, dict)) or not isinstance(f, (set, frozenset, list, tuple)) \
            or not f or not all(isinstance(x, str) and x for x in f):
        raise TypeError("adapter %s: FIELDS must be a non-empty set of field names, got %r"
                        % (mod.__name__, f))
    return frozenset(f)


def restrict_expected(expected, fields):
    """(the part of expected an adapter with FIELDS claims, the sorted fields left out).
    "error" and "alternatives" are never fields; alternatives are restricted alike."""
    if fields is None or not isinstance(expected, dict):
        return expected, []
    out, left = {}, set()
    for k, v in expected.items():
        if k == "perRank" and isinstance(v, dict):
            per = {f: x for f, x in v.items() if f in fields}
            left.update(f for f in v if f not in fields)
            if per:
                out["perRank"] = per
        elif k == "alternatives" and isinstance(v, list):
            out[k] = [restrict_expected(a, fields)[0] for a in v]
        elif k == "error" or k in fields:
            out[k] = v
        else:
            left.add(k)
    return out, sorted(left)


def default_adapter_specs():
    """Every adapter module shipped in tools/harness/adapters (torch_*, jax_*)."""
    names = []
    for fn in sorted(os.listdir(DEFAULT_ADAPTER_DIR)):
        if fn.endswith(".py") and not fn.startswith("_") and fn != "__init__.py" \
                and fn.split("_", 1)[0] in ("torch", "jax"):
            names.append("adapters." + fn[:-3])
    return names


# ---------------------------------------------------------------- loading

def family_files(golden_dir, family):
    d = os.path.join(golden_dir, family)
    if not os.path.isdir(d):
        return []
    return [os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith(".json")]


def families_in(golden_dir):
    if not os.path.isdir(golden_dir):
        return []
    return sorted(f for f in os.listdir(golden_dir)
                  if f != "schemas" and family_files(golden_dir, f))


def load_file(path):
    with open(path, "rb") as fh:
        return json.load(fh)


_VALIDATORS = {}


def schema_sibling(schema_dir, uri):
    """The schema a $ref names (common.json#/$defs/...: golden/schemas/common.json): a file
    beside the referring one, by its name alone; nothing is fetched from anywhere else."""
    name = uri.split("#", 1)[0].rsplit("/", 1)[-1]
    path = os.path.join(schema_dir, name)
    if not name.endswith(".json") or not os.path.isfile(path):
        raise ValueError("schema reference %s: no %s in %s" % (uri, name or "file", schema_dir))
    with open(path) as fh:
        return json.load(fh)


def schema_validator(spath):
    """A draft 2020-12 validator for one schema file: jsonschema_rs (compiled,
    ~25x faster on the 15 MB shard-layout corpus) when it is installed, else the
    pure-Python jsonschema.  The schema itself is always checked against the
    2020-12 metaschema by jsonschema.  SHARDCHECK_PURE_JSONSCHEMA=1 forces the
    pure-Python validator (the tests run both)."""
    key = (spath, os.environ.get("SHARDCHECK_PURE_JSONSCHEMA", ""))
    v = _VALIDATORS.get(key)
    if v is not None:
        return v
    import jsonschema
    with open(spath) as fh:
        schema = json.load(fh)
    jsonschema.Draft202012Validator.check_schema(schema)
    sibling = lambda uri: schema_sibling(os.path.dirname(spath), uri)
    v = None
    if not key[1]:
        try:
            import jsonschema_rs
            rs = jsonschema_rs.Draft202012Validator(schema, retriever=sibling)
            v = lambda doc: ((list(e.instance_path), e.message) for e in rs.iter_errors(doc))
        except ImportError:
            v = None
    if v is None:
        import referencing
        reg = referencing.Registry(
            retrieve=lambda uri: referencing.Resource.from_contents(sibling(uri)))
        py = jsonschema.Draft202012Validator(schema, registry=reg)
        v = lambda doc: ((list(e.absolute_path), e.message) for e in py.iter_errors(doc))
    _VALIDATORS[key] = v
    return v


def schema_errors(doc, golden_dir, path, limit=20, seen=None):
    """Validate a golden document against golden/schemas/<doc.schema>; return
    a list of messages (empty when valid).  Structural checks the schema
    cannot express (numberOfTests, unique tcId, declared flags) are added."""
    msgs = []
    name = doc.get("schema") if isinstance(doc, dict) else None
    if not isinstance(name, str):
        return ["%s: no \"schema\" field" % path]
    spath = os.path.join(golden_dir, "schemas", os.path.basename(name))
    if not os.path.isfile(spath):
        return ["%s: schema %s not found in %s" % (path, name, os.path.dirname(spath))]
    for loc, message in schema_validator(spath)(doc):
        msgs.append("%s: at /%s: %s" % (path, "/".join(str(p) for p in loc),
                                        _short(message, 200)))
        if len(msgs) >= limit:
            msgs.append("%s: (more schema errors not shown)" % path)
            break
    return msgs + structure_errors(doc, path, seen)


def structure_errors(doc, path, seen=None):
    """Checks beyond JSON Schema: numberOfTests, duplicate tcId, undeclared flags."""
    msgs = []
    if not isinstance(doc, dict) or not isinstance(doc.get("testGroups"), list):
        return ["%s: no testGroups list" % path]
    seen = set() if seen is None else seen
    notes = doc.get("notes") if isinstance(doc.get("notes"), dict) else {}
    n = 0
    for g in doc["testGroups"]:
        for t in (g.get("tests") or []) if isinstance(g, dict) else []:
            n += 1
            tc = t.get("tcId") if isinstance(t, dict) else None
            if tc in seen:
                msgs.append("%s: duplicate tcId %s" % (path, tc))
            seen.add(tc)
            for f in (t.get("flags") or []) if isinstance(t, dict) else []:
                if f not in notes:
                    msgs.append("%s: tcId %s: flag %s not declared in notes" % (path, tc, f))
    if doc.get("numberOfTests") != n:
        msgs.append("%s: numberOfTests is %s but the file holds %d tests"
                    % (path, doc.get("numberOfTests"), n))
    return msgs


# ---------------------------------------------------------------- comparing

def _is_int_string(v):
    return isinstance(v, str) and (v.isdigit() or (v[:1] == "-" and v[1:].isdigit()))


def normalize(v):
    """JSON-normal form of an adapter value: tuples become lists, numpy/torch
    scalars become ints.  Floats and strings are left alone (exact compare)."""
    if isinstance(v, (list, tuple)):
        return [normalize(x) for x in v]
    if isinstance(v, dict):
        return {str(k): normalize(x) for k, x in v.items()}
    if isinstance(v, bool) or v is None or isinstance(v, (str, float, int)):
        return v
    if hasattr(v, "tolist"):          # numpy / torch scalars and arrays
        return normalize(v.tolist())
    if hasattr(v, "__index__"):
        return int(v)
    return v


def values_equal(exp, got):
    """JSON equality, except that a golden 64-bit decimal string also accepts
    the same integer given as a Python int (vendors need not stringify)."""
    if isinstance(exp, list):
        return isinstance(got, list) and len(exp) == len(got) and \
            all(values_equal(a, b) for a, b in zip(exp, got))
    if isinstance(exp, dict):
        return isinstance(got, dict) and exp.keys() == got.keys() and \
            all(values_equal(exp[k], got[k]) for k in exp)
    if _is_int_string(exp) and isinstance(got, int) and not isinstance(got, bool):
        return int(exp) == got
    if type(exp) is not type(got):
        # 1 == 1.0 and True == 1 in Python; golden JSON types must match.
        return False
    return exp == got


# ------------------------------------------- GpuOnly tolerance: gpu_tolerance.py
from gpu_tolerance import (DIGEST_FIELDS, VALUE_FIELDS, tolerance_of,  # noqa: E402,F401
                           tolerant_field, tolerant_outcome, ulp_distance)


def _field_mismatch(family, tcid, field, rank, ev, gv, tol, state):
    """One field of diff_expected: a Mismatch or None."""
    if tol is None or field not in VALUE_FIELDS + DIGEST_FIELDS:  # exact stays exact
        return None if values_equal(ev, gv) else Mismatch(family, tcid, field, rank, ev, gv)
    why = tolerant_field(tol, field, ev, gv, state)
    return None if why is None else Mismatch(family, tcid, field, rank, ev, gv, why)


def diff_expected(family, tcid, expected, got, claimed=False, tolerance=None, notes=None):
    """Mismatches between one expected object and one adapter result.
    claimed: the adapter declared FIELDS, so a missing field is named as one
    it claimed and left out (still a failure, never NotSupported).
    tolerance: the case's GpuOnly tolerance (tolerance_of); then a passing case's
    note (a digest that differs) is appended to notes."""
    out = []
    state = {"worst": 0.0, "digest": None, "values": 0}
    missing = "field claimed in FIELDS but missing from the result" if claimed \
        else "field missing"
    if not isinstance(got, dict):
        return [Mismatch(family, tcid, None, None, None, got,
                         "adapter returned %s, not an object" % type(got).__name__)]
    for field, ev in expected.items():
        if field in ("perRank", "alternatives"):
            continue
        if field not in got:
            out.append(Mismatch(family, tcid, field, None, ev, None, missing))
            continue
        m = _field_mismatch(family, tcid, field, None, ev, got[field], tolerance, state)
        if m:
            out.append(m)
    per = expected.get("perRank")
    if per is not None:
        gper = got.get("perRank")
        if not isinstance(gper, dict):
            return out + [Mismatch(family, tcid, "perRank", None, None, gper,
                                   "perRank missing or not an object")]
        for field, evals in per.items():
            gvals = gper.get(field)
            if gvals is None:
                out.append(Mismatch(family, tcid, field, None, None, None,
                                    "perRank " + missing))
                continue
            if not isinstance(gvals, list) or len(gvals) != len(evals):
                out.append(Mismatch(family, tcid, field, None, "%d ranks" % len(evals),
                                    "%s" % (len(gvals) if isinstance(gvals, list) else gvals),
                                    "perRank length differs"))
                continue
            for rank, (a, b) in enumerate(zip(evals, gvals)):
                m = _field_mismatch(family, tcid, field, rank, a, b, tolerance, state)
                if m:
                    out.append(m)
    if tolerance is not None and not out:
        why, note = tolerant_outcome(tolerance, state)
        if why:
            out.append(Mismatch(family, tcid, state["digest"], None, None, None, why))
        elif note and notes is not None:
            notes.append(note)
    return out


# ------------------------------------------- results file (verify, certify --candidate)
# The adapter's answers written in the results form `shardcheck verify` reads (and so
# `shardcheck certify --candidate`): {"family": F, ["fields": [...],] "results": [entry]},
# an entry {"tcId": N, "rank": R, "values": {...}} per rank ("rank" left out for a
# rank-independent answer) or {"tcId": N, "error": why} for a rejected input
# (tools/cli/cmd_verify.c).  Only the encoding follows the golden file, never a value: a
# field the golden case does not have is left out (the harness ignores it, verify would
# call it unexpected) and an int where golden holds a 64-bit decimal string is written
# as that string (values_equal accepts either, verify compares JSON exactly).

def _field_names(expected):
    """(top-level names, perRank names) of an expected object and its alternatives."""
    top, per = set(), set()
    for e in [expected] + list(expected.get("alternatives") or []):
        if isinstance(e, dict):
            top.update(k for k in e if k not in ("perRank", "alternatives", "error"))
            if isinstance(e.get("perRank"), dict):
                per.update(e["perRank"])
    return top, per


def encode_like(exp, got):
    """got in golden's JSON encoding where values_equal accepts another spelling."""
    if isinstance(exp, list) and isinstance(got, list):
        return [encode_like(e, g) for e, g in zip(exp, got)] + got[len(exp):]
    if isinstance(exp, dict) and isinstance(got, dict):
        return {k: encode_like(exp[k], v) if k in exp else v for k, v in got.items()}
    if _is_int_string(exp) and isinstance(got, int) and not isinstance(got, bool):
        return str(got)
    return got


def result_entries(tcid, expected, got, err):
    """The results-file entries of one answered test: its error, or its values per rank
    (a whole-test entry when the answer has no per-rank lists of one length)."""
    if err is not None:
        return [{"tcId": tcid, "error": "%s: %s" % (type(err).__name__, err)}]
    if not isinstance(got, dict):
        return [{"tcId": tcid, "values": got}]   # not an object: verify says so
    top, pernames = _field_names(expected)
    vals = encode_like(expected, {k: v for k, v in got.items() if k in top})
    per = got.get("perRank")
    if not isinstance(per, dict):
        return [{"tcId": tcid, "values": vals}]
    per = encode_like(expected.get("perRank") or {},
                      {k: v for k, v in per.items() if k in pernames})
    lens = {len(v) if isinstance(v, list) else -1 for v in per.values()}
    if len(lens) != 1 or min(lens) < 1:
        if per:
            vals["perRank"] = per
        return [{"tcId": tcid, "values": vals}]
    out = []
    for r in range(lens.pop()):
        v = dict(vals)
        v.update((k, a[r]) for k, a in per.items())
        out.append({"tcId": tcid, "rank": r, "values": v})
    return out


def producer(adapter, argv):
    """The results file's provenance (golden/schemas/results_v1.json "producer"): the tool,
    the adapter, the command, Python's version and those of the oracle libraries this
    process imported (torch, jax, numpy), so a package says how its candidate was made."""
    versions = {}
    for mod in ("torch", "jax", "numpy"):
        m = sys.modules.get(mod)
        if m is not None and isinstance(getattr(m, "__version__", None), str):
            versions[mod] = m.__version__
    return {"tool": "tools/harness/run.py", "adapter": getattr(adapter, "__name__", str(adapter)),
            "command": [str(a) for a in argv], "python": sys.version.split()[0],
            "versions": versions}


def results_document(family, adapter, entries, release=None, made_by=None):
    """The results file of one family (FIELDS, when the adapter declares it, as "fields";
    "torch": the release it was judged against, which verify checks; made_by: "producer")."""
    doc = {"family": family}
    if release is not None:
        doc["torch"] = release
    if made_by is not None:
        doc["producer"] = made_by
    fields = adapter_fields(adapter)
    if fields is not None:
        doc["fields"] = sorted(fields)
    doc["results"] = entries
    return doc


def rank_count(expected):
    """Per-rank expectations in one expected object (ranks x perRank fields)."""
    per = expected.get("perRank") if isinstance(expected, dict) else None
    if not per:
        return 1
    return sum(len(v) for v in per.values() if isinstance(v, list))


def invalid_outcome(family, tcid, test, expected, got, err, oracle, result):
    """The mismatches of an invalid case, its rejection counted in result.rejections.
    oracle: the adapter's ORACLE ("torch" for the shipped torch adapters, else None)."""
    flags = test.get("flags") or ()
    count = result.rejections
    if oracle == "torch" and STRICTER in flags:
        # shardcheck rejects it, torch accepts it: the torch adapter must show that
        if err is None:
            count["flag " + STRICTER] = count.get("flag " + STRICTER, 0) + 1
            return []
        by, where = rejection_origin(err)
        return [Mismatch(family, tcid, None, None, None, None,
                         "flag %s says torch accepts this input, but %s raised at %s: %s: %s"
                         % (STRICTER, "torch" if by == "torch" else "the adapter", where,
                            type(err).__name__, _short(str(err), 200)))]
    if err is None:
        return [Mismatch(family, tcid, None, None, expected.get("error", "an error"), got,
                         "invalid case accepted (adapter must raise)")]
    if NOT_TORCH_INPUT in flags:
        key = "flag " + NOT_TORCH_INPUT
    elif oracle == "torch":
        by, where = rejection_origin(err)
        if by != "torch":
            return [Mismatch(family, tcid, None, None, None, None,
                             "rejected by the adapter's own check at %s, not by torch (an "
                             "oracle adapter must let torch raise): %s: %s"
                             % (where, type(err).__name__, _short(str(err), 200)))]
        key = "torch"
    else:
        key = "adapter"
    count[key] = count.get(key, 0) + 1
    return []


def check_test(family, compute, group, test, result, fields=None, release=None, oracle=None):
    """Run one test through the adapter (which sees its inputs only) and
    record the outcome in result.  fields: the adapter's FIELDS (None: all);
    expected fields outside it are NotSupported, and a valid case left with
    no field to compare is NotSupported as a whole (compute is not called).
    release: the torch release judged against ('2.15'; None: the pinned answers).
    oracle: the adapter's ORACLE; "torch" holds its rejections to torch's (invalid_outcome)."""
    tcid = test.get("tcId")
    kind, answer = answer_for(test, release)
    expected, unsupported = restrict_expected(answer, fields)
    for f in unsupported:
        result.not_supported_fields[f] = result.not_supported_fields.get(f, 0) + 1
    if unsupported and kind != "invalid" and \
            not any(k not in ("perRank", "alternatives", "error") for k in expected) \
            and not expected.get("perRank"):
        result.not_supported += 1
        return
    inputs = {k: v for k, v in test.items() if k not in HIDDEN_FIELDS}
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        got = normalize(compute(group, inputs))
        err = None
    except SKIP_EXCEPTIONS as e:
        result.compute_seconds += time.perf_counter() - t0
        result.compute_cpu_seconds += time.process_time() - c0
        result.skipped += 1
        reason = str(e) or type(e).__name__
        result.skip_reasons[reason] = result.skip_reasons.get(reason, 0) + 1
        if result.entries is not None:  # verify reports it NotSupported, not missing
            result.entries.append({"tcId": tcid, "notSupported": reason})
        return
    except Exception as e:  # noqa: BLE001 — any rejection counts as "raised"
        got, err = None, e
    result.compute_seconds += time.perf_counter() - t0
    result.compute_cpu_seconds += time.process_time() - c0
    if result.entries is not None:
        result.entries.extend(result_entries(tcid, expected, got, err))
    if kind == "acceptable" and err is not None and "error" in expected:
        # shardcheck rejects where a reference answers (flag StricterThanSeed):
        # a rejection passes, an answer must equal an alternative
        mism = []
    elif kind == "invalid":
        mism = invalid_outcome(family, tcid, test, expected, got, err, oracle, result)
    elif err is not None:
        mism = [Mismatch(family, tcid, None, None, None, None,
                         "adapter raised on a %s case: %s: %s"
                         % (kind, type(err).__name__, _short(str(err), 300)))]
    else:
        claimed = fields is not None
        notes = []
        mism = diff_expected(family, tcid, expected, got, claimed, tolerance_of(test), notes)
        if not mism:
            result.notes.extend((tcid, n) for n in notes)
        if mism and kind == "acceptable":
            for alt in expected.get("alternatives") or []:
                if not diff_expected(family, tcid, alt, got, claimed):
                    mism = []
                    break
        result.rank_values += rank_count(expected)
    if mism:
        result.failed += 1
        result.mismatches.extend(mism)
    else:
        result.passed += 1
        result.passed_tcids.append(tcid)
        if unsupported and kind != "invalid":
            result.partial += 1


def run_family(family, adapter, golden_dir=DEFAULT_GOLDEN, max_cases=None,
               schema=True, tcids=None, files=None, stride=1, record=False, release=None):
    """Check every test of one family against adapter.compute; FamilyResult.

    stride K > 1 checks every K-th test in file order (a deterministic sample
    that still reaches every file and group); the rest are not counted.
    record: keep the adapter's answers in res.entries (results_document).
    release: the torch release whose answers to check ('2.15'; None: the top-level,
    pinned ones); a torch family's file that does not list it is read as what it is,
    its top-level answers, with one note in res.version_notes."""
    res = FamilyResult(family)
    if record:
        res.entries = []
    paths = files if files is not None else family_files(golden_dir, family)
    compute = adapter.compute
    fields = adapter_fields(adapter)
    oracle = getattr(adapter, "ORACLE", None)
    seen = set()
    done = 0
    index = -1
    for path in paths:
        res.files += 1
        try:
            doc = load_file(path)
        except (OSError, ValueError) as e:
            res.failed += 1
            res.mismatches.append(Mismatch(family, None, None, None, None, None,
                                           "cannot read golden file: %s" % e, path))
            continue
        errs = schema_errors(doc, golden_dir, path, seen=seen) if schema else \
            structure_errors(doc, path, seen)
        if isinstance(doc, dict) and doc.get("family") not in (None, family):
            errs.append("%s: family is %r, not %r" % (path, doc.get("family"), family))
        for msg in errs:
            res.failed += 1
            res.mismatches.append(Mismatch(family, None, "schema", None, None, None, msg, path))
        if not isinstance(doc, dict) or not isinstance(doc.get("testGroups"), list):
            continue
        src = doc.get("source") if isinstance(doc.get("source"), dict) else {}
        if release is not None and str(src.get("name", "")).startswith("pytorch") and \
                release not in (src.get("releases") or []):
            if not res.version_notes:
                res.version_notes.append(
                    "%s has no answers for torch %s (source %s %s, releases %s): read as that "
                    "release's" % (os.path.basename(path), release, src.get("name"),
                                   src.get("version"), src.get("releases") or "not listed"))
        for group in doc["testGroups"]:
            if not isinstance(group, dict):
                continue
            params = {k: v for k, v in group.items() if k != "tests"}
            chosen = []
            for test in group.get("tests") or []:
                if max_cases is not None and done >= max_cases:
                    break
                if tcids and test.get("tcId") not in tcids:
                    continue
                index += 1
                if stride > 1 and index % stride:
                    continue
                done += 1
                chosen.append(test)
            announce_tests(adapter, params, chosen)
            for test in chosen:
                check_test(family, compute, params, test, res, fields, release, oracle)
            if max_cases is not None and done >= max_cases:
                return res
    return res


def announce_tests(adapter, group, tests):
    """Tell an adapter with prepare(group, tests) which of a group's tests it is about to be
    asked (their inputs only), so that it can fetch what they share from the implementation
    in one pass (torch_group_ranks: the groups of the axes sets they name, one DeviceMesh per
    rank).  A hint only: compute must answer any test without it, and an exception here is
    not the test's outcome (compute raises it again, and check_test records it)."""
    prepare = getattr(adapter, "prepare", None)
    if prepare is None or not tests:
        return
    try:
        prepare(group, [{k: v for k, v in t.items() if k not in HIDDEN_FIELDS} for t in tests])
    except Exception:  # noqa: BLE001 -- the hint failed; compute reports the test's own error
        pass


def iter_cases(family, golden_dir=DEFAULT_GOLDEN, with_answers=False):
    """Yield (path, group, test) for every test of a family in file order:
    group without its tests list, test without expected/result unless
    with_answers (what an adapter's compute receives)."""
    for path in family_files(golden_dir, family):
        doc = load_file(path)
        for group in doc.get("testGroups") or []:
            params = {k: v for k, v in group.items() if k != "tests"}
            for test in group.get("tests") or []:
                if not with_answers:
                    test = {k: v for k, v in test.items() if k not in HIDDEN_FIELDS}
                yield path, params, test
