/*
 * check_json_build.c — shc_json_build (conformance/corpus/json_build.c) builds the tree jansson
 * builds, or nothing:
 * - every test of every golden family, as the runner's workers read it (its "expected" read as
 *   null, run_lean.c), builds to the tree shc_json_loadb parses from the same bytes, keys in
 *   the same order (their dumps are equal), and the builder decides nearly all of them;
 * - random texts jansson wrote (escapes, UTF-8, reals, long integers among the common tokens,
 *   compact and indented) and the same texts with a byte deleted, changed or inserted: wherever
 *   the builder gives a tree, jansson parses the text to an equal one; where jansson refuses,
 *   the builder gives nothing; and texts jansson reads with tokens the builder leaves to it
 *   (an escape, a real, 19 digits, a repeated key) give nothing.
 */
#include "config.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "golden.h"
#include "json_build.h"

static uint64_t rng = 0xd1b54a32d192ed03ULL;
static unsigned rnd(unsigned n)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (unsigned)(rng % n);
}

/* Whether a and b dump to the same bytes (the same values, keys in the same order). */
static bool same_dump(const json_t *a, const json_t *b)
{
    char *x = json_dumps(a, JSON_COMPACT), *y = json_dumps(b, JSON_COMPACT);
    bool same = x && y && !strcmp(x, y);
    free(x);
    free(y);
    return same;
}

/* The builder against jansson on one text: 1 built (and equal), 0 left to jansson. */
static int against_jansson(const char *text, size_t n, const char *what)
{
    json_error_t je;
    json_t *b = shc_json_build(text, n), *j = shc_json_loadb(text, n, &je);
    ck_assert_msg(!b || j, "%s: built a tree of a text jansson refuses: %.120s", what, text);
    ck_assert_msg(!b || same_dump(b, j), "%s: a tree other than jansson's: %.120s", what, text);
    json_decref(b);
    json_decref(j);
    return b != NULL;
}

START_TEST(golden_tests_build_as_jansson_reads_them)
{
    char gdir[4096];
    snprintf(gdir, sizeof gdir, "%s/golden", shc_srcdir());
    DIR *d = opendir(gdir);
    ck_assert_ptr_nonnull(d);
    struct dirent *fe;
    int64_t tests = 0, built = 0;
    char *buf = NULL;
    size_t cap = 0;
    while ((fe = readdir(d))) {
        if (fe->d_name[0] == '.' || !strcmp(fe->d_name, "schemas") || !strcmp(fe->d_name, "MANIFEST"))
            continue;
        shc_golden g;
        ck_assert_int_eq(shc_golden_index_family(&g, gdir, fe->d_name, NULL), 0);
        ck_assert_ptr_nonnull(g.text);
        int64_t step = shc_test_sampled() ? 37 : 1; /* the sanitized build: a sample */
        for (int64_t i = 0; i < g.ntests; i += step) {
            shc_span t = g.text[i].test, x = g.text[i].expected;
            size_t head = (size_t)(x.p - t.p), tail = t.n - head - x.n, need = head + 4 + tail;
            if (need > cap)
                ck_assert_ptr_nonnull(buf = realloc(buf, cap = 2 * need));
            memcpy(buf, t.p, head);
            memcpy(buf + head, "null", 4);
            memcpy(buf + head + 4, x.p + x.n, tail);
            built += against_jansson(buf, need, fe->d_name);
            tests++;
        }
        shc_golden_free(&g);
    }
    closedir(d);
    free(buf);
    ck_assert_int_gt(tests, shc_test_sampled() ? 1000 : 100000);
    ck_assert_msg(built * 10 > tests * 9, "built %lld of %lld", (long long)built, (long long)tests);
}
END_TEST

static json_t *rand_value(int depth)
{
    static const char *const strs[] = {"a", "valid", "R,P(min)", "tab\there", "quote\"", "back\\",
                                       "\xc3\xa9t\xc3\xa9", "", "x y", "\x7f"};
    switch (depth > 4 ? 2 + rnd(6) : rnd(8)) {
    case 0:
    case 1: {
        json_t *c = rnd(2) ? json_object() : json_array();
        for (unsigned k = rnd(5); k > 0; k--) {
            char key[8];
            snprintf(key, sizeof key, rnd(8) ? "k%u" : "\\u%u", rnd(6));
            if (json_is_object(c))
                json_object_set_new(c, key, rand_value(depth + 1));
            else
                json_array_append_new(c, rand_value(depth + 1));
        }
        return c;
    }
    case 2: return json_string(strs[rnd(sizeof strs / sizeof *strs)]);
    case 3: return json_integer(rnd(2) ? (json_int_t)rnd(1000) - 500 : (json_int_t)rnd(1u << 31) << 30);
    case 4: return json_real(rnd(1000) / 8.0);
    case 5: return json_true();
    case 6: return json_false();
    default: return json_null();
    }
}

START_TEST(random_texts_as_jansson_reads_them)
{
    int built = 0, left = 0;
    for (int iter = 0; iter < 20000; iter++) {
        json_t *v = rand_value(0);
        if (!json_is_object(v) && !json_is_array(v)) {
            json_t *a = json_array();
            json_array_append_new(a, v);
            v = a;
        }
        char *text = json_dumps(v, rnd(2) ? JSON_COMPACT : JSON_INDENT(rnd(3)));
        ck_assert_ptr_nonnull(text);
        size_t n = strlen(text);
        int b = against_jansson(text, n, "as written");
        built += b, left += !b;
        if (n > 1) { /* one byte deleted, changed or inserted */
            char *m = malloc(n + 2);
            size_t at = rnd((unsigned)n);
            static const char bytes[] = "{}[],:\" 0-9e.tfn\\\x01";
            memcpy(m, text, n + 1);
            switch (rnd(3)) {
            case 0: memmove(m + at, m + at + 1, n - at), n--; break;
            case 1: m[at] = bytes[rnd(sizeof bytes - 1)]; break;
            default: memmove(m + at + 1, m + at, n - at + 1), m[at] = bytes[rnd(sizeof bytes - 1)], n++;
            }
            against_jansson(m, n, "changed");
            free(m);
        }
        free(text);
        json_decref(v);
    }
    ck_assert_int_gt(built, 2000);
    ck_assert_int_gt(left, 2000);
}
END_TEST

START_TEST(what_is_left_to_jansson)
{
    static const char *const texts[] = {
        "{\"a\":1,\"a\":2}", "{\"a\\u0062\":1}", "[1.5]", "[1e3]", "[1234567890123456789]",
        "[-1234567890123456789]", "[\"\xc3\xa9\"]", "[1\0]", "[01]", "{\"a\":[1,]}", "7",
        "\"top\"", "[tru]", "[1] x", "[\"\t\"]"};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        size_t n = i == 7 ? 4 : strlen(texts[i]);
        ck_assert_msg(shc_json_build(texts[i], n) == NULL, "built %s", texts[i]);
    }
    /* and the edges it keeps: 18 digits, -0, nesting, whitespace */
    static const char *const kept[] = {"[123456789012345678, -123456789012345678, -0, 0]",
                                       " {\"a\" : [ [ ], { } , null , true , false ] }\n"};
    for (size_t i = 0; i < sizeof kept / sizeof *kept; i++)
        ck_assert_int_eq(against_jansson(kept[i], strlen(kept[i]), "kept"), 1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("json_build");
    TCase *tc = tcase_create("build");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, golden_tests_build_as_jansson_reads_them);
    tcase_add_test(tc, random_texts_as_jansson_reads_them);
    tcase_add_test(tc, what_is_left_to_jansson);
    suite_add_tcase(s, tc);
    return shc_run_suite(s);
}
