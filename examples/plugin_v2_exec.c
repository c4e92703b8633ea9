/*
 * plugin_v2_exec.c — the example plugin's redistribute-data (ABI v2, shardcheck_backend.h):
 * its `execute`, and its own communicator table over MPI.  A vendor's template: copy it
 * and put your redistribute and your collectives library (HCCL, RCCL, NCCL, your MPI)
 * where these call libshardcheck and MPI.
 *
 *  - shc_example_execute: reads the case through the host (mesh, rankMap, src, dst,
 *    shape, dtype, planner, torch), and redistributes the rank's local tensor with
 *    libshardcheck's public executor (shc_exec_redistribute) over a shc_comm that
 *    forwards every collective to the shc_backend_comm it was given: the vendor's own,
 *    or shardcheck's.  A hole in that table is the error "communicator X has no
 *    all_to_all"; a failing entry's message is passed on with the communicator's name.
 *  - shc_example_comm_open / _close: "example-mpi", the collectives as MPI point to point
 *    on a duplicate of MPI_COMM_WORLD (reductions in group order with libshardcheck's
 *    kernel, as torch's LocalTensor reduces), built when the plugin is built with MPI
 *    (SHC_EXAMPLE_MPI); without MPI, or outside an MPI job, it supplies none and the
 *    runner uses its own.
 * SHARDCHECK_EXAMPLE_COMM plants communicator faults for the tests: none (no table:
 * the runner's is used), hole (all_to_all NULL), error (every collective fails), hang
 * (a collective never returns), corrupt (a byte of every received buffer flipped).
 * Tested by conformance/tests/plugin_comm.sh.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <shardcheck.h>
#include <shardcheck_backend.h>
#ifdef SHC_EXAMPLE_MPI
#include <mpi.h>
#endif

#include "plugin_v2_exec.h"

/* ---- a shc_comm forwarding to a shc_backend_comm ---- */

#define BC(c) ((const shc_backend_comm *)(c)->impl)

/* A missing entry, or the entry's error, as the executor's error. */
static int fwd_fail(shc_comm *c, const char *what, int rc, const char *why, shc_err *e)
{
    const char *name = BC(c)->name ? BC(c)->name : "(unnamed)";
    if (rc < 0)
        return shc_fail(e, SHC_EINVAL, "communicator %s has no %s", name, what);
    if (rc)
        return shc_fail(e, SHC_EIO, "communicator %s: %s: %s", name, what,
                        why[0] ? why : "failed (no message)");
    return SHC_OK;
}

#define FWD(c, what, entry, ...)                                                   \
    do {                                                                           \
        char why_[400] = "";                                                       \
        int rc_ = BC(c)->entry ? BC(c)->entry(BC(c), __VA_ARGS__, why_, sizeof why_) : -1; \
        return fwd_fail(c, what, rc_ && BC(c)->entry ? 1 : rc_, why_, e);           \
    } while (0)

static int f_all_gather(shc_comm *c, const int64_t *g, int n, const void *send, size_t bytes,
                        void *recv, shc_err *e)
{
    FWD(c, "all_gather", all_gather, g, n, send, bytes, recv);
}

static int f_all_gatherv(shc_comm *c, const int64_t *g, int n, const void *send,
                         const size_t *counts, void *recv, shc_err *e)
{
    FWD(c, "all_gatherv", all_gatherv, g, n, send, counts, recv);
}

static int f_all_to_all(shc_comm *c, const int64_t *g, int n, const void *send, size_t bytes,
                        void *recv, shc_err *e)
{
    FWD(c, "all_to_all", all_to_all, g, n, send, bytes, recv);
}

static int f_reduce_scatter(shc_comm *c, const int64_t *g, int n, const void *send,
                            size_t count, void *recv, shc_dtype t, shc_redop op, shc_err *e)
{
    FWD(c, "reduce_scatter", reduce_scatter, g, n, send, count, shc_dtype_name(t),
        shc_redop_name(op), recv);
}

static int f_all_reduce(shc_comm *c, const int64_t *g, int n, void *buf, size_t count,
                        shc_dtype t, shc_redop op, shc_err *e)
{
    FWD(c, "all_reduce", all_reduce, g, n, buf, count, shc_dtype_name(t), shc_redop_name(op));
}

static void f_destroy(shc_comm *c) { free(c->scratch); }

static const shc_comm_ops fwd_ops = {
    .name = "forward", .all_gather = f_all_gather, .all_gatherv = f_all_gatherv,
    .all_to_all = f_all_to_all, .reduce_scatter = f_reduce_scatter,
    .all_reduce = f_all_reduce, .destroy = f_destroy};

/* ---- execute ---- */

/* "2x3" or "0,1,2" from the case's integer array `key` (NULL when absent). */
static const char *joined(const shc_host_v2 *h, const shc_case_v2 *c, const char *key,
                          char sep, char *buf, size_t n)
{
    int64_t v[64];
    int64_t len = h->i64s(c, key, v, 64);
    if (len < 0 || len > 64)
        return NULL;
    size_t k = 0;
    buf[0] = '\0';
    for (int64_t i = 0; i < len && k < n; i++) {
        if (i)
            buf[k++] = sep;
        k += (size_t)snprintf(buf + k, n - k, "%lld", (long long)v[i]);
    }
    return k < n ? buf : NULL;
}

/* The case as libshardcheck's executor takes it. */
static int read_case(const shc_host_v2 *h, const shc_case_v2 *c, shc_xcase *x, shc_err *e)
{
    char mesh[256], shape[256], ranks[1024];
    const char *m = joined(h, c, "mesh", 'x', mesh, sizeof mesh);
    const char *s = joined(h, c, "shape", ',', shape, sizeof shape);
    const char *r = joined(h, c, "rankMap", ',', ranks, sizeof ranks);
    if (!m || !s)
        return shc_fail(e, SHC_EINVAL, "the case has no \"mesh\" or \"shape\"");
    int rc = shc_xcase_parse(x, m, r, h->str(c, "src"), h->str(c, "dst"), s,
                             h->str(c, "dtype"), h->str(c, "planner"), e);
    const char *torch = h->str(c, "torch");
    if (!rc && torch && *torch && (rc = shc_torch_release_parse(torch, &x->torch, e)))
        shc_xcase_free(x);
    return rc;
}

int shc_example_execute(void *self, const shc_host_v2 *host, const shc_case_v2 *c, int64_t rank,
                        const shc_backend_comm *comm, const shc_tensor_v2 *in,
                        shc_tensor_v2 *out, char *err, size_t errlen)
{
    (void)self;
    shc_err e = {0};
    shc_xcase x;
    int rc = read_case(host, c, &x, &e);
    if (rc) {
        snprintf(err, errlen, "%s", e.msg);
        return rc == SHC_EUNSUPPORTED ? SHC_BACKEND_UNSUPPORTED : 1;
    }
    shc_comm fc = {.ops = &fwd_ops, .rank = rank, .size = comm->world, .impl = (void *)comm};
    shc_xtensor xin = {.dtype = x.dtype, .data = in->data, .numel = 1}, xout = {0};
    xin.shape.ndim = in->ndim;
    for (int d = 0; d < in->ndim; d++)
        xin.numel *= (xin.shape.d[d] = in->shape[d]);
    rc = shc_exec_redistribute(&fc, &x, &xin, &xout, &e);
    f_destroy(&fc);
    shc_xcase_free(&x);
    if (rc) {
        snprintf(err, errlen, "%s", e.msg);
        return rc == SHC_EUNSUPPORTED ? SHC_BACKEND_UNSUPPORTED : 1;
    }
    out->dtype = in->dtype;
    out->ndim = xout.shape.ndim;
    memcpy(out->shape, xout.shape.d, sizeof(int64_t) * (size_t)xout.shape.ndim);
    out->data = xout.data; /* malloc'd: the runner frees it */
    return 0;
}

/* ---- the example's own communicator over MPI ---- */

/* Which fault SHARDCHECK_EXAMPLE_COMM plants ("" none). */
static const char *fault(void)
{
    const char *f = getenv("SHARDCHECK_EXAMPLE_COMM");
    return f ? f : "";
}

#ifdef SHC_EXAMPLE_MPI
#define TAG_COLL 7001
#define TAG_P2P 7002

typedef struct mpi_ctx {
    shc_backend_comm pub;
    MPI_Comm comm; /* a duplicate of MPI_COMM_WORLD: no message of the runner's is matched */
} mpi_ctx;

static MPI_Comm CM(const shc_backend_comm *c) { return ((mpi_ctx *)c->ctx)->comm; }

/* The caller's position in the group. */
static int pos_of(const shc_backend_comm *c, const int64_t *g, int n)
{
    for (int i = 0; i < n; i++)
        if (g[i] == c->rank)
            return i;
    return -1;
}

/* A planted fault, before the collective; 0 to go on. */
static int planted(char *err, size_t n)
{
    if (!strcmp(fault(), "error")) {
        snprintf(err, n, "example-mpi: injected failure (SHARDCHECK_EXAMPLE_COMM=error)");
        return 1;
    }
    if (!strcmp(fault(), "hang"))
        for (;;)
            sleep(1000);
    return 0;
}

static void corrupt(void *recv, size_t bytes)
{
    if (bytes && !strcmp(fault(), "corrupt"))
        ((unsigned char *)recv)[0] ^= 0x5a;
}

/* The exchange every collective here is: member j's send block goes to member i at
 * recv + roff[j] (sizes scnt/rcnt in bytes, offsets from sbase/rbase). */
static int exchange(const shc_backend_comm *c, const int64_t *g, int n, const char *send,
                    const size_t *soff, const size_t *scnt, char *recv, const size_t *roff,
                    const size_t *rcnt, char *err, size_t en)
{
    int me = pos_of(c, g, n);
    if (me < 0) {
        snprintf(err, en, "rank %lld is not in the group", (long long)c->rank);
        return 1;
    }
    MPI_Request *rq = malloc(sizeof *rq * 2 * (size_t)n);
    int k = 0, rc = 0;
    for (int j = 0; rq && j < n && !rc; j++) {
        if (scnt[j] > INT_MAX || rcnt[j] > INT_MAX) {
            snprintf(err, en, "a block of over %d bytes", INT_MAX);
            rc = 1;
        } else if (j == me) {
            memcpy(recv + roff[j], send + soff[j], scnt[j]);
        } else {
            MPI_Irecv(recv + roff[j], (int)rcnt[j], MPI_BYTE, (int)g[j], TAG_COLL, CM(c), &rq[k++]);
            MPI_Isend(send + soff[j], (int)scnt[j], MPI_BYTE, (int)g[j], TAG_COLL, CM(c),
                      &rq[k++]);
        }
    }
    if (!rq || (k && MPI_Waitall(k, rq, MPI_STATUSES_IGNORE) != MPI_SUCCESS)) {
        snprintf(err, en, "example-mpi: the exchange failed");
        rc = 1;
    }
    free(rq);
    return rc;
}

static int m_all_gatherv(const shc_backend_comm *c, const int64_t *g, int n, const void *send,
                         const size_t *counts, void *recv, char *err, size_t en)
{
    if (planted(err, en))
        return 1;
    int me = pos_of(c, g, n);
    size_t *z = calloc((size_t)n, sizeof *z), *sc = calloc((size_t)n, sizeof *sc),
           *ro = calloc((size_t)n, sizeof *ro);
    int rc = !z || !sc || !ro || me < 0;
    size_t off = 0;
    for (int j = 0; !rc && j < n; off += counts[j], j++) {
        sc[j] = counts[me];
        ro[j] = off;
    }
    rc = rc ? (snprintf(err, en, "example-mpi: bad group or out of memory"), 1)
            : exchange(c, g, n, send, z, sc, recv, ro, counts, err, en);
    free(z), free(sc), free(ro);
    if (!rc)
        corrupt(recv, off);
    return rc;
}

static int m_all_gather(const shc_backend_comm *c, const int64_t *g, int n, const void *send,
                        size_t bytes, void *recv, char *err, size_t en)
{
    size_t *counts = malloc(sizeof *counts * (size_t)n);
    for (int j = 0; counts && j < n; j++)
        counts[j] = bytes;
    int rc = counts ? m_all_gatherv(c, g, n, send, counts, recv, err, en) : 1;
    free(counts);
    return rc;
}

static int m_all_to_all(const shc_backend_comm *c, const int64_t *g, int n, const void *send,
                        size_t bytes, void *recv, char *err, size_t en)
{
    if (planted(err, en))
        return 1;
    size_t *off = malloc(sizeof *off * (size_t)n), *cnt = malloc(sizeof *cnt * (size_t)n);
    for (int j = 0; off && cnt && j < n; j++)
        off[j] = (size_t)j * bytes, cnt[j] = bytes;
    int rc = off && cnt ? exchange(c, g, n, send, off, cnt, recv, off, cnt, err, en) : 1;
    free(off), free(cnt);
    if (!rc)
        corrupt(recv, bytes);
    return rc;
}

/* The dtype and op by name; then acc = reduction over the n blocks of `count` elements
 * at all, in group order (torch's LocalTensor order), avg divided afterwards. */
static int reduce_blocks(const char *all, int n, size_t count, const char *dtype, const char *op,
                         void *acc, char *err, size_t en)
{
    shc_dtype t;
    shc_err e = {0};
    int r = -1;
    for (int i = 0; i < SHC_OP_COUNT; i++)
        if (!strcmp(op, shc_redop_name((shc_redop)i)))
            r = i;
    if (shc_dtype_parse(dtype, &t, &e) || r < 0) {
        snprintf(err, en, "example-mpi: dtype %s, op %s: %s", dtype, op,
                 r < 0 ? "unknown op" : e.msg);
        return 1;
    }
    size_t bytes = count * shc_dtype_size(t);
    memcpy(acc, all, bytes);
    for (int j = 1; j < n; j++)
        if (shc_reduce_into(acc, all + (size_t)j * bytes, count, t, (shc_redop)r, &e)) {
            snprintf(err, en, "example-mpi: %s", e.msg);
            return 1;
        }
    if (r == SHC_OP_AVG)
        shc_div_scalar(acc, count, t, n);
    return 0;
}

static int m_all_reduce(const shc_backend_comm *c, const int64_t *g, int n, void *buf,
                        size_t count, const char *dtype, const char *op, char *err, size_t en)
{
    shc_dtype t;
    shc_err e = {0};
    if (shc_dtype_parse(dtype, &t, &e)) {
        snprintf(err, en, "example-mpi: %s", e.msg);
        return 1;
    }
    size_t bytes = count * shc_dtype_size(t);
    char *all = malloc(bytes * (size_t)n + 1);
    int rc = all ? m_all_gather(c, g, n, buf, bytes, all, err, en) : 1;
    if (!rc)
        rc = reduce_blocks(all, n, count, dtype, op, buf, err, en);
    free(all);
    return rc;
}

static int m_reduce_scatter(const shc_backend_comm *c, const int64_t *g, int n,
                            const void *send, size_t count, const char *dtype, const char *op,
                            void *recv, char *err, size_t en)
{
    shc_dtype t;
    shc_err e = {0};
    if (shc_dtype_parse(dtype, &t, &e)) {
        snprintf(err, en, "example-mpi: %s", e.msg);
        return 1;
    }
    size_t bytes = count * shc_dtype_size(t);
    char *all = malloc(bytes * (size_t)n + 1); /* block j: member j's block for me */
    int rc = all ? m_all_to_all(c, g, n, send, bytes, all, err, en) : 1;
    if (!rc)
        rc = reduce_blocks(all, n, count, dtype, op, recv, err, en);
    free(all);
    return rc;
}

static int m_broadcast(const shc_backend_comm *c, const int64_t *g, int n, int root, void *buf,
                       size_t bytes, char *err, size_t en)
{
    if (planted(err, en))
        return 1;
    if (root < 0 || root >= n || bytes > INT_MAX) {
        snprintf(err, en, "example-mpi: broadcast: bad root or size");
        return 1;
    }
    int me = pos_of(c, g, n), rc = 0;
    if (me == root)
        for (int j = 0; j < n && !rc; j++)
            rc = j != me && MPI_Send(buf, (int)bytes, MPI_BYTE, (int)g[j], TAG_COLL, CM(c));
    else
        rc = MPI_Recv(buf, (int)bytes, MPI_BYTE, (int)g[root], TAG_COLL, CM(c),
                      MPI_STATUS_IGNORE) != MPI_SUCCESS;
    if (rc)
        snprintf(err, en, "example-mpi: broadcast failed");
    return rc;
}

static int m_send(const shc_backend_comm *c, int64_t peer, const void *buf, size_t bytes,
                  char *err, size_t en)
{
    if (planted(err, en))
        return 1;
    if (bytes > INT_MAX ||
        MPI_Send(buf, (int)bytes, MPI_BYTE, (int)peer, TAG_P2P, CM(c)) != MPI_SUCCESS) {
        snprintf(err, en, "example-mpi: send to %lld failed", (long long)peer);
        return 1;
    }
    return 0;
}

static int m_recv(const shc_backend_comm *c, int64_t peer, void *buf, size_t bytes, char *err,
                  size_t en)
{
    if (planted(err, en))
        return 1;
    if (bytes > INT_MAX || MPI_Recv(buf, (int)bytes, MPI_BYTE, (int)peer, TAG_P2P, CM(c),
                                    MPI_STATUS_IGNORE) != MPI_SUCCESS) {
        snprintf(err, en, "example-mpi: recv from %lld failed", (long long)peer);
        return 1;
    }
    corrupt(buf, bytes);
    return 0;
}
#endif /* SHC_EXAMPLE_MPI */

const shc_backend_comm *shc_example_comm_open(void *self, int64_t rank, int64_t world, char *err,
                                              size_t n)
{
    (void)self;
    if (!strcmp(fault(), "none"))
        return NULL; /* the runner's communicator is used */
#ifdef SHC_EXAMPLE_MPI
    int up = 0, size = 0;
    if (MPI_Initialized(&up) != MPI_SUCCESS || !up) {
        snprintf(err, n, "example-mpi: MPI is not initialised");
        return NULL;
    }
    mpi_ctx *m = calloc(1, sizeof *m);
    if (!m || MPI_Comm_dup(MPI_COMM_WORLD, &m->comm) != MPI_SUCCESS) {
        free(m);
        snprintf(err, n, "example-mpi: cannot duplicate MPI_COMM_WORLD");
        return NULL;
    }
    MPI_Comm_size(m->comm, &size);
    m->pub = (shc_backend_comm){
        .struct_size = sizeof(shc_backend_comm), .name = "example-mpi", .ctx = m,
        .rank = rank, .world = world, .all_gather = m_all_gather, .all_gatherv = m_all_gatherv,
        .all_to_all = m_all_to_all, .reduce_scatter = m_reduce_scatter,
        .all_reduce = m_all_reduce, .broadcast = m_broadcast, .send = m_send, .recv = m_recv};
    if (!strcmp(fault(), "hole"))
        m->pub.all_to_all = NULL;
    (void)size;
    return &m->pub;
#else
    (void)rank, (void)world;
    snprintf(err, n, "the example plugin was built without MPI: no communicator of its own");
    return NULL;
#endif
}

void shc_example_comm_close(void *self, const shc_backend_comm *comm)
{
    (void)self;
#ifdef SHC_EXAMPLE_MPI
    if (comm) {
        mpi_ctx *m = comm->ctx;
        MPI_Comm_free(&m->comm);
        free(m);
    }
#else
    (void)comm;
#endif
}
