/*
 * check_run_outcome.c — an outcome line (tools/run/run_outcome.c) reads back as it was written,
 * and the hand-made reader of the verdict line agrees with jansson on every line:
 * - random outcomes (status, first, world, checked or not, views or none, a message and a
 *   comment drawn from printable ASCII, '"', '\', control bytes and UTF-8) written by
 *   run_outcome_dump come back field for field from run_outcome_parse, and the same as
 *   jansson's json_loads + run_outcome_load reads the line;
 * - lines the writer does not make (keys reordered, spaces, other escapes, a view, \u0000,
 *   leading zeros, a cut line; views with a real, an array, true, a trailing comma, a
 *   duplicate key, a long integer) are read exactly as jansson reads them, or refused as it
 *   does; and flat views (the invariants' fields, written by hand) come back as written.
 */
#include "config.h"
#include <string.h>
#include "tap.h"
#include "run.h"

static uint64_t rng = 0x2545f4914f6cdd1dULL;
static unsigned rnd(unsigned n)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (unsigned)(rng % n);
}

/* A random C string of at most cap - 1 bytes. */
static void rand_text(char *s, size_t cap)
{
    static const char *const atoms[] = {"a", "Z", " ", "\"", "\\", "\n", "\t", "\x01", "\x1f",
                                        "{", "}", ":", ",", "u0041", "\xc3\xa9", "/", "~"};
    size_t n = 0, want = rnd(3) ? rnd(40) : rnd((unsigned)cap + 40);
    s[0] = '\0';
    while (n < want) {
        const char *a = atoms[rnd(sizeof atoms / sizeof *atoms)];
        size_t k = strlen(a);
        if (n + k + 1 > cap)
            break;
        memcpy(s + n, a, k + 1);
        n += k;
    }
}

/* A random flat view: integers (some past 18 digits) and strings (some UTF-8, some long)
 * under random keys, as rank 0 receives the invariants' fields. */
static json_t *rand_flat_view(void)
{
    json_t *v = json_object();
    char key[40], text[1200];
    for (unsigned k = rnd(5); k > 0; k--) {
        rand_text(key, sizeof key);
        if (rnd(2)) {
            int64_t x = rnd(2) ? (int64_t)rnd(1000) - 500
                               : (int64_t)((uint64_t)rnd(1u << 31) << 32 | (uint64_t)rnd(1u << 31));
            json_object_set_new(v, key, json_integer(rnd(2) ? x : -x));
        } else {
            rand_text(text, rnd(8) ? 24 : sizeof text);
            json_object_set_new(v, key, json_string(text));
        }
    }
    return v;
}

/* What jansson alone reads of a line: 0 and *oc, or -1. */
static int by_jansson(const char *line, run_outcome *oc)
{
    json_t *j = json_loads(line, 0, NULL);
    int rc = j ? run_outcome_load(j, oc) : -1;
    json_decref(j);
    return rc;
}

static void same(const run_outcome *a, const run_outcome *b, const char *line)
{
    ck_assert_msg(a->status == b->status && a->first == b->first && a->checked == b->checked &&
                  a->count == b->count && !strcmp(a->msg, b->msg), "%s", line);
    if (a->checked)
        ck_assert_msg(a->world == b->world && !strcmp(a->comment, b->comment), "%s", line);
    for (int64_t i = 0; i < a->count; i++)
        ck_assert_msg(json_equal(a->views[i], b->views[i]) ||
                      (!a->views[i] && !b->views[i]), "%s", line);
}

START_TEST(random_outcomes_round_trip)
{
    int verdicts = 0;
    for (int iter = 0; iter < 20000; iter++) {
        run_outcome o = {.status = (run_status)rnd(RUN_NSTATUS), .checked = rnd(4) != 0,
                         .first = rnd(3) ? (int64_t)rnd(8) : (int64_t)rnd(1u << 30) * 4096,
                         .world = rnd(3) ? (int64_t)rnd(64) : -1};
        rand_text(o.msg, sizeof o.msg);
        rand_text(o.comment, sizeof o.comment);
        json_t *views[3] = {NULL, NULL, NULL};
        if (!rnd(4)) { /* views travel: jansson's line */
            o.count = 2;
            views[0] = json_pack("{s:[i,i],s:s}", "localShape", 2, 3, "x", "\"q\"");
            o.views = views;
        } else if (!rnd(3)) { /* flat views (the invariants' fields): the hand-made line */
            o.count = 1 + rnd(3);
            for (int64_t v = 0; v < o.count; v++)
                views[v] = rand_flat_view();
            o.views = views;
        }
        char *line = run_outcome_dump(&o);
        ck_assert_ptr_nonnull(line);
        verdicts += !strncmp(line, "{\"status\":", 10) && strstr(line, "\"views\":[],") != NULL;
        run_outcome a = {0}, b = {0};
        ck_assert_msg(run_outcome_parse(line, &a) == 0, "%s", line);
        ck_assert_msg(by_jansson(line, &b) == 0, "%s", line);
        same(&a, &b, line);
        same(&a, &o, line);  /* and as it was written */
        run_outcome_clear(&a);
        run_outcome_clear(&b);
        for (int v = 0; v < 3; v++)
            json_decref(views[v]);
        free(line);
    }
    ck_assert_int_gt(verdicts, 7000); /* the hand-written shape was the common one */
}
END_TEST

START_TEST(other_lines_as_jansson_reads_them)
{
    static const char *const lines[] = {
        "{\"status\":0,\"msg\":\"\",\"first\":0,\"world\":4,\"views\":[],\"checked\":true,"
        "\"comment\":\"c\"}",
        "{\"msg\":\"\",\"status\":0,\"first\":0,\"world\":4,\"views\":[],\"checked\":true,"
        "\"comment\":\"c\"}",
        "{\"status\": 0,\"msg\":\"\",\"first\":0,\"world\":4,\"views\":[],\"checked\":true,"
        "\"comment\":\"c\"}",
        "{\"status\":1,\"msg\":\"a\\nb\\u00e9\\/\",\"first\":0,\"world\":4,\"views\":[],"
        "\"checked\":true,\"comment\":\"\\t\"}",
        "{\"status\":1,\"msg\":\"a\\u0000b\",\"first\":0,\"world\":4,\"views\":[],"
        "\"checked\":true,\"comment\":\"\"}",
        "{\"status\":1,\"msg\":\"\",\"first\":01,\"world\":4,\"views\":[],\"checked\":true,"
        "\"comment\":\"\"}",
        "{\"status\":1,\"msg\":\"\",\"first\":0,\"world\":4,\"views\":[null,{\"a\":1}],"
        "\"checked\":true,\"comment\":\"\"}",
        "{\"status\":1,\"msg\":\"\",\"first\":0,\"world\":4,\"views\":[],\"checked\":true,"
        "\"comment\":\"\"",
        "{\"status\":1,\"msg\":\"\",\"first\":0,\"world\":4,\"views\":[],\"checked\":true,"
        "\"comment\":\"\"} x",
        "{\"status\":2,\"msg\":\"\\u001f\\u001F\",\"first\":-0,\"world\":99999999999999999999,"
        "\"views\":[],\"checked\":true,\"comment\":\"\\u00\"}",
        "{\"status\":2,\"msg\":\"\\u1234\",\"first\":0,\"world\":1,\"views\":[],"
        "\"checked\":true,\"comment\":\"\"}",
        "{\"status\":0,\"msg\":\"\",\"first\":0,\"world\":3,\"views\":[]}",
        /* flat views as the hand writer makes them, and near misses */
        "{\"status\":0,\"msg\":\"\",\"first\":2,\"world\":4,\"views\":[{\"a\":\"12\",\"b\":-3},"
        "{},{\"a\":\"\\u0001\\\"\"}],\"checked\":true,\"comment\":\"c\"}",
        "{\"status\":0,\"msg\":\"\",\"first\":2,\"world\":4,\"views\":[{\"a\":1,\"a\":2}],"
        "\"checked\":true,\"comment\":\"c\"}",
        "{\"status\":0,\"msg\":\"\",\"first\":2,\"world\":4,\"views\":[{\"a\":1.5}],"
        "\"checked\":true,\"comment\":\"c\"}",
        "{\"status\":0,\"msg\":\"\",\"first\":2,\"world\":4,\"views\":[{\"a\":[1]}],"
        "\"checked\":true,\"comment\":\"c\"}",
        "{\"status\":0,\"msg\":\"\",\"first\":2,\"world\":4,\"views\":[{\"a\":true,\"b\":null}],"
        "\"checked\":true,\"comment\":\"c\"}",
        "{\"status\":0,\"msg\":\"\",\"first\":2,\"world\":4,\"views\":[{\"a\":1,}],"
        "\"checked\":true,\"comment\":\"c\"}",
        "{\"status\":0,\"msg\":\"\",\"first\":2,\"world\":4,\"views\":[{\"a\":1},],"
        "\"checked\":true,\"comment\":\"c\"}",
        "{\"status\":0,\"msg\":\"\",\"first\":2,\"world\":4,\"views\":[{\"a\" :1}],"
        "\"checked\":true,\"comment\":\"c\"}",
        "{\"status\":0,\"msg\":\"\",\"first\":2,\"world\":4,\"views\":[{\"\\u0000\":1}],"
        "\"checked\":true,\"comment\":\"c\"}",
        "{\"status\":0,\"msg\":\"\",\"first\":2,\"world\":4,\"views\":[{\"a\":9223372036854775807}],"
        "\"checked\":true,\"comment\":\"c\"}",
        "{\"status\":0,\"msg\":\"\",\"first\":2,\"world\":4,\"views\":[{\"a\":\"\\u00e9\"}],"
        "\"checked\":true,\"comment\":\"c\"}",
        "{\"status\":0,\"msg\":\"\",\"first\":2,\"world\":4,\"views\":[{\"a\":1}],"
        "\"checked\":false,\"comment\":\"c\"}",
        "{\"status\":0,\"msg\":\"\",\"first\":2,\"world\":4,\"views\":[{\"a\":1}"
        "\"checked\":true,\"comment\":\"c\"}",
        "null", "", "{}",
    };
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
        run_outcome a = {0}, b = {0};
        int ra = run_outcome_parse(lines[i], &a), rb = by_jansson(lines[i], &b);
        ck_assert_msg(ra == rb, "line %zu: %d vs jansson %d", i, ra, rb);
        if (!ra)
            same(&a, &b, lines[i]);
        run_outcome_clear(&a);
        run_outcome_clear(&b);
    }
}
END_TEST

/* A view string holding a NUL is never cut short by the hand writer: the line is jansson's,
 * which writes \u0000 and refuses it back, so the runner says the outcome is unreadable. */
START_TEST(nul_in_a_view_is_not_cut)
{
    json_t *v = json_object();
    json_object_set_new(v, "start_incr", json_stringn("12\0" "34", 5));
    run_outcome o = {.status = RUN_PASS, .checked = true, .world = 1, .count = 1, .views = &v};
    char *line = run_outcome_dump(&o);
    ck_assert_ptr_nonnull(line);
    ck_assert_msg(strstr(line, "\\u0000") != NULL, "%s", line);
    run_outcome a = {0};
    ck_assert_int_ne(run_outcome_parse(line, &a), 0);
    run_outcome_clear(&a);
    free(line);
    json_decref(v);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("run_outcome");
    TCase *tc = tcase_create("lines");
    tcase_add_test(tc, random_outcomes_round_trip);
    tcase_add_test(tc, other_lines_as_jansson_reads_them);
    tcase_add_test(tc, nul_in_a_view_is_not_cut);
    suite_add_tcase(s, tc);
    return shc_run_suite(s);
}
