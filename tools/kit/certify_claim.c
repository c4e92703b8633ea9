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
 * A claim is per family and rank count: a backend run under mpirun is measured against
 * the required tests its job can run (certify states how many more need another count).
 * The lowest of certify's files: it calls none of the others.
 * Tested by conformance/tests/certify_claims.sh.
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "certify.h"
#include "family.h"
#include "run.h"
#include "golden.h"

/* ---- rows ---- */

void cert_path(char *buf, size_t n, const char *dir, const char *rel)
{
    if (rel[0] == '/')
        snprintf(buf, n, "%s", rel);
    else
        snprintf(buf, n, "%s/%s", dir, rel);
}

void cert_row_free(cert_row *r)
{
    json_decref(r->reasons);
    json_decref(r->fields);
    json_decref(r->claim);
    json_decref(r->producer);
    json_decref(r->waivedcases);
    r->reasons = r->fields = r->claim = r->producer = r->waivedcases = NULL;
}

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

/* Whether a run row at np processes can run a test of world ranks: under mpirun the job
 * hosts np * ranks_per_process ranks, and torch's meshes must span it exactly (whole_world);
 * a backend in one process takes every mesh (what its --max-ranks leaves out is partial).
 * A claim is per family and rank count: a test another rank count runs is out of reach. */
static bool in_reach(const cert_row *r, int64_t world)
{
    const char *arg;
    const run_backend *be = strcmp(r->mode, "run") ? NULL : run_backend_find(r->backend, &arg);
    if (!be || be->procs != RUN_PER_RANK || r->np < 1)
        return true;
    int64_t job = (int64_t)r->np * be->ranks_per_process;
    return be->whole_world ? world == job : world <= job;
}

typedef struct cover { long long req, checked, out_of_reach; } cover;

/* The required tests of the family in the row's reach, and how many of them it checked. */
static int count_cases(const char *dir, const char *golden, const cert_row *r,
                       const shc_family *f, cover *c, shc_err *e)
{
    shc_golden g = {0};
    int rc = shc_golden_index_family(&g, golden, f->name, e);
    unsigned char *seen = rc ? NULL : calloc((size_t)(g.ntests ? g.ntests : 1), 1);
    if (!rc && !seen)
        rc = shc_fail(e, SHC_ENOMEM, "certify: out of memory");
    if (!rc)
        rc = mark_results(dir, r, &g, seen, e);
    memset(c, 0, sizeof *c);
    for (int64_t i = 0; !rc && i < g.ntests; i++) {
        const json_t *t = shc_golden_test(&g, i);
        bool reach = !f->world_size || in_reach(r, f->world_size(shc_golden_group(&g, i)));
        if (shc_claim_requires(f, t)) {
            c->out_of_reach += !reach;
            c->req += reach;
            c->checked += reach && seen[i] == SEEN_CHECKED;
        }
        shc_golden_test_done(&g, i); /* one test's tree at a time */
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

/* A plugin's run: the implementation its results name ("plugin": name, file, sha256, ABI),
 * as the row's producer record (the statement says what was checked, by name and hash). */
static int read_plugin(const char *dir, cert_row *r, shc_err *e)
{
    char path[4096];
    cert_path(path, sizeof path, dir, r->results);
    json_t *root = shc_json_load_path(path, e), *p = json_object_get(root, "plugin");
    if (!root)
        return shc_err_prefix(e, "results");
    const char *name = json_string_value(json_object_get(p, "name"));
    char note[256];
    snprintf(note, sizeof note, "file %s, sha256 %s, ABI v%lld",
             json_string_value(json_object_get(p, "file")) ?: "?",
             json_string_value(json_object_get(p, "sha256")) ?: "?",
             (long long)json_integer_value(json_object_get(p, "abi")));
    if (json_is_object(p))
        r->producer = json_pack("{s:s, s:s}", "tool", name ? name : "(plugin not named)",
                                "note", note);
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
    int rc = r->candidate[0] ? read_candidate(dir, r, &declared, e) : read_plugin(dir, r, e);
    cover c = {0};
    if (!rc)
        rc = count_cases(dir, golden, r, f, &c, e);
    json_t *cov = json_array(), *miss = json_array(), *all = json_array();
    for (const char *const *p = f->claim.fields; p && *p; p++) {
        json_array_append_new(all, json_string(*p));
        json_array_append_new(declares(declared, *p) ? cov : miss, json_string(*p));
    }
    json_decref(declared);
    r->claim = json_pack("{s:o, s:o, s:o, s:I, s:I, s:I}", "fields", cov, "fieldsNotComputed",
                         miss, "requiredFields", all, "requiredCases", (json_int_t)c.req,
                         "casesChecked", (json_int_t)c.checked, "otherRankCounts",
                         (json_int_t)c.out_of_reach);
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
    const json_t *cov = json_object_get(c, "fields");
    const json_t *miss = json_object_get(c, "fieldsNotComputed");
    char covered[512], missing[512], req[32], chk[32];
    join(cov, covered, sizeof covered);
    join(miss, missing, sizeof missing);
    digits((long long)json_integer_value(json_object_get(c, "requiredCases")), req, sizeof req);
    digits((long long)json_integer_value(json_object_get(c, "casesChecked")), chk, sizeof chk);
    size_t nf = json_array_size(cov), nr = nf + json_array_size(miss);
    int k;
    if (!json_array_size(miss))
        k = snprintf(buf, n, "all %zu required fields, %s of %s required tests checked", nr, chk,
                     req);
    else
        k = snprintf(buf, n, "%zu of %zu required fields (%s; not computed: %s), %s of %s "
                     "required tests checked", nf, nr, nf ? covered : "none", missing, chk, req);
    long long other = (long long)json_integer_value(json_object_get(c, "otherRankCounts"));
    digits(other, req, sizeof req);
    if (other && k > 0 && (size_t)k < n)
        snprintf(buf + k, n - (size_t)k, " at this rank count (%s more need another)", req);
}
