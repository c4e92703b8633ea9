/*
 * check_hardening.c — unit tests for issue 9's hardening where a library call states
 * it more directly than the CLI: the JSON loader's limits (only regular files, at
 * most SHC_MAX_JSON_BYTES, never blocking on a FIFO), MANIFEST covering the schemas
 * and verified per family, torch's launch-grid limit (D2), and the small lookups
 * every message goes through.  The CLI side of each is in hardening.sh.
 */
#include "config.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tap.h"
#include "shardcheck.h"
#include "golden.h"

static char dir[] = "/tmp/check_hardening.XXXXXX";

static void write_file(const char *rel, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    FILE *f = fopen(p, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
}

static void load_err(const char *rel, int code, const char *want)
{
    char p[512];
    shc_err e = {0};
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    ck_assert_ptr_null(shc_json_load_path(p, &e));
    ck_assert_int_eq(e.code, code);
    ck_assert_msg(strstr(e.msg, want), "%s: message '%s' lacks '%s'", rel, e.msg, want);
}

START_TEST(json_loader_limits)
{
    shc_err e = {0};
    write_file("ok.json", "{\"a\": [1, 2]}");
    char p[512];
    snprintf(p, sizeof p, "%s/ok.json", dir);
    json_t *j = shc_json_load_path(p, &e);
    ck_assert_ptr_nonnull(j);
    json_decref(j);
    write_file("bad.json", "{\"a\": [1, ");
    load_err("bad.json", SHC_EFORMAT, "line 1 column");
    load_err("absent.json", SHC_EIO, "cannot read");
    snprintf(p, sizeof p, "%s/sub.json", dir);
    ck_assert_int_eq(mkdir(p, 0700), 0);
    load_err("sub.json", SHC_EINVAL, "is not a regular file (a directory)");
    snprintf(p, sizeof p, "%s/fifo", dir);
    ck_assert_int_eq(mkfifo(p, 0600), 0);
    load_err("fifo", SHC_EINVAL, "is not a regular file (a FIFO)"); /* returns at once */
    snprintf(p, sizeof p, "%s/big.json", dir);
    int fd = open(p, O_CREAT | O_WRONLY, 0600);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(ftruncate(fd, (off_t)SHC_MAX_JSON_BYTES + 1), 0);
    close(fd);
    load_err("big.json", SHC_EINVAL, "the limit for a JSON input is 1073741824 bytes");
    ck_assert_ptr_null(shc_json_load_path("/dev/null", &e));
    ck_assert_msg(strstr(e.msg, "a character device"), "%s", e.msg);
}
END_TEST

START_TEST(manifest_covers_schemas)
{
    char p[512];
    shc_err e = {0};
    const char *sub[] = {"fam", "other", "schemas"};
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, sub[i]);
        ck_assert_int_eq(mkdir(p, 0700), 0);
    }
    write_file("fam/a.json", "{}\n");
    write_file("other/b.json", "{}\n");
    write_file("schemas/fam_v1.json", "{\"type\": \"object\"}\n");
    ck_assert_int_eq(shc_manifest_write(dir, &e), SHC_OK);
    ck_assert_int_eq(shc_manifest_verify(dir, &e), SHC_OK);
    write_file("schemas/fam_v1.json", "{\"type\": \"array\"}\n");
    ck_assert_int_eq(shc_manifest_verify(dir, &e), SHC_EFORMAT);
    ck_assert_msg(strstr(e.msg, "schemas/fam_v1.json has sha256"), "%s", e.msg);
    ck_assert_int_eq(shc_manifest_verify_family(dir, "fam", &e), SHC_EFORMAT);
    ck_assert_int_eq(shc_manifest_verify_family(dir, "other", &e), SHC_OK); /* not its schema */
    write_file("other/b.json", "[]\n");
    write_file("other/c.json", "[]\n");
    ck_assert_int_eq(shc_manifest_verify_family(dir, "other", &e), SHC_EFORMAT);
    ck_assert_msg(strstr(e.msg, "other/b.json has sha256"), "%s", e.msg);
    ck_assert_int_eq(shc_manifest_write(dir, &e), SHC_OK);
    ck_assert_int_eq(shc_manifest_verify_family(dir, "fam", &e), SHC_OK);
    write_file("fam/z.json", "{}\n");
    ck_assert_int_eq(shc_manifest_verify_family(dir, "fam", &e), SHC_EFORMAT);
    ck_assert_msg(strstr(e.msg, "fam/z.json is not listed"), "%s", e.msg);
    ck_assert_int_eq(shc_manifest_verify_family(dir, "other", &e), SHC_OK);
}
END_TEST

START_TEST(torch_grid_limit)
{
    shc_gpu_profile g;
    shc_err e = {0};
    ck_assert_int_eq(shc_gpu_profile_parse("a100", &g, &e), SHC_OK);
    const int64_t max = (int64_t)UINT32_MAX * 256;
    for (int op = SHC_TORCH_UNIFORM; op <= SHC_TORCH_DROPOUT; op++) {
        shc_torch_rng_req r;
        int64_t after = 0;
        shc_torch_rng_req_init(&r, (shc_torch_op)op, SHC_DT_FLOAT32, max + 1);
        ck_assert_int_eq(shc_torch_rng_offset_after(&g, 0, &r, &after, &e), SHC_EINVAL);
        ck_assert_msg(strstr(e.msg, "holds at most 1099511627520"), "%s", e.msg);
        r.numel = (int64_t)1 << 40; /* a block count of exactly 2^32: torch divides by 0 */
        ck_assert_int_eq(shc_torch_rng_offset_after(&g, 0, &r, &after, &e), SHC_EINVAL);
        r.numel = max;
        ck_assert_int_eq(shc_torch_rng_offset_after(&g, 0, &r, &after, &e), SHC_OK);
        ck_assert_int_gt(after, 0);
    }
}
END_TEST

START_TEST(names)
{
    const int codes[] = {SHC_OK, SHC_EINVAL, SHC_EOVERFLOW, SHC_ENOMEM, SHC_EIO, SHC_EFORMAT,
                         SHC_EUNSUPPORTED, SHC_EINTERNAL, 12345};
    const char *want[] = {"ok", "invalid input", "overflow", "out of memory", "i/o error",
                          "malformed file", "not supported", "internal error", "internal error"};
    for (int i = 0; i < 9; i++)
        ck_assert_str_eq(shc_strerror(codes[i]), want[i]);
    ck_assert_str_eq(shc_philox_path_name(SHC_PHILOX_AUTO), "auto");
    ck_assert_str_eq(shc_philox_path_name(SHC_PHILOX_SCALAR), "scalar");
    ck_assert_str_eq(shc_philox_path_name(SHC_PHILOX_AVX2), "avx2");
    ck_assert_str_eq(shc_philox_path_name(SHC_PHILOX_AVX512), "avx512");
    ck_assert_str_eq(shc_philox_path_name((shc_philox_path)42), "?");
    ck_assert(!shc_philox_path_available((shc_philox_path)42));
    ck_assert(shc_philox_path_available(shc_philox_best_path()));
}
END_TEST

static void cleanup(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "check_hardening: could not remove %s\n", dir);
}

int main(void)
{
    if (!mkdtemp(dir))
        return 99;
    Suite *s = suite_create("check_hardening");
    TCase *tc = tcase_create("hardening");
    tcase_add_test(tc, json_loader_limits);
    tcase_add_test(tc, manifest_covers_schemas);
    tcase_add_test(tc, torch_grid_limit);
    tcase_add_test(tc, names);
    suite_add_tcase(s, tc);
    int rc = shc_run_suite(s);
    cleanup();
    return rc;
}
