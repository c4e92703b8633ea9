/*
 * run_torch.c — `shardcheck run --backend torch[:gloo|:nccl]`: real DTensor in real processes.
 *
 * Under mpirun every rank's shardcheck process starts one persistent Python worker
 * (tools/harness/torch_worker.py) that initialises torch.distributed for real — RANK,
 * WORLD_SIZE, LOCAL_RANK, MASTER_ADDR and a MASTER_PORT that rank 0 picks free and broadcasts
 * over MPI — and answers one golden case per JSON line.  This file feeds the cases, enforces the
 * per-case limit and turns what the workers did into outcomes; run_mpi.c gathers them to rank 0
 * and run_check.c checks them against golden and across ranks, as for the mpi backend.
 *
 * Faults are per case, never a hung run: a worker that dies is Crash, one that does not answer in
 * time is Timeout; the rank that sees it first tells the others over MPI (their workers are then
 * stuck in a collective with the dead or stuck peer), every rank stops its worker, and all ranks
 * start fresh workers on a new port before the next case.  A group that gloo could not set up
 * (its TCP mesh: a rank's pair "closed by peer" once at np 8 on 2 loaded cores) is no result of
 * torch's: the rank says so at once, the workers are restarted and the case runs once more; a
 * second failure is the case's InternalError.  A worker that cannot import torch ends
 * the run with exit 77 (skipped), a torch of another release than the one judged against
 * (--torch-version, SHARDCHECK_TORCH_VERSION) exit 2 naming both; a rendezvous that fails (a
 * port in use) is retried on another port.  The interpreter is configuration (issue 27 N14: it
 * was exit 99): SHARDCHECK_PYTHON naming no executable, or an interpreter that ends before the
 * worker speaks, is exit 2 naming it; no python3 on PATH and no SHARDCHECK_PYTHON is exit 77
 * (nothing could run).
 * Tested by conformance/tests/run_torch.sh.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "exit_codes.h"
#include "run.h"
#include "plugin_host.h"
#include "run_child.h"
/* The torch backend's own state: the process group (--backend torch[:gloo|:nccl]). */
typedef struct torch_state { const char *pg; } torch_state;

static void torch_configure(run_opts *o, const char *spec)
{
    ((torch_state *)o->be_state)->pg = spec[5] ? spec + 6 : "gloo";
}

static inline const char *torch_pg(const run_opts *o)
{
    const torch_state *t = o->be_state;
    return t && t->pg ? t->pg : "gloo";
}

/* run_torch_compare (the last function) is built without MPI too: only the worker code
 * needs MPI and the sockets (conformance/tests/build_without_mpi.sh checks it compiles) */
#ifdef HAVE_MPI
#include <mpi.h>
#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SHC_HARNESS_DIR
#define SHC_HARNESS_DIR "tools/harness"
#endif

enum { TAG_FAIL = 31001, TAG_START = 31002, START_TRIES = 3 };
/* Cases sent ahead of the one awaited: at most a chunk (CHUNK_MAX) and PIPE_AHEAD_BYTES of
 * requests, so a write never blocks on a full pipe while the worker blocks writing answers. */
enum { CHUNK_MAX = 64, PIPE_AHEAD_BYTES = 32768 };

/* How many cases the worker is sent ahead: SHARDCHECK_TORCH_PIPELINE, default a whole
 * chunk; 1 is the runner as it was (one case at a time, the ranks agreeing in a blocking
 * MPI_Allreduce): bench/bench_torch_backend.sh's peer. */
static int64_t pipeline_depth(void)
{
    const char *d = getenv("SHARDCHECK_TORCH_PIPELINE");
    long v = d && *d ? strtol(d, NULL, 10) : CHUNK_MAX;
    return v < 1 ? 1 : v > CHUNK_MAX ? CHUNK_MAX : v;
}

/* The worker of this rank, and what it said about whole families. */
static struct {
    run_child c;            /* the worker process and its pipes (run_child.c) */
    int64_t seq;            /* cases sent so far: tags the failure notices */
    char nofam[64];         /* a family the worker answers NotSupported as a whole */
    char nofam_msg[256];
    int local_rank;
} W = {.c = RUN_CHILD_NONE};

#define now_s run_child_now

static const char *python_path(void)
{
    static char path[4096];
    const char *p = getenv("SHARDCHECK_PYTHON");
    if (p && *p)
        return p;
    snprintf(path, sizeof path, "%s/../../.venv/bin/python", SHC_HARNESS_DIR);
    return access(path, X_OK) == 0 ? path : "python3";
}

/* Whether py can be executed (a path, or a name found on PATH): the worker's interpreter is
 * configuration, so a missing one is reported before anything runs. */
static bool runnable(const char *py)
{
    if (strchr(py, '/'))
        return access(py, X_OK) == 0;
    const char *path = getenv("PATH");
    for (const char *p = path ? path : ""; *p;) {
        size_t n = strcspn(p, ":");
        char full[4096];
        if (snprintf(full, sizeof full, "%.*s/%s", (int)n, p, py) < (int)sizeof full &&
            n && access(full, X_OK) == 0)
            return true;
        p += n + (p[n] == ':');
    }
    return false;
}

/* The worker cannot start with this interpreter: exit 2 when SHARDCHECK_PYTHON names it (bad
 * configuration), 77 when the default python3 is absent (nothing could run), and the reason. */
static int python_problem(char *msg, size_t n)
{
    const char *py = python_path(), *set = getenv("SHARDCHECK_PYTHON");
    if (runnable(py))
        return 0;
    snprintf(msg, n, "%s%s is not an executable file%s", set && *set ? "SHARDCHECK_PYTHON=" : "",
             py, set && *set ? " (it must name a Python with torch)"
                             : " on PATH (set SHARDCHECK_PYTHON to a Python with torch)");
    return set && *set ? 2 : 77;
}

static const char *harness_dir(void)
{
    const char *h = getenv("SHARDCHECK_HARNESS");
    return h && *h ? h : SHC_HARNESS_DIR;
}

/* A TCP port nobody listens on now (rank 0 only; a race is caught by the retry). */
static int free_port(void)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    socklen_t n = sizeof a;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int port = -1;
    if (s >= 0 && !bind(s, (struct sockaddr *)&a, sizeof a) &&
        !getsockname(s, (struct sockaddr *)&a, &n))
        port = ntohs(a.sin_port);
    if (s >= 0)
        close(s);
    return port > 0 ? port : 29500;
}

static void stop_worker(bool gently)
{
    run_child_stop(&W.c, gently ? "{\"cmd\":\"quit\"}\n" : NULL, 5.0);
}

/* The worker's environment (in the child, before exec). */
typedef struct spawn_env { const run_opts *o; const char *addr; int port; } spawn_env;

static void worker_env(void *arg)
{
    const spawn_env *s = arg;
    const run_opts *o = s->o;
    run_child_setenv_ll("RANK", o->rank);
    run_child_setenv_ll("WORLD_SIZE", o->nprocs);
    run_child_setenv_ll("LOCAL_RANK", W.local_rank);
    setenv("MASTER_ADDR", s->addr, 1);
    run_child_setenv_ll("MASTER_PORT", s->port);
    run_child_setenv_ll("SHARDCHECK_TORCH_TIMEOUT", (long long)o->timeout_s + 30);
    setenv("SHARDCHECK_TORCH_BACKEND", torch_pg(o), 1);
    /* the release the run judges against: the worker checks its torch is that one */
    setenv("SHARDCHECK_TORCH_VERSION", shc_torch_release_name(o->torch), 1);
    setenv("SHARDCHECK_TORCH_PATCH", shc_torch_release_get(o->torch)->patch, 1);
    setenv("OMP_NUM_THREADS", getenv("OMP_NUM_THREADS") ?: "1", 1);
    if (!strcmp(s->addr, "127.0.0.1") && !getenv("GLOO_SOCKET_IFNAME"))
        setenv("GLOO_SOCKET_IFNAME", "lo", 1);
}

static int spawn(const run_opts *o, const char *addr, int port)
{
    char script[4096];
    snprintf(script, sizeof script, "%s/torch_worker.py", harness_dir());
    char *argv[] = {(char *)python_path(), "-u", script, NULL, NULL, NULL, NULL, NULL};
    /* A zygote that imported torch already forks the worker (tools/harness/torch_zygote.py:
     * about 3 CPU-s saved per worker); its client runs it as this python would otherwise. */
    const char *zygote = getenv("SHARDCHECK_TORCH_ZYGOTE");
    char client[4096];
    if (zygote && *zygote) {
        snprintf(client, sizeof client, "%s/torch_zygote.py", harness_dir());
        char *z[] = {"-S", "-u", client, "client", (char *)zygote, script};
        memcpy(argv + 1, z, sizeof z);
    }
    spawn_env env = {o, addr, port};
    return run_child_spawn(&W.c, argv, worker_env, &env);
}

/* Whether a failure notice (tag) from another rank waits (MPI). */
static bool notice_waits(void *arg)
{
    int flag = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, *(const int *)arg, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    return flag != 0;
}

/* One line from the worker before deadline: 1 (line in *line, to free), 0 EOF, -1 timeout.
 * With notice set, a failure notice from another rank (MPI) also ends the wait: -2. */
static int read_line(double deadline, int notice_tag, char **line)
{
    return run_child_read_line(&W.c, deadline, notice_tag ? notice_waits : NULL, &notice_tag,
                               line);
}

/* What ended a worker that stopped answering ("signal 9 (Killed)", "exit status 3"). */
static void reap(char *msg, size_t n) { run_child_reap(&W.c, msg, n); }

/* Tell every other rank that this rank's worker failed case seq (status, message). */
static void notify(const run_opts *o, int tag, run_status s, const char *msg)
{
    char b[400];
    int len = snprintf(b, sizeof b, "%lld %d %s", (long long)W.seq, (int)s, msg);
    for (int64_t r = 0; r < o->nprocs; r++)
        if (r != o->rank)
            MPI_Send(b, len + 1, MPI_CHAR, (int)r, tag, MPI_COMM_WORLD);
}

/* Drain failure notices; the first about case seq (if any) into *s / msg. */
static bool drain_notices(int tag, run_status *s, char *msg, size_t n)
{
    bool got = false;
    for (;;) {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &flag, &st);
        if (!flag)
            return got;
        char b[400];
        MPI_Recv(b, sizeof b, MPI_CHAR, st.MPI_SOURCE, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        b[sizeof b - 1] = '\0';
        long long seq;
        int stat, off = 0;
        if (sscanf(b, "%lld %d %n", &seq, &stat, &off) >= 2 && seq == W.seq && !got && s) {
            *s = (run_status)stat;
            snprintf(msg, n, "%s", b + off);
            got = true;
        }
    }
}

/* Start every rank's worker; 0 or the exit code the run ends with. */
static int start_workers(run_opts *o)
{
    char host[256] = "", root[256] = "";
    gethostname(host, sizeof host - 1);
    memcpy(root, host, sizeof root);
    MPI_Bcast(root, sizeof root, MPI_CHAR, 0, MPI_COMM_WORLD);
    const char *addr = getenv("MASTER_ADDR");
    if (!addr || !*addr)
        addr = strcmp(root, host) ? root : "127.0.0.1";
    for (int attempt = 0; attempt < START_TRIES; attempt++) {
        int port = 0;
        if (o->rank == 0) {
            const char *fixed = getenv("SHARDCHECK_TORCH_PORT");
            port = attempt == 0 && fixed && atoi(fixed) > 0 ? atoi(fixed) : free_port();
        }
        MPI_Bcast(&port, 1, MPI_INT, 0, MPI_COMM_WORLD);
        drain_notices(TAG_START, NULL, NULL, 0);
        int code = 0;
        char msg[700] = "", *line = NULL;
        if ((code = python_problem(msg, sizeof msg))) {
            notify(o, TAG_START, RUN_INTERNAL, msg);
        } else if (spawn(o, addr, port)) {
            code = 99;
            snprintf(msg, sizeof msg, "cannot start a worker: %s", strerror(errno));
        } else {
            double limit = o->timeout_s > 120 ? o->timeout_s : 120;
            int r = read_line(now_s() + limit, TAG_START, &line);
            json_error_t je;
            json_t *j = r == 1 ? json_loads(line, 0, &je) : NULL;
            if (j && json_is_true(json_object_get(j, "ready"))) {
                code = 0;
            } else if (j && json_object_get(j, "fatal")) {
                code = (int)json_integer_value(json_object_get(j, "exit"));
                snprintf(msg, sizeof msg, "%s", json_string_value(json_object_get(j, "fatal")));
            } else if (r == -2) {
                code = 3;
                snprintf(msg, sizeof msg, "another rank's worker failed to start");
            } else if (r == -1) {
                code = 3;
                snprintf(msg, sizeof msg, "the worker did not join the process group within "
                         "%.0f s", limit);
            } else {
                /* it never spoke: the interpreter cannot run the worker (SHARDCHECK_PYTHON,
                 * SHARDCHECK_HARNESS), which no retry mends; a rendezvous that fails says
                 * so in a fatal line (exit 3) */
                char how[64];
                reap(how, sizeof how);
                code = 2;
                snprintf(msg, sizeof msg, "the worker (%s %s/torch_worker.py) ended with %s "
                         "before it was ready: SHARDCHECK_PYTHON must name a Python with torch "
                         "that runs it", python_path(), harness_dir(), how);
            }
            json_decref(j);
            free(line);
            if (code && r != -2)
                notify(o, TAG_START, RUN_INTERNAL, msg);
        }
        /* a reason that no retry mends (torch missing, wrong version) outranks a rendezvous
         * that failed (code 3: a port in use, another rank's failure) */
        int hard = code == 3 ? 0 : code, retry = code == 3, worst = 0, again = 0;
        MPI_Allreduce(&hard, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        MPI_Allreduce(&retry, &again, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (!worst && again)
            worst = 3;
        drain_notices(TAG_START, NULL, NULL, 0);
        if (!worst)
            return 0;
        stop_worker(false);
        /* the lowest rank with a reason of its own (not "another rank's") speaks */
        bool own = code && (code == worst || worst == 3) && !strstr(msg, "another rank");
        int mine = own ? (int)o->rank : o->rank == 0 ? 1 << 29 : 1 << 30, first;
        MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (mine == first) {
            if (worst == 3 && attempt + 1 < START_TRIES)
                fprintf(stderr, "shardcheck run: --backend torch: rank %lld: %s; retrying on "
                        "another port\n", (long long)o->rank, msg);
            else
                fprintf(stderr, "shardcheck run: --backend torch: rank %lld: %s\n",
                        (long long)o->rank, msg);
        }
        if (worst != 3)
            return worst == 77 ? EXIT_SKIP : worst == 2 ? EXIT_USAGE : EXIT_INTERNAL;
    }
    return EXIT_INTERNAL;
}

/* Start this rank's torch worker (0, or the exit code the run ends with): the job_start hook. */
static int run_torch_start(run_opts *o)
{
    signal(SIGPIPE, SIG_IGN);  /* a dead worker's pipe is an outcome, not our death */
    W.local_rank = run_mpi_local_rank();
    return start_workers(o);
}

/* Stop this rank's torch worker. */
static void run_torch_stop(run_opts *o)
{
    (void)o;
    stop_worker(true);
    run_child_free(&W.c);
}

/* Whether any rank says yes, without spinning: a rank that waits for a slower one sleeps
 * between tests, leaving the cores to the torch workers (MPI_Allreduce's busy wait took
 * them from the very worker it waited for: bench/bench_torch_backend.sh). */
static int any_rank(bool mine)
{
    int bad = mine, any = 0;
    MPI_Request rq;
    if (pipeline_depth() == 1 ||  /* the runner as it was (the bench's peer) */
        MPI_Iallreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &rq) != MPI_SUCCESS) {
        MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        return any;
    }
    for (int done = 0;;) {
        MPI_Test(&rq, &done, MPI_STATUS_IGNORE);
        if (done)
            return any;
        struct timespec ts = {0, 100000};  /* 0.1 ms: far below a case's time */
        nanosleep(&ts, NULL);
    }
}

/* One case's request line (newline-terminated; NULL when out of memory): its inputs only,
 * shc_case_json's form.  Never the whole group: its other tests made each line up to 120 KB,
 * and parsing them set off ~110 of Python's garbage collections over torch's heap per case,
 * most of a worker's time at np 8 (measured with `mpirun -np 8 shardcheck run --backend torch
 * --family shard-layout --max-cases 100`: 114 s before, 16 s after). */
static char *request(const run_opts *o, const shc_family *f, const json_t *group,
                     const json_t *test)
{
    json_t *req = shc_case_json(f->name, shc_torch_release_get(o->torch)->patch, group, test,
                                o->nprocs);
    char *text = req ? json_dumps(req, JSON_COMPACT) : NULL, *line = NULL;
    json_decref(req);
    if (text && (line = malloc(strlen(text) + 2)))
        sprintf(line, "%s\n", text);
    free(text);
    return line;
}

/* Write a whole request line: a short write (a signal) goes on where it stopped, so the
 * worker never sees half a line followed by the next. */
static bool send_line(const char *line) { return run_child_send(&W.c, line); }

/* Wait for the worker's answer to the next case it was sent (sent: whether that succeeded);
 * the outcome of this rank in *oc (views[0] set on an answer).  The worker answers in order,
 * so cases sent ahead are answered one by one here; the time limit runs from this call. */
static run_status await_case(run_opts *o, const shc_family *f, bool sent, run_outcome *oc,
                             bool *broken, bool *transient)
{
    W.seq++;
    char *line = NULL;
    double deadline = now_s() + o->timeout_s;
    run_status peer = RUN_PASS;
    char peer_msg[400] = "";
    int r = 0;
    while (sent && (r = read_line(deadline, TAG_FAIL, &line)) == -2 &&
           !drain_notices(TAG_FAIL, &peer, peer_msg, sizeof peer_msg))
        ;  /* a stale notice (an earlier case): keep waiting */
    json_error_t je;
    json_t *j = r == 1 ? json_loads(line, 0, &je) : NULL;
    free(line);
    run_status s = RUN_PASS;
    if (j && json_object_get(j, "view")) {
        oc->views[0] = json_incref(json_object_get(j, "view"));
    } else if (j && json_object_get(j, "error")) {
        oc->views[0] = json_pack("{s:O}", "error", json_object_get(j, "error"));
    } else if (j && json_object_get(j, "unsupported")) {
        s = RUN_NOTSUPPORTED;
        snprintf(oc->msg, sizeof oc->msg, "%s", json_string_value(json_object_get(j,
                 "unsupported")) ?: "");
        if (json_is_true(json_object_get(j, "family"))) {
            snprintf(W.nofam, sizeof W.nofam, "%s", f->name);
            snprintf(W.nofam_msg, sizeof W.nofam_msg, "%.250s", oc->msg);
        }
    } else if (j && json_object_get(j, "transient")) {
        /* gloo could not set up a group (torch_worker.py, worker_world.group_setup_failed): no
         * answer of torch's.  The peers may wait in that rendezvous until the limit: told now,
         * every worker is restarted and the case runs once more (run_torch_outcomes) */
        s = RUN_INTERNAL;
        snprintf(oc->msg, sizeof oc->msg, "rank %lld: gloo could not set up a process group "
                 "(%.500s)", (long long)o->rank,
                 json_string_value(json_object_get(j, "transient")) ?: "");
        notify(o, TAG_FAIL, s, oc->msg);
        *broken = *transient = true;
    } else if (r == -2) {
        /* a peer's worker died or hung in this case: mine waits in a collective with it */
        s = peer;
        snprintf(oc->msg, sizeof oc->msg, "%s", peer_msg);
        *broken = true;
    } else {
        if (r == -1) {
            kill(W.c.pid, SIGKILL);
            s = RUN_TIMEOUT;
            snprintf(oc->msg, sizeof oc->msg, "rank %lld: the torch worker gave no answer within "
                     "%.0f s (stuck, e.g. in a collective; worker killed)", (long long)o->rank,
                     o->timeout_s);
        } else if (r == 1) {
            s = RUN_INTERNAL;
            snprintf(oc->msg, sizeof oc->msg, "rank %lld: the torch worker sent an unreadable "
                     "line", (long long)o->rank);
        } else {
            char how[64];
            if (W.c.pid > 0)
                reap(how, sizeof how);
            else
                snprintf(how, sizeof how, "gone");
            s = RUN_CRASH;
            snprintf(oc->msg, sizeof oc->msg, "rank %lld: the torch worker died with %s",
                     (long long)o->rank, how);
        }
        notify(o, TAG_FAIL, s, oc->msg);
        *broken = true;
    }
    /* the worker settled a case that left collectives in flight and cannot trust its groups
     * (torch_worker.py World.settle): its answer stands; every rank's worker is replaced */
    if (j && json_is_true(json_object_get(j, "restart")))
        *broken = true;
    json_decref(j);
    return s;
}

/* An outcome as it was before its case ran (the case runs again; its hosted block stays). */
static void forget(run_outcome *oc)
{
    assert(!oc->views || oc->count == 1);  /* a whole-world mesh: one rank per process */
    run_outcome_clear(oc);
    oc->status = RUN_PASS;
    oc->msg[0] = '\0';
}

/* This rank's outcomes for a chunk, computed through its torch worker (job_outcomes). */
static void run_torch_outcomes(run_opts *o, const shc_family *f, const shc_golden *g,
                               const int64_t *idx, int64_t n, const run_outcome *all,
                               run_outcome *mine)
{
    int64_t depth = pipeline_depth(), sent_to = 0, retried = -1;
    bool sent_ok[CHUNK_MAX];
    if (n > CHUNK_MAX) {  /* cmd_run.c sends chunks of 16: one more chunk call per excess */
        run_torch_outcomes(o, f, g, idx, CHUNK_MAX, all, mine);
        run_torch_outcomes(o, f, g, idx + CHUNK_MAX, n - CHUNK_MAX, all + CHUNK_MAX,
                           mine + CHUNK_MAX);
        return;
    }
    for (int64_t k = 0; k < n && !o->lost; k++) {
        if (all[k].status == RUN_NOTSUPPORTED) {
            mine[k].status = RUN_NOTSUPPORTED;
            continue;
        }
        assert(all[k].world == o->nprocs);  /* cmd_run.c leaves only whole-world meshes */
        if (k >= sent_to && !strcmp(W.nofam, f->name)) {  /* a case sent is read */
            mine[k].status = RUN_NOTSUPPORTED;
            snprintf(mine[k].msg, sizeof mine[k].msg, "%s", W.nofam_msg);
            continue;
        }
        run_journal(o, "start %s %lld", f->name,
                    (long long)g->tcids[idx[k]]);
        /* send ahead: the worker computes the next cases while this process reads, checks
         * and agrees with the other ranks on this one (bench/bench_torch_backend.sh) */
        if (k >= sent_to) {
            /* this case, then more while their requests fit PIPE_AHEAD_BYTES: the worker
             * may block writing an answer while this process writes, and a pipe holds 64 KiB */
            size_t bytes = 0;
            for (sent_to = k; sent_to < n && sent_to - k < depth; sent_to++) {
                if (all[sent_to].status == RUN_NOTSUPPORTED)
                    break;  /* skipped on every rank: never sent */
                char *line = request(o, f, shc_golden_group(g, idx[sent_to]), shc_golden_test(g, idx[sent_to]));
                size_t len = line ? strlen(line) : 0;
                if (sent_to > k && (!line || bytes + len > PIPE_AHEAD_BYTES)) {
                    free(line);
                    break;
                }
                sent_ok[sent_to] = send_line(line);
                free(line);
                bytes += len;
                if (!sent_ok[sent_to]) {  /* the worker is gone: this case says so */
                    sent_to++;
                    break;
                }
            }
        }
        mine[k].views = calloc(1, sizeof *mine[k].views);
        bool broken = false, transient = false;
        mine[k].status = mine[k].views ? await_case(o, f, sent_ok[k], &mine[k], &broken,
                                                    &transient)
                                       : RUN_INTERNAL;
        /* every rank learns whether any worker failed this case; then all restart together */
        int any = any_rank(broken);
        if (any) {
            /* a group set-up that failed is run once more (collective: every rank is here) */
            bool again = any_rank(transient) && retried != k;
            /* a peer's outcome decides the case when my worker answered */
            stop_worker(false);
            sent_to = again ? k : k + 1;  /* what was sent ahead went with the worker */
            drain_notices(TAG_FAIL, NULL, NULL, 0);
            int rc = start_workers(o);
            if (!rc && again) {
                if (o->rank == 0)
                    fprintf(stderr, "shardcheck run: --backend torch: tc %lld: %s; every "
                            "worker was restarted and the case runs again\n",
                            (long long)g->tcids[idx[k]], mine[k].msg[0] ? mine[k].msg :
                            "another rank's gloo could not set up a process group");
                forget(&mine[k]);
                retried = k--;
                continue;
            }
            if (rc) {
                o->lost = 1;
                for (int64_t m = k + 1; m < n; m++)
                    if (mine[m].status != RUN_NOTSUPPORTED) {
                        mine[m].status = RUN_INTERNAL;
                        snprintf(mine[m].msg, sizeof mine[m].msg, "not run: the torch workers "
                                 "could not be restarted");
                    }
                if (o->rank == 0)
                    fprintf(stderr, "shardcheck run: --backend torch: workers could not be "
                            "restarted after tc %lld; the run ends\n",
                            (long long)g->tcids[idx[k]]);
            }
        }
    }
}
#endif /* HAVE_MPI */

/* ---- checking a torch rank's view (run_check.c) ---- */

/* A rank's real view against golden, plans projected to collectives (compare). */
static int run_torch_compare(const shc_family *f, const json_t *test, int64_t rank,
                             const json_t *got, char *msg, size_t n)
{
    const json_t *dm = json_object_get(got, "dataMismatch");
    if (dm) {
        snprintf(msg, n, "local data: %s", json_string_value(dm) ?: "?");
        return 0;
    }
    /* group-ranks: torch built a process group that is not the mesh's (torch_worker.py) */
    if ((dm = json_object_get(got, "groupMismatch"))) {
        snprintf(msg, n, "process group: %s", json_string_value(dm) ?: "?");
        return 0;
    }
    const char *res = json_string_value(json_object_get(test, "result"));
    const json_t *err = json_object_get(got, "error");
    /* shardcheck rejects it, torch accepts it (the flag's note says what torch does): the
     * real torch must accept, so the note stays checked (docs/invalid-audit.md) */
    if (res && !strcmp(res, "invalid") && shc_test_has_flag(test, SHC_STRICTER_THAN_TORCH)) {
        if (!err)
            return 1;
        snprintf(msg, n, "flag %s says torch accepts this input, but torch raised: %.300s",
                 SHC_STRICTER_THAN_TORCH, json_string_value(err) ?: "?");
        return 0;
    }
    /* a family whose real-torch answer has another form says so (project.collective_counts) */
    if (!f->project.collective_counts || (res && !strcmp(res, "invalid")))
        return shc_compare_view(test, rank, got, msg, n);
    const char *dev = getenv("SHARDCHECK_TORCH_DEVICE");
    json_t *want = f->project.collective_counts(test, rank, !(dev && !strcmp(dev, "cuda")));
    if (!want) {
        if (err)
            return 1;
        snprintf(msg, n, "the golden plan has a step torch raises at (an unsupported step, "
                 "or one its reduce op cannot run), but the real redistribute ran");
        return 0;
    }
    const json_t *have = json_object_get(got, "collectives");
    int ok = have && json_equal(want, (json_t *)have);
    if (!ok) {
        char *a = json_dumps(want, JSON_COMPACT | JSON_SORT_KEYS);
        char *b = have ? json_dumps(have, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
        snprintf(msg, n, "collectives: expected %s, got %.300s", a ? a : "?",
                 b ? b : err ? json_string_value(err) : "(missing)");
        free(a), free(b);
    }
    json_decref(want);
    return ok;
}

static int torch_compare(const shc_family *f, const json_t *test, int64_t rank, json_t *got,
                         char *msg, size_t n)
{
    return run_torch_compare(f, test, rank, got, msg, n);
}

static torch_state torch_own;

static const char *const torch_spellings[] = {"torch", "torch:gloo", "torch:nccl", NULL};
const run_backend run_backend_torch = {
    .name = "torch", .spellings = torch_spellings, .usage = "torch[:gloo|:nccl]",
    .help = "real DTensor per rank (torch.distributed, gloo or nccl) under mpirun -np N",
    .procs = RUN_PER_RANK, .ranks_per_process = 1, .max_ranks = 1024, .batch = 16,
    .whole_world = true, .whole_world_why = "a DeviceMesh rank is a process: no hosting",
    .state = &torch_own, .configure = torch_configure,
#ifdef HAVE_MPI
    .job_start = run_torch_start, .stop = run_torch_stop, .job_outcomes = run_torch_outcomes,
#endif
    .compare = torch_compare,
};
