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
#else
#define SHC_HD
#endif

#define SHC_PHILOX_M0 0xD2511F53u
#define SHC_PHILOX_M1 0xCD9E8D57u
#define SHC_PHILOX_W0 0x9E3779B9u
#define SHC_PHILOX_W1 0xBB67AE85u

/* One Philox4x32 block: out = Philox_rounds(ctr, key). out may alias ctr. */
static inline SHC_HD void shc_philox4x32_core(const uint32_t ctr[4], const uint32_t key[2],
                                              int rounds, uint32_t out[4])
{
    uint32_t x = ctr[0], y = ctr[1], z = ctr[2], w = ctr[3];
    uint32_t k0 = key[0], k1 = key[1];
    for (int r = 0; r < rounds; r++) {
        if (r) {
            k0 += SHC_PHILOX_W0;
            k1 += SHC_PHILOX_W1;
        }
        uint64_t p0 = (uint64_t)SHC_PHILOX_M0 * x;
        uint64_t p1 = (uint64_t)SHC_PHILOX_M1 * z;
        uint32_t nx = (uint32_t)(p1 >> 32) ^ y ^ k0;
        uint32_t ny = (uint32_t)p1;
        uint32_t nz = (uint32_t)(p0 >> 32) ^ w ^ k1;
        uint32_t nw = (uint32_t)p0;
        x = nx; y = ny; z = nz; w = nw;
    }
    out[0] = x; out[1] = y; out[2] = z; out[3] = w;
}

#endif
