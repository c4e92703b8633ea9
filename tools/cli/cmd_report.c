/*
 * cmd_report.c — `shardcheck report --out FILE.html [--golden DIR] INPUT.json...`: one
 * self-contained HTML page (inline CSS, no script, no external resource) from the JSON
 * that `shardcheck run --json` and `shardcheck verify --json` print.  It opens with what a
 * person reads (report_page.c): the verdict, the statement (implementation, torch release
 * judged against, families, rank counts), the failure groups by flag and field with each
 * group's smallest case, its inputs and an inline picture, NotSupported grouped by reason.
 * Then a family x backend x rank-count matrix of pass/fail/NotSupported counts, every
 * failure with its message (expected vs got) and the other outcomes (crash, timeout,
 * internal error, waived) folded in <details>, and provenance (sha256 of golden/MANIFEST,
 * shardcheck and reference versions, the command and its inputs).  Bad input — an
 * unreadable or malformed input, an unwritable --out, an --out naming an input, a golden
 * file that differs from MANIFEST (checked first; --no-manifest-check skips it, warning) —
 * is exit 2 naming the file; the page is written beside --out and renamed into place
 * (outfile.h).  io_lifecycle.sh tests those.  Tested by conformance/tests/report_html.sh,
 * which also loads the page in headless chromium when it is installed (tools/setup.sh
 * --browser): element checks on its DOM and screenshots.
 * report_html_write (report.h) is the generator itself; `shardcheck certify` calls it too.
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "cli.h"
#include "golden.h"
#include "report.h"
#include "report_page.h"
#include "torch_version.h"

static cell *cell_of(rp *r, const char *fam, const char *be, const char *ranks)
{
    for (size_t i = 0; i < r->ncells; i++)
        if (!strcmp(r->cells[i].family, fam) && !strcmp(r->cells[i].backend, be) &&
            !strcmp(r->cells[i].ranks, ranks))
            return &r->cells[i];
    if (r->ncells == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 16;
        cell *c = realloc(r->cells, cap * sizeof *c);
        if (!c)
            return NULL;
        r->cells = c, r->cap = cap;
    }
    cell *c = &r->cells[r->ncells++];
    memset(c, 0, sizeof *c);
    snprintf(c->family, sizeof c->family, "%s", fam);
    snprintf(c->backend, sizeof c->backend, "%s", be);
    snprintf(c->ranks, sizeof c->ranks, "%s", ranks);
    return c;
}

static int status_slot(const char *st)
{
    if (!strcmp(st, "Pass"))
        return 0;
    if (!strcmp(st, "Fail"))
        return 1;
    return !strcmp(st, "NotSupported") ? 2 : 3;
}

static int add_case(rp *r, const char *fam, const char *be, const char *ranks, const char *name,
                    const char *st, const char *msg)
{
    cell *c = cell_of(r, fam, be, ranks);
    if (!c)
        return -1;
    int k = status_slot(st);
    c->n[k]++;
    r->n[k]++;
    if (k == 1 && r->nfails++ < RP_MAX_FAIL_ROWS)
        json_array_append_new(r->fails, json_pack("[s,s,s,s,s,s]", fam, be, ranks, name, st,
                                                  msg ? msg : ""));
    if (k == 2) /* grouped by reason, not a row per case */
        rp_add_notsupported(r, fam, be, ranks, msg);
    if (k == 3 && json_array_size(r->others) < RP_MAX_FAIL_ROWS)
        json_array_append_new(r->others, json_pack("[s,s,s,s,s,s]", fam, be, ranks, name, st,
                                                   msg ? msg : ""));
    if (k == 3 && (!strcmp(st, "Crash") || !strcmp(st, "Timeout") || !strcmp(st, "InternalError")))
        r->nbad++;
    return 0;
}

/* One input: run --json ({"backend","ranks","cases"}; before the shared reporter "results"
 * with "message") or verify --json ({"suite","cases"}). */
static int add_input(rp *r, const char *path, shc_err *e)
{
    json_t *root = shc_json_load_path(path, e);
    if (!root)
        return shc_err_prefix(e, "input");
    json_t *cases = json_object_get(root, "cases");
    json_t *results = json_is_array(cases) ? cases : json_object_get(root, "results");
    size_t i;
    json_t *x;
    int rc = SHC_OK;
    if (json_is_array(results) && json_is_string(json_object_get(root, "backend"))) {
        const char *be = json_string_value(json_object_get(root, "backend"));
        char ranks[16];
        snprintf(ranks, sizeof ranks, "%lld",
                 (long long)json_integer_value(json_object_get(root, "ranks")));
        json_array_foreach(results, i, x) {
            const char *fam = json_string_value(json_object_get(x, "family"));
            const char *st = json_string_value(json_object_get(x, "status"));
            if (!fam || !st) {
                rc = shc_fail(e, SHC_EFORMAT, "input %s: results[%zu] needs \"family\" and "
                              "\"status\" strings", path, i);
                break;
            }
            char name[64];
            snprintf(name, sizeof name, "tcId %lld",
                     (long long)json_integer_value(json_object_get(x, "tcId")));
            const char *msg = json_string_value(json_object_get(x, "detail"));
            if (!json_object_get(x, "detail"))
                msg = json_string_value(json_object_get(x, "message"));
            if (add_case(r, fam, be, ranks, name, st, msg))
                rc = shc_fail(e, SHC_ENOMEM, "report: out of memory");
            if (status_slot(st) == 1) /* grouped once every input is read (rp_group_runs) */
                rp_add_run_failure(r, fam, be, ranks,
                                   json_integer_value(json_object_get(x, "tcId")), msg);
        }
    } else if (json_is_array(cases) && json_is_string(json_object_get(root, "suite"))) {
        const char *fam = json_string_value(json_object_get(root, "suite"));
        char be[96];
        const char *base = strrchr(path, '/');
        snprintf(be, sizeof be, "verify %s", base ? base + 1 : path);
        json_array_foreach(cases, i, x) {
            const char *name = json_string_value(json_object_get(x, "case"));
            const char *st = json_string_value(json_object_get(x, "status"));
            if (!name || !st) {
                rc = shc_fail(e, SHC_EFORMAT, "input %s: cases[%zu] needs \"case\" and \"status\" "
                              "strings", path, i);
                break;
            }
            const char *detail = json_string_value(json_object_get(x, "detail"));
            if (!detail) /* a Pass's note (GpuOnly within tolerance), as run's "message" */
                detail = json_string_value(json_object_get(x, "note"));
            if (add_case(r, fam, be, "-", name, st, detail))
                rc = shc_fail(e, SHC_ENOMEM, "report: out of memory");
        }
        json_t *groups = json_object_get(root, "groups"); /* verify grouped its failures */
        if (!rc && json_is_object(groups))
            json_array_append_new(r->groups, json_pack("{s:s,s:s,s:s,s:O}", "family", fam,
                                  "source", be, "ranks", "-", "groups", groups));
    } else {
        rc = shc_fail(e, SHC_EFORMAT, "input %s: neither `shardcheck run --json` output "
                      "(\"backend\", \"cases\") nor `verify --json` output (\"suite\", "
                      "\"cases\")", path);
    }
    json_decref(root);
    return rc;
}

static void rows(FILE *f, json_t *list)
{
    size_t i;
    json_t *x;
    json_array_foreach(list, i, x) {
        fputs("<tr>", f);
        for (size_t k = 0; k < 6; k++) {
            fputs(k == 5 ? "<td class=msg>" : "<td>", f);
            rp_esc(f, json_string_value(json_array_get(x, k)));
            fputs("</td>", f);
        }
        fputs("</tr>\n", f);
    }
}

static void matrix(FILE *f, const rp *r)
{
    fputs("<table class=matrix><tr><th>family</th>", f);
    for (size_t j = 0; j < r->ncells; j++) { /* one column per distinct (backend, ranks) */
        bool seen = false;
        for (size_t k = 0; k < j && !seen; k++)
            seen = !strcmp(r->cells[k].backend, r->cells[j].backend) &&
                   !strcmp(r->cells[k].ranks, r->cells[j].ranks);
        if (seen)
            continue;
        fputs("<th>", f);
        rp_esc(f, r->cells[j].backend);
        fprintf(f, "<br>ranks %s</th>", r->cells[j].ranks);
    }
    fputs("</tr>\n", f);
    for (size_t i = 0; i < r->ncells; i++) {
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++)
            seen = !strcmp(r->cells[k].family, r->cells[i].family);
        if (seen)
            continue;
        fputs("<tr><th>", f);
        rp_esc(f, r->cells[i].family);
        fputs("</th>", f);
        for (size_t j = 0; j < r->ncells; j++) {
            bool dup = false;
            for (size_t k = 0; k < j && !dup; k++)
                dup = !strcmp(r->cells[k].backend, r->cells[j].backend) &&
                      !strcmp(r->cells[k].ranks, r->cells[j].ranks);
            if (dup)
                continue;
            const cell *c = NULL;
            for (size_t k = 0; k < r->ncells && !c; k++)
                if (!strcmp(r->cells[k].family, r->cells[i].family) &&
                    !strcmp(r->cells[k].backend, r->cells[j].backend) &&
                    !strcmp(r->cells[k].ranks, r->cells[j].ranks))
                    c = &r->cells[k];
            if (!c) {
                fputs("<td class=none>not run</td>", f);
                continue;
            }
            const char *cls = c->n[1] || c->n[3] ? "fail" : c->n[0] ? "pass" : "ns";
            fprintf(f, "<td class=%s>%lld passed<br>%lld failed<br>%lld not supported%s</td>",
                    cls, c->n[0], c->n[1], c->n[2], c->n[3] ? "<br>+ crashes/timeouts" : "");
        }
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

/* A certify page (a statement given) states the corpus and the time of its statement: the
 * page is then a function of the package alone, which certify --check re-renders and compares
 * byte for byte (issue 38 M5). */
static void provenance(FILE *f, const char *golden, int argc, char **argv, shc_torch_release tr,
                       const json_t *st)
{
    char path[4096], hex[65] = "(no MANIFEST)";
    snprintf(path, sizeof path, "%s/MANIFEST", golden);
    shc_err e = {0};
    const char *sha = json_string_value(json_object_get(json_object_get(st, "corpus"),
                                                        "manifestSha256"));
    const char *at = json_string_value(json_object_get(st, "written"));
    if (st)
        snprintf(path, sizeof path, "golden-MANIFEST in the package");
    if (sha)
        snprintf(hex, sizeof hex, "%s", sha);
    else if (shc_sha256_file(path, hex, &e))
        snprintf(hex, sizeof hex, "(no MANIFEST)");
    char when[64];
    time_t t = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", gmtime(&t));
    if (at)
        snprintf(when, sizeof when, "%s", at);
    fputs("<h2>Provenance</h2><table class=prov>", f);
    fputs("<tr><th>golden MANIFEST sha256</th><td>", f);
    rp_esc(f, hex);
    fputs(" (", f);
    rp_esc(f, path);
    fprintf(f, ")</td></tr><tr><th>shardcheck</th><td>%s (reference: pytorch %s, cuda 13.0 "
               "curand, random123 1.14)</td></tr><tr><th>judged against</th><td>torch %s</td>"
               "</tr><tr><th>written</th><td>", shc_version(), shc_torch_release_get(tr)->patch,
            shc_torch_release_name(tr));
    rp_esc(f, when);
    fputs("</td></tr><tr><th>command</th><td>shardcheck", f);
    for (int i = 0; i < argc; i++) {
        fputc(' ', f);
        rp_esc(f, argv[i]);
    }
    fputs("</td></tr></table>\n", f);
}

/* Whole or not at all (outfile.h): a full disk leaves no empty or truncated page.  What a
 * person reads first comes first (verdict, statement, failure groups, NotSupported by
 * reason: report_page.c); the matrix, every failure and the other outcomes follow, the
 * long lists folded. */
static int write_page(const rp *r, const char *out, const char *golden, int argc, char **argv,
                      shc_torch_release tr)
{
    out_file of;
    FILE *f = out_open(&of, out);
    if (!f)
        return -1;
    fputs("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8><title>shardcheck report"
          "</title>\n<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;"
          "margin-bottom:1.5em}td,th{border:1px solid #ccc;padding:4px 8px;vertical-align:top;"
          "font-size:13px}.pass{background:#d4f4d4}.fail{background:#f8d0d0}.ns{background:#eee}"
          ".none{color:#999}.msg{font-family:monospace;white-space:pre-wrap;max-width:70em}"
          ".verdict{padding:2px 16px;border-radius:6px;margin-bottom:1em}.verdict h2{margin:8px 0}"
          ".group{border-left:4px solid #d62728;padding:2px 12px;margin:12px 0}.note{color:#444;"
          "max-width:70em}.count{font-weight:normal;color:#555}.num{text-align:right}"
          "figure.picture svg{max-width:100%;height:auto}summary{cursor:pointer;font-weight:bold;"
          "margin:8px 0}code{white-space:pre-wrap}"
          "</style></head><body>\n<h1>shardcheck report</h1>\n", f);
    rp_write_verdict(f, r, tr);
    rp_write_groups(f, r);
    rp_write_notsupported(f, r);
    fputs("<h2>Family &times; backend &times; rank count</h2>\n", f);
    matrix(f, r);
    fprintf(f, "<details id=failures><summary>Every failure (%lld%s)</summary>\n", r->nfails,
            r->nfails > RP_MAX_FAIL_ROWS ? ", first 2000 shown" : "");
    fputs("<table><tr><th>family</th><th>backend</th><th>ranks</th><th>case</th><th>status</th>"
          "<th>expected vs got</th></tr>\n", f);
    rows(f, r->fails);
    fprintf(f, "</table></details>\n<details id=others><summary>Other outcomes (crashes, "
            "timeouts, internal errors, waived: %zu)</summary>\n<table><tr>"
            "<th>family</th><th>backend</th><th>ranks</th><th>case</th><th>status</th>"
            "<th>why</th></tr>\n", json_array_size(r->others));
    rows(f, r->others);
    fputs("</table></details>\n", f);
    provenance(f, golden, argc, argv, tr, r->statement);
    fputs("</body></html>\n", f);
    return out_commit(&of);
}

/* The release the inputs were judged against: every one that records it agrees, and with
 * torch_opt (--torch-version) when given; an input recording none was judged against the
 * pinned one. */
static int inputs_release(char *const *inputs, int ninputs, const char *torch_opt,
                          shc_torch_release *tr, shc_err *e)
{
    char rec[64], first[64] = "", why[256];
    const char *from = NULL;
    for (int i = 0; i < ninputs; i++) {
        if (!tv_recorded(inputs[i], rec, sizeof rec))
            snprintf(rec, sizeof rec, "%s", shc_torch_release_name(SHC_TORCH_PINNED));
        if (from && strcmp(rec, first))
            return shc_fail(e, SHC_EINVAL, "%s was judged against torch %s, %s against %s: one "
                            "report is about one release", inputs[i], rec, from, first);
        if (!from)
            from = inputs[i], snprintf(first, sizeof first, "%s", rec);
    }
    return tv_resolve(torch_opt, from ? first : NULL, from, tr, why, sizeof why, e);
}

int report_html_write(const char *out, const char *golden, char *const *inputs, int ninputs,
                      int argc, char **argv, const char *torch_opt, const json_t *statement,
                      size_t *cells, long long *fails, shc_err *e)
{
    rp r = {0};
    r.statement = statement;
    shc_torch_release tr;
    *cells = 0;
    *fails = 0;
    int rc = inputs_release(inputs, ninputs, torch_opt, &tr, e);
    if (rc)
        return rc;
    r.fails = json_array();
    r.others = json_array();
    r.groups = json_array();
    r.runfails = json_object();
    r.ns = json_object();
    for (int i = 0; i < ninputs && !rc; i++)
        rc = add_input(&r, inputs[i], e);
    if (!rc)
        rp_group_runs(&r, golden, tr);
    if (!rc && write_page(&r, out, golden, argc, argv, tr) != 0)
        rc = shc_fail(e, SHC_EIO, "--out %s: cannot write: %s", out, strerror(errno));
    *cells = r.ncells;
    *fails = r.nfails;
    free(r.cells);
    json_decref(r.fails);
    json_decref(r.others);
    json_decref(r.groups);
    json_decref(r.runfails);
    json_decref(r.ns);
    return rc;
}

/* Before a byte is written: the page names golden/MANIFEST's sha256 as the corpus the results
 * were checked against, so the corpus must match it (verify's check; not with
 * --no-manifest-check, which warns), and --out must be none of the inputs. */
static int report_preflight(const char *out, const char *golden, char *const *inputs, int n,
                            int unchecked, shc_err *e)
{
    struct stat st;
    if (stat(golden, &st) || !S_ISDIR(st.st_mode))
        return shc_fail(e, SHC_EIO, "--golden %s: %s", golden,
                        access(golden, F_OK) ? strerror(errno) : "not a directory");
    int rc = unchecked ? SHC_OK : shc_manifest_verify(golden, e);
    if (rc)
        return shc_err_prefix(e, "corpus check");
    if (unchecked)
        fprintf(stderr, "shardcheck report: warning: --no-manifest-check: the golden files in %s "
                "were not checked against its MANIFEST; the page's MANIFEST sha256 vouches "
                "for nothing\n", golden);
    out_inputs in = {0};
    out_inputs_tree(&in, "golden directory", golden, 1);
    for (int i = 0; i < n; i++)
        out_inputs_file(&in, "given as an INPUT", inputs[i]);
    rc = out_refuse(&in, "--out", out, e);
    out_inputs_free(&in);
    return rc;
}

int cmd_report(int argc, char **argv)
{
    const char *out = NULL, *golden = NULL, *tver = NULL;
    int unchecked = 0;
    const cli_option opts[] = {
        {.name = "out", .kind = CLI_STR, .meta = "FILE.html", .to = &out,
         .help = "the page to write"},
        {.name = "golden", .kind = CLI_STR, .meta = "DIR", .to = &golden,
         .help = CLI_GOLDEN_HELP},
        {.name = "no-manifest-check", .kind = CLI_FLAG, .to = &unchecked,
         .help = "do not check the golden files against MANIFEST first (warns every time)"},
        {.name = "torch-version", .kind = CLI_STR, .meta = "V", .to = &tver,
         .help = "the release the inputs must have been judged against (default: theirs)"},
        CLI_OPT_END};
    const cli_command cmd = {
        .name = "report", .opts = opts, .positional = "INPUT.json...",
        .synopsis = "--out FILE.html [--golden DIR] [--no-manifest-check] [--torch-version V] "
                    "INPUT.json...",
        .about = "  INPUT: the output of `shardcheck run --json` or `verify --json`.\n"
                 "  Writes one self-contained HTML page: family x backend x rank-count matrix,\n"
                 "  failures with expected vs got, other outcomes, provenance (the sha256 of\n"
                 "  golden/MANIFEST, after every golden file is checked against it: a mismatch\n"
                 "  is exit 2 naming the file)."};
    int first = 0, x = cli_parse(&cmd, argc, argv, &first);
    if (x != CLI_GO)
        return x;
    if (!out || !*out)
        return cli_usage_error("report", "--out FILE.html is required");
    if (first >= argc)
        return cli_usage_error("report", "no input: give the JSON of `run --json` or "
                               "`verify --json`");
    shc_err e = {0};
    if (!(golden = cli_golden_dir(golden, &e)))
        return cli_report("report", e.code, &e);
    int rc = report_preflight(out, golden, argv + first, argc - first, unchecked, &e);
    if (rc)
        return cli_report("report", rc, &e);
    size_t cells = 0;
    long long fails = 0;
    rc = report_html_write(out, golden, argv + first, argc - first, argc, argv, tver, NULL,
                           &cells, &fails, &e);
    if (rc)
        return cli_report("report", rc, &e);
    printf("report: %zu matrix cells, %lld failures -> %s\n", cells, fails, out);
    return EXIT_OK;
}
