/*
 * torch_version.c — which torch release a command judges against (--torch-version), the
 * one rule for verify, run, certify, report and explain: the option, else
 * SHARDCHECK_TORCH_VERSION, else the release an input records (a results file's or a run
 * report's "torch"), else the pinned 2.13, the release the corpus's top-level answers are
 * and the one CI cross-checks in full.  A new user who names nothing gets what the
 * README's numbers and the corpus describe; a user checking a file gets what the file says
 * it was judged against; an explicit choice that contradicts a file's is refused by name
 * (exit 2), never silently compared against the wrong answers.  Tested by torch_version.sh
 * (the recorded release in every key order and spelling, a non-string one refused).
 */
#include "config.h"
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "golden.h"
#include "json_skip.h"
#include "torch_version.h"

/* The top-level members of a JSON object read one byte at a time (tv_scan_bytes), whatever
 * their order and the file's size (issue 38 M3: a "torch" after "results", escaped, or past
 * the first 64 KiB was not seen, and the same answers passed or failed by key order).  Only
 * depth, strings and the top level's keys are tracked: validating the JSON is the reader's
 * job (a malformed file is refused there); a key or value longer than TV_RAW is no "torch"
 * (keys) or kept cut (values, then refused as a release). */
#define TV_RAW 256
typedef struct tv_scan {
    int depth;              /* 1 inside the top-level object */
    bool in_str, esc, bad;  /* bad: not an object at the top: nothing recorded */
    enum { TV_KEY, TV_COLON, TV_VALUE, TV_NEXT } want; /* at depth 1 */
    char raw[TV_RAW + 2];   /* the current top-level key (or torch value) as written */
    size_t n;
    bool capturing, cut, is_torch, found, done;
    char type;              /* the torch value's first byte: '"' a string */
} tv_scan;

/* Whether raw (a JSON string's text, quotes included) is the key "torch" once decoded. */
static bool key_is_torch(const char *raw, size_t n)
{
    if (n == 7 && !memcmp(raw, "\"torch\"", 7))
        return true;
    if (!memchr(raw, '\\', n))
        return false;
    json_t *k = json_loadb(raw, n, JSON_DECODE_ANY, NULL);
    bool is = json_is_string(k) && json_string_length(k) == 5 &&
              !memcmp(json_string_value(k), "torch", 5);
    json_decref(k);
    return is;
}

static void tv_keep(tv_scan *t, char c)
{
    if (t->n < TV_RAW)
        t->raw[t->n++] = c;
    else
        t->cut = true;
}

/* A string just closed at depth 1: a key, or the torch value. */
static void tv_string_end(tv_scan *t)
{
    t->capturing = false;
    if (t->want == TV_KEY) {
        t->is_torch = !t->cut && key_is_torch(t->raw, t->n);
        t->want = TV_COLON;
    } else {
        t->done = t->is_torch;
        t->want = TV_NEXT;
    }
}

static void tv_byte(tv_scan *t, char c)
{
    if (t->in_str) {
        if (t->capturing)
            tv_keep(t, c);
        if (t->esc)
            t->esc = false;
        else if (c == '\\')
            t->esc = true;
        else if (c == '"') {
            t->in_str = false;
            if (t->depth == 1)
                tv_string_end(t);
        }
        return;
    }
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
        return;
    if (t->depth == 0) {
        t->depth = c == '{';
        t->bad = c != '{';
        t->want = TV_KEY;
        return;
    }
    if (t->depth == 1 && t->want == TV_VALUE && t->is_torch && !t->found) {
        t->found = true; /* the first "torch" is the one (a repeated key is refused later) */
        t->type = c;
    }
    if (c == '"') {
        t->in_str = true;
        t->capturing = t->depth == 1 && (t->want == TV_KEY || (t->is_torch && t->found));
        t->n = 0, t->cut = false;
        if (t->capturing)
            tv_keep(t, c);
        return;
    }
    if (t->depth == 1) {
        if (c == ':')
            t->want = TV_VALUE;
        else if (c == ',')
            t->want = TV_KEY;
        else if (c == '}')
            t->depth = 0, t->done = true;
        else if (t->want == TV_VALUE) {
            t->want = TV_NEXT;
            t->done = t->found; /* a torch that is not a string: its type is enough */
        }
    }
    if (c == '{' || c == '[')
        t->depth++;
    else if ((c == '}' || c == ']') && t->depth > 1)
        t->depth--;
}

/* Past the container opening at p (one past its close), or NULL when it never closes; a
 * window at a time, the pages behind let go (json_map.c), so a large candidate is never
 * resident whole. */
static const char *tv_skip(const char *p, const char *end)
{
    shc_skip s = {0, false, false};
    const char *q = NULL;
    while (!q && p < end) {
        const char *lim = (size_t)(end - p) > SHC_MAP_WINDOW ? p + SHC_MAP_WINDOW : end;
        q = shc_skip_on(&s, p, lim);
        shc_map_touched((size_t)((q ? q : lim) - p));
        p = lim;
    }
    return q;
}

/* The top level of bytes[0..n): below it nothing is captured and only strings and brackets
 * matter, so a container value there is skipped whole by its brackets (json_skip.h), which
 * takes the bulk of a results file or a golden-shaped candidate 64 bytes at a time; tv_byte's
 * state machine sees only the top level's bytes (issue 36: a byte loop over everything was a
 * quarter of verify's time).  A container that never closes ends the scan: the reader
 * refuses the file. */
static void tv_scan_bytes(tv_scan *t, const char *bytes, size_t n)
{
    for (size_t i = 0; i < n && !t->done && !t->bad;) {
        tv_byte(t, bytes[i]);
        if (t->depth < 2) {
            i++;
            continue;
        }
        const char *q = tv_skip(bytes + i, bytes + n);
        if (!q)
            return;
        t->depth = 1;
        i = (size_t)(q - bytes);
    }
}

/* The value's kind in words, for the refusal. */
static const char *kind(char c)
{
    return c == '{' ? "an object" : c == '[' ? "an array" : c == 't' || c == 'f' ? "a boolean"
           : c == 'n' ? "null" : "a number";
}

int tv_read_recorded(const char *path, char *out, size_t cap, bool *found, shc_err *e)
{
    *found = false;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) { /* a pipe is not read twice */
        if (fd >= 0)
            close(fd);
        return SHC_OK; /* the reader opens it and says what is wrong */
    }
    close(fd);
    shc_map m; /* read where it lies: no copy, and a container skipped is never touched */
    if (shc_map_path(&m, path, NULL))
        return SHC_OK;
    tv_scan t = {0};
    tv_scan_bytes(&t, m.p, m.n);
    shc_map_free(&m);
    if (!t.found || t.bad)
        return SHC_OK;
    if (t.type != '"')
        return shc_fail(e, SHC_EINVAL, "%s: \"torch\" is %s; a results file records its "
                        "release as a string, e.g. \"torch\": \"2.13\"", path, kind(t.type));
    if (!t.done)
        return SHC_OK; /* cut short: the reader refuses the file */
    json_t *v = t.cut ? NULL : json_loadb(t.raw, t.n, JSON_DECODE_ANY, NULL);
    const char *s = json_string_value(v);
    size_t len = s ? json_string_length(v) : 0, k = 0;
    for (; s && k < len && k + 1 < cap; k++) /* echoed in messages: no control bytes */
        out[k] = (unsigned char)s[k] < 0x20 || s[k] == 0x7f ? '?' : s[k];
    out[k] = '\0';
    if (!s || k < len) {
        json_decref(v);
        return shc_fail(e, SHC_EINVAL, "%s: \"torch\" is not a release (a string of at most "
                        "%zu bytes, e.g. \"2.13\")", path, cap - 1);
    }
    json_decref(v);
    *found = true;
    return SHC_OK;
}

bool tv_recorded(const char *path, char *out, size_t cap)
{
    bool found;
    shc_err e = {0};
    return !tv_read_recorded(path, out, cap, &found, &e) && found;
}

int tv_resolve(const char *opt, const char *recorded, const char *where, shc_torch_release *out,
               char *why, size_t whyn, shc_err *e)
{
    const char *env = getenv("SHARDCHECK_TORCH_VERSION");
    const char *spec = opt && *opt ? opt : env && *env ? env : NULL;
    const char *src = opt && *opt ? "--torch-version" : "SHARDCHECK_TORCH_VERSION";
    shc_torch_release rec = SHC_TORCH_PINNED;
    int rc;
    if (recorded && (rc = shc_torch_release_parse(recorded, &rec, e)))
        return shc_err_prefix(e, "%s records \"torch\": \"%s\"", where, recorded);
    if (spec) {
        if ((rc = shc_torch_release_parse(spec, out, e)))
            return shc_err_prefix(e, "%s", src);
        if (recorded && shc_torch_norm(rec) != shc_torch_norm(*out))
            return shc_fail(e, SHC_EINVAL, "%s was judged against torch %s (its \"torch\"), not "
                            "%s (%s): check it against %s, or produce it again for %s", where,
                            shc_torch_release_name(rec), shc_torch_release_name(*out), src,
                            shc_torch_release_name(rec), shc_torch_release_name(*out));
        snprintf(why, whyn, "%s", src);
    } else if (recorded) {
        *out = rec;
        snprintf(why, whyn, "recorded in %s", where);
    } else {
        *out = SHC_TORCH_PIN_RELEASE;
        snprintf(why, whyn, "the pinned default");
    }
    *out = shc_torch_norm(*out);
    return SHC_OK;
}
