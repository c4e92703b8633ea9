/*
 * verify_tree.c — the verify engine's tree source: the candidate read whole by jansson,
 * golden-shaped or a results file, and a golden-shaped partial candidate ("fields": the
 * golden tests restricted to the declared fields for the run, verify_partial_begin, which the
 * scanner uses too for a partial results file).  It reads everything the scanner
 * (verify_scan.c) leaves to it, and with SHARDCHECK_VERIFY_TREES=1 every candidate, as the
 * reference verify_fast.sh compares the scanner with.  Its answers go to the one
 * compare-and-report loop (verify_compare.c).
 * A partial candidate is also told how much of its family's conformance claim it covers
 * (family.h's shc_claim), as certify will state it.
 * Tested by verify_candidate.sh, verify_partial.sh, certify_claims.sh, verify_fast.sh and
 * hardening.sh.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "family.h"
#include "golden.h"
#include "progress.h"
#include "report.h"
#include "verify.h"

static int verify_golden_shaped(vstate *s, json_t *root, const char *path, shc_err *e)
{
    size_t gi, ti;
    json_t *grp, *t;
    json_array_foreach(json_object_get(root, "testGroups"), gi, grp) {
        json_array_foreach(json_object_get(grp, "tests"), ti, t) {
            json_t *id = json_object_get(t, "tcId");
            if (!json_is_integer(id))
                return shc_fail(e, SHC_EFORMAT, "%s: testGroups[%zu].tests[%zu] has no integer tcId",
                                path, gi, ti);
            int64_t idx = shc_golden_index(s->g, json_integer_value(id));
            char name[64];
            verify_case_name(name, sizeof name, json_integer_value(id), -1);
            if (idx < 0) {
                report_case(s->rep, name, ST_FAIL, "not a tcId of the golden family");
                continue;
            }
            if (s->seen[idx] == 2) /* NotSupported: no declared field (verify_partial_begin) */
                continue;
            if (s->seen[idx])
                return shc_fail(e, SHC_EFORMAT, "%s: tcId %lld appears twice", path,
                                (long long)json_integer_value(id));
            s->seen[idx] = 1;
            verify_full_test_once(s, idx, t);
        }
    }
    return SHC_OK;
}


static int verify_results(vstate *s, json_t *results, const char *path, shc_err *e)
{
    size_t n = json_array_size(results);
    rentry *v = calloc(n ? n : 1, sizeof *v);
    if (!v)
        return shc_fail(e, SHC_ENOMEM, "verify: out of memory");
    size_t m = 0;
    int rc = SHC_OK;
    for (size_t i = 0; i < n && !rc; i++) {
        int64_t tcid = 0, rank = -1;
        json_t *got = NULL;
        rc = verify_parse_result(json_array_get(results, i), i, path, &tcid, &rank, &got, e);
        if (rc)
            break;
        int64_t idx = shc_golden_index(s->g, tcid);
        if (idx < 0) {
            char name[64];
            verify_case_name(name, sizeof name, tcid, rank);
            report_case(s->rep, name, ST_FAIL, "not a tcId of the golden family");
            json_decref(got);
            continue;
        }
        if (s->seen[idx] == 2) { /* NotSupported: no declared field (verify_partial_begin) */
            json_decref(got);
            continue;
        }
        v[m++] = (rentry){idx, rank, got, (uint32_t)i, 0, 0, 0, 0, -1};
    }
    if (!rc)
        rc = verify_rentries(s, v, m, path, e);
    for (size_t i = 0; i < m; i++)
        json_decref(v[i].got);
    free(v);
    return rc;
}

/* A partial candidate declares the fields it computes: "fields": [names]
 * (top-level or perRank names alike).  Its golden tests are compared on those
 * fields only, through restricted copies swapped into g->tests for the run;
 * the fields left out are NotSupported (listed on stderr), a test left with
 * nothing to compare is reported NotSupported, and a declared field the
 * candidate omits fails like any missing field.  Tested by verify_partial.sh. */

static void count_field(json_t *left, const char *f)
{
    json_object_set_new(left, f, json_integer(json_integer_value(json_object_get(left, f)) + 1));
}

static json_t *restrict_expected(json_t *exp, const json_t *fset, json_t *left)
{
    json_t *out = json_object();
    const char *k;
    json_t *v;
    json_object_foreach(exp, k, v) {
        if (!strcmp(k, "perRank") && json_is_object(v)) {
            json_t *per = json_object(), *x;
            const char *f;
            json_object_foreach(v, f, x) {
                if (json_object_get(fset, f))
                    json_object_set(per, f, x);
                else if (left)
                    count_field(left, f);
            }
            if (json_object_size(per))
                json_object_set(out, k, per);
            json_decref(per);
        } else if (!strcmp(k, "alternatives") && json_is_array(v)) {
            json_t *alts = json_array(), *a;
            size_t i;
            json_array_foreach(v, i, a)
                json_array_append_new(alts, restrict_expected(a, fset, NULL));
            json_object_set_new(out, k, alts);
        } else if (!strcmp(k, "error") || json_object_get(fset, k)) {
            json_object_set(out, k, v);
        } else if (left) {
            count_field(left, k);
        }
    }
    return out;
}

/* Whether name is a field of some test's expected object (top-level or perRank). */
static bool family_has_field(const shc_golden *g, const char *name)
{
    for (int64_t i = 0; i < g->ntests; i++) {
        json_t *exp = json_object_get(shc_golden_test(g, i), "expected");
        if (strcmp(name, "perRank") && strcmp(name, "alternatives") && strcmp(name, "error") &&
            (json_object_get(exp, name) || json_object_get(json_object_get(exp, "perRank"), name)))
            return true;
    }
    return false;
}

/* vstate.narrow: test restricted to the declared fields (a new reference). */
static json_t *narrow(void *ctx, json_t *test)
{
    const verify_partial *p = ctx;
    json_t *copy = json_copy(test);
    json_object_set_new(copy, "expected",
                        restrict_expected(json_object_get(test, "expected"), p->fset, NULL));
    return copy;
}

int verify_partial_begin(vstate *s, const json_t *fields, const char *path, verify_partial *p,
                         shc_err *e)
{
    json_t *f;
    if (!fields)
        return SHC_OK;
    if (!json_is_array(fields) || !json_array_size(fields))
        return shc_fail(e, SHC_EFORMAT, "candidate %s: \"fields\" must be a non-empty array of "
                        "field names", path);
    json_t *fset = json_object();
    size_t i;
    json_array_foreach(fields, i, f) {
        const char *name = json_string_value(f);
        if (!name || !*name || !family_has_field(s->g, name)) {
            json_decref(fset);
            if (!name || !*name)
                return shc_fail(e, SHC_EFORMAT, "candidate %s: fields[%zu] must be a non-empty "
                                "string", path, i);
            return shc_fail(e, SHC_EFORMAT, "candidate %s: fields[%zu] \"%s\" is not an "
                            "expected field of family %s", path, i, name, s->g->family);
        }
        json_object_set_new(fset, name, json_true());
    }
    /* over the index loader each test is restricted when first used and let go after (its
     * tree is parsed again if asked for): the family's trees are never held at once */
    bool lazy = s->g->text != NULL;
    size_t nt = (size_t)(s->g->ntests ? s->g->ntests : 1);
    p->orig = lazy ? NULL : malloc(nt * sizeof *p->orig);
    s->narrowed = lazy ? calloc(nt, 1) : NULL;
    if (lazy ? !s->narrowed : !p->orig) {
        json_decref(fset);
        return shc_fail(e, SHC_ENOMEM, "verify: out of memory");
    }
    s->pinned = !lazy;
    p->owned = json_array();
    p->left = json_object();
    p->fset = fset;
    for (int64_t t = 0; t < s->g->ntests; t++) {
        json_t *test = shc_golden_test(s->g, t);
        json_t *exp = restrict_expected(json_object_get(test, "expected"), fset, p->left);
        const char *res = json_string_value(json_object_get(test, "result"));
        bool nothing = !json_object_get(exp, "perRank") &&
                       json_object_size(exp) == (size_t)!!json_object_get(exp, "alternatives") +
                                                (size_t)!!json_object_get(exp, "error");
        if (nothing && res && strcmp(res, "invalid")) {
            char name[64];
            verify_case_name(name, sizeof name, json_integer_value(json_object_get(test, "tcId")), -1);
            report_case(s->rep, name, ST_NOTSUPPORTED, "no field the candidate declares");
            s->seen[t] = 2;
        }
        if (lazy) {
            json_decref(exp);
            shc_golden_test_done(s->g, t);
            continue;
        }
        json_t *copy = json_copy(test);
        json_object_set_new(copy, "expected", exp);
        json_array_append_new(p->owned, copy);
        p->orig[t] = test;
        s->g->tests[t] = copy;
    }
    if (lazy) {
        s->narrow = narrow;
        s->narrow_ctx = p;
    }
    return SHC_OK;
}

/* "the candidate computes 1 of 5 fields a rng-offsets conformance claim requires": a
 * partial port learns from verify what certify will state (a partial claim, exit 3). */
static void claim_note(const vstate *s, const json_t *fset)
{
    const shc_family *f = shc_family_find(s->g->family);
    char have[512] = "", miss[512] = "";
    size_t nh = 0, nm = 0, kh = 0, km = 0;
    for (const char *const *q = f ? f->claim.fields : NULL; q && *q; q++) {
        bool in = json_object_get(fset, *q) != NULL;
        char *buf = in ? have : miss;
        size_t *k = in ? &kh : &km, cnt = in ? nh++ : nm++;
        if (*k < sizeof have)
            *k += (size_t)snprintf(buf + *k, sizeof have - *k, "%s%s", cnt ? ", " : "", *q);
    }
    if (nm)
        fprintf(stderr, "verify: the candidate computes %zu of %zu fields a %s conformance claim "
                "requires (%s; not computed: %s): certify states it as partial\n", nh, nh + nm,
                s->g->family, nh ? have : "none", miss);
}

void verify_partial_end(vstate *s, verify_partial *p)
{
    if (!p->fset)
        return;
    for (int64_t t = 0; t < s->g->ntests; t++) {
        if (p->orig)
            s->g->tests[t] = p->orig[t];
        else if (s->narrowed[t]) /* a restricted copy still held: the parsed test is gone */
            shc_golden_test_done(s->g, t);
    }
    free(s->narrowed);
    s->narrowed = NULL;
    s->narrow = NULL;
    const char *k;
    json_t *v;
    progress_hide();
    json_object_foreach(p->left, k, v)
        fprintf(stderr, "verify: NotSupported field %s (not declared by the candidate): %lld "
                "tests\n", k, (long long)json_integer_value(v));
    claim_note(s, p->fset);
    json_decref(p->fset);
    free(p->orig);
    json_decref(p->owned);
    json_decref(p->left);
}

int verify_tree(const shc_golden *g, const char *path, report *rep, shc_err *e)
{
    json_t *root = shc_json_load_path(path, e);
    if (!root)
        return shc_err_prefix(e, "candidate");
    const char *fam = json_string_value(json_object_get(root, "family"));
    int rc = SHC_OK;
    if (json_object_get(root, "family") && !fam) /* a number passed as "no family" */
        rc = shc_fail(e, SHC_EFORMAT, "candidate %s: \"family\" is not a string", path);
    else if (fam && strcmp(fam, g->family))
        rc = shc_fail(e, SHC_EFORMAT, "candidate %s: family \"%s\", verifying \"%s\"", path, fam,
                      g->family);
    vstate s = {.g = g, .rep = rep, .seen = calloc((size_t)(g->ntests ? g->ntests : 1), 1),
                .path = path};
    json_t *results = json_object_get(root, "results");
    verify_partial part = {0};
    if (!rc)
        rc = verify_partial_begin(&s, json_object_get(root, "fields"), path, &part, e);
    if (rc) {
    } else if (json_is_array(json_object_get(root, "testGroups"))) {
        rc = verify_golden_shaped(&s, root, path, e);
    } else if (json_is_array(results)) {
        rc = verify_results(&s, results, path, e);
    } else {
        rc = shc_fail(e, SHC_EFORMAT, "candidate %s: neither \"testGroups\" (golden schema) nor "
                      "\"results\" (results file)", path);
    }
    if (!rc)
        verify_report_missing(&s);
    verify_partial_end(&s, &part);
    free(s.seen);
    shc_bview_free(&s.bv);
    if (shc_free_at_exit()) /* verify's last act: the OS frees the tree faster */
        json_decref(root);
    return rc;
}
