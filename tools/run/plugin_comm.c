/*
 * plugin_comm.c — redistribute-data on an ABI v2 plugin: shardcheck's communicator as
 * the plugin's table of collectives, one rank's case through the plugin's execute, and
 * the guard that makes a hung vendor collective a Timeout.  See plugin_comm.h.
 * Tested by conformance/tests/plugin_comm.sh (every entry of the table reached through
 * the example plugin, in one process and under mpirun, with faults) and
 * conformance/tests/check_plugin_comm.c (the wrapper's entries over local threads).
 */
#include "config.h"
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "plugin_comm.h"
#include "checked_math.h"

/* ---- a mailbox: point to point between the ranks one process runs as threads ---- */

typedef struct letter {
    int64_t from, to;
    size_t bytes;
    struct letter *next;
    char data[];
} letter;

struct plugin_mailbox {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int64_t first, count;
    bool *left;            /* count entries: that rank's execute returned */
    letter *head;
    double timeout_s;
};

plugin_mailbox *plugin_mailbox_new(int64_t first, int64_t count, double timeout_s)
{
    plugin_mailbox *mb = calloc(1, sizeof *mb);
    if (!mb || !(mb->left = calloc((size_t)(count > 0 ? count : 1), sizeof *mb->left))) {
        free(mb);
        return NULL;
    }
    pthread_mutex_init(&mb->mu, NULL);
    pthread_cond_init(&mb->cv, NULL);
    mb->first = first;
    mb->count = count;
    mb->timeout_s = timeout_s > 0 ? timeout_s : 3600;
    return mb;
}

void plugin_mailbox_free(plugin_mailbox *mb)
{
    if (!mb)
        return;
    for (letter *l = mb->head, *nx; l; l = nx) {
        nx = l->next;
        free(l);
    }
    pthread_mutex_destroy(&mb->mu);
    pthread_cond_destroy(&mb->cv);
    free(mb->left);
    free(mb);
}

const char *plugin_comm_release(const run_opts *o)
{
    return shc_torch_release_get(shc_torch_norm(o->torch))->patch;
}

static bool mb_hosts(const plugin_mailbox *mb, int64_t r)
{
    return mb && r >= mb->first && r < mb->first + mb->count;
}

void plugin_mailbox_leave(plugin_mailbox *mb, int64_t rank)
{
    if (!mb_hosts(mb, rank))
        return;
    pthread_mutex_lock(&mb->mu);
    mb->left[rank - mb->first] = true;
    pthread_cond_broadcast(&mb->cv);
    pthread_mutex_unlock(&mb->mu);
}

/* Buffered: a send never waits for its recv (so exchanges in any order cannot deadlock). */
static int mb_send(plugin_mailbox *mb, int64_t from, int64_t to, const void *buf, size_t bytes)
{
    letter *l = malloc(sizeof *l + bytes);
    if (!l)
        return -1;
    *l = (letter){from, to, bytes, NULL};
    memcpy(l->data, buf, bytes);
    pthread_mutex_lock(&mb->mu);
    letter **p = &mb->head;
    while (*p)
        p = &(*p)->next;
    *p = l;
    pthread_cond_broadcast(&mb->cv);
    pthread_mutex_unlock(&mb->mu);
    return 0;
}

/* The oldest letter from -> to, in arrival order; its size must be `bytes`. */
static int mb_recv(plugin_mailbox *mb, int64_t from, int64_t to, void *buf, size_t bytes,
                   char *err, size_t n)
{
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += (time_t)mb->timeout_s;
    int rc = 0;
    pthread_mutex_lock(&mb->mu);
    for (;;) {
        letter **p = &mb->head;
        while (*p && ((*p)->from != from || (*p)->to != to))
            p = &(*p)->next;
        if (*p) {
            letter *l = *p;
            *p = l->next;
            if (l->bytes != bytes)
                rc = snprintf(err, n, "recv from rank %lld: %zu bytes sent, %zu expected",
                              (long long)from, l->bytes, bytes) * 0 - 1;
            else
                memcpy(buf, l->data, bytes);
            free(l);
            break;
        }
        if (mb->left[from - mb->first]) {
            snprintf(err, n, "recv from rank %lld: it returned without sending", (long long)from);
            rc = -1;
            break;
        }
        if (pthread_cond_timedwait(&mb->cv, &mb->mu, &dl) == ETIMEDOUT) {
            snprintf(err, n, "timeout: recv from rank %lld: nothing sent within %.0f s",
                     (long long)from, mb->timeout_s);
            rc = -2;
            break;
        }
    }
    pthread_mutex_unlock(&mb->mu);
    return rc;
}

/* ---- shardcheck's communicator as a shc_backend_comm ---- */

static plugin_bcomm *B(const shc_backend_comm *c) { return c->ctx; }

/* An entry's result: 0, or the error in err (named by the communicator and the entry)
 * and remembered, so the case fails with it whatever the plugin makes of it. */
static int done(const shc_backend_comm *c, const char *what, int rc, const char *why,
                char *err, size_t n)
{
    if (!rc)
        return 0;
    plugin_bcomm *b = B(c);
    snprintf(err, n, "communicator %s: %s: %s", b->name, what, why);
    if (!b->failure[0]) {
        snprintf(b->failure, sizeof b->failure, "%s", err);
        b->timed_out = strstr(why, "timeout") != NULL;
    }
    return -1;
}

#define CALL(c, what, expr, err, n)                                        \
    do {                                                                   \
        shc_err e_ = {0};                                                  \
        int rc_ = (expr);                                                  \
        return done(c, what, rc_, e_.msg, err, n);                         \
    } while (0)
#define SC(c) (B(c)->sc)

static int b_all_gather(const shc_backend_comm *c, const int64_t *g, int n, const void *send,
                        size_t bytes, void *recv, char *err, size_t en)
{
    CALL(c, "all_gather", SC(c)->ops->all_gather(SC(c), g, n, send, bytes, recv, &e_), err, en);
}

static int b_all_gatherv(const shc_backend_comm *c, const int64_t *g, int n, const void *send,
                         const size_t *counts, void *recv, char *err, size_t en)
{
    CALL(c, "all_gatherv", SC(c)->ops->all_gatherv(SC(c), g, n, send, counts, recv, &e_), err,
         en);
}

static int b_all_to_all(const shc_backend_comm *c, const int64_t *g, int n, const void *send,
                        size_t bytes, void *recv, char *err, size_t en)
{
    CALL(c, "all_to_all", SC(c)->ops->all_to_all(SC(c), g, n, send, bytes, recv, &e_), err, en);
}

/* A c10d reduce-op name ("sum", "avg", ...) and a dtype name. */
static int parse_red(const char *dtype, const char *op, shc_dtype *t, shc_redop *r, shc_err *e)
{
    if (shc_dtype_parse(dtype ? dtype : "(null)", t, e))
        return SHC_EINVAL;
    for (int i = 0; i < SHC_OP_COUNT; i++)
        if (op && !strcmp(op, shc_redop_name((shc_redop)i))) {
            *r = (shc_redop)i;
            return SHC_OK;
        }
    return shc_fail(e, SHC_EINVAL, "unknown reduce op \"%s\"", op ? op : "(null)");
}

static int b_reduce_scatter(const shc_backend_comm *c, const int64_t *g, int n, const void *send,
                            size_t count, const char *dtype, const char *op, void *recv,
                            char *err, size_t en)
{
    shc_dtype t;
    shc_redop r;
    CALL(c, "reduce_scatter", parse_red(dtype, op, &t, &r, &e_) ? SHC_EINVAL
         : SC(c)->ops->reduce_scatter(SC(c), g, n, send, count, recv, t, r, &e_), err, en);
}

static int b_all_reduce(const shc_backend_comm *c, const int64_t *g, int n, void *buf,
                        size_t count, const char *dtype, const char *op, char *err, size_t en)
{
    shc_dtype t;
    shc_redop r;
    CALL(c, "all_reduce", parse_red(dtype, op, &t, &r, &e_) ? SHC_EINVAL
         : SC(c)->ops->all_reduce(SC(c), g, n, buf, count, t, r, &e_), err, en);
}

/* An all_gatherv in which only the root contributes: recv is the root's bytes. */
static int gather_from(shc_comm *sc, const int64_t *g, int n, int root, void *buf,
                       size_t bytes, shc_err *e)
{
    if (root < 0 || root >= n)
        return shc_fail(e, SHC_EINVAL, "root %d outside the %d-member group", root, n);
    size_t *counts = calloc((size_t)n, sizeof *counts);
    void *tmp = malloc(bytes ? bytes : 1);
    int rc = counts && tmp ? SHC_OK : shc_fail(e, SHC_ENOMEM, "out of memory");
    if (!rc) {
        counts[root] = bytes;
        rc = sc->ops->all_gatherv(sc, g, n, buf, counts, tmp, e);
    }
    if (!rc)
        memcpy(buf, tmp, bytes);
    free(counts);
    free(tmp);
    return rc;
}

static int b_broadcast(const shc_backend_comm *c, const int64_t *g, int n, int root, void *buf,
                       size_t bytes, char *err, size_t en)
{
    CALL(c, "broadcast", gather_from(SC(c), g, n, root, buf, bytes, &e_), err, en);
}

/* Point to point: through the mailbox inside this process; to another process, as the
 * pair's all_gatherv (lower rank first, the sender contributing), which a recv there
 * matches. */
static int p2p(const shc_backend_comm *c, const char *what, int64_t peer, bool sending,
               void *buf, size_t bytes, char *err, size_t en)
{
    plugin_bcomm *b = B(c);
    int64_t me = b->sc->rank;
    char why[400] = "";
    int rc = 0;
    if (peer < 0 || peer >= b->sc->size) {
        snprintf(why, sizeof why, "peer %lld outside the %lld ranks", (long long)peer,
                 (long long)b->sc->size);
        rc = -1;
    } else if (mb_hosts(b->mb, peer)) {
        rc = sending ? mb_send(b->mb, me, peer, buf, bytes)
                     : mb_recv(b->mb, peer, me, buf, bytes, why, sizeof why);
        if (rc == -2 || (rc && !why[0]))
            snprintf(why + strlen(why), sizeof why - strlen(why), "%s",
                     rc == -2 ? "" : "out of memory");
    } else if (b->pairs && peer != me) {
        int64_t g[2] = {me < peer ? me : peer, me < peer ? peer : me};
        shc_err e = {0};
        rc = gather_from(b->sc, g, 2, (g[0] == me) == sending ? 0 : 1, buf, bytes, &e);
        snprintf(why, sizeof why, "%.390s", e.msg);
    } else {
        snprintf(why, sizeof why, "rank %lld is in another process, and shardcheck's hosted "
                 "communicator has no point to point between processes", (long long)peer);
        rc = -1;
    }
    return done(c, what, rc, why, err, en);
}

static int b_send(const shc_backend_comm *c, int64_t peer, const void *buf, size_t bytes,
                  char *err, size_t en)
{
    return p2p(c, "send", peer, true, (void *)buf, bytes, err, en);
}

static int b_recv(const shc_backend_comm *c, int64_t peer, void *buf, size_t bytes, char *err,
                  size_t en)
{
    return p2p(c, "recv", peer, false, buf, bytes, err, en);
}

void plugin_bcomm_init(plugin_bcomm *b, shc_comm *sc, plugin_mailbox *mb, bool pairs)
{
    memset(b, 0, sizeof *b);
    snprintf(b->name, sizeof b->name, "shardcheck-%s", sc->ops->name ? sc->ops->name : "comm");
    b->sc = sc;
    b->mb = mb;
    b->pairs = pairs;
    b->pub = (shc_backend_comm){
        .struct_size = sizeof(shc_backend_comm), .name = b->name, .ctx = b,
        .rank = sc->rank, .world = sc->size, .all_gather = b_all_gather,
        .all_gatherv = b_all_gatherv, .all_to_all = b_all_to_all,
        .reduce_scatter = b_reduce_scatter, .all_reduce = b_all_reduce,
        .broadcast = b_broadcast, .send = b_send, .recv = b_recv};
}

/* ---- one rank's case ---- */

/* What the family's exec.outside hook passes back to xexec for one rank. */
typedef struct rank_job {
    const plugin_seam *s;
    const shc_case_v2 *c;
    const shc_backend_comm *comm;
    plugin_bcomm *ours;       /* comm is shardcheck's: its remembered failure */
    bool unsupported;         /* the plugin said SHC_BACKEND_UNSUPPORTED */
    bool refused;             /* ... or another error (err) */
    char err[512];
} rank_job;

/* The plugin's output as the rank's result: its dtype and rank must be the case's, its
 * shape non-negative. */
static int take_output(const shc_xcase *x, int64_t rank, shc_tensor_v2 *po, shc_xtensor *out,
                       shc_err *e)
{
    const char *dt = shc_dtype_name(x->dtype);
    memset(out, 0, sizeof *out);
    out->dtype = x->dtype;
    if (po->dtype && strcmp(po->dtype, dt))
        return shc_fail(e, SHC_EINVAL, "execute returned a %s tensor, the case's dtype is %s",
                        po->dtype, dt);
    if (po->ndim != x->shape.ndim)
        return shc_fail(e, SHC_EINVAL, "execute returned a %d-dim tensor, the case's has %d "
                        "dims", po->ndim, x->shape.ndim);
    out->shape.ndim = po->ndim;
    out->numel = 1;
    for (int d = 0; d < po->ndim; d++) {
        out->shape.d[d] = po->shape[d];
        if (po->shape[d] < 0 || !shc_mul64(out->numel, po->shape[d], &out->numel))
            return shc_fail(e, SHC_EINVAL, "execute returned an invalid shape (a negative dim, "
                            "or an element count past int64)");
    }
    /* its buffer holds its shape's elements (the ABI): hashed whatever the shape, so a
     * result of another shape fails on its data too, and the oracle (the global tensor's
     * slice) is checked by the family as for every backend */
    if (!po->data && out->numel)
        return shc_fail(e, SHC_EINVAL, "execute returned no buffer");
    out->data = po->data; /* freed by the runner, as the ABI says */
    po->data = NULL;
    return SHC_OK;
}

/* shc_xexec_fn: the plugin's execute for one rank. */
static int xexec(void *ctx, const shc_xcase *x, int64_t rank, const shc_xtensor *in,
                 shc_xtensor *out, shc_err *e)
{
    rank_job *j = ctx;
    shc_tensor_v2 pin = {.dtype = shc_dtype_name(x->dtype), .ndim = in->shape.ndim,
                         .data = in->data};
    shc_tensor_v2 pout = {0};
    memcpy(pin.shape, in->shape.d, sizeof(int64_t) * (size_t)in->shape.ndim);
    const shc_backend_v2 *be = j->s->be;
    int rc = be->execute(be->self, j->s->host, j->c, rank, j->comm, &pin, &pout, j->err,
                         sizeof j->err);
    if (rc) {
        free(pout.data);
        j->unsupported = rc == SHC_BACKEND_UNSUPPORTED;
        j->refused = !j->unsupported;
        return shc_fail(e, SHC_EINVAL, "%s", j->err[0] ? j->err : "execute failed (no message)");
    }
    return take_output(x, rank, &pout, out, e);
}

/* Rank's view through the family's hook over comm; "comm": name added. */
static run_status rank_view(const plugin_seam *s, const shc_case_v2 *c,
                            const shc_backend_comm *comm, plugin_bcomm *ours,
                            const shc_family *f, const json_t *group, const json_t *test,
                            int64_t rank, json_t **view, char *msg, size_t n)
{
    rank_job j = {s, c, comm, ours, false, false, ""};
    shc_err e = {0};
    json_t *v = NULL;
    int rc = f->exec.outside(xexec, &j, group, test, rank, &v, &e);
    const char *name = comm->name ? comm->name : "(unnamed)";
    if (ours && ours->failure[0]) { /* shardcheck's own communicator failed under it */
        json_decref(v);
        snprintf(msg, n, "rank %lld: %s", (long long)rank, ours->failure);
        return ours->timed_out ? RUN_TIMEOUT : RUN_FAIL;
    }
    if (j.unsupported) {
        json_decref(v);
        snprintf(msg, n, "%s", j.err);
        return RUN_NOTSUPPORTED;
    }
    if (rc) {
        json_decref(v);
        snprintf(msg, n, "rank %lld: %s", (long long)rank, e.msg);
        return RUN_INTERNAL;
    }
    const char *oracle = json_string_value(json_object_get(v, "oracleMismatch"));
    if (oracle) /* the family's check reports it before the comparison sees "comm" */
        json_object_set_new(v, "oracleMismatch", json_sprintf("%s [comm %s]", oracle, name));
    json_object_set_new(v, "comm", json_string(name));
    *view = v;
    return RUN_PASS;
}

/* NotSupported before anything runs: the plugin declines the family (supports) or has no
 * execute; 0 otherwise. */
static int declined(const plugin_seam *s, const shc_family *f, char *msg, size_t n)
{
    const shc_backend_v2 *be = s->be;
    char why[400] = "";
    if (!be->execute) {
        snprintf(msg, n, "plugin %s has no execute entry point", be->name ? be->name : "");
        return 1;
    }
    if (be->supports && be->supports(be->self, f->name, why, sizeof why)) {
        snprintf(msg, n, "%s", why[0] ? why : "the plugin does not support the family");
        return 1;
    }
    return 0;
}

/* ---- every rank in one process ---- */

typedef struct local_case {
    const plugin_seam *s;
    const shc_case_v2 *c;
    const shc_family *f;
    const json_t *group, *test;
    plugin_mailbox *mb;
    json_t **views;
    run_status *st;
    char (*msg)[768];
} local_case;

static int local_rank(shc_comm *sc, void *arg, shc_err *e)
{
    local_case *lc = arg;
    int64_t r = sc->rank;
    plugin_bcomm b;
    plugin_bcomm_init(&b, sc, lc->mb, false);
    lc->st[r] = rank_view(lc->s, lc->c, &b.pub, &b, lc->f, lc->group, lc->test, r,
                          &lc->views[r], lc->msg[r], sizeof lc->msg[r]);
    plugin_mailbox_leave(lc->mb, r);
    /* a rank that fails makes the others' pending collectives fail, not wait */
    return lc->st[r] == RUN_PASS || lc->st[r] == RUN_NOTSUPPORTED
               ? SHC_OK : shc_fail(e, SHC_EIO, "rank %lld failed", (long long)r);
}

/* The worse of two outcomes (the order run_mpi.c uses). */
static run_status worse(run_status a, run_status b)
{
    static const int rank[] = {0, 2, 1, 4, 3, 5};
    _Static_assert(sizeof rank / sizeof rank[0] == RUN_NSTATUS, "one rank per run_status");
    assert((unsigned)a < RUN_NSTATUS && (unsigned)b < RUN_NSTATUS);
    return rank[b] > rank[a] ? b : a;
}

run_status plugin_comm_views(const plugin_seam *s, const run_opts *o, const shc_family *f,
                             const json_t *group, const json_t *test, int64_t world,
                             json_t **views, char *msg, size_t n)
{
    shc_err e = {0};
    if (declined(s, f, msg, n))
        return RUN_NOTSUPPORTED;
    shc_case_v2 *c = s->case_new(f->name, plugin_comm_release(o), group, test, world, &e);
    if (!c) {
        snprintf(msg, n, "plugin case: %s", e.msg);
        return RUN_INTERNAL;
    }
    local_case lc = {s, c, f, group, test, plugin_mailbox_new(0, world, o->timeout_s), views,
                     calloc((size_t)world, sizeof *lc.st), calloc((size_t)world, sizeof *lc.msg)};
    run_status st = RUN_PASS;
    if (!lc.mb || !lc.st || !lc.msg) {
        st = RUN_INTERNAL;
        snprintf(msg, n, "out of memory for %lld ranks", (long long)world);
    } else {
        shc_comm_local_run(world, local_rank, &lc, NULL, &e);
        for (int64_t r = 0; r < world; r++)
            if (worse(st, lc.st[r]) != st) {
                st = lc.st[r];
                snprintf(msg, n, "%s", lc.msg[r]);
            }
    }
    free(lc.st);
    free(lc.msg);
    plugin_mailbox_free(lc.mb);
    s->case_free(c);
    return st;
}

/* ---- one rank under mpirun, guarded ---- */

/* The funnel: shardcheck's MPI communicator used from the helper thread, its collectives
 * run by the thread that called MPI_Init (MPI is initialised without thread support, and
 * comm_mpi.c's watchdog is a timer aimed at that thread, jumping out of a stuck collective
 * as a named timeout).  The helper posts one request and waits; the waiting main thread
 * runs it. */
typedef enum { FQ_GATHER, FQ_GATHERV, FQ_A2A, FQ_RS, FQ_AR } fq_kind;
typedef struct freq {
    fq_kind kind;
    const int64_t *g;
    int n;
    const void *send;
    size_t bytes, count;
    const size_t *counts;
    void *recv;
    shc_dtype t;
    shc_redop op;
    shc_err *e;
    int rc;
    bool done;
} freq;

struct plugin_funnel {
    pthread_mutex_t *mu;  /* the guard's */
    pthread_cond_t *cv;
    shc_comm *real;
    freq *pending;
};

static void fq_run(shc_comm *c, freq *q)
{
    const shc_comm_ops *o = c->ops;
    switch (q->kind) {
    case FQ_GATHER: q->rc = o->all_gather(c, q->g, q->n, q->send, q->bytes, q->recv, q->e); break;
    case FQ_GATHERV:
        q->rc = o->all_gatherv(c, q->g, q->n, q->send, q->counts, q->recv, q->e);
        break;
    case FQ_A2A: q->rc = o->all_to_all(c, q->g, q->n, q->send, q->bytes, q->recv, q->e); break;
    case FQ_RS:
        q->rc = o->reduce_scatter(c, q->g, q->n, q->send, q->count, q->recv, q->t, q->op, q->e);
        break;
    case FQ_AR:
        q->rc = o->all_reduce(c, q->g, q->n, q->recv, q->count, q->t, q->op, q->e);
        break;
    }
}

/* Helper side: post q and wait for the main thread to have run it. */
static int fq_post(shc_comm *proxy, freq *q)
{
    plugin_funnel *fu = proxy->impl;
    pthread_mutex_lock(fu->mu);
    fu->pending = q;
    pthread_cond_broadcast(fu->cv);
    while (!q->done)
        pthread_cond_wait(fu->cv, fu->mu);
    pthread_mutex_unlock(fu->mu);
    return q->rc;
}

static int fq_all_gather(shc_comm *c, const int64_t *g, int n, const void *send, size_t bytes,
                         void *recv, shc_err *e)
{
    freq q = {.kind = FQ_GATHER, .g = g, .n = n, .send = send, .bytes = bytes, .recv = recv,
              .e = e};
    return fq_post(c, &q);
}

static int fq_all_gatherv(shc_comm *c, const int64_t *g, int n, const void *send,
                          const size_t *counts, void *recv, shc_err *e)
{
    freq q = {.kind = FQ_GATHERV, .g = g, .n = n, .send = send, .counts = counts, .recv = recv,
              .e = e};
    return fq_post(c, &q);
}

static int fq_all_to_all(shc_comm *c, const int64_t *g, int n, const void *send, size_t bytes,
                         void *recv, shc_err *e)
{
    freq q = {.kind = FQ_A2A, .g = g, .n = n, .send = send, .bytes = bytes, .recv = recv,
              .e = e};
    return fq_post(c, &q);
}

static int fq_reduce_scatter(shc_comm *c, const int64_t *g, int n, const void *send,
                             size_t count, void *recv, shc_dtype t, shc_redop op, shc_err *e)
{
    freq q = {.kind = FQ_RS, .g = g, .n = n, .send = send, .count = count, .recv = recv,
              .t = t, .op = op, .e = e};
    return fq_post(c, &q);
}

static int fq_all_reduce(shc_comm *c, const int64_t *g, int n, void *buf, size_t count,
                         shc_dtype t, shc_redop op, shc_err *e)
{
    freq q = {.kind = FQ_AR, .g = g, .n = n, .recv = buf, .count = count, .t = t, .op = op,
              .e = e};
    return fq_post(c, &q);
}

static const shc_comm_ops funnel_ops = {
    .name = "mpi", .all_gather = fq_all_gather, .all_gatherv = fq_all_gatherv,
    .all_to_all = fq_all_to_all, .reduce_scatter = fq_reduce_scatter,
    .all_reduce = fq_all_reduce};


/* Work on a helper thread.  Everything it touches lives in here (or is the runner's for the
 * whole run), so a thread left hanging past the limit reads nothing freed: the caller
 * abandons it, and the job, out of step, ends after its report (as after an mpi timeout). */
typedef struct guarded {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool finished, abandoned;
    plugin_work_fn fn;
    void *arg;
    void (*arg_free)(void *arg);
    plugin_funnel *fu;    /* NULL, or collectives this thread runs for the helper */
    json_t *view;
    run_status st;
    char msg[768];
} guarded;

static void guarded_free(guarded *g)
{
    pthread_mutex_destroy(&g->mu);
    pthread_cond_destroy(&g->cv);
    json_decref(g->view);
    if (g->arg_free)
        g->arg_free(g->arg);
    free(g);
}

static void *guarded_main(void *arg)
{
    guarded *g = arg;
    g->st = g->fn(g->arg, &g->view, g->msg, sizeof g->msg);
    pthread_mutex_lock(&g->mu);
    g->finished = true;
    bool gone = g->abandoned;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
    if (gone) /* finished after all, long after the case was reported */
        guarded_free(g);
    return NULL;
}

run_status plugin_comm_guard(double timeout_s, const char *what, plugin_work_fn fn, void *arg,
                             void (*arg_free)(void *), plugin_funnel *fu, json_t **view,
                             char *msg, size_t n)
{
    guarded *g = calloc(1, sizeof *g);
    if (!g) {
        if (arg_free)
            arg_free(arg);
        snprintf(msg, n, "%s: out of memory", what);
        return RUN_INTERNAL;
    }
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    g->fn = fn, g->arg = arg, g->arg_free = arg_free, g->fu = fu;
    if (fu)
        fu->mu = &g->mu, fu->cv = &g->cv;
    pthread_t t;
    if (pthread_create(&t, NULL, guarded_main, g)) {
        snprintf(msg, n, "%s: cannot start a thread", what);
        guarded_free(g);
        return RUN_INTERNAL;
    }
    pthread_detach(t);
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += (time_t)(timeout_s > 0 ? timeout_s : 3600);
    pthread_mutex_lock(&g->mu);
    while (!g->finished) {
        freq *q = fu ? fu->pending : NULL;
        if (q) { /* a collective of the helper's, run here (the funnel) */
            fu->pending = NULL;
            pthread_mutex_unlock(&g->mu);
            fq_run(fu->real, q);
            pthread_mutex_lock(&g->mu);
            q->done = true;
            pthread_cond_broadcast(&g->cv);
        } else if (pthread_cond_timedwait(&g->cv, &g->mu, &dl) == ETIMEDOUT) {
            break;
        }
    }
    bool finished = g->finished;
    g->abandoned = !finished;
    pthread_mutex_unlock(&g->mu);
    if (!finished) {
        snprintf(msg, n, "%s did not return within %.0f s (timeout; the thread is abandoned)",
                 what, timeout_s);
        return RUN_TIMEOUT;
    }
    run_status st = g->st;
    snprintf(msg, n, "%s", g->msg);
    *view = g->view;
    g->view = NULL;
    guarded_free(g);
    return st;
}

/* One rank's case under mpirun (plugin_comm_guard's work). */
typedef struct mpi_rank {
    const plugin_seam *s;
    shc_case_v2 *c;
    const shc_backend_comm *vendor;
    plugin_bcomm ours;
    plugin_funnel fu;      /* ours over the job's MPI communicator: through the funnel */
    shc_comm proxy;
    bool use_ours;
    const shc_family *f;
    const json_t *group, *test;
    int64_t rank;
} mpi_rank;

static run_status mpi_rank_work(void *arg, json_t **view, char *msg, size_t n)
{
    mpi_rank *m = arg;
    return rank_view(m->s, m->c, m->use_ours ? &m->ours.pub : m->vendor,
                     m->use_ours ? &m->ours : NULL, m->f, m->group, m->test, m->rank, view,
                     msg, n);
}

static void mpi_rank_free(void *arg)
{
    mpi_rank *m = arg;
    m->s->case_free(m->c);
    free(m);
}

run_status plugin_comm_view(const plugin_seam *s, const shc_backend_comm *vendor,
                            const run_opts *o, shc_comm *comm, int64_t rank,
                            const shc_family *f, const json_t *group, const json_t *test,
                            json_t **view, char *msg, size_t n)
{
    shc_err e = {0};
    if (declined(s, f, msg, n))
        return RUN_NOTSUPPORTED;
    int64_t world = f->world_size(group);
    shc_case_v2 *c = s->case_new(f->name, plugin_comm_release(o), group, test, world, &e);
    mpi_rank *m = c ? calloc(1, sizeof *m) : NULL;
    if (!m) {
        if (c)
            s->case_free(c);
        snprintf(msg, n, "rank %lld: plugin case: %s", (long long)rank, c ? "out of memory"
                 : e.msg);
        return RUN_INTERNAL;
    }
    *m = (mpi_rank){.s = s, .c = c, .vendor = vendor, .f = f, .group = group, .test = test,
                    .rank = rank};
    /* the vendor's communicator serves one rank per process; a hosted rank, or no vendor
     * communicator, uses ours (between processes the pair's all_gatherv does p2p only
     * when each process is one rank: the job's communicator) */
    m->use_ours = !vendor || comm != o->comm;
    bool funnel = m->use_ours && comm == o->comm;
    if (funnel) {
        m->fu.real = comm;
        m->proxy = (shc_comm){.ops = &funnel_ops, .rank = comm->rank, .size = comm->size,
                              .timeout_s = comm->timeout_s, .impl = &m->fu};
    }
    if (m->use_ours)
        plugin_bcomm_init(&m->ours, funnel ? &m->proxy : comm, NULL, funnel);
    char what[160];
    snprintf(what, sizeof what, "rank %lld: execute over communicator %s", (long long)rank,
             m->use_ours ? m->ours.name : vendor->name ? vendor->name : "(unnamed)");
    return plugin_comm_guard(o->timeout_s, what, mpi_rank_work, m, mpi_rank_free,
                             funnel ? &m->fu : NULL, view, msg, n);
}

/* ---- the view's "comm" member ---- */

void plugin_comm_take(json_t *view, char *name, size_t n)
{
    const char *v = json_string_value(json_object_get(view, "comm"));
    snprintf(name, n, "%s", v ? v : "");
    json_object_del(view, "comm");
}

void plugin_comm_note(const char *name, int ok, char *msg, size_t n)
{
    if (!name[0])
        return;
    size_t k = strlen(msg);
    if (!ok)
        snprintf(msg + k, n > k ? n - k : 0, " [comm %s]", name);
    else if (!k)
        snprintf(msg, n, "comm %s", name);
}
