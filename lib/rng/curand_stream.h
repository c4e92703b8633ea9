/*
 * curand_stream.h — cuRAND's value transforms (curand_uniform.h,
 * curand_normal.h of CUDA 13.0) on raw 32-bit words, inline so that the
 * torch kernel emulation and the CUDA kernels use them on their hot paths.
 *
 * Exactness: the uniform transforms are exact on a CPU (the scale constants
 * CURAND_2POW32_INV and CURAND_2POW53_INV_DOUBLE are exactly 2^-32 and 2^-53,
 * so x*scale is exact and only the final add rounds, with or without FMA).
 * The double Box-Muller uses CUDA 13.0 libdevice's own log and sincospi
 * (cuda_libdevice.c), so it follows the GPU's algorithm bit for bit (up to the
 * MUFU.RCP64H seed model, cuda_rcp64h.c; exact on all 27 recorded H100 outputs,
 * docs/cuda-math.md); the float one (shc_curand_box_muller) still uses
 * accurate sinf/cosf/logf where the GPU uses __sincosf (a hardware
 * approximation, cuda_sfu.c holds a 99%-exact model of it), so float normals
 * are flagged GpuOnly in the golden files (see curand_stream.c).
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

#ifndef __CUDA_ARCH__ /* host code, nvcc's host pass included (torch_rng_body.h's host branch) */
#include "cuda_libdevice.h"
#include "cuda_sfu.h"

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

/* _curand_box_muller(x, y) as an sm_90 GPU computes it (cuRAND 13.0
 * curand_normal.h): libdevice's logf (__nv_logf, reimplemented in
 * cuda_libdevice.c), IEEE sqrtf, and __sincosf = FMUL.RZ by 1/2pi then
 * MUFU.SIN/MUFU.COS, modelled bit for bit in cuda_sfu.c (recorded on an H100).
 * (float)x * 2^-32 is exact, so the device's contracted FMA gives the same u. */
static inline void shc_curand_box_muller_sm90(uint32_t x, uint32_t y, float out[2])
{
    float u = (float)x * SHC_CURAND_2POW32_INV + (SHC_CURAND_2POW32_INV / 2);
    float v = fmaf((float)y, SHC_CURAND_2POW32_INV_2PI, SHC_CURAND_2POW32_INV_2PI / 2);
    float s = sqrtf(-2.0f * shc_cuda_logf(u)), sv, cv;
    shc_cuda_fast_sincosf(v, &sv, &cv);
    out[0] = sv * s;
    out[1] = cv * s;
}

/* _curand_box_muller_double(x0, x1, y0, y1) as the device computes it: libdevice's
 * log and sincospi (CUDA 13.0, reimplemented in cuda_libdevice.c), IEEE sqrt (nvcc's
 * sm_90 sqrt is MUFU.RSQ64H refined once, then s + (x - s*s) * y/2, which
 * check_cuda_math shows equals IEEE sqrt for any seed within 3 units), log's
 * MUFU.RCP64H seed moved by rcp_shift units of the model (0: the model). */
static inline void shc_curand_box_muller_double_shift(uint32_t x0, uint32_t x1, uint32_t y0,
                                                      uint32_t y1, int rcp_shift, double out[2])
{
    uint64_t zx = (uint64_t)x0 ^ ((uint64_t)x1 << (53 - 32));
    double u = (double)zx * SHC_CURAND_2POW53_INV_DOUBLE + (SHC_CURAND_2POW53_INV_DOUBLE / 2.0);
    uint64_t zy = (uint64_t)y0 ^ ((uint64_t)y1 << (53 - 32));
    double v = (double)zy * (SHC_CURAND_2POW53_INV_DOUBLE * 2.0) + SHC_CURAND_2POW53_INV_DOUBLE;
    double s = sqrt(-2.0 * (rcp_shift ? shc_cuda_log_shift(u, rcp_shift) : shc_cuda_log(u)));
    double sv, cv;
    shc_cuda_sincospi(v, &sv, &cv);
    out[0] = sv * s;
    out[1] = cv * s;
}

static inline void shc_curand_box_muller_double(uint32_t x0, uint32_t x1, uint32_t y0,
                                                uint32_t y1, double out[2])
{
    shc_curand_box_muller_double_shift(x0, x1, y0, y1, 0, out);
}
#endif

#endif
