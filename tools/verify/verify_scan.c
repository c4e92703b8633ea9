/*
 * verify_scan.c — `shardcheck verify` without trees: the candidate is mapped (json_map.c)
 * and scanned (json_scan.h), golden-shaped or a results file, and only the tests that
 * must be compared field by field are parsed, one at a time.  Its output, messages and
 * exit codes are those of the tree source, verify_tree.c (SHARDCHECK_VERIFY_TREES=1): a file
 * jansson refuses is worded by jansson from a tree of an element or two (scan_error), and
 * the tree path takes over only for what the scanner does not read (a partial candidate,
 * nesting past its depth).  Tested by
 * verify_fast.sh, which runs both paths on every candidate form, malformed ones included,
 * and compares the bytes, verify_candidate.sh, and the verify_diff fuzzer.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "golden.h"
#include "report.h"
#include "verify.h"

/* ---- the golden-shaped candidate without a tree (issue 12) ----
 * The candidate is scanned (json_scan.h) into one record per test; a test whose
 * "expected" bytes equal the golden test's passes without being parsed (equal bytes
 * are JSON-equal), any other is parsed alone and checked by verify_full_test.  The
 * records are reported only once the whole file has scanned, so a malformed file is
 * still exit 2 before any case is printed, exactly as with the tree.  Whatever the
 * scanner is unsure of (json_scan.h), or a golden-shaped partial candidate ("fields"; a
 * partial results file is scanned, its golden side restricted by verify_partial_begin),
 * goes through the tree source (verify_tree.c), which words every error. */
typedef struct crec {
    int64_t tcid, idx;
    size_t gi, ti;
    shc_span text;
    bool has_tcid, same; /* same: "expected" byte-equal to the golden one */
} crec;

/* A results-file entry for a tcId the golden family lacks (reported in file order). */
typedef struct runknown { int64_t tcid, rank; size_t pos; } runknown;

typedef struct cscan {
    const shc_golden *g;
    const char *base;      /* the candidate's bytes (rentry's offsets) */
    crec *v; /* golden-shaped: one record per test */
    size_t n, cap;
    rentry *rv; /* results file: the entries of known tests */
    size_t rn, rcap;
    runknown *uv; /* and of unknown ones */
    size_t un, ucap;
    bool has_bad;          /* an entry verify_parse_result refuses: the first one, */
    shc_scan_result bad;   /* where the tree path stops with exit 2 */
    size_t old_at;         /* the first entry in the old spelling (old_spelling), + 1; 0: none */
    int64_t last_idx;      /* the golden index last looked up (entry_index) */
    /* vouching (vouch_values): the golden test split now, and which ones were */
    bool vouching, split_ok;
    int64_t split_idx, vouch_world;
    unsigned char *split_seen;
    shc_bview bv;
} cscan;

/* Make room for one more element of *v (n used, *cap allocated); false when memory is short. */
static bool grow(void **v, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return true;
    size_t nc = *cap ? 2 * *cap : 1024;
    void *nv = realloc(*v, nc * size);
    if (!nv)
        return false;
    *v = nv;
    *cap = nc;
    return true;
}

static int scan_candidate_test(void *ctx, const shc_scan_test *t)
{
    cscan *c = ctx;
    if (!grow((void **)&c->v, c->n, &c->cap, sizeof *c->v))
        return SHC_SCAN_UNSURE; /* the tree path reports the shortage */
    crec *r = &c->v[c->n++];
    size_t golden_bytes = 0;
    *r = (crec){t->tcid, -1, t->gi, t->ti, t->text, t->has_tcid, false};
    if (t->has_tcid)
        r->idx = shc_golden_index(c->g, t->tcid);
    if (t->known) { /* the golden test's own bytes (known_test) */
        r->same = !c->g->text[r->idx].invalid;
        golden_bytes = t->text.n;
    } else if (r->idx >= 0 && c->g->text && t->expected.p && !t->result_other &&
             !shc_span_is(t->result, "invalid")) {
        shc_span want = c->g->text[r->idx].expected;
        r->same = want.n == t->expected.n && !memcmp(want.p, t->expected.p, want.n);
        golden_bytes = want.n;
    }
    shc_map_touched(t->text.n + golden_bytes);
    return 0;
}

/* verify_parse_result's rules on a scanned entry, in its order: whether it would accept it, and
 * the rank it would give (-1 for the whole test; a notSupported entry answers it whole). */
static bool entry_ok(const shc_scan_result *r, int64_t *rank)
{
    *rank = -1;
    if (!r->is_object || !r->has_tcid || (r->rank.p && !(shc_span_int(r->rank, rank) && *rank >= 0)))
        return false;
    if (r->not_supported.p) {
        *rank = -1;
        return *r->not_supported.p == '"' && !r->values.p && !r->error.p;
    }
    return r->error.p || (r->values.p && *r->values.p == '{');
}

/* Whether an entry's values carry a key of the old spelling (verify_parse_result's old_spelling:
 * the warning is given after the scan, the conversion when the entry is parsed).  plain:
 * its keys hold no escape (a vouched object: shc_jcur_member refuses escaped keys). */
static bool old_spelling(shc_span v, bool plain)
{
    /* one pass first: the byte both old keys hold and the new ones lack, or an escape */
    if (!memchr(v.p, '_', v.n) && (plain || !memchr(v.p, '\\', v.n)))
        return false;
    return shc_span_has_key(v, "local_shape") || shc_span_has_key(v, "global_offset");
}

/* The golden index of an entry's tcId (-1: unknown): entries come test by test, so the
 * last one looked up, or the next, saves a search. */
static int64_t entry_index(cscan *c, int64_t tcid)
{
    int64_t last = c->last_idx, idx;
    if (last >= 0 && c->g->tcids[last] == tcid)
        idx = last;
    else if (last + 1 < c->g->ntests && c->g->tcids[last + 1] == tcid)
        idx = last + 1;
    else
        idx = shc_golden_index(c->g, tcid);
    if (idx >= 0)
        c->last_idx = idx;
    return idx;
}

/* The vouch hook (shc_scan_values_fn): while the entries come grouped by test, as a
 * harness writes them, each entry's values are matched against its golden view while
 * they are scanned, so their bytes are read once and those that match need no separate
 * validation.  A test met again after another one ends this for the file (matching out
 * of order would split golden tests over and over); verify_rentries then compares the
 * remaining entries after the scan, as for any entry not vouched for. */
static bool vouch_values(void *ctx, const shc_scan_result *r, shc_jcur *cur)
{
    cscan *c = ctx;
    int64_t idx, rank = -1;
    if (!c->vouching || (idx = entry_index(c, r->tcid)) < 0)
        return false;
    if (idx != c->split_idx) {
        if (c->split_seen[idx])
            return c->vouching = false;
        c->split_seen[idx] = 1;
        c->split_idx = idx;
        c->split_ok = shc_bview_split_test(&c->bv, c->g, idx);
    }
    if (!c->split_ok ||
        (c->bv.world > 0 && !(r->rank.p && shc_span_int(r->rank, &rank) && rank >= 0)))
        return false; /* no rank (a whole answer) for a per-rank test: the trees word it */
    if (!shc_bview_match(&c->bv, c->bv.world ? rank : -1, cur))
        return false;
    c->vouch_world = c->bv.world;
    return true;
}

/* One results entry: kept as bytes, or the first refused one noted.  Entries after it are
 * not looked at: the tree path stops there too (but the scan still validates them all). */
static int scan_result_entry(void *ctx, const shc_scan_result *r)
{
    cscan *c = ctx;
    int64_t rank;
    if (c->has_bad)
        return 0;
    if (!entry_ok(r, &rank)) {
        c->has_bad = true;
        c->bad = *r;
        return 0;
    }
    bool answer = !r->error.p && !r->not_supported.p; /* values, then */
    if (answer && !c->old_at && old_spelling(r->values, r->vouched))
        c->old_at = r->i + 1;
    int64_t idx = entry_index(c, r->tcid);
    if (idx < 0) {
        if (!grow((void **)&c->uv, c->un, &c->ucap, sizeof *c->uv))
            return SHC_SCAN_UNSURE;
        c->uv[c->un++] = (runknown){r->tcid, rank, r->i};
    } else {
        if (!grow((void **)&c->rv, c->rn, &c->rcap, sizeof *c->rv))
            return SHC_SCAN_UNSURE;
        bool vouched = r->vouched && answer;
        c->rv[c->rn++] = (rentry){idx, rank, NULL, (uint32_t)r->i,
                                  (uint32_t)(r->text.p - c->base), (uint32_t)r->text.n,
                                  answer ? (uint32_t)(r->values.p - r->text.p) : 0,
                                  answer ? (uint32_t)r->values.n : 0,
                                  vouched ? (int32_t)c->vouch_world : -1};
    }
    shc_map_touched(r->text.n);
    return 0;
}

/* verify_results over the scanned entries: the unknown tcIds reported in file order (the
 * old-spelling warning where the tree path gives it, before the entry that has it), then
 * verify_parse_result's error for the first refused entry (exit 2), else verify_rentries. */
static int verify_scanned_results(vstate *s, cscan *c, const char *path, shc_err *e)
{
    for (size_t i = 0; i < c->un; i++) {
        if (c->old_at && c->old_at - 1 <= c->uv[i].pos)
            verify_warn_old_spelling(path, c->old_at - 1);
        char name[64];
        verify_case_name(name, sizeof name, c->uv[i].tcid, c->uv[i].rank);
        report_case(s->rep, name, ST_FAIL, "not a tcId of the golden family");
    }
    if (c->old_at)
        verify_warn_old_spelling(path, c->old_at - 1);
    const shc_scan_result *b = &c->bad;
    int64_t rank;
    if (!c->has_bad) {
        size_t m = 0; /* a partial candidate's tests with no declared field are NotSupported
                       * already (verify_partial_begin): their entries are not looked at */
        for (size_t i = 0; i < c->rn; i++)
            if (s->seen[c->rv[i].idx] != 2)
                c->rv[m++] = c->rv[i];
        return verify_rentries(s, c->rv, m, path, e);
    }
    if (!b->is_object || !b->has_tcid)
        return shc_fail(e, SHC_EFORMAT, "%s: results[%zu]: needs an integer \"tcId\"", path, b->i);
    if (b->rank.p && !(shc_span_int(b->rank, &rank) && rank >= 0))
        return shc_fail(e, SHC_EFORMAT, "%s: results[%zu] (tcId %lld): \"rank\" must be a "
                        "non-negative integer", path, b->i, (long long)b->tcid);
    if (b->not_supported.p)
        return shc_fail(e, SHC_EFORMAT, "%s: results[%zu] (tcId %lld): \"notSupported\" takes "
                        "the reason as a string, on an entry without \"values\" or \"error\"",
                        path, b->i, (long long)b->tcid);
    return shc_fail(e, SHC_EFORMAT, "%s: results[%zu] (tcId %lld): needs a \"values\" object "
                    "or an \"error\"", path, b->i, (long long)b->tcid);
}

/* The golden test's bytes for a tcId: a candidate test repeating them is skipped unread. */
static shc_span known_test(void *ctx, int64_t tcid)
{
    const cscan *c = ctx;
    int64_t i = c->g->text ? shc_golden_index(c->g, tcid) : -1;
    return i < 0 ? (shc_span){NULL, 0} : c->g->text[i].test;
}

/* verify_golden_shaped over the records. */
static int verify_records(vstate *s, const cscan *c, const char *path, shc_err *e)
{
    for (size_t i = 0; i < c->n; i++) {
        const crec *r = &c->v[i];
        if (!r->has_tcid)
            return shc_fail(e, SHC_EFORMAT, "%s: testGroups[%zu].tests[%zu] has no integer tcId",
                            path, r->gi, r->ti);
        char name[64];
        verify_case_name(name, sizeof name, r->tcid, -1);
        if (r->idx < 0) {
            report_case(s->rep, name, ST_FAIL, "not a tcId of the golden family");
            continue;
        }
        if (s->seen[r->idx])
            return shc_fail(e, SHC_EFORMAT, "%s: tcId %lld appears twice", path,
                            (long long)r->tcid);
        s->seen[r->idx] = 1;
        if (r->same) {
            report_case(s->rep, name, ST_PASS, NULL);
            continue;
        }
        json_error_t je;
        json_t *t = shc_json_loadb(r->text.p, r->text.n, &je);
        if (!t)
            return shc_fail(e, SHC_ENOMEM, "%s: tcId %lld: %s", path, (long long)r->tcid, je.text);
        verify_full_test_once(s, r->idx, t);
        json_decref(t);
        shc_map_touched(r->text.n);
    }
    return SHC_OK;
}

/* ---- a candidate the scanner refused, worded without its tree (issue 27 N10) ----
 * The scan stops where the file stops being JSON as jansson reads it, and it knows runs of
 * complete results entries (or test groups, tests) before that place (shc_scan_doc.drop).
 * jansson reads the file without them to the same place and the same error (an array
 * element less changes nothing jansson checks), so its message is had from a tree of one
 * element; only its line and column are moved back to where the bytes are in the file.
 * jansson counts a column per UTF-8 character and skips a NUL byte right after a number or
 * literal (json_scan.c past_unget_nul), in columns and in its position too. */
typedef struct cut_stream {
    const char *p;
    size_t n, at;
    shc_span drop[2]; /* ascending, disjoint; n 0: none */
} cut_stream;

/* json_load_callback's reader: the bytes outside the drop spans. */
static size_t cut_read(void *buf, size_t len, void *arg)
{
    cut_stream *s = arg;
    size_t done = 0;
    while (done < len && s->at < s->n) {
        size_t next = s->n; /* where the next drop span starts */
        for (int k = 0; k < 2; k++) {
            size_t a = s->drop[k].n ? (size_t)(s->drop[k].p - s->p) : s->n;
            if (a == s->at) {
                s->at += s->drop[k].n;
                next = s->at; /* dropped: look again from here */
                break;
            }
            if (a > s->at && a < next)
                next = a;
        }
        size_t take = next - s->at < len - done ? next - s->at : len - done;
        memcpy((char *)buf + done, s->p + s->at, take);
        done += take;
        s->at += take;
    }
    return done;
}

/* jansson's line and column after reading p[0, n) from (*line, *col). */
static void advance(const char *p, size_t n, int *line, int *col, size_t *nuls)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char u = (unsigned char)p[i];
        if (u == '\n')
            ++*line, *col = 0;
        else if (!u)
            ++*nuls; /* the NUL jansson never reads again (valid bytes hold no other) */
        else if (u < 0x80 || u >= 0xC0)
            ++*col;   /* (valid bytes: no 0xC0, 0xC1, 0xF5..) */
    }
}

/* SHC_EFORMAT with the message the tree path gives for this candidate (shc_json_load_path,
 * prefixed "candidate"), or SHC_SCAN_UNSURE when jansson reads it without the drop spans
 * (deep nesting the scanner does not follow, memory): the trees decide then. */
static int scan_error(const shc_map *m, const shc_scan_doc *d, const char *path, shc_err *e)
{
    cut_stream s = {m->p, m->n, 0, {d->drop[0], d->drop[1]}};
    if (s.drop[1].n && (!s.drop[0].n || s.drop[1].p < s.drop[0].p)) {
        shc_span t = s.drop[0];
        s.drop[0] = s.drop[1];
        s.drop[1] = t;
    }
    if (s.drop[1].n && s.drop[1].p < s.drop[0].p + s.drop[0].n)
        s.drop[1].n = 0; /* (overlapping: never so, json_scan.c; the first will do) */
    json_error_t je;
    json_t *j = json_load_callback(cut_read, &s, JSON_REJECT_DUPLICATES, &je);
    if (j) {
        json_decref(j);
        return SHC_SCAN_UNSURE;
    }
    /* jansson's state where the last drop span ends, in the cut stream and in the file */
    int ls = 1, cs = 0, lt = 1, ct = 0;
    size_t nul_s = 0, nul_t = 0, from = 0, cut = 0;
    for (int k = 0; k < 2; k++) {
        if (!s.drop[k].n)
            continue;
        size_t a = (size_t)(s.drop[k].p - m->p);
        advance(m->p + from, a - from, &ls, &cs, &nul_s);
        advance(m->p + from, a - from, &lt, &ct, &nul_t);
        advance(s.drop[k].p, s.drop[k].n, &lt, &ct, &nul_t);
        cut += s.drop[k].n;
        from = a + s.drop[k].n;
    }
    if (je.line < ls || (je.line == ls && je.column <= cs))
        return SHC_SCAN_UNSURE; /* the error lies before the cut (never so, the scan stops where
                                 * jansson does): the trees word it */
    if (je.line == ls) { /* the error lies after the last drop span: same bytes from there */
        je.column = ct + (je.column - cs);
        je.line = lt;
    } else {
        je.line = lt + (je.line - ls);
    }
    je.position += (int)(cut - (nul_t - nul_s)); /* jansson's position in the whole file */
    shc_json_error_name_key(m->p, m->n, &je);
    return shc_fail(e, SHC_EFORMAT, "candidate: %s: line %d column %d: %s", path, je.line,
                    je.column, je.text);
}

/* SHC_SCAN_UNSURE when the tree path must decide; else verify_candidate's result.  The
 * candidate is mapped (json_map.c), so neither its bytes nor the golden's stay resident. */
int verify_scanned(const shc_golden *g, const char *path, report *rep, shc_err *e)
{
    shc_map m;
    if (shc_map_path(&m, path, NULL))
        return SHC_SCAN_UNSURE;
    cscan c = {.g = g, .base = m.p, .last_idx = -1, .split_idx = -1};
    c.split_seen = g->text ? calloc((size_t)(g->ntests ? g->ntests : 1), 1) : NULL;
    c.vouching = c.split_seen != NULL;
    shc_scan_doc d;
    int rc = shc_scan_candidate(m.p, m.n, &d, scan_candidate_test, known_test,
                                scan_result_entry, vouch_values, &c);
    if (rc == SHC_SCAN_UNSURE)
        rc = scan_error(&m, &d, path, e); /* refused: worded without the file's tree */
    bool shaped = d.test_groups.p && *d.test_groups.p == '[';
    size_t fn = 0;
    char *fam = rc ? NULL : shc_span_string(d.family_value, &fn); /* NULL: not a string */
    if (rc && rc != SHC_SCAN_UNSURE) {
        /* scan_error's message */
    } else if (rc || (d.fields.p && shaped) ||
               (d.family_value.p && *d.family_value.p == '"' && !fam) ||
        !(shaped || (d.results.p && *d.results.p == '['))) {
        rc = SHC_SCAN_UNSURE;
    } else if (d.family_value.p && !fam) { /* a number read as "no family": refused, as
                                            * verify_tree.c refuses it */
        rc = shc_fail(e, SHC_EFORMAT, "candidate %s: \"family\" is not a string", path);
    } else if (fam && strcmp(fam, g->family)) {
        rc = shc_fail(e, SHC_EFORMAT, "candidate %s: family \"%s\", verifying \"%s\"", path,
                      fam, g->family);
    } else {
        vstate s = {.g = g, .rep = rep, .seen = calloc((size_t)(g->ntests ? g->ntests : 1), 1),
                    .path = path, .base = m.p};
        /* a partial results file: the golden side restricted as the trees do it, the
         * candidate still scanned (its tree was 26 times its size, issue 38 M14); pinned
         * (verify_partial_begin) turns off every comparison in golden bytes */
        verify_partial part = {0};
        json_error_t je;
        json_t *fields = d.fields.p ? json_loadb(d.fields.p, d.fields.n, JSON_DECODE_ANY, &je)
                                    : NULL;
        rc = !s.seen                ? shc_fail(e, SHC_ENOMEM, "verify: out of memory")
             : d.fields.p && !fields ? shc_fail(e, SHC_ENOMEM, "verify: out of memory")
                                     : verify_partial_begin(&s, fields, path, &part, e);
        if (!rc)
            rc = shaped ? verify_records(&s, &c, path, e) : verify_scanned_results(&s, &c, path, e);
        if (!rc)
            verify_report_missing(&s);
        verify_partial_end(&s, &part);
        json_decref(fields);
        free(s.seen);
        shc_bview_free(&s.bv);
    }
    free(fam);
    free(c.v);
    free(c.rv);
    free(c.uv);
    free(c.split_seen);
    shc_bview_free(&c.bv);
    shc_map_free(&m);
    return rc;
}

