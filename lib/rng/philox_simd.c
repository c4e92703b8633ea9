/*
 * philox_simd.c — Philox4x32 kernels for AVX2 (8 blocks per step) and AVX-512
 * (16 blocks per step).  This file is compiled twice by mk/rng.am, once with
 * -mavx2 -DSHC_SIMD_AVX2 and once with -mavx512f -DSHC_SIMD_AVX512, into
 * convenience libraries; philox.c calls a kernel only after
 * __builtin_cpu_supports says the CPU runs it.
 *
 * The 32x32->64 multiplies use mul_epu32 on the even lanes and on the odd
 * lanes shifted down, then blend the halves back: two multiplies give both hi
 * and lo words of eight (or four) products.  Remainders shorter than a vector
 * go through the scalar core, so the kernels are exact for any n.
 *
 * Tested by conformance/tests/check_rng.c: every path equals the scalar one.
 */
#include "config.h"
#include <immintrin.h>
#include "philox.h"

#if defined(SHC_SIMD_AVX512)

#define VW 16
typedef __m512i vec;
#define SET1(x) _mm512_set1_epi32((int)(x))
#define XOR(a, b) _mm512_xor_si512(a, b)
#define ADD(a, b) _mm512_add_epi32(a, b)
#define LOADU(p) _mm512_loadu_si512((const void *)(p))
#define STOREU(p, v) _mm512_storeu_si512((void *)(p), v)
#define LANES _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
#define KERNEL_NAME shc_philox_kernel_avx512
#define RAND_NAME shc_torch_rand_f32_avx512

/* uint32 -> float, round to nearest even (vcvtudq2ps). */
static inline __m512 u32_to_f32(vec x) { return _mm512_cvtepu32_ps(x); }
static inline void store_rand(float *o, __m512 v)
{
    __mmask16 one = _mm512_cmp_ps_mask(v, _mm512_set1_ps(1.0f), _CMP_EQ_OQ);
    _mm512_storeu_ps(o, _mm512_mask_blend_ps(one, v, _mm512_setzero_ps()));
}
#define FVEC __m512
#define FMUL _mm512_mul_ps
#define FADD _mm512_add_ps
#define FSET1 _mm512_set1_ps

static inline void mulhilo(vec a, vec m, vec *hi, vec *lo)
{
    vec pe = _mm512_mul_epu32(a, m);
    vec po = _mm512_mul_epu32(_mm512_srli_epi64(a, 32), m);
    *hi = _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(pe, 32), po);
    *lo = _mm512_mask_blend_epi32(0xAAAA, pe, _mm512_slli_epi64(po, 32));
}

/* 16 blocks in x,y,z,w (lane = block) -> AoS at out (64 words). */
static inline void store_aos(uint32_t *out, vec x, vec y, vec z, vec w)
{
    vec t0 = _mm512_unpacklo_epi32(x, y), t1 = _mm512_unpackhi_epi32(x, y);
    vec t2 = _mm512_unpacklo_epi32(z, w), t3 = _mm512_unpackhi_epi32(z, w);
    vec r0 = _mm512_unpacklo_epi64(t0, t2), r1 = _mm512_unpackhi_epi64(t0, t2);
    vec r2 = _mm512_unpacklo_epi64(t1, t3), r3 = _mm512_unpackhi_epi64(t1, t3);
    /* r0 holds blocks 0,4,8,12 (one per 128-bit lane), r1 1,5,9,13, ... */
    vec u0 = _mm512_shuffle_i32x4(r0, r1, _MM_SHUFFLE(1, 0, 1, 0));
    vec u1 = _mm512_shuffle_i32x4(r2, r3, _MM_SHUFFLE(1, 0, 1, 0));
    vec u2 = _mm512_shuffle_i32x4(r0, r1, _MM_SHUFFLE(3, 2, 3, 2));
    vec u3 = _mm512_shuffle_i32x4(r2, r3, _MM_SHUFFLE(3, 2, 3, 2));
    STOREU(out, _mm512_shuffle_i32x4(u0, u1, _MM_SHUFFLE(2, 0, 2, 0)));
    STOREU(out + 16, _mm512_shuffle_i32x4(u0, u1, _MM_SHUFFLE(3, 1, 3, 1)));
    STOREU(out + 32, _mm512_shuffle_i32x4(u2, u3, _MM_SHUFFLE(2, 0, 2, 0)));
    STOREU(out + 48, _mm512_shuffle_i32x4(u2, u3, _MM_SHUFFLE(3, 1, 3, 1)));
}

#elif defined(SHC_SIMD_AVX2)

#define VW 8
typedef __m256i vec;
#define SET1(x) _mm256_set1_epi32((int)(x))
#define XOR(a, b) _mm256_xor_si256(a, b)
#define ADD(a, b) _mm256_add_epi32(a, b)
#define LOADU(p) _mm256_loadu_si256((const __m256i *)(p))
#define STOREU(p, v) _mm256_storeu_si256((__m256i *)(p), v)
#define LANES _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)
#define KERNEL_NAME shc_philox_kernel_avx2
#define RAND_NAME shc_torch_rand_f32_avx2

/* uint32 -> float with one rounding: hi16 * 2^16 and lo16 are exact floats, so
 * their float sum is the correctly rounded (nearest-even) value of x. */
static inline __m256 u32_to_f32(vec x)
{
    __m256 hi = _mm256_cvtepi32_ps(_mm256_srli_epi32(x, 16));
    __m256 lo = _mm256_cvtepi32_ps(_mm256_and_si256(x, _mm256_set1_epi32(0xffff)));
    return _mm256_add_ps(_mm256_mul_ps(hi, _mm256_set1_ps(65536.0f)), lo);
}
static inline void store_rand(float *o, __m256 v)
{
    __m256 one = _mm256_cmp_ps(v, _mm256_set1_ps(1.0f), _CMP_EQ_OQ);
    _mm256_storeu_ps(o, _mm256_andnot_ps(one, v));
}
#define FVEC __m256
#define FMUL _mm256_mul_ps
#define FADD _mm256_add_ps
#define FSET1 _mm256_set1_ps

static inline void mulhilo(vec a, vec m, vec *hi, vec *lo)
{
    vec pe = _mm256_mul_epu32(a, m);
    vec po = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), m);
    *hi = _mm256_blend_epi32(_mm256_srli_epi64(pe, 32), po, 0xAA);
    *lo = _mm256_blend_epi32(pe, _mm256_slli_epi64(po, 32), 0xAA);
}

static inline void store_aos(uint32_t *out, vec x, vec y, vec z, vec w)
{
    vec t0 = _mm256_unpacklo_epi32(x, y), t1 = _mm256_unpackhi_epi32(x, y);
    vec t2 = _mm256_unpacklo_epi32(z, w), t3 = _mm256_unpackhi_epi32(z, w);
    vec r0 = _mm256_unpacklo_epi64(t0, t2), r1 = _mm256_unpackhi_epi64(t0, t2);
    vec r2 = _mm256_unpacklo_epi64(t1, t3), r3 = _mm256_unpackhi_epi64(t1, t3);
    /* r0 holds blocks 0 and 4, r1 1 and 5, r2 2 and 6, r3 3 and 7 */
    STOREU(out, _mm256_permute2x128_si256(r0, r1, 0x20));
    STOREU(out + 8, _mm256_permute2x128_si256(r2, r3, 0x20));
    STOREU(out + 16, _mm256_permute2x128_si256(r0, r1, 0x31));
    STOREU(out + 24, _mm256_permute2x128_si256(r2, r3, 0x31));
}

#endif

#ifdef VW
/* Philox rounds on VW blocks at once. */
static inline void rounds_vec(vec *x, vec *y, vec *z, vec *w, const uint32_t key[2], int rounds)
{
    const vec m0 = SET1(SHC_PHILOX_M0), m1 = SET1(SHC_PHILOX_M1);
    uint32_t k0 = key[0], k1 = key[1];
    for (int r = 0; r < rounds; r++) {
        if (r) {
            k0 += SHC_PHILOX_W0;
            k1 += SHC_PHILOX_W1;
        }
        vec hi0, lo0, hi1, lo1;
        mulhilo(*x, m0, &hi0, &lo0);
        mulhilo(*z, m1, &hi1, &lo1);
        *x = XOR(XOR(hi1, *y), SET1(k0));
        *y = lo1;
        *z = XOR(XOR(hi0, *w), SET1(k1));
        *w = lo0;
    }
}

/* Two independent sets of VW blocks per round, so the multiplies of one set
 * overlap the latency of the other's. */
static inline void rounds_vec2(vec v[8], const uint32_t key[2], int rounds)
{
    const vec m0 = SET1(SHC_PHILOX_M0), m1 = SET1(SHC_PHILOX_M1);
    uint32_t k0 = key[0], k1 = key[1];
    for (int r = 0; r < rounds; r++) {
        if (r) {
            k0 += SHC_PHILOX_W0;
            k1 += SHC_PHILOX_W1;
        }
        const vec kk0 = SET1(k0), kk1 = SET1(k1);
        for (int s = 0; s < 8; s += 4) {
            vec hi0, lo0, hi1, lo1;
            mulhilo(v[s], m0, &hi0, &lo0);
            mulhilo(v[s + 2], m1, &hi1, &lo1);
            v[s] = XOR(XOR(hi1, v[s + 1]), kk0);
            v[s + 1] = lo1;
            v[s + 2] = XOR(XOR(hi0, v[s + 3]), kk1);
            v[s + 3] = lo0;
        }
    }
}

static inline void store_blocks(uint32_t *out, int soa, int64_t stride, int64_t j, vec x, vec y,
                                vec z, vec w)
{
    if (soa) {
        STOREU(out + j, x);
        STOREU(out + stride + j, y);
        STOREU(out + 2 * stride + j, z);
        STOREU(out + 3 * stride + j, w);
    } else {
        store_aos(out + 4 * j, x, y, z, w);
    }
}

void KERNEL_NAME(const uint32_t key[2], const uint32_t ctr0[4], int word, int rounds, int64_t n,
                 uint32_t *out, int soa, int64_t stride)
{
    int64_t j = 0;
    for (; rounds == 10 && j + 2 * VW <= n; j += 2 * VW) {
        vec v[8];
        for (int s = 0; s < 2; s++) {
            for (int q = 0; q < 4; q++)
                v[4 * s + q] = SET1(ctr0[q]);
            v[4 * s + word] = ADD(SET1(ctr0[word] + (uint32_t)(j + s * VW)), LANES);
        }
        rounds_vec2(v, key, 10);
        store_blocks(out, soa, stride, j, v[0], v[1], v[2], v[3]);
        store_blocks(out, soa, stride, j + VW, v[4], v[5], v[6], v[7]);
    }
    for (; j + VW <= n; j += VW) {
        vec c[4] = {SET1(ctr0[0]), SET1(ctr0[1]), SET1(ctr0[2]), SET1(ctr0[3])};
        c[word] = ADD(SET1(ctr0[word] + (uint32_t)j), LANES);
        vec x = c[0], y = c[1], z = c[2], w = c[3];
        if (rounds == 10) /* the common case, unrolled by the compiler */
            rounds_vec(&x, &y, &z, &w, key, 10);
        else
            rounds_vec(&x, &y, &z, &w, key, rounds);
        store_blocks(out, soa, stride, j, x, y, z, w);
    }
    uint32_t c[4] = {ctr0[0], ctr0[1], ctr0[2], ctr0[3]}, r[4];
    for (; j < n; j++) {
        c[word] = ctr0[word] + (uint32_t)j;
        shc_philox4x32_core(c, key, rounds, r);
        for (int q = 0; q < 4; q++) {
            if (soa)
                out[q * stride + j] = r[q];
            else
                out[4 * j + q] = r[q];
        }
    }
}

/* torch.rand's float32 transform of n words: curand_uniform (x*2^-32 + 2^-33,
 * both operations exact-then-rounded as in the scalar code) and then
 * `value == to ? from : value` with from 0, to 1. */
void RAND_NAME(const uint32_t *w, int64_t n, float *out)
{
    const FVEC scale = FSET1(0x1p-32f), half = FSET1(0x1p-33f);
    int64_t i = 0;
    for (; i + VW <= n; i += VW)
        store_rand(out + i, FADD(FMUL(u32_to_f32(LOADU(w + i)), scale), half));
    for (; i < n; i++) {
        float v = (float)w[i] * 0x1p-32f + 0x1p-33f;
        out[i] = v == 1.0f ? 0.0f : v;
    }
}
#endif
