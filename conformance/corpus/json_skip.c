/*
 * json_skip.c — shc_skip_container (json_skip.h): a container's end found by brackets
 * outside strings, whole 64-byte blocks at a time where no backslash stands in the way,
 * byte by byte elsewhere.
 *
 * A block is read as four bit masks (json_skip.h); the bytes inside strings are the prefix
 * XOR of its quotes.  Only where the block's closing brackets could bring the depth to 0
 * are they looked at one by one: the depth after the k-th close at bit b is the depth
 * before the block, plus the opening brackets below b, minus k.  The masks are made by
 * AVX2 where the CPU has it (picked at the first call; x86-64 built by GCC), with
 * the prefix XOR by a carry-less multiply, else by SSE2 (x86-64's baseline), elsewhere by a
 * byte loop.  An AVX-512BW variant (one compare into a mask register per class) was slower than
 * AVX2 on the AMD EPYC this was measured on (2.7 against 3.7 GB/s skipping every golden
 * test's expected of shard-layout), so there is none.  Every variant is the same loop over
 * the same masks, so they agree by construction; check_golden_trust runs the one this CPU
 * picks, and each variant it can run, against jansson's own text on random documents.
 */
#include "config.h"
#include <stdbool.h>
#include "json_skip.h"
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

/* The block helpers are inlined into their loops (each is a few instructions a block). */
#if defined(__GNUC__)
#define SHC_SKIP_INLINE static inline __attribute__((always_inline))
#else
#define SHC_SKIP_INLINE static inline
#endif

/* A 64-byte block's bytes that are '"' (here already their prefix XOR: which bytes lie in a
 * string), '\\', an opening or a closing bracket: bit k for byte k. */
typedef struct shc_jmasks { uint64_t quote, bslash, open, close; } shc_jmasks;

/* Byte by byte from p (in a string or not, an escape pending or not) to lim: one past the
 * bracket that brings *depth to 0, else lim. */
static const char *skip_bytes(const char *p, const char *lim, int *depth, bool *in_str,
                              bool *esc)
{
    for (; p < lim; p++) {
        char c = *p;
        if (*in_str) {
            if (*esc)
                *esc = false;
            else if (c == '\\')
                *esc = true;
            else if (c == '"')
                *in_str = false;
        } else if (c == '"') {
            *in_str = true;
        } else if (c == '[' || c == '{') {
            ++*depth;
        } else if ((c == ']' || c == '}') && --*depth == 0) {
            return p + 1;
        }
    }
    return lim;
}

/* Bit k: the XOR of bits 0..k of x, by shifts (any CPU). */
SHC_SKIP_INLINE uint64_t prefix_xor_shift(uint64_t x)
{
    for (int s = 1; s < 64; s *= 2)
        x ^= x << s;
    return x;
}

/* The masks of the 64 bytes at p with what every CPU of the target has: SSE2 on x86-64, a
 * byte loop elsewhere.  '[' and '{' differ only in bit 0x20, as do ']' and '}', and no other
 * byte ORed with 0x20 gives '{' or '}': one compare each for opening and closing brackets. */
SHC_SKIP_INLINE shc_jmasks masks_base(const char *p)
{
    shc_jmasks m = {0};
#if defined(__SSE2__)
    const __m128i q = _mm_set1_epi8('"'), b = _mm_set1_epi8('\\'), lo = _mm_set1_epi8(0x20),
                  o = _mm_set1_epi8('{'), c = _mm_set1_epi8('}');
    for (int k = 0; k < 4; k++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k));
        __m128i f = _mm_or_si128(v, lo);
        int s = 16 * k;
        m.quote |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, q)) << s;
        m.bslash |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, b)) << s;
        m.open |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(f, o)) << s;
        m.close |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(f, c)) << s;
    }
#else
    for (int k = 0; k < 64; k++) {
        unsigned char f = (unsigned char)p[k] | 0x20;
        m.quote |= (uint64_t)(p[k] == '"') << k;
        m.bslash |= (uint64_t)(p[k] == '\\') << k;
        m.open |= (uint64_t)(f == '{') << k;
        m.close |= (uint64_t)(f == '}') << k;
    }
#endif
    m.quote = prefix_xor_shift(m.quote);
    return m;
}

/* One past the bracket where a block's closes first bring depth to 0, or NULL when none
 * does.  open and close are the block's brackets outside strings. */
SHC_SKIP_INLINE const char *first_zero(const char *p, int depth, uint64_t open, uint64_t close)
{
    for (int k = 1; close; close &= close - 1, k++) {
        int b = __builtin_ctzll(close);
        if (depth + __builtin_popcountll(open & (~(uint64_t)0 >> (63 - b))) - k == 0)
            return p + b + 1;
    }
    return NULL;
}

/* The loop every variant runs: MASKS is inlined into it, so each is one function.  The
 * masks' quote field is already the prefix XOR of the quotes (the bytes in a string, the
 * opening quote counted in and the closing one out, for a block entered outside one). */
#define SKIP_LOOP(MASKS)                                                                      \
    int depth = s->depth;                                                                     \
    bool in_str = s->in_str, esc = s->esc;                                                    \
    while (p < end) {                                                                         \
        if (end - p >= 64 && !esc) {                                                          \
            shc_jmasks m = MASKS(p);                                                          \
            if (!m.bslash) {                                                                  \
                uint64_t inside = m.quote ^ (in_str ? ~(uint64_t)0 : 0);                      \
                uint64_t open = m.open & ~inside, close = m.close & ~inside;                  \
                int nclose = __builtin_popcountll(close);                                     \
                const char *q = depth - nclose <= 0 ? first_zero(p, depth, open, close) : NULL; \
                if (q)                                                                        \
                    return q;                                                                 \
                depth += __builtin_popcountll(open) - nclose;                                 \
                in_str = inside >> 63;                                                        \
                p += 64;                                                                      \
                continue;                                                                     \
            }                                                                                 \
        }                                                                                     \
        const char *lim = end - p >= 64 ? p + 64 : end;                                       \
        const char *q = skip_bytes(p, lim, &depth, &in_str, &esc);                            \
        if (depth == 0 && q > p)                                                              \
            return q;                                                                         \
        p = q;                                                                                \
    }                                                                                         \
    *s = (shc_skip){depth, in_str, esc};                                                      \
    return NULL

static const char *skip_portable(shc_skip *s, const char *p, const char *end)
{
    SKIP_LOOP(masks_base);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SHC_SKIP_X86 1
#define TGT(t) static inline __attribute__((always_inline, target(t)))

TGT("pclmul") uint64_t prefix_xor_clmul(uint64_t x)
{
    __m128i r = _mm_clmulepi64_si128(_mm_set_epi64x(0, (long long)x), _mm_set1_epi8(-1), 0);
    return (uint64_t)_mm_cvtsi128_si64(r);
}

TGT("avx2,pclmul,popcnt") shc_jmasks masks_avx2(const char *p)
{
    shc_jmasks m = {0};
    const __m256i q = _mm256_set1_epi8('"'), b = _mm256_set1_epi8('\\'),
                  lo = _mm256_set1_epi8(0x20), o = _mm256_set1_epi8('{'), c = _mm256_set1_epi8('}');
    for (int k = 0; k < 2; k++) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32 * k));
        __m256i f = _mm256_or_si256(v, lo);
        int s = 32 * k;
        m.quote |= (uint64_t)(unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, q)) << s;
        m.bslash |= (uint64_t)(unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, b)) << s;
        m.open |= (uint64_t)(unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(f, o)) << s;
        m.close |= (uint64_t)(unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(f, c)) << s;
    }
    m.quote = prefix_xor_clmul(m.quote);
    return m;
}

/* The base masks, the counts by the POPCNT instruction (x86-64's baseline has none: each
 * count would be a libgcc call). */
__attribute__((target("popcnt"))) static const char *skip_popcnt(shc_skip *s, const char *p,
                                                                   const char *end)
{
    SKIP_LOOP(masks_base);
}

__attribute__((target("avx2,pclmul,popcnt"))) static const char *skip_avx2(shc_skip *s,
                                                                           const char *p,
                                                                           const char *end)
{
    SKIP_LOOP(masks_avx2);
}

static const shc_skip_fn variants[] = {
    [SHC_SKIP_PORTABLE] = skip_portable, [SHC_SKIP_POPCNT] = skip_popcnt,
    [SHC_SKIP_AVX2] = skip_avx2};

static bool cpu_runs(shc_skip_variant v)
{
    __builtin_cpu_init();
    switch (v) {
    case SHC_SKIP_PORTABLE: return true;
    case SHC_SKIP_POPCNT: return __builtin_cpu_supports("popcnt");
    case SHC_SKIP_AVX2:
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("pclmul") &&
               __builtin_cpu_supports("popcnt");
    }
    return false;
}

/* The widest variant this CPU runs. */
static shc_skip_fn pick(void)
{
    for (int v = SHC_SKIP_AVX2; v > SHC_SKIP_PORTABLE; v--)
        if (cpu_runs((shc_skip_variant)v))
            return variants[v];
    return skip_portable;
}

/* Picked at the first call and kept (a relaxed atomic: every thread would pick the same).
 * Not an ifunc: a resolver runs while the dynamic linker relocates, before a sanitizer's
 * runtime is up, and crashed the ASan+UBSan build. */
const char *shc_skip_on(shc_skip *s, const char *p, const char *end)
{
    static shc_skip_fn chosen;
    shc_skip_fn f = __atomic_load_n(&chosen, __ATOMIC_RELAXED);
    if (!f)
        __atomic_store_n(&chosen, f = pick(), __ATOMIC_RELAXED);
    return f(s, p, end);
}
#else
const char *shc_skip_on(shc_skip *s, const char *p, const char *end)
{
    return skip_portable(s, p, end);
}
#endif

const char *shc_skip_container(const char *p, const char *end)
{
    shc_skip s = {0, false, false};
    return shc_skip_on(&s, p, end);
}

shc_skip_fn shc_skip_variant_fn(shc_skip_variant v)
{
#ifdef SHC_SKIP_X86
    if ((unsigned)v < sizeof variants / sizeof *variants && cpu_runs(v))
        return variants[v];
#endif
    return v == SHC_SKIP_PORTABLE ? skip_portable : NULL;
}
