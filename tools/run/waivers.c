/*
 * waivers.c — see waivers.h.  A waiver's scope (its tcIds, its flag, or with "match" alone
 * its whole family) is resolved against the corpus at load time into (family, tcId) pairs,
 * so a run asks one sorted table and a waiver that names nothing real is refused before the
 * first case.  Each family's corpus is read once, whatever the number of waivers naming it,
 * and through the index loader (golden_index.c: the bytes are scanned, no trees are built):
 * the flags a case carries are read from its bytes.  Tested by waivers.sh.
 */
#include "config.h"
#include <errno.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "golden.h"
#include "family.h"
#include "run.h"
#include "waivers.h"

typedef struct wcase {
    const char *family; /* the registry's name (static) */
    long long tcid;     /* WHOLE_FAMILY: a cause waiver naming neither tcIds nor flag */
    int waiver;         /* its index in the file */
} wcase;
#define WHOLE_FAMILY (-1LL)

typedef struct wentry {
    const char *family;   /* the registry's name */
    char *reason;         /* "reason (finding)" */
    bool applies;         /* to this run's backend and release */
    bool per_case;        /* every case it names deviates: one that passes is reported stale
                           * (tcIds, or a flag without "match") */
    bool has_re;          /* "match": only a failure whose outcome matches is waived */
    regex_t re;
    long long waived, passed; /* this run: failures it waived, cases in its scope that passed */
} wentry;

struct waivers {
    wcase *v;
    size_t n, cap;
    wentry *w;
    int nw;
    json_t *root;
    const char *path;
};

static int cmp_case(const void *a, const void *b)
{
    const wcase *x = a, *y = b;
    int c = strcmp(x->family, y->family);
    if (c)
        return c;
    if (x->tcid != y->tcid)
        return x->tcid < y->tcid ? -1 : 1;
    return (x->waiver > y->waiver) - (x->waiver < y->waiver);
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

/* ---- one waiver's members: names and types (before the corpus is read) ---- */

/* A misspelt member would silently widen or narrow the waiver. */
static int check_names(const json_t *wv, const char *where, shc_err *e)
{
    static const char *const known[] = {"family", "tcIds", "flag", "match", "reason", "finding",
                                        "backends", "torch", NULL};
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)wv, k, v) {
        const char *const *p = known;
        while (*p && strcmp(*p, k))
            p++;
        if (!*p)
            return shc_fail(e, SHC_EFORMAT, "%s: unknown member \"%.40s\" (family, tcIds or "
                            "flag, match, reason, finding, backends, torch)", where, k);
    }
    return SHC_OK;
}

/* A member that must be a non-empty string when present (required: when absent too). */
static int want_string(const json_t *wv, const char *name, bool required, const char *why,
                       const char *where, shc_err *e)
{
    const json_t *v = json_object_get(wv, name);
    if (!v && !required)
        return SHC_OK;
    if (!v)
        return shc_fail(e, SHC_EFORMAT, "%s: no \"%s\": a non-empty string%s", where, name, why);
    if (!json_is_string(v) || !*json_string_value(v))
        return shc_fail(e, SHC_EFORMAT, "%s: \"%s\" must be a non-empty string%s", where, name,
                        why);
    return SHC_OK;
}

static int check_members(const json_t *wv, const char *where, shc_err *e)
{
    int rc = check_names(wv, where, e);
    if (!rc && !json_object_get(wv, "reason"))
        return shc_fail(e, SHC_EFORMAT, "%s: no \"reason\": a waiver says why the deviation "
                        "is known", where);
    if (!rc)
        rc = want_string(wv, "reason", true, ": a waiver says why the deviation is known",
                         where, e);
    if (!rc)
        rc = want_string(wv, "family", true, " naming a family, shardcheck families", where,
                         e);
    if (!rc)
        rc = want_string(wv, "finding", false, " (the file that records the finding)", where,
                         e);
    if (!rc)
        rc = want_string(wv, "flag", false, " (a flag the family declares)", where, e);
    if (!rc)
        rc = want_string(wv, "match", false, " (a POSIX extended regular expression)", where,
                         e);
    bool ids = json_object_get(wv, "tcIds"), flag = json_object_get(wv, "flag");
    if (!rc && ids && flag)
        rc = shc_fail(e, SHC_EFORMAT, "%s: names its cases by \"tcIds\" or by \"flag\" (one of "
                      "them)", where);
    if (!rc && !ids && !flag && !json_object_get(wv, "match"))
        rc = shc_fail(e, SHC_EFORMAT, "%s: names its cases by \"tcIds\" or by \"flag\", or its "
                      "failures by \"match\" (at least one of them)", where);
    const json_t *t = json_object_get(wv, "tcIds");
    if (!rc && ids && (!json_is_array(t) || !json_array_size(t)))
        rc = shc_fail(e, SHC_EFORMAT, "%s: \"tcIds\" must be a non-empty array", where);
    return rc;
}

/* "backends" and "torch": absent (every one), else a non-empty array of names. */
static int want_list(const json_t *wv, const char *name, const char *what, const char *where,
                     shc_err *e)
{
    const json_t *v = json_object_get(wv, name);
    if (v && (!json_is_array(v) || !json_array_size(v)))
        return shc_fail(e, SHC_EFORMAT, "%s: \"%s\" must be a non-empty array of strings, "
                        "each %s (left out: every one)", where, name, what);
    size_t i;
    json_t *x;
    json_array_foreach((json_t *)v, i, x)
        if (!json_is_string(x))
            return shc_fail(e, SHC_EFORMAT, "%s: %s[%zu] must be a string naming %s", where, name,
                            i, what);
    return SHC_OK;
}

/* The name a waiver's backends[i] stands for: a run backend's name or spelling ("plugin"
 * is every plugin), "candidate" (a results file: verify, certify --candidate) or "harness"
 * (tools/harness/run.py).  NULL: none. */
static const char *backend_name(const char *s)
{
    static const char *const other[] = {"candidate", "harness", NULL};
    const run_backend *const *t = run_backends();
    const char *arg;
    for (int i = 0; t[i]; i++)
        if (!strcmp(s, t[i]->name))
            return t[i]->name;
    const run_backend *be = run_backend_find(s, &arg);
    if (be)
        return be->name;
    for (int i = 0; other[i]; i++)
        if (!strcmp(s, other[i]))
            return other[i];
    return NULL;
}

/* "ref, local, ..., candidate, harness": every name backend_name takes, from the table. */
static void backend_names(char *buf, size_t n)
{
    const run_backend *const *t = run_backends();
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; t[i]; i++)
        len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "%s, ", t[i]->name);
    snprintf(buf + (len < n ? len : n - 1), len < n ? n - len : 1, "candidate, harness");
}

/* Whether the waiver's "backends" and "torch" lists (absent: all) include this run. */
static int applies(const json_t *wv, const char *where, const char *backend,
                   shc_torch_release rel, bool *out, shc_err *e)
{
    char names[256], what[300];
    backend_names(names, sizeof names);
    snprintf(what, sizeof what, "a backend (%s)", names);
    int rc = want_list(wv, "backends", what, where, e);
    if (!rc)
        rc = want_list(wv, "torch", "a torch release (\"2.13\")", where, e);
    if (rc)
        return rc;
    bool be = !json_object_get(wv, "backends"), tv = !json_object_get(wv, "torch");
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(wv, "backends"), i, x) {
        const char *name = backend_name(json_string_value(x));
        if (!name)
            return shc_fail(e, SHC_EFORMAT, "%s: backends[%zu] is not a backend (\"%.40s\"; "
                            "expected one of %s)", where, i, json_string_value(x), names);
        be |= backend && !strcmp(name, backend);
    }
    json_array_foreach(json_object_get(wv, "torch"), i, x) {
        shc_torch_release r;
        if (shc_torch_release_parse(json_string_value(x), &r, e))
            return shc_err_prefix(e, "%s: torch[%zu]", where, i);
        tv |= r == rel;
    }
    *out = be && tv;
    return SHC_OK;
}

/* Everything about waiver k that needs no corpus: members, where it applies, its reason and
 * its pattern.  *f: its family. */
static int check_one(waivers *w, const json_t *wv, int k, const char *backend,
                     shc_torch_release rel, const shc_family **f, shc_err *e)
{
    char where[600];
    snprintf(where, sizeof where, "%s: waivers[%d]", w->path, k);
    if (!json_is_object(wv))
        return shc_fail(e, SHC_EFORMAT, "%s: not an object ({\"family\": ..., \"reason\": ...})",
                        where);
    int rc = check_members(wv, where, e);
    if (!rc && !(*f = shc_family_find(json_string_value(json_object_get(wv, "family")))))
        rc = shc_fail(e, SHC_EFORMAT, "%s: \"family\" is not a family (shardcheck families)",
                      where);
    wentry *we = &w->w[k];
    if (!rc)
        rc = applies(wv, where, backend, rel, &we->applies, e);
    if (rc)
        return rc;
    we->family = (*f)->name;
    const char *reason = json_string_value(json_object_get(wv, "reason"));
    const char *finding = json_string_value(json_object_get(wv, "finding"));
    size_t len = strlen(reason) + (finding ? strlen(finding) : 0) + 4;
    if (!(we->reason = malloc(len)))
        return shc_fail(e, SHC_ENOMEM, "out of memory reading waivers");
    snprintf(we->reason, len, finding ? "%s (%s)" : "%s", reason, finding);
    const char *pat = json_string_value(json_object_get(wv, "match"));
    we->per_case = json_object_get(wv, "tcIds") || !pat;
    if (pat) {
        int x = regcomp(&we->re, pat, REG_EXTENDED | REG_NOSUB);
        if (x) {
            char msg[200];
            regerror(x, &we->re, msg, sizeof msg);
            return shc_fail(e, SHC_EFORMAT, "%s: \"match\" is not a POSIX extended regular "
                            "expression: %s", where, msg);
        }
        we->has_re = true;
    }
    return SHC_OK;
}

/* ---- scopes, against each family's corpus read once ---- */

static bool same_flag(void *ctx, shc_span s)
{
    return !shc_span_is(s, ctx); /* false stops the walk: found */
}

/* Whether test i of g carries flag: from its bytes (index loader) or its tree. */
static bool carries(const shc_golden *g, int64_t i, const char *flag)
{
    if (g->text)
        return !shc_span_each_string(g->text[i].flags, same_flag, (void *)flag);
    return shc_test_has_flag(shc_golden_test(g, i), flag);
}

static int resolve(waivers *w, const json_t *wv, int k, const shc_golden *t, shc_err *e)
{
    const char *family = w->w[k].family;
    const char *flag = json_string_value(json_object_get(wv, "flag"));
    if (flag) {
        long long before = (long long)w->n;
        for (int64_t i = 0; i < t->ntests; i++)
            if (carries(t, i, flag) && add_case(w, family, t->tcids[i], k, e))
                return e->code;
        if ((long long)w->n == before)
            return shc_fail(e, SHC_EFORMAT, "%s: waivers[%d]: flag \"%.40s\" is not one family "
                            "%s declares on a case", w->path, k, flag, family);
        return SHC_OK;
    }
    const json_t *ids = json_object_get(wv, "tcIds");
    if (!ids)
        return add_case(w, family, WHOLE_FAMILY, k, e);
    size_t i;
    json_t *x;
    json_array_foreach((json_t *)ids, i, x) {
        if (!json_is_integer(x) || shc_golden_index(t, json_integer_value(x)) < 0)
            return shc_fail(e, SHC_EFORMAT, "%s: waivers[%d]: tcIds[%zu] is not a tcId of "
                            "family %s", w->path, k, i, family);
        if (add_case(w, family, json_integer_value(x), k, e))
            return e->code;
    }
    return SHC_OK;
}

/* Every waiver of every family named, each family's corpus loaded once; a family the corpus
 * has no directory for cannot run (run reports it NotSupported), so its waivers waive
 * nothing there. */
static int resolve_all(waivers *w, const json_t *list, const char *golden, shc_torch_release rel,
                       shc_err *e)
{
    int rc = SHC_OK;
    for (int k = 0; !rc && k < w->nw; k++) {
        bool first = true; /* the first waiver of its family loads it for them all */
        for (int j = 0; j < k && first; j++)
            first = w->w[j].family != w->w[k].family;
        if (!first)
            continue;
        char fdir[4096];
        struct stat st;
        snprintf(fdir, sizeof fdir, "%s/%s", golden, w->w[k].family);
        if (stat(fdir, &st) && errno == ENOENT)
            continue; /* a corpus without the family (run: NotSupported): nothing to waive */
        shc_golden t = {0};
        rc = shc_golden_index_family_at(&t, golden, w->w[k].family, rel, e);
        for (int j = k; !rc && j < w->nw; j++)
            if (w->w[j].family == w->w[k].family)
                rc = resolve(w, json_array_get(list, (size_t)j), j, &t, e);
        shc_golden_free(&t);
    }
    return rc;
}

/* The same case named twice by waivers that each waive every failure of it (no "match"),
 * both applying to this run, is a mistake in the file: which reason would the report give?
 * Cause waivers may overlap (the first in the file whose pattern matches gives the reason). */
static int no_duplicates(const waivers *w, shc_err *e)
{
    for (size_t i = 0; i < w->n; i++)
        for (size_t j = i + 1; j < w->n && !cmp_case(&(wcase){w->v[i].family, w->v[i].tcid, 0},
                                                     &(wcase){w->v[j].family, w->v[j].tcid, 0});
             j++)
            if (!w->w[w->v[i].waiver].has_re && !w->w[w->v[j].waiver].has_re)
                return shc_fail(e, SHC_EFORMAT, "%s: waivers[%d] and waivers[%d] both waive %s "
                                "tcId %lld", w->path, w->v[i].waiver, w->v[j].waiver,
                                w->v[i].family, w->v[i].tcid);
    return SHC_OK;
}

int waivers_load(waivers **out, const char *path, const char *golden, const char *backend,
                 shc_torch_release rel, shc_err *e)
{
    waivers *w = calloc(1, sizeof *w);
    if (!w)
        return shc_fail(e, SHC_ENOMEM, "out of memory reading waivers");
    w->path = path;
    int rc = (w->root = shc_json_load_path(path, e)) ? SHC_OK : SHC_EFORMAT;
    const json_t *list = json_object_get(w->root, "waivers");
    if (!rc && (!json_is_object(w->root) || !json_is_array(list)))
        rc = shc_fail(e, SHC_EFORMAT, "%s: not a waiver file: {\"waivers\": [...]}", path);
    w->nw = rc ? 0 : (int)json_array_size(list);
    if (!rc && !(w->w = calloc((size_t)w->nw + 1, sizeof *w->w)))
        rc = shc_fail(e, SHC_ENOMEM, "out of memory reading waivers");
    const shc_family *f = NULL;
    for (int k = 0; !rc && k < w->nw; k++)
        rc = check_one(w, json_array_get(list, (size_t)k), k, backend, rel, &f, e);
    if (!rc)
        rc = resolve_all(w, list, golden, rel, e);
    size_t m = 0; /* keep the cases of the waivers that apply to this run */
    for (size_t i = 0; !rc && i < w->n; i++)
        if (w->w[w->v[i].waiver].applies)
            w->v[m++] = w->v[i];
    w->n = m;
    if (!rc && w->n) /* (no case: w->v may be NULL, which qsort may not be given) */
        qsort(w->v, w->n, sizeof *w->v, cmp_case);
    if (!rc)
        rc = no_duplicates(w, e);
    if (rc) {
        waivers_free(w);
        return shc_err_prefix(e, "--waivers");
    }
    *out = w;
    return SHC_OK;
}

/* ---- during the run ---- */

/* The entries for (family, tcid): [*lo, return). */
static size_t range(const waivers *w, const char *family, long long tcid, size_t *lo)
{
    size_t a = 0, b = w->n;
    wcase key = {family, tcid, -1};
    while (a < b) { /* the first entry not below key */
        size_t mid = a + (b - a) / 2;
        if (cmp_case(&w->v[mid], &key) < 0)
            a = mid + 1;
        else
            b = mid;
    }
    *lo = a;
    while (b < w->n && !strcmp(w->v[b].family, family) && w->v[b].tcid == tcid)
        b++;
    return b;
}

/* The lowest waiver of the case's entries and its family's whole-family ones that waives
 * this outcome (status NULL: a pass); -1 for none. */
static int pick(waivers *w, const char *family, long long tcid, const char *outcome)
{
    int best = -1;
    for (int pass = 0; pass < 2; pass++) {
        size_t lo, hi = range(w, family, pass ? WHOLE_FAMILY : tcid, &lo);
        for (size_t i = lo; i < hi; i++) {
            wentry *we = &w->w[w->v[i].waiver];
            if (!outcome)
                we->passed++;
            bool hit = outcome ? !we->has_re || !regexec(&we->re, outcome, 0, NULL, 0)
                               : we->per_case;
            if (hit && (best < 0 || w->v[i].waiver < best))
                best = w->v[i].waiver;
        }
    }
    return best;
}

const char *waivers_match(waivers *w, const char *family, long long tcid, const char *status,
                          const char *detail)
{
    if (!w || !family)
        return NULL;
    char *outcome = NULL;
    if (status && strcmp(status, "Pass")) {
        size_t len = strlen(status) + (detail ? strlen(detail) : 0) + 3;
        if (!(outcome = malloc(len)))
            return NULL;
        snprintf(outcome, len, "%s: %s", status, detail ? detail : "");
    }
    int k = pick(w, family, tcid, outcome);
    free(outcome);
    if (k >= 0 && status && strcmp(status, "Pass"))
        w->w[k].waived++;
    return k >= 0 ? w->w[k].reason : NULL;
}

void waivers_notes(const waivers *w, FILE *f, const char *prefix)
{
    for (int k = 0; w && k < w->nw; k++) {
        const wentry *we = &w->w[k];
        if (we->applies && we->has_re && !we->per_case && !we->waived && we->passed)
            fprintf(f, "%snote: %s: waivers[%d] matched no failure: the %lld case%s of its scope "
                    "that ran passed (%s): the deviation may be fixed, or this run does not "
                    "reach it\n", prefix, w->path, k, we->passed, we->passed == 1 ? "" : "s",
                    we->reason);
    }
}

long long waivers_count(const waivers *w)
{
    return w ? (long long)w->n : 0;
}

void waivers_free(waivers *w)
{
    if (!w)
        return;
    for (int k = 0; w->w && k < w->nw; k++) {
        free(w->w[k].reason);
        if (w->w[k].has_re)
            regfree(&w->w[k].re);
    }
    free(w->w);
    free(w->v);
    json_decref(w->root);
    free(w);
}
