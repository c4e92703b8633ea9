/*
 * test_layout.h — a mesh, placements and shape parsed for a test program (check_offsets.c,
 * check_rng_ops.c, check_rng_dtypes.c): an input that does not parse fails the test where
 * it is loaded.  Free with shc_mesh_free(&L.m).
 */
#ifndef SHC_TEST_LAYOUT_H
#define SHC_TEST_LAYOUT_H
#include <string.h>
#include <check.h>
#include "shardcheck.h"

typedef struct lay {
    shc_mesh m;
    shc_placements pl;
    shc_shape s;
} lay;

static inline void lay_load(lay *L, const char *mesh, const char *pl, const char *shape)
{
    shc_err e;
    memset(L, 0, sizeof *L);
    ck_assert_int_eq(shc_mesh_parse(&L->m, mesh, NULL, &e), 0);
    ck_assert_int_eq(shc_placements_parse(&L->pl, pl, &e), 0);
    ck_assert_int_eq(shc_shape_parse(&L->s, shape, &e), 0);
}
#endif
