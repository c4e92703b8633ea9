#!/usr/bin/env python3
"""worker.py — any harness adapter as a per-rank worker of `shardcheck run --backend worker:CMD`.

What it is for: the worked example of the worker protocol (docs/backends/worker.md, version 1).
It serves the harness's adapters (tools/harness/adapters/*, each family computed by real torch or
jax; or yours, with --adapter) through the protocol, so an adapter runs per rank under mpirun
with the runner's SPMD checks:

    mpirun -np 4 shardcheck run --backend worker:"python3 tools/harness/examples/worker.py" \\
        --family shard-layout

Each request names a case and the block of mesh ranks this process hosts; the adapter computes
the case (every rank, as the harness calls it: compute(group, inputs)) and the worker answers the
requested ranks as results-file entries, in the golden file's encoding (64-bit integers as
decimal strings where the family's schema says so, golden/schemas/<family>_v1.json).  An adapter
that raises NotImplementedError answers notSupported; any other exception is the input's
rejection ({"error": ...}).  A family whose adapter does not load is named in the hello with the
reason.  A NotImplementedError raised by torch itself (an op without a sharding strategy) is
torch's rejection of the input, answered as an error; one raised by the adapter is notSupported.
Logs go to stderr: stdout is the protocol's.

SHARDCHECK_EXAMPLE_BUG=uneven plants a classic porting bug in shard-layout: uneven splits the
numpy.array_split way (tools/harness/examples/mini_layout.py's bug) wherever that port computes
the case; `run` then fails the UnevenShard cases.

How it is tested: tools/harness/tests/test_example_worker.py certifies it (certify --np 1,4,
mpirun above 1) on a sample of each family, and with the planted bug (--np 1,2).
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
HARNESS = os.path.dirname(HERE)
sys.path.insert(0, HARNESS)
sys.path.insert(0, HERE)
import harnesslib as hl  # noqa: E402

PROTOCOL = 1
NAME = "shardcheck harness adapters (examples/worker.py)"


def log(msg):
    sys.stderr.write("examples/worker.py: %s\n" % msg)


# ------------------------------------------------------------ the golden encoding

def _digits(schema):
    """Whether a (resolved) schema is a decimal-string integer."""
    return isinstance(schema, dict) and schema.get("type") == "string" and \
        schema.get("pattern") in ("^[0-9]+$", "^-?[0-9]+$")


class Encoder:
    """Writes an adapter's answer in the family's golden encoding, from its schema alone (never
    from an expected value): an int where the schema wants a decimal string becomes one."""

    def __init__(self, family):
        schema_dir = os.path.join(hl.DEFAULT_GOLDEN, "schemas")
        path = os.path.join(schema_dir, "%s_v1.json" % family)
        with open(path) as fh:
            self.schema = json.load(fh)
        common = hl.schema_sibling(schema_dir, "common.json")
        self.schema["$defs"] = dict(common["$defs"], **self.schema["$defs"])
        self.expected = self.schema["$defs"]["test"]["properties"]["expected"]

    def resolve(self, s):
        # common.json#/$defs/x and #/$defs/x name one merged $defs (a family never redefines
        # a common name, schemas.sh), so a reference inside common.json resolves here too
        while isinstance(s, dict) and "$ref" in s:
            node = self.schema
            for part in s["$ref"].partition("#")[2].lstrip("/").split("/"):
                node = node[part]
            s = node
        return s

    def branches(self, s):
        s = self.resolve(s)
        if not isinstance(s, dict):
            return []
        out = [s]
        for key in ("oneOf", "anyOf", "allOf"):
            for b in s.get(key) or []:
                out.extend(self.branches(b))
        return out

    def encode(self, value, s):
        bs = self.branches(s)
        if isinstance(value, bool) or value is None or isinstance(value, (str, float)):
            return value
        if isinstance(value, int):
            ints = any(b.get("type") == "integer" for b in bs)
            return str(value) if not ints and any(_digits(b) for b in bs) else value
        if isinstance(value, list):
            items = [b["items"] for b in bs if b.get("type") == "array" and "items" in b]
            if not items:
                return value
            return [self.encode(v, {"anyOf": items}) for v in value]
        if isinstance(value, dict):
            out = {}
            for k, v in value.items():
                props = [b["properties"][k] for b in bs
                         if isinstance(b.get("properties"), dict) and k in b["properties"]]
                out[k] = self.encode(v, {"anyOf": props}) if props else v
            return out
        return value


# ------------------------------------------------------------ the adapters

def load_adapters(specs):
    """family -> (adapter module or None, reason)."""
    out = {}
    for spec in specs:
        try:
            mod = hl.load_adapter(spec)
        except Exception as e:  # noqa: BLE001 — a missing oracle (jax): NotSupported
            name = os.path.basename(spec).replace(".py", "")
            out.setdefault(name, (None, "adapter %s does not load: %s: %s"
                                  % (spec, type(e).__name__, e)))
            continue
        out[mod.FAMILY] = (mod, None)
    return out


def bug_switch():
    """SHARDCHECK_EXAMPLE_BUG's value ("" or "uneven"); a misspelt one ends the worker (exit 2),
    before its adapters load (torch's import: seconds for a refusal)."""
    bug = os.environ.get("SHARDCHECK_EXAMPLE_BUG", "")
    if bug not in ("", "uneven"):
        log("SHARDCHECK_EXAMPLE_BUG=%s: expected uneven" % bug)
        sys.exit(2)
    return bug


def planted_bug(family, compute):
    """compute, or with SHARDCHECK_EXAMPLE_BUG=uneven for shard-layout the array_split port."""
    if bug_switch() != "uneven" or family != "shard-layout":
        return compute
    os.environ["MINI_LAYOUT_ARRAY_SPLIT"] = "1"
    import mini_layout

    def buggy(group, test):
        try:
            return mini_layout.compute(group, test)
        except Exception:  # noqa: BLE001 — what the port does not do: the real answer
            return compute(group, test)
    return buggy


# ------------------------------------------------------------ answering

def rank_values(answer, r):
    """Rank r's values from an answer shaped like golden's expected (perRank lists)."""
    v = {k: x for k, x in answer.items() if k not in ("perRank", "alternatives")}
    for k, per in (answer.get("perRank") or {}).items():
        v[k] = per[r] if isinstance(per, list) and r < len(per) else None
    return v


def answer(adapters, encoders, case, first, count):
    """The results entries of one request."""
    tc, fam = case["tcId"], case["family"]
    mod, why = adapters.get(fam, (None, "no adapter for family %s" % fam))
    if mod is None:
        return [{"tcId": tc, "notSupported": why}]
    try:
        got = hl.normalize(mod.compute_for_worker(case["group"], case["test"]))
    except hl.SKIP_EXCEPTIONS as e:
        if hl.rejection_origin(e)[0] != "torch":  # the adapter's own "not modelled here"
            return [{"tcId": tc, "notSupported": str(e) or type(e).__name__}]
        # torch's own NotImplementedError ("... does not have a sharding strategy registered")
        # is torch rejecting the input, as the golden case records it: an error, not a skip
        return [{"tcId": tc, "rank": r, "error": "%s: %s" % (type(e).__name__, e)}
                for r in range(first, first + count)]
    except Exception as e:  # noqa: BLE001 — any rejection is the input's error
        return [{"tcId": tc, "rank": r, "error": "%s: %s" % (type(e).__name__, e)}
                for r in range(first, first + count)]
    if fam not in encoders:
        encoders[fam] = Encoder(fam)
    if not isinstance(got, dict):
        return [{"tcId": tc, "rank": r, "values": {"answer": got}}
                for r in range(first, first + count)]
    got = encoders[fam].encode(got, encoders[fam].expected)
    return [{"tcId": tc, "rank": r, "values": rank_values(got, r)}
            for r in range(first, first + count)]


def say(obj):
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def main(argv=None):
    p = argparse.ArgumentParser(prog="worker.py", description=__doc__.split("\n")[0])
    p.add_argument("--adapter", action="append", default=[], metavar="MODULE",
                   help="adapter module or .py path (repeatable; default: the harness's)")
    a = p.parse_args(argv)
    if os.environ.get("SHARDCHECK_WORKER_PROTOCOL", str(PROTOCOL)) != str(PROTOCOL):
        log("the runner speaks protocol %s, this worker %d"
            % (os.environ["SHARDCHECK_WORKER_PROTOCOL"], PROTOCOL))
    bug_switch()
    adapters = load_adapters(a.adapter or hl.default_adapter_specs())
    for fam, (mod, _) in adapters.items():
        if mod is not None:
            mod.compute_for_worker = planted_bug(fam, mod.compute)
    families = {f: True if mod is not None else why for f, (mod, why) in adapters.items()}
    say({"protocol": PROTOCOL, "name": NAME, "families": families})
    encoders = {}
    for line in sys.stdin:
        req = json.loads(line)
        if req.get("quit"):
            break
        first, count = req["ranks"]
        for e in answer(adapters, encoders, req["case"], first, count):
            say(e)
    return 0


if __name__ == "__main__":
    sys.exit(main())
