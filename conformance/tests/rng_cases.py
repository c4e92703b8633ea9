"""rng_cases.py GOLDEN GPU plain|sfu [MAX] — the torch-cuda-rng golden cases of profile GPU whose
expected values hold a sha256 (valid ones; with "sfu" those flagged SfuModel, else the others),
one line each: tcId, sha256, and the `shardcheck rng --engine torch-cuda` options that compute
the same output (cli_rng.sh runs them with --digest: every op, the sampling ops included).
With MAX, only the outputs of at most MAX elements (the sampled make check's: under ASan a
float64 normal_ of 3,000,001 elements takes a minute).
"""
import json, sys
d = json.load(open(sys.argv[1]))
gpu, sfu = sys.argv[2], sys.argv[3] == "sfu"
limit = int(sys.argv[4]) if len(sys.argv) > 4 else None
def sh(v): return ",".join(str(x) for x in v)
for g in d["testGroups"]:
    if g["gpu"] != gpu:
        continue
    for t in g["tests"]:
        ex = t.get("expected", {})
        if t["result"] != "valid" or "sha256" not in ex or sfu != ("SfuModel" in t.get("flags", [])):
            continue
        numel = 1
        for x in t["shape"]:
            numel *= x
        if limit is not None and numel > limit:
            continue
        a = ["--seed", t["seed"], "--offset", t["offset"], "--op", t["op"], "--dtype", t["dtype"]]
        p = t.get("params", {})
        if t["op"] == "randperm":
            a += ["--n", str(p["n"])]
        elif t["op"] == "multinomial":
            a += ["--shape", sh(t["shape"]), "--values", sh(p["weights"]), "--n", str(p["n_sample"])]
            a += ["--replacement"] if p.get("replacement") else []
        elif t["op"] == "bernoulli_tensor":
            a += ["--shape", sh(t["shape"]), "--values", sh(p["p_values"]), "--p-shape",
                  sh(p["p_shape"]), "--p-dtype", p["p_dtype"]]
        else:
            a += ["--shape", sh(t["shape"])]
            for k, v in p.items():
                a += ["--" + k, v if isinstance(v, str) else repr(v)]
        print(t["tcId"], ex["sha256"], " ".join(a))
