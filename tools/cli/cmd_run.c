/*
 * cmd_run.c — `shardcheck run`: the conformance runner's command: its options, the checks
 * before the first case and the start of the job; the engine that runs the cases and
 * reports them is tools/run/runner.c (run_families).
 *
 *   shardcheck run [--backend ref|local|mpi|cuda|torch[:gloo|:nccl]|plugin:FILE.so|worker:CMD]
 *                  [--family F] [--golden DIR]
 *                  [--tap | --junit FILE | --json] [--timeout SEC] [--max-cases N]
 *                  [--max-cases-of FAMILY=N]... [--max-ranks N]
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

/* What follows the list of backends (run_backend_help) in --help. */
static const char RUN_ABOUT_REST[] =
    "  SHARDCHECK_FAULT=kill:RANK:TCID | hang:RANK:TCID | stop:RANK:TCID | die:RANK:TCID |\n"
    "    strand:RANK:TCID (torch) | setup:RANK:TCID (torch) injects a fault\n"
    "  (tests; stop: under mpirun the rank's own process stops, as kill -STOP; a RANK the\n"
    "  job has no process for, or stop without mpirun, is exit 2).\n"
    "  Before the first case every process checks the golden files it reads (and their\n"
    "  schemas) against golden/MANIFEST, as verify does: a mismatch is exit 2 naming the file.\n"
    "  exit: 0 passed, 1 failures, 2 bad input, 77 nothing ran, 99 internal error";

/* --help's texts that name the backends, written from the backend table (backends.c). */
#define RUN_TABLE_MAX 1536 /* run_backend_help's table of backends */
typedef struct run_help {
    char about[RUN_TABLE_MAX + sizeof RUN_ABOUT_REST], option[320], synopsis[800], list[256];
} run_help;

static void help_texts(run_help *h)
{
    char table[RUN_TABLE_MAX];
    run_backend_help(table, sizeof table);
    snprintf(h->about, sizeof h->about, "%s%s", table, RUN_ABOUT_REST);
    run_backend_spellings(h->list, sizeof h->list);
    snprintf(h->option, sizeof h->option, "%s (default ref)", h->list);
    run_backend_synopsis(h->list, sizeof h->list);
    snprintf(h->synopsis, sizeof h->synopsis, "[--backend %s]\n"
             "                      [--family F] [--golden DIR] "
             "[--tap | --junit FILE | --json] [--timeout SEC]\n"
             "                      [--max-cases N] [--max-cases-of FAMILY=N]... "
             "[--max-ranks N] "
             "[--journal FILE] [--no-manifest-check]\n                      "
             "[--torch-version V] [--waivers FILE] [--views FILE]", h->list);
}

/* ---- options ---- */

/* --max-cases-of FAMILY=N, each given: a registered family, at most once, N >= 0, and one
 * that --family does not leave out (it would sample nothing). */
static int parse_max_cases_of(run_opts *o, const char *const *arg, int n)
{
    for (int i = 0; i < n; i++) {
        const char *eq = strchr(arg[i], '=');
        char name[64];
        if (!eq || eq == arg[i] || (size_t)(eq - arg[i]) >= sizeof name)
            return cli_usage_error("run", "--max-cases-of: '%s': expected FAMILY=N",
                                   CLI_ECHO(arg[i]));
        memcpy(name, arg[i], (size_t)(eq - arg[i]));
        name[eq - arg[i]] = '\0';
        const shc_family *f = shc_family_find(name);
        if (!f)
            return cli_usage_error("run", "--max-cases-of: '%s': no such family",
                                   CLI_ECHO(name));
        if (o->family && strcmp(o->family, f->name))
            return cli_usage_error("run", "--max-cases-of: %s: --family %s leaves it out",
                                   f->name, CLI_ECHO(o->family));
        char *end;
        errno = 0;
        long long v = strtoll(eq + 1, &end, 10);
        if (!eq[1] || *end || errno || v < 0)
            return cli_usage_error("run", "--max-cases-of: %s: '%s': expected an integer >= 0 "
                                   "(0: every case)", f->name, CLI_ECHO(eq + 1));
        for (int j = 0; j < o->nsampled; j++)
            if (!strcmp(o->sampled[j].family, f->name))
                return cli_usage_error("run", "--max-cases-of: %s: given more than once",
                                       f->name);
        o->sampled[o->nsampled].family = f->name;
        o->sampled[o->nsampled++].n = v;
    }
    return CLI_GO;
}

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
    const char *max_cases_of[RUN_SAMPLED_MAX];
    int n_max_cases_of = 0;
    unsigned long long given = 0;
    static run_help h;
    help_texts(&h);
    const cli_option opts[] = {
        {.name = "backend", .kind = CLI_CALL, .meta = "B", .call = opt_backend,
         .help = h.option},
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
        {.name = "max-cases-of", .kind = CLI_LIST, .meta = "FAMILY=N", .to = max_cases_of,
         .count = &n_max_cases_of, .hi = RUN_SAMPLED_MAX,
         .help = "that family's own --max-cases (repeatable)"},
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
        .name = "run", .opts = opts, .ctx = o, .about = h.about, .given = &given,
        .synopsis = h.synopsis};
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
    if ((x = parse_max_cases_of(o, max_cases_of, n_max_cases_of)) != CLI_GO)
        return x;
    if (run_parse_fault(getenv("SHARDCHECK_FAULT"), &o->fault))
        return EXIT_USAGE;
    if ((o->fault.kind == FAULT_STRAND || o->fault.kind == FAULT_SETUP) &&
        o->be != &run_backend_torch)  /* would test nothing */
        return cli_usage_error("run", "SHARDCHECK_FAULT=%s: acts on the torch backend's "
                               "workers; --backend %s has none",
                               o->fault.kind == FAULT_STRAND ? "strand" : "setup", o->be->name);
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
    const char *journal_file = run_journal_on_stdout(o) ? NULL : o->journal_path;
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
    if (o.no_manifest_check && o.rank == 0)
        fprintf(stderr, "shardcheck run: warning: --no-manifest-check: the golden files in %s "
                "were not checked against its MANIFEST; a tampered corpus can fail right "
                "answers and pass wrong ones\n", o.golden);
    return run_families(&o, crashed, comment, e.msg);
}
