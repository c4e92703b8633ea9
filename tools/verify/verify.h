/*
 * verify.h — the verify engine, a library (libshcverify): `shardcheck verify` (tools/cli/
 * cmd_verify.c) and the candidate and verify_diff fuzzers link it.  verify_candidate
 * (verify_engine.c) asks each candidate source in turn (verify_source: the scanner,
 * verify_scan.c, then the jansson trees, verify_tree.c) until one decides; every source
 * feeds the one compare-and-report loop (verify_compare.c).  Calls go one way:
 * engine -> sources -> compare.
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
    /* a partial candidate over the index loader: each golden test restricted to the declared
     * fields when first used (narrow: a new reference), narrowed[i] while it is */
    json_t *(*narrow)(void *ctx, json_t *test);
    void *narrow_ctx;
    unsigned char *narrowed;
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

/* ---- the engine (verify_engine.c) ---- */

/* Check a candidate file against a loaded golden family and report every case (the work
 * of `shardcheck verify` once the golden family is loaded): the scanner first, the jansson
 * trees where it is unsure.  SHC_OK, or an error in e (bad input: the candidate is refused
 * as a whole). */
int verify_candidate(const shc_golden *g, const char *path, report *rep, shc_err *e);
/* SHARDCHECK_VERIFY_TREES=1: the jansson tree source only (verify_fast.sh's reference). */
bool verify_trees_only(void);
/* SHARDCHECK_VERIFY_TREES=0: the scanned source only; a candidate it leaves to the trees is
 * refused instead (a test setting: verify_candidate.sh). */
bool verify_scan_only(void);

/* ---- a candidate source ----
 * check reads the candidate at path and hands its answers to the compare loop below:
 * SHC_SCAN_UNSURE when this source cannot decide (the next one must), else the result
 * verify_candidate gives.  tree: whether it reads the candidate as one jansson tree
 * (refused under SHARDCHECK_VERIFY_TREES=0; the only kind used under =1). */
typedef struct verify_source {
    const char *name;
    bool tree;
    int (*check)(const shc_golden *g, const char *path, report *rep, shc_err *e);
} verify_source;
/* The scanner (verify_scan.c): the candidate mapped and scanned, no tree. */
int verify_scanned(const shc_golden *g, const char *path, report *rep, shc_err *e);
/* The jansson trees (verify_tree.c): golden-shaped, results file, golden-shaped partial. */
int verify_tree(const shc_golden *g, const char *path, report *rep, shc_err *e);

/* A partial candidate ("fields": [names], verify_tree.c): its golden tests are restricted to
 * the declared fields for the run (each when first used, s->narrow, over the index loader;
 * copies pinned in g->tests over the tree loader; the tests left with no field are reported
 * NotSupported), by either source.  fields NULL: not partial, nothing done.  SHC_OK,
 * or SHC_EFORMAT for a bad "fields".  verify_partial_end restores the golden tests and names
 * the fields left NotSupported on stderr. */
typedef struct verify_partial {
    json_t *owned, *left, *fset;
    json_t **orig;
} verify_partial;
int verify_partial_begin(vstate *s, const json_t *fields, const char *path, verify_partial *p,
                         shc_err *e);
void verify_partial_end(vstate *s, verify_partial *p);

/* ---- the compare-and-report loop (verify_compare.c) ---- */

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
/* results[i] (r) of the candidate at path read: its tcId, rank (-1: the whole test) and
 * answer (*got, a new reference: the values, an error or notSupported), or SHC_EFORMAT
 * naming the entry. */
int verify_parse_result(const json_t *r, size_t i, const char *path, int64_t *tcid,
                        int64_t *rank, json_t **got, shc_err *e);
/* The warning for a results file in the old spelling (local_shape, global_offset), once
 * per file, naming results[i]. */
void verify_warn_old_spelling(const char *path, size_t i);

/* ---- which cases a run checks (verify_select.c) ---- */

typedef struct verify_select {
    int64_t *tcids;          /* sorted: the selected tests (some) */
    size_t n, cap;
    bool some;               /* --tcid or --flag given: only tcids */
    bool answered;           /* --answered: a test the candidate lacks is not checked */
    long long unanswered;    /* ... and how many were left out so */
} verify_select;
/* From --tcid LIST, --flag F (NULL: not given) and --answered, for the family g (dir and
 * rel load its trees for --flag).  SHC_EINVAL naming an unknown tcId or flag. */
int verify_select_build(verify_select *s, const shc_golden *g, const char *dir,
                        shc_torch_release rel, const char *tcids, const char *flag,
                        bool answered, shc_err *e);
bool verify_select_has(const verify_select *s, int64_t tcid);
/* The reporter's filter (report_opts.keep) with s as its context. */
bool verify_select_keep(void *ctx, long long tcid, report_status st, const char *detail);
void verify_select_free(verify_select *s);

#endif
