/*
 * check_torch_sample.c — bernoulli with a tensor p, multinomial with
 * replacement and randperm (lib/rng/torch_cuda_sample.c) against a second,
 * naive emulation written here from the kernels' source, thread by thread:
 * one cuRAND state machine per CUDA thread (curand_stream.c: curand_init,
 * curand_uniform4, curand), the launch loops as the kernels write them, a
 * linear scan instead of the binary search, an insertion sort instead of the
 * radix sort.  The library instead computes Philox blocks directly and sorts
 * with qsort, so the two share only the Philox core, which check_rng.c checks
 * against Random123.  Also: torch's rejections and offsets.
 */
#include "config.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"

#define EXPECT(c, ...) do { if (!(c)) ck_abort_msg(__VA_ARGS__); } while (0)
#include "shardcheck.h"
#include "torch_cuda_rng.h"
#include "cuda_libdevice.h"

static shc_gpu_profile prof(const char *name)
{
    shc_gpu_profile g;
    shc_err e;
    ck_assert_int_eq(shc_gpu_profile_parse(name, &g, &e), 0);
    return g;
}

static shc_shape shape_of(const char *s)
{
    shc_shape sh;
    shc_err e;
    ck_assert_int_eq(shc_shape_parse(&sh, s, &e), 0);
    return sh;
}

/* ---- bernoulli(p) ---- */

/* kernelPointwiseApply2 with step 4, 512 threads, grid ceil(n/2048): every
 * thread inits its state, draws one uniform4, and sets its up-to-4 elements. */
static void naive_bernoulli(uint64_t seed, int64_t offset, const shc_shape *s, const shc_shape *ps,
                            const double *p, shc_dtype dt, uint8_t *out)
{
    int64_t n = 1;
    for (int i = 0; i < s->ndim; i++)
        n *= s->d[i];
    int64_t threads = (n + 2047) / 2048 * 512;
    size_t sz = shc_dtype_size(dt);
    for (int64_t t = 0; t < threads; t++) {
        for (int64_t li = t * 4; li < n; li += threads * 4) {
            shc_curand_philox st;
            shc_curand_init(seed, (uint64_t)t, (uint64_t)offset, &st);
            float f[4];
            shc_curand_uniform4(&st, f);
            for (int c = 0; c < 4 && li + c < n; c++) {
                /* p's element: self's index with broadcast dims of p taken as 0 */
                int64_t rem = li + c, pidx = 0, pst = 1;
                for (int d = s->ndim - 1; d >= 0; d--) {
                    int64_t id = rem % s->d[d];
                    rem /= s->d[d];
                    int j = d - (s->ndim - ps->ndim);
                    if (j >= 0 && ps->d[j] != 1) {
                        pidx += id * pst;
                        pst *= ps->d[j];
                    }
                }
                bool v = dt == SHC_DT_FLOAT64 ? (double)f[c] <= p[pidx] : f[c] <= (float)p[pidx];
                uint8_t *dst = out + (size_t)(li + c) * sz;
                if (dt == SHC_DT_FLOAT32) { float x = v; memcpy(dst, &x, 4); }
                else if (dt == SHC_DT_FLOAT64) { double x = v; memcpy(dst, &x, 8); }
                else if (dt == SHC_DT_FLOAT16) { _Float16 x = v; memcpy(dst, &x, 2); }
                else if (dt == SHC_DT_BFLOAT16) { uint16_t x = v ? 0x3f80 : 0; memcpy(dst, &x, 2); }
                else if (dt == SHC_DT_INT64) { int64_t x = v; memcpy(dst, &x, 8); }
                else if (dt == SHC_DT_INT32) { int32_t x = v; memcpy(dst, &x, 4); }
                else { *dst = v; }
            }
        }
    }
}

/* p values: a dyadic ramp over [0, 1] with both ends, then a few non-dyadic ones. */
static double *ramp(int64_t np, shc_dtype pdt)
{
    double *p = malloc(sizeof *p * (size_t)np);
    for (int64_t i = 0; i < np; i++) {
        double v = (double)((i * 37) % 257) / 256.0;
        if (i % 5 == 4)
            v = pdt == SHC_DT_FLOAT64 ? 0.1 * (double)(i % 10) : (double)(float)(0.1 * (double)(i % 10));
        if (pdt == SHC_DT_FLOAT16)
            v = (double)(_Float16)v;
        p[i] = v;
    }
    return p;
}

static void bern_case(const char *gpu, const char *shape, const char *pshape, shc_dtype dt,
                      shc_dtype pdt, uint64_t seed, int64_t offset)
{
    shc_gpu_profile g = prof(gpu);
    shc_torch_sample_req r = {.op = SHC_TORCH_SAMPLE_BERNOULLI_P, .dtype = dt, .p_dtype = pdt,
                         .shape = shape_of(shape), .p_shape = shape_of(pshape)};
    int64_t n, np;
    shc_err e;
    ck_assert_int_eq(shc_shape_numel(&r.shape, &n, &e), 0);
    ck_assert_int_eq(shc_shape_numel(&r.p_shape, &np, &e), 0);
    double *p = ramp(np, pdt);
    r.w = p;
    r.nw = np;
    size_t sz = shc_dtype_size(dt);
    uint8_t *x = calloc((size_t)n, sz), *y = calloc((size_t)n, sz);
    int64_t no;
    EXPECT(shc_torch_sample_run(&g, seed, offset, &r, x, &no, &e) == 0, "%s", e.msg);
    ck_assert_int_eq(no, offset + 12); /* philox_cuda_state(10), rounded up */
    naive_bernoulli(seed, offset, &r.shape, &r.p_shape, p, dt, y);
    for (int64_t i = 0; i < n; i++)
        EXPECT(!memcmp(x + i * sz, y + i * sz, sz), "bernoulli %s p%s %s: element %lld differs",
               shape, pshape, shc_dtype_name(dt), (long long)i);
    free(x);
    free(y);
    free(p);
}

START_TEST(bernoulli_tensor_p_matches_naive)
{
    bern_case("a100", "100003", "100003", SHC_DT_FLOAT32, SHC_DT_FLOAT32, 11, 0);
    bern_case("a100", "999,7", "7", SHC_DT_FLOAT64, SHC_DT_FLOAT64, 5, 8);
    bern_case("t4", "33,5,7", "5,1", SHC_DT_FLOAT16, SHC_DT_FLOAT16, 3, 4);
    bern_case("h100-sxm", "4099", "4099", SHC_DT_BFLOAT16, SHC_DT_FLOAT32, 7, 12);
    bern_case("h100-sxm", "4099", "1", SHC_DT_UINT8, SHC_DT_FLOAT64, 7, 12);
    bern_case("l4", "61,67", "61,1", SHC_DT_BOOL, SHC_DT_FLOAT32, 1, 0);
    bern_case("l4", "61,67", "67", SHC_DT_INT64, SHC_DT_FLOAT16, 1, 0);
}
END_TEST

START_TEST(bernoulli_tensor_p_edges)
{
    /* p = 0 never, p = 1 always (curand_uniform is in (0, 1]); an empty self draws nothing */
    shc_gpu_profile g = prof("a100");
    double p01[2] = {0.0, 1.0};
    shc_torch_sample_req r = {.op = SHC_TORCH_SAMPLE_BERNOULLI_P, .dtype = SHC_DT_FLOAT32,
                         .p_dtype = SHC_DT_FLOAT32, .shape = shape_of("5000,2"),
                         .p_shape = shape_of("2"), .w = p01, .nw = 2};
    float *o = malloc(sizeof *o * 10000);
    shc_err e;
    int64_t no;
    ck_assert_int_eq(shc_torch_sample_run(&g, 9, 0, &r, o, &no, &e), 0);
    for (int i = 0; i < 10000; i++)
        EXPECT(o[i] == (float)(i % 2), "p edge element %d", i);
    r.shape = shape_of("0,2");
    ck_assert_int_eq(shc_torch_sample_run(&g, 9, 4, &r, o, &no, &e), 0);
    ck_assert_int_eq(no, 4);
    free(o);
}
END_TEST

/* ---- multinomial with replacement ---- */

static void naive_multinomial(uint64_t seed, int64_t offset, int64_t rows, int64_t cats, int64_t ns,
                              const double *w, shc_dtype dt, int64_t *out)
{
    int64_t gy = rows < 65535 ? rows : 65535, gx = (ns - 1) / 128 + 1;
    for (int64_t by = 0; by < gy; by++)
        for (int64_t bx = 0; bx < gx; bx++)
            for (int64_t tx = 0; tx < 128; tx++) {
                int64_t idx = by * gx * 128 + bx * 128 + tx;
                shc_curand_philox st;
                shc_curand_init(seed, (uint64_t)idx, (uint64_t)offset, &st);
                for (int64_t d = by; d < rows; d += gy)
                    for (int64_t s = bx * 128 + tx; s < ns; s += 128 * gx) {
                        float f[4];
                        shc_curand_uniform4(&st, f);
                        double r = dt == SHC_DT_FLOAT16 ? (double)(_Float16)f[0]
                                 : dt == SHC_DT_BFLOAT16 ? (double)shc_bf16_to_f32(shc_f32_to_bf16(f[0]))
                                 : (double)f[0];
                        const double *row = w + d * cats;
                        double sum = 0, cum = 0;
                        for (int64_t c = 0; c < cats; c++)
                            sum += row[c];
                        int64_t pick = cats - 1;
                        for (int64_t c = 0; c < cats; c++) {
                            cum += row[c] / sum;
                            if (cum >= r) {
                                pick = c;
                                break;
                            }
                        }
                        while (pick > 0 && row[pick] == 0)
                            pick--;
                        out[d * ns + s] = pick;
                    }
            }
}

static void multi_case(int64_t rows, int64_t cats, int64_t ns, shc_dtype dt, uint64_t seed,
                       int64_t offset, int64_t want_inc)
{
    shc_gpu_profile g = prof("a100");
    double *w = calloc((size_t)(rows * cats), sizeof *w);
    for (int64_t d = 0; d < rows; d++) { /* integer weights summing to 64, some zero */
        int64_t left = 64;
        for (int64_t c = 0; c < cats && left; c++) {
            int64_t v = (d * 7 + c * 13) % 5 == 0 ? 0 : 1 + (d + 3 * c) % 9;
            if (c == cats - 1 || v > left)
                v = left;
            w[d * cats + c] = (double)v;
            left -= v;
        }
    }
    shc_torch_sample_req r = {.op = SHC_TORCH_SAMPLE_MULTINOMIAL, .dtype = dt, .n = ns, .replacement = true,
                         .w = w, .nw = rows * cats};
    r.shape.ndim = 2;
    r.shape.d[0] = rows;
    r.shape.d[1] = cats;
    int64_t *x = malloc(sizeof *x * (size_t)(rows * ns)), *y = malloc(sizeof *y * (size_t)(rows * ns));
    shc_err e;
    int64_t no;
    EXPECT(shc_torch_sample_run(&g, seed, offset, &r, x, &no, &e) == 0, "%s", e.msg);
    ck_assert_int_eq(no, offset + want_inc);
    naive_multinomial(seed, offset, rows, cats, ns, w, dt, y);
    for (int64_t i = 0; i < rows * ns; i++)
        EXPECT(x[i] == y[i], "multinomial %lldx%lld n=%lld %s: sample %lld: %lld, naive %lld",
               (long long)rows, (long long)cats, (long long)ns, shc_dtype_name(dt), (long long)i,
               (long long)x[i], (long long)y[i]);
    free(x);
    free(y);
    free(w);
}

START_TEST(multinomial_with_replacement_matches_naive)
{
    multi_case(1, 10, 1000, SHC_DT_FLOAT32, 1, 0, 4);
    multi_case(37, 16, 300, SHC_DT_FLOAT64, 2, 8, 4);
    multi_case(5, 40, 129, SHC_DT_FLOAT16, 3, 4, 4);
    multi_case(3, 9, 2, SHC_DT_BFLOAT16, 4, 0, 4);
    /* more rows than gridDim.y: each thread draws once per row it revisits */
    multi_case(65537, 3, 2, SHC_DT_FLOAT32, 5, 0, 8);
}
END_TEST

START_TEST(multinomial_rejections)
{
    shc_gpu_profile g = prof("a100");
    double w[4] = {0.25, 0.25, 0.5, 0};
    shc_torch_sample_req r = {.op = SHC_TORCH_SAMPLE_MULTINOMIAL, .dtype = SHC_DT_FLOAT32, .n = 2,
                         .replacement = true, .w = w, .nw = 4, .shape = shape_of("4")};
    int64_t o[8], no;
    shc_err e;
    r.n = 0;
    ck_assert_int_eq(shc_torch_sample_run(&g, 0, 0, &r, o, &no, &e), SHC_EINVAL);
    ck_assert_str_eq(e.msg, "cannot sample n_sample <= 0 samples");
    r.n = 5, r.replacement = false;
    ck_assert_int_eq(shc_torch_sample_run(&g, 0, 0, &r, o, &no, &e), SHC_EINVAL);
    ck_assert_str_eq(e.msg, "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
    r.n = 2, r.dtype = SHC_DT_INT64;
    ck_assert_int_eq(shc_torch_sample_run(&g, 0, 0, &r, o, &no, &e), SHC_EINVAL);
    ck_assert_str_eq(e.msg, "multinomial only supports floating-point dtypes for input, got: Long");
    r.dtype = SHC_DT_FLOAT32, r.shape = shape_of("1,1,4");
    ck_assert_int_eq(shc_torch_sample_run(&g, 0, 0, &r, o, &no, &e), SHC_EINVAL);
    ck_assert_str_eq(e.msg, "prob_dist must be 1 or 2 dim");
    r.shape = shape_of("4");
    w[1] = -0.25;
    ck_assert_int_eq(shc_torch_sample_run(&g, 0, 0, &r, o, &no, &e), SHC_EINVAL);
    ck_assert_str_eq(e.msg, "probability tensor contains either `inf`, `nan` or element < 0");
    r.replacement = true; /* with replacement, n >= 2: a device-side assert, not modelled */
    ck_assert_int_eq(shc_torch_sample_run(&g, 0, 0, &r, o, &no, &e), SHC_EUNSUPPORTED);
    w[1] = 0.125; /* the sum 0.875 is not a power of two: the GPU's reduction order would matter */
    ck_assert_int_eq(shc_torch_sample_run(&g, 0, 0, &r, o, &no, &e), SHC_EUNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(e.msg, "not a power of two"));
    w[0] = w[1] = w[2] = w[3] = 0, r.replacement = false;
    ck_assert_int_eq(shc_torch_sample_run(&g, 0, 0, &r, o, &no, &e), SHC_EINVAL);
    ck_assert_str_eq(e.msg, "invalid multinomial distribution (sum of probabilities <= 0)");
}
END_TEST

/* ---- multinomial without replacement / n_sample == 1: exponential_, p / q, argmax/topk ---- */

/* exponential_(1) of n elements through the grid-stride kernel, thread by thread:
 * float4 (unroll 4) or double2 (unroll 2) draws; -log(u), log(u) clamped near 1. */
static int64_t naive_exponential(const shc_gpu_profile *g, uint64_t seed, int64_t offset, int64_t n,
                                 shc_dtype dt, double *q)
{
    int64_t blocks = (n + 255) / 256, cap = (int64_t)g->sm_count * (g->max_threads_per_sm / 256);
    int64_t stride = 256 * (blocks < cap ? blocks : cap);
    int unroll = dt == SHC_DT_FLOAT64 ? 2 : 4;
    for (int64_t t = 0; t < stride; t++) {
        shc_curand_philox st;
        shc_curand_init(seed, (uint64_t)t, (uint64_t)offset, &st);
        for (int64_t li = t; li < n; li += stride * unroll) {
            float f[4];
            double d[2];
            if (unroll == 2)
                shc_curand_uniform2_double(&st, d);
            else
                shc_curand_uniform4(&st, f);
            for (int ii = 0; ii < unroll; ii++) {
                int64_t el = li + ii * stride;
                if (el >= n)
                    continue;
                if (unroll == 2) {
                    double lg = d[ii] >= 1.0 - 0x1p-53 ? -0x1p-53 : shc_cuda_log(d[ii]);
                    q[el] = -1.0 / 1.0 * lg;
                } else {
                    float lg = f[ii] >= 1.0f - 0x1p-24f ? -0x1p-24f : logf(f[ii]);
                    float v = -1.0f / 1.0f * lg;
                    q[el] = dt == SHC_DT_FLOAT16 ? (double)(_Float16)v
                          : dt == SHC_DT_BFLOAT16 ? (double)shc_bf16_to_f32(shc_f32_to_bf16(v)) : v;
                }
            }
        }
    }
    return offset + ((n - 1) / (stride * unroll) + 1) * 4;
}

static void gumbel_case(int64_t rows, int64_t cats, int64_t ns, bool repl, shc_dtype dt,
                        uint64_t seed, int64_t offset)
{
    shc_gpu_profile g = prof("a100");
    double *w = malloc(sizeof *w * (size_t)(rows * cats)), *q = malloc(sizeof *q * (size_t)(rows * cats));
    for (int64_t i = 0; i < rows * cats; i++) /* any non-negative weights: no cumsum here */
        w[i] = i % 7 == 3 ? 0 : (double)(float)(0.1 * (double)(1 + (i * 5) % 13));
    if (dt == SHC_DT_FLOAT16)
        for (int64_t i = 0; i < rows * cats; i++)
            w[i] = (double)(_Float16)w[i];
    shc_torch_sample_req r = {.op = SHC_TORCH_SAMPLE_MULTINOMIAL, .dtype = dt, .n = ns,
                              .replacement = repl, .w = w, .nw = rows * cats};
    r.shape.ndim = 2;
    r.shape.d[0] = rows;
    r.shape.d[1] = cats;
    int64_t *x = malloc(sizeof *x * (size_t)(rows * ns)), no;
    shc_err e;
    EXPECT(shc_torch_sample_run(&g, seed, offset, &r, x, &no, &e) == 0, "%s", e.msg);
    ck_assert_int_eq(no, naive_exponential(&g, seed, offset, rows * cats, dt, q));
    char *taken = malloc((size_t)cats);
    for (int64_t d = 0; d < rows; d++) {
        memset(taken, 0, (size_t)cats);
        for (int64_t k = 0; k < ns; k++) { /* repeated argmax: the k-th largest p/q */
            int64_t best = -1;
            double bv = 0;
            for (int64_t c = 0; c < cats; c++) {
                double p = w[d * cats + c], qq = q[d * cats + c];
                double v = dt == SHC_DT_FLOAT64 ? p / qq : (double)((float)p / (float)qq);
                if (dt == SHC_DT_FLOAT16)
                    v = (double)(_Float16)v;
                if (!taken[c] && (best < 0 || v > bv))
                    best = c, bv = v;
            }
            taken[best] = 1;
            EXPECT(x[d * ns + k] == best, "gumbel %s row %lld pick %lld: %lld, naive %lld",
                   shc_dtype_name(dt), (long long)d, (long long)k, (long long)x[d * ns + k],
                   (long long)best);
        }
    }
    free(taken);
    free(x);
    free(w);
    free(q);
}

START_TEST(multinomial_without_replacement_matches_naive)
{
    gumbel_case(1, 1000, 10, false, SHC_DT_FLOAT32, 1, 0);
    gumbel_case(7, 50, 40, false, SHC_DT_FLOAT64, 2, 4); /* all but the zero-weight ones */
    gumbel_case(300, 33, 1, true, SHC_DT_FLOAT32, 3, 8);  /* n_sample 1 takes this path too */
    gumbel_case(30, 20, 1, false, SHC_DT_FLOAT16, 4, 0);
}
END_TEST

/* ---- randperm ---- */

/* random_(min, max) of the key type through the grid-stride kernel: 64-bit
 * draws (range >= 2^28), unroll 2, grid capped by the GPU. */
static int64_t naive_keys(const shc_gpu_profile *g, uint64_t seed, int64_t offset, int64_t n,
                          bool wide, int64_t *keys)
{
    int64_t blocks = (n + 255) / 256, cap = (int64_t)g->sm_count * (g->max_threads_per_sm / 256);
    int64_t stride = 256 * (blocks < cap ? blocks : cap);
    uint64_t range = wide ? UINT64_MAX : 0xffffffffu;
    for (int64_t t = 0; t < stride; t++) {
        shc_curand_philox st;
        shc_curand_init(seed, (uint64_t)t, (uint64_t)offset, &st);
        for (int64_t li = t; li < n; li += stride * 2) {
            uint32_t w[4];
            shc_curand4(&st, w);
            for (int ii = 0; ii < 2; ii++) {
                uint64_t v = (uint64_t)w[2 * ii] << 32 | w[2 * ii + 1];
                if (li + ii * stride < n)
                    keys[li + ii * stride] = wide ? (int64_t)(v % range + (uint64_t)INT64_MIN)
                                                  : (int64_t)(int32_t)(uint32_t)(v % range + 0x80000000u);
            }
        }
    }
    return offset + ((n - 1) / (stride * 2) + 1) * 4;
}

static void naive_randperm(const shc_gpu_profile *g, uint64_t seed, int64_t offset, int64_t n,
                           int64_t *perm, int64_t *new_offset)
{
    int bits = shc_torch_randperm_bits(n);
    bool wide = bits > 32;
    int64_t *keys = malloc(sizeof *keys * (size_t)n);
    int64_t off = naive_keys(g, seed, offset, n, wide, keys);
    uint64_t mask = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    uint64_t *mk = malloc(sizeof *mk * (size_t)n);
    for (int64_t i = 0; i < n; i++) { /* insertion sort, stable; signed order at full width */
        uint64_t k = wide ? (uint64_t)keys[i] : (uint64_t)(uint32_t)keys[i];
        if (bits == (wide ? 64 : 32))
            k ^= wide ? UINT64_C(1) << 63 : UINT64_C(1) << 31;
        k &= mask;
        int64_t j = i;
        while (j > 0 && mk[j - 1] > k) {
            mk[j] = mk[j - 1];
            perm[j] = perm[j - 1];
            j--;
        }
        mk[j] = k;
        perm[j] = i;
    }
    for (int64_t t = 0; t + 1 < n; t++) { /* each thread of the island kernel */
        if (mk[t] != mk[t + 1] || (t != 0 && mk[t] == mk[t - 1]))
            continue;
        int64_t size = 0;
        do
            size++;
        while (t + size < n && mk[t + size] == mk[t]);
        shc_curand_philox st;
        shc_curand_init(seed, (uint64_t)t, (uint64_t)off, &st);
        for (int64_t i = size - 1; i > 0; i--) {
            uint32_t r = shc_curand(&st) % (uint32_t)(i + 1);
            int64_t tmp = perm[t + i];
            perm[t + i] = perm[t + r];
            perm[t + r] = tmp;
        }
    }
    *new_offset = off + (n + 3) / 4 * 4;
    free(keys);
    free(mk);
}

static void perm_case(const char *gpu, int64_t n, shc_dtype dt, uint64_t seed, int64_t offset)
{
    shc_gpu_profile g = prof(gpu);
    shc_torch_sample_req r = {.op = SHC_TORCH_SAMPLE_RANDPERM, .dtype = dt, .n = n};
    size_t sz = shc_dtype_size(dt);
    uint8_t *x = malloc(sz * (size_t)n);
    int64_t *y = malloc(sizeof *y * (size_t)n), no, wno;
    shc_err e;
    EXPECT(shc_torch_sample_run(&g, seed, offset, &r, x, &no, &e) == 0, "%s", e.msg);
    naive_randperm(&g, seed, offset, n, y, &wno);
    ck_assert_int_eq(no, wno);
    char *seen = calloc((size_t)n, 1);
    for (int64_t i = 0; i < n; i++) {
        int64_t v = 0;
        if (dt == SHC_DT_INT64) memcpy(&v, x + i * 8, 8);
        else if (dt == SHC_DT_INT32) { int32_t a; memcpy(&a, x + i * 4, 4); v = a; }
        else if (dt == SHC_DT_FLOAT32) { float a; memcpy(&a, x + i * 4, 4); v = (int64_t)a; }
        else if (dt == SHC_DT_FLOAT16) { _Float16 a; memcpy(&a, x + i * 2, 2); v = (int64_t)a; }
        else v = x[i];
        EXPECT(v == y[i], "randperm n=%lld %s: position %lld: %lld, naive %lld", (long long)n,
               shc_dtype_name(dt), (long long)i, (long long)v, (long long)y[i]);
        EXPECT(!seen[v], "randperm n=%lld: %lld twice", (long long)n, (long long)v);
        seen[v] = 1;
    }
    free(seen);
    free(x);
    free(y);
}

START_TEST(randperm_matches_naive)
{
    ck_assert_int_eq(shc_torch_randperm_bits(1), 3);
    ck_assert_int_eq(shc_torch_randperm_bits(100), 16);
    ck_assert_int_eq(shc_torch_randperm_bits(30000), 32);
    ck_assert_int_eq(shc_torch_randperm_bits(40000), 33);
    perm_case("a100", 1, SHC_DT_INT64, 0, 0);
    perm_case("a100", 10, SHC_DT_INT64, 0, 0);
    perm_case("a100", 100, SHC_DT_INT32, 3, 8);
    perm_case("t4", 2049, SHC_DT_FLOAT16, 4, 4);
    perm_case("t4", 200, SHC_DT_UINT8, 4, 4);      /* 8-bit-ish keys: islands likely */
    perm_case("h100-sxm", 25000, SHC_DT_FLOAT32, 5, 0); /* bits == 32: signed key order */
    perm_case("h100-sxm", 40000, SHC_DT_INT64, 6, 0);   /* int64 keys */
}
END_TEST

START_TEST(randperm_islands_are_shuffled)
{
    /* n = 3000: 26-bit keys; find a seed with a duplicate key and check the island
     * kernel ran (the naive emulation agrees on the order, checked above too) */
    shc_gpu_profile g = prof("a100");
    int found = 0;
    for (uint64_t seed = 0; seed < 64 && !found; seed++) {
        int64_t keys[3000];
        naive_keys(&g, seed, 0, 3000, false, keys);
        uint64_t mask = (UINT64_C(1) << shc_torch_randperm_bits(3000)) - 1;
        for (int i = 0; i < 3000 && !found; i++)
            for (int j = i + 1; j < 3000 && !found; j++)
                found = (((uint64_t)(uint32_t)keys[i] ^ (uint64_t)(uint32_t)keys[j]) & mask) == 0;
        if (found)
            perm_case("a100", 3000, SHC_DT_INT64, seed, 0);
    }
    ck_assert(found);
}
END_TEST

START_TEST(randperm_rejections)
{
    shc_gpu_profile g = prof("a100");
    shc_torch_sample_req r = {.op = SHC_TORCH_SAMPLE_RANDPERM, .dtype = SHC_DT_INT64, .n = -1};
    int64_t o[4], no;
    shc_err e;
    ck_assert_int_eq(shc_torch_sample_run(&g, 0, 0, &r, o, &no, &e), SHC_EINVAL);
    ck_assert_str_eq(e.msg, "Trying to create tensor with negative dimension -1: [-1]");
    r.n = 2050, r.dtype = SHC_DT_FLOAT16;
    ck_assert_int_eq(shc_torch_sample_run(&g, 0, 0, &r, o, &no, &e), SHC_EINVAL);
    ck_assert_str_eq(e.msg, "n cannot be greater than 2049 for Half type.");
    r.n = 129, r.dtype = SHC_DT_INT8;
    ck_assert_int_eq(shc_torch_sample_run(&g, 0, 0, &r, o, &no, &e), SHC_EINVAL);
    ck_assert_str_eq(e.msg, "value cannot be converted to type int8_t without overflow");
    r.n = 128; /* n - 1 = 127 fits */
    uint8_t b[128];
    ck_assert_int_eq(shc_torch_sample_run(&g, 0, 0, &r, b, &no, &e), 0);
    r.n = 0; /* no generator use */
    ck_assert_int_eq(shc_torch_sample_run(&g, 0, 8, &r, o, &no, &e), 0);
    ck_assert_int_eq(no, 8);
    r.n = 3, r.dtype = SHC_DT_BOOL;
    ck_assert_int_eq(shc_torch_sample_run(&g, 0, 0, &r, o, &no, &e), SHC_EUNSUPPORTED);
}
END_TEST

START_TEST(bernoulli_rejections)
{
    shc_gpu_profile g = prof("a100");
    double p[6] = {0.5, 0.5, 0.5, 0.5, 0.5, 0.5};
    shc_torch_sample_req r = {.op = SHC_TORCH_SAMPLE_BERNOULLI_P, .dtype = SHC_DT_FLOAT32,
                         .p_dtype = SHC_DT_INT64, .shape = shape_of("3"),
                         .p_shape = shape_of("3"), .w = p, .nw = 3};
    float o[12];
    int64_t no;
    shc_err e;
    ck_assert_int_eq(shc_torch_sample_run(&g, 0, 0, &r, o, &no, &e), SHC_EINVAL);
    ck_assert_str_eq(e.msg, "expected probabilities tensor to have floating type, got Long");
    r.p_dtype = SHC_DT_FLOAT32, r.shape = shape_of("4,3"), r.p_shape = shape_of("2,1"), r.nw = 2;
    ck_assert_int_eq(shc_torch_sample_run(&g, 0, 0, &r, o, &no, &e), SHC_EINVAL);
    ck_assert_str_eq(e.msg, "The expanded size of the tensor (4) must match the existing size (2) "
                     "at non-singleton dimension 0.  Target sizes: [4, 3].  Tensor sizes: [2, 1]");
    r.shape = shape_of("3"), r.p_shape = shape_of("3"), r.nw = 3, p[1] = 1.5;
    ck_assert_int_eq(shc_torch_sample_run(&g, 0, 0, &r, o, &no, &e), SHC_EUNSUPPORTED);
    p[1] = 0.1; /* not a float16 value */
    r.p_dtype = SHC_DT_FLOAT16;
    ck_assert_int_eq(shc_torch_sample_run(&g, 0, 0, &r, o, &no, &e), SHC_EINVAL);
    ck_assert_int_eq(shc_torch_sample_run(&g, 0, 6, &r, o, &no, &e), SHC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "multiple of 4"));
}
END_TEST

/* Refusals, a row each: torch's own message where torch refuses (Distributions.cpp
 * multinomial / bernoulli_, TensorFactories.cpp randperm), ours naming what is not modelled
 * otherwise, and the overflow of the generator offset.  Only the fields a row sets differ
 * from a valid request; w holds 6 values, some rows point at others. */
static const double W6[6] = {0.5, 0.25, 0.25, 0.5, 0.25, 0.25};
static const double WTENTH[2] = {0.1, 0.9};
static const struct refusal {
    const char *what;
    shc_torch_sample_op op;
    shc_dtype dtype, p_dtype;
    const char *shape, *p_shape;
    const double *w;
    int64_t nw, n, offset;
    bool replacement;
    int code;
    const char *msg;
} REFUSALS[] = {
    {"bernoulli: p with more dims than self", SHC_TORCH_SAMPLE_BERNOULLI_P, SHC_DT_FLOAT32,
     SHC_DT_FLOAT32, "3", "1,3", W6, 3, 0, 0, false, SHC_EUNSUPPORTED, "p with more dims (2) than self (1)"},
    {"bernoulli: past 2^32 elements", SHC_TORCH_SAMPLE_BERNOULLI_P, SHC_DT_FLOAT32,
     SHC_DT_FLOAT32, "65537,65536", "1", W6, 1, 0, 0, false, SHC_EUNSUPPORTED,
     "4295032832 elements: the kernel's 32-bit thread index wraps"},
    {"bernoulli: p values for another shape", SHC_TORCH_SAMPLE_BERNOULLI_P, SHC_DT_FLOAT32,
     SHC_DT_FLOAT32, "2,3", "3", W6, 6, 0, 0, false, SHC_EINVAL, "p has 6 values for 3 elements"},
    {"bernoulli: offset past int64", SHC_TORCH_SAMPLE_BERNOULLI_P, SHC_DT_FLOAT32,
     SHC_DT_FLOAT32, "3", "3", W6, 3, 0, INT64_MAX - 7, false, SHC_EOVERFLOW,
     "generator offset overflows int64"},
    {"multinomial: over 2^24 categories", SHC_TORCH_SAMPLE_MULTINOMIAL, SHC_DT_FLOAT32, 0,
     "16777217", NULL, W6, 6, 1, 0, true, SHC_EINVAL, "number of categories cannot exceed 2^24"},
    {"multinomial: values for another shape", SHC_TORCH_SAMPLE_MULTINOMIAL, SHC_DT_FLOAT32, 0,
     "2,4", NULL, W6, 6, 1, 0, true, SHC_EINVAL, "multinomial: 6 values for a 2 x 4 input"},
    {"multinomial: a value the dtype cannot hold", SHC_TORCH_SAMPLE_MULTINOMIAL, SHC_DT_FLOAT16, 0,
     "2", NULL, WTENTH, 2, 1, 0, true, SHC_EINVAL, "input[0] = 0.10000000000000001 is not a float16 value"},
    {"multinomial: more threads than an int", SHC_TORCH_SAMPLE_MULTINOMIAL, SHC_DT_FLOAT32, 0,
     "2", NULL, W6, 2, INT64_C(1) << 31 | 1, 0, true, SHC_EUNSUPPORTED,
     "1 x 2147483776 threads overflow the kernel's int thread index"},
    {"randperm: float32 past 2^24+1", SHC_TORCH_SAMPLE_RANDPERM, SHC_DT_FLOAT32, 0, "1", NULL,
     W6, 0, (1 << 24) + 2, 0, false, SHC_EINVAL, "n cannot be greater than 2^24+1 for Float type."},
    {"randperm: n past int32", SHC_TORCH_SAMPLE_RANDPERM, SHC_DT_INT64, 0, "1", NULL, W6, 0,
     (int64_t)INT32_MAX + 1, 0, false, SHC_EUNSUPPORTED, "randperm: n = 2147483648: the kernels' int n"},
    {"an op out of range", (shc_torch_sample_op)SHC_TORCH_SAMPLE_COUNT, SHC_DT_INT64, 0, "1",
     NULL, W6, 0, 1, 0, false, SHC_EINVAL, "torch sampling op 3 out of range"},
    {"a dtype out of range", SHC_TORCH_SAMPLE_RANDPERM, SHC_DT_COUNT, 0, "1", NULL, W6, 0, 1, 0,
     false, SHC_EINVAL, "torch sampling: dtype out of range"},
};

START_TEST(sampling_refusals)
{
    const struct refusal *t = &REFUSALS[_i];
    shc_gpu_profile g = prof("a100");
    shc_torch_sample_req r = {.op = t->op, .dtype = t->dtype, .p_dtype = t->p_dtype,
                              .shape = shape_of(t->shape), .w = t->w, .nw = t->nw, .n = t->n,
                              .replacement = t->replacement};
    if (t->p_shape)
        r.p_shape = shape_of(t->p_shape);
    int64_t o[16], no = -1;
    shc_err e = {0};
    ck_assert_msg(shc_torch_sample_run(&g, 7, t->offset, &r, o, &no, &e) == t->code,
                  "%s: '%s'", t->what, e.msg);
    ck_assert_msg(strstr(e.msg, t->msg), "%s: '%s' lacks '%s'", t->what, e.msg, t->msg);
    ck_assert_int_eq(no, -1); /* no new offset with a refusal */
}
END_TEST

/* The output's size: multinomial's rows x n overflowing, and an op out of range. */
START_TEST(sampling_out_refusals)
{
    shc_torch_sample_req r = {.op = SHC_TORCH_SAMPLE_MULTINOMIAL, .dtype = SHC_DT_FLOAT32,
                              .shape = shape_of("3,4"), .n = INT64_MAX / 2};
    int64_t n;
    shc_dtype dt;
    shc_err e = {0};
    ck_assert_int_eq(shc_torch_sample_out(&r, &n, &dt, &e), SHC_EOVERFLOW);
    ck_assert_str_eq(e.msg, "multinomial: rows x n_sample overflows int64");
    r.n = 5;
    ck_assert_int_eq(shc_torch_sample_out(&r, &n, &dt, &e), SHC_OK);
    ck_assert_int_eq(n, 15);
    ck_assert_int_eq(dt, SHC_DT_INT64);
    r.op = (shc_torch_sample_op)-1;
    ck_assert_int_eq(shc_torch_sample_out(&r, &n, &dt, &e), SHC_EINVAL);
    ck_assert_str_eq(e.msg, "torch sampling op -1 out of range");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("check_torch_sample");
    TCase *tc = tcase_create("torch_cuda_sample");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, bernoulli_tensor_p_matches_naive);
    tcase_add_test(tc, bernoulli_tensor_p_edges);
    tcase_add_test(tc, bernoulli_rejections);
    tcase_add_test(tc, multinomial_with_replacement_matches_naive);
    tcase_add_test(tc, multinomial_rejections);
    tcase_add_test(tc, multinomial_without_replacement_matches_naive);
    tcase_add_test(tc, randperm_matches_naive);
    tcase_add_test(tc, randperm_islands_are_shuffled);
    tcase_add_test(tc, randperm_rejections);
    tcase_add_loop_test(tc, sampling_refusals, 0, (int)(sizeof REFUSALS / sizeof *REFUSALS));
    tcase_add_test(tc, sampling_out_refusals);
    suite_add_tcase(s, tc);
    return shc_run_suite(s);
}
