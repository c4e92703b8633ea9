/*
 * json_scan.c — the validating scanner of json_scan.h: one pass over the bytes,
 * the grammar checked as jansson checks it (flags 0), the tests of a golden-shaped
 * document handed out as spans.  Where jansson's answer could differ from a plain
 * reading (see json_scan.h) it gives up and the caller parses with jansson.
 * Tested by verify_fast.sh and the candidate fuzzer.
 */
#include "config.h"
#include <string.h>
#include "json_scan.h"

/* Far below jansson's JSON_PARSER_MAX_DEPTH (2048): deeper input goes to jansson,
 * which names the limit in its error. */
#define SCAN_MAX_DEPTH 1024
/* jansson reads integers with strtoll and calls one outside int64 an error. */
static bool int_fits(const char *d, size_t n, bool neg)
{
    if (n != 19)
        return n < 19;
    return memcmp(d, neg ? "9223372036854775808" : "9223372036854775807", 19) <= 0;
}

/* The scanner's per-byte helpers are called for every token: inlined where the compiler
 * allows it (measured: verify of a results file about 4% faster). */
#if defined(__GNUC__)
#define SCAN_INLINE static inline __attribute__((always_inline))
#else
#define SCAN_INLINE static inline
#endif

typedef shc_jcur cur; /* json_scan.h: the cursor the walkers below share */

/* Bytes that stand for themselves in a string: printable ASCII but '"' and '\\'.
 * Control characters are errors in jansson; non-ASCII bytes need UTF-8 checks we
 * leave to jansson. */
static unsigned char plain_byte[256];
static bool tables_ready;

static void init_tables(void)
{
    for (int b = 0x20; b < 0x80; b++)
        plain_byte[b] = b != '"' && b != '\\';
    tables_ready = true;
}

static inline bool is_ws(char ch) { return ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t'; }
static inline bool is_digit(char ch) { return ch >= '0' && ch <= '9'; }

static inline void skip_ws(cur *c)
{
    while (c->p < c->end && is_ws(*c->p))
        c->p++;
}

/* c->p at '"'; leaves it past the closing quote.  *plain: no escape inside.  \u
 * escapes (surrogates, \u0000) are left to jansson. */
SCAN_INLINE int scan_string(cur *c, bool *plain)
{
    const char *p = c->p + 1, *end = c->end;
    bool esc = false;
    for (;;) {
        while (p < end && plain_byte[(unsigned char)*p])
            p++;
        if (p >= end)
            return SHC_SCAN_UNSURE;
        if (*p == '"')
            break;
        if (*p != '\\' || p + 1 >= end || !strchr("\"\\/bfnrt", p[1]) || !p[1])
            return SHC_SCAN_UNSURE;
        esc = true;
        p += 2;
    }
    c->p = p + 1;
    if (plain)
        *plain = !esc;
    return 0;
}

static const char *digits(const char *p, const char *end)
{
    while (p < end && is_digit(*p))
        p++;
    return p;
}

/* The JSON number grammar; integers outside int64 and reals whose exponent has more
 * than 2 digits (possible overflow: a jansson error) are left to jansson. */
SCAN_INLINE int scan_number(cur *c)
{
    const char *p = c->p, *end = c->end;
    if (p < end && *p == '-')
        p++;
    const char *d0 = p;
    if (p < end && *p == '0')
        p++;
    else if (p < end && *p >= '1' && *p <= '9')
        p = digits(p, end);
    else
        return SHC_SCAN_UNSURE;
    size_t int_digits = (size_t)(p - d0);
    bool real = false;
    if (p < end && *p == '.') {
        const char *f = ++p;
        if ((p = digits(p, end)) == f)
            return SHC_SCAN_UNSURE;
        real = true;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        if (++p < end && (*p == '+' || *p == '-'))
            p++;
        const char *x = p;
        if ((p = digits(p, end)) == x || p - x > 2)
            return SHC_SCAN_UNSURE;
        real = true;
    }
    if ((!real && !int_fits(d0, int_digits, *c->p == '-')) || (real && p - c->p > 300))
        return SHC_SCAN_UNSURE;
    c->p = p;
    return 0;
}

static int scan_literal(cur *c, const char *word, size_t n)
{
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n))
        return SHC_SCAN_UNSURE;
    c->p += n;
    return 0;
}

static int scan_value(cur *c);

/* At '[' (first) or after an element: 1 with c->p at the next element, 0 past ']'. */
static int arr_next(cur *c, bool *first)
{
    skip_ws(c);
    if (*first) {
        *first = false;
        if (c->p >= c->end || *c->p != '[' || ++c->depth > SCAN_MAX_DEPTH)
            return SHC_SCAN_UNSURE;
        c->p++;
        skip_ws(c);
        if (c->p < c->end && *c->p == ']')
            return c->p++, c->depth--, 0;
    } else {
        if (c->p < c->end && *c->p == ']')
            return c->p++, c->depth--, 0;
        if (c->p >= c->end || *c->p != ',')
            return SHC_SCAN_UNSURE;
        c->p++;
        skip_ws(c);
    }
    return c->p < c->end ? 1 : SHC_SCAN_UNSURE;
}

/* At '{' (first) or after a member's value: 1 with the key in *key (raw; *plain: no
 * escapes) and c->p at its value, 0 past '}'. */
static int obj_next(cur *c, bool *first, shc_span *key, bool *plain)
{
    skip_ws(c);
    if (*first) {
        *first = false;
        if (c->p >= c->end || *c->p != '{' || ++c->depth > SCAN_MAX_DEPTH)
            return SHC_SCAN_UNSURE;
        c->p++;
        skip_ws(c);
        if (c->p < c->end && *c->p == '}')
            return c->p++, c->depth--, 0;
    } else {
        if (c->p < c->end && *c->p == '}')
            return c->p++, c->depth--, 0;
        if (c->p >= c->end || *c->p != ',')
            return SHC_SCAN_UNSURE;
        c->p++;
        skip_ws(c);
    }
    if (c->p >= c->end || *c->p != '"')
        return SHC_SCAN_UNSURE;
    key->p = c->p + 1;
    if (scan_string(c, plain))
        return SHC_SCAN_UNSURE;
    key->n = (size_t)(c->p - 1 - key->p);
    skip_ws(c);
    if (c->p >= c->end || *c->p != ':')
        return SHC_SCAN_UNSURE;
    c->p++;
    skip_ws(c);
    return c->p < c->end ? 1 : SHC_SCAN_UNSURE;
}

/* A container at c->p, validated and skipped in one loop: most of a file's bytes sit
 * in small nested arrays below the levels the walk looks at, so no call per value.
 * kind[] holds, per level opened here, whether it is an object. */
static int scan_container(cur *c)
{
    bool kind[SCAN_MAX_DEPTH + 1];
    int level = 0;
    cur k = *c;
#define PEEK (k.p < k.end ? *k.p : '\0')
open:
    if (c->depth + level >= SCAN_MAX_DEPTH)
        return SHC_SCAN_UNSURE;
    kind[level++] = *k.p++ == '{';
    skip_ws(&k);
    if (PEEK == (kind[level - 1] ? '}' : ']')) {
        k.p++;
        goto close;
    }
member:
    if (kind[level - 1]) {
        if (PEEK != '"' || scan_string(&k, NULL))
            return SHC_SCAN_UNSURE;
        skip_ws(&k);
        if (PEEK != ':')
            return SHC_SCAN_UNSURE;
        k.p++;
        skip_ws(&k);
    }
    switch (PEEK) {
    case '{':
    case '[': goto open;
    case '"':
        if (scan_string(&k, NULL))
            return SHC_SCAN_UNSURE;
        break;
    case 't':
    case 'f':
    case 'n':
        if (scan_literal(&k, *k.p == 't' ? "true" : *k.p == 'f' ? "false" : "null",
                         *k.p == 'f' ? 5 : 4))
            return SHC_SCAN_UNSURE;
        break;
    default:
        if (scan_number(&k))
            return SHC_SCAN_UNSURE;
    }
after:
    skip_ws(&k);
    if (PEEK == ',') {
        k.p++;
        skip_ws(&k);
        goto member;
    }
    if (PEEK != (kind[level - 1] ? '}' : ']'))
        return SHC_SCAN_UNSURE;
    k.p++;
close:
    if (--level > 0)
        goto after;
#undef PEEK
    c->p = k.p;
    return 0;
}

/* One value of any kind at c->p (no leading whitespace), validated and skipped. */
static int scan_value(cur *c)
{
    if (c->p >= c->end)
        return SHC_SCAN_UNSURE;
    switch (*c->p) {
    case '{':
    case '[': return scan_container(c);
    case '"': return scan_string(c, NULL);
    case 't': return scan_literal(c, "true", 4);
    case 'f': return scan_literal(c, "false", 5);
    case 'n': return scan_literal(c, "null", 4);
    default: return scan_number(c);
    }
}

bool shc_span_is(shc_span a, const char *s)
{
    size_t n = strlen(s);
    return a.p && a.n == n && !memcmp(a.p, s, n);
}

const char *shc_span_find(shc_span s, const char *word)
{
    size_t w = strlen(word);
    if (!w || w > s.n)
        return w ? NULL : s.p;
    /* memchr for a byte JSON text holds rarely ('_' when the word has one; else the byte
     * after the first, which in a quoted key is not the frequent '"'), then memcmp */
    const char *u = strchr(word, '_');
    size_t j = u ? (size_t)(u - word) : w > 1;
    const char *p = s.p + j, *end = s.p + s.n - (w - 1 - j);
    while (p < end && (p = memchr(p, word[j], (size_t)(end - p))) != NULL) {
        if (!memcmp(p - j, word, w))
            return p - j;
        p++;
    }
    return NULL;
}

bool shc_span_has(shc_span s, const char *word) { return shc_span_find(s, word) != NULL; }

bool shc_span_int(shc_span s, int64_t *v)
{
    if (!s.p || !s.n)
        return false;
    size_t i = s.p[0] == '-';
    if (i == s.n || !int_fits(s.p + i, s.n - i, i))
        return false;
    uint64_t x = 0;
    for (size_t k = i; k < s.n; k++) {
        if (!is_digit(s.p[k]))
            return false; /* a real ('.', 'e'): not json_is_integer */
        x = 10 * x + (uint64_t)(s.p[k] - '0');
    }
    *v = i ? (int64_t)(0 - x) : (int64_t)x;
    return true;
}

/* The span of the value at c->p after scanning it (a plain string's contents in *raw). */
static int scan_capture(cur *c, shc_span *val, shc_span *raw, bool *other)
{
    const char *v = c->p;
    bool plain = false;
    if (raw && *v == '"') {
        if (scan_string(c, &plain))
            return SHC_SCAN_UNSURE;
    } else if (scan_value(c)) {
        return SHC_SCAN_UNSURE;
    }
    if (val)
        *val = (shc_span){v, (size_t)(c->p - v)};
    if (raw && plain)
        *raw = (shc_span){v + 1, (size_t)(c->p - v - 2)};
    else if (other)
        *other = true;
    return 0;
}

/* Which of names[] key is (-1: none); a key the walk relies on may appear once
 * (jansson keeps the last of repeated keys; the scan gives up instead). */
static int key_slot(shc_span key, bool plain, const char *const *names, unsigned *seen)
{
    if (!plain)
        return -1; /* an escaped key never spells one of the plain names below */
    for (int i = 0; names[i]; i++) {
        /* strncmp stops at names[i]'s end: a plain key holds no NUL */
        if (key.n && names[i][0] == key.p[0] && !strncmp(names[i], key.p, key.n) &&
            !names[i][key.n]) {
            if (*seen & (1u << i))
                return -2;
            *seen |= 1u << i;
            return i;
        }
    }
    return -1;
}

/* Right after a test's first member, a tcId: skip the test if its bytes are the known ones. */
static bool skip_known(cur *c, shc_scan_test *t, shc_scan_known_fn known, void *ctx)
{
    shc_span k = known(ctx, t->tcid);
    if (!k.p || (size_t)(c->end - t->text.p) < k.n || memcmp(t->text.p, k.p, k.n))
        return false;
    c->p = t->text.p + k.n;
    c->depth--; /* obj_next opened the object */
    t->text.n = k.n;
    t->known = true;
    return true;
}

static int walk_test(cur *c, shc_scan_test *t, shc_scan_known_fn known, void *ctx)
{
    static const char *const names[] = {"tcId", "result", "flags", "expected", NULL};
    t->text.p = c->p;
    t->is_object = *c->p == '{';
    if (!t->is_object) {
        int r = scan_value(c);
        t->text.n = (size_t)(c->p - t->text.p);
        return r;
    }
    bool first = true, plain;
    unsigned seen = 0;
    shc_span key, val;
    int r;
    while ((r = obj_next(c, &first, &key, &plain)) == 1) {
        int slot = key_slot(key, plain, names, &seen);
        if (slot == -2 || scan_capture(c, &val, slot == 1 ? &t->result : NULL,
                                       slot == 1 ? &t->result_other : NULL))
            return SHC_SCAN_UNSURE;
        if (slot == 0)
            t->has_tcid = shc_span_int(val, &t->tcid);
        if (slot == 0 && seen == 1 && t->has_tcid && known && skip_known(c, t, known, ctx))
            return 0;
        else if (slot == 2)
            t->flags = val;
        else if (slot == 3)
            t->expected = val;
    }
    t->text.n = (size_t)(c->p - t->text.p);
    return r;
}

/* One testGroups entry: its tests to fn; a group without a "tests" array is noted. */
static int walk_group(cur *c, size_t gi, shc_scan_doc *doc, shc_scan_fn fn,
                      shc_scan_known_fn known, void *ctx)
{
    static const char *const names[] = {"tests", NULL};
    bool first = true, plain, has_tests = false;
    unsigned seen = 0;
    shc_span key;
    int r;
    if (*c->p != '{') {
        r = scan_value(c);
    } else {
        while ((r = obj_next(c, &first, &key, &plain)) == 1) {
            int slot = key_slot(key, plain, names, &seen);
            if (slot == -2)
                return SHC_SCAN_UNSURE;
            if (slot != 0 || *c->p != '[') {
                if (scan_value(c))
                    return SHC_SCAN_UNSURE;
                continue;
            }
            has_tests = true;
            bool afirst = true;
            int ar;
            for (size_t ti = 0; (ar = arr_next(c, &afirst)) == 1; ti++) {
                shc_scan_test t = {.gi = gi, .ti = ti};
                if (walk_test(c, &t, known, ctx))
                    return SHC_SCAN_UNSURE;
                int rc = fn ? fn(ctx, &t) : 0;
                if (rc)
                    return rc;
            }
            if (ar)
                return SHC_SCAN_UNSURE;
        }
    }
    if (!r && !has_tests && doc->groups_ok) {
        doc->groups_ok = false;
        doc->bad_group = gi;
    }
    return r;
}

static int walk_groups(cur *c, shc_scan_doc *doc, shc_scan_fn fn, shc_scan_known_fn known,
                       void *ctx)
{
    bool first = true;
    int r;
    for (size_t gi = 0; (r = arr_next(c, &first)) == 1; gi++) {
        int rc = walk_group(c, gi, doc, fn, known, ctx);
        if (rc)
            return rc;
    }
    return r;
}

/* One results entry: its tcId, rank, values and error members as spans.  Its "values",
 * when tcId came first, is offered to vouch (see shc_scan_values_fn); a rank read after
 * the values voids the voucher, which could not have known it. */
static int walk_result(cur *c, shc_scan_result *r, shc_scan_values_fn vouch, void *ctx)
{
    static const char *const names[] = {"tcId", "rank", "values", "error", "notSupported", NULL};
    r->text.p = c->p;
    r->is_object = *c->p == '{';
    bool first = true, plain;
    unsigned seen = 0;
    shc_span key, val;
    int x = 0;
    if (!r->is_object) {
        x = scan_value(c);
    } else {
        shc_span *slots[] = {NULL, &r->rank, &r->values, &r->error, &r->not_supported};
        while ((x = obj_next(c, &first, &key, &plain)) == 1) {
            int slot = key_slot(key, plain, names, &seen);
            const char *v0 = c->p;
            if (slot == 2 && vouch && r->has_tcid && *v0 == '{' && vouch(ctx, r, c)) {
                r->values = (shc_span){v0, (size_t)(c->p - v0)};
                r->vouched = true;
                continue;
            }
            if (slot == -2 || scan_capture(c, &val, NULL, NULL))
                return SHC_SCAN_UNSURE;
            if (slot == 0)
                r->has_tcid = shc_span_int(val, &r->tcid);
            else if (slot > 0)
                *slots[slot] = val;
            if (slot == 1)
                r->vouched = false;
        }
    }
    r->text.n = (size_t)(c->p - r->text.p);
    return x;
}

static int walk_results(cur *c, shc_scan_result_fn rfn, shc_scan_values_fn vouch, void *ctx)
{
    bool first = true;
    int r;
    for (size_t i = 0; (r = arr_next(c, &first)) == 1; i++) {
        shc_scan_result e = {.i = i};
        if (walk_result(c, &e, vouch, ctx))
            return SHC_SCAN_UNSURE;
        int rc = rfn(ctx, &e);
        if (rc)
            return rc;
    }
    return r;
}

int shc_scan_golden_shaped(const char *buf, size_t n, shc_scan_doc *doc, shc_scan_fn fn,
                           shc_scan_known_fn known, void *ctx)
{
    return shc_scan_candidate(buf, n, doc, fn, known, NULL, NULL, ctx);
}

int shc_scan_candidate(const char *buf, size_t n, shc_scan_doc *doc, shc_scan_fn fn,
                       shc_scan_known_fn known, shc_scan_result_fn rfn,
                       shc_scan_values_fn vouch, void *ctx)
{
    static const char *const names[] = {"family", "schema", "notes", "numberOfTests", "fields",
                                        "results", "testGroups", NULL};
    if (!tables_ready)
        init_tables();
    memset(doc, 0, sizeof *doc);
    doc->groups_ok = true;
    cur c = {buf, buf + n, 0};
    bool first = true, plain;
    unsigned seen = 0;
    shc_span key;
    int r;
    skip_ws(&c);
    while ((r = obj_next(&c, &first, &key, &plain)) == 1) {
        int slot = key_slot(key, plain, names, &seen);
        shc_span *val[] = {NULL, NULL, &doc->notes, &doc->number_of_tests, &doc->fields,
                           &doc->results, &doc->test_groups};
        if (slot == -2)
            return SHC_SCAN_UNSURE;
        if (slot == 6 && *c.p == '[') {
            const char *v = c.p;
            int rc = walk_groups(&c, doc, fn, known, ctx);
            if (rc)
                return rc;
            doc->test_groups = (shc_span){v, (size_t)(c.p - v)};
        } else if (slot == 5 && rfn && *c.p == '[') {
            const char *v = c.p;
            int rc = walk_results(&c, rfn, vouch, ctx);
            if (rc)
                return rc;
            doc->results = (shc_span){v, (size_t)(c.p - v)};
        } else if (slot == 0 || slot == 1) {
            if (scan_capture(&c, NULL, slot ? &doc->schema : &doc->family,
                             slot ? &doc->schema_other : &doc->family_other))
                return SHC_SCAN_UNSURE;
        } else if (scan_capture(&c, slot >= 0 ? val[slot] : NULL, NULL, NULL)) {
            return SHC_SCAN_UNSURE;
        }
    }
    skip_ws(&c);
    return r || c.p != c.end ? SHC_SCAN_UNSURE : 0;
}

bool shc_span_each_string(shc_span arr, bool (*fn)(void *ctx, shc_span s), void *ctx)
{
    cur c = {arr.p, arr.p + arr.n, 0};
    bool first = true;
    int r;
    while ((r = arr_next(&c, &first)) == 1) {
        shc_span raw = {0};
        bool other = false;
        if (*c.p != '"' || scan_capture(&c, NULL, &raw, &other) || other || !fn(ctx, raw))
            return false;
    }
    return r == 0;
}

/* ---- walking bytes validated already (shc_jcur) ---- */

/* Past the value at p: only strings and brackets need reading, which is several times
 * faster than validating them again. */
static const char *skip_valid(const char *p, const char *end)
{
    int depth = 0;
    do {
        char ch = *p;
        if (ch == '"') {
            for (p++; p < end && *p != '"'; p++)
                p += *p == '\\';
            p++;
        } else if (ch == '{' || ch == '[') {
            depth++, p++;
        } else if (ch == '}' || ch == ']') {
            depth--, p++;
        } else if (depth) {
            p++;
        } else { /* a number or literal at the top */
            while (p < end && !is_ws(*p) && *p != ',' && *p != '}' && *p != ']')
                p++;
        }
    } while (depth > 0 && p < end);
    return p < end ? p : end; /* (bytes that did not scan: a string cut short) */
}

int shc_jcur_member(shc_jcur *c, bool *first, shc_span *key)
{
    if (!tables_ready)
        init_tables();
    bool plain;
    int r = obj_next(c, first, key, &plain);
    return r == 1 && !plain ? SHC_SCAN_UNSURE : r;
}

int shc_jcur_element(shc_jcur *c, bool *first)
{
    return arr_next(c, first);
}

void shc_jcur_take(shc_jcur *c, shc_span *v)
{
    v->p = c->p;
    c->p = skip_valid(c->p, c->end);
    v->n = (size_t)(c->p - v->p);
}

/* Both sides are valid JSON, so outside strings whitespace is insignificant and every
 * other byte is a token's; inside a string every byte counts, and an escape's second
 * byte is taken with it so that \" does not end the string.  want is a whole value: once
 * its tokens are matched, the cursor's value has ended too, unless want ends in a number
 * or literal that the cursor's goes on (12 against 123). */
bool shc_jcur_match(shc_jcur *c, shc_span want)
{
    const char *p = want.p, *pe = want.p + want.n, *q = c->p, *qe = c->end;
    if ((size_t)(qe - q) >= want.n && !memcmp(p, q, want.n)) {
        q += want.n;
    } else {
        bool in_str = false;
        while (p < pe) {
            if (!in_str) {
                while (p < pe && is_ws(*p))
                    p++;
                while (q < qe && is_ws(*q))
                    q++;
                if (p == pe)
                    break;
            }
            if (q == qe || *p != *q)
                return false;
            if (in_str && *p == '\\') {
                if (p + 1 == pe || q + 1 == qe || p[1] != q[1])
                    return false;
                p++, q++;
            } else if (*p == '"') {
                in_str = !in_str;
            }
            p++, q++;
        }
    }
    if (q < qe && !is_ws(*q) && *q != ',' && *q != '}' && *q != ']')
        return false; /* the cursor's number or literal is longer */
    c->p = q;
    return true;
}
