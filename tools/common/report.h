/*
 * report.h — the one case-by-case reporter of the CLI, used by `verify` and `run`:
 * text (what did not pass; every case with --verbose; per-family totals when the cases
 * carry a family), TAP, JUnit XML, JSON.  Every format ends with the plain line
 * "N passed, N failed, N skipped" on stdout (TAP puts it in a comment, JSON on stderr),
 * so CI and humans read the same total.  Tested through verify_candidate.sh,
 * verify_partial.sh, run_mpi.sh, run_faults.sh, hardening.sh and report_html.sh (which
 * reads the JSON back).
 */
#ifndef SHC_REPORT_H
#define SHC_REPORT_H
#include <stdio.h>
#include <jansson.h>
#include "shardcheck.h"
#include "progress.h"
#include "outfile.h"
#include "golden.h"

typedef enum { REP_TEXT, REP_TAP, REP_JSON } report_format;

/* Statuses of docs/DESIGN.md, in the order of run.h's run_status. */
typedef enum { ST_PASS, ST_FAIL, ST_NOTSUPPORTED, ST_CRASH, ST_TIMEOUT, ST_INTERNAL,
               ST_WAIVED, /* a failure a waiver explains (report_opts.waive): reported, not a
                           * failure, never a pass; run_status has no such value */
               ST_NSTATUS } report_status;

/* One finished case.  verify names it ("tcId 12 rank 1"); run gives family, tcId and
 * the golden comment, and the time it took. */
typedef struct report_item {
    const char *family;  /* NULL: the report's suite */
    long long tcid;      /* < 0: none (name says it) */
    const char *name;    /* verify: the case; run: the golden comment */
    report_status st;
    const char *detail;  /* why it did not pass (NULL for none) */
    double seconds;      /* < 0: not timed */
} report_item;

typedef struct report_opts {
    report_format fmt;
    const char *cmd;        /* "verify", "run": names the command in messages */
    const char *suite;      /* verify: the family; run: "shardcheck" */
    const char *junit_path; /* NULL unless --junit FILE */
    int verbose;            /* text: every case, not only those that did not pass */
    json_t *head;           /* JSON: members before the counts (reference stolen; may be NULL) */
    const char *torch;      /* the torch release judged against ("2.15"; NULL: none): JSON
                               "torch", a text and TAP line, a JUnit property */
    const char *torch_why;  /* how it was chosen (text and TAP) */
    /* NULL, or which cases count at all (verify --tcid/--flag/--answered, verify_select.c):
     * a case it refuses is neither printed nor counted */
    bool (*keep)(void *ctx, long long tcid, report_status st, const char *detail);
    void *keep_ctx;
    /* NULL, or the reason case (family, tcid) is a known deviation (run --waivers,
     * tools/run/waivers.c): its failure is reported Waived with the reason, and its pass
     * as a pass that says the waiver may be stale */
    const char *(*waive)(void *ctx, const char *family, long long tcid);
    void *waive_ctx;
    int group_failures;     /* keep failing cases for report_group_failures (report_groups.c):
                               text then prints the groups first and the failures after them */
} report_opts;

/* Per-family counts, in the order families first appear. */
typedef struct report_suite {
    const char *name;
    long long n[ST_NSTATUS];
} report_suite;

typedef struct report {
    report_opts o;
    FILE *junit;             /* jout.f while the JUnit file is open */
    out_file jout;
    long long n[ST_NSTATUS]; /* count per status */
    long long seq;           /* TAP numbering */
    json_t *cases;           /* JSON or JUnit: every case, written at the end */
    report_suite *suites;
    size_t nsuites, cap;
    progress *bar;           /* NULL, or a bar counting reported cases (hidden before a line) */
    json_t *fails;           /* group_failures: [{tcId, rank, status, detail, at (index in
                              * cases or -1), line (text)}] in report order */
    json_t *groups;          /* report_group_failures: {"byFlag": [...], "byField": [...]} */
    long long waived_passed; /* waived cases that passed (a fixed upstream bug?) */
} report;

/* Open a report.  Returns 0, or -1 with errno if the JUnit file cannot be created (nothing
 * to close).  The JUnit file is written through a temporary file renamed into place by
 * report_close (outfile.h): it appears whole or not at all. */
int report_open(report *r, const report_opts *o);
/* Record one case (printed at once in text and TAP). */
void report_add(report *r, const report_item *it);
/* verify's shorthand: a named case of the report's suite.  A Pass with a detail is a note
 * (a GpuOnly value within its tolerance): printed in text and TAP, "note" in JSON,
 * <system-out> in JUnit; it never changes the counts. */
void report_case(report *r, const char *name, report_status st, const char *detail);
/* Print the per-family totals and the summary line, write JUnit and JSON, close.  Returns
 * the exit code: 99 an InternalError, 1 a Fail/Crash/Timeout, 77 nothing passed, 0 otherwise;
 * 2 after a message when an output could not be written. */
int report_close(report *r);
/* The JUnit file report_close writes, from the JSON it writes (`run --json`, `verify --json`:
 * its "cases", "suite" and "torch"), byte for byte: certify --check re-renders a package's
 * JUnit files from its results (issue 38 M5). */
void report_junit_of(FILE *f, const json_t *results);
/* Free a report whose run ended in bad input (exit 2): no summary, no JUnit file. */
void report_abandon(report *r);
/* ---- failure groups (report_groups.c; issue 22 item 1) ----
 * From a failure to its cause: every kept failure (opts.group_failures) is looked up in the
 * golden trees t (a loaded family, shc_golden_load_family_at) for its flags, its golden file
 * and its inputs (the group's and the test's members other than the answer), and failures
 * are grouped by flag and by differing field, each group with its count of failing tests,
 * the flag's note and its smallest case.  Called after the last case, before report_close,
 * which prints the groups first (text, TAP comments), writes "groups" and each failing
 * case's "flags", "file", "inputs" and "fields" in JSON, and the same in JUnit failures.
 * SHC_OK, or SHC_ENOMEM. */
int report_group_failures(report *r, const shc_golden *t);
/* The fields a failure's detail names ("F: expected E, got G; F2: ..."), as a JSON array of
 * strings; a detail naming none gives its kind ("missing", "rejected a valid input", ...). */
json_t *report_detail_fields(const char *detail);
/* A golden case's inputs (a new object): its group's members and its own other than its
 * answer and bookkeeping (tcId, comment, flags, result, expected, ...); a test's member wins.
 * The failure groups carry them, and `explain --family` prints them. */
json_t *report_case_inputs(const json_t *group, const json_t *test);
/* Text or TAP: the groups, each line prefixed with pre ("" or "# "). */
void report_print_groups(const report *r, const char *pre);

/* Status name as docs/DESIGN.md spells it. */
const char *report_status_name(report_status st);
#define REPORT_LINE_MAX ((size_t)1 << 16) /* a text or TAP line's input text, at most */
/* s with XML's and HTML's five special characters but the apostrophe escaped (JUnit, the page). */
void report_xml_escape(FILE *f, const char *s);

/* `shardcheck report`'s page (cmd_report.c): one self-contained HTML file at out from the
 * JSON of `run --json` / `verify --json` at inputs[0..ninputs), with golden's MANIFEST hash
 * and the command argv in its provenance, and the torch release the inputs were judged
 * against (they must agree, and agree with torch_opt, --torch-version, when given: else
 * SHC_EINVAL naming them).  statement: certify's (its verdict, implementation and rows open
 * the page), or NULL: the page states what the inputs say.  SHC_OK, SHC_EFORMAT naming a bad input, or
 * SHC_EIO when out cannot be written; *cells and *fails give the matrix size and failures. */
int report_html_write(const char *out, const char *golden, char *const *inputs, int ninputs,
                      int argc, char **argv, const char *torch_opt, const json_t *statement,
                      size_t *cells, long long *fails, shc_err *e);
#endif
