/*
 * tap.h — run a Check suite with TAP on stdout (automake's tap-driver reads it).
 * Every check_*.c test program ends its main() with `return shc_run_suite(s);`.  Also the
 * few helpers more than one test program needs (paths, scratch directories).
 */
#ifndef SHC_TAP_H
#define SHC_TAP_H
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

static inline int shc_run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_set_tap(sr, "-");
    srunner_run_all(sr, CK_SILENT);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* Whether this make check walks the slow tests' paths on samples, as testlib.sh's sampled():
 * the sanitized one (SHARDCHECK_SANITIZED=1) and distcheck's (SHARDCHECK_SAMPLED=1), whose code
 * the plain build's make check has run in full (tools/test_job.sh; issue 36: CI time). */
static inline int shc_test_sampled(void)
{
    const char *a = getenv("SHARDCHECK_SANITIZED"), *b = getenv("SHARDCHECK_SAMPLED");
    return (a && a[0] == '1' && !a[1]) || (b && b[0] == '1' && !b[1]);
}

/* Path of a file in the source tree ($top_srcdir set by `make check`). */
static inline const char *shc_srcdir(void)
{
    const char *d = getenv("top_srcdir");
    return d ? d : ".";
}

/* A fresh scratch directory /tmp/shc-NAME-XXXXXX (written into dir, of size n) for a test's
 * files, and its removal: Check runs each test in a forked child, so each test makes and
 * removes its own from its fixture and no test sees another's files. */
static inline void shc_tmpdir_make(char *dir, size_t n, const char *name)
{
    ck_assert_int_lt(snprintf(dir, n, "/tmp/shc-%s-XXXXXX", name), (int)n);
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static inline void shc_tmpdir_remove(const char *dir)
{
    char cmd[512];
    ck_assert_int_lt(snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir), (int)sizeof cmd);
    ck_assert_int_eq(system(cmd), 0);
}
#endif
