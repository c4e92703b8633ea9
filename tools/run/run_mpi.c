/*
 * run_mpi.c — `shardcheck run --backend mpi`: mesh ranks spread over the
 * processes of an mpirun job.
 *
 * Every process walks the same golden cases in the same order.  For a case
 * of world W under `mpirun -np N`, process p hosts the contiguous block of
 * mesh ranks shc_comm_host_block(W, p, N) gives (one rank each on the first W
 * processes when W <= N, the others idle; blocks of W/N or one more when
 * W > N) and computes every hosted rank's view: redistribute-data executes
 * the plan for real — over MPI sub-communicators (comm_mpi.c) when each
 * process hosts one rank, over the hosted communicator (comm_hosted.c: a
 * thread per hosted rank, messages between processes over MPI) when it hosts
 * several — and checks its bytes against the oracle; other families run
 * compute_rank for the block in a forked worker under the per-case limit
 * (run_check.c), so a killed or hung computation is Crash or Timeout for that
 * case and the run goes on.  Each process sends its block's outcome to rank 0,
 * which waits with MPI_Iprobe polling under a deadline and checks every rank's
 * view together; a process that never answers (stuck outside any worker, or
 * stopped) is Timeout, after which the run is out of step: rank 0 goes on
 * alone (run_mpi_lost_chunk), so every case is reported, then calls
 * MPI_Abort.  Before the first case the ranks agree on their checks
 * (run_mpi_first_failing); MPI_Init and MPI_Finalize run under an alarm, so a
 * rank that never starts or never finishes cannot hang the job.  A process
 * that dies outright is OpenMPI's to handle: mpirun ends the job;
 * tools/run/mpirun_runner.sh turns that into a Crash line and a summary.
 * Tested by conformance/tests/run_mpi.sh, run_hosted.sh and run_faults.sh.
 */
#include "config.h"
#include <assert.h>
#include "run.h"
#ifdef HAVE_MPI
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "run.h"
#include "comm.h"
#include "redistribute_exec.h"
#include "run_lean.h"
#include "run_child.h"

#define now_s run_child_now /* run_child.c: the monotonic clock, in seconds */

/* Wait for rq, polling under a deadline (nothing blocks on a stopped or dead peer). */
static bool wait_until(MPI_Request *rq, double deadline)
{
    int done = 0;
    while (!done) {
        if (MPI_Test(rq, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS || (!done && now_s() > deadline))
            return false;
        if (!done)
            usleep(50);
    }
    return true;
}

/* MPI_Init waits for every rank: one stopped or never started keeps it waiting for ever.
 * Rank 0 says so and the process ends (mpirun then ends the job); no case has run. */
static void init_stuck(int sig)
{
    (void)sig;
    const char *r = getenv("OMPI_COMM_WORLD_RANK");
    static const char msg[] = "Crash         the mpi job did not start: MPI_Init did not complete "
                              "within the limit (a rank stopped or never started)\n"
                              "0 passed, 1 failed, 0 skipped\n";
    if (!r || !strcmp(r, "0")) {
        ssize_t w = write(STDOUT_FILENO, msg, sizeof msg - 1);
        (void)w;
    }
    _exit(1); /* failures: the closing line above counts one */
}

int run_mpi_init(run_opts *o, int *argc, char ***argv)
{
    int rank, size;
    struct sigaction sa = {.sa_handler = init_stuck}, old;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, &old);
    alarm((unsigned)o->timeout_s + 60); /* ranks start in seconds; the case limit on top */
    int ok = MPI_Init(argc, argv) == MPI_SUCCESS;
    alarm(0);
    sigaction(SIGALRM, &old, NULL); /* comm_mpi.c's watchdog uses SIGALRM too */
    if (!ok) {
        fputs("shardcheck run: MPI_Init failed\n", stderr);
        return -1;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    o->rank = rank;
    o->nprocs = size;
    shc_err e = {0};
    if (shc_comm_mpi_new(&o->comm, o->timeout_s, &e)) {
        fprintf(stderr, "shardcheck run: %s\n", e.msg);
        return -1;
    }
    return 0;
}

/* The job cannot finish cleanly once a rank stopped answering (MPI_Finalize would wait for
 * it): rank 0, whose report is out, ends it with MPI_Abort.  Its stdout and stderr are
 * closed first and given a moment, so mpirun forwards the report whole before it kills the
 * job.  Any other rank that found the job out of step waits for that while its parent
 * (mpirun's daemon) lives, and ends the job itself only after RUN_MPI_LOST_WAIT s (rank 0
 * itself stuck: nobody can report). */
#define RUN_MPI_LOST_WAIT 3600
static void end_lost_job(const run_opts *o)
{
    if (o->rank == 0) {
        fputs("shardcheck run: a rank stopped answering; ending the job with MPI_Abort\n",
              stderr);
        fflush(NULL);
        fclose(stdout);
        fclose(stderr);
        usleep(300000);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    pid_t parent = getppid();
    for (int i = 0; i < RUN_MPI_LOST_WAIT && getppid() == parent; i++)
        sleep(1);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* MPI_Finalize waits for every rank: one stopped after its last case would keep it waiting
 * for ever.  The report is out by then; the process ends and mpirun ends the job. */
static void finalize_stuck(int sig)
{
    (void)sig;
    static const char msg[] = "shardcheck run: MPI_Finalize did not complete within the limit: "
                              "a rank stopped after its last case\n";
    ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)w;
    _exit(1);
}

void run_mpi_finish(const run_opts *o, int lost)
{
    fflush(NULL);
    if (lost)
        end_lost_job(o);
    if (o->comm)
        o->comm->ops->destroy(o->comm);
    struct sigaction sa = {.sa_handler = finalize_stuck};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    alarm((unsigned)o->timeout_s + 60);
    MPI_Finalize();
    alarm(0);
}


/* MPI_Ibarrier on every process, polled under the case limit. */
static bool world_barrier(const run_opts *o)
{
    MPI_Request rq;
    return MPI_Ibarrier(MPI_COMM_WORLD, &rq) == MPI_SUCCESS &&
           wait_until(&rq, now_s() + o->timeout_s);
}

int64_t run_mpi_first_failing(run_opts *o, bool failed)
{
    int mine = failed ? (int)o->rank : (int)o->nprocs, low = 0;
    MPI_Request rq;
    /* every rank checked the files it reads itself (they may be on different nodes); the
     * lowest failing one speaks, so the message appears once and no rank goes on alone */
    if (MPI_Iallreduce(&mine, &low, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD, &rq) != MPI_SUCCESS ||
        !wait_until(&rq, now_s() + o->timeout_s + 10)) {
        o->lost = 1;
        return -1;
    }
    return low;
}

/* The line of text holding key (a line's start up to and with its first '=', or the whole
 * line without one), as a length and start; NULL when none. */
static const char *line_with_key(const char *text, const char *line, size_t len, size_t *out)
{
    const char *eq = memchr(line, '=', len);
    size_t k = eq ? (size_t)(eq - line) + 1 : len;
    for (const char *p = text; *p;) {
        size_t l = strcspn(p, "\n");
        if (l >= k && !memcmp(p, line, k) && (eq || l == k)) {
            *out = l;
            return p;
        }
        p += l + (p[l] == '\n');
    }
    return NULL;
}

/* Whether two settings texts differ: 0, or 1 with msg saying the first line of one the other
 * lacks and the other's line for the same key (a variable set on one side only, or valued
 * differently). */
static int settings_differ(const char *mine, const char *theirs, char *msg, size_t n)
{
    for (int side = 0; side < 2; side++) {
        const char *a = side ? theirs : mine, *b = side ? mine : theirs;
        for (const char *p = a; *p;) {
            size_t l = strcspn(p, "\n"), ol;
            const char *same = line_with_key(b, p, l, &ol);
            if (!same || ol != l || memcmp(same, p, l)) {
                const char *o = same ? same : "(no such setting)";
                int lo = same ? (int)(ol < 300 ? ol : 300) : 17, lp = (int)(l < 300 ? l : 300);
                if (!side)
                    snprintf(msg, n, "here '%.*s', on rank 0 '%.*s'", lp, p, lo, o);
                else
                    snprintf(msg, n, "here '%.*s', on rank 0 '%.*s'", lo, o, lp, p);
                return 1;
            }
            p += l + (p[l] == '\n');
        }
    }
    return 0;
}

int run_mpi_local_rank(void)
{
    MPI_Comm node;
    int lr = 0;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) ==
        MPI_SUCCESS) {
        MPI_Comm_rank(node, &lr);
        MPI_Comm_free(&node);
    }
    return lr;
}

/* Rank 0's settings text reaches every rank (length, then bytes, under the deadline); a rank
 * whose own differs names the first differing line, its host and rank 0's. */
int run_mpi_settings_agree(run_opts *o, const char *mine, char *msg, size_t n)
{
    char host[64] = "?", host0[64] = "?";
    gethostname(host, sizeof host - 1);
    memcpy(host0, host, sizeof host0);
    long long len = (long long)strlen(mine);
    MPI_Request rq;
    double deadline = now_s() + o->timeout_s + 10;
    bool ok = MPI_Ibcast(&len, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD, &rq) == MPI_SUCCESS &&
              wait_until(&rq, deadline) &&
              MPI_Ibcast(host0, (int)sizeof host0, MPI_CHAR, 0, MPI_COMM_WORLD, &rq) ==
                  MPI_SUCCESS && wait_until(&rq, deadline);
    char *theirs = ok && len >= 0 && len < (1 << 24) ? calloc((size_t)len + 1, 1) : NULL;
    if (theirs && o->rank == 0)
        memcpy(theirs, mine, (size_t)len);
    ok = ok && theirs && MPI_Ibcast(theirs, (int)len, MPI_CHAR, 0, MPI_COMM_WORLD, &rq) ==
                         MPI_SUCCESS && wait_until(&rq, deadline);
    if (!ok) {
        free(theirs);
        o->lost = 1;
        snprintf(msg, n, "rank %lld (host %s): the settings of rank 0 did not arrive",
                 (long long)o->rank, host);
        return -1;
    }
    host0[sizeof host0 - 1] = '\0';
    int d = settings_differ(mine, theirs, msg, n);
    if (d) { /* who and where before what */
        char what[512];
        snprintf(what, sizeof what, "%s", msg);
        snprintf(msg, n, "rank %lld (host %s) does not agree with rank 0 (host %s) on its "
                 "settings: %s (mpirun passes remote ranks only the variables -x names; see "
                 "README \"Multi-node jobs\")", (long long)o->rank, host, host0, what);
    }
    free(theirs);
    return d;
}

static run_status worse(run_status a, run_status b);

/* A family with an exec.over_comm hook (redistribute-data) executes mesh rank `rank`'s part
 * over comm; a communicator timeout names itself "mpi: timeout". */
static run_status mpi_comm_view(const run_opts *o, shc_comm *comm, int64_t rank,
                                const shc_family *f, const json_t *group, const json_t *test,
                                json_t **view, char *msg, size_t n)
{
    (void)o;
    shc_err e = {0};
    int rc = f->exec.over_comm(comm, group, test, rank, view, &e);
    if (!rc)
        return RUN_PASS;
    snprintf(msg, n, "rank %lld: %s", (long long)rank, e.msg);
    return strstr(e.msg, "mpi: timeout") ? RUN_TIMEOUT : RUN_INTERNAL;
}

/* The hosted ranks of one case, each on its thread (comm_hosted.c). */
typedef struct hosted_case {
    const run_opts *o;
    const shc_family *f;
    const json_t *group, *test;
    int64_t first;
    json_t **views;
    run_status *st;
    char (*msg)[768];
} hosted_case;

static int hosted_rank(shc_comm *c, void *arg, shc_err *e)
{
    hosted_case *h = arg;
    int64_t i = c->rank - h->first;
    h->st[i] = h->o->be->comm_view(h->o, c, c->rank, h->f, h->group, h->test, &h->views[i],
                                   h->msg[i], sizeof h->msg[i]);
    if (h->st[i] == RUN_PASS)
        return SHC_OK;
    /* the others' collectives then fail instead of waiting for this rank */
    return shc_fail(e, h->st[i] == RUN_TIMEOUT ? SHC_EIO : SHC_EINTERNAL, "%s", h->msg[i]);
}

/* This process's hosted ranks of a case of world > nprocs (every process hosts some),
 * into mine (first, count set): the worst rank's status and message. */
static void hosted_views(const run_opts *o, const shc_family *f, const json_t *group,
                         const json_t *test, run_outcome *mine)
{
    int64_t c = mine->count;
    hosted_case h = {o, f, group, test, mine->first, calloc((size_t)c, sizeof *h.views),
                     calloc((size_t)c, sizeof *h.st), calloc((size_t)c, sizeof *h.msg)};
    mine->views = h.views;
    if (!h.views || !h.st || !h.msg) {
        mine->status = RUN_INTERNAL;
        snprintf(mine->msg, sizeof mine->msg, "out of memory for %lld hosted ranks",
                 (long long)c);
    } else {
        shc_err e = {0};
        int rc = shc_comm_hosted_run(mine->world, o->timeout_s, hosted_rank, &h, NULL, &e);
        mine->status = RUN_PASS;
        for (int64_t i = 0; i < c; i++)
            if (worse(mine->status, h.st[i]) != mine->status) {
                mine->status = h.st[i];
                snprintf(mine->msg, sizeof mine->msg, "%s", h.msg[i]);
            }
        if (rc && mine->status == RUN_PASS) { /* the communicator's own failure */
            mine->status = strstr(e.msg, "mpi: timeout") ? RUN_TIMEOUT : RUN_INTERNAL;
            snprintf(mine->msg, sizeof mine->msg, "ranks %lld..%lld: %s",
                     (long long)mine->first, (long long)(mine->first + c - 1), e.msg);
        }
    }
    free(h.st);
    free(h.msg);
}

/* Worse of two statuses for the combined case result. */
static run_status worse(run_status a, run_status b)
{
    static const int rank[] = {0, 2, 1, 4, 3, 5}; /* Pass < NotSupported < Fail < ... */
    _Static_assert(sizeof rank / sizeof rank[0] == RUN_NSTATUS, "one rank per run_status");
    assert((unsigned)a < RUN_NSTATUS && (unsigned)b < RUN_NSTATUS);
    return rank[b] > rank[a] ? b : a;
}

static void comm_outcomes(run_opts *o, const shc_family *f, const shc_golden *g,
                          const int64_t *idx, int64_t n, const run_outcome *all,
                          run_outcome *mine);

/* This process's outcomes for the chunk: its hosted block of each case's ranks
 * (NotSupported where it hosts none). */
static void my_outcomes(run_opts *o, const shc_family *f, const shc_golden *g,
                        const int64_t *idx, int64_t n, const run_outcome *all, run_outcome *mine)
{
    for (int64_t k = 0; k < n; k++) {
        mine[k] = (run_outcome){.world = all[k].world};
        if (all[k].status != RUN_NOTSUPPORTED)
            shc_comm_host_block(all[k].world, o->rank, o->nprocs, &mine[k].first,
                                &mine[k].count);
        if (all[k].status == RUN_NOTSUPPORTED || mine[k].count == 0)
            mine[k].status = RUN_NOTSUPPORTED;
    }
    if (o->be->job_outcomes) { /* torch: its worker */
        o->be->job_outcomes(o, f, g, idx, n, all, mine);
        return;
    }
    if (!f->exec.over_comm || !o->be->comm_view) {
        run_views_chunk(o, f, g, idx, n, o->rank, mine);
        return;
    }
    comm_outcomes(o, f, g, idx, n, all, mine);
}

/* The job is out of step from tc on (a collective or a meeting timed out). */
static void out_of_step(run_opts *o, int64_t tc)
{
    if (!o->lost)
        o->lost_tc = tc;
    o->lost = 1;
}

/* A family that executes over the job's communicator (exec.over_comm), case by case in
 * lockstep: one rank per process over MPI's own collectives, several over comm_hosted.c. */
static void comm_outcomes(run_opts *o, const shc_family *f, const shc_golden *g,
                          const int64_t *idx, int64_t n, const run_outcome *all,
                          run_outcome *mine)
{
    int64_t broken = -1;  /* a collective timed out: the job is out of step from here */
    for (int64_t k = 0; k < n; k++) {
        if (all[k].status == RUN_NOTSUPPORTED)
            continue;
        int64_t tc = g->tcids[idx[k]];
        if (broken >= 0) {
            mine[k].status = RUN_TIMEOUT;
            snprintf(mine[k].msg, sizeof mine[k].msg, "not run: tc %lld timed out, the job is "
                     "out of step", (long long)broken);
            continue;
        }
        run_journal(o, "start %s %lld", f->name, (long long)tc);
        /* A fault here hits the MPI process itself: a real dead or hung rank. */
        if (mine[k].status != RUN_NOTSUPPORTED)
            run_inject(o, shc_golden_test(g, idx[k]), mine[k].first, mine[k].count);
        /* Everyone (idle ranks too) meets first, under the deadline, so the blocking
         * communicator creation inside the plan never waits on a dead or stuck peer. */
        if (!world_barrier(o)) {
            broken = tc;
            out_of_step(o, tc);
            mine[k].status = RUN_TIMEOUT;
            snprintf(mine[k].msg, sizeof mine[k].msg, "rank %lld: the ranks did not all reach "
                     "tc %lld within %.0f s", (long long)o->rank, (long long)tc, o->timeout_s);
            continue;
        }
        if (mine[k].status == RUN_NOTSUPPORTED)
            continue;
        if (mine[k].world > o->nprocs) {
            hosted_views(o, f, shc_golden_group(g, idx[k]), shc_golden_test(g, idx[k]), &mine[k]);
        } else {
            mine[k].views = calloc(1, sizeof *mine[k].views);
            mine[k].status = o->be->comm_view(o, o->comm, o->rank, f, shc_golden_group(g, idx[k]),
                                              shc_golden_test(g, idx[k]), mine[k].views, mine[k].msg,
                                              sizeof mine[k].msg);
        }
        if (mine[k].status == RUN_TIMEOUT) {
            broken = tc;
            out_of_step(o, tc);
        }
    }
}

/* "rank 3 sent ..." or, for a process hosting several, "process 1 (ranks 4..7) sent ...". */
static void hosted_who(char *msg, size_t n, int64_t p, int64_t first, int64_t count,
                       const char *what)
{
    if (count == 1 && first == p)
        snprintf(msg, n, "rank %lld %s", (long long)p, what);
    else
        snprintf(msg, n, "process %lld (ranks %lld..%lld) %s", (long long)p, (long long)first,
                 (long long)(first + count - 1), what);
}

/* A rank other than 0: its chunk's outcomes to rank 0, one line each ("null": none), the
 * worker's own line where it sent one (run_outcome.raw), else the outcome dumped. */
static void send_outcomes(run_outcome *mine, int64_t n, int tag)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    for (int64_t k = 0; m && k < n; k++) {
        char *t = mine[k].raw || (mine[k].status == RUN_NOTSUPPORTED && !mine[k].views)
                      ? NULL : run_outcome_dump(&mine[k]);
        fputs(mine[k].raw ? mine[k].raw : t ? t : "null", m);
        fputc('\n', m);
        free(t);
        run_outcome_clear(&mine[k]);
    }
    if (!m || fclose(m)) { /* rank 0 reads no outcome: each case says so (InternalError) */
        free(text);
        text = strdup("");
        len = 0;
    }
    /* rank 0 receives when it has checked the chunk before: MPI_Send would spin in OpenMPI's
     * progress loop that long, a core's worth of CPU taken from the ranks computing */
    MPI_Request rq;
    int done = 0;
    if (MPI_Isend(text ? text : "", text ? (int)len + 1 : 1, MPI_CHAR, 0, tag, MPI_COMM_WORLD,
                  &rq) == MPI_SUCCESS)
        while (MPI_Test(&rq, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done)
            nanosleep(&(struct timespec){0, 500000}, NULL);
    free(text);
}

/* Rank 0: line k of a chunk message (send_outcomes) parsed, or NULL: none or unreadable. */
static char *outcome_line(char **cur)
{
    if (!*cur || !**cur)
        return NULL;
    char *nl = strchr(*cur, '\n'), *line = *cur;
    if (nl)
        *nl = '\0';
    *cur = nl ? nl + 1 : line + strlen(line);
    return line;
}

/* Rank 0: one chunk message from src (its bytes, NUL-ended), or NULL after the deadline. */
static char *receive(run_opts *o, int64_t src, int tag, double deadline)
{
    int flag = 0;
    MPI_Status st;
    while (!flag) {
        if (MPI_Iprobe((int)src, tag, MPI_COMM_WORLD, &flag, &st) != MPI_SUCCESS)
            break;
        if (!flag) {
            if (now_s() > deadline)
                break;
            usleep(200);
        }
    }
    if (!flag) {
        if (!o->lost)
            o->lost_rank = src;
        o->lost = 1;
        return NULL;
    }
    int len;
    MPI_Get_count(&st, MPI_CHAR, &len);
    char *buf = malloc((size_t)len + 1);
    if (!buf)
        return NULL;
    MPI_Recv(buf, len, MPI_CHAR, (int)src, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    buf[len] = '\0';
    return buf;
}

/* Rank 0: fold one process's outcome (its hosted block) for one test into the combined
 * one; views outside [first, first+count) of the block it was asked for are dropped.  A block
 * its worker checked (check_block_in_worker) brings its verdict and no views; *checked stays
 * true while every block so far was checked, and a pass's note (a digest within tolerance) is
 * the first block's that has one. */
static void merge(run_outcome *all, int64_t first, int64_t count, const run_outcome *part,
                  bool *checked)
{
    *checked = *checked && part->checked;
    if (part->status != RUN_PASS && worse(all->status, part->status) != all->status) {
        all->status = worse(all->status, part->status);
        run_copy(all->msg, sizeof all->msg, part->msg);
    } else if (part->checked && part->status == RUN_PASS && all->status == RUN_PASS &&
               !all->msg[0]) {
        run_copy(all->msg, sizeof all->msg, part->msg);
    }
    if (!part->views || part->first != first || part->count != count)
        return;
    for (int64_t i = 0; i < count; i++) {
        all->views[first + i] = part->views[i];
        part->views[i] = NULL;
    }
}

/* Rank 0, a case every block of which its worker checked and passed: the family's invariants
 * over the fields of every rank's view the blocks sent (run_check's last step), given the
 * test without its expected object where it can be (run_lean.c; as a worker gives them). */
static void blocks_invariants(const shc_family *f, const shc_golden *g, int64_t i,
                              run_lean *L, run_outcome *oc)
{
    char msg[sizeof oc->msg] = "";
    for (int64_t r = 0; r < oc->world; r++)
        if (!oc->views || !oc->views[r]) {
            oc->status = RUN_INTERNAL;
            snprintf(oc->msg, sizeof oc->msg, "rank %lld: no fields for the invariants",
                     (long long)r);
            return;
        }
    json_t *lean = run_lean_test(L, g, i);
    if (!f->invariants(shc_golden_group(g, i), lean ? lean : shc_golden_test(g, i), oc->world,
                       oc->views, msg, sizeof msg)) {
        oc->status = RUN_FAIL;
        snprintf(oc->msg, sizeof oc->msg, "%s", msg);
    }
    json_decref(lean);
}

/* Rank 0 journals the chunk's cases before computing them: when a process dies in it, mpirun
 * ends the job before any of them is reported, and mpirun_runner.sh names each one lost. */
static void journal_chunk(const run_opts *o, const shc_family *f, const shc_golden *g,
                          const int64_t *idx, int64_t n, const run_outcome *out)
{
    if (!o->journal || o->rank != 0)
        return;
    char *line = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&line, &len);
    if (!m)
        return;
    fprintf(m, "chunk %s", f->name);
    for (int64_t k = 0; k < n; k++)
        if (out[k].status != RUN_NOTSUPPORTED)
            fprintf(m, " %lld",
                    (long long)g->tcids[idx[k]]);
    if (!fclose(m))
        run_journal(o, "%s", line);
    free(line);
}

void run_mpi_chunk(run_opts *o, const shc_family *f, const shc_golden *g, const int64_t *idx,
                   int64_t n, int64_t seq, run_outcome *out)
{
    run_outcome *mine = calloc((size_t)n, sizeof *mine);
    journal_chunk(o, f, g, idx, n, out);
    bool die = false; /* an injected fault on the MPI process itself (run_faults.sh) */
    for (int64_t k = 0; o->fault.rank == o->rank && k < n; k++)
        if (g->tcids[idx[k]] == o->fault.tcid) {
            if (o->fault.kind == FAULT_STOP)
                raise(SIGSTOP); /* as kill -STOP */
            die = o->fault.kind == FAULT_DIE;
        }
    double t0 = now_s();
    my_outcomes(o, f, g, idx, n, out, mine);
    if (die) { /* a lost node: its chunk computed, its outcomes never sent */
        usleep(200000);
        raise(SIGKILL);
    }
    int tag = (int)(seq % 30000);
    if (o->rank != 0) {
        send_outcomes(mine, n, tag);
        free(mine);
        return;
    }
    bool *checked = calloc((size_t)n, sizeof *checked); /* every block checked its ranks */
    for (int64_t k = 0; k < n; k++) {
        if (out[k].status == RUN_NOTSUPPORTED)
            continue;
        out[k].first = 0;
        out[k].count = out[k].world;
        out[k].views = calloc((size_t)out[k].world, sizeof *out[k].views);
        bool dummy = false; /* out of memory for checked: the runner checks, as before */
        if (checked)
            checked[k] = true;
        merge(&out[k], mine[k].first, mine[k].count, &mine[k], checked ? &checked[k] : &dummy);
        run_copy(out[k].comment, sizeof out[k].comment, mine[k].comment);
        run_outcome_clear(&mine[k]);
    }
    /* The others did the same work as rank 0: allow twice its time plus the case limit. */
    double deadline = now_s() + 2 * (now_s() - t0) +
                      o->timeout_s * (o->be->chunk_waits_per_case ? (double)n : 1.0) + 10;
    for (int64_t r = 1; r < o->nprocs; r++) {
        int was_lost = o->lost;
        char *a = receive(o, r, tag, deadline), *cur = a;
        /* name its first case missed (or the chunk's first, when it had none to answer) */
        if (!was_lost && o->lost) {
            int64_t k = 0;
            while (k < n && (out[k].status == RUN_NOTSUPPORTED || r >= out[k].world))
                k++; /* process r hosts ranks of a case iff r < its world */
            o->lost_tc = g->tcids[idx[k < n ? k : 0]];
        }
        for (int64_t k = 0; k < n; k++) {
            char *line = outcome_line(&cur); /* line k, read whether or not it is used */
            if (out[k].status == RUN_NOTSUPPORTED || r >= out[k].world)
                continue;
            int64_t first, count;
            shc_comm_host_block(out[k].world, r, o->nprocs, &first, &count);
            run_outcome part = {0};
            if (!line || run_outcome_parse(line, &part)) {
                part.status = a ? RUN_INTERNAL : RUN_TIMEOUT;
                hosted_who(part.msg, sizeof part.msg, r, first, count,
                           a ? "sent no outcome"
                             : "sent nothing within the deadline (process stuck or dead)");
            } else if (part.count && (part.first != first || part.count != count)) {
                part.status = RUN_INTERNAL;
                hosted_who(part.msg, sizeof part.msg, r, first, count,
                           "sent views for other ranks");
            }
            bool dummy = false;
            merge(&out[k], first, count, &part, checked ? &checked[k] : &dummy);
            run_outcome_clear(&part);
        }
        free(a);
    }
    /* every block checked by its worker: the verdict is theirs, and the family's cross-rank
     * invariants run here over the fields the blocks sent (family.invariant_fields) */
    run_lean L = {0};
    for (int64_t k = 0; checked && k < n; k++) {
        out[k].checked = checked[k] && out[k].status != RUN_NOTSUPPORTED;
        if (out[k].checked && out[k].status == RUN_PASS && f->invariants)
            blocks_invariants(f, g, idx[k], &L, &out[k]);
    }
    run_lean_free(&L);
    free(checked);
    free(mine);
}
/* After a rank stopped answering the job is out of step: no collective and no gather can
 * run again.  Rank 0 goes on alone so that every case is still reported: a case only rank 0
 * takes part in (world 1, mpi backend, computed in a forked worker as always) runs; any
 * other is Timeout, naming the rank that stopped.  The other ranks compute nothing. */
void run_mpi_lost_chunk(run_opts *o, const shc_family *f, const shc_golden *g,
                        const int64_t *idx, int64_t n, run_outcome *out)
{
    if (o->rank != 0)
        return;
    bool alone = o->be->alone && o->be->alone(f);
    int64_t *sub = malloc((size_t)n * sizeof *sub), m = 0;
    run_outcome *part = calloc((size_t)n, sizeof *part);
    char who[64] = "a rank";
    if (o->lost_rank > 0)
        snprintf(who, sizeof who, "rank %lld", (long long)o->lost_rank);
    for (int64_t k = 0; k < n; k++) {
        if (out[k].status == RUN_NOTSUPPORTED)
            continue;
        if (alone && out[k].world == 1 && sub && part) {
            part[m] = out[k];
            sub[m++] = k;
            continue;
        }
        out[k].status = RUN_TIMEOUT;
        snprintf(out[k].msg, sizeof out[k].msg, "not run: %s stopped answering (at tc %lld); "
                 "the job is out of step", who, (long long)o->lost_tc);
    }
    if (m) {
        int64_t *sidx = malloc((size_t)m * sizeof *sidx);
        for (int64_t j = 0; sidx && j < m; j++)
            sidx[j] = idx[sub[j]];
        if (sidx)
            run_views_chunk(o, f, g, sidx, m, -1, part);
        for (int64_t j = 0; j < m; j++) {
            out[sub[j]] = part[j];
            if (!sidx) {
                out[sub[j]].status = RUN_INTERNAL;
                snprintf(out[sub[j]].msg, sizeof out[sub[j]].msg, "out of memory");
            }
        }
        free(sidx);
    }
    free(sub);
    free(part);
}
#endif

/* ---- the mpi backend's record ---- */

/* Its cases run in forked workers (no exec.over_comm): rank 0 can compute those alone. */
static bool mpi_alone(const shc_family *f) { return !f->exec.over_comm; }

static const char *const mpi_spellings[] = {"mpi", NULL};
const run_backend run_backend_mpi = {
    .name = "mpi", .spellings = mpi_spellings, .usage = "mpi",
    .help = "one process per rank: mpirun -np N shardcheck run --backend mpi", .procs = RUN_PER_RANK,
    .ranks_per_process = RUN_HOSTS_ANY, .max_ranks = 1024, .family_batch = true,
    .checks_in_worker = true,
#ifdef HAVE_MPI
    .comm_view = mpi_comm_view,
#endif
    .alone = mpi_alone,
};
