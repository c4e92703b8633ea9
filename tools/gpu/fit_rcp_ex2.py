#!/usr/bin/env python3
"""fit_rcp_ex2.py — recover the integer coefficient tables of the H200's (sm_90)
MUFU.RCP and MUFU.EX2 from exhaustive recordings, write
lib/rng/cuda_sfu_rcp_ex2_tables.h (and, optionally, the committed replay subset
conformance/tests/data/sfu/subset_rcp_ex2.txt) and measure how many recorded
entries the model reproduces.

    fit_rcp_ex2.py REC_DIR [OUT_HEADER [OUT_SUBSET]]     (numpy)

REC_DIR holds what tools/gpu/record_cuda_math.cu wrote (as .raw.xz or .raw):
rcp_3f800000 (rcp.approx.ftz.f32 on x = bits 0x3f800000 + i, i < 2^23, i.e.
[1, 2)) and ex2_3f000000, ex2_3f800000, ex2_bf000000, ex2_bf800000
(ex2.approx.ftz.f32 on [0.5, 1), [1, 2), [-1, -0.5), [-2, -1)), raw
little-endian uint32 output bits.  If REC_DIR (or REC_DIR/m) also holds
rcp64h_3ff00000.raw, MUFU.RCP64H's 20-bit answer is checked to be the MUFU.RCP
model's f32 answer at 0x3f800000 + (f << 3) shifted right by 3.  Without
OUT_HEADER the header goes to stdout; the measurements go to stderr.

The model: the same interpolator as MUFU.SIN/COS/LG2 (tools/gpu/fit_sfu.py),
all integer, W = c0 + c1 x + c2 sq(x) on a 23-bit fixed-point argument u whose
top SB bits pick a segment and whose low NB = 23 - SB bits are x; sq is the
truncated squarer (x^2 as its partial products, diagonal x_a 2^2a and cross
x_a x_b 2^(a+b+1), a < b, keeping those of weight >= 2^TSQ, shifted right by
TSQ); the result is W truncated (rounded toward zero) to 24 bits.
- MUFU.RCP: u = the mantissa bits of x, 128 segments (SB 7, NB 16, TSQ 17),
  W ~ 1/1.u in units of 2^-39 (the one W >= 2^39, u = 0, truncates to 1.0).
  64 segments cannot fit (a real-coefficient quadratic is off by up to 1.8
  units of the last place); with 128, TSQ 16 or 18 cannot either (LP:
  0.06 / 0.08 ulp short), and 2^-38 leaves segments without integer
  coefficients.  The recording pins c0 to one value in 79 of the 128
  segments (to at most 8 in the rest); all of them are = 2023 (mod 2^13).
- MUFU.EX2: x is first made a fixed-point number with 23 fraction bits by
  truncating |x| (F = floor(|x| 2^23)); for x >= 0, u = F mod 2^23 and the
  exponent is F >> 23; for x < 0 the fraction is complemented in one's
  complement, u = 2^23 - 1 - (F mod 2^23) and the exponent -(F >> 23) - 1,
  unless F mod 2^23 = 0, where the result is 2^-(F >> 23) exactly (recorded
  at x = -1 only).  64 segments (SB 6, NB 17, TSQ 19, as sin/lg2), W ~ 2^(u
  2^-23) in units of 2^-38, always in [2^38, 2^39), the mantissa W >> 15.
  TSQ 18 or 20 do not fit (LP), nor 32 segments, nor units of 2^-37.  c0
  is pinned in 51 of the 64 segments (to at most 4 values in the rest), all
  = 6114 (mod 2^13).

Each recorded output confines W to an interval (the integers that truncate to
it); per segment the integers (C2, C1) within +-RAD of a least-squares guess
that leave a non-empty interval for C0 are searched, exactly one must exist,
and C0 takes the residue (mod 2^13) that every segment's interval admits.
EX2 is fitted on [1, 2) (every u once) and predicts the other three binades;
RCP is fitted on its one binade and predicts MUFU.RCP64H.
"""
import functools, hashlib, lzma, os, sys
import numpy as np

N = 1 << 23
RAD = 3
C0_MOD = 1 << 13
UNITS = {  # name: (SB, TSQ, W's LSB exponent, file bases)
    'rcp': (7, 17, 39, (0x3f800000,)),
    'ex2': (6, 19, 38, (0x3f800000, 0x3f000000, 0xbf000000, 0xbf800000)),
}


def load(d, name):
    """The raw uint32 recording NAME.raw(.xz) in d (or d/m) and its sha256."""
    for sub in ('', 'm'):
        p = os.path.join(d, sub, name + '.raw')
        if os.path.exists(p + '.xz'):
            raw = lzma.open(p + '.xz').read()
        elif os.path.exists(p):
            raw = open(p, 'rb').read()
        else:
            continue
        return np.frombuffer(raw, np.uint32), hashlib.sha256(raw).hexdigest()
    return None, None


@functools.lru_cache(maxsize=None)
def sq_trunc(nb, tsq):
    """The truncated squarer over every x < 2^nb."""
    x = np.arange(1 << nb, dtype=np.int64)
    s = np.zeros_like(x)
    for a in range(nb):
        xa = (x >> a) & 1
        if 2 * a >= tsq:
            s += xa << (2 * a)
        for b in range(a + 1, nb):
            if a + b + 1 >= tsq:
                s += (xa & (x >> b) & 1) << (a + b + 1)
    return s >> tsq


def rz_interval(f, sc):
    """Integers W (units 2^-sc) that round toward zero to the positive float f."""
    v = f.astype(np.float64) * 2.0 ** sc
    u = np.spacing(f).astype(np.float64) * 2.0 ** sc
    return v.astype(np.int64), (v + u - 1).astype(np.int64)


def solve(lo, hi, sb, tsq):
    """Per segment the one (c2, c1, c0lo, c0hi) with lo <= c0 + c1 x + c2 sq(x) <= hi."""
    nb = 23 - sb
    X = np.arange(1 << nb, dtype=np.int64)
    Q = sq_trunc(nb, tsq)
    A = np.vstack([np.ones(len(X)), X, Q]).T
    tab = []
    for s in range(1 << sb):
        l, h = lo[s << nb:(s + 1) << nb], hi[s << nb:(s + 1) << nb]
        g = np.linalg.lstsq(A, (l + h) / 2.0, rcond=None)[0]
        sols = []
        for c2 in range(int(round(g[2])) - RAD, int(round(g[2])) + RAD + 1):
            l2, h2 = l - c2 * Q, h - c2 * Q
            g1 = np.linalg.lstsq(A[:, :2], (l2 + h2) / 2.0, rcond=None)[0][1]
            for c1 in range(int(round(g1)) - RAD, int(round(g1)) + RAD + 1):
                a, b = (l2 - c1 * X).max(), (h2 - c1 * X).min()
                if a <= b:
                    sols.append((c2, c1, int(a), int(b), abs(c1 - round(g1)) == RAD))
        if len(sols) != 1 or sols[0][4] or abs(sols[0][0] - round(g[2])) == RAD:
            sys.exit('segment %d: %d solutions %s' % (s, len(sols), sols[:4]))
        tab.append(sols[0][:4])
    return tab


def pick_c0(tab):
    """C0 is confined to [a, b] per segment; take the residue mod 2^13 that all
    segments admit (it must be unique)."""
    res = [r for r in range(C0_MOD)
           if all(a + (r - a) % C0_MOD <= b for _, _, a, b in tab)]
    if len(res) != 1:
        sys.exit('c0 residues mod %d: %s' % (C0_MOD, res[:8]))
    r = res[0]
    return np.array([(a + (r - a) % C0_MOD, c1, c2) for c2, c1, a, b in tab], np.int64), r


def interp(tab, sb, tsq, u):
    nb = 23 - sb
    s, x = u >> nb, u & ((1 << nb) - 1)
    return tab[s, 0] + tab[s, 1] * x + tab[s, 2] * sq_trunc(nb, tsq)[x]


def rcp_model(tab, bits):
    """MUFU.RCP on positive normal floats whose reciprocal is normal (the recorded ones)."""
    e = (bits >> 23).astype(np.int64) - 127
    w = interp(tab, 7, 17, (bits & 0x7fffff).astype(np.int64))
    one = w >= (1 << 39)
    m = np.where(one, w >> 16, w >> 15)
    return (((np.where(one, 127, 126) - e) << 23) | (m & 0x7fffff)).astype(np.uint32)


def ex2_model(tab, bits):
    """MUFU.EX2 on normal floats with |x| < 126 (the recorded ones)."""
    f = bits.view(np.float32).astype(np.float64)
    F = np.floor(np.abs(f) * 2.0 ** 23).astype(np.int64)
    n, fr = F >> 23, F & (N - 1)
    neg = f < 0
    e = np.where(neg, np.where(fr != 0, -n - 1, -n), n)
    u = np.where(neg & (fr != 0), N - 1 - fr, np.where(neg, 0, fr))
    m = interp(tab, 6, 19, u) >> 15
    return (((e + 127) << 23) | (m & 0x7fffff)).astype(np.uint32)


def fit(d):
    i = np.arange(N, dtype=np.uint32)
    rec, sums = {}, {}
    rec['rcp', 0x3f800000], sums['rcp_3f800000'] = load(d, 'rcp_3f800000')
    for b in UNITS['ex2'][3]:
        rec['ex2', b], sums['ex2_%08x' % b] = load(d, 'ex2_%08x' % b)
    lo, hi = rz_interval(rec['rcp', 0x3f800000].view(np.float32), 39)
    rcp, rr = pick_c0(solve(lo, hi, 7, 17))
    # ex2 on [1, 2): 2^x = 2 * 2^(u 2^-23), so W truncates to half the output
    lo, hi = rz_interval(rec['ex2', 0x3f800000].view(np.float32) / np.float32(2), 38)
    ex2, re = pick_c0(solve(lo, hi, 6, 19))
    counts = []
    for (fn, b), r in sorted(rec.items()):
        x = np.uint32(b) + i
        p = rcp_model(rcp, x) if fn == 'rcp' else ex2_model(ex2, x)
        counts.append((fn, b, int((p == r).sum()), N))
    h, s = load(d, 'rcp64h_3ff00000')
    if h is not None:
        f = np.arange(1 << 20, dtype=np.uint32)
        a = rcp_model(rcp, np.uint32(0x3f800000) + (f << 3)).astype(np.int64)
        hw = (((a >> 23) - 127 + 1023) << 20) | ((a & 0x7fffff) >> 3)
        counts.append(('rcp64h', 0x3ff00000, int((hw == h).sum()), 1 << 20))
        sums['rcp64h_3ff00000'] = s
    return rcp, ex2, (rr, re), rec, sums, counts


def header(rcp, ex2, res, sums):
    out = ['/* cuda_sfu_rcp_ex2_tables.h — generated by tools/gpu/fit_rcp_ex2.py; do not edit.',
           ' * Fitted to exhaustive recordings of an NVIDIA H200 (sm_90) made by',
           ' * tools/gpu/record_cuda_math.cu (raw little-endian uint32 output bits of the',
           ' * floats with bits BASE + i, i < 2^23; sha256 of the uncompressed files):']
    what = {'rcp': 'rcp.approx.ftz.f32 (MUFU.RCP) on [1, 2)',
            'ex2': 'ex2.approx.ftz.f32 (MUFU.EX2)', 'rcp64h': 'rcp.approx.ftz.f64 (MUFU.RCP64H) high words'}
    for name in sorted(sums):
        out.append(' *   %-20s %s' % (name + '.raw', what[name.split('_')[0]]))
        out.append(' *     %s' % sums[name])
    out += [' * Per segment: W = c0 + c1 x + c2 sq(x), sq the truncated squarer keeping partial',
            ' * products of weight >= 2^TSQ (lib/rng/cuda_sfu_rcp_ex2.c), W truncated to 24 bits.',
            ' * SHC_SFU_RCP: 128 segments (top 7 mantissa bits), x the low 16, W ~ 1/1.m in units',
            ' * of 2^-39, c0 = %d (mod 2^13).  SHC_SFU_EX2: 64 segments (top 6 of the 23-bit' % res[0],
            ' * fraction), x the low 17, W ~ 2^0.f in units of 2^-38, c0 = %d (mod 2^13). */' % res[1],
            '#define SHC_SFU_RCP_NB 16', '#define SHC_SFU_RCP_TSQ 17',
            '#define SHC_SFU_EX2_NB 17', '#define SHC_SFU_EX2_TSQ 19',
            'typedef struct shc_sfu_rx_seg {', '    int64_t c0;', '    int32_t c1, c2;', '} shc_sfu_rx_seg;']
    for name, t in (('SHC_SFU_RCP', rcp), ('SHC_SFU_EX2', ex2)):
        out.append('static const shc_sfu_rx_seg %s[%d] = {' % (name, len(t)))
        out += ['    {%dLL, %d, %d},' % (c0, c1, c2) for c0, c1, c2 in t]
        out.append('};')
    return '\n'.join(out) + '\n'


def subset(rec, path):
    """Segment ends (in u), the first and last 16 entries and 600 random ones per recording."""
    rng = np.random.default_rng(20261201)
    lines = []
    for (fn, b), r in sorted(rec.items()):
        nb = 16 if fn == 'rcp' else 17
        ends = np.concatenate([np.arange(0, N, 1 << nb), np.arange((1 << nb) - 1, N, 1 << nb)])
        if b == 0x3f000000:      # u = 2^22 + i/2
            idx = 2 * (ends[ends >= (1 << 22)] - (1 << 22))
        elif b == 0xbf000000:    # u = 2^22 - 1 - i/2
            idx = 2 * ((1 << 22) - 1 - ends[ends < (1 << 22)])
        elif b == 0xbf800000:    # u = 2^23 - 1 - i (i > 0)
            idx = N - 1 - ends
        else:
            idx = ends
        idx = np.concatenate([idx, idx + 1, np.arange(16), np.arange(N - 16, N), rng.integers(0, N, 600)])
        for k in np.unique(idx[(idx >= 0) & (idx < N)]):
            lines.append('%s %08x %08x' % (fn, b + int(k), int(r[k])))
    with open(path, 'w') as f:
        f.write('# MUFU.RCP / MUFU.EX2 recordings subset: FUNC INPUT_BITS OUTPUT_BITS (hex);\n'
                '# rcp = rcp.approx.ftz.f32, ex2 = ex2.approx.ftz.f32, recorded on an NVIDIA H200\n'
                '# (sm_90) by tools/gpu/record_cuda_math.cu, chosen by tools/gpu/fit_rcp_ex2.py\n')
        f.write('\n'.join(lines) + '\n')
    print('%s: %d entries' % (path, len(lines)), file=sys.stderr)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    rcp, ex2, res, rec, sums, counts = fit(sys.argv[1])
    text = header(rcp, ex2, res, sums)
    if len(sys.argv) > 2:
        open(sys.argv[2], 'w').write(text)
    else:
        sys.stdout.write(text)
    if len(sys.argv) > 3:
        subset(rec, sys.argv[3])
    for fn, b, ok, n in counts:
        print('%-7s %08x  exact %d of %d%s' % (fn, b, ok, n, '' if ok == n else '  MISMATCH'), file=sys.stderr)
    if any(ok != n for _, _, ok, n in counts):
        sys.exit(1)


if __name__ == '__main__':
    main()
