/*
 * comm_local.c — the `local` backend: N simulated ranks in one process.
 *
 * Each rank runs on its own thread with real, separate buffers; a
 * collective is a rendezvous: every rank posts its buffers in its slot of
 * the shared world, a barrier, each rank computes its own result from the
 * members' slots (the mathematically equivalent operation, reduced in
 * group order), a second barrier so nobody's buffer changes while it is
 * read.  Every collective is world-wide rendezvous even on a sub-group,
 * which is right for SPMD redistribute (every rank executes every step).
 * A rank that fails or returns while others wait makes their collectives
 * fail with a message naming it, never a hang.  The world lives on the
 * caller's stack (no global state).  Tested by check_exec.c.
 */
#include "config.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <time.h>
#include "comm.h"

typedef struct slot {
    const void *send;
    void *inout;
    size_t bytes;
    const size_t *counts;
} slot;

typedef struct world {
    int64_t n;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int64_t arrived, exited;
    uint64_t gen;
    bool failed;
    int64_t culprit;  /* first rank whose own failure aborted the world, -1 if none */
    char why[256];
    slot *slots;
    double timeout_s;
} world;

typedef struct rank_ctx {
    world *w;
    shc_comm comm;
    shc_rank_fn fn;
    void *arg;
    shc_err err;
    int rc;
} rank_ctx;

static void world_fail_locked(world *w, const char *why)
{
    if (!w->failed) {
        w->failed = true;
        snprintf(w->why, sizeof w->why, "%s", why);
    }
    pthread_cond_broadcast(&w->cv);
}

static int barrier(world *w, int64_t rank, shc_err *e)
{
    pthread_mutex_lock(&w->mu);
    uint64_t g = w->gen;
    w->arrived++;
    if (!w->failed && w->arrived + w->exited == w->n) {
        /* A rank that returned is not a member that arrived: the barrier is not released (a
         * released one would let every member read the absent rank's slot), it fails, and
         * every waiter reports why (check_exec t_local_quiet_exit). */
        if (w->exited > 0) {
            world_fail_locked(w, "a simulated rank returned while others wait in a collective");
        } else {
            w->arrived = 0;
            w->gen++;
            pthread_cond_broadcast(&w->cv);
        }
    }
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += w->timeout_s > 0 ? (time_t)w->timeout_s : 3600;
    while (g == w->gen && !w->failed) {
        if (pthread_cond_timedwait(&w->cv, &w->mu, &dl) == ETIMEDOUT) {
            world_fail_locked(w, "timeout waiting for the other simulated ranks");
            break;
        }
    }
    int rc = SHC_OK;
    if (w->failed && g == w->gen)  /* a released barrier succeeded, whatever came after */
        rc = shc_fail(e, SHC_EINTERNAL, "rank %lld: collective aborted: %s", (long long)rank,
                      w->why);
    pthread_mutex_unlock(&w->mu);
    return rc;
}

#define W(c) ((world *)(c)->impl)

static int enter(shc_comm *c, const int64_t *group, int n, slot s, int *pos, shc_err *e)
{
    int rc = shc_comm_group_pos(c, group, n, pos, e);
    if (rc)
        return rc;
    W(c)->slots[c->rank] = s;
    return barrier(W(c), c->rank, e);
}

static int l_all_gather(shc_comm *c, const int64_t *group, int n, const void *send,
                        size_t bytes, void *recv, shc_err *e)
{
    int pos, rc = enter(c, group, n, (slot){send, NULL, bytes, NULL}, &pos, e);
    if (rc)
        return rc;
    for (int j = 0; j < n; j++)
        memcpy((char *)recv + (size_t)j * bytes, W(c)->slots[group[j]].send, bytes);
    return barrier(W(c), c->rank, e);
}

static int l_all_gatherv(shc_comm *c, const int64_t *group, int n, const void *send,
                         const size_t *counts, void *recv, shc_err *e)
{
    int pos, rc = enter(c, group, n, (slot){send, NULL, counts ? 0 : 0, counts}, &pos, e);
    if (rc)
        return rc;
    size_t off = 0;
    for (int j = 0; j < n; j++) {
        memcpy((char *)recv + off, W(c)->slots[group[j]].send, counts[j]);
        off += counts[j];
    }
    return barrier(W(c), c->rank, e);
}

static int l_all_to_all(shc_comm *c, const int64_t *group, int n, const void *send, size_t bytes,
                        void *recv, shc_err *e)
{
    int pos, rc = enter(c, group, n, (slot){send, NULL, bytes, NULL}, &pos, e);
    if (rc)
        return rc;
    for (int j = 0; j < n; j++)
        memcpy((char *)recv + (size_t)j * bytes,
               (const char *)W(c)->slots[group[j]].send + (size_t)pos * bytes, bytes);
    return barrier(W(c), c->rank, e);
}

/* out = reduction over members of block `blk` (count elements) of their buffers. */
static int reduce_block(shc_comm *c, const int64_t *group, int n, int blk, size_t count,
                        shc_dtype t, shc_redop op, bool inout, void *out, shc_err *e)
{
    size_t bb = count * shc_dtype_size(t);
    for (int j = 0; j < n; j++) {
        const slot *s = &W(c)->slots[group[j]];
        const char *src = (const char *)(inout ? s->inout : s->send) + (size_t)blk * bb;
        if (j == 0)
            memcpy(out, src, bb);
        else if (shc_reduce_into(out, src, count, t, op, e))
            return e ? e->code : SHC_EINVAL;
    }
    if (op == SHC_OP_AVG)
        shc_div_scalar(out, count, t, n);
    return SHC_OK;
}

static int l_reduce_scatter(shc_comm *c, const int64_t *group, int n, const void *send,
                            size_t count, void *recv, shc_dtype t, shc_redop op, shc_err *e)
{
    int pos, rc = enter(c, group, n, (slot){send, NULL, count, NULL}, &pos, e);
    if (rc)
        return rc;
    shc_err e2 = {0};
    int rrc = reduce_block(c, group, n, pos, count, t, op, false, recv, &e2);
    rc = barrier(W(c), c->rank, e);
    if (rrc)
        return shc_fail(e, rrc, "%s", e2.msg);
    return rc;
}

static int l_all_reduce(shc_comm *c, const int64_t *group, int n, void *buf, size_t count,
                        shc_dtype t, shc_redop op, shc_err *e)
{
    int pos, rc = enter(c, group, n, (slot){NULL, buf, count, NULL}, &pos, e);
    if (rc)
        return rc;
    size_t bb = count * shc_dtype_size(t);
    void *tmp = malloc(bb ? bb : 1);
    shc_err e2 = {0};
    int rrc = tmp ? reduce_block(c, group, n, 0, count, t, op, true, tmp, &e2) : SHC_ENOMEM;
    rc = barrier(W(c), c->rank, e);  /* everyone has read every buf */
    if (!rrc)
        memcpy(buf, tmp, bb);
    free(tmp);
    if (rrc)
        return shc_fail(e, rrc, "%s", rrc == SHC_ENOMEM ? "out of memory" : e2.msg);
    return rc;
}

static void l_destroy(shc_comm *c) { (void)c; }

static const shc_comm_ops local_ops = {
    "local", l_all_gather, l_all_gatherv, l_all_to_all, l_reduce_scatter, l_all_reduce,
    l_destroy, NULL, NULL, /* the executor copies and packs for this backend */
};

static void *rank_main(void *p)
{
    rank_ctx *r = p;
    r->rc = r->fn(&r->comm, r->arg, &r->err);
    world *w = r->w;
    pthread_mutex_lock(&w->mu);
    if (r->rc && !w->failed)
        w->culprit = r->comm.rank;
    if (r->rc) {
        char why[200];
        snprintf(why, sizeof why, "simulated rank %lld failed: %.150s", (long long)r->comm.rank,
                 r->err.msg);
        world_fail_locked(w, why);
    }
    w->exited++;
    if (!w->failed && w->arrived > 0 && w->arrived + w->exited == w->n)
        world_fail_locked(w, "a simulated rank returned while others wait in a collective");
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

int shc_comm_local_run(int64_t n, shc_rank_fn fn, void *arg, shc_err *errs, shc_err *e)
{
    if (n < 1 || n > 4096)
        return shc_fail(e, SHC_EINVAL, "local backend: %lld simulated ranks (1..4096 supported)",
                        (long long)n);
    world w = {.n = n, .timeout_s = 600, .culprit = -1};
    pthread_mutex_init(&w.mu, NULL);
    pthread_cond_init(&w.cv, NULL);
    w.slots = calloc((size_t)n, sizeof *w.slots);
    rank_ctx *ctx = calloc((size_t)n, sizeof *ctx);
    pthread_t *th = calloc((size_t)n, sizeof *th);
    int rc = SHC_OK;
    if (!w.slots || !ctx || !th) {
        rc = shc_fail(e, SHC_ENOMEM, "local backend: out of memory for %lld ranks", (long long)n);
        goto out;
    }
    int64_t started = 0;
    for (int64_t r = 0; r < n; r++) {
        ctx[r] = (rank_ctx){.w = &w, .fn = fn, .arg = arg,
                            .comm = {&local_ops, r, n, w.timeout_s, &w}};
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setstacksize(&at, 1 << 20);
        int prc = pthread_create(&th[r], &at, rank_main, &ctx[r]);
        pthread_attr_destroy(&at);
        if (prc) {
            pthread_mutex_lock(&w.mu);
            w.exited += n - r;  /* the ranks never started count as gone */
            world_fail_locked(&w, "could not start a thread for every simulated rank");
            pthread_mutex_unlock(&w.mu);
            rc = shc_fail(e, SHC_EINTERNAL, "local backend: cannot start thread for rank %lld",
                          (long long)r);
            break;
        }
        started++;
    }
    for (int64_t r = 0; r < started; r++)
        pthread_join(th[r], NULL);
    if (!rc && w.culprit >= 0) {  /* report the cause, not the ranks it aborted */
        rc = ctx[w.culprit].rc;
        if (e)
            *e = ctx[w.culprit].err;
    }
    for (int64_t r = 0; r < started; r++) {
        free(ctx[r].comm.scratch);
        if (errs)
            errs[r] = ctx[r].err;
        if (!rc && ctx[r].rc) {
            rc = ctx[r].rc;
            if (e)
                *e = ctx[r].err;
        }
    }
out:
    free(w.slots);
    free(ctx);
    free(th);
    pthread_mutex_destroy(&w.mu);
    pthread_cond_destroy(&w.cv);
    return rc;
}
