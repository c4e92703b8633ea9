/*
 * check_torch_grid.c — the per-thread CUDA kernel bodies (lib/rng/torch_rng_body.h)
 * run by the CPU grid emulator (lib/rng/torch_rng_grid.c) for every (block,
 * thread) of the launches torch makes, against the CPU reference
 * (shc_torch_rng_fill, which batches Philox and shares only the element step):
 * every op and dtype of torch-cuda-rng, SM counts 132, 108, 66, 38 (and 1536- and
 * 1024-thread SMs), sizes around the grid boundary (one block short of the SM
 * cap, one over, a whole grid-stride iteration and one element more) and
 * around the 2^31 split (windows of the output: the split point, the ends).
 * Each window is computed twice, into buffers filled with 0x00 and 0xff, so an
 * element no thread writes shows up as a difference.
 *
 * Also the device -> profile selection of the CUDA backend (fake cudaDeviceProp
 * values).  No GPU is needed; lib/cuda runs the same bodies on one.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "shardcheck.h"
#include "torch_cuda_rng.h"
#include "torch_rng_grid.h"

#define EXPECT(c, ...) do { if (!(c)) ck_abort_msg(__VA_ARGS__); } while (0)

/* The SM counts the GPU run presented (H100 at 132, 108, 66, 38 SMs), and
 * the other thread counts per SM torch's blocks_per_sm sees. */
static const char *const GPUS[] = {"132x2048", "108x2048", "66x2048", "38x2048", "58x1536", "40x1024"};
#define NGPUS (sizeof GPUS / sizeof *GPUS)

typedef struct rq {
    shc_torch_op op;
    double a, b;
    int64_t from, to; /* random_ range when from < to */
} rq;

/* Every op, with a parameter set each (random_ with and without ranges). */
static const rq OPS[] = {
    {SHC_TORCH_UNIFORM, 0, 1, 0, 0},       {SHC_TORCH_UNIFORM, -2.5, 7, 0, 0},
    {SHC_TORCH_NORMAL, 1, 2, 0, 0},        {SHC_TORCH_RANDOM, 0, 0, 0, 0},
    {SHC_TORCH_RANDOM, 0, 0, -5, 100},     {SHC_TORCH_RANDOM, 0, 0, 0, 2},
    {SHC_TORCH_RANDOM, 0, 0, -(1ll << 40), 1ll << 40}, /* >= 2^28: 64-bit draws */
    {SHC_TORCH_BERNOULLI, 0.3, 0, 0, 0},   {SHC_TORCH_DROPOUT, 0.2, 0, 0, 0},
    {SHC_TORCH_DROPOUT, 1.0, 0, 0, 0},     /* p == 1: no kernel, zeros */
    {SHC_TORCH_EXPONENTIAL, 1.5, 0, 0, 0}, {SHC_TORCH_LOG_NORMAL, 1, 2, 0, 0},
    {SHC_TORCH_GEOMETRIC, 0.3, 0, 0, 0},   {SHC_TORCH_CAUCHY, 0, 1, 0, 0},
};
#define NOPS (sizeof OPS / sizeof *OPS)

static bool make_req(const rq *q, shc_dtype dt, int64_t n, shc_torch_rng_req *r)
{
    shc_err e;
    shc_torch_rng_req_init(r, q->op, dt, n);
    if (q->op != SHC_TORCH_RANDOM) {
        r->a = q->a;
        if (q->op != SHC_TORCH_BERNOULLI && q->op != SHC_TORCH_DROPOUT &&
            q->op != SHC_TORCH_EXPONENTIAL && q->op != SHC_TORCH_GEOMETRIC)
            r->b = q->b;
    } else if (q->from < q->to) {
        r->has_range = true;
        r->from = q->from;
        r->to = q->to;
    }
    return shc_torch_rng_check(r, &e) == SHC_OK; /* skips what torch rejects for the dtype */
}

/* One window, reference vs emulator (twice, over 0x00 and 0xff). */
static void window(const shc_gpu_profile *g, const shc_torch_rng_req *r, int64_t s0, int64_t cnt,
                   uint64_t seed, int64_t off)
{
    size_t sz = shc_dtype_size(r->dtype);
    uint8_t *x = malloc((size_t)cnt * sz), *y = malloc((size_t)cnt * sz);
    uint8_t *mx = malloc((size_t)cnt), *my = malloc((size_t)cnt);
    ck_assert(x && y && mx && my);
    shc_err e;
    int64_t no_ref = -1, no_grid = -2;
    EXPECT(shc_torch_rng_fill(g, seed, off, r, s0, cnt, x, mx, &no_ref, &e) == 0, "%s", e.msg);
    for (int fill = 0; fill < 2; fill++) {
        memset(y, fill ? 0xff : 0, (size_t)cnt * sz);
        memset(my, fill ? 0xff : 0, (size_t)cnt);
        EXPECT(shc_torch_rng_grid_fill(g, seed, off, r, s0, cnt, y, my, &no_grid, &e) == 0, "%s", e.msg);
        for (int64_t i = 0; i < cnt; i++)
            EXPECT(!memcmp(x + i * sz, y + i * sz, sz) &&
                   (r->op != SHC_TORCH_DROPOUT || mx[i] == my[i]),
                   "%dx%d %s %s n=%lld: element %lld differs (grid emulator vs reference)",
                   g->sm_count, g->max_threads_per_sm, shc_torch_op_name(r->op),
                   shc_dtype_name(r->dtype), (long long)r->numel, (long long)(s0 + i));
        EXPECT(no_ref == no_grid, "new offset %lld vs %lld", (long long)no_ref, (long long)no_grid);
    }
    free(x);
    free(y);
    free(mx);
    free(my);
}

/* Windows of n elements: all of a small tensor; else the start, the stride and
 * grid-stride-iteration boundaries, the middle and the end. */
static void windows(const shc_gpu_profile *g, const shc_torch_rng_req *r, uint64_t seed, int64_t off)
{
    int64_t n = r->numel, stride = 256LL * g->sm_count * (g->max_threads_per_sm / 256);
    if (n <= 6000) {
        window(g, r, 0, n, seed, off);
        return;
    }
    const int64_t at[] = {0, stride - 300, 2 * stride - 300, 4 * stride - 300, n / 2 - 300, n - 600};
    for (size_t i = 0; i < sizeof at / sizeof *at; i++)
        if (at[i] >= 0 && at[i] + 600 <= n)
            window(g, r, at[i], 600, seed, off);
}

/* Sizes around the grid: one block short of the SM cap, the cap, one element over,
 * a whole unroll-4 iteration of the full grid, one more, and odd small sizes. */
static void sizes_for(const shc_gpu_profile *g, int64_t out[7])
{
    int64_t cap = 256LL * g->sm_count * (g->max_threads_per_sm / 256);
    int64_t s[7] = {5, 4099, cap - 256, cap, cap + 1, 4 * cap, 4 * cap + 5};
    memcpy(out, s, sizeof s);
}

/* The sanitized make check (SHARDCHECK_SANITIZED=1, tools/test_job.sh) and distcheck's
 * (SHARDCHECK_SAMPLED=1) walk the first
 * profile and the two of other thread counts, each with every dtype at the small sizes and
 * one dtype per op at the big ones: the 108-, 66- and 38-SM profiles run the same bodies on
 * other numbers, and every dtype at the big sizes repeats at length the element step the
 * small sizes reach (together about three quarters of the 80 s of CPU this file took under
 * ASan; issue 36: CI time).  The plain build walks all six, every dtype at every size on the
 * first two. */
static int sampled(void)
{
    return shc_test_sampled(); /* and distcheck's make check (SHARDCHECK_SAMPLED=1) */
}

START_TEST(every_op_and_dtype_on_every_profile)
{
    shc_err e;
    shc_gpu_profile g;
    if (sampled() && _i >= 1 && _i <= 3)
        return;
    ck_assert_int_eq(shc_gpu_profile_parse(GPUS[_i], &g, &e), 0);
    int64_t sizes[7];
    sizes_for(&g, sizes);
    for (size_t o = 0; o < NOPS; o++)
        for (int dt = 0; dt < SHC_DT_COUNT; dt++)
            for (int s = 0; s < 7; s++) {
                shc_torch_rng_req r;
                /* the big sizes for every dtype on the first two profiles, one dtype per op elsewhere */
                if ((_i >= 2 || sampled()) && s >= 2 && dt != (int)(o % 4))
                    continue;
                if (make_req(&OPS[o], (shc_dtype)dt, sizes[s], &r))
                    windows(&g, &r, 0x9e3779b97f4a7c15ull + o, 4 * (int64_t)(s + dt));
            }
}
END_TEST

/* The 32-bit indexing split: tensors past INT32_MAX elements or bytes are several
 * launches (first half first), each with its own grid and offset. */
START_TEST(split_launches_past_2_31)
{
    static const struct { shc_torch_op op; shc_dtype dt; int64_t n; } BIG[] = {
        {SHC_TORCH_UNIFORM, SHC_DT_FLOAT32, (1LL << 29) + 1},  /* bytes past 2^31: 2 pieces */
        {SHC_TORCH_NORMAL, SHC_DT_FLOAT64, (1LL << 28) + 3},
        {SHC_TORCH_RANDOM, SHC_DT_UINT8, (1LL << 31) - 1},     /* one launch, the last index */
        {SHC_TORCH_RANDOM, SHC_DT_INT8, (1LL << 31) + 12},     /* elements past 2^31 */
        {SHC_TORCH_BERNOULLI, SHC_DT_BOOL, 3 * (1LL << 31) + 7}, /* uneven halves */
        {SHC_TORCH_UNIFORM, SHC_DT_BFLOAT16, (1LL << 30) + 1},
        {SHC_TORCH_DROPOUT, SHC_DT_FLOAT16, (1LL << 31) + 8},  /* dropout never splits */
        {SHC_TORCH_EXPONENTIAL, SHC_DT_FLOAT16, (1LL << 30) + 2},
    };
    shc_err e;
    for (size_t i = 0; i < sizeof BIG / sizeof *BIG; i++)
        for (size_t gi = 0; gi < 2; gi++) {
            shc_gpu_profile g;
            ck_assert_int_eq(shc_gpu_profile_parse(GPUS[gi * 3], &g, &e), 0);
            shc_torch_rng_req r;
            shc_torch_rng_req_init(&r, BIG[i].op, BIG[i].dt, BIG[i].n);
            int64_t n = BIG[i].n, at[] = {0, n / 2 - 300, n / 4 - 300, n / 4 * 3 - 300, n - 600};
            for (size_t k = 0; k < sizeof at / sizeof *at; k++)
                window(&g, &r, at[k], 600, 77 + i, 16);
        }
}
END_TEST

/* The CUDA backend's device -> profile mapping, with fake cudaDeviceProp values. */
START_TEST(profile_from_device_props)
{
    shc_gpu_profile p;
    shc_err e;
    ck_assert_int_eq(shc_gpu_profile_for_device("NVIDIA H100 80GB HBM3", 132, 2048, 9, 0, &p, &e), 0);
    ck_assert_str_eq(p.name, "h100-sxm");
    ck_assert_int_eq(shc_gpu_profile_for_device("NVIDIA H200", 132, 2048, 9, 0, &p, &e), 0);
    ck_assert_str_eq(p.name, "h200");
    ck_assert_int_eq(shc_gpu_profile_for_device("NVIDIA H100 PCIe", 114, 2048, 9, 0, &p, &e), 0);
    ck_assert_str_eq(p.name, "h100-pcie");
    ck_assert_int_eq(shc_gpu_profile_for_device("NVIDIA A100-SXM4-80GB", 108, 2048, 8, 0, &p, &e), 0);
    ck_assert_str_eq(p.name, "a100");
    ck_assert_int_eq(shc_gpu_profile_for_device("Tesla T4", 40, 1024, 7, 5, &p, &e), 0);
    ck_assert_str_eq(p.name, "t4");
    /* an H100 limited to 66 SMs (MPS, green contexts): no preset, an ad-hoc profile */
    ck_assert_int_eq(shc_gpu_profile_for_device("NVIDIA H100 80GB HBM3", 66, 2048, 9, 0, &p, &e), 0);
    ck_assert_str_eq(p.name, "custom");
    ck_assert_int_eq(p.sm_count, 66);
    ck_assert_int_eq(p.max_threads_per_sm, 2048);
    ck_assert_int_eq(p.cc, 90);
    /* the same geometry as a preset but another architecture is not that preset */
    ck_assert_int_eq(shc_gpu_profile_for_device("NVIDIA RTX 6000 Ada", 142, 1536, 8, 9, &p, &e), 0);
    ck_assert_str_eq(p.name, "l40s");
    ck_assert_int_eq(shc_gpu_profile_for_device("Future GPU", 142, 1536, 12, 0, &p, &e), 0);
    ck_assert_str_eq(p.name, "custom");
    shc_gpu_profile a100, h200;
    ck_assert_int_eq(shc_gpu_profile_parse("a100", &a100, &e), 0);
    ck_assert_int_eq(shc_gpu_profile_parse("h200", &h200, &e), 0);
    ck_assert_int_eq(shc_gpu_profile_for_device("NVIDIA H100", 132, 2048, 9, 0, &p, &e), 0);
    ck_assert(shc_gpu_profile_same_geometry(&p, &h200));
    ck_assert(!shc_gpu_profile_same_geometry(&p, &a100));
    /* values no launch geometry can have are refused */
    ck_assert_int_eq(shc_gpu_profile_for_device("broken", 0, 2048, 9, 0, &p, &e), SHC_EINVAL);
    ck_assert_int_eq(shc_gpu_profile_for_device("broken", 10, 128, 9, 0, &p, &e), SHC_EINVAL);
}
END_TEST

/* Every malformed GPU profile spec is refused naming the spec and what is wrong (a row each). */
static const struct {
    const char *spec, *want;
} BAD_GPUS[] = {
    {"", "gpu profile is empty"},
    {"132y2048", "unknown gpu profile '132y2048' (known: a100 h100-sxm"},
    {"x2048", "unknown gpu profile 'x2048'"},
    {"132x", "unknown gpu profile '132x'"},
    {"132x2048z", "unknown gpu profile '132x2048z'"},
    {"99999999999999999999x2048", "unknown gpu profile '99999999999999999999x2048'"},
    {"132x99999999999999999999", "unknown gpu profile '132x99999999999999999999'"},
    {"0x2048", "SM count 0 must be in 1..1000000"},
    {"1000001x2048", "SM count 1000001 must be in 1..1000000"},
    {"132x255", "max threads per SM 255 must be in 256..65536 (torch launches blocks of 256"},
    {"132x65537", "max threads per SM 65537 must be in 256..65536"},
    {"132x2048@90", "'@90' is not a compute capability"},
    {"132x2048@sm_9", "'@sm_9' is not a compute capability"},
    {"132x2048@sm_9000", "'@sm_9000' is not a compute capability"},
    {"132x2048@sm_90a", "'@sm_90a' is not a compute capability"},
    {"132x2048@sm_95", "compute capability sm_95 is not in the GPU table (known: sm_70 sm_75 "
                       "sm_80 sm_86 sm_89 sm_90 sm_100)"},
    /* the offset-semantics axis (issue 33): a semantics or an alignment it does not know */
    {"a100:", "gpu profile 'a100:': offset semantics '' is not known (known: window, stream)"},
    {"a100:streams", "offset semantics 'streams' is not known (known: window, stream)"},
    {"ascend-910b:stream/3", "offset alignment '3' is not a power of two in 1..64"},
    {"132x2048@sm_90:window/0", "offset alignment '0' is not a power of two in 1..64"},
    {"132x2048@sm_90:window/128", "offset alignment '128' is not a power of two in 1..64"},
    {"a100:window/4x", "offset alignment '4x' is not a power of two in 1..64"},
    {"132x2048@sm_00", "compute capability sm_0 is not in the GPU table"}, /* the NPU row: cc 0 */
};

START_TEST(profile_refusals)
{
    shc_gpu_profile g;
    shc_err e = {0};
    const char *spec = BAD_GPUS[_i].spec;
    ck_assert_int_eq(shc_gpu_profile_parse(spec, &g, &e), SHC_EINVAL);
    ck_assert_msg(strstr(e.msg, BAD_GPUS[_i].want), "'%s': '%s' lacks '%s'", spec, e.msg,
                  BAD_GPUS[_i].want);
}
END_TEST

/* A device without a name maps by geometry and capability alone; fill_cc gives a profile the
 * capability of the preset it names only while its geometry is that preset's. */
START_TEST(profile_without_name)
{
    shc_gpu_profile p, g;
    shc_err e = {0};
    ck_assert_int_eq(shc_gpu_profile_parse(NULL, &p, &e), SHC_EINVAL);
    ck_assert_int_eq(shc_gpu_profile_for_device(NULL, 132, 2048, 9, 0, &p, &e), 0);
    ck_assert_str_eq(p.name, "h100-sxm"); /* the first preset of that geometry and capability */
    ck_assert_int_eq(shc_gpu_profile_for_device(NULL, 40, 1024, 7, 5, &p, &e), 0);
    ck_assert_str_eq(p.name, "t4");
    ck_assert_int_eq(p.cc, 75);
    ck_assert_int_eq(shc_gpu_profile_parse("l4", &g, &e), 0);
    g.cc = 0;
    shc_gpu_profile_fill_cc(&g);
    ck_assert_int_eq(g.cc, 89);
    g.sm_count = 60; /* l4's name with another geometry is not an l4 */
    shc_gpu_profile_fill_cc(&g);
    ck_assert_int_eq(g.cc, 0);
    g.name = NULL;
    g.cc = 5;
    shc_gpu_profile_fill_cc(&g);
    ck_assert_int_eq(g.cc, 0);
    ck_assert_int_eq(shc_gpu_sfu_model(NULL), SHC_SFU_NONE);
}
END_TEST

/* The emulator refuses element ranges outside the tensor as the CPU reference does. */
START_TEST(grid_range_refusals)
{
    shc_gpu_profile g;
    shc_err e = {0};
    ck_assert_int_eq(shc_gpu_profile_parse("t4", &g, &e), 0);
    shc_torch_rng_req r;
    shc_torch_rng_req_init(&r, SHC_TORCH_UNIFORM, SHC_DT_FLOAT32, 8);
    float o[8];
    const int64_t rows[][2] = {{-1, 1}, {0, -1}, {9, 0}, {5, 4}};
    for (int i = 0; i < 4; i++) {
        char want[96];
        snprintf(want, sizeof want, "element range [%lld, +%lld) is outside the 8 elements",
                 (long long)rows[i][0], (long long)rows[i][1]);
        ck_assert_int_eq(shc_torch_rng_grid_fill(&g, 1, 0, &r, rows[i][0], rows[i][1], o, NULL,
                                                 NULL, &e), SHC_EINVAL);
        ck_assert_str_eq(e.msg, want);
        ck_assert_int_eq(shc_torch_rng_fill(&g, 1, 0, &r, rows[i][0], rows[i][1], o, NULL, NULL,
                                            &e), SHC_EINVAL);
        ck_assert_str_eq(e.msg, want);
    }
    ck_assert_int_eq(shc_torch_rng_grid_fill(&g, 1, 0, &r, 4, 4, o, NULL, NULL, &e), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("check_torch_grid");
    TCase *tc = tcase_create("grid_emulator");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, every_op_and_dtype_on_every_profile, 0, (int)NGPUS);
    tcase_add_test(tc, split_launches_past_2_31);
    tcase_add_test(tc, profile_from_device_props);
    tcase_add_loop_test(tc, profile_refusals, 0, (int)(sizeof BAD_GPUS / sizeof *BAD_GPUS));
    tcase_add_test(tc, profile_without_name);
    tcase_add_test(tc, grid_range_refusals);
    suite_add_tcase(s, tc);
    return shc_run_suite(s);
}
