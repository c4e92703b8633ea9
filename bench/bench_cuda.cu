/*
 * bench_cuda.cu — on one GPU, in one run: shardcheck's torch uniform float32
 * and normal float32 fills (lib/cuda/torch_rng_kernels.cu, torch's launch
 * geometry for the device) in GB/s, against cuRAND's Philox generator
 * (curandGenerateUniform / curandGenerateNormal, libcurand loaded with dlopen
 * from the venv's nvidia/cu13) and the device's plain fill bandwidth
 * (cudaMemsetAsync).  Prints each figure and the ratios the issue sets as goals
 * (uniform >= cuRAND and >= 0.9 x fill).  torch.rand / torch.randn on the same
 * device are timed by tools/gpu (they need a CUDA torch, not the CPU wheel).
 * Exit 77 without a GPU.  Not run by make check (timings never are).
 */
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <cuda_runtime.h>
#include "shardcheck.h"
#include "shc_cuda.h"

#ifndef SHC_CURAND_LIBDIR
#define SHC_CURAND_LIBDIR ""
#endif

typedef int (*create_fn)(void **, int);
typedef int (*seed_fn)(void *, unsigned long long);
typedef int (*gen_fn)(void *, float *, size_t);
typedef int (*gen_normal_fn)(void *, float *, size_t, float, float);

static double gbps(size_t bytes, float ms) { return (double)bytes / (ms * 1e-3) / 1e9; }

/* Best of reps timings of f (ms). */
template <typename F> static float best(F f, int reps = 10)
{
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    f(); /* warm-up */
    float m = 1e30f;
    for (int i = 0; i < reps; i++) {
        cudaEventRecord(a);
        f();
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float t;
        cudaEventElapsedTime(&t, a, b);
        m = t < m ? t : m;
    }
    return m;
}

static float ours(const shc_gpu_profile &g, shc_torch_op op, int64_t n, float *d)
{
    shc_torch_rng_req r;
    shc_torch_rng_req_init(&r, op, SHC_DT_FLOAT32, n);
    shc_err e;
    return best([&] {
        if (shc_cuda_torch_rng_fill_device(&g, 1, 0, &r, 0, n, d, NULL, NULL, &e))
            fprintf(stderr, "bench_cuda: %s\n", e.msg);
    });
}

int main()
{
    char why[512];
    if (shc_cuda_probe(why, sizeof why) <= 0) {
        printf("%s\n", why);
        return 77;
    }
    shc_gpu_profile g;
    char name[256];
    shc_err e;
    if (shc_cuda_profile(0, &g, name, sizeof name, &e))
        return 1;
    const int64_t n = 1LL << 28; /* 1 GiB of float32 */
    size_t bytes = (size_t)n * 4;
    float *d;
    if (cudaMalloc(&d, bytes) != cudaSuccess)
        return 1;
    printf("%s (profile %s, %d SMs), %lld float32\n", name, g.name, g.sm_count, (long long)n);
    float t_fill = best([&] { cudaMemsetAsync(d, 0, bytes); });
    float t_uni = ours(g, SHC_TORCH_UNIFORM, n, d), t_nor = ours(g, SHC_TORCH_NORMAL, n, d);
    printf("fill                 %8.1f GB/s\n", gbps(bytes, t_fill));
    printf("shardcheck uniform   %8.1f GB/s  (%.2f x fill)\n", gbps(bytes, t_uni), t_fill / t_uni);
    printf("shardcheck normal    %8.1f GB/s\n", gbps(bytes, t_nor));
    char path[1024];
    snprintf(path, sizeof path, "%s/libcurand.so.10", SHC_CURAND_LIBDIR);
    void *h = dlopen(path, RTLD_NOW);
    if (!h) /* elsewhere (a GPU machine's torch wheels): the search path, LD_LIBRARY_PATH */
        h = dlopen("libcurand.so.10", RTLD_NOW);
    if (!h)
        h = dlopen("libcurand.so", RTLD_NOW);
    if (!h) {
        printf("cuRAND: not found (%s)\n", dlerror());
        return 0;
    }
    create_fn create = (create_fn)dlsym(h, "curandCreateGenerator");
    seed_fn seed = (seed_fn)dlsym(h, "curandSetPseudoRandomGeneratorSeed");
    gen_fn uni = (gen_fn)dlsym(h, "curandGenerateUniform");
    gen_normal_fn nor = (gen_normal_fn)dlsym(h, "curandGenerateNormal");
    void *gen = NULL;
    if (!create || !seed || !uni || !nor || create(&gen, 161 /* CURAND_RNG_PSEUDO_PHILOX4_32_10 */)) {
        printf("cuRAND: cannot create a Philox generator\n");
        return 0;
    }
    seed(gen, 1);
    float t_cu = best([&] { uni(gen, d, (size_t)n); });
    float t_cn = best([&] { nor(gen, d, (size_t)n, 0.0f, 1.0f); });
    printf("cuRAND Philox uniform%8.1f GB/s  (shardcheck %.2f x)\n", gbps(bytes, t_cu), t_cu / t_uni);
    printf("cuRAND Philox normal %8.1f GB/s  (shardcheck %.2f x)\n", gbps(bytes, t_cn), t_cn / t_nor);
    cudaFree(d);
    return 0;
}
