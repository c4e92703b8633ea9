/*
 * run_mpi.c — `shardcheck run --backend mpi`: one process per rank.
 *
 * Every process walks the same golden cases in the same order.  For a case
 * of world W, processes 0..W-1 each compute their own view (others idle):
 * redistribute-data executes the plan for real over MPI sub-communicators
 * (comm_mpi.c) and checks its bytes against the oracle; other families run
 * compute_rank in a forked worker under the per-case limit (run_check.c),
 * so a killed or hung computation is Crash or Timeout for that case and the
 * run goes on.  Each rank sends its outcome to rank 0, which waits with
 * MPI_Iprobe polling under a deadline; a rank that never answers (its
 * process is stuck outside any worker) is Timeout, after which the run is
 * out of step and ends: rank 0 prints the report and calls MPI_Abort.
 * A process that dies outright is OpenMPI's to handle: mpirun ends the job;
 * tools/mpirun_runner.sh turns that into a Crash line and a summary.
 * Tested by conformance/tests/run_mpi.sh and run_faults.sh.
 */
#include "config.h"
#ifdef HAVE_MPI
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "run.h"
#include "comm.h"
#include "redistribute_exec.h"

int run_mpi_init(run_opts *o, int *argc, char ***argv)
{
    int rank, size;
    if (MPI_Init(argc, argv) != MPI_SUCCESS) {
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

void run_mpi_finish(const run_opts *o, int lost)
{
    fflush(NULL);
    if (lost) {
        if (o->rank == 0)
            fputs("shardcheck run: a rank stopped answering; ending the job with MPI_Abort\n",
                  stderr);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (o->comm)
        o->comm->ops->destroy(o->comm);
    MPI_Finalize();
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* redistribute-data: execute this rank's part over MPI. */
static run_status exec_view(const run_opts *o, const json_t *group, const json_t *test,
                            json_t **view, char *msg, size_t n)
{
    shc_xcase x;
    shc_xtensor in, out;
    shc_err e = {0};
    memset(&x, 0, sizeof x);
    int rc = shc_xcase_from_json(group, test, &x, &e);
    if (!rc && !(rc = shc_testdata_source(&x, o->rank, &in, &e))) {
        rc = shc_exec_redistribute(o->comm, &x, &in, &out, &e);
        shc_xtensor_free(&in);
    }
    run_status s = RUN_PASS;
    if (!rc) {
        *view = shc_rdata_view(&out);
        shc_rdata_oracle_note(&x, o->rank, &out, *view);
        shc_xtensor_free(&out);
    } else if (strstr(e.msg, "mpi: timeout")) {
        snprintf(msg, n, "rank %lld: %s", (long long)o->rank, e.msg);
        s = RUN_TIMEOUT;
    } else if (rc == SHC_EINTERNAL || rc == SHC_ENOMEM) {
        snprintf(msg, n, "rank %lld: %s", (long long)o->rank, e.msg);
        s = RUN_INTERNAL;
    } else {
        *view = json_pack("{s:s}", "error", e.msg);
    }
    shc_xcase_free(&x);
    return s;
}

/* Worse of two statuses for the combined case result. */
static run_status worse(run_status a, run_status b)
{
    static const int rank[RUN_NSTATUS] = {0, 2, 1, 5, 4, 6}; /* Pass < NotSupported < Fail < ... */
    return rank[b] > rank[a] ? b : a;
}

static run_status receive(run_opts *o, int64_t src, int tag, double deadline, json_t **view,
                          char *msg, size_t n)
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
        o->lost = 1;
        snprintf(msg, n, "rank %lld sent nothing within %.0f s (process stuck or dead)",
                 (long long)src, o->timeout_s + 30);
        return RUN_TIMEOUT;
    }
    int len;
    MPI_Get_count(&st, MPI_CHAR, &len);
    char *buf = malloc((size_t)len + 1);
    if (!buf) {
        snprintf(msg, n, "out of memory");
        return RUN_INTERNAL;
    }
    MPI_Recv(buf, len, MPI_CHAR, (int)src, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    buf[len] = '\0';
    run_status s = run_outcome_load(buf, view, 1, msg, n);
    free(buf);
    return s;
}

run_status run_mpi_case(run_opts *o, const shc_family *f, const json_t *group,
                        const json_t *test, int64_t world, int64_t seq, json_t **views,
                        char *msg, size_t n)
{
    if (o->rank >= world || o->lost)
        return RUN_PASS;
    json_t *mine = NULL;
    char m[768] = "";
    run_status s = !strcmp(f->name, "redistribute-data")
                   ? exec_view(o, group, test, &mine, m, sizeof m)
                   : run_views(o, f, group, test, world, o->rank, 1, &mine, m, sizeof m);
    int tag = (int)(seq % 30000);
    if (o->rank != 0) {
        char *text = run_outcome_dump(s, m, &mine, 1);
        MPI_Send(text, (int)strlen(text) + 1, MPI_CHAR, 0, tag, MPI_COMM_WORLD);
        free(text);
        json_decref(mine);
        return s;
    }
    views[0] = mine;
    run_status all = s;
    snprintf(msg, n, "%s", m);
    double deadline = now_s() + o->timeout_s + 30;
    for (int64_t r = 1; r < world; r++) {
        char rm[768] = "";
        run_status rs = receive(o, r, tag, deadline, &views[r], rm, sizeof rm);
        if (worse(all, rs) != all || (all == RUN_PASS && rs != RUN_PASS)) {
            all = worse(all, rs);
            snprintf(msg, n, "%s", rm);
        }
        if (o->lost)
            break;
    }
    return all;
}
#endif
