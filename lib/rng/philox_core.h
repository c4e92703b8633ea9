/*
 * philox_core.h — the Philox4x32 round function, shared by the C library,
 * the SIMD paths' scalar tails and the CUDA kernels (lib/cuda/ *.cu).
 *
 * Everything here is a static inline function marked SHC_HD, which is
 * `__host__ __device__` under nvcc and nothing under a C compiler, so the
 * device code and the CPU reference run the very same arithmetic.
 *
 * Philox4x32 (Salmon et al., SC'11; Random123 philox.h; cuRAND
 * curand_philox4x32_x.h): multipliers 0xD2511F53 and 0xCD9E8D57, Weyl key
 * increments 0x9E3779B9 and 0xBB67AE85.  A round maps (x,y,z,w) with key
 * (k0,k1) to (hi(M1*z)^y^k0, lo(M1*z), hi(M0*x)^w^k1, lo(M0*x)); the key is
 * bumped between rounds, not before the first.
 *
 * Tested by conformance/tests/check_rng.c against Random123 and libcurand.
 */
#ifndef SHC_PHILOX_CORE_H
#define SHC_PHILOX_CORE_H

#include <stdint.h>

#ifdef __CUDACC__
#define SHC_HD __host__ __device__
#define SHC_ALWAYS_INLINE /* nvcc inlines device code by itself */
#else
#define SHC_HD
/* GCC at -O2 otherwise keeps the 10-round block out of line and calls it per block */
#define SHC_ALWAYS_INLINE __attribute__((always_inline))
#endif

#define SHC_PHILOX_M0 0xD2511F53u
#define SHC_PHILOX_M1 0xCD9E8D57u
#define SHC_PHILOX_W0 0x9E3779B9u
#define SHC_PHILOX_W1 0xBB67AE85u

/* One round on (x,y,z,w) in place, with the round's key (k0,k1). */
#define SHC_PHILOX_ROUND(x, y, z, w, k0, k1)                                    \
    do {                                                                        \
        uint64_t p0_ = (uint64_t)SHC_PHILOX_M0 * (x);                           \
        uint64_t p1_ = (uint64_t)SHC_PHILOX_M1 * (z);                           \
        (x) = (uint32_t)(p1_ >> 32) ^ (y) ^ (k0);                               \
        (y) = (uint32_t)p1_;                                                    \
        (z) = (uint32_t)(p0_ >> 32) ^ (w) ^ (k1);                               \
        (w) = (uint32_t)p0_;                                                    \
    } while (0)

/* Philox4x32-10 written out round by round, as Random123's philox4x32_R(10)
 * expands: a loop with a data-independent branch on the round number is not
 * unrolled at -O2, and the scalar fill ran at 0.6x of Random123 because of it. */
static inline SHC_ALWAYS_INLINE SHC_HD void shc_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2],
                                            uint32_t out[4])
{
    uint32_t x = ctr[0], y = ctr[1], z = ctr[2], w = ctr[3];
    uint32_t k0 = key[0], k1 = key[1];
    SHC_PHILOX_ROUND(x, y, z, w, k0, k1);
    k0 += SHC_PHILOX_W0; k1 += SHC_PHILOX_W1;
    SHC_PHILOX_ROUND(x, y, z, w, k0, k1);
    k0 += SHC_PHILOX_W0; k1 += SHC_PHILOX_W1;
    SHC_PHILOX_ROUND(x, y, z, w, k0, k1);
    k0 += SHC_PHILOX_W0; k1 += SHC_PHILOX_W1;
    SHC_PHILOX_ROUND(x, y, z, w, k0, k1);
    k0 += SHC_PHILOX_W0; k1 += SHC_PHILOX_W1;
    SHC_PHILOX_ROUND(x, y, z, w, k0, k1);
    k0 += SHC_PHILOX_W0; k1 += SHC_PHILOX_W1;
    SHC_PHILOX_ROUND(x, y, z, w, k0, k1);
    k0 += SHC_PHILOX_W0; k1 += SHC_PHILOX_W1;
    SHC_PHILOX_ROUND(x, y, z, w, k0, k1);
    k0 += SHC_PHILOX_W0; k1 += SHC_PHILOX_W1;
    SHC_PHILOX_ROUND(x, y, z, w, k0, k1);
    k0 += SHC_PHILOX_W0; k1 += SHC_PHILOX_W1;
    SHC_PHILOX_ROUND(x, y, z, w, k0, k1);
    k0 += SHC_PHILOX_W0; k1 += SHC_PHILOX_W1;
    SHC_PHILOX_ROUND(x, y, z, w, k0, k1);
    out[0] = x; out[1] = y; out[2] = z; out[3] = w;
}

/* One Philox4x32 block: out = Philox_rounds(ctr, key). out may alias ctr. */
static inline SHC_ALWAYS_INLINE SHC_HD void shc_philox4x32_core(const uint32_t ctr[4], const uint32_t key[2],
                                              int rounds, uint32_t out[4])
{
    if (rounds == 10) { /* folds away when rounds is a constant */
        shc_philox4x32_10(ctr, key, out);
        return;
    }
    uint32_t x = ctr[0], y = ctr[1], z = ctr[2], w = ctr[3];
    uint32_t k0 = key[0], k1 = key[1];
    for (int r = 0; r < rounds; r++) {
        if (r) {
            k0 += SHC_PHILOX_W0;
            k1 += SHC_PHILOX_W1;
        }
        SHC_PHILOX_ROUND(x, y, z, w, k0, k1);
    }
    out[0] = x; out[1] = y; out[2] = z; out[3] = w;
}

#endif
