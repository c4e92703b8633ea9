#!/usr/bin/env python3
"""invalid_audit.py — who rejects each invalid golden case: torch itself, or a golden flag.

What it is for (issue 25 item 1): an oracle adapter must never add a check torch lacks, or
the cross-check cannot fail.  For the torch this python imports (one release per run), every
golden test whose answer for that release is `invalid`, in each family with a torch adapter,
goes through
  - the harness's torch adapter (adapters/torch_*.py), and
  - the torch backend's per-family code (torch_worker.FAMILIES), on torch's fake process group
    as each rank of the case's world in turn until one raises (what `shardcheck run
    --backend torch` runs under mpirun, without the collectives' data);
and each outcome is classified by harnesslib.rejection_origin: torch's own file:line, one of
torch's native functions (called through _torch_common.native), or the adapter's own raise.
The golden flags that excuse a case: StricterThanTorch (torch accepts it, which both must
show) and NotTorchInput (no torch object can be written for it; the notation refuses it).

  python invalid_audit.py [--golden DIR] [--family F] [--json OUT] [--check]
      --check: exit 1 naming each case an adapter or the worker rejects by its own check,
      accepts without the flag StricterThanTorch, or rejects although it carries that flag
  python invalid_audit.py --render A.json [B.json ...] --out docs/invalid-audit.md
      the table of the per-release JSON files (tools/invalid_audit.sh runs every release)

How it is tested: tools/harness/tests/test_invalid_audit.py (every invalid case of the
imported torch passes --check; an adapter or worker given a check of its own fails it; the
rendered 2.13 column equals docs/invalid-audit.md's).
"""

import argparse
import json
import os
import re
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import harnesslib as hl  # noqa: E402

FAMILIES = {"shard-layout": "adapters.torch_shard_layout",
            "group-ranks": "adapters.torch_group_ranks",
            "rng-offsets": "adapters.torch_rng_offsets",
            "redistribute-plan": "adapters.torch_redistribute_plan",
            "redistribute-data": "adapters.torch_redistribute_data"}
FLAGS = (hl.STRICTER, hl.NOT_TORCH_INPUT)


def outcome(fn):
    """{"by": "torch"|"adapter"|"accepted"|"skipped", "where", "error"} of one call."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn()
    except Exception as e:  # noqa: BLE001 — every rejection is what is audited
        by, where = hl.rejection_origin(e)
        if by != "torch" and isinstance(e, hl.SKIP_EXCEPTIONS):
            by = "skipped"  # the adapter's "I do not compute this case"
        return {"by": by, "where": where, "error": "%s: %s" % (type(e).__name__, first_line(e))}
    return {"by": "accepted"}


def first_line(e):
    return (str(e).strip().splitlines() or [""])[0][:200]


def world_of(group, test):
    from adapters import _torch_common as tc
    n = 1
    for s in tc.parse_int_list(tc.field(group, test, "mesh"), "mesh"):
        n *= s
    return n


def worker_outcome(family, group, test):
    """The torch backend's code on torch's fake process group, rank by rank."""
    import torch
    import torch.distributed as dist
    from adapters import _torch_common as tc
    import torch_worker as tw
    if family not in tw.FAMILIES:
        return {"by": "not run", "where": "the torch backend runs %s on CUDA only" % family}
    n = world_of(group, test)
    if n < 1:
        return {"by": "not run", "where": "no job of %d ranks" % n}
    last = None
    for r in range(n):
        tc.WORLD.enter(n, r)
        w = tw.World(torch, dist, "cpu")
        last = outcome(lambda: tw.FAMILIES[family](w, group, test))
        if last["by"] != "accepted":
            last["rank"] = r
            return last
    tc.WORLD.close()
    return last


def audit(golden, families, release):
    """Rows {family, tcId, flags, error (golden), adapter, worker} for every invalid case.
    The torch backend's code runs first, for every family: the harness adapters leave
    torch state behind (redistribute-data's LocalTensorMode meshes) that the real worker
    never meets."""
    cases = []
    for fam in families:
        for _path, group, test in hl.iter_cases(fam, golden, with_answers=True):
            kind, exp = hl.answer_for(test, release)
            if kind == "invalid":
                inputs = {k: v for k, v in test.items() if k not in hl.HIDDEN_FIELDS}
                cases.append((fam, group, test, exp, inputs))
    rows = []
    for fam, group, test, exp, inputs in cases:
        rows.append({"family": fam, "tcId": test["tcId"],
                     "flags": [f for f in test.get("flags") or () if f in FLAGS],
                     "error": exp.get("error", ""),
                     "worker": worker_outcome(fam, group, inputs)})
    adapters = {fam: hl.load_adapter(FAMILIES[fam]) for fam in families}
    for row, (fam, group, _test, _exp, inputs) in zip(rows, cases):
        row["adapter"] = outcome(lambda: adapters[fam].compute(group, inputs))
    return rows


def problems(rows):
    """Why each row breaks the rule (an empty list: the audit passes)."""
    out = []
    for r in rows:
        for who in ("adapter", "worker"):
            o = r[who]
            if o["by"] in ("not run",):
                continue
            tag = "%s tc %d: %s" % (r["family"], r["tcId"], who)
            if hl.STRICTER in r["flags"]:
                if o["by"] != "accepted":
                    out.append("%s: flag %s says torch accepts it, but it raised at %s: %s"
                               % (tag, hl.STRICTER, o.get("where"), o.get("error")))
            elif o["by"] == "accepted":
                out.append("%s: accepted an invalid case without the flag %s"
                           % (tag, hl.STRICTER))
            elif o["by"] == "skipped":
                out.append("%s: not computed (%s)" % (tag, o.get("error")))
            elif o["by"] != "torch" and hl.NOT_TORCH_INPUT not in r["flags"]:
                out.append("%s: rejected by its own check at %s, not by torch: %s"
                           % (tag, o.get("where"), o.get("error")))
    return out


# ---------------------------------------------------------------- the table

def cell(o, flags):
    if o is None:
        return "valid"
    if hl.STRICTER in flags and o["by"] == "accepted":
        return "accepts (StricterThanTorch)"
    if o["by"] == "torch":
        return re.sub(r" \(.*\)$", "", o["where"])  # a native function without its caller
    if o["by"] == "not run":
        return "not run: " + o["where"]
    if hl.NOT_TORCH_INPUT in flags:
        return "no torch object (NotTorchInput)"
    return "%s at %s" % (o["by"].upper(), o.get("where"))


def ranges(ids):
    ids = sorted(set(ids))
    out, k = [], 0
    while k < len(ids):
        j = k
        while j + 1 < len(ids) and ids[j + 1] == ids[j] + 1:
            j += 1
        out.append(str(ids[k]) if j == k else "%d-%d" % (ids[k], ids[j]))
        k = j + 1
    return ", ".join(out)


def short_error(msg):
    msg = re.sub(r"\{'\w+', '\w+'\}", "{...}", msg)
    msg = re.sub(r"\(_StridedShard.*?\) is unable", "(...) is unable", msg)
    msg = re.sub(r"\((Replicate|Shard|_Strided).*?\) is unable", "(...) is unable", msg)
    msg = re.sub(r"S\(\d\) to P", "S(d) to P", msg)
    msg = re.sub(r"\bstep \d+", "step N", msg)
    return msg[:110] + ("..." if len(msg) > 110 else "")


def render(paths):
    runs = []
    for p in paths:
        with open(p) as fh:
            runs.append(json.load(fh))
    runs.sort(key=lambda d: [int(x) for x in d["release"].split(".")])
    releases = [d["release"] for d in runs]
    pinned = next((d for d in runs if d["release"] == hl.pinned_release()), runs[-1])
    by_case = {}
    for d in runs:
        for r in d["rows"]:
            c = by_case.setdefault((r["family"], r["tcId"]), {"flags": r["flags"],
                                                              "error": r["error"]})
            c[d["release"]] = r["adapter"]
            if d is pinned:
                c["worker"] = r["worker"]
            c["error"] = c["error"] if d is not pinned else r["error"]
    groups = {}
    for (fam, tc), c in sorted(by_case.items()):
        key = (fam, short_error(c["error"]), tuple(cell(c.get(v), c["flags"]) for v in releases),
               cell(c.get("worker"), c["flags"]) if "worker" in c else "valid in %s"
               % hl.pinned_release(), tuple(c["flags"]))
        groups.setdefault(key, []).append(tc)
    lines = ["| # | family | cases | golden error | " + " | ".join(
        "torch %s" % hl.patches().get(v, v) for v in releases) +
        " | torch backend (%s, fake process group) |" % hl.patches().get(pinned["release"]),
        "|---|---|---:|---|" + "---|" * (len(releases) + 1)]
    detail = []
    counts = {}
    for i, (key, ids) in enumerate(sorted(groups.items(), key=lambda kv: (kv[0][0], kv[1][0])),
                                   1):
        fam, err, cells, wcell, flags = key
        lines.append("| %d | %s | %d | %s | %s | %s |" % (
            i, fam, len(ids), err.replace("|", "\\|"), " | ".join(cells), wcell))
        detail.append("%d. %s: %s" % (i, fam, ranges(ids)))
        for v, c in zip(releases, cells):
            k = "flag" if "(" in c and ("Stricter" in c or "NotTorch" in c) else \
                "valid" if c == "valid" else "torch" if c.startswith(("torch/", "native"))\
                else "other"
            counts.setdefault((fam, v), {}).setdefault(k, 0)
            counts[(fam, v)][k] += len(ids)
    summary = ["| family | " + " | ".join("torch %s" % hl.patches().get(v, v) for v in releases)
               + " |", "|---|" + "---|" * len(releases)]
    for fam in sorted({f for f, _ in counts}):
        cells = []
        for v in releases:
            c = counts.get((fam, v), {})
            cells.append("%d by torch, %d by flag%s" % (
                c.get("torch", 0), c.get("flag", 0),
                ", %d OTHER" % c["other"] if c.get("other") else ""))
        summary.append("| %s | %s |" % (fam, " | ".join(cells)))
    return "\n".join(summary), "\n".join(lines), "\n".join(detail)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="invalid_audit.py")
    ap.add_argument("--golden", default=hl.DEFAULT_GOLDEN)
    ap.add_argument("--family", action="append", choices=sorted(FAMILIES))
    ap.add_argument("--json", metavar="OUT")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--render", nargs="+", metavar="JSON")
    ap.add_argument("--out", metavar="MD")
    a = ap.parse_args(argv)
    if a.render:
        summary, table, detail = render(a.render)
        text = TEMPLATE.format(summary=summary, table=table, detail=detail)
        if a.out:
            with open(a.out, "w") as fh:
                fh.write(text)
        else:
            sys.stdout.write(text)
        return 0
    import torch
    release = hl.torch_minor(torch.__version__)
    import logging
    logging.getLogger("torch.distributed.tensor._redistribute").setLevel(logging.ERROR)
    rows = audit(a.golden, a.family or sorted(FAMILIES), release)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"release": release, "torch": torch.__version__, "rows": rows}, fh,
                      indent=0)
    bad = problems(rows)
    for fam in a.family or sorted(FAMILIES):
        mine = [r for r in rows if r["family"] == fam]
        by = {}
        for r in mine:
            k = "flag " + r["flags"][0] if r["flags"] else r["adapter"]["by"]
            by[k] = by.get(k, 0) + 1
        print("%s (torch %s): %d invalid cases: %s" % (
            fam, torch.__version__, len(mine), ", ".join("%d %s" % (n, k)
                                                         for k, n in sorted(by.items()))))
    for b in bad:
        print("AUDIT " + b)
    if a.check:
        return 1 if bad else 0
    return 0


TEMPLATE = """# Invalid cases, audited against torch itself

<!-- generated by tools/invalid_audit.sh (tools/harness/invalid_audit.py --render); do not edit -->

An oracle adapter must never add a check torch itself lacks, or the cross-check cannot fail
(issue 25 item 1). Every golden test whose answer is `invalid` in a family with a torch adapter
was run, in every supported release, through the harness's torch adapter
(`tools/harness/adapters/torch_*.py`) and, in the pinned release, through the torch backend's
per-family code (`tools/harness/torch_worker.py` on torch's fake process group, as each rank of
the case's world until one raises). Each rejection is located by
`harnesslib.rejection_origin`: the file:line of torch's Python code that raised, or the native
function of torch's (called through `_torch_common.native`) whose C++ raised. Neither the
adapters nor the worker check anything of their own; `tools/harness/tests/test_invalid_audit.py`
fails if one does (it adds a check to each and sees the audit refuse it), and the harness
(`run.py`) fails a torch adapter's rejection that does not come from torch.

Two golden flags mark the cases torch does not reject:

- **StricterThanTorch**: torch accepts the input, shardcheck rejects it; the flag's note says why
  and what torch does. The torch adapter and the torch backend must *accept* such a case (the
  harness and `run --backend torch` fail it if torch raises), so the note stays checked.
- **NotTorchInput**: the input cannot be written as a torch object at all (a placement no torch
  class prints as, a shard order no `ShardOrder` prints as): the notation refuses it, so no
  torch call exists to reject it.

`rng-policies` (2 invalid cases: hyper_parallel's port refusing `_StridedShard` and a shard dim
its `dim_map` cannot index) has no torch adapter: its cases are computed element by element
and carry `NoIndependentOracle`. Its `megatron-train-ep` invalid case (decoder tp 8 apart from
etp 2: a duplicate tracker seed) is Megatron's refusal, raised by Megatron-core 0.19.2's own
`CudaRNGStatesTracker.add` in `adapters/megatron_rng_policies.py`; its `megatron-gtp` and
`megatron-egtp` invalid cases (a GTP axis of one device: no GTP state is added) are refused by
Megatron's own `CudaRNGStatesTracker.fork` there. `torch-cuda-rng`'s 29 invalid cases are torch's own CUDA ops'
rejections, checked on a GPU by `adapters/torch_cuda_rng.py` (no GPU was lent to this audit;
the 22 whose check is device-independent are checked on a CPU by `test_torch_adapters.py`).

## What was decided

- **The torch operation each family is judged by.** shard-layout and rng-offsets:
  `distribute_tensor` of the global tensor (on the meta device in the harness; a `Partial` laid
  out as `Replicate`, its layout, since `distribute_tensor` partitions a value only for the reduce
  ops `Partial._partition_value` knows) and, for a shard order, a `DTensorSpec` holding it.
  group-ranks: `DeviceMesh` over a world of the mesh's size, built on every rank. redistribute-plan
  and redistribute-data: `DTensorSpec`s and `redistribute_local_tensor` (the plan adapter runs
  torch's planners and asks `compute_local_shape_and_global_offset` for the source and target
  layouts; the torch backend executes for real).
- **shard-layout tc 31731: a reduce op of 32 characters, flagged `StricterThanTorch`.** torch's
  `Partial` takes any string as its reduce op; `DTensor.from_local` and the layout routine lay it
  out as any `Partial` (the whole tensor on every rank), and torch refuses it only when a
  collective reduces it (c10d "Unrecognized reduce_op: mean") or when `distribute_tensor`
  partitions a value into it (as for product, band, bor, bxor). Until issue 34 this row was
  `P(mean)`, kept invalid; since then shardcheck takes any reduce-op string as torch does (and
  says where torch raises: `plan` names the step), so the row, its tcId kept, holds the one
  limit left: shardcheck keeps at most 31 characters of the string, torch any. Every release's
  cell below is P(mean)'s audit: both are strings torch's `Partial` takes in every release.
- **redistribute-plan tc 20336, one source placement on a 2-d mesh: `StricterThanTorch`.** Only
  `distribute_tensor` counts placements; `DTensor.from_local`, `DTensorSpec` and `redistribute` do
  not, and torch plans and runs the first mesh dim's all-gather alone. The adapters had copied the
  count check ("dimensions mismatch") from torch's trace printer, which torch itself only runs for
  DebugMode.
- **`NotTorchInput`** marks the four cases that name no torch object: `Q(0)`, `S(0` (shard-layout
  tc 31729, 31730), `R,X` (group-ranks tc 21114), and `S(0)[0]S(0)[0]` (tc 31732: two mesh dims of
  one tensor dim with the same shard-order index, which `DTensorSpec.format_shard_order_str` never
  prints).
- **Int64Overflow** (shard-layout tc 31733, 31734): torch refuses them too (ATen's storage-size
  check when the global tensor is made); the flag's note said otherwise and now says so.
- **Checks removed from the adapters and the worker**, each now torch's own: the placement count
  (shard-layout, rng-offsets: `distribute_tensor`, `_api.py`; hsdp: `distribute_tensor` on the
  mesh), shard dims beyond the tensor (rng-offsets), the reduce-op check (tc 31731), a shard order
  with `_StridedShard` (`DTensorSpec.__post_init__`), a rank outside the mesh (group-ranks: the
  fake world was one rank larger than the mesh, so torch accepted it; now `new_group` refuses),
  mesh dims out of range (group-ranks, hsdp: `DeviceMesh.get_group`), and the rng-offsets
  adapter's re-raise of torch's message as its own `RuntimeError` (now torch's exception itself).
  LocalTensor (the redistribute-data adapter) refuses five uneven cases one step early
  (`_local_tensor/_c10d.py`, its all-gather of unequal shards); the real path raises at the step
  the golden names (torch backend column).

## Per family and release

{summary}

## Every invalid case

A cell is where torch raised (`path:line` in that release's wheel, `native NAME` for a C++
function), `accepts (StricterThanTorch)`, `no torch object (NotTorchInput)`, or `valid`: that
release's answer is not `invalid`. The torch backend column is the pinned release's.

{table}

### The cases of each row

{detail}
"""

if __name__ == "__main__":
    sys.exit(main())
