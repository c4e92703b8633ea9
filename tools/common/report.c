/*
 * report.c — see report.h.  Text and TAP lines are printed as cases finish (a long
 * run shows progress), except text failures under group_failures, printed after the groups
 * they lead with (max_fail_lines of them, the rest counted); JUnit and JSON need the counts
 * first, so their cases are kept and written at the end.  JUnit follows the common Ant/Jenkins
 * schema (testsuites / testsuite with counts / testcase with failure, error or skipped; a
 * golden case is named "tc N" in its family's suite, stable when comments change); XML text is
 * escaped.  JSON: the caller's head members, the counts, and "cases": [{"case" or "family",
 * "tcId", "comment", "status", "detail"[, "seconds"][, "failure"][, "views"]}] (cmd_report.c
 * reads it back; "failure" and a top-level "groups" come from report_groups.c).
 */
#include "config.h"
#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"
#include "oneline.h"

static const char *const names[] = {"Pass", "Fail", "NotSupported", "Crash", "Timeout",
                                    "InternalError", "Waived"};
_Static_assert(sizeof names / sizeof names[0] == ST_NSTATUS, "one name per report_status");

const char *report_status_name(report_status st)
{
    assert((unsigned)st < ST_NSTATUS);
    return names[st];
}

int report_open(report *r, const report_opts *o)
{
    memset(r, 0, sizeof *r);
    r->o = *o;
    if (o->fmt == REP_JSON || o->junit_path)
        r->cases = json_array();
    if (o->group_failures)
        r->fails = json_array();
    /* written whole or not at all (outfile.h): a full disk leaves no empty JUnit file */
    if (o->junit_path && !(r->junit = out_open(&r->jout, o->junit_path))) {
        json_decref(r->cases);
        json_decref(r->o.head);
        json_decref(r->fails);
        r->cases = r->o.head = r->fails = NULL;
        return -1;
    }
    return 0;
}

static bool is_bad(report_status st)
{
    return st != ST_PASS && st != ST_NOTSUPPORTED && st != ST_WAIVED;
}

/* A Pass with a detail carries a note (a GpuOnly value within its tolerance, golden_compare.c):
 * printed in text and TAP, "note" in JSON, <system-out> in JUnit; it never changes a count. */
static bool has_note(const report_item *it) { return it->st == ST_PASS && it->detail; }


/* "tcId 12 rank 1" (verify) or "shard-layout tc 12 (mesh 2, S(0))" (run; "curand-stream tc 1"
 * for a case whose comment is empty). */
static void label(const report_item *it, char *buf, size_t n)
{
    if (it->tcid >= 0 && it->name && *it->name)
        snprintf(buf, n, "%s tc %lld (%s)", it->family ? it->family : "", it->tcid, it->name);
    else if (it->tcid >= 0) /* an empty description: no "()" (issue 38 D7) */
        snprintf(buf, n, "%s tc %lld", it->family ? it->family : "", it->tcid);
    else
        snprintf(buf, n, "%s", it->name ? it->name : "");
}

/* TAP: a failing case's flags and inputs as the golden test has them (report_case_inputs). */
static void tap_case_inputs(const report_item *it)
{
    json_t *in = report_case_inputs(it->group, it->test);
    char *fl = json_dumps(json_object_get(it->test, "flags"), JSON_COMPACT | JSON_ENCODE_ANY);
    char *is = json_dumps(in, JSON_COMPACT);
    printf("#   flags: %s\n#   inputs: %s\n", fl ? fl : "[]", is ? is : "{}");
    free(fl);
    free(is);
    json_decref(in);
}

/* Whether a text report prints a line for the case (a pass only when verbose or noted). */
static bool text_line(const report *r, const report_item *it)
{
    return r->o.fmt == REP_TEXT && (is_bad(it->st) || it->st == ST_WAIVED || r->o.verbose ||
                                    has_note(it));
}

/* One case's line: the label and the detail come from inputs (a candidate's reason, a
 * golden comment), so they go through oneline.h. */
static void print_line(const report *r, const report_item *it)
{
    if (r->o.fmt != REP_TAP && !text_line(r, it))
        return; /* nothing to print: no label made (once per case, most of them passes) */
    char lab[512];
    label(it, lab, sizeof lab);
    oneline_copy(lab, sizeof lab, lab);
    const char *d = it->detail;
    if (r->o.fmt == REP_TAP) {
        if (it->st == ST_NOTSUPPORTED)
            printf("ok %lld - %s # SKIP NotSupported%s", r->seq, lab, d ? ": " : "");
        else if (it->st == ST_WAIVED) /* TAP's own word for a known failure */
            printf("not ok %lld - %s # TODO %s", r->seq, lab, d ? "" : "waived");
        else
            printf("%s %lld - %s%s%s%s\n", is_bad(it->st) ? "not ok" : "ok", r->seq, lab,
                   is_bad(it->st) ? " [" : "", is_bad(it->st) ? names[it->st] : "",
                   is_bad(it->st) ? "]" : "");
        if (d && it->st != ST_NOTSUPPORTED && it->st != ST_WAIVED) /* a reason, or a note */
            fputs("#   ", stdout);
        oneline_put(stdout, d, REPORT_LINE_MAX);
        if (d || it->st == ST_NOTSUPPORTED || it->st == ST_WAIVED)
            putchar('\n');
        if (it->test && is_bad(it->st))
            tap_case_inputs(it);
    } else {
        if (r->fails && is_bad(it->st))
            return; /* kept: printed after the groups (report_close) */
        printf("%-13s %s%s", names[it->st], lab, d ? ": " : "");
        oneline_put(stdout, d, REPORT_LINE_MAX);
        putchar('\n');
    }
}

/* The case's test and rank: run gives the tcId; verify names its cases "tcId N" or
 * "tcId N rank R" (verify_case_name).  -1 for none. */
static long long item_test(const report_item *it, long long *rank)
{
    long long tc = it->tcid;
    *rank = -1;
    if (tc < 0 && it->name && sscanf(it->name, "tcId %lld rank %lld", &tc, rank) < 1)
        tc = -1;
    return tc;
}

/* A failure kept for the groups: its test, family and rank, and the text line it would have
 * printed.  run names the failing rank first in its detail ("rank 1: localShape: ..."):
 * that is the rank, and the rest is the detail whose fields the groups count, as verify's. */
static void keep_failure(report *r, const report_item *it)
{
    long long rank, tc = item_test(it, &rank);
    char lab[512], line[1200];
    label(it, lab, sizeof lab);
    int w = snprintf(line, sizeof line, "%-13s %s%s%s", names[it->st], lab,
                     it->detail ? ": " : "", it->detail ? it->detail : "");
    if (w > 0) /* a long detail is cut: the JSON keeps it whole */
        oneline_copy(line, sizeof line, line); /* printed as one line (print_line) */
    const char *d = it->detail ? it->detail : "";
    int used = 0;
    long long rr;
    if (rank < 0 && sscanf(d, "rank %lld: %n", &rr, &used) == 1 && used > 0)
        rank = rr, d += used;
    json_t *f = json_pack("{s:I,s:I,s:s,s:s,s:I,s:s}", "tcId", (json_int_t)tc, "rank",
                          (json_int_t)rank, "status", names[it->st], "detail", d, "at",
                          (json_int_t)(r->cases ? (long long)json_array_size(r->cases) : -1),
                          "line", line);
    if (f && it->family)
        json_object_set_new(f, "family", json_string(it->family));
    json_array_append_new(r->fails, f);
}

static void count_suite(report *r, const char *name, report_status st)
{
    if (!r->nsuites || strcmp(r->suites[r->nsuites - 1].name, name)) {
        if (r->nsuites == r->cap) {
            size_t cap = r->cap ? 2 * r->cap : 16;
            report_suite *s = realloc(r->suites, cap * sizeof *s);
            if (!s)
                return; /* totals per family are a convenience; the summary stays exact */
            r->suites = s;
            r->cap = cap;
        }
        memset(&r->suites[r->nsuites], 0, sizeof r->suites[0]);
        r->suites[r->nsuites++].name = name;
    }
    r->suites[r->nsuites - 1].n[st]++;
}

static json_t *case_json(const report_item *it)
{
    json_t *c = json_object();
    if (it->family)
        json_object_set_new(c, "family", json_string(it->family));
    if (it->tcid >= 0) {
        json_object_set_new(c, "tcId", json_integer(it->tcid));
        json_object_set_new(c, "comment", json_string(it->name ? it->name : ""));
    } else {
        json_object_set_new(c, "case", json_string(it->name ? it->name : ""));
    }
    json_object_set_new(c, "status", json_string(names[it->st]));
    json_object_set_new(c, "detail", it->detail && !has_note(it) ? json_string(it->detail)
                                                                 : json_null());
    if (has_note(it))
        json_object_set_new(c, "note", json_string(it->detail));
    if (it->seconds >= 0)
        json_object_set_new(c, "seconds", json_real(it->seconds));
    if (it->views && is_bad(it->st)) /* what the backend answered, for explain --candidate */
        json_object_set(c, "views", (json_t *)it->views);
    return c;
}

/* A waived case: a failure becomes Waived with the reason before the detail; a pass says
 * the deviation it was waived for did not show (a note: counted as a pass).  it unchanged
 * when no waiver names the case. */
static report_item waive(report *r, const report_item *it, char *buf, size_t n)
{
    long long rank;
    const char *why = r->o.waive && (it->st == ST_PASS || is_bad(it->st))
                      ? r->o.waive(r->o.waive_ctx, it->family ? it->family : r->o.suite,
                                   item_test(it, &rank), names[it->st],
                                   it->st == ST_PASS ? NULL : it->detail)
                      : NULL;
    if (!why)
        return *it;
    report_item w = *it;
    if (it->st == ST_PASS) {
        r->waived_passed++;
        snprintf(buf, n, "waived (%s), but passed: the deviation may be fixed, and the "
                 "waiver stale", why);
    } else {
        snprintf(buf, n, "waived: %s; %s: %s", why, names[it->st],
                 it->detail ? it->detail : "");
        w.st = ST_WAIVED;
    }
    w.detail = buf;
    return w;
}

void report_add(report *r, const report_item *given)
{
    long long rank;
    if (r->o.keep && !r->o.keep(r->o.keep_ctx, item_test(given, &rank), given->st,
                                given->detail))
        return;
    char why[1600];
    report_item w = waive(r, given, why, sizeof why);
    const report_item *it = &w;
    r->n[it->st]++;
    r->seq++;
    if (r->bar) {
        progress_add(r->bar, 1);
        if (r->o.fmt == REP_TAP ||
            (r->o.fmt == REP_TEXT && ((is_bad(it->st) && !r->fails) || r->o.verbose)))
            progress_hide(); /* a result line is coming: keep it off the bar's line */
    }
    if (it->family)
        count_suite(r, it->family, it->st);
    if (r->fails && is_bad(it->st))
        keep_failure(r, it); /* before the case is appended: "at" is its index */
    print_line(r, it);
    if (r->cases)
        json_array_append_new(r->cases, case_json(it));
}

void report_case(report *r, const char *name, report_status st, const char *detail)
{
    report_item it = {.tcid = -1, .name = name, .st = st, .detail = detail, .seconds = -1};
    report_add(r, &it);
}

void report_xml_escape(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

static const char *jstr(const json_t *c, const char *k)
{
    return json_string_value(json_object_get(c, k));
}

static report_status status_of(const json_t *c)
{
    const char *s = jstr(c, "status");
    for (int k = 0; k < ST_NSTATUS; k++)
        if (s && !strcmp(s, names[k]))
            return (report_status)k;
    return ST_INTERNAL;
}

static void junit_case(FILE *f, const char *suite, const json_t *c)
{
    report_status st = status_of(c);
    fprintf(f, "    <testcase classname=\"");
    report_xml_escape(f, suite);
    fputs("\" name=\"", f);
    if (json_object_get(c, "tcId")) { /* stable: family (classname) and tcId, not the comment */
        fprintf(f, "tc %lld", (long long)json_integer_value(json_object_get(c, "tcId")));
    } else {
        report_xml_escape(f, jstr(c, "case"));
    }
    fputc('"', f);
    if (json_object_get(c, "seconds"))
        fprintf(f, " time=\"%.3f\"", json_real_value(json_object_get(c, "seconds")));
    const char *note = st == ST_PASS ? jstr(c, "note") : NULL;
    if (note) { /* passed, with a note said beside it */
        fputs(">\n      <system-out>", f);
        report_xml_escape(f, note);
        fputs("</system-out>\n    </testcase>\n", f);
        return;
    }
    if (st == ST_PASS) {
        fputs("/>\n", f);
        return;
    }
    const char *tag = st == ST_NOTSUPPORTED || st == ST_WAIVED ? "skipped"
                      : st == ST_FAIL ? "failure" : "error";
    fprintf(f, ">\n      <%s message=\"%s\">", tag, names[st]);
    report_xml_escape(f, jstr(c, "detail"));
    if (jstr(c, "comment") && *jstr(c, "comment")) { /* the golden comment, out of the name */
        fputs("\ncomment: ", f);
        report_xml_escape(f, jstr(c, "comment"));
    }
    const json_t *fl = json_object_get(c, "failure"); /* report_groups.c: where it comes from */
    json_t *flags = json_object_get(fl, "flags"), *inputs = json_object_get(fl, "inputs");
    if (jstr(fl, "file")) {
        char *fs = json_dumps(flags, JSON_COMPACT), *in = json_dumps(inputs, JSON_COMPACT);
        fputs("\nfile: ", f);
        report_xml_escape(f, jstr(fl, "file"));
        fputs("\nflags: ", f);
        report_xml_escape(f, fs ? fs : "[]");
        fputs("\ninputs: ", f);
        report_xml_escape(f, in ? in : "{}");
        free(fs);
        free(in);
    }
    fprintf(f, "</%s>\n    </testcase>\n", tag);
}

/* One <testsuite> per run of consecutive cases of the same family (suite: the family of a
 * case that names none); torch and subject (NULL: none) as properties. */
static void junit_doc(FILE *f, const json_t *cases, const char *dflt, const char *torch,
                      const char *subject)
{
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"shardcheck\">\n");
    size_t n = json_array_size(cases);
    for (size_t i = 0; i < n;) {
        const char *suite = jstr(json_array_get(cases, i), "family");
        suite = suite ? suite : dflt;
        long long cnt[ST_NSTATUS] = {0};
        size_t j = i;
        for (; j < n; j++) {
            const char *s = jstr(json_array_get(cases, j), "family");
            if (strcmp(s ? s : dflt, suite))
                break;
            cnt[status_of(json_array_get(cases, j))]++;
        }
        fputs("  <testsuite name=\"", f);
        report_xml_escape(f, suite);
        fprintf(f, "\" tests=\"%zu\" failures=\"%lld\" errors=\"%lld\" skipped=\"%lld\">\n", j - i,
                cnt[ST_FAIL], cnt[ST_CRASH] + cnt[ST_TIMEOUT] + cnt[ST_INTERNAL],
                cnt[ST_NOTSUPPORTED] + cnt[ST_WAIVED]);
        if (torch || subject) /* the release judged against, the implementation */
            fputs("    <properties>", f);
        if (torch) {
            fputs("<property name=\"torch\" value=\"", f);
            report_xml_escape(f, torch);
            fputs("\"/>", f);
        }
        if (subject) {
            fputs("<property name=\"implementation\" value=\"", f);
            report_xml_escape(f, subject);
            fputs("\"/>", f);
        }
        if (torch || subject)
            fputs("</properties>\n", f);
        for (; i < j; i++)
            junit_case(f, suite, json_array_get(cases, i));
        fputs("  </testsuite>\n", f);
    }
    fputs("</testsuites>\n", f);
}

static void write_junit(report *r)
{
    junit_doc(r->junit, r->cases, r->o.suite, r->o.torch, r->o.subject);
}

void report_junit_of(FILE *f, const json_t *results)
{
    const char *suite = jstr(results, "suite");
    junit_doc(f, json_object_get(results, "cases"), suite ? suite : "shardcheck",
              jstr(results, "torch"), jstr(results, "implementation"));
}

static long long n_failed(const report *r)
{
    return r->n[ST_FAIL] + r->n[ST_CRASH] + r->n[ST_TIMEOUT] + r->n[ST_INTERNAL];
}

/* Streamed: the cases of a large family do not fit a second copy as text. */
static int write_json(report *r)
{
    json_t *o = r->o.head ? r->o.head : json_object();
    r->o.head = NULL;
    if (r->o.torch && !json_object_get(o, "torch"))
        json_object_set_new(o, "torch", json_string(r->o.torch));
    if (r->o.subject && !json_object_get(o, "implementation")) /* report_junit_of reads it */
        json_object_set_new(o, "implementation", json_string(r->o.subject));
    json_object_set_new(o, "passed", json_integer(r->n[ST_PASS]));
    json_object_set_new(o, "failed", json_integer(n_failed(r)));
    json_object_set_new(o, "skipped", json_integer(r->n[ST_NOTSUPPORTED]));
    if (r->o.waive) {
        json_object_set_new(o, "waived", json_integer(r->n[ST_WAIVED]));
        json_object_set_new(o, "waivedPassed", json_integer(r->waived_passed));
    }
    json_object_set_new(o, "crash", json_integer(r->n[ST_CRASH]));
    json_object_set_new(o, "timeout", json_integer(r->n[ST_TIMEOUT]));
    json_object_set_new(o, "internal_error", json_integer(r->n[ST_INTERNAL]));
    if (r->groups)
        json_object_set(o, "groups", r->groups);
    json_object_set(o, "cases", r->cases);
    errno = 0;
    int bad = json_dumpf(o, stdout, JSON_COMPACT) || putchar('\n') == EOF || fflush(stdout);
    json_decref(o);
    return bad ? -1 : 0;
}

/* Text: the failures kept for the groups, after them.  Fail lines (what the groups explain) at
 * most max_fail_lines unless --verbose, then how many more there are and where they all are;
 * a Crash, Timeout or InternalError line is an event of the run itself: every one is listed. */
static void print_kept_failures(const report *r)
{
    size_t n = json_array_size(r->fails);
    long long fails = 0, hidden = 0;
    bool bound = r->o.max_fail_lines > 0 && !r->o.verbose;
    for (size_t i = 0; i < n; i++) {
        const json_t *f = json_array_get(r->fails, i);
        bool is_fail = !strcmp(jstr(f, "status"), names[ST_FAIL]);
        if (is_fail && bound && ++fails > r->o.max_fail_lines)
            hidden++;
        else
            printf("%s\n", jstr(f, "line"));
    }
    if (hidden)
        printf("(%lld more Fail lines not listed: --verbose lists every one, as --json, --tap and "
               "--junit do)\n", hidden);
}

static void print_suite_totals(const report *r)
{
    for (size_t i = 0; i < r->nsuites; i++) {
        const long long *c = r->suites[i].n;
        long long all = 0;
        for (int k = 0; k < ST_NSTATUS; k++)
            all += c[k];
        printf("%-20s %5lld cases: %lld passed, %lld failed, %lld crashed, %lld timed out, "
               "%lld not supported, %lld internal errors\n", r->suites[i].name, all, c[ST_PASS],
               c[ST_FAIL], c[ST_CRASH], c[ST_TIMEOUT], c[ST_NOTSUPPORTED], c[ST_INTERNAL]);
        if (c[ST_WAIVED])
            printf("%-20s %5lld waived (known deviations: not failures, not passes)\n", "",
                   c[ST_WAIVED]);
    }
}

static int close_junit(report *r)
{
    if (!r->junit)
        return 0;
    write_junit(r);
    bool bad = out_commit(&r->jout) != 0;
    r->junit = NULL;
    if (bad)
        fprintf(stderr, "shardcheck %s: --junit %s: write failed (%s): no JUnit file was "
                "written\n", r->o.cmd, r->o.junit_path, strerror(errno));
    return bad ? -1 : 0;
}

void report_abandon(report *r)
{
    if (r->junit)
        out_discard(&r->jout);
    json_decref(r->cases);
    json_decref(r->o.head);
    json_decref(r->fails);
    json_decref(r->groups);
    free(r->suites);
    memset(r, 0, sizeof *r);
}

/* What the summary line stands on, before it on stdout: the waivers' notes, the torch
 * release judged against and the implementation named; TAP's (pre "# ") and the text
 * report's (pre "") say the same, as TAP comments there. */
static void print_context(const report *r, const char *pre)
{
    if (r->o.waive_notes)
        r->o.waive_notes(r->o.waive_ctx, stdout, pre);
    if (r->o.torch)
        printf("%sjudged against torch %s (%s)\n", pre, r->o.torch,
               r->o.torch_why ? r->o.torch_why : "");
    if (r->o.subject)
        printf("%simplementation: %s\n", pre, r->o.subject);
}

int report_close(report *r)
{
    long long passed = r->n[ST_PASS], skipped = r->n[ST_NOTSUPPORTED], failed = n_failed(r);
    char line[200];
    int w = snprintf(line, sizeof line, "%lld passed, %lld failed, %lld skipped", passed, failed,
                     skipped);
    if (r->o.waive && w > 0 && (size_t)w < sizeof line) /* only where waivers are in use */
        snprintf(line + w, sizeof line - (size_t)w, ", %lld waived%s", r->n[ST_WAIVED],
                 r->waived_passed ? " (some waived cases passed: see above)" : "");
    bool lost = false;
    if (r->o.fmt == REP_JSON) {
        if (write_json(r)) {
            fprintf(stderr, "shardcheck %s: cannot write the JSON output: %s\n", r->o.cmd,
                    errno ? strerror(errno) : "out of memory");
            lost = true;
        }
        if (r->o.waive_notes)
            r->o.waive_notes(r->o.waive_ctx, stderr, "");
        fprintf(stderr, "%s\n", line);
    } else if (r->o.fmt == REP_TAP) {
        if (r->groups)
            report_print_groups(r, "# ");
        print_context(r, "# ");
        printf("1..%lld\n# %s\n", r->seq, line);
    } else {
        if (r->groups)
            report_print_groups(r, "");
        print_kept_failures(r);
        print_suite_totals(r);
        print_context(r, "");
        printf("%s\n", line);
    }
    lost |= close_junit(r) != 0;
    if (!lost && (fflush(stdout) || ferror(stdout))) {
        fprintf(stderr, "shardcheck %s: cannot write standard output: the report is incomplete\n",
                r->o.cmd);
        lost = true;
    }
    json_decref(r->cases);
    json_decref(r->o.head);
    json_decref(r->fails);
    json_decref(r->groups);
    free(r->suites);
    r->fails = r->groups = NULL;
    r->cases = r->o.head = NULL;
    r->suites = NULL;
    if (lost)
        return 2;
    return r->n[ST_INTERNAL] ? 99 : failed ? 1 : passed ? 0 : 77;
}
