#!/usr/bin/env python3
"""record_float64_sms.py — torch's float64 normal_ and exponential_ on this GPU, at whatever SM
count the process is given (MPS: CUDA_MPS_ACTIVE_THREAD_PERCENTAGE), against shardcheck's model
at the same launch geometry (issue 33 item 6).

    record_float64_sms.py --shardcheck PATH --out FILE.json [--label L] [--max-diffs N]

The cases are the 27 of conformance/tests/data/gpu/float64_normal_exponential_h100.json (the
H100 at 132 SMs, a copy of the project's shared recording, which travels with the tree); the
H100's sha256 is kept so a 132-SM run can be compared with it.  For each case the GPU's output is hashed (sha256 of the
little-endian bytes, as the golden files hash) and compared with `shardcheck rng --engine
torch-cuda --gpu SMSxTHREADS@sm_XY --digest`; where they differ, the model's values are read
(`--count`) and the differing elements written (index, GPU bits, model bits), at most --max-diffs
per case.  Runs on a device machine (tools/gpu/gpu_lease.sh); no test runs it, since it needs
a GPU.
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

H100 = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "conformance", "tests",
                    "data", "gpu", "float64_normal_exponential_h100.json")


def load_cases(path=H100):
    """[op, shape, seed, offset, lambd, H100 sha256, H100 new offset] of each recorded case."""
    with open(path) as f:
        doc = json.load(f)
    return [[c["op"], c["shape"], c["seed"], c["offset"], c["params"].get("lambd"), c["sha256"],
             c["new_offset"]] for c in doc["cases"]]


CASES = load_cases()


def model_args(sc, case, gpu):
    op, shape, seed, offset, lambd = case[:5]
    a = [sc, "rng", "--engine", "torch-cuda", "--seed", seed, "--offset", offset,
         "--shape", ",".join(map(str, shape)), "--op", op, "--dtype", "float64", "--gpu", gpu]
    if lambd is not None:
        a += ["--lambd", repr(lambd)]
    return a


def model_digest(sc, case, gpu):
    out = subprocess.run(model_args(sc, case, gpu) + ["--digest"], capture_output=True,
                         text=True, timeout=300)
    d = {"rc": out.returncode}
    for line in out.stdout.splitlines():
        if line.startswith("sha256 "):
            d["sha256"] = line.split()[1]
        elif line.startswith("new_offset "):
            d["new_offset"] = line.split()[1]
        elif line.startswith("modelled:"):
            d["modelled"] = line[len("modelled:"):].strip()
    if out.returncode:
        d["stderr"] = out.stderr[-300:]
    return d


def model_bits(sc, case, gpu, n):
    """The model's output words, read in `--start/--count` pieces (rng prints 2^24 at most)."""
    import numpy as np
    bits = np.zeros(n, dtype=np.uint64)
    got = 0
    for start in range(0, n, 1 << 24):
        cnt = min(1 << 24, n - start)
        out = subprocess.run(model_args(sc, case, gpu) + ["--start", str(start), "--count",
                             str(cnt)], capture_output=True, text=True, timeout=600)
        for line in out.stdout.splitlines():
            f = line.split(None, 2)
            if len(f) >= 2 and f[0].isdigit():
                bits[int(f[0])] = int(f[1], 16)
                got += 1
        if out.returncode:
            break
    if got != n:
        raise RuntimeError(f"shardcheck printed {got} of {n} values: {out.stderr[-200:]}")
    return bits


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shardcheck", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--label", default="")
    ap.add_argument("--max-diffs", type=int, default=400)
    a = ap.parse_args()
    import torch
    t0 = time.time()
    p = torch.cuda.get_device_properties(0)
    sms, threads = p.multi_processor_count, p.max_threads_per_multi_processor
    gpu = f"{sms}x{threads}@sm_{p.major}{p.minor}"
    res = {"label": a.label, "device": p.name, "sms": sms, "threads_per_sm": threads,
           "model_gpu": gpu, "torch": torch.__version__, "cases": []}
    outs = []
    for c in CASES:
        op, shape, seed, offset, lambd, h100_sha, h100_off = c
        g = torch.Generator(device="cuda")
        g.manual_seed(int(seed))
        g.set_offset(int(offset))
        t = torch.empty(shape, dtype=torch.float64, device="cuda")
        if op == "normal":
            t.normal_(generator=g)
        else:
            t.exponential_(lambd, generator=g)
        raw = t.cpu().numpy().astype("<f8").tobytes()
        outs.append(raw)
        res["cases"].append({"op": op, "shape": shape, "seed": seed, "offset": offset,
                             "sha256": hashlib.sha256(raw).hexdigest(),
                             "new_offset": str(g.get_offset()),
                             "h100_132sm_sha256": h100_sha, "h100_132sm_new_offset": h100_off})
    with ThreadPoolExecutor(16) as ex:
        digs = list(ex.map(lambda c: model_digest(a.shardcheck, c, gpu), CASES))
    import numpy as np

    def diff(job):
        c, rec, raw = job
        gpu_bits = np.frombuffer(raw, dtype="<u8")
        try:
            mb = model_bits(a.shardcheck, c, gpu, gpu_bits.size)
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            rec["diff_error"] = str(e)[:300]
            return
        idx = np.nonzero(gpu_bits != mb)[0]
        rec["differing"] = int(idx.size)
        rec["diffs"] = [[int(i), f"{int(gpu_bits[i]):016x}", f"{int(mb[i]):016x}"]
                        for i in idx[:a.max_diffs]]

    jobs = []
    for c, rec, dg, raw in zip(CASES, res["cases"], digs, outs):
        rec["model"] = dg
        rec["equal"] = dg.get("sha256") == rec["sha256"] and dg.get("new_offset") == rec["new_offset"]
        if dg.get("sha256") and dg["sha256"] != rec["sha256"]:
            jobs.append((c, rec, raw))
    with ThreadPoolExecutor(8) as ex:
        list(ex.map(diff, jobs))
    res["seconds"] = round(time.time() - t0, 1)
    res["equal"] = sum(r["equal"] for r in res["cases"])
    with open(a.out, "w") as f:
        json.dump(res, f, indent=1)
    print(f"record_float64_sms: {gpu}: {res['equal']} of {len(CASES)} equal to the model "
          f"({res['seconds']} s)")
    for r in res["cases"]:
        if not r["equal"]:
            print(f"  {r['op']} {r['shape']} seed {r['seed']}: differs"
                  f" ({r.get('differing', '?')} elements; model {r['model'].get('modelled')})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
