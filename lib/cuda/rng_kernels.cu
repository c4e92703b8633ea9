/*
 * rng_kernels.cu — the random engines as CUDA kernels, sharing the CPU
 * reference's arithmetic (philox_core.h, curand_stream.h, torch_cuda_rng.h
 * are __host__ __device__ under nvcc).  Built by mk/rng.am with --with-cuda;
 * run by rng_device_test.cu where a GPU exists.
 */
#include <stdint.h>
#include "philox_core.h"
#include "curand_stream.h"
#include "torch_cuda_rng.h"

/* Philox4x32-R blocks for subsequences sub0 + i (counter lo = ctr_lo): SoA rows of n words. */
__global__ void shc_philox_subseq_kernel(uint32_t k0, uint32_t k1, uint64_t ctr_lo, uint64_t sub0,
                                         int rounds, int64_t n, uint32_t *out)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint64_t sub = sub0 + (uint64_t)i;
    uint32_t c[4] = {(uint32_t)ctr_lo, (uint32_t)(ctr_lo >> 32), (uint32_t)sub, (uint32_t)(sub >> 32)};
    uint32_t key[2] = {k0, k1}, r[4];
    shc_philox4x32_core(c, key, rounds, r);
    for (int w = 0; w < 4; w++)
        out[w * n + i] = r[w];
}

/* torch.rand(float32) as PyTorch 2.13's grid-stride kernel lays it out, with the
 * shared core: thread t, iteration k -> block (offset/4 + k, t), component ii ->
 * element k*stride*4 + ii*stride + t.  Launch with torch's grid and 256 threads. */
__global__ void shc_torch_rand_f32_kernel(uint32_t k0, uint32_t k1, uint64_t offset, int64_t numel,
                                          float *out)
{
    int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    int64_t stride = (int64_t)blockDim.x * gridDim.x;
    uint32_t key[2] = {k0, k1};
    for (int64_t k = 0, li = t; li < numel; k++, li += 4 * stride) {
        uint64_t lo = offset / 4 + (uint64_t)k;
        uint32_t c[4] = {(uint32_t)lo, (uint32_t)(lo >> 32), (uint32_t)t, (uint32_t)((uint64_t)t >> 32)};
        uint32_t r[4];
        shc_philox4x32_core(c, key, 10, r);
        for (int ii = 0; ii < 4; ii++) {
            int64_t el = li + ii * stride;
            if (el < numel) {
                float v = shc_curand_u01(r[ii]);
                out[el] = v == 1.0f ? 0.0f : v;
            }
        }
    }
}
