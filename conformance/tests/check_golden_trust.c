/*
 * check_golden_trust.c — the golden index's trusted scan (golden_trust.c, json_skip.h) is the
 * validating scan's twin on the files it is allowed for, and allowed for no others:
 * - shc_skip_container, each of its variants this CPU runs, and shc_skip_on given the
 *   bytes in random pieces (json_skip.h), end every container where jansson's own text of it
 *   ends, on random documents jansson wrote
 *   (strings full of brackets and quotes, half of them with backslashes too; short and
 *   long, so both the 64-byte blocks and the byte loop are walked), followed by other bytes,
 *   and gives NULL for one cut before its close;
 * - every golden file of the source tree scans to the same tests, spans and document
 *   members trusted as validated (the spans verify compares are the same bytes);
 * - every hash of golden/MANIFEST is known to the build and a changed one is not; a file is
 *   vouched for only after shc_manifest_verify_family hashed it, and a file of an
 *   edited corpus (a copy whose MANIFEST lists its new hash) never is.
 */
#include "config.h"
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include "tap.h"
#include "golden.h"
#include "json_skip.h"

static uint64_t rng = 0x853c49e6748fea9bULL;
static unsigned rnd(unsigned n)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (unsigned)(rng % n);
}

static int plain; /* no backslash in a string: every block goes the 64-byte way */

static json_t *rand_value(int depth)
{
    static const char *const atoms[] = {"a", "[", "]", "{", "}", "\"", "\\", "\\\\\"", ",",
                                        "\xc3\xa9", "0", " "};
    unsigned kind = depth > 6 ? 3 + rnd(2) : rnd(5);
    if (kind < 2) {
        json_t *c = kind ? json_object() : json_array();
        for (unsigned k = rnd(depth < 2 ? 12 : 5); k > 0; k--) {
            char key[16];
            snprintf(key, sizeof key, "k%u]\"{", k);
            if (kind)
                json_object_set_new(c, key, rand_value(depth + 1));
            else
                json_array_append_new(c, rand_value(depth + 1));
        }
        return c;
    }
    if (kind == 2)
        return json_integer((json_int_t)rnd(1u << 20));
    char s[160];
    size_t n = 0;
    s[0] = '\0';
    for (unsigned k = rnd(3) ? rnd(6) : rnd(40); k > 0; k--) {
        const char *a = atoms[rnd(sizeof atoms / sizeof *atoms)];
        if (plain && strchr(a, '\\'))
            continue;
        if (n + strlen(a) + 1 > sizeof s)
            break;
        strcpy(s + n, a);
        n += strlen(a);
    }
    return json_string(s);
}

/* The variants to hold to jansson beside shc_skip_container: each one this CPU runs. */
static int skips(shc_skip_fn *fn)
{
    int n = 0;
    for (int v = SHC_SKIP_PORTABLE; v <= SHC_SKIP_AVX2; v++)
        if ((fn[n] = shc_skip_variant_fn((shc_skip_variant)v)))
            n++;
    return n;
}

START_TEST(skip_container_ends_where_jansson_does)
{
    shc_skip_fn fn[8];
    int nfn = skips(fn), long_ones = 0;
    ck_assert_ptr_nonnull(shc_skip_variant_fn(SHC_SKIP_PORTABLE)); /* every CPU runs it */
    for (int iter = 0; iter < 3000; iter++) {
        plain = iter % 2;
        json_t *v = rnd(2) ? json_array() : json_object();
        for (unsigned k = rnd(4) ? rnd(4) : 40 + rnd(60); k > 0; k--) {
            char key[16];
            snprintf(key, sizeof key, "m%u", k);
            if (json_is_array(v))
                json_array_append_new(v, rand_value(1));
            else
                json_object_set_new(v, key, rand_value(1));
        }
        char *text = json_dumps(v, rnd(2) ? JSON_COMPACT : JSON_INDENT(1));
        ck_assert_ptr_nonnull(text);
        size_t n = strlen(text);
        long_ones += n > 256;
        static const char *const tails[] = {"", ",", "]}", " {\"a\":[1]}", "\"\\\"]"};
        const char *tail = tails[rnd(5)];
        char *buf = malloc(n + strlen(tail) + 1);
        memcpy(buf, text, n);
        strcpy(buf + n, tail);
        const char *end = buf + n + strlen(tail);
        ck_assert_msg(shc_skip_container(buf, end) == buf + n, "iter %d: %.200s", iter, text);
        ck_assert_msg(shc_skip_container(buf, buf + n - 1) == NULL, "iter %d: cut", iter);
        for (int f = 0; f < nfn; f++) {
            shc_skip st = {0, false, false};
            ck_assert_msg(fn[f](&st, buf, end) == buf + n, "iter %d skip %d: %.200s", iter, f,
                          text);
            st = (shc_skip){0, false, false};
            ck_assert_msg(fn[f](&st, buf, buf + n - 1) == NULL, "iter %d skip %d: cut", iter, f);
        }
        /* in pieces cut anywhere (inside strings, escapes and blocks): the same end */
        shc_skip st = {0, false, false};
        const char *at = buf, *q = NULL;
        while (!q && at < end) {
            size_t step = 1 + rnd(200);
            const char *lim = (size_t)(end - at) > step ? at + step : end;
            q = shc_skip_on(&st, at, lim);
            at = lim;
        }
        ck_assert_msg(q == buf + n, "iter %d: in pieces: %.200s", iter, text);
        free(buf);
        free(text);
        json_decref(v);
    }
    ck_assert_int_gt(long_ones, 300);
}
END_TEST

/* What a scan hands out, in order: every test's spans and the groups'. */
typedef struct seen {
    shc_scan_test *t;
    size_t nt, ct;
    shc_span *g;
    size_t ng, cg;
} seen;

static int on_test(void *ctx, const shc_scan_test *t)
{
    seen *s = ctx;
    if (s->nt == s->ct)
        s->t = realloc(s->t, (s->ct = s->ct ? 2 * s->ct : 1024) * sizeof *s->t);
    s->t[s->nt++] = *t;
    return 0;
}

static int on_group(void *ctx, size_t gi, shc_span group, shc_span tests)
{
    seen *s = ctx;
    if (s->ng + 2 > s->cg)
        s->g = realloc(s->g, (s->cg = s->cg ? 2 * s->cg : 256) * sizeof *s->g);
    s->g[s->ng++] = group;
    s->g[s->ng++] = tests;
    return 0;
}

static bool span_eq(shc_span a, shc_span b) { return a.p == b.p && a.n == b.n; }

static bool test_eq(const shc_scan_test *a, const shc_scan_test *b)
{
    return a->gi == b->gi && a->ti == b->ti && a->is_object == b->is_object &&
           a->has_tcid == b->has_tcid && a->tcid == b->tcid && span_eq(a->text, b->text) &&
           span_eq(a->result, b->result) && a->result_other == b->result_other &&
           span_eq(a->flags, b->flags) && span_eq(a->expected, b->expected);
}

static void same_scans(const char *path)
{
    shc_map m;
    ck_assert_int_eq(shc_map_path(&m, path, NULL), 0);
    seen a = {0}, b = {0};
    shc_scan_doc da, db;
    ck_assert_int_eq(shc_scan_golden_groups(m.p, m.n, &da, on_test, on_group, false, &a), 0);
    ck_assert_int_eq(shc_scan_golden_groups(m.p, m.n, &db, on_test, on_group, true, &b), 0);
    ck_assert_msg(a.nt == b.nt && a.ng == b.ng && a.nt > 0, "%s: %zu/%zu tests", path, a.nt, b.nt);
    for (size_t i = 0; i < a.nt; i++)
        ck_assert_msg(test_eq(&a.t[i], &b.t[i]), "%s: test %zu", path, i);
    for (size_t i = 0; i < a.ng; i++)
        ck_assert_msg(span_eq(a.g[i], b.g[i]), "%s: group span %zu", path, i);
    ck_assert(span_eq(da.family, db.family) && span_eq(da.schema, db.schema) &&
              span_eq(da.notes, db.notes) && span_eq(da.number_of_tests, db.number_of_tests) &&
              span_eq(da.test_groups, db.test_groups) && da.groups_ok == db.groups_ok);
    free(a.t), free(a.g), free(b.t), free(b.g);
    shc_map_free(&m);
}

START_TEST(trusted_scan_gives_the_same_spans)
{
    char gdir[4096];
    snprintf(gdir, sizeof gdir, "%s/golden", shc_srcdir());
    DIR *d = opendir(gdir);
    ck_assert_ptr_nonnull(d);
    struct dirent *fe, *ge;
    int files = 0, seen_files = 0;
    while ((fe = readdir(d))) {
        if (fe->d_name[0] == '.' || !strcmp(fe->d_name, "schemas") || !strcmp(fe->d_name, "MANIFEST"))
            continue;
        char fdir[4352];
        snprintf(fdir, sizeof fdir, "%s/%s", gdir, fe->d_name);
        DIR *f = opendir(fdir);
        ck_assert_ptr_nonnull(f);
        while ((ge = readdir(f))) {
            size_t k = strlen(ge->d_name);
            /* the sanitized build reads every seventh file: the plain one reads them all */
            if (k < 6 || strcmp(ge->d_name + k - 5, ".json") ||
                (shc_test_sampled() && seen_files++ % 7))
                continue;
            char path[4608];
            snprintf(path, sizeof path, "%s/%s", fdir, ge->d_name);
            same_scans(path);
            files++;
        }
        closedir(f);
    }
    closedir(d);
    ck_assert_int_gt(files, shc_test_sampled() ? 5 : 40);
}
END_TEST

START_TEST(only_the_builds_hashes_are_trusted)
{
    char gdir[4096], path[4160];
    snprintf(gdir, sizeof gdir, "%s/golden", shc_srcdir());
    snprintf(path, sizeof path, "%s/MANIFEST", gdir);
    shc_manifest m;
    ck_assert_int_eq(shc_manifest_read(path, &m, NULL), 0);
    for (size_t i = 0; i < m.n; i++) {
        char hex[65];
        ck_assert_msg(shc_golden_sha_known(m.v[i].hex), "%s", m.v[i].rel);
        memcpy(hex, m.v[i].hex, 65);
        hex[i % 64] = hex[i % 64] == '0' ? '1' : '0';
        ck_assert_msg(!shc_golden_sha_known(hex), "%s changed", m.v[i].rel);
    }
    /* vouched for once verify's MANIFEST check hashed it, not before */
    const shc_mline *l = shc_manifest_find(&m, "threefry/threefry.json");
    ck_assert_ptr_nonnull(l);
    char file[4352];
    snprintf(file, sizeof file, "%s/%s", gdir, l->rel);
    ck_assert(!shc_golden_vouched(file));
    shc_golden_vouch(file, "0000000000000000000000000000000000000000000000000000000000000000");
    ck_assert(!shc_golden_vouched(file));
    ck_assert_int_eq(shc_manifest_verify_family(gdir, "threefry", NULL), 0);
    ck_assert(shc_golden_vouched(file));
    shc_manifest_free(&m);
}
END_TEST

START_TEST(an_edited_corpus_is_validated)
{
    char dir[64], cmd[8192];
    shc_tmpdir_make(dir, sizeof dir, "trust");
    /* a copy of threefry whose file gains a space (still valid JSON) and a MANIFEST to match */
    snprintf(cmd, sizeof cmd, "mkdir -p %s/threefry %s/schemas && cp %s/golden/threefry/*.json "
             "%s/threefry/ && cp %s/golden/schemas/*.json %s/schemas/ && for f in "
             "%s/threefry/*.json; do printf ' ' >> \"$f\"; done", dir, dir, shc_srcdir(), dir,
             shc_srcdir(), dir, dir);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_int_eq(shc_manifest_write(dir, NULL), 0);
    ck_assert_int_eq(shc_manifest_verify_family(dir, "threefry", NULL), 0);
    char file[256];
    snprintf(file, sizeof file, "%s/threefry/threefry.json", dir);
    ck_assert(!shc_golden_vouched(file));
    shc_golden g;
    ck_assert_int_eq(shc_golden_index_family(&g, dir, "threefry", NULL), 0);
    ck_assert_int_gt(g.ntests, 0);
    shc_golden_free(&g);
    shc_tmpdir_remove(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("golden_trust");
    TCase *tc = tcase_create("trust");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, skip_container_ends_where_jansson_does);
    tcase_add_test(tc, trusted_scan_gives_the_same_spans);
    tcase_add_test(tc, only_the_builds_hashes_are_trusted);
    tcase_add_test(tc, an_edited_corpus_is_validated);
    suite_add_tcase(s, tc);
    return shc_run_suite(s);
}
