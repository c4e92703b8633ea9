/*
 * json_skip.h — JSON skipped by its structure alone, 64 bytes at a time: which bytes of a
 * block are quotes, backslashes and brackets (SSE2 where the compiler has it, a byte loop
 * elsewhere), which lie inside strings, and where a container closes.  Nothing is
 * validated: the callers skip bytes that are known to be JSON (a golden file whose sha256
 * this build's tests checked, json_trust.c) or that only need their top level found
 * (tools/common/torch_version.c).  Tested by check_golden_bytes (shc_skip_container
 * against the validating scanner on random documents) and check_torch_version.
 */
#ifndef SHC_JSON_SKIP_H
#define SHC_JSON_SKIP_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* The block helpers are inlined into their loops (each is a few instructions a block). */
#if defined(__GNUC__)
#define SHC_SKIP_INLINE static inline __attribute__((always_inline))
#else
#define SHC_SKIP_INLINE static inline
#endif

/* Bit k of each mask: byte k of a 64-byte block is '"', '\\', an opening or a closing
 * bracket.  '[' and '{' differ only in bit 0x20, as do ']' and '}', and no other byte ORed
 * with 0x20 gives '{' or '}'. */
typedef struct shc_jmasks { uint64_t quote, bslash, open, close; } shc_jmasks;

SHC_SKIP_INLINE shc_jmasks shc_jmasks_of(const char *p)
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
    return m;
}

/* Bit k: the XOR of bits 0..k of x.  Of a block's quote mask (no backslash in it): the
 * bytes inside a string, its opening quote counted in and its closing one out. */
SHC_SKIP_INLINE uint64_t shc_prefix_xor(uint64_t x)
{
    for (int s = 1; s < 64; s *= 2)
        x ^= x << s;
    return x;
}

/* The brackets' counts use popcount: a clone for CPUs with the POPCNT instruction, picked
 * at load time (GCC's ifunc clones, as lib/rng/cuda_libdevice.c's FMA), since x86-64's
 * baseline has none and each count would be a libgcc call. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__gnu_linux__) && \
    defined(__has_attribute)
#if __has_attribute(target_clones)
#define SHC_POPCNT_CLONES __attribute__((target_clones("popcnt", "default")))
#endif
#endif
#ifndef SHC_POPCNT_CLONES
#define SHC_POPCNT_CLONES
#endif

/* One past the bracket that closes the container opening at p ('[' or '{'), or NULL when
 * it does not close before end.  The bytes are taken to be JSON (see above). */
const char *shc_skip_container(const char *p, const char *end);
#endif
