/*
 * tap.h — run a Check suite with TAP on stdout (automake's tap-driver reads it).
 * Every check_*.c test program ends its main() with `return shc_run_suite(s);`.
 */
#ifndef SHC_TAP_H
#define SHC_TAP_H
#include <check.h>
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

/* Path of a file in the source tree ($top_srcdir set by `make check`). */
static inline const char *shc_srcdir(void)
{
    const char *d = getenv("top_srcdir");
    return d ? d : ".";
}
#endif
