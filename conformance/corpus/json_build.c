/*
 * json_build.c — shc_json_build (json_build.h): a recursive descent over the common kinds of
 * token, jansson's constructors for the values.  Every rule here is one jansson also holds
 * for these tokens, so a text it accepts reads the same either way; every doubt returns NULL
 * for jansson to decide.  Tested by check_json_build.
 */
#include "config.h"
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "json_build.h"

/* Far below jansson's own depth limit: deeper texts go to jansson. */
#define BUILD_MAX_DEPTH 64

typedef struct bcur { const char *p, *end; int depth; } bcur;

static void skip_ws(bcur *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\n' || *c->p == '\r' || *c->p == '\t'))
        c->p++;
}

/* At '"': the contents' span when they are printable ASCII without '\\' (the bytes are then
 * the string), with the cursor past the closing quote; false otherwise. */
static bool plain_string(bcur *c, const char **s, size_t *n)
{
    const char *q = ++c->p;
    while (q < c->end && *q != '"') {
        unsigned char b = (unsigned char)*q;
        if (b < 0x20 || b > 0x7e || b == '\\')
            return false;
        q++;
    }
    if (q == c->end)
        return false;
    *s = c->p, *n = (size_t)(q - c->p);
    c->p = q + 1;
    return true;
}

/* An integer of at most 18 digits (no '.', 'e' or 'E' after it: a real goes to jansson). */
static json_t *small_integer(bcur *c)
{
    const char *q = c->p;
    bool neg = q < c->end && *q == '-';
    q += neg;
    const char *d = q;
    int64_t v = 0; /* 18 digits at most: below 10^18, no overflow */
    while (q < c->end && *q >= '0' && *q <= '9' && q - d < 18)
        v = 10 * v + (*q++ - '0');
    size_t nd = (size_t)(q - d);
    if (!nd || (nd > 1 && *d == '0'))
        return NULL;
    if (q < c->end && (*q == '.' || *q == 'e' || *q == 'E' || (*q >= '0' && *q <= '9')))
        return NULL;
    c->p = q;
    return json_integer(neg ? -v : v);
}

static json_t *literal(bcur *c, const char *word, json_t *(*make)(void))
{
    size_t n = strlen(word);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n))
        return NULL;
    c->p += n;
    return make();
}

static json_t *value(bcur *c);

/* After a container's element: 1 past a ',' (another follows), 0 past close (the end), -1
 * for anything else. */
static int after_element(bcur *c, char close)
{
    skip_ws(c);
    if (c->p < c->end && (*c->p == ',' || *c->p == close))
        return *c->p++ == ',';
    return -1;
}

/* At '{' or '[': true past close when the container is empty. */
static bool empty(bcur *c, char close)
{
    c->p++;
    skip_ws(c);
    if (c->p < c->end && *c->p == close) {
        c->p++;
        return true;
    }
    return false;
}

static json_t *object(bcur *c)
{
    json_t *o = json_object();
    int more = empty(c, '}') ? 0 : 1;
    while (more == 1) {
        skip_ws(c);
        const char *k;
        size_t kn;
        json_t *v;
        if (c->p >= c->end || *c->p != '"' || !plain_string(c, &k, &kn) ||
            json_object_getn(o, k, kn)) /* a repeated key: jansson refuses it, by name */
            break;
        skip_ws(c);
        if (c->p >= c->end || *c->p != ':')
            break;
        c->p++;
        skip_ws(c);
        if (!(v = value(c)) || json_object_setn_new_nocheck(o, k, kn, v))
            break;
        more = after_element(c, '}');
    }
    if (more == 0)
        return o;
    json_decref(o);
    return NULL;
}

static json_t *array(bcur *c)
{
    json_t *a = json_array();
    int more = empty(c, ']') ? 0 : 1;
    while (more == 1) {
        skip_ws(c);
        json_t *v = value(c);
        if (!v || json_array_append_new(a, v))
            break;
        more = after_element(c, ']');
    }
    if (more == 0)
        return a;
    json_decref(a);
    return NULL;
}

static json_t *value(bcur *c)
{
    if (c->p >= c->end)
        return NULL;
    switch (*c->p) {
    case '{':
    case '[': {
        if (++c->depth > BUILD_MAX_DEPTH)
            return NULL;
        json_t *v = *c->p == '{' ? object(c) : array(c);
        c->depth--;
        return v;
    }
    case '"': {
        const char *s;
        size_t n;
        return plain_string(c, &s, &n) ? json_stringn_nocheck(s, n) : NULL;
    }
    case 't': return literal(c, "true", json_true);
    case 'f': return literal(c, "false", json_false);
    case 'n': return literal(c, "null", json_null);
    default: return small_integer(c);
    }
}

json_t *shc_json_build(const char *buf, size_t n)
{
    bcur c = {buf, buf + n, 0};
    skip_ws(&c);
    if (c.p >= c.end || (*c.p != '{' && *c.p != '['))
        return NULL;
    json_t *v = value(&c);
    skip_ws(&c);
    if (v && c.p != c.end) { /* more after the value (a NUL byte included): jansson's to say */
        json_decref(v);
        return NULL;
    }
    return v;
}
