/*
 * torch_cuda_sample.c — torch 2.13's CUDA bernoulli with a tensor p,
 * multinomial with replacement and randperm, bit for bit on a CPU (API in
 * shardcheck.h, section torch 2.13's CUDA sampling kernels).  They are apart
 * from torch_cuda_rng.c because none goes through distribution_nullary_kernel's
 * grid-stride launch: each has its own launch, its own philox_cuda_state
 * increment and its own host-side checks.  Each function below names the torch 2.13 source it
 * reproduces; the kernels are read from aten/src/ATen/native/cuda/
 * (DistributionTemplates.h and Randperm.cuh ship in the wheel's include/,
 * MultinomialKernel.cu and Randperm.cu in the source tree) and
 * aten/src/ATen/cuda/CUDAApplyUtils.cuh.
 *
 * Every kernel here does curand_init(seed, thread, offset) and draws whole
 * Philox blocks: the k-th curand4 of thread t is Philox4x32-10 of counter
 * (offset/4 + k, t) with key seed, as in torch_cuda_rng.c.
 *
 * Tested by conformance/tests/check_torch_sample.c against a naive
 * per-thread emulation written there on cuRAND's state machine.
 */
#include "config.h"
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shardcheck.h"
#include "checked_math.h"
#include "curand_stream.h"
#include "torch_cuda_rng.h"

/* c10::ScalarType names, as torch prints a dtype in these messages. */
static const char *const SCALAR_TYPE[] = {
    "Float", "Double", "Half", "BFloat16", "Long", "Int", "Short", "Char", "Byte", "Bool"};
_Static_assert(sizeof SCALAR_TYPE / sizeof SCALAR_TYPE[0] == SHC_DT_COUNT,
               "one ScalarType name per shc_dtype");

/* The name of a dtype shc_torch_sample_run has range-checked. */
static const char *scalar_type(shc_dtype t)
{
    assert((unsigned)t < SHC_DT_COUNT);
    return SCALAR_TYPE[t];
}

static bool is_floating(shc_dtype t)
{
    return t == SHC_DT_FLOAT32 || t == SHC_DT_FLOAT64 || t == SHC_DT_FLOAT16 ||
           t == SHC_DT_BFLOAT16;
}

/* Significand bits of a floating dtype (std::numeric_limits<T>::digits). */
static int digits_of(shc_dtype t)
{
    return t == SHC_DT_FLOAT64 ? 53 : t == SHC_DT_FLOAT32 ? 24 : t == SHC_DT_FLOAT16 ? 11 : 8;
}

/* A double rounded to a floating dtype and back (torch.tensor(v, dtype=t)). */
static double round_to(shc_dtype t, double v)
{
    switch (t) {
    case SHC_DT_FLOAT32: return (float)v;
    case SHC_DT_FLOAT16: return shc_f16_to_f32(shc_f32_to_f16((float)v));
    case SHC_DT_BFLOAT16: return shc_bf16_to_f32(shc_f32_to_bf16((float)v));
    default: return v;
    }
}

/* Philox block of thread t's k-th curand4 at `offset` (a multiple of 4). */
static void block_of(uint64_t seed, int64_t offset, uint64_t k, uint64_t t, uint32_t out[4])
{
    uint64_t c = (uint64_t)offset / 4 + k;
    uint32_t ctr[4] = {(uint32_t)c, (uint32_t)(c >> 32), (uint32_t)t, (uint32_t)(t >> 32)};
    uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    shc_philox4x32_10(ctr, key, out);
}

/* static_cast<scalar_t>(v) of a small integer (0/1 of bernoulli, k of arange). */
static void store_int(shc_dtype t, uint8_t *dst, int64_t v)
{
    switch (t) {
    case SHC_DT_FLOAT32: { float f = (float)v; memcpy(dst, &f, 4); break; }
    case SHC_DT_FLOAT64: { double d = (double)v; memcpy(dst, &d, 8); break; }
    case SHC_DT_FLOAT16: { uint16_t h = shc_f32_to_f16((float)v); memcpy(dst, &h, 2); break; }
    case SHC_DT_BFLOAT16: { uint16_t h = shc_f32_to_bf16((float)v); memcpy(dst, &h, 2); break; }
    case SHC_DT_INT64: memcpy(dst, &v, 8); break;
    case SHC_DT_INT32: { int32_t x = (int32_t)v; memcpy(dst, &x, 4); break; }
    case SHC_DT_INT16: { int16_t x = (int16_t)v; memcpy(dst, &x, 2); break; }
    case SHC_DT_BOOL: *dst = v != 0; break;
    default: *dst = (uint8_t)v; break;
    }
}

static int bump(int64_t *offset, int64_t inc, shc_err *e)
{
    int64_t r4;
    if (!shc_roundup64(inc, 4, &r4) || !shc_add64(*offset, r4, offset))
        return shc_fail(e, SHC_EOVERFLOW, "torch rng: generator offset overflows int64");
    return SHC_OK;
}

/* "[4, 3]" as torch prints IntArrayRef. */
static void sizes_str(const shc_shape *s, char *b, size_t n)
{
    size_t k = (size_t)snprintf(b, n, "[");
    for (int i = 0; i < s->ndim && k < n; i++)
        k += (size_t)snprintf(b + k, n - k, i ? ", %lld" : "%lld", (long long)s->d[i]);
    if (k < n)
        snprintf(b + k, n - k, "]");
}

/* ---- bernoulli with a tensor p ---- */

/* expand_inplace(self, p): p's dims aligned right, each 1 or equal
 * (ExpandUtils.cpp inferExpandGeometry walks from the last dim, so the message
 * names the last mismatching one).  strides[i]: p's stride along self dim i. */
static int p_broadcast(const shc_torch_sample_req *r, int64_t strides[SHC_MAX_TENSOR_DIMS], shc_err *e)
{
    const shc_shape *s = &r->shape, *p = &r->p_shape;
    if (p->ndim > s->ndim)
        return shc_fail(e, SHC_EUNSUPPORTED, "bernoulli: p with more dims (%d) than self (%d): "
                        "expand's message names the CUDA tensor type; not modelled", p->ndim,
                        s->ndim);
    int64_t st = 1;
    for (int i = s->ndim - 1; i >= 0; i--) {
        int j = i - (s->ndim - p->ndim);
        int64_t pd = j >= 0 ? p->d[j] : 1;
        if (pd != 1 && pd != s->d[i]) {
            char ts[256], ps[256];
            sizes_str(s, ts, sizeof ts);
            sizes_str(p, ps, sizeof ps);
            return shc_fail(e, SHC_EINVAL, "The expanded size of the tensor (%lld) must match "
                            "the existing size (%lld) at non-singleton dimension %d.  Target "
                            "sizes: %s.  Tensor sizes: %s", (long long)s->d[i], (long long)pd, i,
                            ts, ps);
        }
        strides[i] = pd == 1 ? 0 : st;
        st *= pd;
    }
    return SHC_OK;
}

/* p's values as the kernel reads them: p_.to(double) for a double self, else
 * p_.to(float) (bernoulli_kernel, cuda/DistributionTemplates.h:662). */
static int p_values(const shc_torch_sample_req *r, double **out, shc_err *e)
{
    double *v = malloc(sizeof *v * (size_t)(r->nw ? r->nw : 1));
    if (!v)
        return shc_fail(e, SHC_ENOMEM, "bernoulli: out of memory");
    for (int64_t i = 0; i < r->nw; i++) {
        if (round_to(r->p_dtype, r->w[i]) != r->w[i] && r->w[i] == r->w[i]) {
            free(v);
            return shc_fail(e, SHC_EINVAL, "bernoulli: p[%lld] = %.17g is not a %s value",
                            (long long)i, r->w[i], shc_dtype_name(r->p_dtype));
        }
        if (!(r->w[i] >= 0.0 && r->w[i] <= 1.0)) {
            free(v);
            return shc_fail(e, SHC_EUNSUPPORTED, "bernoulli: p[%lld] = %g outside [0, 1] fails "
                            "the kernel's CUDA_KERNEL_ASSERT (a device-side assert, no host "
                            "message): not modelled", (long long)i, r->w[i]);
        }
        v[i] = r->dtype == SHC_DT_FLOAT64 ? r->w[i] : (double)(float)r->w[i];
    }
    *out = v;
    return SHC_OK;
}

/* torch 2.13 bernoulli_kernel(self, p_, gen) (cuda/DistributionTemplates.h:653):
 * philox_cuda_state(10) (offset += 12) before the floating-type check, then
 * CUDA_tensor_apply2<scalar_t, prob_t, 4, ..., 512 threads> (CUDAApplyUtils.cuh):
 * thread t = blockIdx.x * 512 + threadIdx.x handles self's elements 4t..4t+3
 * (grid = ceil(n / 2048), one pass) from one curand_uniform4: element 4t+c is
 * static_cast<scalar_t>(component c <= p).  self is contiguous, so
 * rearrangeDims never swaps dims (self's strides decrease) and the linear
 * index is self's row-major index. */
static int run_bernoulli(uint64_t seed, int64_t offset, const shc_torch_sample_req *r, uint8_t *out,
                         int64_t *new_offset, shc_err *e)
{
    int64_t n, np, strides[SHC_MAX_TENSOR_DIMS];
    int rc = shc_shape_numel(&r->shape, &n, e);
    if (!rc)
        rc = shc_shape_numel(&r->p_shape, &np, e);
    if (rc)
        return rc;
    *new_offset = offset;
    if (n == 0) /* CHECK_EMPTY_AND_RETURN(self) in bernoulli_impl_: no generator use */
        return SHC_OK;
    if ((rc = bump(new_offset, 10, e)))
        return rc;
    if (!is_floating(r->p_dtype))
        return shc_fail(e, SHC_EINVAL, "expected probabilities tensor to have floating type, "
                        "got %s", scalar_type(r->p_dtype));
    if ((rc = p_broadcast(r, strides, e)))
        return rc;
    if (n > SHC_TORCH_SAMPLE_MAX_NUMEL)
        return shc_fail(e, SHC_EUNSUPPORTED, "bernoulli: %lld elements: the kernel's 32-bit "
                        "thread index wraps above 2^32 elements; not modelled", (long long)n);
    if (np != r->nw)
        return shc_fail(e, SHC_EINVAL, "bernoulli: p has %lld values for %lld elements",
                        (long long)r->nw, (long long)np);
    double *p = NULL;
    if ((rc = p_values(r, &p, e)))
        return rc;
    size_t sz = shc_dtype_size(r->dtype);
    int64_t idx[SHC_MAX_TENSOR_DIMS] = {0}, pi = 0;
    uint32_t w[4];
    for (int64_t i = 0; i < n; i++) {
        if (i % 4 == 0)
            block_of(seed, offset, 0, (uint64_t)(i / 4), w);
        float u = shc_curand_u01(w[i % 4]);
        bool v = r->dtype == SHC_DT_FLOAT64 ? (double)u <= p[pi] : u <= (float)p[pi];
        store_int(r->dtype, out + (size_t)i * sz, v);
        for (int d = r->shape.ndim - 1; d >= 0; d--) { /* next row-major index of self */
            pi += strides[d];
            if (++idx[d] < r->shape.d[d])
                break;
            pi -= strides[d] * idx[d];
            idx[d] = 0;
        }
    }
    free(p);
    return SHC_OK;
}

/* ---- multinomial ---- */

/* multinomial_out's host checks in torch 2.13 order (aten/src/ATen/native/
 * Distributions.cpp; the messages are device-independent and checked against
 * torch on a CPU by the harness tests). */
static int multinomial_check(const shc_torch_sample_req *r, int64_t *rows, int64_t *cats, shc_err *e)
{
    if (r->shape.ndim < 1 || r->shape.ndim > 2)
        return shc_fail(e, SHC_EINVAL, "prob_dist must be 1 or 2 dim");
    if (!is_floating(r->dtype))
        return shc_fail(e, SHC_EINVAL, "multinomial only supports floating-point dtypes for "
                        "input, got: %s", scalar_type(r->dtype));
    if (r->n <= 0)
        return shc_fail(e, SHC_EINVAL, "cannot sample n_sample <= 0 samples");
    *cats = r->shape.d[r->shape.ndim - 1];
    *rows = r->shape.ndim == 2 ? r->shape.d[0] : 1;
    if (!r->replacement && r->n > *cats)
        return shc_fail(e, SHC_EINVAL, "cannot sample n_sample > prob_dist.size(-1) samples "
                        "without replacement");
    if (*cats > (INT64_C(1) << 24))
        return shc_fail(e, SHC_EINVAL, "number of categories cannot exceed 2^24");
    int64_t nw;
    if (!shc_mul64(*rows, *cats, &nw) || nw != r->nw)
        return shc_fail(e, SHC_EINVAL, "multinomial: %lld values for a %lld x %lld input",
                        (long long)r->nw, (long long)*rows, (long long)*cats);
    for (int64_t i = 0; i < r->nw; i++)
        if (round_to(r->dtype, r->w[i]) != r->w[i] && r->w[i] == r->w[i])
            return shc_fail(e, SHC_EINVAL, "multinomial: input[%lld] = %.17g is not a %s value",
                            (long long)i, r->w[i], shc_dtype_name(r->dtype));
    return SHC_OK;
}

/* The fast path's host checks (!replacement || n == 1): max < inf, min >= 0,
 * no row summing to 0. */
static int fast_path_check(const shc_torch_sample_req *r, int64_t rows, int64_t cats, shc_err *e)
{
    for (int64_t i = 0; i < r->nw; i++)
        if (!(r->w[i] >= 0.0 && r->w[i] < INFINITY))
            return shc_fail(e, SHC_EINVAL,
                            "probability tensor contains either `inf`, `nan` or element < 0");
    for (int64_t d = 0; d < rows; d++) {
        double s = 0;
        for (int64_t c = 0; c < cats; c++)
            s += r->w[d * cats + c];
        if (s == 0.0)
            return shc_fail(e, SHC_EINVAL,
                            "invalid multinomial distribution (sum of probabilities <= 0)");
    }
    return SHC_OK;
}

/* at::div_out(q, self, q) in the dtype: IEEE division, half/bfloat16 through float
 * (opmath) and rounded back. */
static double div_in(shc_dtype t, double p, double q)
{
    return t == SHC_DT_FLOAT64 ? p / q : round_to(t, (double)((float)p / (float)q));
}

typedef struct gk_item {
    double v;
    int64_t c;
} gk_item;

/* Larger value first, then the lower index: argmax's GreaterOrNan
 * (SharedReduceOps.h) on ties; no NaN reaches here (p finite, q > 0). */
static int gk_cmp(const void *a, const void *b)
{
    const gk_item *x = a, *y = b;
    if (x->v != y->v)
        return x->v > y->v ? -1 : 1;
    return x->c < y->c ? -1 : x->c > y->c;
}

/* One row: the n categories of largest p/q.  n == 1 is argmax (ties: the
 * lowest index); n > 1 is topk(sorted), whose order among equal values is the
 * GPU sort's, so a tie inside the top n or at its boundary is not modelled. */
static int gk_row(const shc_torch_sample_req *r, const double *w, const uint8_t *q, int64_t cats,
                  gk_item *it, int64_t *out, shc_err *e)
{
    size_t sz = shc_dtype_size(r->dtype);
    for (int64_t c = 0; c < cats; c++) {
        const uint8_t *qb = q + (size_t)c * sz;
        double qv;
        if (r->dtype == SHC_DT_FLOAT64) {
            memcpy(&qv, qb, 8);
        } else if (r->dtype == SHC_DT_FLOAT32) {
            float f;
            memcpy(&f, qb, 4);
            qv = f;
        } else {
            uint16_t h;
            memcpy(&h, qb, 2);
            qv = r->dtype == SHC_DT_FLOAT16 ? shc_f16_to_f32(h) : shc_bf16_to_f32(h);
        }
        it[c] = (gk_item){div_in(r->dtype, w[c], qv), c};
    }
    qsort(it, (size_t)cats, sizeof *it, gk_cmp);
    for (int64_t k = 1; r->n > 1 && k < cats && k <= r->n; k++)
        if (it[k].v == it[k - 1].v)
            return shc_fail(e, SHC_EUNSUPPORTED, "multinomial without replacement: equal "
                            "values of p/q (%g) among the top %lld: topk's order of ties is the "
                            "GPU sort's; not modelled", it[k].v, (long long)r->n);
    for (int64_t k = 0; k < r->n; k++)
        out[k] = it[k].c;
    return SHC_OK;
}

/* torch 2.13 multinomial_out's fast path (aten/src/ATen/native/Distributions.cpp),
 * taken without replacement or for n_sample == 1: q = empty_like(self).exponential_(1)
 * (torch_cuda_rng.c's kernel, so its logf/log: GpuOnly), q = self / q, then argmax
 * (n == 1, keepdim) or topk(q, n): the Gumbel-max trick. */
static int run_gumbel(const shc_gpu_profile *g, uint64_t seed, const shc_torch_sample_req *r,
                      int64_t rows, int64_t cats, int64_t *out, int64_t *new_offset, shc_err *e)
{
    shc_torch_rng_req q;
    shc_torch_rng_req_init(&q, SHC_TORCH_EXPONENTIAL, r->dtype, rows * cats);
    q.a = 1.0;
    size_t sz = shc_dtype_size(r->dtype);
    uint8_t *qb = malloc(sz * (size_t)(rows * cats));
    gk_item *it = malloc(sizeof *it * (size_t)cats);
    int rc = qb && it ? SHC_OK : shc_fail(e, SHC_ENOMEM, "multinomial: out of memory");
    if (!rc)
        rc = shc_torch_rng_fill(g, seed, *new_offset, &q, 0, rows * cats, qb, NULL, new_offset,
                                e);
    for (int64_t d = 0; d < rows && !rc; d++)
        rc = gk_row(r, r->w + d * cats, qb + (size_t)(d * cats) * sz, cats, it, out + d * r->n,
                    e);
    free(qb);
    free(it);
    return rc;
}

/* One row's normalised cumulative distribution, exactly as the GPU computes
 * it -- but only where that does not depend on the GPU: renormRowsL1 sums the
 * row with a block reduction and at::cuda::cumsum_out scans it, both in an
 * order (and, for half, with intermediate roundings) we do not reproduce.  We
 * accept a row only if every partial sum, in any order, is exact in the
 * dtype: the weights are integer multiples of a power of two u, their total T
 * is a power of two and T/u <= 2^digits.  Then normDist = w/T and its prefix
 * sums are exact, whatever the order. */
static int exact_cumsum(const shc_torch_sample_req *r, const double *w, int64_t cats, double *cum,
                        shc_err *e)
{
    double t = 0, u = INFINITY;
    for (int64_t c = 0; c < cats; c++) {
        if (!(w[c] >= 0.0 && w[c] < INFINITY))
            return shc_fail(e, SHC_EUNSUPPORTED, "multinomial: weight %g fails renormRowsL1's "
                            "CUDA_KERNEL_ASSERT (device-side assert): not modelled", w[c]);
        if (w[c] > 0) { /* the weight's lowest set bit: w = m * 2^ex, m odd */
            int ex;
            double m = frexp(w[c], &ex);
            while (m != floor(m)) {
                m *= 2;
                ex--;
            }
            u = fmin(u, ldexp(1.0, ex));
        }
        t += w[c];
    }
    int te;
    if (t == 0)
        return shc_fail(e, SHC_EUNSUPPORTED, "multinomial: a row summing to 0 fails "
                        "binarySearchForMultinomial's CUDA_KERNEL_ASSERT: not modelled");
    if (frexp(t, &te) != 0.5 || t / u > ldexp(1.0, digits_of(r->dtype)))
        return shc_fail(e, SHC_EUNSUPPORTED, "multinomial: a row whose sum is not a power of "
                        "two, or whose partial sums are not all exact in %s: the GPU's "
                        "reduction and scan order would decide the rounding; not modelled",
                        shc_dtype_name(r->dtype));
    double acc = 0;
    for (int64_t c = 0; c < cats; c++) {
        acc += w[c];
        cum[c] = acc / t;
    }
    return SHC_OK;
}

/* binarySearchForMultinomial (MultinomialKernel.cu): first cumdist >= val, the
 * last category if none (val == 1 with rounding), then back over zero-weight
 * categories. */
static int64_t search(const double *cum, const double *w, int64_t cats, double val)
{
    int64_t lo = 0, hi = cats;
    while (hi - lo > 0) {
        int64_t mid = lo + (hi - lo) / 2;
        if (cum[mid] < val)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == cats)
        lo = cats - 1;
    while (lo >= 1 && w[lo] == 0)
        lo--;
    return lo;
}

/* torch 2.13 multinomial_with_replacement_kernel_impl (MultinomialKernel.cu),
 * reached for replacement and n_sample >= 2: block 128, grid (ceil(n/128),
 * grid_y = min(rows, maxGridSize[1] = 65535)), philox_cuda_state(((rows-1) /
 * grid_y + 1) * 4); thread idx = blockIdx.y * gridDim.x * 128 + sample draws,
 * for its k-th row blockIdx.y + k*grid_y, curand_uniform4's .x only (3 of 4
 * words wasted, as the kernel's comment says), rounds it to scalar_t and
 * binary-searches the row's cumulative distribution. */
static int run_multinomial(const shc_gpu_profile *g, uint64_t seed, int64_t offset,
                           const shc_torch_sample_req *r, int64_t *out, int64_t *new_offset,
                           shc_err *e)
{
    int64_t rows = 0, cats = 0;
    int rc = multinomial_check(r, &rows, &cats, e);
    if (rc)
        return rc;
    *new_offset = offset;
    if (rows == 0) /* result.numel() == 0: returned before any generator use */
        return SHC_OK;
    if (!r->replacement || r->n == 1) {
        rc = fast_path_check(r, rows, cats, e);
        return rc ? rc : run_gumbel(g, seed, r, rows, cats, out, new_offset, e);
    }
    if (cats == 0)
        return shc_fail(e, SHC_EUNSUPPORTED, "multinomial: 0 categories: the kernel reads "
                        "cumdist[-1]; not modelled");
    int64_t grid_y = rows < 65535 ? rows : 65535, grid_x = (r->n - 1) / 128 + 1;
    if (grid_y * grid_x * 128 > (INT64_C(1) << 31))
        return shc_fail(e, SHC_EUNSUPPORTED, "multinomial: %lld x %lld threads overflow the "
                        "kernel's int thread index; not modelled", (long long)grid_y,
                        (long long)(grid_x * 128));
    double *cum = malloc(sizeof *cum * (size_t)cats);
    if (!cum)
        return shc_fail(e, SHC_ENOMEM, "multinomial: out of memory");
    for (int64_t d = 0; d < rows && !rc; d++) {
        const double *w = r->w + d * cats;
        if ((rc = exact_cumsum(r, w, cats, cum, e)))
            break;
        uint64_t by = (uint64_t)(d % grid_y), k = (uint64_t)(d / grid_y);
        for (int64_t s = 0; s < r->n; s++) {
            uint32_t b[4];
            block_of(seed, offset, k, by * (uint64_t)grid_x * 128 + (uint64_t)s, b);
            double v = round_to(r->dtype, (double)shc_curand_u01(b[0]));
            out[d * r->n + s] = search(cum, w, cats, v);
        }
    }
    free(cum);
    return rc ? rc : bump(new_offset, ((rows - 1) / grid_y + 1) * 4, e);
}

/* ---- randperm ---- */

int shc_torch_randperm_bits(int64_t n)
{
    const double log_threshold_12 = log(0.9) * 12;
    double nd = (double)n;
    double b = ceil(log2(nd - (6 * nd * nd + 1) / log_threshold_12));
    return b < 64 ? (int)b : 64;
}

/* check_supported_max_int_with_precision (ATen/native/TensorFactories.h:83):
 * scalar_tensor(n - 1, dtype) must not overflow, and floats hold n exactly. */
static int randperm_check(const shc_torch_sample_req *r, shc_err *e)
{
    static const char *const CTYPE[SHC_DT_COUNT] = {
        [SHC_DT_INT32] = "int32_t", [SHC_DT_INT16] = "int16_t", [SHC_DT_INT8] = "int8_t",
        [SHC_DT_UINT8] = "uint8_t"};
    static const int64_t MAXV[SHC_DT_COUNT] = {
        [SHC_DT_INT32] = INT32_MAX, [SHC_DT_INT16] = INT16_MAX, [SHC_DT_INT8] = INT8_MAX,
        [SHC_DT_UINT8] = UINT8_MAX};
    int64_t n = r->n;
    if (n < 0) /* torch.randperm(n) makes at::empty({n}) first */
        return shc_fail(e, SHC_EINVAL, "Trying to create tensor with negative dimension %lld: "
                        "[%lld]", (long long)n, (long long)n);
    if (r->dtype == SHC_DT_BOOL || r->dtype == SHC_DT_BFLOAT16)
        return shc_fail(e, SHC_EUNSUPPORTED, "randperm: %s results are not modelled (torch "
                        "rejects them in the CUDA dispatch after drawing the keys)",
                        shc_dtype_name(r->dtype));
    assert((unsigned)r->dtype < SHC_DT_COUNT); /* shc_torch_sample_run's check */
    if (CTYPE[r->dtype] && (n > 0 ? n - 1 : n) > MAXV[r->dtype])
        return shc_fail(e, SHC_EINVAL, "value cannot be converted to type %s without overflow",
                        CTYPE[r->dtype]);
    if (r->dtype == SHC_DT_FLOAT16 && n > (1 << 11) + 1)
        return shc_fail(e, SHC_EINVAL, "n cannot be greater than 2049 for Half type.");
    if (r->dtype == SHC_DT_FLOAT32 && n > (1 << 24) + 1)
        return shc_fail(e, SHC_EINVAL, "n cannot be greater than 2^24+1 for Float type.");
    if (n > INT32_MAX || shc_torch_randperm_bits(n) > 63)
        return shc_fail(e, SHC_EUNSUPPORTED, "randperm: n = %lld: the kernels' int n and the "
                        "64-bit key mask ((1UL << 64) - 1 is undefined) are not modelled",
                        (long long)n);
    return SHC_OK;
}

typedef struct rp_item {
    uint64_t key; /* the radix-sort digits: bits [0, bits) of the twiddled key */
    int64_t idx;
} rp_item;

/* cub's radix sort is stable: equal digits keep the index order. */
static int rp_cmp(const void *a, const void *b)
{
    const rp_item *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The random keys: at::empty(n, kInt or kLong).random_(min, max) of the key
 * type (Randperm.cu), i.e. torch_cuda_rng.c's random_ from/to kernel. */
static int rp_keys(const shc_gpu_profile *g, uint64_t seed, int64_t *offset, int64_t n, int bits,
                   int64_t *keys, shc_err *e)
{
    shc_torch_rng_req q;
    bool wide = bits > 32;
    shc_torch_rng_req_init(&q, SHC_TORCH_RANDOM, wide ? SHC_DT_INT64 : SHC_DT_INT32, n);
    q.has_range = true;
    q.from = wide ? INT64_MIN : INT32_MIN;
    q.to = wide ? INT64_MAX : INT32_MAX;
    if (wide)
        return shc_torch_rng_fill(g, seed, *offset, &q, 0, n, keys, NULL, offset, e);
    int32_t *k32 = malloc(sizeof *k32 * (size_t)n);
    if (!k32)
        return shc_fail(e, SHC_ENOMEM, "randperm: out of memory");
    int rc = shc_torch_rng_fill(g, seed, *offset, &q, 0, n, k32, NULL, offset, e);
    for (int64_t i = 0; !rc && i < n; i++)
        keys[i] = k32[i];
    free(k32);
    return rc;
}

/* randperm_handle_duplicate_keys_kernel (Randperm.cuh): the first thread of
 * each run of equal masked keys does curand_init(seed, tid, offset) and a
 * Fisher-Yates shuffle of the run with curand() % (i + 1), i from the top. */
static void rp_islands(uint64_t seed, int64_t offset, const uint64_t *mk, int64_t *perm,
                       int64_t n)
{
    for (int64_t t = 0; t + 1 < n; t++) {
        if (mk[t] != mk[t + 1] || (t && mk[t] == mk[t - 1]))
            continue;
        int64_t size = 1;
        while (t + size < n && mk[t + size] == mk[t])
            size++;
        uint32_t w[4];
        int64_t used = 4;
        uint64_t k = 0;
        for (int64_t i = size - 1; i > 0; i--) {
            if (used == 4) {
                block_of(seed, offset, k++, (uint64_t)t, w);
                used = 0;
            }
            int64_t j = (int64_t)(w[used++] % (uint32_t)(i + 1));
            int64_t tmp = perm[t + i];
            perm[t + i] = perm[t + j];
            perm[t + j] = tmp;
        }
    }
}

/* torch 2.13 randperm_out_cuda (Randperm.cu): random keys of `bits` bits'
 * worth (int32 keys when bits <= 32, else int64), a stable radix sort of
 * arange(n) by key bits [0, bits) (cub twiddles a signed key's top bit, which
 * is among the digits only when bits is the key width), then
 * philox_cuda_state(n) and the island shuffle of equal keys. */
static int run_randperm(const shc_gpu_profile *g, uint64_t seed, int64_t offset,
                        const shc_torch_sample_req *r, uint8_t *out, int64_t *new_offset, shc_err *e)
{
    int rc = randperm_check(r, e);
    int64_t n = r->n;
    *new_offset = offset;
    if (rc || n == 0)
        return rc;
    int bits = shc_torch_randperm_bits(n), width = bits > 32 ? 64 : 32;
    int64_t *keys = malloc(sizeof *keys * (size_t)n), *perm = malloc(sizeof *perm * (size_t)n);
    rp_item *it = malloc(sizeof *it * (size_t)n);
    uint64_t *mk = malloc(sizeof *mk * (size_t)n);
    if (!keys || !perm || !it || !mk)
        rc = shc_fail(e, SHC_ENOMEM, "randperm: out of memory");
    if (!rc)
        rc = rp_keys(g, seed, new_offset, n, bits, keys, e);
    if (!rc) {
        uint64_t mask = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
        uint64_t top = UINT64_C(1) << (width - 1), wmask = width == 64 ? UINT64_MAX : 0xffffffffu;
        for (int64_t i = 0; i < n; i++) {
            uint64_t raw = (uint64_t)keys[i] & wmask;
            it[i].key = (bits == width ? raw ^ top : raw) & mask;
            it[i].idx = i;
        }
        qsort(it, (size_t)n, sizeof *it, rp_cmp);
        for (int64_t i = 0; i < n; i++) {
            perm[i] = it[i].idx;
            mk[i] = ((uint64_t)keys[it[i].idx] & wmask) & mask;
        }
        int64_t isl = *new_offset;
        rc = bump(new_offset, n, e);
        if (!rc)
            rp_islands(seed, isl, mk, perm, n);
        size_t sz = shc_dtype_size(r->dtype);
        for (int64_t i = 0; !rc && i < n; i++)
            store_int(r->dtype, out + (size_t)i * sz, perm[i]);
    }
    free(keys);
    free(perm);
    free(it);
    free(mk);
    return rc;
}

/* ---- entry points ---- */

int shc_torch_sample_out(const shc_torch_sample_req *r, int64_t *numel, shc_dtype *dtype, shc_err *e)
{
    switch (r->op) {
    case SHC_TORCH_SAMPLE_BERNOULLI_P:
        *dtype = r->dtype;
        return shc_shape_numel(&r->shape, numel, e);
    case SHC_TORCH_SAMPLE_MULTINOMIAL:
        *dtype = SHC_DT_INT64;
        if (r->shape.ndim == 2 && !shc_mul64(r->shape.d[0], r->n, numel))
            return shc_fail(e, SHC_EOVERFLOW, "multinomial: rows x n_sample overflows int64");
        if (r->shape.ndim != 2)
            *numel = r->n;
        return SHC_OK;
    case SHC_TORCH_SAMPLE_RANDPERM:
        *dtype = r->dtype;
        *numel = r->n;
        return SHC_OK;
    default:
        return shc_fail(e, SHC_EINVAL, "torch sampling op %d out of range", (int)r->op);
    }
}

int shc_torch_sample_run(const shc_gpu_profile *g, uint64_t seed, int64_t offset,
                    const shc_torch_sample_req *r, void *out, int64_t *new_offset, shc_err *e)
{
    if (!shc_gpu_profile_is_cuda_window(g))
        return shc_fail(e, SHC_EINVAL, "gpu profile %s: offsets %s; torch's CUDA kernels are "
                        "modelled on CUDA's windows only", g->name ? g->name : "",
                        shc_offset_semantics_name(g->offset_semantics));
    if (offset < 0 || offset % 4)
        return shc_fail(e, SHC_EINVAL, "offset %lld: offset must be a multiple of 4",
                        (long long)offset);
    if (r->dtype >= SHC_DT_COUNT || r->p_dtype >= SHC_DT_COUNT)
        return shc_fail(e, SHC_EINVAL, "torch sampling: dtype out of range");
    int64_t no = offset;
    int rc;
    switch (r->op) {
    case SHC_TORCH_SAMPLE_BERNOULLI_P: rc = run_bernoulli(seed, offset, r, out, &no, e); break;
    case SHC_TORCH_SAMPLE_MULTINOMIAL: rc = run_multinomial(g, seed, offset, r, out, &no, e); break;
    case SHC_TORCH_SAMPLE_RANDPERM: rc = run_randperm(g, seed, offset, r, out, &no, e); break;
    default: rc = shc_fail(e, SHC_EINVAL, "torch sampling op %d out of range", (int)r->op);
    }
    if (!rc && new_offset)
        *new_offset = no;
    return rc;
}
