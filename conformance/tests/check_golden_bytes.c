/*
 * check_golden_bytes.c — the byte-level view comparison (golden_bytes.c) and what it
 * stands on in json_scan.c (the cursor shc_jcur_*, and shc_span_has).
 *
 * verify passes a results entry without a tree when shc_bview_same says "same", so the
 * one thing that must never happen is "same" for an answer the tree comparison would
 * fail or note.  Two kinds of test hold it to that:
 *   - a table of hand-written cases, each with the answer its bytes must give (a number
 *     that goes on, a key escaped, repeated or missing, a ragged perRank, alternatives,
 *     whitespace, a rank outside the world ...);
 *   - a property run: thousands of random expected objects and answers (the right view
 *     re-spelled, and views with one change), where every "same" must be a pass with no
 *     note from shc_compare_view (jansson's json_equal underneath), and every right
 *     answer spelled as jansson writes it must be "same" (so the fast path is taken).
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "golden.h"

static shc_span sp(const char *s) { return (shc_span){s, strlen(s)}; }

/* Each row: a golden expected object, a rank, a candidate's values, and whether the bytes
 * must say "same" (1), or must not (0: the trees decide). */
static const struct row {
    const char *expected;
    int64_t rank;
    const char *values;
    int same;
} rows[] = {
    {"{\"a\":1}", -1, "{\"a\":1}", 1},
    {"{\"a\":1}", -1, "{ \"a\" : 1 }", 1},
    {"{\"a\":1}", -1, "{\"a\":12}", 0},     /* a number that goes on */
    {"{\"a\":12}", -1, "{\"a\":1}", 0},
    {"{\"a\":1}", -1, "{\"a\":1.0}", 0},    /* equal? jansson says not: the trees say so */
    {"{\"a\":true}", -1, "{\"a\":true}", 1},
    {"{\"a\":null}", -1, "{\"a\":nullx}", 0}, /* (not JSON, but must not match) */
    {"{\"a\":\"x\"}", -1, "{\"a\":\"x\"}", 1},
    {"{\"a\":\"x y\"}", -1, "{\"a\":\"xy\"}", 0}, /* whitespace inside a string counts */
    {"{\"a\":\"x\\\"\"}", -1, "{\"a\":\"x\\\"\"}", 1},
    {"{\"a\":\"x\\\\\"}", -1, "{\"a\":\"x\\\"\"}", 0},
    {"{\"a\":\"x\"}", -1, "{\"a\":\"\\u0078\"}", 0}, /* same string, other bytes: trees */
    {"{\"a\":[1,[2,3]]}", -1, "{\"a\":[ 1 , [2,3] ]}", 1},
    {"{\"a\":[1,[2,3]]}", -1, "{\"a\":[1,[2,3],4]}", 0},
    {"{\"a\":1,\"b\":2}", -1, "{\"b\":2,\"a\":1}", 1},
    {"{\"a\":1,\"b\":2}", -1, "{\"a\":1}", 0},           /* missing */
    {"{\"a\":1}", -1, "{\"a\":1,\"b\":2}", 0},           /* extra */
    {"{\"a\":1}", -1, "{\"a\":1,\"a\":1}", 0},           /* repeated */
    {"{\"a\":1}", -1, "{\"\\u0061\":1}", 0},             /* escaped key */
    {"{\"a\":1}", -1, "{}", 0},
    {"{}", -1, "{}", 1},
    {"{\"s\":\"1\",\"perRank\":{\"n\":[[0],[1]],\"m\":[\"x\",\"y\"]}}", 0,
     "{\"s\":\"1\",\"n\":[0],\"m\":\"x\"}", 1},
    {"{\"s\":\"1\",\"perRank\":{\"n\":[[0],[1]],\"m\":[\"x\",\"y\"]}}", 1,
     "{\"m\":\"y\",\"n\":[1],\"s\":\"1\"}", 1},
    {"{\"s\":\"1\",\"perRank\":{\"n\":[[0],[1]],\"m\":[\"x\",\"y\"]}}", 1,
     "{\"m\":\"x\",\"n\":[1],\"s\":\"1\"}", 0},           /* rank 0's m */
    {"{\"s\":\"1\",\"perRank\":{\"n\":[[0],[1]],\"m\":[\"x\",\"y\"]}}", 2,
     "{\"m\":\"y\",\"n\":[1],\"s\":\"1\"}", 0},           /* outside the world */
    {"{\"s\":\"1\",\"perRank\":{\"n\":[[0],[1]],\"m\":[\"x\",\"y\"]}}", -1,
     "{\"m\":\"y\",\"n\":[1],\"s\":\"1\"}", 0},           /* whole view of a per-rank test */
    {"{\"s\":\"1\",\"perRank\":{\"n\":[[0],[1]],\"m\":[\"x\",\"y\"]}}", 0,
     "{\"s\":\"1\",\"n\":[0],\"m\":\"x\",\"perRank\":{}}", 0},
    {"{\"perRank\":{\"n\":[0,1],\"m\":[0]}}", 0, "{\"n\":0,\"m\":0}", 0}, /* ragged */
    {"{\"perRank\":{\"n\":[0],\"m\":[0,1]}}", 0, "{\"n\":0,\"m\":0}", 0},
    {"{\"perRank\":{}}", -1, "{\"perRank\":{}}", 0},     /* the trees' whole view */
    {"{\"perRank\":{\"n\":[0]},\"perRank\":{\"n\":[1]}}", 0, "{\"n\":1}", 0},
    {"{\"a\":1,\"alternatives\":[{\"a\":2}]}", -1, "{\"a\":1}", 0},
    {"{\"a\":1,\"a\":2}", -1, "{\"a\":2}", 0},
    {"{\"perRank\":{\"n\":[]}}", 0, "{\"n\":0}", 0},     /* a world of 0 */
};

START_TEST(table_rows)
{
    shc_bview b = {0};
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        const struct row *r = &rows[i];
        shc_bview_split(&b, sp(r->expected));
        int got = shc_bview_same(&b, r->rank, sp(r->values));
        ck_assert_msg(got == r->same, "row %zu: %s rank %lld vs %s: %d", i, r->expected,
                      (long long)r->rank, r->values, got);
    }
    shc_bview_free(&b);
}
END_TEST

START_TEST(world_zero_rows)
{
    /* {expected, sure, zero}: sure = 0 leaves it to the trees */
    static const struct { const char *e; int sure, zero; } w[] = {
        {"{}", 1, 1},
        {"{\"a\":1}", 1, 1},
        {"{\"perRank\":{}}", 1, 1},
        {"{\"perRank\":{\"n\":[]}}", 1, 1},
        {"{\"perRank\":{\"n\":[],\"m\":[1]}}", 1, 1}, /* the first array decides */
        {"{\"a\":[1,{\"b\":2}],\"perRank\":{\"n\":[0]}}", 1, 0},
        {"{\"perRank\":{\"n\":[0]},\"perRank\":{}}", 0, 0},  /* jansson keeps the last */
        {"{\"a\":\"\\\"perRank\\\"\"}", 1, 1},         /* escaped in a string: not the key */
        {"{\"b\":{\"perRank\":{\"n\":[0]}}}", 0, 0},       /* a nested key of that name */
        {"{\"perRank\":[1]}", 0, 0},
        {"{\"perRank\":{\"n\":3}}", 0, 0},
    };
    for (size_t i = 0; i < sizeof w / sizeof *w; i++) {
        bool zero = false;
        bool sure = shc_bview_world_zero(sp(w[i].e), &zero);
        ck_assert_msg(sure == w[i].sure && (!sure || zero == w[i].zero), "%s: %d %d", w[i].e,
                      sure, zero);
    }
}
END_TEST

START_TEST(jcur_match_boundaries)
{
    /* the cursor moves past a match only, and a longer number or literal is no match */
    const char *cand = "[12 , 1, true,\"a\"]";
    shc_jcur c = shc_jcur_of(sp(cand));
    bool first = true;
    ck_assert_int_eq(shc_jcur_element(&c, &first), 1);
    ck_assert(!shc_jcur_match(&c, sp("1")));
    ck_assert(*c.p == '1');
    ck_assert(shc_jcur_match(&c, sp("12")));
    ck_assert_int_eq(shc_jcur_element(&c, &first), 1);
    ck_assert(shc_jcur_match(&c, sp("1")));
    ck_assert_int_eq(shc_jcur_element(&c, &first), 1);
    ck_assert(!shc_jcur_match(&c, sp("tru")));
    ck_assert(shc_jcur_match(&c, sp("true")));
    ck_assert_int_eq(shc_jcur_element(&c, &first), 1);
    shc_span v;
    shc_jcur_take(&c, &v);
    ck_assert_uint_eq(v.n, 3);
    ck_assert_int_eq(shc_jcur_element(&c, &first), 0);
    ck_assert(c.p == cand + strlen(cand));
}
END_TEST

START_TEST(span_has_finds_words)
{
    /* the search starts from a rarer byte of the word ('_', or its second): at either end */
    const char *w1 = "\"local_shape\"", *w2 = "\"tolerance\"";
    ck_assert(shc_span_has(sp("\"local_shape\":1"), w1));
    ck_assert(shc_span_has(sp("{\"a\":\"local_shape\"}"), w1));
    ck_assert(!shc_span_has(sp("\"local_shape"), w1));
    ck_assert(!shc_span_has(sp("local_shape\""), w1));
    ck_assert(!shc_span_has(sp("\"local-shape\" _ \"local_shap\""), w1));
    ck_assert(shc_span_has(sp("\"tolerance\""), w2));
    ck_assert(shc_span_has(sp("\"t\"tolerance\"\""), w2));
    ck_assert(!shc_span_has(sp("\"toleranc\"tolerance"), w2));
    ck_assert(!shc_span_has(sp("_"), "__"));
    ck_assert(shc_span_has(sp("x__"), "__"));
}
END_TEST

/* ---- the property run ---- */

static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static unsigned rnd(unsigned n)
{
    rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
    return (unsigned)(rng_state % n);
}

static json_t *rand_value(int depth)
{
    static const char *const strs[] = {"0", "1", "10", "a b", "x\"y", "", "\\"};
    switch (rnd(depth > 2 ? 4 : 6)) {
    case 0: return json_integer((json_int_t)rnd(30) - 5);
    case 1: return json_string(strs[rnd(7)]);
    case 2: return rnd(2) ? json_true() : json_null();
    case 3: return json_real(rnd(4) / 2.0);
    case 4: {
        json_t *a = json_array();
        for (unsigned i = rnd(4); i; i--)
            json_array_append_new(a, rand_value(depth + 1));
        return a;
    }
    default: {
        json_t *o = json_object();
        for (unsigned i = rnd(3); i; i--) {
            char k[4] = {(char)('p' + rnd(3)), 0};
            json_object_set_new(o, k, rand_value(depth + 1));
        }
        return o;
    }
    }
}

static json_t *rand_expected(int64_t world)
{
    json_t *e = json_object();
    for (unsigned i = rnd(3); i; i--) {
        char k[4] = {(char)('a' + rnd(4)), 0};
        json_object_set_new(e, k, rand_value(0));
    }
    if (world) {
        json_t *per = json_object();
        for (unsigned i = 1 + rnd(2); i; i--) {
            json_t *col = json_array();
            for (int64_t r = 0; r < world; r++)
                json_array_append_new(col, rnd(3) ? rand_value(0) : json_integer(r));
            char k[4] = {(char)('m' + rnd(3)), 0};
            json_object_set_new(per, k, col);
        }
        json_object_set_new(e, "perRank", per);
    }
    return e;
}

/* One change that may or may not keep the view equal: a field replaced, dropped or added. */
static void mutate(json_t *view)
{
    const char *keys[8];
    size_t n = 0;
    const char *k;
    json_t *v;
    json_object_foreach(view, k, v) {
        if (n < 8)
            keys[n++] = k;
    }
    unsigned what = rnd(3);
    if (what == 0 && n)
        json_object_set_new(view, keys[rnd((unsigned)n)], rand_value(0));
    else if (what == 1 && n)
        json_object_del(view, keys[rnd((unsigned)n)]);
    else
        json_object_set_new(view, rnd(2) ? "z" : "a", rand_value(0));
}

START_TEST(property_same_is_a_pass)
{
    shc_bview b = {0};
    int right_same = 0, changed_same = 0, changed_fail = 0;
    for (int iter = 0; iter < 4000; iter++) {
        int64_t world = rnd(3) ? rnd(4) + 1 : 0;
        json_t *exp = rand_expected(world);
        json_t *test = json_pack("{s:s, s:O}", "result", "valid", "expected", exp);
        char *etext = json_dumps(exp, JSON_COMPACT | (rnd(2) ? JSON_INDENT(1) : 0));
        ck_assert(shc_bview_split(&b, sp(etext)));
        bool zero;
        ck_assert(shc_bview_world_zero(sp(etext), &zero));
        ck_assert_int_eq(zero, shc_expected_world(exp) == 0);
        for (int64_t rank = world ? 0 : -1; rank < (world ? world : 0); rank++) {
            json_t *view = shc_expected_view(exp, rank);
            for (int form = 0; form < 2; form++) {
                if (form)
                    mutate(view);
                size_t flags = JSON_COMPACT | (rnd(2) ? JSON_SORT_KEYS : 0) |
                               (rnd(3) ? 0 : JSON_INDENT(2));
                char *vtext = json_dumps(view, flags);
                bool same = shc_bview_same(&b, rank, sp(vtext));
                char msg[600];
                int pass = shc_compare_view(test, rank, view, msg, sizeof msg);
                if (same) /* the one rule: "same" is a pass with no note */
                    ck_assert_msg(pass == 1 && !msg[0], "%s rank %lld: %s (%s)", etext,
                                  (long long)rank, vtext, msg);
                /* the right view as jansson writes it: the fast path (sorted keys may
                 * reorder a nested object, and then the trees decide) */
                if (!form && !(flags & JSON_SORT_KEYS))
                    ck_assert_msg(same, "%s rank %lld: %s not same", etext, (long long)rank,
                                  vtext);
                right_same += !form && same;
                changed_same += form && same;
                changed_fail += form && !pass;
                free(vtext);
            }
            json_decref(view);
        }
        free(etext);
        json_decref(test);
        json_decref(exp);
    }
    /* the run reached both sides: changed views that still pass, and that fail */
    ck_assert_int_gt(right_same, 1000);
    ck_assert_int_gt(changed_same, 50);
    ck_assert_int_gt(changed_fail, 1000);
    shc_bview_free(&b);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("golden_bytes");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, table_rows);
    tcase_add_test(tc, world_zero_rows);
    tcase_add_test(tc, jcur_match_boundaries);
    tcase_add_test(tc, span_has_finds_words);
    tcase_add_test(tc, property_same_is_a_pass);
    suite_add_tcase(s, tc);
    return shc_run_suite(s);
}
