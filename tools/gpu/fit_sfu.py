#!/usr/bin/env python3
"""fit_sfu.py — recover the integer coefficient tables of the H100's (sm_90)
special-function unit (MUFU.SIN/COS/LG2) from the exhaustive recordings in
shared/gpu/sfu (see its README), write lib/rng/cuda_sfu_tables.h and measure how
many recorded entries the model reproduces.

    fit_sfu.py SFU_DIR [OUT_HEADER]      (numpy; SFU_DIR holds the *.xz files)

The model (docs/cuda-math.md, "The special-function unit"), all integer:
- argument: a 23-bit fixed-point fraction u (lg2: the mantissa bits of x;
  sin/cos: u = frac(4|t|) truncated to 2^-23, quadrant q = floor(4|t|) mod 4);
  the top 6 bits pick a segment, the low 17 bits are x;
- W = C0 + C1*x + C2*sq(x), where sq(x) is a truncated squarer: x^2 written
  as its partial products (diagonal x_a 2^2a, cross x_a x_b 2^(a+b+1) for
  a < b) keeping only those of weight >= 2^19, then shifted right by 19;
- sin/cos: one table S(u) ~ sin(pi u / 2) with W in units of 2^-37; the
  cosine quadrant function is S at the bitwise complement of u (C(u) =
  S(2^23 - 1 - u)); the output is sign and magnitude, the magnitude W rounded
  toward zero to float;
- lg2: one table over [1, 2) with W in units of 2^-38; the result is the
  fixed-point word F = e * 2^36 + (W >> 2) (x = 2^e * 1.m); F >= 0 is
  rounded toward zero to float, F < 0 is negated by complementing
  (magnitude -F - 1, the bits of ~F) and rounded toward zero; lg2(1) is 0.

Each recorded output confines W to an interval (the floats that round toward
zero to it), so per segment the integers C2, C1 are searched near a least-squares
guess and C0 is the intersection of the intervals; the search reports every
(C2, C1) that fits.  S is fitted on the [0.25, 0.5) binade (both its sin and its
cos recordings: every u occurs in both) and then predicts [0.5, 1) and
[2^-7, 2^-6); lg2 is fitted on [1, 2) and [0.5, 1) together.
"""
import lzma, os, sys
import numpy as np

N = 1 << 23
SEG = 64
NB = 17       # bits of the in-segment position x
TSQ = 19      # the squarer keeps partial products of weight >= 2^TSQ
SC_S = 37     # sin/cos: W's LSB is 2^-37
SC_L = 38     # lg2: W's LSB is 2^-38, the result's 2^-36
X = np.arange(1 << NB, dtype=np.int64)


def load(d, name, dtype=np.uint32):
    return np.frombuffer(lzma.open(os.path.join(d, name + '.xz')).read(), dtype=dtype)


def sq_trunc(x):
    s = np.zeros_like(x)
    for a in range(NB):
        xa = (x >> a) & 1
        if 2 * a >= TSQ:
            s += xa << (2 * a)
        for b in range(a + 1, NB):
            if a + b + 1 >= TSQ:
                s += (xa & (x >> b) & 1) << (a + b + 1)
    return s >> TSQ


SQ = sq_trunc(X)


def rz_interval(f, sc):
    """Integer W (units 2^-sc) whose magnitude rounds toward zero to |f|."""
    a = np.abs(f)
    v = a.astype(np.float64) * 2.0 ** sc
    u = np.maximum(np.spacing(a).astype(np.float64) * 2.0 ** sc, 1)
    return v.astype(np.int64), (v + u - 1).astype(np.int64)


def solve(lo, hi, ok, rad=6):
    """Per segment: all (C2, C1, C0lo, C0hi) with lo <= C0 + C1 x + C2 sq(x) <= hi."""
    tab = []
    for s in range(SEG):
        idx = np.arange(s << NB, (s + 1) << NB)
        m = ok[idx]
        xs, q, l, h = X[m], SQ[m], lo[idx][m].astype(np.float64), hi[idx][m].astype(np.float64)
        A = np.vstack([np.ones(len(xs)), xs, q]).T
        g = np.linalg.lstsq(A, (l + h) / 2, rcond=None)[0]
        sols = []
        for c2 in range(int(round(g[2])) - rad, int(round(g[2])) + rad + 1):
            l2, h2 = l - c2 * q, h - c2 * q
            g1 = np.linalg.lstsq(A[:, :2], (l2 + h2) / 2, rcond=None)[0][1]
            for c1 in range(int(round(g1)) - rad, int(round(g1)) + rad + 1):
                a, b = np.max(l2 - c1 * xs), np.min(h2 - c1 * xs)
                if a <= b:
                    sols.append((c2, c1, int(a), int(b)))
        if len(sols) != 1:
            sys.exit('segment %d: %d solutions %s' % (s, len(sols), sols[:4]))
        tab.append(sols[0])
    return tab


def pick_c0(tab, mod, res):
    """C0 is only confined to [a, b]; take the value with the residue the other
    segments show (sin: multiples of 2^12, lg2: 837 mod 2^12), else the low end."""
    out = []
    for c2, c1, a, b in tab:
        c0 = a + (res - a) % mod
        out.append((c0 if c0 <= b else a, c1, c2))
    return np.array(out, np.int64)


def W(tab, u):
    s, x = u >> NB, u & ((1 << NB) - 1)
    return tab[s, 0] + tab[s, 1] * x + tab[s, 2] * SQ[x]


def rz_float(w, sc):
    """Non-negative integer w (units 2^-sc) rounded toward zero to float32, as float64."""
    w = np.asarray(w, np.int64)
    assert (w >= 0).all()
    nb = np.zeros_like(w)
    for k in range(63):
        nb = np.where(w >> k != 0, k + 1, nb)
    sh = np.maximum(nb - 24, 0)
    return ((w >> sh) << sh).astype(np.float64) * 2.0 ** -sc


def sincos(S, tbits):
    t = tbits.view(np.float32).astype(np.float64)
    q4 = np.abs(t) * 4.0
    fl = np.floor(q4)
    u = np.floor((q4 - fl) * 2.0 ** 23).astype(np.int64)
    q = fl.astype(np.int64) & 3
    sv, cv = rz_float(W(S, u), SC_S), rz_float(W(S, N - 1 - u), SC_S)
    sin = np.select([q == 0, q == 1, q == 2, q == 3], [sv, cv, -sv, -cv])
    cos = np.select([q == 0, q == 1, q == 2, q == 3], [cv, -sv, -cv, sv])
    return np.where(t < 0, -sin, sin), cos


def lg2(L, e, u):
    f = e * (np.int64(1) << 36) + (W(L, u) >> 2)
    r = np.where(f >= 0, rz_float(np.maximum(f, 0), 36), -rz_float(np.maximum(-f - 1, 0), 36))
    return np.where((e == 0) & (u == 0), 0.0, r)


def reachable(t):
    C = np.uint32(0x3e22f983).view(np.float32)
    a0 = (t / C).astype(np.float32).view(np.int32)
    ok = np.zeros(t.shape, bool)
    for k in range(-3, 4):
        a = (a0 + k).view(np.float32)
        p = a.astype(np.float64) * np.float64(C)
        f = p.astype(np.float32)
        over = np.abs(f.astype(np.float64)) > np.abs(p)
        f[over] = np.nextafter(f[over], np.float32(0))
        ok |= f == t
    return ok


def ordered(u):
    u = u.astype(np.int64)
    return np.where(u & 0x80000000, -(u & 0x7fffffff), u)


def report(name, pred, rec, m):
    p = pred.astype(np.float32).view(np.uint32)
    d = np.abs(ordered(p) - ordered(rec))[m]
    h = np.bincount(np.minimum(d, 4), minlength=5)
    print('%-16s exact %.5f  (%d of %d)  |ulp| 0/1/2/3/>=4: %s' % (name, h[0] / m.sum(), h[0], m.sum(),
                                                                    '/'.join(map(str, h))))


def write_header(out, S, L):
    with open(out, 'w') as f:
        f.write('/* cuda_sfu_tables.h — generated by tools/gpu/fit_sfu.py from the H100 (sm_90)\n'
                ' * MUFU recordings in shared/gpu/sfu (driver 580.159.04, CUDA 13.0); do not edit.\n'
                ' * Per segment (top 6 of 23 argument bits): W = c0 + c1 x + c2 sq(x), x the low\n'
                ' * 17 bits, sq the truncated squarer (lib/rng/cuda_sfu.c); W in units of 2^-37\n'
                ' * (SHC_SFU_SINQ, S(u) ~ sin(pi u / 2)) or 2^-38 (SHC_SFU_LG2, lg2 of 1.m). */\n')
        f.write('#define SHC_SFU_NB %d\n#define SHC_SFU_TSQ %d\n' % (NB, TSQ))
        f.write('typedef struct shc_sfu_seg {\n    int64_t c0;\n    int32_t c1, c2;\n} shc_sfu_seg;\n')
        for name, t in (('SHC_SFU_SINQ', S), ('SHC_SFU_LG2', L)):
            f.write('static const shc_sfu_seg %s[%d] = {\n' % (name, SEG))
            for c0, c1, c2 in t:
                f.write('    {%dLL, %d, %d},\n' % (c0, c1, c2))
            f.write('};\n')


def main():
    d = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else None
    i = np.arange(N, dtype=np.int64)
    # S from [0.25, 0.5): quadrant 1, MUFU.COS = -S(u), MUFU.SIN = C(u) = S(~u)
    mk = load(d, 'found_3e800000.u8', np.uint8).astype(bool)
    s1 = load(d, 'sin_3e800000.raw').view(np.float32)
    c1 = load(d, 'cos_3e800000.raw').view(np.float32)
    lo, hi = rz_interval(c1, SC_S)
    lo2, hi2 = rz_interval(s1[::-1], SC_S)
    mk2 = mk[::-1]
    lo = np.where(mk2, np.where(mk, np.maximum(lo, lo2), lo2), lo)
    hi = np.where(mk2, np.where(mk, np.minimum(hi, hi2), hi2), hi)
    S = pick_c0(solve(lo, hi, mk | mk2), 1 << 12, 0)
    # lg2: [1, 2) gives W >> 2 directly (x = 1 is special), [0.5, 1) gives ~(-2^36 + (W >> 2))
    g1 = load(d, 'lg2_3f800000.raw').view(np.float32)
    g0 = load(d, 'lg2_3f000000.raw').view(np.float32)
    l1, h1 = rz_interval(g1, 36)
    l0, h0 = rz_interval(g0, 36)
    rl, rh = np.maximum(l1, (1 << 36) - 1 - h0), np.minimum(h1, (1 << 36) - 1 - l0)
    rl[0], rh[0] = (1 << 36) - 1 - h0[0], (1 << 36) - 1 - l0[0]
    L = pick_c0(solve(4 * rl, 4 * rh + 3, np.ones(N, bool)), 1 << 12, 837)
    if out:
        write_header(out, S, L)
    report('lg2 [1,2)', lg2(L, np.zeros(N, np.int64), i), g1.view(np.uint32), np.ones(N, bool))
    report('lg2 [0.5,1)', lg2(L, -np.ones(N, np.int64), i), g0.view(np.uint32), np.ones(N, bool))
    for b in (0x3e800000, 0x3f000000, 0x3c000000):
        tb = np.uint32(b) + i.astype(np.uint32)
        ps, pc = sincos(S, tb)
        m = load(d, 'found_%08x.u8' % b, np.uint8).astype(bool) if b != 0x3c000000 else \
            reachable(tb.view(np.float32))
        report('sin %08x' % b, ps, load(d, 'sin_%08x.raw' % b), m)
        report('cos %08x' % b, pc, load(d, 'cos_%08x.raw' % b), m)


if __name__ == '__main__':
    main()
