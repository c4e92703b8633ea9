/*
 * certify.h — `shardcheck certify`: shared between cmd_certify.c (options, running the
 * claimed families as child processes, assembling the package) and certify_package.c
 * (counting results, the conformance statement in JSON and text, the package's sha256
 * MANIFEST, and `certify --check`).
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
 *   MANIFEST                        "sha256  path" of every other file, sorted
 * Tested by conformance/tests/certify.sh.
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
    json_t *reasons;       /* NotSupported: {"why": count} (at most CERT_MAX_REASONS) */
    json_t *fields;        /* verify: fields the candidate left NotSupported {field: tests} */
} cert_row;

#define CERT_MAX_REASONS 20

/* Count a row's results file (run or verify JSON) and, for verify, its log's NotSupported
 * fields; fills passed/failed/notsupported/reasons/fields.  SHC_EFORMAT naming the file. */
int cert_count(const char *dir, cert_row *r, shc_err *e);
/* A row's verdict: "fail", "pass", "notsupported" (nothing but NotSupported) or "notrun". */
const char *cert_row_verdict(const cert_row *r);
/* The overall verdict of rows: "nonconformant", "conformant" or "incomplete". */
const char *cert_overall(const cert_row *rows, int n);
/* The statement object (rows' references are not stolen). */
json_t *cert_statement(const cert_row *rows, int n, const char *manifest_sha,
                       const char *name, const char *written, shc_torch_release torch);
/* "pytorch 2.15.0, cuda 13.0 curand, random123 1.14": the references of a package judged
 * against torch release r. */
void cert_reference(shc_torch_release r, char *buf, size_t n);
/* Render the human-readable statement from its JSON. */
void cert_statement_text(FILE *f, const json_t *st);
/* Write dir/MANIFEST over every other file under dir. */
int cert_manifest_write(const char *dir, char sha_out[65], shc_err *e);
/* `certify --check DIR`: the exit code (0 intact, 1 altered or inconsistent naming the
 * file, 2 not a directory); golden, when not NULL, must hold the same golden MANIFEST;
 * torch_opt (--torch-version, or SHARDCHECK_TORCH_VERSION), when given, must be the release
 * the package was judged against (exit 2 naming both; a package from before releases were
 * recorded was judged against the pinned one). */
int cert_check(const char *dir, const char *golden, const char *torch_opt);

#endif
