/*
 * philox.h — internal interface between philox.c (dispatch, scalar path)
 * and philox_simd.c (AVX2 / AVX-512 kernels, compiled with per-file flags).
 * The public API is in shardcheck.h (section rng-engines).
 *
 * A SIMD kernel computes `n` blocks whose counters differ only in one 32-bit
 * word (word 0 for a stream, word 2 for consecutive subsequences) and never
 * wrap inside the call; philox.c splits a fill into such runs and does the
 * carries itself, so the kernels stay branch-free.
 *
 * Tested by conformance/tests/check_rng.c (every path against the scalar one,
 * including runs that straddle each 32-bit carry).
 */
#ifndef SHC_PHILOX_H
#define SHC_PHILOX_H

#include <stdint.h>
#include <stddef.h>
#include "philox_core.h"

/* Kernel signature: blocks with ctr[lane] = ctr0 + j in word `word` (0 or 2),
 * j = 0..n-1, no wrap of that word.  layout 0 = AoS (4 words per block),
 * 1 = SoA (row w of n words at out + w*stride).  */
typedef void (*shc_philox_kernel)(const uint32_t key[2], const uint32_t ctr0[4], int word,
                                  int rounds, int64_t n, uint32_t *out, int soa,
                                  int64_t stride);

#ifdef HAVE_AVX2_FLAG
void shc_philox_kernel_avx2(const uint32_t key[2], const uint32_t ctr0[4], int word, int rounds,
                            int64_t n, uint32_t *out, int soa, int64_t stride);
#endif
#ifdef HAVE_AVX512_FLAG
void shc_philox_kernel_avx512(const uint32_t key[2], const uint32_t ctr0[4], int word, int rounds,
                              int64_t n, uint32_t *out, int soa, int64_t stride);
#endif

/* torch.rand's float32 values from n raw words (u01, then 1.0 -> 0.0), fastest path. */
void shc_torch_rand_f32(const uint32_t *w, int64_t n, float *out);
#ifdef HAVE_AVX2_FLAG
void shc_torch_rand_f32_avx2(const uint32_t *w, int64_t n, float *out);
#endif
#ifdef HAVE_AVX512_FLAG
void shc_torch_rand_f32_avx512(const uint32_t *w, int64_t n, float *out);
#endif

#endif
