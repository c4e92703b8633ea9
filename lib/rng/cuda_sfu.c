/*
 * cuda_sfu.c — CPU models of MUFU.SIN, MUFU.COS and MUFU.LG2 (H100, sm_90) and
 * of __sincosf / __logf / __tanf built on them (SASS in shared/gpu/sfu/sass_sm90.txt:
 * `FMUL.RZ t, a, 0x3e22f983; MUFU.SIN/COS t` and `@p FMUL x, x, 2^24;
 * MUFU.LG2; @p FADD -24; FMUL 0x3f317218`; __tanf read off torch 2.11+cu130's sm_90
 * cauchy_ kernel), and of __expf (log_normal_'s `FMUL log2(e); @p FMUL 0.5; MUFU.EX2;
 * @p FMUL r, r`) with cuda_sfu_rcp_ex2.c's MUFU.RCP and MUFU.EX2 (H200 recordings).
 *
 * What the recordings showed (docs/cuda-math.md, tools/gpu/fit_sfu.py): a
 * quadratic interpolator in integer fixed point.  The 23-bit argument's top 6 bits
 * pick one of 64 segments (per quadrant of sin/cos, per octave of lg2's mantissa),
 * W = c0 + c1 x + c2 sq(x) on the low 17 bits x with a truncated squarer, and the
 * word is rounded toward zero to float.  sin/cos share one table (MUFU.COS is
 * MUFU.SIN at the complemented quadrant argument); lg2 adds the exponent in fixed
 * point (2^-36) and negates by complement.  The integer coefficients are the ones
 * the recordings allow, and the model reproduces every recorded entry (all lg2
 * inputs in [0.5, 2), every reachable sin/cos input in [0.5, 1), [0.25, 0.5) and
 * [2^-7, 2^-6)).  Other binades, negative t and lg2 of other octaves follow the
 * same structure but are not recorded.
 *
 * Tested by conformance/tests/check_cuda_math.c (committed subset of the
 * recordings, conformance/tests/data/sfu/).
 */
#include "config.h"
#include <math.h>
#include <assert.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include "cuda_sfu.h"
#include "cuda_sfu_rcp_ex2.h"
#include "cuda_sfu_tables.h"

/* The interpolator's truncated squarer (tools/gpu/fit_sfu.py): x^2 as its partial
 * products, diagonal x_a 2^2a and cross x_a x_b 2^(a+b+1) (a < b), keeping only
 * those of weight >= 2^SHC_SFU_TSQ, shifted down by SHC_SFU_TSQ.  The recordings
 * pin the threshold: 18 or 20 break segment 0 of sin, 19 reproduces every entry. */
static uint32_t sq_trunc(uint32_t x)
{
    uint64_t tot = 0;
    /* branch-free (a bit's row is masked in, not skipped): the bits are random
     * under randn, and a mispredicted branch per bit dominated bench_randn */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 8
#pragma GCC unroll 32
#endif
    for (int a = 0; a < SHC_SFU_NB; a++) {
        uint64_t on = 0 - (uint64_t)(x >> a & 1);
        uint64_t row = 2 * a >= SHC_SFU_TSQ ? (uint64_t)1 << (2 * a) : 0;
        /* cross terms x_b, b > a, with a + b + 1 >= TSQ */
        int b0 = SHC_SFU_TSQ - 1 - a > a + 1 ? SHC_SFU_TSQ - 1 - a : a + 1;
        row += ((uint64_t)(x >> b0) << b0) << (a + 1);
        tot += row & on;
    }
    return (uint32_t)(tot >> SHC_SFU_TSQ);
}

/* sq_trunc as a table.  Bit a of x takes part only where 2a >= TSQ or a + b + 1 >= TSQ for
 * some b <= NB - 1, i.e. a >= TSQ - NB (then 2a < TSQ too, as TSQ <= 2 NB): the low TSQ - NB
 * bits never do, so sq_trunc(x) = sq_table[x >> (TSQ - NB)], 2^(2 NB - TSQ) words (128 KiB),
 * each computed by sq_trunc itself.  The loop was a third of bench_randn's time (issue 36). */
_Static_assert(SHC_SFU_TSQ >= SHC_SFU_NB && SHC_SFU_TSQ <= 2 * SHC_SFU_NB,
               "the squarer's ignored low bits are TSQ - NB of them");
#define SQ_LOW (SHC_SFU_TSQ - SHC_SFU_NB)
static uint32_t sq_table[1u << (SHC_SFU_NB - SQ_LOW)];
static pthread_once_t sq_once = PTHREAD_ONCE_INIT;

static void sq_fill(void)
{
    for (uint32_t i = 0; i < (1u << (SHC_SFU_NB - SQ_LOW)); i++)
        sq_table[i] = sq_trunc(i << SQ_LOW);
}

/* W = c0 + c1 x + c2 sq(x) at the 23-bit fixed-point argument u23: the top 6
 * bits pick the segment, the low 17 are x.  Exact integer arithmetic. */
static int64_t interp(const shc_sfu_seg *tab, uint32_t u23)
{
    assert(u23 < (1u << 23));
    pthread_once(&sq_once, sq_fill);
    const shc_sfu_seg *c = &tab[u23 >> SHC_SFU_NB];
    uint32_t x = u23 & ((1u << SHC_SFU_NB) - 1);
    return c->c0 + (int64_t)c->c1 * x + (int64_t)c->c2 * sq_table[x >> SQ_LOW];
}

/* Non-negative fixed-point w (units 2^-scale) rounded toward zero to float.
 * The count and the power-of-two multiply (not a loop and ldexpf) keep randn's
 * sm_90 path fast (bench/bench_randn.c); both are exact. */
static inline float rz_float(int64_t w, int scale)
{
    assert(w >= 0 && scale > 0 && scale < 64);
    int nb = w ? 64 - __builtin_clzll((unsigned long long)w) : 0;
    if (nb > 24)
        w = w >> (nb - 24) << (nb - 24);
    /* 2^-scale built from its exponent field: a division here was a tenth of bench_randn */
    union { uint64_t u; double d; } inv = {.u = (uint64_t)(1023 - scale) << 52};
    /* exact: 24 significant bits, and w 2^-scale is normal or zero here */
    return (float)((double)w * inv.d);
}

/* The quadrant functions: S(u) ~ sin(pi u / 2) in units of 2^-37, and
 * C(u) = S(~u) (the bitwise complement of the 23-bit argument; recorded:
 * MUFU.COS over a quadrant is MUFU.SIN over the same quadrant reversed). */
static float quad_s(uint32_t u23) { return rz_float(interp(SHC_SFU_SINQ, u23), 37); }
static float quad_c(uint32_t u23) { return rz_float(interp(SHC_SFU_SINQ, (1u << 23) - 1 - u23), 37); }

/* MUFU.SIN(t + k/4): quadrant q of 4|t| picks +-S or +-C of u = frac(4|t|),
 * truncated to 23 bits; the sign is applied to the rounded magnitude (sign and
 * magnitude: recorded for both signs of the output); sin is odd (assumed for
 * t < 0: cuRAND only feeds t > 0). */
static void quadrant_args(float t, uint32_t *u23, int *fq)
{
    double q25 = fabs((double)t) * 0x1p25; /* 4|t| in units of 2^-23: exact */
    if (q25 < 0x1p62) { /* the integer part holds floor(4|t|) and the 23-bit fraction */
        uint64_t n = (uint64_t)q25;
        *u23 = (uint32_t)(n & ((1u << 23) - 1));
        *fq = (int)((n >> 23) & 3);
    } else { /* |t| >= 2^37: a float that large is a multiple of 2^-23, its fraction 0 */
        double q4 = fabs((double)t) * 4.0, fl = floor(q4);
        *u23 = (uint32_t)floor((q4 - fl) * 0x1p23);
        *fq = (int)fmod(fl, 4.0); /* floor(4|t|) mod 4, exact */
    }
}

/* MUFU.SIN at quadrant q (0-3) of the argument u23. */
static float at_quadrant(int q, uint32_t u23)
{
    float m = (q & 1) ? quad_c(u23) : quad_s(u23);
    return q >= 2 ? -m : m;
}

static float sin_quadrant(float t, int k)
{
    if (!isfinite(t))
        return NAN;
    uint32_t u23;
    int fq;
    quadrant_args(t, &u23, &fq);
    int q = (fq + k) & 3;
    if (k == 0 && signbit(t))
        q = (q + 2) & 3;
    return at_quadrant(q, u23);
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
        return 0.0f; /* recorded: exactly 0, while the table gives 7377 * 2^-36 */
    int e;
    double m = frexp((double)x, &e); /* x = m 2^e, m in [0.5, 1) */
    e -= 1;                           /* x = 2^e * 1.f */
    uint32_t u23 = (uint32_t)((2.0 * m - 1.0) * 0x1p23); /* exact: the mantissa bits */
    /* fixed point with 36 fractional bits: exponent + table (2^-38) >> 2 */
    int64_t f = (int64_t)e * ((int64_t)1 << 36) + (interp(SHC_SFU_LG2, u23) >> 2);
    /* recorded over [0.5, 1): a negative word is negated by complementing it
     * (magnitude -f - 1), then rounded toward zero like a positive one */
    return f >= 0 ? rz_float(f, 36) : -rz_float(-f - 1, 36);
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
    if (!isfinite(t)) {
        *s = *c = NAN;
        return;
    }
    uint32_t u23; /* the quadrant split once for both (sin_quadrant's, k = 0 and 1) */
    int fq;
    quadrant_args(t, &u23, &fq);
    *s = at_quadrant(signbit(t) ? (fq + 2) & 3 : fq, u23);
    *c = at_quadrant((fq + 1) & 3, u23);
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

float shc_cuda_fast_tanf(float a)
{
    float t = shc_sfu_sincos_arg(a), c = shc_sfu_cos(t), s = shc_sfu_sin(t);
    if (fabsf(c) < 0x1p-126f) { /* @!P0 of FSETP.GEU |c|, 2^-126 (a NaN is not scaled) */
        c = c * 16777216.0f;
        s = s * 16777216.0f;
    }
    return shc_sfu_rcp_sm90(c) * s; /* MUFU.RCP, then FMUL */
}

float shc_cuda_fast_expf(float x)
{
    float t = x * 0x1.715476p+0f; /* FMUL by log2(e), 0x3fb8aa3b */
    bool small = t < -126.0f;     /* !FSETP.GEU: a NaN is not scaled */
    if (small)
        t = t * 0.5f;
    float r = shc_sfu_ex2_sm90(t);
    return small ? r * r : r; /* the square reaches the subnormals MUFU.EX2 flushes */
}
