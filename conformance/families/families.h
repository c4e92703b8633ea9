/*
 * families.h — the golden families' generators (one file per family in
 * conformance/families/, each walking its case tables).  Registered in
 * registry.c; every family also has golden/schemas/<family>_v1.json.
 */
#ifndef SHC_FAMILIES_H
#define SHC_FAMILIES_H
#include "golden.h"

extern const shc_family shc_family_shard_layout;
extern const shc_family shc_family_group_ranks;
extern const shc_family shc_family_rng_offsets;
extern const shc_family shc_family_rng_policies;
extern const shc_family shc_family_redistribute_data;
extern const shc_family shc_family_redistribute_plan;
extern const shc_family shc_family_philox_kat;
extern const shc_family shc_family_curand_stream;
extern const shc_family shc_family_torch_cuda_rng;
extern const shc_family shc_family_threefry;
/* @@FAMILIES@@ — add `extern const shc_family shc_family_X;` lines above this marker */

#endif
