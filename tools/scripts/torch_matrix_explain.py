#!/usr/bin/env python3
"""torch_matrix_explain.py — count a torch-backend run (`shardcheck run --backend torch
--json`) and explain each disagreement by the recorded torch finding it is
(docs/findings/*.py), from the golden case's own inputs.  Prints one JSON object:
{"cases", "agree", "disagree", "notSupported", "explained": {finding: n},
"unexplained": [case, ...]}.  tools/scripts/torch_matrix.sh calls it; a disagreement no rule explains
is listed, never counted as agreement.

  torch_matrix_explain.py GOLDEN RUN.json
"""
import glob
import json
import os
import sys


def golden_cases(golden, family):
    out = {}
    for path in glob.glob(os.path.join(golden, family, "*.json")):
        with open(path) as fh:
            for g in json.load(fh)["testGroups"]:
                for t in g["tests"]:
                    out[t["tcId"]] = (g, t)
    return out


def toks(s):
    return s or ""


def explain(family, group, test, case):
    """The finding a disagreement is, or None."""
    flags = set(test.get("flags") or [])
    rm = group.get("rankMap") or test.get("rankMap")
    if family == "shard-layout" and rm is not None and list(rm) != sorted(rm):
        return "distribute_nonarange_rank_map.py"
    if family == "group-ranks" and rm is not None and len(set(rm)) != len(rm):
        return "duplicate_rank_map_hang.py"
    if family == "redistribute-data":
        src = toks(test.get("src"))
        if "P(avg)" in src and test.get("dtype", "").startswith("int"):
            return "partial_avg_integer_gloo.py"
        if "WrongDataFinding" in flags:
            return "strided_wrong_data.py"
    if family == "redistribute-plan":
        if "RankDivergent" in flags:
            return "rank_divergent_reduce_scatter.py"
        if "Merged" in flags and "StridedShard" in flags:
            return "merged _StridedShard steps assert (README, torch backend: tc 20326)"
        if "_S(" in toks(test.get("dst")):
            return "strided_target_unpad.py"
    return None


def main(golden, path):
    with open(path) as fh:
        run = json.load(fh)
    counts = {"cases": 0, "agree": 0, "disagree": 0, "notSupported": 0, "explained": {},
              "unexplained": []}
    cache = {}
    for c in run.get("cases") or []:
        fam, st = c.get("family"), c.get("status")
        counts["cases"] += 1
        if st == "Pass":
            counts["agree"] += 1
            continue
        if st == "NotSupported":
            counts["notSupported"] += 1
            continue
        counts["disagree"] += 1
        if fam not in cache:
            cache[fam] = golden_cases(golden, fam)
        g, t = cache[fam].get(c.get("tcId"), ({}, {}))
        why = explain(fam, g, t, c)
        if why:
            counts["explained"][why] = counts["explained"].get(why, 0) + 1
        else:
            counts["unexplained"].append("%s tc %s %s: %s" % (fam, c.get("tcId"), st,
                                                             str(c.get("detail"))[:200]))
    print(json.dumps(counts))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: torch_matrix_explain.py GOLDEN RUN.json")
    main(sys.argv[1], sys.argv[2])
