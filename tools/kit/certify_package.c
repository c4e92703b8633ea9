/*
 * certify_package.c — what a certify package states: counting a row's results, verdicts
 * (a row covering less than its family's claim is partial: certify_claim.c), and the
 * conformance statement (JSON, and the text rendered from it, which --check re-renders
 * and compares byte for byte: certify_check.c).  Tested by certify.sh and
 * certify_claims.sh.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "exit_codes.h"
#include "certify.h"
#include "torch_version.h"
#include "golden.h"
#include "report.h"
#include "oneline.h"

/* ---- counting ---- */

static void add_reason(json_t *reasons, const char *why)
{
    if (!why || !*why)
        why = "(no reason given)";
    if (!json_object_get(reasons, why) && json_object_size(reasons) >= CERT_MAX_REASONS)
        why = "(other reasons)";
    json_t *c = json_object_get(reasons, why);
    json_object_set_new(reasons, why, json_integer(c ? json_integer_value(c) + 1 : 1));
}

/* A waived case (and a waived case that passed: its note says so), listed with its reason. */
static void keep_waived(cert_row *r, const json_t *c, const char *st, const char *why)
{
    char name[96];
    const json_t *tc = json_object_get(c, "tcId");
    const char *cs = json_string_value(json_object_get(c, "case"));
    if (json_is_integer(tc))
        snprintf(name, sizeof name, "tc %lld", (long long)json_integer_value(tc));
    else
        snprintf(name, sizeof name, "%.90s", cs ? cs : "?");
    json_array_append_new(r->waivedcases, json_pack("{s:s, s:s, s:s}", "case", name, "status",
                                                    st, "detail", why ? why : ""));
}

static void count_status(cert_row *r, const json_t *c, const char *st, const char *why)
{
    const char *note = json_string_value(json_object_get(c, "note"));
    if (!strcmp(st, "Pass") && note && !strncmp(note, "waived (", 8))
        keep_waived(r, c, st, note);
    if (!strcmp(st, "Waived")) {
        r->waived++;
        keep_waived(r, c, st, why);
    } else if (!strcmp(st, "Pass"))
        r->passed++;
    else if (!strcmp(st, "NotSupported")) {
        r->notsupported++;
        add_reason(r->reasons, why);
    } else
        r->failed++;
}

/* verify names the fields a partial candidate left out on stderr (tools/verify/verify_tree.c). */
static void count_fields(const char *dir, cert_row *r)
{
    char path[4096], line[1024], field[256];
    long long n;
    cert_path(path, sizeof path, dir, r->log);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "verify: NotSupported field %255s (not declared by the candidate): "
                   "%lld tests", field, &n) == 2)
            json_object_set_new(r->fields, field, json_integer(n));
    fclose(f);
}

int cert_count(const char *dir, cert_row *r, shc_err *e)
{
    r->passed = r->failed = r->notsupported = r->waived = 0;
    json_decref(r->reasons);
    json_decref(r->fields);
    json_decref(r->waivedcases);
    r->waivedcases = json_array();
    r->reasons = json_object();
    r->fields = json_object();
    if (!r->results[0])
        return SHC_OK; /* not run: nothing to count */
    char path[4096];
    cert_path(path, sizeof path, dir, r->results);
    json_t *root = shc_json_load_path(path, e);
    if (!root)
        return shc_err_prefix(e, "results");
    json_t *list = json_object_get(root, "results"), *x;
    const char *key = "message";
    if (!json_is_array(list)) {
        list = json_object_get(root, "cases");
        key = "detail";
    }
    size_t i;
    int rc = json_is_array(list) ? SHC_OK
           : shc_fail(e, SHC_EFORMAT, "%s: neither run nor verify JSON", r->results);
    json_array_foreach(list, i, x) {
        const char *st = json_string_value(json_object_get(x, "status"));
        if (!st) {
            rc = shc_fail(e, SHC_EFORMAT, "%s: entry %zu has no \"status\"", r->results, i);
            break;
        }
        count_status(r, x, st, json_string_value(json_object_get(x, key)));
    }
    json_decref(root);
    if (!strcmp(r->mode, "verify"))
        count_fields(dir, r);
    return rc;
}

const char *cert_row_verdict(const cert_row *r)
{
    if (!r->results[0])
        return "notrun";
    if (r->failed)
        return "fail";
    if (!r->passed)
        return "notsupported";
    return cert_claim_partial(r) ? "partial" : "pass";
}

const char *cert_overall(const cert_row *rows, int n)
{
    bool fail = false, notrun = false, pass = false, partial = false;
    for (int i = 0; i < n; i++) {
        const char *v = cert_row_verdict(&rows[i]);
        fail |= !strcmp(v, "fail");
        notrun |= !strcmp(v, "notrun");
        partial |= !strcmp(v, "partial");
        pass |= !strcmp(v, "pass") || !strcmp(v, "partial");
    }
    return fail ? "nonconformant" : notrun || !pass ? "incomplete" : partial ? "partial"
                                                                             : "conformant";
}

int cert_verdict_exit(const char *v)
{
    return !strcmp(v, "conformant") ? EXIT_OK : !strcmp(v, "nonconformant") ? EXIT_FAIL
         : !strcmp(v, "partial") ? EXIT_PARTIAL : EXIT_SKIP;
}

/* ---- the statement ---- */

json_t *cert_row_json(const cert_row *r)
{
    json_t *o = json_pack("{s:s, s:s, s:s, s:i, s:I, s:I, s:I, s:s, s:s, s:s, s:s, s:i}",
                          "family", r->family, "mode", r->mode, "backend", r->backend, "np",
                          r->np, "passed", (json_int_t)r->passed, "failed",
                          (json_int_t)r->failed, "notSupported", (json_int_t)r->notsupported,
                          "verdict", cert_row_verdict(r), "results", r->results, "junit",
                          r->junit, "log", r->log, "exit", r->exit_code);
    json_object_set_new(o, "notSupportedReasons", r->reasons ? json_copy(r->reasons) : json_object());
    if (!strcmp(r->mode, "verify"))
        json_object_set_new(o, "notSupportedFields", r->fields ? json_copy(r->fields) : json_object());
    if (r->candidate[0])
        json_object_set_new(o, "candidate", json_string(r->candidate));
    if (json_array_size(r->waivedcases)) { /* only where waivers were in use */
        json_object_set_new(o, "waived", json_integer(r->waived));
        json_object_set_new(o, "waivedCases", json_deep_copy(r->waivedcases));
    }
    if (r->claim)
        json_object_set_new(o, "claim", json_deep_copy(r->claim));
    if (r->producer)
        json_object_set_new(o, "producer", json_deep_copy(r->producer));
    if (!r->results[0])
        json_object_set_new(o, "why", json_string(r->why));
    return o;
}

void cert_reference(shc_torch_release r, char *buf, size_t n)
{
    snprintf(buf, n, "pytorch %s, cuda 13.0 curand, random123 1.14",
             shc_torch_release_get(r)->patch);
}

json_t *cert_statement(const cert_row *rows, int n, const char *manifest_sha, const char *name,
                       const char *written, shc_torch_release torch, const char *waivers)
{
    json_t *a = json_array();
    char ref[160];
    cert_reference(torch, ref, sizeof ref);
    for (int i = 0; i < n; i++)
        json_array_append_new(a, cert_row_json(&rows[i]));
    json_t *st = json_pack("{s:s, s:i, s:s?, s:s, s:s, s:s, s:{s:s, s:s, s:s}, s:s, s:o, s:s}",
                           "statement", "shardcheck conformance statement", "formatVersion", 1,
                           "implementation", name, "shardcheck", shc_version(), "reference",
                           ref, "torch", shc_torch_release_name(torch), "corpus", "format",
                           "golden v1", "manifest", "golden-MANIFEST", "manifestSha256",
                           manifest_sha, "written", written, "rows", a, "verdict",
                           cert_overall(rows, n));
    if (st && waivers) /* only a package judged with waivers names them */
        json_object_set_new(st, "waivers", json_string(waivers));
    return st;
}

/* A statement's string as the text prints it: on one line, at most 500 bytes (oneline.h):
 * no string of the statement (a name, a reason, a path, "written" edited in statement.json)
 * can start a line, so the text never holds a verdict line but its own (issue 38 M4).  One
 * printf takes up to eight. */
static const char *sget(const json_t *o, const char *k)
{
    static char buf[8][504];
    static unsigned next;
    const char *s = json_string_value(json_object_get(o, k));
    return oneline_copy(buf[next++ % 8], sizeof buf[0], s ? s : "");
}

static long long iget(const json_t *o, const char *k)
{
    return (long long)json_integer_value(json_object_get(o, k));
}

static void text_rows(FILE *f, const json_t *rows)
{
    size_t i;
    json_t *r;
    fprintf(f, "%-20s %-7s %-22s %4s %9s %9s %9s  %s\n", "family", "mode", "backend", "np",
            "passed", "failed", "notsupp", "verdict");
    json_array_foreach(rows, i, r) {
        char np[16];
        snprintf(np, sizeof np, "%lld", iget(r, "np"));
        fprintf(f, "%-20s %-7s %-22s %4s %9lld %9lld %9lld  %s\n", sget(r, "family"),
                sget(r, "mode"), sget(r, "backend"), iget(r, "np") ? np : "all",
                iget(r, "passed"), iget(r, "failed"), iget(r, "notSupported"), sget(r, "verdict"));
    }
}

static void text_row_name(FILE *f, const json_t *r)
{
    fprintf(f, "%s (%s %s", sget(r, "family"), sget(r, "mode"), sget(r, "backend"));
    if (iget(r, "np"))
        fprintf(f, ", np %lld", iget(r, "np"));
    fputc(')', f);
}

/* A section's title, printed before its first row only, so a section with no rows is left
 * out of the statement rather than printed empty. */
static void section_title(FILE *f, bool *shown, const char *title)
{
    if (!*shown)
        fputs(title, f);
    *shown = true;
}

/* NotSupported cases with their reasons, fields a partial candidate left out, rows not run. */
static void text_notsupported(FILE *f, const json_t *rows)
{
    size_t i;
    json_t *r, *v;
    const char *k;
    bool head = false;
    json_array_foreach(rows, i, r) {
        json_t *reasons = json_object_get(r, "notSupportedReasons");
        json_t *fields = json_object_get(r, "notSupportedFields");
        bool notrun = !strcmp(sget(r, "verdict"), "notrun");
        if (!iget(r, "notSupported") && !json_object_size(fields) && !notrun)
            continue;
        section_title(f, &head, "\nNotSupported and not run:\n");
        fputs("  ", f);
        text_row_name(f, r);
        if (notrun) {
            fprintf(f, ": not run: %s\n", sget(r, "why"));
            continue;
        }
        fprintf(f, ": %lld cases NotSupported\n", iget(r, "notSupported"));
        char c[504];
        json_object_foreach(reasons, k, v)
            fprintf(f, "    %8lld  %s\n", (long long)json_integer_value(v),
                    oneline_copy(c, sizeof c, k));
        json_object_foreach(fields, k, v)
            fprintf(f, "    field %s not computed by the candidate (%lld tests)\n",
                    oneline_copy(c, sizeof c, k), (long long)json_integer_value(v));
    }
}

/* A vendor's text on one line, at most max bytes: a newline in a producer note must not
 * start a line of the statement (a forged "verdict: CONFORMANT:" line). */
static void put_clean(FILE *f, const char *pre, const char *s, size_t max)
{
    fputs(pre, f);
    oneline_put(f, s, max);
}

/* What each row covers of its family's claim (certify_claim.c), partial rows marked. */
static void text_claims(FILE *f, const json_t *rows)
{
    size_t i;
    json_t *r;
    bool head = false;
    json_array_foreach(rows, i, r) {
        const json_t *c = json_object_get(r, "claim");
        if (!c)
            continue;
        char buf[1400];
        cert_claim_text(c, buf, sizeof buf);
        section_title(f, &head, "\nWhat each row covers of its family's claim "
                      "(docs/families):\n");
        fputs(!strcmp(sget(r, "verdict"), "partial") ? "  PARTIAL " : "  ", f);
        text_row_name(f, r);
        put_clean(f, ": ", buf, sizeof buf);
        fputc('\n', f);
    }
}

/* The producer record's strings (tool, adapter, Python, versions, command, note). */
static void text_producer(FILE *f, const json_t *p)
{
    size_t k;
    json_t *v;
    const char *name;
    put_clean(f, "", *sget(p, "tool") ? sget(p, "tool") : "(tool not named)", 200);
    if (*sget(p, "adapter"))
        put_clean(f, ", adapter ", sget(p, "adapter"), 200);
    if (*sget(p, "python"))
        put_clean(f, ", python ", sget(p, "python"), 64);
    json_object_foreach(json_object_get(p, "versions"), name, v) {
        put_clean(f, ", ", name, 64);
        put_clean(f, " ", json_string_value(v) ? json_string_value(v) : "?", 64);
    }
    if (json_array_size(json_object_get(p, "command")))
        fputs("; command:", f);
    json_array_foreach(json_object_get(p, "command"), k, v)
        put_clean(f, " ", json_string_value(v) ? json_string_value(v) : "?", 200);
    if (*sget(p, "note"))
        put_clean(f, "; note: ", sget(p, "note"), 500);
}

/* Each waived case with its reason (certify --waivers): known deviations, never passes,
 * never hidden; and each waived case that passed (its waiver may be stale). */
static void text_waived(FILE *f, const json_t *st)
{
    const json_t *rows = json_object_get(st, "rows"), *r, *c;
    size_t i, k;
    if (!*sget(st, "waivers"))
        return;
    long long n = 0;
    json_array_foreach(rows, i, r)
        n += iget(r, "waived");
    put_clean(f, "\nWaived (known deviations in ", sget(st, "waivers"), 200);
    fprintf(f, ": %lld case%s; counted neither passed nor failed):\n", n, n == 1 ? "" : "s");
    json_array_foreach(rows, i, r)
        json_array_foreach(json_object_get(r, "waivedCases"), k, c) {
            fputs("  ", f);
            text_row_name(f, r);
            put_clean(f, " ", sget(c, "case"), 90);
            put_clean(f, ": ", sget(c, "status"), 20);
            put_clean(f, ": ", sget(c, "detail"), 400);
            fputc('\n', f);
        }
}

/* How each candidate was produced: its results file's "producer" record. */
static void text_producers(FILE *f, const json_t *rows)
{
    size_t i;
    json_t *r;
    bool head = false;
    json_array_foreach(rows, i, r) {
        const json_t *p = json_object_get(r, "producer");
        bool run = !strcmp(sget(r, "mode"), "run");
        if (run && !p) /* a run of our own backends: its name says it */
            continue;
        section_title(f, &head, "\nHow each row was produced (a candidate's \"producer\" "
                      "record; a plugin's name and file):\n");
        if (run)
            fprintf(f, "  %s (run %s, np %lld): ", sget(r, "family"), sget(r, "backend"),
                    iget(r, "np"));
        else
            fprintf(f, "  %s (%s): ", sget(r, "family"), sget(r, "candidate"));
        if (p)
            text_producer(f, p);
        else
            fputs("not recorded", f);
        fputc('\n', f);
    }
}

/* The verdict line (--check of another version's text looks for "verdict: WORD:"). */
static void text_verdict(FILE *f, const json_t *rows, const char *v)
{
    const char *want = !strcmp(v, "partial") ? "partial" : "fail";
    if (!strcmp(v, "conformant")) {
        fputs("\nverdict: CONFORMANT: every claimed family passed at every claimed rank count, "
              "covering every field and test its claim requires there (NotSupported cases of "
              "optional tests, if any, are listed above)\n", f);
        return;
    }
    if (!strcmp(v, "incomplete")) {
        fputs("\nverdict: INCOMPLETE: nothing failed, but a claimed family did not run or ran "
              "no case\n", f);
        return;
    }
    fputs(!strcmp(v, "partial") ? "\nverdict: PARTIAL: nothing failed, but the claim covers "
          "less than its families require:" : "\nverdict: NONCONFORMANT: failures in", f);
    size_t i;
    json_t *r;
    const char *sep = " ";
    json_array_foreach(rows, i, r) {
        if (strcmp(sget(r, "verdict"), want))
            continue;
        fputs(sep, f);
        text_row_name(f, r);
        if (*want == 'p') {
            char buf[1400];
            cert_claim_text(json_object_get(r, "claim"), buf, sizeof buf);
            put_clean(f, ": ", buf, sizeof buf);
            sep = "; ";
        }
    }
    fputc('\n', f);
}

void cert_statement_text(FILE *f, const json_t *st)
{
    const json_t *corpus = json_object_get(st, "corpus"), *rows = json_object_get(st, "rows");
    const char *name = sget(st, "implementation");
    fprintf(f, "shardcheck conformance statement\n\nimplementation  %s\nshardcheck      %s "
            "(reference: %s)\n", *name ? name : "(not named: certify --name)",
            sget(st, "shardcheck"), sget(st, "reference"));
    if (*sget(st, "torch"))
        fprintf(f, "judged against  torch %s (each case's answer for that release)\n",
                sget(st, "torch"));
    fprintf(f, "corpus          %s, MANIFEST sha256 %s (%s)\nwritten         %s\n\n",
            sget(corpus, "format"), sget(corpus, "manifestSha256"), sget(corpus, "manifest"),
            sget(st, "written"));
    text_rows(f, rows);
    text_notsupported(f, rows);
    text_claims(f, rows);
    text_producers(f, rows);
    text_waived(f, st);
    text_verdict(f, rows, sget(st, "verdict"));
}
