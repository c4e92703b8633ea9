/*
 * cuda_libdevice.c — CUDA 13.0 libdevice's log, sincospi, logf, exp, log1p and tan on a CPU,
 * bit for bit.  Each function follows the LLVM IR of its libdevice.10.bc
 * definition (CUDA 13.0.88, `llvm-dis-14 libdevice.10.bc`) step for step:
 * every llvm.nvvm.fma.rn.* is an fma()/fmaf() here, every plain fmul/fadd a
 * single rounded C operation (this file must be built without FP contraction,
 * which GCC/Clang do not apply to separate statements in ISO C mode anyway).
 *
 * Only one step is not plain IEEE arithmetic: rcp.approx.ftz.f64 (MUFU.RCP64H),
 * the seed of log's (and log1p's) Newton step and of tan's, modelled in
 * cuda_rcp64h.c.  tan's result does not depend on it; log's follows its last bit
 * in about 2 inputs in 10^5 (docs/cuda-math.md).
 *
 * Tested by conformance/tests/check_cuda_math.c against vectors that libdevice's
 * own IR, compiled for x86-64 (tools/gpu/libdevice_vectors.sh), produced.
 */
#include "config.h"
#include <float.h>
#include <math.h>
#include <string.h>
#include "cuda_libdevice.h"

static inline int32_t hiword(double d) { return (int32_t)(uint32_t)(shc_dbits(d) >> 32); }
static inline uint32_t loword(double d) { return (uint32_t)shc_dbits(d); }
static inline double lohi(uint32_t lo, uint32_t hi) { return shc_bitsd((uint64_t)hi << 32 | lo); }

static inline uint32_t fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static inline float bitsf(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* __nv_log: reduce to m in [sqrt(2)/2, sqrt(2)), log(m) = 2 atanh(f/(m+1)) with
 * a compensated u = 2f/(m+1), then add e*ln2 in two parts.  The seed of 1/(m+1)
 * is rcp(g) when rcp is given, else the model's moved by shift units. */
static inline double log_body(double a, double (*rcp)(double), int shift)
{
    int32_t hi = hiword(a);
    uint32_t lo = loword(a);
    int32_t e = -1023;
    if (hi < 0x00100000) { /* zero, subnormal or negative: scale by 2^54 */
        a = a * 0x1p54;
        e = -1023 - 54;
        hi = hiword(a);
        lo = loword(a);
    }
    if (!(hi > 0 && hi < 0x7ff00000)) {
        double r = fma(a, INFINITY, INFINITY);
        uint32_t h = (uint32_t)hiword(a);
        float hf;
        memcpy(&hf, &h, 4);
        return hf == 0.0f ? -INFINITY : r;
    }
    e += (int32_t)((uint32_t)hi >> 20);
    uint32_t mh = ((uint32_t)hi & 0x800fffffu) | 0x3ff00000u;
    /* IR: icmp sgt %17, 1073127582 = 0x3ff6a09e: halve m from 0x3ff6a09f00000000,
     * sqrt(2) rounded up to the high word (PTX setp.lt 1073127583; SASS ISETP.GE
     * 0x3ff6a09f in torch 2.11+cu130's own sm_90 kernels).  It read 0x3ff5e91e (~1.37,
     * a misconverted decimal) until the H100 float64 recordings showed it. */
    if (mh > 0x3ff6a09eu) {
        mh -= 0x00100000u;
        e += 1;
    }
    double m = lohi(lo, mh);
    double f = m - 1.0, g = m + 1.0;
    double r = rcp ? rcp(g) : shc_cuda_rcp64h_shift(g, shift);
    double t = fma(-g, r, 1.0);
    t = fma(t, t, t);
    double q = fma(t, r, r);
    double u = f * q;
    u = u + u;
    double v = u * u;
    double p = fma(0x1.1380b3ae80f1ep-20, v, 0x1.0ee258b7a8b04p-18);
    p = fma(p, v, 0x1.3b2669f02676fp-16);
    p = fma(p, v, 0x1.745cba9ab0956p-14);
    p = fma(p, v, 0x1.c71c72d1b5154p-12);
    p = fma(p, v, 0x1.24924923be72dp-9);
    p = fma(p, v, 0x1.999999999a3c4p-7);
    p = fma(p, v, 0x1.5555555555554p-4);
    double w = 2.0 * (f - u);
    w = fma(-u, f, w);
    w = q * w;
    double z = p * v;
    z = fma(z, u, w);
    double ed = lohi((uint32_t)e ^ 0x80000000u, 0x43300000u) - lohi(0x80000000u, 0x43300000u);
    double h = fma(ed, 0x1.62e42fefa39efp-1, u);
    double k = fma(-ed, 0x1.62e42fefa39efp-1, h);
    k = k - u;
    z = z - k;
    z = fma(ed, 0x1.abc9e3b39803fp-56, z);
    return h + z;
}

double shc_cuda_log(double a) { return log_body(a, NULL, 0); }
double shc_cuda_log_shift(double a, int shift) { return log_body(a, NULL, shift); }
double shc_cuda_log_rcp(double a, double (*rcp)(double)) { return log_body(a, rcp, 0); }

static inline double negate_bits(double d)
{
    return shc_bitsd(shc_dbits(d) ^ 0x8000000000000000ull);
}

/* __nv_sincospi: a = q/2 + t with q = rint(2a), then polynomials in pi*t.
 * llvm.nvvm.round.d is cvt.rni.f64.f64 (nearest, ties to even: the PTX that
 * nvcc emits, FRND.F64 in SASS), not C's round(): at quarter-integers a the
 * two pick different quadrants and the result's last bit can differ. */
void shc_cuda_sincospi(double a, double *sp, double *cp)
{
    uint32_t hi = (uint32_t)hiword(a);
    if (hi + hi > 0x86800000u) /* |a| >= 2^53 or not finite */
        a = a * 0.0;
    /* 2a by adding one to the exponent field (libdevice's way; wrong for
     * subnormals, whose q is 0 either way) */
    double a2 = lohi(loword(a), (uint32_t)hiword(a) + 0x00100000u);
    double rq = nearbyint(a2); /* default rounding mode: ties to even */
    int32_t q = (int32_t)(int64_t)rq;
    double t = fma(-rq, 0.5, a);
    double x = fma(t, 0x1.921fb54442d18p+1, t * 0x1.1a62633145c07p-53);
    double s2 = x * x;
    double c = fma(-0x1.8ff8320fd8164p-37, s2, 0x1.1eea7c1ef8528p-29);
    c = fma(c, s2, -0x1.27e4f8e06e6d9p-22);
    c = fma(c, s2, 0x1.a01a019ddbce9p-16);
    c = fma(c, s2, -0x1.6c16c16c15d47p-10);
    c = fma(c, s2, 0x1.5555555555551p-5);
    c = fma(c, s2, -0.5);
    c = fma(c, s2, 1.0);
    double s = fma(0x1.5db65f9785ebap-33, s2, -0x1.ae5f12cb0d246p-26);
    s = fma(s, s2, 0x1.71de369ace392p-19);
    s = fma(s, s2, -0x1.a01a019db62a1p-13);
    s = fma(s, s2, 0x1.1111111110818p-7);
    s = fma(s, s2, -0x1.5555555555554p-3);
    s = fma(s, s2, 0.0);
    s = fma(s, x, x);
    if (q & 1) {
        double tmp = s;
        s = c;
        c = negate_bits(tmp);
    }
    if (q & 2) {
        s = negate_bits(s);
        c = negate_bits(c);
    }
    c = c + 0.0;
    if (a == trunc(a))
        s = a * 0.0;
    *sp = s;
    *cp = c;
}

/* FFMA where its result may be NaN: the GPU answers every float NaN as 0x7fffffff, whatever
 * the operands (the H200's logf and log1pf of negative and NaN inputs, 140 libdevice vectors,
 * 2026-11-30), where the host's fmaf gives 0xffc00000 or the input's payload. */
static float ffma_nan(float x, float y, float z)
{
    float r = fmaf(x, y, z);
    return isnan(r) ? bitsf(0x7fffffffu) : r;
}

/* A function whose fmaf calls run as the CPU's FMA instruction where it has one, through
 * an ifunc-selected clone (GCC on glibc x86-64), instead of a libm call each: fmaf is correctly
 * rounded either way, so the bits do not change; sm_90 randn calls logf once per two normals,
 * and its twelve libm fmaf calls were a tenth of bench_randn's time (issue 36).  -std=c11
 * keeps FP contraction off, so the clone fuses nothing the source does not. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__gnu_linux__) && \
    defined(__has_attribute)
#if __has_attribute(target_clones)
#define SHC_FMA_CLONES __attribute__((target_clones("fma", "default")))
#endif
#endif
#ifndef SHC_FMA_CLONES
#define SHC_FMA_CLONES
#endif

/* __nv_logf (__internal_accurate_logf, non-ftz): m in [2/3, 4/3), a degree-10
 * polynomial in f = m - 1, then e*ln2 (ln2 rounded to float). */
SHC_FMA_CLONES float shc_cuda_logf(float a)
{
    float ie = 0.0f;
    if (a < 0x1p-126f) {
        a = a * 0x1p23f;
        ie = -23.0f;
    }
    uint32_t ab = fbits(a);
    int32_t eb = (int32_t)((ab - 0x3f2aaaabu) & 0xff800000u);
    float m = bitsf(ab - (uint32_t)eb);
    float ef = fmaf((float)eb, 0x1p-23f, ie);
    float f = m - 1.0f;
    float p = fmaf(-0x1.0aa04ep-3f, f, 0x1.2073ecp-3f);
    p = fmaf(p, f, -0x1.f19b98p-4f);
    p = fmaf(p, f, 0x1.1e52aap-3f);
    p = fmaf(p, f, -0x1.55b172p-3f);
    p = fmaf(p, f, 0x1.99da16p-3f);
    p = fmaf(p, f, -0x1.fffe44p-3f);
    p = fmaf(p, f, 0x1.5554fp-2f);
    p = fmaf(p, f, -0.5f);
    float pf = p * f;
    float r = fmaf(pf, f, f);
    r = fmaf(ef, 0x1.62e43p-1f, r);
    if (ab >= 0x7f800000u)
        r = ffma_nan(a, INFINITY, INFINITY);
    if (a == 0.0f)
        r = -INFINITY;
    return r;
}

/* Bits of a double's high word read as a float: libdevice compares exponent
 * ranges this way (__internal_fast_icmp_abs_lt and log1p's range test). */
static inline float hiword_as_float(double d) { return bitsf((uint32_t)hiword(d)); }

/* __nv_exp: a = j ln2 + r with j = rint(a log2e) taken from the low word of
 * a + 1.5*2^52, r by a two-part ln2; e^r by a degree-11 polynomial; then 2^j
 * added to the exponent field (split in two factors near over/underflow). */
double shc_cuda_exp(double a)
{
    double t = fma(a, 0x1.71547652b82fep+0, 0x1.8p+52);
    int32_t j = (int32_t)loword(t);
    double jd = t + -0x1.8p+52;
    double r = fma(jd, -0x1.62e42fefa39efp-1, a);
    r = fma(jd, -0x1.abc9e3b39803fp-56, r);
    double p = fma(0x1.ade1569ce2bdfp-26, r, 0x1.28af3fca213eap-22);
    p = fma(p, r, 0x1.71dee62401315p-19);
    p = fma(p, r, 0x1.a01997c89eb71p-16);
    p = fma(p, r, 0x1.a01a014761f65p-13);
    p = fma(p, r, 0x1.6c16c1852b7afp-10);
    p = fma(p, r, 0x1.1111111122322p-7);
    p = fma(p, r, 0x1.55555555502a1p-5);
    p = fma(p, r, 0x1.5555555555511p-3);
    p = fma(p, r, 0x1.000000000000bp-1);
    p = fma(p, r, 1.0);
    p = fma(p, r, 1.0);
    float ah = fabsf(hiword_as_float(a));
    if (ah < 0x1.0c4656p+2f) /* |a| < ~708.4: 2^j fits the exponent field */
        return lohi(loword(p), (uint32_t)hiword(p) + ((uint32_t)j << 20));
    double z = a < 0.0 ? 0.0 : a + INFINITY;
    if (ah < 0x1.0e9p+2f) { /* |a| < ~745.1: 2^j as 2^(j/2) * 2^(j - j/2) */
        int32_t j2 = j / 2;
        double s = lohi(loword(p), (uint32_t)hiword(p) + ((uint32_t)j2 << 20));
        z = s * lohi(0, 0x3ff00000u + ((uint32_t)(j - j2) << 20));
    }
    return z;
}

/* __nv_log1p: for a in about (-0.4, 0.67) (a test on the high word read as a
 * float) log1p(a) = 2 atanh(a / (a + 2)) with a compensated quotient; elsewhere
 * libdevice inlines __nv_log(a + 1), which is log_body (same IR, checked by
 * the vectors), with the same seed. */
static inline double log1p_body(double a, double (*rcp)(double), int shift)
{
    float h = hiword_as_float(a);
    if (!(h < 0x1.caaaaap+0f && h > -0x1.b33332p+0f))
        return log_body(a + 1.0, rcp, shift);
    double q = a / (a + 2.0); /* fdiv: IEEE division, exact on the GPU too */
    double m = -a * q;
    double u = a + m;
    double v = u * u;
    double p = fma(0x1.372fb2fbe14b5p-20, v, 0x1.087ffceb2dc44p-18);
    p = fma(p, v, 0x1.3b9ff890f468cp-16);
    p = fma(p, v, 0x1.7457efd51baf8p-14);
    p = fma(p, v, 0x1.c71c8de3ce825p-12);
    p = fma(p, v, 0x1.249248fa4661fp-9);
    p = fma(p, v, 0x1.99999999d70c4p-7);
    p = fma(p, v, 0x1.5555555555462p-4);
    p = p * v;
    return fma(p, u, m) + a;
}

double shc_cuda_log1p(double a) { return log1p_body(a, NULL, 0); }
double shc_cuda_log1p_shift(double a, int shift) { return log1p_body(a, NULL, shift); }
double shc_cuda_log1p_rcp(double a, double (*rcp)(double)) { return log1p_body(a, rcp, 0); }

/* cvt.rni.s32.f64: nearest-even, saturating, NaN to 0. */
static inline int32_t d2i_rn(double d)
{
    if (isnan(d))
        return 0;
    if (d >= 2147483647.0)
        return INT32_MAX;
    if (d <= -2147483648.0)
        return INT32_MIN;
    return (int32_t)nearbyint(d);
}

/* __nv_tan for |a| < 2^31 (and +-inf, NaN): a = q pi/2 + z by a three-part
 * pi/2 (Cody-Waite); tan(z) by an odd polynomial; for odd q, -1/tan(z) by a
 * MUFU.RCP64H seed refined twice, the second step folding in the rounding
 * error of tan(z).  |a| >= 2^31 takes libdevice's Payne-Hanek slow path
 * (__internal_trig_reduction_slowpathd), which is not reimplemented: torch's
 * cauchy_ only passes |a| <= pi/2, and such a is answered by the host tan(),
 * not libdevice's bits (documented in the header). */
double shc_cuda_tan(double a) { return shc_cuda_tan_rcp(a, shc_cuda_rcp_approx_ftz_d); }

double shc_cuda_tan_rcp(double a, double (*rcp)(double))
{
    double z = a * 0.0;
    int32_t q = 0;
    if (fabs(a) != INFINITY) {
        if (fabs(a) >= 0x1p31)
            return tan(a);
        q = d2i_rn(a * 0x1.45f306dc9c883p-1);
        double qd = (double)q;
        z = fma(-qd, 0x1.921fb54442d18p+0, a);
        z = fma(-qd, 0x1.1a62633145c00p-54, z);
        z = fma(-qd, 0x1.b839a252049c0p-104, z);
    }
    double s = z * z;
    double p = fma(0x1.48dac2799bcb9p-17, s, -0x1.9757c5b27ebb1p-16);
    p = fma(p, s, 0x1.980e90fd91e04p-15);
    p = fma(p, s, -0x1.ae2b0417d7e1dp-16);
    p = fma(p, s, 0x1.19f5341bfba57p-14);
    p = fma(p, s, 0x1.5e791a00f6919p-14);
    p = fma(p, s, 0x1.ff2e7fadec73ap-13);
    p = fma(p, s, 0x1.34bc1b206da62p-11);
    p = fma(p, s, 0x1.7db18ef2f83f9p-10);
    p = fma(p, s, 0x1.d6d2e7ae49fbcp-9);
    p = fma(p, s, 0x1.226e3a816a776p-7);
    p = fma(p, s, 0x1.664f485d25660p-6);
    p = fma(p, s, 0x1.ba1ba1babf31dp-5);
    p = fma(p, s, 0x1.11111111105d2p-3);
    p = fma(p, s, 0x1.555555555555ep-2);
    p = p * s;
    double t = fma(p, z, z);
    if (!(q & 1))
        return t;
    double lo = fma(p, z, -(t - z)); /* t + lo = tan(z) to ~2^-106 */
    double r = rcp(t);
    double e = fma(-t, r, 1.0);
    e = fma(e, e, e);
    r = fma(e, r, r);
    double nr = -r;
    double h = fma(t, nr, 1.0);
    h = fma(nr, lo, h);
    return fma(h, nr, nr);
}

/* add.rz.f32: a + b rounded toward zero, from the round-to-nearest sum and its
 * exact error (TwoSum), without touching the FP environment. */
static float add_rz_f(float a, float b)
{
    float s = a + b;
    if (!isfinite(s))
        return isinf(s) && isfinite(a) && isfinite(b) ? copysignf(FLT_MAX, s) : s;
    float bb = s - a;
    float err = (a - (s - bb)) + (b - bb); /* a + b = s + err exactly */
    if (err != 0.0f && (s > 0.0f ? err < 0.0f : err > 0.0f))
        s = nextafterf(s, 0.0f); /* s was rounded away from zero */
    if (s == 0.0f && err == 0.0f && a + b == 0.0f)
        return a + b; /* exact zero: the sign IEEE gives it */
    return s;
}

/* __nv_log1pf (non-ftz): 1 + a rounded toward zero only picks the exponent e;
 * m - 1 = a 2^-e + (2^-e - 1) is then formed without that rounding, and log1p
 * = e ln2 + f + f^2 P(f).  libdevice's float log1p; torch's at::log1p<float> is
 * __logf(1 + x) on the device instead, so no torch kernel calls this. */
float shc_cuda_log1pf(float a)
{
    uint32_t s = fbits(add_rz_f(a, 1.0f));
    uint32_t eb = (s - 0x3f400000u) & 0xff800000u;
    float m = bitsf(fbits(a) - eb);
    float sc = bitsf(0x40800000u - eb); /* 4 * 2^-e */
    float f = m + fmaf(0.25f, sc, -1.0f);
    float ef = (float)(int32_t)eb * 0x1p-23f;
    float p = fmaf(-0x1.737efp-5f, f, 0x1.b00024p-4f);
    p = fmaf(p, f, -0x1.0ef1cp-3f);
    p = fmaf(p, f, 0x1.28c8eap-3f);
    p = fmaf(p, f, -0x1.54d1bap-3f);
    p = fmaf(p, f, 0x1.995f3cp-3f);
    p = fmaf(p, f, -0x1.000084p-2f);
    p = fmaf(p, f, 0x1.5555ccp-2f);
    p = fmaf(p, f, -0.5f);
    p = p * f;
    float r = fmaf(p, f, f);
    r = fmaf(ef, 0x1.62e43p-1f, r);
    uint32_t ab = fbits(a);
    if (ab >= 0x7f800000u) { /* negative, +inf or NaN */
        if ((int32_t)ab > (int32_t)0xbf800000u) /* a < -1, -inf, NaN, +inf */
            r = ffma_nan(a, INFINITY, INFINITY);
        if (a == 0.0f)
            r = -0.0f;
    }
    return r;
}
