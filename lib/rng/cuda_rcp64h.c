/*
 * cuda_rcp64h.c — MUFU.RCP64H (rcp.approx.ftz.f64) on sm_90, from a recording of the unit.
 *
 * The unit reads the high word of d (sign, exponent, 20 fraction bits) and writes the high
 * word of an approximate reciprocal; the low word is zero.  libdevice's log seeds one Newton
 * step with it, and the step does not wash out the last bit of the seed: a seed one unit
 * (2^-20) off changes log's result for about 2 in 10^5 cuRAND-domain inputs
 * (docs/cuda-math.md).
 *
 * What the recordings show.  tools/gpu/record_cuda_math.cu recorded the unit on an H200 for
 * every fraction of two binades ([1,2) and [2,4), 2^20 high words each): the answer is always
 * the truncated reciprocal of the high-word value or one unit above it, the same for both
 * exponents, and one unit above only where the exact reciprocal lies in the top eighth of a
 * unit below the next 20-bit boundary (72,677 of the 131,710 fractions where it does; no
 * simple threshold separates them, so they are a table).  tools/gpu/rcp64h_table.py checks
 * those properties and writes the table (cuda_rcp64h_table.h, one bit per such fraction);
 * this file expands it once into a bit per fraction.  Before the recording the unit was
 * inferred from 27 recorded float64 outputs as "the float-rounded reciprocal, truncated",
 * which was wrong on 17,564 fractions (8,828 in libdevice log's range).  Exponents, signs
 * and the flush to zero at either end are the truncated path's, and every NaN answers the
 * high word 0x7fffffff: tools/gpu/rcp64h_scan.cu put all 2^32 high words (low words
 * scrambled) through the unit on the H200 and found this file wrong on the NaNs alone
 * (2,097,148, each answered 0x7fffffff) before that last rule.
 *
 * Self-contained (C99, libm, pthread_once), so that tools/gpu/rcp64h_compare.c builds it alone.
 * Tested by conformance/tests/check_cuda_math.c and check_cuda_f64.c.
 */
#include "config.h"
#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "cuda_rcp64h.h"
#include "cuda_rcp64h_table.h"

#define FRACS (1u << 20)

static uint32_t up_bits[FRACS / 32]; /* bit i: fraction i is answered one unit up */
static pthread_once_t up_once = PTHREAD_ONCE_INIT;

/* The exact reciprocal of 1 + i/2^20 lies in the top eighth of a unit. */
static bool candidate(uint32_t i)
{
    uint64_t n = FRACS + (uint64_t)i;
    return 8 * ((1ull << 41) % n) >= 7 * n;
}

static void expand(void)
{
    uint32_t k = 0;
    for (uint32_t i = 1; i < FRACS; i++) {
        if (!candidate(i))
            continue;
        if (shc_rcp64h_up_stream[k / 64] >> (k % 64) & 1)
            up_bits[i / 32] |= 1u << (i % 32);
        k++;
    }
    assert(k == SHC_RCP64H_CANDIDATES);
}

int shc_cuda_rcp64h_up(uint32_t fraction)
{
    pthread_once(&up_once, expand);
    fraction &= FRACS - 1;
    return (int)(up_bits[fraction / 32] >> (fraction % 32) & 1);
}

/* 1 / (the high-word value of d), flushed to zero at either end; 0 for a NaN
 * high word is never asked (the callers pass finite positive values). */
static double recip_hi(double d)
{
    double dh = shc_bitsd(shc_dbits(d) & 0xffffffff00000000ull);
    if (fabs(dh) < 0x1p-1022)
        dh = copysign(0.0, dh);
    double r = 1.0 / dh;
    if (fabs(r) < 0x1p-1022)
        r = copysign(0.0, r);
    return r;
}

double shc_cuda_rcp64h_trunc(double d)
{
    return shc_bitsd(shc_dbits(recip_hi(d)) & 0xffffffff00000000ull);
}

double shc_cuda_rcp64h_shift(double d, int shift)
{
    if (isnan(shc_bitsd(shc_dbits(d) & 0xffffffff00000000ull)))
        return shc_bitsd(0x7fffffff00000000ull); /* the unit's one NaN, whatever the input's */
    double r = recip_hi(d);
    uint64_t b = shc_dbits(r);
    if (!isfinite(r) || r == 0.0)
        return shc_bitsd(b & 0xffffffff00000000ull);
    /* the truncated reciprocal cannot be one rounding away from a 20-bit boundary (the exact
     * one is at least 2^-21 of a unit from it), so the double quotient truncates as the
     * exact one does; one unit up carries into the exponent as the unit's adder would */
    uint32_t hi = (uint32_t)(b >> 32), in = (uint32_t)(shc_dbits(d) >> 32);
    hi += (uint32_t)shc_cuda_rcp64h_up(in);
    return shc_bitsd((uint64_t)(hi + (uint32_t)shift) << 32);
}

double shc_cuda_rcp_approx_ftz_d(double d) { return shc_cuda_rcp64h_shift(d, 0); }
