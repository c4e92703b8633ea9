/*
 * rng_device_test.cu — runs rng_kernels.cu on a GPU and compares with the
 * same computation on the host (the CPU reference's shared core) and with the
 * published torch.rand(4) values.  Exit 77 with the reason when no GPU.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include "philox_core.h"
#include "curand_stream.h"
#include "torch_cuda_rng.h"

__global__ void shc_philox_subseq_kernel(uint32_t, uint32_t, uint64_t, uint64_t, int, int64_t, uint32_t *);
__global__ void shc_torch_rand_f32_kernel(uint32_t, uint32_t, uint64_t, int64_t, float *);

int main()
{
    int ndev = 0;
    cudaError_t err = cudaGetDeviceCount(&ndev);
    if (err != cudaSuccess || ndev == 0) {
        printf("no CUDA device: %s\n", err != cudaSuccess ? cudaGetErrorString(err) : "0 devices");
        return 77;
    }
    const int64_t n = 1 << 16;
    uint32_t *d, *h = (uint32_t *)malloc(16 * n);
    cudaMalloc(&d, 16 * n);
    shc_philox_subseq_kernel<<<(n + 255) / 256, 256>>>(0xdeadbeef, 7, 5, 0, 10, n, d);
    cudaMemcpy(h, d, 16 * n, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int64_t i = 0; i < n; i++) {
        uint32_t c[4] = {5, 0, (uint32_t)i, 0}, k[2] = {0xdeadbeef, 7}, r[4];
        shc_philox4x32_core(c, k, 10, r);
        for (int w = 0; w < 4; w++)
            bad += h[w * n + i] != r[w];
    }
    float *df, hf[4];
    cudaMalloc(&df, 16);
    shc_torch_rand_f32_kernel<<<1, 256>>>(0, 0, 0, 4, df);
    cudaMemcpy(hf, df, 16, cudaMemcpyDeviceToHost);
    const float want[4] = {0.3990f, 0.5167f, 0.0249f, 0.9401f};
    for (int i = 0; i < 4; i++)
        bad += fabsf(hf[i] - want[i]) > 5e-5f;
    printf("%s: %d mismatches\n", bad ? "FAIL" : "ok", bad);
    return bad ? 1 : 0;
}
