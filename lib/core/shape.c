/*
 * shape.c — tensor shapes: parse, count, format.
 *
 * numel is overflow-checked because every later offset (Philox windows,
 * byte counts) multiplies from it.  Tested by check_core.c.
 */
#include "config.h"
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shardcheck.h"
#include "checked_math.h"
#include "parse.h"

int shc_shape_parse(shc_shape *out, const char *s, shc_err *e)
{
    memset(out, 0, sizeof *out);
    int64_t *v = NULL, n = 0;
    int rc = shc_parse_i64_list(s, ',', &v, &n, "shape", e);
    if (rc)
        return rc;
    if (n > SHC_MAX_TENSOR_DIMS) {
        free(v);
        return shc_fail(e, SHC_EINVAL, "shape '%.64s': %lld dims, at most %d", s, (long long)n,
                        SHC_MAX_TENSOR_DIMS);
    }
    for (int64_t i = 0; i < n; i++) {
        if (v[i] < 0) {
            rc = shc_fail(e, SHC_EINVAL, "shape '%.64s': dim %lld has negative size %lld", s,
                          (long long)i, (long long)v[i]);
            free(v);
            return rc;
        }
        out->d[i] = v[i];
    }
    assert(n >= 0 && n <= SHC_MAX_TENSOR_DIMS);
    out->ndim = (int)n;
    free(v);
    int64_t numel;
    return shc_shape_numel(out, &numel, e);
}

int shc_shape_numel(const shc_shape *s, int64_t *numel, shc_err *e)
{
    assert(s->ndim >= 0 && s->ndim <= SHC_MAX_TENSOR_DIMS); /* the struct holds no more */
    int64_t n = 1;
    for (int i = 0; i < s->ndim; i++)
        if (!shc_mul64(n, s->d[i], &n)) {
            char buf[160];
            shc_shape_format(s, buf, sizeof buf);
            return shc_fail(e, SHC_EOVERFLOW, "shape %s: element count overflows int64", buf);
        }
    *numel = n;
    return SHC_OK;
}

void shc_shape_format(const shc_shape *s, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int i = 0; i < s->ndim && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, i ? ",%lld" : "%lld", (long long)s->d[i]);
}
