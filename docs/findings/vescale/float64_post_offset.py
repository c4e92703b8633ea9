"""float64_post_offset.py — veScale 0.0.1's ThreadBasedRNGTracker (VESCALE_SINGLE_DEVICE_RAND=1)
promises that a random op on a DTensor draws what one GPU would draw, and then moves the offset
as one GPU's kernel would.  Its step after the op, _set_post_op_offset (vescale/dtensor/
random.py), uses self.unroll = 4 whatever the tensor's dtype:

    step = ((numel - 1) // (256 * grid_x * 4) + 1) * 4

torch's float64 uniform_/normal_ kernel draws two values from each Philox block of four words
(curand_uniform2_double; aten/src/ATen/native/cuda/DistributionTemplates.h, torch 2.13:
unroll_factor = curand4_engine_calls / 2 for double), so one GPU steps by
((numel - 1) // (256 * grid_x * 2) + 1) * 4.  Where a thread takes more than one round the
two differ, and veScale's next op starts inside the words the float64 op drew: its draws
repeat the first op's and are not one GPU's (shardcheck: rng-policies dtypes.json,
single-device-equal float64, post_offset).

The case: [1024, 1024] float64 on an A100's geometry (108 SMs of 2,048 threads: grid_x 864,
T = 221,184 threads).  One GPU steps by ((2^20 - 1) // 2T + 1) * 4 = 12; veScale by 8.

veScale's tracker reads a CUDA device; this runs its own code, unmodified, on a CPU-only torch
with the harness's stand-in device of the A100's two figures (tools/harness/adapters/
_vescale_common.py says what is stood in for: the device module and the broadcast, nothing of
the tracker).  Needs the pinned veScale (tools/harness/setup_venv.sh installs it):

    .venv/bin/python docs/findings/vescale/float64_post_offset.py

Exit 1: reproduced (veScale's step is float32's for float64); 0: veScale steps as torch does;
2: veScale is not installed.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "tools", "harness", "adapters"))
import _vescale_common as vc  # noqa: E402

SMS, THREADS, SHAPE = 108, 2048, (1024, 1024)


def torch_step(numel, unroll):
    """One GPU's Philox offset step for a uniform_ over numel elements (calc_execution_policy):
    unroll 4 for float32 and the half types, 2 for float64."""
    grid = min(SMS * (THREADS // 256), (numel + 255) // 256)
    return ((numel - 1) // (256 * grid * unroll) + 1) * 4


def vescale_step(dtype):
    import torch
    _, pt = vc.load()

    def spec(rank, pt):
        return pt.DTensorSpec(vc.Mesh([1], rank), (pt.Replicate(),),
                              tensor_meta=pt.TensorMeta(torch.Size(SHAPE), (SHAPE[1], 1), dtype))
    _, after = vc.region(SMS, THREADS, 1234, spec, 0)
    return after


def main():
    try:
        vc.load()
    except ImportError as e:
        print("veScale is not installed: %s" % e)
        return 2
    import torch
    n = SHAPE[0] * SHAPE[1]
    rows = [("float32", torch.float32, 4), ("float64", torch.float64, 2)]
    wrong = False
    for name, dt, unroll in rows:
        got, want = vescale_step(dt), torch_step(n, unroll)
        print("%s %s: veScale steps the offset by %d, one GPU's kernel by %d: %s"
              % (name, list(SHAPE), got, want, "ok" if got == want else "WRONG"))
        wrong |= got != want
    print("REPRODUCED" if wrong else "not reproduced")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
