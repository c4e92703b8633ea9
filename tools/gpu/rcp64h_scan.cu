// rcp64h_scan.cu — every one of the 2^32 high words through MUFU.RCP64H (rcp.approx.ftz.f64)
// on this GPU, compared with lib/rng/cuda_rcp64h.c (docs/cuda-math.md "MUFU.RCP64H").
//
//   nvcc -O2 -arch=sm_90 -Xcompiler -fopenmp -I<dir with config.h> -Ilib/rng \
//        tools/gpu/rcp64h_scan.cu lib/rng/cuda_rcp64h.c -o rcp64h_scan   (gpu_lease.sh stages it)
//   rcp64h_scan [MAX_LISTED]
//
// The low word of each input is a hash of its high word (the unit is said to ignore it; the
// scan checks).  Prints one line per input class (sign, zero/denormal/normal/inf/nan) with the
// number of inputs, of mismatches with the model, and of nonzero low words in the answer, then
// up to MAX_LISTED (default 64) mismatches per class as "IN_HI IN_LO GPU_HI GPU_LO MODEL_HI".
// Exit 0 when every high word matches, 1 otherwise.  Needs a GPU: run by gpu_lease.sh only.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
extern "C" {
#include "cuda_rcp64h.h"
}

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "rcp64h_scan: %s: %s\n", #x, cudaGetErrorString(e_)); exit(2); } } while (0)

__host__ __device__ static inline uint32_t low_of(uint32_t h)
{
    uint32_t x = h * 0x9e3779b1u;   // any fixed scramble: the unit should not read it
    return x ^ (x >> 15);
}

__global__ void k_scan(uint64_t base, uint32_t n, unsigned long long *d)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t h = (uint32_t)(base + i);
    double x = __hiloint2double((int)h, (int)low_of(h)), r;
    asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
    d[i] = (unsigned long long)__double_as_longlong(r);
}

static int klass(uint32_t h)   // 0 zero, 1 denormal, 2 normal, 3 inf, 4 nan; +5 when negative
{
    uint32_t e = (h >> 20) & 0x7ff, f = h & 0xfffff, k;
    if (e == 0) k = f ? 1 : 0;
    else if (e == 0x7ff) k = f ? 4 : 3;
    else k = 2;
    return (int)k + (h >> 31 ? 5 : 0);
}

int main(int argc, char **argv)
{
    const int listed = argc > 1 ? atoi(argv[1]) : 64;
    static const char *const names[] = {"+zero", "+denormal", "+normal", "+inf", "+nan",
                                        "-zero", "-denormal", "-normal", "-inf", "-nan"};
    long long count[10] = {0}, bad[10] = {0}, lowword[10] = {0};
    int shown[10] = {0};
    const uint32_t chunk = 1u << 28;
    unsigned long long *d, *h = (unsigned long long *)malloc(8ull * chunk);
    CK(cudaMalloc(&d, 8ull * chunk));
    for (uint64_t base = 0; base < (1ull << 32); base += chunk) {
        k_scan<<<chunk / 256, 256>>>(base, chunk, d);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(h, d, 8ull * chunk, cudaMemcpyDeviceToHost));
        long long cb[10] = {0}, cc[10] = {0}, cl[10] = {0};
#pragma omp parallel for reduction(+ : cb[:10], cc[:10], cl[:10]) schedule(static)
        for (long long i = 0; i < (long long)chunk; i++) {
            uint32_t in = (uint32_t)(base + (uint64_t)i);
            uint64_t u = (uint64_t)in << 32 | low_of(in), m;
            double x;
            memcpy(&x, &u, 8);
            double r = shc_cuda_rcp_approx_ftz_d(x);
            memcpy(&m, &r, 8);
            int k = klass(in);
            cc[k]++;
            cl[k] += (h[i] & 0xffffffffull) != 0;
            if ((uint32_t)(h[i] >> 32) != (uint32_t)(m >> 32)) {
                cb[k]++;
#pragma omp critical
                if (shown[k] < listed) {
                    shown[k]++;
                    printf("mismatch %s %08x %08x %08x %08x %08x\n", names[k], in, low_of(in),
                           (uint32_t)(h[i] >> 32), (uint32_t)h[i], (uint32_t)(m >> 32));
                }
            }
        }
        for (int k = 0; k < 10; k++) {
            count[k] += cc[k];
            bad[k] += cb[k];
            lowword[k] += cl[k];
        }
    }
    long long total = 0;
    for (int k = 0; k < 10; k++) {
        printf("class %-9s inputs %11lld mismatches %11lld nonzero-low-words %lld\n", names[k],
               count[k], bad[k], lowword[k]);
        total += bad[k];
    }
    printf("rcp64h_scan: %lld of 4294967296 high words differ from lib/rng/cuda_rcp64h.c\n", total);
    return total ? 1 : 0;
}
