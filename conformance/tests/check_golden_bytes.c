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
 * And the scanner itself must accept exactly what jansson accepts with the flags verify
 * reads with (shc_json_loadb: JSON_REJECT_DUPLICATES): tables and random texts of every
 * token kind (numbers at the overflow boundaries, strings with escapes and UTF-8, keys
 * repeated plainly or through escapes, in small and large objects) are scanned and parsed,
 * and the two must agree (issue 27 N1, N2, N3, N10).
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
    /* whitespace only between tokens: inside a number or literal it splits it (N1) */
    {"{\"a\":[10]}", -1, "{\"a\":[1 0]}", 0},
    {"{\"a\":[10]}", -1, "{\"a\":[1\n0]}", 0},
    {"{\"a\":[10]}", -1, "{\"a\":[ 10 ]}", 1},
    {"{\"a\":[10,2]}", -1, "{\"a\":[10 ,\t2]}", 1},
    {"{\"a\":null}", -1, "{\"a\":nu ll}", 0},
    {"{\"a\":true}", -1, "{\"a\":t rue}", 0},
    {"{\"a\":false}", -1, "{\"a\":fals e}", 0},
    {"{\"a\":-1}", -1, "{\"a\":- 1}", 0},
    {"{\"a\":1.5}", -1, "{\"a\":1 .5}", 0},
    {"{\"a\":1e5}", -1, "{\"a\":1e 5}", 0},
    {"{\"a\":[\"x\",1]}", -1, "{\"a\":[\"x\" , 1 ]}", 1},
    {"{\"perRank\":{\"n\":[[10],[2]]}}", 0, "{\"n\":[1 0]}", 0},
    {"{\"perRank\":{\"n\":[null,1]}}", 0, "{\"n\":n ull}", 0},
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
        /* the same view as a tree (run_lean.c): "same" where the bytes are, and where they
         * differ only in how one value is written or ordered */
        json_t *view = json_loads(r->values, 0, NULL);
        if (view && r->same)
            ck_assert_msg(shc_bview_same_tree(&b, r->rank, view), "row %zu as a tree", i);
        json_decref(view);
    }
    shc_bview_free(&b);
}
END_TEST

/* The vouch hook's match on an unvalidated cursor (shc_bview_match): a split token is no
 * match, so the scan validates those bytes itself and refuses them (issue 27 N1). */
START_TEST(bview_match_split_tokens)
{
    static const char *const bad[] = {"{\"n\":[1 0]}", "{\"n\":[1 0] }", "{\"n\": [1\t0]}"};
    shc_bview b = {0};
    ck_assert(shc_bview_split(&b, sp("{\"perRank\":{\"n\":[[10],[2]]}}")));
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        shc_jcur c = shc_jcur_of(sp(bad[i]));
        ck_assert_msg(!shc_bview_match(&b, 0, &c), "%s matched", bad[i]);
        ck_assert(c.p == bad[i]); /* left where it was */
    }
    shc_jcur c = shc_jcur_of(sp("{ \"n\" : [ 10 ] },"));
    ck_assert(shc_bview_match(&b, 0, &c));
    ck_assert(*c.p == ',');
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
    int right_same = 0, changed_same = 0, changed_fail = 0, tree_same_changed = 0;
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
                bool same_tree = shc_bview_same_tree(&b, rank, view);
                char msg[600];
                int pass = shc_compare_view(test, rank, view, msg, sizeof msg);
                if (same) /* the one rule: "same" is a pass with no note */
                    ck_assert_msg(pass == 1 && !msg[0], "%s rank %lld: %s (%s)", etext,
                                  (long long)rank, vtext, msg);
                if (same_tree) /* and the tree's too */
                    ck_assert_msg(pass == 1 && !msg[0], "%s rank %lld: tree %s (%s)", etext,
                                  (long long)rank, vtext, msg);
                /* the right view as a tree: always same (its order and escapes aside) */
                if (!form)
                    ck_assert_msg(same_tree, "%s rank %lld: tree %s not same", etext,
                                  (long long)rank, vtext);
                tree_same_changed += form && same_tree;
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
    ck_assert_int_gt(tree_same_changed, 50);
    shc_bview_free(&b);
}
END_TEST

/* ---- the scanner accepts what jansson accepts (flags of shc_json_loadb) ---- */

static int any_result(void *ctx, const shc_scan_result *r)
{
    (void)ctx, (void)r;
    return 0;
}

/* One text, scanned as a candidate (results entries walked) and as a golden-shaped
 * document, and parsed by jansson: accepted by both or by neither. */
static int agree_count;
static void agree(const char *text, size_t n)
{
    shc_scan_doc d;
    int a = shc_scan_candidate(text, n, &d, NULL, NULL, any_result, NULL, NULL);
    int b = shc_scan_golden_shaped(text, n, &d, NULL, NULL, NULL);
    json_error_t je;
    json_t *j = shc_json_loadb(text, n, &je);
    if ((a == 0) != (j != NULL) || (b == 0) != (j != NULL)) {
        char shown[1700];
        size_t k = 0;
        for (size_t i = 0; i < n && k + 5 < sizeof shown; i++) /* bytes as C escapes */
            k += (size_t)snprintf(shown + k, sizeof shown - k,
                                  text[i] >= 0x20 && text[i] < 0x7f ? "%c" : "\\x%02x",
                                  (unsigned char)text[i]);
        ck_abort_msg("scanner %d/%d, jansson %s: %s", a, b, j ? "reads it" : je.text, shown);
    }
    agree_count += j != NULL;
    json_decref(j);
}

/* A value in every place the scanner reads one its own way. */
static void agree_value(const char *v)
{
    static const char *const at[] = {
        "{\"x\":%s}", "{\"x\":[1,%s]}", "{\"results\":[{\"tcId\":1,\"values\":{\"a\":%s}}]}",
        "{\"results\":[{\"tcId\":1,\"rank\":0,\"values\":%s}]}",
        "{\"results\":[{\"tcId\":1,\"error\":%s}]}", "{\"results\":[%s]}",
        "{\"family\":%s,\"testGroups\":[]}",
        "{\"testGroups\":[{\"tests\":[{\"tcId\":1,\"result\":%s,\"expected\":{}}]}]}",
        "{\"testGroups\":[{\"tests\":[{\"tcId\":1,\"expected\":{\"perRank\":{\"n\":[%s]}}}]}]}"};
    char buf[4096];
    for (size_t i = 0; i < sizeof at / sizeof *at; i++) {
        int n = snprintf(buf, sizeof buf, at[i], v);
        ck_assert(n > 0 && (size_t)n < sizeof buf);
        agree(buf, (size_t)n);
    }
}

/* A key in every place the scanner reads keys (the walks by name and the generic scan). */
static void agree_keys(const char *members)
{
    static const char *const at[] = {
        "{%s}", "{\"x\":{%s}}", "{\"results\":[{%s}]}", "{\"results\":[{\"tcId\":1,\"values\":{%s}}]}",
        "{\"testGroups\":[{%s,\"tests\":[]}]}", "{\"testGroups\":[{\"tests\":[{%s}]}]}"};
    char buf[4096];
    for (size_t i = 0; i < sizeof at / sizeof *at; i++) {
        int n = snprintf(buf, sizeof buf, at[i], members);
        ck_assert(n > 0 && (size_t)n < sizeof buf);
        agree(buf, (size_t)n);
    }
}

#define T_DIGITS "179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497792"
#define T_MINUS_1 "179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497791"
START_TEST(scan_numbers_as_jansson)
{
    static const char *const nums[] = {
        "0", "-0", "01", "-", "-a", "1.", ".5", "1e", "1e+", "1E-2", "1.5e+3", "0.0", "-0.0e-0",
        "9223372036854775807", "-9223372036854775808", "9223372036854775808",
        "-9223372036854775809", "99999999999999999999", "00",
        "1e308", "1e309", "-1e309", "1e-400", "0e99999", "0.000e400", "1e0000000000000000000308",
        "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308",
        "17976931348623158e292", "0.17976931348623158e309",
        T_DIGITS ".0", T_MINUS_1 ".0", "-" T_DIGITS ".0", "-" T_MINUS_1 ".9999",
        T_MINUS_1 "e0", T_DIGITS "e-0", "0." T_DIGITS "e309", "0." T_MINUS_1 "9e309",
        "0.0000" T_MINUS_1 "e313", "0.0000" T_DIGITS "e313", T_MINUS_1 "0e-1", T_DIGITS "1e-1"};
    for (size_t i = 0; i < sizeof nums / sizeof *nums; i++)
        agree_value(nums[i]);
    /* N2 of issue 27: 1 with 250 zeros and e99 (1e349), and its neighbours */
    char big[400];
    memset(big, '0', sizeof big);
    big[0] = '1';
    for (int zeros = 240; zeros <= 320; zeros += 4) {
        for (int form = 0; form < 3; form++) {
            char v[420];
            const char *tail = form == 0 ? "e99" : form == 1 ? ".5" : "e-2";
            snprintf(v, sizeof v, "%.*s%s", zeros + 1, big, tail);
            agree_value(v);
        }
    }
}
END_TEST

START_TEST(scan_strings_as_jansson)
{
    static const char *const strs[] = {
        "\"\"", "\"abc\"", "\"\\u00e9\"", "\"\xc3\xa9\"", "\"\\ud83d\\ude00\"", "\"\\uD83D\\uDE00\"",
        "\"\\ud83d\"", "\"\\ude00\"", "\"\\ud83dx\"", "\"\\ud83d\\u0041\"", "\"\\ud83d\\ud83d\"",
        "\"\\u0000\"", "\"a\\u0000b\"", "\"\\u00G0\"", "\"\\u00e\"", "\"\\x\"", "\"\\\"", "\"\t\"",
        "\"\n\"", "\"\x01\"", "\"\x1f\"", "\"\x7f\"", "\"\xc3\"", "\"\xc3x\"", "\"\xc0\x80\"", "\"\xc1\xbf\"",
        "\"\xc2\x80\"", "\"\xdf\xbf\"", "\"\xe0\x80\x80\"", "\"\xe0\xa0\x80\"", "\"\xed\x9f\xbf\"",
        "\"\xed\xa0\x80\"", "\"\xef\xbf\xbf\"", "\"\xf0\x8f\xbf\xbf\"", "\"\xf0\x90\x80\x80\"",
        "\"\xf4\x8f\xbf\xbf\"", "\"\xf4\x90\x80\x80\"", "\"\xf5\x80\x80\x80\"", "\"\xff\"", "\"\x80\"",
        "\"\xe2\x82\"", "\"\xf0\x9f\x98\"", "\"\\/\\b\\f\\n\\r\\t\\\"\\\\\"", "\"unterminated",
        "\xc3\xa9", "true", "tru", "truex", "nul", "null", "nulll", "false", "f", "[1 0]", "{}"};
    for (size_t i = 0; i < sizeof strs / sizeof *strs; i++)
        agree_value(strs[i]);
}
END_TEST

START_TEST(scan_keys_as_jansson)
{
    static const char *const mem[] = {
        "\"a\":1,\"a\":2", "\"a\":1,\"\\u0061\":2", "\"\\u0061\":1,\"a\":2", "\"\xc3\xa9\":1,\"\\u00e9\":2",
        "\"\\ud83d\\ude00\":1,\"\xf0\x9f\x98\x80\":2", "\"a\":{\"b\":1,\"b\":2}", "\"a\":{\"a\":1},\"b\":{\"a\":2}",
        "\"tcId\":1,\"tcId\":1", "\"t\\u0063Id\":1,\"tcId\":2", "\"values\":{},\"values\":{}",
        "\"tcId\":1,\"values\":{\"words\":[1],\"words\":[2]}", "\"\\u0000\":1", "\"a\\u0000\":1",
        "\"a\":1,\"A\":2", "\"a\":1,\"a \":2", "\"\":1,\"\":2", "\"\":1", "\"tests\":[],\"tests\":[]",
        "\"x\\/\":1,\"x/\":2", "\"x\\\"\":1,\"x\\u0022\":2"};
    for (size_t i = 0; i < sizeof mem / sizeof *mem; i++)
        agree_keys(mem[i]);
    /* objects past the keys compared one by one (json_keys.h): the repeat at the end, at
     * the start, escaped, or none */
    char buf[2048];
    for (int nkeys = 14; nkeys <= 40; nkeys += 13) {
        for (int dup = -1; dup < 4; dup++) {
            size_t n = 0;
            for (int k = 0; k < nkeys; k++)
                n += (size_t)snprintf(buf + n, sizeof buf - n, "%s\"k%d\":%d", k ? "," : "", k, k);
            if (dup == 0)
                n += (size_t)snprintf(buf + n, sizeof buf - n, ",\"k%d\":0", nkeys - 1);
            else if (dup == 1)
                n += (size_t)snprintf(buf + n, sizeof buf - n, ",\"k0\":0");
            else if (dup == 2)
                n += (size_t)snprintf(buf + n, sizeof buf - n, ",\"\\u006b%d\":0", nkeys / 2);
            else if (dup == 3)
                n += (size_t)snprintf(buf + n, sizeof buf - n, ",\"k%d\":{\"k0\":1}", nkeys);
            agree_keys(buf);
        }
    }
}
END_TEST

/* Random texts near JSON: a random document, then a few bytes changed to ones that matter
 * to a lexer.  Scanner and jansson must agree on every one. */
static size_t rand_text(char *b, size_t cap, int depth)
{
    static const char *const atoms[] = {
        "0", "-1", "12", "1.5", "1e308", "1e309", "2e-400", "9223372036854775807",
        "9223372036854775808", "true", "false", "null", "\"\"", "\"x\"", "\"\\u00e9\"",
        "\"\\ud83d\\ude00\"", "\"\\ud83d\"", "\"\xc3\xa9\"", "\"\\u0000\"", "\"\\n\""};
    static const char *const keys[] = {"\"a\"", "\"b\"", "\"\\u0061\"", "\"tcId\"",
                                       "\"values\"", "\"rank\"", "\"\xc3\xa9\"", "\"\\u00e9\""};
    size_t n = 0;
    unsigned kind = depth > 3 ? 2 : rnd(4);
    if (cap < 64)
        return (size_t)snprintf(b, cap, "0");
    if (kind == 2 || kind == 3) {
        const char *a = atoms[rnd(sizeof atoms / sizeof *atoms)];
        return (size_t)snprintf(b, cap, "%s", a);
    }
    b[n++] = kind ? '[' : '{';
    for (unsigned i = rnd(4); i; i--) {
        if (n + 64 > cap)
            break;
        if (n > 1)
            b[n++] = ',';
        if (!kind)
            n += (size_t)snprintf(b + n, cap - n, "%s:", keys[rnd(sizeof keys / sizeof *keys)]);
        n += rand_text(b + n, cap - n - 2, depth + 1);
    }
    b[n++] = kind ? ']' : '}';
    return n;
}

START_TEST(scan_random_texts_as_jansson)
{
    static const char bytes[] = " \t\n\"\\{}[],:0123456789.eE+-utfnl\xc3\xa9\x80\xed\xf4\x00\x01";
    char buf[8192];
    int read = 0;
    for (int iter = 0; iter < 30000; iter++) {
        size_t n = (size_t)snprintf(buf, sizeof buf, "{\"results\":[{\"tcId\":1,\"values\":");
        n += rand_text(buf + n, sizeof buf - n - 64, 0);
        n += (size_t)snprintf(buf + n, sizeof buf - n, "}],\"x\":");
        n += rand_text(buf + n, sizeof buf - n - 8, 0);
        buf[n++] = '}';
        for (unsigned k = rnd(3); k; k--) {
            size_t at = rnd((unsigned)n);
            switch (rnd(3)) {
            case 0: buf[at] = bytes[rnd(sizeof bytes - 1)]; break;
            case 1: memmove(buf + at, buf + at + 1, n - at - 1), n--; break;
            default:
                if (n + 1 < sizeof buf) {
                    memmove(buf + at + 1, buf + at, n - at);
                    buf[at] = bytes[rnd(sizeof bytes - 1)];
                    n++;
                }
            }
        }
        int before = agree_count;
        agree(buf, n);
        read += agree_count > before;
    }
    /* both sides were reached: texts jansson reads and texts it refuses */
    ck_assert_int_gt(read, 3000);
    ck_assert_int_lt(read, 27000);
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
    tcase_add_test(tc, bview_match_split_tokens);
    tcase_add_test(tc, scan_numbers_as_jansson);
    tcase_add_test(tc, scan_strings_as_jansson);
    tcase_add_test(tc, scan_keys_as_jansson);
    tcase_add_test(tc, scan_random_texts_as_jansson);
    suite_add_tcase(s, tc);
    return shc_run_suite(s);
}
