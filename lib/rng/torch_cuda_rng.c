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
 * Split: this file holds torch's host side (checks, the launch plan
 * shc_tk_plan, shc_tk_setup) and the CPU reference's fast executor (Philox in
 * SoA chunks); the per-element arithmetic and the per-thread loops are
 * lib/rng/torch_rng_body.h, the one source the grid emulator and the CUDA
 * kernels run too.
 *
 * Tested by conformance/tests/check_torch_rng.c (published torch.cuda values,
 * cross-checks against curand_stream.c) and the torch-cuda-rng golden family.
 */
#include "config.h"
#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "shardcheck.h"
#include "checked_math.h"
#include "curand_stream.h"
#include "torch_cuda_rng.h"
#include "torch_rng_body.h"
#include "philox.h"

/* ---- dtypes and ops ---- */

typedef struct dtinfo {
    const char *name, *alias;
    size_t size;
    bool is_float;
    int digits;        /* std::numeric_limits<T>::digits */
    int64_t min, max;  /* integer types */
} dtinfo;

static const dtinfo DT[] = {
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
_Static_assert(sizeof DT / sizeof DT[0] == SHC_DT_COUNT, "one dtinfo row per shc_dtype");

/* The row of a dtype shc_torch_rng_check has accepted: every caller checks the range first. */
static const dtinfo *dt_of(shc_dtype t)
{
    assert((unsigned)t < SHC_DT_COUNT && DT[t].name);
    return &DT[t];
}

static const char *const OPS[] = {
    "uniform", "normal", "random", "bernoulli", "dropout", "exponential",
    "log_normal", "geometric", "cauchy",
};
_Static_assert(sizeof OPS / sizeof OPS[0] == SHC_TORCH_OP_COUNT, "one name per shc_torch_op");

int shc_torch_op_parse(const char *s, shc_torch_op *out, shc_err *e)
{
    for (int i = 0; s && i < SHC_TORCH_OP_COUNT; i++)
        if (!strcmp(s, OPS[i])) {
            *out = (shc_torch_op)i;
            return SHC_OK;
        }
    return shc_fail(e, SHC_EINVAL,
                    "unknown op '%.64s' (uniform normal random bernoulli dropout exponential "
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
static const char *const SCALAR_TYPE[] = {
    "Float", "Double", "Half", "BFloat16", "Long", "Int", "Short", "Char", "Byte", "Bool"};
static const char *const TYPE_META[] = {
    "float", "double", "c10::Half", "c10::BFloat16", "long int", "int", "short int",
    "signed char", "unsigned char", "bool"};
_Static_assert(sizeof SCALAR_TYPE / sizeof SCALAR_TYPE[0] == SHC_DT_COUNT,
               "one ScalarType name per shc_dtype");
_Static_assert(sizeof TYPE_META / sizeof TYPE_META[0] == SHC_DT_COUNT,
               "one TypeMeta name per shc_dtype");

/* random_(from, to) bounds: torch's check_from_to_in_range (floats: integers
 * up to 2^digits in magnitude; the update_from/update_to rounding for values
 * just past 2^digits is not modelled and rejected as unsupported). */
static int check_random_range(const shc_torch_rng_req *r, shc_err *e)
{
    const dtinfo *d = dt_of(r->dtype);
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
    assert((unsigned)t < SHC_DT_COUNT);
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
    const dtinfo *d = dt_of(r->dtype);
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

/* ---- launch plan: torch's host code, shared by every executor ---- */

/* What the kernel's dist_func draws per iteration. */
static int draw_for(const shc_torch_rng_req *r)
{
    bool dbl = r->dtype == SHC_DT_FLOAT64;
    switch (r->op) {
    case SHC_TORCH_NORMAL:
    case SHC_TORCH_LOG_NORMAL: return dbl ? SHC_TD_NORMD : SHC_TD_NORMF; /* normal_and_transform */
    case SHC_TORCH_RANDOM:
        if (r->has_range)
            return (uint64_t)r->to - (uint64_t)r->from >= (1ull << 28) ? SHC_TD_RAW64 : SHC_TD_RAW32;
        return dbl || r->dtype == SHC_DT_INT64 ? SHC_TD_RAW64 : SHC_TD_RAW32;
    case SHC_TORCH_DROPOUT: return SHC_TD_U01F;
    default: return dbl ? SHC_TD_U01D2 : SHC_TD_U01F;
    }
}

static uint32_t grid_for(const shc_gpu_profile *g, int64_t n)
{
    return shc_tk_grid(g->sm_count, g->max_threads_per_sm, n);
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

static int check_profile(const shc_gpu_profile *g, shc_err *e)
{
    if (!g || g->sm_count <= 0)
        return shc_fail(e, SHC_EINVAL, "gpu profile%s%s has %d SMs; need at least 1",
                        g && g->name ? " " : "", g && g->name ? g->name : "",
                        g ? g->sm_count : 0);
    if (!shc_gpu_profile_is_cuda_window(g)) /* an NPU row: not torch's CUDA kernels */
        return shc_fail(e, SHC_EINVAL, "gpu profile %s: offsets %s at alignment %d; torch's CUDA "
                        "kernels are modelled on one Philox stream windowed at multiples of 4 "
                        "only", g->name ? g->name : "", shc_offset_semantics_name(
                            g->offset_semantics), shc_gpu_profile_align(g));
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

/* transformation::uniform_int<T>(val) modulus for random_() without bounds. */
static uint64_t unranged_modulus(shc_dtype t)
{
    const dtinfo *d = dt_of(t);
    if (d->is_float)
        return (1ull << d->digits) + 1;
    return (uint64_t)d->max + 1; /* int64: 2^63; uint8: 256 */
}

void shc_tk_setup(shc_tk *k, const shc_torch_rng_req *r, uint64_t seed)
{
    shc_dtype t = r->dtype;
    memset(k, 0, sizeof *k);
    k->op = (int)r->op;
    k->dtype = (int)t;
    k->draw = draw_for(r);
    assert((unsigned)r->op < SHC_TORCH_OP_COUNT); /* callers validate() the request first */
    k->size = (int)dt_of(t)->size;
    k->is_float = dt_of(t)->is_float;
    k->has_range = r->has_range;
    k->key[0] = (uint32_t)seed;
    k->key[1] = (uint32_t)(seed >> 32);
    k->from = r->from;
    k->range = (uint64_t)r->to - (uint64_t)r->from;
    k->umod = r->op == SHC_TORCH_RANDOM && t != SHC_DT_BOOL ? unranged_modulus(t) : 1;
    k->f_from = shc_tk_round(t, (float)r->a);
    k->f_to = shc_tk_round(t, (float)r->b);
    k->f_range = shc_tk_round(t, k->f_to - k->f_from); /* scalar_t subtraction, then opmath */
    k->f_a = (float)r->a;
    k->f_b = (float)r->b;
    k->f_p = (float)r->a;
    k->d_from = r->a;
    k->d_to = r->b;
    k->d_range = r->b - r->a;
    k->d_a = r->a;
    k->d_b = r->b;
    double p1m = 1.0 - r->a; /* native_dropout passes the keep probability */
    k->f_pa = (float)p1m;
    k->f_scale = (float)(1.0 / (double)k->f_pa);
    k->d_pa = p1m;
    k->d_scale = 1.0 / p1m;
}

typedef struct planner {
    const shc_gpu_profile *g;
    const shc_tk *k;
    shc_tk_launch_fn fn;
    void *ctx;
    int64_t offset; /* the running generator offset */
} planner;

/* philox_cuda_state(inc): hand out the offset, then advance it. */
static int take(planner *p, int64_t inc, uint64_t *off4, shc_err *e)
{
    *off4 = (uint64_t)p->offset / 4;
    if (!shc_add64(p->offset, inc, &p->offset))
        return shc_fail(e, SHC_EOVERFLOW, "torch rng: generator offset overflows int64");
    return SHC_OK;
}

static int emit(planner *p, shc_tk_launch *L, shc_err *e)
{
    return p->fn ? p->fn(p->ctx, p->k, L, e) : SHC_OK;
}

/* at::native_dropout(x, p, train=True) on CUDA (dropout_cuda<bool>). */
static int plan_dropout(planner *p, const shc_torch_rng_req *r, shc_err *e)
{
    int64_t n = r->numel;
    shc_tk_launch L = {.kind = SHC_TK_ZEROS, .numel = n};
    if (r->a == 1.0) /* p == 1 shortcut: zeros, no generator use */
        return emit(p, &L, e);
    L.grid = grid_for(p->g, n);
    L.unroll = 4;
    int rc = take(p, shc_tk_increment(n, L.grid, 4), &L.off4, e);
    if (rc)
        return rc;
    /* aligned fresh allocation: can_vectorize_up_to gives 8 */
    int vec = (int)(16 / dt_of(r->dtype)->size);
    while (vec > 1 && n % vec)
        vec /= 2;
    L.kind = vec > 1 ? SHC_TK_DROPOUT_VEC : SHC_TK_GRID_STRIDE;
    L.vec = vec;
    return emit(p, &L, e);
}

/* The 32-bit-indexable pieces of [base, base+n) in launch order (halves, first half first). */
static int plan_leaves(planner *p, int64_t base, int64_t n, shc_err *e)
{
    if (!shc_tk_fits32(n, p->k->size)) {
        int64_t first = n / 2;
        int rc = plan_leaves(p, base, first, e);
        return rc ? rc : plan_leaves(p, base + first, n - first, e);
    }
    shc_tk_launch L = {.kind = SHC_TK_GRID_STRIDE, .base = base, .numel = n,
                       .grid = grid_for(p->g, n), .unroll = shc_tk_unroll(p->k->draw)};
    int rc = take(p, shc_tk_increment(n, L.grid, L.unroll), &L.off4, e);
    return rc ? rc : emit(p, &L, e);
}

/* Every check, in the order the reference has always made them. */
static int validate(const shc_gpu_profile *g, int64_t offset, const shc_torch_rng_req *r, shc_err *e)
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
    return SHC_OK;
}

int shc_tk_plan(const shc_gpu_profile *g, uint64_t seed, int64_t offset, const shc_torch_rng_req *r,
                shc_tk_launch_fn fn, void *ctx, int64_t *new_offset, shc_err *e)
{
    int rc = validate(g, offset, r, e);
    if (rc)
        return rc;
    shc_tk k;
    shc_tk_setup(&k, r, seed);
    k.sfu = shc_gpu_sfu_model(g);
    planner p = {.g = g, .k = &k, .fn = fn, .ctx = ctx, .offset = offset};
    if (r->numel == 0) {
        rc = SHC_OK;
    } else if (r->op == SHC_TORCH_DROPOUT) {
        rc = plan_dropout(&p, r, e);
    } else {
        if (!shc_tk_fits32(r->numel, k.size)) { /* the whole tensor's increment is never used */
            uint64_t unused;
            uint32_t gr = grid_for(g, r->numel);
            rc = take(&p, shc_tk_increment(r->numel, gr, shc_tk_unroll(k.draw)), &unused, e);
        }
        if (!rc)
            rc = plan_leaves(&p, 0, r->numel, e);
    }
    if (!rc && new_offset)
        *new_offset = p.offset;
    return rc;
}

/* ---- the CPU reference's executor: Philox in SoA chunks, elements by shc_tk_element ---- */

#define CHUNK 2048

typedef struct job {
    const shc_tk *k;
    int64_t start, end;        /* requested global element range */
    uint8_t *out, *mask;
    bool rand_f32;             /* torch.rand float32 [0, 1): the SIMD hot path */
    uint32_t *rows;            /* SoA scratch: 4 rows of rs words */
    int64_t rs;
} job;

/* Elements of component ii for chunk positions [p0, p0+cnt) (words in j->rows);
 * el0 is the global index of the first. */
static void emit_row(const job *j, int ii, int64_t p0, int64_t cnt, int64_t el0)
{
    size_t sz = (size_t)j->k->size;
    uint8_t *dst = j->out + (size_t)(el0 - j->start) * sz;
    uint8_t *mask = j->mask ? j->mask + (el0 - j->start) : NULL;
    if (j->rand_f32) { /* the same u01 as shc_tk_element, vectorised (check_torch_grid.c) */
        shc_torch_rand_f32(j->rows + (size_t)ii * (size_t)j->rs + p0, cnt, (float *)(void *)dst);
        return;
    }
    const uint32_t *w0 = j->rows, *w1 = w0 + j->rs, *w2 = w1 + j->rs, *w3 = w2 + j->rs;
    for (int64_t q = 0, p = p0; q < cnt; q++, p++, dst += sz) {
        uint32_t w[4] = {w0[p], w1[p], w2[p], w3[p]};
        shc_tk_element(j->k, ii, w, dst, mask ? mask + q : NULL);
    }
}

/* Philox blocks of threads [t0, t0+n) for draw it into j->rows. */
static int draw_blocks(job *j, uint64_t off4, uint64_t it, int64_t t0, int64_t n, shc_err *e)
{
    uint64_t lo = off4 + it;
    uint32_t ctr[4] = {(uint32_t)lo, (uint32_t)(lo >> 32), (uint32_t)t0, (uint32_t)((uint64_t)t0 >> 32)};
    j->rs = n;
    return shc_philox_fill(SHC_PHILOX_AUTO, j->k->key, ctr, SHC_PHILOX_STEP_SUBSEQ, 10, n, j->rows,
                           true, e);
}

/* A grid-stride launch, restricted to the requested elements. */
static int run_grid_stride(job *j, const shc_tk_launch *L, shc_err *e)
{
    int64_t base = L->base, n = L->numel;
    int64_t stride = (int64_t)SHC_TORCH_BLOCK * L->grid, ustride = stride * L->unroll;
    int64_t lo = j->start > base ? j->start - base : 0;
    int64_t hi = j->end - base < n ? j->end - base : n;
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
            int rc = draw_blocks(j, L->off4, (uint64_t)k, t0, cn, e);
            if (rc)
                return rc;
            for (int ii = 0; ii < L->unroll; ii++) {
                int64_t e0 = kb + (int64_t)ii * stride + t0, e1 = e0 + cn;
                int64_t s0 = e0 > a ? e0 : a, s1 = e1 < b ? e1 : b;
                if (s0 < s1)
                    emit_row(j, ii, s0 - e0, s1 - s0, base + s0);
            }
        }
    }
    return SHC_OK;
}

/* fused dropout's vectorised kernel, restricted to the requested elements. */
static int run_dropout_vec(job *j, const shc_tk_launch *L, shc_err *e)
{
    int vec = L->vec, rs = (vec + 3) / 4;
    int64_t span = (int64_t)SHC_TORCH_BLOCK * L->grid * vec;
    size_t sz = (size_t)j->k->size;
    for (int64_t s = j->start / span; s * span < j->end; s++) {
        int64_t sb = s * span;
        int64_t a = j->start > sb ? j->start : sb, b = j->end < sb + span ? j->end : sb + span;
        int64_t t_lo = (a - sb) / vec, t_hi = (b - 1 - sb) / vec + 1;
        for (int64_t t0 = t_lo; t0 < t_hi; t0 += CHUNK) {
            int64_t cn = t_hi - t0 < CHUNK ? t_hi - t0 : CHUNK;
            for (int rr = 0; rr < rs; rr++) {
                int rc = draw_blocks(j, L->off4, (uint64_t)(s * rs + rr), t0, cn, e);
                if (rc)
                    return rc;
                for (int64_t p = 0; p < cn; p++) {
                    const uint32_t *r = j->rows;
                    uint32_t w[4] = {r[p], r[j->rs + p], r[2 * j->rs + p], r[3 * j->rs + p]};
                    for (int q = rr * 4; q < vec && q < rr * 4 + 4; q++) {
                        int64_t el = sb + (t0 + p) * vec + q;
                        if (el >= a && el < b)
                            shc_tk_element(j->k, q % 4, w, j->out + (size_t)(el - j->start) * sz,
                                           j->mask ? j->mask + (el - j->start) : NULL);
                    }
                }
            }
        }
    }
    return SHC_OK;
}

static int run_launch(void *ctx, const shc_tk *k, const shc_tk_launch *L, shc_err *e)
{
    job *j = ctx;
    if (j->end <= L->base || j->start >= L->base + L->numel)
        return SHC_OK;
    switch (L->kind) {
    case SHC_TK_ZEROS:
        memset(j->out, 0, (size_t)(j->end - j->start) * (size_t)k->size);
        if (j->mask)
            memset(j->mask, 0, (size_t)(j->end - j->start));
        return SHC_OK;
    case SHC_TK_DROPOUT_VEC: return run_dropout_vec(j, L, e);
    default: return run_grid_stride(j, L, e);
    }
}

int shc_torch_rng_offset_after(const shc_gpu_profile *g, int64_t offset,
                               const shc_torch_rng_req *r, int64_t *new_offset, shc_err *e)
{
    return shc_tk_plan(g, 0, offset, r, NULL, NULL, new_offset, e);
}

static int fill_shift(const shc_gpu_profile *g, uint64_t seed, int64_t offset,
                      const shc_torch_rng_req *r, int64_t start, int64_t count, void *out,
                      uint8_t *mask, int64_t *new_offset, int rcp_shift, shc_err *e)
{
    int rc = validate(g, offset, r, e);
    if (rc)
        return rc;
    if (start < 0 || count < 0 || start > r->numel || count > r->numel - start)
        return shc_fail(e, SHC_EINVAL, "element range [%lld, +%lld) is outside the %lld elements",
                        (long long)start, (long long)count, (long long)r->numel);
    shc_tk k;
    shc_tk_setup(&k, r, seed);
    k.sfu = shc_gpu_sfu_model(g);
    k.rcp_shift = rcp_shift;
    job j = {.k = &k, .start = start, .end = start + count, .out = out, .mask = mask,
             .rand_f32 = r->op == SHC_TORCH_UNIFORM && r->dtype == SHC_DT_FLOAT32 &&
                         k.f_from == 0.0f && k.f_to == 1.0f};
    j.rows = malloc(sizeof(uint32_t) * 4 * CHUNK);
    if (!j.rows)
        return shc_fail(e, SHC_ENOMEM, "torch rng: out of memory");
    rc = shc_tk_plan(g, seed, offset, r, count ? run_launch : NULL, &j, new_offset, e);
    free(j.rows);
    return rc;
}

int shc_torch_rng_fill(const shc_gpu_profile *g, uint64_t seed, int64_t offset,
                       const shc_torch_rng_req *r, int64_t start, int64_t count, void *out,
                       uint8_t *mask, int64_t *new_offset, shc_err *e)
{
    return fill_shift(g, seed, offset, r, start, count, out, mask, new_offset, 0, e);
}

int shc_torch_rng_rcp_sensitive(const shc_gpu_profile *g, uint64_t seed, int64_t offset,
                                const shc_torch_rng_req *r, int64_t *count, shc_err *e)
{
    enum { PART = 1 << 18 };
    *count = 0;
    int rc = validate(g, offset, r, e);
    bool logs = r->dtype == SHC_DT_FLOAT64 &&
                (r->op == SHC_TORCH_NORMAL || r->op == SHC_TORCH_EXPONENTIAL ||
                 r->op == SHC_TORCH_LOG_NORMAL || r->op == SHC_TORCH_GEOMETRIC);
    if (rc || !logs || !r->numel)
        return rc;
    int64_t part = r->numel < PART ? r->numel : PART;
    uint64_t *v = malloc(sizeof *v * 3 * (size_t)part);
    if (!v)
        return shc_fail(e, SHC_ENOMEM, "torch rng: out of memory");
    for (int64_t at = 0; at < r->numel && !rc; at += part) {
        int64_t n = r->numel - at < part ? r->numel - at : part;
        for (int s = 0; s < 3 && !rc; s++) /* the model's seed, one unit down, one up */
            rc = fill_shift(g, seed, offset, r, at, n, v + s * part, NULL, NULL, s == 2 ? 1 : -s, e);
        for (int64_t i = 0; i < n && !rc; i++)
            *count += v[i] != v[part + i] || v[i] != v[2 * part + i];
    }
    free(v);
    return rc;
}
