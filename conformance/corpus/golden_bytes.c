/*
 * golden_bytes.c — a rank's view of a golden test compared in bytes, before any tree.
 *
 * Why: verifying a results file (one {"tcId","rank","values"} entry per test and rank)
 * spent nearly all its time parsing both sides with jansson and freeing them again
 * (issue 12).  Most answers are right, and a right answer is written in the golden
 * file's own bytes, so this compares spans: the golden expected object is split once per
 * test into its rank-independent members and each perRank array's elements, and an
 * entry's "values" members are looked up there and compared token for token
 * (shc_jcur_match), while the candidate is scanned (shc_bview_match through the
 * scanner's vouch hook) or after it (shc_bview_same).  Equal tokens are equal JSON, so a
 * "same" answer is exactly
 * what shc_compare_view would pass, with no note (an exact match is within any GpuOnly
 * tolerance, and its digest is equal).  Anything else, a difference included, is
 * "unsure": the caller falls back to the trees, which word the failure.  So this can
 * only make verify faster, never change what it says; verify_fast.sh holds it to that
 * by running every candidate both ways and comparing the output bytes, and
 * check_golden_bytes holds "same" to shc_compare_view's pass on random views.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "golden.h"

/* A key in a span list; -1 when absent. */
static int find_key(const shc_span *keys, int n, shc_span key)
{
    for (int i = 0; i < n; i++)
        if (keys[i].n == key.n && !memcmp(keys[i].p, key.p, key.n))
            return i;
    return -1;
}

/* One perRank array: its elements into column k of elem[]; the first fixes the world
 * (as shc_expected_world counts it), the others must be as long. */
static bool add_column(shc_bview *b, shc_jcur *c, int k)
{
    bool first = true, grows = k == 0;
    int64_t r = 0;
    int x;
    while ((x = shc_jcur_element(c, &first)) == 1) {
        size_t at = (size_t)r * SHC_BVIEW_MAX_KEYS + (size_t)k;
        if (!grows && r >= b->world)
            return false; /* ragged: longer than the first array */
        if (at >= b->cap) { /* only the first array grows elem: the others are as long */
            size_t nc = b->cap ? 2 * b->cap : 64 * SHC_BVIEW_MAX_KEYS;
            shc_span *ne = realloc(b->elem, nc * sizeof *ne);
            if (!ne)
                return false;
            b->elem = ne;
            b->cap = nc;
        }
        shc_jcur_take(c, &b->elem[at]);
        r++;
    }
    if (x || (!grows && r != b->world))
        return false; /* not an array, or ragged: the trees word it */
    b->world = r;
    return true;
}

/* The perRank object at the cursor: one column per member. */
static bool add_per_rank(shc_bview *b, shc_jcur *c)
{
    bool first = true;
    shc_span key;
    int x;
    if (b->has_per_rank)
        return false; /* repeated: jansson keeps the last, the trees decide */
    b->has_per_rank = true;
    while ((x = shc_jcur_member(c, &first, &key)) == 1) {
        if (b->nper == SHC_BVIEW_MAX_KEYS || find_key(b->pkey, b->nper, key) >= 0 ||
            !add_column(b, c, b->nper))
            return false;
        b->pkey[b->nper++] = key;
    }
    return x == 0 && b->nper > 0; /* "perRank": {} is a field of the whole view */
}

bool shc_bview_split(shc_bview *b, shc_span expected)
{
    b->ncommon = b->nper = 0;
    b->world = 0;
    b->has_per_rank = b->ok = false;
    if (!expected.p || *expected.p != '{')
        return false;
    shc_jcur c = shc_jcur_of(expected);
    bool first = true;
    shc_span key;
    int x;
    while ((x = shc_jcur_member(&c, &first, &key)) == 1) {
        if (shc_span_is(key, "perRank")) {
            if (!add_per_rank(b, &c))
                return false;
            continue;
        }
        if (shc_span_is(key, "alternatives") || b->ncommon == SHC_BVIEW_MAX_KEYS ||
            find_key(b->key, b->ncommon, key) >= 0)
            return false; /* an acceptable test's other answers, or a repeated key (jansson
                           * keeps the last): the trees decide */
        b->key[b->ncommon] = key;
        shc_jcur_take(&c, &b->val[b->ncommon++]);
    }
    b->ok = x == 0;
    return b->ok;
}

bool shc_bview_split_test(shc_bview *b, const shc_golden *g, int64_t i)
{
    const shc_gtext *t = g->text ? &g->text[i] : NULL;
    if (!t || t->invalid)
        return b->ok = false;
    shc_map_touched(t->expected.n); /* the mapped bytes read, for json_map.c's window */
    return shc_bview_split(b, t->expected);
}

bool shc_bview_world_zero(shc_span expected, bool *zero)
{
    static const char key_text[] = "\"perRank\"";
    const char *at = shc_span_find(expected, key_text);
    *zero = true; /* no perRank: world 0 */
    if (!at)
        return expected.p && *expected.p == '{';
    shc_span rest = {at + 1, (size_t)(expected.p + expected.n - at - 1)};
    if (shc_span_find(rest, key_text))
        return false; /* perhaps repeated (jansson keeps the last): the trees decide */
    shc_jcur c = shc_jcur_of(expected);
    bool first = true;
    shc_span key, v;
    int x;
    while ((x = shc_jcur_member(&c, &first, &key)) == 1) {
        if (!shc_span_is(key, "perRank")) {
            shc_jcur_take(&c, &v);
            continue;
        }
        if (*c.p != '{')
            return false;
        bool pfirst = true, afirst = true;
        int y = shc_jcur_member(&c, &pfirst, &key); /* the first array's length decides */
        if (y == 1 && *c.p != '[')
            return false;
        *zero = y == 0 || shc_jcur_element(&c, &afirst) == 0;
        return y >= 0;
    }
    return false; /* the word was inside a value or an escaped key: the trees decide */
}

/* The golden span a candidate's key answers at rank (seen: the keys answered so far, bit
 * k for key[k], 32 + k for pkey[k]); NULL span when it is not a field of the view or is
 * repeated. */
static shc_span want_of(const shc_bview *b, int64_t rank, shc_span key, uint64_t *seen)
{
    int k = find_key(b->key, b->ncommon, key), bit = k;
    if (k < 0 && rank >= 0 && (k = find_key(b->pkey, b->nper, key)) >= 0)
        bit = SHC_BVIEW_MAX_KEYS + k;
    if (k < 0 || (*seen >> bit & 1))
        return (shc_span){NULL, 0};
    *seen |= (uint64_t)1 << bit;
    return bit == k ? b->val[k] : b->elem[(size_t)rank * SHC_BVIEW_MAX_KEYS + (size_t)k];
}

/* The values as a harness writes them (compact, or spaced as Python's json.dumps spaces
 * them: one space after ':' and ','), the golden view's keys in its order (the common ones,
 * then the perRank ones), matched as bytes: each member's key and value are the golden's
 * own, so the bytes are valid JSON that reads as the view, which is what shc_bview_match's
 * token walk accepts, at a memcmp a member.  false, the cursor untouched, for any other
 * spelling (the walk decides). */
static bool match_compact(const shc_bview *b, int64_t rank, shc_jcur *c)
{
    int n = b->ncommon + (rank >= 0 ? b->nper : 0);
    const char *q = c->p, *qe = c->end;
    for (int i = 0; i < n; i++) {
        bool common = i < b->ncommon;
        shc_span key = common ? b->key[i] : b->pkey[i - b->ncommon];
        shc_span v = common ? b->val[i]
                            : b->elem[(size_t)rank * SHC_BVIEW_MAX_KEYS + (size_t)(i - b->ncommon)];
        if (q >= qe || *q++ != (i ? ',' : '{'))
            return false;
        q += i && q < qe && *q == ' ';
        if ((size_t)(qe - q) < key.n + 4 + v.n || q[0] != '"' || memcmp(q + 1, key.p, key.n) ||
            q[key.n + 1] != '"' || q[key.n + 2] != ':')
            return false;
        q += key.n + 3;
        q += *q == ' ';
        if ((size_t)(qe - q) < v.n || memcmp(q, v.p, v.n))
            return false;
        q += v.n;
    }
    if (!n || q >= qe || *q != '}')
        return false;
    c->p = q + 1;
    return true;
}

bool shc_bview_match(const shc_bview *b, int64_t rank, shc_jcur *c)
{
    if (!b->ok || (rank < 0 ? b->has_per_rank : rank >= b->world) || c->p >= c->end ||
        *c->p != '{')
        return false;
    if (match_compact(b, rank, c))
        return true;
    uint64_t seen = 0, all = ((uint64_t)1 << b->ncommon) - 1;
    if (rank >= 0)
        all |= (((uint64_t)1 << b->nper) - 1) << SHC_BVIEW_MAX_KEYS;
    shc_jcur k = *c;
    bool first = true;
    shc_span key;
    int x;
    while ((x = shc_jcur_member(&k, &first, &key)) == 1) {
        shc_span want = want_of(b, rank, key, &seen);
        if (!want.p || !shc_jcur_match(&k, want))
            return false; /* not a field of the view, repeated or other: the trees word it */
    }
    if (x != 0 || seen != all)
        return false;
    *c = k;
    return true;
}

bool shc_bview_same(const shc_bview *b, int64_t rank, shc_span values)
{
    if (!values.p)
        return false;
    shc_jcur c = shc_jcur_of(values);
    return shc_bview_match(b, rank, &c) && c.p == c.end;
}

/* ---- a computed view (a tree) against the golden bytes ----
 * For a worker that computes views as trees (run_lean.c): dumping them to compare in text
 * cost as much as parsing the golden, so each value is compared with its token directly.
 * Same rule: true only where json_equal would say so; false says nothing. */

static bool same_tree(shc_jcur *c, const json_t *v);

/* A scalar token (validated bytes) against a scalar value. */
static bool same_token(shc_span t, const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_INTEGER: {
        int64_t x;
        return shc_span_int(t, &x) && x == json_integer_value(v);
    }
    case JSON_REAL: { /* jansson reads a token with . e E as a real, by strtod */
        char b[64];
        if (t.n >= sizeof b || *t.p == '"' ||
            (!memchr(t.p, '.', t.n) && !memchr(t.p, 'e', t.n) && !memchr(t.p, 'E', t.n)))
            return false;
        memcpy(b, t.p, t.n);
        b[t.n] = '\0';
        char *end;
        double d = strtod(b, &end);
        return end == b + t.n && d == json_real_value(v);
    }
    case JSON_STRING: {
        if (!t.n || *t.p != '"')
            return false;
        size_t n = json_string_length(v);
        if (!memchr(t.p, '\\', t.n))
            return t.n == n + 2 && !memcmp(t.p + 1, json_string_value(v), n);
        size_t dn;
        char *d = shc_span_string(t, &dn); /* escapes: decoded as jansson decodes them */
        bool same = d && dn == n && !memcmp(d, json_string_value(v), n);
        free(d);
        return same;
    }
    case JSON_TRUE: return shc_span_is(t, "true");
    case JSON_FALSE: return shc_span_is(t, "false");
    case JSON_NULL: return shc_span_is(t, "null");
    default: return false;
    }
}

/* The array at the cursor against an array. */
static bool same_array(shc_jcur *c, const json_t *v)
{
    bool first = true;
    size_t i = 0;
    int x;
    while ((x = shc_jcur_element(c, &first)) == 1)
        if (i >= json_array_size(v) || !same_tree(c, json_array_get(v, i++)))
            return false;
    return x == 0 && i == json_array_size(v);
}

/* The object at the cursor against an object: every member found once, no other. */
static bool same_object(shc_jcur *c, const json_t *v)
{
    shc_span seen[SHC_BVIEW_MAX_KEYS];
    bool first = true;
    size_t n = 0;
    shc_span key;
    int x;
    while ((x = shc_jcur_member(c, &first, &key)) == 1) {
        const json_t *m = json_object_getn(v, key.p, key.n);
        if (!m || n == SHC_BVIEW_MAX_KEYS || find_key(seen, (int)n, key) >= 0)
            return false; /* not its member, or repeated (jansson keeps the last) */
        seen[n++] = key;
        if (!same_tree(c, m))
            return false;
    }
    return x == 0 && n == json_object_size(v);
}

static bool same_tree(shc_jcur *c, const json_t *v)
{
    if (!v || c->p >= c->end)
        return false;
    if (json_is_array(v))
        return *c->p == '[' && same_array(c, v);
    if (json_is_object(v))
        return *c->p == '{' && same_object(c, v);
    shc_span t;
    shc_jcur_take(c, &t);
    return same_token(t, v);
}

/* A whole golden value (a span) against a tree. */
static bool same_span(shc_span s, const json_t *v)
{
    shc_jcur c = shc_jcur_of(s);
    return s.p && same_tree(&c, v);
}

bool shc_bview_same_tree(const shc_bview *b, int64_t rank, const json_t *view)
{
    if (!b->ok || (rank < 0 ? b->has_per_rank : rank >= b->world) || !json_is_object(view) ||
        json_object_size(view) != (size_t)(b->ncommon + (rank >= 0 ? b->nper : 0)))
        return false;
    for (int k = 0; k < b->ncommon; k++)
        if (!same_span(b->val[k], json_object_getn(view, b->key[k].p, b->key[k].n)))
            return false;
    for (int k = 0; rank >= 0 && k < b->nper; k++)
        if (!same_span(b->elem[(size_t)rank * SHC_BVIEW_MAX_KEYS + (size_t)k],
                       json_object_getn(view, b->pkey[k].p, b->pkey[k].n)))
            return false;
    return true;
}

void shc_bview_free(shc_bview *b)
{
    free(b->elem);
    memset(b, 0, sizeof *b);
}
