/*
 * check_rng_ops.c — the op table (lib/offsets/rng_ops.c) and the per-op audit.
 *
 * The expected values are torch 2.13's, observed on a fake process group
 * (tools/harness/adapters/torch_rng_offsets.py recomputes them for every
 * golden ops case): which ops run inside the tracker, torch's two rejection
 * messages byte for byte, and the H100 observation of issue 14 (exponential_
 * on S(0) of 8x16 over 4 ranks: four identical shards).
 */
#include "config.h"
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "shardcheck.h"
#include "cuda_libdevice.h"
#include "tap.h"
#include "test_layout.h"

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

/* The rows as torch 2.11 and 2.12 have them: their own dispatchers' messages (the
 * rng-offsets harness adapter run with each release's torch; docs/torch-releases.md). */
START_TEST(release_rows)
{
    shc_mesh m;
    shc_placements pl;
    shc_shape s;
    shc_err e;
    ck_assert_int_eq(shc_mesh_parse(&m, "4", NULL, &e), 0);
    ck_assert_int_eq(shc_placements_parse(&pl, "S(0)", &e), 0);
    ck_assert_int_eq(shc_shape_parse(&s, "3,2", &e), 0);
    const shc_rng_op *ln = shc_rng_op_find("log_normal_");
    ck_assert_ptr_eq(shc_rng_op_in(ln, SHC_TORCH_2_13), ln);
    ck_assert_ptr_eq(shc_rng_op_in(ln, SHC_TORCH_2_15), ln);
    ck_assert_int_eq(shc_rng_op_check_layout(ln, &m, &pl, &s, &e), SHC_OK);
    const shc_rng_op *ln12 = shc_rng_op_in(ln, SHC_TORCH_2_12);
    ck_assert_ptr_ne(ln12, ln);
    ck_assert_uint_eq(ln12->torch_changes, 1u << SHC_TC_DECOMPOSED_RANDOM);
    ck_assert_int_eq(shc_rng_op_check_layout(ln12, &m, &pl, &s, &e), SHC_EINVAL);
    ck_assert_str_eq(e.msg, "aten.log_normal_.default: in-place operations that require "
                     "placement changes are not supported. The operation would change placement "
                     "from (Shard(dim=0),) to (Replicate(),), which requires redistribution and "
                     "breaks aliasing semantics. Please use the out-of-place version of this "
                     "operation instead.");
    ck_assert_int_eq(shc_shape_parse(&s, "8,6", &e), 0); /* every shard dim >= its shards */
    ck_assert_int_eq(shc_rng_op_check_layout(ln12, &m, &pl, &s, &e), SHC_OK);
    const shc_rng_op *mn = shc_rng_op_find("multinomial");
    ck_assert_int_eq(shc_rng_op_check(shc_rng_op_in(mn, SHC_TORCH_2_12), &pl, &e), SHC_EINVAL);
    ck_assert_str_eq(e.msg, "Operator aten.multinomial.default does not have a sharding strategy "
                     "registered.");
    ck_assert_int_eq(shc_rng_op_check(shc_rng_op_in(mn, SHC_TORCH_2_13), &pl, &e), SHC_OK);
    const shc_rng_op *ex = shc_rng_op_find("exponential_");
    ck_assert_int_eq(shc_rng_op_in(ex, SHC_TORCH_2_11)->dispatch, SHC_RNGD_REJECTED);
    ck_assert_ptr_eq(shc_rng_op_in(ex, SHC_TORCH_2_12), ex);
    /* cauchy_ on Partial: redistributed from 2.13 on, refused by 2.11/2.12's in-place rule */
    ck_assert_int_eq(shc_placements_parse(&pl, "P(sum)", &e), 0);
    const shc_rng_op *ca = shc_rng_op_find("cauchy_");
    ck_assert_int_eq(shc_rng_op_check(ca, &pl, &e), SHC_OK);
    ck_assert_int_eq(shc_rng_op_check(shc_rng_op_in(ca, SHC_TORCH_2_11), &pl, &e), SHC_EINVAL);
    shc_mesh_free(&m);
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
    lay_load(&L, "4", "S(0)", "8,16");
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
    lay_load(&L, "4", "R", "8,16");
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
    lay_load(&L, "2x2", "P(sum),S(1)", "5,6");
    ck_assert_int_eq(shc_rng_audit_op(shc_rng_op_find("native_dropout"), &L.m, &L.pl, &L.s, &a,
                                      &e), SHC_EUNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(e.msg, "cost model"));
    ck_assert_int_eq(shc_rng_audit_op(shc_rng_op_find("uniform_"), &L.m, &L.pl, &L.s, &a, &e),
                     SHC_EINVAL);
    ck_assert_int_eq(shc_rng_audit_op(shc_rng_op_find("randperm"), &L.m, &L.pl, &L.s, &a, &e),
                     SHC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "takes no DTensor"));
    shc_mesh_free(&L.m);
    lay_load(&L, "4", "S(1)", "8,16"); /* multinomial's category dim sharded */
    ck_assert_int_eq(shc_rng_audit_op(shc_rng_op_find("multinomial"), &L.m, &L.pl, &L.s, &a, &e),
                     SHC_EUNSUPPORTED);
    shc_mesh_free(&L.m);
}
END_TEST

/* The kernels of the untracked ops compose the exact draws of the tracked ones
 * (native/cuda/DistributionTemplates.h, torch 2.13): log_normal_ is exp of
 * normal_'s values, geometric_ and cauchy_ transform uniform_'s, and each takes
 * the same offset increment as the kernel it reuses.  The float transforms are
 * the MUFU intrinsics on the GPU (__expf, __logf, __tanf), modelled by the host
 * libm around their exact IEEE steps (flag CudaMathTodo in the corpus); the
 * double ones are libdevice's exp, log, log1p and tan (cuda_libdevice.c). */
START_TEST(untracked_kernels_compose)
{
    shc_gpu_profile g;
    shc_err e;
    ck_assert_int_eq(shc_gpu_profile_parse("a100", &g, &e), 0);
    enum { N = 1031 };
    static float u[N], nrm[N], out[N];
    static double ud[N], outd[N];
    static int8_t geo8[N];
    shc_torch_rng_req r;
    int64_t off_u, off_n, off;
    shc_torch_rng_req_init(&r, SHC_TORCH_UNIFORM, SHC_DT_FLOAT32, N);
    ck_assert_int_eq(shc_torch_rng_fill(&g, 7, 8, &r, 0, N, u, NULL, &off_u, &e), 0);
    shc_torch_rng_req_init(&r, SHC_TORCH_NORMAL, SHC_DT_FLOAT32, N);
    r.a = 1; /* mean */
    r.b = 2; /* std: log_normal_'s defaults */
    ck_assert_int_eq(shc_torch_rng_fill(&g, 7, 8, &r, 0, N, nrm, NULL, &off_n, &e), 0);

    shc_torch_rng_req_init(&r, SHC_TORCH_LOG_NORMAL, SHC_DT_FLOAT32, N);
    ck_assert_int_eq(shc_torch_rng_fill(&g, 7, 8, &r, 0, N, out, NULL, &off, &e), 0);
    ck_assert_int_eq(off, off_n);
    for (int i = 0; i < N; i++)
        ck_assert_float_eq(out[i], exp2f(nrm[i] * 0x1.715476p+0f)); /* __expf: fmul log2e, ex2 */

    shc_torch_rng_req_init(&r, SHC_TORCH_GEOMETRIC, SHC_DT_INT8, N);
    r.a = 0.5;
    ck_assert_int_eq(shc_torch_rng_fill(&g, 7, 8, &r, 0, N, geo8, NULL, &off, &e), 0);
    ck_assert_int_eq(off, off_u);
    for (int i = 0; i < N; i++) {
        ck_assert_int_eq(geo8[i], (int8_t)ceilf(logf(u[i]) / logf(1.0f + -0.5f))); /* __logf(1 + x) */
        ck_assert_int_ge(geo8[i], 0); /* u = 1.0 gives 0: curand_uniform's (0, 1] */
        ck_assert_int_le(geo8[i], 24);
    }

    shc_torch_rng_req_init(&r, SHC_TORCH_CAUCHY, SHC_DT_FLOAT32, N);
    ck_assert_int_eq(shc_torch_rng_fill(&g, 7, 8, &r, 0, N, out, NULL, &off, &e), 0);
    ck_assert_int_eq(off, off_u);
    for (int i = 0; i < N; i++) {
        float v = u[i] > 1.0f - FLT_EPSILON ? 1.0f - FLT_EPSILON : u[i];
        ck_assert_float_eq(out[i], tanf(3.14159265358979323846f * (v - 0.5f)));
        ck_assert(isfinite(out[i])); /* the clip keeps tan finite at u = 1 */
    }

    /* double: curand_uniform2_double draws, no clip */
    shc_torch_rng_req_init(&r, SHC_TORCH_UNIFORM, SHC_DT_FLOAT64, N);
    ck_assert_int_eq(shc_torch_rng_fill(&g, 7, 8, &r, 0, N, ud, NULL, &off_u, &e), 0);
    shc_torch_rng_req_init(&r, SHC_TORCH_CAUCHY, SHC_DT_FLOAT64, N);
    r.a = 1;
    r.b = 0.5;
    ck_assert_int_eq(shc_torch_rng_fill(&g, 7, 8, &r, 0, N, outd, NULL, &off, &e), 0);
    ck_assert_int_eq(off, off_u);
    int libc = 0; /* values where glibc's tan would have given other bits */
    for (int i = 0; i < N; i++) {
        double a = 3.14159265358979323846 * (ud[i] - 0.5);
        ck_assert_double_eq(outd[i], fma(0.5, shc_cuda_tan(a), 1.0));
        libc += outd[i] != fma(0.5, tan(a), 1.0);
    }
    ck_assert_int_gt(libc, 0);

    shc_torch_rng_req_init(&r, SHC_TORCH_GEOMETRIC, SHC_DT_FLOAT64, N);
    r.a = 0.3;
    ck_assert_int_eq(shc_torch_rng_fill(&g, 7, 8, &r, 0, N, outd, NULL, &off, &e), 0);
    ck_assert_int_eq(off, off_u);
    for (int i = 0; i < N; i++)
        ck_assert_double_eq(outd[i], ceil(shc_cuda_log(ud[i]) / shc_cuda_log1p(-0.3)));

    /* log_normal_ float64: libdevice exp of normal_(mean, std)'s values */
    shc_torch_rng_req_init(&r, SHC_TORCH_NORMAL, SHC_DT_FLOAT64, N);
    r.a = 1;
    r.b = 2;
    ck_assert_int_eq(shc_torch_rng_fill(&g, 7, 8, &r, 0, N, ud, NULL, &off_n, &e), 0);
    shc_torch_rng_req_init(&r, SHC_TORCH_LOG_NORMAL, SHC_DT_FLOAT64, N);
    ck_assert_int_eq(shc_torch_rng_fill(&g, 7, 8, &r, 0, N, outd, NULL, &off, &e), 0);
    ck_assert_int_eq(off, off_n);
    libc = 0;
    for (int i = 0; i < N; i++) {
        ck_assert_double_eq(outd[i], shc_cuda_exp(ud[i]));
        libc += outd[i] != exp(ud[i]);
    }
    ck_assert_int_gt(libc, 0);
}
END_TEST

/* torch 2.13's messages, checked on a CPU where the check is device-independent
 * (DistributionTemplates.h *_impl_); kernel-dispatch names are CUDA's. */
START_TEST(kernel_rejections)
{
    static const struct {
        shc_torch_op op;
        shc_dtype t;
        double a, b;
        const char *msg;
    } cases[] = {
        {SHC_TORCH_UNIFORM, SHC_DT_INT32, 0, 1, "\"check_uniform_bounds\" not implemented for 'Int'"},
        {SHC_TORCH_EXPONENTIAL, SHC_DT_INT64, 1, 0, "Exponential distribution is a continuous "
         "probability distribution. dtype must be a floating point but you specified Long"},
        {SHC_TORCH_CAUCHY, SHC_DT_INT16, 0, 1, "Cauchy distribution is a continuous probability "
         "distribution. dtype must be a floating point but you specified short int"},
        {SHC_TORCH_CAUCHY, SHC_DT_FLOAT32, 0, 0, "cauchy_ expects sigma > 0.0, but found sigma=0"},
        {SHC_TORCH_GEOMETRIC, SHC_DT_FLOAT32, 1, 0, "geometric_ expects p to be in (0, 1), but "
         "got p=1"},
        {SHC_TORCH_GEOMETRIC, SHC_DT_BOOL, 0.5, 0, "\"geometric_cuda\" not implemented for 'Bool'"},
        {SHC_TORCH_LOG_NORMAL, SHC_DT_FLOAT16, 1, 0, "log_normal_ expects std > 0.0, but found std=0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        shc_torch_rng_req r;
        shc_err e;
        shc_torch_rng_req_init(&r, cases[i].op, cases[i].t, 4);
        r.a = cases[i].a;
        r.b = cases[i].b;
        ck_assert_int_eq(shc_torch_rng_check(&r, &e), SHC_EINVAL);
        ck_assert_str_eq(e.msg, cases[i].msg);
    }
    shc_torch_op op;
    shc_err e;
    ck_assert_int_eq(shc_torch_op_parse("geometric", &op, &e), 0);
    ck_assert_int_eq(op, SHC_TORCH_GEOMETRIC);
    ck_assert_ptr_eq(shc_rng_op_for_kernel(SHC_TORCH_CAUCHY), shc_rng_op_find("cauchy_"));
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
    tcase_add_test(tc, untracked_kernels_compose);
    tcase_add_test(tc, kernel_rejections);
    tcase_add_test(tc, release_rows);
    suite_add_tcase(s, tc);
    return shc_run_suite(s);
}
