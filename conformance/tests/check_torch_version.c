/*
 * check_torch_version.c — tv_read_recorded (tools/common/torch_version.c) finds the top-level
 * "torch" of a JSON file exactly where jansson does, on random documents jansson wrote:
 * - nested arrays and objects whose strings hold brackets, quotes, backslashes, escapes and
 *   UTF-8, with "torch" at the top level (a string, or another kind: refused), only below it
 *   (not recorded), or nowhere; compact, indented and key-sorted, some past the reader's
 *   64 KiB buffer, so that the 64-byte block skip, the byte loop after a backslash, the
 *   blocks cut by the buffer's end and a string open across blocks are all walked;
 * - jansson's own json_object_get on the same bytes is the other implementation: a string's
 *   value, and whether the key is there at all, must agree on every document.
 */
#include "config.h"
#include <jansson.h>
#include <string.h>
#include <unistd.h>
#include "tap.h"
#include "torch_version.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static unsigned rnd(unsigned n)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (unsigned)(rng % n);
}

/* A string of atoms that a bracket-counting skip could trip on. */
static json_t *rand_string(void)
{
    static const char *const atoms[] = {"a", "[", "]", "{", "}", "\"", "\\", "\\\"", "\"]",
                                        ",", ":", " ", "\n", "\xc3\xa9", "torch", "2.1"};
    char s[200];
    size_t n = 0, want = rnd(4) ? rnd(12) : rnd(150);
    s[0] = '\0';
    while (n < want) {
        const char *a = atoms[rnd(sizeof atoms / sizeof *atoms)];
        size_t k = strlen(a);
        if (n + k + 1 > sizeof s)
            break;
        memcpy(s + n, a, k + 1);
        n += k;
    }
    return json_string(s);
}

static json_t *rand_value(int depth);

static json_t *rand_container(int depth)
{
    bool obj = rnd(2);
    json_t *c = obj ? json_object() : json_array();
    for (unsigned k = rnd(depth > 4 ? 3 : 7); k > 0; k--) {
        json_t *v = rand_value(depth + 1);
        if (obj) {
            json_t *key = rnd(6) ? rand_string() : json_string("torch"); /* nested: not it */
            json_object_set_new(c, json_string_value(key), v);
            json_decref(key);
        } else {
            json_array_append_new(c, v);
        }
    }
    return c;
}

static json_t *rand_value(int depth)
{
    switch (depth > 7 ? 3 + rnd(3) : rnd(7)) {
    case 0:
    case 1:
    case 2: return rand_container(depth);
    case 3: return rand_string();
    case 4: return json_integer((json_int_t)rnd(100000));
    default: return rnd(2) ? json_true() : json_null();
    }
}

/* A top level of a few big members, "torch" maybe among them, maybe not a string. */
static json_t *rand_doc(unsigned *kind)
{
    json_t *d = json_object();
    unsigned members = 1 + rnd(4), at = rnd(members + 1), big = rnd(8) == 0;
    *kind = rnd(5); /* 0, 1: a release string; 2: a number; 3: an array; 4: none */
    for (unsigned m = 0; m <= members; m++) {
        if (m == at && *kind < 4) {
            json_t *v = *kind < 2 ? rand_string() : *kind == 2 ? json_real(2.15)
                                                             : json_pack("[s]", "2.15");
            json_object_set_new(d, "torch", v);
            continue;
        }
        json_t *arr = json_array();
        for (unsigned k = big ? 500 + rnd(500) : rnd(30); k > 0; k--)
            json_array_append_new(arr, rand_container(1));
        char key[16];
        snprintf(key, sizeof key, "m%u", m);
        json_object_set_new(d, key, arr);
    }
    return d;
}

START_TEST(recorded_as_jansson_reads_it)
{
    char dir[64], path[96];
    shc_tmpdir_make(dir, sizeof dir, "tv");
    snprintf(path, sizeof path, "%s/doc.json", dir);
    static const size_t fmts[] = {JSON_COMPACT, JSON_INDENT(1), JSON_INDENT(2) | JSON_SORT_KEYS,
                                  JSON_COMPACT | JSON_SORT_KEYS, 0};
    int found = 0, refused = 0, absent = 0, long_docs = 0;
    int iters = shc_test_sampled() ? 100 : 300; /* the sanitized build: a third */
    for (int iter = 0; iter < iters; iter++) {
        unsigned kind;
        json_t *d = rand_doc(&kind);
        ck_assert_int_eq(json_dump_file(d, path, fmts[rnd(5)]), 0);
        json_t *back = json_load_file(path, 0, NULL); /* jansson's reading of those bytes */
        ck_assert_ptr_nonnull(back);
        json_t *want = json_object_get(back, "torch");
        char out[256];
        bool has = false;
        shc_err e = {0};
        int rc = tv_read_recorded(path, out, sizeof out, &has, &e);
        FILE *f = fopen(path, "rb");
        fseek(f, 0, SEEK_END);
        long_docs += ftell(f) > 65536;
        fclose(f);
        if (!want) {
            ck_assert_msg(rc == SHC_OK && !has, "iter %d: found a torch jansson lacks", iter);
            absent++;
        } else if (!json_is_string(want)) {
            ck_assert_msg(rc == SHC_EINVAL, "iter %d: a non-string torch accepted", iter);
            refused++;
        } else if (json_string_length(want) < sizeof out &&
                   !memchr(json_string_value(want), '\n', json_string_length(want))) {
            /* a release string, as tv_read_recorded echoes it (no control bytes here) */
            ck_assert_msg(rc == SHC_OK && has && !strcmp(out, json_string_value(want)),
                          "iter %d: read \"%s\", jansson \"%s\"", iter, has ? out : "(none)",
                          json_string_value(want));
            found++;
        }
        json_decref(back);
        json_decref(d);
    }
    unlink(path);
    shc_tmpdir_remove(dir);
    /* every branch was taken, and the long documents crossed the read buffer */
    ck_assert_int_gt(found, iters / 6);
    ck_assert_int_gt(refused, iters / 6);
    ck_assert_int_gt(absent, iters / 12);
    ck_assert_int_gt(long_docs, iters / 30);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("torch_version");
    TCase *tc = tcase_create("recorded");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, recorded_as_jansson_reads_it);
    suite_add_tcase(s, tc);
    return shc_run_suite(s);
}
