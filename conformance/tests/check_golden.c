/*
 * check_golden.c — the golden format machinery: writer output, loader
 * validation (each way a file can be broken), MANIFEST tampering, and the
 * comparison rule shared by verify and run.  Expected values here are
 * written by hand from the format's definition in golden.h, not produced by
 * the code under test.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tap.h"
#include "golden.h"

static char tmpdir[256];

static void setup(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/shc-golden-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void teardown(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    ck_assert_int_eq(system(cmd), 0);
}

static void write_text(const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, rel);
    char dir[512];
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    char cmd[600];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static char *read_text(const char *rel)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, rel);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* A two-test family written through the writer. */
static void write_demo(void)
{
    shc_err e = {0};
    shc_gw *w = shc_gw_new("demo", "pytorch", "2.13.0");
    shc_gw_note(w, "Uneven", "uneven shards");
    ck_assert_int_eq(shc_gw_group(w, json_pack("{s:[i,i]}", "mesh", 2, 2), &e), 0);
    json_t *t = shc_test_new("first", "valid");
    shc_test_flag(t, "Uneven");
    shc_test_flag(t, "Uneven");
    json_object_set_new(t, "expected", json_pack("{s:s, s:{s:[i,i,i,i]}}", "seed", "42", "perRank",
                                                 "n", 0, 1, 2, 3));
    ck_assert_int_eq(shc_gw_test(w, t, &e), 0);
    t = shc_test_new("second", "invalid");
    json_object_set_new(t, "expected", json_pack("{s:s}", "error", "bad"));
    ck_assert_int_eq(shc_gw_test(w, t, &e), 0);
    ck_assert_int_eq(shc_gw_count(w), 2);
    ck_assert_int_eq(shc_gw_write(w, tmpdir, &e), 0);
    shc_gw_free(w);
}

START_TEST(writer_layout)
{
    write_demo();
    const char *want =
        "{\"schema\":\"demo_v1.json\",\"family\":\"demo\",\"source\":{\"name\":\"pytorch\","
        "\"version\":\"2.13.0\"},\"numberOfTests\":2,\"notes\":{\"Uneven\":\"uneven shards\"},"
        "\"testGroups\":[\n{\"mesh\":[2,2],\"tests\":[\n"
        "{\"tcId\":1,\"comment\":\"first\",\"flags\":[\"Uneven\"],\"result\":\"valid\",\"expected\":"
        "{\"seed\":\"42\",\"perRank\":{\"n\":[0,1,2,3]}}},\n"
        "{\"tcId\":2,\"comment\":\"second\",\"flags\":[],\"result\":\"invalid\",\"expected\":"
        "{\"error\":\"bad\"}}\n]}\n]}\n";
    ck_assert_str_eq(read_text("demo/demo.json"), want);
}
END_TEST

START_TEST(writer_rejects_undeclared_flag)
{
    shc_err e = {0};
    shc_gw *w = shc_gw_new("demo", "pytorch", "2.13.0");
    ck_assert_int_eq(shc_gw_group(w, json_object(), &e), 0);
    json_t *t = shc_test_new("x", "valid");
    shc_test_flag(t, "Nope");
    ck_assert_int_eq(shc_gw_test(w, t, &e), SHC_EINTERNAL);
    ck_assert_str_eq(e.msg, "family demo: flag 'Nope' used but not declared");
    shc_gw_free(w);
}
END_TEST

START_TEST(load_round_trip)
{
    write_demo();
    shc_err e = {0};
    shc_golden g;
    ck_assert_int_eq(shc_golden_load_family(&g, tmpdir, "demo", &e), 0);
    ck_assert_int_eq(g.ntests, 2);
    ck_assert_ptr_nonnull(shc_golden_find(&g, 2));
    ck_assert_ptr_null(shc_golden_find(&g, 3));
    ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(g.groups[1], "mesh"), 0)), 2);
    shc_golden_free(&g);
}
END_TEST

/* Load a hand-written broken file and expect the exact message. */
static void expect_load_error(const char *text, const char *msg_fmt)
{
    write_text("demo/demo.json", text);
    shc_err e = {0};
    shc_golden g;
    char path[512], want[1024];
    snprintf(path, sizeof path, "%s/demo/demo.json", tmpdir);
    snprintf(want, sizeof want, msg_fmt, path);
    ck_assert_int_eq(shc_golden_load_family(&g, tmpdir, "demo", &e), SHC_EFORMAT);
    ck_assert_str_eq(e.msg, want);
}

#define HEAD "{\"schema\":\"demo_v1.json\",\"family\":\"demo\",\"notes\":{\"F\":\"f\"},"

START_TEST(load_truncated)
{
    expect_load_error(HEAD "\"numberOfTests\":1,\"testGroups\":[{\"tests\":[{\"tcId\":1,",
                      "%s: line 1 column 111: string or '}' expected near end of file");
}
END_TEST

START_TEST(load_wrong_schema)
{
    expect_load_error("{\"schema\":\"other_v1.json\",\"family\":\"demo\"}",
                      "%s: schema is \"other_v1.json\", expected \"demo_v1.json\"");
}
END_TEST

START_TEST(load_count_mismatch)
{
    expect_load_error(HEAD "\"numberOfTests\":2,\"testGroups\":[{\"tests\":[{\"tcId\":1,\"flags\":[],"
                           "\"result\":\"valid\",\"expected\":{}}]}]}",
                      "%s: numberOfTests is 2 but 1 tests are present");
}
END_TEST

START_TEST(load_duplicate_tcid)
{
    write_text("demo/demo.json",
               HEAD "\"numberOfTests\":2,\"testGroups\":[{\"tests\":[{\"tcId\":7,\"flags\":[],"
                    "\"result\":\"valid\",\"expected\":{}},{\"tcId\":7,\"flags\":[],\"result\":"
                    "\"valid\",\"expected\":{}}]}]}");
    shc_err e = {0};
    shc_golden g;
    ck_assert_int_eq(shc_golden_load_family(&g, tmpdir, "demo", &e), SHC_EFORMAT);
    ck_assert_str_eq(e.msg, "family demo: duplicate tcId 7");
}
END_TEST

START_TEST(load_undeclared_flag)
{
    expect_load_error(HEAD "\"numberOfTests\":1,\"testGroups\":[{\"tests\":[{\"tcId\":1,\"flags\":"
                           "[\"G\"],\"result\":\"valid\",\"expected\":{}}]}]}",
                      "%s: tcId 1: flag G is not declared in notes");
}
END_TEST

START_TEST(load_bad_result)
{
    expect_load_error(HEAD "\"numberOfTests\":1,\"testGroups\":[{\"tests\":[{\"tcId\":1,\"flags\":[],"
                           "\"result\":\"maybe\",\"expected\":{}}]}]}",
                      "%s: tcId 1: result must be valid, invalid or acceptable");
}
END_TEST

START_TEST(manifest_detects_tampering)
{
    write_demo();
    shc_err e = {0};
    ck_assert_int_eq(shc_manifest_write(tmpdir, &e), 0);
    ck_assert_int_eq(shc_manifest_verify(tmpdir, &e), 0);
    /* one changed byte */
    char *text = strdup(read_text("demo/demo.json"));
    char *p = strstr(text, "\"42\"");
    p[1] = '3';
    write_text("demo/demo.json", text);
    free(text);
    ck_assert_int_eq(shc_manifest_verify(tmpdir, &e), SHC_EFORMAT);
    ck_assert_ptr_nonnull(strstr(e.msg, "line 1: demo/demo.json has sha256"));
    /* an unlisted file */
    ck_assert_int_eq(shc_manifest_write(tmpdir, &e), 0);
    write_text("demo/extra.json", "{}");
    ck_assert_int_eq(shc_manifest_verify(tmpdir, &e), SHC_EFORMAT);
    ck_assert_ptr_nonnull(strstr(e.msg, "demo/extra.json is not listed"));
    /* a malformed line */
    write_text("MANIFEST", "abc  demo/demo.json\n");
    ck_assert_int_eq(shc_manifest_verify(tmpdir, &e), SHC_EFORMAT);
    ck_assert_ptr_nonnull(strstr(e.msg, "line 1: expected"));
}
END_TEST

START_TEST(sha256_known_answer)
{
    char hex[65];
    shc_sha256_hex("abc", 3, hex); /* FIPS 180-2 example */
    ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}
END_TEST

START_TEST(compare_views)
{
    json_t *t = json_pack("{s:i, s:s, s:{s:s, s:{s:[i,i]}}}", "tcId", 1, "result", "valid",
                          "expected", "seed", "42", "perRank", "n", 10, 11);
    char msg[256];
    json_t *good = json_pack("{s:s, s:i}", "seed", "42", "n", 11);
    json_t *bad = json_pack("{s:s, s:i}", "seed", "42", "n", 12);
    json_t *err = json_pack("{s:s}", "error", "no");
    ck_assert_int_eq(shc_compare_view(t, 1, good, msg, sizeof msg), 1);
    ck_assert_int_eq(shc_compare_view(t, 0, good, msg, sizeof msg), 0);
    ck_assert_str_eq(msg, "n: expected 10, got 11");
    ck_assert_int_eq(shc_compare_view(t, 1, bad, msg, sizeof msg), 0);
    ck_assert_str_eq(msg, "n: expected 11, got 12");
    ck_assert_int_eq(shc_compare_view(t, 2, good, msg, sizeof msg), 0);
    ck_assert_str_eq(msg, "rank 2 is outside the test's world");
    ck_assert_int_eq(shc_compare_view(t, 1, err, msg, sizeof msg), 0);
    ck_assert_str_eq(msg, "rejected a valid input: \"no\"");
    ck_assert_int_eq(shc_expected_world(json_object_get(t, "expected")), 2);
    json_object_set_new(t, "result", json_string("invalid"));
    ck_assert_int_eq(shc_compare_view(t, -1, err, msg, sizeof msg), 1);
    ck_assert_int_eq(shc_compare_view(t, -1, good, msg, sizeof msg), 0);
    /* acceptable: an alternative matches */
    json_object_set_new(t, "result", json_string("acceptable"));
    json_object_set_new(json_object_get(t, "expected"), "alternatives",
                        json_pack("[{s:s, s:{s:[i,i]}}]", "seed", "42", "perRank", "n", 10, 12));
    ck_assert_int_eq(shc_compare_view(t, 1, bad, msg, sizeof msg), 1);
    json_decref(t);
    json_decref(good);
    json_decref(bad);
    json_decref(err);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("golden");
    TCase *tc = tcase_create("format");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, writer_layout);
    tcase_add_test(tc, writer_rejects_undeclared_flag);
    tcase_add_test(tc, load_round_trip);
    tcase_add_test(tc, load_truncated);
    tcase_add_test(tc, load_wrong_schema);
    tcase_add_test(tc, load_count_mismatch);
    tcase_add_test(tc, load_duplicate_tcid);
    tcase_add_test(tc, load_undeclared_flag);
    tcase_add_test(tc, load_bad_result);
    tcase_add_test(tc, manifest_detects_tampering);
    tcase_add_test(tc, sha256_known_answer);
    tcase_add_test(tc, compare_views);
    suite_add_tcase(s, tc);
    return shc_run_suite(s);
}
