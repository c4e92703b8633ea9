#!/usr/bin/env python3
"""fuzz/make_seeds.py — cut small seed inputs for the golden-fed fuzz targets out of golden/.

Each seed is a valid one-test golden file (its group's parameters, one test, only the notes
its flags need), taken from every family and spread over its files and groups, preferring
meshes of at most 16 ranks so that one input stays fast.  The committed corpora in
fuzz/corpus/ started from these and were then grown by libFuzzer and minimized with
-merge=1; rerun this only to reseed (see fuzz/README.md).

usage: make_seeds.py GOLDEN_DIR OUT_DIR [PER_FAMILY]
"""
import json, os, sys


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


if __name__ == "__main__":
    main()
