/*
 * run_worker.c — `shardcheck run --backend worker:CMD`: an implementation in any language,
 * spoken to over the worker protocol (docs/backends/worker.md, version 1).
 *
 * Each shardcheck process starts CMD (through /bin/sh -c) once and keeps it: its first line is
 * a hello naming the protocol version, its name and what it supports per family; then every
 * case is one request line, {"case": {...}, "ranks": [first, count]}, answered by results-file
 * entries (golden/schemas/results_v1.json), one line per requested rank, or one line for the
 * whole case.  In one process the worker hosts every rank of a case; under mpirun each process
 * asks its worker for the block of mesh ranks it hosts (shc_comm_host_block, as the mpi
 * backend), run_mpi.c gathers the blocks to rank 0 and run_check.c checks them against golden
 * and across ranks, so a worker is held to the same SPMD checks as the mpi backend.
 *
 * Requests are sent ahead (pipelined) within a chunk, bounded so a write never blocks.  Faults
 * are per case and the run goes on: a worker that dies is Crash, one that does not answer in
 * time is Timeout (killed), one that writes a line outside the protocol (not JSON, another
 * case, another rank, a malformed entry, anything on stdout that is not an answer) is a Fail
 * naming the protocol error; the worker is then stopped and started again for the next case.
 * A worker that speaks another protocol version, or never says its hello, is refused at start
 * (exit 2, the lowest such process says why).  Tested by conformance/tests/run_worker.sh and
 * tools/harness/tests/test_example_worker.py.
 */
#include "config.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "exit_codes.h"
#include "run.h"
#include "plugin_host.h"
#include "run_child.h"
#ifdef HAVE_MPI
#include <mpi.h>
#endif

#define WORKER_PROTOCOL 1
/* Cases sent ahead of the one awaited: at most CHUNK_MAX and PIPE_AHEAD_BYTES of requests,
 * so a write never blocks on a full pipe while the worker blocks writing answers. */
enum { CHUNK_MAX = 64, PIPE_AHEAD_BYTES = 32768, HELLO_MAX = 4096 };

/* --backend worker:CMD */
typedef struct worker_state { const char *cmd; } worker_state;

static void worker_configure(run_opts *o, const char *spec)
{
    ((worker_state *)o->be_state)->cmd = spec;
}

static const char *worker_cmd(const run_opts *o)
{
    const worker_state *w = o->be_state;
    return w && w->cmd ? w->cmd : "?";
}

/* This process's worker and what its first hello said. */
static struct {
    run_child c;
    char name[128];         /* the hello's "name" */
    json_t *families;       /* the hello's "families" (the first hello's, kept over restarts) */
    bool dead;              /* it could not be started again: every later case says why */
    char dead_msg[600];
    int64_t local;          /* this process's index on its node */
} W = {.c = {.pid = -1, .group = true, .to = -1, .from = -1}};

/* How many cases the worker is sent ahead: SHARDCHECK_WORKER_PIPELINE, default 16; 1 waits
 * for each answer before the next request (bench/bench_worker.sh measures both). */
static int64_t pipeline_depth(void)
{
    const char *d = getenv("SHARDCHECK_WORKER_PIPELINE");
    long v = d && *d ? strtol(d, NULL, 10) : 16;
    return v < 1 ? 1 : v > CHUNK_MAX ? CHUNK_MAX : v;
}

/* The worker's environment (in the child, before exec). */
static void worker_env(void *arg)
{
    const run_opts *o = arg;
    run_child_setenv_ll("SHARDCHECK_WORKER_PROTOCOL", WORKER_PROTOCOL);
    run_child_setenv_ll("SHARDCHECK_WORKER_PROCESS", o->rank);
    run_child_setenv_ll("SHARDCHECK_WORKER_PROCESSES", o->nprocs);
    run_child_setenv_ll("SHARDCHECK_WORKER_LOCAL_PROCESS", W.local);
    run_child_setenv_ll("SHARDCHECK_WORKER_TIMEOUT", (long long)o->timeout_s);
    setenv("SHARDCHECK_TORCH_VERSION", shc_torch_release_name(o->torch), 1);
    setenv("OMP_NUM_THREADS", getenv("OMP_NUM_THREADS") ?: "1", 1);
}

/* A line quoted for a message: at most 80 bytes, control bytes as '?'. */
static void quote(char *dst, size_t n, const char *line)
{
    size_t k = 0;
    for (; line && line[k] && k < 80 && k + 4 < n; k++)
        dst[k] = (unsigned char)line[k] < 32 ? '?' : line[k];
    snprintf(dst + k, n - k, "%s", line && strlen(line) > k ? "..." : "");
}

/* The hello line's problem, or NULL when it is a version-1 hello (name and families kept
 * when first). */
static const char *check_hello(const char *line, bool first, char *why, size_t n)
{
    json_error_t je;
    json_t *h = json_loads(line, 0, &je), *v = json_object_get(h, "protocol");
    json_t *fam = json_object_get(h, "families");
    char q[96];
    quote(q, sizeof q, line);
    if (!json_is_object(h) || !v) {
        snprintf(why, n, "its first line is not a hello ({\"protocol\": 1, \"name\": ..., "
                 "\"families\": {...}}): '%s'", q);
    } else if (!json_is_integer(v) || json_integer_value(v) != WORKER_PROTOCOL) {
        char *t = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
        snprintf(why, n, "it speaks worker protocol %s; this shardcheck speaks protocol %d "
                 "only (docs/backends/worker.md)", t ? t : "?", WORKER_PROTOCOL);
        free(t);
    } else if (!json_is_string(json_object_get(h, "name")) || !json_is_object(fam)) {
        snprintf(why, n, "its hello needs a \"name\" string and a \"families\" object: '%s'", q);
    } else {
        const char *k;
        json_t *x;
        why[0] = '\0';
        json_object_foreach(fam, k, x)
            if (!json_is_true(x) && !json_is_string(x) && !why[0])
                snprintf(why, n, "its hello says family %s: neither true nor a reason string",
                         k);
        if (!why[0] && first) {
            snprintf(W.name, sizeof W.name, "%s", json_string_value(json_object_get(h, "name")));
            json_decref(W.families);
            W.families = json_incref(fam);
        }
    }
    json_decref(h);
    return why[0] ? why : NULL;
}

/* How long a worker may take to say its hello: the case limit, and at least 120 s (a
 * Python worker importing torch on a loaded machine takes tens of seconds). */
static double hello_limit(const run_opts *o) { return o->timeout_s > 120 ? o->timeout_s : 120; }

/* Start the worker and read its hello within hello_limit: 0, or -1 with why. */
static int start_worker(const run_opts *o, bool first, char *why, size_t n)
{
    char *argv[] = {"/bin/sh", "-c", (char *)worker_cmd(o), NULL};
    if (run_child_spawn(&W.c, argv, worker_env, (void *)o)) {
        snprintf(why, n, "cannot start it: %s", strerror(errno));
        return -1;
    }
    char *line = NULL, how[64];
    int r = run_child_read_line(&W.c, run_child_now() + hello_limit(o), NULL, NULL, &line);
    const char *bad = NULL;
    if (r == 1) {
        bad = strlen(line) > HELLO_MAX ? "its hello is longer than 4096 bytes"
                                       : check_hello(line, first, why, n);
    } else if (r == -1) {
        snprintf(why, n, "it said no hello within %.0f s", hello_limit(o));
        bad = why;
    } else {
        run_child_reap(&W.c, how, sizeof how);
        snprintf(why, n, "it ended with %s before its hello", how);
        bad = why;
    }
    free(line);
    if (bad && bad != why)
        snprintf(why, n, "%s", bad);
    if (bad)
        run_child_stop(&W.c, NULL, 0);
    return bad ? -1 : 0;
}

/* Start in this process: every process, before the first case; the lowest process that
 * failed says why.  0, or exit 2 (the worker is configuration: a command that does not run
 * or speaks another protocol). */
static int start_here(run_opts *o)
{
    signal(SIGPIPE, SIG_IGN); /* a dead worker's pipe is an outcome, not our death */
    char why[512] = "";
    int bad = start_worker(o, true, why, sizeof why) ? 1 : 0, any = bad;
    int64_t first = bad ? o->rank : o->nprocs;
#ifdef HAVE_MPI
    if (o->mpi_job) {
        int mine = bad ? (int)o->rank : (int)o->nprocs, low = mine;
        MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        MPI_Allreduce(&mine, &low, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        first = low;
    }
#endif
    char where[48] = "";
    if (o->mpi_job)
        snprintf(where, sizeof where, "process %lld: ", (long long)o->rank);
    if (bad && first == o->rank)
        fprintf(stderr, "shardcheck run: --backend worker:%s: %s%s\n", worker_cmd(o), where,
                why);
    if (any)
        run_child_stop(&W.c, NULL, 0);
    else if (o->rank == 0) /* the implementation checked, by its own name */
        fprintf(stderr, "shardcheck run: --backend worker: %s (worker protocol %d)\n", W.name,
                WORKER_PROTOCOL);
    return any ? EXIT_USAGE : 0;
}

/* In one process (no mpirun job): start before anything runs. */
static int worker_start(run_opts *o)
{
    if (o->job_ahead)
        return 0; /* job_start, once MPI is up */
    return start_here(o);
}

#ifdef HAVE_MPI
static int worker_job_start(run_opts *o)
{
    W.local = run_mpi_local_rank();
    return start_here(o);
}
#endif

static void worker_stop(run_opts *o)
{
    (void)o;
    run_child_stop(&W.c, "{\"quit\":true}\n", 5.0);
    run_child_free(&W.c);
    json_decref(W.families);
    W.families = NULL;
}

/* One request line (newline-terminated; NULL when out of memory). */
static char *request(const run_opts *o, const shc_family *f, const shc_golden *g, int64_t i,
                     const run_outcome *oc)
{
    json_t *req = json_pack("{s:o, s:[I,I]}", "case",
                            shc_case_json(f->name, shc_torch_release_get(o->torch)->patch,
                                          shc_golden_group(g, i), shc_golden_test(g, i), oc->world), "ranks",
                            (json_int_t)oc->first, (json_int_t)oc->count);
    char *text = req ? json_dumps(req, JSON_COMPACT) : NULL, *line = NULL;
    json_decref(req);
    if (text && (line = malloc(strlen(text) + 2)))
        sprintf(line, "%s\n", text);
    free(text);
    return line;
}

/* "ranks 0..3" or "rank 2": the block a message is about. */
static void who(char *b, size_t n, const run_outcome *oc)
{
    if (oc->count == 1)
        snprintf(b, n, "rank %lld", (long long)oc->first);
    else
        snprintf(b, n, "ranks %lld..%lld", (long long)oc->first,
                 (long long)(oc->first + oc->count - 1));
}

/* One answer line for entry i of oc's block: 0 more to read, 1 the case is answered (a
 * whole-case entry), -1 a protocol error in msg. */
static int take_entry(const char *line, int64_t tcid, int64_t i, run_outcome *oc, char *msg,
                      size_t n)
{
    json_error_t je;
    json_t *j = json_loads(line, 0, &je);
    json_t *id = json_object_get(j, "tcId"), *rk = json_object_get(j, "rank");
    json_t *vals = json_object_get(j, "values"), *err = json_object_get(j, "error");
    json_t *ns = json_object_get(j, "notSupported");
    char q[96];
    quote(q, sizeof q, line);
    int rc = -1, kinds = !!vals + !!err + !!ns;
    if (!json_is_object(j))
        snprintf(msg, n, "a line that is not a JSON object, outside the protocol (stdout is "
                 "the protocol's: write logs to stderr): '%s'", q);
    else if (!json_is_integer(id))
        snprintf(msg, n, "an answer without an integer \"tcId\": '%s'", q);
    else if (json_integer_value(id) != tcid)
        snprintf(msg, n, "it answered tc %lld while tc %lld was asked",
                 (long long)json_integer_value(id), (long long)tcid);
    else if (kinds != 1 || (vals && !json_is_object(vals)) || (err && !json_is_string(err)) ||
             (ns && !json_is_string(ns)))
        snprintf(msg, n, "an entry needs exactly one of \"values\" (an object), \"error\" or "
                 "\"notSupported\" (strings): '%s'", q);
    else if (ns && i == 0) {
        oc->status = RUN_NOTSUPPORTED;
        snprintf(oc->msg, sizeof oc->msg, "%s", json_string_value(ns));
        rc = 1;
    } else if (ns)
        snprintf(msg, n, "\"notSupported\" answers the whole case, so it must be its only "
                 "entry (it came after rank %lld's)", (long long)(oc->first + i - 1));
    else if (rk && (!json_is_integer(rk) || json_integer_value(rk) != oc->first + i)) {
        char b[48], *t = json_dumps(rk, JSON_ENCODE_ANY | JSON_COMPACT);
        who(b, sizeof b, oc);
        snprintf(msg, n, "it answered rank %.40s where rank %lld was due (asked: %s, in order)",
                 t ? t : "?", (long long)(oc->first + i), b);
        free(t);
    } else if (!rk && i > 0)
        snprintf(msg, n, "an entry without \"rank\" answers every rank, so it must be the "
                 "case's only entry (it came after rank %lld's)", (long long)(oc->first + i - 1));
    else {
        /* a whole-test entry (no "rank") answers every requested rank alike */
        for (int64_t r = rk ? i : 0; r < (rk ? i + 1 : oc->count); r++)
            oc->views[r] = vals ? json_deep_copy(vals) : json_pack("{s:O}", "error", err);
        rc = rk ? 0 : 1;
    }
    json_decref(j);
    return rc;
}

/* Wait for the worker's answers to case oc (sent: whether its request went out); false when
 * the worker is broken (stopped; the next case starts another). */
static bool await_case(const run_opts *o, int64_t tcid, bool sent, run_outcome *oc)
{
    double deadline = run_child_now() + o->timeout_s;
    char b[48], msg[600] = "", how[64];
    who(b, sizeof b, oc);
    oc->status = RUN_PASS;
    for (int64_t i = 0; i < oc->count; i++) {
        char *line = NULL;
        int r = sent ? run_child_read_line(&W.c, deadline, NULL, NULL, &line) : 0;
        int t = r == 1 ? take_entry(line, tcid, i, oc, msg, sizeof msg) : 0;
        free(line);
        if (r == 1 && t == 0)
            continue;
        if (r == 1 && t == 1)
            return true;
        if (r == 1) {
            oc->status = RUN_FAIL;
            snprintf(oc->msg, sizeof oc->msg, "%s: worker protocol error: %s (worker "
                     "restarted)", b, msg);
        } else if (r == -1) {
            run_child_kill(&W.c);
            oc->status = RUN_TIMEOUT;
            snprintf(oc->msg, sizeof oc->msg, "%s: the worker gave no answer within %.0f s "
                     "(worker killed)", b, o->timeout_s);
        } else {
            run_child_reap(&W.c, how, sizeof how);
            oc->status = RUN_CRASH;
            snprintf(oc->msg, sizeof oc->msg, "%s: the worker died with %s", b, how);
        }
        run_child_stop(&W.c, NULL, 0);
        return false;
    }
    return true;
}

/* A case of a family the hello does not support is NotSupported with its reason; its
 * (empty) views go to rank 0 all the same, which tells it from a block never computed. */
static void family_support(const shc_family *f, run_outcome *oc)
{
    const json_t *fam = json_object_get(W.families, f->name);
    if (oc->status == RUN_NOTSUPPORTED || json_is_true(fam))
        return;
    oc->status = RUN_NOTSUPPORTED;
    if (json_is_string(fam))
        snprintf(oc->msg, sizeof oc->msg, "%s", json_string_value(fam));
    else
        snprintf(oc->msg, sizeof oc->msg, "the worker's hello does not name family %s",
                 f->name);
    oc->views = calloc((size_t)oc->count, sizeof *oc->views);
}

/* Start the worker again after a fault; false (and every later case says so) when it
 * cannot be. */
static bool restart(const run_opts *o, int64_t tcid)
{
    char why[400];
    if (!start_worker(o, false, why, sizeof why))
        return true;
    W.dead = true;
    snprintf(W.dead_msg, sizeof W.dead_msg, "not run: the worker could not be started again "
             "after tc %lld: %s", (long long)tcid, why);
    if (o->rank == 0 || o->mpi_job)
        fprintf(stderr, "shardcheck run: --backend worker: process %lld: %s\n",
                (long long)o->rank, W.dead_msg);
    return false;
}

/* Send the requests of the eligible cases from k on while they fit (the first always):
 * sent_ok[m] for each; returns the index after the last one sent. */
static int64_t send_ahead(const run_opts *o, const shc_family *f, const shc_golden *g,
                          const int64_t *idx, int64_t k, int64_t n, run_outcome *mine,
                          bool *sent_ok)
{
    size_t bytes = 0;
    int64_t m = k, depth = pipeline_depth(), nsent = 0;
    for (; m < n && nsent < depth; m++) {
        if (mine[m].status == RUN_NOTSUPPORTED)
            continue;
        char *line = request(o, f, g, idx[m], &mine[m]);
        size_t len = line ? strlen(line) : 0;
        if (m > k && (!line || bytes + len > PIPE_AHEAD_BYTES)) {
            free(line);
            break;
        }
        sent_ok[m] = run_child_send(&W.c, line);
        free(line);
        bytes += len, nsent++;
        if (!sent_ok[m])  /* the worker is gone: this case says so */
            return m + 1;
    }
    return m;
}

/* This process's outcomes for a chunk: mine[k] holds the block it hosts (first, count; its
 * status NotSupported when none); under mpirun (run_mpi.c my_outcomes) or in one process
 * (cmd_run.c, every rank). */
static void worker_outcomes(run_opts *o, const shc_family *f, const shc_golden *g,
                            const int64_t *idx, int64_t n, const run_outcome *all,
                            run_outcome *mine)
{
    (void)all;
    bool sent_ok[CHUNK_MAX];
    if (n > CHUNK_MAX) {
        worker_outcomes(o, f, g, idx, CHUNK_MAX, all, mine);
        worker_outcomes(o, f, g, idx + CHUNK_MAX, n - CHUNK_MAX, all + CHUNK_MAX,
                        mine + CHUNK_MAX);
        return;
    }
    for (int64_t k = 0; k < n; k++)
        family_support(f, &mine[k]);
    for (int64_t k = 0, sent_to = 0; k < n; k++) {
        run_outcome *oc = &mine[k];
        if (oc->status == RUN_NOTSUPPORTED)
            continue;
        int64_t tcid = g->tcids[idx[k]];
        if (!W.dead && k >= sent_to && W.c.pid < 0)
            restart(o, tcid);
        if (W.dead) {
            oc->status = RUN_CRASH;
            snprintf(oc->msg, sizeof oc->msg, "%s", W.dead_msg);
            continue;
        }
        if (k >= sent_to)
            sent_to = send_ahead(o, f, g, idx, k, n, mine, sent_ok);
        oc->views = calloc((size_t)oc->count, sizeof *oc->views);
        if (!oc->views) {
            oc->status = RUN_INTERNAL;
            snprintf(oc->msg, sizeof oc->msg, "out of memory for %lld views",
                     (long long)oc->count);
        } else if (!await_case(o, tcid, sent_ok[k], oc)) {
            sent_to = k + 1;  /* what was sent ahead went with the worker: send it again */
        }
    }
}

static worker_state worker_own;

const run_backend run_backend_worker = {
    .name = "worker", .arg_prefix = "worker:", .usage = "worker:CMD",
    .help = "a vendor program in any language over the worker protocol "
            "(docs/backends/worker.md)",
    .procs = RUN_PER_RANK_UNDER_MPIRUN, .ranks_per_process = RUN_HOSTS_ANY, .max_ranks = 1024,
    .batch = 16, .chunk_waits_per_case = true, .certify_np = true,
    .arg_is_command = true, .state = &worker_own,
    .configure = worker_configure, .start = worker_start,
#ifdef HAVE_MPI
    .job_start = worker_job_start,
#endif
    .stop = worker_stop, .job_outcomes = worker_outcomes,
};
