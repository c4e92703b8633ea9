/*
 * curand_stream.h — cuRAND's value transforms (curand_uniform.h,
 * curand_normal.h of CUDA 13.0) on raw 32-bit words, inline so that the
 * torch kernel emulation and the CUDA kernels use them on their hot paths.
 *
 * Exactness: the uniform transforms are exact on a CPU (the scale constants
 * CURAND_2POW32_INV and CURAND_2POW53_INV_DOUBLE are exactly 2^-32 and 2^-53,
 * so x*scale is exact and only the final add rounds, with or without FMA).
 * The Box-Muller transforms are not: the GPU uses __sincosf (float) and
 * sincospi (double, up to 2 ulp); here they use accurate math, so normals are
 * flagged GpuOnly in the golden files (see curand_stream.c for tolerances).
 *
 * Tested by conformance/tests/check_rng.c against libcurand's host generator.
 */
#ifndef SHC_CURAND_STREAM_H
#define SHC_CURAND_STREAM_H

#include <stdint.h>
#include <math.h>
#include "philox_core.h"

#define SHC_CURAND_2POW32_INV 2.3283064e-10f                 /* == 2^-32 */
#define SHC_CURAND_2POW32_INV_DOUBLE 2.3283064365386963e-10  /* == 2^-32 */
#define SHC_CURAND_2POW53_INV_DOUBLE 1.1102230246251565e-16  /* == 2^-53 */
/* CURAND_2POW32_INV_2PI: a float product rounded once at compile time. */
#define SHC_CURAND_2POW32_INV_2PI (2.3283064e-10f * 6.2831855f)

/* _curand_uniform(x): (0, 1], float. */
static inline SHC_HD float shc_curand_u01(uint32_t x)
{
    return (float)x * SHC_CURAND_2POW32_INV + (SHC_CURAND_2POW32_INV / 2.0f);
}

/* _curand_uniform_double(unsigned int x): (x + 1) * 2^-32, exact. */
static inline SHC_HD double shc_curand_u01_double(uint32_t x)
{
    return (double)x * SHC_CURAND_2POW32_INV_DOUBLE + SHC_CURAND_2POW32_INV_DOUBLE;
}

/* _curand_uniform_double_hq(x, y): 53 bits x ^ (y << 21), (0, 1]. */
static inline SHC_HD double shc_curand_u01_double_hq(uint32_t x, uint32_t y)
{
    uint64_t z = (uint64_t)x ^ ((uint64_t)y << (53 - 32));
    return (double)z * SHC_CURAND_2POW53_INV_DOUBLE + (SHC_CURAND_2POW53_INV_DOUBLE / 2.0);
}

#ifndef __CUDACC__
/* _curand_box_muller(x, y) with accurate sinf/cosf/logf.  The device code
 * contracts y*K + K/2 into an FMA (nvcc's default --fmad=true); we do too. */
static inline void shc_curand_box_muller(uint32_t x, uint32_t y, float out[2])
{
    float u = (float)x * SHC_CURAND_2POW32_INV + (SHC_CURAND_2POW32_INV / 2);
    float v = fmaf((float)y, SHC_CURAND_2POW32_INV_2PI, SHC_CURAND_2POW32_INV_2PI / 2);
    float s = sqrtf(-2.0f * logf(u));
    out[0] = sinf(v) * s;
    out[1] = cosf(v) * s;
}

/* _curand_box_muller_double(x0, x1, y0, y1): the device computes
 * sincospi(v); we evaluate sin(pi*v), cos(pi*v) in long double and round. */
static inline void shc_curand_box_muller_double(uint32_t x0, uint32_t x1, uint32_t y0,
                                                uint32_t y1, double out[2])
{
    uint64_t zx = (uint64_t)x0 ^ ((uint64_t)x1 << (53 - 32));
    double u = (double)zx * SHC_CURAND_2POW53_INV_DOUBLE + (SHC_CURAND_2POW53_INV_DOUBLE / 2.0);
    uint64_t zy = (uint64_t)y0 ^ ((uint64_t)y1 << (53 - 32));
    double v = (double)zy * (SHC_CURAND_2POW53_INV_DOUBLE * 2.0) + SHC_CURAND_2POW53_INV_DOUBLE;
    double s = sqrt(-2.0 * log(u));
    /* v in (0, 2]: pi*v in 64-bit-mantissa long double keeps sin/cos within ~1 ulp of double. */
    long double pi = 3.141592653589793238462643383279502884L;
    long double sv = sinl(pi * (long double)v), cv = cosl(pi * (long double)v);
    out[0] = (double)sv * s;
    out[1] = (double)cv * s;
}
#endif

#endif
