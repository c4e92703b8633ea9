/*
 * rng_ops.c — the op table of torch 2.13's random ops and what DTensor does
 * with each (see shardcheck_ops.h).  Every row cites the torch 2.13.0 source line
 * that decides it (paths under torch/distributed/tensor/ unless absolute);
 * tools/harness/adapters/torch_rng_offsets.py re-derives tracked / untracked
 * / rejected and the messages from torch's own dispatcher on a fake process
 * group for every case of golden/rng-offsets/ops.json (every row that takes
 * a DTensor, on each placement kind; tools/harness/tests/
 * test_torch_adapters.py runs all of them and compares the messages).
 * Tested by check_rng_ops.c.
 *
 * Adding an op is one row here (plus a kernel in lib/rng/torch_cuda_rng.c, or
 * lib/rng/torch_cuda_sample.c for one with its own launch, when it runs on CUDA
 * and the families should carry its bits).
 */
#include "config.h"
#include <assert.h>
#include <stdio.h>
#include <string.h>
#include "shardcheck.h"

#define DISPATCH_SET "_dispatch.py:179-192 (OpDispatcher._random_ops)"
#define NO_STRATEGY "_sharding_prop.py:1042 (no sharding strategy registered)"
#define INPLACE_RULES "_ops/_random_ops.py:39-53; Partial: _ops/utils.py:669-675"

static const shc_rng_op OPS[] = {
    {"uniform_", "torch.Tensor.uniform_", SHC_API_PYTHON, "aten.uniform_.default",
     SHC_RNGD_TRACKED, SHC_RNGP_REJECT, false, SHC_DTM_FLOATS, SHC_TORCH_UNIFORM,
     DISPATCH_SET "; " INPLACE_RULES, "uniform_kernel (DistributionTemplates.h:486)", 0, false},
    {"normal_", "torch.Tensor.normal_", SHC_API_PYTHON, "aten.normal_.default",
     SHC_RNGD_TRACKED, SHC_RNGP_REJECT, false, SHC_DTM_FLOATS, SHC_TORCH_NORMAL,
     DISPATCH_SET "; " INPLACE_RULES,
     "normal_kernel (DistributionTemplates.h:463): Box-Muller, __sincosf/__logf (float), "
     "sincospi/log (double)", 0, false},
    {"normal.Tensor_float", "torch.normal(mean: Tensor, std: float)", SHC_API_PYTHON,
     "aten.normal.Tensor_float", SHC_RNGD_REJECTED, SHC_RNGP_NONE, false, SHC_DTM_FLOATS, -1,
     NO_STRATEGY, "normal_kernel then mean/std arithmetic", 0, false},
    {"normal.float_Tensor", "torch.normal(mean: float, std: Tensor)", SHC_API_PYTHON,
     "aten.normal.float_Tensor", SHC_RNGD_REJECTED, SHC_RNGP_NONE, false, SHC_DTM_FLOATS, -1,
     NO_STRATEGY, "normal_kernel then mean/std arithmetic", 0, false},
    {"normal.Tensor_Tensor", "torch.normal(mean: Tensor, std: Tensor)", SHC_API_PYTHON,
     "aten.normal.Tensor_Tensor", SHC_RNGD_REJECTED, SHC_RNGP_NONE, false, SHC_DTM_FLOATS, -1,
     NO_STRATEGY, "normal_kernel then mean/std arithmetic", 0, false},
    {"bernoulli_.float", "torch.Tensor.bernoulli_(p: float)", SHC_API_PYTHON,
     "aten.bernoulli_.float", SHC_RNGD_TRACKED, SHC_RNGP_REJECT, false, SHC_DTM_ALL,
     SHC_TORCH_BERNOULLI, DISPATCH_SET "; " INPLACE_RULES,
     "bernoulli_kernel (DistributionTemplates.h:677), uniform_and_transform", 0, false},
    {"bernoulli_.Tensor", "torch.Tensor.bernoulli_(p: Tensor)", SHC_API_PYTHON,
     "aten.bernoulli_.Tensor", SHC_RNGD_REJECTED, SHC_RNGP_NONE, false, SHC_DTM_ALL,
     SHC_RNG_KERNEL_SAMPLE + SHC_TORCH_SAMPLE_BERNOULLI_P, NO_STRATEGY,
     "bernoulli_tensor_cuda_kernel (cuda/DistributionTemplates.h:608): philox_cuda_state(10), "
     "CUDA_tensor_apply2 step 4 x 512 threads, one curand_uniform4 per 4 elements, u <= p", 0, false},
    {"bernoulli", "torch.bernoulli(p: Tensor)", SHC_API_PYTHON, "aten.bernoulli.default",
     SHC_RNGD_TRACKED, SHC_RNGP_REDISTRIBUTE, false, SHC_DTM_FLOATS,
     SHC_RNG_KERNEL_SAMPLE + SHC_TORCH_SAMPLE_BERNOULLI_P, DISPATCH_SET "; _ops/_random_ops.py:44",
     "empty_like(p) + bernoulli_tensor_cuda_kernel (cuda/DistributionTemplates.h:608): "
     "philox_cuda_state(10), 4 elements per curand_uniform4, u <= p", 0, false},
    {"bernoulli.p", "torch.bernoulli(input, p: float)", SHC_API_PYTHON, "aten.bernoulli.p",
     SHC_RNGD_REJECTED, SHC_RNGP_NONE, false, SHC_DTM_ALL, -1, NO_STRATEGY,
     "bernoulli_kernel", 0, false},
    {"random_", "torch.Tensor.random_()", SHC_API_PYTHON, "aten.random_.default",
     SHC_RNGD_REJECTED, SHC_RNGP_NONE, false, SHC_DTM_ALL, SHC_TORCH_RANDOM, NO_STRATEGY,
     "random_kernel (DistributionTemplates.h:391)", 0, false},
    {"random_.from", "torch.Tensor.random_(from, to)", SHC_API_PYTHON, "aten.random_.from",
     SHC_RNGD_REJECTED, SHC_RNGP_NONE, false, SHC_DTM_ALL, SHC_TORCH_RANDOM, NO_STRATEGY,
     "random_from_to_kernel (DistributionTemplates.h:318)", 0, false},
    {"random_.to", "torch.Tensor.random_(to)", SHC_API_PYTHON, "aten.random_.to",
     SHC_RNGD_REJECTED, SHC_RNGP_NONE, false, SHC_DTM_ALL, SHC_TORCH_RANDOM, NO_STRATEGY,
     "random_from_to_kernel with from = 0", 0, false},
    {"randint_like", "torch.randint_like(input, high)", SHC_API_PYTHON,
     "aten.randint_like.default", SHC_RNGD_TRACKED, SHC_RNGP_TO_REPLICATE, false,
     SHC_DTM_ALL, SHC_TORCH_RANDOM, DISPATCH_SET "; _ops/_tensor_ops.py:210-215",
     "empty_like + random_from_to_kernel", 0, false},
    {"randint_like.low_dtype", "torch.randint_like(input, low, high)", SHC_API_PYTHON,
     "aten.randint_like.low_dtype", SHC_RNGD_TRACKED, SHC_RNGP_TO_REPLICATE, false,
     SHC_DTM_ALL, SHC_TORCH_RANDOM, DISPATCH_SET "; _ops/_tensor_ops.py:210-215",
     "empty_like + random_from_to_kernel", 0, false},
    {"rand_like", "torch.rand_like", SHC_API_PYTHON, "aten.rand_like.default", SHC_RNGD_TRACKED,
     SHC_RNGP_TO_REPLICATE, false, SHC_DTM_FLOATS, SHC_TORCH_UNIFORM,
     DISPATCH_SET "; _ops/_tensor_ops.py:197-204", "empty_like + uniform_kernel", 0, false},
    {"randn_like", "torch.randn_like", SHC_API_PYTHON, "aten.randn_like.default",
     SHC_RNGD_TRACKED, SHC_RNGP_TO_REPLICATE, false, SHC_DTM_FLOATS, SHC_TORCH_NORMAL,
     DISPATCH_SET "; _ops/_tensor_ops.py:197-204", "empty_like + normal_kernel", 0, false},
    {"exponential_", "torch.Tensor.exponential_", SHC_API_PYTHON, "aten.exponential_.default",
     SHC_RNGD_UNTRACKED, SHC_RNGP_REJECT, false, SHC_DTM_FLOATS, SHC_TORCH_EXPONENTIAL,
     "_ops/_random_ops.py:46, not in " DISPATCH_SET "; Partial: _ops/utils.py:669-675",
     "exponential_kernel (DistributionTemplates.h:564): __logf (float) / ::log (double)", 0, false},
    {"log_normal_", "torch.Tensor.log_normal_", SHC_API_PYTHON, "aten.log_normal_.default",
     SHC_RNGD_UNTRACKED, SHC_RNGP_REJECT, false, SHC_DTM_FLOATS, SHC_TORCH_LOG_NORMAL,
     "_ops/_random_ops.py:45, not in " DISPATCH_SET "; Partial: _ops/utils.py:669-675",
     "log_normal_kernel (DistributionTemplates.h:519): Box-Muller then at::exp: __expf "
     "(float accscalar, MUFU.EX2: GpuOnly), libdevice exp (double: exact, its normal draw's "
     "log GpuOnly)", 0, false},
    {"geometric_", "torch.Tensor.geometric_", SHC_API_PYTHON, "aten.geometric_.default",
     SHC_RNGD_UNTRACKED, SHC_RNGP_REJECT, false, SHC_DTM_FLOATS | SHC_DTM_INTS, SHC_TORCH_GEOMETRIC,
     "_ops/_random_ops.py:47, not in " DISPATCH_SET "; Partial: _ops/utils.py:669-675",
     "geometric_kernel (DistributionTemplates.h:542): ::ceil(at::log(u) / at::log1p(-p)): "
     "__logf(u) / __logf(1 - p) (float accscalar, MUFU.LG2: GpuOnly), libdevice log, log1p "
     "(double: GpuOnly for log's MUFU.RCP64H seed)", 0, false},
    {"cauchy_", "torch.Tensor.cauchy_", SHC_API_PYTHON, "aten.cauchy_.default",
     SHC_RNGD_UNTRACKED, SHC_RNGP_REDISTRIBUTE, false, SHC_DTM_FLOATS, SHC_TORCH_CAUCHY,
     "_sharding_prop.py:792-800 (strategy from the decomposition, _decompositions.py:178); "
     "not in " DISPATCH_SET,
     "cauchy_kernel (DistributionTemplates.h:586): median + sigma * at::tan(pi * (u - 0.5)): "
     "__tanf (float accscalar, MUFU.SIN/COS: GpuOnly), libdevice tan (double: exact)", 0, false},
    {"multinomial", "torch.multinomial(input, n, replacement=True)", SHC_API_PYTHON,
     "aten.multinomial.default", SHC_RNGD_UNTRACKED, SHC_RNGP_REDISTRIBUTE, true,
     SHC_DTM_FLOATS, SHC_RNG_KERNEL_SAMPLE + SHC_TORCH_SAMPLE_MULTINOMIAL,
     "_ops/_random_ops.py:56-81, not in " DISPATCH_SET,
     "n_sample >= 2: multinomial_with_replacement_kernel_impl (MultinomialKernel.cu): "
     "philox_cuda_state(((rows-1)/grid_y+1)*4), curand_uniform4's .x, binary search over the "
     "cumulative distribution (emulated for weights whose partial sums are exact); n_sample = 1 "
     "takes the no-replacement path (exponential_, argmax: GpuOnly)", 0, false},
    {"multinomial.noreplace", "torch.multinomial(input, n, replacement=False)",
     SHC_API_PYTHON, "aten.multinomial.default", SHC_RNGD_UNTRACKED, SHC_RNGP_REDISTRIBUTE,
     true, SHC_DTM_FLOATS, SHC_RNG_KERNEL_SAMPLE + SHC_TORCH_SAMPLE_MULTINOMIAL,
     "_ops/_random_ops.py:56-81, not in " DISPATCH_SET,
     "multinomial_out's fast path (Distributions.cpp): exponential_(1) on a copy (its "
     "logf/log: GpuOnly), self / q, then argmax (n_sample 1) or topk (ties inside the top n "
     "not modelled)", 0, false},
    {"native_dropout", "torch.ops.aten.native_dropout(input, p, train=True)", SHC_API_ATEN,
     "aten.native_dropout.default", SHC_RNGD_TRACKED, SHC_RNGP_REDISTRIBUTE, false,
     SHC_DTM_FLOATS, SHC_TORCH_DROPOUT, DISPATCH_SET "; _ops/_random_ops.py:42",
     "fused_dropout (Dropout.cu); accepts any p (no range check)", 0, false},
    {"dropout", "torch.nn.functional.dropout(input, p, training=True)", SHC_API_PYTHON,
     "aten.native_dropout.default", SHC_RNGD_TRACKED, SHC_RNGP_REDISTRIBUTE, false,
     SHC_DTM_FLOATS, SHC_TORCH_DROPOUT,
     "torch/nn/functional.py dropout (p in [0, 1] checked in Python), then on CUDA "
     "at::dropout -> native_dropout (Dropout.cpp is_fused_kernel_acceptable); " DISPATCH_SET,
     "fused_dropout (Dropout.cu)", 0, false},
    {"dtensor.rand", "torch.distributed.tensor.rand(size, device_mesh, placements)",
     SHC_API_DTENSOR, "aten.rand.default (local shape)", SHC_RNGD_TRACKED, SHC_RNGP_AS_REPLICA,
     false, SHC_DTM_FLOATS, SHC_TORCH_UNIFORM, "_api.py:1258-1271 (_dtensor_init_helper)",
     "torch.rand(local_shape) = uniform_kernel", 0, false},
    {"dtensor.randn", "torch.distributed.tensor.randn(size, device_mesh, placements)",
     SHC_API_DTENSOR, "aten.randn.default (local shape)", SHC_RNGD_TRACKED, SHC_RNGP_AS_REPLICA,
     false, SHC_DTM_FLOATS, SHC_TORCH_NORMAL, "_api.py:1258-1271 (_dtensor_init_helper)",
     "torch.randn(local_shape) = normal_kernel", 0, false},
    {"rand", "torch.rand(size)", SHC_API_PYTHON, "aten.rand.default", SHC_RNGD_LOCAL,
     SHC_RNGP_NONE, false, SHC_DTM_FLOATS, SHC_TORCH_UNIFORM,
     "in " DISPATCH_SET " but no DTensor argument reaches it", "uniform_kernel", 0, false},
    {"randn", "torch.randn(size)", SHC_API_PYTHON, "aten.randn.default", SHC_RNGD_LOCAL,
     SHC_RNGP_NONE, false, SHC_DTM_FLOATS, SHC_TORCH_NORMAL,
     "in " DISPATCH_SET " but no DTensor argument reaches it", "normal_kernel", 0, false},
    {"randint", "torch.randint(low, high, size)", SHC_API_PYTHON, "aten.randint.low",
     SHC_RNGD_LOCAL, SHC_RNGP_NONE, false, SHC_DTM_ALL, SHC_TORCH_RANDOM,
     "no DTensor argument", "random_from_to_kernel", 0, false},
    {"randperm", "torch.randperm(n)", SHC_API_PYTHON, "aten.randperm.default", SHC_RNGD_LOCAL,
     SHC_RNGP_NONE, false,
     SHC_DTM(SHC_DT_FLOAT32) | SHC_DTM(SHC_DT_FLOAT64) | SHC_DTM(SHC_DT_FLOAT16) | SHC_DTM_INTS,
     SHC_RNG_KERNEL_SAMPLE + SHC_TORCH_SAMPLE_RANDPERM, "no DTensor argument",
     "randperm_out_cuda (Randperm.cu): random_ keys (int32 when bits <= 32, else int64), "
     "stable radix sort on the low bits, island shuffle with philox_cuda_state(n) "
     "(Randperm.cuh); not bool/bfloat16", 0, false},
    {"poisson", "torch.poisson(rates)", SHC_API_PYTHON, "aten.poisson.default",
     SHC_RNGD_REJECTED, SHC_RNGP_NONE, false, SHC_DTM_FLOATS, -1, NO_STRATEGY,
     "_s_poisson_cuda (Distributions.cu)", 0, false},
};

#define NOPS (sizeof OPS / sizeof OPS[0])

/* Rows as other releases have them (the change's row in torch_release.c names the
 * releases and cites each one's lines), looked up by shc_rng_op_in. */
#define TC(c) (1u << (c))
static const shc_rng_op RELEASE_OPS[] = {
    {"multinomial", "torch.multinomial(input, n, replacement=True)", SHC_API_PYTHON,
     "aten.multinomial.default", SHC_RNGD_REJECTED, SHC_RNGP_NONE, true, SHC_DTM_FLOATS,
     SHC_RNG_KERNEL_SAMPLE + SHC_TORCH_SAMPLE_MULTINOMIAL,
     "2.11.0, 2.12.1: no strategy registered (2.13.0 _ops/_random_ops.py:56-81)",
     "as the pinned row", TC(SHC_TC_MULTINOMIAL_NO_STRATEGY), false},
    {"multinomial.noreplace", "torch.multinomial(input, n, replacement=False)",
     SHC_API_PYTHON, "aten.multinomial.default", SHC_RNGD_REJECTED, SHC_RNGP_NONE, true,
     SHC_DTM_FLOATS, SHC_RNG_KERNEL_SAMPLE + SHC_TORCH_SAMPLE_MULTINOMIAL,
     "2.11.0, 2.12.1: no strategy registered (2.13.0 _ops/_random_ops.py:56-81)",
     "as the pinned row", TC(SHC_TC_MULTINOMIAL_NO_STRATEGY), false},
    {"exponential_", "torch.Tensor.exponential_", SHC_API_PYTHON, "aten.exponential_.default",
     SHC_RNGD_REJECTED, SHC_RNGP_NONE, false, SHC_DTM_FLOATS, SHC_TORCH_EXPONENTIAL,
     "2.11.0: no strategy registered (2.12.1 _ops/_pointwise_ops.py:488)", "as the pinned row",
     TC(SHC_TC_EXPONENTIAL_NO_STRATEGY), false},
    {"log_normal_", "torch.Tensor.log_normal_", SHC_API_PYTHON, "aten.log_normal_.default",
     SHC_RNGD_UNTRACKED, SHC_RNGP_REJECT, false, SHC_DTM_FLOATS, SHC_TORCH_LOG_NORMAL,
     "2.11.0, 2.12.1: strategy from the decomposition (2.12.1 _decompositions.py:191-245, "
     "_ops/utils.py:597-606)", "as the pinned row", TC(SHC_TC_DECOMPOSED_RANDOM), true},
    {"geometric_", "torch.Tensor.geometric_", SHC_API_PYTHON, "aten.geometric_.default",
     SHC_RNGD_UNTRACKED, SHC_RNGP_REJECT, false, SHC_DTM_FLOATS | SHC_DTM_INTS,
     SHC_TORCH_GEOMETRIC,
     "2.11.0, 2.12.1: strategy from the decomposition (2.12.1 _decompositions.py:191-245, "
     "_ops/utils.py:597-606)", "as the pinned row", TC(SHC_TC_DECOMPOSED_RANDOM), true},
    {"cauchy_", "torch.Tensor.cauchy_", SHC_API_PYTHON, "aten.cauchy_.default",
     SHC_RNGD_UNTRACKED, SHC_RNGP_REJECT, false, SHC_DTM_FLOATS, SHC_TORCH_CAUCHY,
     "2.11.0, 2.12.1: strategy from the decomposition, no Partial input and only shardable "
     "layouts (2.12.1 _decompositions.py:191-245, _ops/utils.py:597-606)", "as the pinned row",
     TC(SHC_TC_DECOMPOSED_RANDOM), true},
};

const shc_rng_op *shc_rng_op_in(const shc_rng_op *op, shc_torch_release r)
{
    for (size_t i = 0; op && i < sizeof RELEASE_OPS / sizeof *RELEASE_OPS; i++) {
        const shc_rng_op *w = &RELEASE_OPS[i];
        if (strcmp(w->name, op->name))
            continue;
        for (int c = 0; c < SHC_TC_COUNT; c++)
            if ((w->torch_changes & TC(c)) && shc_torch_has(r, (shc_torch_change)c))
                return w;
    }
    return op;
}

const shc_rng_op *shc_rng_ops(size_t *n)
{
    *n = NOPS;
    return OPS;
}

const shc_rng_op *shc_rng_op_find(const char *name)
{
    for (size_t i = 0; name && i < NOPS; i++)
        if (!strcmp(OPS[i].name, name))
            return &OPS[i];
    return NULL;
}

const shc_rng_op *shc_rng_op_for_kernel(shc_torch_op k)
{
    static const char *const by_kernel[] = {
        [SHC_TORCH_UNIFORM] = "uniform_", [SHC_TORCH_NORMAL] = "normal_",
        [SHC_TORCH_RANDOM] = "random_", [SHC_TORCH_BERNOULLI] = "bernoulli_.float",
        [SHC_TORCH_DROPOUT] = "native_dropout", [SHC_TORCH_EXPONENTIAL] = "exponential_",
        [SHC_TORCH_LOG_NORMAL] = "log_normal_", [SHC_TORCH_GEOMETRIC] = "geometric_",
        [SHC_TORCH_CAUCHY] = "cauchy_"};
    _Static_assert(sizeof by_kernel / sizeof by_kernel[0] == SHC_TORCH_OP_COUNT,
                   "one random op per torch kernel");
    if ((unsigned)k >= SHC_TORCH_OP_COUNT)
        return NULL;
    assert(by_kernel[k]); /* no kernel left without its row */
    const shc_rng_op *op = shc_rng_op_find(by_kernel[k]);
    assert(op); /* and that row names an OPS entry */
    return op;
}

int shc_rng_op_parse(const char *name, const shc_rng_op **out, shc_err *e)
{
    if ((*out = shc_rng_op_find(name)))
        return SHC_OK;
    char names[1024] = "";
    for (size_t i = 0, k = 0; i < NOPS && k < sizeof names; i++)
        k += (size_t)snprintf(names + k, sizeof names - k, i ? " %s" : "%s", OPS[i].name);
    return shc_fail(e, SHC_EINVAL, "unknown random op '%.64s' (%s)", name ? name : "", names);
}

const char *shc_rng_dispatch_name(shc_rng_dispatch d)
{
    static const char *const n[] = {"tracked", "untracked", "rejected", "local"};
    _Static_assert(sizeof n / sizeof n[0] == SHC_RNGD_COUNT, "one name per shc_rng_dispatch");
    return (unsigned)d < SHC_RNGD_COUNT ? n[d] : "?";
}

int shc_rng_op_check(const shc_rng_op *op, const shc_placements *pl, shc_err *e)
{
    if (!op)
        return shc_fail(e, SHC_EINVAL, "random op: no op given");
    if (op->dispatch == SHC_RNGD_REJECTED)
        return shc_fail(e, SHC_EINVAL, "Operator %s does not have a sharding strategy registered.",
                        op->aten);
    bool partial = false;
    for (int i = 0; pl && i < pl->n; i++)
        partial |= pl->p[i].kind == SHC_P_PARTIAL;
    if (partial && op->partial == SHC_RNGP_REJECT) {
        char r[512];
        shc_placements_repr(pl, r, sizeof r);
        return shc_fail(e, SHC_EINVAL,
                        "%s: in-place operations that require placement changes are not "
                        "supported. The input has placement %s, but no valid strategy preserves "
                        "this placement. Please use the out-of-place version of this operation "
                        "instead.", op->aten, r);
    }
    return SHC_OK;
}

int shc_rng_op_check_layout(const shc_rng_op *op, const shc_mesh *m, const shc_placements *pl,
                            const shc_shape *shape, shc_err *e)
{
    int rc = shc_rng_op_check(op, pl, e);
    if (rc || !op->shardable_only)
        return rc;
    /* is_tensor_shardable (torch 2.12.1 _ops/utils.py:173-225): shards accumulate over mesh
     * dims in order; a tensor dim smaller than its shards (times split_factor) is not */
    int64_t shards[SHC_MAX_TENSOR_DIMS];
    for (int d = 0; d < SHC_MAX_TENSOR_DIMS; d++)
        shards[d] = 1;
    bool ok = true;
    for (int i = 0; i < pl->n && ok; i++) {
        const shc_placement *p = &pl->p[i];
        if (p->kind != SHC_P_SHARD && p->kind != SHC_P_STRIDED)
            continue;
        if (p->dim >= shape->ndim)
            break;
        shards[p->dim] *= m->shape[i];
        int64_t need = shards[p->dim] * (p->kind == SHC_P_STRIDED ? p->split_factor : 1);
        ok = shape->d[p->dim] >= need;
    }
    if (ok)
        return SHC_OK;
    char r[512];
    shc_placements_repr(pl, r, sizeof r);
    /* torch names the placement its cost model picks instead; on a 1-d mesh that is
     * Replicate, elsewhere it is not modelled */
    return shc_fail(e, SHC_EINVAL, "%s: in-place operations that require placement changes are "
                    "not supported. The operation would change placement from %s to %s, which "
                    "requires redistribution and breaks aliasing semantics. Please use the "
                    "out-of-place version of this operation instead.", op->aten, r,
                    pl->n == 1 ? "(Replicate(),)" : "another placement (torch's choice)");
}
