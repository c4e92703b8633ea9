// record_cuda_math.cu — records, on any CUDA GPU, the tables shardcheck's CPU models of
// CUDA math are fitted to and checked against (docs/cuda-math.md):
//   1. special-function unit, exhaustive binades of 2^23 entries (raw uint32 output bits),
//      as shared/gpu/sfu/README.md describes them: lg2.approx.f32 on [0.5,1) and [1,2);
//      MUFU.SIN / MUFU.COS reached through sin.approx/cos.approx on t in [0.5,1), [0.25,0.5),
//      [2^-7,2^-6), with the reachability mask found_B.u8 (t = fmul_rz(a, 0x3e22f983) for some a);
//      rcp.approx.ftz.f64 (MUFU.RCP64H) on the high words of [1,2) and [2,4) (2^20 entries
//      each, rcp64h_3ff00000.raw and rcp64h_40000000.raw: libdevice log's m + 1 lies in
//      [1.707, 2.415)), which lib/rng/cuda_rcp64h.c models from 27 recorded float64 outputs
//      only (tools/gpu/rcp64h_compare.c compares the table with the model, issue 26);
//      ex2.approx.ftz.f32 (MUFU.EX2, behind __expf: float log_normal_) on [0.5,1), [1,2),
//      [-1,-0.5), [-2,-1) (ex2_B.raw) and rcp.approx.ftz.f32 (MUFU.RCP, behind __tanf's
//      division: float cauchy_) on [1,2) (rcp_3f800000.raw), which no model has yet;
//   2. libdevice vectors: the INPUT column of conformance/tests/data/libdevice/vectors.txt
//      through log, sincospi, logf, exp, log1p, tan and log1pf, written in the same format (compare
//      with diff).
// Usage: record_cuda_math OUTDIR [VECTORS.txt]   (tools/gpu/record_cuda_math.sh drives it)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "record_cuda_math: %s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

__device__ __forceinline__ float sin_approx(float a) { float r; asm("sin.approx.f32 %0, %1;" : "=f"(r) : "f"(a)); return r; }
__device__ __forceinline__ float cos_approx(float a) { float r; asm("cos.approx.f32 %0, %1;" : "=f"(r) : "f"(a)); return r; }
__device__ __forceinline__ float lg2_approx(float a) { float r; asm("lg2.approx.f32 %0, %1;" : "=f"(r) : "f"(a)); return r; }
__device__ __forceinline__ double rcp64h(double a) { double r; asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(a)); return r; }
__device__ __forceinline__ float ex2_approx(float a) { float r; asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(a)); return r; }
__device__ __forceinline__ float rcp_approx(float a) { float r; asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(a)); return r; }

// MUFU.EX2 (op 0) or MUFU.RCP (op 1) on the floats with bits base + i.
__global__ void k_f32(int op, uint32_t base, uint32_t n, uint32_t *d)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = __uint_as_float(base + i);
    d[i] = __float_as_uint(op ? rcp_approx(x) : ex2_approx(x));
}

__global__ void k_lg2(uint32_t base, uint32_t n, uint32_t *d)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) d[i] = __float_as_uint(lg2_approx(__uint_as_float(base + i)));
}

// MUFU cannot be issued directly: find a radian a with fmul_rz(a, C) == t (C = the float 1/2pi
// the SASS of sin.approx uses), as shared/gpu/sfu/record_sfu.cu does.
__global__ void k_sincos(uint32_t base, uint32_t n, uint32_t *ds, uint32_t *dc, uint8_t *ok)
{
    const float C = __uint_as_float(0x3e22f983u);
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float t = __uint_as_float(base + i), a = t / C;
    int found = 0;
    for (int k = -3; k <= 3 && !found; k++) {
        float b = __int_as_float(__float_as_int(t / C) + k);
        if (__fmul_rz(b, C) == t) { a = b; found = 1; }
    }
    ok[i] = (uint8_t)found;
    ds[i] = __float_as_uint(sin_approx(a));
    dc[i] = __float_as_uint(cos_approx(a));
}

__global__ void k_rcp64h(uint32_t base, uint32_t n, uint32_t *d)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double x = __hiloint2double((int)(base + i), 0x5a5a5a5a); // the low word is not read
    double r = rcp64h(x);
    d[i] = (uint32_t)__double2hiint(r);
    if (__double2loint(r) != 0) d[i] = 0xffffffffu; // the model assumes a zero low word
}

__global__ void k_vec(int n, const int *fn, const unsigned long long *in, unsigned long long *o1,
                      unsigned long long *o2)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double x = __longlong_as_double((long long)in[i]), s, c;
    switch (fn[i]) {
    case 0: o1[i] = (unsigned long long)__double_as_longlong(log(x)); break;
    case 1: sincospi(x, &s, &c); o1[i] = (unsigned long long)__double_as_longlong(s);
            o2[i] = (unsigned long long)__double_as_longlong(c); break;
    case 3: o1[i] = (unsigned long long)__double_as_longlong(exp(x)); break;
    case 4: o1[i] = (unsigned long long)__double_as_longlong(log1p(x)); break;
    case 5: o1[i] = (unsigned long long)__double_as_longlong(tan(x)); break;
    case 6: o1[i] = __float_as_uint(log1pf(__uint_as_float((uint32_t)in[i]))); break;
    default: o1[i] = __float_as_uint(logf(__uint_as_float((uint32_t)in[i]))); break;
    }
}

static void dump(const char *dir, const char *name, const void *dev, size_t bytes)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    void *h = malloc(bytes);
    CK(cudaMemcpy(h, dev, bytes, cudaMemcpyDeviceToHost));
    FILE *f = fopen(p, "wb");
    if (!f || fwrite(h, 1, bytes, f) != bytes) { fprintf(stderr, "record_cuda_math: cannot write %s\n", p); exit(1); }
    fclose(f);
    free(h);
}

static int vectors(const char *dir, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) { fprintf(stderr, "record_cuda_math: cannot open %s\n", path); return 1; }
    static char line[256], fname[32];
    int cap = 1 << 16, n = 0;
    int *fn = (int *)malloc(cap * sizeof(int));
    unsigned long long *in = (unsigned long long *)malloc(cap * 8);
    while (fgets(line, sizeof line, f) && n < cap) {
        unsigned long long x;
        if (line[0] == '#' || sscanf(line, "%31s %llx", fname, &x) != 2) continue;
        static const char *const names[] = {"log", "sincospi", "logf", "exp", "log1p", "tan",
                                            "log1pf"};
        fn[n] = -1;
        for (int k = 0; k < 7; k++)
            if (!strcmp(fname, names[k])) fn[n] = k;
        if (fn[n] < 0) { fprintf(stderr, "record_cuda_math: unknown function %s\n", fname); return 1; }
        in[n++] = x;
    }
    fclose(f);
    int *dfn; unsigned long long *din, *d1, *d2;
    CK(cudaMalloc(&dfn, n * sizeof(int))); CK(cudaMalloc(&din, n * 8ull));
    CK(cudaMalloc(&d1, n * 8ull)); CK(cudaMalloc(&d2, n * 8ull));
    CK(cudaMemcpy(dfn, fn, n * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(din, in, n * 8ull, cudaMemcpyHostToDevice));
    k_vec<<<(n + 255) / 256, 256>>>(n, dfn, din, d1, d2);
    CK(cudaDeviceSynchronize());
    unsigned long long *o1 = (unsigned long long *)malloc(n * 8ull), *o2 = (unsigned long long *)malloc(n * 8ull);
    CK(cudaMemcpy(o1, d1, n * 8ull, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(o2, d2, n * 8ull, cudaMemcpyDeviceToHost));
    char p[1024];
    snprintf(p, sizeof p, "%s/libdevice_gpu.txt", dir);
    FILE *o = fopen(p, "w");
    if (!o) { fprintf(stderr, "record_cuda_math: cannot write %s\n", p); return 1; }
    for (int i = 0; i < n; i++) {
        if (fn[i] == 0) fprintf(o, "log %016llx %016llx\n", in[i], o1[i]);
        else if (fn[i] == 1) fprintf(o, "sincospi %016llx %016llx %016llx\n", in[i], o1[i], o2[i]);
        else if (fn[i] == 3) fprintf(o, "exp %016llx %016llx\n", in[i], o1[i]);
        else if (fn[i] == 4) fprintf(o, "log1p %016llx %016llx\n", in[i], o1[i]);
        else if (fn[i] == 5) fprintf(o, "tan %016llx %016llx\n", in[i], o1[i]);
        else if (fn[i] == 6) fprintf(o, "log1pf %08llx %08llx\n", in[i], o1[i]);
        else fprintf(o, "logf %08llx %08llx\n", in[i], o1[i]);
    }
    fclose(o);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: record_cuda_math OUTDIR [VECTORS.txt]\n"); return 2; }
    const char *dir = argv[1];
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("record_cuda_math: %s (sm_%d%d)\n", prop.name, prop.major, prop.minor);
    const uint32_t n = 1u << 23;
    uint32_t *d1, *d2; uint8_t *ok;
    CK(cudaMalloc(&d1, 4ull * n)); CK(cudaMalloc(&d2, 4ull * n)); CK(cudaMalloc(&ok, n));
    char name[64];
    for (uint32_t base : {0x3f000000u, 0x3f800000u}) {
        k_lg2<<<n / 256, 256>>>(base, n, d1);
        CK(cudaDeviceSynchronize());
        snprintf(name, sizeof name, "lg2_%08x.raw", base);
        dump(dir, name, d1, 4ull * n);
    }
    for (uint32_t base : {0x3f000000u, 0x3e800000u, 0x3c000000u}) {
        k_sincos<<<n / 256, 256>>>(base, n, d1, d2, ok);
        CK(cudaDeviceSynchronize());
        snprintf(name, sizeof name, "sin_%08x.raw", base); dump(dir, name, d1, 4ull * n);
        snprintf(name, sizeof name, "cos_%08x.raw", base); dump(dir, name, d2, 4ull * n);
        snprintf(name, sizeof name, "found_%08x.u8", base); dump(dir, name, ok, n);
    }
    for (uint32_t base : {0x3ff00000u, 0x40000000u}) {
        k_rcp64h<<<(1u << 20) / 256, 256>>>(base, 1u << 20, d1);
        CK(cudaDeviceSynchronize());
        snprintf(name, sizeof name, "rcp64h_%08x.raw", base);
        dump(dir, name, d1, 4ull << 20);
    }
    for (uint32_t base : {0x3f000000u, 0x3f800000u, 0xbf000000u, 0xbf800000u}) {
        k_f32<<<n / 256, 256>>>(0, base, n, d1);
        CK(cudaDeviceSynchronize());
        snprintf(name, sizeof name, "ex2_%08x.raw", base);
        dump(dir, name, d1, 4ull * n);
    }
    k_f32<<<n / 256, 256>>>(1, 0x3f800000u, n, d1);
    CK(cudaDeviceSynchronize());
    dump(dir, "rcp_3f800000.raw", d1, 4ull * n);
    return argc > 2 ? vectors(dir, argv[2]) : 0;
}
