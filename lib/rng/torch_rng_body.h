/*
 * torch_rng_body.h — the per-thread bodies of PyTorch 2.13's CUDA random
 * kernels, one source for every executor:
 *   - the CPU reference (torch_cuda_rng.c) computes elements with
 *     shc_tk_element and takes its launch geometry from shc_tk_grid /
 *     shc_tk_increment / shc_tk_fits32 (it batches Philox blocks in SoA
 *     chunks for speed, so it calls the element step, not the thread loop);
 *   - the grid emulator (torch_rng_grid.c) runs shc_tk_thread_gs /
 *     shc_tk_thread_dropout_vec for every (block, thread) of a launch on the
 *     CPU;
 *   - the CUDA kernels (lib/cuda/torch_rng_kernels.cu) run the same thread
 *     bodies, one CUDA thread each.
 * Everything is `static inline SHC_HD` (= __host__ __device__ under nvcc).
 *
 * The only place host and device differ is the transcendental function a
 * transform calls (shc_tk_logf & co. below): on the device the one CUDA's
 * math library gives (what torch's kernel calls: __logf, __expf, __tanf,
 * __sincosf in cuRAND's Box-Muller, libdevice's log, exp, log1p, tan, sincospi),
 * on the host the CPU reference's model of it (cuda_libdevice.c's bit-exact
 * reimplementation of libdevice; cuda_sfu.c's model of sm_90's MUFU.SIN/COS/LG2
 * where the GPU is sm_90, glibc standing in for the unit elsewhere and for
 * MUFU.EX2/RCP).  The glibc stand-ins are exactly the values the golden files
 * flag GpuOnly; every other step (Philox,
 * counter layout, index mapping, u01 scaling, FMA placement, rounding to the
 * dtype, stores) is this one text.
 *
 * Kernel layout (DistributionTemplates.h distribution_elementwise_grid_stride_kernel,
 * Dropout.cu fused_dropout_kernel_vec): thread t of a launch does
 * curand_init(seed, t, offset), so its k-th curand4 is the Philox4x32-10 block
 * with counter (offset/4 + k, t) and key = seed; in the grid-stride loop,
 * iteration k writes element k*stride*unroll + ii*stride + t from component ii
 * (stride = 256 * grid); the vectorised dropout kernel's step s writes elements
 * s*stride*vec + t*vec + q from draw s*ceil(vec/4) + q/4, word q%4.
 *
 * Tested by conformance/tests/check_torch_grid.c (the grid emulator against the
 * CPU reference: every op and dtype, several SM counts, sizes around the grid and
 * 2^31 boundaries) and, on a GPU, by lib/cuda/rng_device_test.cu.
 */
#ifndef SHC_TORCH_RNG_BODY_H
#define SHC_TORCH_RNG_BODY_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "shardcheck.h"
#include "philox_core.h"
#include "curand_stream.h"
#include "torch_cuda_rng.h"

/* What one thread draws per loop iteration (the dist_func's return type). */
enum { SHC_TD_U01F, SHC_TD_U01D2, SHC_TD_NORMF, SHC_TD_NORMD, SHC_TD_RAW32, SHC_TD_RAW64 };

/* A launch's kind: torch's grid-stride kernel, fused dropout's vectorised
 * kernel, or no kernel at all (dropout with p == 1 writes zeros). */
enum { SHC_TK_GRID_STRIDE, SHC_TK_DROPOUT_VEC, SHC_TK_ZEROS };

/* An op's per-thread parameters, computed once on the host as torch's
 * launcher does (scalar_t rounding of from/to, keep probability, scale);
 * plain data so that a kernel receives it by value. */
typedef struct shc_tk {
    int op, dtype, draw, size, is_float, has_range;
    uint32_t key[2];        /* the seed's low and high words */
    int64_t from;           /* random_(from, to) */
    uint64_t range, umod;   /* to - from; random_()'s modulus for dtype */
    float f_from, f_to, f_range, f_a, f_b, f_p, f_pa, f_scale;
    double d_from, d_to, d_range, d_a, d_b, d_pa, d_scale;
    int sfu;                /* host only: the SFU model the GPU's MUFU follows (SHC_SFU_*) */
    int rcp_shift;          /* host only: libdevice log's MUFU.RCP64H seed moved by this many
                               units of the model (0; +-1 finds the outputs resting on it) */
} shc_tk;

/* One kernel launch, and which of its elements an executor writes. */
typedef struct shc_tk_launch {
    int kind;              /* SHC_TK_* */
    int64_t base;          /* global index of the launch's element 0 */
    int64_t numel;         /* elements of this launch */
    uint64_t off4;         /* generator offset / 4 handed to this launch */
    uint32_t grid;         /* blocks of SHC_TORCH_BLOCK threads */
    int unroll;            /* grid-stride: components used per draw (4 or 2) */
    int vec;               /* dropout vectorised: elements per thread step */
    int64_t win0, win1;    /* the launch's elements written: [win0, win1) */
    uint8_t *out;          /* where element win0 goes */
    uint8_t *mask;         /* dropout's keep mask of element win0, or NULL */
} shc_tk_launch;

/* ---- launch geometry (torch's host code: calc_execution_policy, dropout_cuda) ---- */

static inline SHC_HD int shc_tk_unroll(int draw)
{
    return draw == SHC_TD_U01F || draw == SHC_TD_NORMF || draw == SHC_TD_RAW32 ? 4 : 2;
}

/* grid.x: min(ceil(n/256) truncated to 32 bits (a dim3), SMs * (maxThreadsPerSM/256)). */
static inline SHC_HD uint32_t shc_tk_grid(int sm_count, int max_threads_per_sm, int64_t n)
{
    uint32_t blocks = (uint32_t)(((uint64_t)n + SHC_TORCH_BLOCK - 1) / SHC_TORCH_BLOCK);
    uint32_t cap = (uint32_t)sm_count * (uint32_t)(max_threads_per_sm / SHC_TORCH_BLOCK);
    return blocks < cap ? blocks : cap;
}

/* counter_offset, rounded up to a multiple of 4 by philox_cuda_state. */
static inline SHC_HD int64_t shc_tk_increment(int64_t n, uint32_t grid, int unroll)
{
    /* uint32_t arithmetic as in calc_execution_policy; profiles are checked not to wrap it */
    uint32_t per = (uint32_t)SHC_TORCH_BLOCK * grid * (uint32_t)unroll;
    uint64_t inc = (((uint64_t)n - 1) / per + 1) * 4;
    return (int64_t)((inc + 3) / 4 * 4);
}

/* TensorIterator::can_use_32bit_indexing for a contiguous output of n elements. */
static inline SHC_HD int shc_tk_fits32(int64_t n, int64_t size)
{
    return n <= INT32_MAX && 1 + (n - 1) * size <= INT32_MAX;
}

/* ---- the math a transform calls: the device's own, or the host's model of it ---- */

/* at::log<float>, at::exp<float>, at::tan<float> and at::log1p<float> are the
 * fast intrinsics on the device (ATen/NumericUtils.h, torch 2.13: "use __logf
 * fast approximation for peak bandwidth"; log1p is __logf(1.0f + x)), i.e. the
 * special-function unit (MUFU.LG2, MUFU.EX2, MUFU.SIN/COS + MUFU.RCP).  The host
 * keeps the IEEE steps around the unit exactly (__expf's FMUL by log2(e),
 * log1p's 1.0f + x).  For the unit itself it uses cuda_sfu.c's model where the
 * GPU's generation has one (k->sfu: MUFU.LG2 of sm_90, bit-exact on every
 * recorded entry; MUFU.EX2 and MUFU.RCP of sm_90, from an H200's recordings) and glibc
 * elsewhere (not bit-exact: GpuOnly/CudaMathTodo). */
static inline SHC_HD float shc_tk_logf(const shc_tk *k, float x)
{
#ifdef __CUDA_ARCH__
    (void)k;
    return __logf(x);
#else
    return k->sfu == SHC_SFU_SM90 ? shc_cuda_fast_logf(x) : logf(x);
#endif
}

static inline SHC_HD float shc_tk_log1pf(const shc_tk *k, float x)
{
    return shc_tk_logf(k, 1.0f + x);
}

/* __expf: on sm_90 the host follows the SASS with the modelled MUFU.EX2; elsewhere
 * glibc's exp2f stands in for an unrecorded unit. */
static inline SHC_HD float shc_tk_expf(const shc_tk *k, float x)
{
#ifdef __CUDA_ARCH__
    (void)k;
    return __expf(x);
#else
    return k->sfu == SHC_SFU_SM90 ? shc_cuda_fast_expf(x)
                                  : exp2f(x * 0x1.715476p+0f); /* fmul by log2(e), ex2 */
#endif
}

/* __tanf: on sm_90 the host follows the SASS (modelled MUFU.SIN/COS and MUFU.RCP);
 * glibc elsewhere. */
static inline SHC_HD float shc_tk_tanf(const shc_tk *k, float x)
{
#ifdef __CUDA_ARCH__
    (void)k;
    return __tanf(x);
#else
    return k->sfu == SHC_SFU_SM90 ? shc_cuda_fast_tanf(x) : tanf(x);
#endif
}

/* The double forms are libdevice (::log, ::exp, ::log1p, ::tan), reimplemented
 * bit for bit in cuda_libdevice.c; log, log1p (a >= ~0.67 or <= ~-0.4) and tan
 * (odd quadrant) seed a Newton step with MUFU.RCP64H, which is modelled
 * (cuda_rcp64h.c; k->rcp_shift moves log's seed for the sensitivity check). */
static inline SHC_HD double shc_tk_log(const shc_tk *k, double x)
{
#ifdef __CUDA_ARCH__
    (void)k;
    return log(x);
#else
    return k->rcp_shift ? shc_cuda_log_shift(x, k->rcp_shift) : shc_cuda_log(x);
#endif
}

static inline SHC_HD double shc_tk_log1p(const shc_tk *k, double x)
{
#ifdef __CUDA_ARCH__
    (void)k;
    return log1p(x);
#else
    return k->rcp_shift ? shc_cuda_log1p_shift(x, k->rcp_shift) : shc_cuda_log1p(x);
#endif
}

static inline SHC_HD double shc_tk_exp(double x)
{
#ifdef __CUDA_ARCH__
    return exp(x);
#else
    return shc_cuda_exp(x);
#endif
}

static inline SHC_HD double shc_tk_tan(double x)
{
#ifdef __CUDA_ARCH__
    return tan(x);
#else
    return shc_cuda_tan(x);
#endif
}

/* _curand_box_muller(x, y): the device uses libdevice logf, IEEE sqrtf and
 * __sincosf (curand_normal.h); the host models __sincosf's MUFU.SIN/COS where
 * the generation has a model (sm_90), else uses accurate sinf/cosf. */
static inline SHC_HD void shc_tk_box_muller(const shc_tk *k, uint32_t x, uint32_t y, float out[2])
{
#ifdef __CUDA_ARCH__
    (void)k;
    float u = fmaf((float)x, SHC_CURAND_2POW32_INV, SHC_CURAND_2POW32_INV / 2);
    float v = fmaf((float)y, SHC_CURAND_2POW32_INV_2PI, SHC_CURAND_2POW32_INV_2PI / 2);
    float s = sqrtf(-2.0f * logf(u)), sv, cv;
    __sincosf(v, &sv, &cv);
    out[0] = sv * s;
    out[1] = cv * s;
#else
    if (k->sfu == SHC_SFU_SM90)
        shc_curand_box_muller_sm90(x, y, out);
    else
        shc_curand_box_muller(x, y, out);
#endif
}

/* _curand_box_muller_double(x0, x1, y0, y1): log and sincospi. */
static inline SHC_HD void shc_tk_box_muller_double(const shc_tk *k, uint32_t x0, uint32_t x1,
                                                   uint32_t y0, uint32_t y1, double out[2])
{
#ifdef __CUDA_ARCH__
    (void)k;
    uint64_t zx = (uint64_t)x0 ^ ((uint64_t)x1 << (53 - 32));
    double u = fma((double)zx, SHC_CURAND_2POW53_INV_DOUBLE, SHC_CURAND_2POW53_INV_DOUBLE / 2.0);
    uint64_t zy = (uint64_t)y0 ^ ((uint64_t)y1 << (53 - 32));
    double v = fma((double)zy, SHC_CURAND_2POW53_INV_DOUBLE * 2.0, SHC_CURAND_2POW53_INV_DOUBLE);
    double s = sqrt(-2.0 * log(u)), sv, cv;
    sincospi(v, &sv, &cv);
    out[0] = sv * s;
    out[1] = cv * s;
#else
    shc_curand_box_muller_double_shift(x0, x1, y0, y1, k->rcp_shift, out);
#endif
}

/* ---- stores: static_cast<scalar_t> as the kernels do it ---- */

static inline SHC_HD void shc_tk_store_f(const shc_tk *k, uint8_t *dst, float v)
{
    switch (k->dtype) {
    case SHC_DT_FLOAT32: memcpy(dst, &v, 4); break;
    case SHC_DT_FLOAT16: { uint16_t h = shc_f32_to_f16(v); memcpy(dst, &h, 2); break; }
    case SHC_DT_BFLOAT16: { uint16_t h = shc_f32_to_bf16(v); memcpy(dst, &h, 2); break; }
    default: { double d = v; memcpy(dst, &d, 8); break; }
    }
}

/* Round a float to the dtype and back (the static_cast<scalar_t> in uniform_). */
static inline SHC_HD float shc_tk_round(int dtype, float v)
{
    if (dtype == SHC_DT_FLOAT16)
        return shc_f16_to_f32(shc_f32_to_f16(v));
    if (dtype == SHC_DT_BFLOAT16)
        return shc_bf16_to_f32(shc_f32_to_bf16(v));
    return v;
}

/* static_cast<scalar_t>(int64 v): random_, bernoulli, geometric on integers. */
static inline SHC_HD void shc_tk_store_i(const shc_tk *k, uint8_t *dst, int64_t v)
{
    switch (k->dtype) {
    case SHC_DT_FLOAT32: case SHC_DT_FLOAT16: case SHC_DT_BFLOAT16:
        shc_tk_store_f(k, dst, (float)v); break;
    case SHC_DT_FLOAT64: { double d = (double)v; memcpy(dst, &d, 8); break; }
    case SHC_DT_INT64: memcpy(dst, &v, 8); break;
    case SHC_DT_INT32: { int32_t x = (int32_t)(uint32_t)v; memcpy(dst, &x, 4); break; }
    case SHC_DT_INT16: { int16_t x = (int16_t)(uint16_t)v; memcpy(dst, &x, 2); break; }
    case SHC_DT_INT8: case SHC_DT_UINT8: *dst = (uint8_t)v; break;
    case SHC_DT_BOOL: *dst = v != 0; break;
    default: break;
    }
}

/* ---- transforms (core/TransformationHelper.h, Distributions.cu, Dropout.cu) ---- */

#define SHC_TK_PI_F 3.14159265358979323846f /* c10::pi<float> */
#define SHC_TK_PI_D 3.14159265358979323846  /* c10::pi<double> */

/* Dropout on an input of ones: src * mask * scale, and the keep mask. */
static inline SHC_HD void shc_tk_dropout(const shc_tk *k, uint8_t *dst, uint8_t *mask, float x)
{
    int keep = k->dtype == SHC_DT_FLOAT64 ? (double)x < k->d_pa : x < k->f_pa;
    if (k->dtype == SHC_DT_FLOAT64) {
        double v = 1.0 * (double)(float)keep * k->d_scale;
        memcpy(dst, &v, 8);
    } else {
        shc_tk_store_f(k, dst, 1.0f * (float)keep * k->f_scale);
    }
    if (mask)
        *mask = (uint8_t)keep;
}

/* One element from its float (accscalar) input.  a*b+c is an FMA because nvcc
 * contracts it (--fmad=true) in torch's kernels: written as fmaf here. */
static inline SHC_HD void shc_tk_emit_f(const shc_tk *k, uint8_t *dst, uint8_t *mask, float x)
{
    switch (k->op) {
    case SHC_TORCH_UNIFORM: {
        float v = shc_tk_round(k->dtype, fmaf(x, k->f_range, k->f_from));
        shc_tk_store_f(k, dst, v == k->f_to ? k->f_from : v);
        break;
    }
    case SHC_TORCH_NORMAL: shc_tk_store_f(k, dst, fmaf(x, k->f_b, k->f_a)); break;
    case SHC_TORCH_EXPONENTIAL: {
        float lg = x >= 1.0f - FLT_EPSILON / 2 ? -FLT_EPSILON / 2 : shc_tk_logf(k, x);
        shc_tk_store_f(k, dst, -1.0f / k->f_a * lg);
        break;
    }
    case SHC_TORCH_BERNOULLI: shc_tk_store_i(k, dst, x < k->f_p); break;
    case SHC_TORCH_LOG_NORMAL: shc_tk_store_f(k, dst, shc_tk_expf(k, fmaf(x, k->f_b, k->f_a))); break;
    case SHC_TORCH_GEOMETRIC: { /* ceil(log(u) / log1p(-p)), float; any dtype but bool */
        float v = ceilf(shc_tk_logf(k, x) / shc_tk_log1pf(k, -k->f_p));
        if (k->is_float)
            shc_tk_store_f(k, dst, v);
        else
            shc_tk_store_i(k, dst, (int64_t)v);
        break;
    }
    case SHC_TORCH_CAUCHY: { /* transformation::cauchy<float> clips to [eps, 1 - eps] */
        float v = x > 1.0f - FLT_EPSILON ? 1.0f - FLT_EPSILON : x;
        v = v < FLT_EPSILON ? FLT_EPSILON : v;
        shc_tk_store_f(k, dst, fmaf(k->f_b, shc_tk_tanf(k, SHC_TK_PI_F * (v - 0.5f)), k->f_a));
        break;
    }
    case SHC_TORCH_DROPOUT: shc_tk_dropout(k, dst, mask, x); break;
    default: break;
    }
}

/* One element from its double input (float64 tensors). */
static inline SHC_HD void shc_tk_emit_d(const shc_tk *k, uint8_t *dst, double x)
{
    double v = 0;
    switch (k->op) {
    case SHC_TORCH_UNIFORM: v = fma(x, k->d_range, k->d_from); v = v == k->d_to ? k->d_from : v; break;
    case SHC_TORCH_NORMAL: v = fma(x, k->d_b, k->d_a); break;
    case SHC_TORCH_EXPONENTIAL: {
        double lg = x >= 1.0 - DBL_EPSILON / 2 ? -DBL_EPSILON / 2 : shc_tk_log(k, x);
        v = -1.0 / k->d_a * lg;
        break;
    }
    case SHC_TORCH_BERNOULLI: v = x < k->d_a; break;
    case SHC_TORCH_LOG_NORMAL: v = shc_tk_exp(fma(x, k->d_b, k->d_a)); break;
    case SHC_TORCH_GEOMETRIC: v = ceil(shc_tk_log(k, x) / shc_tk_log1p(k, -k->d_a)); break;
    case SHC_TORCH_CAUCHY: v = fma(k->d_b, shc_tk_tan(SHC_TK_PI_D * (x - 0.5)), k->d_a); break; /* no clip */
    default: break;
    }
    memcpy(dst, &v, 8);
}

/* random_: 32 or 64 random bits to the dtype (transformation::uniform_int*). */
static inline SHC_HD void shc_tk_emit_raw(const shc_tk *k, uint8_t *dst, uint64_t val)
{
    if (k->has_range)
        shc_tk_store_i(k, dst, (int64_t)(val % k->range + (uint64_t)k->from));
    else if (k->dtype == SHC_DT_BOOL)
        *dst = (uint8_t)(val & 1);
    else
        shc_tk_store_i(k, dst, (int64_t)(val % k->umod));
}

/* Element of component ii of one curand4 draw w (the transform_func call). */
static inline SHC_HD void shc_tk_element(const shc_tk *k, int ii, const uint32_t w[4], uint8_t *dst,
                                         uint8_t *mask)
{
    switch (k->draw) {
    case SHC_TD_U01F: shc_tk_emit_f(k, dst, mask, shc_curand_u01(w[ii])); break;
    case SHC_TD_NORMF: {
        float v[2];
        shc_tk_box_muller(k, w[ii & 2], w[(ii & 2) + 1], v);
        shc_tk_emit_f(k, dst, mask, v[ii & 1]);
        break;
    }
    case SHC_TD_U01D2: shc_tk_emit_d(k, dst, shc_curand_u01_double_hq(w[2 * ii], w[2 * ii + 1])); break;
    case SHC_TD_NORMD: {
        double v[2];
        shc_tk_box_muller_double(k, w[0], w[1], w[2], w[3], v);
        shc_tk_emit_d(k, dst, v[ii]);
        break;
    }
    case SHC_TD_RAW32: shc_tk_emit_raw(k, dst, w[ii]); break;
    case SHC_TD_RAW64: shc_tk_emit_raw(k, dst, (uint64_t)w[2 * ii] << 32 | w[2 * ii + 1]); break;
    default: break;
    }
}

/* The k-th curand4 of thread t after curand_init(seed, t, offset). */
static inline SHC_HD void shc_tk_draw(const shc_tk *k, uint64_t off4, uint64_t it, uint64_t t,
                                      uint32_t w[4])
{
    uint64_t lo = off4 + it;
    uint32_t c[4] = {(uint32_t)lo, (uint32_t)(lo >> 32), (uint32_t)t, (uint32_t)(t >> 32)};
    shc_philox4x32_10(c, k->key, w);
}

/* Element li of the launch, if the executor writes it. */
static inline SHC_HD void shc_tk_put(const shc_tk *k, const shc_tk_launch *L, int ii,
                                     const uint32_t w[4], int64_t li)
{
    if (li < L->win0 || li >= L->win1)
        return;
    size_t at = (size_t)(li - L->win0);
    shc_tk_element(k, ii, w, L->out + at * (size_t)k->size, L->mask ? L->mask + at : (uint8_t *)0);
}

/* distribution_elementwise_grid_stride_kernel (and fused_dropout_kernel, the
 * unvectorised dropout), thread t, loop iterations [it0, it1): the device runs
 * every iteration; the grid emulator runs those that reach its window. */
static inline SHC_HD void shc_tk_thread_gs(const shc_tk *k, const shc_tk_launch *L, uint64_t t,
                                           uint64_t it0, uint64_t it1)
{
    int64_t stride = (int64_t)SHC_TORCH_BLOCK * L->grid, ustride = stride * L->unroll;
    int64_t rounded = ((L->numel - 1) / ustride + 1) * ustride;
    uint64_t it = it0;
    for (int64_t li = (int64_t)t + (int64_t)it0 * ustride; li < rounded && it < it1;
         li += ustride, it++) {
        uint32_t w[4];
        shc_tk_draw(k, L->off4, it, t, w);
        for (int ii = 0; ii < L->unroll; ii++) {
            int64_t el = li + stride * ii;
            if (el < L->numel)
                shc_tk_put(k, L, ii, w, el);
        }
    }
}

/* fused_dropout_kernel_vec, thread t, steps [s0, s1): ceil(vec/4) draws per step. */
static inline SHC_HD void shc_tk_thread_dropout_vec(const shc_tk *k, const shc_tk_launch *L, uint64_t t,
                                                    uint64_t s0, uint64_t s1)
{
    int64_t span = (int64_t)SHC_TORCH_BLOCK * L->grid * L->vec;
    int rs = (L->vec + 3) / 4;
    uint64_t s = s0;
    for (int64_t lin = (int64_t)t * L->vec + (int64_t)s0 * span; lin < L->numel && s < s1;
         lin += span, s++) {
        for (int rr = 0; rr < rs; rr++) {
            uint32_t w[4];
            shc_tk_draw(k, L->off4, s * (uint64_t)rs + (uint64_t)rr, t, w);
            for (int q = rr * 4; q < L->vec && q < rr * 4 + 4; q++)
                shc_tk_put(k, L, q % 4, w, lin + q);
        }
    }
}

/* An executor's copy of a planned launch restricted to the global elements
 * [start, end), which go to out (and mask) from element start on; 0 when the
 * launch writes none of them. */
static inline SHC_HD int shc_tk_window(const shc_tk *k, const shc_tk_launch *plan, int64_t start,
                                       int64_t end, uint8_t *out, uint8_t *mask, shc_tk_launch *L)
{
    *L = *plan;
    L->win0 = start > L->base ? start - L->base : 0;
    L->win1 = end - L->base < L->numel ? end - L->base : L->numel;
    if (L->win0 >= L->win1)
        return 0;
    size_t at = (size_t)(L->base + L->win0 - start);
    L->out = out + at * (size_t)k->size;
    L->mask = mask ? mask + at : (uint8_t *)0;
    return 1;
}

#ifdef __cplusplus
extern "C" {
#endif
/* The per-thread parameters of request r with generator seed (torch_cuda_rng.c). */
void shc_tk_setup(shc_tk *k, const shc_torch_rng_req *r, uint64_t seed);

/* Called for each launch of a request in torch's order; L's window is empty. */
typedef int (*shc_tk_launch_fn)(void *ctx, const shc_tk *k, const shc_tk_launch *L, shc_err *e);

/* The launches torch 2.13 makes for request r on GPU profile g from generator
 * state (seed, offset), in order, each passed to fn (NULL: only the offset), and
 * the generator offset afterwards.  Validates like shc_torch_rng_fill. */
int shc_tk_plan(const shc_gpu_profile *g, uint64_t seed, int64_t offset, const shc_torch_rng_req *r,
                shc_tk_launch_fn fn, void *ctx, int64_t *new_offset, shc_err *e);
#ifdef __cplusplus
}
#endif

#endif
