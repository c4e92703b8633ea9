/*
 * plugin_host.c — see plugin_host.h.  The case is built from the golden test so that a
 * plugin sees every input the golden file states (op, dtype, GPU profile, shard order,
 * rank map, planner, ...) and nothing of the answer.  The reader never fails loudly: an
 * absent key or one of another type is NULL / -1, as the ABI says.  The writer is strict
 * instead: a key given twice, text that is not JSON, a NULL pointer, a count out of
 * range or an answer grown past its bounds refuses the whole answer with the first such
 * reason (the case then fails naming it), so a plugin's garbage is never half-compared.
 * Tested by conformance/tests/plugin_v2.sh and check_plugin_host.
 */
#include "config.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plugin_host.h"

/* Bounds of one answer: members, the length of a key, the elements of an array written
 * with put_ints/put_decs and the text of one put_json (a shard-layout index list of the
 * corpus's largest case is far below each). */
#define ANSWER_MAX_KEYS 64
#define ANSWER_MAX_KEY 128
#define ANSWER_MAX_ITEMS ((int64_t)1 << 26)
#define ANSWER_MAX_TEXT ((size_t)1 << 28)

/* ---- the case ---- */

/* obj without the members named in drop (NULL-ended), as a new object. */
static json_t *without(const json_t *obj, const char *const *drop)
{
    json_t *o = json_object();
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)obj, k, v) {
        bool skip = false;
        for (int i = 0; drop[i] && !skip; i++)
            skip = !strcmp(k, drop[i]);
        if (!skip && o)
            json_object_set(o, k, v);
    }
    return o;
}

json_t *shc_case_json(const char *family, const char *torch, const json_t *group,
                      const json_t *test, int64_t world)
{
    static const char *const group_drop[] = {"tests", NULL};
    static const char *const test_drop[] = {"expected", "result", "byVersion", NULL};
    if (!json_is_object(group) || !json_is_object(test))
        return NULL;
    json_t *g = without(group, group_drop), *t = without(test, test_drop);
    return json_pack("{s:s, s:s?, s:O?, s:I, s:o?, s:o?}", "family", family, "torch", torch,
                     "tcId", json_object_get(test, "tcId"), "world", (json_int_t)world,
                     "group", g, "test", t);
}

int shc_case_v2_init(shc_case_v2 *c, const char *family, const char *torch,
                     const json_t *group, const json_t *test, int64_t world, shc_err *e)
{
    memset(c, 0, sizeof *c);
    if (!json_is_object(group) || !json_is_object(test))
        return shc_fail(e, SHC_EFORMAT, "case: the group and the test must be objects");
    c->root = shc_case_json(family, torch, group, test, world);
    if (!c->root)
        return shc_fail(e, SHC_ENOMEM, "case: out of memory");
    c->group = json_object_get(c->root, "group");
    c->test = json_object_get(c->root, "test");
    return SHC_OK;
}

shc_case_v2 *shc_case_v2_new(const char *family, const char *torch, const json_t *group,
                             const json_t *test, int64_t world, shc_err *e)
{
    shc_case_v2 *c = malloc(sizeof *c);
    if (!c) {
        shc_fail(e, SHC_ENOMEM, "case: out of memory");
        return NULL;
    }
    if (shc_case_v2_init(c, family, torch, group, test, world, e)) {
        free(c);
        return NULL;
    }
    return c;
}

void shc_case_v2_delete(shc_case_v2 *c)
{
    if (c)
        shc_case_v2_free(c);
    free(c);
}

void shc_case_v2_reset(shc_case_v2 *c)
{
    for (size_t i = 0; i < c->nstrs; i++)
        free(c->strs[i]);
    c->nstrs = 0;
}

void shc_case_v2_free(shc_case_v2 *c)
{
    shc_case_v2_reset(c);
    free(c->strs);
    free(c->text);
    json_decref(c->root);
    memset(c, 0, sizeof *c);
}

/* ---- the reader ---- */

/* key in the test, else its group, else the case's own members. */
static const json_t *member(const shc_case_v2 *c, const char *key)
{
    if (!c || !key)
        return NULL;
    const json_t *v = json_object_get(c->test, key);
    if (!v)
        v = json_object_get(c->group, key);
    if (!v && strcmp(key, "group") && strcmp(key, "test"))
        v = json_object_get(c->root, key);
    return v;
}

/* Keep s until the call returns; NULL when it cannot be kept. */
static const char *keep(shc_case_v2 *c, char *s)
{
    if (!s)
        return NULL;
    if (c->nstrs == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 8;
        char **n = realloc(c->strs, cap * sizeof *n);
        if (!n) {
            free(s);
            return NULL;
        }
        c->strs = n;
        c->cap = cap;
    }
    return c->strs[c->nstrs++] = s;
}

static const char *h_case_json(const shc_case_v2 *cc)
{
    shc_case_v2 *c = (shc_case_v2 *)cc; /* the text is made once, on the first ask */
    if (c && !c->text)
        c->text = json_dumps(c->root, JSON_COMPACT);
    return c ? c->text : NULL;
}

static const char *h_json(const shc_case_v2 *c, const char *key)
{
    const json_t *v = member(c, key);
    return v ? keep((shc_case_v2 *)c, json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY)) : NULL;
}

static const char *h_str(const shc_case_v2 *c, const char *key)
{
    return json_string_value(member(c, key));
}

/* A JSON integer, or a decimal string (the corpus's 64-bit form) wholly one. */
static int as_i64(const json_t *v, int64_t *out)
{
    if (json_is_integer(v)) {
        *out = json_integer_value(v);
        return 0;
    }
    const char *s = json_string_value(v);
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (errno || *end || end == s || s[0] == ' ' || s[0] == '+')
        return -1;
    *out = x;
    return 0;
}

static int h_i64(const shc_case_v2 *c, const char *key, int64_t *v)
{
    int64_t x;
    if (!v || as_i64(member(c, key), &x))
        return -1;
    *v = x;
    return 0;
}

static int64_t h_i64s(const shc_case_v2 *c, const char *key, int64_t *v, int64_t cap)
{
    const json_t *a = member(c, key);
    if (!json_is_array(a) || cap < 0 || (cap > 0 && !v))
        return -1;
    int64_t n = (int64_t)json_array_size(a), x;
    for (int64_t i = 0; i < n; i++) /* every item an integer, or it is not such an array */
        if (as_i64(json_array_get(a, (size_t)i), &x))
            return -1;
    for (int64_t i = 0; i < n && i < cap; i++)
        as_i64(json_array_get(a, (size_t)i), &v[i]);
    return n;
}

/* ---- the writer ---- */

static int refuse(shc_answer_v2 *a, const char *fmt, ...)
{
    if (a && !a->why[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(a->why, sizeof a->why, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* key may be set to v (stolen): 0, or -1 with the answer refused. */
static int put(shc_answer_v2 *a, const char *key, json_t *v)
{
    int rc = 0;
    if (!a)
        rc = -1; /* nowhere to say why: the call only fails */
    else if (a->why[0])
        rc = -1; /* already refused: the first reason stands */
    else if (!key || !*key || strlen(key) > ANSWER_MAX_KEY)
        rc = refuse(a, "a put call with %s key",
                    !key ? "a NULL" : !*key ? "an empty" : "a too long");
    else if (!v)
        rc = refuse(a, "\"%s\": no value (out of memory, or a NULL or out-of-range argument)",
                    key);
    else if (json_object_get(a->view, key))
        rc = refuse(a, "\"%s\" given twice", key);
    else if (json_object_size(a->view) >= ANSWER_MAX_KEYS)
        rc = refuse(a, "more than %d members", ANSWER_MAX_KEYS);
    else if (json_object_set_new(a->view, key, v))
        return refuse(a, "\"%s\": out of memory", key);
    else
        return 0;
    json_decref(v);
    return rc;
}

static int h_put_json(shc_answer_v2 *a, const char *key, const char *text)
{
    if (!text || strlen(text) > ANSWER_MAX_TEXT)
        return refuse(a, "put_json(\"%s\"): %s", key ? key : "(null)",
                      !text ? "NULL text" : "text longer than 256 MiB");
    json_error_t je;
    json_t *v = json_loads(text, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &je);
    if (!v)
        return refuse(a, "put_json(\"%s\"): not JSON (%s at column %d): %.60s",
                      key ? key : "(null)", je.text, je.column, text);
    return put(a, key, v);
}

static int h_put_str(shc_answer_v2 *a, const char *key, const char *value)
{
    if (!value)
        return refuse(a, "put_str(\"%s\"): NULL value", key ? key : "(null)");
    json_t *v = json_string(value);
    return v ? put(a, key, v) : refuse(a, "put_str(\"%s\"): not UTF-8", key ? key : "(null)");
}

static int h_put_int(shc_answer_v2 *a, const char *key, int64_t value)
{
    return put(a, key, json_integer((json_int_t)value));
}

static json_t *dec(int64_t value)
{
    char buf[24];
    snprintf(buf, sizeof buf, "%lld", (long long)value);
    return json_string(buf);
}

static int h_put_dec(shc_answer_v2 *a, const char *key, int64_t value)
{
    return put(a, key, dec(value));
}

static int put_array(shc_answer_v2 *a, const char *what, const char *key, const int64_t *v,
                     int64_t n, bool decimal)
{
    if (n < 0 || n > ANSWER_MAX_ITEMS || (n > 0 && !v))
        return refuse(a, "%s(\"%s\"): %s", what, key ? key : "(null)",
                      n < 0 ? "a negative count" : n > 0 && v ? "more than 2^26 items"
                                                               : "NULL values");
    json_t *arr = json_array();
    for (int64_t i = 0; arr && i < n; i++)
        if (json_array_append_new(arr, decimal ? dec(v[i]) : json_integer((json_int_t)v[i]))) {
            json_decref(arr);
            arr = NULL;
        }
    return put(a, key, arr);
}

static int h_put_ints(shc_answer_v2 *a, const char *key, const int64_t *v, int64_t n)
{
    return put_array(a, "put_ints", key, v, n, false);
}

static int h_put_decs(shc_answer_v2 *a, const char *key, const int64_t *v, int64_t n)
{
    return put_array(a, "put_decs", key, v, n, true);
}

static const shc_host_v2 host = {
    .struct_size = sizeof(shc_host_v2), .case_json = h_case_json, .json = h_json,
    .str = h_str, .i64 = h_i64, .i64s = h_i64s, .put_json = h_put_json, .put_str = h_put_str,
    .put_int = h_put_int, .put_dec = h_put_dec, .put_ints = h_put_ints, .put_decs = h_put_decs,
};

const shc_host_v2 *shc_plugin_host(void) { return &host; }

void shc_answer_v2_init(shc_answer_v2 *a)
{
    a->view = json_object();
    a->why[0] = '\0';
    if (!a->view)
        snprintf(a->why, sizeof a->why, "out of memory");
}

void shc_answer_v2_free(shc_answer_v2 *a)
{
    json_decref(a->view);
    a->view = NULL;
}

json_t *shc_answer_v2_take(shc_answer_v2 *a, char *why, size_t n)
{
    if (a->why[0]) {
        snprintf(why, n, "%s", a->why);
        shc_answer_v2_free(a);
        return NULL;
    }
    json_t *v = a->view;
    a->view = NULL;
    return v;
}
