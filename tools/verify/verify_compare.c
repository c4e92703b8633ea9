/*
 * verify_compare.c — the verify engine's one compare-and-report loop: whichever candidate
 * source read the file (verify_tree.c, verify_scan.c), its answers arrive here as whole
 * golden-shaped tests (verify_full_test_once) or as results-file entries (verify_rentries:
 * grouped by test, duplicates refused, each test passed in bytes where the scanner vouched
 * for it, else compared through the trees), and every golden case is reported once
 * (verify_report_missing).  An entry's answer is read here too (verify_parse_result, with
 * the old field spelling accepted), so both sources give it the same words.
 * Tested by verify_candidate.sh, verify_partial.sh, verify_fast.sh (both sources, byte for
 * byte) and the candidate and verify_diff fuzzers.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "golden.h"
#include "progress.h"
#include "report.h"
#include "verify.h"

/* A rank of a test the candidate answers for other ranks: a failure even under --answered,
 * whose filter drops only tests missing whole (verify_select_keep; issue 38 M12). */
#define RANK_MISSING "missing from the candidate, which answers this test for other ranks"

/* Let test i's golden tree go (shc_golden_test_done) unless partial_begin owns it. */
static void test_done(const vstate *s, int64_t i)
{
    if (s->pinned)
        return;
    shc_golden_test_done(s->g, i);
    if (s->narrowed)
        s->narrowed[i] = 0;
}

/* Test i's golden tree, restricted to a partial candidate's fields (s->narrow) on first use:
 * the restricted copy takes the parsed test's place until test_done lets it go. */
static json_t *gold_test(const vstate *s, int64_t i)
{
    json_t *t = shc_golden_test(s->g, i);
    if (!s->narrow || s->narrowed[i] || !t)
        return t;
    json_t *c = s->narrow(s->narrow_ctx, t);
    s->g->tests[i] = c; /* the cache's entry: shc_golden_test_done frees it */
    json_decref(t);
    s->narrowed[i] = 1;
    return c;
}

/* Writes "WORD" then v in decimal at buf[k..n) (cut at n - 1); the new end.  Not snprintf:
 * a case is named once per test. */
static size_t put_word_int(char *buf, size_t k, size_t n, const char *word, int64_t v)
{
    char d[SHC_I64_DEC_MAX];
    size_t nd = shc_i64_dec(v, d);
    for (; *word && k + 1 < n; word++)
        buf[k++] = *word;
    for (size_t j = 0; j < nd && k + 1 < n; j++)
        buf[k++] = d[j];
    return k;
}

void verify_case_name(char *buf, size_t n, int64_t tcid, int64_t rank)
{
    if (!n)
        return;
    size_t k = put_word_int(buf, 0, n, "tcId ", tcid);
    if (rank >= 0)
        k = put_word_int(buf, k, n, " rank ", rank);
    buf[k] = '\0';
}

/* A pass may carry a note (a GpuOnly digest that differs within the tolerance,
 * golden_compare.c): keep the first, naming its rank, to report beside the Pass. */
static void keep_note(char *note, size_t n, int bad, int64_t rank, const char *msg)
{
    if (bad || !msg[0] || note[0])
        return;
    if (rank >= 0)
        snprintf(note, n, "rank %lld: %s", (long long)rank, msg);
    else
        snprintf(note, n, "%s", msg);
}

/* Compare every rank of a golden-shaped candidate test. */
static void verify_full_test(vstate *s, int64_t idx, json_t *cand)
{
    json_t *gold = gold_test(s, idx);
    int64_t tcid = json_integer_value(json_object_get(gold, "tcId"));
    const char *cres = json_string_value(json_object_get(cand, "result"));
    json_t *cexp = json_object_get(cand, "expected");
    char name[96], msg[600];
    if ((cres && !strcmp(cres, "invalid")) || !json_is_object(cexp)) {
        json_t *got = json_pack("{s:s}", "error", "rejected");
        verify_case_name(name, sizeof name, tcid, -1);
        int ok = shc_compare_view(gold, -1, got, msg, sizeof msg);
        report_case(s->rep, name, ok ? ST_PASS : ST_FAIL, ok ? NULL : msg);
        json_decref(got);
        return;
    }
    if (json_equal(json_object_get(gold, "expected"), cexp)) { /* the common case: all ranks at once */
        verify_case_name(name, sizeof name, tcid, -1);
        report_case(s->rep, name, ST_PASS, NULL);
        return;
    }
    int64_t world = shc_expected_world(json_object_get(gold, "expected"));
    int bad = 0;
    char note[640] = "";
    for (int64_t r = world ? 0 : -1; r < (world ? world : 0) && !bad; r++) {
        json_t *got = shc_expected_view(cexp, r);
        if (!got) {
            snprintf(msg, sizeof msg, "candidate has no value for rank %lld", (long long)r);
            bad = 1;
        } else {
            bad = !shc_compare_view(gold, r, got, msg, sizeof msg);
            keep_note(note, sizeof note, bad, r, msg);
            json_decref(got);
        }
        verify_case_name(name, sizeof name, tcid, bad ? r : -1);
    }
    if (!world && !bad)
        verify_case_name(name, sizeof name, tcid, -1);
    report_case(s->rep, name, bad ? ST_FAIL : ST_PASS, bad ? msg : note[0] ? note : NULL);
}

/* verify_full_test, then the golden test's tree is let go (one test's tree at a time). */
void verify_full_test_once(vstate *s, int64_t idx, json_t *cand)
{
    verify_full_test(s, idx, cand);
    test_done(s, idx);
}

/* Two entries through pointers to them: by test, rank, then file position, so that ties
 * (duplicates) stay in file order and the pair reject_duplicates names does not depend on
 * the sort. */
static int cmp_rentry(const void *a, const void *b)
{
    const rentry *x = *(rentry *const *)a, *y = *(rentry *const *)b;
    if (x->idx != y->idx)
        return (x->idx > y->idx) - (x->idx < y->idx);
    if (x->rank != y->rank)
        return (x->rank > y->rank) - (x->rank < y->rank);
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* One spelling per concept (docs/DESIGN.md): a layout is "localShape" and "globalOffset"
 * (decimal strings) in golden files, in candidates and in `layout --json`.  Candidates written
 * against the old CLI spelling ("local_shape", "global_offset" as integers) are still accepted,
 * converted, with one warning per file. */
static const char *old_spelling_warned; /* the candidate warned about (once per file) */

void verify_warn_old_spelling(const char *path, size_t i)
{
    if (old_spelling_warned != path) {
        progress_hide();
        fprintf(stderr, "shardcheck verify: %s: results[%zu]: \"local_shape\"/\"global_offset\" "
                "is the old spelling of \"localShape\"/\"globalOffset\"; accepted (update the "
                "writer)\n", path, i);
    }
    old_spelling_warned = path;
}

static json_t *old_spelling(json_t *vals, const char *path, size_t i)
{
    json_t *ls = json_object_get(vals, "local_shape"), *go = json_object_get(vals, "global_offset");
    if (!ls && !go)
        return vals;
    verify_warn_old_spelling(path, i);
    if (ls && !json_object_get(vals, "localShape"))
        json_object_set(vals, "localShape", ls);
    if (json_is_array(go) && !json_object_get(vals, "globalOffset")) {
        json_t *a = json_array(), *x;
        size_t k;
        json_array_foreach(go, k, x)
            json_array_append_new(a, json_is_integer(x) ? json_sprintf("%lld",
                                      (long long)json_integer_value(x)) : json_incref(x));
        json_object_set_new(vals, "globalOffset", a);
    }
    json_object_del(vals, "local_shape");
    json_object_del(vals, "global_offset");
    return vals;
}

int verify_parse_result(const json_t *r, size_t i, const char *path, int64_t *tcid, int64_t *rank,
                        json_t **got, shc_err *e)
{
    json_t *id = json_object_get(r, "tcId"), *rk = json_object_get(r, "rank");
    json_t *vals = json_object_get(r, "values"), *err = json_object_get(r, "error");
    json_t *ns = json_object_get(r, "notSupported");
    if (!json_is_object(r) || !json_is_integer(id))
        return shc_fail(e, SHC_EFORMAT, "%s: results[%zu]: needs an integer \"tcId\"", path, i);
    if (rk && (!json_is_integer(rk) || json_integer_value(rk) < 0))
        return shc_fail(e, SHC_EFORMAT, "%s: results[%zu] (tcId %lld): \"rank\" must be a "
                        "non-negative integer", path, i, (long long)json_integer_value(id));
    if (ns && (!json_is_string(ns) || vals || err))
        return shc_fail(e, SHC_EFORMAT, "%s: results[%zu] (tcId %lld): \"notSupported\" takes "
                        "the reason as a string, on an entry without \"values\" or \"error\"",
                        path, i, (long long)json_integer_value(id));
    if (!ns && !err && !json_is_object(vals))
        return shc_fail(e, SHC_EFORMAT, "%s: results[%zu] (tcId %lld): needs a \"values\" object "
                        "or an \"error\"", path, i, (long long)json_integer_value(id));
    *tcid = json_integer_value(id);
    *rank = rk && !ns ? json_integer_value(rk) : -1; /* notSupported: the whole test */
    *got = ns    ? json_pack("{s:O}", "notSupported", ns)
           : err ? json_pack("{s:O}", "error", err)
                 : old_spelling(json_incref(vals), path, i);
    return SHC_OK;
}

/* Where jansson's error in an entry parsed alone lies in the whole file: line and column
 * as jansson counts them (a column counts characters, not UTF-8 continuation bytes, and not
 * the NUL byte it drops after a number, json_scan.c past_unget_nul). */
static void entry_error_at(const vstate *s, const rentry *r, const json_error_t *je, int *line,
                           int *col)
{
    int l = 1, c = 0;
    for (const char *p = s->base; s->base && p < s->base + r->text_off; p++) {
        if (*p == '\n')
            l++, c = 0;
        else if (*p && ((unsigned char)*p & 0xC0) != 0x80)
            c++;
    }
    *line = l + je->line - 1;
    *col = je->line == 1 ? c + je->column : je->column;
}

/* An entry's answer; the scanned path parses its bytes now.  The scan validated them as
 * jansson would (and a vouched values object holds golden's tokens), and the rules of
 * parse_result were applied to the spans, so nothing should fail here; should it, the
 * entry is bad input all the same (exit 2 with jansson's words, N1b of issue 27), never
 * an internal error.  NULL then, with s->fail and s->err set. */
static json_t *entry_got(vstate *s, rentry *r)
{
    if (r->got || s->fail)
        return r->got;
    json_error_t je;
    shc_span text = rentry_text(s->base, r);
    json_t *o = shc_json_loadb(text.p, text.n, &je);
    int64_t tcid, rank;
    if (!o) {
        int line, col;
        entry_error_at(s, r, &je, &line, &col);
        s->fail = shc_fail(s->err, SHC_EFORMAT, "candidate: %s: line %d column %d: %s", s->path,
                           line, col, je.text);
    } else if (verify_parse_result(o, r->pos, s->path, &tcid, &rank, &r->got, s->err)) {
        s->fail = s->err ? s->err->code : SHC_EFORMAT;
    }
    json_decref(o);
    shc_map_touched(text.n);
    return r->got;
}

/* Report one test from its sorted results entries [a, b).  A notSupported entry answers
 * the whole test (reject_duplicates let no other one stand beside it). */
static void verify_entries(vstate *s, rentry *const *v, size_t a, size_t b)
{
    for (size_t i = a; i < b; i++)
        if (!entry_got(s, v[i]))
            return; /* bad input after all: s->fail, nothing reported for the test */
    const char *ns = json_string_value(json_object_get(entry_got(s, v[a]), "notSupported"));
    if (ns) {
        char nm[64];
        verify_case_name(nm, sizeof nm, s->g->tcids[v[a]->idx], -1);
        report_case(s->rep, nm, ST_NOTSUPPORTED, *ns ? ns : "not supported by the candidate");
        return;
    }
    json_t *gold = gold_test(s, v[a]->idx);
    char name_ns[64];
    int64_t tcid = json_integer_value(json_object_get(gold, "tcId"));
    int64_t world = shc_expected_world(json_object_get(gold, "expected"));
    const char *res = json_string_value(json_object_get(gold, "result"));
    bool whole = v[a]->rank < 0 || world == 0 || !strcmp(res, "invalid");
    bool stricter = true;  /* every entry answered a StricterThanTorch case: NotSupported */
    for (size_t i = a; i < b && stricter; i++)
        stricter = shc_stricter_answered(gold, entry_got(s, v[i]));
    if (stricter) {
        verify_case_name(name_ns, sizeof name_ns, tcid, -1);
        report_case(s->rep, name_ns, ST_NOTSUPPORTED, SHC_STRICTER_ANSWERED);
        return;
    }
    char name[96], msg[600], note[640] = "";
    int64_t expect_rank = 0;
    for (size_t i = a; i < b; i++) {
        if (!whole && v[i]->rank != expect_rank) {
            verify_case_name(name, sizeof name, tcid, expect_rank);
            report_case(s->rep, name, ST_FAIL, v[i]->rank < expect_rank ? "rank reported twice"
                                                                        : RANK_MISSING);
            return;
        }
        int ok = shc_compare_view(gold, whole ? -1 : v[i]->rank, entry_got(s, v[i]), msg,
                                  sizeof msg);
        if (!ok) {
            verify_case_name(name, sizeof name, tcid, whole ? -1 : v[i]->rank);
            report_case(s->rep, name, ST_FAIL, msg);
            return;
        }
        keep_note(note, sizeof note, 0, whole ? -1 : v[i]->rank, msg);
        expect_rank++;
        if (whole)
            break;
    }
    verify_case_name(name, sizeof name, tcid, -1);
    if (!whole && expect_rank < world) {
        verify_case_name(name, sizeof name, tcid, expect_rank);
        report_case(s->rep, name, ST_FAIL, RANK_MISSING);
    } else {
        report_case(s->rep, name, ST_PASS, note[0] ? note : NULL);
    }
}

/* Whether test i is answered as a whole (rank-independent or invalid), from the golden
 * bytes when they are sure (the same world: the first perRank array's length), else the
 * tree. */
static bool answered_whole(vstate *s, int64_t i)
{
    const shc_gtext *t = s->g->text && !s->pinned && !s->narrow ? &s->g->text[i] : NULL;
    bool zero;
    /* an invalid test answered rank by rank is one answer that accepted the input (a Fail,
     * as another torch release answers it: verify_entries), not the test answered twice */
    if (t && (t->invalid || shc_bview_world_zero(t->expected, &zero))) {
        shc_map_touched(t->invalid ? 0 : t->expected.n); /* its bytes were searched */
        return !t->invalid && zero;
    }
    const json_t *gold = gold_test(s, i);
    const char *res = json_string_value(json_object_get(gold, "result"));
    bool whole = shc_expected_world(json_object_get(gold, "expected")) == 0 &&
                 !(res && !strcmp(res, "invalid"));
    test_done(s, i);
    return whole;
}

/* Whether every entry of test [a, b) holds, in bytes, the golden view it answers (the
 * scanned path, golden_bytes.c): then verify_entries would pass the test with no note,
 * and it is passed without a tree on either side.  Else the trees decide.  An entry
 * matched while scanned (same_world, vouch_values) is not compared again; the golden
 * bytes are split only for one that was not. */
static bool same_in_bytes(vstate *s, rentry *const *v, size_t a, size_t b)
{
    bool split = false;
    int64_t idx = v[a]->idx, world = v[a]->same_world;
    if (s->pinned || s->narrow ||
        (world < 0 && !(split = shc_bview_split_test(&s->bv, s->g, idx))))
        return false;
    if (world < 0)
        world = s->bv.world;
    if (b - a != (world ? (size_t)world : 1)) /* world 0: one entry (reject_duplicates) */
        return false;
    for (size_t i = a; i < b; i++) {
        int64_t rank = world ? (int64_t)(i - a) : -1; /* world 0: the whole view, any rank */
        if (world && v[i]->rank != rank)
            return false;
        if (v[i]->same_world == world)
            continue;
        if (!split && !(split = shc_bview_split_test(&s->bv, s->g, idx)))
            return false;
        shc_span values = rentry_values(s->base, v[i]);
        shc_map_touched(values.n);
        if (!shc_bview_same(&s->bv, rank, values))
            return false;
    }
    return true;
}

/* A second answer for the same (test, rank), or a whole-test answer next to
 * per-rank ones, is a malformed candidate (exit 2) as in the golden-shaped form:
 * reporting only the first would let a wrong duplicate pass unseen. */
static int reject_duplicates(vstate *s, rentry *const *v, size_t m, const char *path,
                             shc_err *e)
{
    int64_t test = -1;
    bool test_whole = false; /* of test: rank-independent or invalid (golden decides) */
    for (size_t i = 1; i < m; i++) {
        if (v[i]->idx != v[i - 1]->idx)
            continue;
        if (v[i]->idx != test) { /* once per test, not per entry */
            test_whole = answered_whole(s, v[i]->idx);
            test = v[i]->idx;
        }
        bool whole = v[i - 1]->rank < 0 || test_whole;
        if (!whole && v[i]->rank != v[i - 1]->rank)
            continue;
        size_t a = v[i - 1]->pos < v[i]->pos ? v[i - 1]->pos : v[i]->pos;
        size_t b = v[i - 1]->pos < v[i]->pos ? v[i]->pos : v[i - 1]->pos;
        long long tc = (long long)s->g->tcids[v[i]->idx];
        if (whole && v[i]->rank != v[i - 1]->rank)
            return shc_fail(e, SHC_EFORMAT, "%s: results[%zu] and results[%zu]: tcId %lld is "
                            "answered twice (once for the whole test, once per rank): a test "
                            "with per-rank fields is answered by one entry per rank, each "
                            "with every field of that rank, rank-independent ones included",
                            path, a, b, tc);
        return shc_fail(e, SHC_EFORMAT, "%s: results[%zu] and results[%zu]: tcId %lld%s appears "
                        "twice", path, a, b, tc, v[i]->rank >= 0 ? " (same rank)" : "");
    }
    return SHC_OK;
}

/* v[0, m) as pointers grouped by test in golden order, each test's entries in (rank,
 * position) order: a counting sort on the test, which keeps file order within a test (no
 * comparison sort, and no copy of the entries), then the few tests whose entries are not
 * in rank order sorted alone.  NULL when memory is short. */
static rentry **group_by_test(rentry *v, size_t m, int64_t ntests)
{
    size_t *start = calloc((size_t)ntests + 1, sizeof *start);
    rentry **o = malloc((m ? m : 1) * sizeof *o);
    if (!start || !o) {
        free(start);
        free(o);
        return NULL;
    }
    for (size_t i = 0; i < m; i++)
        start[v[i].idx + 1]++;
    for (int64_t t = 0; t < ntests; t++)
        start[t + 1] += start[t];
    for (size_t i = 0; i < m; i++)
        o[start[v[i].idx]++] = &v[i];
    free(start);
    for (size_t a = 0, b; a < m; a = b) {
        bool ordered = true;
        for (b = a + 1; b < m && o[b]->idx == o[a]->idx; b++)
            ordered = ordered && cmp_rentry(&o[b - 1], &o[b]) < 0;
        if (!ordered)
            qsort(o + a, b - a, sizeof *o, cmp_rentry);
    }
    return o;
}

/* The entries v[0, m) of known tests: grouped by test, duplicates rejected (exit 2 before
 * any of them is reported), then one test at a time, its answers and golden tree let go
 * after. */
int verify_rentries(vstate *s, rentry *v, size_t m, const char *path, shc_err *e)
{
    rentry **o = group_by_test(v, m, s->g->ntests);
    if (!o)
        return shc_fail(e, SHC_ENOMEM, "verify: out of memory");
    int rc = reject_duplicates(s, o, m, path, e);
    for (size_t a = 0, b; !rc && a < m; a = b) {
        for (b = a + 1; b < m && o[b]->idx == o[a]->idx; b++)
            ;
        s->seen[o[a]->idx] = 1;
        if (same_in_bytes(s, o, a, b)) {
            char name[64];
            verify_case_name(name, sizeof name, s->g->tcids[o[a]->idx], -1);
            report_case(s->rep, name, ST_PASS, NULL);
        } else {
            s->err = e;
            verify_entries(s, o, a, b);
            rc = s->fail;
        }
        test_done(s, o[a]->idx);
        for (size_t i = a; i < b; i++) {
            json_decref(o[i]->got);
            o[i]->got = NULL;
        }
    }
    free(o);
    return rc;
}

void verify_report_missing(vstate *s)
{
    for (int64_t i = 0; i < s->g->ntests; i++) {
        if (s->seen[i])
            continue;
        char name[64];
        verify_case_name(name, sizeof name, s->g->tcids[i], -1);
        report_case(s->rep, name, ST_FAIL, "missing from the candidate");
    }
}
