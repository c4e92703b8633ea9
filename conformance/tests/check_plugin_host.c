/*
 * check_plugin_host.c — tests of the host an ABI v2 plugin reads its case through and writes
 * its answer with (tools/run/plugin_host.c):
 * - the case never carries the answer ("expected", "result", "byVersion") nor the group's
 *   "tests", and holds family, torch, tcId and world;
 * - the reader looks a key up in the test, then the group, then the case; decimal strings
 *   read as integers, anything else (absent, a float, " 5", "5x") is -1; i64s copies at most
 *   cap items and says the length, refuses arrays with a non-integer and a negative cap;
 * - the writer: every put_* form as the golden view writes it; a key given twice, bad JSON,
 *   a NULL key or value, a negative count refuse the answer with the first reason, and
 *   later puts do not replace it.
 */
#include "config.h"
#include <string.h>
#include "tap.h"
#include "plugin_host.h"

static shc_case_v2 c;
static const shc_host_v2 *h;

static void setup(void)
{
    json_error_t je;
    json_t *g = json_loads("{\"mesh\": [2, 2], \"rankMap\": [3, 1, 2, 0], \"op\": \"g\", "
                           "\"tests\": [1]}", 0, &je);
    json_t *t = json_loads("{\"tcId\": 7, \"placements\": \"S(0),R\", \"shape\": [5, \"9\"], "
                           "\"op\": \"t\", \"seed\": \"18446744073709551\", \"bad\": [1, 2.5], "
                           "\"f\": 1.5, \"sp\": \" 5\", \"x\": \"5x\", \"result\": \"valid\", "
                           "\"expected\": {\"a\": 1}, \"byVersion\": []}", 0, &je);
    shc_err e = {0};
    ck_assert_int_eq(shc_case_v2_init(&c, "shard-layout", "2.13.0", g, t, 4, &e), SHC_OK);
    json_decref(g);
    json_decref(t);
    h = shc_plugin_host();
}

static void teardown(void) { shc_case_v2_free(&c); }

START_TEST(t_case)
{
    const char *text = h->case_json(&c);
    ck_assert_ptr_nonnull(text);
    ck_assert_ptr_null(strstr(text, "expected"));
    ck_assert_ptr_null(strstr(text, "result"));
    ck_assert_ptr_null(strstr(text, "byVersion"));
    ck_assert_ptr_null(strstr(text, "tests"));
    ck_assert_str_eq(h->str(&c, "family"), "shard-layout");
    ck_assert_str_eq(h->str(&c, "torch"), "2.13.0");
    int64_t v;
    ck_assert_int_eq(h->i64(&c, "world", &v), 0);
    ck_assert_int_eq(v, 4);
    ck_assert_int_eq(h->i64(&c, "tcId", &v), 0);
    ck_assert_int_eq(v, 7);
    ck_assert_ptr_null(h->str(&c, "expected"));
    ck_assert_ptr_null(h->json(&c, "group")); /* the case's own sub-objects are not members */
}
END_TEST

START_TEST(t_reader)
{
    ck_assert_str_eq(h->str(&c, "op"), "t"); /* the test before the group */
    ck_assert_str_eq(h->json(&c, "rankMap"), "[3,1,2,0]");
    int64_t v = -7, a[4] = {0};
    ck_assert_int_eq(h->i64(&c, "seed", &v), 0);
    ck_assert_int_eq(v, 18446744073709551LL);
    ck_assert_int_eq(h->i64(&c, "f", &v), -1);
    ck_assert_int_eq(h->i64(&c, "sp", &v), -1);
    ck_assert_int_eq(h->i64(&c, "x", &v), -1);
    ck_assert_int_eq(h->i64(&c, "none", &v), -1);
    ck_assert_int_eq(h->i64(&c, "op", &v), -1);
    ck_assert_int_eq(h->i64s(&c, "rankMap", a, 2), 4);
    ck_assert_int_eq(a[0], 3);
    ck_assert_int_eq(a[1], 1);
    ck_assert_int_eq(a[2], 0); /* past cap: untouched */
    ck_assert_int_eq(h->i64s(&c, "shape", a, 4), 2);
    ck_assert_int_eq(a[1], 9);
    ck_assert_int_eq(h->i64s(&c, "bad", a, 4), -1);
    ck_assert_int_eq(h->i64s(&c, "rankMap", a, -1), -1);
    ck_assert_int_eq(h->i64s(&c, "rankMap", NULL, 0), 4); /* the length alone */
    ck_assert_int_eq(h->i64s(&c, "placements", a, 4), -1);
    ck_assert_ptr_null(h->str(NULL, "op"));
    ck_assert_ptr_null(h->str(&c, NULL));
}
END_TEST

static json_t *take(shc_answer_v2 *a, char *why)
{
    return shc_answer_v2_take(a, why, 256);
}

START_TEST(t_writer)
{
    shc_answer_v2 a;
    shc_answer_v2_init(&a);
    int64_t v[3] = {1, -2, INT64_MAX};
    ck_assert_int_eq(h->put_int(&a, "i", -5), 0);
    ck_assert_int_eq(h->put_dec(&a, "d", INT64_MIN), 0);
    ck_assert_int_eq(h->put_str(&a, "s", "S(0)"), 0);
    ck_assert_int_eq(h->put_ints(&a, "is", v, 3), 0);
    ck_assert_int_eq(h->put_decs(&a, "ds", v, 3), 0);
    ck_assert_int_eq(h->put_ints(&a, "empty", NULL, 0), 0);
    ck_assert_int_eq(h->put_json(&a, "j", "[null, [0, 4]]"), 0);
    char why[256] = "";
    json_t *view = take(&a, why);
    ck_assert_ptr_nonnull(view);
    char *text = json_dumps(view, JSON_COMPACT | JSON_SORT_KEYS);
    ck_assert_str_eq(text, "{\"d\":\"-9223372036854775808\",\"ds\":[\"1\",\"-2\","
                           "\"9223372036854775807\"],\"empty\":[],\"i\":-5,\"is\":[1,-2,"
                           "9223372036854775807],\"j\":[null,[0,4]],\"s\":\"S(0)\"}");
    free(text);
    json_decref(view);
}
END_TEST

/* One refusal: the first reason stands, and the answer is not taken. */
static void refused(void (*puts_)(shc_answer_v2 *a), const char *want)
{
    shc_answer_v2 a;
    shc_answer_v2_init(&a);
    puts_(&a);
    char why[256] = "";
    ck_assert_ptr_null(take(&a, why));
    ck_assert_msg(strstr(why, want) != NULL, "why '%s' lacks '%s'", why, want);
}

static void p_twice(shc_answer_v2 *a)
{
    ck_assert_int_eq(h->put_int(a, "k", 1), 0);
    ck_assert_int_eq(h->put_json(a, "k", "2"), -1);
    ck_assert_int_eq(h->put_json(a, "k2", "{"), -1); /* later: not the reason */
}
static void p_badjson(shc_answer_v2 *a) { ck_assert_int_eq(h->put_json(a, "k", "[1, 2"), -1); }
static void p_dupjson(shc_answer_v2 *a)
{
    ck_assert_int_eq(h->put_json(a, "k", "{\"a\": 1, \"a\": 2}"), -1);
}
static void p_nullkey(shc_answer_v2 *a) { ck_assert_int_eq(h->put_int(a, NULL, 1), -1); }
static void p_nullval(shc_answer_v2 *a) { ck_assert_int_eq(h->put_str(a, "k", NULL), -1); }
static void p_negcount(shc_answer_v2 *a) { ck_assert_int_eq(h->put_ints(a, "k", NULL, -1), -1); }
static void p_nullvals(shc_answer_v2 *a) { ck_assert_int_eq(h->put_decs(a, "k", NULL, 2), -1); }

START_TEST(t_refusals)
{
    refused(p_twice, "\"k\" given twice");
    refused(p_badjson, "put_json(\"k\"): not JSON");
    refused(p_dupjson, "put_json(\"k\"): not JSON");
    refused(p_nullkey, "NULL key");
    refused(p_nullval, "put_str(\"k\"): NULL value");
    refused(p_negcount, "put_ints(\"k\"): a negative count");
    refused(p_nullvals, "put_decs(\"k\"): NULL values");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("plugin_host");
    TCase *tc = tcase_create("host");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, t_case);
    tcase_add_test(tc, t_reader);
    tcase_add_test(tc, t_writer);
    tcase_add_test(tc, t_refusals);
    suite_add_tcase(s, tc);
    return shc_run_suite(s);
}
