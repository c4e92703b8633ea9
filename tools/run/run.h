/*
 * run.h — pieces of `shardcheck run` shared by cmd_run.c (options, the case
 * loop, reports), run_check.c (computing a test's per-rank views in an
 * isolated worker, comparing them with golden, the SPMD invariants),
 * run_mpi.c (one process per rank under mpirun), run_torch.c (real DTensor
 * per rank through a Python worker) and run_cuda.c (each rank's view computed on
 * a GPU).  Tested by conformance/tests/run_mpi.sh,
 * run_faults.sh and run_torch.sh.
 */
#ifndef SHC_RUN_H
#define SHC_RUN_H
#include <stdio.h>
#include <jansson.h>
#include "shardcheck.h"
#include "family.h"
#include "backend_plugin.h"
#include "progress.h"

typedef enum { RUN_PASS, RUN_FAIL, RUN_NOTSUPPORTED, RUN_CRASH, RUN_TIMEOUT, RUN_INTERNAL,
               RUN_NSTATUS } run_status;

typedef enum { BACKEND_REF, BACKEND_LOCAL, BACKEND_MPI, BACKEND_PLUGIN, BACKEND_TORCH, BACKEND_CUDA } run_backend;

/* The one list of --backend spellings (cmd_run.c), for run and certify alike: spec into *b,
 * with torch's process group ("gloo" by default) and a plugin's path pointing into spec;
 * SHC_EINVAL naming the accepted spellings. */
int run_backend_parse(const char *spec, run_backend *b, const char **torch_pg,
                      const char **plugin_path, shc_err *e);
/* "ref", "local", "mpi", "plugin", "torch", "cuda": the name reports carry. */
const char *run_backend_name(run_backend b);

/* A fault to inject (SHARDCHECK_FAULT=kill:RANK:TCID, hang:RANK:TCID, or stop:RANK:TCID:
 * under mpirun the rank's MPI process itself stops (SIGSTOP) before the chunk holding the
 * case, as `kill -STOP` would stop it). */
typedef struct run_fault {
    enum { FAULT_NONE, FAULT_KILL, FAULT_HANG, FAULT_STOP } kind;
    int64_t rank, tcid;
} run_fault;

typedef struct run_opts {
    run_backend backend;
    const char *plugin_path;
    const char *torch_backend; /* torch: "gloo" (default) or "nccl" (run_torch.c) */
    const char *family;      /* NULL: every registered family */
    const char *golden;      /* golden directory */
    int tap, json, verbose;
    const char *junit;
    struct report *rep;      /* rank 0: where results go (report.h); NULL elsewhere */
    double timeout_s;        /* per case */
    int64_t max_cases;       /* per family, 0 = all */
    int64_t max_ranks;       /* local backend: largest simulated world */
    run_fault fault;
    shc_plugin plugin;
    int64_t rank, nprocs;    /* this process under mpi; 0 and 1 otherwise */
    shc_comm *comm;          /* mpi: the communicator redistribute-data executes on */
    int lost;                /* mpi: a rank stopped answering; no case needing it runs again */
    int64_t lost_rank;       /* mpi: the first rank found not answering (-1: not known) */
    int64_t lost_tc;         /* ... and the case it was found in */
    int no_manifest_check;   /* --no-manifest-check: the corpus is not checked (warned) */
    int cuda_devices;        /* cuda: visible devices (rank r uses r % cuda_devices) */
    bool cuda_mpi;           /* cuda under mpirun: one process per rank, as mpi */
    const char *journal_path;
    FILE *journal;           /* --journal: one line per case as it finishes (rank 0) */
    progress *bar;           /* rank 0: the terminal's progress bar over a family's cases */
    const char *torch_opt;   /* --torch-version as given (NULL: not) */
    shc_torch_release torch; /* the release judged against (torch_version.c's rule) */
    char torch_why[128];     /* how it was chosen */
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
/* Apply the injected fault if it targets this rank and test (kill or hang). */
void run_inject(const run_opts *o, const json_t *test, int64_t first, int64_t count);
/* Parse SHARDCHECK_FAULT; 0 or -1 with a message on stderr. */
int run_parse_fault(const char *spec, run_fault *f);

/* What computing one test produced: a status (Pass = every view computed) and,
 * for ranks [first, first+count), their views ({"error": msg} for a refused case). */
typedef struct run_outcome {
    run_status status;
    char msg[768];
    int64_t world, first, count;
    json_t **views;
} run_outcome;

/* Free an outcome's views. */
void run_outcome_clear(run_outcome *oc);
/* Compute the outcomes of tests idx[0..n) of golden g in forked workers that stream
 * one outcome per test: a worker that crashes or exceeds o->timeout_s on a test
 * costs that test only (Crash or Timeout) and the next worker goes on.  Outcomes
 * whose status is preset to NotSupported are skipped.  rank < 0: every rank of each
 * test; otherwise only that rank (mpi). */
void run_views_chunk(const run_opts *o, const shc_family *f, const shc_golden *g,
                     const int64_t *idx, int64_t n, int64_t rank, run_outcome *out);
/* Check every rank's view against golden and the family's SPMD invariants;
 * views has world entries. */
run_status run_check(const run_opts *o, const shc_family *f, const json_t *group,
                     const json_t *test, int64_t world, json_t *const *views, char *msg,
                     size_t n);

/* An outcome as one line of text (worker -> parent, rank -> rank 0), and back. */
char *run_outcome_dump(const run_outcome *oc);
int run_outcome_load(const json_t *j, run_outcome *oc);

#ifdef HAVE_MPI
/* Under mpirun: initialise, and per case gather every rank's outcome to rank 0. */
int run_mpi_init(run_opts *o, int *argc, char ***argv);
/* Every rank calls this for each chunk of tests in the same order; on rank 0 each
 * outcome gets every rank's view (world entries, first = 0). */
void run_mpi_chunk(run_opts *o, const shc_family *f, const shc_golden *g, const int64_t *idx,
                   int64_t n, int64_t seq, run_outcome *out);
/* Every rank's verdict on what it checked before the first case (failed: this rank found a
 * problem): the lowest rank that found one (it prints it), o->nprocs when none did, -1
 * when a rank did not take part within the case limit (o->lost set). */
int64_t run_mpi_first_failing(run_opts *o, bool failed);
/* The chunk once o->lost is set (no MPI call): rank 0 computes the cases only it takes part
 * in and reports every other as Timeout, not run; the other ranks do nothing. */
void run_mpi_lost_chunk(run_opts *o, const shc_family *f, const shc_golden *g,
                        const int64_t *idx, int64_t n, run_outcome *out);
/* Finish: MPI_Finalize (or MPI_Abort when a rank stopped answering, by rank 0 after its
 * report is out; another rank waits for that, then ends the job itself). */
void run_mpi_finish(const run_opts *o, int lost);
/* torch backend (run_torch.c): start this rank's torch worker (0, or the exit code the run
 * ends with), compute this rank's outcomes for a chunk through it, stop it. */
int run_torch_start(run_opts *o);
void run_torch_outcomes(run_opts *o, const shc_family *f, const shc_golden *g,
                        const int64_t *idx, int64_t n, const run_outcome *all, run_outcome *mine);
void run_torch_stop(run_opts *o);
#endif
/* cuda backend (run_cuda.c): find the GPUs (0, or 77 with the reason printed when
 * there is none or CUDA was not built in); every rank's view computed on device
 * rank % o->cuda_devices; the check of one such view against golden, or against
 * the CPU reference for the device's own GPU profile where the view carries it. */
int run_cuda_start(run_opts *o);
run_status run_cuda_views(const run_opts *o, const shc_family *f, const json_t *group,
                          const json_t *test, int64_t first, int64_t count, json_t **views,
                          char *msg, size_t n);
/* cuda under mpirun, a family with a dcomm_view hook (redistribute-data): this rank's
 * view with its tensors on the device, collectives over NCCL or host-staged MPI. */
run_status run_cuda_comm_view(const run_opts *o, const shc_family *f, const json_t *group,
                              const json_t *test, json_t **view, char *msg, size_t n);
/* Free what run_cuda_comm_view made (NCCL communicators), before MPI_Finalize. */
void run_cuda_stop(void);
int run_cuda_compare(const json_t *test, int64_t rank, json_t *got, char *msg, size_t n);
/* torch backend: compare a rank's real view with golden (projecting plans to collectives). */
int run_torch_compare(const shc_family *f, const json_t *test, int64_t rank, const json_t *got,
                      char *msg, size_t n);
#endif
