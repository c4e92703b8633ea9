/*
 * comm_mpi.c — the `mpi` backend: one process per rank under mpirun
 * (OpenMPI).  Built only with HAVE_MPI and linked into the CLI and the
 * bench, never into libshardcheck, so the library has no MPI dependency.
 *
 * Sub-communicators are made from the group rank lists with
 * MPI_Comm_create_group (collective over the members only, so each group
 * forms independently, in list order so the communicator rank is the
 * DeviceMesh group position) and cached for the process's lifetime.  Every
 * collective is OpenMPI's blocking one (its tuned algorithms; the
 * non-blocking ones, libnbc, progress only inside MPI_Test and ran at a
 * third to a half of the speed).  Under a deadline a watchdog guards it: a
 * one-shot POSIX timer aimed at the calling thread fires SIGALRM at the
 * deadline and the handler jumps back out of the collective, which then
 * fails with a timeout error naming the collective and group (never a hung
 * rank); nothing polls.  Creating a sub-communicator waits for every member too, so it
 * runs under the watchdog as well.  After a timeout the communicator refuses further
 * collectives (MPI's state is no longer trusted), and the runner ends the
 * job once it has reported.  Two ops read the caller's data where it lies:
 * all_reduce_to (a ring of MPI_Sendrecv + MPI_Reduce_local into the result,
 * see ring_reduce) and all_to_all_runs (a message per long run, see runs_p2p).
 * float32/64 and int32/64
 * reductions use MPI's own ops (avg = sum, then divided as torch does);
 * bfloat16 and float16, which MPI 3.1 has no type for, are all-gathered and
 * reduced with the shared kernel (comm.c), in group order.
 * Tested by conformance/tests/run_mpi.sh (redistribute-data under mpirun
 * at 1-8 ranks), mpi_comm_run.sh (the two ops against OpenMPI's bytes),
 * mpi_watchdog_run.sh; measured by bench/bench_comm.c.
 */
#include "config.h"
#ifdef HAVE_MPI
#include <mpi.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "comm.h"

#if defined(SIGEV_THREAD_ID) || defined(__linux__)
#define SHC_WATCHDOG 1
#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif
#ifndef SIGEV_THREAD_ID
#define SIGEV_THREAD_ID 4
#endif
#endif

typedef struct cached {
    int n;
    int64_t *ranks;
    MPI_Comm comm;
} cached;

typedef struct mpi_impl {
    cached *c;
    int n, cap;
    bool watchdog;   /* the timer below exists */
    bool broken;     /* a collective timed out: MPI's state is not trusted any more */
    size_t ring_segment; /* all_reduce_to's ring above this segment size on > 2 ranks */
#ifdef SHC_WATCHDOG
    timer_t timer;
#endif
} mpi_impl;

#define IMPL(c) ((mpi_impl *)(c)->impl)

/* ---- the watchdog: a timer signal that jumps out of a stuck collective ---- */

static sigjmp_buf wd_jump;
static volatile sig_atomic_t wd_armed;

static void wd_fire(int sig)
{
    (void)sig;
    if (wd_armed) {
        wd_armed = 0;
        siglongjmp(wd_jump, 1);
    }
}

/* Create the timer, aimed at this (the calling, MPI) thread; false if unavailable. */
static bool wd_create(mpi_impl *m)
{
#ifdef SHC_WATCHDOG
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = wd_fire;
    sigemptyset(&sa.sa_mask);
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = SIGALRM;
    ev.sigev_notify_thread_id = (pid_t)syscall(SYS_gettid);
    return sigaction(SIGALRM, &sa, NULL) == 0 &&
           timer_create(CLOCK_MONOTONIC, &ev, &m->timer) == 0;
#else
    (void)m;
    return false;
#endif
}

static void wd_set(mpi_impl *m, double seconds)
{
#ifdef SHC_WATCHDOG
    struct itimerspec it;
    memset(&it, 0, sizeof it);
    it.it_value.tv_sec = (time_t)seconds;
    it.it_value.tv_nsec = (long)((seconds - (double)(time_t)seconds) * 1e9);
    timer_settime(m->timer, 0, &it, NULL);
#else
    (void)m, (void)seconds;
#endif
}

static int group_str(const int64_t *g, int n, char *buf, size_t sz)
{
    size_t k = 0;
    for (int i = 0; i < n && k + 24 < sz; i++)
        k += (size_t)snprintf(buf + k, sz - k, i ? ",%lld" : "[%lld", (long long)g[i]);
    snprintf(buf + k, sz - k, "]");
    return 0;
}

static int timeout_err(shc_comm *c, const char *what, const int64_t *group, int n, shc_err *e);

/* MPI_Comm_create_group waits for every member: one that never comes (hung before its first
 * collective on a new group) must be a timeout like a stuck collective's, not a hung rank.
 * Defined after GUARDED. */
static int create_group(shc_comm *c, MPI_Group g, const int64_t *group, int n, MPI_Comm *nc,
                        shc_err *e);

static int get_comm(shc_comm *c, const int64_t *group, int n, MPI_Comm *out, shc_err *e)
{
    mpi_impl *m = IMPL(c);
    for (int i = 0; i < m->n; i++)
        if (m->c[i].n == n && !memcmp(m->c[i].ranks, group, (size_t)n * sizeof *group)) {
            *out = m->c[i].comm;
            return SHC_OK;
        }
    int *rl = malloc((size_t)n * sizeof *rl);
    int64_t *copy = malloc((size_t)n * sizeof *copy);
    if (m->n == m->cap) { /* on failure the cache keeps its communicators and capacity */
        int cap = m->cap ? 2 * m->cap : 32;
        cached *nc = realloc(m->c, (size_t)cap * sizeof *nc);
        if (nc)
            m->c = nc, m->cap = cap;
    }
    if (!rl || !copy || m->n == m->cap) {
        free(rl), free(copy);
        return shc_fail(e, SHC_ENOMEM, "mpi: out of memory for a communicator");
    }
    for (int i = 0; i < n; i++) {
        if (group[i] < 0 || group[i] >= c->size) {
            free(rl), free(copy);
            return shc_fail(e, SHC_EINVAL, "mpi: group rank %lld outside the %lld processes",
                            (long long)group[i], (long long)c->size);
        }
        rl[i] = (int)group[i];
    }
    memcpy(copy, group, (size_t)n * sizeof *copy);
    MPI_Group wg, g;
    MPI_Comm nc;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_incl(wg, n, rl, &g);
    int rc = create_group(c, g, group, n, &nc, e);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    free(rl);
    if (rc) {
        free(copy);
        return rc;
    }
    MPI_Comm_set_errhandler(nc, MPI_ERRORS_RETURN);
    m->c[m->n++] = (cached){n, copy, nc};
    *out = nc;
    return SHC_OK;
}

static int timeout_err(shc_comm *c, const char *what, const int64_t *group, int n, shc_err *e)
{
    char g[256];
    group_str(group, n, g, sizeof g);
    return shc_fail(e, SHC_EINTERNAL, "mpi: timeout: %s on group %s did not complete within "
                    "%.0f s (a peer died or hangs)", what, g, c->timeout_s);
}

/* Run the blocking MPI call CALL (an expression) under the watchdog; on a
 * timeout or an MPI error, return from the enclosing function with the error.
 * sigsetjmp must be in the frame that stays live, hence a macro. */
#define GUARDED(c, what, group, n, e, CALL)                                     \
    do {                                                                        \
        mpi_impl *m_ = IMPL(c);                                                 \
        if (m_->broken)                                                         \
            return timeout_err(c, what, group, n, e);                           \
        bool arm_ = (c)->timeout_s > 0 && m_->watchdog;                         \
        if (arm_) {                                                             \
            if (sigsetjmp(wd_jump, 1)) {                                        \
                m_->broken = true;                                              \
                return timeout_err(c, what, group, n, e);                       \
            }                                                                   \
            wd_armed = 1;                                                       \
            wd_set(m_, (c)->timeout_s);                                         \
        }                                                                       \
        int mrc_ = (CALL);                                                      \
        if (arm_) {                                                             \
            wd_armed = 0;                                                       \
            wd_set(m_, 0);                                                      \
        }                                                                       \
        if (mrc_ != MPI_SUCCESS)                                                \
            return shc_fail(e, SHC_EINTERNAL, "mpi: %s failed (MPI error %d)", what, mrc_); \
    } while (0)

static int create_group(shc_comm *c, MPI_Group g, const int64_t *group, int n, MPI_Comm *nc,
                        shc_err *e)
{
    GUARDED(c, "MPI_Comm_create_group", group, n, e,
            MPI_Comm_create_group(MPI_COMM_WORLD, g, 4242, nc));
    return SHC_OK;
}

static int fits(size_t v, shc_err *e)
{
    return v <= INT_MAX ? SHC_OK
                        : shc_fail(e, SHC_EUNSUPPORTED, "mpi: %zu bytes exceed an int count", v);
}

static int m_all_gather(shc_comm *c, const int64_t *group, int n, const void *send, size_t bytes,
                        void *recv, shc_err *e)
{
    MPI_Comm mc;
    int rc = fits(bytes, e);
    if (rc || (rc = get_comm(c, group, n, &mc, e)))
        return rc;
    GUARDED(c, "all_gather", group, n, e,
            MPI_Allgather(send, (int)bytes, MPI_BYTE, recv, (int)bytes, MPI_BYTE, mc));
    return SHC_OK;
}

static int gatherv(shc_comm *c, const int64_t *group, int n, const void *send, const int *cnt,
                   const int *dis, int pos, void *recv, MPI_Comm mc, shc_err *e)
{
    GUARDED(c, "all_gatherv", group, n, e,
            MPI_Allgatherv(send, cnt[pos], MPI_BYTE, recv, cnt, dis, MPI_BYTE, mc));
    return SHC_OK;
}

static int m_all_gatherv(shc_comm *c, const int64_t *group, int n, const void *send,
                         const size_t *counts, void *recv, shc_err *e)
{
    MPI_Comm mc;
    int pos, rc = shc_comm_group_pos(c, group, n, &pos, e);
    int *cnt = malloc((size_t)n * sizeof *cnt), *dis = malloc((size_t)n * sizeof *dis);
    size_t off = 0;
    if (!cnt || !dis)
        rc = shc_fail(e, SHC_ENOMEM, "out of memory");
    for (int j = 0; !rc && j < n; j++) {
        if (!(rc = fits(off + counts[j], e))) {
            cnt[j] = (int)counts[j];
            dis[j] = (int)off;
            off += counts[j];
        }
    }
    if (!rc)
        rc = get_comm(c, group, n, &mc, e);
    if (!rc)
        rc = gatherv(c, group, n, send, cnt, dis, pos, recv, mc, e);
    free(cnt), free(dis);
    return rc;
}

static int m_all_to_all(shc_comm *c, const int64_t *group, int n, const void *send, size_t bytes,
                        void *recv, shc_err *e)
{
    MPI_Comm mc;
    int rc = fits(bytes * (size_t)n, e);
    if (rc || (rc = get_comm(c, group, n, &mc, e)))
        return rc;
    GUARDED(c, "all_to_all", group, n, e,
            MPI_Alltoall(send, (int)bytes, MPI_BYTE, recv, (int)bytes, MPI_BYTE, mc));
    return SHC_OK;
}

/* MPI's type and op for a native reduction; false when MPI has none. */
static bool native(shc_dtype t, shc_redop op, MPI_Datatype *dt, MPI_Op *mo)
{
    switch (t) {
    case SHC_DT_FLOAT32: *dt = MPI_FLOAT; break;
    case SHC_DT_FLOAT64: *dt = MPI_DOUBLE; break;
    case SHC_DT_INT32: *dt = MPI_INT32_T; break;
    case SHC_DT_INT64: *dt = MPI_INT64_T; break;
    default: return false;
    }
    switch (op) {
    case SHC_OP_SUM: case SHC_OP_AVG: *mo = MPI_SUM; break;
    case SHC_OP_MIN: *mo = MPI_MIN; break;
    case SHC_OP_MAX: *mo = MPI_MAX; break;
    case SHC_OP_PRODUCT: *mo = MPI_PROD; break;
    case SHC_OP_BAND: *mo = MPI_BAND; break;
    case SHC_OP_BOR: *mo = MPI_BOR; break;
    default: *mo = MPI_BXOR; break;
    }
    return true;
}

static int check_op(shc_dtype t, shc_redop op, shc_err *e)
{
    if (!shc_dtype_is_int(t) && (op == SHC_OP_BAND || op == SHC_OP_BOR || op == SHC_OP_BXOR))
        return shc_fail(e, SHC_EINVAL, "reduce op %s is not defined for %s tensors",
                        shc_redop_name(op), shc_dtype_name(t));
    return SHC_OK;
}

/* Gather every member's n blocks, reduce block `blk` in group order into out. */
static int gather_reduce(shc_comm *c, const int64_t *group, int n, const void *send,
                         size_t count, size_t nblocks, int blk, void *out, shc_dtype t,
                         shc_redop op, shc_err *e)
{
    size_t es = shc_dtype_size(t), bb = count * es, all = bb * nblocks;
    char *buf = malloc(all * (size_t)n + 1);
    if (!buf)
        return shc_fail(e, SHC_ENOMEM, "out of memory");
    int rc = m_all_gather(c, group, n, send, all, buf, e);
    for (int j = 0; !rc && j < n; j++) {
        const char *src = buf + (size_t)j * all + (size_t)blk * bb;
        if (j == 0)
            memcpy(out, src, bb);
        else
            rc = shc_reduce_into(out, src, count, t, op, e);
    }
    free(buf);
    if (!rc && op == SHC_OP_AVG)
        shc_div_scalar(out, count, t, n);
    return rc;
}

/* How a reducing collective goes, as reduce_begin decides it. */
typedef struct mreduce {
    bool native;      /* MPI reduces t with op itself; else gather_reduce does it here */
    int pos;          /* the caller's position in the group */
    MPI_Datatype dt;  /* the rest only where native */
    MPI_Op mo;
    MPI_Comm mc;
} mreduce;

/* The start reduce_scatter and all_reduce_to share: op and group checked, and where MPI
 * reduces natively count checked against MPI's int counts and the group's communicator
 * found, in that order, so both refuse the same input with the same message. */
static int reduce_begin(shc_comm *c, const int64_t *group, int n, size_t count, shc_dtype t,
                        shc_redop op, mreduce *r, shc_err *e)
{
    int rc = check_op(t, op, e);
    if (rc || (rc = shc_comm_group_pos(c, group, n, &r->pos, e)))
        return rc;
    r->native = native(t, op, &r->dt, &r->mo);
    if (r->native && ((rc = fits(count, e)) || (rc = get_comm(c, group, n, &r->mc, e))))
        return rc;
    return SHC_OK;
}

static int m_reduce_scatter(shc_comm *c, const int64_t *group, int n, const void *send,
                            size_t count, void *recv, shc_dtype t, shc_redop op, shc_err *e)
{
    mreduce r;
    int rc = reduce_begin(c, group, n, count, t, op, &r, e);
    if (rc)
        return rc;
    if (!r.native)
        return gather_reduce(c, group, n, send, count, (size_t)n, r.pos, recv, t, op, e);
    GUARDED(c, "reduce_scatter", group, n, e,
            MPI_Reduce_scatter_block(send, recv, (int)count, r.dt, r.mo, r.mc));
    if (op == SHC_OP_AVG)
        shc_div_scalar(recv, count, t, n);
    return rc;
}

static int m_all_reduce(shc_comm *c, const int64_t *group, int n, void *buf, size_t count,
                        shc_dtype t, shc_redop op, shc_err *e)
{
    MPI_Datatype dt;
    MPI_Op mo;
    MPI_Comm mc;
    int rc = check_op(t, op, e);
    if (rc)
        return rc;
    if (!native(t, op, &dt, &mo)) {
        size_t bb = count * shc_dtype_size(t);
        void *tmp = malloc(bb + 1);
        if (!tmp)
            return shc_fail(e, SHC_ENOMEM, "out of memory");
        memcpy(tmp, buf, bb);
        rc = gather_reduce(c, group, n, tmp, count, 1, 0, buf, t, op, e);
        free(tmp);
        return rc;
    }
    if ((rc = fits(count, e)) || (rc = get_comm(c, group, n, &mc, e)))
        return rc;
    GUARDED(c, "all_reduce", group, n, e,
            MPI_Allreduce(MPI_IN_PLACE, buf, (int)count, dt, mo, mc));
    if (op == SHC_OP_AVG)
        shc_div_scalar(buf, count, t, n);
    return rc;
}

/* Elements before segment k when count elements are cut into n near-equal segments. */
static size_t seg(size_t count, int n, int k)
{
    return (size_t)k * count / (size_t)n;
}

/* Ring all-reduce out of place on communicator mc (this rank is pos of n): n-1
 * reduce-scatter steps, then n-1 all-gather steps, each a Sendrecv to the right
 * neighbour.  A segment's partial reduction is received straight into recv and this
 * rank's own send is folded into it there (MPI_Reduce_local: recv = send op recv), so
 * the input is read where it lies and nothing is copied first; MPI_Allreduce out of
 * place copies send into recv before it starts, which is the pass this saves.  Each
 * segment is reduced once, along one chain, then passed on as is, so every member ends
 * with the same bits.  Returns an MPI error code. */
static int ring_reduce(const char *send, char *recv, size_t count, size_t es, MPI_Datatype dt,
                       MPI_Op mo, int pos, int n, MPI_Comm mc)
{
    int right = (pos + 1) % n, left = (pos + n - 1) % n, rc = MPI_SUCCESS;
    for (int k = 0; k < n - 1 && rc == MPI_SUCCESS; k++) {
        int ss = (pos - k + n) % n, rs = (pos - k - 1 + 2 * n) % n;
        size_t so = seg(count, n, ss), ro = seg(count, n, rs);
        int sn = (int)(seg(count, n, ss + 1) - so), rn = (int)(seg(count, n, rs + 1) - ro);
        rc = MPI_Sendrecv((k ? recv : send) + so * es, sn, dt, right, 0, recv + ro * es, rn, dt,
                          left, 0, mc, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS && rn)
            rc = MPI_Reduce_local(send + ro * es, recv + ro * es, rn, dt, mo);
    }
    for (int k = 0; k < n - 1 && rc == MPI_SUCCESS; k++) {
        int ss = (pos + 1 - k + n) % n, rs = (pos - k + n) % n;
        size_t so = seg(count, n, ss), ro = seg(count, n, rs);
        rc = MPI_Sendrecv(recv + so * es, (int)(seg(count, n, ss + 1) - so), dt, right, 1,
                          recv + ro * es, (int)(seg(count, n, rs + 1) - ro), dt, left, 1, mc,
                          MPI_STATUS_IGNORE);
    }
    return rc;
}

/* Below this many bytes MPI's own latency-bound algorithms beat the 2(n-1)-step ring. */
#define RING_MIN_BYTES ((size_t)64 << 10)
/* On more than 2 ranks the ring's 2(n-1) steps each wait for a neighbour to be
 * scheduled; below about this segment size MPI's own algorithms may win.  Measured with
 * bench_comm, ratio to raw MPI (median of 5 interleaved runs, 2-core machine): at np 4
 * with 256 KiB segments (1 MiB) the ring 1.29x against MPI_Allreduce out of place 0.93x,
 * 1 MiB segments 1.04x against 0.68x, 2 MiB 1.06x against 0.72x; np 3 alike.  (An
 * earlier measurement under a load of 9-15 found the ring behind up to 4 MiB segments:
 * more ranks than cores punish the ring's waits most.)  Below 256 KiB it is unmeasured
 * (bench_comm starts at 1 MiB), so MPI decides there.
 * SHC_MPI_RING_SEGMENT=BYTES overrides it (mpi_comm_run.sh sets 0 to test the ring). */
#define RING_SEGMENT_DEFAULT ((size_t)256 << 10)

static int m_all_reduce_to(shc_comm *c, const int64_t *group, int n, const void *send,
                           void *recv, size_t count, shc_dtype t, shc_redop op, shc_err *e)
{
    mreduce r;
    int rc = reduce_begin(c, group, n, count, t, op, &r, e);
    if (rc)
        return rc;
    if (!r.native)
        return gather_reduce(c, group, n, send, count, 1, 0, recv, t, op, e);
    size_t es = shc_dtype_size(t);
    bool ring = count * es >= RING_MIN_BYTES && count >= (size_t)n &&
                (n == 2 || count * es / (size_t)n >= IMPL(c)->ring_segment);
    GUARDED(c, "all_reduce", group, n, e,
            ring ? ring_reduce(send, recv, count, es, r.dt, r.mo, r.pos, n, r.mc)
                 : MPI_Allreduce(send, recv, (int)count, r.dt, r.mo, r.mc));
    if (op == SHC_OP_AVG)
        shc_div_scalar(recv, count, t, n);
    return rc;
}

/* Runs at least this long go as messages of their own: OpenMPI's shared-memory
 * transport copies a contiguous message above its eager limit once, straight from
 * the sender's memory (CMA), while a derived datatype or a packed copy costs a
 * second pass; and on an oversubscribed machine a non-contiguous message, moved in
 * 32 KiB fragments that each wait for the peer to be scheduled, ran at a tenth of
 * the speed (bench_comm).  Shorter runs are packed once into the reused scratch.
 * bench_comm at np 4, ratio to raw MPI_Alltoall, median of 7 interleaved runs on the quiet
 * machine: 64 KiB runs (4 MiB) as messages 1.01x against the pack's 0.78x; 32 KiB
 * runs 0.74x against 0.77x, 16 KiB 0.60x against 0.77x.  (Under a load of 9-15, 64 KiB
 * messages had been no faster than the pack.) */
#define RUN_MSG_MIN ((size_t)64 << 10)
/* ... and at most this many messages per peer, so that a wide tensor's many runs
 * do not flood the transport. */
#define RUN_MSG_MAX 64

/* all_to_all_runs as one message per run: post every receive, then every send (in
 * run order, so MPI's non-overtaking rule matches run o to run o), copy this rank's
 * own block locally, wait.  Returns an MPI error code. */
static int runs_p2p(const char *send, size_t run, size_t runs, size_t stride, char *recv, int pos,
                    int n, MPI_Comm mc, MPI_Request *rq)
{
    size_t bb = run * runs;
    int k = 0, rc = MPI_SUCCESS;
    for (int d = 1; d < n && rc == MPI_SUCCESS; d++) {
        int from = (pos - d + n) % n;
        for (size_t o = 0; o < runs && rc == MPI_SUCCESS; o++)
            rc = MPI_Irecv(recv + (size_t)from * bb + o * run, (int)run, MPI_BYTE, from, 2, mc,
                           &rq[k++]);
    }
    for (int d = 1; d < n && rc == MPI_SUCCESS; d++) {
        int to = (pos + d) % n;
        for (size_t o = 0; o < runs && rc == MPI_SUCCESS; o++)
            rc = MPI_Isend(send + (size_t)to * run + o * stride, (int)run, MPI_BYTE, to, 2, mc,
                           &rq[k++]);
    }
    for (size_t o = 0; o < runs; o++)
        memcpy(recv + (size_t)pos * bb + o * run, send + (size_t)pos * run + o * stride, run);
    int wrc = MPI_Waitall(k, rq, MPI_STATUSES_IGNORE);
    return rc != MPI_SUCCESS ? rc : wrc;
}

static int runs_guarded(shc_comm *c, const int64_t *group, int n, const void *send, size_t run,
                        size_t runs, size_t stride, void *recv, int pos, MPI_Comm mc,
                        MPI_Request *rq, shc_err *e)
{
    GUARDED(c, "all_to_all", group, n, e, runs_p2p(send, run, runs, stride, recv, pos, n, mc, rq));
    return SHC_OK;
}

/* all_to_all from strided blocks without a pack pass where the runs are long: each
 * run is a contiguous message (runs_p2p); short runs are packed once into the
 * communicator's reused buffer and sent with MPI_Alltoall. */
static int m_all_to_all_runs(shc_comm *c, const int64_t *group, int n, const void *send,
                             size_t run, size_t runs, size_t stride, void *recv, shc_err *e)
{
    MPI_Comm mc;
    size_t bb = run * runs;
    int pos, rc = fits(bb * (size_t)n, e);
    if (rc || (rc = shc_comm_group_pos(c, group, n, &pos, e)))
        return rc;
    if (run < RUN_MSG_MIN || runs > RUN_MSG_MAX) {
        char *pack = shc_comm_scratch(c, bb * (size_t)n + 1);
        if (!pack)
            return shc_fail(e, SHC_ENOMEM, "out of memory");
        for (int j = 0; j < n; j++)
            for (size_t o = 0; o < runs; o++)
                memcpy(pack + (size_t)j * bb + o * run,
                       (const char *)send + (size_t)j * run + o * stride, run);
        return m_all_to_all(c, group, n, pack, bb, recv, e);
    }
    if ((rc = get_comm(c, group, n, &mc, e)))
        return rc;
    MPI_Request *rq = malloc(2 * (size_t)n * runs * sizeof *rq);
    if (!rq)
        return shc_fail(e, SHC_ENOMEM, "out of memory");
    rc = runs_guarded(c, group, n, send, run, runs, stride, recv, pos, mc, rq, e);
    free(rq);
    return rc;
}

static void m_destroy(shc_comm *c)
{
    mpi_impl *m = IMPL(c);
    for (int i = 0; i < m->n; i++) {
        MPI_Comm_free(&m->c[i].comm);
        free(m->c[i].ranks);
    }
#ifdef SHC_WATCHDOG
    if (m->watchdog)
        timer_delete(m->timer);
#endif
    free(m->c);
    free(c->scratch);
    free(m);
    free(c);
}

static const shc_comm_ops mpi_ops = {
    "mpi", m_all_gather, m_all_gatherv, m_all_to_all, m_reduce_scatter, m_all_reduce, m_destroy,
    m_all_reduce_to, m_all_to_all_runs,
};

int shc_comm_mpi_new(shc_comm **out, double timeout_s, shc_err *e)
{
    int init = 0, rank, size;
    MPI_Initialized(&init);
    if (!init)
        return shc_fail(e, SHC_EINVAL, "mpi backend: MPI is not initialised");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    shc_comm *c = calloc(1, sizeof *c);
    mpi_impl *m = calloc(1, sizeof *m);
    if (!c || !m) {
        free(c), free(m);
        return shc_fail(e, SHC_ENOMEM, "out of memory");
    }
    *c = (shc_comm){&mpi_ops, rank, size, timeout_s, m, NULL, 0};
    m->watchdog = timeout_s > 0 && wd_create(m);
    const char *rs = getenv("SHC_MPI_RING_SEGMENT");
    m->ring_segment = rs && *rs ? (size_t)strtoull(rs, NULL, 10) : RING_SEGMENT_DEFAULT;
    *out = c;
    return SHC_OK;
}
#endif
