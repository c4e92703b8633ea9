/*
 * cmd_verify.c — `shardcheck verify`: check a vendor's results against a
 * golden family, or (with --manifest) check golden/ itself.
 *
 * A candidate is either a file in the golden schema (its tests' "expected"
 * compared per rank) or a minimal results file
 *   {"family":F,"results":[{"tcId":N,"rank":R,"values":{field:value}}, ...]}
 * where "rank" is omitted for rank-independent values and a rejected input is
 * reported as {"tcId":N,"error":"why"}.  Every golden case is reported: Pass,
 * Fail (expected vs got), or Fail "missing" when the candidate lacks it;
 * candidate entries for unknown tcIds are failures too.  Malformed candidate
 * files are exit 2 with the entry named.  On a terminal a progress bar counts the golden
 * cases (tools/cli/progress.h).  A candidate may declare the fields
 * it computes ("fields": [...], see partial_begin): the others are NotSupported.
 * Cases are reported through report.c, the reporter `run` uses too (text, --tap,
 * --junit FILE, --json; NotSupported cases listed with --verbose).  Exit 0, 1 a
 * failure, 77 when nothing passed (every case NotSupported), 2 bad input.
 * Tested by verify_candidate.sh, verify_partial.sh and hardening.sh.
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "golden.h"
#include "report.h"
#include "verify.h"
#include "torch_version.h"


/* Let test i's golden tree go (shc_golden_test_done) unless partial_begin owns it. */
static void test_done(const vstate *s, int64_t i)
{
    if (!s->pinned)
        shc_golden_test_done(s->g, i);
}

static int64_t test_index(const shc_golden *g, int64_t tcid) { return shc_golden_index(g, tcid); }

void verify_case_name(char *buf, size_t n, int64_t tcid, int64_t rank)
{
    if (rank >= 0)
        snprintf(buf, n, "tcId %lld rank %lld", (long long)tcid, (long long)rank);
    else
        snprintf(buf, n, "tcId %lld", (long long)tcid);
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
    json_t *gold = shc_golden_test(s->g, idx);
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

static int verify_golden_shaped(vstate *s, json_t *root, const char *path, shc_err *e)
{
    size_t gi, ti;
    json_t *grp, *t;
    json_array_foreach(json_object_get(root, "testGroups"), gi, grp) {
        json_array_foreach(json_object_get(grp, "tests"), ti, t) {
            json_t *id = json_object_get(t, "tcId");
            if (!json_is_integer(id))
                return shc_fail(e, SHC_EFORMAT, "%s: testGroups[%zu].tests[%zu] has no integer tcId",
                                path, gi, ti);
            int64_t idx = test_index(s->g, json_integer_value(id));
            char name[64];
            verify_case_name(name, sizeof name, json_integer_value(id), -1);
            if (idx < 0) {
                report_case(s->rep, name, ST_FAIL, "not a tcId of the golden family");
                continue;
            }
            if (s->seen[idx] == 2) /* NotSupported: no declared field (partial_begin) */
                continue;
            if (s->seen[idx])
                return shc_fail(e, SHC_EFORMAT, "%s: tcId %lld appears twice", path,
                                (long long)json_integer_value(id));
            s->seen[idx] = 1;
            verify_full_test_once(s, idx, t);
        }
    }
    return SHC_OK;
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

static int parse_result(const json_t *r, size_t i, const char *path, int64_t *tcid, int64_t *rank,
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
    } else if (parse_result(o, r->pos, s->path, &tcid, &rank, &r->got, s->err)) {
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
    json_t *gold = shc_golden_test(s->g, v[a]->idx);
    int64_t tcid = json_integer_value(json_object_get(gold, "tcId"));
    int64_t world = shc_expected_world(json_object_get(gold, "expected"));
    const char *res = json_string_value(json_object_get(gold, "result"));
    bool whole = v[a]->rank < 0 || world == 0 || !strcmp(res, "invalid");
    char name[96], msg[600], note[640] = "";
    int64_t expect_rank = 0;
    for (size_t i = a; i < b; i++) {
        if (!whole && v[i]->rank != expect_rank) {
            verify_case_name(name, sizeof name, tcid, expect_rank);
            report_case(s->rep, name, ST_FAIL, v[i]->rank < expect_rank ? "rank reported twice"
                                                                        : "missing from the candidate");
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
        report_case(s->rep, name, ST_FAIL, "missing from the candidate");
    } else {
        report_case(s->rep, name, ST_PASS, note[0] ? note : NULL);
    }
}

/* Whether test i is answered as a whole (rank-independent or invalid), from the golden
 * bytes when they are sure (the same world: the first perRank array's length), else the
 * tree. */
static bool answered_whole(vstate *s, int64_t i)
{
    const shc_gtext *t = s->g->text && !s->pinned ? &s->g->text[i] : NULL;
    bool zero;
    /* an invalid test answered rank by rank is one answer that accepted the input (a Fail,
     * as another torch release answers it: verify_entries), not the test answered twice */
    if (t && (t->invalid || shc_bview_world_zero(t->expected, &zero))) {
        shc_map_touched(t->invalid ? 0 : t->expected.n); /* its bytes were searched */
        return !t->invalid && zero;
    }
    const json_t *gold = shc_golden_test(s->g, i);
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
    if (s->pinned || (world < 0 && !(split = shc_bview_split_test(&s->bv, s->g, idx))))
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

static int verify_results(vstate *s, json_t *results, const char *path, shc_err *e)
{
    size_t n = json_array_size(results);
    rentry *v = calloc(n ? n : 1, sizeof *v);
    if (!v)
        return shc_fail(e, SHC_ENOMEM, "verify: out of memory");
    size_t m = 0;
    int rc = SHC_OK;
    for (size_t i = 0; i < n && !rc; i++) {
        int64_t tcid = 0, rank = -1;
        json_t *got = NULL;
        rc = parse_result(json_array_get(results, i), i, path, &tcid, &rank, &got, e);
        if (rc)
            break;
        int64_t idx = test_index(s->g, tcid);
        if (idx < 0) {
            char name[64];
            verify_case_name(name, sizeof name, tcid, rank);
            report_case(s->rep, name, ST_FAIL, "not a tcId of the golden family");
            json_decref(got);
            continue;
        }
        if (s->seen[idx] == 2) { /* NotSupported: no declared field (partial_begin) */
            json_decref(got);
            continue;
        }
        v[m++] = (rentry){idx, rank, got, (uint32_t)i, 0, 0, 0, 0, -1};
    }
    if (!rc)
        rc = verify_rentries(s, v, m, path, e);
    for (size_t i = 0; i < m; i++)
        json_decref(v[i].got);
    free(v);
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

/* A partial candidate declares the fields it computes: "fields": [names]
 * (top-level or perRank names alike).  Its golden tests are compared on those
 * fields only, through restricted copies swapped into g->tests for the run;
 * the fields left out are NotSupported (listed on stderr), a test left with
 * nothing to compare is reported NotSupported, and a declared field the
 * candidate omits fails like any missing field.  Tested by verify_partial.sh. */
typedef struct partial { json_t *owned, *left; json_t **orig; } partial;

static void count_field(json_t *left, const char *f)
{
    json_object_set_new(left, f, json_integer(json_integer_value(json_object_get(left, f)) + 1));
}

static json_t *restrict_expected(json_t *exp, const json_t *fset, json_t *left)
{
    json_t *out = json_object();
    const char *k;
    json_t *v;
    json_object_foreach(exp, k, v) {
        if (!strcmp(k, "perRank") && json_is_object(v)) {
            json_t *per = json_object(), *x;
            const char *f;
            json_object_foreach(v, f, x) {
                if (json_object_get(fset, f))
                    json_object_set(per, f, x);
                else if (left)
                    count_field(left, f);
            }
            if (json_object_size(per))
                json_object_set(out, k, per);
            json_decref(per);
        } else if (!strcmp(k, "alternatives") && json_is_array(v)) {
            json_t *alts = json_array(), *a;
            size_t i;
            json_array_foreach(v, i, a)
                json_array_append_new(alts, restrict_expected(a, fset, NULL));
            json_object_set_new(out, k, alts);
        } else if (!strcmp(k, "error") || json_object_get(fset, k)) {
            json_object_set(out, k, v);
        } else if (left) {
            count_field(left, k);
        }
    }
    return out;
}

/* Whether name is a field of some test's expected object (top-level or perRank). */
static bool family_has_field(const shc_golden *g, const char *name)
{
    for (int64_t i = 0; i < g->ntests; i++) {
        json_t *exp = json_object_get(shc_golden_test(g, i), "expected");
        if (strcmp(name, "perRank") && strcmp(name, "alternatives") && strcmp(name, "error") &&
            (json_object_get(exp, name) || json_object_get(json_object_get(exp, "perRank"), name)))
            return true;
    }
    return false;
}

static int partial_begin(vstate *s, json_t *root, const char *path, partial *p, shc_err *e)
{
    json_t *fields = json_object_get(root, "fields"), *f;
    if (!fields)
        return SHC_OK;
    if (!json_is_array(fields) || !json_array_size(fields))
        return shc_fail(e, SHC_EFORMAT, "candidate %s: \"fields\" must be a non-empty array of "
                        "field names", path);
    json_t *fset = json_object();
    size_t i;
    json_array_foreach(fields, i, f) {
        const char *name = json_string_value(f);
        if (!name || !*name || !family_has_field(s->g, name)) {
            json_decref(fset);
            if (!name || !*name)
                return shc_fail(e, SHC_EFORMAT, "candidate %s: fields[%zu] must be a non-empty "
                                "string", path, i);
            return shc_fail(e, SHC_EFORMAT, "candidate %s: fields[%zu] \"%s\" is not an "
                            "expected field of family %s", path, i, name, s->g->family);
        }
        json_object_set_new(fset, name, json_true());
    }
    p->orig = malloc((size_t)(s->g->ntests ? s->g->ntests : 1) * sizeof *p->orig);
    if (!p->orig) {
        json_decref(fset);
        return shc_fail(e, SHC_ENOMEM, "verify: out of memory");
    }
    s->pinned = true;
    p->owned = json_array();
    p->left = json_object();
    for (int64_t t = 0; t < s->g->ntests; t++) {
        json_t *test = p->orig[t] = shc_golden_test(s->g, t), *copy = json_copy(test);
        json_t *exp = restrict_expected(json_object_get(test, "expected"), fset, p->left);
        const char *res = json_string_value(json_object_get(test, "result"));
        bool nothing = !json_object_get(exp, "perRank") &&
                       json_object_size(exp) == (size_t)!!json_object_get(exp, "alternatives") +
                                                (size_t)!!json_object_get(exp, "error");
        json_object_set_new(copy, "expected", exp);
        json_array_append_new(p->owned, copy);
        s->g->tests[t] = copy;
        if (nothing && res && strcmp(res, "invalid")) {
            char name[64];
            verify_case_name(name, sizeof name, json_integer_value(json_object_get(test, "tcId")), -1);
            report_case(s->rep, name, ST_NOTSUPPORTED, "no field the candidate declares");
            s->seen[t] = 2;
        }
    }
    json_decref(fset);
    return SHC_OK;
}

/* Restore the golden tests and name the fields left NotSupported. */
static void partial_end(vstate *s, partial *p)
{
    if (!p->orig)
        return;
    for (int64_t t = 0; t < s->g->ntests; t++)
        s->g->tests[t] = p->orig[t];
    const char *k;
    json_t *v;
    progress_hide();
    json_object_foreach(p->left, k, v)
        fprintf(stderr, "verify: NotSupported field %s (not declared by the candidate): %lld "
                "tests\n", k, (long long)json_integer_value(v));
    free(p->orig);
    json_decref(p->owned);
    json_decref(p->left);
}

int verify_candidate(const shc_golden *g, const char *path, report *rep, shc_err *e)
{
    int fast = verify_scanned(g, path, rep, e);
    if (fast != SHC_SCAN_UNSURE)
        return fast;
    if (verify_scan_only())
        return shc_fail(e, SHC_EINVAL, "candidate %s: SHARDCHECK_VERIFY_TREES=0, and the scanner "
                        "leaves this file to the jansson trees", path);
    json_t *root = shc_json_load_path(path, e);
    if (!root)
        return shc_err_prefix(e, "candidate");
    const char *fam = json_string_value(json_object_get(root, "family"));
    int rc = SHC_OK;
    if (json_object_get(root, "family") && !fam) /* a number passed as "no family" */
        rc = shc_fail(e, SHC_EFORMAT, "candidate %s: \"family\" is not a string", path);
    else if (fam && strcmp(fam, g->family))
        rc = shc_fail(e, SHC_EFORMAT, "candidate %s: family \"%s\", verifying \"%s\"", path, fam,
                      g->family);
    vstate s = {.g = g, .rep = rep, .seen = calloc((size_t)(g->ntests ? g->ntests : 1), 1),
                .path = path};
    json_t *results = json_object_get(root, "results");
    partial part = {0};
    if (!rc)
        rc = partial_begin(&s, root, path, &part, e);
    if (rc) {
    } else if (json_is_array(json_object_get(root, "testGroups"))) {
        rc = verify_golden_shaped(&s, root, path, e);
    } else if (json_is_array(results)) {
        rc = verify_results(&s, results, path, e);
    } else {
        rc = shc_fail(e, SHC_EFORMAT, "candidate %s: neither \"testGroups\" (golden schema) nor "
                      "\"results\" (results file)", path);
    }
    if (!rc)
        verify_report_missing(&s);
    partial_end(&s, &part);
    free(s.seen);
    shc_bview_free(&s.bv);
    if (shc_free_at_exit()) /* verify's last act: the OS frees the tree faster */
        json_decref(root);
    return rc;
}

/* --manifest: MANIFEST hashes plus structural validation of every family. */
static int verify_manifest(const char *dir)
{
    shc_err e = {0};
    int rc = shc_manifest_verify(dir, &e);
    if (rc)
        return cli_report("verify", rc, &e);
    const shc_family *const *all = shc_families();
    long long files = 0, tests = 0;
    for (int i = 0; all[i]; i++) {
        shc_golden g;
        rc = shc_golden_load_family(&g, dir, all[i]->name, &e);
        if (rc)
            return cli_report("verify", rc, &e);
        files += g.nfiles;
        tests += g.ntests;
        shc_golden_free(&g);
    }
    printf("golden %s: MANIFEST ok, %lld files, %lld tests, structure ok\n", dir, files, tests);
    return EXIT_OK;
}

/* Options another mode uses are refused by name (issue 25 item 4): --manifest checks the
 * corpus only; one format; --verbose lists passes in the text report only. */
static int verify_modes(const cli_command *cmd, int fmt, int manifest)
{
    if (manifest)
        return cli_used(cmd, "manifest golden", "with --manifest (it checks the corpus, no "
                        "candidate)");
    if (cli_given(cmd, "tap") && cli_given(cmd, "json"))
        return cli_usage_error("verify", "--tap and --json exclude each other");
    if (fmt != REP_TEXT && cli_given(cmd, "verbose"))
        return cli_usage_error("verify", "--verbose: not used with --%s (it lists every case)",
                               fmt == REP_TAP ? "tap" : "json");
    return CLI_GO;
}

int cmd_verify(int argc, char **argv)
{
    const char *family = NULL, *cand = NULL, *dir = NULL, *junit = NULL, *tver = NULL;
    int fmt = REP_TEXT, verbose = 0, manifest = 0;
    unsigned long long given = 0;
    const cli_option opts[] = {
        {.name = "family", .kind = CLI_STR, .meta = "F", .help = "the golden family", .to = &family},
        {.name = "candidate", .kind = CLI_STR, .meta = "FILE", .to = &cand,
         .help = "the candidate's results: {\"family\", \"results\": [...]} or the golden schema"},
        {.name = "golden", .kind = CLI_STR, .meta = "DIR", .help = CLI_GOLDEN_HELP, .to = &dir},
        {.name = "tap", .kind = CLI_FLAG, .help = "TAP on stdout", .to = &fmt, .set = REP_TAP},
        {.name = "junit", .kind = CLI_STR, .meta = "FILE", .help = "also JUnit XML into FILE",
         .to = &junit},
        {.name = "json", .kind = CLI_FLAG, .help = "one JSON report on stdout", .to = &fmt,
         .set = REP_JSON},
        {.name = "verbose", .kind = CLI_FLAG, .help = "text: list passes too", .to = &verbose},
        {.name = "torch-version", .kind = CLI_STR, .meta = "V", .help = TV_HELP, .to = &tver},
        {.name = "manifest", .kind = CLI_FLAG, .help = "check MANIFEST and every golden file's "
         "structure instead", .to = &manifest},
        CLI_OPT_END};
    const cli_command cmd = {
        .name = "verify", .opts = opts, .given = &given,
        .synopsis = "--family F --candidate FILE [--golden DIR] [--torch-version V] "
                    "[--tap | --junit FILE | --json] [--verbose]\n       shardcheck verify "
                    "--manifest [--golden DIR]"};
    int x = cli_parse(&cmd, argc, argv, NULL);
    if (x != CLI_GO)
        return x;
    if ((x = verify_modes(&cmd, fmt, manifest)) != CLI_GO)
        return x;
    if (!manifest && (!family || !cand))
        return cli_usage_error("verify", "--family and --candidate are required");
    if (!manifest && !shc_family_find(family))
        return cli_usage_error("verify", "--family: unknown family '%s' (see gen --list)",
                               CLI_ECHO(family));
    shc_err e = {0};
    if (!(dir = cli_golden_dir(dir, &e)))
        return cli_report("verify", e.code, &e);
    if (manifest)
        return verify_manifest(dir);
    out_inputs in = {0}; /* --junit must not overwrite the candidate or a golden file */
    out_inputs_file(&in, "given as --candidate", cand);
    out_inputs_tree(&in, "golden directory", dir, 1);
    int rc = out_refuse(&in, "--junit", junit, &e);
    out_inputs_free(&in);
    if (rc)
        return cli_report("verify", rc, &e);
    shc_golden g;
    shc_torch_release rel;
    char rec[64], why[256];
    if (!rc)
        rc = tv_resolve(tver, tv_recorded(cand, rec, sizeof rec) ? rec : NULL, cand, &rel, why,
                        sizeof why, &e);
    /* the golden files are the oracle: a tampered one would fail a correct candidate and
     * pass a matching wrong one, so they must match MANIFEST before anything is compared */
    if (!rc)
        rc = shc_manifest_verify_family(dir, family, &e);
    if (!rc)
        rc = verify_trees_only() ? shc_golden_load_family_at(&g, dir, family, rel, &e)
                          : shc_golden_index_family_at(&g, dir, family, rel, &e);
    if (rc)
        return cli_report("verify", rc, &e);
    if (g.unversioned)
        fprintf(stderr, "verify: note: %s has no version data (source.releases): read as what "
                "it is, torch %s's answers\n", g.unversioned,
                shc_torch_release_name(SHC_TORCH_PIN_RELEASE));
    report rep;
    report_opts ro = {.fmt = (report_format)fmt, .cmd = "verify", .suite = family,
                      .junit_path = junit, .verbose = verbose,
                      .head = json_pack("{s:s}", "suite", family),
                      .torch = shc_torch_release_name(rel), .torch_why = why};
    if (report_open(&rep, &ro)) {
        int err = errno;
        shc_golden_free(&g);
        return cli_usage_error("verify", "--junit: cannot write %s: %s", junit, strerror(err));
    }
    progress bar;
    char label[96];
    snprintf(label, sizeof label, "verify %s", family);
    progress_begin(&bar, label, g.ntests);
    rep.bar = &bar;
    rc = verify_candidate(&g, cand, &rep, &e);
    progress_end(&bar);
    rep.bar = NULL;
    /* a refused candidate (exit 2) gets no closing count line: "0 passed, 0 failed" would
     * read to a CI grep as a run that checked nothing and failed nothing (issue 22 item 3) */
    int code = EXIT_USAGE;
    if (rc)
        report_abandon(&rep);
    else
        code = report_close(&rep);
    if (shc_free_at_exit())
        shc_golden_free(&g);
    return rc ? cli_report("verify", rc, &e) : code;
}
