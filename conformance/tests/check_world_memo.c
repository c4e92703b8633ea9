/*
 * check_world_memo.c — world_memo.c, the last case's per-rank answers kept for the next rank:
 * a hit returns an equal and independent copy; any change to the case's inputs (a group
 * member, the test) or a rank outside it misses; the group's "tests" member (whole from the
 * tree loader, empty from the index) is not an input; a new case replaces the old; threads
 * asking at once all get the answer.
 */
#include "config.h"
#include <pthread.h>
#include "tap.h"
#include "world_memo.h"

static json_t *group_of(const char *mesh, int ntests)
{
    json_t *tests = json_array();
    for (int i = 0; i < ntests; i++)
        json_array_append_new(tests, json_pack("{s:i}", "tcId", i + 1));
    return json_pack("{s:s,s:o}", "mesh", mesh, "tests", tests);
}

static void put_views(shc_world_memo *m, const json_t *g, const json_t *t, int64_t n)
{
    json_t *v[8];
    for (int64_t r = 0; r < n; r++)
        v[r] = json_pack("{s:I}", "rank", (json_int_t)r);
    shc_world_memo_put(m, g, t, v, n);
}

static int64_t rank_in(json_t *view)
{
    int64_t r = view ? json_integer_value(json_object_get(view, "rank")) : -1;
    json_decref(view);
    return r;
}

START_TEST(hits_and_misses)
{
    shc_world_memo m = SHC_WORLD_MEMO_INIT;
    json_t *g = group_of("2x2", 3), *t = json_pack("{s:i,s:s}", "tcId", 2, "src", "S(0)");
    ck_assert_ptr_null(shc_world_memo_get(&m, g, t, 0)); /* empty */
    put_views(&m, g, t, 4);
    for (int64_t r = 0; r < 4; r++)
        ck_assert_int_eq(rank_in(shc_world_memo_get(&m, g, t, r)), r);
    ck_assert_ptr_null(shc_world_memo_get(&m, g, t, 4));
    ck_assert_ptr_null(shc_world_memo_get(&m, g, t, -1));
    /* the copy is the caller's: changing it leaves the kept answer */
    json_t *v = shc_world_memo_get(&m, g, t, 1);
    json_object_set_new(v, "rank", json_integer(99));
    json_decref(v);
    ck_assert_int_eq(rank_in(shc_world_memo_get(&m, g, t, 1)), 1);
    /* the group as the index loader gives it (tests empty) is the same case */
    json_t *gi = group_of("2x2", 0);
    ck_assert_int_eq(rank_in(shc_world_memo_get(&m, gi, t, 2)), 2);
    /* a changed input misses: the test, a group member */
    json_t *t2 = json_pack("{s:i,s:s}", "tcId", 2, "src", "S(1)");
    json_t *g2 = group_of("4", 3);
    ck_assert_ptr_null(shc_world_memo_get(&m, g, t2, 0));
    ck_assert_ptr_null(shc_world_memo_get(&m, g2, t, 0));
    ck_assert_int_eq(m.hits, 7);
    ck_assert_int_eq(m.misses, 5);
    /* a new case replaces the old */
    put_views(&m, g2, t2, 2);
    ck_assert_int_eq(rank_in(shc_world_memo_get(&m, g2, t2, 1)), 1);
    ck_assert_ptr_null(shc_world_memo_get(&m, g, t, 1));
    shc_world_memo_clear(&m);
    ck_assert_ptr_null(shc_world_memo_get(&m, g2, t2, 1));
    json_decref(g), json_decref(t), json_decref(gi), json_decref(t2), json_decref(g2);
}
END_TEST

typedef struct asker { shc_world_memo *m; json_t *g, *t; int64_t rank, got; } asker;

static void *ask(void *p)
{
    asker *a = p;
    for (int i = 0; i < 200; i++)
        a->got = rank_in(shc_world_memo_get(a->m, a->g, a->t, a->rank));
    return NULL;
}

START_TEST(threads_ask_at_once)
{
    shc_world_memo m = SHC_WORLD_MEMO_INIT;
    json_t *g = group_of("8", 1), *t = json_pack("{s:i}", "tcId", 1);
    put_views(&m, g, t, 8);
    pthread_t th[8];
    asker a[8];
    for (int r = 0; r < 8; r++) {
        a[r] = (asker){&m, g, t, r, -1};
        ck_assert_int_eq(pthread_create(&th[r], NULL, ask, &a[r]), 0);
    }
    for (int r = 0; r < 8; r++) {
        pthread_join(th[r], NULL);
        ck_assert_int_eq(a[r].got, r);
    }
    ck_assert_int_eq(m.hits, 8 * 200);
    shc_world_memo_clear(&m);
    json_decref(g), json_decref(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("world_memo");
    TCase *tc = tcase_create("memo");
    tcase_add_test(tc, hits_and_misses);
    tcase_add_test(tc, threads_ask_at_once);
    suite_add_tcase(s, tc);
    return shc_run_suite(s);
}
