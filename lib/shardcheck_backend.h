/*
 * shardcheck_backend.h — the vendor plugin ABI: version 2, and version 1 as it was.
 *
 * A vendor proves its own SPMD implementation agrees with the reference by
 * building a shared library and running `shardcheck run --backend
 * plugin:./libvendor.so` (in one process, or one rank per process under
 * mpirun).  The library exports
 *
 *     uint32_t shardcheck_backend_abi(void);   returning SHC_BACKEND_ABI_V2 (or _V1)
 *
 * and, for that version, `const shc_backend_v2 *shardcheck_backend_v2(void)`
 * (or `const shc_backend_v1 *shardcheck_backend_v1(void)`).  The runner reads
 * the version first and tells the two apart by it; any other version is
 * refused with a message naming both it knows.
 *
 * ---- Version 2 (the one to write against) ----
 * Every entry point receives the whole case: family, the release judged
 * against, the test group's parameters and the test's inputs exactly as the
 * golden file states them (op, dtype, GPU profile, shard order, rank map,
 * planner, ...; never `expected`).  The case is one JSON object, the same one
 * the worker protocol sends (docs/backends/case.md):
 *
 *     {"family": F, "torch": "2.13.0", "tcId": N, "world": W,
 *      "group": {the group's members but "tests"},
 *      "test": {the test's members but its answer: "expected", "result", "byVersion"}}
 *
 * and the host table (shc_host_v2) gives a small reader over it, so a plugin
 * needs no JSON library: a key is looked up in the test, then in its group,
 * then among the case's own members.  A plugin answers with one rank's view:
 * the members the family's golden `perRank` and rank-independent fields name,
 * in the form its schema gives (golden/schemas/<family>_v1.json; 64-bit
 * values as decimal strings where the corpus writes them so), built with the
 * host's put_* calls.  That view is compared with the golden one by the same
 * rule as every other backend, and the family's SPMD invariants run over all
 * ranks' views, so every required field of every family can be answered.
 * redistribute-data is executed instead: `execute` receives the rank's local
 * input tensor and a communicator table (shc_backend_comm), the vendor's own
 * from `comm_open`, or shardcheck's (MPI under mpirun, threads in one
 * process) when it supplies none; the runner hashes and checks the output.
 *
 * Return values, every entry point: 0 on success; SHC_BACKEND_UNSUPPORTED
 * with the reason in err for a valid case (or family) it does not model,
 * reported NotSupported with that reason; any other non-zero value with a
 * message in err for a case it refuses (an "invalid" golden case must be
 * refused so).  Calls for different ranks may come on different threads of
 * one process at once (hosted ranks): entry points must be thread-safe.
 * examples/plugin_v2.c implements it on libshardcheck; docs/backends/plugin.md
 * is the contract in prose.
 *
 * ---- Version 1 (kept: v1 plugins still load) ----
 * Cases arrive as torch-printed strings and int64 arrays; a family's fields
 * beyond them (index lists, op rank lists, HSDP, per-op offsets, every
 * torch-cuda-rng op) are NotSupported with the reason.
 * What the runner checks with each entry point (tools/run/backend_plugin.c):
 *   layout -> shard-layout (not _StridedShard cases); offsets -> rng-offsets
 *     (not the per-op cases: the entry point is never told the op);
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
 * examples/plugin_ref.c implements v1 on top of libshardcheck;
 * examples/plugin_broken.c is deliberately wrong.  Tested by run_faults.sh.
 */
#ifndef SHARDCHECK_BACKEND_H
#define SHARDCHECK_BACKEND_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The versions this runner speaks.  SHC_BACKEND_ABI_VERSION is version 1's, kept
 * so that v1 plugins build unchanged. */
#define SHC_BACKEND_ABI_V1 1u
#define SHC_BACKEND_ABI_V2 2u
#define SHC_BACKEND_ABI_VERSION SHC_BACKEND_ABI_V1
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


/* ====================================================================
 * Version 2
 * ==================================================================== */

/* One case, opaque: read it through shc_host_v2.  Valid during the call only. */
typedef struct shc_case_v2 shc_case_v2;
/* One rank's answer being built: write it through shc_host_v2's put_* calls. */
typedef struct shc_answer_v2 shc_answer_v2;

/* What the runner offers a v2 plugin: a reader over the case and a writer for the
 * answer.  Strings it returns live until the call that received the case returns. */
typedef struct shc_host_v2 {
    uint32_t struct_size;        /* sizeof(shc_host_v2) as the runner was built */
    /* The whole case as compact JSON text (the worker protocol's "case"). */
    const char *(*case_json)(const shc_case_v2 *c);
    /* A member by key (the test's, else its group's, else the case's: "family",
     * "torch", "tcId", "world"), as compact JSON text; NULL when absent. */
    const char *(*json)(const shc_case_v2 *c, const char *key);
    /* ... as a string; NULL when absent or not a string. */
    const char *(*str)(const shc_case_v2 *c, const char *key);
    /* ... as an integer (a JSON integer, or a decimal string as the corpus writes
     * 64-bit values): 0, or -1 when absent or not one. */
    int (*i64)(const shc_case_v2 *c, const char *key, int64_t *v);
    /* ... as an array of integers: its length (copying min(length, cap) items into
     * v), or -1 when absent or not such an array. */
    int64_t (*i64s)(const shc_case_v2 *c, const char *key, int64_t *v, int64_t cap);
    /* The answer's members.  put_json takes any JSON text; put_ints writes an array
     * of JSON integers, put_decs an array of decimal strings (the corpus's form of
     * 64-bit offsets and counts).  Each returns 0, or -1 (bad JSON, out of memory,
     * a key given twice) and the answer is then refused with that reason. */
    int (*put_json)(shc_answer_v2 *a, const char *key, const char *json_text);
    int (*put_str)(shc_answer_v2 *a, const char *key, const char *value);
    int (*put_int)(shc_answer_v2 *a, const char *key, int64_t value);
    int (*put_dec)(shc_answer_v2 *a, const char *key, int64_t value);
    int (*put_ints)(shc_answer_v2 *a, const char *key, const int64_t *v, int64_t n);
    int (*put_decs)(shc_answer_v2 *a, const char *key, const int64_t *v, int64_t n);
} shc_host_v2;

/* A local tensor of redistribute-data: contiguous, row-major. */
typedef struct shc_tensor_v2 {
    const char *dtype;           /* "float32", "bfloat16", "int64", ... as the golden test */
    int ndim;
    int64_t shape[SHC_BACKEND_MAX_DIMS];
    void *data;                  /* execute's output: malloc'd by the plugin, freed by the runner */
} shc_tensor_v2;

/* A communicator: the collectives a redistribute runs, over a group of global ranks
 * given in DeviceMesh order (the caller is a member; its index is its group rank).
 * Buffers are contiguous bytes; counts are elements of dtype; op is a c10d reduce-op
 * name ("sum", "avg", "max", ...).  Each returns 0, or non-zero with a message in err
 * (the case then fails with it, naming the communicator).  An entry left NULL is a
 * hole: a case needing it fails naming the entry. */
typedef struct shc_backend_comm shc_backend_comm;
struct shc_backend_comm {
    uint32_t struct_size;        /* sizeof(shc_backend_comm) */
    const char *name;            /* "hccl", "acme-mpi": each case's outcome names it */
    void *ctx;                   /* the communicator's own */
    int64_t rank, world;         /* the caller's global rank, the job's size */
    /* recv = every member's `bytes` bytes, concatenated in group order. */
    int (*all_gather)(const shc_backend_comm *c, const int64_t *group, int n, const void *send,
                      size_t bytes, void *recv, char *err, size_t errlen);
    /* recv = member j's counts[j] bytes, concatenated in group order. */
    int (*all_gatherv)(const shc_backend_comm *c, const int64_t *group, int n, const void *send,
                       const size_t *counts, void *recv, char *err, size_t errlen);
    /* send holds n blocks of `bytes`; block j goes to member j; recv block j came from j. */
    int (*all_to_all)(const shc_backend_comm *c, const int64_t *group, int n, const void *send,
                      size_t bytes, void *recv, char *err, size_t errlen);
    /* send holds n blocks of `count` elements; member j gets block j reduced over members. */
    int (*reduce_scatter)(const shc_backend_comm *c, const int64_t *group, int n,
                          const void *send, size_t count, const char *dtype, const char *op,
                          void *recv, char *err, size_t errlen);
    /* buf (count elements) becomes the reduction over members, in place. */
    int (*all_reduce)(const shc_backend_comm *c, const int64_t *group, int n, void *buf,
                      size_t count, const char *dtype, const char *op, char *err, size_t errlen);
    /* buf (`bytes`) of member `root` (a group position) reaches every member. */
    int (*broadcast)(const shc_backend_comm *c, const int64_t *group, int n, int root, void *buf,
                     size_t bytes, char *err, size_t errlen);
    /* Point to point between global ranks. */
    int (*send)(const shc_backend_comm *c, int64_t peer, const void *buf, size_t bytes,
                char *err, size_t errlen);
    int (*recv)(const shc_backend_comm *c, int64_t peer, void *buf, size_t bytes, char *err,
                size_t errlen);
};

typedef struct shc_backend_v2 {
    uint32_t abi_version;        /* SHC_BACKEND_ABI_V2 */
    uint32_t struct_size;        /* sizeof(shc_backend_v2) */
    const char *name;            /* "acme-dtensor 0.3": in every report, statement and page */
    void *self;                  /* passed back to every entry point */
    /* Whether it answers family `family` at all: 0, or SHC_BACKEND_UNSUPPORTED with the
     * reason (every case of the family NotSupported with it).  NULL: it tries every family. */
    int (*supports)(void *self, const char *family, char *err, size_t errlen);
    /* One rank's view of one case (every family but redistribute-data). */
    int (*answer)(void *self, const shc_host_v2 *host, const shc_case_v2 *c, int64_t rank,
                  shc_answer_v2 *out, char *err, size_t errlen);
    /* redistribute-data: rank `rank` redistributes its local tensor `in` from the case's
     * "src" to its "dst" placements over comm, storing its local result in *out. */
    int (*execute)(void *self, const shc_host_v2 *host, const shc_case_v2 *c, int64_t rank,
                   const shc_backend_comm *comm, const shc_tensor_v2 *in, shc_tensor_v2 *out,
                   char *err, size_t errlen);
    /* Optional: the vendor's own communicator for this process, global rank `rank` of
     * `world` processes (under mpirun: after MPI_Init; called once per process, before
     * its first case).  NULL, or returning NULL: shardcheck's communicator is used. */
    const shc_backend_comm *(*comm_open)(void *self, int64_t rank, int64_t world, char *err,
                                         size_t errlen);
    void (*comm_close)(void *self, const shc_backend_comm *comm);
} shc_backend_v2;

typedef const shc_backend_v2 *(*shc_backend_entry_v2_fn)(void);
#define SHC_BACKEND_ENTRY_V2_SYMBOL "shardcheck_backend_v2"

#ifdef __cplusplus
}
#endif
#endif
