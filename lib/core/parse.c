/*
 * parse.c — strict integer-list parsing (see parse.h).
 *
 * Strict means: no trailing junk, no empty items, no overflow; each error
 * says which item of which field and shows the offending text.
 */
#include "config.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parse.h"
#include "checked_math.h"

int shc_parse_i64(const char **pp, int64_t *out, const char *what, shc_err *e)
{
    const char *p = *pp;
    while (*p == ' ')
        p++;
    bool neg = false;
    if (*p == '-' || *p == '+') {
        neg = (*p == '-');
        p++;
    }
    if (!isdigit((unsigned char)*p))
        return shc_fail(e, SHC_EINVAL, "%s: expected an integer at '%.32s'", what, *pp);
    int64_t v = 0;
    while (isdigit((unsigned char)*p)) {
        int d = *p - '0';
        if (!shc_mul64(v, 10, &v) || !shc_add64(v, neg ? -d : d, &v))
            return shc_fail(e, SHC_EOVERFLOW, "%s: integer '%.32s' overflows int64", what, *pp);
        p++;
    }
    while (*p == ' ')
        p++;
    *out = v;
    *pp = p;
    return SHC_OK;
}

int shc_parse_i64_list(const char *s, char sep, int64_t **out, int64_t *n,
                       const char *what, shc_err *e)
{
    *out = NULL;
    *n = 0;
    if (!s)
        return shc_fail(e, SHC_EINVAL, "%s: missing", what);
    const char *p = s;
    while (*p == ' ')
        p++;
    if (*p == '\0')
        return SHC_OK;
    int64_t cap = 1;
    for (const char *q = s; *q; q++)
        cap += (*q == sep);
    int64_t *v = malloc((size_t)cap * sizeof *v);
    if (!v)
        return shc_fail(e, SHC_ENOMEM, "%s: out of memory", what);
    int64_t k = 0;
    for (;;) {
        const char *at = p;
        int rc = shc_parse_i64(&p, &v[k], what, NULL);
        if (rc) { /* named only now: an snprintf per item cost more than the parse */
            char item[64];
            snprintf(item, sizeof item, "%s item %lld", what, (long long)k + 1);
            rc = shc_parse_i64(&at, &v[k], item, e);
            free(v);
            return rc;
        }
        k++;
        if (*p == '\0')
            break;
        if (*p != sep) {
            free(v);
            return shc_fail(e, SHC_EINVAL, "%s: unexpected '%c' in '%.64s'", what, *p, s);
        }
        p++;
    }
    *out = v;
    *n = k;
    return SHC_OK;
}
