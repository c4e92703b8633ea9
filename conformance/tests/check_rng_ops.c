/*
 * check_rng_ops.c — the op table (lib/rng_ops.c) and the per-op audit.
 *
 * The expected values are torch 2.13's, observed on a fake process group
 * (tools/harness/adapters/torch_rng_offsets.py recomputes them for every
 * golden ops case): which ops run inside the tracker, torch's two rejection
 * messages byte for byte, and the H100 observation of issue 14 (exponential_
 * on S(0) of 8x16 over 4 ranks: four identical shards).
 */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include "shardcheck.h"
#include "rng_ops.h"
#include "tap.h"

typedef struct lay {
    shc_mesh m;
    shc_placements pl;
    shc_shape s;
} lay;

static void load(lay *L, const char *mesh, const char *pl, const char *shape)
{
    shc_err e;
    ck_assert_int_eq(shc_mesh_parse(&L->m, mesh, NULL, &e), 0);
    ck_assert_int_eq(shc_placements_parse(&L->pl, pl, &e), 0);
    ck_assert_int_eq(shc_shape_parse(&L->s, shape, &e), 0);
}

/* Exactly the ops of OpDispatcher._random_ops (torch 2.13 _dispatch.py:179-192)
 * that take a DTensor, plus the two DTensor factories, are tracked. */
START_TEST(tracked_set)
{
    static const char *const tracked[] = {"uniform_", "normal_", "bernoulli_.float", "bernoulli",
                                          "randint_like", "randint_like.low_dtype", "rand_like",
                                          "randn_like", "native_dropout", "dropout",
                                          "dtensor.rand", "dtensor.randn"};
    size_t n, nt = 0;
    const shc_rng_op *ops = shc_rng_ops(&n);
    for (size_t i = 0; i < n; i++) {
        bool want = false;
        for (size_t k = 0; k < sizeof tracked / sizeof tracked[0]; k++)
            want |= !strcmp(ops[i].name, tracked[k]);
        ck_assert_msg((ops[i].dispatch == SHC_RNGD_TRACKED) == want, "%s", ops[i].name);
        nt += want;
        ck_assert_ptr_eq(shc_rng_op_find(ops[i].name), &ops[i]); /* names are unique */
        ck_assert(ops[i].api && ops[i].aten && ops[i].cite && ops[i].dtypes);
    }
    ck_assert_uint_eq(nt, sizeof tracked / sizeof tracked[0]);
    ck_assert_str_eq(shc_rng_op_find("exponential_") ? shc_rng_dispatch_name(
                         shc_rng_op_find("exponential_")->dispatch) : "", "untracked");
    ck_assert_ptr_eq(shc_rng_op_for_kernel(SHC_TORCH_DROPOUT), shc_rng_op_find("native_dropout"));
    ck_assert_ptr_null(shc_rng_op_find("uniform"));
    /* random_ accepts every dtype on CUDA (bool included); exponential_ floats only */
    ck_assert_uint_eq(shc_rng_op_find("random_.from")->dtypes, SHC_DTM_ALL);
    ck_assert_uint_eq(shc_rng_op_find("exponential_")->dtypes, SHC_DTM_FLOATS);
}
END_TEST

START_TEST(rejection_messages)
{
    shc_placements pl;
    shc_err e;
    ck_assert_int_eq(shc_placements_parse(&pl, "P(sum),S(1)", &e), 0);
    ck_assert_int_eq(shc_rng_op_check(shc_rng_op_find("exponential_"), &pl, &e), SHC_EINVAL);
    ck_assert_str_eq(e.msg, "aten.exponential_.default: in-place operations that require "
                     "placement changes are not supported. The input has placement "
                     "(Partial(sum), Shard(dim=1)), but no valid strategy preserves this "
                     "placement. Please use the out-of-place version of this operation instead.");
    ck_assert_int_eq(shc_rng_op_check(shc_rng_op_find("random_.from"), &pl, &e), SHC_EINVAL);
    ck_assert_str_eq(e.msg, "Operator aten.random_.from does not have a sharding strategy "
                     "registered.");
    /* out-of-place tracked ops accept a Partial input (redistributed or made Replicate) */
    ck_assert_int_eq(shc_rng_op_check(shc_rng_op_find("rand_like"), &pl, &e), SHC_OK);
    ck_assert_int_eq(shc_rng_op_check(shc_rng_op_find("cauchy_"), &pl, &e), SHC_OK);
    char r[128];
    ck_assert_int_eq(shc_placements_parse(&pl, "_S(0, 2)", &e), 0);
    shc_placements_repr(&pl, r, sizeof r);
    ck_assert_str_eq(r, "(_StridedShard(dim=0, sf=2),)");
    ck_assert_int_eq(shc_placements_parse(&pl, "P(max),R", &e), 0);
    shc_placements_repr(&pl, r, sizeof r);
    ck_assert_str_eq(r, "(Partial(max), Replicate())");
    const shc_rng_op *op;
    ck_assert_int_eq(shc_rng_op_parse("nope", &op, &e), SHC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "unknown random op 'nope'"));
}
END_TEST

/* Issue 14's H100 check: exponential_ on S(0) of 8x16, mesh 4: every shard
 * draws [0, 32) of its own stream; uniform_ on the same layout gets disjoint
 * tracker windows and no finding. */
START_TEST(untracked_shared_draws)
{
    lay L;
    load(&L, "4", "S(0)", "8,16");
    shc_rng_audit a;
    shc_err e;
    ck_assert_int_eq(shc_rng_audit_op(shc_rng_op_find("exponential_"), &L.m, &L.pl, &L.s, &a, &e),
                     0);
    ck_assert_uint_eq(a.kinds, 1u << SHC_RNGF_UNTRACKED_SHARED);
    ck_assert_int_eq(a.count[SHC_RNGF_UNTRACKED_SHARED], 3);
    ck_assert_int_eq(a.nshards, 4);
    ck_assert_int_eq(a.listed[2].rank_a, 0);
    ck_assert_int_eq(a.listed[2].rank_b, 3);
    ck_assert_int_eq(a.listed[2].b_lo, 0);
    ck_assert_int_eq(a.listed[2].b_hi, 32);
    ck_assert_str_eq(shc_rng_finding_name(SHC_RNGF_UNTRACKED_SHARED), "UntrackedOpSharedDraws");
    ck_assert_int_eq(shc_rng_audit_op(shc_rng_op_find("uniform_"), &L.m, &L.pl, &L.s, &a, &e), 0);
    ck_assert_uint_eq(a.kinds, 0);
    ck_assert_int_eq(a.end_incr, 128);
    shc_mesh_free(&L.m);
    /* replicas only: one shard, nothing shared between distinct shards */
    load(&L, "4", "R", "8,16");
    ck_assert_int_eq(shc_rng_audit_op(shc_rng_op_find("cauchy_"), &L.m, &L.pl, &L.s, &a, &e), 0);
    ck_assert_uint_eq(a.kinds, 0);
    shc_mesh_free(&L.m);
}
END_TEST

START_TEST(not_modelled_and_local)
{
    lay L;
    shc_rng_audit a;
    shc_err e;
    load(&L, "2x2", "P(sum),S(1)", "5,6");
    ck_assert_int_eq(shc_rng_audit_op(shc_rng_op_find("native_dropout"), &L.m, &L.pl, &L.s, &a,
                                      &e), SHC_EUNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(e.msg, "cost model"));
    ck_assert_int_eq(shc_rng_audit_op(shc_rng_op_find("uniform_"), &L.m, &L.pl, &L.s, &a, &e),
                     SHC_EINVAL);
    ck_assert_int_eq(shc_rng_audit_op(shc_rng_op_find("randperm"), &L.m, &L.pl, &L.s, &a, &e),
                     SHC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "takes no DTensor"));
    shc_mesh_free(&L.m);
    load(&L, "4", "S(1)", "8,16"); /* multinomial's category dim sharded */
    ck_assert_int_eq(shc_rng_audit_op(shc_rng_op_find("multinomial"), &L.m, &L.pl, &L.s, &a, &e),
                     SHC_EUNSUPPORTED);
    shc_mesh_free(&L.m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("rng_ops");
    TCase *tc = tcase_create("ops");
    tcase_add_test(tc, tracked_set);
    tcase_add_test(tc, rejection_messages);
    tcase_add_test(tc, untracked_shared_draws);
    tcase_add_test(tc, not_modelled_and_local);
    suite_add_tcase(s, tc);
    return shc_run_suite(s);
}
