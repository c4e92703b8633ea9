/*
 * run.h — pieces of `shardcheck run` shared by cmd_run.c (options, preflight, the job's
 * start), runner.c (the case loop, reports), run_check.c (computing a test's per-rank views in an
 * isolated worker, comparing them with golden, the SPMD invariants),
 * run_mpi.c (one process per rank under mpirun), run_torch.c (real DTensor
 * per rank through a Python worker), run_cuda.c (each rank's view computed on
 * a GPU), run_plugin.c (a vendor library), run_worker.c (a vendor's program in any
 * language over the worker protocol), and the backend records and their table
 * (run_backend, backends.c).  Tested by conformance/tests/run_mpi.sh,
 * run_faults.sh and run_torch.sh.
 */
#ifndef SHC_RUN_H
#define SHC_RUN_H
#include <stdio.h>
#include <string.h>
#include <jansson.h>
#include "shardcheck.h"
#include "family.h"
#include "backend_plugin.h"
#include "progress.h"
#include "outfile.h"

/* src (NULL: "") into dst[n], cut to fit, as snprintf(dst, n, "%s", src) but without the
 * format engine: the runner copies a message and a comment or two per case in every process. */
static inline void run_copy(char *dst, size_t n, const char *src)
{
    size_t k = src ? strnlen(src, n - 1) : 0;
    if (k)
        memcpy(dst, src, k);
    dst[k] = '\0';
}

typedef enum { RUN_PASS, RUN_FAIL, RUN_NOTSUPPORTED, RUN_CRASH, RUN_TIMEOUT, RUN_INTERNAL,
               RUN_NSTATUS } run_status;

struct run_opts;
struct run_outcome;

/* How a backend's processes map to mesh ranks. */
typedef enum {
    RUN_IN_PROCESS,          /* every rank in this process (forked workers) */
    RUN_PER_RANK,            /* one process per rank: always under mpirun (mpi, torch) */
    RUN_PER_RANK_UNDER_MPIRUN /* one process per rank when started under mpirun (cuda) */
} run_procs;

/* A backend: everything `run` (and certify, the report, the mpirun runner) asks about one
 * value of --backend.  The table in backends.c is the only list of them; each record lives
 * in its backend's own file.  Hooks are NULL where the backend does what the runner does
 * by default (noted per hook). */
typedef struct run_backend {
    const char *name;          /* the name reports carry: "torch" */
    const char *const *spellings; /* --backend values it takes as they are, NULL-ended */
    const char *arg_prefix;    /* or "plugin:" followed by an argument (FILE.so) */
    const char *usage;         /* how the accepted spellings are named: "torch[:gloo|:nccl]" */
    const char *help;          /* one line for `run --help`'s list of backends */
    run_procs procs;
    /* Mesh ranks one process may host under mpirun: 1 (torch: a DeviceMesh rank is a
     * process), or RUN_HOSTS_ANY (a case of any world runs, each process hosting the
     * block shc_comm_host_block gives it); in one process (RUN_IN_PROCESS) every rank
     * of a mesh up to --max-ranks. */
    int64_t ranks_per_process;
    int64_t max_ranks;         /* --max-ranks' default in one process */
    int batch;                 /* cases per chunk (0: the runner's 256) */
    bool family_batch;         /* the family's exec.comm_batch overrides batch */
    bool whole_world;          /* a mesh must span the whole job (torch's DeviceMesh) */
    const char *whole_world_why; /* why, in a NotSupported reason (NULL: "no hosting") */
    bool pass_note;            /* a passing compare's note is the case's message (cuda) */
    bool certify_np;           /* certify --np N > 1 runs it under mpirun -np N, np 1 in one
                                * process (the plugin) */
    bool arg_is_command;       /* its argument is a command line (worker:CMD): a package names
                                * each path in it by its base name, not the file alone */
    /* Under mpirun a process may spend the case limit on each case of a chunk, alone (its
     * own worker's timeouts, which rank 0 does not share): rank 0 waits that long (worker). */
    bool chunk_waits_per_case;
    /* Its forked workers run only shardcheck's own code (ref, local): a worker that computed
     * every rank of a case checks the views itself (run_check) and sends back the verdict,
     * not every view for the runner to parse and check (two thirds of `run --backend ref`'s
     * CPU, issue 36 item 1).  A plugin's or a worker command's views are always checked in
     * the runner: code under test shares no address space with the golden answers. */
    bool checks_in_worker;
    void *state;               /* its own state (run_opts.be_state): a static object in its
                                * file, zeroed (one backend per process; a worker forks a copy) */
    /* The argument of its spelling (spec as given) into its state; NULL: none. */
    void (*configure)(struct run_opts *o, const char *spec);
    /* An input file the outputs must not overwrite (the plugin); NULL: none. */
    const char *(*input)(const struct run_opts *o);
    /* The implementation checked, after probe (the plugin: {"name", "file", "sha256",
     * "abi"}; no path of this machine): the JSON report's member named after the backend,
     * and a line of every other output; NULL: none. */
    json_t *(*subject)(const struct run_opts *o);
    /* Before anything runs, in this process: 0, or a code and e (*crashed: the probe's
     * child died, reported as a Crash row named by *comment). */
    int (*probe)(struct run_opts *o, bool *crashed, char *comment, size_t n, shc_err *e);
    /* Start before the mpirun job (cuda: find the GPUs): 0 or the exit code. */
    int (*start)(struct run_opts *o);
    /* Start inside the mpirun job, every rank agreed (torch: its workers): 0 or the exit code. */
    int (*job_start)(struct run_opts *o);
    /* Stop what start and job_start started (before MPI_Finalize). */
    void (*stop)(struct run_opts *o);
    /* In a forked worker, before its first case (the plugin is loaded there only). */
    int (*worker_open)(struct run_opts *o, shc_err *e);
    /* Whether a worker's exit with this status (not 0, 3, 5) is the backend's code ending
     * it (the plugin calling exit): a Crash. */
    bool worker_exit_is_crash;
    /* The views of ranks [first, first+count) of a test (a worker); NULL: the family's
     * compute_rank on each rank. */
    run_status (*views)(const struct run_opts *o, const shc_family *f, const json_t *group,
                        const json_t *test, int64_t world, int64_t first, int64_t count,
                        json_t **views, char *msg, size_t n);
    /* A rank's view against the golden test: 1 match, 0 mismatch (msg), 2 NotSupported
     * (msg); NULL: shc_compare_view. */
    int (*compare)(const shc_family *f, const json_t *test, int64_t rank, json_t *got,
                   char *msg, size_t n);
    /* Under mpirun, this rank's outcomes for a chunk when the backend computes them itself
     * (torch, worker: its worker); NULL: the runner's (forked workers, or the family's
     * exec.over_comm).  In one process too (a backend not RUN_PER_RANK: worker), with mine ==
     * all and every rank of each case to compute. */
    void (*job_outcomes)(struct run_opts *o, const shc_family *f, const shc_golden *g,
                         const int64_t *idx, int64_t n, const struct run_outcome *all,
                         struct run_outcome *mine);
    /* Under mpirun, a family with an exec.over_comm hook: mesh rank `rank`'s view executed
     * over comm (the job's communicator, o->comm, when each process hosts one rank; a
     * hosted rank's communicator from comm_hosted.c, on that rank's thread, when it hosts
     * several); NULL: the case is computed in a forked worker. */
    run_status (*comm_view)(const struct run_opts *o, shc_comm *comm, int64_t rank,
                            const shc_family *f, const json_t *group, const json_t *test,
                            json_t **view, char *msg, size_t n);
    /* Whether rank 0 may compute a family's cases alone once a rank is lost (they run
     * in forked workers, needing no other rank); NULL: never. */
    bool (*alone)(const shc_family *f);
    /* Whether the family's cases run after the others (computed in this process, which
     * the forked workers of the others could not share: cuda under mpirun). */
    bool (*runs_last)(const struct run_opts *o, const shc_family *f);
} run_backend;

/* ranks_per_process of a backend whose processes host any number of mesh ranks (the
 * largest world the runner takes: shc_comm_host_block's bound). */
#define RUN_HOSTS_ANY INT32_MAX

/* The backends (backends.c), NULL-ended. */
const run_backend *const *run_backends(void);
/* The backend --backend spec names, with its argument in *arg (the spec after arg_prefix, or
 * spec itself); NULL when none does. */
const run_backend *run_backend_find(const char *spec, const char **arg);
/* "ref, local, ... or plugin:FILE.so": the accepted spellings, for the refusal. */
void run_backend_spellings(char *buf, size_t n);
/* `run --help`'s list of backends, a line each ("  name    help\n"), from the table. */
void run_backend_help(char *buf, size_t n);
/* "ref|local|...|worker:CMD": the accepted spellings, for the usage line. */
void run_backend_synopsis(char *buf, size_t n);
/* Whether this process would be one rank of an mpirun job (before the job starts). */
bool run_backend_per_rank(const run_backend *be);
/* "mpi and torch": the backends that always run one process per rank. */
void run_backend_per_rank_names(char *buf, size_t n);
/* Every backend's record, in its own file. */
extern const run_backend run_backend_ref, run_backend_local, run_backend_mpi,
    run_backend_plugin, run_backend_torch, run_backend_cuda, run_backend_worker;

/* A fault to inject (SHARDCHECK_FAULT=kill:RANK:TCID, hang:RANK:TCID, or stop:RANK:TCID:
 * under mpirun the rank's MPI process itself stops (SIGSTOP) before the chunk holding the
 * case, as `kill -STOP` would stop it; die:RANK:TCID: ... or dies (SIGKILL), as a lost node;
 * strand:RANK:TCID: the torch backend's workers leave a collective half done; setup:RANK:TCID:
 * a torch worker fails to set up a gloo group; both in tools/harness/worker_faults.py). */
typedef struct run_fault {
    enum { FAULT_NONE, FAULT_KILL, FAULT_HANG, FAULT_STOP, FAULT_DIE, FAULT_STRAND,
           FAULT_SETUP } kind;
    int64_t rank, tcid;
} run_fault;

enum { RUN_SAMPLED_MAX = 16 };  /* --max-cases-of, at most one per family */
typedef struct run_opts {
    const run_backend *be;   /* --backend (backends.c) */
    void *be_state;          /* its own state (be->state) */
    const char *be_spec;     /* --backend as given */
    const char *family;      /* NULL: every registered family */
    const char *golden;      /* golden directory */
    int tap, json, verbose;
    const char *junit;
    struct report *rep;      /* rank 0: where results go (report.h); NULL elsewhere */
    double timeout_s;        /* per case */
    int64_t max_cases;       /* per family, 0 = all */
    /* --max-cases-of FAMILY=N: a family's own max_cases (run_max_cases) */
    struct run_sample { const char *family; int64_t n; } sampled[RUN_SAMPLED_MAX];
    int nsampled;
    int64_t max_ranks;       /* in one process: largest simulated world */
    run_fault fault;
    /* the mpirun job (run_mpi.c), for every backend that runs one process per rank */
    bool mpi_job;            /* this process is one rank of it */
    bool job_ahead;          /* it will be, once the backend's start has run (set before) */
    int64_t rank, nprocs;    /* this process under mpi; 0 and 1 otherwise */
    shc_comm *comm;          /* the job's communicator (families' exec.over_comm; cuda staging) */
    int lost;                /* mpi: a rank stopped answering; no case needing it runs again */
    int64_t lost_rank;       /* mpi: the first rank found not answering (-1: not known) */
    int64_t lost_tc;         /* ... and the case it was found in */
    int no_manifest_check;   /* --no-manifest-check: the corpus is not checked (warned) */
    const char *journal_path;
    FILE *journal;           /* --journal: one line per case as it finishes (rank 0) */
    out_file journal_of;     /* ... its file: a new inode renamed into place at the start */
    const char *views_path;
    FILE *views_out;         /* --views: every computed case's per-rank views (rank 0) */
    out_file views_of;       /* ... its temporary file, renamed into place when complete */
    int64_t max_world;       /* the largest world of a case that was run (the idle note) */
    progress *bar;           /* rank 0: the terminal's progress bar over a family's cases */
    const char *torch_opt;   /* --torch-version as given (NULL: not) */
    shc_torch_release torch; /* the release judged against (torch_version.c's rule) */
    char torch_why[128];     /* how it was chosen */
    const char *waivers_path; /* --waivers FILE (waivers.h) */
    struct waivers *waivers;  /* ... loaded and checked against the corpus by preflight */
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

/* --journal -: the journal's lines go to standard output, each after this marker, so that
 * mpirun forwards them to the launch node whatever node rank 0 runs on (mpirun_runner.sh
 * takes them out of the output into its own journal). */
#define RUN_JOURNAL_MARKER "#shardcheck-journal# "
/* One line of the journal (printf-style, no newline), flushed at once: the wrapper follows
 * it while the job runs.  Nothing when there is no journal. */
void run_journal(const run_opts *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* runner.c: the engine `run` calls once the job has started. */
/* Rank 0 opens its report, journal and --views; every selected family runs (run_family);
 * the outputs close and the backend and the job stop: the exit code.  crashed: the probe's
 * child died, reported as one Crash row (comment, crash_msg) and nothing runs. */
int run_families(run_opts *o, bool crashed, const char *comment, const char *crash_msg);
/* --journal -: the journal's lines on standard output (run_journal's marker). */
bool run_journal_on_stdout(const run_opts *o);

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
    bool checked;      /* status is run_check's verdict, given by the worker (views then only
                        * where run_outcome_keeps_views says the runner needs them) */
    char comment[160]; /* a checked case's golden comment (the runner need not parse it) */
    char *raw;         /* under mpirun, a rank other than 0: the worker's line as it came,
                        * forwarded to rank 0 unparsed (views are parsed once, there) */
} run_outcome;

/* world < 0 in an outcome handed to run_views_chunk: the worker finds the world and whether
 * the case can run here (run_case_supported) itself, so the runner parses no passing test. */
#define RUN_WORLD_UNKNOWN (-1)
/* Whether a case can run here, a mesh of at most cap ranks (the job's size, or --max-ranks in
 * one process): oc->world set, and when not, NotSupported with the reason. */
void run_case_supported(const run_opts *o, const shc_family *f, const json_t *group,
                        int64_t cap, run_outcome *oc);

/* Whether, under mpirun, each process's worker checks its block of golden test i itself
 * (block_checkable, read from the golden bytes before any test is parsed): then rank 0 leaves
 * the test to its worker, which checks from the lean test (run_lean.c) and parses the whole
 * one only where unsure. */
bool run_worker_checks_block(const run_opts *o, const shc_family *f, const shc_golden *g,
                             int64_t i);

/* Largest world whose views a failing case keeps in --json (explain --candidate shows them). */
#define RUN_KEEP_VIEWS 64

/* Free an outcome's views. */
void run_outcome_clear(run_outcome *oc);
/* Compute the outcomes of tests idx[0..n) of golden g in a forked worker that streams
 * one outcome per test (run_views.c; it is kept for the family's next chunk): a worker
 * that crashes or exceeds o->timeout_s on a test costs that test only (Crash or Timeout)
 * and a new worker goes on.  Outcomes whose status is preset to NotSupported are skipped.
 * proc < 0: every rank of each test; otherwise the ranks process proc of o->nprocs hosts
 * (shc_comm_host_block; mpi). */
void run_views_chunk(const run_opts *o, const shc_family *f, const shc_golden *g,
                     const int64_t *idx, int64_t n, int64_t proc, run_outcome *out);
/* The family's worker, if any, ended and reaped: before its golden cases are freed. */
void run_views_done(void);
/* Check every rank's view against golden and the family's SPMD invariants;
 * views has world entries. */
run_status run_check(const run_opts *o, const shc_family *f, const json_t *group,
                     const json_t *test, int64_t world, json_t *const *views, char *msg,
                     size_t n);

/* The most cases of family f the run takes (--max-cases-of, else --max-cases; 0: all). */
int64_t run_max_cases(const run_opts *o, const char *family);
/* Whether the runner needs a checked case's views: --views writes every computed case's, and
 * --json keeps a failing case's up to RUN_KEEP_VIEWS ranks (explain --candidate). */
bool run_outcome_keeps_views(const run_opts *o, run_status checked, int64_t world);
/* An outcome as one line of JSON text (worker -> parent, rank -> rank 0; run_outcome.c), and
 * back: 0, or -1 for a line that is no outcome. */
char *run_outcome_dump(const run_outcome *oc);
int run_outcome_parse(const char *line, run_outcome *oc);
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
/* This process's rank among the job's processes on its node (0 when MPI cannot say): which
 * of the node's GPUs or ports is its own (torch, worker). */
int run_mpi_local_rank(void);
/* Whether this rank's settings text (its run options, SHARDCHECK_* environment, corpus, one
 * per line) equals rank 0's: 0, 1 with msg naming the first differing line and both hosts,
 * -1 when rank 0's did not arrive within the case limit (o->lost set). */
int run_mpi_settings_agree(run_opts *o, const char *mine, char *msg, size_t n);
/* Finish: MPI_Finalize (or MPI_Abort when a rank stopped answering, by rank 0 after its
 * report is out; another rank waits for that, then ends the job itself). */
void run_mpi_finish(const run_opts *o, int lost);
#endif
#endif
