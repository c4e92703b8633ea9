/*
 * check_release_rows.c — the torch release rows as the generator uses them (issue 37 item 1):
 * every change row names only known releases; the golden writer computes a release only where
 * a row the pinned answer asked holds otherwise in it; and the fixture: a fictitious release
 * "9.99" (SHC_TORCH_FIXTURE: the newest release, 2.15, plus one new row, SHC_TC_FIXTURE:
 * Shard -> _StridedShard raises; never parsed, listed or written by `gen`), added to the
 * redistribute-plan writer, changes the answers exactly where its rule applies and nowhere
 * else.  Where the rule applies is read off the 2.15 answers' plans (an S -> _S step that
 * 2.15 executes as "strided"), not from the code under test's change bits; the regenerated
 * files then differ byte for byte from the old ones, which golden_regen.sh would refuse.
 * With the family's own release_may_differ of before issue 37 (it listed the rows it knew
 * and answered "same" for any other) this test fails: 9.99 is never computed.
 */
#include "config.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tap.h"
#include "golden.h"
#include "family.h"

START_TEST(rows_name_known_releases)
{
    shc_err e = {0};
    ck_assert_int_eq(shc_torch_check_rows(&e), SHC_OK);
    for (int c = 0; c < SHC_TC_COUNT; c++) {
        uint32_t set = shc_torch_change_get((shc_torch_change)c)->releases;
        ck_assert_uint_ne(set, 0);
        ck_assert_uint_eq(set & ~(uint32_t)SHC_TORCH_ALL_RELEASES, 0);
    }
    /* rows are ranges: "2.14 on" and "up to 2.12" (the sets written out by hand) */
    ck_assert_uint_eq(SHC_TORCH_FROM(SHC_TORCH_2_14), (1u << 4) | (1u << 5));
    ck_assert_uint_eq(SHC_TORCH_UP_TO(SHC_TORCH_2_12), (1u << 1) | (1u << 2));
    ck_assert_uint_eq(SHC_TORCH_UP_TO(SHC_TORCH_2_11), 1u << 1);
    ck_assert_uint_eq(shc_torch_change_get(SHC_TC_SHARD_TO_PARTIAL)->releases,
                      (1u << 4) | (1u << 5));
    ck_assert_uint_eq(shc_torch_change_get(SHC_TC_DECOMPOSED_RANDOM)->releases,
                      (1u << 1) | (1u << 2));
    /* the fixture is no release anyone can ask for */
    shc_torch_release r;
    ck_assert_int_eq(shc_torch_release_parse("9.99", &r, &e), SHC_EINVAL);
    char list[512];
    shc_torch_supported(list, sizeof list);
    ck_assert_ptr_null(strstr(list, "9.99"));
    ck_assert_uint_eq(SHC_TORCH_ALL_RELEASES & SHC_TORCH_SET(SHC_TORCH_FIXTURE), 0);
    /* ... and is the newest release plus its own row, which no real release has */
    for (int c = 0; c < SHC_TC_COUNT; c++)
        ck_assert_int_eq(shc_torch_has(SHC_TORCH_FIXTURE, (shc_torch_change)c),
                         shc_torch_has(SHC_TORCH_RELEASE_END - 1, (shc_torch_change)c));
    ck_assert(shc_torch_has(SHC_TORCH_FIXTURE, SHC_TC_FIXTURE));
    for (int r = SHC_TORCH_FIRST; r < SHC_TORCH_RELEASE_END; r++)
        ck_assert(!shc_torch_has((shc_torch_release)r, SHC_TC_FIXTURE));
    ck_assert_uint_eq(shc_torch_differs(SHC_TORCH_FIXTURE),
                      shc_torch_differs(SHC_TORCH_RELEASE_END - 1) | 1u << SHC_TC_FIXTURE);
}
END_TEST

/* An answer asking only the Shard -> Partial(sum) row; counts its calls per release. */
static int asks_one_row(void *ctx, shc_torch_release r, json_t *t, shc_gw_why *why, shc_err *e)
{
    (void)e;
    int *calls = ctx;
    calls[r]++;
    why->asked = 0;
    bool zf = shc_torch_ask(r, SHC_TC_SHARD_TO_PARTIAL, &why->asked);
    if (zf)
        why->changes |= 1u << SHC_TC_SHARD_TO_PARTIAL;
    json_object_set_new(t, "expected", json_pack("{s:b}", "zeroFill", zf));
    return SHC_OK;
}

/* An answer that does not say what it asks: every release is computed. */
static int asks_untracked(void *ctx, shc_torch_release r, json_t *t, shc_gw_why *why, shc_err *e)
{
    (void)why, (void)e;
    ((int *)ctx)[r]++;
    json_object_set_new(t, "expected", json_object());
    return SHC_OK;
}

START_TEST(writer_computes_where_asked)
{
    shc_err e = {0};
    shc_gw *w = shc_gw_new("demo", "pytorch", "2.13.0");
    shc_gw_releases(w, SHC_TORCH_ALL_RELEASES);
    ck_assert_int_eq(shc_gw_group(w, json_object(), &e), 0);
    int calls[SHC_TORCH_SLOTS] = {0};
    ck_assert_int_eq(shc_gw_test_by_release(w, shc_test_new("x", "valid"), asks_one_row, calls,
                                            &e), 0);
    /* the pinned release, then those where the row holds otherwise (today 2.14 and 2.15) */
    int want[SHC_TORCH_SLOTS] = {[SHC_TORCH_PIN_RELEASE] = 1};
    for (int r = SHC_TORCH_FIRST; r < SHC_TORCH_RELEASE_END; r++)
        want[r] |= shc_torch_has((shc_torch_release)r, SHC_TC_SHARD_TO_PARTIAL);
    ck_assert_int_eq(want[SHC_TORCH_2_11] + want[SHC_TORCH_2_14], 1);
    for (int r = 0; r < SHC_TORCH_SLOTS; r++)
        ck_assert_msg(calls[r] == want[r], "release %d: %d calls, want %d", r, calls[r], want[r]);
    int all[SHC_TORCH_SLOTS] = {0};
    ck_assert_int_eq(shc_gw_test_by_release(w, shc_test_new("y", "valid"), asks_untracked, all,
                                            &e), 0);
    for (int r = SHC_TORCH_FIRST; r < SHC_TORCH_RELEASE_END; r++)
        ck_assert_int_eq(all[r], 1);
    ck_assert_int_eq(all[SHC_TORCH_FIXTURE], 0); /* not in the writer's set */
    shc_gw_free(w);
}
END_TEST

/* ---- the fictitious release ---- */

static char tmpdir[256];

static void setup(void)
{
    shc_tmpdir_make(tmpdir, sizeof tmpdir, "relrows");
}

static void teardown(void)
{
    shc_tmpdir_remove(tmpdir);
}

/* Generate the redistribute-plan corpus for `releases` under tmpdir/sub. */
static void generate(const char *sub, uint32_t releases)
{
    const shc_family *f = shc_family_find("redistribute-plan");
    ck_assert_ptr_nonnull(f);
    shc_err e = {0};
    shc_gw *w = shc_gw_new(f->name, f->source_name, f->source_version);
    shc_gw_releases(w, releases);
    ck_assert_msg(f->generate(w, &e) == SHC_OK, "%s", e.msg);
    char out[300];
    snprintf(out, sizeof out, "%s/%s", tmpdir, sub);
    ck_assert_msg(shc_gw_write(w, out, &e) == SHC_OK, "%s", e.msg);
    shc_gw_free(w);
}

/* The (result, expected) release `name` has in a written test: its byVersion entry, or the
 * top level. */
static void answer_of(const json_t *t, const char *name, const json_t **res, const json_t **exp)
{
    size_t i, j;
    json_t *entry, *v;
    *res = json_object_get(t, "result");
    *exp = json_object_get(t, "expected");
    json_array_foreach(json_object_get(t, "byVersion"), i, entry)
        json_array_foreach(json_object_get(entry, "torch"), j, v)
            if (!strcmp(json_string_value(v), name)) {
                *res = json_object_get(entry, "result");
                *exp = json_object_get(entry, "expected");
            }
}

static bool same_as(const json_t *a, const json_t *b, const char *ra, const char *rb)
{
    const json_t *res_a, *exp_a, *res_b, *exp_b;
    answer_of(a, ra, &res_a, &exp_a);
    answer_of(b, rb, &res_b, &exp_b);
    return json_equal(res_a, res_b) && json_equal(exp_a, exp_b);
}

static char kind_of(const char *p)
{
    return !strncmp(p, "_S", 2) ? 'T' : p[0]; /* T: _StridedShard; S, P, R */
}

/* Whether the fixture's rule applies: a Shard -> _StridedShard step 2.15 executes as
 * "strided" (through Replicate). */
static bool rule_applies(const json_t *t)
{
    const json_t *res, *exp;
    answer_of(t, shc_torch_release_name(SHC_TORCH_RELEASE_END - 1), &res, &exp);
    size_t i, j;
    json_t *plan, *st;
    json_array_foreach(json_object_get(exp, "plans"), i, plan)
        json_array_foreach(json_object_get(plan, "steps"), j, st) {
            char a = kind_of(json_string_value(json_array_get(st, 1)));
            char b = kind_of(json_string_value(json_array_get(st, 2)));
            const char *comm = json_string_value(json_array_get(st, 3));
            if (!strcmp(comm, "strided") && a == 'S' && b == 'T')
                return true;
        }
    return false;
}

/* The committed corpus, which the base generation is: golden_regen.sh checks in every
 * make check that `gen` writes it byte for byte (generating it again here cost half of this
 * test: 40 CPU-s under ASan, issue 36). */
static void base_dir(char *buf, size_t n)
{
    const char *top = getenv("top_srcdir");
    snprintf(buf, n, "%s/golden/redistribute-plan", top ? top : ".");
}

static json_t *load(const char *sub, const char *file, char **text)
{
    char path[600], base[400];
    if (!strcmp(sub, "base")) {
        base_dir(base, sizeof base);
        snprintf(path, sizeof path, "%s/%s", base, file);
    } else {
        snprintf(path, sizeof path, "%s/%s/redistribute-plan/%s", tmpdir, sub, file);
    }
    FILE *fp = fopen(path, "rb");
    ck_assert_ptr_nonnull(fp);
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    rewind(fp);
    *text = malloc((size_t)n + 1);
    ck_assert_uint_eq(fread(*text, 1, (size_t)n, fp), (size_t)n);
    (*text)[n] = '\0';
    fclose(fp);
    json_error_t je;
    json_t *j = json_loads(*text, 0, &je);
    ck_assert_msg(j != NULL, "%s: %s", path, je.text);
    return j;
}

/* Compare one file of the two corpora; counts into n[0] (tests), n[1] (rule applies), n[2]
 * (the fixture answers otherwise than 2.15); returns whether the bytes differ. */
static bool compare_file(const char *file, const char *const *real, long n[3])
{
    char *tb, *tf;
    json_t *base = load("base", file, &tb), *fix = load("fix", file, &tf);
    bool bytes_differ = strcmp(tb, tf) != 0;
    json_t *gb = json_object_get(base, "testGroups"), *gf = json_object_get(fix, "testGroups");
    ck_assert_uint_eq(json_array_size(gb), json_array_size(gf));
    for (size_t g = 0; g < json_array_size(gb); g++) {
        json_t *tsb = json_object_get(json_array_get(gb, g), "tests");
        json_t *tsf = json_object_get(json_array_get(gf, g), "tests");
        ck_assert_uint_eq(json_array_size(tsb), json_array_size(tsf));
        for (size_t i = 0; i < json_array_size(tsb); i++) {
            json_t *b = json_array_get(tsb, i), *f = json_array_get(tsf, i);
            const char *what = json_string_value(json_object_get(f, "comment"));
            for (const char *const *r = real; *r; r++) /* no real release's answer moved */
                ck_assert_msg(same_as(b, f, *r, *r), "%s: %s: torch %s changed", file, what, *r);
            bool applies = rule_applies(f);
            bool differs = !same_as(f, f, shc_torch_release_name(SHC_TORCH_RELEASE_END - 1),
                                    shc_torch_release_name(SHC_TORCH_FIXTURE));
            ck_assert_msg(applies == differs, "%s: %s: the rule %s but the answer %s", file,
                          what, applies ? "applies" : "does not apply",
                          differs ? "changed" : "did not change");
            n[0]++, n[1] += applies, n[2] += differs;
        }
    }
    json_decref(base);
    json_decref(fix);
    free(tb);
    free(tf);
    return bytes_differ;
}

START_TEST(fictitious_release_changes_exactly_where_its_rule_applies)
{
    generate("fix", SHC_TORCH_ALL_RELEASES | SHC_TORCH_SET(SHC_TORCH_FIXTURE));
    const char *real[SHC_TORCH_SLOTS] = {0}; /* the real releases, from the table */
    for (int r = SHC_TORCH_FIRST; r < SHC_TORCH_RELEASE_END; r++)
        real[r - SHC_TORCH_FIRST] = shc_torch_release_name((shc_torch_release)r);
    char dir[400];
    base_dir(dir, sizeof dir);
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    struct dirent *de;
    long n[3] = {0}, files_differ = 0;
    while ((de = readdir(d)))
        if (strstr(de->d_name, ".json"))
            files_differ += compare_file(de->d_name, real, n);
    closedir(d);
    printf("# fixture 9.99: %ld tests, the rule applies in %ld, answers changed in %ld; "
           "%ld files differ\n", n[0], n[1], n[2], files_differ);
    ck_assert_int_gt(n[0], 10000);
    ck_assert_int_gt(n[1], 0);          /* the fixture's rule reaches some cases ... */
    ck_assert_int_eq(n[1], n[2]);
    ck_assert_int_gt(files_differ, 0);  /* ... so a corpus not regenerated would fail */
}
END_TEST

int main(void)
{
    Suite *s = suite_create("release_rows");
    TCase *tc = tcase_create("rows");
    tcase_add_test(tc, rows_name_known_releases);
    tcase_add_test(tc, writer_computes_where_asked);
    suite_add_tcase(s, tc);
    TCase *fx = tcase_create("fixture");
    tcase_add_checked_fixture(fx, setup, teardown);
    tcase_set_timeout(fx, 600);
    tcase_add_test(fx, fictitious_release_changes_exactly_where_its_rule_applies);
    suite_add_tcase(s, fx);
    return shc_run_suite(s);
}
