/*
 * cuda_sfu.c — CPU models of MUFU.SIN, MUFU.COS and MUFU.LG2 (H100, sm_90) and
 * of __sincosf / __logf built on them (SASS in shared/gpu/sfu/sass_sm90.txt:
 * `FMUL.RZ t, a, 0x3e22f983; MUFU.SIN/COS t` and `@p FMUL x, x, 2^24;
 * MUFU.LG2; @p FADD -24; FMUL 0x3f317218`).
 *
 * What the recordings showed (docs/cuda-math.md): 64 quadratic segments per
 * octave of lg2's mantissa and per quadrant of sin/cos's argument; MUFU.COS(t)
 * is MUFU.SIN(t + 1/4) bit for bit; lg2 over [0.5, 1) is not -1 + lg2 over
 * [1, 2).  The coefficient tables (cuda_sfu_tables.h) are least-squares fits
 * by tools/gpu/fit_sfu.py, evaluated in double; the hardware's fixed-point
 * truncations are not recovered yet, so values are within an ulp or so of the
 * GPU's, not bit-exact.  Callers keep GpuOnly for anything derived from them.
 *
 * Tested by conformance/tests/check_cuda_math.c (committed subset of the
 * recordings, conformance/tests/data/sfu/).
 */
#include "config.h"
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include "cuda_sfu.h"
#include "cuda_sfu_tables.h"

enum { SEGS = 64 };

/* One table at u in [0, 1), as tools/gpu/fit_sfu.py's eval_q does it. */
static double eval_q(const double (*tab)[3], double u)
{
    int seg = (int)(u * SEGS);
    if (seg > SEGS - 1)
        seg = SEGS - 1;
    double x = u * SEGS - seg;
    const double *c = tab[seg];
    return (c[2] * x + c[1]) * x + c[0];
}

/* MUFU.SIN(t + k/4): quadrant q of t*4 picks +-S or +-C of the in-quadrant u. */
static float sin_quadrant(float t, int k)
{
    if (!isfinite(t))
        return NAN;
    double q4 = (double)t * 4.0; /* exact */
    double fl = floor(q4);
    double u = q4 - fl; /* exact */
    int q = (int)(((int64_t)fmod(fl, 4.0) + 4 + k) & 3);
    double S = eval_q(SHC_SFU_SINQ, u), C = eval_q(SHC_SFU_COSQ, u);
    double v = q == 0 ? S : q == 1 ? C : q == 2 ? -S : -C;
    return (float)v;
}

float shc_sfu_sin(float t) { return sin_quadrant(t, 0); }
float shc_sfu_cos(float t) { return sin_quadrant(t, 1); }

float shc_sfu_lg2(float x)
{
    if (isnan(x) || x < 0.0f)
        return NAN;
    if (x == 0.0f)
        return -INFINITY;
    if (isinf(x))
        return INFINITY;
    if (x == 1.0f)
        return 0.0f; /* recorded: exactly 0, while lg2(1 + ulp) carries the fit's offset */
    int e;
    double m = frexp((double)x, &e); /* x = m 2^e, m in [0.5, 1) */
    double u = 2.0 * m - 1.0;
    if (e == 0) /* x in [0.5, 1): its own table (recorded binade) */
        return (float)eval_q(SHC_SFU_LG2H, u);
    return (float)((double)(e - 1) + eval_q(SHC_SFU_LG2, u));
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
