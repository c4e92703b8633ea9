/*
 * torch_rng_kernels.cu — PyTorch 2.13's CUDA random kernels (uniform, normal,
 * random_ with and without a range, bernoulli, dropout, exponential,
 * log_normal, geometric, cauchy; every dtype torch-cuda-rng covers) as CUDA
 * kernels.  Each thread runs the per-thread body of lib/rng/torch_rng_body.h,
 * the same source the CPU reference and the grid emulator run; the launches
 * (grid, unroll, offset increments, the 32-bit-index split) come from
 * shc_tk_plan with the profile read from the device's own cudaDeviceProp.
 *
 * The hot ops get kernels specialised at compile time (op, dtype and draw
 * fixed, so the body's switches fold away); the rest share one generic kernel.
 *
 * Checked on a GPU by rng_device_test.cu and `shardcheck run --backend cuda`;
 * without a GPU, by check_torch_grid (the bodies under the CPU grid emulator)
 * and by building this file with nvcc (configure --with-cuda).
 */
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
#include "shardcheck.h"
#include "torch_rng_body.h"
#include "torch_cuda_rng.h"
#include "shc_cuda.h"

/* distribution_elementwise_grid_stride_kernel / fused_dropout_kernel. */
__global__ void __launch_bounds__(SHC_TORCH_BLOCK) shc_tk_kernel_gs(shc_tk k, shc_tk_launch L)
{
    uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    shc_tk_thread_gs(&k, &L, t, 0, UINT64_MAX);
}

/* The same with op, dtype and draw known at compile time. */
template <int OP, int DT, int DRAW, int SIZE>
__global__ void __launch_bounds__(SHC_TORCH_BLOCK) shc_tk_kernel_gs_fixed(shc_tk k, shc_tk_launch L)
{
    k.op = OP;
    k.dtype = DT;
    k.draw = DRAW;
    k.size = SIZE;
    L.unroll = DRAW == SHC_TD_U01D2 || DRAW == SHC_TD_NORMD || DRAW == SHC_TD_RAW64 ? 2 : 4;
    uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    shc_tk_thread_gs(&k, &L, t, 0, UINT64_MAX);
}

/* fused_dropout_kernel_vec. */
__global__ void __launch_bounds__(SHC_TORCH_BLOCK) shc_tk_kernel_dropout_vec(shc_tk k, shc_tk_launch L)
{
    uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    shc_tk_thread_dropout_vec(&k, &L, t, 0, UINT64_MAX);
}

typedef void (*kernel_fn)(shc_tk, shc_tk_launch);

#define FIXED(O, T, D, SZ)                                                                         \
    if (k->op == SHC_TORCH_##O && k->dtype == SHC_DT_##T && k->draw == SHC_TD_##D)                 \
        return shc_tk_kernel_gs_fixed<SHC_TORCH_##O, SHC_DT_##T, SHC_TD_##D, SZ>;

/* The grid-stride kernel for k: a specialised one where there is, else the generic one. */
static kernel_fn pick_gs(const shc_tk *k)
{
    FIXED(UNIFORM, FLOAT32, U01F, 4)
    FIXED(UNIFORM, FLOAT16, U01F, 2)
    FIXED(UNIFORM, BFLOAT16, U01F, 2)
    FIXED(UNIFORM, FLOAT64, U01D2, 8)
    FIXED(NORMAL, FLOAT32, NORMF, 4)
    FIXED(NORMAL, FLOAT16, NORMF, 2)
    FIXED(NORMAL, BFLOAT16, NORMF, 2)
    FIXED(NORMAL, FLOAT64, NORMD, 8)
    FIXED(BERNOULLI, FLOAT32, U01F, 4)
    return shc_tk_kernel_gs;
}

struct device_window {
    int64_t start, end;
    uint8_t *dout, *dmask;
};

static int cuda_fail(cudaError_t err, const char *what, shc_err *e)
{
    return shc_fail(e, SHC_EINTERNAL, "CUDA: %s: %s", what, cudaGetErrorString(err));
}

/* One planned launch: the kernel torch would launch, writing the window only. */
static int on_launch(void *ctx, const shc_tk *k, const shc_tk_launch *plan, shc_err *e)
{
    const device_window *w = (const device_window *)ctx;
    shc_tk_launch L;
    if (!shc_tk_window(k, plan, w->start, w->end, w->dout, w->dmask, &L))
        return SHC_OK;
    cudaError_t err = cudaSuccess;
    if (L.kind == SHC_TK_ZEROS) { /* native_dropout with p == 1: no kernel, zeros */
        err = cudaMemset(L.out, 0, (size_t)(L.win1 - L.win0) * (size_t)k->size);
        if (err == cudaSuccess && L.mask)
            err = cudaMemset(L.mask, 0, (size_t)(L.win1 - L.win0));
        return err == cudaSuccess ? SHC_OK : cuda_fail(err, "cudaMemset", e);
    }
    if (L.kind == SHC_TK_DROPOUT_VEC)
        shc_tk_kernel_dropout_vec<<<L.grid, SHC_TORCH_BLOCK>>>(*k, L);
    else
        pick_gs(k)<<<L.grid, SHC_TORCH_BLOCK>>>(*k, L);
    err = cudaGetLastError();
    return err == cudaSuccess ? SHC_OK : cuda_fail(err, "kernel launch", e);
}

extern "C" int shc_cuda_torch_rng_fill_device(const shc_gpu_profile *g, uint64_t seed, int64_t offset,
                                              const shc_torch_rng_req *r, int64_t start, int64_t count,
                                              void *dout, uint8_t *dmask, int64_t *new_offset,
                                              shc_err *e)
{
    if (start < 0 || count < 0 || start > r->numel || count > r->numel - start)
        return shc_fail(e, SHC_EINVAL, "element range [%lld, +%lld) is outside the %lld elements",
                        (long long)start, (long long)count, (long long)r->numel);
    device_window w = {start, start + count, (uint8_t *)dout, dmask};
    return shc_tk_plan(g, seed, offset, r, count ? on_launch : NULL, &w, new_offset, e);
}

extern "C" int shc_cuda_probe(char *why, size_t n)
{
    int ndev = 0;
    cudaError_t err = cudaGetDeviceCount(&ndev);
    if (err != cudaSuccess) {
        snprintf(why, n, "no usable CUDA device: cudaGetDeviceCount: %s%s", cudaGetErrorString(err),
                 err == cudaErrorInsufficientDriver ? " (no NVIDIA driver here, or one older than "
                                                      "this CUDA runtime needs)" : "");
        return 0;
    }
    if (ndev <= 0)
        snprintf(why, n, "no CUDA device: cudaGetDeviceCount found 0");
    return ndev > 0 ? ndev : 0;
}

extern "C" int shc_cuda_profile(int dev, shc_gpu_profile *out, char *name, size_t name_n, shc_err *e)
{
    cudaDeviceProp p;
    cudaError_t err = cudaGetDeviceProperties(&p, dev);
    if (err != cudaSuccess)
        return cuda_fail(err, "cudaGetDeviceProperties", e);
    if (name)
        snprintf(name, name_n, "%s", p.name);
    /* the two fields torch's calc_execution_policy reads, as it reads them */
    return shc_gpu_profile_for_device(p.name, p.multiProcessorCount, p.maxThreadsPerMultiProcessor,
                                      p.major, p.minor, out, e);
}

/* Device buffers for a window, freed on every path. */
struct buffers {
    void *dout = nullptr;
    uint8_t *dmask = nullptr;
    ~buffers()
    {
        cudaFree(dout);
        cudaFree(dmask);
    }
};

extern "C" int shc_cuda_torch_rng_fill(int dev, uint64_t seed, int64_t offset, const shc_torch_rng_req *r,
                                       int64_t start, int64_t count, void *out, uint8_t *mask,
                                       int64_t *new_offset, shc_gpu_profile *used, shc_err *e)
{
    cudaError_t err = cudaSetDevice(dev);
    if (err != cudaSuccess)
        return cuda_fail(err, "cudaSetDevice", e);
    shc_gpu_profile g;
    int rc = shc_cuda_profile(dev, &g, NULL, 0, e);
    if (rc)
        return rc;
    if (used)
        *used = g;
    size_t bytes = (size_t)(count > 0 ? count : 1) * shc_dtype_size(r->dtype);
    buffers b;
    if ((err = cudaMalloc(&b.dout, bytes)) != cudaSuccess ||
        (mask && (err = cudaMalloc((void **)&b.dmask, (size_t)(count > 0 ? count : 1))) != cudaSuccess))
        return cuda_fail(err, "cudaMalloc", e);
    rc = shc_cuda_torch_rng_fill_device(&g, seed, offset, r, start, count, b.dout, b.dmask, new_offset, e);
    if (rc)
        return rc;
    if ((err = cudaDeviceSynchronize()) != cudaSuccess)
        return cuda_fail(err, "kernel", e);
    if (count && (err = cudaMemcpy(out, b.dout, bytes, cudaMemcpyDeviceToHost)) != cudaSuccess)
        return cuda_fail(err, "cudaMemcpy", e);
    if (count && mask && (err = cudaMemcpy(mask, b.dmask, (size_t)count, cudaMemcpyDeviceToHost)) != cudaSuccess)
        return cuda_fail(err, "cudaMemcpy", e);
    return SHC_OK;
}
