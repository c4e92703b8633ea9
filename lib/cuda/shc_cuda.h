/*
 * shc_cuda.h — the CUDA side of shardcheck as seen from C: probing devices and
 * torch's random ops computed on a GPU by lib/cuda/torch_rng_kernels.cu (the
 * per-thread bodies of lib/rng/torch_rng_body.h, launched with the grid torch
 * computes from the device's own cudaDeviceProp).  Linked into the CLI only
 * when configured with CUDA (HAVE_CUDA); the installed library has no CUDA
 * dependency.  Used by tools/run/run_cuda.c (run --backend cuda) and
 * bench/bench_cuda.cu; checked on a GPU by lib/cuda/rng_device_test.cu.
 */
#ifndef SHC_CUDA_H
#define SHC_CUDA_H

#include <stddef.h>
#include <stdint.h>
#include "shardcheck.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Number of visible CUDA devices (> 0), or 0 with the reason in why (no driver,
 * no device, ...).  Initialises CUDA in the calling process. */
int shc_cuda_probe(char *why, size_t n);

/* Device dev's GPU profile, from its cudaDeviceProp (shc_gpu_profile_for_device),
 * and its name. */
int shc_cuda_profile(int dev, shc_gpu_profile *out, char *name, size_t name_n, shc_err *e);

/* shc_torch_rng_fill computed on device dev with the launches torch makes there
 * (the grid from dev's multiProcessorCount and maxThreadsPerMultiProcessor):
 * elements [start, start+count) copied to host memory out (and the dropout mask),
 * the generator offset afterwards in *new_offset, the profile used in *used. */
int shc_cuda_torch_rng_fill(int dev, uint64_t seed, int64_t offset, const shc_torch_rng_req *r,
                            int64_t start, int64_t count, void *out, uint8_t *mask,
                            int64_t *new_offset, shc_gpu_profile *used, shc_err *e);

/* The same into device memory (dout: count elements, dmask: NULL or count bytes)
 * on the current device, asynchronous on the default stream (the bench). */
int shc_cuda_torch_rng_fill_device(const shc_gpu_profile *g, uint64_t seed, int64_t offset,
                                   const shc_torch_rng_req *r, int64_t start, int64_t count,
                                   void *dout, uint8_t *dmask, int64_t *new_offset, shc_err *e);

/* Redistribute with device buffers (lib/exec/xdev.h): GPU dev as a redistribute
 * device (lib/cuda/redist_kernels.cu: the kernels of lib/exec/redist_body.h). */
struct shc_xdev;
struct shc_dcomm;
int shc_cuda_xdev_open(int dev, struct shc_xdev **out, shc_err *e);
/* A device communicator over NCCL (lib/cuda/comm_nccl.cu; libnccl.so.2 loaded at run
 * time), bootstrapped over host; SHC_EUNSUPPORTED with the reason where NCCL was not
 * built in or cannot be loaded. */
int shc_cuda_nccl_new(shc_comm *host, struct shc_xdev *dev, struct shc_dcomm **out, shc_err *e);

#ifdef __cplusplus
}
#endif

#endif
