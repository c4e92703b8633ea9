/*
 * torch_cuda_rng.h — internal helpers of the PyTorch CUDA random-kernel
 * emulation: the launch geometry torch computes on the host, and float ->
 * float16 / bfloat16 rounding (round to nearest even, as c10::Half and
 * c10::BFloat16 do).  SHC_HD so that lib/cuda/ *.cu share them.
 *
 * The public entry points (shc_torch_rng_fill, shc_torch_rng_offset_after,
 * shc_gpu_profile_parse, ...) are declared in shardcheck.h.  Callers that
 * want "random data per rank" (the rng-offsets area) call
 * shc_torch_rng_fill with the rank's (seed, offset) and get the exact bits
 * plus the generator offset afterwards.
 *
 * Tested by conformance/tests/check_rng.c and check_torch_rng.c.
 */
#ifndef SHC_TORCH_CUDA_RNG_H
#define SHC_TORCH_CUDA_RNG_H

#include <stdint.h>
#include <string.h>
#include "philox_core.h"

#define SHC_TORCH_BLOCK 256 /* block_size_bound in DistributionTemplates.h */

#include <stdbool.h>
#include "shardcheck.h"
#ifdef __cplusplus
extern "C" {
#endif
/* The profile torch's launch geometry sees on a device, from its cudaDeviceProp
 * (name, multiProcessorCount, maxThreadsPerMultiProcessor, major, minor): the
 * preset with the same SMs, threads per SM and compute capability (the one
 * the device name mentions when several do), else an ad-hoc "custom" profile
 * with those values.  SHC_EINVAL when the values are outside a profile's bounds. */
int shc_gpu_profile_for_device(const char *dev_name, int sm_count, int max_threads_per_sm,
                               int cc_major, int cc_minor, shc_gpu_profile *out, shc_err *e);
/* Same launch geometry, hence the same output and offsets for every request. */
bool shc_gpu_profile_same_geometry(const shc_gpu_profile *a, const shc_gpu_profile *b);
#ifdef __cplusplus
}
#endif

/* float -> IEEE binary16 bits, round to nearest even (c10::detail::fp16_ieee_from_fp32_value). */
static inline SHC_HD uint16_t shc_f32_to_f16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) /* inf or nan */
        return (uint16_t)(sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u | ((ax >> 13) & 0x3ffu) : 0));
    if (ax >= 0x477ff000u) /* rounds to >= 65520: overflow to inf */
        return (uint16_t)(sign | 0x7c00u);
    if (ax < 0x38800000u) { /* result is subnormal or zero: scale by 2^-24 in units */
        if (ax < 0x33000000u) /* < 2^-25: rounds to zero */
            return (uint16_t)sign;
        uint32_t e = ax >> 23;
        uint32_t m = (ax & 0x7fffffu) | 0x800000u;
        uint32_t shift = 126u - e; /* value = m * 2^(e-150); units of 2^-24 -> shift by 126-e */
        uint32_t q = m >> shift, rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (q & 1u)))
            q++;
        return (uint16_t)(sign | q);
    }
    uint32_t r = ax + 0xc8000000u; /* rebias exponent 127 -> 15 (subtract 112 << 23) */
    uint32_t q = r >> 13, rem = r & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (q & 1u)))
        q++;
    return (uint16_t)(sign | q);
}

/* binary16 bits -> float (exact). */
static inline SHC_HD float shc_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, x;
    if (e == 0x1f) {
        x = sign | 0x7f800000u | (m << 13);
    } else if (e) {
        x = sign | ((e + 112u) << 23) | (m << 13);
    } else if (m) { /* subnormal: normalise */
        e = 113;
        while (!(m & 0x400u)) {
            m <<= 1;
            e--;
        }
        x = sign | (e << 23) | ((m & 0x3ffu) << 13);
    } else {
        x = sign;
    }
    float f;
    memcpy(&f, &x, 4);
    return f;
}

/* float -> bfloat16 bits, round to nearest even (c10::detail::round_to_nearest_even). */
static inline SHC_HD uint16_t shc_f32_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return 0x7fc0u; /* c10 returns UINT16_C(0x7FC0) for any NaN */
    uint32_t bias = 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)((x + bias) >> 16);
}

/* bfloat16 bits -> float (exact). */
static inline SHC_HD float shc_bf16_to_f32(uint16_t b)
{
    uint32_t x = (uint32_t)b << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
}

#endif
