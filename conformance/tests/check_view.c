/*
 * check_view.c — unit tests of lib/layout/view_map.c, view_rule.c and view_check.c.
 *
 * Every expectation is worked out by hand in the comments from torch 2.13's
 * _view_ops.py (view_groups' grouping, the analysis and rewrite phases) and the torch.chunk
 * rule — never from our own output.  The verdict tests feed the check hand-made wrong
 * answers, so a check that cannot fail fails here.  The harness compares the rule with torch
 * itself (tools/harness/tests/test_view_sharding.py).
 */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include "tap.h"
#include "shardcheck.h"

typedef struct q {
    shc_mesh m;
    shc_placements pl;
    shc_shape in, out;
    shc_vop op;
    shc_vmap map;
    shc_vrule r;
} q;

static void setup(q *x, const char *mesh, const char *pl, const char *shape, const char *op)
{
    shc_err e = {0};
    memset(x, 0, sizeof *x);
    ck_assert_int_eq(shc_mesh_parse(&x->m, mesh, NULL, &e), SHC_OK);
    ck_assert_int_eq(shc_placements_parse(&x->pl, pl, &e), SHC_OK);
    ck_assert_int_eq(shc_shape_parse(&x->in, shape, &e), SHC_OK);
    ck_assert_int_eq(shc_vop_parse(&x->op, op, &e), SHC_OK);
    int rc = shc_vop_apply(&x->op, &x->in, &x->out, &x->map, &e);
    ck_assert_msg(rc == SHC_OK, "%s: %s", op, e.msg);
    ck_assert_int_eq(shc_vrule_propagate(&x->map, &x->in, &x->m, &x->pl, &x->r, &e), SHC_OK);
}

static void expect_pl(const shc_placements *pl, const char *want)
{
    char buf[256];
    shc_placements_format(pl, buf, sizeof buf);
    ck_assert_str_eq(buf, want);
}

/* view_groups([2,3],[3,2]): 2 vs 3, 3 % 2 != 0 but 3 > 2: take from -> 6; 6 % 3 == 0: take
 * to -> 6.  One group, Split(Flatten(0,1),(3,2)) pieces 0 and 1.
 * view_groups([2,3,4],[2,12]): 2 == 2 forwards dim 0; then 3 vs 12 -> 12 = 3*4: Flatten(1,2).
 * view_groups([4,1,6],[4,6]): the 1 against 6 backtracks: dim 1 is dropped (no output). */
START_TEST(view_groups_maps)
{
    q x;
    setup(&x, "2", "R", "2,3", "view:3,2");
    ck_assert_int_eq(x.map.n, 2);
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(x.map.d[i].kind, SHC_VS_SPLIT);
        ck_assert_int_eq(x.map.d[i].nin, 2);
        ck_assert_int_eq(x.map.d[i].split_id, i);
        ck_assert_int_eq(x.map.d[i].ngroup, 2);
    }
    ck_assert_int_eq(x.map.d[0].group[0], 3);
    shc_mesh_free(&x.m);
    setup(&x, "2", "R", "2,3,4", "view:2,12");
    ck_assert_int_eq(x.map.n, 2);
    ck_assert_int_eq(x.map.d[0].kind, SHC_VS_INPUT);
    ck_assert_int_eq(x.map.d[1].kind, SHC_VS_FLATTEN);
    ck_assert_int_eq(x.map.d[1].in[0], 1);
    ck_assert_int_eq(x.map.d[1].in[1], 2);
    shc_mesh_free(&x.m);
    setup(&x, "2", "R", "4,1,6", "view:4,6");
    ck_assert_int_eq(x.map.n, 2);
    ck_assert_int_eq(x.map.d[1].in[0], 2);
    ck_assert(x.map.strict);
    shc_mesh_free(&x.m);
}
END_TEST

/* pytorch#179502: [12,8] S(1) on 4, view(16,6).  Piece 0: the flatten analysis (strict)
 * lists dim 1 as sharded; dim 1 is a non-first flatten dim, so it is demoted (fallback);
 * then split_id 0 resets dim 1 to 16 % 4 == 0 (allowed).  Piece 1 re-analyses: allowed
 * again, then demoted again, and nothing resets it.  So R -> R, redistribution. */
START_TEST(pytorch_179502)
{
    q x;
    setup(&x, "4", "S(1)", "12,8", "view:16,6");
    ck_assert(!x.r.raises);
    expect_pl(&x.r.tgt, "R");
    expect_pl(&x.r.out, "R");
    ck_assert(x.r.redistribute);
    shc_mesh_free(&x.m);
}
END_TEST

/* flatten [2,3,4] S(1) on 3: Shard of the non-first dim 1 -> _S(0, sf) with sf = the local
 * size of the dims before it (dim 0: 2).  unflatten [6,4] _S(0, 2) on 3 into (2,3): the
 * expected split factor of piece 1 is prod((2,3)[:1]) = 2 = sf: Shard(1). */
START_TEST(strided_round_trip)
{
    q x;
    setup(&x, "3", "S(1)", "2,3,4", "flatten");
    expect_pl(&x.r.out, "_S(0, 2)");
    ck_assert(!x.r.redistribute);
    shc_mesh_free(&x.m);
    setup(&x, "3", "_S(0, 2)", "6,4", "unflatten:0:2,3");
    expect_pl(&x.r.out, "S(1)");
    shc_mesh_free(&x.m);
}
END_TEST

/* Strict refusals: [5,4] S(0) on 2, view(20): dim 0 is not the last flattened dim and
 * 5 % 2 != 0.  [4,1,6] S(1), squeeze(1): dim 1 leaves the map. */
START_TEST(rule_raises)
{
    q x;
    setup(&x, "2", "S(0)", "5,4", "view:20");
    ck_assert(x.r.raises);
    ck_assert_msg(strstr(x.r.error, "RuntimeError: Cannot flatten unevenly sharded tensor: "
                         "dimension 0 (size 5)"), "%s", x.r.error);
    shc_mesh_free(&x.m);
    setup(&x, "4", "S(1)", "4,1,6", "squeeze:1");
    ck_assert(x.r.raises);
    ck_assert(strstr(x.r.error, "remove or reshape sharded dimension 1"));
    shc_mesh_free(&x.m);
}
END_TEST

static void run_check(q *x, shc_vcheck *c)
{
    shc_err e = {0};
    int rc = shc_vcheck_run(&x->op, &x->map, &x->in, &x->out, &x->m, &x->r, c, &e);
    ck_assert_msg(rc == SHC_OK, "%s", e.msg);
}

/* [4,4] S(0) on 2, view(4,4): torch keeps S(0) (correct).  Forced to answer S(1) instead,
 * each rank still views its 2 rows (8 elements) as the output spec's [4,2]: rank 0's local
 * element 2 is global (0,2), but S(1)'s slice names column 0-1 only: it should hold (1,0). */
START_TEST(check_finds_wrong_data)
{
    q x;
    shc_vcheck c;
    setup(&x, "2", "S(0)", "4,4", "view:4,4");
    expect_pl(&x.r.out, "S(0)");
    run_check(&x, &c);
    ck_assert_int_eq(c.verdict, SHC_VV_CORRECT);
    ck_assert_int_eq(c.first_rank, -1);
    shc_vcheck_free(&c);
    x.r.out.p[0].dim = 1;
    run_check(&x, &c);
    ck_assert_int_eq(c.verdict, SHC_VV_WRONG);
    ck_assert_int_eq(c.first_rank, 0);
    ck_assert_int_eq(c.ranks[0].first, 2);
    ck_assert_int_eq(c.ranks[0].got[0], 0);
    ck_assert_int_eq(c.ranks[0].got[1], 2);
    ck_assert_int_eq(c.ranks[0].want[0], 1);
    ck_assert_int_eq(c.ranks[0].want[1], 0);
    shc_vcheck_free(&c);
    shc_mesh_free(&x.m);
}
END_TEST

/* transpose [4,6] S(0) on 2: torch gives S(1).  Forced to S(0): the local transpose of
 * [2,6] is [6,2], the slice S(0) of [6,4] is [3,4]: wrong shape. */
START_TEST(check_finds_wrong_shape)
{
    q x;
    shc_vcheck c;
    setup(&x, "2", "S(0)", "4,6", "transpose:0,1");
    expect_pl(&x.r.out, "S(1)");
    x.r.out.p[0].dim = 0;
    run_check(&x, &c);
    ck_assert_int_eq(c.verdict, SHC_VV_SHAPE);
    ck_assert_int_eq(c.ranks[0].got_local.d[0], 6);
    ck_assert_int_eq(c.ranks[0].want_local.d[0], 3);
    shc_vcheck_free(&c);
    shc_mesh_free(&x.m);
}
END_TEST

/* [6,4] S(0),S(0) on 2x2, view(24): torch keeps S(0),S(0).  Rows 6 -> 3 -> (2,1): rank 0
 * holds 8 elements, rank 1 4; the output spec's local shape is 24 -> 12 -> 6. */
START_TEST(check_local_error)
{
    q x;
    shc_vcheck c;
    setup(&x, "2x2", "S(0),S(0)", "6,4", "view:24");
    expect_pl(&x.r.out, "S(0),S(0)");
    run_check(&x, &c);
    ck_assert_int_eq(c.verdict, SHC_VV_LOCAL_ERROR);
    ck_assert_int_eq(c.first_rank, 0);
    ck_assert_str_eq(c.ranks[1].error, "RuntimeError: shape '[6]' is invalid for input of "
                     "size 4");
    shc_vcheck_free(&c);
    shc_mesh_free(&x.m);
}
END_TEST

/* ATen's refusals, and an overflowing view. */
START_TEST(bad_input)
{
    shc_err e = {0};
    shc_vop op;
    shc_vmap map;
    shc_shape in = {.ndim = 2, .d = {12, 8}}, out;
    struct {
        const char *op, *msg;
        int rc;
    } rows[] = {
        {"view:-1,-1", "RuntimeError: only one dimension can be inferred", SHC_EINVAL},
        {"view:16,5", "RuntimeError: shape '[16, 5]' is invalid for input of size 96",
         SHC_EINVAL},
        {"view:7,-1", "RuntimeError: shape '[7, -1]' is invalid for input of size 96",
         SHC_EINVAL},
        {"unsqueeze:3", "IndexError: Dimension out of range (expected to be in range of "
                        "[-3, 2], but got 3)", SHC_EINVAL},
        {"permute:0", "input.dim() = 2 is not equal to len(dims) = 1", SHC_EINVAL},
        {"view:4611686018427387904,4", "overflows int64", SHC_EOVERFLOW},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ck_assert_int_eq(shc_vop_parse(&op, rows[i].op, &e), SHC_OK);
        ck_assert_int_eq(shc_vop_apply(&op, &in, &out, &map, &e), rows[i].rc);
        ck_assert_msg(strstr(e.msg, rows[i].msg), "%s: %s", rows[i].op, e.msg);
    }
    ck_assert_int_eq(shc_vop_parse(&op, "view", &e), SHC_EINVAL);
    ck_assert_int_eq(shc_vop_parse(&op, "unflatten:1", &e), SHC_EINVAL);
    ck_assert_int_eq(shc_vop_parse(&op, "transpose:0", &e), SHC_EINVAL);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("check_view");
    TCase *tc = tcase_create("view");
    tcase_add_test(tc, view_groups_maps);
    tcase_add_test(tc, pytorch_179502);
    tcase_add_test(tc, strided_round_trip);
    tcase_add_test(tc, rule_raises);
    tcase_add_test(tc, check_finds_wrong_data);
    tcase_add_test(tc, check_finds_wrong_shape);
    tcase_add_test(tc, check_local_error);
    tcase_add_test(tc, bad_input);
    suite_add_tcase(s, tc);
    return shc_run_suite(s);
}
