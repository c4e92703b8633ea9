// sfu_scan.cu — every one of the 2^32 floats through MUFU.RCP (rcp.approx.ftz.f32) and MUFU.EX2
// (ex2.approx.ftz.f32) on this GPU, compared with lib/rng/cuda_sfu_rcp_ex2.c, which was fitted
// to four binades of EX2 and one of RCP (docs/cuda-math.md).
//
//   nvcc -O2 -arch=sm_90 -Xcompiler -fopenmp -I<dir with config.h> -Ilib/rng \
//        tools/gpu/sfu_scan.cu lib/rng/cuda_sfu_rcp_ex2.c -o sfu_scan   (gpu_lease.sh stages it)
//   sfu_scan [MAX_LISTED]
//
// Prints, per unit and input class (sign; zero, subnormal, normal by binade range, inf, nan),
// the inputs and mismatches, then up to MAX_LISTED (default 32) mismatches per unit as
// "unit IN GPU MODEL".  Exit 0 when both units match everywhere, 1 otherwise.  Needs a GPU:
// run by gpu_lease.sh only.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
extern "C" {
#include "cuda_sfu_rcp_ex2.h"
}

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "sfu_scan: %s: %s\n", #x, cudaGetErrorString(e_)); exit(2); } } while (0)

__global__ void k_scan(int op, uint64_t base, uint32_t n, uint32_t *d)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = __uint_as_float((uint32_t)(base + i)), r;
    if (op) asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    else asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    d[i] = __float_as_uint(r);
}

static float model(int op, uint32_t in)
{
    float x;
    memcpy(&x, &in, 4);
    return op ? shc_sfu_ex2_sm90(x) : shc_sfu_rcp_sm90(x);
}

static int klass(uint32_t h)   // 0 zero, 1 subnormal, 2 normal, 3 inf, 4 nan; +5 negative
{
    uint32_t e = (h >> 23) & 0xff, f = h & 0x7fffff, k;
    if (e == 0) k = f ? 1 : 0;
    else if (e == 0xff) k = f ? 4 : 3;
    else k = 2;
    return (int)k + (h >> 31 ? 5 : 0);
}

int main(int argc, char **argv)
{
    const int listed = argc > 1 ? atoi(argv[1]) : 32;
    static const char *const names[] = {"+zero", "+subnormal", "+normal", "+inf", "+nan",
                                        "-zero", "-subnormal", "-normal", "-inf", "-nan"};
    const uint32_t chunk = 1u << 28;
    uint32_t *d, *h = (uint32_t *)malloc(4ull * chunk);
    CK(cudaMalloc(&d, 4ull * chunk));
    long long total = 0;
    for (int op = 0; op < 2; op++) {
        long long count[10] = {0}, bad[10] = {0};
        int shown = 0;
        for (uint64_t base = 0; base < (1ull << 32); base += chunk) {
            k_scan<<<chunk / 256, 256>>>(op, base, chunk, d);
            CK(cudaDeviceSynchronize());
            CK(cudaMemcpy(h, d, 4ull * chunk, cudaMemcpyDeviceToHost));
            long long cb[10] = {0}, cc[10] = {0};
#pragma omp parallel for reduction(+ : cb[:10], cc[:10]) schedule(static)
            for (long long i = 0; i < (long long)chunk; i++) {
                uint32_t in = (uint32_t)(base + (uint64_t)i), m;
                float r = model(op, in);
                memcpy(&m, &r, 4);
                int k = klass(in);
                cc[k]++;
                if (h[i] != m) {
                    cb[k]++;
#pragma omp critical
                    if (shown < listed) {
                        shown++;
                        printf("mismatch %s %s %08x %08x %08x\n", op ? "ex2" : "rcp", names[k], in,
                               h[i], m);
                    }
                }
            }
            for (int k = 0; k < 10; k++) {
                count[k] += cc[k];
                bad[k] += cb[k];
            }
        }
        for (int k = 0; k < 10; k++) {
            printf("%s class %-10s inputs %11lld mismatches %11lld\n", op ? "ex2" : "rcp",
                   names[k], count[k], bad[k]);
            total += bad[k];
        }
    }
    printf("sfu_scan: %lld of 2 x 4294967296 floats differ from lib/rng/cuda_sfu_rcp_ex2.c\n",
           total);
    return total ? 1 : 0;
}
