/*
 * shardcheck_backend.h — the vendor plugin ABI, version 1.
 *
 * A vendor proves its own SPMD implementation agrees with the reference by
 * building a shared library that exports one function,
 *
 *     const shc_backend_v1 *shardcheck_backend_v1(void);
 *
 * plus `uint32_t shardcheck_backend_abi(void)` returning
 * SHC_BACKEND_ABI_VERSION, and running `shardcheck run --backend
 * plugin:./libvendor.so`.  The runner dlopens the library (lib/
 * backend_plugin.c), refuses a missing symbol or another ABI version with a
 * clear message, and feeds every golden case the plugin can answer through
 * the entry points below; the answers are compared with the golden views
 * and the SPMD invariants, and a difference is reported with the case, the
 * rank and the field or bytes that differ.  An entry point left NULL makes
 * the families that need it NotSupported.
 *
 * Plain C, no shardcheck types: cases arrive as torch-printed strings and
 * int64 arrays, so a plugin in any language with a C ABI can implement it.
 * Every function returns 0 on success, SHC_BACKEND_UNSUPPORTED for a valid
 * case it does not model, or another non-zero value with a message in err
 * (an "invalid" golden case must be refused that way).
 *
 * What the runner checks with each entry point (tools/run/backend_plugin.c):
 *   layout -> shard-layout (not _StridedShard cases); offsets -> rng-offsets;
 *   execute -> redistribute-data;
 *   group -> group-ranks "device_mesh" tests: "groups", "group", "localRank"
 *     and "groupRank" are derived from every rank's answer (seed-002 rank
 *     lists and HSDP tests are NotSupported);
 *   plan -> redistribute-plan with the planner's defaults (auto, 8 devices
 *     per host, no flattened mesh, _StridedShard as a shard order, no explicit
 *     source order; other groups NotSupported): each rank's step kinds must
 *     equal its golden plan's;
 *   random_fill -> torch-cuda-rng uniform float32 [0, 1) tests (torch.rand)
 *     small enough that no GPU caps the launch grid (numel <= SMs x threads
 *     per SM, so element i is thread i's first draw on every GPU): "bits" or
 *     "sha256" of the values; offset is torch's Philox offset (a multiple of
 *     4 — refuse others), new_offset is not part of the ABI.
 * examples/plugin_ref.c implements it on top of libshardcheck;
 * examples/plugin_broken.c is deliberately wrong.  Tested by run_faults.sh.
 */
#ifndef SHARDCHECK_BACKEND_H
#define SHARDCHECK_BACKEND_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SHC_BACKEND_ABI_VERSION 1u
#define SHC_BACKEND_UNSUPPORTED 77
#define SHC_BACKEND_MAX_DIMS 8

/* One case as the golden file states it. */
typedef struct shc_backend_case {
    int mesh_ndim;
    const int64_t *mesh_shape;   /* mesh_ndim sizes */
    const int64_t *rank_map;     /* row-major mesh position -> global rank; NULL = arange */
    const char *placements;      /* layout/offsets: "S(0),R" or trace form "S(0)[1]S(0)[0]" */
    const char *src, *dst;       /* redistribute: source and target placements */
    int ndim;
    const int64_t *shape;        /* global shape (ndim sizes) */
    const char *dtype;           /* redistribute: "float32", "bfloat16", ... */
} shc_backend_case;

/* What a rank's RNG tracker does for one random op (torch OffsetBasedRNGTracker). */
typedef struct shc_backend_offsets {
    int64_t shard_linear_index;
    int64_t start_incr;   /* Philox offset increment where this rank's shard starts */
    int64_t end_incr;     /* increment every rank's generator advances by afterwards */
    int64_t local_numel;  /* elements this rank draws (its window length) */
} shc_backend_offsets;

typedef struct shc_backend_v1 {
    uint32_t abi_version;        /* SHC_BACKEND_ABI_VERSION */
    uint32_t struct_size;        /* sizeof(shc_backend_v1) */
    const char *name;            /* shown in reports */
    /* shard-layout: local shape and global offset of `rank` (no _StridedShard index lists). */
    int (*layout)(const shc_backend_case *c, int64_t rank, int64_t *local_shape,
                  int64_t *global_offset, char *err, size_t errlen);
    /* group-ranks: the ranks of `rank`'s group along mesh dims axes[0..naxes), mesh order. */
    int (*group)(const shc_backend_case *c, const int *axes, int naxes, int64_t rank,
                 int64_t *ranks, int64_t cap, int64_t *n, char *err, size_t errlen);
    /* rng-offsets: the tracker's offsets for `rank`. */
    int (*offsets)(const shc_backend_case *c, int64_t rank, shc_backend_offsets *out, char *err,
                   size_t errlen);
    /* redistribute-plan: number of steps and their communication kinds (names as
     * shardcheck prints them: "all_gather", ...) for `rank`. */
    int (*plan)(const shc_backend_case *c, int64_t rank, int *nsteps, const char **kinds,
                int cap, char *err, size_t errlen);
    /* Philox4x32-10 uniform floats: n values from (seed, offset) as torch's CUDA kernels draw. */
    int (*random_fill)(uint64_t seed, int64_t offset, int64_t n, float *out, char *err,
                       size_t errlen);
    /* redistribute-data: every rank at once.  in[r] is rank r's local source tensor
     * (contiguous, dtype c->dtype, shape in_shapes[r]); the plugin stores a malloc'd
     * result in out[r] and its shape in out_shapes[r] (the runner frees out[r]). */
    int (*execute)(const shc_backend_case *c, int64_t world, const void *const *in,
                   const int64_t (*in_shapes)[SHC_BACKEND_MAX_DIMS], void **out,
                   int64_t (*out_shapes)[SHC_BACKEND_MAX_DIMS], char *err, size_t errlen);
} shc_backend_v1;

/* The two symbols a plugin exports. */
typedef uint32_t (*shc_backend_abi_fn)(void);
typedef const shc_backend_v1 *(*shc_backend_entry_fn)(void);
#define SHC_BACKEND_ABI_SYMBOL "shardcheck_backend_abi"
#define SHC_BACKEND_ENTRY_SYMBOL "shardcheck_backend_v1"

#ifdef __cplusplus
}
#endif
#endif
