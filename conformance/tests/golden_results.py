#!/usr/bin/env python3
"""golden_results.py — a results-file candidate built from golden's own answers, for the shell
tests of `shardcheck verify` and `certify --candidate` (verify_candidate.sh, verify_gpuonly.sh,
verify_partial.sh, certify.sh).  It writes the results form verify reads (tools/cli/cmd_verify.c:
{"family": F, ["fields": [...],] "results": [entry]}) from the golden files with Python's json,
not with shardcheck's C code, so a test built on it fails when verify misreads the form.

  golden_results.py GOLDEN FAMILY OUT                one entry per (test, rank): {"tcId", "rank",
                                                     "values"} ("rank" left out for a test with no
                                                     per-rank fields)
  golden_results.py GOLDEN FAMILY OUT --fields A,B   a partial candidate: one whole-test entry per
                                                     test keeping only fields A, B (top-level or
                                                     perRank), declared as "fields"

Every invalid test is answered {"tcId", "error": "rejected"}.  The tests that alter answers
import it (sys.path: $tests_dir, set by testlib.sh) and edit entries(...) before dumping.
"""
import glob
import json
import os
import sys


def tests(golden, family):
    for path in sorted(glob.glob(os.path.join(golden, family, "*.json"))):
        with open(path) as fh:
            for g in json.load(fh)["testGroups"]:
                yield from g["tests"]


def entries(golden, family, fields=None):
    """The results entries of golden's answers (each entry's values its own copy)."""
    res = []
    for t in tests(golden, family):
        if t["result"] == "invalid":
            res.append({"tcId": t["tcId"], "error": "rejected"})
            continue
        e = t["expected"]
        if fields is not None:
            v = {k: e[k] for k in fields if k in e}
            per = {k: a for k, a in e.get("perRank", {}).items() if k in fields}
            if per:
                v["perRank"] = per
            res.append({"tcId": t["tcId"], "values": v})
            continue
        pr = e.get("perRank", {})
        n = len(next(iter(pr.values()))) if pr else 0
        common = {k: v for k, v in e.items() if k not in ("perRank", "alternatives")}
        if n == 0:
            res.append({"tcId": t["tcId"], "values": json.loads(json.dumps(common))})
            continue
        for r in range(n):
            v = json.loads(json.dumps(common))
            v.update({k: a[r] for k, a in pr.items()})
            res.append({"tcId": t["tcId"], "rank": r, "values": v})
    return res


def document(family, res, fields=None):
    doc = {"family": family}
    if fields is not None:
        doc["fields"] = list(fields)
    doc["results"] = res
    return doc


def main(argv):
    if len(argv) not in (3, 5) or (len(argv) == 5 and argv[3] != "--fields"):
        sys.exit("usage: golden_results.py GOLDEN FAMILY OUT [--fields A,B]")
    golden, family, out = argv[:3]
    fields = argv[4].split(",") if len(argv) == 5 else None
    # dumps and one write: json.dump writes in small pieces, 2.5x slower on shard-layout's 30 MB
    with open(out, "w") as fh:
        fh.write(json.dumps(document(family, entries(golden, family, fields), fields)))


if __name__ == "__main__":
    main(sys.argv[1:])
