#!/usr/bin/env python3
"""bench_torch_fill.py — torch's own CUDA random fills in GB/s, the peer of bench/bench_cuda's
figures for shardcheck's kernels (the same 268,435,456 float32 elements, best of the same kind
of repeated timing, CUDA events).  Run on a GPU machine beside bench_cuda, in the same call
(tools/gpu/gpu_lease.sh, step "torchbench"); prints one line per op and the ratios to the
figures bench_cuda printed, when its log is given.

    bench_torch_fill.py [BENCH_CUDA_LOG]

Not run by make check (timings never are; it needs a CUDA torch).
"""
import re
import sys

import torch

N = 1 << 28
REPS = 20


def best_gbps(fill):
    x = torch.empty(N, dtype=torch.float32, device="cuda")
    for _ in range(3):
        fill(x)
    torch.cuda.synchronize()
    best = None
    for _ in range(REPS):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fill(x)
        b.record()
        b.synchronize()
        ms = a.elapsed_time(b)
        best = ms if best is None or ms < best else best
    return 4.0 * N / (best * 1e-3) / 1e9


def main():
    p = torch.cuda.get_device_properties(0)
    print("torch %s on %s (%d SMs), %d float32" % (torch.__version__, p.name,
                                                   p.multi_processor_count, N))
    got = {"uniform": best_gbps(lambda x: x.uniform_()),
           "normal": best_gbps(lambda x: x.normal_())}
    ours = {}
    if len(sys.argv) > 1:
        text = open(sys.argv[1]).read()
        for k in got:
            m = re.search(r"^shardcheck %s\s+([0-9.]+) GB/s" % k, text, re.M)
            if m:
                ours[k] = float(m.group(1))
    for k, v in got.items():
        tail = ""
        if k in ours:
            tail = "  (shardcheck %.1f GB/s: %.2f x torch)" % (ours[k], ours[k] / v)
        print("torch %-8s %8.1f GB/s%s" % (k, v, tail))
    return 0


if __name__ == "__main__":
    sys.exit(main())
