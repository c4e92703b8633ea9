/*
 * runner.c — the engine of `shardcheck run`, a library like verify's: for every selected
 * family the golden files are loaded and its cases run in chunks (run_views_chunk's forked
 * workers in one process, run_mpi.c's ranks under mpirun, or the backend's own job_outcomes),
 * each case checked (run_check.c) and reported through report.c with the journal and --views
 * beside it.  What differs per backend is asked of its record (run_backend, run.h), never of
 * its name.  cmd_run.c parses the options, checks the inputs, starts the job and calls
 * run_families.  Tested by conformance/tests/run_mpi.sh, run_faults.sh, run_hosted.sh,
 * progress.sh and run_failure_groups.sh.
 */
#include "config.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include "exit_codes.h"
#include "report.h"
#include "waivers.h"
#include "run.h"
#include "outfile.h"
#include "torch_version.h"
#include "run_child.h"

#define now_s run_child_now /* run_child.c: the monotonic clock, in seconds */

static bool printer(const run_opts *o) { return o->rank == 0; }

bool run_journal_on_stdout(const run_opts *o)
{
    return o->journal_path && !strcmp(o->journal_path, "-");
}

/* One finished result: a line in the journal (the mpirun wrapper follows it) and a case
 * of the report (rank 0 of an mpi job reports; the other ranks only compute).  group, test:
 * the golden case (NULL for a result standing for a family or the plugin); views: a failing
 * case's per-rank views (NULL: none), which run --json keeps for explain --candidate. */
/* emit passes a run_status on as a report_status: the shared values must agree. */
_Static_assert(RUN_PASS == (int)ST_PASS && RUN_FAIL == (int)ST_FAIL &&
               RUN_NOTSUPPORTED == (int)ST_NOTSUPPORTED && RUN_CRASH == (int)ST_CRASH &&
               RUN_TIMEOUT == (int)ST_TIMEOUT && RUN_INTERNAL == (int)ST_INTERNAL &&
               RUN_NSTATUS <= (int)ST_NSTATUS, "run_status is a prefix of report_status");

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

/* Cases per request to the family's worker (run_views.c).  Under mpi a chunk is also what a
 * lost process loses and what the journal records at once (run_multinode.sh D5), so it stays
 * small there; in one process, larger. */
#define CHUNK 256
#define CHUNK_ONE_PROCESS 2048
/* Text: Fail lines listed after the groups (the rest are counted; --verbose lists all). */
#define RUN_FAIL_LINES 50

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

/* The largest world a case may have here, computed once per family and passed down: in one
 * process --max-ranks; under mpirun the job's size where a process hosts one mesh rank, or
 * any world where processes host blocks of ranks (shc_comm_host_block). */
static int64_t world_cap(const run_opts *o)
{
    if (!o->mpi_job)
        return o->max_ranks;
    return o->be->ranks_per_process == RUN_HOSTS_ANY && hosting() ? RUN_HOSTS_ANY : o->nprocs;
}

/* The cases of a chunk that cannot run here are NotSupported, with the reason; the largest
 * world that does run is kept for the idle note.  A worker that checks what it computes
 * decides this itself (RUN_WORLD_UNKNOWN): then the runner parses no test that passes.
 * Where the runner checks (rank 0), each test that runs is parsed here, for that check (a
 * worker forked before that chunk parses its own copy); not one its worker checks in its
 * block (run_worker_checks_block), which parses what it needs itself. */
static void mark_unsupported(run_opts *o, const shc_family *f, const shc_golden *g,
                             const int64_t *idx, int64_t n, int64_t cap, run_outcome *out)
{
    bool in_worker = o->be->checks_in_worker && !o->mpi_job && !o->be->job_outcomes;
    for (int64_t k = 0; k < n; k++) {
        if (in_worker) {
            out[k].world = RUN_WORLD_UNKNOWN;
            continue;
        }
        run_case_supported(o, f, shc_golden_group(g, idx[k]), cap, &out[k]);
        if (printer(o) && out[k].status != RUN_NOTSUPPORTED &&
            !(o->mpi_job && run_worker_checks_block(o, f, g, idx[k])))
            (void)shc_golden_test(g, idx[k]);
    }
    for (int64_t k = 0; k < n; k++)
        if (out[k].status != RUN_NOTSUPPORTED && out[k].world > o->max_world)
            o->max_world = out[k].world;
}

/* Every outcome of a chunk, where the backend computes them: the mpirun job's ranks, the
 * backend's own job_outcomes (hosting every rank), or forked workers. */
static void compute_chunk(run_opts *o, const shc_family *f, const shc_golden *g,
                          const int64_t *idx, int64_t n, int64_t seq, run_outcome *out)
{
#ifdef HAVE_MPI
    if (o->mpi_job && o->lost) /* every case is still reported (run_mpi_lost_chunk) */
        run_mpi_lost_chunk(o, f, g, idx, n, out);
    else if (o->mpi_job)
        run_mpi_chunk(o, f, g, idx, n, seq, out);
    else
#endif
    if (o->be->job_outcomes) {
        for (int64_t k = 0; k < n; k++)
            out[k].count = out[k].status == RUN_NOTSUPPORTED ? 0 : out[k].world;
        o->be->job_outcomes(o, f, g, idx, n, out, out);
    } else {
        run_views_chunk(o, f, g, idx, n, -1, out);
    }
    (void)seq;
}

/* One case's outcome checked (rank 0) and reported; its views are freed.  Test i is parsed
 * only where it is needed: to check the views here, or to report a case that did not pass. */
static void finish_case(const run_opts *o, const shc_family *f, const shc_golden *g, int64_t i,
                        run_outcome *oc, double seconds)
{
    run_result res, *r = &res;
    memset(r, 0, sizeof *r);
    /* rank 0 reports; the other ranks of an mpi job only computed their block */
    bool parse = printer(o) && (!oc->checked || oc->status != RUN_PASS);
    const json_t *group = parse ? shc_golden_group(g, i) : NULL;
    const json_t *test = parse ? shc_golden_test(g, i) : NULL;
    r->family = f->name;
    r->tcid = g->tcids[i];
    run_copy(r->comment, sizeof r->comment,
             oc->checked ? oc->comment : json_string_value(json_object_get(test, "comment")));
    r->status = oc->status;
    r->seconds = seconds;
    run_copy(r->msg, sizeof r->msg, oc->msg);
    if (oc->checked) { /* the worker's verdict (run_backend.checks_in_worker) */
        if (oc->views && oc->count == oc->world && o->views_path)
            write_views(o, f, r->tcid, oc);
    } else if (r->status == RUN_PASS && printer(o)) {
        if (!oc->views || oc->count != oc->world) {
            r->status = RUN_INTERNAL;
            snprintf(r->msg, sizeof r->msg, "%lld views for %lld ranks",
                     (long long)oc->count, (long long)oc->world);
        } else {
            write_views(o, f, r->tcid, oc);
            r->msg[0] = '\0'; /* a Pass's msg is only ever a note from run_check */
            r->status = run_check(o, f, group, test, oc->world, oc->views, r->msg,
                                  sizeof r->msg);
        }
    }
    json_t *views = NULL; /* a failure's views, for --json (explain --candidate) */
    if (r->status == RUN_FAIL && o->json && oc->views && oc->count == oc->world &&
        oc->world <= RUN_KEEP_VIEWS && (views = json_array()))
        for (int64_t v = 0; v < oc->world; v++)
            json_array_append(views, oc->views[v] ? oc->views[v] : json_null());
    run_outcome_clear(oc);
    emit(o, r, group, test, views);
    json_decref(views);
    shc_golden_test_done(g, i); /* one chunk's trees at a time, not the family's */
}

static void run_chunk(run_opts *o, const shc_family *f, const shc_golden *g, const int64_t *idx,
                      int64_t n, int64_t seq, int64_t cap)
{
    run_outcome *out = calloc((size_t)n, sizeof *out);
    if (!out) {
        fputs("shardcheck run: out of memory\n", stderr);
        exit(EXIT_INTERNAL);
    }
    mark_unsupported(o, f, g, idx, n, cap, out);
    double t0 = now_s();
    compute_chunk(o, f, g, idx, n, seq, out);
    double each = (now_s() - t0) / (double)n;
    for (int64_t k = 0; k < n; k++)
        finish_case(o, f, g, idx[k], &out[k], each);
    free(out);
}

/* A whole_world backend: --max-cases samples among the tests whose mesh spans the job (the
 * others can only be NotSupported); their indices in *pick, their count returned. */
static int64_t whole_world_eligible(const run_opts *o, const shc_family *f, const shc_golden *g,
                                    int64_t **pick)
{
    *pick = malloc((size_t)(g->ntests ? g->ntests : 1) * sizeof **pick);
    if (!*pick) {
        fputs("shardcheck run: out of memory\n", stderr);
        exit(EXIT_INTERNAL);
    }
    int64_t m = 0;
    for (int64_t k = 0; k < g->ntests; k++)
        if (f->world_size(shc_golden_group(g, k)) == o->nprocs)
            (*pick)[m++] = k;
    return m;
}

/* A family's golden files into g: EXIT_OK with *loaded set when its cases are to run; EXIT_OK
 * when they are reported as one NotSupported row (no per-rank computation, no golden
 * directory), EXIT_USAGE when the files cannot be read (bad input, never a silent pass). */
static int load_family(const run_opts *o, const shc_family *f, shc_golden *g, bool *loaded)
{
    *loaded = false;
    if (!f->compute_rank || !f->world_size) {
        char msg[160];
        snprintf(msg, sizeof msg, "family %s has no per-rank computation yet", f->name);
        emit_whole(o, f->name, RUN_NOTSUPPORTED, "family", msg);
        return EXIT_OK;
    }
    shc_err e = {0};
    memset(g, 0, sizeof *g);
    /* Only a family with no golden directory at all is NotSupported (a --golden holding some
     * families); anything there that cannot be read is bad input, never a silent pass. */
    char fdir[4096];
    struct stat st;
    snprintf(fdir, sizeof fdir, "%s/%s", o->golden, f->name);
    if (stat(fdir, &st) && errno == ENOENT) {
        shc_fail(&e, SHC_EIO, "golden family %s: no directory %s", f->name, fdir);
        emit_whole(o, f->name, RUN_NOTSUPPORTED, "family", e.msg);
        return EXIT_OK;
    }
    if (shc_golden_index_family_at(g, o->golden, f->name, o->torch, &e)) {
        if (printer(o)) {
            progress_hide();
            fprintf(stderr, "shardcheck run: %s\n", e.msg);
        }
        return EXIT_USAGE;
    }
    if (g->unversioned && printer(o)) {
        progress_hide();
        fprintf(stderr, "shardcheck run: note: %s has no version data (source.releases): read as "
                "what it is, torch %s's answers\n", g->unversioned,
                shc_torch_release_name(SHC_TORCH_PIN_RELEASE));
    }
    *loaded = true;
    return EXIT_OK;
}

int64_t run_max_cases(const run_opts *o, const char *family)
{
    for (int i = 0; i < o->nsampled; i++)
        if (!strcmp(o->sampled[i].family, family))
            return o->sampled[i].n;
    return o->max_cases;
}

/* The selected cases of a loaded family (--max-cases spread over it), chunk by chunk. */
static void run_cases(run_opts *o, const shc_family *f, const shc_golden *g, int64_t *seq)
{
    int64_t n = g->ntests, *pick = NULL, most = run_max_cases(o, f->name);
    if (o->be->whole_world && most > 0)
        n = whole_world_eligible(o, f, g, &pick);
    int64_t take = most > 0 && most < n ? most : n;
    int64_t idx[CHUNK_ONE_PROCESS];
    /* a family that executes in lockstep under mpi says how small its batches must be,
     * so the journal stays current */
    int64_t chunk = o->be->family_batch && f->exec.comm_batch > 0 ? f->exec.comm_batch
                  : o->be->batch > 0 ? o->be->batch
                  : o->be->procs == RUN_IN_PROCESS ? CHUNK_ONE_PROCESS : CHUNK;
    if (o->bar) {
        char label[96];
        snprintf(label, sizeof label, "run %s", f->name);
        progress_begin(o->bar, label, take);
    }
    int64_t cap = world_cap(o);
    for (int64_t k0 = 0; k0 < take; k0 += chunk) {
        int64_t m = take - k0 < chunk ? take - k0 : chunk;
        for (int64_t k = 0; k < m; k++) {
            idx[k] = take == n ? k0 + k : (k0 + k) * n / take;
            if (pick)
                idx[k] = pick[idx[k]];
        }
        run_chunk(o, f, g, idx, m, (*seq)++, cap);
    }
    if (o->bar)
        progress_end(o->bar);
    free(pick);
}

/* Whether the report keeps a failure of family f. */
static bool has_failures(const report *r, const char *family)
{
    size_t i;
    json_t *x;
    json_array_foreach(r->fails, i, x)
        if (!strcmp(json_string_value(json_object_get(x, "family")) ?: "", family))
            return true;
    return false;
}

/* The family's failures by flag and field, with the smallest case's inputs and the flag's
 * note (report_groups.c, verify's grouping), from the family the cases ran on. */
static int group_family(run_opts *o, const shc_golden *g)
{
    if (!o->rep->fails || !has_failures(o->rep, g->family))
        return SHC_OK;
    return report_group_family(o->rep, g);
}

static int run_family(run_opts *o, const shc_family *f, int64_t *seq)
{
    shc_golden g;
    bool loaded;
    int rc = load_family(o, f, &g, &loaded);
    if (rc || !loaded)
        return rc;
    run_cases(o, f, &g, seq);
    run_views_done(); /* its worker holds a copy of g */
    if (o->rep && group_family(o, &g) && printer(o))
        fputs("shardcheck run: out of memory grouping the failures: they are listed ungrouped\n",
              stderr);
    shc_golden_free(&g);
    return EXIT_OK;
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

/* A bad output named on stderr as the CLI names bad usage: EXIT_USAGE. */
static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("shardcheck run: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return EXIT_USAGE;
}

/* Rank 0's report (the same reporter as verify) and journal: 0 or EXIT_USAGE. */
static int open_outputs(run_opts *o, report *rep)
{
    if (!printer(o))
        return 0;
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
        return usage_error("--junit %s: cannot write", o->junit);
    o->rep = rep;
    if (o->views_path && !(o->views_out = out_open(&o->views_of, o->views_path))) {
        int err = errno;
        report_abandon(rep);
        return usage_error("--views %s: cannot write: %s", o->views_path,
                               strerror(err));
    }
    /* the journal is read while the job runs and after it died (the runner, certify): a
     * new file renamed into place now (or stdout, "-"); the views are whole or not at all */
    if (run_journal_on_stdout(o)) {
        o->journal = stdout;
    } else if (o->journal_path && (!(o->journal = out_open(&o->journal_of, o->journal_path)) ||
                                   out_publish(&o->journal_of))) {
        int err = errno;
        out_discard(&o->journal_of);
        out_discard(&o->views_of);
        o->journal = o->views_out = NULL;
        report_abandon(rep);
        return usage_error("--journal %s: cannot write: %s", o->journal_path,
                               strerror(err));
    }
    /* the runner tells a job that never started (a launch failure) from one that died */
    run_journal(o, "begin %lld", (long long)o->nprocs);
    return 0;
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

int run_families(run_opts *o, bool crashed, const char *comment, const char *crash_msg)
{
    report rep;
    int rc = open_outputs(o, &rep);
    if (rc)
        return rc;
    if (crashed)
        emit_whole(o, o->be->name, RUN_CRASH, comment, crash_msg);
    int64_t seq = 0;
    progress bar = {0}; /* rank 0 on a terminal: a bar over each family's cases */
    if (printer(o) && progress_enabled())
        o->bar = rep.bar = &bar;
    const shc_family *const *fams = shc_families();
    /* a family the backend runs last (runs_last: cuda under mpirun, executing in this
     * process) comes after the others */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; fams[i] && !rc && !crashed; i++)
            if ((!o->family || !strcmp(o->family, fams[i]->name)) &&
                pass == (o->be->runs_last && o->be->runs_last(o, fams[i])))
                rc = run_family(o, fams[i], &seq);
    int code = EXIT_OK;
    if (printer(o) && rc)
        report_abandon(&rep); /* bad input: its message is the answer, not a summary */
    else if (printer(o))
        code = report_close(&rep);
    idle_note(o);
    code = close_views(o, rc ? rc : code, rc != 0);
    code = close_journal(o, code);
    waivers_free(o->waivers);
    o->waivers = NULL;
    stop_job(o);
    return code;
}
