/*
 * report.c — see report.h.  JUnit output follows the common Ant/Jenkins
 * schema (testsuite/testcase/failure/skipped); XML text is escaped.
 */
#include "config.h"
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"

static const char *const names[] = {"Pass", "Fail", "NotSupported", "Crash", "Timeout",
                                    "InternalError"};

const char *report_status_name(report_status st) { return names[st]; }

int report_open(report *r, report_format fmt, const char *junit_path, const char *suite, int verbose)
{
    memset(r, 0, sizeof *r);
    r->fmt = fmt;
    r->suite = suite;
    r->verbose = verbose;
    r->junit_path = junit_path;
    if (fmt == REP_JSON)
        r->cases = json_array();
    if (junit_path) {
        r->junit = fopen(junit_path, "w");
        if (!r->junit)
            return -1;
        fprintf(r->junit, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"%s\">\n",
                suite);
    }
    return 0;
}

static void xml_escape(FILE *f, const char *s)
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

void report_case(report *r, const char *name, report_status st, const char *detail)
{
    r->n[st]++;
    r->seq++;
    bool bad = st != ST_PASS && st != ST_NOTSUPPORTED;
    switch (r->fmt) {
    case REP_TAP:
        if (st == ST_NOTSUPPORTED)
            printf("ok %lld - %s # SKIP %s\n", r->seq, name, detail ? detail : "not supported");
        else
            printf("%s %lld - %s%s%s%s\n", bad ? "not ok" : "ok", r->seq, name, bad ? " [" : "",
                   bad ? names[st] : "", bad ? "]" : "");
        if (detail) /* a failure's reason, or a pass's note */
            printf("#   %s\n", detail);
        break;
    case REP_JSON: { /* a pass's detail is a note (GpuOnly within tolerance) */
        json_t *c = json_pack("{s:s, s:s, s:s?}", "case", name, "status", names[st], "detail",
                              st == ST_PASS ? NULL : detail);
        if (st == ST_PASS && detail)
            json_object_set_new(c, "note", json_string(detail));
        json_array_append_new(r->cases, c);
        break;
    }
    default:
        if (bad || r->verbose || st == ST_NOTSUPPORTED || detail)
            printf("%-13s %s%s%s\n", names[st], name, detail ? ": " : "", detail ? detail : "");
    }
    if (r->junit) {
        fprintf(r->junit, "  <testcase classname=\"%s\" name=\"", r->suite);
        xml_escape(r->junit, name);
        if (st == ST_PASS && detail) { /* a note: passed, said beside it */
            fputs("\">\n    <system-out>", r->junit);
            xml_escape(r->junit, detail);
            fputs("</system-out>\n  </testcase>\n", r->junit);
        } else if (st == ST_PASS) {
            fputs("\"/>\n", r->junit);
        } else {
            fprintf(r->junit, "\">\n    <%s message=\"%s\">", bad ? "failure" : "skipped", names[st]);
            xml_escape(r->junit, detail);
            fprintf(r->junit, "</%s>\n  </testcase>\n", bad ? "failure" : "skipped");
        }
    }
}

int report_close(report *r)
{
    long long passed = r->n[ST_PASS], skipped = r->n[ST_NOTSUPPORTED];
    long long failed = r->n[ST_FAIL] + r->n[ST_CRASH] + r->n[ST_TIMEOUT] + r->n[ST_INTERNAL];
    char line[200];
    const char *lost = NULL;
    if (skipped)
        snprintf(line, sizeof line, "%lld passed, %lld failed, %lld skipped", passed, failed, skipped);
    else
        snprintf(line, sizeof line, "%lld passed, %lld failed", passed, failed);
    if (r->fmt == REP_JSON) {
        json_t *o = json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:o}", "suite", r->suite,
                              "passed", passed, "failed", r->n[ST_FAIL], "not_supported", skipped,
                              "crash", r->n[ST_CRASH], "timeout", r->n[ST_TIMEOUT], "internal_error",
                              r->n[ST_INTERNAL], "cases", r->cases);
        /* streamed: the cases of a large family do not fit a second copy as text */
        if (json_dumpf(o, stdout, JSON_COMPACT) || putchar('\n') == EOF)
            lost = "the JSON report";
        json_decref(o);
        r->cases = NULL;
        fprintf(stderr, "%s\n", line);
    } else if (r->fmt == REP_TAP) {
        printf("1..%lld\n# %s\n", r->seq, line);
    } else {
        printf("%s\n", line);
    }
    if (r->junit) {
        fputs("</testsuite>\n", r->junit);
        bool bad = ferror(r->junit) != 0;
        if (fclose(r->junit) || bad)
            lost = "the JUnit file";
        r->junit = NULL;
    }
    if (fflush(stdout) || ferror(stdout))
        lost = lost ? lost : "standard output";
    if (lost) {
        fprintf(stderr, "shardcheck %s: cannot write %s%s%s: the report is incomplete\n",
                r->suite, lost, r->junit_path && !strcmp(lost, "the JUnit file") ? " " : "",
                r->junit_path && !strcmp(lost, "the JUnit file") ? r->junit_path : "");
        return 2;
    }
    return failed ? 1 : 0;
}
