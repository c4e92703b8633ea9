/*
 * rng_common.h — JSON helpers shared by the random-engine families
 * (philox-kat, curand-stream, torch-cuda-rng, threefry): 8-digit hex words,
 * decimal-string 64-bit integers, digests of little-endian buffers.
 */
#ifndef SHC_RNG_COMMON_H
#define SHC_RNG_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include "golden.h"

/* "6627e8d5" */
static inline json_t *shcr_hex32(uint32_t v)
{
    char b[9];
    snprintf(b, sizeof b, "%08x", v);
    return json_string(b);
}

/* 16-digit hex for 64-bit patterns (double bits). */
static inline json_t *shcr_hex64(uint64_t v)
{
    char b[17];
    snprintf(b, sizeof b, "%016llx", (unsigned long long)v);
    return json_string(b);
}

static inline json_t *shcr_hex_array(const uint32_t *w, int64_t n)
{
    json_t *a = json_array();
    for (int64_t i = 0; i < n; i++)
        json_array_append_new(a, shcr_hex32(w[i]));
    return a;
}

/* Decimal string as uint64 ("18446744073709551615" allowed). */
static inline int shcr_u64(const json_t *o, const char *key, uint64_t *out, shc_err *e)
{
    const char *s = json_string_value(json_object_get(o, key));
    char *end;
    errno = 0;
    if (!s || !*s || *s == '-')
        return shc_fail(e, SHC_EFORMAT, "field '%s' is not a decimal string", key);
    *out = strtoull(s, &end, 10);
    if (errno || *end)
        return shc_fail(e, SHC_EFORMAT, "field '%s' = '%s' is not a uint64", key, s);
    return SHC_OK;
}

static inline int shcr_i64(const json_t *o, const char *key, int64_t *out, shc_err *e)
{
    const char *s = json_string_value(json_object_get(o, key));
    char *end;
    errno = 0;
    if (!s || !*s)
        return shc_fail(e, SHC_EFORMAT, "field '%s' is not a decimal string", key);
    *out = strtoll(s, &end, 10);
    if (errno || *end)
        return shc_fail(e, SHC_EFORMAT, "field '%s' = '%s' is not an int64", key, s);
    return SHC_OK;
}

static inline json_t *shcr_u64s(uint64_t v)
{
    char b[24];
    snprintf(b, sizeof b, "%llu", (unsigned long long)v);
    return json_string(b);
}

/* n hex words from a JSON array field. */
static inline int shcr_words(const json_t *o, const char *key, uint32_t *w, size_t n, shc_err *e)
{
    const json_t *a = json_object_get(o, key);
    if (!json_is_array(a) || json_array_size(a) != n)
        return shc_fail(e, SHC_EFORMAT, "field '%s' must be an array of %zu hex words", key, n);
    for (size_t i = 0; i < n; i++) {
        const char *s = json_string_value(json_array_get(a, i));
        char *end;
        if (!s || strlen(s) != 8)
            return shc_fail(e, SHC_EFORMAT, "field '%s'[%zu] is not 8 hex digits", key, i);
        w[i] = (uint32_t)strtoul(s, &end, 16);
        if (*end)
            return shc_fail(e, SHC_EFORMAT, "field '%s'[%zu] is not hex", key, i);
    }
    return SHC_OK;
}

static inline json_t *shcr_sha256(const void *p, size_t n)
{
    char h[65];
    shc_sha256_hex(p, n, h);
    return json_string(h);
}

/* Compute a test's expected value from its inputs with the family's compute
 * function and add the test to the writer (steals t): the one generation
 * path of the random-engine families, so gen and run share the computation. */
static inline int shcr_add_test(shc_gw *w, const json_t *group, json_t *t,
                                int (*compute)(const json_t *, const json_t *, json_t **, shc_err *),
                                shc_err *e)
{
    json_t *ex = NULL;
    int rc = compute(group, t, &ex, e);
    if (rc) {
        json_decref(t);
        return rc;
    }
    json_object_set_new(t, "expected", ex);
    return shc_gw_test(w, t, e);
}

#endif
