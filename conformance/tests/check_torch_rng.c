/*
 * check_torch_rng.c — the PyTorch CUDA random-kernel emulation
 * (torch_cuda_rng.c): the values torch.rand printed on a CUDA GPU, the
 * offset arithmetic (including the >2^31-element split), and every op/dtype
 * against a second, naive emulation written here from the kernel source:
 * one cuRAND state machine per thread (curand_stream.c), looping as the CUDA
 * grid-stride kernel does.  The library instead computes Philox blocks in
 * SoA chunks with the SIMD fill, so the two share only the Philox core,
 * which check_rng.c checks against Random123.  sm90_sfu_compose composes sm_90's
 * float normal_/exponential_/geometric_ from the SFU model's primitives, libdevice
 * logf and sqrtf on Philox words drawn here, and requires the a100 (glibc) path to
 * differ.
 */
#include "config.h"
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"

/* ck_assert records every passing check through a temporary file; hot loops
 * use this instead and only report failures. */
#define EXPECT(c, ...) do { if (!(c)) ck_abort_msg(__VA_ARGS__); } while (0)
#include "shardcheck.h"
#include "torch_cuda_rng.h"
#include "philox_core.h"
#include "cuda_libdevice.h"
#include "cuda_sfu.h"

static shc_gpu_profile prof(const char *name)
{
    shc_gpu_profile g;
    shc_err e;
    ck_assert_int_eq(shc_gpu_profile_parse(name, &g, &e), 0);
    return g;
}

/* Published: torch.manual_seed(0); torch.rand(4, device='cuda') twice. */
START_TEST(published_torch_rand_values)
{
    static const double want[2][4] = {{0.3990, 0.5167, 0.0249, 0.9401},
                                      {0.9722, 0.7910, 0.4690, 0.3300}};
    shc_gpu_profile g = prof("a100");
    shc_torch_rng_req r;
    shc_torch_rng_req_init(&r, SHC_TORCH_UNIFORM, SHC_DT_FLOAT32, 4);
    int64_t off = 0;
    shc_err e;
    for (int call = 0; call < 2; call++) {
        float o[4];
        ck_assert_int_eq(shc_torch_rng_fill(&g, 0, off, &r, 0, 4, o, NULL, &off, &e), 0);
        for (int i = 0; i < 4; i++)
            EXPECT(fabs(round(o[i] * 1e4) / 1e4 - want[call][i]) < 1e-9,
                          "call %d element %d: %.6f does not print as %.4f", call, i, o[i],
                          want[call][i]);
        ck_assert_int_eq(off, 4 * (call + 1));
    }
}
END_TEST

/* The naive kernel: element values of one launch, thread by thread. */
static void naive(const shc_gpu_profile *g, uint64_t seed, int64_t offset, const shc_torch_rng_req *r,
                  uint8_t *out)
{
    int64_t n = r->numel;
    size_t sz = shc_dtype_size(r->dtype);
    int64_t blocks = (n + 255) / 256, cap = (int64_t)g->sm_count * (g->max_threads_per_sm / 256);
    int64_t stride = 256 * (blocks < cap ? blocks : cap);
    bool dbl = r->dtype == SHC_DT_FLOAT64;
    bool raw64 = r->op == SHC_TORCH_RANDOM &&
                 (r->has_range ? (uint64_t)(r->to - r->from) >= (1u << 28) : dbl || r->dtype == SHC_DT_INT64);
    int unroll = (dbl && r->op != SHC_TORCH_RANDOM) || raw64 ? 2 : 4;
    for (int64_t t = 0; t < stride; t++) {
        shc_curand_philox s;
        shc_curand_init(seed, (uint64_t)t, (uint64_t)offset, &s);
        for (int64_t li = t; li < n; li += stride * unroll) {
            float f[4];
            double d[2];
            uint32_t w[4];
            if (r->op == SHC_TORCH_RANDOM)
                shc_curand4(&s, w);
            else if (r->op == SHC_TORCH_NORMAL && dbl)
                shc_curand_normal2_double(&s, d);
            else if (r->op == SHC_TORCH_NORMAL)
                shc_curand_normal4(&s, f);
            else if (dbl)
                shc_curand_uniform2_double(&s, d);
            else
                shc_curand_uniform4(&s, f);
            for (int ii = 0; ii < unroll; ii++) {
                int64_t el = li + ii * stride;
                if (el >= n)
                    continue;
                uint8_t *dst = out + el * sz;
                if (r->op == SHC_TORCH_RANDOM) {
                    uint64_t v = raw64 ? (uint64_t)w[2 * ii] << 32 | w[2 * ii + 1] : w[ii];
                    int64_t x = (int64_t)(v % (uint64_t)(r->to - r->from)) + r->from;
                    if (r->dtype == SHC_DT_INT64) memcpy(dst, &x, 8);
                    else if (r->dtype == SHC_DT_INT32) { int32_t y = (int32_t)x; memcpy(dst, &y, 4); }
                    else { float y = (float)x; memcpy(dst, &y, 4); }
                } else if (dbl) {
                    double v = r->op == SHC_TORCH_NORMAL ? fma(d[ii], r->b, r->a)
                             : r->op == SHC_TORCH_BERNOULLI ? (double)(d[ii] < r->a)
                             : fma(d[ii], r->b - r->a, r->a);
                    if (r->op == SHC_TORCH_UNIFORM && v == r->b)
                        v = r->a;
                    memcpy(dst, &v, 8);
                } else {
                    float v = r->op == SHC_TORCH_NORMAL ? fmaf(f[ii], (float)r->b, (float)r->a)
                            : r->op == SHC_TORCH_BERNOULLI ? (float)(f[ii] < (float)r->a)
                            : fmaf(f[ii], (float)r->b - (float)r->a, (float)r->a);
                    if (r->dtype == SHC_DT_FLOAT16) {
                        /* static_cast<Half> first (GCC's own rounding), then value == to */
                        _Float16 hv = (_Float16)v;
                        if (r->op == SHC_TORCH_UNIFORM && hv == (_Float16)r->b)
                            hv = (_Float16)r->a;
                        memcpy(dst, &hv, 2);
                    } else {
                        if (r->op == SHC_TORCH_UNIFORM && v == (float)r->b)
                            v = (float)r->a;
                        memcpy(dst, &v, 4);
                    }
                }
            }
        }
    }
}

static void compare(const char *gpu, shc_torch_op op, shc_dtype dt, int64_t n, double a, double b,
                    uint64_t seed, int64_t offset)
{
    shc_gpu_profile g = prof(gpu);
    shc_torch_rng_req r;
    shc_torch_rng_req_init(&r, op, dt, n);
    if (op != SHC_TORCH_BERNOULLI) {
        r.a = a;
        r.b = b;
    }
    if (op == SHC_TORCH_RANDOM) {
        r.has_range = true;
        r.from = (int64_t)a;
        r.to = (int64_t)b;
    }
    size_t sz = shc_dtype_size(dt);
    uint8_t *x = calloc((size_t)n, sz), *y = calloc((size_t)n, sz);
    shc_err e;
    int64_t no;
    EXPECT(shc_torch_rng_fill(&g, seed, offset, &r, 0, n, x, NULL, &no, &e) == 0, "%s", e.msg);
    naive(&g, seed, offset, &r, y);
    for (int64_t i = 0; i < n; i++)
        EXPECT(!memcmp(x + i * sz, y + i * sz, sz), "%s %s %s n=%lld: element %lld differs",
                      gpu, shc_torch_op_name(op), shc_dtype_name(dt), (long long)n, (long long)i);
    /* a sub-range gives the same elements */
    int64_t s0 = n / 3, cnt = n / 2;
    ck_assert_int_eq(shc_torch_rng_fill(&g, seed, offset, &r, s0, cnt, x, NULL, NULL, &e), 0);
    ck_assert(!memcmp(x, y + s0 * sz, (size_t)cnt * sz));
    free(x);
    free(y);
}

START_TEST(ops_match_naive_kernel)
{
    compare("t4", SHC_TORCH_UNIFORM, SHC_DT_FLOAT32, 300007, 0, 1, 0, 0);
    compare("t4", SHC_TORCH_UNIFORM, SHC_DT_FLOAT32, 300007, -2.5, 7, 123, 8);
    compare("l4", SHC_TORCH_UNIFORM, SHC_DT_FLOAT64, 250001, -1, 3, 5, 12);
    compare("4x256", SHC_TORCH_UNIFORM, SHC_DT_FLOAT16, 9999, 0, 1, 7, 4);
    compare("a100", SHC_TORCH_NORMAL, SHC_DT_FLOAT32, 200003, 1, 2, 9, 400);
    compare("a100", SHC_TORCH_NORMAL, SHC_DT_FLOAT64, 100003, -1, 0.5, 9, 400);
    compare("h100-sxm", SHC_TORCH_BERNOULLI, SHC_DT_FLOAT32, 100003, 0, 0, 3, 0);
    compare("h100-sxm", SHC_TORCH_BERNOULLI, SHC_DT_FLOAT64, 100003, 0, 0, 3, 0);
    compare("b200", SHC_TORCH_RANDOM, SHC_DT_INT64, 77777, -5, 1e12, 11, 4);
    compare("b200", SHC_TORCH_RANDOM, SHC_DT_INT32, 77777, 3, 1000, 11, 4);
    compare("b200", SHC_TORCH_RANDOM, SHC_DT_FLOAT32, 77777, -100, 100, 11, 4);
}
END_TEST

START_TEST(offset_increments)
{
    shc_gpu_profile g = prof("a100");
    shc_torch_rng_req r;
    shc_err e;
    int64_t no;
    /* 2^20 floats on an A100: grid 864, ((2^20-1)/(256*864*4)+1)*4 = 8 */
    shc_torch_rng_req_init(&r, SHC_TORCH_UNIFORM, SHC_DT_FLOAT32, 1 << 20);
    ck_assert_int_eq(shc_torch_rng_offset_after(&g, 16, &r, &no, &e), 0);
    ck_assert_int_eq(no, 16 + 8);
    /* doubles unroll by 2: ((2^20-1)/(256*864*2)+1)*4 = 12 */
    r.dtype = SHC_DT_FLOAT64;
    ck_assert_int_eq(shc_torch_rng_offset_after(&g, 0, &r, &no, &e), 0);
    ck_assert_int_eq(no, 12);
    /* 2^29+1 floats cannot use 32-bit indexing: whole-tensor increment 2428, then the
     * halves 2^28 (1216) and 2^28+1 (1216) */
    shc_torch_rng_req_init(&r, SHC_TORCH_UNIFORM, SHC_DT_FLOAT32, (1 << 29) + 1);
    ck_assert_int_eq(shc_torch_rng_offset_after(&g, 0, &r, &no, &e), 0);
    ck_assert_int_eq(no, 2428 + 1216 + 1216);
    /* the second half's first element is element 0 of a 2^28+1 tensor at offset 3644 */
    float a, b;
    ck_assert_int_eq(shc_torch_rng_fill(&g, 1, 0, &r, 1 << 28, 1, &a, NULL, NULL, &e), 0);
    shc_torch_rng_req h;
    shc_torch_rng_req_init(&h, SHC_TORCH_UNIFORM, SHC_DT_FLOAT32, (1 << 28) + 1);
    ck_assert_int_eq(shc_torch_rng_fill(&g, 1, 2428 + 1216, &h, 0, 1, &b, NULL, NULL, &e), 0);
    ck_assert(a == b);
    /* empty tensors take no increment */
    shc_torch_rng_req_init(&r, SHC_TORCH_NORMAL, SHC_DT_FLOAT32, 0);
    ck_assert_int_eq(shc_torch_rng_offset_after(&g, 4, &r, &no, &e), 0);
    ck_assert_int_eq(no, 4);
}
END_TEST

START_TEST(dropout_vectorised_layout)
{
    /* native_dropout on 1024 floats, vec 4: thread t draws one float4 for
     * elements 4t..4t+3; element i keeps iff curand_uniform4 component < 1-p. */
    shc_gpu_profile g = prof("a100");
    shc_torch_rng_req r;
    shc_torch_rng_req_init(&r, SHC_TORCH_DROPOUT, SHC_DT_FLOAT32, 1024);
    r.a = 0.25;
    float out[1024];
    uint8_t mask[1024];
    shc_err e;
    int64_t no;
    ck_assert_int_eq(shc_torch_rng_fill(&g, 5, 8, &r, 0, 1024, out, mask, &no, &e), 0);
    ck_assert_int_eq(no, 12);
    for (int t = 0; t < 256; t++) {
        shc_curand_philox s;
        shc_curand_init(5, (uint64_t)t, 8, &s);
        float f[4];
        shc_curand_uniform4(&s, f);
        for (int q = 0; q < 4; q++) {
            bool keep = f[q] < 0.75f;
            EXPECT(mask[4 * t + q] == keep, "dropout mask %d", 4 * t + q);
            EXPECT(out[4 * t + q] == (keep ? (float)(1.0 / 0.75) : 0.0f), "dropout value %d", 4 * t + q);
        }
    }
    /* p == 1: zeros, no generator use */
    r.a = 1.0;
    ck_assert_int_eq(shc_torch_rng_fill(&g, 5, 8, &r, 0, 1024, out, mask, &no, &e), 0);
    ck_assert_int_eq(no, 8);
    ck_assert(out[17] == 0.0f && mask[17] == 0);
}
END_TEST


/* Naive fused dropout (Dropout.cu) for any dtype: VEC from 16/sizeof halved until it divides
 * n; VEC > 1: thread t, step s covers elements s*stride*VEC + t*VEC + q from its
 * (s*ceil(VEC/4) + q/4)-th curand_uniform4, component q%4; VEC == 1: the grid-stride
 * kernel with unroll 4.  Checks the keep mask only (values are m ? 1/(1-p) : 0). */
static void naive_dropout_mask(const shc_gpu_profile *g, uint64_t seed, int64_t offset, int64_t n,
                               size_t sz, float keep_p, uint8_t *mask)
{
    int64_t blocks = (n + 255) / 256, cap = (int64_t)g->sm_count * (g->max_threads_per_sm / 256);
    int64_t stride = 256 * (blocks < cap ? blocks : cap);
    int vec = (int)(16 / sz);
    while (vec > 1 && n % vec)
        vec /= 2;
    for (int64_t t = 0; t < stride; t++) {
        shc_curand_philox s;
        shc_curand_init(seed, (uint64_t)t, (uint64_t)offset, &s);
        if (vec > 1) {
            for (int64_t li = t * vec; li < n; li += stride * vec) {
                float f[8];
                for (int r = 0; r < (vec + 3) / 4; r++)
                    shc_curand_uniform4(&s, f + 4 * r);
                for (int q = 0; q < vec; q++)
                    mask[li + q] = f[q] < keep_p;
            }
        } else {
            for (int64_t li = t; li < n; li += stride * 4) {
                float f[4];
                shc_curand_uniform4(&s, f);
                for (int ii = 0; ii < 4; ii++)
                    if (li + ii * stride < n)
                        mask[li + ii * stride] = f[ii] < keep_p;
            }
        }
    }
}

START_TEST(dropout_all_vector_widths_match_naive)
{
    static const struct { const char *gpu; shc_dtype dt; int64_t n; double p; } C[] = {
        {"t4", SHC_DT_FLOAT16, 40000, 0.3},   /* vec 8: two float4 per step */
        {"t4", SHC_DT_BFLOAT16, 40004, 0.3},  /* vec 4 */
        {"l4", SHC_DT_FLOAT64, 30002, 0.6},   /* vec 2: .z/.w never used */
        {"l4", SHC_DT_FLOAT32, 30001, 0.6},   /* vec 1: grid-stride, unroll 4 */
        {"a100", SHC_DT_FLOAT16, 900006, 0.5}, /* vec 2, three steps per thread */
    };
    for (size_t i = 0; i < sizeof C / sizeof C[0]; i++) {
        shc_gpu_profile g = prof(C[i].gpu);
        shc_torch_rng_req r;
        shc_torch_rng_req_init(&r, SHC_TORCH_DROPOUT, C[i].dt, C[i].n);
        r.a = C[i].p;
        size_t sz = shc_dtype_size(C[i].dt);
        uint8_t *out = malloc((size_t)C[i].n * sz), *m = malloc((size_t)C[i].n), *w = malloc((size_t)C[i].n);
        shc_err e;
        ck_assert_int_eq(shc_torch_rng_fill(&g, 77, 12, &r, 0, C[i].n, out, m, NULL, &e), 0);
        naive_dropout_mask(&g, 77, 12, C[i].n, sz, (float)(1.0 - C[i].p), w);
        for (int64_t k = 0; k < C[i].n; k++)
            EXPECT(m[k] == w[k], "case %zu element %lld", i, (long long)k);
        free(out);
        free(m);
        free(w);
    }
}
END_TEST

START_TEST(random_without_bounds)
{
    /* random_(): transformation::uniform_int<T> on one word (8/16/32-bit types, float,
     * half, bf16, bool) or on (w0 << 32 | w1) (int64, double) */
    shc_gpu_profile g = prof("a100");
    shc_err e;
    shc_curand_philox s;
    shc_curand_init(3, 0, 0, &s);
    uint32_t w[4];
    shc_curand4(&s, w);
    uint64_t w64 = (uint64_t)w[0] << 32 | w[1];
    static const shc_dtype T[] = {SHC_DT_INT8, SHC_DT_UINT8, SHC_DT_INT16, SHC_DT_INT32,
                                  SHC_DT_INT64, SHC_DT_FLOAT32, SHC_DT_FLOAT64, SHC_DT_FLOAT16,
                                  SHC_DT_BFLOAT16, SHC_DT_BOOL};
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++) {
        shc_torch_rng_req r;
        shc_torch_rng_req_init(&r, SHC_TORCH_RANDOM, T[i], 5);
        uint8_t o[8] = {0};
        ck_assert_int_eq(shc_torch_rng_fill(&g, 3, 0, &r, 0, 1, o, NULL, NULL, &e), 0);
        switch (T[i]) {
        case SHC_DT_INT8: ck_assert_int_eq((int8_t)o[0], (int8_t)(w[0] % 128)); break;
        case SHC_DT_UINT8: ck_assert_int_eq(o[0], w[0] % 256); break;
        case SHC_DT_INT16: { int16_t v; memcpy(&v, o, 2); ck_assert_int_eq(v, w[0] % 32768); break; }
        case SHC_DT_INT32: { int32_t v; memcpy(&v, o, 4); ck_assert_int_eq(v, w[0] % 2147483648u); break; }
        case SHC_DT_INT64: { int64_t v; memcpy(&v, o, 8); ck_assert(v == (int64_t)(w64 % (1ull << 63))); break; }
        case SHC_DT_FLOAT32: { float v; memcpy(&v, o, 4); ck_assert(v == (float)(w[0] % 16777217u)); break; }
        case SHC_DT_FLOAT64: { double v; memcpy(&v, o, 8); ck_assert(v == (double)(w64 % ((1ull << 53) + 1))); break; }
        case SHC_DT_FLOAT16: { uint16_t v; memcpy(&v, o, 2); ck_assert(shc_f16_to_f32(v) == (float)(w[0] % 2049)); break; }
        case SHC_DT_BFLOAT16: { uint16_t v; memcpy(&v, o, 2); ck_assert(shc_bf16_to_f32(v) == shc_bf16_to_f32(shc_f32_to_bf16((float)(w[0] % 257)))); break; }
        case SHC_DT_BOOL: ck_assert_int_eq(o[0], w[0] & 1); break;
        default: break;
        }
    }
}
END_TEST

START_TEST(half_and_bfloat16_rounding)
{
    uint32_t x = 0;
    for (int i = 0; i < 2000000; i++) {
        x = x * 1664525u + 1013904223u;
        float f;
        memcpy(&f, &x, 4);
        if (f != f)
            continue;
        _Float16 h = (_Float16)f;
        uint16_t hb;
        memcpy(&hb, &h, 2);
        EXPECT(shc_f32_to_f16(f) == hb, "half(%a) = %04x, gcc %04x", (double)f,
                      shc_f32_to_f16(f), hb);
        EXPECT(shc_f16_to_f32(hb) == (float)h, "half %04x back to float", hb);
    }
    /* bfloat16 ties to even: 1 + 2^-8 -> 1, 1 + 3*2^-8 -> 1 + 2^-6 */
    ck_assert_uint_eq(shc_f32_to_bf16(1.0f + 0x1p-8f), 0x3f80);
    ck_assert_uint_eq(shc_f32_to_bf16(1.0f + 0x3p-8f), 0x3f82);
    ck_assert_uint_eq(shc_f32_to_bf16(0x1.fffffep127f), 0x7f80); /* rounds up to inf */
}
END_TEST

/* sm_90 (issue 15 item 3): float normal_, exponential_ and geometric_ composed here
 * from the SFU model's primitives (shc_sfu_sincos_arg, shc_sfu_sin/cos, shc_sfu_lg2),
 * libdevice logf and sqrtf, on Philox words drawn here with torch's layout
 * (curand_init(seed, t, offset): counter (offset/4, t), key seed), not through the
 * kernel-body code.  Elements [0, N) of a launch of numel < SMs x threads are thread
 * i's first draw, component 0 (sin of Box-Muller(w0, w1)); elements from the grid's
 * stride on are component 1 (cos).  The a100 profile (no model: glibc sinf/cosf/logf)
 * must differ somewhere, so the test tells the old path from the new. */
static float sm90_normal(const uint32_t w[4], int cosine)
{
    float u = (float)w[0] * 0x1p-32f + 0x1p-33f;  /* curand_uniform: exact */
    const float k = 2.3283064e-10f * 6.2831855f;    /* cuRAND's CURAND_2POW32_INV_2PI */
    float v = fmaf((float)w[1], k, k / 2);           /* nvcc contracts y*K + K/2 */
    float s = sqrtf(-2.0f * shc_cuda_logf(u));       /* libdevice __nv_logf, IEEE sqrtf */
    float t = shc_sfu_sincos_arg(v);                 /* __sincosf: FMUL.RZ by 1/2pi ... */
    return (cosine ? shc_sfu_cos(t) : shc_sfu_sin(t)) * s; /* ... then MUFU.SIN/COS */
}

static float sm90_logf(float x) /* __logf for x >= 2^-126: MUFU.LG2, FMUL by ln 2 */
{
    return shc_sfu_lg2(x) * 0x1.62e430p-1f;
}

START_TEST(sm90_sfu_compose)
{
    enum { N = 1031 };
    const uint64_t seed = 0x1234567889abcdefull;
    const int64_t offset = 40;
    const uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    shc_gpu_profile h = prof("h100-sxm"), a = prof("a100");
    ck_assert_int_eq(shc_gpu_sfu_model(&h), SHC_SFU_SM90);
    ck_assert_int_eq(shc_gpu_sfu_model(&a), SHC_SFU_NONE);
    /* numel past the capped grid's stride: component 1 (cosine) from element stride on */
    const int64_t stride = (int64_t)h.sm_count * h.max_threads_per_sm, big = stride + N;
    static float out[N], old[N], w_lg[N];
    static uint32_t w[N][4];
    for (uint32_t i = 0; i < N; i++) {
        uint32_t c[4] = {(uint32_t)(offset / 4), 0, i, 0};
        shc_philox4x32_10(c, key, w[i]);
    }
    shc_torch_rng_req r;
    shc_err e;
    int diff_old = 0, diff_libm = 0, below_quarter = 0;
    for (int cosine = 0; cosine < 2; cosine++) {
        shc_torch_rng_req_init(&r, SHC_TORCH_NORMAL, SHC_DT_FLOAT32, cosine ? big : N);
        int64_t start = cosine ? stride : 0;
        ck_assert_int_eq(shc_torch_rng_fill(&h, seed, offset, &r, start, N, out, NULL, NULL, &e), 0);
        ck_assert_int_eq(shc_torch_rng_fill(&a, seed, offset, &r, cosine ? 108 * 2048 : 0, N, old,
                                            NULL, NULL, &e), 0);
        for (int i = 0; i < N; i++) {
            float want = sm90_normal(w[i], cosine);
            EXPECT(memcmp(&out[i], &want, 4) == 0, "normal_ sm_90 %s element %d: %a, composed %a",
                   cosine ? "cos" : "sin", i, (double)out[i], (double)want);
            diff_old += memcmp(&old[i], &want, 4) != 0;
            float u = (float)w[i][0] * 0x1p-32f + 0x1p-33f;
            float v = fmaf((float)w[i][1], 2.3283064e-10f * 6.2831855f,
                           2.3283064e-10f * 6.2831855f / 2);
            float libm = (cosine ? cosf(v) : sinf(v)) * sqrtf(-2.0f * logf(u));
            diff_libm += libm != want;
            below_quarter += shc_sfu_sincos_arg(v) < 0.25f;
        }
    }
    ck_assert_int_gt(diff_old, N / 4); /* the a100 (glibc) path gives other bits */
    ck_assert_int_gt(diff_libm, N / 4);
    ck_assert_int_gt(below_quarter, 0); /* unrecorded sin/cos binades are reached (SfuModel) */
    /* float16 / bfloat16 normal_: the float Box-Muller value, rounded once */
    static uint16_t h16[N];
    for (int bf = 0; bf < 2; bf++) {
        shc_torch_rng_req_init(&r, SHC_TORCH_NORMAL, bf ? SHC_DT_BFLOAT16 : SHC_DT_FLOAT16, N);
        ck_assert_int_eq(shc_torch_rng_fill(&h, seed, offset, &r, 0, N, h16, NULL, NULL, &e), 0);
        for (int i = 0; i < N; i++) {
            float v = sm90_normal(w[i], 0);
            uint16_t want = bf ? shc_f32_to_bf16(v) : shc_f32_to_f16(v);
            EXPECT(h16[i] == want, "normal_ sm_90 %s element %d: %04x, composed %04x",
                   bf ? "bfloat16" : "float16", i, h16[i], want);
        }
    }

    /* exponential_(lambd = 2) and geometric_(0.3): __logf(u) = MUFU.LG2 * ln 2 */
    shc_torch_rng_req_init(&r, SHC_TORCH_EXPONENTIAL, SHC_DT_FLOAT32, N);
    r.a = 2;
    ck_assert_int_eq(shc_torch_rng_fill(&h, seed, offset, &r, 0, N, out, NULL, NULL, &e), 0);
    ck_assert_int_eq(shc_torch_rng_fill(&a, seed, offset, &r, 0, N, old, NULL, NULL, &e), 0);
    diff_old = 0;
    for (int i = 0; i < N; i++) {
        float u = (float)w[i][0] * 0x1p-32f + 0x1p-33f;
        float lg = u >= 1.0f - FLT_EPSILON / 2 ? -FLT_EPSILON / 2 : sm90_logf(u);
        float want = -1.0f / 2.0f * lg;
        w_lg[i] = u;
        EXPECT(memcmp(&out[i], &want, 4) == 0, "exponential_ sm_90 element %d: %a, composed %a",
               i, (double)out[i], (double)want);
        diff_old += memcmp(&old[i], &want, 4) != 0;
    }
    ck_assert_int_gt(diff_old, N / 4);
    shc_torch_rng_req_init(&r, SHC_TORCH_GEOMETRIC, SHC_DT_FLOAT32, N);
    r.a = 0.3;
    ck_assert_int_eq(shc_torch_rng_fill(&h, seed, offset, &r, 0, N, out, NULL, NULL, &e), 0);
    for (int i = 0; i < N; i++) {
        float want = ceilf(sm90_logf(w_lg[i]) / sm90_logf(1.0f + -0.3f));
        EXPECT(out[i] == want, "geometric_ sm_90 element %d: %a, composed %a", i, (double)out[i],
               (double)want);
    }
}
END_TEST

/* torch_rng_model.c: the steps an output rests on, as docs/cuda-math.md states them. */
START_TEST(torch_rng_model)
{
    shc_gpu_profile a100, h100;
    shc_err e = {0};
    shc_torch_rng_req r;
    shc_torch_rng_model m;
    ck_assert_int_eq(shc_gpu_profile_parse("a100", &a100, &e), SHC_OK);
    ck_assert_int_eq(shc_gpu_profile_parse("h100-sxm", &h100, &e), SHC_OK);
    shc_torch_rng_req_init(&r, SHC_TORCH_UNIFORM, SHC_DT_FLOAT32, 4);
    ck_assert_int_eq(shc_torch_rng_model_of(&a100, 0, 0, &r, &m, &e), SHC_OK);
    ck_assert(!m.sfu_model && !m.unit_unrecorded && !m.math_todo && !m.fma_contract);
    ck_assert_int_eq(m.rcp64h, -1);
    r.b = 5; /* uniform_(0, 5): the affine step's FMA */
    ck_assert_int_eq(shc_torch_rng_model_of(&a100, 0, 0, &r, &m, &e), SHC_OK);
    ck_assert(m.fma_contract);
    shc_torch_rng_req_init(&r, SHC_TORCH_NORMAL, SHC_DT_FLOAT32, 4);
    ck_assert_int_eq(shc_torch_rng_model_of(&h100, 0, 0, &r, &m, &e), SHC_OK);
    ck_assert(m.sfu_model && !m.unit_unrecorded);
    ck_assert_int_eq(shc_torch_rng_model_of(&a100, 0, 0, &r, &m, &e), SHC_OK);
    ck_assert(!m.sfu_model && m.unit_unrecorded);
    shc_torch_rng_req_init(&r, SHC_TORCH_LOG_NORMAL, SHC_DT_FLOAT32, 4);
    ck_assert_int_eq(shc_torch_rng_model_of(&a100, 0, 0, &r, &m, &e), SHC_OK);
    ck_assert(m.math_todo && m.unit_unrecorded);
    shc_torch_rng_req_init(&r, SHC_TORCH_CAUCHY, SHC_DT_FLOAT64, 4); /* tan: exact */
    ck_assert_int_eq(shc_torch_rng_model_of(&a100, 0, 0, &r, &m, &e), SHC_OK);
    ck_assert(!m.sfu_model && !m.unit_unrecorded && !m.math_todo);
    /* float64 through libdevice log: on sm_90 MUFU.RCP64H is the recorded unit, so exact and
     * no count; on an A100 the elements a one-unit change of an unrecorded unit moves */
    shc_torch_rng_req_init(&r, SHC_TORCH_NORMAL, SHC_DT_FLOAT64, 100003);
    ck_assert_int_eq(shc_torch_rng_model_of(&h100, 1, 0, &r, &m, &e), SHC_OK);
    ck_assert(m.rcp64h == 0 && !m.sfu_model && !m.unit_unrecorded && !m.math_todo);
    if (shc_test_sampled()) /* 100,003 float64 logs three times: the plain build's */
        return;
    ck_assert_int_eq(shc_torch_rng_model_of(&a100, 1, 0, &r, &m, &e), SHC_OK);
    ck_assert_int_eq(m.rcp64h, 3); /* as `rng --gpu a100 --seed 1 --shape 100003` says */
    ck_assert(!m.sfu_model && m.unit_unrecorded);
}
END_TEST

START_TEST(bad_input)
{
    shc_gpu_profile g = prof("a100"), z = {.name = "zero", .sm_count = 0, .max_threads_per_sm = 2048};
    shc_torch_rng_req r;
    shc_err e;
    int64_t no;
    float o[4];
    shc_torch_rng_req_init(&r, SHC_TORCH_UNIFORM, SHC_DT_FLOAT32, 4);
    ck_assert_int_eq(shc_torch_rng_fill(&g, 0, 6, &r, 0, 4, o, NULL, &no, &e), SHC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "offset must be a multiple of 4"));
    ck_assert_int_eq(shc_torch_rng_fill(&z, 0, 0, &r, 0, 4, o, NULL, &no, &e), SHC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "has 0 SMs"));
    r.a = 2, r.b = 1;
    ck_assert_int_eq(shc_torch_rng_check(&r, &e), SHC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "uniform_ expects to return a [from, to) range"));
    shc_torch_rng_req_init(&r, SHC_TORCH_BERNOULLI, SHC_DT_FLOAT32, 4);
    r.a = 1.5;
    ck_assert_int_eq(shc_torch_rng_check(&r, &e), SHC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "bernoulli_ expects p to be in [0, 1]"));
    shc_torch_rng_req_init(&r, SHC_TORCH_RANDOM, SHC_DT_INT8, 4);
    r.has_range = true, r.from = 5, r.to = 5;
    ck_assert_int_eq(shc_torch_rng_check(&r, &e), SHC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "random_ expects 'from' to be less than 'to'"));
    r.from = 0, r.to = 1000;
    ck_assert_int_eq(shc_torch_rng_check(&r, &e), SHC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "to - 1 is out of bounds for signed char"));
    shc_torch_rng_req_init(&r, SHC_TORCH_NORMAL, SHC_DT_INT32, 4);
    ck_assert_int_eq(shc_torch_rng_check(&r, &e), SHC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "\"normal_kernel_cuda\" not implemented for 'Int'"));
    ck_assert_int_eq(shc_gpu_profile_parse("gtx9999", &g, &e), SHC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "unknown gpu profile 'gtx9999'"));
    ck_assert_int_eq(shc_gpu_profile_parse("0x2048", &g, &e), SHC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "SM count 0"));
    /* SMSxTHREADS@sm_XY: the capability picks the SFU model (issue 25 item 4) */
    ck_assert_int_eq(shc_gpu_profile_parse("108x2048@sm_90", &g, &e), SHC_OK);
    ck_assert(g.sm_count == 108 && g.max_threads_per_sm == 2048 && g.cc == 90);
    ck_assert_int_eq(shc_gpu_sfu_model(&g), SHC_SFU_SM90);
    ck_assert_int_eq(shc_gpu_profile_parse("108x2048", &g, &e), SHC_OK);
    ck_assert(g.cc == 0 && shc_gpu_sfu_model(&g) == SHC_SFU_NONE);
    ck_assert_int_eq(shc_gpu_profile_parse("148x2048@sm_100", &g, &e), SHC_OK);
    ck_assert(g.cc == 100 && shc_gpu_sfu_model(&g) == SHC_SFU_NONE);
    static const char *const bad[] = {"108x2048@sm_9x", "108x2048@sm_", "108x2048@", "108x2048@90",
                                      "108x2048@sm_9000", "108x2048@sm_90x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(shc_gpu_profile_parse(bad[i], &g, &e), SHC_EINVAL);
        ck_assert_msg(strstr(e.msg, "is not a compute capability"), "%s: %s", bad[i], e.msg);
    }
    ck_assert_int_eq(shc_gpu_profile_parse("108x2048@sm_95", &g, &e), SHC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "compute capability sm_95 is not in the GPU table"));
}
END_TEST

/* The request and launch refusals of the elementwise kernels, a row each: what is refused
 * and the message naming it.  The profiles are filled by hand: a parsed one cannot hold them. */
START_TEST(fill_refusals)
{
    shc_gpu_profile a100 = prof("a100"), narrow = {.name = "narrow", .sm_count = 108, .max_threads_per_sm = 128, .cc = 80},
                    huge = {.name = "huge", .sm_count = 1000000, .max_threads_per_sm = 65536, .cc = 80};
    const struct {
        const char *what;
        const shc_gpu_profile *g;
        shc_torch_op op;
        shc_dtype dt;
        int64_t numel, offset, start, count;
        int code;
        const char *msg;
    } rows[] = {
        {"no profile", NULL, SHC_TORCH_UNIFORM, SHC_DT_FLOAT32, 4, 0, 0, 4, SHC_EINVAL,
         "gpu profile has 0 SMs; need at least 1"},
        {"threads per SM below a block", &narrow, SHC_TORCH_UNIFORM, SHC_DT_FLOAT32, 4, 0, 0, 4,
         SHC_EINVAL, "gpu profile narrow: max threads per SM 128 is below the block size 256"},
        {"a grid past 32-bit launch arithmetic", &huge, SHC_TORCH_UNIFORM, SHC_DT_FLOAT32, 4, 0,
         0, 4, SHC_EINVAL, "gpu profile huge: 1000000 SMs x 65536 threads overflow torch's 32-bit"},
        {"an op out of range", &a100, SHC_TORCH_OP_COUNT, SHC_DT_FLOAT32, 4, 0, 0, 4, SHC_EINVAL,
         "torch rng: op or dtype out of range"},
        {"a dtype out of range", &a100, SHC_TORCH_UNIFORM, SHC_DT_COUNT, 4, 0, 0, 4, SHC_EINVAL,
         "torch rng: op or dtype out of range"},
        {"a negative numel", &a100, SHC_TORCH_UNIFORM, SHC_DT_FLOAT32, -1, 0, 0, 0, SHC_EINVAL,
         "torch rng: numel -1 is negative"},
        {"a range past the end", &a100, SHC_TORCH_UNIFORM, SHC_DT_FLOAT32, 8, 0, 5, 4, SHC_EINVAL,
         "element range [5, +4) is outside the 8 elements"},
        {"a negative start", &a100, SHC_TORCH_UNIFORM, SHC_DT_FLOAT32, 8, 0, -1, 1, SHC_EINVAL,
         "element range [-1, +1) is outside the 8 elements"},
        {"the offset past int64", &a100, SHC_TORCH_UNIFORM, SHC_DT_FLOAT32, 8, INT64_MAX - 3, 0,
         8, SHC_EOVERFLOW, "torch rng: generator offset overflows int64"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        shc_torch_rng_req r;
        shc_torch_rng_req_init(&r, rows[i].op, rows[i].dt, rows[i].numel);
        float o[8];
        int64_t no = -7;
        shc_err e = {0};
        int rc = shc_torch_rng_fill(rows[i].g, 1, rows[i].offset, &r, rows[i].start, rows[i].count,
                                    o, NULL, &no, &e);
        ck_assert_msg(rc == rows[i].code && strstr(e.msg, rows[i].msg), "%s: %d '%s', want %d '%s'",
                      rows[i].what, rc, e.msg, rows[i].code, rows[i].msg);
    }
    /* parameter refusals in torch's own words: each message printed by torch 2.13 (CPU) for the
     * same call (geometric_(p), bernoulli_(p), F.dropout(p=...), random_(from, to)) */
    const struct {
        shc_torch_op op;
        shc_dtype dt;
        double a;
        int64_t from, to;
        const char *msg;
    } params[] = {
        {SHC_TORCH_GEOMETRIC, SHC_DT_FLOAT32, 0.0, 0, 0, "geometric_ expects p to be in (0, 1), but got p=0"},
        {SHC_TORCH_GEOMETRIC, SHC_DT_FLOAT32, 1.0, 0, 0, "geometric_ expects p to be in (0, 1), but got p=1"},
        {SHC_TORCH_BERNOULLI, SHC_DT_FLOAT32, NAN, 0, 0, "bernoulli_ expects p to be in [0, 1], but got p=nan"},
        {SHC_TORCH_BERNOULLI, SHC_DT_FLOAT32, -0.5, 0, 0, "bernoulli_ expects p to be in [0, 1], but got p=-0.5"},
        {SHC_TORCH_DROPOUT, SHC_DT_FLOAT32, 1.5, 0, 0, "dropout probability has to be between 0 and 1, but got 1.5"},
        {SHC_TORCH_RANDOM, SHC_DT_UINT8, 0, -1, 5, "from is out of bounds for unsigned char"},
        {SHC_TORCH_RANDOM, SHC_DT_INT8, 0, -200, 5, "from is out of bounds for signed char"},
    };
    for (size_t i = 0; i < sizeof params / sizeof *params; i++) {
        shc_torch_rng_req r;
        shc_err e = {0};
        shc_torch_rng_req_init(&r, params[i].op, params[i].dt, 4);
        r.a = params[i].a;
        if (params[i].op == SHC_TORCH_RANDOM)
            r.has_range = true, r.from = params[i].from, r.to = params[i].to;
        ck_assert_int_eq(shc_torch_rng_check(&r, &e), SHC_EINVAL);
        ck_assert_str_eq(e.msg, params[i].msg);
    }
    ck_assert_str_eq(shc_torch_op_name(SHC_TORCH_OP_COUNT), "?");
    ck_assert_str_eq(shc_torch_op_name(SHC_TORCH_UNIFORM), "uniform");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("check_torch_rng");
    TCase *tc = tcase_create("torch_cuda_rng");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, published_torch_rand_values);
    tcase_add_test(tc, ops_match_naive_kernel);
    tcase_add_test(tc, offset_increments);
    tcase_add_test(tc, dropout_vectorised_layout);
    tcase_add_test(tc, dropout_all_vector_widths_match_naive);
    tcase_add_test(tc, random_without_bounds);
    tcase_add_test(tc, half_and_bfloat16_rounding);
    tcase_add_test(tc, sm90_sfu_compose);
    tcase_add_test(tc, bad_input);
    tcase_add_test(tc, fill_refusals);
    tcase_add_test(tc, torch_rng_model);
    suite_add_tcase(s, tc);
    return shc_run_suite(s);
}
