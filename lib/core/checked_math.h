/*
 * checked_math.h — overflow-checked int64 arithmetic.
 *
 * Every shape, offset and counter computation in libshardcheck goes through
 * these helpers so that an overflowing input becomes SHC_EOVERFLOW with a
 * message, never a wrapped value.  They are inline because they sit on hot
 * paths (layout of 65,536 ranks, Philox counters).
 */
#ifndef SHC_CHECKED_MATH_H
#define SHC_CHECKED_MATH_H

#include <stdint.h>
#include <stdbool.h>
#include "shardcheck.h"

/* *r = a + b; false on overflow. */
static inline bool shc_add64(int64_t a, int64_t b, int64_t *r) { return !__builtin_add_overflow(a, b, r); }
/* *r = a * b; false on overflow. */
static inline bool shc_mul64(int64_t a, int64_t b, int64_t *r) { return !__builtin_mul_overflow(a, b, r); }
/* *r = a - b; false on overflow. */
static inline bool shc_sub64(int64_t a, int64_t b, int64_t *r) { return !__builtin_sub_overflow(a, b, r); }

/* ceil(a / b) for a >= 0, b > 0 without overflow. */
static inline int64_t shc_ceildiv64(int64_t a, int64_t b) { return a / b + (a % b != 0); }

/* Round a >= 0 up to a multiple of m > 0; false on overflow. */
static inline bool shc_roundup64(int64_t a, int64_t m, int64_t *r)
{
    int64_t q = shc_ceildiv64(a, m);
    return shc_mul64(q, m, r);
}

/* a * b with an error naming what overflowed. */
static inline int shc_mul64_e(int64_t a, int64_t b, int64_t *r, const char *what, shc_err *e)
{
    if (!shc_mul64(a, b, r))
        return shc_fail(e, SHC_EOVERFLOW, "%s overflows int64 (%lld * %lld)", what,
                        (long long)a, (long long)b);
    return SHC_OK;
}

/* a + b with an error naming what overflowed. */
static inline int shc_add64_e(int64_t a, int64_t b, int64_t *r, const char *what, shc_err *e)
{
    if (!shc_add64(a, b, r))
        return shc_fail(e, SHC_EOVERFLOW, "%s overflows int64 (%lld + %lld)", what,
                        (long long)a, (long long)b);
    return SHC_OK;
}

#endif
