#!/usr/bin/env python3
"""record_float64_sms.py — torch's float64 normal_ and exponential_ on this GPU, at whatever SM
count the process is given (MPS: CUDA_MPS_ACTIVE_THREAD_PERCENTAGE), against shardcheck's model
at the same launch geometry (issue 33 item 6).

    record_float64_sms.py --shardcheck PATH --out FILE.json [--label L] [--max-diffs N]

The cases are the 27 of ../shared/gpu/float64_normal_exponential_h100.json (the H100 at 132 SMs),
restated here because that folder does not travel to a device machine; the H100's sha256 is kept
so a 132-SM run can be compared with it.  For each case the GPU's output is hashed (sha256 of the
little-endian bytes, as the golden files hash) and compared with `shardcheck rng --engine
torch-cuda --gpu SMSxTHREADS@sm_XY --digest`; where they differ, the model's values are read
(`--count`) and the differing elements written (index, GPU bits, model bits), at most --max-diffs
per case.  Runs on a device machine (tools/gpu/gpu_lease.sh); no test runs it, since it needs
a GPU.
"""
import argparse
import hashlib
import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

# op, shape, seed, offset, lambd, H100 sha256, H100 new offset (132 SMs)
CASES = [
    ["normal", [1], "9223372036854775783", "8", None, "1ff66bbac3741a106f4883798dadfb09f26355bea27d55d46ec573ae9e3b36fd", "12"],
    ["normal", [3], "4294967303", "1000", None, "4c465c5d8502d788f18f3c055fcced81a33ac94df76e6b94bd433a8ed7ed0aa4", "1004"],
    ["normal", [4], "42", "123456", None, "25c8ba3705420ec291e4a6fde2344031e373c461d472161ccdd4d19ebdf16670", "123460"],
    ["normal", [5], "4294967303", "8", None, "78435bc9532dac38bff72f2c767573321b32620171c9b39311bf27ace78c33fc", "12"],
    ["normal", [17], "9223372036854775783", "1000", None, "3832898ffc316e92e69eb788e5b2bc9ea9c1842f87ec3ee2ac2a5f8efb34ea20", "1004"],
    ["normal", [3, 85], "0", "8", None, "3339f44612a98d72288b9bcf036a0699d5f055d86bcce379435de0c2c0f8c974", "12"],
    ["normal", [1000], "0", "0", None, "b750207fd4370e452b76aeff3f31fd29b0091afdb7f5cbe0c112297f34876090", "4"],
    ["normal", [4097], "42", "1000", None, "c3154d92b5783f975cf770432b00e861b9a142ebd6603537a4acbe7a880758cb", "1004"],
    ["normal", [65537], "9223372036854775783", "4", None, "ab7e97bc8032b39a96cae0ed01df9f0705a617140d578c9c6b627bb596f09053", "8"],
    ["normal", [3, 90112], "9223372036854775783", "4", None, "2fef820346e597dee4e0765910098d0c2926bf729fd57a96d70fa7e6c04dc8a0", "8"],
    ["normal", [3, 360449], "0", "123456", None, "6534b8264ec8ad52b892a648dbdcff83c4784abc3f00dd6decfd432b36403245", "123468"],
    ["normal", [1048576], "4294967303", "4", None, "8d6a0d963287627c0e96c4da6f9224a13ba4bd96c85cc0cb5436b9dbb6f8875a", "12"],
    ["normal", [3000001], "1234", "4", None, "0e81ff005763e186d4d330a0801fd02893ea9ff6c800468c6cb813e24843cafa", "28"],
    ["normal", [16777223], "1", "1000", None, "deb9154eacdaa09dbf710397d2b903d09c83b54cae3c2e3db6ca2e1e238eef81", "1128"],
    ["exponential", [1], "1", "8", 2.5, "8337a522fb941cb733d58606386096833208924a46bf6663480c43f5ceb1eb75", "12"],
    ["exponential", [3], "0", "123456", 2.5, "2d013b0bd697bfc11826ee428f0b19c23a80a006b1e96a689181bc24ca083915", "123460"],
    ["exponential", [4], "1", "0", 2.5, "e2456e6ebf2d644626775c99cd284d35d83f83b66b6945573155459255c7b799", "4"],
    ["exponential", [5], "9223372036854775783", "4", 2.5, "ecbfe823bb1f6ddab232b58e45bcb4298d1fbab59aa222bbd67ffe504c6cd65d", "8"],
    ["exponential", [17], "42", "8", 2.5, "404ecffb9176638899b749ede069c9b12faa4b0146ae1bf3f445954e26c993f3", "12"],
    ["exponential", [3, 85], "4294967303", "1000", 2.5, "ce0195e734040b4164ba9e4a54df840c8d4e8092a7978af7e2374df0cf065023", "1004"],
    ["exponential", [1000], "9223372036854775783", "8", 2.5, "0e7660d5f9bfd3dadf5dd846e6903ab9724619117eab3e27c3d29cbfce9c7edb", "12"],
    ["exponential", [4097], "9223372036854775783", "123456", 2.5, "e6a8a7bc291b1ae857ad59d53d675fd551030271fdf7dc223f1933d8fdd2504f", "123460"],
    ["exponential", [65537], "1", "0", 2.5, "64f1eaef1f8003768e000115ebbb81ccc34e1ad45d1cd85b433d95e241f0fc4e", "4"],
    ["exponential", [3, 90112], "9223372036854775783", "4", 2.5, "738f17132988f533b6ff25e713982115aaddc4a7f0cd236db4a1f02ff28acfb5", "8"],
    ["exponential", [3, 360449], "42", "0", 2.5, "50227c6656306ffb8ccee45abc7f65e722783a536bf36f53724401ead71e17ea", "12"],
    ["exponential", [3000001], "42", "4", 2.5, "f1b0487346340ea580270a0b495e0bc9f013715edd1a19f42c5a1062c03944e9", "28"],
    ["exponential", [16777223], "9223372036854775783", "123456", 2.5, "b8dd73b9e428f456b8434d3d9d4a831b69eae88fb437c153f5885e93864733ed", "123584"],
]


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
