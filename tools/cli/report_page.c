/*
 * report_page.c — the part of report.html a person reads first (issue 22 item 5): the
 * verdict, the statement it is about (implementation, the torch release judged against,
 * families, rank counts), the failure groups — by flag and by differing field, largest first,
 * each with its count, the flag's note, its smallest case's inputs and an inline picture of
 * that case (tools/kit/explain_draw.c) — and NotSupported grouped by reason with counts.
 * verify's JSON carries its groups; a run's failures are grouped here the same way
 * (report_group_failures over the golden trees).  No script: detail folds with <details>.
 * Tested by conformance/tests/report_html.sh, which loads the page in headless chromium and
 * checks the order of the sections, the groups, the NotSupported counts and a screenshot.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "explain.h"
#include "golden.h"
#include "report.h"
#include "report_page.h"
#include "certify.h"

#define RP_MAX_GROUPS 20 /* groups shown per kind and input; the rest are counted */

void rp_esc(FILE *f, const char *s) { report_xml_escape(f, s); }

/* The entry under key "a\tb\tc" of obj, created from make when absent. */
static json_t *keyed(json_t *obj, const char *a, const char *b, const char *c, json_t *make)
{
    char *key = NULL;
    size_t n = strlen(a) + strlen(b) + strlen(c) + 3;
    json_t *v = NULL;
    if ((key = malloc(n))) {
        snprintf(key, n, "%s\t%s\t%s", a, b, c);
        v = json_object_get(obj, key);
        if (!v && make)
            json_object_set(obj, key, v = make);
    }
    json_decref(make);
    free(key);
    return v;
}

void rp_add_notsupported(rp *r, const char *fam, const char *src, const char *ranks,
                         const char *detail)
{
    const char *why = detail && *detail ? detail : "(no reason given)";
    json_t *g = keyed(r->ns, fam, src, why, json_pack("{s:s,s:s,s:s,s:I,s:{}}", "family", fam,
                      "source", src, "reason", why, "cases", (json_int_t)0, "ranks"));
    if (!g)
        return;
    json_object_set_new(g, "cases",
                        json_integer(json_integer_value(json_object_get(g, "cases")) + 1));
    json_object_set_new(json_object_get(g, "ranks"), ranks, json_true());
}

void rp_add_run_failure(rp *r, const char *fam, const char *src, const char *ranks,
                        long long tcid, const char *detail)
{
    json_t *g = keyed(r->runfails, fam, src, ranks, json_pack("{s:s,s:s,s:s,s:[]}", "family",
                      fam, "source", src, "ranks", ranks, "fails"));
    long long rank = -1;
    int used = 0;
    const char *d = detail ? detail : "";
    if (sscanf(d, "rank %lld: %n", &rank, &used) == 1 && used > 0)
        d += used; /* run names the rank first; the fields follow as verify words them */
    else
        rank = -1;
    if (g)
        json_array_append_new(json_object_get(g, "fails"), json_pack("{s:I,s:I,s:s,s:I}",
                              "tcId", (json_int_t)tcid, "rank", (json_int_t)rank, "detail", d,
                              "at", (json_int_t)-1));
}

/* Families loaded for grouping, at most a few at once (a certify package's rows repeat one
 * family at several rank counts). */
typedef struct loaded { shc_golden g[8]; int n; bool bad[8]; } loaded;

static const shc_golden *family_trees(loaded *l, const char *golden, const char *fam,
                                      shc_torch_release tr)
{
    for (int i = 0; i < l->n; i++)
        if (!strcmp(l->g[i].family, fam))
            return l->bad[i] ? NULL : &l->g[i];
    if (l->n == 8) { /* the oldest makes room */
        shc_golden_free(&l->g[0]);
        memmove(&l->g[0], &l->g[1], 7 * sizeof l->g[0]);
        memmove(&l->bad[0], &l->bad[1], 7 * sizeof l->bad[0]);
        l->n--;
    }
    shc_err e = {0};
    shc_golden *g = &l->g[l->n];
    memset(g, 0, sizeof *g);
    l->bad[l->n] = shc_golden_index_family_at(g, golden, fam, tr, &e) != SHC_OK;
    snprintf(g->family, sizeof g->family, "%s", fam);
    return l->bad[l->n++] ? NULL : g;
}

void rp_group_runs(rp *r, const char *golden, shc_torch_release tr)
{
    loaded l = {0};
    const char *key;
    json_t *x;
    json_object_foreach(r->runfails, key, x) {
        const char *fam = json_string_value(json_object_get(x, "family"));
        const shc_golden *t = family_trees(&l, golden, fam, tr);
        report rep;
        memset(&rep, 0, sizeof rep);
        rep.fails = json_object_get(x, "fails");
        if (!t || report_group_failures(&rep, t) || !rep.groups)
            continue;
        json_array_append_new(r->groups, json_pack("{s:O,s:O,s:O,s:o}", "family",
                              json_object_get(x, "family"), "source", json_object_get(x, "source"),
                              "ranks", json_object_get(x, "ranks"), "groups", rep.groups));
    }
    for (int i = 0; i < l.n; i++)
        if (!l.bad[i])
            shc_golden_free(&l.g[i]);
}

/* ---- verdict and statement ---- */

/* Comma-separated distinct values of member k of every cell (skip: a value left out). */
static void distinct(FILE *f, const rp *r, int k, const char *skip)
{
    int shown = 0;
    for (size_t i = 0; i < r->ncells; i++) {
        const cell *c = &r->cells[i];
        const char *v = k == 0 ? c->family : k == 1 ? c->backend : c->ranks;
        bool seen = skip && !strcmp(v, skip);
        for (size_t j = 0; j < i && !seen; j++) {
            const cell *d = &r->cells[j];
            seen = !strcmp(v, k == 0 ? d->family : k == 1 ? d->backend : d->ranks);
        }
        if (!seen) {
            fputs(shown++ ? ", " : "", f);
            rp_esc(f, v);
        }
    }
    if (!shown)
        fputs("-", f);
}

/* The verdict when certify gave none: from the counts alone. */
static void verdict_of_counts(FILE *f, const rp *r)
{
    long long bad = r->nfails + r->nbad;
    const char *cls = bad ? "fail" : r->n[0] ? "pass" : "ns";
    fprintf(f, "<section id=verdict class=\"verdict %s\"><h2>Verdict: %s</h2><p>", cls,
            bad ? "FAILED" : r->n[0] ? "PASSED" : "NOTHING PASSED");
    if (bad)
        fprintf(f, "%lld failing case%s and %lld crash%s, timeout%s or internal error%s: the "
                "failure groups below lead to their causes.", r->nfails, r->nfails == 1 ? "" : "s",
                r->nbad, r->nbad == 1 ? "" : "es", r->nbad == 1 ? "" : "s",
                r->nbad == 1 ? "" : "s");
    else if (r->n[0])
        fprintf(f, "Every case that ran passed (%lld NotSupported, grouped by reason below).",
                r->n[2]);
    else
        fputs("No case passed: everything was NotSupported or did not run.", f);
    fputs("</p></section>\n", f);
}

/* The rows that cover less than their family's claim, each with what it covers (a partial
 * verdict says exactly what was claimed: issue 22 item 2). */
static void partial_rows(FILE *f, const json_t *st)
{
    size_t i, n = 0;
    json_t *row;
    json_array_foreach(json_object_get(st, "rows"), i, row) {
        const char *v = json_string_value(json_object_get(row, "verdict"));
        if (!v || strcmp(v, "partial"))
            continue;
        char buf[1400];
        cert_claim_text(json_object_get(row, "claim"), buf, sizeof buf);
        fputs(n++ ? "" : "<ul class=partial>", f);
        fputs("<li>partial: ", f);
        rp_esc(f, json_string_value(json_object_get(row, "family")));
        fprintf(f, " (%s %s", json_string_value(json_object_get(row, "mode")) ?: "?",
                json_string_value(json_object_get(row, "backend")) ?: "?");
        json_int_t np = json_integer_value(json_object_get(row, "np"));
        if (np)
            fprintf(f, ", np %lld", (long long)np);
        fputs("): ", f);
        rp_esc(f, buf);
        fputs("</li>", f);
    }
    if (n)
        fputs("</ul>", f);
}

/* certify's verdict and the rows that decided it. */
static void verdict_of_statement(FILE *f, const json_t *st)
{
    const char *v = json_string_value(json_object_get(st, "verdict"));
    const char *cls = !v ? "ns" : !strcmp(v, "conformant") ? "pass"
                      : !strcmp(v, "nonconformant") ? "fail" : "ns";
    fprintf(f, "<section id=verdict class=\"verdict %s\"><h2>Verdict: ", cls);
    for (const char *p = v ? v : "unknown"; *p; p++)
        fputc(*p >= 'a' && *p <= 'z' ? *p - 32 : *p, f);
    fputs("</h2><p>", f);
    size_t i, nfail = 0;
    json_t *row;
    json_array_foreach(json_object_get(st, "rows"), i, row)
        if (json_integer_value(json_object_get(row, "failed")) > 0) {
            fputs(nfail++ ? ", " : "Failing rows: ", f);
            rp_esc(f, json_string_value(json_object_get(row, "family")));
            fprintf(f, " (%s", json_string_value(json_object_get(row, "backend")));
            json_int_t np = json_integer_value(json_object_get(row, "np"));
            if (np)
                fprintf(f, ", np %lld", (long long)np);
            fprintf(f, ": %lld failed)",
                    (long long)json_integer_value(json_object_get(row, "failed")));
        }
    if (!nfail)
        fputs("No claimed row failed; NotSupported cases are grouped by reason below.", f);
    long long waived = 0;
    json_array_foreach(json_object_get(st, "rows"), i, row)
        waived += json_integer_value(json_object_get(row, "waived"));
    if (json_object_get(st, "waivers")) /* never a pass, never hidden */
        fprintf(f, " %lld case%s waived as known deviations (the package's waivers.json): each "
                "is listed with its reason under Other outcomes, and none counts as a pass.",
                waived, waived == 1 ? " was" : "s were");
    fputs("</p>", f);
    partial_rows(f, st);
    fputs("</section>\n", f);
}

void rp_write_verdict(FILE *f, const rp *r, shc_torch_release tr)
{
    const json_t *st = r->statement;
    if (st)
        verdict_of_statement(f, st);
    else
        verdict_of_counts(f, r);
    fputs("<section id=statement><h2>Statement</h2><table class=prov>\n<tr><th>implementation"
          "</th><td>", f);
    const char *impl = json_string_value(json_object_get(st, "implementation"));
    if (impl)
        rp_esc(f, impl);
    else if (st)
        fputs("(not named: certify --name)", f);
    else
        distinct(f, r, 1, NULL);
    fprintf(f, "</td></tr>\n<tr><th>judged against</th><td>torch %s</td></tr>\n<tr><th>families"
            "</th><td>", shc_torch_release_name(tr));
    distinct(f, r, 0, NULL);
    fputs("</td></tr>\n<tr><th>rank counts</th><td>", f);
    distinct(f, r, 2, "-");
    bool cand = false;
    for (size_t i = 0; i < r->ncells; i++)
        cand |= !strcmp(r->cells[i].ranks, "-");
    if (cand)
        fputs(" (candidates: every rank of each case)", f);
    fprintf(f, "</td></tr>\n<tr><th>cases</th><td>%lld passed, %lld failed, %lld NotSupported, "
            "%lld other</td></tr>\n</table></section>\n", r->n[0], r->n[1], r->n[2], r->n[3]);
}

/* ---- failure groups ---- */

/* One group: its name and count, the flag's note, its smallest case with inputs and a
 * picture. */
static void write_group(FILE *f, const json_t *g, long long total, const char *fam, bool draw)
{
    const json_t *s = json_object_get(g, "smallest"), *in = json_object_get(s, "inputs");
    long long n = json_integer_value(json_object_get(g, "tests"));
    fputs("<div class=group><h4>", f);
    rp_esc(f, json_string_value(json_object_get(g, "name")));
    fprintf(f, " <span class=count>%lld of %lld failing tests (%.0f%%)</span></h4>\n", n, total,
            total ? 100.0 * n / total : 0);
    if (json_string_value(json_object_get(g, "note"))) {
        fputs("<p class=note>", f);
        rp_esc(f, json_string_value(json_object_get(g, "note")));
        fputs("</p>\n", f);
    }
    long long tc = json_integer_value(json_object_get(s, "tcId"));
    long long rank = json_integer_value(json_object_get(s, "rank"));
    fprintf(f, "<p class=smallest>smallest: tcId %lld (", tc);
    rp_esc(f, json_string_value(json_object_get(s, "file")));
    if (json_is_integer(json_object_get(s, "rank")) && rank >= 0)
        fprintf(f, "), rank %lld: <code>", rank);
    else
        fputs("): <code>", f);
    rp_esc(f, json_string_value(json_object_get(s, "detail")));
    fputs("</code></p>\n<table class=inputs>", f);
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)in, k, v) {
        char *d = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        fputs("<tr><th>", f);
        rp_esc(f, k);
        fputs("</th><td>", f);
        rp_esc(f, d);
        fputs("</td></tr>", f);
        free(d);
    }
    fputs("</table>\n", f);
    shc_err e = {0};
    if (draw) {
        fputs("<figure class=picture>", f);
        if (explain_inputs_svg(f, in, &e) == SHC_OK)
            fprintf(f, "<figcaption>tcId %lld as <code>shardcheck explain --family %s --tcid "
                    "%lld</code> draws it</figcaption>", tc, fam, tc);
        fputs("</figure>\n", f);
    }
    fputs("</div>\n", f);
}

/* One kind of groups (byFlag, byField) of one input. */
static void write_kind(FILE *f, const json_t *arr, long long total, const char *fam, bool draw)
{
    size_t i;
    json_t *g;
    json_array_foreach((json_t *)arr, i, g)
        if (i < RP_MAX_GROUPS)
            write_group(f, g, total, fam, draw);
    if (json_array_size(arr) > RP_MAX_GROUPS)
        fprintf(f, "<p>... and %zu more groups</p>\n", json_array_size(arr) - RP_MAX_GROUPS);
}

void rp_write_groups(FILE *f, const rp *r)
{
    fputs("<section id=groups><h2>Failure groups</h2>\n", f);
    if (!json_array_size(r->groups))
        fputs(r->nfails ? "<p>The failures could not be joined to the corpus: see every failure "
                          "below.</p>\n" : "<p>No failures.</p>\n", f);
    size_t i;
    json_t *x;
    json_array_foreach(r->groups, i, x) {
        const json_t *gs = json_object_get(x, "groups");
        const char *fam = json_string_value(json_object_get(x, "family"));
        const char *ranks = json_string_value(json_object_get(x, "ranks"));
        long long total = json_integer_value(json_object_get(gs, "failingTests"));
        fputs("<div class=input><h3>", f);
        rp_esc(f, fam);
        fputs(" &mdash; ", f);
        rp_esc(f, json_string_value(json_object_get(x, "source")));
        if (ranks && strcmp(ranks, "-"))
            fprintf(f, ", ranks %s", ranks);
        fprintf(f, ": %lld failing test%s</h3>\n<h4 class=kind>By flag (a test can carry "
                "several)</h4>\n", total, total == 1 ? "" : "s");
        write_kind(f, json_object_get(gs, "byFlag"), total, fam, true);
        fputs("<details class=byfield><summary>By differing field</summary>\n", f);
        write_kind(f, json_object_get(gs, "byField"), total, fam, false);
        fputs("</details></div>\n", f);
    }
    fputs("</section>\n", f);
}

/* ---- NotSupported by reason ---- */

/* Most cases first; ties by family, source, reason, so the page's order is its inputs'. */
static int cmp_cases(const void *a, const void *b)
{
    const json_t *p = *(json_t *const *)a, *q = *(json_t *const *)b;
    json_int_t x = json_integer_value(json_object_get(p, "cases"));
    json_int_t y = json_integer_value(json_object_get(q, "cases"));
    if (x != y)
        return x > y ? -1 : 1;
    static const char *const keys[] = {"family", "source", "reason"};
    for (int k = 0; k < 3; k++) {
        int c = strcmp(json_string_value(json_object_get(p, keys[k])),
                       json_string_value(json_object_get(q, keys[k])));
        if (c)
            return c;
    }
    return 0;
}

void rp_write_notsupported(FILE *f, const rp *r)
{
    size_t n = json_object_size(r->ns), k = 0;
    fprintf(f, "<section id=notsupported><h2>NotSupported, by reason (%lld cases)</h2>\n", r->n[2]);
    if (!n) {
        fputs("<p>None.</p></section>\n", f);
        return;
    }
    json_t **v = calloc(n, sizeof *v), *x;
    const char *key;
    if (!v)
        return;
    json_object_foreach(r->ns, key, x)
        v[k++] = x;
    qsort(v, k, sizeof *v, cmp_cases);
    fputs("<table class=ns><tr><th>family</th><th>backend or candidate</th><th>ranks</th>"
          "<th>reason</th><th>cases</th></tr>\n", f);
    for (size_t i = 0; i < k; i++) {
        fputs("<tr><td>", f);
        rp_esc(f, json_string_value(json_object_get(v[i], "family")));
        fputs("</td><td>", f);
        rp_esc(f, json_string_value(json_object_get(v[i], "source")));
        fputs("</td><td>", f);
        const char *rk;
        json_t *t;
        int shown = 0;
        json_object_foreach(json_object_get(v[i], "ranks"), rk, t) {
            fputs(shown++ ? ", " : "", f);
            rp_esc(f, rk);
        }
        fputs("</td><td class=msg>", f);
        rp_esc(f, json_string_value(json_object_get(v[i], "reason")));
        fprintf(f, "</td><td class=num>%lld</td></tr>\n",
                (long long)json_integer_value(json_object_get(v[i], "cases")));
    }
    fputs("</table></section>\n", f);
    free(v);
}
