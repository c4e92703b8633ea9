/*
 * explain_case.c — `shardcheck explain --family F --tcid N [--candidate FILE]` (explain_case.h):
 * one golden case in one look.  Its identity (family, tcId, comment, golden file, result),
 * its flags with their notes, its inputs (the group's members and its own, as verify's
 * failure groups give them), the picture of the layout(s) its inputs describe
 * (explain_draw.c) and of the output layout its answer names ("output" over "outputShape":
 * a view op's result), and its expected answer per rank.  Given a candidate — a results file
 * or a golden-shaped file, exactly as verify reads them (a partial candidate's "fields"
 * included) — its answer per rank beside the expected one, every differing field marked
 * with '*': the fields are those verify's compare names (shc_compare_view lists every
 * differing field), so explain and verify never disagree about a case.  A run's JSON
 * (`run --json`) is a candidate too: the run's status and detail for the case, and the views
 * it kept of a failure (at most 64 ranks) compared the same way.
 * Bad input (exit 2, named): an unknown family, a tcId the family lacks, an invalid case
 * (its answer is a refusal: nothing to draw), a candidate of another family, malformed or
 * answering the case twice, --svg of a case without a layout.  Only golden-format
 * knowledge and the inputs' layout members are used: no family is named here.
 * It lives in tools/cli beside cmd_explain.c (messages and exit codes are the CLI's); the
 * drawing is tools/kit/explain_draw.c's.  Tested by conformance/tests/cli_explain.sh and
 * run_failure_groups.sh (a run's JSON).
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "explain.h"
#include "explain_case.h"
#include "family.h"
#include "golden.h"
#include "report.h"
#include "torch_version.h"
#include "verify.h"

#define XC_SHOWN_RANKS 64 /* ranks printed in full; more fail or pass in one line */
#define XC_VALUE 40       /* characters of a value shown in a column */

/* ---- the candidate's answer to one case ---- */

typedef struct xanswer {
    json_t *whole;      /* an answer for the whole test (rank-independent, a refusal, a
                         * golden-shaped test's expected), or NULL */
    json_t **rank;      /* per rank (world entries), NULL where not answered */
    int64_t world;
    bool shaped;        /* whole is a golden-shaped test's expected: split per rank */
    const char *ns;     /* NotSupported: its reason (borrowed from root) */
    json_t *fields;     /* a partial candidate's declared fields, or NULL */
    int64_t extra_rank; /* the lowest rank answered that the case does not have, or -1 */
    bool found;
    /* a run's JSON (`run --json`): the case's status and detail, the backend (borrowed from
     * root); its views, where the run kept them (a failure's), are the answer per rank */
    const char *run_status, *run_detail, *run_backend;
} xanswer;

static void answer_free(xanswer *a)
{
    json_decref(a->whole);
    for (int64_t r = 0; a->rank && r < a->world; r++)
        json_decref(a->rank[r]);
    free(a->rank);
}

/* A golden-shaped candidate's test tcid. */
static int answer_golden_shaped(const json_t *root, int64_t tcid, xanswer *a, const char *path,
                                shc_err *e)
{
    size_t gi, ti;
    json_t *grp, *t;
    json_array_foreach(json_object_get(root, "testGroups"), gi, grp)
        json_array_foreach(json_object_get(grp, "tests"), ti, t) {
            if (json_integer_value(json_object_get(t, "tcId")) != tcid ||
                !json_is_integer(json_object_get(t, "tcId")))
                continue;
            if (a->found)
                return shc_fail(e, SHC_EFORMAT, "%s: tcId %lld appears twice", path,
                                (long long)tcid);
            const char *res = json_string_value(json_object_get(t, "result"));
            json_t *exp = json_object_get(t, "expected");
            a->found = true;
            if ((res && !strcmp(res, "invalid")) || !json_is_object(exp))
                a->whole = json_pack("{s:s}", "error", "rejected");
            else
                a->whole = json_incref(exp), a->shaped = true; /* split per rank */
        }
    return SHC_OK;
}

/* A results file's entries for tcid, as verify reads them (verify_parse_result); a rank
 * answered twice, or the whole test beside per-rank answers, is refused as verify refuses
 * it. */
static int answer_results(const json_t *results, int64_t tcid, xanswer *a, const char *path,
                          shc_err *e)
{
    size_t i;
    json_t *r;
    long long whole_at = -1, first_at = -1;
    json_array_foreach(results, i, r) {
        int64_t tc, rank;
        json_t *got = NULL;
        int rc = verify_parse_result(r, i, path, &tc, &rank, &got, e);
        if (rc)
            return rc;
        if (tc != tcid) {
            json_decref(got);
            continue;
        }
        if (a->world == 0) /* a test without per-rank fields: any entry answers it whole */
            rank = -1;
        if (json_object_get(got, "notSupported"))
            a->ns = json_string_value(json_object_get(r, "notSupported"));
        bool dup = rank < 0 ? first_at >= 0 : (whole_at >= 0 ||
                   (rank < a->world && a->rank[rank]));
        if (dup) {
            json_decref(got);
            return shc_fail(e, SHC_EFORMAT, "%s: results[%llu] and results[%zu]: tcId %lld "
                            "is answered twice", path,
                            (unsigned long long)(whole_at >= 0 ? whole_at : first_at), i,
                            (long long)tcid);
        }
        if (rank >= a->world) { /* a rank the case does not have: a failure, as in verify */
            json_decref(got);
            if (a->extra_rank < 0 || rank < a->extra_rank)
                a->extra_rank = rank;
            continue;
        }
        if (first_at < 0)
            first_at = (long long)i;
        a->found = true;
        if (rank < 0) /* a whole answer holding "perRank" (a partial candidate's) is shown split */
            a->whole = got, whole_at = (long long)i,
            a->shaped = a->world > 0 && json_is_object(json_object_get(got, "perRank"));
        else
            a->rank[rank] = got;
    }
    return SHC_OK;
}

/* A run's JSON (`run --json`): the case (family fam, tcid) it reported, with the views it
 * kept of a failure as the answer per rank. */
static int answer_run(const json_t *root, const char *fam, int64_t tcid, xanswer *a,
                      const char *path, shc_err *e)
{
    size_t i, at = 0;
    json_t *c;
    a->run_backend = json_string_value(json_object_get(root, "backend"));
    json_array_foreach(json_object_get(root, "cases"), i, c) {
        const char *cf = json_string_value(json_object_get(c, "family"));
        json_t *tc = json_object_get(c, "tcId");
        if (!cf || !json_is_integer(tc) || strcmp(cf, fam) || json_integer_value(tc) != tcid)
            continue;
        if (a->run_status)
            return shc_fail(e, SHC_EFORMAT, "--candidate %s: cases[%zu] and cases[%zu]: %s tcId "
                            "%lld is reported twice", path, at, i, fam, (long long)tcid);
        at = i;
        if (!(a->run_status = json_string_value(json_object_get(c, "status"))))
            return shc_fail(e, SHC_EFORMAT, "--candidate %s: cases[%zu]: \"status\" must be a "
                            "string", path, i);
        a->run_detail = json_string_value(json_object_get(c, "detail"));
        json_t *views = json_object_get(c, "views");
        if (!views)
            continue;
        if (!json_is_array(views) || (int64_t)json_array_size(views) != a->world)
            return shc_fail(e, SHC_EFORMAT, "--candidate %s: cases[%zu]: \"views\" must be an "
                            "array of the case's %lld ranks' views", path, i, (long long)a->world);
        for (int64_t r = 0; r < a->world; r++) {
            json_t *v = json_array_get(views, (size_t)r);
            a->rank[r] = json_is_object(v) ? json_incref(v) : NULL;
        }
        a->found = true;
    }
    if (!a->run_status)
        return shc_fail(e, SHC_EFORMAT, "--candidate %s: the run reported no case %s tcId %lld "
                        "(run --family %s, without --max-cases, reports every case)", path, fam,
                        (long long)tcid, fam);
    return SHC_OK;
}

/* The candidate at path answering test (world ranks) of family fam. */
static int answer_load(const char *path, const char *fam, const json_t *test, int64_t world,
                       xanswer *a, json_t **rootp, shc_err *e)
{
    json_t *root = *rootp = shc_json_load_path(path, e);
    if (!root)
        return shc_err_prefix(e, "--candidate");
    const char *cf = json_string_value(json_object_get(root, "family"));
    if (json_object_get(root, "family") && (!cf || strcmp(cf, fam)))
        return shc_fail(e, SHC_EFORMAT, "--candidate %s: family %s%s%s, explaining \"%s\"", path,
                        cf ? "\"" : "(not a string)", cf ? cf : "", cf ? "\"" : "", fam);
    json_t *fields = json_object_get(root, "fields");
    if (fields && (!json_is_array(fields) || !json_array_size(fields)))
        return shc_fail(e, SHC_EFORMAT, "--candidate %s: \"fields\" must be a non-empty array "
                        "of field names", path);
    a->fields = fields;
    a->world = world;
    a->rank = calloc((size_t)(world ? world : 1), sizeof *a->rank);
    if (!a->rank)
        return shc_fail(e, SHC_ENOMEM, "explain: out of memory");
    int64_t tcid = json_integer_value(json_object_get(test, "tcId"));
    if (json_is_array(json_object_get(root, "testGroups")))
        return answer_golden_shaped(root, tcid, a, path, e);
    if (json_is_array(json_object_get(root, "results")))
        return answer_results(json_object_get(root, "results"), tcid, a, path, e);
    if (json_is_array(json_object_get(root, "cases")) &&
        json_is_string(json_object_get(root, "backend")))
        return answer_run(root, fam, tcid, a, path, e);
    return shc_fail(e, SHC_EFORMAT, "--candidate %s: neither \"testGroups\" (golden schema), "
                    "\"results\" (results file) nor \"backend\" and \"cases\" (run --json)",
                    path);
}

/* ---- printing ---- */

/* A value compactly, cut to fit buf ("..." ending a cut one). */
static void show_in(char *buf, size_t n, const json_t *v)
{
    char *s = v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    const char *t = v ? (s ? s : "?") : "-";
    if (strlen(t) >= n && n > 4)
        snprintf(buf, n, "%.*s...", (int)n - 4, t);
    else
        snprintf(buf, n, "%s", t);
    free(s);
}

/* The same, cut to XC_VALUE characters (a column). */
static void show(char *buf, size_t n, const json_t *v)
{
    show_in(buf, n < XC_VALUE + 1 ? n : XC_VALUE + 1, v);
}

/* Whether field f is one the partial candidate declares (every field without "fields"). */
static bool claimed(const xanswer *a, const char *f)
{
    size_t i;
    json_t *x;
    if (!a->fields)
        return true;
    json_array_foreach(a->fields, i, x)
        if (json_is_string(x) && !strcmp(json_string_value(x), f))
            return true;
    return false;
}

/* The test as verify compares a partial candidate's answer: expected restricted to the
 * declared fields (verify_tree.c's partial_begin). */
static json_t *restricted(const json_t *test, const xanswer *a)
{
    json_t *t = json_copy((json_t *)test), *exp = json_deep_copy(json_object_get(test, "expected"));
    if (a->fields) {
        json_t *per = json_object_get(exp, "perRank"), *v;
        const char *k;
        void *tmp;
        json_object_foreach_safe(exp, tmp, k, v)
            if (strcmp(k, "perRank") && strcmp(k, "error") && strcmp(k, "alternatives") &&
                !claimed(a, k))
                json_object_del(exp, k);
        json_object_foreach_safe(per, tmp, k, v)
            if (!claimed(a, k))
                json_object_del(per, k);
    }
    json_object_set_new(t, "expected", exp);
    return t;
}

/* One rank (or the whole test, rank -1): its verdict, then a row per field, '*' on each
 * field verify names as differing.  Returns whether it passed. */
static bool print_rank(const json_t *test, const json_t *cmp, const xanswer *a, int64_t rank,
                       const json_t *got)
{
    char msg[2048], w[128], g[128], who[48];
    json_t *want = shc_expected_view(json_object_get(test, "expected"), rank);
    int ok = got && shc_compare_view(cmp, rank, got, msg, sizeof msg);
    if (!got)
        snprintf(msg, sizeof msg, "missing from the candidate");
    if (rank >= 0)
        snprintf(who, sizeof who, "rank %lld", (long long)rank);
    else
        snprintf(who, sizeof who, "every rank");
    printf("  %s: %s%s%s\n", who, ok ? "Pass" : "Fail", msg[0] ? "  " : "", msg);
    json_t *diff = ok ? json_array() : report_detail_fields(msg);
    json_t *keys = json_object();
    const char *k;
    json_t *v;
    json_object_foreach(want, k, v)
        json_object_set_new(keys, k, json_true());
    if (json_is_object(got))
        json_object_foreach((json_t *)got, k, v)
            json_object_set_new(keys, k, json_true());
    int width = 4, kw = 8; /* the columns: as wide as this rank's widest field and value */
    json_object_foreach(keys, k, v) {
        show(w, sizeof w, json_object_get(want, k));
        width = (int)strlen(w) > width ? (int)strlen(w) : width;
        kw = (int)strlen(k) > kw ? (int)strlen(k) : kw;
    }
    json_object_foreach(keys, k, v) {
        bool mark = false;
        size_t i;
        json_t *d;
        json_array_foreach(diff, i, d)
            mark |= !strcmp(json_string_value(d), k);
        show(w, sizeof w, json_object_get(want, k));
        show(g, sizeof g, json_is_object(got) ? json_object_get(got, k) : NULL);
        printf("    %c %-*s  expected %-*s  got %s%s\n", mark ? '*' : ' ', kw, k, width, w, g,
               claimed(a, k) ? "" : "  (not claimed: NotSupported)");
    }
    json_decref(keys);
    json_decref(diff);
    json_decref(want);
    return ok;
}

/* The expected answer alone: rank-independent fields once, then each rank's. */
static void print_expected(const json_t *test, int64_t world)
{
    const json_t *exp = json_object_get(test, "expected"), *per = json_object_get(exp, "perRank");
    char v[128];
    const char *k;
    json_t *x;
    printf("\nexpected (torch's answer):\n");
    json_object_foreach((json_t *)exp, k, x)
        if (strcmp(k, "perRank")) {
            show(v, sizeof v, x);
            printf("  %-22s %s\n", k, v);
        }
    for (int64_t r = 0; r < world && r < XC_SHOWN_RANKS; r++) {
        printf("  rank %-4lld", (long long)r);
        json_object_foreach((json_t *)per, k, x) {
            show(v, sizeof v, json_array_get(x, (size_t)r));
            printf("  %s %s", k, v);
        }
        putchar('\n');
    }
    if (world > XC_SHOWN_RANKS)
        printf("  ... %lld more ranks\n", (long long)(world - XC_SHOWN_RANKS));
}

/* Whether the restricted expected object leaves nothing to compare (verify reports such a
 * test NotSupported: "no field the candidate declares"). */
static bool nothing_claimed(const json_t *cmp)
{
    const json_t *exp = json_object_get(cmp, "expected");
    return !json_object_get(exp, "perRank") &&
           json_object_size(exp) == (size_t)!!json_object_get(exp, "alternatives") +
                                    (size_t)!!json_object_get(exp, "error");
}

/* Whether a run's JSON says the case did not pass (Fail, Crash, Timeout, InternalError). */
static bool run_failed(const xanswer *a)
{
    const char *st = a->run_status;
    return st && strcmp(st, "Pass") && strcmp(st, "NotSupported") && strcmp(st, "Waived");
}

/* A run's verdict on the case, and whether its views follow (else whether it passed). */
static bool print_run_head(const xanswer *a, const char *path, bool *ok)
{
    const char *st = a->run_status;
    bool bad = run_failed(a);
    printf("\ncandidate %s (shardcheck run --backend %s):\n  %s%s%s\n", path,
           a->run_backend, st, a->run_detail ? "  " : "", a->run_detail ? a->run_detail : "");
    *ok = !bad;
    if (a->found)
        return true;
    if (bad) /* run --json keeps a Fail's views; a crash or a timeout has none */
        printf("  (the run kept no views of this case: only a Fail's are kept, on at most 64 "
               "ranks)\n");
    return false;
}

/* The candidate's answer beside the expected one; returns whether the case passes. */
static bool print_candidate(const json_t *test, const xanswer *a, const char *path)
{
    bool run_ok;
    if (a->run_status && !print_run_head(a, path, &run_ok))
        return run_ok;
    if (!a->run_status)
        printf("\ncandidate %s:\n", path);
    if (!a->found) {
        printf("  Fail  missing from the candidate (no answer for this tcId)\n");
        return false;
    }
    if (a->ns) {
        printf("  NotSupported: %s\n", *a->ns ? a->ns : "not supported by the candidate");
        return true;
    }
    json_t *cmp = restricted(test, a);
    if (a->fields && nothing_claimed(cmp)) {
        printf("  NotSupported: no field the candidate declares\n");
        json_decref(cmp);
        return true;
    }
    bool ok;
    if (a->world == 0 || (a->whole && !a->shaped)) { /* one answer for the whole test */
        ok = print_rank(test, cmp, a, -1, a->whole);
        json_decref(cmp);
        return ok;
    }
    int64_t failed = 0, shown = 0, hidden = 0;
    for (int64_t r = 0; r < a->world; r++) {
        json_t *got = a->shaped ? shc_expected_view(a->whole, r) : json_incref(a->rank[r]);
        char msg[2048];
        ok = got && shc_compare_view(cmp, r, got, msg, sizeof msg);
        /* the first ranks, and past them the failing ones, up to a screenful each */
        if (r < XC_SHOWN_RANKS || (!ok && shown < 2 * XC_SHOWN_RANKS))
            print_rank(test, cmp, a, r, got), shown++;
        else
            hidden += !ok;
        json_decref(got);
        failed += !ok;
    }
    if (a->world > shown)
        printf("  (%lld more ranks not shown, %lld of them differing)\n",
               (long long)(a->world - shown), (long long)hidden);
    if (a->extra_rank >= 0) /* verify fails the case for it too, in these words */
        printf("  rank %lld: Fail  rank %lld is outside the test's world (%lld ranks)\n",
               (long long)a->extra_rank, (long long)a->extra_rank, (long long)a->world);
    printf("  %lld of %lld ranks differ from the expected answer\n", (long long)failed,
           (long long)a->world);
    if (!failed && run_failed(a)) /* every view right: the run's cross-rank checks failed */
        printf("  (every rank's view is the expected one: the run failed the family's checks "
               "across ranks, its detail above)\n");
    json_decref(cmp);
    return failed == 0 && a->extra_rank < 0;
}

/* ---- the command ---- */

/* Identity, flags with notes, inputs. */
static void print_head(const shc_golden *g, int64_t idx, const char *why, json_t *inputs)
{
    const json_t *t = shc_golden_test(g, idx);
    int file = shc_golden_file_of(g, idx);
    const char *slash = file >= 0 ? strrchr(g->paths[file], '/') : NULL;
    const char *comment = json_string_value(json_object_get(t, "comment"));
    printf("%s tcId %lld:%s%s  (%s/%s, result %s)\n", g->family,
           (long long)json_integer_value(json_object_get(t, "tcId")),
           comment && *comment ? " " : "", comment ? comment : "", g->family,
           slash ? slash + 1 : "?",
           json_string_value(json_object_get(t, "result")));
    printf("judged against torch %s (%s)\n", shc_torch_release_name(g->torch), why);
    size_t i;
    json_t *fl;
    printf("flags:%s\n", json_array_size(json_object_get(t, "flags")) ? "" : " none");
    json_array_foreach(json_object_get(t, "flags"), i, fl) {
        const char *note = shc_golden_note(g, json_string_value(fl));
        printf("  %s: %s\n", json_string_value(fl), note ? note : "(no note)");
    }
    char *in = json_dumps(inputs, JSON_COMPACT);
    printf("inputs: %s\n", in ? in : "{}");
    free(in);
}

/* The inputs with the output layout an expected answer names in place of the input's: its
 * "output" placements over its "outputShape", on the inputs' mesh (a view op's result,
 * view-sharding); NULL where the answer names none or the inputs give no single layout. */
static json_t *output_layout(const json_t *inputs, const json_t *expected)
{
    json_t *pl = json_object_get(expected, "output");
    json_t *sh = json_object_get(expected, "outputShape");
    if (!json_is_string(pl) || !json_is_array(sh) ||
        !json_is_string(json_object_get(inputs, "placements")))
        return NULL;
    json_t *o = json_deep_copy(inputs);
    if (o && (json_object_set(o, "placements", pl) || json_object_set(o, "shape", sh))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* The layouts of the case as text, and all of them into svg_path when asked: the inputs'
 * (explain_inputs_layouts), then the expected output's where the answer names one.  Exit
 * code. */
static int print_layouts(const json_t *inputs, const json_t *expected, const char *svg_path,
                         const char *fam, long long tc)
{
    xp_spec c[2], oc[2];
    const char *names[2], *onames[2];
    char bufs[2][4][256], obufs[2][4][256], titles[2][600];
    int n = explain_inputs_layouts(inputs, c, names, bufs), drawn = 0, code = EXIT_OK;
    json_t *out = n == 1 ? output_layout(inputs, expected) : NULL;
    if (out && explain_inputs_layouts(out, oc, onames, obufs) == 1) {
        c[1] = oc[0];
        names[0] = "input layout", names[1] = "output layout (expected)";
        n = 2;
    }
    json_decref(out);
    if (!n && svg_path)
        return cli_usage_error("explain", "--svg: %s tcId %lld has no layout to draw (its "
                               "inputs give no mesh, placements and shape)", fam, tc);
    xp x[2];
    const char *tp[2] = {titles[0], titles[1]};
    memset(x, 0, sizeof x);
    for (int k = 0; k < n; k++) {
        shc_err e = {0};
        snprintf(titles[k], sizeof titles[k], "%s tcId %lld, %s: mesh %s  placements %s  "
                 "shape [%s]", fam, tc, names[k], c[k].mesh, c[k].placements, c[k].shape);
        printf("\n%s:\n", names[k]);
        cli_common cc;
        cli_common_init(&cc);
        cc.mesh = c[k].mesh, cc.ranks = c[k].ranks, cc.world = c[k].world;
        if (cli_load_mesh(&cc, &x[k].m, &e) ||
            xp_make(&x[k], c[k].placements, c[k].shape, NULL, NULL, &e)) {
            printf("  (no picture: %s)\n", e.msg);
            if (svg_path) /* nothing half drawn: the SVG holds every layout or is refused */
                code = cli_usage_error("explain", "--svg: %s tcId %lld: %s", fam, tc, e.msg);
            break;
        }
        xp_print(&x[k]);
        drawn++;
    }
    if (code == EXIT_OK && svg_path && xp_svg_file_n(x, drawn, tp, svg_path) != 0) {
        fprintf(stderr, "shardcheck explain: --svg %s: cannot write: %s\n", svg_path,
                strerror(errno));
        code = EXIT_USAGE;
    }
    for (int k = 0; k < n; k++)
        xp_free(&x[k]);
    return code;
}

/* The case to explain: known family, tcId and a valid or acceptable case.  Exit code on
 * refusal (message printed), else CLI_GO with *idx set. */
static int find_case(const shc_golden *g, long long tcid, int64_t *idx)
{
    *idx = shc_golden_index(g, tcid);
    if (*idx < 0)
        return cli_usage_error("explain", "--tcid %lld: family %s has no such case (its %lld "
                               "tcIds run from %lld to %lld)", tcid, g->family,
                               (long long)g->ntests, (long long)(g->ntests ? g->tcids[0] : 0),
                               (long long)(g->ntests ? g->tcids[g->ntests - 1] : 0));
    const json_t *t = shc_golden_test(g, *idx);
    const char *res = json_string_value(json_object_get(t, "result"));
    if (res && !strcmp(res, "invalid")) {
        char v[240];
        show_in(v, sizeof v, json_object_get(json_object_get(t, "expected"), "error"));
        return cli_usage_error("explain", "--tcid %lld: an invalid case of %s: its answer is a "
                               "refusal (error %s), no layout to draw (`shardcheck verify "
                               "--family %s --tcid %lld` checks a candidate refuses it)", tcid,
                               g->family, v, g->family, tcid);
    }
    return CLI_GO;
}

static int explain_loaded(const shc_golden *g, const explain_case_opts *o, const char *why)
{
    int64_t idx;
    int code = find_case(g, o->tcid, &idx);
    if (code != CLI_GO)
        return code;
    const json_t *t = shc_golden_test(g, idx);
    json_t *inputs = report_case_inputs(shc_golden_group(g, idx), t);
    int64_t world = shc_expected_world(json_object_get(t, "expected"));
    xanswer a = {.extra_rank = -1};
    json_t *root = NULL;
    shc_err e = {0};
    int rc = o->candidate ? answer_load(o->candidate, g->family, t, world, &a, &root, &e) : 0;
    if (rc) { /* bad input before a line is printed */
        code = cli_report("explain", rc, &e);
    } else {
        print_head(g, idx, why, inputs);
        code = print_layouts(inputs, json_object_get(t, "expected"), o->svg, g->family,
                             o->tcid);
        if (code == EXIT_OK && !o->candidate)
            print_expected(t, world);
        if (code == EXIT_OK && o->candidate)
            code = print_candidate(t, &a, o->candidate) && !run_failed(&a) ? EXIT_OK : EXIT_FAIL;
    }
    answer_free(&a);
    json_decref(root);
    json_decref(inputs);
    return code;
}

int explain_case(const explain_case_opts *o)
{
    if (!shc_family_find(o->family))
        return cli_usage_error("explain", "--family: unknown family '%s' (see gen --list)",
                               CLI_ECHO(o->family));
    shc_err e = {0};
    const char *dir = cli_golden_dir(o->golden, &e);
    if (!dir)
        return cli_report("explain", e.code, &e);
    shc_torch_release rel;
    char rec[64], why[256];
    const char *cand = o->candidate;
    bool has_rec = false;
    int rc = cand ? tv_read_recorded(cand, rec, sizeof rec, &has_rec, &e) : SHC_OK;
    if (!rc)
        rc = tv_resolve(o->tver, has_rec ? rec : NULL, cand, &rel, why, sizeof why, &e);
    if (!rc && o->svg) { /* --svg must not overwrite the candidate or a golden file */
        out_inputs in = {0};
        if (cand)
            out_inputs_file(&in, "given as --candidate", cand);
        out_inputs_tree(&in, "golden directory", dir, 1);
        rc = out_refuse(&in, "--svg", o->svg, &e);
        out_inputs_free(&in);
    }
    /* the golden files are the oracle, as in verify: a tampered one would draw a wrong
     * answer as the expected one */
    if (!rc)
        rc = shc_manifest_verify_family(dir, o->family, &e);
    shc_golden g = {0};
    if (!rc)
        rc = shc_golden_index_family_at(&g, dir, o->family, rel, &e);
    if (rc)
        return cli_report("explain", rc, &e);
    int code = explain_loaded(&g, o, why);
    shc_golden_free(&g);
    return code;
}
