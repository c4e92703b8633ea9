/*
 * xdev.h — redistribute execution with device buffers: the device a rank's
 * tensors live on (shc_xdev: memory, copies, the kernels of redist_body.h), the
 * communicator that moves device buffers (shc_dcomm), and the executor
 * (redistribute_dev.c) that runs a plan's steps on them as redistribute_exec.c
 * runs them on host memory.  Internal (not in libshardcheck's API).
 *
 * Devices: the CPU grid emulator (xdev_emu.c: host memory, the kernel bodies run
 * for every (block, thread) of a launch with a chosen grid) and a CUDA GPU
 * (lib/cuda/redist_kernels.cu, built with --with-cuda).  Communicators: host-staged
 * (every collective copies the device buffers to host memory and runs a host
 * communicator: the local one of threads, or MPI; used when ranks share a GPU and
 * under emulation) and NCCL (lib/cuda/comm_nccl.cu, when every rank has a GPU).
 *
 * Tested by conformance/tests/check_redist_dev.c and, through the cuda backend
 * under SHARDCHECK_CUDA_EMULATE, by conformance/tests/run_cuda_redist.sh.
 */
#ifndef SHC_XDEV_H
#define SHC_XDEV_H
#include "shardcheck.h"
#include "comm.h"
#include "redist_body.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct shc_xdev shc_xdev;
typedef struct shc_xdev_ops {
    const char *name;
    /* bytes of device memory (contents undefined); bytes may be 0 */
    int (*alloc)(shc_xdev *d, size_t bytes, void **out, shc_err *e);
    void (*release)(shc_xdev *d, void *p);
    int (*upload)(shc_xdev *d, void *dst, const void *src, size_t bytes, shc_err *e);
    int (*download)(shc_xdev *d, void *dst, const void *src, size_t bytes, shc_err *e);
    /* launch a kernel (ordered after earlier launches and copies on this device) */
    int (*gather)(shc_xdev *d, const shc_rk_gather *k, shc_err *e);
    int (*swap)(shc_xdev *d, const shc_rk_swap *k, shc_err *e);
    void (*destroy)(shc_xdev *d);
} shc_xdev_ops;

struct shc_xdev {
    const shc_xdev_ops *ops;
    int index;          /* the GPU, or -1 for the emulator */
    void *impl;
};

/* The CPU grid emulator: launches of `grid` blocks of `block` threads (grid 0:
 * as many blocks as cover the output, as the CUDA launcher picks). */
int shc_xdev_emu_open(uint32_t grid, uint32_t block, shc_xdev **out, shc_err *e);

/* A communicator over device buffers: torch's collectives (see comm.h), with
 * send and recv in the device's memory. */
typedef struct shc_dcomm shc_dcomm;
typedef struct shc_dcomm_ops {
    const char *name;
    int (*all_gather)(shc_dcomm *c, const int64_t *group, int n, const void *send, size_t bytes,
                      void *recv, shc_err *e);
    int (*all_to_all)(shc_dcomm *c, const int64_t *group, int n, const void *send, size_t bytes,
                      void *recv, shc_err *e);
    int (*reduce_scatter)(shc_dcomm *c, const int64_t *group, int n, const void *send,
                          size_t count, void *recv, shc_dtype t, shc_redop op, shc_err *e);
    int (*all_reduce)(shc_dcomm *c, const int64_t *group, int n, void *buf, size_t count,
                      shc_dtype t, shc_redop op, shc_err *e);
    void (*destroy)(shc_dcomm *c);
} shc_dcomm_ops;

struct shc_dcomm {
    const shc_dcomm_ops *ops;
    shc_comm *host;     /* rank, size, and the host communicator (staging, NCCL bootstrap) */
    shc_xdev *dev;
    void *impl;
};

/* Host-staged: each collective downloads, runs host's collective, uploads. */
int shc_dcomm_staged_new(shc_comm *host, shc_xdev *dev, shc_dcomm **out, shc_err *e);

/* shc_exec_redistribute with the tensors on dc->dev: in is uploaded, every step runs
 * there (kernels for slicing and packing, dc for collectives), out is downloaded. */
int shc_dexec_redistribute(shc_dcomm *dc, const shc_xcase *x, const shc_xtensor *in,
                           shc_xtensor *out, shc_err *e);

/* Opens rank's device (called on the rank's own thread). */
typedef int (*shc_xdev_open_fn)(void *arg, int64_t rank, shc_xdev **out, shc_err *e);
typedef int (*shc_drank_fn)(shc_dcomm *dc, void *arg, shc_err *e);
/* shc_comm_local_run with each simulated rank on its own device, communicating
 * host-staged over the local communicator; errs as there. */
int shc_dexec_local_run(int64_t n, shc_xdev_open_fn open, void *open_arg, shc_drank_fn fn,
                        void *arg, shc_err *errs, shc_err *e);

#ifdef __cplusplus
}
#endif
#endif
