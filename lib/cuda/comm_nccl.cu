/*
 * comm_nccl.cu — a device communicator (lib/exec/xdev.h) over NCCL, for the
 * cuda backend under mpirun when every rank has a GPU of its own.
 *
 * NCCL is loaded at run time (dlopen of libnccl.so.2: first from the directory
 * configure found it in — PyPI's nvidia-nccl-cu13 in the venv — then the system's
 * search path), so a shardcheck built with NCCL still runs where it is absent:
 * shc_cuda_nccl_new then fails with the reason and the backend stays on the
 * host-staged MPI communicator.  Built without nccl.h (configure found no NCCL),
 * this file only says so.
 *
 * One NCCL communicator per mesh sub-group, made on first use: the group's first
 * member calls ncclGetUniqueId, the id goes round the group over the host (MPI)
 * communicator, every member calls ncclCommInitRank, and the communicator is kept
 * for the run.  all_gather is ncclAllGather; all_to_all is one ncclSend/ncclRecv
 * pair per member in a group call.  Reductions are NOT NCCL's: NCCL's reduction
 * order (ring, tree, channels) is unspecified, while the golden bytes come from a
 * reduction in group order (torch's LocalTensor, comm_local.c); a float sum in
 * another order is another float.  So reduce_scatter moves the blocks with the
 * all_to_all above and all_reduce with the all_gather, and the n blocks are
 * reduced in group order on the host (shc_reduce_into, shc_div_scalar for avg,
 * as comm_local.c's reduce_block).
 *
 * Compiled in CI where nvcc and NCCL exist; never run without a GPU (no test can
 * reach it there): a GPU run under mpirun is `shardcheck run --backend cuda
 * --family redistribute-data` with as many ranks as GPUs (run_cuda_redist.sh).
 */
#include "config.h"
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <cuda_runtime.h>
#include "shardcheck.h"
#include "comm.h"
#include "xdev.h"
#include "shc_cuda.h"

#ifndef HAVE_NCCL
extern "C" int shc_cuda_nccl_new(shc_comm *host, shc_xdev *dev, shc_dcomm **out, shc_err *e)
{
    return shc_fail(e, SHC_EUNSUPPORTED, "this shardcheck was built without NCCL "
                    "(configure --with-nccl; PyPI's nvidia-nccl-cu13)");
}
#else
#include <nccl.h>

#ifndef SHC_NCCL_LIBDIR
#define SHC_NCCL_LIBDIR ""
#endif

/* The entry points used, resolved from the loaded library. */
static struct {
    void *lib;
    decltype(&ncclGetUniqueId) get_unique_id;
    decltype(&ncclCommInitRank) init_rank;
    decltype(&ncclCommDestroy) destroy;
    decltype(&ncclAllGather) all_gather;
    decltype(&ncclSend) send;
    decltype(&ncclRecv) recv;
    decltype(&ncclGroupStart) group_start;
    decltype(&ncclGroupEnd) group_end;
    decltype(&ncclGetErrorString) error_string;
} N;

static int load(shc_err *e)
{
    if (N.lib)
        return SHC_OK;
    char path[600];
    snprintf(path, sizeof path, "%s%slibnccl.so.2", SHC_NCCL_LIBDIR, *SHC_NCCL_LIBDIR ? "/" : "");
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return shc_fail(e, SHC_EUNSUPPORTED, "NCCL not loadable: %s", dlerror());
#define SYM(f, name)                                                                               \
    if (!(*(void **)&N.f = dlsym(lib, name))) {                                                    \
        dlclose(lib);                                                                              \
        return shc_fail(e, SHC_EUNSUPPORTED, "NCCL: no %s in the loaded library", name);           \
    }
    SYM(get_unique_id, "ncclGetUniqueId")
    SYM(init_rank, "ncclCommInitRank")
    SYM(destroy, "ncclCommDestroy")
    SYM(all_gather, "ncclAllGather")
    SYM(send, "ncclSend")
    SYM(recv, "ncclRecv")
    SYM(group_start, "ncclGroupStart")
    SYM(group_end, "ncclGroupEnd")
    SYM(error_string, "ncclGetErrorString")
#undef SYM
    N.lib = lib;
    return SHC_OK;
}

#define MAX_GROUPS 256

typedef struct gcomm {
    int n;
    int64_t *ranks;
    ncclComm_t comm;
} gcomm;

typedef struct nimpl {
    gcomm groups[MAX_GROUPS];
    int ngroups;
    cudaStream_t stream;
    void *host;      /* staging for the host-side reductions */
    size_t host_cap;
} nimpl;

static int nfail(ncclResult_t r, const char *what, shc_err *e)
{
    return shc_fail(e, SHC_EINTERNAL, "NCCL: %s: %s", what, N.error_string(r));
}

static int cfail(cudaError_t err, const char *what, shc_err *e)
{
    return shc_fail(e, SHC_EINTERNAL, "CUDA: %s: %s", what, cudaGetErrorString(err));
}

/* The NCCL communicator of this group (made on first use, collectively). */
static int group_comm(shc_dcomm *c, const int64_t *group, int n, ncclComm_t *out, shc_err *e)
{
    nimpl *m = (nimpl *)c->impl;
    for (int i = 0; i < m->ngroups; i++)
        if (m->groups[i].n == n && !memcmp(m->groups[i].ranks, group, (size_t)n * sizeof *group)) {
            *out = m->groups[i].comm;
            return SHC_OK;
        }
    if (m->ngroups == MAX_GROUPS)
        return shc_fail(e, SHC_EINTERNAL, "NCCL: more than %d sub-groups", MAX_GROUPS);
    int pos;
    int rc = shc_comm_group_pos(c->host, group, n, &pos, e);
    if (rc)
        return rc;
    /* the id and whether the first member got one: every member learns of a failure */
    struct { ncclUniqueId id; int ok; } mine, *all;
    memset(&mine, 0, sizeof mine);
    ncclResult_t r = pos == 0 ? N.get_unique_id(&mine.id) : ncclSuccess;
    mine.ok = r == ncclSuccess;
    if (!(all = (decltype(all))malloc((size_t)n * sizeof mine)))
        return shc_fail(e, SHC_ENOMEM, "out of memory");
    rc = c->host->ops->all_gather(c->host, group, n, &mine, sizeof mine, all, e);
    ncclUniqueId id = all[0].id;
    int ok = all[0].ok;
    free(all);
    if (rc)
        return rc;
    if (!ok)
        return r != ncclSuccess ? nfail(r, "ncclGetUniqueId", e)
                                : shc_fail(e, SHC_EINTERNAL, "NCCL: the group's first member "
                                           "could not make a unique id");
    gcomm g = {n, (int64_t *)malloc((size_t)n * sizeof *group), nullptr};
    if (!g.ranks)
        return shc_fail(e, SHC_ENOMEM, "out of memory");
    memcpy(g.ranks, group, (size_t)n * sizeof *group);
    if ((r = N.init_rank(&g.comm, n, id, pos)) != ncclSuccess) {
        free(g.ranks);
        return nfail(r, "ncclCommInitRank", e);
    }
    m->groups[m->ngroups++] = g;
    *out = g.comm;
    return SHC_OK;
}

/* Kernels before a collective are on the legacy default stream; NCCL runs on ours. */
static int before(shc_dcomm *c, shc_err *e)
{
    cudaError_t err = cudaSetDevice(c->dev->index);
    if (err == cudaSuccess)
        err = cudaStreamSynchronize(0);
    return err == cudaSuccess ? SHC_OK : cfail(err, "before a collective", e);
}

static int after(shc_dcomm *c, ncclResult_t r, const char *what, shc_err *e)
{
    if (r != ncclSuccess)
        return nfail(r, what, e);
    cudaError_t err = cudaStreamSynchronize(((nimpl *)c->impl)->stream);
    return err == cudaSuccess ? SHC_OK : cfail(err, what, e);
}

static int n_all_gather(shc_dcomm *c, const int64_t *group, int n, const void *send, size_t bytes,
                        void *recv, shc_err *e)
{
    ncclComm_t g;
    int rc = before(c, e);
    if (!rc)
        rc = group_comm(c, group, n, &g, e);
    return rc ? rc : after(c, N.all_gather(send, recv, bytes, ncclUint8, g, ((nimpl *)c->impl)->stream),
                           "ncclAllGather", e);
}

static int n_all_to_all(shc_dcomm *c, const int64_t *group, int n, const void *send, size_t bytes,
                        void *recv, shc_err *e)
{
    ncclComm_t g;
    int rc = before(c, e);
    if (!rc)
        rc = group_comm(c, group, n, &g, e);
    if (rc)
        return rc;
    cudaStream_t s = ((nimpl *)c->impl)->stream;
    ncclResult_t r = N.group_start();
    for (int j = 0; j < n && r == ncclSuccess; j++) {
        r = N.send((const char *)send + (size_t)j * bytes, bytes, ncclUint8, j, g, s);
        if (r == ncclSuccess)
            r = N.recv((char *)recv + (size_t)j * bytes, bytes, ncclUint8, j, g, s);
    }
    ncclResult_t r2 = N.group_end();
    return after(c, r != ncclSuccess ? r : r2, "all_to_all (ncclSend/ncclRecv)", e);
}

/* out (host) = the n blocks of count elements at dblocks reduced in group order. */
static int reduce_blocks(shc_dcomm *c, const void *dblocks, int n, size_t count, shc_dtype t,
                         shc_redop op, void *dout, shc_err *e)
{
    nimpl *m = (nimpl *)c->impl;
    size_t bb = count * shc_dtype_size(t), want = bb * (size_t)(n + 1) + 1;
    if (want > m->host_cap) {
        void *p = realloc(m->host, want);
        if (!p)
            return shc_fail(e, SHC_ENOMEM, "out of memory");
        m->host = p;
        m->host_cap = want;
    }
    char *blocks = (char *)m->host, *acc = blocks + bb * (size_t)n;
    int rc = c->dev->ops->download(c->dev, blocks, dblocks, bb * (size_t)n, e);
    if (rc)
        return rc;
    memcpy(acc, blocks, bb);
    for (int j = 1; j < n && !rc; j++)
        rc = shc_reduce_into(acc, blocks + (size_t)j * bb, count, t, op, e);
    if (!rc && op == SHC_OP_AVG)
        shc_div_scalar(acc, count, t, n);
    return rc ? rc : c->dev->ops->upload(c->dev, dout, acc, bb, e);
}

static int n_reduce_scatter(shc_dcomm *c, const int64_t *group, int n, const void *send,
                            size_t count, void *recv, shc_dtype t, shc_redop op, shc_err *e)
{
    size_t bb = count * shc_dtype_size(t);
    void *blocks = nullptr;
    int rc = c->dev->ops->alloc(c->dev, bb * (size_t)n, &blocks, e);
    if (!rc)
        rc = n_all_to_all(c, group, n, send, bb, blocks, e); /* block j: member j's part for us */
    if (!rc)
        rc = reduce_blocks(c, blocks, n, count, t, op, recv, e);
    c->dev->ops->release(c->dev, blocks);
    return rc;
}

static int n_all_reduce(shc_dcomm *c, const int64_t *group, int n, void *buf, size_t count,
                        shc_dtype t, shc_redop op, shc_err *e)
{
    size_t bb = count * shc_dtype_size(t);
    void *blocks = nullptr;
    int rc = c->dev->ops->alloc(c->dev, bb * (size_t)n, &blocks, e);
    if (!rc)
        rc = n_all_gather(c, group, n, buf, bb, blocks, e);
    if (!rc)
        rc = reduce_blocks(c, blocks, n, count, t, op, buf, e);
    c->dev->ops->release(c->dev, blocks);
    return rc;
}

static void n_destroy(shc_dcomm *c)
{
    nimpl *m = (nimpl *)c->impl;
    for (int i = 0; i < m->ngroups; i++) {
        N.destroy(m->groups[i].comm);
        free(m->groups[i].ranks);
    }
    cudaStreamDestroy(m->stream);
    free(m->host);
    free(m);
    free(c);
}

static const shc_dcomm_ops nccl_ops = {"nccl", n_all_gather, n_all_to_all, n_reduce_scatter,
                                       n_all_reduce, n_destroy};

extern "C" int shc_cuda_nccl_new(shc_comm *host, shc_xdev *dev, shc_dcomm **out, shc_err *e)
{
    int rc = load(e);
    if (rc)
        return rc;
    shc_dcomm *c = (shc_dcomm *)calloc(1, sizeof *c);
    nimpl *m = (nimpl *)calloc(1, sizeof *m);
    if (!c || !m) {
        free(c);
        free(m);
        return shc_fail(e, SHC_ENOMEM, "out of memory");
    }
    cudaError_t err = cudaSetDevice(dev->index);
    if (err == cudaSuccess)
        err = cudaStreamCreateWithFlags(&m->stream, cudaStreamNonBlocking);
    if (err != cudaSuccess) {
        free(c);
        free(m);
        return cfail(err, "cudaStreamCreate", e);
    }
    c->ops = &nccl_ops;
    c->host = host;
    c->dev = dev;
    c->impl = m;
    *out = c;
    return SHC_OK;
}
#endif
