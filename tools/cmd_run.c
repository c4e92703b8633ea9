/*
 * cmd_run.c — `shardcheck run`: the conformance runner.
 *
 *   shardcheck run [--backend ref|local|mpi|torch[:gloo|:nccl]|plugin:FILE.so] [--family F] [--golden DIR]
 *                  [--tap | --junit FILE | --json] [--timeout SEC] [--max-cases N]
 *                  [--max-ranks N]
 *
 * For every registered family (or --family F) the golden files are loaded,
 * and for every test each rank's view is computed on the backend (run_check.c
 * in a forked worker with a per-case time limit; run_mpi.c with one process
 * per rank under mpirun) and checked against golden and the SPMD invariants.
 * A test whose world does not fit the backend, or that a family or plugin
 * cannot compute, is NotSupported, never Fail.  Reports: text (failures and
 * per-family totals), --tap, --junit FILE, --json; the last line is always
 * "N passed, N failed, N skipped".  Exit codes (docs/DESIGN.md): 0 all passed or
 * skipped, 1 a Fail/Crash/Timeout, 2 bad usage or input (corrupt golden file,
 * bad plugin), 77 nothing ran, 99 an InternalError.
 * Tested by conformance/tests/run_mpi.sh and run_faults.sh.
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include "cli.h"
#include "run.h"

enum { OPT_BACKEND = OPT_CMD_BASE, OPT_FAMILY, OPT_GOLDEN, OPT_TAP, OPT_JUNIT, OPT_TIMEOUT,
       OPT_MAX_CASES, OPT_MAX_RANKS, OPT_JOURNAL };

static const struct option run_options[] = {
    {"backend", required_argument, NULL, OPT_BACKEND},
    {"family", required_argument, NULL, OPT_FAMILY},
    {"golden", required_argument, NULL, OPT_GOLDEN},
    {"tap", no_argument, NULL, OPT_TAP},
    {"junit", required_argument, NULL, OPT_JUNIT},
    {"json", no_argument, NULL, OPT_JSON},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"max-cases", required_argument, NULL, OPT_MAX_CASES},
    {"max-ranks", required_argument, NULL, OPT_MAX_RANKS},
    {"journal", required_argument, NULL, OPT_JOURNAL},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};

static void usage(void)
{
    puts("usage: shardcheck run [--backend ref|local|mpi|torch|plugin:FILE.so] [--family F]\n"
         "                      [--golden DIR] [--tap | --junit FILE | --json] [--timeout SEC]\n"
         "                      [--max-cases N] [--max-ranks N] [--journal FILE]\n"
         "  ref     the reference, one process;  local  simulated ranks with real collectives\n"
         "  mpi     one process per rank: mpirun -np N shardcheck run --backend mpi\n"
         "  torch   real DTensor per rank (torch.distributed, gloo or nccl), checked here:\n"
         "          mpirun -np N shardcheck run --backend torch[:gloo|:nccl]\n"
         "  plugin  a vendor library implementing shardcheck_backend.h\n"
         "  SHARDCHECK_FAULT=kill:RANK:TCID | hang:RANK:TCID injects a fault (tests).\n"
         "  exit: 0 passed, 1 failures, 2 bad input, 77 nothing ran, 99 internal error");
}

typedef struct results {
    run_result *r;
    size_t n, cap;
} results;

static run_result *add_result(results *rs)
{
    if (rs->n == rs->cap) {
        rs->cap = rs->cap ? 2 * rs->cap : 256;
        rs->r = realloc(rs->r, rs->cap * sizeof *rs->r);
        if (!rs->r) {
            fputs("shardcheck run: out of memory\n", stderr);
            exit(EXIT_INTERNAL);
        }
    }
    memset(&rs->r[rs->n], 0, sizeof rs->r[0]);
    return &rs->r[rs->n++];
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool printer(const run_opts *o) { return o->rank == 0; }

/* Print one result as it finishes (TAP streams; text shows what did not pass). */
static void emit_line(const run_opts *o, const run_result *r, size_t idx)
{
    if (printer(o) && o->journal) {
        fprintf(o->journal, "%s %s %lld\n", run_status_name(r->status), r->family,
                (long long)r->tcid);
        fflush(o->journal);
    }
    if (!printer(o) || o->json)
        return;
    if (o->tap) {
        if (r->status == RUN_PASS)
            printf("ok %zu - %s tc %lld: %s\n%s%s%s", idx, r->family, (long long)r->tcid,
                   r->comment, r->msg[0] ? "#   " : "", r->msg, r->msg[0] ? "\n" : "");
        else if (r->status == RUN_NOTSUPPORTED)
            printf("ok %zu - %s tc %lld: %s # SKIP NotSupported: %s\n", idx, r->family,
                   (long long)r->tcid, r->comment, r->msg);
        else
            printf("not ok %zu - %s tc %lld: %s # %s: %s\n", idx, r->family, (long long)r->tcid,
                   r->comment, run_status_name(r->status), r->msg);
    } else if (r->status != RUN_NOTSUPPORTED && (r->status != RUN_PASS || r->msg[0])) {
        /* failures, and a Pass that carries a note (GpuOnly within tolerance) */
        printf("%-13s %s tc %lld (%s): %s\n", run_status_name(r->status), r->family,
               (long long)r->tcid, r->comment, r->msg);
    }
    fflush(stdout);
}

/* ---- one chunk of tests ---- */

#define CHUNK 256

static void run_chunk(run_opts *o, const shc_family *f, const shc_golden *g, const int64_t *idx,
                      int64_t n, int64_t seq, results *rs)
{
    run_outcome *out = calloc((size_t)n, sizeof *out);
    if (!out) {
        fputs("shardcheck run: out of memory\n", stderr);
        exit(EXIT_INTERNAL);
    }
    bool per_process = o->backend == BACKEND_MPI || o->backend == BACKEND_TORCH;
    int64_t cap = per_process ? o->nprocs : o->max_ranks;
    for (int64_t k = 0; k < n; k++) {
        out[k].world = f->world_size(g->groups[idx[k]], g->tests[idx[k]]);
        if (o->backend == BACKEND_TORCH && out[k].world != cap) {
            /* a real DeviceMesh spans the whole torch.distributed world */
            out[k].status = RUN_NOTSUPPORTED;
            snprintf(out[k].msg, sizeof out[k].msg, "the mesh has %lld ranks, the torch job %lld",
                     (long long)out[k].world, (long long)cap);
        } else if (out[k].world > cap) {
            out[k].status = RUN_NOTSUPPORTED;
            snprintf(out[k].msg, sizeof out[k].msg, "needs %lld ranks, the %s has %lld",
                     (long long)out[k].world,
                     o->backend == BACKEND_MPI ? "mpirun job" : "backend (--max-ranks)",
                     (long long)cap);
        }
    }
    double t0 = now_s();
#ifdef HAVE_MPI
    if (per_process)
        run_mpi_chunk(o, f, g, idx, n, seq, out);
    else
#endif
        run_views_chunk(o, f, g, idx, n, -1, out);
    (void)seq;
    double each = (now_s() - t0) / (double)n;
    for (int64_t k = 0; k < n; k++) {
        const json_t *test = g->tests[idx[k]];
        run_result *r = add_result(rs);
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
                r->msg[0] = '\0'; /* a Pass's msg is only ever a note from run_check */
                r->status = run_check(o, f, g->groups[idx[k]], test, out[k].world, out[k].views,
                                      r->msg, sizeof r->msg);
            }
        }
        run_outcome_clear(&out[k]);
        emit_line(o, r, rs->n);
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
static int run_family(run_opts *o, const shc_family *f, results *rs, int64_t *seq)
{
    if (!f->compute_rank || !f->world_size) {
        run_result *r = add_result(rs);
        r->family = f->name;
        r->status = RUN_NOTSUPPORTED;
        snprintf(r->comment, sizeof r->comment, "family");
        snprintf(r->msg, sizeof r->msg, "family %s has no per-rank computation yet", f->name);
        emit_line(o, r, rs->n);
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
                    : shc_golden_load_family(&g, o->golden, f->name, &e);
    if (absent) {
        run_result *r = add_result(rs);
        r->family = f->name;
        r->status = RUN_NOTSUPPORTED;
        snprintf(r->comment, sizeof r->comment, "family");
        snprintf(r->msg, sizeof r->msg, "%s", e.msg);
        emit_line(o, r, rs->n);
        return EXIT_OK;
    }
    if (rc) {
        if (printer(o))
            fprintf(stderr, "shardcheck run: %s\n", e.msg);
        return EXIT_USAGE;
    }
    int64_t n = g.ntests, *pick = NULL;
    if (o->backend == BACKEND_TORCH && o->max_cases > 0)
        n = torch_eligible(o, f, &g, &pick);
    int64_t take = o->max_cases > 0 && o->max_cases < n ? o->max_cases : n;
    int64_t idx[CHUNK];
    /* a family that executes in lockstep under mpi says how small its batches must be,
     * so the journal stays current */
    int64_t chunk = o->backend == BACKEND_MPI && f->mpi_batch > 0 ? f->mpi_batch
                  : o->backend == BACKEND_TORCH ? 16 : CHUNK;
    for (int64_t k0 = 0; k0 < take && !o->lost; k0 += chunk) {
        int64_t m = take - k0 < chunk ? take - k0 : chunk;
        for (int64_t k = 0; k < m; k++) {
            idx[k] = take == n ? k0 + k : (k0 + k) * n / take;
            if (pick)
                idx[k] = pick[idx[k]];
        }
        run_chunk(o, f, &g, idx, m, (*seq)++, rs);
    }
    free(pick);
    shc_golden_free(&g);
    return EXIT_OK;
}

/* ---- reports ---- */

static void xml_escape(FILE *fp, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", fp); break;
        case '>': fputs("&gt;", fp); break;
        case '&': fputs("&amp;", fp); break;
        case '"': fputs("&quot;", fp); break;
        default: fputc(*s, fp);
        }
    }
}

static int write_junit(const char *path, const results *rs)
{
    FILE *fp = fopen(path, "w");
    if (!fp) {
        fprintf(stderr, "shardcheck run: --junit %s: cannot write\n", path);
        return -1;
    }
    fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"shardcheck\">\n");
    for (size_t i = 0; i < rs->n;) {
        size_t j = i;
        int cnt[RUN_NSTATUS] = {0};
        while (j < rs->n && !strcmp(rs->r[j].family, rs->r[i].family))
            cnt[rs->r[j++].status]++;
        fprintf(fp, "  <testsuite name=\"%s\" tests=\"%zu\" failures=\"%d\" errors=\"%d\" "
                "skipped=\"%d\">\n", rs->r[i].family, j - i, cnt[RUN_FAIL],
                cnt[RUN_CRASH] + cnt[RUN_TIMEOUT] + cnt[RUN_INTERNAL], cnt[RUN_NOTSUPPORTED]);
        for (; i < j; i++) {
            const run_result *r = &rs->r[i];
            fprintf(fp, "    <testcase classname=\"%s\" name=\"tc %lld: ", r->family,
                    (long long)r->tcid);
            xml_escape(fp, r->comment);
            fprintf(fp, "\" time=\"%.3f\"", r->seconds);
            if (r->status == RUN_PASS && r->msg[0]) { /* a note */
                fputs(">\n      <system-out>", fp);
                xml_escape(fp, r->msg);
                fputs("</system-out>\n    </testcase>\n", fp);
                continue;
            }
            if (r->status == RUN_PASS) {
                fputs("/>\n", fp);
                continue;
            }
            const char *tag = r->status == RUN_NOTSUPPORTED ? "skipped"
                            : r->status == RUN_FAIL ? "failure" : "error";
            fprintf(fp, ">\n      <%s type=\"%s\" message=\"", tag, run_status_name(r->status));
            xml_escape(fp, r->msg);
            fprintf(fp, "\"/>\n    </testcase>\n");
        }
        fputs("  </testsuite>\n", fp);
    }
    fputs("</testsuites>\n", fp);
    int bad = ferror(fp) != 0;
    if (fclose(fp) || bad) { /* a full disk must not leave CI a truncated report and exit 0 */
        fprintf(stderr, "shardcheck run: --junit %s: write failed, the report is incomplete\n",
                path);
        return -1;
    }
    return 0;
}

static int print_json(const run_opts *o, const results *rs, int passed, int failed, int skipped)
{
    json_t *a = json_array();
    for (size_t i = 0; i < rs->n; i++) {
        const run_result *r = &rs->r[i];
        json_array_append_new(a, json_pack("{s:s, s:I, s:s, s:s, s:s, s:f}", "family", r->family,
                                           "tcId", (json_int_t)r->tcid, "comment", r->comment,
                                           "status", run_status_name(r->status), "message",
                                           r->msg, "seconds", r->seconds));
    }
    static const char *const names[] = {"ref", "local", "mpi", "plugin", "torch"};
    json_t *out = json_pack("{s:s, s:I, s:o, s:i, s:i, s:i}", "backend", names[o->backend],
                            "ranks", (json_int_t)o->nprocs, "results", a, "passed", passed,
                            "failed", failed, "skipped", skipped);
    int wrc = cli_print_json(out);
    json_decref(out);
    return wrc;
}

static int report(const run_opts *o, const results *rs)
{
    int cnt[RUN_NSTATUS] = {0};
    for (size_t i = 0; i < rs->n; i++)
        cnt[rs->r[i].status]++;
    int passed = cnt[RUN_PASS], skipped = cnt[RUN_NOTSUPPORTED];
    int failed = cnt[RUN_FAIL] + cnt[RUN_CRASH] + cnt[RUN_TIMEOUT] + cnt[RUN_INTERNAL];
    if (o->junit && write_junit(o->junit, rs))
        return EXIT_USAGE;
    if (o->json && print_json(o, rs, passed, failed, skipped))
        return EXIT_USAGE;
    if (o->tap)
        printf("1..%zu\n", rs->n);
    if (!o->json && !o->tap) {
        for (size_t i = 0; i < rs->n;) {
            size_t j = i;
            int c[RUN_NSTATUS] = {0};
            while (j < rs->n && !strcmp(rs->r[j].family, rs->r[i].family))
                c[rs->r[j++].status]++;
            printf("%-20s %5zu cases: %d passed, %d failed, %d crashed, %d timed out, "
                   "%d not supported, %d internal errors\n", rs->r[i].family, j - i, c[RUN_PASS],
                   c[RUN_FAIL], c[RUN_CRASH], c[RUN_TIMEOUT], c[RUN_NOTSUPPORTED],
                   c[RUN_INTERNAL]);
            i = j;
        }
    }
    FILE *last = o->json ? stderr : stdout;
    fprintf(last, "%d passed, %d failed, %d skipped\n", passed, failed, skipped);
    fflush(NULL);
    if (cnt[RUN_INTERNAL])
        return EXIT_INTERNAL;
    if (failed)
        return EXIT_FAIL;
    return passed ? EXIT_OK : EXIT_SKIP;
}

/* ---- options ---- */

static int parse_backend(run_opts *o, const char *b)
{
    if (!strcmp(b, "ref"))
        o->backend = BACKEND_REF;
    else if (!strcmp(b, "local"))
        o->backend = BACKEND_LOCAL;
    else if (!strcmp(b, "mpi"))
        o->backend = BACKEND_MPI;
    else if (!strcmp(b, "torch") || !strcmp(b, "torch:gloo") || !strcmp(b, "torch:nccl")) {
        o->backend = BACKEND_TORCH;
        o->torch_backend = b[5] ? b + 6 : "gloo";
    } else if (!strncmp(b, "plugin:", 7) && b[7]) {
        o->backend = BACKEND_PLUGIN;
        o->plugin_path = b + 7;
    } else
        return cli_usage_error("run", "--backend '%s': expected ref, local, mpi, "
                               "torch[:gloo|:nccl] or plugin:FILE.so", b);
    return 0;
}

static int parse_options(run_opts *o, int argc, char **argv)
{
    int opt;
    long long v;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "", run_options, NULL)) != -1) {
        switch (opt) {
        case OPT_BACKEND: if (parse_backend(o, optarg)) return EXIT_USAGE; break;
        case OPT_FAMILY: o->family = optarg; break;
        case OPT_GOLDEN: o->golden = optarg; break;
        case OPT_TAP: o->tap = 1; break;
        case OPT_JUNIT: o->junit = optarg; break;
        case OPT_JSON: o->json = 1; break;
        case OPT_TIMEOUT:
            if (cli_parse_ll("run", "--timeout", optarg, &v)) return EXIT_USAGE;
            if (v < 1 || v > 86400)
                return cli_usage_error("run", "--timeout %lld: expected 1..86400 seconds", v);
            o->timeout_s = (double)v;
            break;
        case OPT_MAX_CASES:
            if (cli_parse_ll("run", "--max-cases", optarg, &v)) return EXIT_USAGE;
            if (v < 0)
                return cli_usage_error("run", "--max-cases %lld: expected >= 0", v);
            o->max_cases = v;
            break;
        case OPT_MAX_RANKS:
            if (cli_parse_ll("run", "--max-ranks", optarg, &v)) return EXIT_USAGE;
            if (v < 1 || v > 4096)
                return cli_usage_error("run", "--max-ranks %lld: expected 1..4096", v);
            o->max_ranks = v;
            break;
        case OPT_JOURNAL: o->journal_path = optarg; break;
        case OPT_HELP: usage(); return -1;
        default: return cli_usage_error("run", "unknown option (see shardcheck run --help)");
        }
    }
    if (o->tap + o->json > 1)
        return cli_usage_error("run", "--tap and --json exclude each other");
    if (optind < argc)
        return cli_usage_error("run", "unexpected argument '%s'", argv[optind]);
    if (o->family && !shc_family_find(o->family))
        return cli_usage_error("run", "--family '%s': no such family", o->family);
    if (run_parse_fault(getenv("SHARDCHECK_FAULT"), &o->fault))
        return EXIT_USAGE;
    return 0;
}

int cmd_run(int argc, char **argv)
{
    run_opts o = {.golden = getenv("SHARDCHECK_GOLDEN") ?: "golden", .timeout_s = 60,
                  .max_ranks = 0, .nprocs = 1};
    int rc = parse_options(&o, argc, argv);
    if (rc)
        return rc < 0 ? EXIT_OK : rc;
    if (!o.max_ranks)
        o.max_ranks = o.backend == BACKEND_LOCAL ? 64 : 1024;
    results rs = {0};
    if (o.backend == BACKEND_PLUGIN) { /* loaded only in workers: its code never runs here */
        shc_err e = {0};
        bool crashed;
        if (shc_plugin_probe(o.plugin_path, o.timeout_s, &crashed, &e) && !crashed)
            return cli_report("run", e.code, &e);
        if (crashed) {
            run_result *r = add_result(&rs);
            r->family = "plugin";
            r->status = RUN_CRASH;
            snprintf(r->comment, sizeof r->comment, "loading %s", o.plugin_path);
            snprintf(r->msg, sizeof r->msg, "%s", e.msg);
            emit_line(&o, r, rs.n);
            int code = report(&o, &rs);
            free(rs.r);
            return code;
        }
    }
    if (o.backend == BACKEND_MPI || o.backend == BACKEND_TORCH) {
#ifdef HAVE_MPI
        if (run_mpi_init(&o, &argc, &argv))
            return EXIT_INTERNAL;
        if (o.backend == BACKEND_TORCH && (rc = run_torch_start(&o))) {
            run_torch_stop(&o);
            run_mpi_finish(&o, 0);
            return rc;
        }
#else
        fprintf(stderr, "shardcheck run: --backend %s: this shardcheck was built without MPI "
                "(configure --with-mpi)\n", o.backend == BACKEND_MPI ? "mpi" : "torch");
        return EXIT_SKIP;
#endif
    }
    if (o.journal_path && printer(&o) && !(o.journal = fopen(o.journal_path, "w"))) {
        fprintf(stderr, "shardcheck run: --journal %s: cannot write\n", o.journal_path);
        return EXIT_USAGE;
    }
    int64_t seq = 0;
    const shc_family *const *fams = shc_families();
    for (int i = 0; fams[i] && !rc && !o.lost; i++)
        if (!o.family || !strcmp(o.family, fams[i]->name))
            rc = run_family(&o, fams[i], &rs, &seq);
    int code = rc ? rc : printer(&o) ? report(&o, &rs) : EXIT_OK;
    if (o.journal) {
        fprintf(o.journal, "done %d\n", code);
        bool bad = ferror(o.journal) != 0;
        if ((fclose(o.journal) || bad) && code != EXIT_INTERNAL) { /* the wrapper reads it */
            fprintf(stderr, "shardcheck run: --journal %s: write failed\n", o.journal_path);
            code = EXIT_USAGE;
        }
    }
#ifdef HAVE_MPI
    if (o.backend == BACKEND_TORCH)
        run_torch_stop(&o);
    if (o.backend == BACKEND_MPI || o.backend == BACKEND_TORCH)
        run_mpi_finish(&o, o.lost);
#endif
    if (o.backend == BACKEND_PLUGIN)
        shc_plugin_close(&o.plugin);
    free(rs.r);
    return code;
}
