/*
 * certify_claim.c — what a certify row covers of its family's claim, and --check's second
 * look at the candidates.
 *
 * A family's record says what a conformance claim on it must cover (family.h's shc_claim:
 * the required fields, and the tests a claim may leave out).  A row that passed everything
 * it checked can still cover less: a candidate declaring only some fields ("fields" in its
 * results file), a backend or candidate answering required tests NotSupported, a run cut
 * short by --max-cases.  Such a row is "partial", and its statement row says what it covers
 * ("1 of 5 required fields (end_incr), 25,790 of 26,094 required tests"), so a one-field
 * port is never stated CONFORMANT (issue 22 item 2).  The candidate's "producer" record
 * (tools/harness/run.py writes it) is carried into the statement here too (item 9).
 *
 * The package MANIFEST protects the files against change, but whoever edits a candidate can
 * rewrite its MANIFEST line; --check therefore runs verify again on every candidate in the
 * package against the corpus and demands the statement's row back (cert_reverify; item 4).
 * Tested by conformance/tests/certify_claims.sh.
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "certify.h"
#include "certify_spawn.h"
#include "family.h"
#include "golden.h"

/* ---- what a row checked ---- */

enum { SEEN_NONE, SEEN_CHECKED, SEEN_NOTSUPPORTED };

/* A result's tcId: run JSON's "tcId", verify JSON's "case" ("tcId N" or "tcId N rank R"). */
static bool result_tcid(const json_t *x, long long *tc)
{
    const json_t *v = json_object_get(x, "tcId");
    if (json_is_integer(v)) {
        *tc = (long long)json_integer_value(v);
        return true;
    }
    const char *c = json_string_value(json_object_get(x, "case"));
    return c && sscanf(c, "tcId %lld", tc) == 1;
}

/* seen[i] for golden test i: checked by some result, or NotSupported on some rank (then
 * not checked: a rank's answer the implementation did not give). */
static int mark_results(const char *dir, const cert_row *r, const shc_golden *g,
                        unsigned char *seen, shc_err *e)
{
    char path[4096];
    cert_path(path, sizeof path, dir, r->results);
    json_t *root = shc_json_load_path(path, e), *x;
    if (!root)
        return shc_err_prefix(e, "results");
    size_t i;
    json_array_foreach(json_object_get(root, "cases"), i, x) {
        long long tc;
        const char *st = json_string_value(json_object_get(x, "status"));
        int64_t k = st && result_tcid(x, &tc) ? shc_golden_index(g, tc) : -1;
        if (k < 0)
            continue; /* a whole-run Crash, or a case the corpus lacks: checks nothing */
        if (!strcmp(st, "NotSupported"))
            seen[k] = SEEN_NOTSUPPORTED;
        else if (seen[k] == SEEN_NONE)
            seen[k] = SEEN_CHECKED;
    }
    json_decref(root);
    return SHC_OK;
}

/* The required tests of the family, and how many of them the row checked. */
static int count_cases(const char *dir, const char *golden, const cert_row *r,
                       const shc_family *f, long long *req, long long *checked, shc_err *e)
{
    shc_golden g = {0};
    int rc = shc_golden_index_family(&g, golden, f->name, e);
    unsigned char *seen = rc ? NULL : calloc((size_t)(g.ntests ? g.ntests : 1), 1);
    if (!rc && !seen)
        rc = shc_fail(e, SHC_ENOMEM, "certify: out of memory");
    if (!rc)
        rc = mark_results(dir, r, &g, seen, e);
    *req = *checked = 0;
    for (int64_t i = 0; !rc && i < g.ntests; i++) {
        if (shc_claim_requires(f, shc_golden_test(&g, i))) {
            (*req)++;
            *checked += seen[i] == SEEN_CHECKED;
        }
        shc_golden_test_done(&g, i);
    }
    free(seen);
    shc_golden_free(&g);
    return rc;
}

/* The candidate's declared "fields" (NULL: it computes every field) and its "producer". */
static int read_candidate(const char *dir, cert_row *r, json_t **declared, shc_err *e)
{
    char path[4096];
    cert_path(path, sizeof path, dir, r->candidate);
    json_t *root = shc_json_load_path(path, e);
    if (!root)
        return shc_err_prefix(e, "candidate");
    json_t *fields = json_object_get(root, "fields"), *p = json_object_get(root, "producer");
    *declared = json_is_array(fields) ? json_incref(fields) : NULL;
    r->producer = json_is_object(p) ? json_incref(p) : NULL;
    json_decref(root);
    return SHC_OK;
}

static bool declares(const json_t *declared, const char *field)
{
    size_t i;
    json_t *v;
    if (!declared)
        return true;
    json_array_foreach(declared, i, v)
        if (json_is_string(v) && !strcmp(json_string_value(v), field))
            return true;
    return false;
}

int cert_claim(const char *dir, const char *golden, cert_row *r, shc_err *e)
{
    json_decref(r->claim);
    json_decref(r->producer);
    r->claim = r->producer = NULL;
    const shc_family *f = shc_family_find(r->family);
    if (!f)
        return shc_fail(e, SHC_EFORMAT, "a row names family \"%s\", which this shardcheck "
                        "does not know", r->family);
    if (!r->results[0])
        return SHC_OK;
    json_t *declared = NULL;
    int rc = r->candidate[0] ? read_candidate(dir, r, &declared, e) : SHC_OK;
    long long req = 0, checked = 0;
    if (!rc)
        rc = count_cases(dir, golden, r, f, &req, &checked, e);
    json_t *cov = json_array(), *miss = json_array(), *all = json_array();
    for (const char *const *p = f->claim.fields; p && *p; p++) {
        json_array_append_new(all, json_string(*p));
        json_array_append_new(declares(declared, *p) ? cov : miss, json_string(*p));
    }
    json_decref(declared);
    r->claim = json_pack("{s:o, s:o, s:o, s:I, s:I}", "fields", cov, "fieldsNotComputed", miss,
                         "requiredFields", all, "requiredCases", (json_int_t)req,
                         "casesChecked", (json_int_t)checked);
    return rc;
}

bool cert_claim_partial(const cert_row *r)
{
    const json_t *c = r->claim;
    return c && (json_array_size(json_object_get(c, "fieldsNotComputed")) ||
                 json_integer_value(json_object_get(c, "casesChecked")) <
                     json_integer_value(json_object_get(c, "requiredCases")));
}

/* 25790 -> "25,790", as the README and the statement write counts. */
static void digits(long long v, char *buf, size_t n)
{
    char raw[32];
    size_t len = (size_t)snprintf(raw, sizeof raw, "%lld", v), o = 0;
    for (size_t i = 0; i < len && o + 2 < n; i++) {
        if (i && raw[i - 1] != '-' && (len - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = raw[i];
    }
    buf[o] = '\0';
}

static void join(const json_t *a, char *buf, size_t n)
{
    size_t i, k = 0;
    json_t *v;
    buf[0] = '\0';
    json_array_foreach(a, i, v)
        if (k < n)
            k += (size_t)snprintf(buf + k, n - k, "%s%s", i ? ", " : "", json_string_value(v));
}

void cert_claim_text(const json_t *c, char *buf, size_t n)
{
    const json_t *cov = json_object_get(c, "fields"), *miss = json_object_get(c, "fieldsNotComputed");
    char covered[512], missing[512], req[32], chk[32];
    join(cov, covered, sizeof covered);
    join(miss, missing, sizeof missing);
    digits((long long)json_integer_value(json_object_get(c, "requiredCases")), req, sizeof req);
    digits((long long)json_integer_value(json_object_get(c, "casesChecked")), chk, sizeof chk);
    size_t nf = json_array_size(cov), nr = nf + json_array_size(miss);
    if (!json_array_size(miss))
        snprintf(buf, n, "all %zu required fields, %s of %s required tests checked", nr, chk, req);
    else
        snprintf(buf, n, "%zu of %zu required fields (%s; not computed: %s), %s of %s required "
                 "tests checked", nf, nr, nf ? covered : "none", missing, chk, req);
}

/* ---- --check: the candidates verified again ---- */

/* The fields of a row that re-verification must give back (paths differ by design). */
static bool same_outcome(const json_t *a, const json_t *b)
{
    static const char *const keys[] = {"passed", "failed", "notSupported", "verdict",
                                       "notSupportedReasons", "notSupportedFields", "claim",
                                       "producer"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        const json_t *x = json_object_get(a, keys[i]), *y = json_object_get(b, keys[i]);
        if ((x || y) && !(x && y && json_equal((json_t *)x, (json_t *)y)))
            return false;
    }
    return true;
}

static const char *sget(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

/* Run verify on the package's candidate into tmp; 0, or a problem naming the candidate. */
static int verify_again(const char *dir, const char *golden, const char *exe, const char *torch,
                        const char *tmp, cert_row *r)
{
    char cand[4096], log[4096], last[512], code_s[16];
    cert_path(cand, sizeof cand, dir, r->candidate);
    snprintf(r->results, sizeof r->results, "%s/results.json", tmp);
    snprintf(r->junit, sizeof r->junit, "%s/results.junit.xml", tmp);
    snprintf(r->log, sizeof r->log, "%s/verify.stderr", tmp);
    snprintf(log, sizeof log, "%s", r->log);
    char *v[] = {(char *)exe, "verify", "--family", r->family, "--candidate", cand, "--golden",
                 (char *)golden, "--json", "--junit", r->junit, *torch ? "--torch-version" : NULL,
                 (char *)torch, NULL};
    progress off = {0};
    int code = cert_spawn(v, r->results, log, NULL, &off);
    if (code == 0 || code == 1)
        return 0;
    cert_last_line(log, last, sizeof last);
    snprintf(code_s, sizeof code_s, "%d", code);
    return cert_problem(dir, r->candidate, "no longer verifies against the corpus: %s (verify "
                        "exit %s)", last[0] ? last : "no message", code_s);
}

int cert_reverify(const char *dir, const char *golden, const char *exe, const char *torch,
                  const json_t *j)
{
    cert_row r = {0};
    char tmp[] = "/tmp/shardcheck-check.XXXXXX";
    snprintf(r.family, sizeof r.family, "%s", sget(j, "family"));
    snprintf(r.mode, sizeof r.mode, "verify");
    snprintf(r.backend, sizeof r.backend, "%s", sget(j, "backend"));
    snprintf(r.candidate, sizeof r.candidate, "%s", sget(j, "candidate"));
    if (!r.candidate[0] || strstr(r.candidate, "..") || r.candidate[0] == '/')
        return cert_problem(dir, "statement.json", "altered: verify row %s cites no candidate "
                            "in the package (\"%s\")", r.family, r.candidate);
    if (!mkdtemp(tmp))
        return cert_problem(dir, r.candidate, "cannot be verified again: %s%s", strerror(errno), "");
    shc_err e = {0};
    int bad = verify_again(dir, golden, exe, torch, tmp, &r);
    if (!bad && (cert_count(dir, &r, &e) || cert_claim(dir, golden, &r, &e)))
        bad = cert_problem(dir, r.candidate, "cannot be verified again: %s%s", e.msg, "");
    json_t *got = bad ? NULL : cert_row_json(&r);
    if (got && !same_outcome(got, j)) {
        char msg[1024];
        snprintf(msg, sizeof msg, "verified against the corpus it gives %s with %lld passed, "
                 "%lld failed, %lld NotSupported; the statement's row %s says %s with %lld "
                 "passed, %lld failed, %lld NotSupported", sget(got, "verdict"), r.passed,
                 r.failed, r.notsupported, r.family, sget(j, "verdict"),
                 (long long)json_integer_value(json_object_get(j, "passed")),
                 (long long)json_integer_value(json_object_get(j, "failed")),
                 (long long)json_integer_value(json_object_get(j, "notSupported")));
        bad = cert_problem(dir, r.candidate, "inconsistent with the statement: %s%s", msg, "");
    }
    json_decref(got);
    cert_row_free(&r);
    for (const char *p = r.results; p; p = p == r.results ? r.junit : p == r.junit ? r.log : NULL)
        unlink(p);
    rmdir(tmp);
    return bad;
}
