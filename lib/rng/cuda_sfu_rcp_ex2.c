/*
 * cuda_sfu_rcp_ex2.c — CPU models of MUFU.RCP (rcp.approx.ftz.f32) and MUFU.EX2
 * (ex2.approx.ftz.f32) of the H200 (sm_90), bit for bit.
 *
 * What the recordings showed (tools/gpu/fit_rcp_ex2.py, which regenerates
 * cuda_sfu_rcp_ex2_tables.h and re-measures): the same integer quadratic
 * interpolator as MUFU.SIN/COS/LG2 (cuda_sfu.c), W = c0 + c1 x + c2 sq(x) with
 * a truncated squarer, W truncated to 24 bits.
 * - MUFU.RCP: 128 segments over the mantissa (the top 7 bits; x the low 16,
 *   squarer threshold 2^17), W ~ 1/1.m in units of 2^-39.  64 segments cannot
 *   fit the recording.  The answer is the truncated reciprocal or one unit of
 *   the last place above it because W errs upward by up to about one unit.
 *   MUFU.RCP64H's 20-bit answer on [1, 2) is this answer shifted right by 3
 *   (all 2^20 fractions; lib/rng/cuda_rcp64h.c keeps that unit as a table).
 * - MUFU.EX2: |x| truncated to a fixed-point number with 23 fraction bits
 *   (so [0.5, 1) answers in equal pairs); 64 segments over the fraction (x the
 *   low 17 bits, threshold 2^19, as sin and lg2), W ~ 2^0.f in units of 2^-38;
 *   the integer part is the exponent.  A negative x complements the fraction
 *   in one's complement (table at 2^23 - 1 - f, exponent -n - 1), which is
 *   what every entry of [-1, -0.5) and [-2, -1) shows, except that x = -1,
 *   the only recorded negative x with a zero fraction, answers exactly 0.5:
 *   a zero fraction gives 2^-n (assumed for every such x, and for negative x
 *   above -2^-23, whose truncated fraction is zero too: they answer 1).
 * Recorded and reproduced, every entry: MUFU.RCP on [1, 2), MUFU.RCP64H on the
 * high words of [1, 2), MUFU.EX2 on [0.5, 1), [1, 2), [-1, -0.5), [-2, -1).
 * Fitted without them, then confirmed on the whole domain: other binades (exponent
 * handling), subnormal inputs (flushed to zero first), results below 2^-126
 * (flushed to zero: signed for rcp, + for ex2), |x| >= 128 for ex2, and NaN,
 * answered as the canonical 0x7fffffff.  tools/gpu/sfu_scan.cu put all 2^32 floats
 * through both units on the H200 and through this file: 0 differ (2026-11-30).
 *
 * Testing: conformance/tests/data/sfu/subset_rcp_ex2.txt is a committed subset
 * of the recordings (segment ends and a fixed-seed sample, chosen by
 * tools/gpu/fit_rcp_ex2.py, lines FUNC INPUT_BITS OUTPUT_BITS) for a replay
 * that requires each entry bit for bit; the generator measures the whole
 * recordings against the same model.
 */
#include "config.h"
#include <assert.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "cuda_sfu_rcp_ex2.h"
#include "cuda_sfu_rcp_ex2_tables.h"

#define SHC_SFU_NAN_BITS 0x7fffffffu /* the H200's NaN answer */
#define SHC_FRAC_MASK ((1u << 23) - 1)

static uint32_t f2u(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float u2f(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* The truncated squarer (as cuda_sfu.c's, with the width and threshold as
 * parameters): x^2 as its partial products, diagonal x_a 2^2a and cross
 * x_a x_b 2^(a+b+1) (a < b), keeping those of weight >= 2^tsq, shifted down by
 * tsq.  The recordings pin the threshold: rcp fits only with 17, ex2 only 19. */
static uint32_t sq_trunc(uint32_t x, int nb, int tsq)
{
    uint64_t tot = 0;
    for (int a = 0; a < nb; a++) {
        /* a bit's row is masked in, not skipped: no data-dependent branch */
        uint64_t on = 0 - (uint64_t)(x >> a & 1);
        uint64_t row = 2 * a >= tsq ? (uint64_t)1 << (2 * a) : 0;
        int b0 = tsq - 1 - a > a + 1 ? tsq - 1 - a : a + 1; /* cross terms x_b, b >= b0 */
        row += ((uint64_t)(x >> b0) << b0) << (a + 1);
        tot += row & on;
    }
    return (uint32_t)(tot >> tsq);
}

/* W = c0 + c1 x + c2 sq(x) at the 23-bit argument u23: the bits above the low
 * nb pick the segment, the low nb are x.  Exact integer arithmetic. */
static int64_t interp(const shc_sfu_rx_seg *tab, int nb, int tsq, uint32_t u23)
{
    assert(u23 <= SHC_FRAC_MASK);
    const shc_sfu_rx_seg *c = &tab[u23 >> nb];
    uint32_t x = u23 & ((1u << nb) - 1);
    return c->c0 + (int64_t)c->c1 * x + (int64_t)c->c2 * sq_trunc(x, nb, tsq);
}

float shc_sfu_rcp_sm90(float x)
{
    uint32_t b = f2u(x), sign = b & 0x80000000u, mag = b & 0x7fffffffu;
    if (mag > 0x7f800000u)
        return u2f(SHC_SFU_NAN_BITS);
    if (mag == 0x7f800000u) /* 1/inf: zero of the same sign */
        return u2f(sign);
    if (mag < 0x00800000u) /* zero, or a subnormal flushed to zero: inf */
        return u2f(sign | 0x7f800000u);
    int e = (int)(mag >> 23) - 127; /* x = +-2^e 1.m */
    int64_t w = interp(SHC_SFU_RCP, SHC_SFU_RCP_NB, SHC_SFU_RCP_TSQ, mag & SHC_FRAC_MASK);
    /* W (2^-39) lies in [2^38, 2^39) except at m = 0, where it is 2^39 + 2023:
     * truncated to 24 bits that is 1.0, so 1/2^e comes out exact */
    bool one = w >= (int64_t)1 << 39;
    assert(w >= (int64_t)1 << 38 && w < ((int64_t)1 << 39) + ((int64_t)1 << 16));
    uint32_t m24 = (uint32_t)(one ? w >> 16 : w >> 15);
    int be = (one ? 127 : 126) - e; /* biased exponent of the result */
    if (be <= 0)                    /* below 2^-126 (x > 2^126): flushed */
        return u2f(sign);
    return u2f(sign | (uint32_t)be << 23 | (m24 & SHC_FRAC_MASK));
}

/* MUFU.EX2's fixed-point argument: the exponent n and the 23-bit table index u
 * of x = +-(F 2^-23), F = floor(|x| 2^23) (|x| < 128 here). */
static void ex2_arg(uint32_t mag, bool neg, int *n, uint32_t *u)
{
    int e = (int)(mag >> 23) - 127; /* -126 .. 6 */
    uint64_t s = (mag & SHC_FRAC_MASK) | 0x800000u; /* |x| = s 2^(e-23) */
    uint64_t f = e >= 0 ? s << e : (-e < 24 ? s >> -e : 0);
    int ip = (int)(f >> 23);
    uint32_t fr = (uint32_t)f & SHC_FRAC_MASK;
    if (!neg) {
        *n = ip;
        *u = fr;
    } else if (fr != 0) { /* one's complement: 2^-(ip+1) 2^((2^23 - 1 - fr) 2^-23) */
        *n = -ip - 1;
        *u = SHC_FRAC_MASK - fr;
    } else { /* recorded at x = -1: exactly 2^-ip */
        *n = -ip;
        *u = 0;
    }
}

float shc_sfu_ex2_sm90(float x)
{
    uint32_t b = f2u(x), mag = b & 0x7fffffffu;
    bool neg = b >> 31;
    if (mag > 0x7f800000u)
        return u2f(SHC_SFU_NAN_BITS);
    if (mag < 0x00800000u) /* zero, or a subnormal flushed to zero: 2^0 */
        return 1.0f;
    if (mag >= 0x43000000u) /* |x| >= 128, infinities included: overflow or flush */
        return neg ? 0.0f : u2f(0x7f800000u);
    int n;
    uint32_t u;
    ex2_arg(mag, neg, &n, &u);
    int64_t w = interp(SHC_SFU_EX2, SHC_SFU_EX2_NB, SHC_SFU_EX2_TSQ, u);
    assert(w >= (int64_t)1 << 38 && w < (int64_t)1 << 39); /* 2^0.f in [1, 2), 2^-38 */
    int be = n + 127;
    if (be <= 0) /* below 2^-126: flushed to +0 */
        return 0.0f;
    return u2f((uint32_t)be << 23 | ((uint32_t)(w >> 15) & SHC_FRAC_MASK));
}
