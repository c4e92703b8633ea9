/*
 * check_rng_dtypes.c — tests of the RNG policies' dtype axis (lib/offsets/rng_policy.c,
 * rng_policy_check.c: shc_rng_dtype_unroll and the *_dtype functions).
 *
 * What each expectation rests on:
 *  - the kernel increments per dtype are compared with the random-engines area's own
 *    (lib/rng/torch_cuda_rng.c, shc_torch_rng_offset_after), a second text of torch's launch
 *    whose increments the torch-cuda-rng family checks against torch on a GPU (an H200,
 *    docs/gpu-check.md), for uniform_ and normal_ on several geometries and sizes;
 *  - the spans, offsets and collision counts below are derived by hand in the comments from
 *    DistributionTemplates.h (torch 2.13) and seed 000's port, never read back from the code;
 *  - each refusal names what is not modelled.
 */
#include "config.h"
#include <string.h>
#include "shardcheck.h"
#include "tap.h"
#include "test_layout.h"

static const shc_rng_policy *policy(const char *name)
{
    const shc_rng_policy *p;
    shc_err e;
    ck_assert_int_eq(shc_rng_policy_lookup(name, &p, &e), 0);
    return p;
}

/* unroll: float64 2 (curand_uniform2_double), float32 and the half types 4, integers none */
START_TEST(unroll_per_dtype)
{
    ck_assert_int_eq(shc_rng_dtype_unroll(SHC_DT_FLOAT32), 4);
    ck_assert_int_eq(shc_rng_dtype_unroll(SHC_DT_FLOAT16), 4);
    ck_assert_int_eq(shc_rng_dtype_unroll(SHC_DT_BFLOAT16), 4);
    ck_assert_int_eq(shc_rng_dtype_unroll(SHC_DT_FLOAT64), 2);
    ck_assert_int_eq(shc_rng_dtype_unroll(SHC_DT_INT64), 0);
}
END_TEST

/* The policies' increment equals the random-engines area's for every floating dtype, op,
 * geometry and size around the launch's rounds (T threads: n = T, 2T, 4T and one more). */
START_TEST(increments_match_kernel_model)
{
    const char *gpus[] = {"a100", "h100-sxm", "l4", "7x2048", "1x256"};
    const shc_dtype dts[] = {SHC_DT_FLOAT32, SHC_DT_FLOAT64, SHC_DT_FLOAT16, SHC_DT_BFLOAT16};
    const shc_torch_op ops[] = {SHC_TORCH_UNIFORM, SHC_TORCH_NORMAL};
    int checked = 0;
    for (size_t gi = 0; gi < sizeof gpus / sizeof gpus[0]; gi++) {
        shc_gpu_profile g;
        shc_err e;
        ck_assert_int_eq(shc_gpu_profile_parse(gpus[gi], &g, &e), 0);
        int64_t T = (int64_t)g.sm_count * g.max_threads_per_sm;
        int64_t ns[] = {1, 3, 255, 256, 257, T - 1, T, T + 1, 2 * T, 2 * T + 1, 4 * T,
                        4 * T + 1, 9 * T + 5, 1 << 20};
        for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++)
            for (size_t d = 0; d < 4; d++)
                for (size_t o = 0; o < 2; o++) {
                    shc_torch_rng_req r;
                    int64_t after;
                    shc_torch_rng_req_init(&r, ops[o], dts[d], ns[k]);
                    ck_assert_int_eq(shc_torch_rng_offset_after(&g, 8, &r, &after, &e), 0);
                    ck_assert_msg(after - 8 == shc_rng_kernel_offset_incr_dtype(&g, ns[k], dts[d]),
                                  "%s n=%lld %s %s: kernel model %lld, policies %lld", gpus[gi],
                                  (long long)ns[k], shc_dtype_name(dts[d]),
                                  shc_torch_op_name(ops[o]), (long long)(after - 8),
                                  (long long)shc_rng_kernel_offset_incr_dtype(&g, ns[k], dts[d]));
                    checked++;
                }
    }
    ck_assert_int_eq(checked, 5 * 14 * 4 * 2);
}
END_TEST

/* a100: T = 108 * 2048 = 221184 threads.  single-device-equal over [1024, 1024] (n = 2^20):
 * float32 ((n - 1) / 4T + 1) * 4 = (1 + 1) * 4 = 8; float64 ((n - 1) / 2T + 1) * 4 =
 * (2 + 1) * 4 = 12, on every rank (one GPU's launch over the whole tensor).  Megatron-dp's
 * rank over its half (n = 2^19): float32 4, float64 (1 + 1) * 4 = 8. */
START_TEST(own_kernel_increments)
{
    shc_gpu_profile g;
    shc_err e;
    lay L;
    shc_rng_stream s;
    ck_assert_int_eq(shc_gpu_profile_parse("a100", &g, &e), 0);
    lay_load(&L, "2", "S(0)", "1024,1024");
    const shc_rng_policy *sde = policy("single-device-equal"), *dp = policy("megatron-dp");
    const struct {
        const shc_rng_policy *p;
        shc_dtype dt;
        int64_t post;
    } rows[] = {{sde, SHC_DT_FLOAT32, 8}, {sde, SHC_DT_FLOAT64, 12}, {sde, SHC_DT_FLOAT16, 8},
                {sde, SHC_DT_BFLOAT16, 8}, {dp, SHC_DT_FLOAT32, 4}, {dp, SHC_DT_FLOAT64, 8}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        for (int64_t r = 0; r < 2; r++) {
            ck_assert_int_eq(shc_rng_policy_stream_dtype(rows[i].p, &g, rows[i].dt, &L.m, &L.pl,
                                                         &L.s, 5, 0, r, &s, &e), 0);
            ck_assert_int_eq(s.start, 0);
            ck_assert_int_eq(s.post, rows[i].post);
        }
    shc_mesh_free(&L.m);
}
END_TEST

/* torch.func._random: element g draws word key_offset + g (float32), words 2g and 2g + 1
 * (float64).  [8] S(0) over 2 at key offset 4: rank 0 holds 0..3, rank 1 4..7; float64
 * spans [4, 12) and [12, 20).  The tracker's offsets (torch-offset) are element counts:
 * the same for every dtype (rank 1 starts at ceil4(1 * 4) = 4, both end at ceil4(8) = 8). */
START_TEST(dtype_spans)
{
    shc_gpu_profile g;
    shc_err e;
    lay L;
    shc_rng_stream s;
    ck_assert_int_eq(shc_gpu_profile_parse("a100", &g, &e), 0);
    lay_load(&L, "2", "S(0)", "8");
    const int64_t lo[2] = {4, 12}, hi[2] = {12, 20};
    for (int64_t r = 0; r < 2; r++) {
        ck_assert_int_eq(shc_rng_policy_stream_dtype(policy("torch-func-random"), &g,
                                                     SHC_DT_FLOAT64, &L.m, &L.pl, &L.s, 1, 4,
                                                     r, &s, &e), 0);
        ck_assert_int_eq(s.start, lo[r]);
        ck_assert_int_eq(s.post, hi[r]);
        for (int d = 0; d < 2; d++) {
            shc_dtype dt = d ? SHC_DT_FLOAT64 : SHC_DT_FLOAT32;
            ck_assert_int_eq(shc_rng_policy_stream_dtype(policy("torch-offset"), &g, dt, &L.m,
                                                         &L.pl, &L.s, 1, 0, r, &s, &e), 0);
            ck_assert_int_eq(s.start, 4 * r);
            ck_assert_int_eq(s.post, 8);
        }
    }
    shc_mesh_free(&L.m);
}
END_TEST

/* seed 000's port spaces two ops by ceil4(mesh size) = 4 words.  [1024, 1024] S(0) over 2 on
 * the a100 (T = 221184): each rank's 524288 elements take, per thread, 4 * ceil(524288 / 4T)
 * = 4 words in float32 and 4 * ceil(524288 / 2T) = 8 in float64.  So in float64 op 1's
 * second round (elements 2T .. 524287: 81920 of them, threads 0 .. 81919, component 0, words
 * start + 4 and + 5) lies where op 2's first round starts (words start + 4 for component 0 of
 * threads 0 .. T - 1): 81920 more colliding draws per rank, 163840 on the two, on top of the
 * float32 count (whatever it is: the cross-rank overlaps are the same windows). */
START_TEST(float64_overrun_collisions)
{
    shc_gpu_profile g;
    shc_err e;
    lay L;
    unsigned h32, h64;
    int64_t c32, c64;
    ck_assert_int_eq(shc_gpu_profile_parse("a100", &g, &e), 0);
    lay_load(&L, "2", "S(0)", "1024,1024");
    const shc_rng_policy *p = policy("hyper-parallel");
    ck_assert_int_eq(shc_rng_policy_collisions_dtype(p, &g, SHC_DT_FLOAT32, &L.m, &L.pl, &L.s,
                                                     0, &h32, &c32, &e), 0);
    ck_assert_int_eq(shc_rng_policy_collisions_dtype(p, &g, SHC_DT_FLOAT64, &L.m, &L.pl, &L.s,
                                                     0, &h64, &c64, &e), 0);
    ck_assert_int_eq(c64 - c32, 163840);
    ck_assert(!(h64 & (1u << SHC_RNGP_SHARDS_DISTINCT)));
    /* the half types draw as float32: the same count */
    ck_assert_int_eq(shc_rng_policy_collisions_dtype(p, &g, SHC_DT_BFLOAT16, &L.m, &L.pl, &L.s,
                                                     0, &h64, &c64, &e), 0);
    ck_assert_int_eq(c64, c32);
    /* single-device-equal keeps every property but torch-equal in every dtype */
    for (int d = 0; d < 2; d++) {
        ck_assert_int_eq(shc_rng_policy_collisions_dtype(policy("single-device-equal"), &g,
                                                         d ? SHC_DT_FLOAT64 : SHC_DT_FLOAT16,
                                                         &L.m, &L.pl, &L.s, 0, &h64, &c64, &e),
                         0);
        ck_assert_int_eq(c64, 0);
        ck_assert_uint_eq(h64, (1u << SHC_RNGP_REPLICAS_EQUAL) |
                                   (1u << SHC_RNGP_SHARDS_DISTINCT) |
                                   (1u << SHC_RNGP_SHARDING_INVARIANT));
    }
    shc_mesh_free(&L.m);
}
END_TEST

/* What is not modelled is refused, naming it; the tracker policies' offsets on an NPU do not
 * see the dtype, a generator advanced by its own kernel does. */
START_TEST(refusals)
{
    shc_gpu_profile a100, npu, half;
    shc_err e;
    ck_assert_int_eq(shc_gpu_profile_parse("a100", &a100, &e), 0);
    ck_assert_int_eq(shc_gpu_profile_parse("ascend-910b", &npu, &e), 0);
    ck_assert_int_eq(shc_gpu_profile_parse("a100:window/2", &half, &e), 0);
    ck_assert_int_eq(shc_rng_policy_models_dtype(policy("torch-offset"), &a100, SHC_DT_INT64,
                                                 &e), SHC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "dtype int64"));
    ck_assert_int_eq(shc_rng_policy_models_dtype(policy("megatron-tp"), &npu, SHC_DT_FLOAT64,
                                                 &e), SHC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "ascend-910b"));
    ck_assert_int_eq(shc_rng_policy_models_dtype(policy("torch-offset"), &half, SHC_DT_FLOAT64,
                                                 &e), SHC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "alignment 2"));
    ck_assert_int_eq(shc_rng_policy_models_dtype(policy("torch-func-random"), &a100,
                                                 SHC_DT_FLOAT16, &e), SHC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "float16"));
    ck_assert_int_eq(shc_rng_policy_models_dtype(policy("jax-partitionable"), &npu,
                                                 SHC_DT_FLOAT64, &e), SHC_OK);
    ck_assert_int_eq(shc_rng_policy_models_dtype(policy("megatron-tp"), &npu, SHC_DT_FLOAT32,
                                                 &e), SHC_OK);
    shc_rng_verdict v;
    ck_assert_int_eq(shc_rng_policy_verdict_dtype(policy("megatron-dp"), &npu, SHC_DT_FLOAT64,
                                                  0, &v, &e), SHC_EINVAL);
    /* float32 through the _dtype functions is the functions without it */
    shc_rng_verdict v32;
    ck_assert_int_eq(shc_rng_policy_verdict_dtype(policy("hyper-parallel"), &a100,
                                                  SHC_DT_FLOAT32, 0, &v, &e), 0);
    ck_assert_int_eq(shc_rng_policy_verdict(policy("hyper-parallel"), &a100, 0, &v32, &e), 0);
    ck_assert_int_eq(memcmp(&v, &v32, sizeof v), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("rng_dtypes");
    TCase *tc = tcase_create("dtypes");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, unroll_per_dtype);
    tcase_add_test(tc, increments_match_kernel_model);
    tcase_add_test(tc, own_kernel_increments);
    tcase_add_test(tc, dtype_spans);
    tcase_add_test(tc, float64_overrun_collisions);
    tcase_add_test(tc, refusals);
    suite_add_tcase(s, tc);
    return shc_run_suite(s);
}
