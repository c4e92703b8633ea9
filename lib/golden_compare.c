/*
 * golden_compare.c — the one comparison rule every consumer shares.
 *
 * verify (a vendor's results file), run (our backends, per rank) and the
 * Python harness all ask the same question: is this rank's view of a test
 * JSON-equal to the golden view?  Keeping it in one place means a
 * field-naming or per-rank convention change cannot make verify and run
 * disagree.  Messages name the field and show both values, shortened.
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

/* First field where got differs from want; 1 if all equal. */
static int diff_fields(const json_t *want, const json_t *got, char *msg, size_t n)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)want, k, v) {
        json_t *g = json_object_get(got, k);
        if (!g || !json_equal(v, g)) {
            char a[200], b[200];
            shortdump(v, a, sizeof a);
            shortdump(g, b, sizeof b);
            snprintf(msg, n, "%s: expected %s, got %s", k, a, b);
            return 0;
        }
    }
    json_object_foreach((json_t *)got, k, v) {
        if (!json_object_get(want, k)) {
            snprintf(msg, n, "%s: not an expected field", k);
            return 0;
        }
    }
    return 1;
}

int shc_compare_view(const json_t *test, int64_t rank, const json_t *got, char *msg, size_t n)
{
    const char *res = json_string_value(json_object_get(test, "result"));
    const json_t *exp = json_object_get(test, "expected");
    if (res && !strcmp(res, "invalid")) {
        if (json_object_get(got, "error"))
            return 1;
        snprintf(msg, n, "accepted an input that must be rejected (%s)",
                 json_string_value(json_object_get(exp, "error")) ?: "invalid");
        return 0;
    }
    if (json_object_get(got, "error")) {
        char b[200];
        shortdump(json_object_get(got, "error"), b, sizeof b);
        snprintf(msg, n, "rejected a valid input: %s", b);
        return 0;
    }
    json_t *want = shc_expected_view(exp, rank);
    if (!want) {
        snprintf(msg, n, "rank %lld is outside the test's world", (long long)rank);
        return 0;
    }
    int ok = diff_fields(want, got, msg, n);
    json_decref(want);
    if (ok || !res || strcmp(res, "acceptable"))
        return ok;
    size_t i;
    json_t *alt;
    json_array_foreach(json_object_get(exp, "alternatives"), i, alt) {
        char dummy[8];
        json_t *w = shc_expected_view(alt, rank);
        int m = w && diff_fields(w, got, dummy, sizeof dummy);
        json_decref(w);
        if (m)
            return 1;
    }
    return 0;
}
