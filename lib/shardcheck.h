/*
 * shardcheck.h — the public API of libshardcheck.
 *
 * libshardcheck is an exact C11 reference of the SPMD semantics that
 * distributed-tensor frameworks must agree on (PyTorch DTensor 2.13 is the
 * pinned reference).  Every function that can fail returns 0 on success or a
 * SHC_E* code, and fills a caller-supplied shc_err with a message that names
 * what was wrong and where.  There is no global mutable state.  All shape and
 * offset arithmetic is overflow-checked (see checked_math.h).
 *
 * The header is split into one section per concept; each concept lives in a
 * .c/.h pair in lib/ named after it.
 */
#ifndef SHARDCHECK_H
#define SHARDCHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================
 * Errors (errors.c)
 * ==================================================================== */

/* Return codes; the CLI maps them to exit codes (DESIGN.md: 2 = bad input). */
enum {
    SHC_OK = 0,
    SHC_EINVAL = 2,      /* unparsable or out-of-range input */
    SHC_EOVERFLOW = 3,   /* arithmetic would overflow int64 */
    SHC_ENOMEM = 4,      /* allocation failed */
    SHC_EIO = 5,         /* file could not be read or written */
    SHC_EFORMAT = 6,     /* a golden or candidate file is malformed or tampered */
    SHC_EUNSUPPORTED = 7,/* valid input the reference does not model (NotSupported) */
    SHC_EINTERNAL = 99   /* a bug in shardcheck */
};

#define SHC_ERR_MAX 512

/* An error: code plus a human-readable message naming what and where. */
typedef struct shc_err {
    int code;
    char msg[SHC_ERR_MAX];
} shc_err;

/* Set *e (if non-NULL) to code and a printf-formatted message; returns code. */
int shc_fail(shc_err *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Prefix the message in *e with a printf-formatted context; returns e->code. */
int shc_err_prefix(shc_err *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Reset *e to "no error". */
void shc_err_clear(shc_err *e);
/* A short name for a return code ("invalid input", "overflow", ...). */
const char *shc_strerror(int code);

/* ======================================================================
 * Device mesh (mesh.c)
 * ==================================================================== */

#define SHC_MAX_MESH_DIMS 8    /* DeviceMesh dims supported */
#define SHC_MAX_TENSOR_DIMS 8  /* tensor dims supported */
#define SHC_MAX_WORLD (1 << 24) /* largest mesh (ranks) we accept */

/* A device mesh: shape plus a row-major map from mesh position to global rank. */
typedef struct shc_mesh {
    int ndim;
    int64_t shape[SHC_MAX_MESH_DIMS];
    int64_t size;      /* product of shape */
    int64_t *ranks;    /* size entries: ranks[linear position] = global rank */
    int64_t *pos_of;   /* inverse map: pos_of[rank] = linear position, -1 if absent */
    int64_t max_rank;  /* largest rank in the map (pos_of has max_rank+1 entries) */
} shc_mesh;

/* Build a mesh from a shape; ranks may be NULL for arange(size). Copies ranks. */
int shc_mesh_init(shc_mesh *m, int ndim, const int64_t *shape,
                  const int64_t *ranks, shc_err *e);
/* Parse a mesh "2x2x2" and an optional rank map "3,1,2,0" (NULL/"" = arange). */
int shc_mesh_parse(shc_mesh *m, const char *shape, const char *ranks, shc_err *e);
/* Free the mesh's arrays (safe on a zeroed mesh). */
void shc_mesh_free(shc_mesh *m);
/* Coordinate of a global rank; SHC_EINVAL "rank R is not in the mesh" if absent. */
int shc_mesh_coord(const shc_mesh *m, int64_t rank, int64_t *coord, shc_err *e);
/* Global rank at a coordinate (coordinate must be in range). */
int64_t shc_mesh_rank_at(const shc_mesh *m, const int64_t *coord);
/* Format the mesh shape as "2x2x2" into buf. */
void shc_mesh_format(const shc_mesh *m, char *buf, size_t n);

/* ======================================================================
 * Placements (placement.c)
 * ==================================================================== */

typedef enum { SHC_P_REPLICATE, SHC_P_SHARD, SHC_P_PARTIAL, SHC_P_STRIDED } shc_pkind;

typedef enum {
    SHC_OP_SUM, SHC_OP_AVG, SHC_OP_MIN, SHC_OP_MAX,
    SHC_OP_PRODUCT, SHC_OP_BAND, SHC_OP_BOR, SHC_OP_BXOR,
    SHC_OP_COUNT
} shc_redop;

/* One placement as torch 2.13 prints it: S(d), R, P(op), _S(d, sf). */
typedef struct shc_placement {
    shc_pkind kind;
    int dim;            /* Shard / _StridedShard tensor dim */
    int64_t split_factor; /* _StridedShard only */
    shc_redop op;       /* Partial only */
} shc_placement;

/* Placements for every mesh dim, with an optional explicit shard order:
 * order[i] is the position of mesh dim i among the mesh dims that shard the
 * same tensor dim (the [i] of the trace-state form S(0)[1]S(0)[0]R).
 * has_order == false means the default (left-to-right) order. */
typedef struct shc_placements {
    int n;
    shc_placement p[SHC_MAX_MESH_DIMS];
    bool has_order;
    int order[SHC_MAX_MESH_DIMS];
} shc_placements;

/* Parse "S(0),R,P(sum),_S(0, 2)" or the trace form "S(0)[1]S(0)[0]R". */
int shc_placements_parse(shc_placements *out, const char *s, shc_err *e);
/* Format placements comma-separated as torch prints them ("S(0),R"). */
void shc_placements_format(const shc_placements *pl, char *buf, size_t n);
/* Format in the trace-state form with explicit shard order ("S(0)[0]S(0)[1]R"). */
void shc_placements_format_trace(const shc_placements *pl, char *buf, size_t n);
/* Format one placement ("S(0)", "_S(0, 2)", "P(sum)", "R"). */
void shc_placement_format(const shc_placement *p, char *buf, size_t n);
/* Check placements against a mesh and a tensor rank (count, dims in range, order). */
int shc_placements_check(const shc_placements *pl, const shc_mesh *m, int tensor_ndim,
                         shc_err *e);
/* Name of a reduce op as torch spells it ("sum", "avg", ...). */
const char *shc_redop_name(shc_redop op);
/* Whether two placements are equal (kind, dim, split factor, op). */
bool shc_placement_eq(const shc_placement *a, const shc_placement *b);

/* ======================================================================
 * Shapes (shape.c)
 * ==================================================================== */

/* A tensor shape. */
typedef struct shc_shape {
    int ndim;
    int64_t d[SHC_MAX_TENSOR_DIMS];
} shc_shape;

/* Parse "8,16" (empty string = 0-d tensor); rejects negatives and overflow. */
int shc_shape_parse(shc_shape *out, const char *s, shc_err *e);
/* Number of elements, overflow-checked. */
int shc_shape_numel(const shc_shape *s, int64_t *numel, shc_err *e);
/* Format as "8,16". */
void shc_shape_format(const shc_shape *s, char *buf, size_t n);

/* ======================================================================
 * Shard layout (shard_layout.c) — torch 2.13 _utils.compute_local_shape_and_global_offset
 * ==================================================================== */

/* torch's Shard.local_shard_size_and_offset (torch.chunk rule). */
int shc_shard_size_offset(int64_t size, int64_t nchunks, int64_t idx,
                          int64_t *local_size, int64_t *offset, shc_err *e);

/* Per-rank layout: local shape, global offset, and for dims touched by
 * _StridedShard the explicit global index list of that dim. */
typedef struct shc_layout {
    shc_shape local;
    int64_t offset[SHC_MAX_TENSOR_DIMS];
    int64_t *index[SHC_MAX_TENSOR_DIMS]; /* NULL unless the dim is index-listed */
    int64_t index_len[SHC_MAX_TENSOR_DIMS];
} shc_layout;

/* Layout of the rank at mesh coordinate coord. */
int shc_layout_compute(const shc_mesh *m, const shc_placements *pl, const shc_shape *global,
                       const int64_t *coord, shc_layout *out, shc_err *e);
/* Free index lists in a layout. */
void shc_layout_free(shc_layout *l);

/* ======================================================================
 * Process groups (groups.c) — DeviceMesh groups and seed 002 (HSDP)
 * ==================================================================== */

/* A list of rank lists (groups), flat storage. */
typedef struct shc_groups {
    int64_t ngroups;
    int64_t group_size;
    int64_t *ranks; /* ngroups * group_size */
} shc_groups;

/* Groups along a set of mesh dims (axes, in the given order, flattened
 * row-major), each in DeviceMesh order; naxes==0 gives one singleton per rank. */
int shc_groups_for_axes(const shc_mesh *m, const int *axes, int naxes, shc_groups *out,
                        shc_err *e);
/* The group containing rank among groups g; returns its index or -1. */
int64_t shc_groups_find(const shc_groups *g, int64_t rank);
/* Free a groups list. */
void shc_groups_free(shc_groups *g);

/* ======================================================================
 * Random engines (philox.c, curand_stream.c, torch_cuda_rng.c, threefry.c)
 * ==================================================================== */
/* @@SECTION rng-engines@@ */

/* ======================================================================
 * RNG offsets and policies (rng_offsets.c, rng_policy.c)
 * ==================================================================== */
/* @@SECTION rng-offsets@@ */

/* ======================================================================
 * Redistribute planning (plan*.c, cost_model.c, trace.c)
 * ==================================================================== */
/* @@SECTION planners@@ */

/* ======================================================================
 * Redistribute execution and communicators (comm*.c, redistribute_exec.c)
 * ==================================================================== */
/* @@SECTION execution@@ */

/* Library version string ("0.1.0"). */
const char *shc_version(void);

#ifdef __cplusplus
}
#endif

#endif /* SHARDCHECK_H */
