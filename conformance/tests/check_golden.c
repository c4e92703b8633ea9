/*
 * check_golden.c — the golden format machinery: writer output, loader
 * validation (each way a file can be broken), MANIFEST tampering, and the
 * comparison rule shared by verify and run (GpuOnly tolerances included:
 * the ulp bounds, the units below 1, each float format, bad samples), and mapped JSON
 * inputs (json_map.c: the trim gives pages back, bytes unchanged; a shrunk file is exit 2).  Expected values here are
 * written by hand from the format's definition in golden.h, not produced by
 * the code under test.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include "tap.h"
#include "golden.h"

static char tmpdir[256];

static void setup(void)
{
    shc_tmpdir_make(tmpdir, sizeof tmpdir, "golden");
}

static void teardown(void)
{
    shc_tmpdir_remove(tmpdir);
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

/* Answers by torch release: the writer folds equal answers and names the change; the loader
 * gives a release's answer and refuses malformed version data. */
static int demo_answer(void *ctx, shc_torch_release r, json_t *t, shc_gw_why *why, shc_err *e)
{
    (void)ctx, (void)e;
    bool zf = shc_torch_has(r, SHC_TC_SHARD_TO_PARTIAL);
    if (zf)
        why->changes |= 1u << SHC_TC_SHARD_TO_PARTIAL;
    json_object_set_new(t, "result", json_string(zf ? "valid" : "invalid"));
    json_object_set_new(t, "expected", zf ? json_pack("{s:i}", "n", 1) : json_pack("{s:s}", "error", "no"));
    return SHC_OK;
}

static int bad_answer(void *ctx, shc_torch_release r, json_t *t, shc_gw_why *why, shc_err *e)
{
    (void)ctx, (void)why, (void)e;
    json_object_set_new(t, "result", json_string("valid"));
    json_object_set_new(t, "expected", json_pack("{s:i}", "n", (int)r));
    return SHC_OK;
}

START_TEST(releases_write_and_load)
{
    shc_err e = {0};
    shc_gw *w = shc_gw_new("demo", "pytorch", "2.13.0");
    shc_gw_releases(w, SHC_TORCH_ALL_RELEASES);
    ck_assert_int_eq(shc_gw_group(w, json_object(), &e), 0);
    ck_assert_int_eq(shc_gw_test_by_release(w, shc_test_new("x", "valid"), demo_answer, NULL, &e), 0);
    /* an answer that differs with no change named is an internal error */
    ck_assert_int_eq(shc_gw_test_by_release(w, shc_test_new("y", "valid"), bad_answer, NULL, &e),
                     SHC_EINTERNAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "no modelled change"));
    ck_assert_int_eq(shc_gw_write(w, tmpdir, &e), 0);
    shc_gw_free(w);
    const char *text = read_text("demo/demo.json");
    ck_assert_ptr_nonnull(strstr(text, "\"source\":{\"name\":\"pytorch\",\"version\":\"2.13.0\","
                                       "\"releases\":[\"2.11\",\"2.12\",\"2.13\",\"2.14\",\"2.15\"]}"));
    ck_assert_ptr_nonnull(strstr(text, "\"flags\":[\"ShardToPartialStep\"],\"result\":\"invalid\","
                                       "\"expected\":{\"error\":\"no\"},\"byVersion\":[{\"torch\":"
                                       "[\"2.14\",\"2.15\"],\"result\":\"valid\",\"expected\":{\"n\":1}}]"));
    shc_golden g;
    ck_assert_int_eq(shc_golden_load_family_at(&g, tmpdir, "demo", SHC_TORCH_2_15, &e), 0);
    const json_t *t = shc_golden_find(&g, 1);
    ck_assert_str_eq(json_string_value(json_object_get(t, "result")), "valid");
    ck_assert_str_eq(json_string_value(json_object_get(t, "torch")), "2.15");
    shc_golden_free(&g);
    ck_assert_int_eq(shc_golden_load_family_at(&g, tmpdir, "demo", SHC_TORCH_2_12, &e), 0);
    ck_assert_str_eq(json_string_value(json_object_get(shc_golden_find(&g, 1), "result")), "invalid");
    shc_golden_free(&g);
}
END_TEST

#define VHEAD "{\"schema\":\"demo_v1.json\",\"family\":\"demo\",\"notes\":{\"F\":\"f\"}," \
    "\"source\":{\"name\":\"pytorch\",\"version\":\"2.13.0\",\"releases\":"
#define VTEST(by) "\"numberOfTests\":1,\"testGroups\":[{\"tests\":[{\"tcId\":1,\"flags\":[]," \
    "\"result\":\"valid\",\"expected\":{}" by "}]}]}"

START_TEST(releases_bad_version_data)
{
    expect_load_error(VHEAD "[\"2.13\",\"2.16\"]}," VTEST(""),
                      "%s: source.releases[1]: torch version '2.16': not a supported release; "
                      "supported: 2.11 (2.11.0), 2.12 (2.12.1), 2.13 (2.13.0, the pinned default), "
                      "2.14 (2.14.1), 2.15 (2.15.0) (a minor, or its newest patch)");
    expect_load_error(VHEAD "[\"2.14\"]}," VTEST(""),
                      "%s: source.releases lacks the pinned release 2.13, whose answers the top "
                      "level holds");
    expect_load_error(VHEAD "[\"2.13\",\"2.14\"]}," VTEST(",\"byVersion\":[{\"torch\":[\"2.13\"],"
                      "\"result\":\"valid\",\"expected\":{}}]"),
                      "%s: tcId 1: byVersion[0].torch[0] is not one of the file's releases other "
                      "than the pinned 2.13, named once");
    expect_load_error(VHEAD "[\"2.13\",\"2.14\"]}," VTEST(",\"byVersion\":[{\"torch\":[\"2.15\"],"
                      "\"result\":\"valid\",\"expected\":{}}]"),
                      "%s: tcId 1: byVersion[0].torch[0] is not one of the file's releases other "
                      "than the pinned 2.13, named once");
    expect_load_error(VHEAD "[\"2.13\",\"2.14\"]}," VTEST(",\"byVersion\":[{\"torch\":[\"2.14\"],"
                      "\"result\":\"maybe\",\"expected\":{}}]"),
                      "%s: tcId 1: byVersion[0] must be {\"torch\": [releases], \"result\", "
                      "\"expected\": {...}}");
    /* a file without version data is read as the pinned release's, and says so */
    write_text("demo/demo.json", HEAD "\"source\":{\"name\":\"pytorch\",\"version\":\"2.13.0\"},"
               VTEST(""));
    shc_err e = {0};
    shc_golden g;
    ck_assert_int_eq(shc_golden_load_family_at(&g, tmpdir, "demo", SHC_TORCH_2_15, &e), 0);
    ck_assert_ptr_nonnull(g.unversioned);
    ck_assert_ptr_null(json_object_get(shc_golden_find(&g, 1), "torch"));
    shc_golden_free(&g);
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

/* shc_manifest_read, the parser of every MANIFEST reader (issue 27 N4, N15, N18): each way
 * a line can escape its directory or name a file twice is refused with the line. */
static int read_manifest(const char *text, shc_manifest *m, shc_err *e)
{
    char path[512];
    snprintf(path, sizeof path, "%s/M", tmpdir);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fwrite(text, 1, strlen(text), f);
    fclose(f);
    return shc_manifest_read(path, m, e);
}

START_TEST(manifest_lines)
{
    static const char *const h = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    static const struct { const char *rel, *why; } bad[] = {
        {"../x.json", "a '..' component"}, {"a/../x.json", "a '..' component"},
        {"a/..", "a '..' component"}, {"/etc/passwd", "an absolute path"},
        {"./a.json", "an empty or '.' component"}, {"a//b.json", "an empty or '.' component"},
        {"a/", "an empty or '.' component"}, {"a\tb", "a control character"}};
    char text[512];
    shc_manifest m;
    shc_err e = {0};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(text, sizeof text, "%s  ok.json\n%s  %s\n", h, h, bad[i].rel);
        ck_assert_int_eq(read_manifest(text, &m, &e), SHC_EFORMAT);
        ck_assert_msg(strstr(e.msg, "M line 2: ") && strstr(e.msg, bad[i].why), "%s: %s",
                      bad[i].rel, e.msg);
    }
    snprintf(text, sizeof text, "%s  b.json\n%s  a.json\n%s  b.json\n", h, h, h);
    ck_assert_int_eq(read_manifest(text, &m, &e), SHC_EFORMAT);
    ck_assert_ptr_nonnull(strstr(e.msg, "M line 3: b.json is listed twice (also on line 1)"));
    /* "..x" and "x.." are names, not the parent; CRLF ends and a last line without one */
    snprintf(text, sizeof text, "%s  ..x/y..\r\n%s  a.json", h, h);
    ck_assert_int_eq(read_manifest(text, &m, &e), SHC_OK);
    ck_assert_int_eq((int)m.n, 2);
    ck_assert_str_eq(m.v[0].rel, "..x/y..");
    ck_assert_int_eq(m.v[1].line, 2);
    ck_assert_ptr_nonnull(shc_manifest_find(&m, "a.json"));
    ck_assert_ptr_null(shc_manifest_find(&m, "b.json"));
    shc_manifest_free(&m);
    /* empty: no lines, and a lookup in it is safe (bsearch may not be given NULL) */
    ck_assert_int_eq(read_manifest("", &m, &e), SHC_OK);
    ck_assert_int_eq((int)m.n, 0);
    ck_assert_ptr_null(shc_manifest_find(&m, "a.json"));
    shc_manifest_free(&m);
    ck_assert_int_eq(read_manifest("abc  a.json\n", &m, &e), SHC_EFORMAT);
    ck_assert_ptr_nonnull(strstr(e.msg, "M line 1: expected"));
    /* a directory is no MANIFEST */
    ck_assert_int_eq(shc_manifest_read(tmpdir, &m, &e), SHC_EIO);
    ck_assert_ptr_nonnull(strstr(e.msg, "a directory"));
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

/* ---- GpuOnly tolerance (golden_tolerance.c) ---- */
#define HEADG "{\"schema\":\"demo_v1.json\",\"family\":\"demo\",\"notes\":{\"F\":\"f\"," \
              "\"GpuOnly\":\"g\"},\"numberOfTests\":1,\"testGroups\":[{\"tests\":[{\"tcId\":1,"

START_TEST(load_tolerance_needs_gpuonly)
{
    expect_load_error(HEADG "\"flags\":[\"F\"],\"result\":\"valid\",\"tolerance\":{\"dtype\":"
                            "\"float32\",\"ulp\":1},\"expected\":{}}]}]}",
                      "%s: tcId 1: a tolerance on a case that is not GpuOnly (exact means exact)");
    expect_load_error(HEADG "\"flags\":[\"GpuOnly\"],\"result\":\"valid\",\"tolerance\":{\"dtype\":"
                            "\"int8\",\"ulp\":1},\"expected\":{}}]}]}",
                      "%s: tcId 1: tolerance must be {\"dtype\": float32|float64|float16|bfloat16, "
                      "\"ulp\": 1..1048576}");
    expect_load_error(HEADG "\"flags\":[\"GpuOnly\"],\"result\":\"valid\",\"tolerance\":{\"dtype\":"
                            "\"float32\",\"ulp\":0},\"expected\":{}}]}]}",
                      "%s: tcId 1: tolerance must be {\"dtype\": float32|float64|float16|bfloat16, "
                      "\"ulp\": 1..1048576}");
}
END_TEST

/* A GpuOnly test with tolerance (dtype, ulp) whose expected holds a sha256, two samples
 * and an exact field. */
static json_t *tol_test(const char *dtype, int ulp, const char *b0, const char *b1)
{
    return json_pack("{s:i, s:[s], s:s, s:{s:s, s:i}, s:{s:s, s:{s:[s,s], s:[s,s]}, s:s}}",
                     "tcId", 1, "flags", "GpuOnly", "result", "valid", "tolerance", "dtype", dtype,
                     "ulp", ulp, "expected", "sha256", "aa", "samples", "index", "0", "9", "bits",
                     b0, b1, "new_offset", "4");
}

static json_t *tol_got(const char *sha, const char *b0, const char *b1, const char *off)
{
    return json_pack("{s:s, s:{s:[s,s], s:[s,s]}, s:s}", "sha256", sha, "samples", "index", "0",
                     "9", "bits", b0, b1, "new_offset", off);
}

/* 1/0 from shc_compare_view of got built from (sha, b0, b1, off); msg kept. */
static int tol_cmp(const json_t *t, const char *sha, const char *b0, const char *b1,
                   const char *off, char *msg, size_t n)
{
    json_t *got = tol_got(sha, b0, b1, off);
    int ok = shc_compare_view(t, -1, got, msg, n);
    json_decref(got);
    return ok;
}

START_TEST(compare_tolerance_float32)
{
    json_t *t = tol_test("float32", 390, "3f800000", "c02934c5"); /* 1.0, -2.64 */
    char msg[300];
    ck_assert_int_eq(tol_cmp(t, "aa", "3f800000", "c02934c5", "4", msg, sizeof msg), 1);
    ck_assert_str_eq(msg, "");
    ck_assert_int_eq(tol_cmp(t, "bb", "3f800000", "c02934c6", "4", msg, sizeof msg), 1);
    ck_assert_str_eq(msg, "note: sha256 differs (GpuOnly: samples within 390 ulp of float32, "
                          "largest 1)");
    /* 3f800000 + 390 = 1 + 390 * 2^-23: the bound passes, one more fails */
    ck_assert_int_eq(tol_cmp(t, "bb", "3f800186", "c02934c5", "4", msg, sizeof msg), 1);
    ck_assert_int_eq(tol_cmp(t, "bb", "3f800187", "c02934c5", "4", msg, sizeof msg), 0);
    ck_assert_str_eq(msg, "samples.bits[0]: expected 3f800000 (1), got 3f800187 (1.00004661): "
                          "391 ulp, over the GpuOnly tolerance of 390 ulp (float32)");
    /* below 1 the unit is 1.0's ulp: 0.5 + 780 * 2^-24 is 390 units */
    json_array_set_new(json_object_get(json_object_get(json_object_get(t, "expected"), "samples"),
                                       "bits"), 0, json_string("3f000000"));
    ck_assert_int_eq(tol_cmp(t, "bb", "3f00030c", "c02934c5", "4", msg, sizeof msg), 1);
    ck_assert_int_eq(tol_cmp(t, "bb", "3f00030e", "c02934c5", "4", msg, sizeof msg), 0);
    /* the exact fields stay exact */
    ck_assert_int_eq(tol_cmp(t, "aa", "3f000000", "c02934c5", "8", msg, sizeof msg), 0);
    ck_assert_str_eq(msg, "new_offset: expected \"4\", got \"8\"");
    /* without GpuOnly the tolerance is ignored: one ulp fails (the loader refuses it anyway),
     * and every differing field is named, not only the first */
    json_array_clear(json_object_get(t, "flags"));
    ck_assert_int_eq(tol_cmp(t, "bb", "3f000000", "c02934c6", "4", msg, sizeof msg), 0);
    ck_assert_str_eq(msg, "sha256: expected \"aa\", got \"bb\"; samples: expected "
                          "{\"index\":[\"0\",\"9\"],\"bits\":[\"3f000000\",\"c02934c5\"]}, got "
                          "{\"index\":[\"0\",\"9\"],\"bits\":[\"3f000000\",\"c02934c6\"]}");
    json_decref(t);
}
END_TEST

START_TEST(compare_tolerance_formats)
{
    char msg[300];
    json_t *t = tol_test("bfloat16", 1, "3f80", "c029");
    ck_assert_int_eq(tol_cmp(t, "bb", "3f81", "c029", "4", msg, sizeof msg), 1);
    ck_assert_int_eq(tol_cmp(t, "bb", "3f82", "c029", "4", msg, sizeof msg), 0);
    ck_assert_int_eq(tol_cmp(t, "bb", "3f8", "c029", "4", msg, sizeof msg), 0);
    ck_assert_str_eq(msg, "samples.bits[0]: expected a bfloat16 word (4 hex digits) like \"3f80\", "
                          "got 3f8");
    json_decref(t);
    t = tol_test("float16", 1, "3c00", "bc00"); /* 1.0, -1.0 */
    ck_assert_int_eq(tol_cmp(t, "bb", "3c01", "bbff", "4", msg, sizeof msg), 1);
    ck_assert_int_eq(tol_cmp(t, "bb", "3c00", "bc02", "4", msg, sizeof msg), 0);
    ck_assert_int_eq(tol_cmp(t, "bb", "7e00", "bc00", "4", msg, sizeof msg), 0);
    ck_assert_str_eq(msg, "samples.bits[0]: expected 3c00, got 7e00 (NaN): not finite, no "
                          "tolerance applies");
    json_decref(t);
    t = tol_test("float64", 2, "3ff0000000000000", "4000000000000000");
    ck_assert_int_eq(tol_cmp(t, "bb", "3ff0000000000002", "4000000000000001", "4", msg,
                             sizeof msg), 1);
    ck_assert_str_eq(msg, "note: sha256 differs (GpuOnly: samples within 2 ulp of float64, "
                          "largest 2)");
    ck_assert_int_eq(tol_cmp(t, "bb", "3ff0000000000003", "4000000000000000", "4", msg,
                             sizeof msg), 0);
    json_decref(t);
}
END_TEST

START_TEST(compare_tolerance_shapes)
{
    char msg[300];
    json_t *t = tol_test("float32", 390, "3f800000", "c02934c5");
    json_t *got = tol_got("bb", "3f800000", "c02934c5", "4");
    json_array_remove(json_object_get(json_object_get(got, "samples"), "bits"), 1);
    ck_assert_int_eq(shc_compare_view(t, -1, got, msg, sizeof msg), 0);
    ck_assert_str_eq(msg, "samples.bits: expected 2 values, got 1");
    json_decref(got);
    got = tol_got("bb", "3f800000", "c02934c5", "4");
    json_array_set_new(json_object_get(json_object_get(got, "samples"), "index"), 1,
                       json_string("8"));
    ck_assert_int_eq(shc_compare_view(t, -1, got, msg, sizeof msg), 0);
    ck_assert_str_eq(msg, "samples.index: the candidate's sample indices differ from golden's "
                          "(they must be the same elements)");
    json_decref(got);
    /* a digest that differs needs samples to vouch for it */
    json_object_del(json_object_get(t, "expected"), "samples");
    got = json_pack("{s:s, s:s}", "sha256", "bb", "new_offset", "4");
    ck_assert_int_eq(shc_compare_view(t, -1, got, msg, sizeof msg), 0);
    ck_assert_str_eq(msg, "sha256: differs, and the case has no samples to compare within its "
                          "GpuOnly tolerance");
    json_decref(got);
    json_decref(t);
    /* per rank: perRank digest and sample */
    t = json_pack("{s:i, s:[s], s:s, s:{s:s, s:i}, s:{s:{s:[s,s], s:[[s],[s]]}}}", "tcId", 2,
                  "flags", "GpuOnly", "result", "valid", "tolerance", "dtype", "float32", "ulp",
                  39, "expected", "perRank", "digest", "d0", "d1", "sample", "3f800000",
                  "40000000");
    got = json_pack("{s:s, s:[s]}", "digest", "xx", "sample", "40000027"); /* 2 + 39 ulp of 2 */
    ck_assert_int_eq(shc_compare_view(t, 1, got, msg, sizeof msg), 1);
    ck_assert_str_eq(msg, "note: digest differs (GpuOnly: samples within 39 ulp of float32, "
                          "largest 39)");
    json_decref(got);
    got = json_pack("{s:s, s:[s]}", "digest", "xx", "sample", "40000028");
    ck_assert_int_eq(shc_compare_view(t, 1, got, msg, sizeof msg), 0);
    json_decref(got);
    json_decref(t);
}
END_TEST

/* The resident size of the mapping that starts at p, from /proc/self/smaps (KiB; -1 if
 * not found): what json_map.c's trim is meant to drop. */
static long mapping_rss_kib(const void *p)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return -1;
    char line[512];
    bool in = false;
    long rss = -1;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
            in = lo == (unsigned long)(uintptr_t)p;
        else if (in && sscanf(line, "Rss: %ld kB", &rss) == 1)
            break;
    }
    fclose(f);
    return rss;
}

START_TEST(map_trims_and_rereads)
{
    char *text = malloc(1 << 20);
    for (int i = 0; i < (1 << 20) - 1; i++)
        text[i] = (char)('a' + i % 26);
    text[(1 << 20) - 1] = '\0';
    write_text("big.json", text);
    char path[512];
    snprintf(path, sizeof path, "%s/big.json", tmpdir);
    shc_map m;
    ck_assert_int_eq(shc_map_path(&m, path, NULL), SHC_OK);
    ck_assert(m.mapped);
    ck_assert_uint_eq(m.n, (1 << 20) - 1);
    ck_assert(!memcmp(m.p, text, m.n)); /* every page touched */
    long before = mapping_rss_kib(m.p);
    if (before >= 0) { /* /proc mounted: the trim really gives the pages back */
        ck_assert_int_ge(before, 512);
        shc_map_trim_all();
        ck_assert_int_eq(mapping_rss_kib(m.p), 0);
    }
    ck_assert(!memcmp(m.p, text, m.n)); /* and they come back unchanged */
    shc_map_touched(SHC_MAP_WINDOW); /* a full window: trims */
    if (before >= 0)
        ck_assert_int_eq(mapping_rss_kib(m.p), 0);
    ck_assert(!memcmp(m.p, text, m.n));
    shc_map_free(&m);
    free(text);
}
END_TEST

START_TEST(map_empty_and_refused)
{
    write_text("empty.json", "");
    char path[512];
    snprintf(path, sizeof path, "%s/empty.json", tmpdir);
    shc_map m;
    ck_assert_int_eq(shc_map_path(&m, path, NULL), SHC_OK);
    ck_assert(m.p && m.n == 0 && !m.mapped); /* nothing to map: an empty private copy */
    shc_map_free(&m);
    shc_err e = {0};
    ck_assert_int_ne(shc_map_path(&m, tmpdir, &e), SHC_OK);
    ck_assert_ptr_nonnull(strstr(e.msg, "is not a regular file (a directory)"));
    snprintf(path, sizeof path, "%s/missing.json", tmpdir);
    ck_assert_int_ne(shc_map_path(&m, path, &e), SHC_OK);
    ck_assert_ptr_nonnull(strstr(e.msg, "cannot read"));
}
END_TEST

static const char *srcdir(void)
{
    const char *d = getenv("top_srcdir");
    return d ? d : ".";
}

/* Which file of t holds tcId tc, read off the trees' testGroups. */
static int file_holding(const shc_golden *t, int64_t tc)
{
    for (int f = 0; f < t->nfiles; f++) {
        size_t a, b;
        json_t *grp, *test;
        json_array_foreach(json_object_get(t->roots[f], "testGroups"), a, grp)
            json_array_foreach(json_object_get(grp, "tests"), b, test)
                if (json_integer_value(json_object_get(test, "tcId")) == tc)
                    return f;
    }
    return -1;
}

/* Every flag of test i has the same note from both loaders, the first file's that has one. */
static void notes_match(const shc_golden *t, const shc_golden *x, int64_t i)
{
    size_t k;
    json_t *fl;
    json_array_foreach(json_object_get(t->tests[i], "flags"), k, fl) {
        const char *want = NULL, *name = json_string_value(fl);
        for (int f = 0; f < t->nfiles && !want; f++)
            want = json_string_value(json_object_get(json_object_get(t->roots[f], "notes"), name));
        ck_assert_msg(want != NULL, "flag %s has no note", name);
        ck_assert_str_eq(shc_golden_note(t, name), want);
        ck_assert_str_eq(shc_golden_note(x, name), want);
    }
}

/* The index loader (run, certify, families, verify) serves each test and its group as the
 * tree loader has them, the group with its "tests" emptied, and the same file and flag
 * notes for it: on the committed corpus. */
static void index_matches_trees(const char *family)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/golden", srcdir());
    shc_golden t, x;
    shc_err e = {0};
    ck_assert_msg(shc_golden_load_family(&t, dir, family, &e) == 0, "%s", e.msg);
    ck_assert_msg(shc_golden_index_family(&x, dir, family, &e) == 0, "%s", e.msg);
    ck_assert_msg(x.text != NULL, "%s: the index loader fell back to the trees", family);
    ck_assert_int_eq(x.ntests, t.ntests);
    int64_t groups = 0;
    for (int64_t i = 0; i < t.ntests; i++) {
        ck_assert_int_eq(x.tcids[i], t.tcids[i]);
        ck_assert(json_equal(shc_golden_test(&x, i), t.tests[i]));
        json_t *want = json_copy(t.groups[i]);
        json_object_set_new(want, "tests", json_array());
        json_t *got = shc_golden_group(&x, i);
        ck_assert_msg(json_equal(got, want), "%s tcId %lld: group", family, (long long)t.tcids[i]);
        ck_assert_ptr_eq(got, shc_golden_group(&x, i)); /* parsed once */
        groups += i == 0 || t.groups[i] != t.groups[i - 1];
        int f = file_holding(&t, t.tcids[i]);
        ck_assert_int_ge(f, 0);
        ck_assert_int_eq(shc_golden_file_of(&t, i), f);
        ck_assert_int_eq(shc_golden_file_of(&x, i), f);
        ck_assert_str_eq(x.paths[f], t.paths[f]);
        notes_match(&t, &x, i);
        json_decref(want);
        shc_golden_test_done(&x, i);
    }
    ck_assert_int_eq(x.ngroups, groups);
    ck_assert_int_gt(groups, 1);
    ck_assert_int_eq(shc_golden_file_of(&x, -1), -1);
    ck_assert_int_eq(shc_golden_file_of(&x, x.ntests), -1);
    ck_assert_ptr_null(shc_golden_note(&x, "NoSuchFlag"));
    shc_golden_free(&t);
    shc_golden_free(&x);
}

START_TEST(index_groups_as_trees)
{
    index_matches_trees("redistribute-data"); /* group parameters: meshes, shapes, dtypes */
    index_matches_trees("view-sharding");
    index_matches_trees("philox-kat");
}
END_TEST

/* A GpuOnly test with a "tolerance" is checked where it is scanned: its family stays on
 * the index (rng-offsets has one), and a broken tolerance still goes to the tree loader,
 * which names it. */
START_TEST(index_checks_tolerance)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/golden", srcdir());
    shc_golden x;
    shc_err e = {0};
    ck_assert_msg(shc_golden_index_family(&x, dir, "rng-offsets", &e) == 0, "%s", e.msg);
    ck_assert_ptr_nonnull(x.text);
    shc_golden_free(&x);
    write_text("demo/a.json",
               "{\"family\":\"demo\",\"schema\":\"demo_v1.json\",\"numberOfTests\":1,"
               "\"notes\":{\"GpuOnly\":\"x\"},\"testGroups\":[{\"k\":1,\"tests\":[{\"tcId\":1,"
               "\"flags\":[\"GpuOnly\"],\"result\":\"valid\",\"tolerance\":{\"ulp\":-1},"
               "\"expected\":{}}]}]}");
    ck_assert_int_eq(shc_golden_index_family(&x, tmpdir, "demo", &e), SHC_EFORMAT);
    ck_assert_msg(strstr(e.msg, "tcId 1") != NULL, "%s", e.msg);
}
END_TEST

/* A mapped file cut short under the reader: SIGBUS becomes exit 2 with a message. */
START_TEST(map_shrunk_file_exits_2)
{
    write_text("shrinks.json", "[1,2,3]                                                    ");
    char path[512];
    snprintf(path, sizeof path, "%s/shrinks.json", tmpdir);
    shc_map m;
    ck_assert_int_eq(shc_map_path(&m, path, NULL), SHC_OK);
    ck_assert_int_eq(truncate(path, 0), 0);
    volatile char c = m.p[m.n - 1];
    (void)c;
    ck_abort_msg("read past a shrunk mapping without SIGBUS");
}
END_TEST

/* shc_i64_dec and shc_json_i64s: the decimal string of a 64-bit integer, at its edges
 * (written by hand). */
START_TEST(i64s_decimal_strings)
{
    static const struct { int64_t v; const char *s; } want[] = {
        {0, "0"}, {7, "7"}, {-1, "-1"}, {10, "10"}, {-10, "-10"}, {99, "99"},
        {4294967296LL, "4294967296"}, {-4294967297LL, "-4294967297"},
        {INT64_MAX, "9223372036854775807"}, {INT64_MIN, "-9223372036854775808"},
        {INT64_MIN + 1, "-9223372036854775807"}, {1000000000000000000LL, "1000000000000000000"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        json_t *j = shc_json_i64s(want[i].v);
        ck_assert_msg(json_is_string(j) && !strcmp(json_string_value(j), want[i].s) &&
                      json_string_length(j) == strlen(want[i].s), "%s: got %s", want[i].s,
                      json_string_value(j) ? json_string_value(j) : "(none)");
        json_decref(j);
        char b[SHC_I64_DEC_MAX];
        size_t n = shc_i64_dec(want[i].v, b);
        ck_assert_msg(n == strlen(want[i].s) && !memcmp(b, want[i].s, n), "%s: got %.*s",
                      want[i].s, (int)n, b);
    }
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
    tcase_add_test(tc, releases_write_and_load);
    tcase_add_test(tc, releases_bad_version_data);
    tcase_add_test(tc, load_bad_result);
    tcase_add_test(tc, manifest_detects_tampering);
    tcase_add_test(tc, manifest_lines);
    tcase_add_test(tc, sha256_known_answer);
    tcase_add_test(tc, compare_views);
    tcase_add_test(tc, load_tolerance_needs_gpuonly);
    tcase_add_test(tc, compare_tolerance_float32);
    tcase_add_test(tc, compare_tolerance_formats);
    tcase_add_test(tc, compare_tolerance_shapes);
    tcase_add_test(tc, map_trims_and_rereads);
    tcase_add_test(tc, map_empty_and_refused);
    tcase_add_test(tc, index_groups_as_trees);
    tcase_add_test(tc, index_checks_tolerance);
    tcase_add_test(tc, i64s_decimal_strings);
    suite_add_tcase(s, tc);
    /* The SIGBUS test's child dies before a checked teardown could run in it: its own case,
     * whose fixture runs in the parent, removes the directory the child wrote into. */
    TCase *bus = tcase_create("sigbus");
    tcase_add_unchecked_fixture(bus, setup, teardown);
    tcase_add_exit_test(bus, map_shrunk_file_exits_2, 2);
    suite_add_tcase(s, bus);
    return shc_run_suite(s);
}
