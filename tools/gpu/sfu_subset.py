#!/usr/bin/env python3
"""sfu_subset.py — pick the compact replay subset of the H100 MUFU recordings
(shared/gpu/sfu) that conformance/tests/check_cuda_math.c replays:
conformance/tests/data/sfu/subset.txt.

    sfu_subset.py SFU_DIR OUT

Per recorded file: both ends of each of the 64-per-octave/quadrant segments and
a fixed-seed random sample, reachable inputs only (the found_* masks; for the
[2^-7, 2^-6) binade reachability is recomputed here exactly as record_sfu.cu
searched for it: a = t / C and its +-3 float neighbours with fmul_rz(a, C) == t).
Lines: FUNC INPUT_BITS OUTPUT_BITS (hex; INPUT is MUFU's own operand t or x).
"""
import lzma, os, sys
import numpy as np

N = 1 << 23
C = np.float32(np.uint32(0x3e22f983).view(np.float32))


def load(d, name, dtype=np.uint32):
    return np.frombuffer(lzma.open(os.path.join(d, name + '.xz')).read(), dtype=dtype)


def fmul_rz(a, c):
    p = a.astype(np.float64) * np.float64(c)
    f = p.astype(np.float32)
    over = np.abs(f.astype(np.float64)) > np.abs(p)
    f[over] = np.nextafter(f[over], np.float32(0))
    return f


def reachable(t):
    a0 = (t / C).astype(np.float32).view(np.int32)
    ok = np.zeros(t.shape, bool)
    for k in range(-3, 4):
        a = (a0 + k).view(np.float32)
        ok |= fmul_rz(a, C) == t
    return ok


def main():
    d, out = sys.argv[1], sys.argv[2]
    rng = np.random.default_rng(20261122)
    lines = []
    files = [('lg2', 0x3f800000, None), ('lg2', 0x3f000000, None)]
    for b in (0x3f000000, 0x3e800000, 0x3c000000):
        files += [('sin', b, b), ('cos', b, b)]
    for fn, base, mb in files:
        rec = load(d, '%s_%08x.raw' % (fn, base))
        ends = np.concatenate([np.arange(0, N, N // 128), np.arange(N // 128 - 1, N, N // 128),
                               np.arange(0, 16), np.arange(N - 16, N)])
        idx = np.unique(np.concatenate([ends, rng.integers(0, N, 600)]))
        if mb is not None:
            t = (np.uint32(base) + idx.astype(np.uint32)).view(np.float32)
            if mb == 0x3c000000:
                m = reachable(t)
            else:
                m = load(d, 'found_%08x.u8' % mb, np.uint8).astype(bool)[idx]
            idx = idx[m]
        for i in idx:
            lines.append('%s %08x %08x' % (fn, base + int(i), int(rec[i])))
    with open(out, 'w') as f:
        f.write('# MUFU recordings subset: FUNC INPUT_BITS OUTPUT_BITS (hex), MUFU.SIN/COS on t, MUFU.LG2 on x\n')
        f.write('# from shared/gpu/sfu (NVIDIA H100 80GB HBM3, sm_90, driver 580.159.04, CUDA 13.0,\n')
        f.write('# record_sfu.cu with SFU_RAW=1), chosen by tools/gpu/sfu_subset.py\n')
        f.write('\n'.join(lines) + '\n')
    print(out, len(lines))


if __name__ == '__main__':
    main()
