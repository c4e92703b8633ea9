/*
 * plugin_v2_min.c — a minimal ABI v2 loader and case reader (shc_host_v2), standing in
 * for the full ones (branch abi2: the v2 loader, shc_host_v2 with its answer writer) so
 * that redistribute-data over a plugin's communicator (plugin_comm.c) can be built and
 * tested on its own.  The case is the documented JSON object
 * {"family", "torch", "tcId", "world", "group", "test"}; a key is looked up in the test,
 * then the group, then the case.  The put_* calls refuse (no answers are written here).
 * When the full loader lands, plugin_seam's host/case_new/case_free come from it and this
 * file goes.  Tested by conformance/tests/plugin_comm.sh.
 */
#include "config.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "plugin_v2_min.h"

struct shc_case_v2 {
    json_t *whole, *group, *test;
    pthread_mutex_t mu;   /* calls for several ranks may read one case at once */
    char **texts;         /* strings handed out, freed with the case */
    size_t ntexts, cap;
};

static const json_t *lookup(const shc_case_v2 *c, const char *key)
{
    const json_t *v = json_object_get(c->test, key);
    if (!v && strcmp(key, "tests"))
        v = json_object_get(c->group, key);
    if (!v && strcmp(key, "group") && strcmp(key, "test"))
        v = json_object_get(c->whole, key);
    return v;
}

/* Text that lives as long as the case. */
static const char *keep(const shc_case_v2 *cc, char *text)
{
    shc_case_v2 *c = (shc_case_v2 *)cc;
    if (!text)
        return NULL;
    pthread_mutex_lock(&c->mu);
    if (c->ntexts == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 8;
        char **t = realloc(c->texts, cap * sizeof *t);
        if (!t) {
            pthread_mutex_unlock(&c->mu);
            free(text);
            return NULL;
        }
        c->texts = t, c->cap = cap;
    }
    c->texts[c->ntexts++] = text;
    pthread_mutex_unlock(&c->mu);
    return text;
}

static const char *h_case_json(const shc_case_v2 *c)
{
    return keep(c, json_dumps(c->whole, JSON_COMPACT));
}

static const char *h_json(const shc_case_v2 *c, const char *key)
{
    const json_t *v = lookup(c, key);
    return v ? keep(c, json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY)) : NULL;
}

static const char *h_str(const shc_case_v2 *c, const char *key)
{
    return json_string_value(lookup(c, key));
}

static int as_i64(const json_t *v, int64_t *out)
{
    if (json_is_integer(v)) {
        *out = json_integer_value(v);
        return 0;
    }
    const char *s = json_string_value(v);
    char *end;
    if (!s || !*s)
        return -1;
    long long x = strtoll(s, &end, 10);
    if (*end)
        return -1;
    *out = x;
    return 0;
}

static int h_i64(const shc_case_v2 *c, const char *key, int64_t *v)
{
    return as_i64(lookup(c, key), v);
}

static int64_t h_i64s(const shc_case_v2 *c, const char *key, int64_t *v, int64_t cap)
{
    const json_t *a = lookup(c, key);
    if (!json_is_array(a))
        return -1;
    size_t i;
    const json_t *x;
    json_array_foreach(a, i, x) {
        int64_t t;
        if (as_i64(x, &t))
            return -1;
        if ((int64_t)i < cap)
            v[i] = t;
    }
    return (int64_t)json_array_size(a);
}

/* The answer writer: nothing is answered through this stand-in. */
static int no_json(shc_answer_v2 *a, const char *k, const char *j)
{
    (void)a, (void)k, (void)j;
    return -1;
}
static int no_str(shc_answer_v2 *a, const char *k, const char *s)
{
    (void)a, (void)k, (void)s;
    return -1;
}
static int no_int(shc_answer_v2 *a, const char *k, int64_t v)
{
    (void)a, (void)k, (void)v;
    return -1;
}
static int no_ints(shc_answer_v2 *a, const char *k, const int64_t *v, int64_t n)
{
    (void)a, (void)k, (void)v, (void)n;
    return -1;
}

static const shc_host_v2 host = {
    .struct_size = sizeof(shc_host_v2), .case_json = h_case_json, .json = h_json,
    .str = h_str, .i64 = h_i64, .i64s = h_i64s, .put_json = no_json, .put_str = no_str,
    .put_int = no_int, .put_dec = no_int, .put_ints = no_ints, .put_decs = no_ints};

/* A deep copy of object o but its member `skip` (a group's tests, a test's expected: the
 * bulk of it, never shown to the plugin). */
static json_t *copy_but(const json_t *o, const char *skip)
{
    json_t *c = json_object();
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)o, k, v)
        if (c && strcmp(k, skip) && json_object_set_new(c, k, json_deep_copy(v))) {
            json_decref(c);
            return NULL;
        }
    return c;
}

shc_case_v2 *plugin_min_case_new(const char *family, const char *torch, const json_t *group,
                                 const json_t *test, int64_t world, shc_err *e)
{
    shc_case_v2 *c = calloc(1, sizeof *c);
    json_t *g = copy_but(group, "tests");
    json_t *t = copy_but(test, "expected");
    if (!c || !g || !t) {
        free(c), json_decref(g), json_decref(t);
        shc_fail(e, SHC_ENOMEM, "out of memory");
        return NULL;
    }
    c->whole = json_pack("{s:s, s:s, s:O?, s:I, s:O, s:O}", "family", family, "torch",
                         torch ? torch : "", "tcId", json_object_get(test, "tcId"),
                         "world", (json_int_t)world, "group", g, "test", t);
    c->group = g, c->test = t;
    pthread_mutex_init(&c->mu, NULL);
    if (!c->whole) {
        plugin_min_case_free(c);
        shc_fail(e, SHC_ENOMEM, "out of memory");
        return NULL;
    }
    return c;
}

void plugin_min_case_free(shc_case_v2 *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->ntexts; i++)
        free(c->texts[i]);
    free(c->texts);
    json_decref(c->whole), json_decref(c->group), json_decref(c->test);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

const shc_host_v2 *plugin_min_host(void) { return &host; }

int plugin_min_open_v2(void *dl, const char *path, const shc_backend_v2 **out, shc_err *e)
{
    shc_backend_entry_v2_fn entry;
    *(void **)&entry = dlsym(dl, SHC_BACKEND_ENTRY_V2_SYMBOL);
    const shc_backend_v2 *be = entry ? entry() : NULL;
    if (!entry)
        return shc_fail(e, SHC_EINVAL, "plugin %s: ABI version 2 but missing symbol %s", path,
                        SHC_BACKEND_ENTRY_V2_SYMBOL);
    if (!be)
        return shc_fail(e, SHC_EINVAL, "plugin %s: %s() returned NULL", path,
                        SHC_BACKEND_ENTRY_V2_SYMBOL);
    if (be->abi_version != SHC_BACKEND_ABI_V2 || be->struct_size < sizeof(shc_backend_v2))
        return shc_fail(e, SHC_EINVAL, "plugin %s: backend table says ABI %u, size %u (want %u, "
                        ">= %zu)", path, be->abi_version, be->struct_size, SHC_BACKEND_ABI_V2,
                        sizeof(shc_backend_v2));
    *out = be;
    return SHC_OK;
}
