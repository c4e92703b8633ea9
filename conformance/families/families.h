/*
 * families.h — the golden families' generators (one file per family in
 * conformance/families/, each walking its case tables).  Registered in
 * registry.c; every family also has golden/schemas/<family>_v1.json.
 */
#ifndef SHC_FAMILIES_H
#define SHC_FAMILIES_H
#include "golden.h"

/* LargeMesh, stated once for every family: a mesh larger than the largest
 * world the test job launches (mpirun -np 8), so the mpi backend reports its
 * cases NotSupported there. */
#define SHC_LARGE_MESH_RANKS 8
#define SHC_LARGE_MESH_NOTE "More than 8 ranks: larger than the biggest world the test job " \
    "launches (mpirun -np 8)."

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
