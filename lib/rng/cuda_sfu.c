/*
 * cuda_sfu.c — CPU models of MUFU.SIN, MUFU.COS and MUFU.LG2 (H100, sm_90) and
 * of __sincosf / __logf built on them (SASS in shared/gpu/sfu/sass_sm90.txt:
 * `FMUL.RZ t, a, 0x3e22f983; MUFU.SIN/COS t` and `@p FMUL x, x, 2^24;
 * MUFU.LG2; @p FADD -24; FMUL 0x3f317218`).
 *
 * What the recordings showed (docs/cuda-math.md): a 23-bit fixed-point
 * argument, 64 segments per octave of lg2's mantissa and per quadrant of
 * sin/cos's argument, a quadratic interpolator whose squarer keeps only the
 * partial products x_a x_b with a + b >= 18; MUFU.COS(t) is MUFU.SIN(t + 1/4)
 * bit for bit; lg2 over [0.5, 1) is not -1 + lg2 over [1, 2).  The tables
 * (cuda_sfu_tables.h, tools/gpu/fit_sfu.py) are least-squares real
 * coefficients, not the hardware's integer words, so 97.7-99.7% of recorded
 * entries come out exact and the rest 1 ulp off (a few more near zeros of the
 * function).  Callers keep GpuOnly for anything derived from them.
 *
 * Tested by conformance/tests/check_cuda_math.c (committed subset of the
 * recordings, conformance/tests/data/sfu/).
 */
#include "config.h"
#include <math.h>
#include <assert.h>
#include <stdbool.h>
#include <stdint.h>
#include "cuda_sfu.h"
#include "cuda_sfu_tables.h"

enum { SEGS = 64 };

/* The interpolator's truncated squarer: sum of the partial products x_a x_b
 * with a + b >= SHC_SFU_TSQ, scaled so that the full square of x / 2^17 is in [0, 1). */
static double sq_trunc(uint32_t x)
{
    uint64_t tot = 0;
    for (int a = 0; a < SHC_SFU_NB; a++) {
        if (!(x >> a & 1))
            continue;
        int k = SHC_SFU_TSQ - a > 0 ? SHC_SFU_TSQ - a : 0;
        tot += (uint64_t)(x >> k << k) << a;
    }
    return ldexp((double)(tot >> SHC_SFU_TSQ), SHC_SFU_TSQ - 2 * SHC_SFU_NB);
}

/* One table at the 23-bit fixed-point argument u23, in tools/gpu/fit_sfu.py's
 * order (ev): c0 + c2*sq, then + w_b for each set bit b, low to high. */
static double eval_q(const double (*tab)[SHC_SFU_NB + 2], uint32_t u23)
{
    assert(u23 < (1u << 23));
    const double *c = tab[u23 >> SHC_SFU_NB];
    uint32_t x = u23 & ((1u << SHC_SFU_NB) - 1);
    double v = c[0] + c[1] * sq_trunc(x);
    for (int b = 0; b < SHC_SFU_NB; b++)
        if (x >> b & 1)
            v = v + c[2 + b];
    return v;
}

/* MUFU.SIN(t + k/4): quadrant q of 4|t| picks +-S or +-C of u = frac(4|t|),
 * truncated to 23 bits; sin is odd (sign applied after, assumed: cuRAND only
 * feeds t > 0). */
static float sin_quadrant(float t, int k)
{
    if (!isfinite(t))
        return NAN;
    double q4 = fabs((double)t) * 4.0; /* exact */
    double fl = floor(q4);
    uint32_t u23 = (uint32_t)floor((q4 - fl) * 0x1p23);
    int q = (int)(((int64_t)fmod(fl, 4.0) + k) & 3);
    if (k == 0 && signbit(t))
        q = (q + 2) & 3;
    double S = eval_q(SHC_SFU_SINQ, u23), C = eval_q(SHC_SFU_COSQ, u23);
    double v = q == 0 ? S : q == 1 ? C : q == 2 ? -S : -C;
    return (float)v;
}

float shc_sfu_sin(float t) { return sin_quadrant(t, 0); }
float shc_sfu_cos(float t) { return sin_quadrant(t, 1); }

float shc_sfu_lg2(float x)
{
    if (isnan(x) || x < 0.0f)
        return NAN;
    if (x < 0x1p-126f) /* zero, or subnormal flushed (MUFU is ftz; __logf scales these first) */
        return -INFINITY;
    if (isinf(x))
        return INFINITY;
    if (x == 1.0f)
        return 0.0f; /* recorded: exactly 0, while lg2(1 + ulp) carries the fit's offset */
    int e;
    double m = frexp((double)x, &e); /* x = m 2^e, m in [0.5, 1) */
    uint32_t u23 = (uint32_t)((2.0 * m - 1.0) * 0x1p23); /* exact: the mantissa bits */
    if (e == 0) /* x in [0.5, 1): its own table (recorded binade) */
        return (float)eval_q(SHC_SFU_LG2H, u23);
    /* other binades are not recorded: e - 1 + lg2 over [1, 2), an assumption */
    return (float)((double)(e - 1) + eval_q(SHC_SFU_LG2, u23));
}

float shc_sfu_sincos_arg(float a)
{
    /* FMUL.RZ: round toward zero.  float*float is exact in double, so truncate
     * the double product to float by hand rather than touching the FP mode. */
    double p = (double)a * (double)0x1.45f306p-3f;
    float f = (float)p;
    if (fabs((double)f) > fabs(p))
        f = nextafterf(f, 0.0f);
    return f;
}

void shc_cuda_fast_sincosf(float a, float *s, float *c)
{
    float t = shc_sfu_sincos_arg(a);
    *s = shc_sfu_sin(t);
    *c = shc_sfu_cos(t);
}

float shc_cuda_fast_logf(float x)
{
    bool small = fabsf(x) < 0x1p-126f;
    if (small)
        x = x * 16777216.0f;
    float r = shc_sfu_lg2(x);
    if (small)
        r = r + -24.0f;
    return r * 0x1.62e430p-1f;
}
