/*
 * report_page.h — what `shardcheck report` (cmd_report.c) gathers from its inputs, shared with
 * the page's reading sections (report_page.c): the verdict and statement first, the failure
 * groups with each group's smallest case and its picture, NotSupported grouped by reason.
 * cmd_report.c reads the inputs and writes the matrix, the detail and the provenance.
 * Tested by conformance/tests/report_html.sh (in headless chromium: the order of the sections,
 * the groups, the NotSupported counts, a screenshot).
 */
#ifndef SHC_REPORT_PAGE_H
#define SHC_REPORT_PAGE_H
#include <stdio.h>
#include <jansson.h>
#include "shardcheck.h"

#define RP_MAX_FAIL_ROWS 2000

/* One matrix cell: a family under one backend at one rank count. */
typedef struct cell {
    char family[64], backend[96], ranks[16];
    long long n[4]; /* pass, fail, notsupported, other */
} cell;

typedef struct rp {
    cell *cells;
    size_t ncells, cap;
    json_t *fails;    /* [family, backend, ranks, case, status, message] */
    json_t *others;   /* the same for crashes, timeouts, internal errors, waived */
    long long nfails;
    long long nbad;   /* crashes, timeouts and internal errors (not waived cases) */
    long long n[4];   /* every input's cases: pass, fail, notsupported, other */
    json_t *groups;   /* [{family, source, ranks, groups}]: verify's own "groups", and those
                       * rp_group_runs computes for run inputs */
    json_t *runfails; /* run inputs' failures to group: "family\tsource\tranks" ->
                       * {family, source, ranks, fails: [{tcId, rank, detail, at}]} */
    json_t *ns;       /* NotSupported by reason: "family\tsource\treason" ->
                       * {family, source, reason, cases, ranks: {ranks: true}} */
    const json_t *statement; /* certify's statement, or NULL (`shardcheck report`) */
} rp;

/* Text escaped for HTML. */
void rp_esc(FILE *f, const char *s);
/* Record a NotSupported case of (family, source) at ranks, its reason detail. */
void rp_add_notsupported(rp *r, const char *fam, const char *src, const char *ranks,
                         const char *detail);
/* Record a run input's failing case for grouping (its detail "rank R: ..." or whole). */
void rp_add_run_failure(rp *r, const char *fam, const char *src, const char *ranks,
                        long long tcid, const char *detail);
/* The failure groups of the run inputs' failures, from the golden trees at golden for
 * release tr (report_group_failures, as verify groups its own); a family the corpus cannot
 * give is left ungrouped (its failures stay in the detail). */
void rp_group_runs(rp *r, const char *golden, shc_torch_release tr);
/* The page's first sections: verdict, statement (certify's, else what the inputs say),
 * failure groups (each with its smallest case's inputs and inline picture), NotSupported
 * by reason. */
void rp_write_verdict(FILE *f, const rp *r, shc_torch_release tr);
void rp_write_groups(FILE *f, const rp *r);
void rp_write_notsupported(FILE *f, const rp *r);
#endif
