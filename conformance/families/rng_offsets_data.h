/*
 * rng_offsets_data.h — the rng-offsets family's random-data variant
 * (rng_offsets_data.c) as the family file (rng_offsets.c) calls it: one family,
 * two files, because the variant runs torch's CUDA kernels on each rank's shard
 * while the rest of the family is tracker arithmetic.
 */
#ifndef SHC_RNG_OFFSETS_DATA_H
#define SHC_RNG_OFFSETS_DATA_H
#include "families.h"

/* One rank's tracker view of a layout (rng_offsets_data.c); *au gets the audit. */
int shcro_rank_view(const shc_mesh *m, const shc_placements *pl, const shc_shape *s,
                    int64_t rank, const shc_rng_audit *au, json_t **out, shc_err *e);
/* A random-data test's view at rank: digest and first bits of the local output. */
int shcro_data_rank(const json_t *group, const json_t *test, int64_t rank, json_t **out,
                    shc_err *e);
/* Write the random-data file of the family. */
int shcro_gen_data(shc_gw *w, shc_err *e);
/* The cuda backend's view of a random-data case (hook device.fill). */
int shcro_data_device_rank(const shc_rng_device *dev, const json_t *group, const json_t *test,
                           int64_t rank, json_t **view, json_t **ref, shc_err *e);
#endif
