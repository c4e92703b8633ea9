"""bench_plan.py — torch 2.13's redistribute planning rate, the peer figure
for bench/bench_plan.c.

Reads cases from stdin, one per line: "label|mesh|shape|src|dst|planner"
(mesh "2x2x2", shape "8,8,8", planner greedy|graph), and for each label prints
one line "label plans_per_second" measured over repeated calls of
_gen_transform_infos_non_cached (the uncached planner entry point) +
_optimize_transform_infos, on rank 0 of a fake process group.  A case whose
torch planning exceeds --budget seconds for one plan is reported as
"label timeout".  bench_plan.c runs this script in the same run and prints
the ratios; run alone: python tools/harness/bench_plan.py < cases.txt
"""

import argparse
import logging
import os
import signal
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=0.3, help="time per case")
    ap.add_argument("--budget", type=float, default=20.0, help="give up on slower cases")
    args = ap.parse_args()
    signal.signal(signal.SIGALRM, _alarm)
    from adapters import torch_redistribute_plan as A
    S = A._setup()
    logging.getLogger("torch.distributed.tensor._redistribute").setLevel(logging.ERROR)
    R, torch = S["R"], S["torch"]
    # time torch's own search: undo the adapter's memo of find_min_cost_path
    R.DTensorRedistributePlanner.find_min_cost_path = A._ORIG_FIND
    A._set_devices_per_host(S, 8)
    results = {}
    order = []
    for line in sys.stdin:
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        label, mesh_s, shape_s, src, dst, planner = line.split("|")
        mesh_shape = [int(x) for x in mesh_s.split("x")]
        mesh = A._mesh(S, mesh_shape, None)
        mesh._coordinate_on_dim = tuple(0 for _ in mesh_shape)
        src_p, src_o = A._parse(src, S)
        dst_p, dst_o = A._parse(dst, S)
        shape = torch.Size([int(x) for x in shape_s.split(",")])
        stride = tuple(int(x) for x in torch.empty(shape, device="meta").stride())
        meta = S["TensorMeta"](shape, stride, torch.float32)

        def spec(p, o):
            kw = {"tensor_meta": meta}
            if o:
                kw["shard_order"] = A._shard_order(p, o, S)
            return S["DTensorSpec"](mesh, p, **kw)

        ss, ds = spec(src_p, src_o), spec(dst_p, dst_o)
        use_graph = planner == "graph"
        n, t0 = 0, time.process_time()
        timeout = False
        signal.setitimer(signal.ITIMER_REAL, args.budget)
        try:
            while True:
                infos = R._gen_transform_infos_non_cached(ss, ds, use_graph)
                R._optimize_transform_infos(infos, mesh, ss.placements, ds.placements)
                n += 1
                if time.process_time() - t0 >= args.seconds:
                    break
        except _Timeout:
            timeout = True
        signal.setitimer(signal.ITIMER_REAL, 0)
        if label not in results:
            results[label] = []
            order.append(label)
        results[label].append(None if timeout else n / (time.process_time() - t0))
    for label in order:
        rates = results[label]
        if None in rates:
            print("%s timeout" % label, flush=True)
        else:  # plans per second over the label's cases (harmonic mean, as bench_plan.c)
            print("%s %.3f" % (label, len(rates) / sum(1.0 / r for r in rates)), flush=True)


if __name__ == "__main__":
    main()
