/*
 * report.h — case-by-case reporting shared by `verify` and `run`:
 * text (failures in full, passes with --verbose), TAP, JUnit XML, JSON.
 * Every format ends with the plain line "N passed, N failed[, N skipped]"
 * on stdout (TAP puts it in a comment), so CI and humans read the same total.
 */
#ifndef SHC_REPORT_H
#define SHC_REPORT_H
#include <stdio.h>
#include <jansson.h>

typedef enum { REP_TEXT, REP_TAP, REP_JSON } report_format;

/* Statuses of docs/DESIGN.md (verify uses Pass and Fail only, plus Missing as Fail). */
typedef enum { ST_PASS, ST_FAIL, ST_NOTSUPPORTED, ST_CRASH, ST_TIMEOUT, ST_INTERNAL } report_status;

typedef struct report {
    report_format fmt;
    int verbose;
    FILE *junit;          /* NULL unless --junit FILE */
    const char *junit_path;
    const char *suite;
    long long n[6];       /* count per status */
    long long seq;        /* TAP numbering */
    json_t *cases;        /* REP_JSON: collected */
} report;

/* Open a report; junit_path may be NULL. Returns 0, or -1 if the JUnit file cannot be written. */
int report_open(report *r, report_format fmt, const char *junit_path, const char *suite, int verbose);
/* Record one case: name ("tcId 12"), status, detail (NULL for none).  A Pass with a
 * detail is a note (a GpuOnly value within its tolerance): printed in text and TAP,
 * "note" in JSON, <system-out> in JUnit; it never changes the counts. */
void report_case(report *r, const char *name, report_status st, const char *detail);
/* Print the summary line, close files; returns the exit code (0 all passed or skipped, 1 otherwise,
 * 2 after a message when the JUnit file or the JSON report could not be written). */
int report_close(report *r);
/* Status name as docs/DESIGN.md spells it. */
const char *report_status_name(report_status st);
#endif
