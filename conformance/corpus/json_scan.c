/*
 * json_scan.c — the validating scanner of json_scan.h: one pass over the bytes,
 * the grammar checked as jansson checks it (JSON_REJECT_DUPLICATES; tokens in json_lex.c,
 * keys in json_keys.c), the tests of a golden-shaped document and the entries of a
 * results file handed out as spans.  Tested by check_golden_bytes, verify_fast.sh and
 * the candidate and verify_diff fuzzers.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "json_keys.h"
#include "json_lex.h"
#include "json_scan.h"
#include "json_skip.h"

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
 * Anything else (an escape, a control character, a non-ASCII byte) goes to
 * shc_lex_string_special (json_lex.c), which reads it as jansson does. */
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

/* c->p at '"'; leaves it past the closing quote.  *plain: no escape inside (the bytes
 * are the value; non-ASCII ones included, once valid UTF-8). */
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
        if (!(p = shc_lex_string_special(p, end, &esc)))
            return SHC_SCAN_UNSURE;
    }
    c->p = p + 1;
    if (plain)
        *plain = !esc;
    return 0;
}

/* A quirk of jansson 2.14 (src/load.c, stream_get and lex_unget_unsave), reproduced: the
 * byte after a number or a literal is read and put back; when it is a NUL byte, the put-back
 * buffer holds 0, which stream_get takes for "empty", so that one NUL byte is never read
 * again and vanishes ("[1\0]" is [1]).  Past it; the value's span ends before it. */
static inline const char *past_unget_nul(const char *p, const char *end)
{
    return p < end && *p == '\0' ? p + 1 : p;
}

static const char *digits(const char *p, const char *end)
{
    while (p < end && is_digit(*p))
        p++;
    return p;
}

/* The JSON number grammar, and what jansson refuses in it: an integer outside int64 ("too
 * big integer", strtoll) and a real that overflows a double ("real number overflow",
 * strtod; shc_lex_real_fits).  A real without exponent and with at most 308 integer
 * digits is below 10^308 and needs no further look. */
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
    bool real = false, exp = false;
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
        if ((p = digits(p, end)) == x)
            return SHC_SCAN_UNSURE;
        real = exp = true;
    }
    if (!real ? !int_fits(d0, int_digits, *c->p == '-')
              : (exp || int_digits > 308) && !shc_lex_real_fits(c->p, (size_t)(p - c->p)))
        return SHC_SCAN_UNSURE;
    c->p = past_unget_nul(p, end);
    return 0;
}

static int scan_literal(cur *c, const char *word, size_t n)
{
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n))
        return SHC_SCAN_UNSURE;
    c->p = past_unget_nul(c->p + n, c->end);
    return 0;
}

static int scan_value(cur *c);

/* Every key of every object the scan validates is checked against the object's others
 * (json_keys.h), when the cursor carries a key stack (a scan; not the walks of bytes
 * validated already). */
static inline bool keys_open(cur *c) { return !c->keys || shc_jkeys_open(c->keys); }
static inline int keys_close(cur *c) { return c->keys ? shc_jkeys_close(c->keys) : 0; }

/* A key of the innermost object, raw its contents as written: its decoded bytes in *name. */
static inline int keys_add(cur *c, shc_span raw, bool plain, shc_span *name)
{
    *name = raw;
    return c->keys ? shc_jkeys_add(c->keys, raw.p, raw.n, plain, name) : 0;
}

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
    if (c->trusted) {
        const char *q = shc_skip_container(c->p, c->end);
        if (!q)
            return SHC_SCAN_UNSURE;
        c->p = q;
        return 0;
    }
    bool kind[SCAN_MAX_DEPTH + 1];
    int level = 0;
    cur k = *c;
#define PEEK (k.p < k.end ? *k.p : '\0')
open:
    if (c->depth + level >= SCAN_MAX_DEPTH)
        return SHC_SCAN_UNSURE;
    kind[level++] = *k.p++ == '{';
    if (kind[level - 1] && !keys_open(&k))
        return SHC_SCAN_UNSURE;
    skip_ws(&k);
    if (PEEK == (kind[level - 1] ? '}' : ']')) {
        k.p++;
        goto close;
    }
member:
    if (kind[level - 1]) {
        const char *q = k.p;
        bool plain;
        shc_span name;
        if (PEEK != '"' || scan_string(&k, &plain) ||
            keys_add(&k, (shc_span){q + 1, (size_t)(k.p - q - 2)}, plain, &name))
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
    if (kind[level - 1] && keys_close(&k))
        return SHC_SCAN_UNSURE;
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
    if (val) /* a NUL byte at the end is past_unget_nul's, not the value's */
        *val = (shc_span){v, (size_t)(c->p - v) - (c->p[-1] == '\0')};
    if (raw && plain)
        *raw = (shc_span){v + 1, (size_t)(c->p - v - 2)};
    else if (other)
        *other = true;
    return 0;
}

/* Which of names[] a key's decoded bytes spell (-1: none); -2 when it came before (a repeated
 * key: walk_member puts only the other keys on the key stack). */
static int key_slot(shc_span key, const char *const *names, unsigned *seen)
{
    for (int i = 0; names[i]; i++) {
        /* compared in line (a strncmp call was a twentieth of a results file's verify): the
         * loop stops at names[i]'s end, and a key holds no NUL (\u0000 is refused), so
         * equal bytes to the end of both mean equal names */
        const char *nm = names[i];
        size_t k = 0;
        while (k < key.n && nm[k] == key.p[k])
            k++;
        if (key.n && k == key.n && !nm[k]) {
            if (*seen & (1u << i))
                return -2;
            *seen |= 1u << i;
            return i;
        }
    }
    return -1;
}

/* obj_next for the walks below, which look at members by name: *slot is the key's in names[]
 * (key_slot: its seen bit refuses a repeat), and any other key goes on the key stack, which
 * refuses a repeat of it (so the usual members cost no more than a bit).  An escaped key is
 * decoded first: it may spell one of the names. */
static int walk_member(cur *c, bool *first, const char *const *names, unsigned *seen, int *slot)
{
    bool opening = *first, plain;
    shc_span raw, name;
    int r = obj_next(c, first, &raw, &plain);
    if (opening && r >= 0 && !keys_open(c))
        return SHC_SCAN_UNSURE;
    if (r == 0)
        return keys_close(c);
    if (r != 1)
        return r;
    if (plain && (*slot = key_slot(raw, names, seen)) != -1)
        return *slot == -2 ? SHC_SCAN_UNSURE : 1;
    if (keys_add(c, raw, plain, &name))
        return SHC_SCAN_UNSURE;
    *slot = plain ? -1 : key_slot(name, names, seen);
    return *slot == -2 ? SHC_SCAN_UNSURE : 1;
}

/* Right after a test's first member, a tcId: skip the test if its bytes are the known ones. */
static bool skip_known(cur *c, shc_scan_test *t, shc_scan_known_fn known, void *ctx)
{
    shc_span k = known(ctx, t->tcid);
    if (!k.p || (size_t)(c->end - t->text.p) < k.n || memcmp(t->text.p, k.p, k.n))
        return false;
    c->p = t->text.p + k.n;
    c->depth--; /* obj_next opened the object */
    if (c->keys)
        shc_jkeys_drop(c->keys); /* and walk_member its keys: the rest are golden's */
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
    bool first = true;
    unsigned seen = 0;
    shc_span val;
    int r, slot;
    while ((r = walk_member(c, &first, names, &seen, &slot)) == 1) {
        if (scan_capture(c, &val, slot == 1 ? &t->result : NULL,
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

/* At the start of an array element: *drop grows to cover the elements before it (see
 * shc_scan_doc.drop).  Not up to a ']' after a comma, which is no element: jansson reads
 * "[]" as an empty array but ",]" as an error, so the comma and an element before it stay. */
static inline void note_element(shc_span *drop, const char *at)
{
    if (!drop->p)
        *drop = (shc_span){at, 0};
    else if (*at != ']')
        drop->n = (size_t)(at - drop->p);
}

/* One testGroups entry: its tests to fn, then the group's bytes and its "tests" value's
 * to gfn (when given); a group without a "tests" array is noted. */
static int walk_group(cur *c, size_t gi, shc_scan_doc *doc, shc_scan_fn fn,
                      shc_scan_group_fn gfn, shc_scan_known_fn known, void *ctx)
{
    static const char *const names[] = {"tests", NULL};
    bool first = true, has_tests = false;
    unsigned seen = 0;
    int r, slot;
    const char *g0 = c->p;
    shc_span tests = {NULL, 0};
    if (*c->p != '{') {
        r = scan_value(c);
    } else {
        while ((r = walk_member(c, &first, names, &seen, &slot)) == 1) {
            if (slot != 0 || *c->p != '[') {
                if (scan_value(c))
                    return SHC_SCAN_UNSURE;
                continue;
            }
            has_tests = true;
            tests.p = c->p;
            bool afirst = true;
            int ar;
            for (size_t ti = 0; (ar = arr_next(c, &afirst)) == 1; ti++) {
                shc_scan_test t = {.gi = gi, .ti = ti};
                note_element(&doc->drop[1], c->p);
                if (walk_test(c, &t, known, ctx))
                    return SHC_SCAN_UNSURE;
                int rc = fn ? fn(ctx, &t) : 0;
                if (rc)
                    return rc;
            }
            if (ar)
                return SHC_SCAN_UNSURE;
            tests.n = (size_t)(c->p - tests.p);
        }
    }
    if (!r && !has_tests && doc->groups_ok) {
        doc->groups_ok = false;
        doc->bad_group = gi;
    }
    if (!r && gfn && *g0 == '{')
        return gfn(ctx, gi, (shc_span){g0, (size_t)(c->p - g0)}, tests);
    return r;
}

static int walk_groups(cur *c, shc_scan_doc *doc, shc_scan_fn fn, shc_scan_group_fn gfn,
                       shc_scan_known_fn known, void *ctx)
{
    bool first = true;
    int r;
    doc->drop[0] = (shc_span){NULL, 0};
    for (size_t gi = 0; (r = arr_next(c, &first)) == 1; gi++) {
        note_element(&doc->drop[0], c->p);
        doc->drop[1] = (shc_span){NULL, 0}; /* this group's tests, once they come */
        int rc = walk_group(c, gi, doc, fn, gfn, known, ctx);
        if (rc)
            return rc;
    }
    return r;
}

/* A plain JSON integer at p, digits only and no leading zero ("0" alone), of at most 18
 * digits (so it fits): its end, else NULL. */
static const char *plain_uint(const char *p, const char *end)
{
    const char *d = p;
    while (p < end && is_digit(*p) && p - d < 19)
        p++;
    return p > d && p - d <= 18 && (p - d == 1 || *d != '0') && p < end && !is_digit(*p) ? p
                                                                                        : NULL;
}

/* Past the literal lit at p, each space in lit matching one optional space (Python's
 * json.dumps puts one after ':' and ','; the harness writes none), else NULL. */
static const char *eat_lit(const char *p, const char *end, const char *lit)
{
    for (; *lit && p; lit++)
        if (*lit == ' ')
            p += p < end && *p == ' ';
        else
            p = p < end && *p == *lit ? p + 1 : NULL;
    return p;
}

/* The opening a harness writes, {"tcId":N,"rank":R,"values":{ in that order, compact or
 * spaced as Python's json.dumps spaces it (a member per entry in a results file of hundreds
 * of thousands), read at once: its keys are the names' own bytes (slots 0-2, no key stack
 * entry), its numbers plain, the values an object.  1: taken, the cursor at the values and
 * the walk where walk_member would have left it after "values"; 0: anything else (another
 * order or spacing, another number), the cursor untouched, for walk_member;
 * SHC_SCAN_UNSURE where walk_member would be too. */
static int result_prefix(cur *c, shc_scan_result *r, bool *first, unsigned *seen)
{
    const char *end = c->end, *t0, *t, *q0, *q, *v;
    if (end - c->p < 64 || !(t0 = eat_lit(c->p, end, "{\"tcId\": ")) ||
        !(t = plain_uint(t0, end)) || !(q0 = eat_lit(t, end, ", \"rank\": ")) ||
        !(q = plain_uint(q0, end)) || !(v = eat_lit(q, end, ", \"values\": ")) || v >= end ||
        *v != '{' || c->depth + 1 > SCAN_MAX_DEPTH)
        return 0;
    c->depth++;
    if (!keys_open(c))
        return SHC_SCAN_UNSURE;
    *first = false;
    *seen = 7;
    r->has_tcid = shc_span_int((shc_span){t0, (size_t)(t - t0)}, &r->tcid);
    r->rank = (shc_span){q0, (size_t)(q - q0)};
    c->p = v;
    return 1;
}

/* One results entry: its tcId, rank, values and error members as spans.  Its "values",
 * when tcId came first, is offered to vouch (see shc_scan_values_fn); a rank read after
 * the values voids the voucher, which could not have known it. */
static int walk_result(cur *c, shc_scan_result *r, shc_scan_values_fn vouch, void *ctx)
{
    static const char *const names[] = {"tcId", "rank", "values", "error", "notSupported", NULL};
    r->text.p = c->p;
    r->is_object = *c->p == '{';
    bool first = true;
    unsigned seen = 0;
    shc_span val;
    int x = 0, slot = 2;
    if (!r->is_object) {
        x = scan_value(c);
    } else {
        shc_span *slots[] = {NULL, &r->rank, &r->values, &r->error, &r->not_supported};
        int pre = result_prefix(c, r, &first, &seen);
        if (pre < 0)
            return pre;
        bool at_values = pre == 1; /* slot 2's value, walk_member's work done */
        while (at_values || (x = walk_member(c, &first, names, &seen, &slot)) == 1) {
            at_values = false;
            const char *v0 = c->p;
            if (slot == 2 && vouch && r->has_tcid && *v0 == '{' && vouch(ctx, r, c)) {
                r->values = (shc_span){v0, (size_t)(c->p - v0)};
                r->vouched = true;
                continue;
            }
            if (scan_capture(c, &val, NULL, NULL))
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

static int walk_results(cur *c, shc_span *drop, shc_scan_result_fn rfn,
                        shc_scan_values_fn vouch, void *ctx)
{
    bool first = true;
    int r;
    *drop = (shc_span){NULL, 0};
    for (size_t i = 0; (r = arr_next(c, &first)) == 1; i++) {
        shc_scan_result e = {.i = i};
        note_element(drop, c->p);
        if (walk_result(c, &e, vouch, ctx))
            return SHC_SCAN_UNSURE;
        int rc = rfn(ctx, &e);
        if (rc)
            return rc;
    }
    return r;
}

static int scan(const char *buf, size_t n, shc_scan_doc *doc, shc_scan_fn fn,
                shc_scan_group_fn gfn, shc_scan_known_fn known, shc_scan_result_fn rfn,
                shc_scan_values_fn vouch, bool trusted, void *ctx);

int shc_scan_golden_shaped(const char *buf, size_t n, shc_scan_doc *doc, shc_scan_fn fn,
                           shc_scan_known_fn known, void *ctx)
{
    return scan(buf, n, doc, fn, NULL, known, NULL, NULL, false, ctx);
}

int shc_scan_golden_groups(const char *buf, size_t n, shc_scan_doc *doc, shc_scan_fn fn,
                           shc_scan_group_fn gfn, bool trusted, void *ctx)
{
    return scan(buf, n, doc, fn, gfn, NULL, NULL, NULL, trusted, ctx);
}

static int walk_doc(cur *c0, shc_scan_doc *doc, shc_scan_fn fn, shc_scan_group_fn gfn,
                    shc_scan_known_fn known, shc_scan_result_fn rfn, shc_scan_values_fn vouch,
                    void *ctx)
{
    static const char *const names[] = {"family", "schema", "notes", "numberOfTests", "fields",
                                        "results", "testGroups", NULL};
    cur c = *c0;
    bool first = true;
    unsigned seen = 0;
    int r, slot;
    skip_ws(&c);
    while ((r = walk_member(&c, &first, names, &seen, &slot)) == 1) {
        shc_span *val[] = {NULL, NULL, &doc->notes, &doc->number_of_tests, &doc->fields,
                           &doc->results, &doc->test_groups};
        if (slot == 6 && *c.p == '[') {
            const char *v = c.p;
            int rc = walk_groups(&c, doc, fn, gfn, known, ctx);
            if (rc)
                return rc;
            doc->test_groups = (shc_span){v, (size_t)(c.p - v)};
        } else if (slot == 5 && rfn && *c.p == '[') {
            const char *v = c.p;
            int rc = walk_results(&c, &doc->drop[0], rfn, vouch, ctx);
            if (rc)
                return rc;
            doc->results = (shc_span){v, (size_t)(c.p - v)};
        } else if (slot == 0 || slot == 1) {
            if (scan_capture(&c, slot ? NULL : &doc->family_value,
                             slot ? &doc->schema : &doc->family,
                             slot ? &doc->schema_other : &doc->family_other))
                return SHC_SCAN_UNSURE;
        } else if (scan_capture(&c, slot >= 0 ? val[slot] : NULL, NULL, NULL)) {
            return SHC_SCAN_UNSURE;
        }
    }
    skip_ws(&c);
    return r || c.p != c.end ? SHC_SCAN_UNSURE : 0;
}

int shc_scan_candidate(const char *buf, size_t n, shc_scan_doc *doc, shc_scan_fn fn,
                       shc_scan_known_fn known, shc_scan_result_fn rfn,
                       shc_scan_values_fn vouch, void *ctx)
{
    return scan(buf, n, doc, fn, NULL, known, rfn, vouch, false, ctx);
}

static int scan(const char *buf, size_t n, shc_scan_doc *doc, shc_scan_fn fn,
                shc_scan_group_fn gfn, shc_scan_known_fn known, shc_scan_result_fn rfn,
                shc_scan_values_fn vouch, bool trusted, void *ctx)
{
    if (!tables_ready)
        init_tables();
    memset(doc, 0, sizeof *doc);
    doc->groups_ok = true;
    if (n > ((size_t)1 << 31))
        return SHC_SCAN_UNSURE; /* json_keys.h's offsets are 32-bit (inputs are 1 GiB at most) */
    shc_jkeys keys;
    shc_jkeys_init(&keys, buf);
    cur c = {buf, buf + n, 0, trusted ? NULL : &keys, trusted};
    int r = walk_doc(&c, doc, fn, gfn, known, rfn, vouch, ctx);
    shc_jkeys_free(&keys);
    return r;
}

bool shc_span_each_string(shc_span arr, bool (*fn)(void *ctx, shc_span s), void *ctx)
{
    cur c = {arr.p, arr.p + arr.n, 0, NULL, false};
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

char *shc_span_string(shc_span v, size_t *n)
{
    if (!v.p || v.n < 2 || *v.p != '"')
        return NULL;
    char *out = malloc(v.n - 1);
    if (out) {
        *n = shc_lex_decode(v.p + 1, v.n - 2, out);
        out[*n] = '\0';
    }
    return out;
}

bool shc_span_has_key(shc_span obj, const char *name)
{
    if (!tables_ready)
        init_tables();
    cur c = {obj.p, obj.p + obj.n, 0, NULL, false};
    size_t len = strlen(name);
    bool first = true, plain;
    shc_span key;
    char buf[512]; /* an escape is at most 6 bytes a character: room for names of 80 */
    while (len <= 80 && obj_next(&c, &first, &key, &plain) == 1) {
        if (plain ? key.n == len && !memcmp(key.p, name, len)
                  : key.n <= sizeof buf && shc_lex_decode(key.p, key.n, buf) == len &&
                        !memcmp(buf, name, len))
            return true;
        if (scan_value(&c))
            return false;
    }
    return false;
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

/* A byte of a number or a literal (true, false, null): where two of them meet, no
 * whitespace may come between (it would split a token: [1 0] is not [10]). */
static inline bool in_word(char ch) { return !is_ws(ch) && !strchr("{}[],:\"", ch); }

/* want is valid JSON, so outside strings its whitespace lies between tokens and every
 * other byte is a token's; the cursor's bytes are not validated (the scan's vouch hook,
 * shc_bview_match), so they match only where they are want's tokens with whitespace
 * between tokens and nowhere else: then they are valid JSON that jansson reads as want
 * (issue 27 N1).  Inside a string every byte counts, and an escape's second byte is taken
 * with it so that \" does not end the string.  want is a whole value: once its tokens
 * are matched, the cursor's value has ended too, unless want ends in a number or literal
 * that the cursor's goes on (12 against 123). */
bool shc_jcur_match(shc_jcur *c, shc_span want)
{
    const char *p = want.p, *pe = want.p + want.n, *q = c->p, *qe = c->end;
    if ((size_t)(qe - q) >= want.n && !memcmp(p, q, want.n)) {
        q += want.n;
    } else {
        bool in_str = false, word = false; /* word: the last byte matched was in_word */
        while (p < pe) {
            if (!in_str) {
                const char *q0 = q;
                while (p < pe && is_ws(*p))
                    p++;
                while (q < qe && is_ws(*q))
                    q++;
                if (p == pe)
                    break;
                if (q != q0 && word && in_word(*p))
                    return false; /* whitespace inside a number or literal */
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
            word = !in_str && in_word(*p);
            p++, q++;
        }
    }
    if (q < qe && !is_ws(*q) && *q != ',' && *q != '}' && *q != ']')
        return false; /* the cursor's number or literal is longer */
    c->p = q;
    return true;
}
