#!/usr/bin/env python3
"""fuzz/make_seeds.py — cut small seed inputs for the golden-fed fuzz targets out of golden/.

Each seed is a valid one-test golden file (its group's parameters, one test, only the notes
its flags need), taken from every family and spread over its files and groups, preferring
meshes of at most 16 ranks so that one input stays fast.  The committed corpora in
fuzz/corpus/ started from these and were then grown by libFuzzer and minimized with
-merge=1; rerun this only to reseed (see fuzz/README.md).

usage: make_seeds.py GOLDEN_DIR OUT_DIR [PER_FAMILY]
       make_seeds.py verify GOLDEN_DIR FUZZ_DIR
The second form writes the verify_diff target's inputs: for every family F (in the order of
VERIFY_FAMILIES, which fuzz_verify_diff.c's table repeats), its small golden family
FUZZ_DIR/data/verify/F/F.json when there is none yet (a few tests: per-rank with at most 4
ranks, rank-independent, invalid, acceptable; no "tolerance", which the index loader leaves
to the trees), and the seeds FUZZ_DIR/corpus/verify_diff/F-{golden,results,reversed}: byte 0
the family's index, then right answers (the golden file itself; a results file, compact;
the same entries reversed, indented).
"""
import json, os, sys

VERIFY_FAMILIES = ["shard-layout", "group-ranks", "philox-kat", "rng-offsets", "rng-policies",
                   "redistribute-data", "redistribute-plan", "curand-stream", "torch-cuda-rng",
                   "threefry", "view-sharding"]


def world_of(test):
    per = test.get("expected", {}).get("perRank", {})
    for v in per.values():
        return len(v)
    return 1


def main():
    gold, out = sys.argv[1], sys.argv[2]
    per_family = int(sys.argv[3]) if len(sys.argv) > 3 else 12
    os.makedirs(out, exist_ok=True)
    for fam in sorted(os.listdir(gold)):
        fdir = os.path.join(gold, fam)
        if fam == "schemas" or not os.path.isdir(fdir):
            continue
        picks = []
        for name in sorted(os.listdir(fdir)):
            root = json.load(open(os.path.join(fdir, name)))
            for gi, grp in enumerate(root["testGroups"]):
                tests = [t for t in grp["tests"] if world_of(t) <= 16]
                for t in (tests[:1] + tests[-1:] if tests else []):
                    picks.append((root, grp, t))
        step = max(1, len(picks) // per_family)
        for k, (root, grp, t) in enumerate(picks[::step][:per_family]):
            g = {key: v for key, v in grp.items() if key != "tests"}
            g["tests"] = [t]
            doc = {"schema": root["schema"], "family": root["family"], "source": root["source"],
                   "numberOfTests": 1,
                   "notes": {f: root["notes"][f] for f in t.get("flags", []) if f in root["notes"]},
                   "testGroups": [g]}
            with open(os.path.join(out, "%s-%02d.json" % (fam, k)), "w") as fp:
                json.dump(doc, fp, separators=(",", ":"))


def small_family(gold, fam):
    """A few tests of every kind from golden/fam, as one golden file: first one whose expected
    holds a literal (true, false, null), then per-rank, rank-independent, invalid, acceptable."""
    want = {"literal": 1, "per": 2, "whole": 2, "invalid": 1, "acceptable": 1}
    roots = [json.load(open(os.path.join(gold, fam, name)))
             for name in sorted(os.listdir(os.path.join(gold, fam)))]
    head, picked, notes = {k: roots[0][k] for k in ("schema", "family", "source")}, {}, {}
    for literal in (True, False):
        for ri, root in enumerate(roots):
            for gi, grp in enumerate(root["testGroups"]):
                for t in grp["tests"]:
                    per = t["expected"].get("perRank", {})
                    world = len(next(iter(per.values()))) if per else 0
                    text = json.dumps(t["expected"], separators=(",", ":"))
                    kind = ("invalid" if t["result"] == "invalid" else "acceptable"
                            if t["result"] == "acceptable" else "per" if per else "whole")
                    if literal:
                        kind = "literal" if kind in ("per", "whole") and \
                            any(w in text for w in (":null", ":true", ":false")) else None
                    if not kind or want[kind] <= 0 or "tolerance" in t or world > 4 or \
                            len(text) > 1200 or t["tcId"] in {x["tcId"] for x in
                                                              picked.get((ri, gi), [])}:
                        continue
                    want[kind] -= 1
                    picked.setdefault((ri, gi), []).append(t)
                    notes.update({f: root["notes"][f] for f in t.get("flags", [])})
    groups = []
    for (ri, gi) in sorted(picked):
        g = {k: v for k, v in roots[ri]["testGroups"][gi].items() if k != "tests"}
        g["tests"] = sorted(picked[(ri, gi)], key=lambda t: t["tcId"])
        groups.append(g)
    doc = dict(head)
    doc["numberOfTests"] = sum(len(g["tests"]) for g in groups)
    doc["notes"] = notes
    doc["testGroups"] = groups
    return doc


def results_of(doc):
    """Right answers as a results file's entries (conformance/tests/golden_results.py's rules)."""
    res = []
    for g in doc["testGroups"]:
        for t in g["tests"]:
            e = t["expected"]
            if t["result"] == "invalid":
                res.append({"tcId": t["tcId"], "error": "rejected"})
                continue
            pr = e.get("perRank", {})
            n = len(next(iter(pr.values()))) if pr else 0
            common = {k: v for k, v in e.items() if k not in ("perRank", "alternatives")}
            if n == 0:
                res.append({"tcId": t["tcId"], "values": common})
            for r in range(n):
                v = dict(common)
                v.update({k: a[r] for k, a in pr.items()})
                res.append({"tcId": t["tcId"], "rank": r, "values": v})
    return res


def verify_seeds(gold, fuzz):
    cdir = os.path.join(fuzz, "corpus", "verify_diff")
    os.makedirs(cdir, exist_ok=True)
    for k, fam in enumerate(VERIFY_FAMILIES):
        ddir = os.path.join(fuzz, "data", "verify", fam)
        path = os.path.join(ddir, fam + ".json")
        if not os.path.exists(path):
            os.makedirs(ddir, exist_ok=True)
            with open(path, "w") as fp:
                json.dump(small_family(gold, fam), fp, separators=(",", ":"))
        raw = open(path, "rb").read()
        doc = json.loads(raw)
        res = results_of(doc)
        seeds = {"golden": raw,
                 "results": json.dumps({"family": fam, "results": res},
                                       separators=(",", ":")).encode(),
                 "reversed": json.dumps({"family": fam, "results": res[::-1]},
                                        indent=1).encode()}
        for name, data in seeds.items():
            with open(os.path.join(cdir, "%s-%s" % (fam, name)), "wb") as fp:
                fp.write(bytes([k]) + data)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "verify":
        verify_seeds(sys.argv[2], sys.argv[3])
    else:
        main()
