/*
 * comm_hosted.c — several mesh ranks per MPI process (issue 24's virtual ranks).
 *
 * Under `mpirun -np N` a case whose mesh has W > N ranks runs with each process
 * hosting a contiguous block of mesh ranks (shc_comm_host_block).  Every hosted
 * rank runs the family's per-rank code on its own thread with a communicator of
 * its own rank, as comm_local.c's simulated ranks do; a collective is a
 * rendezvous of the process's hosted ranks (each posts its buffers in its slot),
 * then one exchange: this process's main thread (the one that called MPI_Init,
 * so MPI is only ever called from it) sends every other process one message
 * holding the pieces its ranks need from ours and receives one from each, then
 * every rank builds its own result from the members' pieces (reductions in group
 * order with the shared kernel, as the local backend does), and a second
 * rendezvous keeps every posted buffer unchanged until all have read it.
 *
 * No message carries a rank number: both sides of a pair of processes list the
 * pieces between them in one order, (receiving rank, sending rank's group
 * position), which each can compute, because a collective's group is the same
 * list on every member.  A process that receives other than the bytes it expects
 * fails the collective naming the process (a member passed other sizes).
 * Messages go on MPI_COMM_WORLD with a tag of their own (SHC_HOSTED_TAG), which
 * the runner's outcome messages never use, and non-overtaking keeps successive
 * collectives apart.  Waits poll under the deadline: nothing blocks on a stuck
 * peer; a timeout names itself "mpi: timeout" and MPI's state is then not
 * trusted (the runner ends the job once it has reported, as for comm_mpi.c).
 * Tested by conformance/tests/run_hosted.sh (every redistribute-data case at np
 * 1, 2, 3, 4 and 8 with identical per-rank bytes) and check_exec.c (the block
 * arithmetic).
 */
#include "config.h"
#ifdef HAVE_MPI
#include <mpi.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "comm.h"

#define SHC_HOSTED_TAG 32100 /* below MPI's least MPI_TAG_UB (32767); the runner uses < 30000 */

typedef enum { HC_GATHER, HC_GATHERV, HC_A2A, HC_RS, HC_AR } hc_kind;

/* What one hosted rank posted for a collective, and where its members' pieces lie. */
typedef struct hslot {
    hc_kind kind;
    const int64_t *group;
    int n, pos;
    const char *send;      /* all_reduce: the in-place buffer */
    size_t bytes;          /* one piece: per member (gather, a2a) or count * itemsize */
    const size_t *counts;  /* all_gatherv */
    const char **piece;    /* n entries, filled by the exchange */
} hslot;

typedef struct hworld {
    int64_t world, first, count, me, nprocs;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int64_t arrived, exited;
    uint64_t gen;
    bool failed, posting;  /* posting: the rendezvous now open is a collective's first */
    char why[300];
    hslot *slots;
    double timeout_s;
    char **rbuf;           /* per process: the last exchange's message from it */
} hworld;

typedef struct hrank {
    hworld *w;
    shc_comm comm;
    shc_rank_fn fn;
    void *arg;
    shc_err err;
    int rc;
} hrank;

#define HW(c) ((hworld *)(c)->impl)
#define SLOT(w, r) (&(w)->slots[(r) - (w)->first])

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void fail_locked(hworld *w, const char *why)
{
    if (!w->failed) {
        w->failed = true;
        snprintf(w->why, sizeof w->why, "%s", why);
    }
    pthread_cond_broadcast(&w->cv);
}

/* A hosted rank's side of a rendezvous: arrive, wake the main thread, wait for release. */
static int rendezvous(hworld *w, int64_t rank, bool posting, shc_err *e)
{
    pthread_mutex_lock(&w->mu);
    uint64_t g = w->gen;
    w->posting = posting;
    w->arrived++;
    pthread_cond_broadcast(&w->cv);
    while (g == w->gen && !w->failed)
        pthread_cond_wait(&w->cv, &w->mu); /* the main thread keeps the deadline */
    int rc = SHC_OK;
    if (g == w->gen)
        rc = shc_fail(e, strstr(w->why, "mpi: timeout") ? SHC_EIO : SHC_EINTERNAL,
                      "rank %lld: collective aborted: %s", (long long)rank, w->why);
    pthread_mutex_unlock(&w->mu);
    return rc;
}

/* Where the piece that the member at group position k needs from slot s lies. */
static const char *piece_at(const hslot *s, int k)
{
    switch (s->kind) {
    case HC_A2A:
    case HC_RS:
        return s->send + (size_t)k * s->bytes;
    default:
        return s->send;
    }
}

/* The length of the piece from group position j, as the receiving slot d sees it. */
static size_t piece_len(const hslot *d, int j)
{
    return d->kind == HC_GATHERV ? d->counts[j] : d->bytes;
}

/* ---- the exchange, on the main thread ---- */

static bool hosted_here(const hworld *w, int64_t r) { return r >= w->first && r < w->first + w->count; }


/* Bytes this process sends process q (out non-NULL: packed there), in the order both
 * sides list: receiving rank ascending, then the sender's position in that rank's group
 * (the members of one group all pass the same list, so position j is the same rank on
 * either side). */
static size_t pack_for(const hworld *w, int64_t q, char *out)
{
    int64_t qf, qn;
    size_t len = 0;
    shc_comm_host_block(w->world, q, w->nprocs, &qf, &qn);
    for (int64_t d = qf; d < qf + qn; d++) {
        const hslot *any = NULL; /* a rank hosted here that is in d's group, if one is */
        int dpos = -1;
        for (int64_t i = 0; i < w->count && !any; i++)
            for (int k = 0; k < w->slots[i].n; k++)
                if (w->slots[i].group[k] == d) {
                    any = &w->slots[i];
                    dpos = k;
                    break;
                }
        for (int j = 0; any && j < any->n; j++) {
            if (!hosted_here(w, any->group[j]))
                continue;
            const hslot *s = SLOT(w, any->group[j]);
            size_t b = s->kind == HC_GATHERV ? s->counts[s->pos] : s->bytes;
            if (out)
                memcpy(out + len, piece_at(s, dpos), b);
            len += b;
        }
    }
    return len;
}

/* The same walk seen from the receiving side: bytes expected from q, and (in non-NULL)
 * each piece pointed at where it lies in q's message. */
static size_t unpack_from(hworld *w, int64_t q, const char *in)
{
    size_t len = 0;
    for (int64_t i = 0; i < w->count; i++) {
        hslot *d = &w->slots[i];
        for (int j = 0; j < d->n; j++) {
            if (shc_comm_host_of(w->world, w->nprocs, d->group[j]) != q)
                continue;
            if (in)
                d->piece[j] = in + len;
            len += piece_len(d, j);
        }
    }
    return len;
}

/* Pieces between ranks of this process point straight into the posted buffers. */
static void local_pieces(hworld *w)
{
    for (int64_t i = 0; i < w->count; i++) {
        hslot *d = &w->slots[i];
        for (int j = 0; j < d->n; j++)
            if (hosted_here(w, d->group[j]))
                d->piece[j] = piece_at(SLOT(w, d->group[j]), d->pos);
    }
}

/* Whether a rank hosted here shares a group with a rank process q hosts (then a message
 * goes each way, even an empty one: both sides see the same pairs). */
static bool talks_to(const hworld *w, int64_t q)
{
    for (int64_t i = 0; i < w->count; i++)
        for (int j = 0; j < w->slots[i].n; j++)
            if (shc_comm_host_of(w->world, w->nprocs, w->slots[i].group[j]) == q)
                return true;
    return false;
}

/* Poll the requests to completion under the deadline; a receive must bring what was
 * expected.  nreq = 2 * nprocs: [q] receives from q, [nprocs + q] sends to q. */
static int wait_all(const hworld *w, MPI_Request *rq, const size_t *want, char *why, size_t nwhy)
{
    int64_t np = w->nprocs;
    MPI_Status *st = calloc(2 * (size_t)(uint32_t)np, sizeof *st);
    if (!st) {
        snprintf(why, nwhy, "out of memory for the exchange");
        return SHC_ENOMEM;
    }
    double deadline = now_s() + (w->timeout_s > 0 ? w->timeout_s : 3600);
    int done = 0, rc = SHC_OK;
    while (!done) {
        if (MPI_Testall((int)(2 * np), rq, &done, st) != MPI_SUCCESS) {
            snprintf(why, nwhy, "mpi: an exchange between processes failed (a member passed "
                     "other sizes than its group expects)");
            rc = SHC_EINTERNAL;
            break;
        }
        if (!done && now_s() > deadline) {
            snprintf(why, nwhy, "mpi: timeout: the hosted ranks' exchange did not complete "
                     "within %.0f s (a process stopped or left the case)", w->timeout_s);
            rc = SHC_EIO;
            break;
        }
        if (!done)
            usleep(20);
    }
    for (int64_t q = 0; !rc && q < np; q++) {
        int got = 0;
        if (q == w->me || !w->rbuf[q])
            continue;
        MPI_Get_count(&st[q], MPI_BYTE, &got);
        if ((size_t)got != want[q]) {
            snprintf(why, nwhy, "process %lld sent %d bytes for a collective, process %lld "
                     "expected %zu (a member passed other sizes)", (long long)q, got,
                     (long long)w->me, want[q]);
            rc = SHC_EINTERNAL;
        }
    }
    free(st);
    return rc;
}

/* Post one message each way to every process whose ranks share a group with ours. */
static int post_all(hworld *w, MPI_Request *rq, char **sbuf, size_t *want, char *why,
                    size_t nwhy)
{
    int64_t np = w->nprocs;
    for (int64_t q = 0; q < np; q++) {
        if (q == w->me || !talks_to(w, q))
            continue;
        size_t out = pack_for(w, q, NULL), in = unpack_from(w, q, NULL);
        if (out > INT_MAX || in > INT_MAX) {
            snprintf(why, nwhy, "a message to or from process %lld exceeds 2 GiB", (long long)q);
            return SHC_EINVAL;
        }
        want[q] = in;
        if (!(w->rbuf[q] = malloc(in ? in : 1)) || !(sbuf[q] = malloc(out ? out : 1))) {
            snprintf(why, nwhy, "out of memory for the exchange");
            return SHC_ENOMEM;
        }
        pack_for(w, q, sbuf[q]);
        if (MPI_Irecv(w->rbuf[q], (int)in, MPI_BYTE, (int)q, SHC_HOSTED_TAG, MPI_COMM_WORLD,
                      &rq[q]) != MPI_SUCCESS ||
            MPI_Isend(sbuf[q], (int)out, MPI_BYTE, (int)q, SHC_HOSTED_TAG, MPI_COMM_WORLD,
                      &rq[np + q]) != MPI_SUCCESS) {
            snprintf(why, nwhy, "mpi: cannot post a message to process %lld", (long long)q);
            return SHC_EINTERNAL;
        }
    }
    return SHC_OK;
}

/* One collective's exchange: every hosted rank has posted its slot. */
static int exchange(hworld *w, char *why, size_t nwhy)
{
    int64_t np = w->nprocs;
    MPI_Request *rq = malloc(2 * (size_t)(uint32_t)np * sizeof *rq);
    char **sbuf = calloc((size_t)np, sizeof *sbuf);
    size_t *want = calloc((size_t)np, sizeof *want);
    int rc = SHC_OK;
    for (int64_t q = 0; q < np; q++) {
        free(w->rbuf[q]); /* the previous collective's, read by now */
        w->rbuf[q] = NULL;
    }
    if (!rq || !sbuf || !want) {
        snprintf(why, nwhy, "out of memory for the exchange");
        rc = SHC_ENOMEM;
    } else {
        for (int64_t q = 0; q < 2 * np; q++)
            rq[q] = MPI_REQUEST_NULL;
        local_pieces(w);
        rc = post_all(w, rq, sbuf, want, why, nwhy);
        /* requests already posted complete (or time out) even when a later one failed */
        int wrc = wait_all(w, rq, want, why, nwhy);
        rc = rc ? rc : wrc;
    }
    for (int64_t q = 0; !rc && q < np; q++)
        if (w->rbuf[q])
            unpack_from(w, q, w->rbuf[q]);
    for (int64_t q = 0; sbuf && q < np; q++)
        free(sbuf[q]);
    free(sbuf);
    free(want);
    free(rq);
    return rc;
}

/* ---- the collectives, on a hosted rank's thread ---- */

static int post(shc_comm *c, hslot s, shc_err *e)
{
    hworld *w = HW(c);
    int rc = shc_comm_group_pos(c, s.group, s.n, &s.pos, e);
    if (rc)
        return rc;
    s.piece = calloc((size_t)s.n, sizeof *s.piece);
    if (!s.piece)
        return shc_fail(e, SHC_ENOMEM, "out of memory");
    *SLOT(w, c->rank) = s;
    return rendezvous(w, c->rank, true, e);
}

/* The second rendezvous: every member has read what this rank posted. */
static int done(shc_comm *c, int rc, shc_err *e)
{
    hslot *s = SLOT(HW(c), c->rank);
    int rrc = rendezvous(HW(c), c->rank, false, rc ? NULL : e);
    free(s->piece);
    s->piece = NULL;
    return rc ? rc : rrc;
}

/* all_gather and all_to_all alike: recv = the members' pieces (whole sends, or each one's
 * block for this rank: piece_at) in group order. */
static int concat(shc_comm *c, hc_kind kind, const int64_t *group, int n, const void *send,
                  size_t bytes, void *recv, shc_err *e)
{
    int rc = post(c, (hslot){kind, group, n, 0, send, bytes, NULL, NULL}, e);
    if (rc)
        return rc;
    const hslot *s = SLOT(HW(c), c->rank);
    for (int j = 0; j < n; j++)
        memcpy((char *)recv + (size_t)j * bytes, s->piece[j], bytes);
    return done(c, SHC_OK, e);
}

static int h_all_gather(shc_comm *c, const int64_t *group, int n, const void *send,
                        size_t bytes, void *recv, shc_err *e)
{
    return concat(c, HC_GATHER, group, n, send, bytes, recv, e);
}

static int h_all_gatherv(shc_comm *c, const int64_t *group, int n, const void *send,
                         const size_t *counts, void *recv, shc_err *e)
{
    int rc = post(c, (hslot){HC_GATHERV, group, n, 0, send, 0, counts, NULL}, e);
    if (rc)
        return rc;
    const hslot *s = SLOT(HW(c), c->rank);
    size_t off = 0;
    for (int j = 0; j < n; j++) {
        memcpy((char *)recv + off, s->piece[j], counts[j]);
        off += counts[j];
    }
    return done(c, SHC_OK, e);
}

static int h_all_to_all(shc_comm *c, const int64_t *group, int n, const void *send,
                        size_t bytes, void *recv, shc_err *e)
{
    return concat(c, HC_A2A, group, n, send, bytes, recv, e);
}

/* out = the members' pieces reduced in group order (avg: summed, then divided, as
 * comm_local.c does it). */
static int reduce_pieces(const hslot *s, size_t count, shc_dtype t, shc_redop op, void *out,
                         shc_err *e)
{
    for (int j = 0; j < s->n; j++) {
        if (j == 0)
            memcpy(out, s->piece[0], s->bytes);
        else if (shc_reduce_into(out, s->piece[j], count, t, op, e))
            return e->code ? e->code : SHC_EINVAL;
    }
    if (op == SHC_OP_AVG)
        shc_div_scalar(out, count, t, s->n);
    return SHC_OK;
}

static int h_reduce_scatter(shc_comm *c, const int64_t *group, int n, const void *send,
                            size_t count, void *recv, shc_dtype t, shc_redop op, shc_err *e)
{
    size_t bb = count * shc_dtype_size(t);
    int rc = post(c, (hslot){HC_RS, group, n, 0, send, bb, NULL, NULL}, e);
    if (rc)
        return rc;
    shc_err e2 = {0};
    rc = reduce_pieces(SLOT(HW(c), c->rank), count, t, op, recv, &e2);
    if (rc)
        shc_fail(e, rc, "%s", e2.msg);
    return done(c, rc, e);
}

static int h_all_reduce(shc_comm *c, const int64_t *group, int n, void *buf, size_t count,
                        shc_dtype t, shc_redop op, shc_err *e)
{
    size_t bb = count * shc_dtype_size(t);
    int rc = post(c, (hslot){HC_AR, group, n, 0, buf, bb, NULL, NULL}, e);
    if (rc)
        return rc;
    void *tmp = malloc(bb ? bb : 1);
    shc_err e2 = {0};
    rc = tmp ? reduce_pieces(SLOT(HW(c), c->rank), count, t, op, tmp, &e2) : SHC_ENOMEM;
    if (rc)
        shc_fail(e, rc, "%s", rc == SHC_ENOMEM ? "out of memory" : e2.msg);
    rc = done(c, rc, e); /* every member has read buf: now it may change */
    if (!rc)
        memcpy(buf, tmp, bb);
    free(tmp);
    return rc;
}

static void h_destroy(shc_comm *c) { (void)c; }

static const shc_comm_ops hosted_ops = {
    "hosted", h_all_gather, h_all_gatherv, h_all_to_all, h_reduce_scatter, h_all_reduce,
    h_destroy, NULL, NULL, /* the executor copies and packs, as for the local backend */
};

/* ---- the hosted ranks' threads and the main thread's loop ---- */

static void *rank_main(void *p)
{
    hrank *r = p;
    r->rc = r->fn(&r->comm, r->arg, &r->err);
    hworld *w = r->w;
    pthread_mutex_lock(&w->mu);
    w->exited++;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* Wait until every hosted rank has arrived or returned; false past the deadline. */
static bool all_in(hworld *w)
{
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += w->timeout_s > 0 ? (time_t)w->timeout_s : 3600;
    while (w->arrived + w->exited < w->count && !w->failed)
        if (pthread_cond_timedwait(&w->cv, &w->mu, &dl) == ETIMEDOUT)
            return false;
    return true;
}

/* The main thread: run each rendezvous (and each collective's exchange) until every
 * hosted rank has returned.  A rank that returns while others wait in a collective fails
 * it here (its peers elsewhere then time out: a mismatch that only a defect causes, since
 * every rank of a case takes the same steps). */
static void progress(hworld *w)
{
    pthread_mutex_lock(&w->mu);
    while (!w->failed) {
        if (!all_in(w)) {
            fail_locked(w, "mpi: timeout: the hosted ranks did not all reach the collective");
            break;
        }
        if (w->exited == w->count)
            break;
        if (w->exited > 0) {
            fail_locked(w, "a hosted rank returned while others wait in a collective");
            break;
        }
        char why[300] = "";
        int rc = SHC_OK;
        if (w->posting) {
            pthread_mutex_unlock(&w->mu); /* the ranks are all waiting: their slots stay */
            rc = exchange(w, why, sizeof why);
            pthread_mutex_lock(&w->mu);
        }
        if (rc) {
            fail_locked(w, why);
            break;
        }
        w->arrived = 0;
        w->gen++;
        pthread_cond_broadcast(&w->cv);
    }
    while (w->exited < w->count) /* the failed world releases every waiter */
        pthread_cond_wait(&w->cv, &w->mu);
    pthread_mutex_unlock(&w->mu);
}

static int start_ranks(hworld *w, hrank *ctx, pthread_t *th, shc_rank_fn fn, void *arg,
                       int64_t *started, shc_err *e)
{
    for (int64_t i = 0; i < w->count; i++) {
        ctx[i] = (hrank){.w = w, .fn = fn, .arg = arg,
                         .comm = {&hosted_ops, w->first + i, w->world, w->timeout_s, w}};
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setstacksize(&at, 1 << 20);
        int prc = pthread_create(&th[i], &at, rank_main, &ctx[i]);
        pthread_attr_destroy(&at);
        if (prc) {
            pthread_mutex_lock(&w->mu);
            w->exited += w->count - i; /* never started: gone */
            fail_locked(w, "could not start a thread for every hosted rank");
            pthread_mutex_unlock(&w->mu);
            return shc_fail(e, SHC_EINTERNAL, "hosted ranks: cannot start a thread for rank "
                            "%lld", (long long)(w->first + i));
        }
        (*started)++;
    }
    return SHC_OK;
}

/* The result: a start failure, else the first rank's own failure (not an abort it
 * caused in the others), else the world's failure. */
static int collect(hworld *w, hrank *ctx, int64_t started, int rc, shc_err *errs, shc_err *e)
{
    int first_rc = SHC_OK, abort_rc = SHC_OK;
    shc_err first_e = {0}, abort_e = {0};
    for (int64_t i = 0; i < started; i++) {
        free(ctx[i].comm.scratch);
        if (errs)
            errs[i] = ctx[i].err;
        bool aborted = strstr(ctx[i].err.msg, "collective aborted") != NULL;
        if (ctx[i].rc && !aborted && !first_rc) {
            first_rc = ctx[i].rc;
            first_e = ctx[i].err;
        } else if (ctx[i].rc && !abort_rc) {
            abort_rc = ctx[i].rc;
            abort_e = ctx[i].err;
        }
    }
    if (!rc && (first_rc || abort_rc) && e)
        *e = first_rc ? first_e : abort_e;
    if (!rc)
        rc = first_rc ? first_rc : abort_rc;
    if (!rc && w->failed)
        rc = shc_fail(e, strstr(w->why, "mpi: timeout") ? SHC_EIO : SHC_EINTERNAL, "%s",
                      w->why);
    return rc;
}

int shc_comm_hosted_run(int64_t world, double timeout_s, shc_rank_fn fn, void *arg,
                        shc_err *errs, shc_err *e)
{
    int me, np;
    if (MPI_Comm_rank(MPI_COMM_WORLD, &me) != MPI_SUCCESS ||
        MPI_Comm_size(MPI_COMM_WORLD, &np) != MPI_SUCCESS)
        return shc_fail(e, SHC_EINTERNAL, "hosted ranks: MPI is not initialised");
    if (world < 1 || world > INT32_MAX)
        return shc_fail(e, SHC_EINVAL, "hosted ranks: a world of %lld ranks (1..2^31-1)",
                        (long long)world);
    hworld w = {.world = world, .me = me, .nprocs = np, .timeout_s = timeout_s};
    shc_comm_host_block(world, me, np, &w.first, &w.count);
    if (w.count == 0)
        return SHC_OK; /* this process hosts no rank of the mesh */
    pthread_mutex_init(&w.mu, NULL);
    pthread_cond_init(&w.cv, NULL);
    w.slots = calloc((size_t)w.count, sizeof *w.slots);
    w.rbuf = calloc((size_t)np, sizeof *w.rbuf);
    hrank *ctx = calloc((size_t)w.count, sizeof *ctx);
    pthread_t *th = calloc((size_t)w.count, sizeof *th);
    int64_t started = 0;
    int rc = SHC_OK;
    if (!w.slots || !w.rbuf || !ctx || !th)
        rc = shc_fail(e, SHC_ENOMEM, "hosted ranks: out of memory for %lld ranks",
                      (long long)w.count);
    else
        rc = start_ranks(&w, ctx, th, fn, arg, &started, e);
    if (started)
        progress(&w);
    for (int64_t i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    rc = collect(&w, ctx, started, rc, errs, e);
    for (int64_t q = 0; w.rbuf && q < np; q++)
        free(w.rbuf[q]);
    free(w.rbuf);
    free(w.slots);
    free(ctx);
    free(th);
    pthread_mutex_destroy(&w.mu);
    pthread_cond_destroy(&w.cv);
    return rc;
}
#endif
