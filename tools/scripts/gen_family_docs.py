#!/usr/bin/env python3
"""gen_family_docs.py — write docs/families/<family>.md from the golden corpus.

What it is for: a vendor porting an adapter needs, per family, what the inputs
are, every expected field with its meaning and encoding, what each flag means
and one case worked through.  All of it is in the schemas
(golden/schemas/<family>_v1.json) and the golden files (notes, tests); this
script renders it so the pages can never drift from the corpus: every field's
meaning is the schema's description (on the property, or on the definition it
refers to, golden/schemas/common.json's included); a field without one fails.  What a conformance claim on the family must cover (its required fields
and tests) is the family record's (conformance/families/family.h, shc_claim),
read from a built shardcheck's `families --json` (--shardcheck BIN, default
$SHARDCHECK, then _build/tools/shardcheck, then shardcheck on PATH).
Standard library only.

    python3 tools/scripts/gen_family_docs.py                 # rewrite docs/families/
    python3 tools/scripts/gen_family_docs.py --check         # exit 1 and a diff when stale
    python3 tools/scripts/gen_family_docs.py --golden DIR --out DIR [--shardcheck BIN]

How it is tested: conformance/tests/family_docs.sh (make check) runs --check
against the committed pages and checks that a stale page is reported.
"""

import argparse
import difflib
import glob
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

# Per-family prose on encodings a schema states only in passing.
EXTRA = {
    "group-ranks": """\
### The compact `rankList` form (op `rank_lists`)

`split` holds seed 002's `get_split_rank_lists_for_axes(mesh, axes)`: every
rank list over the axes. `perRank.rankList[r]` is rank r's
`get_rank_list_for_axes(mesh, axes, r)`, written compactly: an **integer i**
means "the list `split[i]`"; a **list** is given explicitly (empty axes give
`[r]`, which is in no split list). To compare a port's lists, expand first:

```python
lists = [split[x] if isinstance(x, int) else x for x in expected["perRank"]["rankList"]]
```

Comparison is exact JSON, so an adapter returns the compact form too: for
rank r, the index of the first entry of `split` equal to its list, else the
explicit list (`{tuple(s): i for i, s in reversed(list(enumerate(split)))}`
gives the index, as the torch adapter does).
""",
    "rng-policies": """\
### Which mesh dim is tp, ep, etp, gtp (the megatron-* policies)

Megatron-core numbers ranks with `RankGenerator` (megatron/core/parallel_state.py,
NVIDIA/Megatron-LM): the order `tp-cp-ep-dp-pp`, the first token varying fastest,
and for experts `RankGenerator(tp=etp, ep, dp, pp, cp=1)`. On a row-major mesh
(the last dim fastest) that makes:

| policy | seed of the rank at mesh coordinate c (d = mesh ndim) |
|---|---|
| `megatron-tp` | seed + 2718 + tp, tp = c[d-1] (the last dim) |
| `megatron-dp` | seed on every rank |
| `megatron-ep` | seed + 1024 + 100·ep + etp, etp = c[d-1], ep = c[d-2] (the dim just before etp); a 1-d mesh is ep alone (etp 1): ep = c[0] |
| `megatron-train-tp`, `-dp`, `-ep` | the same generator with base seed + 100·pp, pp = c[0] (the slowest token); the dims after c[0] as in the rows above; a 1-d mesh is pp alone |
| `megatron-train-dp-random` | seed + 100·pp + 10·dp, pp = c[0], dp = the row-major index of c[1..] (tp 1) |
| `megatron-gtp` | seed + 2718 + tp + 65536·(1 + gtp), tp = c[d-1], gtp = c[d-2]; a 1-d mesh is gtp alone (tp 1) |
| `megatron-egtp` | seed + 1024 + 100·ep + etp + 32768 + 65536·(1 + egtp), etp = c[d-1], ep = c[d-2], egtp = c[d-3]; a 2-d mesh is (egtp, ep), a 1-d mesh egtp alone |

The last two are Megatron-core 0.19.2's GTP weight-rematerialisation states
(tensor_parallel/random.py `model_parallel_cuda_manual_seed`: "gtp-remat-rng" and
"egtp-remat-rng", added only when their axis has more than one rank); parallel_state.py's
`_inject_gtp_remat_axis` puts the `gtp_remat` token right after `tp` in the decoder order
(`tp-gtp_remat-cp-ep-dp-pp`) and right after `ep` in the expert order. A GTP dim of one
device adds no state, and a random op under it is refused by Megatron's own
`CudaRNGStatesTracker.fork` ("cuda rng state gtp-remat-rng is not added"): the two
invalid cases at the end of those files.

Dims before those are dp and pp, which the core policies' seeds do not see: two ranks
that differ only there draw the same numbers (the 2x2x2 layout's `S(1)` on dim 0 loses
shards-distinct under `megatron-ep`). `shardcheck policies --help` says the same.

The `megatron-train-*` policies are Megatron-LM's training entry
(megatron/training/initialize.py `_set_random_seed`, NVIDIA/Megatron-LM 00c2c0ad,
shipped): base seed + 100·pp rank (+ 10·dp rank with `--data-parallel-random-init`),
then Megatron-core's `model_parallel_cuda_manual_seed`. The +100·pp can meet the
expert seed's 100·ep: on 2x2x2 (pp, ep, etp) rank 4 (pp 1, ep 0) and rank 2 (pp 0,
ep 1) both get expert seed + 1124; Megatron checks seeds within a rank only.

A group's optional `tp` is Megatron's decoder tensor-parallel size where it differs
from the expert one (etp ≠ tp; Megatron-core 0.19 sizes them apart). Then a rank's
model-parallel and expert seeds can meet, which Megatron's `CudaRNGStatesTracker.add`
refuses ("seed N already exists"): the `megatron-train-ep` case with `tp` 8 over
(pp 2, edp 2, ep 18, etp 2) is `invalid` (rank 70: tp rank 6, ep rank 17, etp rank 0,
2718 + 6 = 1024 + 1700), and Megatron's own tracker raises it in the harness.

### torch-func-random: torch's stateless logical-index RNG

`torch.func._random` (pytorch PR 177230, shipped in torch 2.13; DTensor support in PRs
191642-191645, open) draws element i of a contiguous float32 output from Philox word
key offset + i of (key seed, subsequence 0) on any launch (its single-key CUDA kernel
starts thread t at key offset + 4t and skips ahead 4·(threads - 1)). With the logical
index the global element index, a rank draws the words key offset + g of its global
indices g: `start_offset` and `post_offset` are the span [start, post) of those words
(a row shard's is exactly its elements; a column shard's span holds other ranks' words
between its rows). Shards are distinct and the tensor sharding-invariant by construction.
Torch 2.13 has no CPU kernel for it (`aten::_philox_uniform_` raises NotImplementedError
on a CPU), so these cases carry `NoIndependentOracle` and `CudaOnlyUpstream`; the second
op's key is `split(key)`, whose derivation is not modelled (taken as a distinct key).
An NPU profile (offsets stream) is refused by name: no such kernel exists there.

### Two launch geometries

Every layout is given with `gpu` `a100` (108 SMs of 2048 threads: 864 blocks of
256). A policy whose verdicts depend on the launch (every one but `torch-offset`
and `jax-partitionable`) gets each layout again with `gpu` `7x2048` (56 blocks):
on the 2-device `[1024, 1024]` layout seed 000's port advances op 2 by 4 words,
and a thread of op 1 reaches word 4 once the rank's 524,288 elements exceed 4T
(T threads: fewer than 512 blocks), so `hyper-parallel` keeps shards-distinct on
the a100 and loses it on 7 SMs.
""",
    "rng-offsets": """\
### Two shapes of `expected`: offsets and random data

A group **without** `op` is the offset family proper: `expected` holds
`end_incr`, `first_shard_numel`, `findings` and per rank
`shard_linear_index`, `start_incr`, `local_numel` (variant `offsets`
above). A group **with** `op` (plus `dtype`, `gpu`, `seed`, `offset`) is the
**random-data group**: each rank's local shard drawn by torch's CUDA kernel
at its tracker offset, and `expected` has another shape (the `randomData`
variant above): `post_offset` = offset + end_incr, per rank `start_offset` =
offset + start_incr, `local_numel`, `digest` (sha256 of the local output
bytes) and `sample`. These cases are `GpuOnly`: torch on a CPU cannot
recompute them. Their normal and exponential data carry a `tolerance`
(the `GpuOnly` note states it): `sample` within it, `digest` then a note.
A tracker port that does not draw numbers declares
`FIELDS` without them and the whole group is NotSupported
(tools/harness/README.md, "A partial port").

`local_numel` is a layout value (the rank's actual shard) and `findings` an
audit of the windows; a tracker port that computes neither leaves them out
of `FIELDS`.
""",
}

ENCODING = {
    "i64s": "decimal string (64-bit integer)",
    "u64s": "decimal string (unsigned 64-bit integer)",
    "hex32": "8-digit lowercase hex string",
    "hex64": "16-digit lowercase hex string",
    "hexN": "lowercase hex string",
    "sha256": "64-digit lowercase hex (sha256)",
    "ranks": "array of global ranks",
    "perRankInts": "array of integers indexed by global rank",
    "shape": "array of sizes",
    "placements": "placement string (torch's notation)",
}

UNDESCRIBED = []   # fields with no meaning anywhere: an error, all named at once

SKIP_TEST_KEYS = ("tcId", "comment", "flags", "result", "expected", "byVersion")


class DocError(Exception):
    pass


def resolve(schema, node):
    """Follow a $ref, local or to common.json (and an allOf of refs, whose properties a `true`
    property of the node keeps); returns (name or None, node)."""
    name = None
    while isinstance(node, dict) and "$ref" in node and len(node) <= 2:
        name = node["$ref"].rsplit("/", 1)[-1]
        node = dict(schema["$defs"][name], **{k: v for k, v in node.items() if k != "$ref"})
    if isinstance(node, dict) and "allOf" in node:
        merged = {k: v for k, v in node.items() if k != "allOf"}
        props, req = {}, list(node.get("required", []))
        for part in node["allOf"]:
            _, base = resolve(schema, part)
            props.update(base.get("properties", {}))
            req += [r for r in base.get("required", []) if r not in req]
        for k, v in (node.get("properties") or {}).items():
            if v is not True or k not in props:
                props[k] = v
        merged["properties"], merged["required"] = props, req
        node = merged
    return name, node


def encoding(schema, node, depth=0):
    """A short human-readable type of a schema node."""
    if node is True or node == {}:
        return "any JSON value"
    if isinstance(node, dict) and "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        if name in ENCODING:
            return ENCODING[name]
        return encoding(schema, schema["$defs"][name], depth + 1)
    if "const" in node:
        return "`%s`" % json.dumps(node["const"])
    if "enum" in node:
        return "one of " + ", ".join("`%s`" % json.dumps(v).strip('"') for v in node["enum"])
    if "oneOf" in node:
        return " or ".join(encoding(schema, x, depth + 1) for x in node["oneOf"])
    t = node.get("type")
    if isinstance(t, list):
        return " or ".join(encoding(schema, dict(node, type=x), depth + 1) for x in t)
    if t == "array":
        inner = encoding(schema, node.get("items", True), depth + 1)
        return "array of (%s)" % inner if " " in inner else "array of %s" % inner
    if t == "object":
        props = node.get("properties")
        return "object {%s}" % ", ".join(props) if props else "object"
    if t == "string" and node.get("pattern", "").startswith("^[0-9a-f]"):
        return "lowercase hex string"
    if t == "string" and node.get("pattern") == "^-?[0-9]+$":
        return ENCODING["i64s"]
    return t or "any JSON value"


def describe(family, schema, name, node, kind="field"):
    _, n = resolve(schema, node)
    desc = (node.get("description") if isinstance(node, dict) else None) or \
        (n.get("description") if isinstance(n, dict) else None)
    if not desc:
        UNDESCRIBED.append("%s: %s %r" % (family, kind, name))
        return "?"
    return " ".join(desc.split())


def variants(schema):
    """The expected object's variants: [(name, node)], error variants excluded."""
    test = schema["$defs"]["test"]
    exp = test["properties"]["expected"]
    _, exp = resolve(schema, exp)
    alts = exp.get("oneOf")
    out = []
    if alts and all("properties" in resolve(schema, a)[1] or "$ref" in a for a in alts):
        for i, a in enumerate(alts):
            nm, node = resolve(schema, a)
            if list(node.get("required", [])) == ["error"]:
                continue
            out.append((nm or "variant %d" % (i + 1), node))
    else:
        out.append(("expected", exp))
    return out


def fields_of(schema, node):
    """[(name, node, per_rank, required)] of one variant."""
    out = []
    req = set(node.get("required", []))
    for k, v in (node.get("properties") or {}).items():
        if k == "perRank":
            _, per = resolve(schema, v)
            preq = set(per.get("required", []))
            for pk, pv in (per.get("properties") or {}).items():
                out.append((pk, pv, True, pk in preq))
        elif k != "error":
            out.append((k, v, False, k in req))
    return out


NTESTS = {}  # (golden, family) -> its numberOfTests summed: the index and the claims need only that


def load_family(golden, family):
    files = sorted(glob.glob(os.path.join(golden, family, "*.json")))
    docs = [(os.path.basename(f), json.load(open(f))) for f in files]
    NTESTS[(golden, family)] = sum(d["numberOfTests"] for _, d in docs)
    return docs


def count_tests(golden, family):
    """numberOfTests over a family's files, read once (parsing the corpus is most of the run)."""
    if (golden, family) not in NTESTS:
        load_family(golden, family)
    return NTESTS[(golden, family)]


def compact(v, indent=0):
    """JSON with objects broken over lines and arrays of scalars kept on one line."""
    pad = "  " * indent
    if isinstance(v, dict) and v:
        items = ["%s  %s: %s" % (pad, json.dumps(k), compact(x, indent + 1)) for k, x in v.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(v, list) and any(isinstance(x, (dict, list)) and x for x in v) \
            and len(json.dumps(v)) > 80:
        items = ["%s  %s" % (pad, compact(x, indent + 1)) for x in v]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return json.dumps(v, separators=(", ", ": "))


def fits(schema, node, obj):
    """A shallow structural match of obj against an object schema: required
    keys present and, with additionalProperties false, no others."""
    _, node = resolve(schema, node)
    if not isinstance(obj, dict) or not isinstance(node, dict):
        return False
    props = node.get("properties") or {}
    if not set(node.get("required", [])) <= set(obj):
        return False
    if node.get("additionalProperties") is False and not set(obj) <= set(props):
        return False
    return all(fits(schema, props[k], obj[k]) for k in obj
               if isinstance(props.get(k), dict) and isinstance(obj[k], dict)
               and resolve(schema, props[k])[1].get("type") == "object")


def matches(schema, variant, exp):
    return "error" not in exp and fits(schema, variant, exp)


def pick_example(schema, docs, variant):
    """The first test of this variant with 2-8 ranks and a short line, else the first."""
    first = None
    for fname, d in docs:
        for g in d["testGroups"]:
            for t in g["tests"]:
                if t["result"] == "invalid" or not matches(schema, variant, t["expected"]):
                    continue
                per = t["expected"].get("perRank") or {}
                world = len(next(iter(per.values()))) if per else 0
                size = len(json.dumps(t))
                if first is None:
                    first = (fname, g, t)
                if (not per or 2 <= world <= 8) and size <= 1400:
                    return fname, g, t
    return first


def pick_invalid(docs):
    for fname, d in docs:
        for g in d["testGroups"]:
            for t in g["tests"]:
                if t["result"] == "invalid":
                    return fname, g, t
    return None


def rank_table(exp):
    per = exp.get("perRank") or {}
    if not per:
        return []
    world = len(next(iter(per.values())))
    if world > 16:
        return []
    out = ["| rank | " + " | ".join("`%s`" % k for k in per) + " |",
           "|---:|" + "---|" * len(per)]
    for r in range(world):
        out.append("| %d | " % r + " | ".join("`%s`" % json.dumps(per[k][r], separators=(",", ":"))
                                              for k in per) + " |")
    return out


def has_tolerance(docs):
    """Whether some case of the family carries a GpuOnly tolerance (golden_tolerance.c)."""
    return any("tolerance" in t for _, d in docs for g in d["testGroups"] for t in g["tests"])


def render(family, schema, docs):
    ntests = sum(d["numberOfTests"] for _, d in docs)
    src = docs[0][1].get("source", {}) if docs else {}
    L = ["<!-- generated by tools/scripts/gen_family_docs.py from golden/%s and "
         "golden/schemas/%s_v1.json: do not edit -->" % (family, family),
         "# %s" % family, "",
         " ".join(schema.get("description", "").split()), "",
         "Reference: %s %s. %d tests in %d files (%s). Schema: "
         "`golden/schemas/%s_v1.json`." % (src.get("name", "?"), src.get("version", "?"), ntests,
                                           len(docs), ", ".join(f for f, _ in docs), family), "",
         "A case passes when every expected field below equals the implementation's answer "
         "(JSON equality: `1` is not `1.0`); `perRank` fields are arrays indexed by **global "
         "rank**. `result` is `valid`, `invalid` (the input must be rejected; `expected.error` "
         "is shardcheck's own message, for information) or `acceptable` (implementation-defined: "
         "`expected` or any entry of `expected.alternatives` passes; see the flags)." +
         (" The one exception: a `GpuOnly` case with a `tolerance` passes with its sampled "
          "values within it, a digest that then differs reported as a note (the `GpuOnly` "
          "note states the numbers)." if has_tolerance(docs) else ""), ""]
    defs = schema["$defs"]
    L += ["## Inputs", "", "| where | field | encoding | meaning |", "|---|---|---|---|"]
    for where, node in (("group", defs["group"]), ("test", defs["test"])):
        for k, v in node.get("properties", {}).items():
            if k in SKIP_TEST_KEYS or k == "tests":
                continue
            req = "" if k in node.get("required", []) else " (optional)"
            L.append("| %s | `%s`%s | %s | %s |" % (where, k, req, encoding(schema, v),
                                                    describe(family, schema, k, v, "input")))
    L += ["", "A group holds the parameters its tests share; an adapter's `compute(group, test)` "
          "receives both (the test without `expected` and `result`).", ""]
    L += ["## Expected fields", ""]
    vs = variants(schema)
    for name, node in vs:
        if len(vs) > 1:
            d = node.get("description")
            L += ["### Variant `%s`%s" % (name, (": " + " ".join(d.split())) if d else ""), ""]
        L += ["| field | per rank | encoding | meaning |", "|---|:-:|---|---|"]
        for k, v, per, req in fields_of(schema, node):
            if per:   # the encoding of one rank's value
                _, arr = resolve(schema, v)
                enc = encoding(schema, arr.get("items", True) if arr.get("type") == "array" else v)
            else:
                enc = encoding(schema, v)
            L.append("| `%s`%s | %s | %s | %s |" % (
                k, "" if req else " (optional)", "yes" if per else "", enc,
                describe(family, schema, k, v)))
        L.append("")
    L += ["An invalid case's `expected` is `{\"error\": \"...\"}`.", ""]
    L += [CLAIM_MARK % family, ""]   # filled from the family record by fill_claims
    L += releases_section(src, docs)
    if family in EXTRA:
        L += [EXTRA[family]]
    L += ["## Flags", "", "| flag | tests | what it means, what a port must get right |",
          "|---|---:|---|"]
    notes, counts = {}, {}
    for _, d in docs:
        for k, v in d["notes"].items():
            notes.setdefault(k, v)
        for g in d["testGroups"]:
            for t in g["tests"]:
                for f in t.get("flags", []):
                    counts[f] = counts.get(f, 0) + 1
    for k, v in notes.items():
        L.append("| `%s` | %d | %s |" % (k, counts.get(k, 0), " ".join(v.split()).replace("|", "\\|")))
    L += ["", "## Worked examples", ""]
    for name, node in vs:
        ex = pick_example(schema, docs, node)
        if not ex:
            continue
        fname, g, t = ex
        params = {k: v for k, v in g.items() if k != "tests"}
        L += ["### %s (`%s`, tcId %d)" % ("Variant `%s`" % name if len(vs) > 1 else "A valid case",
                                          fname, t["tcId"]), "",
              "Group parameters and the test, as the golden file holds them:", "", "```json",
              compact(params), compact(t), "```", ""]
        rows = rank_table(t["expected"])
        if rows:
            L += ["Read per rank (`perRank` arrays are indexed by global rank):", ""] + rows + [""]
    inv = pick_invalid(docs)
    if inv:
        fname, g, t = inv
        params = {k: v for k, v in g.items() if k != "tests"}
        L += ["### An invalid case (`%s`, tcId %d)" % (fname, t["tcId"]), "",
              "The implementation must reject it (raise, or report `{\"tcId\": N, \"error\": "
              "\"...\"}`):", "", "```json", compact(params), compact(t), "```", ""]
    return "\n".join(L).rstrip("\n") + "\n"


def releases_section(src, docs):
    """How to pick a torch release's answer (docs/torch-releases.md), with this family's counts
    and, when it has one, a byVersion case worked through."""
    rel = src.get("releases")
    if not rel:
        return []
    per, example = {}, None
    for fname, d in docs:
        for g in d["testGroups"]:
            for t in g["tests"]:
                for e in t.get("byVersion", []):
                    for r in e["torch"]:
                        per[r] = per.get(r, 0) + 1
                if t.get("byVersion") and (example is None or len(compact(t)) < len(example[1])):
                    example = (fname, compact(t), t["tcId"])
    L = ["## Answers by torch release", "",
         "The files answer for torch %s (`source.releases`); the top-level `result` and `expected` "
         "are torch %s's, the pinned release (`source.version`). **The answer for release V is the "
         "entry of the test's `byVersion` whose `torch` lists V, else the top-level `result` and "
         "`expected`.** Releases are listed one by one; the test's flags name each change, and the "
         "flag's note says which release made it, with torch file:line (all of them: "
         "docs/torch-releases.md)." % (", ".join(rel), src.get("version", "?")), ""]
    if per:
        L += ["Tests whose answer differs from the pinned one: %s." % ", ".join(
            "%d in %s" % (per[r], r) for r in rel if r in per), ""]
        fname, text, tc = example
        L += ["A test with answers by release (`%s`, tcId %d):" % (fname, tc), "", "```json",
              text, "```", ""]
    else:
        L += ["Every test answers alike in every release: no test carries `byVersion`.", ""]
    return L


CLAIM_MARK = "@@CLAIM %s@@"


def shardcheck_binary(given):
    """The shardcheck that says what each family's claim covers (its family records)."""
    if given and not (os.path.isfile(given) and os.access(given, os.X_OK)):
        raise DocError("--shardcheck %s: not an executable; the claims come from the family "
                       "records of a built shardcheck" % given)
    for cand in (given, os.environ.get("SHARDCHECK"),
                 os.path.join(REPO, "_build", "tools", "shardcheck"), shutil.which("shardcheck")):
        if cand and os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    raise DocError("the claims come from the family records: build shardcheck, or give "
                   "--shardcheck BIN (or $SHARDCHECK)")


def read_claims(binary, golden):
    """{family: claim} from `shardcheck families --json` (family.h's shc_claim)."""
    p = subprocess.run([binary, "families", "--json", "--golden", golden],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise DocError("%s families --json: %s" % (binary, p.stderr.strip() or "exit %d" % p.returncode))
    return {f["family"]: f["claim"] for f in json.loads(p.stdout)["families"]}


def claim_section(family, claim, schema, ntests):
    """The page's "What a conformance claim covers" (certify's verdict rule)."""
    req = claim["fields"]
    others = sorted({k for _, node in variants(schema) for k, *_ in fields_of(schema, node)} - set(req))
    opt = claim["optionalFlags"]
    L = ["## What a conformance claim covers", "",
         "`shardcheck certify` states a claim on %s CONFORMANT only when it computes every "
         "required field, checks every required test and everything it checks passes (the "
         "family record's `claim`, `conformance/families/family.h`)." % family, "",
         "- Required fields (%d): %s." % (len(req), ", ".join("`%s`" % f for f in req)),
         "- Required tests: %d of %d: %s." % (
             claim["requiredCases"], ntests,
             "every test except those flagged %s, and except valid tests whose answer holds no "
             "required field" % " or ".join("`%s`" % f for f in opt) if opt else
             "every test except valid tests whose answer holds no required field")]
    if others:
        L.append("- Checked when given, not required: %s." % ", ".join("`%s`" % f for f in others))
    L += ["", "A candidate that computes fewer fields (`\"fields\"` in its results file) or "
          "answers a required test NotSupported, or a run cut short by `--max-cases`, is stated "
          "PARTIAL with what it covers (\"%s: 1 of %d required fields\"; certify exits 3); "
          "`verify` says so of a partial candidate too." % (family, len(req))]
    return "\n".join(L)


def fill_claims(pages, golden, binary):
    """Each page's claim section, from the family records (one `families --json` call)."""
    claims = None
    for f in family_list(golden):
        name = f + ".md"
        if CLAIM_MARK % f not in pages.get(name, ""):
            continue
        if claims is None:
            claims = read_claims(binary, golden)
        if f not in claims:
            raise DocError("%s: no family record says what a claim on it covers" % f)
        schema = load_schema(golden, f)
        ntests = count_tests(golden, f)
        pages[name] = pages[name].replace(CLAIM_MARK % f, claim_section(f, claims[f], schema, ntests))


def load_schema(golden, family):
    """A family's schema with the definitions of golden/schemas/common.json it refers to
    (common.json#/$defs/name) beside its own: a family never redefines one (schemas.sh), so
    one name space serves both and resolve() follows either kind of reference."""
    schema = json.load(open(os.path.join(golden, "schemas", "%s_v1.json" % family)))
    common = os.path.join(golden, "schemas", "common.json")
    if os.path.isfile(common):
        schema["$defs"] = dict(json.load(open(common)).get("$defs", {}), **schema["$defs"])
    return schema


def family_list(golden):
    return sorted(os.path.basename(p)[:-len("_v1.json")]
                  for p in glob.glob(os.path.join(golden, "schemas", "*_v1.json"))
                  if os.path.isdir(os.path.join(golden, os.path.basename(p)[:-len("_v1.json")])))


def render_index(fams, golden):
    L = ["<!-- generated by tools/scripts/gen_family_docs.py: do not edit -->",
         "# Golden families: reference pages", "",
         "One page per family: inputs, every expected field with its meaning and encoding, the "
         "flags and what a port must get right, and worked examples taken from the golden files. "
         "Regenerate with `python3 tools/scripts/gen_family_docs.py` after `shardcheck gen`; `make check` "
         "fails when a page is stale.", "", "| family | tests | page |", "|---|---:|---|"]
    for f in fams:
        n = count_tests(golden, f)
        L.append("| %s | %d | [%s.md](%s.md) |" % (f, n, f, f))
    return "\n".join(L) + "\n"


def generate(golden, binary=None):
    fams = family_list(golden)
    if not fams:
        raise DocError("no family with a schema and golden files under %s" % golden)
    pages = {}
    for f in fams:
        schema = load_schema(golden, f)
        pages[f + ".md"] = render(f, schema, load_family(golden, f))
    pages = dict({"README.md": render_index(fams, golden)}, **pages)
    if UNDESCRIBED:
        raise DocError("no description in the schema for: "
                       + "; ".join(UNDESCRIBED))
    fill_claims(pages, golden, shardcheck_binary(binary))
    return pages


def main(argv=None):
    p = argparse.ArgumentParser(description="Write docs/families/*.md from the golden corpus.")
    p.add_argument("--golden", default=os.path.join(REPO, "golden"), metavar="DIR")
    p.add_argument("--out", default=os.path.join(REPO, "docs", "families"), metavar="DIR")
    p.add_argument("--shardcheck", metavar="BIN",
                   help="a built shardcheck, whose family records say what a claim covers")
    p.add_argument("--check", action="store_true",
                   help="write nothing; exit 1 with a diff when a page differs")
    a = p.parse_args(argv)
    if not os.path.isdir(a.golden):
        print("gen_family_docs: golden directory %s not found" % a.golden, file=sys.stderr)
        return 2
    try:
        pages = generate(a.golden, a.shardcheck)
    except (DocError, OSError, ValueError, KeyError) as e:
        print("gen_family_docs: %s" % e, file=sys.stderr)
        return 2
    if a.check:
        stale = []
        have = set(os.listdir(a.out)) if os.path.isdir(a.out) else set()
        for name, text in sorted(pages.items()):
            path = os.path.join(a.out, name)
            old = open(path).read() if os.path.isfile(path) else ""
            if old != text:
                stale.append(name)
                sys.stdout.writelines(list(difflib.unified_diff(
                    old.splitlines(True), text.splitlines(True), path, "generated", n=1))[:40])
        for name in sorted(have - set(pages)):
            if name.endswith(".md"):
                stale.append(name)
                print("%s: no such family any more" % os.path.join(a.out, name))
        if stale:
            print("gen_family_docs: stale: %s; run python3 tools/scripts/gen_family_docs.py"
                  % ", ".join(stale), file=sys.stderr)
            return 1
        print("gen_family_docs: %d pages up to date" % len(pages))
        return 0
    os.makedirs(a.out, exist_ok=True)
    for name, text in pages.items():
        with open(os.path.join(a.out, name), "w") as fh:
            fh.write(text)
    print("gen_family_docs: wrote %d pages to %s" % (len(pages), a.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
