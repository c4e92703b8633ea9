#!/usr/bin/env python3
"""sfu_subset.py — pick the compact replay subset of the H100 MUFU recordings
(shared/gpu/sfu) that conformance/tests/check_cuda_math.c replays:
conformance/tests/data/sfu/subset.txt.

    sfu_subset.py SFU_DIR OUT [OLD_TABLES_H]

Per recorded file: both ends of each of the 64-per-octave/quadrant segments,
a fixed-seed random sample and, given OLD_TABLES_H (lib/rng/cuda_sfu_tables.h
of commit ef9b95c, the least-squares model of real coefficients, evaluated here
as that commit's cuda_sfu.c did), a fixed-seed sample of MISSED entries the old
model got wrong, so that the replay fails on it; reachable inputs only (the found_* masks; for the
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


MISSED = 150  # old-model misses per recorded file


def old_model(path):
    """The least-squares model of commit ef9b95c: per segment {c0, c2, w_0..w_16} doubles,
    value = c0 + c2 * sqT(x) + w_b per set bit (ordered partial products a + b >= 18),
    rounded to nearest float."""
    import re
    text = open(path).read()
    tabs = {}
    for name in ('SHC_SFU_LG2', 'SHC_SFU_LG2H', 'SHC_SFU_SINQ', 'SHC_SFU_COSQ'):
        body = text.split('static const double %s[64][19] = {' % name)[1].split('};')[0]
        rows = re.findall(r'\{([^}]*)\}', body)
        tabs[name] = np.array([[float.fromhex(v.strip()) for v in r.split(',')] for r in rows])
    x = np.arange(1 << 17, dtype=np.int64)
    sq = np.zeros(1 << 17, np.int64)
    for a in range(17):
        for b in range(17):
            if a + b >= 18:
                sq += (((x >> a) & 1) & ((x >> b) & 1)) << (a + b - 18)
    sq = sq.astype(np.float64) * 2.0 ** (18 - 34)

    def ev(tab, u23):
        c, xi = tab[u23 >> 17], u23 & ((1 << 17) - 1)
        v = c[:, 0] + c[:, 1] * sq[xi]
        for b in range(17):
            v = v + c[:, 2 + b] * ((xi >> b) & 1)
        return v

    def predict(fn, base, idx):
        if fn == 'lg2':
            if base == 0x3f000000:
                return ev(tabs['SHC_SFU_LG2H'], idx).astype(np.float32)
            return np.where(idx == 0, 0.0, ev(tabs['SHC_SFU_LG2'], idx)).astype(np.float32)
        t = (np.uint32(base) + idx.astype(np.uint32)).view(np.float32).astype(np.float64)
        q4 = np.abs(t) * 4.0
        fl = np.floor(q4)
        u23 = np.floor((q4 - fl) * 2.0 ** 23).astype(np.int64)
        q = (fl.astype(np.int64) + (fn == 'cos')) & 3
        S, Cq = ev(tabs['SHC_SFU_SINQ'], u23), ev(tabs['SHC_SFU_COSQ'], u23)
        return np.select([q == 0, q == 1, q == 2, q == 3], [S, Cq, -S, -Cq]).astype(np.float32)
    return predict


def main():
    d, out = sys.argv[1], sys.argv[2]
    old = old_model(sys.argv[3]) if len(sys.argv) > 3 else None
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
        allidx = np.arange(N, dtype=np.int64)
        reach = np.ones(N, bool)
        if mb is not None:
            if mb == 0x3c000000:
                reach = reachable((np.uint32(base) + allidx.astype(np.uint32)).view(np.float32))
            else:
                reach = load(d, 'found_%08x.u8' % mb, np.uint8).astype(bool)
            idx = idx[reach[idx]]
        if old is not None:
            miss = allidx[reach & (old(fn, base, allidx).view(np.uint32) != rec)]
            pick = np.random.default_rng(base + len(fn) + (fn == 'cos')).choice(miss, MISSED, replace=False)
            idx = np.unique(np.concatenate([idx, pick]))
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
