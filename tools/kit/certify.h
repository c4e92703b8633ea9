/*
 * certify.h — `shardcheck certify`: shared between cmd_certify.c (options, running the
 * claimed families as child processes, assembling the package), certify_claim.c (what
 * each row covers of its family's claim), certify_package.c (counting results, verdicts,
 * the conformance statement in JSON and text) and certify_check.c (the package's sha256
 * MANIFEST and `certify --check`, which verifies the package's candidates again).
 *
 * A package is a directory:
 *   statement.json, statement.txt   the conformance statement (the text is rendered from
 *                                   the JSON, so --check can demand they agree)
 *   report.html                     `shardcheck report`'s page over every result
 *   environment.json                versions, system, command, relevant environment
 *   golden-MANIFEST                 the corpus's golden/MANIFEST, hashed in the statement
 *   results/ROW.json, .junit.xml    `run --json`/`verify --json` output and JUnit per row
 *   logs/ROW.stderr, .journal       each child's stderr (and run's journal)
 *   inputs/FAMILY.candidate.json    the candidate files verified (adapter results)
 *   waivers.json                    certify --waivers: the known deviations every row was
 *                                   judged with (README, "Known deviations: waivers")
 *   MANIFEST                        "sha256  path" of every other file, sorted
 * Tested by conformance/tests/certify.sh and certify_claims.sh.
 */
#ifndef SHC_CERTIFY_H
#define SHC_CERTIFY_H
#include <stdio.h>
#include <jansson.h>
#include "shardcheck.h"

/* One statement row: a family run on a backend at a rank count, or a candidate verified. */
typedef struct cert_row {
    char family[64];
    char mode[8];          /* "run" or "verify" */
    char backend[160];     /* run: --backend value; verify: "candidate" */
    int np;                /* run: processes (1 for ref/local/plugin); verify: 0 */
    char results[200];     /* package-relative paths */
    char junit[200];
    char log[200];
    int exit_code;         /* the child's; 77 = it could not run */
    char why[256];         /* notrun: the child's last message */
    long long passed, failed, notsupported;
    long long waived;      /* cases a waiver explains (certify --waivers): not passes */
    json_t *waivedcases;   /* [{"case", "status", "detail"}]: each waived case with its reason,
                            * and each waived case that passed (a stale waiver) */
    json_t *reasons;       /* NotSupported: {"why": count} (at most CERT_MAX_REASONS) */
    json_t *fields;        /* verify: fields the candidate left NotSupported {field: tests} */
    char candidate[256];   /* verify: the candidate's package-relative path */
    json_t *claim;         /* what the row covers of its family's claim (cert_claim), or NULL */
    json_t *producer;      /* verify: the candidate's "producer" record, or NULL */
} cert_row;

#define CERT_MAX_REASONS 20
#define EXIT_PARTIAL 3 /* certify: nothing failed, but a row covers less than its claim */

/* ---- certify_claim.c (calls none of the other certify files) ---- */
/* dir/rel, or rel itself when absolute (rows certify_check.c builds in a scratch folder;
 * a statement's own paths are refused when absolute before they get here). */
void cert_path(char *buf, size_t n, const char *dir, const char *rel);
/* Release a row's JSON members (reasons, fields, claim, producer). */
void cert_row_free(cert_row *r);
/* What row r covers of its family's claim, from its results (and, for a candidate, its
 * declared "fields" and "producer"), against the corpus in golden: fills r->claim
 * ({"fields": covered, "fieldsNotComputed", "requiredFields", "requiredCases",
 * "casesChecked", "otherRankCounts"}) and r->producer.  Nothing for a row that did not
 * run. */
int cert_claim(const char *dir, const char *golden, cert_row *r, shc_err *e);
/* Whether r->claim covers less than the family requires. */
bool cert_claim_partial(const cert_row *r);
/* "1 of 5 required fields (end_incr; not computed: ...), 26,044 of 26,094 required tests
 * checked": what a row covers, from its statement row's "claim". */
void cert_claim_text(const json_t *claim, char *buf, size_t n);

/* ---- certify_package.c ---- */
/* Count a row's results file (run or verify JSON) and, for verify, its log's NotSupported
 * fields; fills passed/failed/notsupported/reasons/fields.  SHC_EFORMAT naming the file. */
int cert_count(const char *dir, cert_row *r, shc_err *e);
/* A row's verdict: "fail", "pass", "partial" (nothing failed, but the row covers less than
 * its family's claim requires), "notsupported" (nothing but NotSupported) or "notrun". */
const char *cert_row_verdict(const cert_row *r);
/* The overall verdict of rows: "nonconformant", "incomplete", "partial" or "conformant". */
const char *cert_overall(const cert_row *rows, int n);
/* certify's exit code for an overall verdict: 0 conformant, 1 nonconformant, 3 partial,
 * 77 incomplete. */
int cert_verdict_exit(const char *verdict);
/* The statement row of r as JSON (what --check compares the statement's rows with). */
json_t *cert_row_json(const cert_row *r);
/* The statement object (rows' references are not stolen); waivers: the package-relative
 * waivers file the rows were judged with, or NULL. */
json_t *cert_statement(const cert_row *rows, int n, const char *manifest_sha,
                       const char *name, const char *written, shc_torch_release torch,
                       const char *waivers);
/* "pytorch 2.15.0, cuda 13.0 curand, random123 1.14": the references of a package judged
 * against torch release r. */
void cert_reference(shc_torch_release r, char *buf, size_t n);
/* Render the human-readable statement from its JSON. */
void cert_statement_text(FILE *f, const json_t *st);

/* ---- certify_check.c: the MANIFEST and --check ---- */
/* Write dir/MANIFEST over every other file under dir. */
int cert_manifest_write(const char *dir, char sha_out[65], shc_err *e);
/* --check: verify the package's candidate of statement row j again against golden (exe:
 * this shardcheck; torch: the statement's release; waivers: the package's waivers file,
 * package-relative, or ""), and compare with the row; a problem line naming the candidate
 * and 1 when they differ or it no longer verifies, else 0. */
int cert_reverify(const char *dir, const char *golden, const char *exe, const char *torch,
                  const char *waivers, const json_t *j);
/* `certify --check DIR`: the exit code (0 intact, 1 altered or inconsistent naming the
 * file, or a candidate that no longer gives its row, 2 not a directory); golden (the corpus
 * found as every command finds it; golden_given: by --golden) must hold the same golden
 * MANIFEST, and every candidate is verified against it again (cert_reverify);
 * torch_opt (--torch-version, or SHARDCHECK_TORCH_VERSION), when given, must be the release
 * the package was judged against (exit 2 naming both; a package from before releases were
 * recorded was judged against the pinned one).  report.html (rendered again by page) and each
 * JUnit file (from its results) must be what the package's results give, byte for byte, and
 * every file a package has must be there (issue 38 M5). */
/* report.html's renderer, report_html_write (cmd_report.c, tools/cli): --check renders the page
 * again through this pointer, which cmd_certify.c passes, so calls still go one way between
 * tools/cli and tools/kit (call_graph.sh). */
typedef int (*cert_page_fn)(const char *out, const char *golden, char *const *inputs, int ninputs,
                            int argc, char **argv, const char *torch_opt, const json_t *statement,
                            size_t *cells, long long *fails, shc_err *e);
int cert_check(const char *dir, const char *golden, bool golden_given, const char *torch_opt,
               cert_page_fn page);

#endif
