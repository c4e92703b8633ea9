/*
 * cmd_run.c — `shardcheck run`: the conformance runner.
 *
 *   shardcheck run [--backend ref|local|mpi|cuda|torch[:gloo|:nccl]|plugin:FILE.so|worker:CMD]
 *                  [--family F] [--golden DIR]
 *                  [--tap | --junit FILE | --json] [--timeout SEC] [--max-cases N]
 *                  [--max-ranks N]
 *
 * Before the first case every process checks the golden files it reads and their
 * schemas against golden/MANIFEST (verify's check; --no-manifest-check skips it and
 * warns) and that no output names an input (outfile.h); under mpirun the ranks agree.
 * For every registered family (or --family F) the golden files are loaded,
 * and for every test each rank's view is computed on the backend (run_check.c
 * in a forked worker with a per-case time limit; run_mpi.c with one process
 * per rank under mpirun) and checked against golden and the SPMD invariants.
 * A test whose world does not fit the backend, or that a family or plugin
 * cannot compute, is NotSupported, never Fail.  Reports go through report.c, the
 * reporter verify uses: text (the failures grouped by flag and field per family, as verify
 * groups them, then at most RUN_FAIL_LINES Fail lines; every case with --verbose;
 * per-family totals), --tap, --junit FILE, --json (each failing case with its flags and
 * inputs; its views, for explain --candidate); the last line is always
 * "N passed, N failed, N skipped"; on a terminal, rank 0 shows a progress bar over each
 * family's cases (tools/common/progress.h).  Exit codes (docs/DESIGN.md): 0 all passed or
 * skipped, 1 a Fail/Crash/Timeout, 2 bad usage or input (corrupt golden file,
 * bad plugin), 77 nothing ran, 99 an InternalError.
 * Tested by conformance/tests/run_mpi.sh, run_faults.sh, io_lifecycle.sh and
 * run_failure_groups.sh (the groups, the bound, TAP/JUnit/JSON with flags and inputs).
 */
#include "config.h"
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include "cli.h"
#include "report.h"
#include "waivers.h"
#include "run.h"
#include "outfile.h"
#include "torch_version.h"

static const char RUN_ABOUT[] =
    "  ref     the reference, one process;  local  simulated ranks with real collectives\n"
    "  mpi     one process per rank: mpirun -np N shardcheck run --backend mpi\n"
    "  torch   real DTensor per rank (torch.distributed, gloo or nccl), checked here:\n"
    "          mpirun -np N shardcheck run --backend torch[:gloo|:nccl]\n"
    "  cuda    each rank's view on a GPU (rank mod GPUs; under mpirun one process per rank);\n"
    "          77 with the reason where CUDA was not built in or no GPU is visible\n"
    "  plugin  a vendor library implementing shardcheck_backend.h\n"
    "  worker  a vendor program in any language over the worker protocol (one per process;\n"
    "          under mpirun each computes the ranks its process hosts): docs/backends/worker.md\n"
    "  SHARDCHECK_FAULT=kill:RANK:TCID | hang:RANK:TCID | stop:RANK:TCID injects a fault\n"
    "  (tests; stop: under mpirun the rank's own process stops, as kill -STOP; a RANK the\n"
    "  job has no process for, or stop without mpirun, is exit 2).\n"
    "  Before the first case every process checks the golden files it reads (and their\n"
    "  schemas) against golden/MANIFEST, as verify does: a mismatch is exit 2 naming the file.\n"
    "  exit: 0 passed, 1 failures, 2 bad input, 77 nothing ran, 99 internal error";

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool printer(const run_opts *o) { return o->rank == 0; }

/* --journal -: the journal's lines on standard output (run_journal's marker). */
static bool journal_on_stdout(const run_opts *o)
{
    return o->journal_path && !strcmp(o->journal_path, "-");
}

/* One finished result: a line in the journal (the mpirun wrapper follows it) and a case
 * of the report (rank 0 of an mpi job reports; the other ranks only compute).  group, test:
 * the golden case (NULL for a result standing for a family or the plugin); views: a failing
 * case's per-rank views (NULL: none), which run --json keeps for explain --candidate. */
static void emit(const run_opts *o, const run_result *r, const json_t *group,
                 const json_t *test, const json_t *views)
{
    if (!printer(o))
        return;
    run_journal(o, "%s %s %lld", run_status_name(r->status), r->family, (long long)r->tcid);
    report_item it = {.family = r->family, .tcid = r->tcid, .name = r->comment,
                      .st = (report_status)r->status, .detail = r->msg[0] ? r->msg : NULL,
                      .seconds = r->seconds, .group = group, .test = test, .views = views};
    report_add(o->rep, &it);
    fflush(stdout);
}

/* A result that stands for a whole family or the plugin (tcId 0). */
static void emit_whole(const run_opts *o, const char *family, run_status st, const char *comment,
                       const char *msg)
{
    run_result r;
    memset(&r, 0, sizeof r);
    r.family = family;
    r.status = st;
    snprintf(r.comment, sizeof r.comment, "%s", comment);
    snprintf(r.msg, sizeof r.msg, "%s", msg);
    emit(o, &r, NULL, NULL, NULL);
}

/* ---- one chunk of tests ---- */

/* Cases per worker fork.  Under mpi a chunk is also what a lost process loses and what the
 * journal records at once (run_multinode.sh D5), so it stays small there; in one process each
 * fork copies the page tables of the loaded golden family (hundreds of MB), which made a quarter
 * of `run --backend ref`'s CPU at 256 (issue 36 item 1). */
#define CHUNK 256
#define CHUNK_ONE_PROCESS 2048
/* Text: Fail lines listed after the groups (the rest are counted; --verbose lists all). */
#define RUN_FAIL_LINES 50
/* Largest world whose views a failing case keeps in --json (explain --candidate shows them). */
#define RUN_KEEP_VIEWS 64

/* Whether processes host several mesh ranks.  SHARDCHECK_HOSTING=0 is the runner as it was
 * before (a case whose mesh has more ranks than the job is NotSupported), for
 * bench/bench_hosting.sh's same-run comparison only; 1 is the default, anything else is
 * refused (parse_options). */
static bool hosting(void)
{
    const char *v = getenv("SHARDCHECK_HOSTING");
    return !v || strcmp(v, "0");
}

/* --views: one line per case whose every view was computed, as the checks see them. */
static void write_views(const run_opts *o, const shc_family *f, int64_t tcid,
                        const run_outcome *oc)
{
    if (!o->views_out)
        return;
    json_t *a = json_array();
    for (int64_t r = 0; r < oc->world; r++)
        json_array_append(a, oc->views[r]);
    json_t *line = json_pack("{s:s, s:I, s:o}", "family", f->name, "tcId", (json_int_t)tcid,
                             "views", a);
    char *text = line ? json_dumps(line, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    if (text)
        fprintf(o->views_out, "%s\n", text);
    else
        fputs("\n", o->views_out); /* out of memory: a blank line the comparison sees */
    free(text);
    json_decref(line);
}

static void run_chunk(run_opts *o, const shc_family *f, const shc_golden *g, const int64_t *idx,
                      int64_t n, int64_t seq)
{
    run_outcome *out = calloc((size_t)n, sizeof *out);
    if (!out) {
        fputs("shardcheck run: out of memory\n", stderr);
        exit(EXIT_INTERNAL);
    }
    bool per_process = o->mpi_job;
    /* under mpirun: one mesh rank per process (torch), or any world hosted in blocks */
    int64_t cap = !per_process ? o->max_ranks
                : o->be->ranks_per_process == RUN_HOSTS_ANY && hosting() ? RUN_HOSTS_ANY
                : o->nprocs;
    for (int64_t k = 0; k < n; k++) {
        out[k].world = f->world_size(g->groups[idx[k]], g->tests[idx[k]]);
        if (o->be->whole_world && out[k].world != cap) {
            /* a real DeviceMesh spans the whole torch.distributed world */
            out[k].status = RUN_NOTSUPPORTED;
            snprintf(out[k].msg, sizeof out[k].msg, "the mesh has %lld ranks, the torch job %lld "
                     "(a DeviceMesh rank is a process: no hosting)",
                     (long long)out[k].world, (long long)cap);
        } else if (out[k].world > cap) {
            out[k].status = RUN_NOTSUPPORTED;
            snprintf(out[k].msg, sizeof out[k].msg, "needs %lld ranks, the %s has %lld",
                     (long long)out[k].world,
                     per_process ? "mpirun job" : "backend (--max-ranks)",
                     (long long)cap);
        }
    }
    for (int64_t k = 0; k < n; k++)
        if (out[k].status != RUN_NOTSUPPORTED && out[k].world > o->max_world)
            o->max_world = out[k].world;
    double t0 = now_s();
#ifdef HAVE_MPI
    if (per_process && o->lost) /* every case is still reported (run_mpi_lost_chunk) */
        run_mpi_lost_chunk(o, f, g, idx, n, out);
    else if (per_process)
        run_mpi_chunk(o, f, g, idx, n, seq, out);
    else
#endif
    if (o->be->job_outcomes) { /* worker: its own process, hosting every rank */
        for (int64_t k = 0; k < n; k++)
            out[k].count = out[k].status == RUN_NOTSUPPORTED ? 0 : out[k].world;
        o->be->job_outcomes(o, f, g, idx, n, out, out);
    } else {
        run_views_chunk(o, f, g, idx, n, -1, out);
    }
    (void)seq;
    double each = (now_s() - t0) / (double)n;
    for (int64_t k = 0; k < n; k++) {
        const json_t *test = g->tests[idx[k]];
        run_result res, *r = &res;
        memset(r, 0, sizeof *r);
        r->family = f->name;
        r->tcid = json_integer_value(json_object_get(test, "tcId"));
        snprintf(r->comment, sizeof r->comment, "%s",
                 json_string_value(json_object_get(test, "comment")) ?: "");
        r->status = out[k].status;
        r->seconds = each;
        snprintf(r->msg, sizeof r->msg, "%s", out[k].msg);
        if (r->status == RUN_PASS && printer(o)) {
            if (!out[k].views || out[k].count != out[k].world) {
                r->status = RUN_INTERNAL;
                snprintf(r->msg, sizeof r->msg, "%lld views for %lld ranks",
                         (long long)out[k].count, (long long)out[k].world);
            } else {
                write_views(o, f, r->tcid, &out[k]);
                r->msg[0] = '\0'; /* a Pass's msg is only ever a note from run_check */
                r->status = run_check(o, f, g->groups[idx[k]], test, out[k].world, out[k].views,
                                      r->msg, sizeof r->msg);
            }
        }
        json_t *views = NULL; /* a failure's views, for --json (explain --candidate) */
        if (r->status == RUN_FAIL && o->json && out[k].views && out[k].count == out[k].world &&
            out[k].world <= RUN_KEEP_VIEWS && (views = json_array()))
            for (int64_t v = 0; v < out[k].world; v++)
                json_array_append(views, out[k].views[v] ? out[k].views[v] : json_null());
        run_outcome_clear(&out[k]);
        emit(o, r, g->groups[idx[k]], test, views);
        json_decref(views);
    }
    free(out);
}

/* torch: --max-cases samples among the tests whose mesh spans the job (the others can only be
 * NotSupported); their indices in *pick, their count returned. */
static int64_t torch_eligible(const run_opts *o, const shc_family *f, const shc_golden *g,
                              int64_t **pick)
{
    *pick = malloc((size_t)(g->ntests ? g->ntests : 1) * sizeof **pick);
    if (!*pick) {
        fputs("shardcheck run: out of memory\n", stderr);
        exit(EXIT_INTERNAL);
    }
    int64_t m = 0;
    for (int64_t k = 0; k < g->ntests; k++)
        if (f->world_size(g->groups[k], g->tests[k]) == o->nprocs)
            (*pick)[m++] = k;
    return m;
}

/* Every selected test of one family; returns EXIT_USAGE on a corrupt golden file. */
static int run_family(run_opts *o, const shc_family *f, int64_t *seq)
{
    if (!f->compute_rank || !f->world_size) {
        char msg[160];
        snprintf(msg, sizeof msg, "family %s has no per-rank computation yet", f->name);
        emit_whole(o, f->name, RUN_NOTSUPPORTED, "family", msg);
        return EXIT_OK;
    }
    shc_golden g;
    shc_err e = {0};
    memset(&g, 0, sizeof g);
    /* Only a family with no golden directory at all is NotSupported (a --golden holding some
     * families); anything there that cannot be read is bad input, never a silent pass. */
    char fdir[4096];
    struct stat st;
    snprintf(fdir, sizeof fdir, "%s/%s", o->golden, f->name);
    bool absent = stat(fdir, &st) && errno == ENOENT;
    int rc = absent ? shc_fail(&e, SHC_EIO, "golden family %s: no directory %s", f->name, fdir)
                    : shc_golden_load_family_at(&g, o->golden, f->name, o->torch, &e);
    if (absent) {
        emit_whole(o, f->name, RUN_NOTSUPPORTED, "family", e.msg);
        return EXIT_OK;
    }
    if (rc) {
        if (printer(o)) {
            progress_hide();
            fprintf(stderr, "shardcheck run: %s\n", e.msg);
        }
        return EXIT_USAGE;
    }
    if (g.unversioned && printer(o)) {
        progress_hide();
        fprintf(stderr, "shardcheck run: note: %s has no version data (source.releases): read as "
                "what it is, torch %s's answers\n", g.unversioned,
                shc_torch_release_name(SHC_TORCH_PIN_RELEASE));
    }
    int64_t n = g.ntests, *pick = NULL;
    if (o->be->whole_world && o->max_cases > 0)
        n = torch_eligible(o, f, &g, &pick);
    int64_t take = o->max_cases > 0 && o->max_cases < n ? o->max_cases : n;
    int64_t idx[CHUNK_ONE_PROCESS];
    /* a family that executes in lockstep under mpi says how small its batches must be,
     * so the journal stays current */
    int64_t chunk = o->be->family_batch && f->mpi.batch > 0 ? f->mpi.batch
                  : o->be->batch > 0 ? o->be->batch
                  : o->be->procs == RUN_IN_PROCESS ? CHUNK_ONE_PROCESS : CHUNK;
    if (o->bar) {
        char label[96];
        snprintf(label, sizeof label, "run %s", f->name);
        progress_begin(o->bar, label, take);
    }
    for (int64_t k0 = 0; k0 < take; k0 += chunk) {
        int64_t m = take - k0 < chunk ? take - k0 : chunk;
        for (int64_t k = 0; k < m; k++) {
            idx[k] = take == n ? k0 + k : (k0 + k) * n / take;
            if (pick)
                idx[k] = pick[idx[k]];
        }
        run_chunk(o, f, &g, idx, m, (*seq)++);
    }
    if (o->bar)
        progress_end(o->bar);
    /* while its golden trees are loaded: the family's failures by flag and field, with the
     * smallest case's inputs and the flag's note (report_groups.c, verify's grouping) */
    if (o->rep && report_group_family(o->rep, &g) && printer(o))
        fputs("shardcheck run: out of memory grouping the failures: they are listed ungrouped\n",
              stderr);
    free(pick);
    shc_golden_free(&g);
    return EXIT_OK;
}

/* ---- options ---- */

static int opt_backend(void *ctx, const char *b, shc_err *e)
{
    run_opts *o = ctx;
    const char *arg;
    const run_backend *be = run_backend_find(b, &arg);
    if (!be) {
        char list[256];
        run_backend_spellings(list, sizeof list);
        return shc_fail(e, SHC_EINVAL, "'%s': expected %s", CLI_ECHO(b), list);
    }
    o->be = be;
    o->be_spec = b;
    o->be_state = be->state;
    if (be->configure)
        be->configure(o, arg);
    return SHC_OK;
}

static int parse_options(run_opts *o, int argc, char **argv)
{
    long long timeout = 60, max_cases = 0, max_ranks = 0;
    unsigned long long given = 0;
    const cli_option opts[] = {
        {.name = "backend", .kind = CLI_CALL, .meta = "B", .call = opt_backend,
         .help = "ref (default), local, mpi, torch[:gloo|:nccl], cuda, plugin:FILE.so or "
                 "worker:CMD"},
        {.name = "family", .kind = CLI_STR, .meta = "F", .to = &o->family,
         .help = "only this family (default every registered family)"},
        {.name = "golden", .kind = CLI_STR, .meta = "DIR", .to = &o->golden,
         .help = CLI_GOLDEN_HELP},
        {.name = "tap", .kind = CLI_FLAG, .to = &o->tap, .help = "TAP on stdout"},
        {.name = "junit", .kind = CLI_STR, .meta = "FILE", .to = &o->junit,
         .help = "also JUnit XML into FILE"},
        {.name = "json", .kind = CLI_FLAG, .to = &o->json, .help = "one JSON report on stdout"},
        {.name = "timeout", .kind = CLI_LL, .meta = "SEC", .to = &timeout, .lo = 1, .hi = 86400,
         .help = "per-case time limit in seconds (default 60)"},
        {.name = "max-cases", .kind = CLI_LL, .meta = "N", .to = &max_cases, .lo = 0,
         .hi = LLONG_MAX, .range = "is negative",
         .help = "at most N cases per family, spread over it (0: all)"},
        {.name = "max-ranks", .kind = CLI_LL, .meta = "N", .to = &max_ranks, .lo = 1, .hi = 4096,
         .help = "largest simulated world (default local 64, ref 1024)"},
        {.name = "verbose", .kind = CLI_FLAG, .to = &o->verbose,
         .help = "text: list every case, not only those that did not pass"},
        {.name = "journal", .kind = CLI_STR, .meta = "FILE", .to = &o->journal_path,
         .help = "one line per case as it finishes (mpirun_runner.sh reads it; -: on "
                 "standard output after a marker, as the runner asks for)"},
        {.name = "views", .kind = CLI_STR, .meta = "FILE",  .to = &o->views_path,
         .help = "every case's per-rank views, a JSON line per case (compare two runs)"},
        {.name = "no-manifest-check", .kind = CLI_FLAG, .to = &o->no_manifest_check,
         .help = "do not check the golden files against MANIFEST first (warns every time)"},
        {.name = "torch-version", .kind = CLI_STR, .meta = "V", .to = &o->torch_opt,
         .help = TV_HELP},
        {.name = "waivers", .kind = CLI_STR, .meta = "FILE", .to = &o->waivers_path,
         .help = "known deviations (waivers/torch.json): their failures are Waived, with why"},
        CLI_OPT_END};
    const cli_command cmd = {
        .name = "run", .opts = opts, .ctx = o, .about = RUN_ABOUT, .given = &given,
        .synopsis = "[--backend ref|local|mpi|cuda|torch|plugin:FILE.so|worker:CMD]\n"
                    "                      [--family F] [--golden DIR] "
                    "[--tap | --junit FILE | --json] [--timeout SEC]\n"
                    "                      [--max-cases N] [--max-ranks N] "
                    "[--journal FILE] [--no-manifest-check]\n                      "
                    "[--torch-version V] [--waivers FILE] [--views FILE]"};
    int x = cli_parse(&cmd, argc, argv, NULL);
    if (x != CLI_GO)
        return x;
    o->timeout_s = (double)timeout;
    o->max_cases = max_cases;
    o->max_ranks = max_ranks;
    if (o->tap + o->json > 1)
        return cli_usage_error("run", "--tap and --json exclude each other");
    if (o->verbose && (o->tap || o->json))
        return cli_usage_error("run", "--verbose: not used with --%s (it lists every case)",
                               o->tap ? "tap" : "json");
    /* one process per rank: the mpirun job's size is the world, not --max-ranks */
    bool per_process = run_backend_per_rank(o->be);
    if (per_process && cli_given(&cmd, "max-ranks"))
        return cli_usage_error("run", "--max-ranks: not used with --backend %s under mpirun "
                               "(the job's size is the world: mpirun -np N)",
                               o->be->name);
    if (o->family && !shc_family_find(o->family))
        return cli_usage_error("run", "--family: '%s': no such family", CLI_ECHO(o->family));
    if (run_parse_fault(getenv("SHARDCHECK_FAULT"), &o->fault))
        return EXIT_USAGE;
    const char *hv = getenv("SHARDCHECK_HOSTING");
    if (hv && strcmp(hv, "0") && strcmp(hv, "1"))
        return cli_usage_error("run", "SHARDCHECK_HOSTING='%s': expected 0 (one mesh rank per "
                               "process, as before issue 24) or 1 (the default)", CLI_ECHO(hv));
    shc_err e = {0};
    if (tv_resolve(o->torch_opt, NULL, NULL, &o->torch, o->torch_why, sizeof o->torch_why, &e))
        return cli_report("run", SHC_EINVAL, &e);
    return CLI_GO;
}

/* What every process checks before the first case: the golden directory, the golden files
 * it reads and their schemas against MANIFEST (verify's check, shc_manifest_verify_family;
 * not with --no-manifest-check), and that no output (--junit, --journal) names an input.
 * SHC_OK, or the error with its message in e. */
static int preflight(run_opts *o, shc_err *e)
{
    struct stat st;
    if (stat(o->golden, &st))
        return shc_fail(e, SHC_EIO, "golden directory %s (--golden, $SHARDCHECK_GOLDEN, the "
                        "installed corpus or ./golden): %s", o->golden, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return shc_fail(e, SHC_EIO, "golden directory %s (--golden, $SHARDCHECK_GOLDEN, "
                        "the installed corpus or ./golden): not a directory", o->golden);
    int rc = o->no_manifest_check ? SHC_OK
           : o->family ? shc_manifest_verify_family(o->golden, o->family, e)
                       : shc_manifest_verify(o->golden, e);
    if (rc)
        return shc_err_prefix(e, "corpus check");
    out_inputs in = {0};
    out_inputs_tree(&in, "golden directory", o->golden, 1);
    if (o->be->input)
        out_inputs_file(&in, "given as --backend plugin:FILE", o->be->input(o));
    out_inputs_file(&in, "given as --waivers", o->waivers_path);
    rc = out_refuse(&in, "--junit", o->junit, e);
    const char *journal_file = journal_on_stdout(o) ? NULL : o->journal_path;
    if (!rc)
        rc = out_refuse(&in, "--journal", journal_file, e);
    if (!rc)
        rc = out_refuse(&in, "--views", o->views_path, e);
    const char *outs[] = {o->junit, journal_file, o->views_path};
    for (int i = 0; !rc && i < 3; i++)
        for (int j = i + 1; !rc && j < 3; j++)
            if (outs[i] && outs[j] && out_same(outs[i], outs[j]))
                rc = shc_fail(e, SHC_EINVAL, "--%s %s and --%s %s name the same file: each "
                              "output needs its own", i == 0 ? "junit" : "journal", outs[i],
                              j == 1 ? "journal" : "views", outs[j]);
    out_inputs_free(&in);
    if (!rc && o->waivers_path && o->waivers_path[0] == '\0')
        rc = shc_fail(e, SHC_EINVAL, "--waivers: an empty file name");
    if (!rc && o->waivers_path) /* every waiver names real cases, before the first one runs */
        rc = waivers_load(&o->waivers, o->waivers_path, o->golden, o->be->name, o->torch, e);
    return rc;
}

/* Under mpirun every rank ran preflight: they agree, and the lowest rank that found a
 * problem says it.  CLI_GO, or the exit code (the job finished). */
static int agree(run_opts *o, int pre, const shc_err *e)
{
#ifdef HAVE_MPI
    int64_t first = run_mpi_first_failing(o, pre != SHC_OK);
    if (first == o->nprocs)
        return CLI_GO;
    if (first == o->rank)
        cli_report("run", pre, e);
    else if (first < 0 && o->rank == 0)
        fputs("shardcheck run: a rank did not take part in the checks before the first case\n",
              stderr);
    run_mpi_finish(o, first < 0);
    return EXIT_USAGE;
#else
    (void)o;
    (void)pre;
    (void)e;
    return CLI_GO;
#endif
}

/* SHARDCHECK_FAULT=stop:R acts on process R of an mpirun job: one no process has (or a run
 * that is no mpirun job) would test nothing while seeming to (issue 38 M17). */
static int fault_stop_refused(const run_opts *o, shc_err *e)
{
    const char *k = o->fault.kind == FAULT_DIE ? "die" : "stop";
    if (!o->mpi_job)
        return shc_fail(e, SHC_EINVAL, "SHARDCHECK_FAULT=%s:%lld:%lld: %s acts on a process "
                        "of an mpirun job; --backend %s runs none here", k,
                        (long long)o->fault.rank, (long long)o->fault.tcid, k, o->be->name);
    return shc_fail(e, SHC_EINVAL, "SHARDCHECK_FAULT=%s:%lld:%lld: no process %lld in this "
                    "job of %lld processes (ranks 0..%lld)", k, (long long)o->fault.rank,
                    (long long)o->fault.tcid, (long long)o->fault.rank, (long long)o->nprocs,
                    (long long)o->nprocs - 1);
}

/* stop and die act on an MPI process itself. */
static bool fault_on_process(const run_opts *o)
{
    return o->fault.kind == FAULT_STOP || o->fault.kind == FAULT_DIE;
}

#ifdef HAVE_MPI
static int env_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* What every rank of a job must agree on, a line each: shardcheck's version, the run options,
 * every SHARDCHECK_* variable (sorted), the corpus's MANIFEST digest.  Ranks on other nodes see
 * only the environment mpirun passes them (issue 38 D3); malloc'd, NULL when out of memory. */
static char *settings_text(const run_opts *o, int argc, char **argv)
{
    extern char **environ;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    fprintf(f, "shardcheck version=%s\n", PACKAGE_VERSION); /* "key=value": compared by key */
    for (int i = 1; i < argc; i++)
        fprintf(f, "option %s\n", argv[i]);
    size_t n = 0;
    for (char **v = environ; *v; v++)
        n += !strncmp(*v, "SHARDCHECK_", 11);
    char **vars = calloc(n ? n : 1, sizeof *vars);
    n = 0;
    for (char **v = environ; vars && *v; v++)
        if (!strncmp(*v, "SHARDCHECK_", 11))
            vars[n++] = *v;
    if (vars)
        qsort(vars, n, sizeof *vars, env_cmp);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "environment %s\n", vars[i]);
    free(vars);
    char path[4096], hex[65] = "none";
    shc_err e = {0};
    snprintf(path, sizeof path, "%s/MANIFEST", o->golden ? o->golden : ".");
    if (o->golden && shc_sha256_file(path, hex, &e))
        snprintf(hex, sizeof hex, "unreadable");
    fprintf(f, "corpus MANIFEST sha256=%s\n", hex);
    return fclose(f) ? (free(buf), NULL) : buf;
}
#endif

/* Start the backend, and the mpirun job where it runs one process per rank, once every
 * process has passed preflight (pre, e): CLI_GO, or the exit code the run ends with.  The
 * backend's start runs first (cuda finds its GPUs in a child: workers fork and use CUDA
 * themselves), its job_start once the ranks agreed (torch starts its workers). */
static int start_job(run_opts *o, int *argc, char ***argv, int pre, const shc_err *e)
{
    bool job = run_backend_per_rank(o->be);
#ifndef HAVE_MPI
    if (o->be->procs == RUN_PER_RANK_UNDER_MPIRUN)
        job = false; /* without MPI such a backend runs in one process */
#endif
    if (pre && !job)
        return cli_report("run", pre, e);
    shc_err fe = {0};
    if (!job && fault_on_process(o))
        return cli_report("run", fault_stop_refused(o, &fe), &fe);
    o->job_ahead = job;
    int rc = o->be->start ? o->be->start(o) : 0;
    if (rc)
        return rc;
    if (!job)
        return CLI_GO;
#ifdef HAVE_MPI
    char *mine = settings_text(o, *argc, *argv);
    if (run_mpi_init(o, argc, argv)) {
        free(mine);
        return EXIT_INTERNAL;
    }
    o->mpi_job = true;
    /* every rank takes part (one whose preflight failed too), so none waits on a missing one */
    shc_err se = {0};
    int differ = run_mpi_settings_agree(o, mine ? mine : "(out of memory)", se.msg,
                                        sizeof se.msg);
    free(mine);
    if (differ && !pre) {
        se.code = SHC_EINVAL;
        pre = SHC_EINVAL;
        e = &se;
    }
    if (!pre && fault_on_process(o) && (o->fault.rank < 0 || o->fault.rank >= o->nprocs))
        pre = fault_stop_refused(o, &fe), e = &fe; /* every rank finds it: agree says it once */
    rc = agree(o, pre, e);
    if (rc != CLI_GO)
        return rc;
    rc = o->be->job_start ? o->be->job_start(o) : 0;
    if (rc) {
        if (o->be->stop)
            o->be->stop(o);
        run_mpi_finish(o, 0);
        return rc;
    }
    return CLI_GO;
#else
    (void)argc;
    (void)argv;
    if (pre)
        return cli_report("run", pre, e);
    fprintf(stderr, "shardcheck run: --backend %s: this shardcheck was built without MPI "
            "(configure --with-mpi)\n", o->be->name);
    return EXIT_SKIP;
#endif
}

static void stop_job(run_opts *o)
{
    if (o->be->stop)
        o->be->stop(o);
#ifdef HAVE_MPI
    if (o->mpi_job)
        run_mpi_finish(o, o->lost);
#endif
}

/* The reporter's question to the waivers (report_opts.waive). */
static const char *waive(void *ctx, const char *family, long long tcid, const char *status,
                         const char *detail)
{
    return waivers_match(ctx, family, tcid, status, detail);
}

static void waive_notes(void *ctx, FILE *f, const char *prefix)
{
    waivers_notes(ctx, f, prefix);
}

/* Rank 0's report (the same reporter as verify) and journal: CLI_GO or EXIT_USAGE. */
static int open_outputs(run_opts *o, report *rep)
{
    if (!printer(o))
        return CLI_GO;
    /* the implementation checked (a plugin's name, file and sha256) in every output */
    json_t *subj = o->be->subject ? o->be->subject(o) : NULL;
    static char words[512];
    if (subj)
        snprintf(words, sizeof words, "%s %s (%s, sha256 %s)", o->be->name,
                 json_string_value(json_object_get(subj, "name")) ?: "?",
                 json_string_value(json_object_get(subj, "file")) ?: "?",
                 json_string_value(json_object_get(subj, "sha256")) ?: "?");
    report_opts ro = {.fmt = o->json ? REP_JSON : o->tap ? REP_TAP : REP_TEXT, .cmd = "run",
                      .suite = "shardcheck", .junit_path = o->junit, .verbose = o->verbose,
                      .head = json_pack("{s:s,s:I,s:o?}", "backend", o->be->name,
                                        "ranks", (json_int_t)o->nprocs, o->be->name, subj),
                      .torch = shc_torch_release_name(o->torch), .torch_why = o->torch_why,
                      .subject = subj ? words : NULL,
                      .waive = o->waivers ? waive : NULL,
                      .waive_notes = o->waivers ? waive_notes : NULL, .waive_ctx = o->waivers,
                      .group_failures = 1, .max_fail_lines = RUN_FAIL_LINES};
    if (report_open(rep, &ro))
        return cli_usage_error("run", "--junit %s: cannot write", o->junit);
    o->rep = rep;
    if (o->views_path && !(o->views_out = out_open(&o->views_of, o->views_path))) {
        int err = errno;
        report_abandon(rep);
        return cli_usage_error("run", "--views %s: cannot write: %s", o->views_path,
                               strerror(err));
    }
    /* the journal is read while the job runs and after it died (the runner, certify): a
     * new file renamed into place now (or stdout, "-"); the views are whole or not at all */
    if (journal_on_stdout(o)) {
        o->journal = stdout;
    } else if (o->journal_path && (!(o->journal = out_open(&o->journal_of, o->journal_path)) ||
                                   out_publish(&o->journal_of))) {
        int err = errno;
        out_discard(&o->journal_of);
        out_discard(&o->views_of);
        o->journal = o->views_out = NULL;
        report_abandon(rep);
        return cli_usage_error("run", "--journal %s: cannot write: %s", o->journal_path,
                               strerror(err));
    }
    /* the runner tells a job that never started (a launch failure) from one that died */
    run_journal(o, "begin %lld", (long long)o->nprocs);
    return CLI_GO;
}

/* --views: the file is the comparison's input, so a short write is bad output (exit 2), and
 * a run ended by bad input (abandoned) leaves no file: the views of some cases only. */
static int close_views(run_opts *o, int code, bool abandoned)
{
    if (!o->views_out)
        return code;
    o->views_out = NULL;
    if (abandoned) {
        out_discard(&o->views_of);
        return code;
    }
    if (out_commit(&o->views_of) && code != EXIT_INTERNAL) {
        fprintf(stderr, "shardcheck run: --views %s: write failed (%s): no file written\n",
                o->views_path, strerror(errno));
        code = EXIT_USAGE;
    }
    return code;
}

/* Under mpirun, processes no case's mesh reached are said once, not per case. */
static void idle_note(const run_opts *o)
{
    if (o->mpi_job && printer(o) && o->max_world > 0 && o->max_world < o->nprocs)
        fprintf(stderr, "shardcheck run: note: the largest mesh run has %lld ranks: processes "
                "%lld..%lld of the %lld-process job hosted no rank and stayed idle\n",
                (long long)o->max_world, (long long)o->max_world, (long long)(o->nprocs - 1),
                (long long)o->nprocs);
}

static int close_journal(run_opts *o, int code)
{
    if (!o->journal)
        return code;
    run_journal(o, "done %d", code);
    if (o->journal == stdout) /* closed with the rest of the output (cli_finish_output) */
        return code;
    o->journal = NULL;
    if (out_close_published(&o->journal_of) && code != EXIT_INTERNAL) { /* the wrapper reads it */
        fprintf(stderr, "shardcheck run: --journal %s: write failed (%s): removed, not left "
                "partial\n", o->journal_path, errno ? strerror(errno) : "a line could not be "
                "written");
        code = EXIT_USAGE;
    }
    return code;
}

int cmd_run(int argc, char **argv)
{
    run_opts o = {.be = &run_backend_ref, .timeout_s = 60, .max_ranks = 0, .nprocs = 1,
                  .lost_rank = -1};
    int rc = parse_options(&o, argc, argv);
    if (rc != CLI_GO)
        return rc;
    if (!o.max_ranks)
        o.max_ranks = o.be->max_ranks;
    shc_err e = {0};
    bool crashed = false; /* loaded only in workers: the plugin's code never runs here */
    char comment[160] = "";
    if (o.be->probe && o.be->probe(&o, &crashed, comment, sizeof comment, &e) && !crashed)
        return cli_report("run", e.code, &e);
    shc_err pe = {0};
    int pre = (o.golden = cli_golden_dir(o.golden, &pe)) ? preflight(&o, &pe) : pe.code;
    if ((rc = start_job(&o, &argc, &argv, pre, &pe)) != CLI_GO)
        return rc;
    if (o.no_manifest_check && printer(&o))
        fprintf(stderr, "shardcheck run: warning: --no-manifest-check: the golden files in %s "
                "were not checked against its MANIFEST; a tampered corpus can fail right "
                "answers and pass wrong ones\n", o.golden);
    report rep;
    if ((rc = open_outputs(&o, &rep)) != CLI_GO)
        return rc;
    rc = 0;
    if (crashed)
        emit_whole(&o, o.be->name, RUN_CRASH, comment, e.msg);
    int64_t seq = 0;
    progress bar = {0}; /* rank 0 on a terminal: a bar over each family's cases (the report counts) */
    if (printer(&o) && progress_enabled())
        o.bar = rep.bar = &bar;
    const shc_family *const *fams = shc_families();
    /* a family the backend runs last (runs_last: cuda under mpirun, executing in this
     * process) comes after the others */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; fams[i] && !rc && !crashed; i++)
            if ((!o.family || !strcmp(o.family, fams[i]->name)) &&
                pass == (o.be->runs_last && o.be->runs_last(&o, fams[i])))
                rc = run_family(&o, fams[i], &seq);
    int code = EXIT_OK;
    if (printer(&o) && rc)
        report_abandon(&rep); /* bad input: its message is the answer, not a summary */
    else if (printer(&o))
        code = report_close(&rep);
    idle_note(&o);
    code = close_views(&o, rc ? rc : code, rc != 0);
    code = close_journal(&o, code);
    waivers_free(o.waivers);
    stop_job(&o);
    return code;
}
