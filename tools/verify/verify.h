/*
 * verify.h — what cmd_verify.c (the tree path, partial candidates, the command) and
 * verify_scan.c (candidates read by the scanner, without trees) share.
 */
#ifndef SHC_TOOLS_VERIFY_H
#define SHC_TOOLS_VERIFY_H

#include "golden.h"
#include "report.h"

typedef struct vstate {
    const shc_golden *g;
    report *rep;
    unsigned char *seen; /* per test: 1 = reported */
    const char *path;    /* the candidate */
    bool pinned;         /* g->tests holds partial_begin's copies: never let go */
    shc_bview bv;        /* the golden test being compared in bytes (golden_bytes.c) */
    const char *base;    /* scanned: the candidate's bytes (messages give line and column) */
    int fail;            /* scanned: an entry failed to parse after all (SHC_EFORMAT) ... */
    shc_err *err;        /* ... and why */
} vstate;

/* Results-file entries for one test are grouped; each (test, rank) once.  The tree path
 * holds each entry's answer (got); the scanned path holds where its bytes are (text, as
 * offsets into the candidate: 48 bytes a record, so that a file of tiny entries stays
 * within twice its size, issue 27 N10), compares them with the golden bytes
 * (shc_bview_same) and parses a test's entries only when they differ there (entry_got).
 * Offsets and counts fit 32 bits: a JSON input is 1 GiB at most (SHC_MAX_JSON_BYTES). */
typedef struct rentry {
    int64_t idx, rank;
    json_t *got;
    uint32_t pos;          /* results[pos] */
    uint32_t text_off, text_n;   /* scanned: the entry at base + text_off */
    uint32_t values_off, values_n; /* its "values" at text + values_off (0: none; an error) */
    int32_t same_world;    /* >= 0: values matched the golden view while scanned, in a
                            * world of this size (vouch_values); -1: not known */
} rentry;

/* A scanned entry's bytes, and its "values" (p NULL: none); base: the candidate's bytes. */
static inline shc_span rentry_text(const char *base, const rentry *r)
{
    return (shc_span){base + r->text_off, r->text_n};
}
static inline shc_span rentry_values(const char *base, const rentry *r)
{
    return r->values_off ? (shc_span){base + r->text_off + r->values_off, r->values_n}
                         : (shc_span){NULL, 0};
}

/* Check a candidate file against a loaded golden family and report every case (the work
 * of `shardcheck verify` once the golden family is loaded): the scanner first
 * (verify_scanned), the jansson trees where it is unsure.  SHC_OK, or an error in e
 * (bad input: the candidate is refused as a whole). */
int verify_candidate(const shc_golden *g, const char *path, report *rep, shc_err *e);
/* The warning for a results file in the old spelling (local_shape, global_offset), once
 * per file, naming results[i]. */
void verify_warn_old_spelling(const char *path, size_t i);
/* "tcId N" or "tcId N rank R" (rank >= 0). */
void verify_case_name(char *buf, size_t n, int64_t tcid, int64_t rank);
/* Compare every rank of a golden-shaped candidate test, report it, let the golden tree go. */
void verify_full_test_once(vstate *s, int64_t idx, json_t *cand);
/* A results file's entries v[0, m) of known tests, in file order: grouped by test,
 * duplicates rejected (exit 2 before any of them is reported), then reported one test at
 * a time. */
int verify_rentries(vstate *s, rentry *v, size_t m, const char *path, shc_err *e);
/* Report every golden test no candidate entry answered as missing. */
void verify_report_missing(vstate *s);
/* SHARDCHECK_VERIFY_TREES=1: the jansson tree path only (verify_fast.sh's reference). */
bool verify_trees_only(void);
/* SHARDCHECK_VERIFY_TREES=0: the scanned path only; a candidate it leaves to the trees is
 * refused instead (a test setting: verify_candidate.sh). */
bool verify_scan_only(void);
/* The candidate through the scanner (verify_scan.c): SHC_SCAN_UNSURE when the tree path must
 * decide, else the result verify_candidate would give. */
int verify_scanned(const shc_golden *g, const char *path, report *rep, shc_err *e);

#endif
