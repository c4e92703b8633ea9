/*
 * golden_compare.c — the one comparison rule every consumer shares.
 *
 * verify (a vendor's results file), run (our backends, per rank) and the
 * Python harness all ask the same question: is this rank's view of a test
 * JSON-equal to the golden view?  Keeping it in one place means a
 * field-naming or per-rank convention change cannot make verify and run
 * disagree.  Messages name the field and show both values, shortened.
 * Exact, except a GpuOnly case's tolerance (golden_tolerance.c): its samples
 * within it, a differing digest reported as a note in msg on a pass.
 * Tested by check_golden.c.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "golden.h"

json_t *shc_expected_view(const json_t *expected, int64_t rank)
{
    if (rank < 0)
        return json_deep_copy(expected);
    json_t *view = json_object();
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)expected, k, v) {
        if (strcmp(k, "perRank") && strcmp(k, "alternatives"))
            json_object_set(view, k, v);
    }
    json_object_foreach(json_object_get(expected, "perRank"), k, v) {
        json_t *x = json_array_get(v, (size_t)rank);
        if (!x) {
            json_decref(view);
            return NULL;
        }
        json_object_set(view, k, x);
    }
    return view;
}

int64_t shc_expected_world(const json_t *expected)
{
    const char *k;
    json_t *v;
    json_object_foreach(json_object_get(expected, "perRank"), k, v) {
        return (int64_t)json_array_size(v);
    }
    return 0;
}

/* Shortened compact dump of v into buf. */
static void shortdump(const json_t *v, char *buf, size_t n)
{
    char *s = v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    if (!s) {
        snprintf(buf, n, "(missing)");
        return;
    }
    if (strlen(s) >= n && n > 4) {
        s[n - 4] = '\0';
        snprintf(buf, n, "%s...", s);
    } else {
        snprintf(buf, n, "%s", s);
    }
    free(s);
}

/* Compare one field; on a difference write "FIELD: expected E, got G". */
static int same_field(const char *k, const json_t *want, const json_t *got, char *msg, size_t n)
{
    if (got && json_equal((json_t *)want, (json_t *)got))
        return 1;
    char a[200], b[200];
    shortdump(want, a, sizeof a);
    shortdump(got, b, sizeof b);
    snprintf(msg, n, "%s: expected %s, got %s", k, a, b);
    return 0;
}

/* A comparison in progress: the case's GpuOnly tolerance, if any, and what it let pass. */
typedef struct cmp {
    shc_tol tol;
    int tolerant;         /* the case carries a tolerance */
    int values;           /* sampled-value fields compared within it */
    const char *digest;   /* a digest field that differed (a note, not a failure) */
} cmp;

/* One field: exact, unless c is tolerant and the field holds sampled values (within the
 * tolerance) or a digest (a difference is remembered for the note: the samples vouch). */
static int check_field(cmp *c, const char *k, const json_t *want, const json_t *got, char *msg,
                       size_t n)
{
    if (c && c->tolerant && shc_tol_value_field(k)) {
        c->values++;
        return shc_tol_compare(&c->tol, k, want, got, msg, n);
    }
    if (c && c->tolerant && shc_tol_digest_field(k) && json_is_string(got) &&
        json_string_length(got) == json_string_length(want)) {
        if (!json_equal((json_t *)want, (json_t *)got))
            c->digest = k;
        return 1;
    }
    return same_field(k, want, got, msg, n);
}

/* One differing field into msg: every difference is listed, "; " between them, so a
 * failure names all the fields a port got wrong, not only the first (issue 22 item 1;
 * report_groups.c groups failures by these names). */
static void add_diff(char *msg, size_t n, const char *one, int *ndiff)
{
    size_t used = *ndiff ? strlen(msg) : 0;
    if (used < n)
        snprintf(msg + used, n - used, "%s%s", *ndiff ? "; " : "", one);
    (*ndiff)++;
}

/* Whether got equals expected's view at rank (rank < 0: the whole object),
 * field by field, without building the view: this runs once per rank of
 * every case, so it allocates nothing.  -1 when rank is outside the world.
 * c: the case's tolerance state, NULL to compare exactly. */
static int diff_view(const json_t *exp, int64_t rank, const json_t *got, cmp *c, char *msg,
                     size_t n)
{
    size_t nfields = 0;
    int ndiff = 0;
    char one[512];
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)exp, k, v) {
        bool per = !strcmp(k, "perRank");
        if (!strcmp(k, "alternatives") || (per && rank >= 0))
            continue;
        nfields++;
        if (!check_field(c, k, v, json_object_get(got, k), one, sizeof one))
            add_diff(msg, n, one, &ndiff);
    }
    if (rank >= 0) {
        json_object_foreach(json_object_get(exp, "perRank"), k, v) {
            json_t *x = json_array_get(v, (size_t)rank);
            if (!x) {
                snprintf(msg, n, "rank %lld is outside the test's world", (long long)rank);
                return -1;
            }
            nfields++;
            if (!check_field(c, k, x, json_object_get(got, k), one, sizeof one))
                add_diff(msg, n, one, &ndiff);
        }
    }
    if (ndiff)
        return 0;
    if (json_object_size(got) == nfields)
        return 1;
    json_object_foreach((json_t *)got, k, v) {
        bool known = json_object_get(exp, k) ||
                     (rank >= 0 && json_object_get(json_object_get(exp, "perRank"), k));
        if (!known || !strcmp(k, "alternatives") || (rank >= 0 && !strcmp(k, "perRank"))) {
            snprintf(msg, n, "%s: not an expected field", k);
            return 0;
        }
    }
    return 1;
}

/* After a tolerant match: a differing digest passes only when samples were compared; the
 * difference becomes the note in msg.  1 = pass. */
static int tolerant_outcome(const cmp *c, char *msg, size_t n)
{
    if (c->digest && !c->values) {
        snprintf(msg, n, "%s: differs, and the case has no samples to compare within its "
                 "GpuOnly tolerance", c->digest);
        return 0;
    }
    if (c->digest || c->tol.worst > 0)
        shc_tol_note(&c->tol, c->digest, msg, n);
    return 1;
}

bool shc_stricter_answered(const json_t *test, const json_t *got)
{
    const char *res = json_string_value(json_object_get(test, "result"));
    return res && !strcmp(res, "invalid") && shc_test_has_flag(test, SHC_STRICTER_THAN_TORCH) &&
           got && !json_object_get(got, "error");
}

int shc_compare_view(const json_t *test, int64_t rank, const json_t *got, char *msg, size_t n)
{
    const char *res = json_string_value(json_object_get(test, "result"));
    const json_t *exp = json_object_get(test, "expected");
    if (n)
        msg[0] = '\0';
    if (res && !strcmp(res, "invalid")) {
        if (json_object_get(got, "error"))
            return 1;
        snprintf(msg, n, "accepted an input that must be rejected (%s)",
                 json_string_value(json_object_get(exp, "error")) ?: "invalid");
        return 0;
    }
    /* acceptable with an expected error (flag StricterThanSeed): shardcheck rejects,
     * a reference answers; a rejection passes, an answer must match an alternative */
    if (res && !strcmp(res, "acceptable") && json_object_get(exp, "error") &&
        json_object_get(got, "error"))
        return 1;
    if (json_object_get(got, "error")) {
        char b[200];
        shortdump(json_object_get(got, "error"), b, sizeof b);
        snprintf(msg, n, "rejected a valid input: %s", b);
        return 0;
    }
    cmp c = {0};
    c.tolerant = shc_tolerance_of(test, &c.tol);
    int ok = diff_view(exp, rank, got, &c, msg, n);
    if (ok == 1 && c.tolerant)
        return tolerant_outcome(&c, msg, n);
    if (ok != 0 || !res || strcmp(res, "acceptable"))
        return ok == 1;
    size_t i;
    json_t *alt;
    json_array_foreach(json_object_get(exp, "alternatives"), i, alt) {
        char dummy[8];
        if (diff_view(alt, rank, got, NULL, dummy, sizeof dummy) == 1)
            return 1;
    }
    return 0;
}
