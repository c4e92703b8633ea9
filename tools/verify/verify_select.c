/*
 * verify_select.c — which golden cases a verify run checks (issue 22 item 1): `--tcid N,M`,
 * `--flag F` (the family's tests carrying flag F) and `--answered` (only the tests the
 * candidate answers: a port of part of a family checks that part without a line per
 * missing case).  Applied as the reporter's filter (report_opts.keep), so the engine and
 * its two candidate sources compare as always and a dropped case is neither printed nor
 * counted.  Bad selections are exit 2 naming what and where: a tcId the family lacks, a
 * flag it does not declare.  Tested by verify_select.sh.
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "golden.h"
#include "report.h"
#include "verify.h"

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static int add_tcid(verify_select *s, int64_t tc, shc_err *e)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        int64_t *v = realloc(s->tcids, cap * sizeof *v);
        if (!v)
            return shc_fail(e, SHC_ENOMEM, "out of memory selecting tests");
        s->tcids = v;
        s->cap = cap;
    }
    s->tcids[s->n++] = tc;
    return SHC_OK;
}

/* "--tcid 3,17": each a tcId of the family. */
static int parse_tcids(verify_select *s, const shc_golden *g, const char *list, shc_err *e)
{
    const char *p = list;
    do {
        char *end;
        errno = 0;
        long long v = strtoll(p, &end, 10);
        if (end == p || (*end && *end != ',') || errno || v < 0)
            return shc_fail(e, SHC_EINVAL, "--tcid: '%.40s' is not a list of tcIds (N or N,M,...)",
                            list);
        if (shc_golden_index(g, v) < 0)
            return shc_fail(e, SHC_EINVAL, "--tcid %lld: not a tcId of family %s", v, g->family);
        int rc = add_tcid(s, v, e);
        if (rc)
            return rc;
        p = *end ? end + 1 : end;
    } while (*p);
    return SHC_OK;
}

/* "--flag F": the tests carrying F, intersected with --tcid's when both are given. */
static int select_flag(verify_select *s, const char *dir, const char *family,
                       shc_torch_release rel, const char *flag, shc_err *e)
{
    shc_golden t = {0};
    int rc = shc_golden_load_family_at(&t, dir, family, rel, e);
    if (!rc && !shc_golden_declares_flag(&t, flag))
        rc = shc_fail(e, SHC_EINVAL, "--flag %.64s: family %s declares no such flag (its "
                      "flags: docs/families/%s.md)", flag, family, family);
    verify_select by_flag = {0};
    for (int64_t i = 0; !rc && i < t.ntests; i++)
        if (shc_test_has_flag(t.tests[i], flag) && (!s->n || verify_select_has(s, t.tcids[i])))
            rc = add_tcid(&by_flag, t.tcids[i], e);
    shc_golden_free(&t);
    free(s->tcids);
    s->tcids = by_flag.tcids;
    s->n = by_flag.n;
    s->cap = by_flag.cap;
    return rc;
}

int verify_select_build(verify_select *s, const shc_golden *g, const char *dir,
                        shc_torch_release rel, const char *tcids, const char *flag,
                        bool answered, shc_err *e)
{
    memset(s, 0, sizeof *s);
    s->answered = answered;
    s->some = tcids || flag;
    int rc = tcids ? parse_tcids(s, g, tcids, e) : SHC_OK;
    if (!rc && s->n)
        qsort(s->tcids, s->n, sizeof *s->tcids, cmp_i64);
    if (!rc && flag)
        rc = select_flag(s, dir, g->family, rel, flag, e);
    if (!rc && s->some && !s->n) /* not a run that checked nothing and passed */
        rc = shc_fail(e, SHC_EINVAL, "%s%s%s%s%s: no test of family %s is selected",
                      tcids ? "--tcid " : "", tcids ? tcids : "", tcids && flag ? " " : "",
                      flag ? "--flag " : "", flag ? flag : "", g->family);
    if (rc)
        verify_select_free(s);
    return rc;
}

bool verify_select_has(const verify_select *s, int64_t tcid)
{
    return bsearch(&tcid, s->tcids, s->n, sizeof *s->tcids, cmp_i64) != NULL;
}

bool verify_select_keep(void *ctx, long long tcid, report_status st, const char *detail)
{
    verify_select *s = ctx;
    if (s->some && (tcid < 0 || !verify_select_has(s, tcid)))
        return false;
    if (s->answered && st == ST_FAIL && detail && !strcmp(detail, "missing from the candidate")) {
        s->unanswered++;
        return false;
    }
    return true;
}

void verify_select_free(verify_select *s)
{
    free(s->tcids);
    memset(s, 0, sizeof *s);
}
