/*
 * cmd_certify.c — `shardcheck certify`: a submission package saying "this implementation
 * conforms to shardcheck corpus X".
 *
 *   shardcheck certify --out DIR [--golden DIR] [--backend B] [--families a,b] [--np 1,2,4]
 *                      [--candidate [FAMILY=]FILE]... [--name TEXT] [--max-cases N]
 *                      [--timeout SEC] [--waivers FILE]
 *   shardcheck certify --check DIR [--golden DIR]
 *
 * Every claimed family (--families, default all) runs on the backend (B as in `run`,
 * default ref) at every claimed rank count (--np; mpi and torch under `mpirun -np N`, a
 * plugin or a worker so above np 1, the others in one process and np 1 only), and every
 * --candidate (a vendor adapter's results, as `verify` reads them) is verified; each in a
 * child process (certify_spawn.c).  DIR gets the results (JSON, JUnit), the HTML report,
 * the environment, the golden MANIFEST, the statement (statement.json, statement.txt) and a
 * sha256 MANIFEST of it all (certify.h lists the layout; certify_package.c writes and checks it).
 * Each row is also measured against its family's claim (family.h's shc_claim,
 * certify_claim.c): a row that passed but covers fewer fields or tests than the claim
 * requires is "partial", and so is the package.  --waivers FILE (known deviations,
 * tools/run/waivers.h) is checked first, copied into the package as waivers.json and given to
 * every row, and the statement lists each waived case with its reason.  --check finds the
 * corpus as every command does and verifies every candidate in the package again (with the
 * package's waivers.json when it has one).
 * Exit: 0 conformant, 1 nonconformant (or, with --check, an altered package or a candidate
 * that no longer gives its row), 2 bad usage or input (unknown family, bad --np, --out
 * existing and not empty or not creatable, a tampered golden corpus, a child refusing its
 * input, --check without a corpus), 3 partial (nothing failed, but a row covers less than
 * its family's claim), 77 incomplete (a claimed row could not run, or nothing passed), 99
 * internal.  Tested by conformance/tests/certify.sh, certify_claims.sh and waivers.sh.
 */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include "cli.h"
#include "family.h"
#include "report.h"
#include "certify.h"
#include "torch_version.h"
#include "certify_spawn.h"
#include "run.h"
#include "outfile.h"
#include "waivers.h"

#define CERT_MAX_NP 16
#define CERT_MAX_ROWS 512
#define CERT_MAX_CAND 64

typedef struct cert_opts {
    const char *out, *golden, *backend, *families, *np, *name, *check;
    const char *golden_opt; /* --golden as given (--check compares against it only then) */
    const char *torch_opt;  /* --torch-version as given */
    const char *waivers;    /* --waivers FILE, or NULL */
    char wcopy[4096];       /* ... its copy in the package, which every row is judged with */
    shc_torch_release torch; /* the release judged against (torch_version.c's rule) */
    char torch_why[256];
    const char *cand[CERT_MAX_CAND];
    int ncand, np_v[CERT_MAX_NP], nnp, run_backend; /* run_backend: backend rows wanted */
    long long max_cases, timeout;
    const shc_family *fam[64];
    int nfam;
    char exe[4096], written[64];
    int argc;
    char **argv;
} cert_opts;

/* ---- options ---- */

/* Whether backend spec b runs one process per rank (the backend table says; run's own
 * list: certify runs `run --backend B` as given). */
static bool per_process(const char *b)
{
    const char *arg;
    const run_backend *be = run_backend_find(b, &arg);
    return be && be->procs == RUN_PER_RANK;
}

/* Whether the row at np processes runs under mpirun: always for mpi and torch, above np 1
 * for a backend that runs one rank per process when started so (the plugin). */
static bool under_mpirun(const char *b, int np)
{
    const char *arg;
    const run_backend *be = run_backend_find(b, &arg);
    return per_process(b) || (be && be->certify_np && np > 1);
}

static int parse_np(cert_opts *o)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", o->np ? o->np : "1");
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *end;
        errno = 0;
        long v = strtol(t, &end, 10);
        if (errno || end == t || *end || v < 1 || v > 4096)
            return cli_usage_error("certify", "--np '%s': '%s' is not a rank count in 1..4096",
                                   o->np, t);
        for (int i = 0; i < o->nnp; i++)
            if (o->np_v[i] == v)
                return cli_usage_error("certify", "--np '%s': %ld is given twice", o->np, v);
        if (o->nnp == CERT_MAX_NP)
            return cli_usage_error("certify", "--np: at most %d rank counts", CERT_MAX_NP);
        char names[64];
        run_backend_per_rank_names(names, sizeof names);
        if (v > 1 && !under_mpirun(o->backend, (int)v))
            return cli_usage_error("certify", "--np %ld: backend %s computes every rank in one "
                                   "process; only %s take rank counts (and plugin:FILE.so and "
                                   "worker:CMD, under mpirun above 1)", v, o->backend, names);
        o->np_v[o->nnp++] = (int)v;
    }
    return o->nnp ? 0 : cli_usage_error("certify", "--np '%s': no rank count", o->np);
}

static int parse_families(cert_opts *o)
{
    const shc_family *const *all = shc_families();
    if (!o->families) {
        for (int i = 0; all[i] && o->nfam < 64; i++)
            o->fam[o->nfam++] = all[i];
        return 0;
    }
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", o->families);
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        const shc_family *f = shc_family_find(t);
        if (!f)
            return cli_usage_error("certify", "--families: unknown family '%s' (see shardcheck "
                                   "families)", t);
        for (int i = 0; i < o->nfam; i++)
            if (o->fam[i] == f)
                return cli_usage_error("certify", "--families: '%s' is given twice", t);
        if (o->nfam < 64)
            o->fam[o->nfam++] = f;
    }
    return o->nfam ? 0 : cli_usage_error("certify", "--families '%s': no family", o->families);
}

/* A candidate is FAMILY=FILE or FILE whose "family" names it; it must be readable. */
static int candidate_family(const char *arg, const shc_family **f, const char **file)
{
    const char *eq = strchr(arg, '=');
    char fam[64] = "";
    if (eq && (size_t)(eq - arg) < sizeof fam) {
        snprintf(fam, sizeof fam, "%.*s", (int)(eq - arg), arg);
        if ((*f = shc_family_find(fam))) {
            *file = eq + 1;
            return access(*file, R_OK) ? cli_usage_error("certify", "--candidate %s: cannot "
                          "read %s: %s", arg, *file, strerror(errno)) : 0;
        }
    }
    *file = arg;
    shc_err e = {0};
    json_t *root = shc_json_load_path(arg, &e);
    if (!root)
        return cli_usage_error("certify", "--candidate %s: %s", arg, e.msg);
    const char *name = json_string_value(json_object_get(root, "family"));
    *f = name ? shc_family_find(name) : NULL;
    json_decref(root);
    if (!*f)
        return cli_usage_error("certify", "--candidate %s: no known \"family\" in the file; "
                               "write FAMILY=FILE", arg);
    return 0;
}

static const char CERTIFY_ABOUT[] =
    "       shardcheck certify --check DIR [--golden DIR]\n"
    "  Runs the claimed families on the backend at each claimed rank count (mpi, torch,\n"
    "  a plugin or a worker above 1: under mpirun -np N, with $MPIRUN and $MPIRUN_ARGS),\n"
    "  verifies each candidate, and\n"
    "  writes DIR: results, report.html, environment.json, golden-MANIFEST, statement.json,\n"
    "  statement.txt and MANIFEST (sha256 of every file).  A row that passed but covers\n"
    "  fewer fields or tests than its family's claim requires (docs/families, \"What a\n"
    "  conformance claim covers\") is partial.  --check re-verifies a package: every file\n"
    "  against MANIFEST, the statement against its results, and every candidate verified\n"
    "  again against the corpus (--golden, $SHARDCHECK_GOLDEN, the installed copy, ./golden).\n"
    "  exit: 0 conformant (--check: intact), 1 nonconformant (--check: altered, or a\n"
    "  candidate that no longer gives its row), 2 bad usage or input, 3 partial (nothing\n"
    "  failed, but the claim covers less than its families require), 77 incomplete (a\n"
    "  claimed row could not run), 99 internal error";

/* CLI_GO, or the exit code (0 after --help). */
static int parse_options(cert_opts *o, int argc, char **argv)
{
    unsigned long long given = 0;
    const cli_option opts[] = {
        {.name = "out", .kind = CLI_STR, .meta = "DIR", .to = &o->out,
         .help = "the package directory to write (new or empty)"},
        {.name = "golden", .kind = CLI_STR, .meta = "DIR", .to = &o->golden_opt,
         .help = CLI_GOLDEN_HELP},
        {.name = "backend", .kind = CLI_STR, .meta = "B", .to = &o->backend,
         .mark = &o->run_backend,
         .help = "ref (default), local, mpi, torch[:gloo|:nccl], cuda, plugin:FILE.so or "
                 "worker:CMD"},
        {.name = "families", .kind = CLI_STR, .meta = "A,B", .to = &o->families,
         .mark = &o->run_backend, .help = "the families claimed (default every registered family)"},
        {.name = "np", .kind = CLI_STR, .meta = "N,M", .to = &o->np,
         .help = "rank counts claimed (default 1; mpi, torch, a plugin or worker above 1: mpirun "
                 "-np N)"},
        {.name = "candidate", .kind = CLI_LIST, .meta = "[FAMILY=]FILE", .to = o->cand,
         .count = &o->ncand, .hi = CERT_MAX_CAND, .help = "a results file to verify (repeatable)"},
        {.name = "name", .kind = CLI_STR, .meta = "TEXT", .to = &o->name,
         .help = "the implementation's name in the statement"},
        {.name = "max-cases", .kind = CLI_LL, .meta = "N", .to = &o->max_cases, .lo = 0,
         .hi = LLONG_MAX, .range = "is negative",
         .help = "at most N cases per family and rank count (0: all)"},
        {.name = "timeout", .kind = CLI_LL, .meta = "SEC", .to = &o->timeout, .lo = 1,
         .hi = 86400, .help = "per-case time limit in seconds"},
        {.name = "check", .kind = CLI_STR, .meta = "DIR", .to = &o->check,
         .help = "re-verify the package in DIR instead of writing one"},
        {.name = "torch-version", .kind = CLI_STR, .meta = "V", .to = &o->torch_opt,
         .help = TV_HELP "; --check: the release the package must have been judged against"},
        {.name = "waivers", .kind = CLI_STR, .meta = "FILE", .to = &o->waivers,
         .help = "known deviations (README): copied into the package; every row shows each "
                 "waived case as Waived with its reason"},
        CLI_OPT_END};
    const cli_command cmd = {
        .name = "certify", .opts = opts, .about = CERTIFY_ABOUT, .given = &given,
        .synopsis = "--out DIR [--golden DIR] [--backend ref|local|mpi|torch[:gloo|:nccl]|"
                    "cuda|plugin:F.so]\n                          [--families a,b] [--np 1,2,4] "
                    "[--candidate [FAMILY=]FILE]...\n                          [--name TEXT] "
                    "[--max-cases N] [--timeout SEC] [--torch-version V]\n"
                    "                          [--waivers FILE]"};
    int x = cli_parse(&cmd, argc, argv, NULL);
    if (x != CLI_GO)
        return x;
    /* options of the other mode are refused by name (issue 25 item 4) */
    if (o->check)
        return cli_used(&cmd, "check golden torch-version", "with --check (it re-verifies a package)");
    if (o->ncand && !o->run_backend && (cli_given(&cmd, "max-cases") || cli_given(&cmd, "timeout")))
        return cli_usage_error("certify", "--%s applies to backend runs (--backend, --families)",
                               cli_given(&cmd, "max-cases") ? "max-cases" : "timeout");
    return CLI_GO;
}

static int validate(cert_opts *o)
{
    if (o->check)
        return 0;
    if (!o->out || !*o->out)
        return cli_usage_error("certify", "--out DIR is required (or --check DIR)");
    if (!o->ncand)
        o->run_backend = 1;
    if (!o->backend)
        o->backend = "ref";
    const char *arg; /* run's own list: certify runs `run --backend B` as given */
    char list[256];
    run_backend_spellings(list, sizeof list);
    if (!run_backend_find(o->backend, &arg))
        return cli_usage_error("certify", "--backend: '%s': expected %s", CLI_ECHO(o->backend),
                               list);
    if (o->np && !o->run_backend)
        return cli_usage_error("certify", "--np applies to backend runs (--backend, --families)");
    int rc = parse_np(o);
    if (!rc && o->run_backend)
        rc = parse_families(o);
    return rc;
}

/* ---- the package directory ---- */

/* --out must be new or an empty directory: a package is never mixed with older files. */
static int make_out(const cert_opts *o)
{
    struct stat st;
    out_inputs in = {0}; /* never the golden directory, a folder in it, or a candidate */
    shc_err e = {0};
    out_inputs_tree(&in, "golden directory", o->golden, 1);
    out_inputs_file(&in, "given as --waivers", o->waivers);
    for (int i = 0; i < o->ncand; i++)
        out_inputs_file(&in, "given as --candidate", strchr(o->cand[i], '=') &&
                        access(o->cand[i], F_OK) ? strchr(o->cand[i], '=') + 1 : o->cand[i]);
    int rc = out_refuse(&in, "--out", o->out, &e);
    out_inputs_free(&in);
    if (rc)
        return cli_report("certify", rc, &e);
    if (!stat(o->out, &st)) {
        DIR *d = S_ISDIR(st.st_mode) ? opendir(o->out) : NULL;
        if (!d)
            return cli_usage_error("certify", "--out %s: exists and is not a directory", o->out);
        struct dirent *de;
        int n = 0;
        while ((de = readdir(d)))
            n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
        closedir(d);
        if (n)
            return cli_usage_error("certify", "--out %s: exists and is not empty (a package is "
                                   "written into a new or empty directory)", o->out);
    } else if (mkdir(o->out, 0777)) {
        return cli_usage_error("certify", "--out %s: cannot create: %s", o->out, strerror(errno));
    }
    static const char *const sub[] = {"results", "logs", "inputs"};
    for (int i = 0; i < 3; i++) {
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", o->out, sub[i]);
        if (mkdir(p, 0777) && errno != EEXIST)
            return cli_usage_error("certify", "--out %s: cannot write: %s", o->out,
                                   strerror(errno));
    }
    return 0;
}

static int copy_file(const char *from, const char *to, shc_err *e)
{
    FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
    char buf[1 << 16];
    size_t n;
    int rc = in && out ? SHC_OK : shc_fail(e, SHC_EIO, "cannot copy %s to %s: %s", from, to,
                                           strerror(errno));
    while (!rc && (n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, out) != n)
            rc = shc_fail(e, SHC_EIO, "cannot write %s", to);
    if (in && ferror(in) && !rc)
        rc = shc_fail(e, SHC_EIO, "cannot read %s", from);
    if (in)
        fclose(in);
    if (out && fclose(out) && !rc)
        rc = shc_fail(e, SHC_EIO, "cannot write %s", to);
    return rc;
}

/* Write a JSON value to dir/rel. */
static int write_json(const char *dir, const char *rel, json_t *v, shc_err *e)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    if (json_dump_file(v, p, JSON_INDENT(1)))
        return shc_fail(e, SHC_EIO, "cannot write %s", p);
    FILE *f = fopen(p, "a"); /* a final newline, as every text file here has */
    int bad = !f || fputc('\n', f) == EOF;
    if (f)
        bad |= fclose(f) != 0;
    return bad ? shc_fail(e, SHC_EIO, "cannot write %s", p) : SHC_OK;
}

/* dir/rel: the JUnit file of results j (report_junit_of). */
static int write_junit(const char *dir, const char *rel, const json_t *j, shc_err *e)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    FILE *f = fopen(p, "w");
    if (f)
        report_junit_of(f, j);
    if (!f || (ferror(f) | fclose(f)))
        return shc_fail(e, SHC_EIO, "cannot write %s", p);
    return SHC_OK;
}

/* ---- rows ---- */

/* A backend's argument as the package states it, without a path of this machine: a plugin's
 * file by its base name ("libacme.so"; its name and sha256 come from the run's results); a
 * worker's command line word by word, each word that names a path by what follows its last
 * '/' ("python3 /opt/acme/worker.py --adapter /x/a.py" as "python3 worker.py --adapter a.py"). */
static void shown_arg(const run_backend *be, const char *arg, char *buf, size_t n)
{
    if (!be->arg_is_command) {
        snprintf(buf, n, "%s", strrchr(arg, '/') ? strrchr(arg, '/') + 1 : arg);
        return;
    }
    size_t k = 0;
    while (*arg && k + 1 < n) {
        size_t blank = strspn(arg, " \t"), len = strcspn(arg + blank, " \t");
        const char *w = arg + blank, *slash = w;
        for (const char *p = w; p < w + len; p++)
            slash = *p == '/' ? p + 1 : slash;
        k += (size_t)snprintf(buf + k, n - k, "%.*s%.*s", (int)blank, arg,
                              (int)(len - (size_t)(slash - w)), slash);
        arg = w + len;
        k = k < n ? k : n - 1;
    }
    buf[k] = '\0';
}

/* --backend as the package states it: its argument by shown_arg, so no path of this machine
 * is written. */
static void shown_backend(const char *spec, char *buf, size_t n)
{
    const char *arg;
    const run_backend *be = run_backend_find(spec, &arg);
    size_t k = be && be->arg_prefix ? strlen(be->arg_prefix) : 0;
    if (k && k + 1 < n) {
        snprintf(buf, n, "%s", be->arg_prefix);
        shown_arg(be, arg, buf + k, n - k);
    } else {
        snprintf(buf, n, "%s", spec);
    }
}

/* A path as the package states it: an absolute one by its base name (--out, --golden,
 * --waivers: the package holds what they named, pinned by sha256), others as given. */
static const char *shown_path(const char *p)
{
    return p[0] == '/' && strrchr(p, '/')[1] ? strrchr(p, '/') + 1 : p;
}

/* A command-line word as the package states it: the backend's argument by shown_arg, an
 * absolute path (alone or as --option=PATH) by shown_path. */
static json_t *shown_word(const cert_opts *o, const char *w)
{
    const char *arg;
    const run_backend *be = o->run_backend ? run_backend_find(o->backend, &arg) : NULL;
    const char *hit = be && be->arg_prefix && strchr(arg, '/') ? strstr(w, arg) : NULL;
    const char *eq = !strncmp(w, "--", 2) && strchr(w, '=') ? strchr(w, '=') + 1 : NULL;
    if (!hit && eq)
        return json_sprintf("%.*s%s", (int)(eq - w), w, shown_path(eq));
    if (!hit)
        return json_string(shown_path(w));
    char buf[4096], shown[1024];
    shown_arg(be, arg, shown, sizeof shown);
    snprintf(buf, sizeof buf, "%.*s%s%s", (int)(hit - w), w, shown, hit + strlen(arg));
    return json_string(buf);
}

/* results/<family>.<backend>.np<N>: the backend spelled for a file name (a plugin's path
 * is in environment.json and the statement, not in file names). */
static void row_paths(cert_row *r, const char *stem, char *journal, size_t jn)
{
    snprintf(r->results, sizeof r->results, "results/%s.json", stem);
    snprintf(r->junit, sizeof r->junit, "results/%s.junit.xml", stem);
    snprintf(r->log, sizeof r->log, "logs/%s.stderr", stem);
    if (journal)
        snprintf(journal, jn, "logs/%s.journal", stem);
}

static bool loads_as(const char *path, const char *key)
{
    shc_err e = {0};
    json_t *root = shc_json_load_path(path, &e);
    bool ok = root && json_is_array(json_object_get(root, key));
    json_decref(root);
    return ok;
}

/* After the child: its results, or the journal's (a job that died), or "not run". */
static int finish_row(const cert_opts *o, cert_row *r, int code, const char *journal)
{
    char res[4096], jr[4096], log[4096], last[512];
    snprintf(res, sizeof res, "%s/%s", o->out, r->results);
    snprintf(log, sizeof log, "%s/%s", o->out, r->log);
    r->exit_code = code;
    cert_last_line(log, last, sizeof last);
    if (code < 0 || code == 2) {
        char np[32] = "";
        if (r->np)
            snprintf(np, sizeof np, " at np %d", r->np);
        fprintf(stderr, "shardcheck certify: %s %s%s: %s (exit %d); the package in %s is "
                "incomplete\n", r->mode, r->family, np, last[0] ? last : "could not start",
                code, o->out);
        return code < 0 ? EXIT_INTERNAL : EXIT_USAGE;
    }
    if (loads_as(res, "cases")) /* run and verify JSON both list "cases" (report.c) */
        return 0;
    snprintf(jr, sizeof jr, "%s/%s", o->out, journal ? journal : "");
    /* run opens its journal once its backend is up (MPI, torch workers): with a journal the
     * job died mid-way, without one it never ran (its reason is in the log) */
    if (journal && code != 77 && code != 126 && code != 127 && access(jr, F_OK) == 0) {
        json_t *j = cert_from_journal(jr, r->backend, r->np, code, r->log);
        shc_err e = {0};
        int rc = write_json(o->out, r->results, j, &e);
        if (!rc) /* the job wrote none: every row's JUnit is that of its results (--check) */
            rc = write_junit(o->out, r->junit, j, &e);
        json_decref(j);
        return rc ? cli_report("certify", rc, &e) : 0;
    }
    unlink(res); /* nothing ran: no results to keep */
    snprintf(res, sizeof res, "%s/%s", o->out, r->junit);
    unlink(res);
    r->results[0] = r->junit[0] = '\0';
    snprintf(r->why, sizeof r->why, "%.250s", last[0] ? last : "the child printed nothing");
    return 0;
}

static int run_row(const cert_opts *o, const shc_family *f, int np, cert_row *r, progress *bar)
{
    char tag[64], stem[160], journal[256], res[4096], jun[4096], log[4096], jr[4096];
    const char *arg;
    const run_backend *be = run_backend_find(o->backend, &arg);
    /* a backend spelled with an argument (a plugin's path) is named by its name */
    snprintf(tag, sizeof tag, "%s", be && be->arg_prefix ? be->name : o->backend);
    for (char *p = tag; *p; p++)
        *p = *p == ':' ? '-' : *p;
    snprintf(r->family, sizeof r->family, "%s", f->name);
    snprintf(r->mode, sizeof r->mode, "run");
    shown_backend(o->backend, r->backend, sizeof r->backend);
    r->np = np;
    snprintf(stem, sizeof stem, "%s.%s.np%d", f->name, tag, np);
    row_paths(r, stem, journal, sizeof journal);
    snprintf(res, sizeof res, "%s/%s", o->out, r->results);
    snprintf(jun, sizeof jun, "%s/%s", o->out, r->junit);
    snprintf(log, sizeof log, "%s/%s", o->out, r->log);
    snprintf(jr, sizeof jr, "%s/%s", o->out, journal);
    char *v[80], npbuf[16], mc[32], to[32], *args = NULL;
    int n = under_mpirun(o->backend, np)
                ? cert_mpirun_prefix(v, 48, np, npbuf, sizeof npbuf, &args) : 0;
    const char *tail[] = {o->exe, "run", "--backend", o->backend, "--family", f->name, "--golden",
                          o->golden, "--json", "--junit", jun, "--journal", jr,
                          "--torch-version", shc_torch_release_name(o->torch)};
    for (size_t i = 0; i < sizeof tail / sizeof *tail; i++)
        v[n++] = (char *)tail[i];
    if (o->waivers)
        v[n++] = "--waivers", v[n++] = (char *)o->wcopy;
    snprintf(mc, sizeof mc, "%lld", o->max_cases);
    snprintf(to, sizeof to, "%lld", o->timeout);
    if (o->max_cases)
        v[n++] = "--max-cases", v[n++] = mc;
    if (o->timeout)
        v[n++] = "--timeout", v[n++] = to;
    v[n] = NULL;
    char label[96];
    snprintf(label, sizeof label, "certify %s np %d", f->name, np);
    progress_label(bar, label);
    int code = cert_spawn(v, res, log, jr, bar);
    free(args);
    return finish_row(o, r, code, journal);
}

static int verify_row(const cert_opts *o, const shc_family *f, const char *file, cert_row *r,
                      progress *bar)
{
    char stem[160], inp[256], res[4096], jun[4096], log[4096], cin[4096];
    snprintf(r->family, sizeof r->family, "%s", f->name);
    snprintf(r->mode, sizeof r->mode, "verify");
    snprintf(r->backend, sizeof r->backend, "candidate");
    snprintf(stem, sizeof stem, "%s.verify", f->name);
    row_paths(r, stem, NULL, 0);
    snprintf(inp, sizeof inp, "inputs/%s.candidate.json", f->name);
    snprintf(r->candidate, sizeof r->candidate, "%s", inp);
    snprintf(cin, sizeof cin, "%s/%s", o->out, inp);
    shc_err e = {0};
    if (access(cin, F_OK) == 0)
        return cli_usage_error("certify", "--candidate: two candidates for family %s", f->name);
    if (copy_file(file, cin, &e))
        return cli_report("certify", e.code, &e);
    snprintf(res, sizeof res, "%s/%s", o->out, r->results);
    snprintf(jun, sizeof jun, "%s/%s", o->out, r->junit);
    snprintf(log, sizeof log, "%s/%s", o->out, r->log);
    char *v[] = {(char *)o->exe, "verify", "--family", (char *)f->name, "--candidate", cin,
                 "--golden", (char *)o->golden, "--json", "--junit", jun, "--torch-version",
                 (char *)shc_torch_release_name(o->torch), o->waivers ? "--waivers" : NULL,
                 (char *)o->wcopy, NULL};
    char label[96];
    snprintf(label, sizeof label, "certify verify %s", f->name);
    progress_label(bar, label);
    return finish_row(o, r, cert_spawn(v, res, log, NULL, bar), NULL);
}

/* ---- environment, statement, the whole ---- */

static json_t *environment(const cert_opts *o)
{
    struct utsname u;
    json_t *cmd = json_array(), *env = json_object();
    for (int i = 0; i < o->argc; i++)
        json_array_append_new(cmd, shown_word(o, o->argv[i]));
    char shown[256];
    shown_backend(o->backend, shown, sizeof shown);
    static const char *const vars[] = {"MPIRUN", "MPIRUN_ARGS", "SHARDCHECK_PYTHON",
                                       "SHARDCHECK_TORCH_VERSION", "SHARDCHECK_TORCH_DEVICE",
                                       "SHARDCHECK_HARNESS", "OMP_NUM_THREADS",
                                       "CUDA_VISIBLE_DEVICES", "SHARDCHECK_CUDA_EMULATE"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) /* a path by its base name */
        if (getenv(vars[i]))
            json_object_set_new(env, vars[i], json_string(shown_path(getenv(vars[i]))));
    char ref[160];
    cert_reference(o->torch, ref, sizeof ref);
    json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:o, s:s, s:s, s:I, s:o}", "shardcheck",
                          shc_version(), "reference", ref, "torch",
                          shc_torch_release_name(o->torch),
                          "written", o->written, "command", cmd, "golden", shown_path(o->golden),
                          "backend", o->run_backend ? shown : "(candidates only)", "cpus",
                          (json_int_t)sysconf(_SC_NPROCESSORS_ONLN), "environment", env);
    if (!uname(&u))
        json_object_set_new(j, "system", json_pack("{s:s, s:s, s:s, s:s}", "sysname", u.sysname,
                                                   "release", u.release, "version", u.version,
                                                   "machine", u.machine));
    bool mpirun = false;
    for (int i = 0; i < o->nnp; i++)
        mpirun |= o->run_backend && under_mpirun(o->backend, o->np_v[i]);
    if (mpirun) { /* what ran the ranks */
        char *v[40], npbuf[16], *args = NULL, path[4096], line[512];
        cert_mpirun_prefix(v, 30, 1, npbuf, sizeof npbuf, &args);
        char *ver[] = {v[0], "--version", NULL};
        progress off = {0};
        snprintf(path, sizeof path, "%s/logs/mpirun-version.txt", o->out);
        int code = cert_spawn(ver, path, "/dev/null", NULL, &off);
        FILE *f = fopen(path, "r");
        if (f && fgets(line, sizeof line, f) && code == 0) {
            line[strcspn(line, "\n")] = '\0';
            json_object_set_new(j, "mpirun", json_string(line));
        } else
            json_object_set_new(j, "mpirun", json_sprintf("%s --version: exit %d", v[0], code));
        if (f)
            fclose(f);
        free(args);
    }
    return j;
}

/* report.html over every row's results, then environment, statement and MANIFEST. */
static int assemble(const cert_opts *o, cert_row *rows, int n, char sha[65])
{
    char **in = calloc((size_t)n + 1, sizeof *in), golden_sha[65], p[4096];
    int k = 0, rc = in ? SHC_OK : SHC_ENOMEM;
    shc_err e = {0};
    for (int i = 0; i < n && !rc; i++)
        if (rows[i].results[0] && (in[k] = malloc(4096)))
            snprintf(in[k++], 4096, "%s/%s", o->out, rows[i].results);
    snprintf(p, sizeof p, "%s/golden-MANIFEST", o->out);
    if (!rc)
        rc = shc_sha256_file(p, golden_sha, &e);
    json_t *st = rc ? NULL : cert_statement(rows, n, golden_sha, o->name, o->written, o->torch,
                                                 o->waivers ? "waivers.json" : NULL);
    snprintf(p, sizeof p, "%s/report.html", o->out); /* the page opens with the statement */
    size_t cells;
    long long fails;
    json_t *words = json_array(); /* the command as the package states it */
    char **argv = calloc((size_t)o->argc + 1, sizeof *argv);
    for (int i = 0; words && i < o->argc; i++)
        json_array_append_new(words, shown_word(o, o->argv[i]));
    for (int i = 0; argv && i < o->argc; i++)
        argv[i] = (char *)json_string_value(json_array_get(words, (size_t)i));
    if (!rc && !argv)
        rc = shc_fail(&e, SHC_ENOMEM, "out of memory");
    if (!rc)
        rc = report_html_write(p, o->golden, in, k, o->argc, argv,
                               shc_torch_release_name(o->torch), st, &cells, &fails, &e);
    free(argv);
    json_decref(words);
    for (int i = 0; i < k; i++)
        free(in[i]);
    free(in);
    json_t *env = environment(o);
    if (!rc)
        rc = write_json(o->out, "environment.json", env, &e);
    json_decref(env);
    if (st && !rc)
        rc = write_json(o->out, "statement.json", st, &e);
    snprintf(p, sizeof p, "%s/statement.txt", o->out);
    FILE *f = rc ? NULL : fopen(p, "w");
    if (f) {
        cert_statement_text(f, st);
        cert_statement_text(stdout, st);
        if (ferror(f) | fclose(f))
            rc = shc_fail(&e, SHC_EIO, "cannot write %s", p);
    } else if (!rc)
        rc = shc_fail(&e, SHC_EIO, "cannot write %s: %s", p, strerror(errno));
    json_decref(st);
    snprintf(p, sizeof p, "%s/inputs", o->out);
    rmdir(p); /* only when no candidate was copied there */
    if (!rc)
        rc = cert_manifest_write(o->out, sha, &e);
    return rc ? cli_report("certify", rc, &e) : 0;
}

static int run_rows(cert_opts *o, cert_row *rows, const shc_family **cf, const char **cfile)
{
    int n = 0, code = 0;
    progress bar;
    progress_begin(&bar, "certify", (long long)o->nnp * o->nfam * o->run_backend + o->ncand);
    for (int a = 0; o->run_backend && a < o->nnp && !code; a++)
        for (int i = 0; i < o->nfam && !code; i++, progress_add(&bar, 1))
            code = run_row(o, o->fam[i], o->np_v[a], &rows[n++], &bar);
    for (int i = 0; i < o->ncand && !code; i++, progress_add(&bar, 1))
        code = verify_row(o, cf[i], cfile[i], &rows[n++], &bar);
    progress_end(&bar);
    for (int i = 0; i < n && !code; i++) {
        shc_err e = {0};
        if (cert_count(o->out, &rows[i], &e) || cert_claim(o->out, o->golden, &rows[i], &e))
            code = cli_report("certify", e.code, &e);
    }
    return code ? -code : n;
}

/* The golden files certified against must be the ones MANIFEST lists. */
static int check_golden(const cert_opts *o, const shc_family **cf, int ncf)
{
    shc_err e = {0};
    int rc = SHC_OK;
    for (int i = 0; o->run_backend && i < o->nfam && !rc; i++)
        rc = shc_manifest_verify_family(o->golden, o->fam[i]->name, &e);
    for (int i = 0; i < ncf && !rc; i++)
        rc = shc_manifest_verify_family(o->golden, cf[i]->name, &e);
    return rc ? cli_report("certify", rc, &e) : 0;
}

/* The release the package is judged against: --torch-version, SHARDCHECK_TORCH_VERSION, what
 * the candidates record (they must agree), else the pinned one; a candidate recording
 * another is refused by name (exit 2). */
static int pick_release(cert_opts *o, const char *const *cfile)
{
    char rec[64] = "", first[64] = "", why[256];
    const char *from = NULL;
    for (int i = 0; i < o->ncand; i++) {
        if (!tv_recorded(cfile[i], rec, sizeof rec))
            continue;
        if (from && strcmp(rec, first))
            return cli_usage_error("certify", "--candidate: %s was judged against torch %s, %s "
                                   "against %s: one package is judged against one release",
                                   cfile[i], rec, from, first);
        if (!from)
            from = cfile[i], snprintf(first, sizeof first, "%s", rec);
    }
    shc_err e = {0};
    if (tv_resolve(o->torch_opt, from ? first : NULL, from, &o->torch, why, sizeof why, &e))
        return cli_report("certify", SHC_EINVAL, &e);
    for (int i = 0; i < o->ncand; i++) /* each recording one must agree with the choice */
        if (tv_recorded(cfile[i], rec, sizeof rec) &&
            tv_resolve(shc_torch_release_name(o->torch), rec, cfile[i], &o->torch, why,
                       sizeof why, &e))
            return cli_report("certify", SHC_EINVAL, &e);
    snprintf(o->torch_why, sizeof o->torch_why, "%s", why);
    return 0;
}

/* --waivers is checked against the corpus before any row runs (each child would refuse it
 * alike): for the backend's rows and for the candidates'. */
static int check_waivers(const cert_opts *o)
{
    shc_err e = {0};
    waivers *w = NULL;
    const char *arg;
    const run_backend *be = run_backend_find(o->backend, &arg);
    if (o->waivers && !*o->waivers)
        return cli_usage_error("certify", "--waivers: an empty file name");
    int rc = !o->waivers ? SHC_OK
           : waivers_load(&w, o->waivers, o->golden, o->run_backend && be ? be->name
                          : "candidate", o->torch, &e);
    waivers_free(w);
    return rc ? cli_report("certify", rc, &e) : 0;
}

static int certify(cert_opts *o)
{
    const shc_family *cf[CERT_MAX_CAND];
    const char *cfile[CERT_MAX_CAND];
    int rc = 0;
    for (int i = 0; i < o->ncand && !rc; i++)
        rc = candidate_family(o->cand[i], &cf[i], &cfile[i]);
    if (rc || (rc = pick_release(o, cfile)) || (rc = check_golden(o, cf, o->ncand)) ||
        (rc = check_waivers(o)))
        return rc;
    ssize_t k = readlink("/proc/self/exe", o->exe, sizeof o->exe - 1);
    if (k <= 0)
        return cli_report("certify", SHC_EINTERNAL, NULL);
    o->exe[k] = '\0';
    time_t t = time(NULL);
    strftime(o->written, sizeof o->written, "%Y-%m-%d %H:%M:%S UTC", gmtime(&t));
    char gm[4096], pm[4096], sha[65];
    shc_err e = {0};
    snprintf(gm, sizeof gm, "%s/MANIFEST", o->golden);
    snprintf(pm, sizeof pm, "%s/golden-MANIFEST", o->out);
    if ((rc = make_out(o)) || (rc = copy_file(gm, pm, &e) ? cli_report("certify", e.code, &e) : 0))
        return rc;
    snprintf(o->wcopy, sizeof o->wcopy, "%s/waivers.json", o->out);
    if (o->waivers && copy_file(o->waivers, o->wcopy, &e))
        return cli_report("certify", e.code, &e);
    int nrows = o->run_backend * o->nnp * o->nfam + o->ncand, internal = 0;
    cert_row *rows = calloc((size_t)nrows, sizeof *rows);
    if (!rows)
        return cli_report("certify", SHC_ENOMEM, NULL);
    int n = run_rows(o, rows, cf, cfile);
    if (n >= 0)
        rc = assemble(o, rows, n, sha);
    const char *v = n > 0 ? cert_overall(rows, n) : "incomplete"; /* before the rows go */
    for (int i = 0; i < (n > 0 ? n : 0); i++) {
        internal |= rows[i].exit_code == EXIT_INTERNAL;
        cert_row_free(&rows[i]);
    }
    if (n < 0 || rc) {
        free(rows);
        return n < 0 ? -n : rc;
    }
    printf("package %s: MANIFEST sha256 %s (publish it: it pins every file); check it with "
           "`shardcheck certify --check %s`\n", o->out, sha, o->out);
    free(rows);
    return internal ? EXIT_INTERNAL : cert_verdict_exit(v);
}

/* certify --check: the package must be a directory before a corpus is looked for. */
static int check_package(cert_opts *o)
{
    struct stat st;
    shc_err ge = {0};
    bool dir = !stat(o->check, &st) && S_ISDIR(st.st_mode);
    if (dir && !(o->golden = cli_golden_dir(o->golden_opt, &ge))) {
        fprintf(stderr, "shardcheck certify --check: %s: cannot verify its candidates again: "
                "%s\n", o->check, ge.msg);
        return EXIT_USAGE;
    }
    return cert_check(o->check, o->golden ? o->golden : "", o->golden_opt != NULL, o->torch_opt,
                      report_html_write);
}

int cmd_certify(int argc, char **argv)
{
    cert_opts o = {.argc = argc, .argv = argv};
    int rc = parse_options(&o, argc, argv);
    if (rc != CLI_GO)
        return rc;
    shc_err ge = {0};
    if (o.check) /* the corpus too, once the package is there: its candidates are verified again */
        return check_package(&o);
    if (!(o.golden = cli_golden_dir(o.golden_opt, &ge)))
        return cli_report("certify", ge.code, &ge);
    if ((rc = validate(&o)))
        return rc;
    return certify(&o);
}
