/*
 * run_outcome.c — a case's outcome as one line of JSON: a worker's to the runner, a process's
 * to rank 0 under mpirun, and back.
 *
 * Most lines are a checked case's verdict with no views (a trusted worker checked them,
 * run_check.c): {"status":0,"msg":"","first":0,"world":4,"views":[],"checked":true,
 * "comment":"..."}.  Built and parsed by jansson, one such line cost a fifth of `run --backend
 * ref` (issue 36 item 1), so that shape, with strings of printable ASCII, is written by hand
 * and read back by hand; so is a verdict carrying flat views (objects of integers and plain
 * strings: the invariants' fields each process sends rank 0 under mpirun, which rank 0 spent
 * a third of its time reading with jansson for rng-offsets).  Every other line (other views,
 * other bytes) goes through jansson, and so does any line the hand reader is not sure of, so
 * both readers agree on every line the writer makes.  Tested by check_run_outcome (random
 * outcomes both ways, flat views among them, and lines the fast reader must hand to
 * jansson).
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "golden.h"
#include "run.h"

void run_outcome_clear(run_outcome *oc)
{
    for (int64_t i = 0; oc->views && i < oc->count; i++)
        json_decref(oc->views[i]);
    free(oc->views);
    oc->views = NULL;
    free(oc->raw);
    oc->raw = NULL;
}

/* ---- the verdict line, by hand ---- */

static bool plain(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s >= 0x7f)
            return false; /* UTF-8 (or bytes jansson would refuse): jansson writes it */
    return true;
}

/* s as a JSON string at b: printable ASCII as is, '"' and '\' escaped, control bytes as
 * \u00XX (6 bytes at most for one); past it. */
static char *put_string(char *b, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    *b++ = '"';
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            *b++ = '\\';
            *b++ = (char)c;
        } else if (c < 0x20) {
            memcpy(b, "\\u00", 4);
            b[4] = hex[c >> 4], b[5] = hex[c & 15];
            b += 6;
        } else {
            *b++ = (char)c;
        }
    }
    *b++ = '"';
    return b;
}

/* A string value put_string writes whole: plain, and no NUL inside (its C string would end
 * early; jansson writes that one, as \u0000, which every reader refuses). */
static bool plain_string(const json_t *x)
{
    const char *s = json_string_value(x);
    return s && plain(s) && strlen(s) == json_string_length(x);
}

/* A view the hand writer takes: an object whose values are integers or strings, its keys
 * and strings plain (the invariants' fields a block sends rank 0: run_check.c); the bytes
 * it needs written in *need (each string byte 6 at most, an integer 20). */
static bool flat_view(const json_t *v, size_t *need)
{
    const char *k;
    const json_t *x;
    if (!json_is_object(v))
        return false;
    *need += 2;
    json_object_foreach((json_t *)v, k, x) {
        if (!plain(k) || !(json_is_integer(x) || plain_string(x)))
            return false;
        *need += 6 * strlen(k) + 4 + (json_is_integer(x) ? 20 : 6 * json_string_length(x) + 2);
    }
    return true;
}

/* The verdict line is written once per case in every worker, so without sprintf's format
 * engine either: s's bytes, v in decimal; each returns the end. */
static char *put_lit(char *b, const char *s)
{
    size_t n = strlen(s);
    memcpy(b, s, n);
    return b + n;
}

static char *put_int(char *b, long long v)
{
    return b + shc_i64_dec((int64_t)v, b);
}

/* The views of a flat verdict, as jansson writes them compactly: past them. */
static char *put_views(char *b, const run_outcome *oc)
{
    *b++ = '[';
    for (int64_t i = 0; i < oc->count; i++) {
        const char *k;
        const json_t *x;
        bool first = true;
        if (i)
            *b++ = ',';
        *b++ = '{';
        json_object_foreach(oc->views[i], k, x) {
            if (!first)
                *b++ = ',';
            first = false;
            b = put_string(b, k);
            *b++ = ':';
            if (json_is_integer(x))
                b = put_int(b, (long long)json_integer_value(x));
            else
                b = put_string(b, json_string_value(x));
        }
        *b++ = '}';
    }
    *b++ = ']';
    return b;
}

/* A checked verdict, with no views or flat ones (flat_view): need, the views' bytes. */
static char *dump_verdict(const run_outcome *oc, size_t need)
{
    char *text = malloc(6 * (strlen(oc->msg) + strlen(oc->comment)) + 160 + need), *b = text;
    if (!text)
        return NULL;
    b = put_int(put_lit(b, "{\"status\":"), (int)oc->status);
    b = put_string(put_lit(b, ",\"msg\":"), oc->msg);
    b = put_int(put_lit(b, ",\"first\":"), (long long)oc->first);
    b = put_int(put_lit(b, ",\"world\":"), (long long)oc->world);
    b = put_views(put_lit(b, ",\"views\":"), oc);
    b = put_lit(b, ",\"checked\":true,\"comment\":");
    b = put_string(b, oc->comment);
    memcpy(b, "}", 2);
    return text;
}

char *run_outcome_dump(const run_outcome *oc)
{
    size_t need = 0;
    bool flat = oc->checked && (oc->views || !oc->count) && plain(oc->msg) &&
                plain(oc->comment);
    for (int64_t i = 0; flat && i < oc->count; i++)
        flat = flat_view(oc->views[i], &need);
    if (flat)
        return dump_verdict(oc, need);
    json_t *a = json_array();
    for (int64_t i = 0; oc->views && i < oc->count; i++)
        json_array_append(a, oc->views[i] ? oc->views[i] : json_null());
    json_t *o = json_pack("{s:i, s:s, s:I, s:I, s:o}", "status", (int)oc->status, "msg",
                          oc->msg, "first", (json_int_t)oc->first, "world",
                          (json_int_t)oc->world, "views", a);
    if (o && oc->checked) {
        json_object_set_new(o, "checked", json_true());
        json_object_set_new(o, "comment", json_string(oc->comment));
    }
    char *text = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return text;
}

/* The literal lit at *p: past it, or false. */
static bool eat(const char **p, const char *lit)
{
    size_t n = strlen(lit);
    if (strncmp(*p, lit, n))
        return false;
    *p += n;
    return true;
}

/* A decimal integer of at most 18 digits (no overflow to think of). */
static bool eat_int(const char **p, long long *v)
{
    const char *s = *p;
    bool neg = *s == '-';
    s += neg;
    if (*s < '0' || *s > '9' || (*s == '0' && s[1] >= '0' && s[1] <= '9'))
        return false;
    long long x = 0;
    for (int d = 0; *s >= '0' && *s <= '9'; s++, d++) {
        if (d == 18)
            return false; /* more digits: jansson reads it (or refuses it) */
        x = x * 10 + (*s - '0');
    }
    *v = neg ? -x : x;
    *p = s;
    return true;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* A string as put_string writes it into out[n] (truncated as snprintf would); false for any
 * other text (jansson reads it then). */
static bool eat_string(const char **p, char *out, size_t n)
{
    const char *s = *p;
    size_t k = 0;
    if (*s++ != '"')
        return false;
    for (;;) {
        unsigned char c = (unsigned char)*s++;
        if (c == '"')
            break;
        if (c < 0x20 || c >= 0x7f)
            return false;
        if (c == '\\') {
            if (*s == '"' || *s == '\\') {
                c = (unsigned char)*s++;
            } else { /* \u00XX, a control byte (put_string's only other escape) */
                if (s[0] != 'u' || s[1] != '0' || s[2] != '0')
                    return false;
                int hi = hexval(s[3]), lo = hi < 0 ? -1 : hexval(s[4]); /* stop at a NUL */
                if (hi < 0 || hi > 1 || lo < 0)
                    return false;
                c = (unsigned char)(hi * 16 + lo);
                s += 5;
                if (!c)
                    return false; /* \u0000: jansson refuses it */
            }
        }
        if (k + 1 < n)
            out[k++] = (char)c;
    }
    out[k] = '\0';
    *p = s;
    return true;
}

/* A string as put_string writes it, whole, into out[n] (*len its bytes); false when it does
 * not fit (a view's value is never cut: jansson reads that line). */
static bool eat_whole_string(const char **p, char *out, size_t n, size_t *len)
{
    const char *s = *p;
    if (!eat_string(&s, out, n))
        return false;
    *len = strlen(out);
    if (*len + 1 >= n)
        return false; /* perhaps cut */
    *p = s;
    return true;
}

/* One flat view as put_views writes it: a new object, or NULL (jansson reads the line). */
static json_t *eat_view(const char **p)
{
    char key[256], val[1024];
    size_t kl, vl;
    json_t *v = json_object();
    if (!v || !eat(p, "{"))
        goto fail;
    for (bool first = true; !eat(p, "}"); first = false) {
        long long x;
        json_t *e;
        if ((!first && !eat(p, ",")) || !eat_whole_string(p, key, sizeof key, &kl) ||
            !eat(p, ":"))
            goto fail;
        if (**p == '"') {
            if (!eat_whole_string(p, val, sizeof val, &vl))
                goto fail;
            e = json_stringn_nocheck(val, vl);
        } else {
            if (!eat_int(p, &x))
                goto fail;
            e = json_integer(x);
        }
        if (json_object_set_new(v, key, e))
            goto fail;
    }
    return v;
fail:
    json_decref(v);
    return NULL;
}

/* The views of a verdict line: 0 and oc->views, oc->count (at least a slot allocated, as
 * run_outcome_load leaves an empty list), or -1. */
static int eat_views(const char **p, run_outcome *oc)
{
    size_t cap = 1;
    oc->count = 0;
    oc->views = calloc(cap, sizeof *oc->views);
    if (!oc->views || !eat(p, "["))
        return -1;
    for (bool first = true; !eat(p, "]"); first = false) {
        if ((!first && !eat(p, ",")) || **p != '{')
            return -1;
        if ((size_t)oc->count == cap) {
            json_t **m = realloc(oc->views, 2 * cap * sizeof *m);
            if (!m)
                return -1;
            oc->views = m, cap *= 2;
        }
        if (!(oc->views[oc->count] = eat_view(p)))
            return -1;
        oc->count++;
    }
    return 0;
}

static bool parse_verdict(const char *line, run_outcome *oc)
{
    const char *p = line;
    long long st, first, world;
    run_outcome v = {0};
    bool ok = eat(&p, "{\"status\":") && eat_int(&p, &st) && st >= 0 && st <= 1000000 &&
              eat(&p, ",\"msg\":") && eat_string(&p, v.msg, sizeof v.msg) &&
              eat(&p, ",\"first\":") && eat_int(&p, &first) && eat(&p, ",\"world\":") &&
              eat_int(&p, &world) && eat(&p, ",\"views\":") && !eat_views(&p, &v) &&
              eat(&p, ",\"checked\":true,\"comment\":") &&
              eat_string(&p, v.comment, sizeof v.comment) && eat(&p, "}") && !*p;
    if (!ok) {
        run_outcome_clear(&v);
        return false;
    }
    oc->status = (run_status)st;
    memcpy(oc->msg, v.msg, sizeof oc->msg);
    memcpy(oc->comment, v.comment, sizeof oc->comment);
    oc->first = first;
    oc->world = world;
    oc->checked = true;
    oc->count = v.count;
    oc->views = v.views;
    return true;
}

int run_outcome_parse(const char *line, run_outcome *oc)
{
    if (parse_verdict(line, oc))
        return 0;
    json_error_t je;
    json_t *j = json_loads(line, 0, &je);
    int rc = j ? run_outcome_load(j, oc) : -1;
    json_decref(j);
    return rc;
}

int run_outcome_load(const json_t *j, run_outcome *oc)
{
    const json_t *a = json_object_get(j, "views");
    if (!json_is_integer(json_object_get(j, "status")) || !json_is_array(a))
        return -1;
    oc->status = (run_status)json_integer_value(json_object_get(j, "status"));
    run_copy(oc->msg, sizeof oc->msg, json_string_value(json_object_get(j, "msg")));
    oc->first = json_integer_value(json_object_get(j, "first"));
    oc->checked = json_is_true(json_object_get(j, "checked"));
    if (oc->checked) { /* the worker found the world (RUN_WORLD_UNKNOWN) */
        oc->world = json_integer_value(json_object_get(j, "world"));
        snprintf(oc->comment, sizeof oc->comment, "%s",
                 json_string_value(json_object_get(j, "comment")) ?: "");
    }
    oc->count = (int64_t)json_array_size(a);
    oc->views = calloc((size_t)(oc->count ? oc->count : 1), sizeof *oc->views);
    for (int64_t i = 0; oc->views && i < oc->count; i++) {
        json_t *v = json_array_get(a, (size_t)i);
        oc->views[i] = json_is_null(v) ? NULL : json_incref(v);
    }
    return oc->views ? 0 : -1;
}
