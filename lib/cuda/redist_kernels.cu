/*
 * redist_kernels.cu — a CUDA GPU as a redistribute device (lib/exec/xdev.h):
 * device memory from cudaMalloc, copies with cudaMemcpy, and the slicing and
 * (un)packing kernels, each thread running the per-thread body of
 * lib/exec/redist_body.h (the same source the CPU grid emulator runs in
 * make check), launched with SHC_RK_BLOCK threads per block and shc_rk_grid
 * blocks.
 *
 * Every call works on the calling thread's current device (set at open, and
 * again per call, since several simulated ranks of one process may use
 * different GPUs); kernels go to the legacy default stream, so the blocking
 * cudaMemcpy after them sees their result.
 *
 * Checked without a GPU by building it (configure --with-cuda) and by the bodies
 * under the emulator (check_redist_dev); on a GPU by `shardcheck run --backend
 * cuda --family redistribute-data` (conformance/tests/run_cuda_redist.sh).
 */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include "shardcheck.h"
#include "xdev.h"
#include "shc_cuda.h"

__global__ void __launch_bounds__(SHC_RK_BLOCK) shc_rk_kernel_gather(shc_rk_gather k)
{
    shc_rk_gather_thread(&k, (uint64_t)blockIdx.x * blockDim.x + threadIdx.x,
                         (uint64_t)gridDim.x * blockDim.x);
}

__global__ void __launch_bounds__(SHC_RK_BLOCK) shc_rk_kernel_swap(shc_rk_swap k)
{
    shc_rk_swap_thread(&k, (uint64_t)blockIdx.x * blockDim.x + threadIdx.x,
                       (uint64_t)gridDim.x * blockDim.x);
}

static int fail(cudaError_t err, const char *what, int dev, shc_err *e)
{
    return shc_fail(e, SHC_EINTERNAL, "CUDA on GPU %d: %s: %s", dev, what, cudaGetErrorString(err));
}

static int use(shc_xdev *d, shc_err *e)
{
    cudaError_t err = cudaSetDevice(d->index);
    return err == cudaSuccess ? SHC_OK : fail(err, "cudaSetDevice", d->index, e);
}

static int g_alloc(shc_xdev *d, size_t bytes, void **out, shc_err *e)
{
    *out = nullptr;
    int rc = use(d, e);
    cudaError_t err = rc ? cudaSuccess : cudaMalloc(out, bytes ? bytes : 1);
    return rc ? rc : err == cudaSuccess ? SHC_OK : fail(err, "cudaMalloc", d->index, e);
}

static void g_release(shc_xdev *d, void *p)
{
    if (p && cudaSetDevice(d->index) == cudaSuccess)
        cudaFree(p);
}

static int copy(shc_xdev *d, void *dst, const void *src, size_t bytes, cudaMemcpyKind kind, shc_err *e)
{
    int rc = use(d, e);
    if (rc || !bytes)
        return rc;
    cudaError_t err = cudaMemcpy(dst, src, bytes, kind);
    return err == cudaSuccess ? SHC_OK : fail(err, "cudaMemcpy", d->index, e);
}

static int g_upload(shc_xdev *d, void *dst, const void *src, size_t bytes, shc_err *e)
{
    return copy(d, dst, src, bytes, cudaMemcpyHostToDevice, e);
}

static int g_download(shc_xdev *d, void *dst, const void *src, size_t bytes, shc_err *e)
{
    return copy(d, dst, src, bytes, cudaMemcpyDeviceToHost, e);
}

static int launched(shc_xdev *d, shc_err *e)
{
    cudaError_t err = cudaGetLastError();
    return err == cudaSuccess ? SHC_OK : fail(err, "kernel launch", d->index, e);
}

static int g_gather(shc_xdev *d, const shc_rk_gather *k, shc_err *e)
{
    int64_t total = shc_rk_gather_total(k);
    int rc = use(d, e);
    if (rc || total == 0)
        return rc;
    shc_rk_kernel_gather<<<shc_rk_grid(total, SHC_RK_BLOCK), SHC_RK_BLOCK>>>(*k);
    return launched(d, e);
}

static int g_swap(shc_xdev *d, const shc_rk_swap *k, shc_err *e)
{
    int64_t total = shc_rk_swap_total(k);
    int rc = use(d, e);
    if (rc || total == 0)
        return rc;
    shc_rk_kernel_swap<<<shc_rk_grid(total, SHC_RK_BLOCK), SHC_RK_BLOCK>>>(*k);
    return launched(d, e);
}

static void g_destroy(shc_xdev *d) { free(d); }

static const shc_xdev_ops gpu_ops = {"cuda", g_alloc, g_release, g_upload, g_download,
                                     g_gather, g_swap, g_destroy};

extern "C" int shc_cuda_xdev_open(int dev, shc_xdev **out, shc_err *e)
{
    shc_xdev *d = (shc_xdev *)calloc(1, sizeof *d);
    if (!d)
        return shc_fail(e, SHC_ENOMEM, "out of memory");
    d->ops = &gpu_ops;
    d->index = dev;
    int rc = use(d, e);
    if (rc) {
        free(d);
        return rc;
    }
    *out = d;
    return SHC_OK;
}
