/* check_golden.c — STUB. */
#include "config.h"
#include "tap.h"
START_TEST(stub) { ck_assert_int_eq(1, 1); }
END_TEST
int main(void) { Suite *s = suite_create("check_golden"); TCase *tc = tcase_create("stub"); tcase_add_test(tc, stub); suite_add_tcase(s, tc); return shc_run_suite(s); }
