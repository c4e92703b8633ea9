/*
 * run.h — pieces of `shardcheck run` shared by cmd_run.c (options, the case
 * loop, reports), run_check.c (computing a test's per-rank views in an
 * isolated worker, comparing them with golden, the SPMD invariants) and
 * run_mpi.c (one process per rank under mpirun).  Tested by
 * conformance/tests/run_mpi.sh and run_faults.sh.
 */
#ifndef SHC_RUN_H
#define SHC_RUN_H
#include <jansson.h>
#include "shardcheck.h"
#include "golden.h"
#include "backend_plugin.h"

typedef enum { RUN_PASS, RUN_FAIL, RUN_NOTSUPPORTED, RUN_CRASH, RUN_TIMEOUT, RUN_INTERNAL,
               RUN_NSTATUS } run_status;

typedef enum { BACKEND_REF, BACKEND_LOCAL, BACKEND_MPI, BACKEND_PLUGIN } run_backend;

/* A fault to inject (SHARDCHECK_FAULT=kill:RANK:TCID or hang:RANK:TCID). */
typedef struct run_fault {
    enum { FAULT_NONE, FAULT_KILL, FAULT_HANG } kind;
    int64_t rank, tcid;
} run_fault;

typedef struct run_opts {
    run_backend backend;
    const char *plugin_path;
    const char *family;      /* NULL: every registered family */
    const char *golden;      /* golden directory */
    int tap, json;
    const char *junit;
    double timeout_s;        /* per case */
    int64_t max_cases;       /* per family, 0 = all */
    int64_t max_ranks;       /* local backend: largest simulated world */
    run_fault fault;
    shc_plugin plugin;
    int64_t rank, nprocs;    /* this process under mpi; 0 and 1 otherwise */
    shc_comm *comm;          /* mpi: the communicator redistribute-data executes on */
    int lost;                /* mpi: a rank stopped answering; the run must end */
} run_opts;

/* One finished case. */
typedef struct run_result {
    const char *family;
    int64_t tcid;
    char comment[160];
    run_status status;
    char msg[768];
    double seconds;
} run_result;

/* Name of a status ("Pass", "Fail", ...). */
const char *run_status_name(run_status s);
/* Parse SHARDCHECK_FAULT; 0 or -1 with a message on stderr. */
int run_parse_fault(const char *spec, run_fault *f);

/* Compute the views of ranks [first, first+count) of a test as the backend sees
 * them, in a forked worker limited to o->timeout_s: views[i] is the view of rank
 * first+i ({"error": msg} for a refused case).  Returns RUN_PASS when every view
 * was computed, otherwise the status (Crash, Timeout, NotSupported, InternalError)
 * with msg set. */
run_status run_views(const run_opts *o, const shc_family *f, const json_t *group,
                     const json_t *test, int64_t world, int64_t first, int64_t count,
                     json_t **views, char *msg, size_t n);
/* Check every rank's view against golden and the family's SPMD invariants;
 * views has world entries. */
run_status run_check(const run_opts *o, const shc_family *f, const json_t *group,
                     const json_t *test, int64_t world, json_t *const *views, char *msg,
                     size_t n);

/* Result messages of one rank's view, shared with the mpi path: serialise a
 * worker outcome {"status": s, "msg": m, "views": [...]} and read it back. */
char *run_outcome_dump(run_status s, const char *msg, json_t **views, int64_t count);
run_status run_outcome_load(const char *text, json_t **views, int64_t count, char *msg,
                            size_t n);

#ifdef HAVE_MPI
/* Under mpirun: initialise, and per case gather every rank's outcome to rank 0. */
int run_mpi_init(run_opts *o, int *argc, char ***argv);
/* Every rank calls this for each case in the same order; on rank 0 views gets
 * world entries and the return is the combined status. */
run_status run_mpi_case(run_opts *o, const shc_family *f, const json_t *group,
                        const json_t *test, int64_t world, int64_t seq, json_t **views,
                        char *msg, size_t n);
/* Finish: MPI_Finalize (or MPI_Abort when a rank stopped answering). */
void run_mpi_finish(const run_opts *o, int lost);
#endif
#endif
