/*
 * waivers.c — see waivers.h.  A waiver names its cases by tcId or by flag; both are resolved
 * against the corpus at load time into (family, tcId) pairs, so a run asks one sorted table
 * and a waiver that names nothing real is refused before the first case.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "golden.h"
#include "family.h"
#include "run.h"
#include "waivers.h"

typedef struct wcase {
    const char *family; /* the registry's name (static) */
    long long tcid;
    int waiver;         /* its index in the file */
} wcase;

struct waivers {
    wcase *v;
    size_t n, cap;
    char **reasons;     /* per waiver: "reason (finding)" */
    bool *applies;      /* per waiver: to this run's backend and release */
    json_t *root;
    int nw;
};

static int cmp_case(const void *a, const void *b)
{
    const wcase *x = a, *y = b;
    int c = strcmp(x->family, y->family);
    return c ? c : x->tcid < y->tcid ? -1 : x->tcid > y->tcid;
}

static int add_case(waivers *w, const char *family, long long tc, int k, shc_err *e)
{
    if (w->n == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 64;
        wcase *v = realloc(w->v, cap * sizeof *v);
        if (!v)
            return shc_fail(e, SHC_ENOMEM, "out of memory reading waivers");
        w->v = v;
        w->cap = cap;
    }
    w->v[w->n++] = (wcase){family, tc, k};
    return SHC_OK;
}

/* Members a waiver may have: a misspelt one would silently widen or narrow it. */
static int check_members(const json_t *wv, const char *where, shc_err *e)
{
    static const char *const known[] = {"family", "tcIds", "flag", "reason", "finding",
                                        "backends", "torch", NULL};
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)wv, k, v) {
        const char *const *p = known;
        while (*p && strcmp(*p, k))
            p++;
        if (!*p)
            return shc_fail(e, SHC_EFORMAT, "%s: unknown member \"%.40s\" (family, tcIds or "
                            "flag, reason, finding, backends, torch)", where, k);
    }
    const char *reason = json_string_value(json_object_get(wv, "reason"));
    if (!reason || !*reason)
        return shc_fail(e, SHC_EFORMAT, "%s: no \"reason\": a waiver says why the deviation "
                        "is known", where);
    if (!json_object_get(wv, "tcIds") == !json_object_get(wv, "flag"))
        return shc_fail(e, SHC_EFORMAT, "%s: names its cases by \"tcIds\" or by \"flag\" "
                        "(one of them)", where);
    return SHC_OK;
}

/* Whether the waiver's "backends" and "torch" lists (absent: all) include this run. */
static int applies(const json_t *wv, const char *where, const char *backend,
                   shc_torch_release rel, bool *out, shc_err *e)
{
    bool be = !json_object_get(wv, "backends"), tv = !json_object_get(wv, "torch");
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(wv, "backends"), i, x) {
        const char *arg;
        if (!json_is_string(x) || !run_backend_find(json_string_value(x), &arg))
            return shc_fail(e, SHC_EFORMAT, "%s: backends[%zu] is not a backend (ref, local, "
                            "mpi, torch, cuda, plugin)", where, i);
        be |= !strcmp(run_backend_find(json_string_value(x), &arg)->name, backend);
    }
    json_array_foreach(json_object_get(wv, "torch"), i, x) {
        shc_torch_release r;
        if (!json_is_string(x) || shc_torch_release_parse(json_string_value(x), &r, e))
            return shc_err_prefix(e, "%s: torch[%zu]", where, i);
        tv |= r == rel;
    }
    *out = be && tv;
    return SHC_OK;
}

/* The waiver's cases, checked against the family's golden trees t. */
static int resolve(waivers *w, const json_t *wv, int k, const char *family, const shc_golden *t,
                   const char *where, shc_err *e)
{
    const char *flag = json_string_value(json_object_get(wv, "flag"));
    if (json_object_get(wv, "flag")) {
        if (!flag || !shc_golden_declares_flag(t, flag))
            return shc_fail(e, SHC_EFORMAT, "%s: flag \"%.40s\" is not one family %s "
                            "declares", where, flag ? flag : "?", family);
        for (int64_t i = 0; i < t->ntests; i++)
            if (shc_test_has_flag(t->tests[i], flag) &&
                add_case(w, family, t->tcids[i], k, e))
                return e->code;
        return SHC_OK;
    }
    const json_t *ids = json_object_get(wv, "tcIds");
    size_t i;
    json_t *x;
    if (!json_is_array(ids) || !json_array_size(ids))
        return shc_fail(e, SHC_EFORMAT, "%s: \"tcIds\" must be a non-empty array", where);
    json_array_foreach((json_t *)ids, i, x) {
        if (!json_is_integer(x) || shc_golden_index(t, json_integer_value(x)) < 0)
            return shc_fail(e, SHC_EFORMAT, "%s: tcIds[%zu] is not a tcId of family %s", where,
                            i, family);
        if (add_case(w, family, json_integer_value(x), k, e))
            return e->code;
    }
    return SHC_OK;
}

/* The same case waived twice for one run (both waivers apply to its backend and release)
 * is a mistake in the file: which reason would the report give? */
static int no_duplicates(const waivers *w, const char *path, shc_err *e)
{
    for (size_t i = 1; i < w->n; i++) {
        const wcase *a = &w->v[i - 1], *b = &w->v[i];
        if (!cmp_case(a, b))
            return shc_fail(e, SHC_EFORMAT, "%s: waivers[%d] and waivers[%d] both waive %s "
                            "tcId %lld", path, a->waiver < b->waiver ? a->waiver : b->waiver,
                            a->waiver < b->waiver ? b->waiver : a->waiver, a->family, a->tcid);
    }
    return SHC_OK;
}

static int load_one(waivers *w, const json_t *wv, int k, const char *path, const char *golden,
                    const char *backend, shc_torch_release rel, shc_err *e)
{
    char where[600];
    snprintf(where, sizeof where, "%s: waivers[%d]", path, k);
    const shc_family *f = shc_family_find(json_string_value(json_object_get(wv, "family")));
    if (!json_is_object(wv))
        return shc_fail(e, SHC_EFORMAT, "%s: not an object", where);
    int rc = check_members(wv, where, e);
    if (!rc && !f)
        rc = shc_fail(e, SHC_EFORMAT, "%s: \"family\" is not a family (shardcheck families)",
                      where);
    if (!rc)
        rc = applies(wv, where, backend, rel, &w->applies[k], e);
    const char *reason = json_string_value(json_object_get(wv, "reason"));
    const char *finding = json_string_value(json_object_get(wv, "finding"));
    size_t len = (reason ? strlen(reason) : 0) + (finding ? strlen(finding) : 0) + 4;
    if (!rc && !(w->reasons[k] = malloc(len)))
        rc = shc_fail(e, SHC_ENOMEM, "out of memory reading waivers");
    if (!rc)
        snprintf(w->reasons[k], len, finding ? "%s (%s)" : "%s", reason, finding);
    shc_golden t = {0};
    if (!rc)
        rc = shc_golden_load_family_at(&t, golden, f->name, rel, e);
    if (!rc)
        rc = resolve(w, wv, k, f->name, &t, where, e);
    shc_golden_free(&t);
    return rc;
}

int waivers_load(waivers **out, const char *path, const char *golden, const char *backend,
                 shc_torch_release rel, shc_err *e)
{
    waivers *w = calloc(1, sizeof *w);
    if (!w)
        return shc_fail(e, SHC_ENOMEM, "out of memory reading waivers");
    int rc = (w->root = shc_json_load_path(path, e)) ? SHC_OK : SHC_EFORMAT;
    const json_t *list = json_object_get(w->root, "waivers");
    if (!rc && (!json_is_object(w->root) || !json_is_array(list)))
        rc = shc_fail(e, SHC_EFORMAT, "%s: not a waiver file: {\"waivers\": [...]}", path);
    w->nw = rc ? 0 : (int)json_array_size(list);
    if (!rc && (!(w->reasons = calloc((size_t)w->nw + 1, sizeof *w->reasons)) ||
                !(w->applies = calloc((size_t)w->nw + 1, sizeof *w->applies))))
        rc = shc_fail(e, SHC_ENOMEM, "out of memory reading waivers");
    for (int k = 0; !rc && k < w->nw; k++)
        rc = load_one(w, json_array_get(list, (size_t)k), k, path, golden, backend, rel, e);
    size_t m = 0; /* keep the cases of the waivers that apply to this run */
    for (size_t i = 0; !rc && i < w->n; i++)
        if (w->applies[w->v[i].waiver])
            w->v[m++] = w->v[i];
    w->n = m;
    if (!rc)
        qsort(w->v, w->n, sizeof *w->v, cmp_case);
    if (!rc)
        rc = no_duplicates(w, path, e);
    if (rc) {
        waivers_free(w);
        return e->code ? e->code : rc;
    }
    *out = w;
    return SHC_OK;
}

const char *waivers_match(const waivers *w, const char *family, long long tcid)
{
    if (!w || !family)
        return NULL;
    wcase key = {family, tcid, 0};
    const wcase *hit = bsearch(&key, w->v, w->n, sizeof *w->v, cmp_case);
    return hit ? w->reasons[hit->waiver] : NULL;
}

long long waivers_count(const waivers *w)
{
    return w ? (long long)w->n : 0;
}

void waivers_free(waivers *w)
{
    if (!w)
        return;
    for (int k = 0; w->reasons && k < w->nw; k++)
        free(w->reasons[k]);
    free(w->reasons);
    free(w->applies);
    free(w->v);
    json_decref(w->root);
    free(w);
}
