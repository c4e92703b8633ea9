/*
 * torch_cuda_sample.h — torch 2.13's CUDA random ops whose input is a tensor
 * or whose output is not elementwise: bernoulli with a tensor p
 * (torch.bernoulli(p), Tensor.bernoulli_(p)), multinomial with replacement
 * and randperm, emulated bit for bit on a CPU (torch_cuda_sample.c).  They
 * are apart from torch_cuda_rng.c because none of them goes through
 * distribution_nullary_kernel's grid-stride launch: each has its own launch,
 * its own philox_cuda_state increment and its own host-side checks.
 *
 * Internal to libshccore (the torch-cuda-rng family and the tests use it);
 * the elementwise kernels' public API is shc_torch_rng_fill in shardcheck.h.
 * Tested by conformance/tests/check_torch_sample.c.
 */
#ifndef SHC_TORCH_CUDA_SAMPLE_H
#define SHC_TORCH_CUDA_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>
#include "shardcheck.h"

typedef enum {
    SHC_TSAMPLE_BERNOULLI_P,  /* self.bernoulli_(p) / torch.bernoulli(p): self = empty_like(p) */
    SHC_TSAMPLE_MULTINOMIAL,  /* torch.multinomial(input, n, replacement) */
    SHC_TSAMPLE_RANDPERM,     /* torch.randperm(n, dtype) */
    SHC_TSAMPLE_COUNT
} shc_tsample_op;

/* Largest tensor a sampling op is emulated for: bernoulli's thread index and
 * linearIndex (CUDAApplyUtils.cuh) are 32-bit products that wrap beyond it. */
#define SHC_TSAMPLE_MAX_NUMEL (INT64_C(1) << 32)

typedef struct shc_tsample_req {
    shc_tsample_op op;
    shc_dtype dtype;    /* bernoulli: self (the output); multinomial: the input's; randperm: result */
    shc_dtype p_dtype;  /* bernoulli: the p tensor's dtype (torch rejects non-floating ones) */
    shc_shape shape;    /* bernoulli: self; multinomial: the input (1 or 2 dims) */
    shc_shape p_shape;  /* bernoulli: p's shape, broadcast to shape (expand_inplace) */
    const double *w;    /* bernoulli: p's values; multinomial: the input's; row-major */
    int64_t nw;         /* number of values in w (numel of p_shape / shape) */
    int64_t n;          /* multinomial: n_sample; randperm: n */
    bool replacement;   /* multinomial */
} shc_tsample_req;

/* Elements and dtype of the op's output (multinomial: int64, rows x n). Checks
 * nothing torch checks; SHC_EOVERFLOW if the count overflows. */
int shc_tsample_out(const shc_tsample_req *r, int64_t *numel, shc_dtype *dtype, shc_err *e);

/* Run the op at generator state (seed, offset) on GPU g: out gets the output
 * (shc_tsample_out elements; float16/bfloat16 as uint16 bits, bool as 0/1
 * bytes), *new_offset the generator offset afterwards.  A rejected input is
 * SHC_EINVAL with torch's message; inputs whose result torch does not fix on
 * the host (a device-side assert) or that we cannot reproduce exactly (a
 * reduction whose rounding depends on the GPU's order) are SHC_EUNSUPPORTED
 * saying why. */
int shc_tsample_run(const shc_gpu_profile *g, uint64_t seed, int64_t offset,
                    const shc_tsample_req *r, void *out, int64_t *new_offset, shc_err *e);

/* randperm's key width: ceil(log2(n - (6n^2 + 1) / (12 log 0.9))), at most 64
 * (Randperm.cu, note [Algorithm of randperm]). */
int shc_randperm_bits(int64_t n);

#endif
