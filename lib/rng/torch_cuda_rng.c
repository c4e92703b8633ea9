/*
 * torch_cuda_rng.c — PyTorch 2.13's CUDA random kernels, emulated bit for bit
 * on a CPU: given a GPU profile, a generator state (seed, offset), an op, a
 * dtype and a tensor size, the output bits and the new generator offset.
 *
 * What torch does (aten/src/ATen/native/cuda/DistributionTemplates.h,
 * Dropout.cu, ATen/cuda/CUDAGeneratorImpl.cpp, core/TransformationHelper.h):
 * - calc_execution_policy: blocks of 256 threads, grid = min(ceil(n/256),
 *   SMs * (maxThreadsPerSM/256)) (the ceil is stored in a dim3, i.e. truncated
 *   to 32 bits first: reproduced), increment = ((n-1)/(256*grid*unroll)+1)*4,
 *   which philox_cuda_state rounds up to a multiple of 4 and adds to the
 *   offset after handing out the old one.
 * - each thread t does curand_init(seed, t, offset): its k-th curand4 is the
 *   Philox block with counter (offset/4 + k, t) (64-bit halves), key = seed.
 * - grid-stride loop: iteration k of thread t writes element
 *   k*256*grid*unroll + i*256*grid + t from component i of the draw; unroll is
 *   4 for float4/uint4 draws and 2 for double2/ulonglong2 draws.
 * - a tensor that cannot use 32-bit indexing (numel > INT32_MAX or byte
 *   offset > INT32_MAX) takes one increment for the whole tensor, then is split
 *   in halves (first half first) until each piece can, and each piece is a
 *   launch with its own increment: the first increment is never used (quirk).
 * - fused dropout (native_dropout, train): its own geometry with unroll 4 for
 *   the increment, a vectorised kernel for VEC = 16/sizeof(T) elements per
 *   thread step (halved until it divides numel) drawing ceil(VEC/4) float4 per
 *   step; for VEC == 2 only .x/.y of each draw are used (the flag meant to
 *   reuse .z/.w is never set: quirk).
 * Arithmetic a*b+c in the kernels is contracted into an FMA by nvcc (default
 * --fmad=true), so we use fma/fmaf there.
 *
 * Tested by conformance/tests/check_torch_rng.c (published torch.cuda values,
 * cross-checks against curand_stream.c) and the torch-cuda-rng golden family.
 */
#include "config.h"
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "shardcheck.h"
#include "checked_math.h"
#include "curand_stream.h"
#include "torch_cuda_rng.h"
#include "philox.h"

/* ---- dtypes and ops ---- */

typedef struct dtinfo {
    const char *name, *alias;
    size_t size;
    bool is_float;
    int digits;        /* std::numeric_limits<T>::digits */
    int64_t min, max;  /* integer types */
} dtinfo;

static const dtinfo DT[SHC_DT_COUNT] = {
    [SHC_DT_FLOAT32] = {"float32", "float", 4, true, 24, 0, 0},
    [SHC_DT_FLOAT64] = {"float64", "double", 8, true, 53, 0, 0},
    [SHC_DT_FLOAT16] = {"float16", "half", 2, true, 11, 0, 0},
    [SHC_DT_BFLOAT16] = {"bfloat16", "bf16", 2, true, 8, 0, 0},
    [SHC_DT_INT64] = {"int64", "long", 8, false, 63, INT64_MIN, INT64_MAX},
    [SHC_DT_INT32] = {"int32", "int", 4, false, 31, INT32_MIN, INT32_MAX},
    [SHC_DT_INT16] = {"int16", "short", 2, false, 15, INT16_MIN, INT16_MAX},
    [SHC_DT_INT8] = {"int8", "char", 1, false, 7, INT8_MIN, INT8_MAX},
    [SHC_DT_UINT8] = {"uint8", "byte", 1, false, 8, 0, UINT8_MAX},
    [SHC_DT_BOOL] = {"bool", "bool", 1, false, 1, 0, 1},
};

static const char *const OPS[SHC_TORCH_OP_COUNT] = {
    "uniform", "normal", "random", "bernoulli", "dropout", "exponential",
    "log_normal", "geometric", "cauchy",
};

int shc_torch_op_parse(const char *s, shc_torch_op *out, shc_err *e)
{
    for (int i = 0; s && i < SHC_TORCH_OP_COUNT; i++)
        if (!strcmp(s, OPS[i])) {
            *out = (shc_torch_op)i;
            return SHC_OK;
        }
    return shc_fail(e, SHC_EINVAL,
                    "unknown op '%s' (uniform normal random bernoulli dropout exponential "
                    "log_normal geometric cauchy)",
                    s ? s : "");
}

const char *shc_torch_op_name(shc_torch_op op) { return op < SHC_TORCH_OP_COUNT ? OPS[op] : "?"; }

void shc_torch_rng_req_init(shc_torch_rng_req *r, shc_torch_op op, shc_dtype dtype, int64_t numel)
{
    memset(r, 0, sizeof *r);
    r->op = op;
    r->dtype = dtype;
    r->numel = numel;
    r->a = op == SHC_TORCH_BERNOULLI || op == SHC_TORCH_DROPOUT || op == SHC_TORCH_GEOMETRIC ? 0.5
         : op == SHC_TORCH_EXPONENTIAL || op == SHC_TORCH_LOG_NORMAL ? 1.0 : 0.0;
    r->b = op == SHC_TORCH_LOG_NORMAL ? 2.0 : 1.0; /* log_normal_(mean=1, std=2) */
}

/* c10::ScalarType names (toString) and caffe2::TypeMeta names (self.dtype() in messages). */
static const char *const SCALAR_TYPE[SHC_DT_COUNT] = {
    "Float", "Double", "Half", "BFloat16", "Long", "Int", "Short", "Char", "Byte", "Bool"};
static const char *const TYPE_META[SHC_DT_COUNT] = {
    "float", "double", "c10::Half", "c10::BFloat16", "long int", "int", "short int",
    "signed char", "unsigned char", "bool"};

/* random_(from, to) bounds: torch's check_from_to_in_range (floats: integers
 * up to 2^digits in magnitude; the update_from/update_to rounding for values
 * just past 2^digits is not modelled and rejected as unsupported). */
static int check_random_range(const shc_torch_rng_req *r, shc_err *e)
{
    const dtinfo *d = &DT[r->dtype];
    if (r->from >= r->to)
        return shc_fail(e, SHC_EINVAL,
                        "random_ expects 'from' to be less than 'to', but got from=%lld >= to=%lld",
                        (long long)r->from, (long long)r->to);
    int64_t lo = d->min, hi = d->max;
    if (d->is_float) {
        hi = (int64_t)1 << d->digits;
        lo = -hi;
        if (r->to > hi)
            return shc_fail(e, SHC_EUNSUPPORTED,
                            "random_: to=%lld above 2^%d for %s is not modelled (update_to rounding)",
                            (long long)r->to, d->digits, d->name);
    }
    /* check_from_to_in_range prints self.dtype(): the TypeMeta name ("signed char") */
    if (r->from < lo || r->from > hi)
        return shc_fail(e, SHC_EINVAL, "from is out of bounds for %s", TYPE_META[r->dtype]);
    if (r->to - 1 < lo || r->to - 1 > hi)
        return shc_fail(e, SHC_EINVAL, "to - 1 is out of bounds for %s", TYPE_META[r->dtype]);
    return SHC_OK;
}

/* AT_DISPATCH's rejection: "\"NAME\" not implemented for 'Int'". */
static int not_implemented(const char *kernel, shc_dtype t, shc_err *e)
{
    return shc_fail(e, SHC_EINVAL, "\"%s\" not implemented for '%s'", kernel, SCALAR_TYPE[t]);
}

/* Parameter checks then dtype checks in the order torch 2.13 makes them
 * (aten/src/ATen/native/DistributionTemplates.h *_impl_, then the CUDA kernel's
 * dispatch in native/cuda/DistributionTemplates.h); messages verbatim (the
 * impl-level ones are checked against torch on a CPU by the harness tests). */
int shc_torch_rng_check(const shc_torch_rng_req *r, shc_err *e)
{
    if (r->op >= SHC_TORCH_OP_COUNT || r->dtype >= SHC_DT_COUNT)
        return shc_fail(e, SHC_EINVAL, "torch rng: op or dtype out of range");
    if (r->numel < 0)
        return shc_fail(e, SHC_EINVAL, "torch rng: numel %lld is negative", (long long)r->numel);
    const dtinfo *d = &DT[r->dtype];
    switch (r->op) {
    case SHC_TORCH_UNIFORM: /* uniform_impl_: dispatch "check_uniform_bounds" first */
        if (!d->is_float)
            return not_implemented("check_uniform_bounds", r->dtype, e);
        if (!(r->a <= r->b))
            return shc_fail(e, SHC_EINVAL,
                            "uniform_ expects to return a [from, to) range, but found from=%g > to=%g",
                            r->a, r->b);
        return SHC_OK;
    case SHC_TORCH_NORMAL:
        if (!(r->b >= 0.0))
            return shc_fail(e, SHC_EINVAL, "normal expects std >= 0.0, but found std %g", r->b);
        return d->is_float ? SHC_OK : not_implemented("normal_kernel_cuda", r->dtype, e);
    case SHC_TORCH_EXPONENTIAL:
        if (!(r->a > 0.0))
            return shc_fail(e, SHC_EINVAL, "exponential_ expects lambda > 0.0, but found lambda=%g",
                            r->a);
        if (!d->is_float) /* exponential_kernel's TORCH_CHECK (iter.dtype(): ScalarType) */
            return shc_fail(e, SHC_EINVAL, "Exponential distribution is a continuous probability "
                            "distribution. dtype must be a floating point but you specified %s",
                            SCALAR_TYPE[r->dtype]);
        return SHC_OK;
    case SHC_TORCH_LOG_NORMAL:
        if (!(r->b > 0.0))
            return shc_fail(e, SHC_EINVAL, "log_normal_ expects std > 0.0, but found std=%g", r->b);
        return d->is_float ? SHC_OK : not_implemented("log_normal_cuda", r->dtype, e);
    case SHC_TORCH_GEOMETRIC:
        if (!(r->a > 0.0 && r->a < 1.0))
            return shc_fail(e, SHC_EINVAL, "geometric_ expects p to be in (0, 1), but got p=%g",
                            r->a);
        return r->dtype != SHC_DT_BOOL ? SHC_OK : not_implemented("geometric_cuda", r->dtype, e);
    case SHC_TORCH_CAUCHY:
        if (!(r->b > 0.0))
            return shc_fail(e, SHC_EINVAL, "cauchy_ expects sigma > 0.0, but found sigma=%g", r->b);
        if (!d->is_float) /* cauchy_impl_'s TORCH_CHECK (self.dtype(): TypeMeta name) */
            return shc_fail(e, SHC_EINVAL, "Cauchy distribution is a continuous probability "
                            "distribution. dtype must be a floating point but you specified %s",
                            TYPE_META[r->dtype]);
        return SHC_OK;
    case SHC_TORCH_BERNOULLI:
        if (!(r->a >= 0.0 && r->a <= 1.0))
            return shc_fail(e, SHC_EINVAL, "bernoulli_ expects p to be in [0, 1], but got p=%g",
                            r->a);
        return SHC_OK;
    case SHC_TORCH_DROPOUT: /* the p check is torch.nn.functional.dropout's (api "dropout") */
        if (!(r->a >= 0.0 && r->a <= 1.0))
            return shc_fail(e, SHC_EINVAL,
                            "dropout probability has to be between 0 and 1, but got %g", r->a);
        return d->is_float ? SHC_OK : not_implemented("fused_dropout", r->dtype, e);
    case SHC_TORCH_RANDOM:
        return r->has_range ? check_random_range(r, e) : SHC_OK;
    default: return SHC_OK;
    }
}

/* ---- launch geometry ---- */

/* What one thread draws per loop iteration. */
typedef enum { D_U01F, D_U01D2, D_NORMF, D_NORMD, D_RAW32, D_RAW64 } draw_kind;

static draw_kind draw_for(const shc_torch_rng_req *r)
{
    bool dbl = r->dtype == SHC_DT_FLOAT64;
    switch (r->op) {
    case SHC_TORCH_NORMAL:
    case SHC_TORCH_LOG_NORMAL: return dbl ? D_NORMD : D_NORMF; /* normal_and_transform */
    case SHC_TORCH_RANDOM:
        if (r->has_range)
            return (uint64_t)r->to - (uint64_t)r->from >= (1ull << 28) ? D_RAW64 : D_RAW32;
        return dbl || r->dtype == SHC_DT_INT64 ? D_RAW64 : D_RAW32;
    case SHC_TORCH_DROPOUT: return D_U01F;
    default: return dbl ? D_U01D2 : D_U01F;
    }
}

static int unroll_of(draw_kind k) { return k == D_U01F || k == D_NORMF || k == D_RAW32 ? 4 : 2; }

/* grid.x of calc_execution_policy / dropout_cuda. */
static uint32_t grid_for(const shc_gpu_profile *g, int64_t n)
{
    uint32_t blocks = (uint32_t)(((uint64_t)n + SHC_TORCH_BLOCK - 1) / SHC_TORCH_BLOCK);
    uint32_t cap = (uint32_t)g->sm_count * (uint32_t)(g->max_threads_per_sm / SHC_TORCH_BLOCK);
    return blocks < cap ? blocks : cap;
}

/* torch 2.13 calc_execution_policy (aten/src/ATen/native/cuda/DistributionTemplates.h)
 * builds `dim3 grid((numel + 255) / 256)`: the block count is truncated to 32 bits
 * before the SM cap, so from 2^32 blocks on the grid wraps (to 0 at exact multiples,
 * where torch's own counter_offset divides by zero).  No GPU holds such a tensor;
 * refuse it rather than wrap. */
#define SHC_TORCH_MAX_NUMEL ((int64_t)UINT32_MAX * SHC_TORCH_BLOCK)

static int check_grid(int64_t n, shc_err *e)
{
    if (n > SHC_TORCH_MAX_NUMEL)
        return shc_fail(e, SHC_EINVAL, "%lld elements: torch's launch grid (32-bit block count "
                        "of 256-thread blocks) holds at most %lld", (long long)n,
                        (long long)SHC_TORCH_MAX_NUMEL);
    return SHC_OK;
}

/* counter_offset rounded up to a multiple of 4 (philox_cuda_state). */
static int64_t increment_for(int64_t n, uint32_t grid, int unroll)
{
    /* uint32_t arithmetic in calc_execution_policy; check_profile keeps it from wrapping */
    uint32_t per = (uint32_t)SHC_TORCH_BLOCK * grid * (uint32_t)unroll;
    uint64_t inc = (((uint64_t)n - 1) / per + 1) * 4;
    return (int64_t)((inc + 3) / 4 * 4);
}

/* TensorIterator::can_use_32bit_indexing for a contiguous output. */
static bool fits_32bit(int64_t n, size_t size)
{
    if (n > INT32_MAX)
        return false;
    return 1 + (n - 1) * (int64_t)size <= INT32_MAX;
}

static int check_profile(const shc_gpu_profile *g, shc_err *e)
{
    if (!g || g->sm_count <= 0)
        return shc_fail(e, SHC_EINVAL, "gpu profile%s%s has %d SMs; need at least 1",
                        g && g->name ? " " : "", g && g->name ? g->name : "",
                        g ? g->sm_count : 0);
    if ((uint64_t)g->sm_count * (uint64_t)(g->max_threads_per_sm / SHC_TORCH_BLOCK) *
            SHC_TORCH_BLOCK * 4 >= (1ull << 32))
        return shc_fail(e, SHC_EINVAL,
                        "gpu profile %s: %d SMs x %d threads overflow torch's 32-bit launch "
                        "arithmetic (256 * grid * unroll)", g->name ? g->name : "", g->sm_count,
                        g->max_threads_per_sm);
    if (g->max_threads_per_sm < SHC_TORCH_BLOCK)
        return shc_fail(e, SHC_EINVAL,
                        "gpu profile %s: max threads per SM %d is below the block size %d",
                        g->name ? g->name : "", g->max_threads_per_sm, SHC_TORCH_BLOCK);
    return SHC_OK;
}

/* ---- per-launch element computation ---- */

typedef struct job {
    const shc_torch_rng_req *r;
    const shc_gpu_profile *g;
    uint32_t key[2];
    int64_t offset;            /* running generator offset */
    int64_t start, end;        /* requested global element range */
    uint8_t *out;
    uint8_t *mask;
    draw_kind draw;
    /* transform parameters, precomputed as torch does on the host */
    float f_from, f_to, f_range, f_a, f_b, f_p;
    double d_from, d_to, d_range, d_a, d_b;
    uint64_t range;
    float f_pa, f_scale;       /* dropout: keep probability, 1/keep */
    double d_pa, d_scale;
    uint32_t *rows;            /* SoA scratch: 4 rows of rs words */
    int64_t rs;
} job;

#define CHUNK 2048

static inline void store_float(const job *j, uint8_t *dst, float v)
{
    switch (j->r->dtype) {
    case SHC_DT_FLOAT32: memcpy(dst, &v, 4); break;
    case SHC_DT_FLOAT16: { uint16_t h = shc_f32_to_f16(v); memcpy(dst, &h, 2); break; }
    case SHC_DT_BFLOAT16: { uint16_t h = shc_f32_to_bf16(v); memcpy(dst, &h, 2); break; }
    default: { double d = v; memcpy(dst, &d, 8); break; }
    }
}

/* Round a float to the dtype and back (the static_cast<scalar_t> in kernels). */
static inline float round_dt(shc_dtype t, float v)
{
    if (t == SHC_DT_FLOAT16)
        return shc_f16_to_f32(shc_f32_to_f16(v));
    if (t == SHC_DT_BFLOAT16)
        return shc_bf16_to_f32(shc_f32_to_bf16(v));
    return v;
}

/* static_cast<scalar_t>(int64 v) for random_. */
static void store_int(const job *j, uint8_t *dst, int64_t v)
{
    switch (j->r->dtype) {
    case SHC_DT_FLOAT32: case SHC_DT_FLOAT16: case SHC_DT_BFLOAT16:
        store_float(j, dst, (float)v); break;
    case SHC_DT_FLOAT64: { double d = (double)v; memcpy(dst, &d, 8); break; }
    case SHC_DT_INT64: memcpy(dst, &v, 8); break;
    case SHC_DT_INT32: { int32_t x = (int32_t)(uint32_t)v; memcpy(dst, &x, 4); break; }
    case SHC_DT_INT16: { int16_t x = (int16_t)(uint16_t)v; memcpy(dst, &x, 2); break; }
    case SHC_DT_INT8: *dst = (uint8_t)v; break;
    case SHC_DT_UINT8: *dst = (uint8_t)v; break;
    case SHC_DT_BOOL: *dst = v != 0; break;
    default: break;
    }
}

/* transformation::uniform_int<T>(val) modulus for random_() without bounds. */
static uint64_t unranged_modulus(shc_dtype t)
{
    const dtinfo *d = &DT[t];
    if (d->is_float)
        return (1ull << d->digits) + 1;
    return (uint64_t)d->max + 1; /* int64: 2^63; uint8: 256 */
}

/* c10::pi<float>, c10::pi<double> */
#define SHC_PI_F 3.14159265358979323846f
#define SHC_PI_D 3.14159265358979323846

/* static_cast<scalar_t>(float v) of geometric_ (any dtype but bool; v >= 0 and small). */
static inline void store_int_or_float(const job *j, uint8_t *dst, float v)
{
    if (DT[j->r->dtype].is_float)
        store_float(j, dst, v);
    else
        store_int(j, dst, (int64_t)v);
}

/* One element from its accscalar input (float path). */
static inline void emit_f(const job *j, uint8_t *dst, float x)
{
    const shc_torch_rng_req *r = j->r;
    switch (r->op) {
    case SHC_TORCH_UNIFORM: {
        float v = round_dt(r->dtype, fmaf(x, j->f_range, j->f_from));
        store_float(j, dst, v == j->f_to ? j->f_from : v);
        break;
    }
    case SHC_TORCH_NORMAL: store_float(j, dst, fmaf(x, j->f_b, j->f_a)); break;
    case SHC_TORCH_EXPONENTIAL: {
        float lg = x >= 1.0f - FLT_EPSILON / 2 ? -FLT_EPSILON / 2 : logf(x);
        store_float(j, dst, -1.0f / j->f_a * lg);
        break;
    }
    case SHC_TORCH_BERNOULLI: store_int(j, dst, x < j->f_p); break;
    case SHC_TORCH_LOG_NORMAL: /* exp(normal(x, mean, std)); GpuOnly: CUDA's expf */
        store_float(j, dst, expf(fmaf(x, j->f_b, j->f_a)));
        break;
    case SHC_TORCH_GEOMETRIC: /* ceil(log(u) / log1p(-p)) in float; GpuOnly: logf, log1pf */
        store_int_or_float(j, dst, ceilf(logf(x) / log1pf(-j->f_p)));
        break;
    case SHC_TORCH_CAUCHY: { /* transformation::cauchy<float>: clip to [eps, 1-eps]; GpuOnly: tanf */
        float v = x > 1.0f - FLT_EPSILON ? 1.0f - FLT_EPSILON : x;
        v = v < FLT_EPSILON ? FLT_EPSILON : v;
        store_float(j, dst, fmaf(j->f_b, tanf(SHC_PI_F * (v - 0.5f)), j->f_a));
        break;
    }
    case SHC_TORCH_DROPOUT: { /* input of ones: src * mask * scale */
        bool keep = r->dtype == SHC_DT_FLOAT64 ? (double)x < j->d_pa : x < j->f_pa;
        if (r->dtype == SHC_DT_FLOAT64) {
            double v = 1.0 * (double)(float)keep * j->d_scale;
            memcpy(dst, &v, 8);
        } else {
            store_float(j, dst, 1.0f * (float)keep * j->f_scale);
        }
        if (j->mask)
            j->mask[(size_t)(dst - j->out) / DT[r->dtype].size] = keep;
        break;
    }
    default: break;
    }
}

static inline void emit_d(const job *j, uint8_t *dst, double x)
{
    const shc_torch_rng_req *r = j->r;
    double v = 0;
    switch (r->op) {
    case SHC_TORCH_UNIFORM: v = fma(x, j->d_range, j->d_from); v = v == j->d_to ? j->d_from : v; break;
    case SHC_TORCH_NORMAL: v = fma(x, j->d_b, j->d_a); break;
    case SHC_TORCH_EXPONENTIAL: {
        /* at::log<double> is ::log, libdevice's __nv_log on the device */
        double lg = x >= 1.0 - DBL_EPSILON / 2 ? -DBL_EPSILON / 2 : shc_cuda_log(x);
        v = -1.0 / j->d_a * lg;
        break;
    }
    case SHC_TORCH_BERNOULLI: v = x < j->d_a; break;
    case SHC_TORCH_LOG_NORMAL: v = exp(fma(x, j->d_b, j->d_a)); break;   /* GpuOnly: exp */
    case SHC_TORCH_GEOMETRIC: v = ceil(log(x) / log1p(-j->d_a)); break; /* GpuOnly: log, log1p */
    case SHC_TORCH_CAUCHY: v = fma(j->d_b, tan(SHC_PI_D * (x - 0.5)), j->d_a); break; /* no clip */
    default: break;
    }
    memcpy(dst, &v, 8);
}

static inline void emit_raw(const job *j, uint8_t *dst, uint64_t val)
{
    const shc_torch_rng_req *r = j->r;
    if (r->has_range) {
        store_int(j, dst, (int64_t)(val % j->range + (uint64_t)r->from));
    } else if (r->dtype == SHC_DT_BOOL) {
        *dst = (uint8_t)(val & 1);
    } else {
        store_int(j, dst, (int64_t)(val % unranged_modulus(r->dtype)));
    }
}

/* Elements of component ii for chunk positions [p0, p0+cnt) (words in j->rows). */
static void emit_row(const job *j, int ii, int64_t p0, int64_t cnt, uint8_t *dst, size_t sz)
{
    const uint32_t *w0 = j->rows, *w1 = w0 + j->rs, *w2 = w1 + j->rs, *w3 = w2 + j->rs;
    const uint32_t *wi = j->rows + (size_t)ii * (size_t)j->rs;
    if (j->draw == D_U01F && j->r->op == SHC_TORCH_UNIFORM && j->r->dtype == SHC_DT_FLOAT32 &&
        j->f_from == 0.0f && j->f_to == 1.0f) { /* torch.rand: the hot path */
        shc_torch_rand_f32(wi + p0, cnt, (float *)(void *)dst);
        return;
    }
    for (int64_t q = 0, p = p0; q < cnt; q++, p++, dst += sz) {
        switch (j->draw) {
        case D_U01F: emit_f(j, dst, shc_curand_u01(wi[p])); break;
        case D_NORMF: {
            float v[2];
            if (ii < 2)
                shc_curand_box_muller(w0[p], w1[p], v);
            else
                shc_curand_box_muller(w2[p], w3[p], v);
            emit_f(j, dst, v[ii & 1]);
            break;
        }
        case D_U01D2:
            emit_d(j, dst, ii ? shc_curand_u01_double_hq(w2[p], w3[p])
                              : shc_curand_u01_double_hq(w0[p], w1[p]));
            break;
        case D_NORMD: {
            double v[2];
            shc_curand_box_muller_double(w0[p], w1[p], w2[p], w3[p], v);
            emit_d(j, dst, v[ii]);
            break;
        }
        case D_RAW32: emit_raw(j, dst, wi[p]); break;
        case D_RAW64: {
            const uint32_t *hi = ii ? w2 : w0, *lo = ii ? w3 : w1;
            emit_raw(j, dst, (uint64_t)hi[p] << 32 | lo[p]);
            break;
        }
        }
    }
}

/* Philox blocks of threads [t0, t0+n) for loop iteration k into j->rows. */
static int draw_blocks(job *j, int64_t offset, uint64_t k, int64_t t0, int64_t n, shc_err *e)
{
    uint64_t lo = (uint64_t)offset / 4 + k;
    uint32_t ctr[4] = {(uint32_t)lo, (uint32_t)(lo >> 32), (uint32_t)t0, (uint32_t)((uint64_t)t0 >> 32)};
    j->rs = n;
    return shc_philox_fill(SHC_PHILOX_AUTO, j->key, ctr, SHC_PHILOX_STEP_SUBSEQ, 10, n, j->rows,
                           true, e);
}

/* One grid-stride launch over leaf elements [base, base+n) with its offset. */
static int run_grid_stride(job *j, int64_t base, int64_t n, int64_t offset, shc_err *e)
{
    int unroll = unroll_of(j->draw);
    int64_t stride = (int64_t)SHC_TORCH_BLOCK * grid_for(j->g, n);
    int64_t ustride = stride * unroll;
    int64_t lo = j->start > base ? j->start - base : 0;
    int64_t hi = j->end - base < n ? j->end - base : n;
    size_t sz = DT[j->r->dtype].size;
    for (int64_t k = lo / ustride; k * ustride < hi; k++) {
        int64_t kb = k * ustride;
        int64_t a = lo > kb ? lo : kb, b = hi < kb + ustride ? hi : kb + ustride;
        int64_t t_lo = 0, t_hi = stride;
        if ((a - kb) / stride == (b - 1 - kb) / stride) { /* one component row only */
            t_lo = (a - kb) % stride;
            t_hi = t_lo + (b - a);
        }
        for (int64_t t0 = t_lo; t0 < t_hi; t0 += CHUNK) {
            int64_t cn = t_hi - t0 < CHUNK ? t_hi - t0 : CHUNK;
            int rc = draw_blocks(j, offset, (uint64_t)k, t0, cn, e);
            if (rc)
                return rc;
            for (int ii = 0; ii < unroll; ii++) {
                int64_t e0 = kb + (int64_t)ii * stride + t0, e1 = e0 + cn;
                int64_t s0 = e0 > a ? e0 : a, s1 = e1 < b ? e1 : b;
                if (s0 >= s1)
                    continue;
                emit_row(j, ii, s0 - e0, s1 - s0, j->out + (size_t)(base + s0 - j->start) * sz, sz);
            }
        }
    }
    return SHC_OK;
}

/* fused dropout's vectorised kernel: thread t, step s handles elements
 * s*stride*vec + t*vec + q (q < vec) from draw s*ceil(vec/4) + q/4, word q%4. */
static int run_dropout_vec(job *j, int64_t n, int vec, int64_t offset, shc_err *e)
{
    int64_t stride = (int64_t)SHC_TORCH_BLOCK * grid_for(j->g, n), span = stride * vec;
    int rs = (vec + 3) / 4;
    size_t sz = DT[j->r->dtype].size;
    for (int64_t s = j->start / span; s * span < j->end; s++) {
        int64_t sb = s * span;
        int64_t a = j->start > sb ? j->start : sb, b = j->end < sb + span ? j->end : sb + span;
        int64_t t_lo = (a - sb) / vec, t_hi = (b - 1 - sb) / vec + 1;
        for (int64_t t0 = t_lo; t0 < t_hi; t0 += CHUNK) {
            int64_t cn = t_hi - t0 < CHUNK ? t_hi - t0 : CHUNK;
            for (int rr = 0; rr < rs; rr++) {
                int rc = draw_blocks(j, offset, (uint64_t)(s * rs + rr), t0, cn, e);
                if (rc)
                    return rc;
                for (int64_t p = 0; p < cn; p++)
                    for (int q = rr * 4; q < vec && q < rr * 4 + 4; q++) {
                        int64_t el = sb + (t0 + p) * vec + q;
                        if (el >= a && el < b)
                            emit_f(j, j->out + (size_t)(el - j->start) * sz,
                                   shc_curand_u01(j->rows[(size_t)(q % 4) * (size_t)j->rs + p]));
                    }
            }
        }
    }
    return SHC_OK;
}

/* at::native_dropout(x, p, train=True) on CUDA (dropout_cuda<bool>). */
static int run_dropout(job *j, bool compute, shc_err *e)
{
    const shc_torch_rng_req *r = j->r;
    int64_t n = r->numel;
    size_t sz = DT[r->dtype].size;
    if (r->a == 1.0) { /* p == 1 shortcut: zeros, no generator use */
        if (compute) {
            memset(j->out, 0, (size_t)(j->end - j->start) * sz);
            if (j->mask)
                memset(j->mask, 0, (size_t)(j->end - j->start));
        }
        return SHC_OK;
    }
    int64_t off = j->offset, inc = increment_for(n, grid_for(j->g, n), 4);
    if (!shc_add64(j->offset, inc, &j->offset))
        return shc_fail(e, SHC_EOVERFLOW, "torch rng: generator offset overflows int64");
    if (!compute || j->start == j->end)
        return SHC_OK;
    int vec = (int)(16 / sz); /* aligned fresh allocation: can_vectorize_up_to gives 8 */
    while (vec > 1 && n % vec)
        vec /= 2;
    if (vec > 1)
        return run_dropout_vec(j, n, vec, off, e);
    return run_grid_stride(j, 0, n, off, e);
}

/* Visit the 32-bit-indexable pieces of [base, base+n) in launch order. */
static int walk_leaves(job *j, int64_t base, int64_t n, bool compute, shc_err *e)
{
    size_t sz = DT[j->r->dtype].size;
    if (!fits_32bit(n, sz)) {
        int64_t first = n / 2;
        int rc = walk_leaves(j, base, first, compute, e);
        return rc ? rc : walk_leaves(j, base + first, n - first, compute, e);
    }
    int64_t off = j->offset;
    int64_t inc = increment_for(n, grid_for(j->g, n), unroll_of(j->draw));
    if (!shc_add64(j->offset, inc, &j->offset))
        return shc_fail(e, SHC_EOVERFLOW, "torch rng: generator offset overflows int64");
    if (!compute || j->end <= base || j->start >= base + n)
        return SHC_OK;
    return run_grid_stride(j, base, n, off, e);
}

static void setup_params(job *j)
{
    const shc_torch_rng_req *r = j->r;
    shc_dtype t = r->dtype;
    j->f_from = round_dt(t, (float)r->a);
    j->f_to = round_dt(t, (float)r->b);
    j->f_range = round_dt(t, j->f_to - j->f_from); /* scalar_t subtraction, then opmath */
    j->f_a = (float)r->a;
    j->f_b = (float)r->b;
    j->f_p = (float)r->a;
    j->d_from = r->a;
    j->d_to = r->b;
    j->d_range = r->b - r->a;
    j->d_a = r->a;
    j->d_b = r->b;
    j->range = (uint64_t)r->to - (uint64_t)r->from;
    double p1m = 1.0 - r->a; /* native_dropout passes the keep probability */
    j->f_pa = (float)p1m;
    j->f_scale = (float)(1.0 / (double)j->f_pa);
    j->d_pa = p1m;
    j->d_scale = 1.0 / p1m;
}

static int run(const shc_gpu_profile *g, uint64_t seed, int64_t offset, const shc_torch_rng_req *r,
               int64_t start, int64_t count, void *out, uint8_t *mask, int64_t *new_offset,
               bool compute, shc_err *e)
{
    int rc = check_profile(g, e);
    if (!rc)
        rc = shc_torch_rng_check(r, e);
    if (!rc)
        rc = check_grid(r->numel, e);
    if (rc)
        return rc;
    if (offset < 0 || offset % 4)
        return shc_fail(e, SHC_EINVAL, "offset %lld: offset must be a multiple of 4",
                        (long long)offset);
    if (compute && (start < 0 || count < 0 || start > r->numel || count > r->numel - start))
        return shc_fail(e, SHC_EINVAL, "element range [%lld, +%lld) is outside the %lld elements",
                        (long long)start, (long long)count, (long long)r->numel);
    job j = {.r = r, .g = g, .offset = offset, .start = start, .end = start + count,
             .out = out, .mask = mask, .draw = draw_for(r)};
    j.key[0] = (uint32_t)seed;
    j.key[1] = (uint32_t)(seed >> 32);
    setup_params(&j);
    if (compute) {
        j.rows = malloc(sizeof(uint32_t) * 4 * CHUNK);
        if (!j.rows)
            return shc_fail(e, SHC_ENOMEM, "torch rng: out of memory");
    }
    if (r->numel == 0) {
        rc = SHC_OK;
    } else if (r->op == SHC_TORCH_DROPOUT) {
        rc = run_dropout(&j, compute, e);
    } else {
        size_t sz = DT[r->dtype].size;
        if (!fits_32bit(r->numel, sz)) { /* the whole tensor's increment, then the pieces */
            int64_t inc = increment_for(r->numel, grid_for(g, r->numel), unroll_of(j.draw));
            if (!shc_add64(j.offset, inc, &j.offset))
                rc = shc_fail(e, SHC_EOVERFLOW, "torch rng: generator offset overflows int64");
        }
        if (!rc)
            rc = walk_leaves(&j, 0, r->numel, compute, e);
    }
    free(j.rows);
    if (!rc && new_offset)
        *new_offset = j.offset;
    return rc;
}

int shc_torch_rng_offset_after(const shc_gpu_profile *g, int64_t offset,
                               const shc_torch_rng_req *r, int64_t *new_offset, shc_err *e)
{
    return run(g, 0, offset, r, 0, 0, NULL, NULL, new_offset, false, e);
}

int shc_torch_rng_fill(const shc_gpu_profile *g, uint64_t seed, int64_t offset,
                       const shc_torch_rng_req *r, int64_t start, int64_t count, void *out,
                       uint8_t *mask, int64_t *new_offset, shc_err *e)
{
    return run(g, seed, offset, r, start, count, out, mask, new_offset, true, e);
}
