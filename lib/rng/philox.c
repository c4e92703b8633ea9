/*
 * philox.c — Philox4x32 blocks and fills over counter ranges, with a portable
 * scalar path and AVX2 / AVX-512 paths chosen at run time.
 *
 * A fill walks n counters that advance either as one 128-bit stream (word 0
 * lowest) or as consecutive subsequences (words 2..3, the layout cuRAND's
 * curand_init puts the subsequence in).  It is cut into runs in which only the
 * lowest moving word changes and does not wrap; SIMD kernels compute a run,
 * and the carry between runs is done here, once, in scalar code.  So every
 * path gives the same bits by construction of the runs, and check_rng.c
 * proves it on runs that straddle each 32-bit carry.
 *
 * Tested by conformance/tests/check_rng.c (Random123 and libcurand as oracles).
 */
#include "config.h"
#include <assert.h>
#include "shardcheck.h"
#include "philox.h"

void shc_philox4x32(const uint32_t ctr[4], const uint32_t key[2], int rounds, uint32_t out[4])
{
    shc_philox4x32_core(ctr, key, rounds, out);
}

static bool cpu_has(shc_philox_path p)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (p == SHC_PHILOX_AVX2)
        return __builtin_cpu_supports("avx2");
    if (p == SHC_PHILOX_AVX512)
        return __builtin_cpu_supports("avx512f");
#endif
    (void)p;
    return false;
}

bool shc_philox_path_available(shc_philox_path p)
{
    switch (p) {
    case SHC_PHILOX_AUTO:
    case SHC_PHILOX_SCALAR: return true;
#ifdef HAVE_AVX2_FLAG
    case SHC_PHILOX_AVX2: return cpu_has(p);
#endif
#ifdef HAVE_AVX512_FLAG
    case SHC_PHILOX_AVX512: return cpu_has(p);
#endif
    default: return false;
    }
}

shc_philox_path shc_philox_best_path(void)
{
    if (shc_philox_path_available(SHC_PHILOX_AVX512))
        return SHC_PHILOX_AVX512;
    if (shc_philox_path_available(SHC_PHILOX_AVX2))
        return SHC_PHILOX_AVX2;
    return SHC_PHILOX_SCALAR;
}

const char *shc_philox_path_name(shc_philox_path p)
{
    switch (p) {
    case SHC_PHILOX_AUTO: return "auto";
    case SHC_PHILOX_SCALAR: return "scalar";
    case SHC_PHILOX_AVX2: return "avx2";
    case SHC_PHILOX_AVX512: return "avx512";
    }
    return "?";
}

/* The scalar kernel's loop, one instance per (moving word, layout) so the
 * counter stays in registers and no branch is left inside the loop.  Key and
 * base counter are copied to locals: `out` may alias them as far as the
 * compiler knows, which would reload them after every store. */
#define SCALAR_LOOP(WORD, SOA, BLOCK)                                            \
    do {                                                                        \
        uint32_t c[4] = {ctr0[0], ctr0[1], ctr0[2], ctr0[3]}, r[4];             \
        const uint32_t base_ = ctr0[WORD], k_[2] = {key[0], key[1]};            \
        (void)k_;                                                               \
        for (int64_t j = 0; j < n; j++) {                                       \
            c[WORD] = base_ + (uint32_t)j;                                      \
            BLOCK;                                                              \
            if (SOA) {                                                          \
                out[j] = r[0];                                                  \
                out[stride + j] = r[1];                                         \
                out[2 * stride + j] = r[2];                                     \
                out[3 * stride + j] = r[3];                                     \
            } else {                                                            \
                out[4 * j] = r[0];                                              \
                out[4 * j + 1] = r[1];                                          \
                out[4 * j + 2] = r[2];                                          \
                out[4 * j + 3] = r[3];                                          \
            }                                                                   \
        }                                                                       \
    } while (0)

#define SCALAR_LAYOUTS(BLOCK)                                                   \
    do {                                                                        \
        if (word == 0 && !soa)                                                  \
            SCALAR_LOOP(0, 0, BLOCK);                                           \
        else if (word == 0)                                                     \
            SCALAR_LOOP(0, 1, BLOCK);                                           \
        else if (!soa)                                                          \
            SCALAR_LOOP(2, 0, BLOCK);                                           \
        else                                                                    \
            SCALAR_LOOP(2, 1, BLOCK);                                           \
    } while (0)

/* Philox4x32-10 with the key schedule computed once per fill (as the
 * compiler arranges Random123's philox4x32_R(10) when the key is loop
 * invariant): each round reads its key instead of adding to a carried one. */
static inline SHC_ALWAYS_INLINE void philox10_sched(const uint32_t c[4], const uint32_t ks[20], uint32_t r[4])
{
    uint32_t x = c[0], y = c[1], z = c[2], w = c[3];
#define R_(i) SHC_PHILOX_ROUND(x, y, z, w, ks[2 * (i)], ks[2 * (i) + 1])
    R_(0); R_(1); R_(2); R_(3); R_(4); R_(5); R_(6); R_(7); R_(8); R_(9);
#undef R_
    r[0] = x; r[1] = y; r[2] = z; r[3] = w;
}

/* The scalar kernel, same contract as the SIMD ones. */
static void kernel_scalar(const uint32_t key[2], const uint32_t ctr0[4], int word, int rounds,
                          int64_t n, uint32_t *out, int soa, int64_t stride)
{
    if (rounds == 10) { /* the rounds every caller uses: written out */
        uint32_t ks[20];
        for (int i = 0; i < 10; i++) {
            ks[2 * i] = key[0] + (uint32_t)i * SHC_PHILOX_W0;
            ks[2 * i + 1] = key[1] + (uint32_t)i * SHC_PHILOX_W1;
        }
        SCALAR_LAYOUTS(philox10_sched(c, ks, r));
    } else {
        SCALAR_LAYOUTS(shc_philox4x32_core(c, k_, rounds, r));
    }
}

static shc_philox_kernel kernel_for(shc_philox_path p)
{
    switch (p) {
#ifdef HAVE_AVX2_FLAG
    case SHC_PHILOX_AVX2: return shc_philox_kernel_avx2;
#endif
#ifdef HAVE_AVX512_FLAG
    case SHC_PHILOX_AVX512: return shc_philox_kernel_avx512;
#endif
    default: return kernel_scalar;
    }
}

/* Advance the counter by `n` blocks the way the step says (n < 2^32). */
static void advance(uint32_t c[4], shc_philox_step step, uint64_t n)
{
    assert(n <= (uint64_t)1 << 32); /* one run: at most until the moving word wraps */
    if (step == SHC_PHILOX_STEP_SUBSEQ) {
        uint64_t hi = ((uint64_t)c[3] << 32 | c[2]) + n;
        c[2] = (uint32_t)hi;
        c[3] = (uint32_t)(hi >> 32);
        return;
    }
    uint64_t lo = ((uint64_t)c[1] << 32 | c[0]);
    uint64_t nlo = lo + n;
    c[0] = (uint32_t)nlo;
    c[1] = (uint32_t)(nlo >> 32);
    if (nlo < lo && ++c[2] == 0)
        ++c[3];
}

int shc_philox_fill(shc_philox_path path, const uint32_t key[2], const uint32_t ctr0[4],
                    shc_philox_step step, int rounds, int64_t n, uint32_t *out, bool soa,
                    shc_err *e)
{
    if (rounds < 1 || rounds > 16)
        return shc_fail(e, SHC_EINVAL, "philox: rounds %d is outside 1..16", rounds);
    if (n < 0)
        return shc_fail(e, SHC_EINVAL, "philox: block count %lld is negative", (long long)n);
    if (path == SHC_PHILOX_AUTO)
        path = shc_philox_best_path();
    if (!shc_philox_path_available(path))
        return shc_fail(e, SHC_EUNSUPPORTED, "philox: path %s is not available on this CPU/build",
                        shc_philox_path_name(path));
    shc_philox_kernel k = kernel_for(path);
    assert(k);
    int word = step == SHC_PHILOX_STEP_SUBSEQ ? 2 : 0;
    uint32_t c[4] = {ctr0[0], ctr0[1], ctr0[2], ctr0[3]};
    int64_t done = 0;
    while (done < n) {
        /* blocks until the moving word wraps: 2^32 - c[word] */
        uint64_t room = (uint64_t)1 << 32;
        room -= c[word];
        int64_t run = n - done;
        if ((uint64_t)run > room)
            run = (int64_t)room;
        assert(run >= 1 && done + run <= n); /* room >= 1: the loop always progresses */
        uint32_t *dst = soa ? out + done : out + 4 * done;
        k(key, c, word, rounds, run, dst, soa, n);
        advance(c, step, (uint64_t)run);
        done += run;
    }
    return SHC_OK;
}

void shc_torch_rand_f32(const uint32_t *w, int64_t n, float *out)
{
    shc_philox_path p = shc_philox_best_path();
#ifdef HAVE_AVX512_FLAG
    if (p == SHC_PHILOX_AVX512) {
        shc_torch_rand_f32_avx512(w, n, out);
        return;
    }
#endif
#ifdef HAVE_AVX2_FLAG
    if (p == SHC_PHILOX_AVX2) {
        shc_torch_rand_f32_avx2(w, n, out);
        return;
    }
#endif
    (void)p;
    for (int64_t i = 0; i < n; i++) {
        float v = (float)w[i] * 0x1p-32f + 0x1p-33f;
        out[i] = v == 1.0f ? 0.0f : v;
    }
}
