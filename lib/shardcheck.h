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

/* Return codes; the CLI maps them to exit codes (docs/DESIGN.md: 2 = bad input). */
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

/* sha256 of n bytes as 64 lowercase hex chars + NUL (sha256.c, libcrypto). */
void shc_sha256_hex(const void *data, size_t n, char out[65]);

/* torch releases (torch_release.c): see shardcheck_release.h, included at the end of this
 * header (the other headers use its types). */

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
    int64_t max_rank;  /* the world's last rank: pos_of has max_rank+1 entries; size-1
                        * unless the mesh lives in a larger world (shc_mesh_init_world) */
} shc_mesh;

/* Build a mesh from a shape; ranks may be NULL for arange(size). Copies ranks. */
int shc_mesh_init(shc_mesh *m, int ndim, const int64_t *shape,
                  const int64_t *ranks, shc_err *e);
/* Parse a mesh "2x2x2" and an optional rank map "3,1,2,0" (NULL/"" = arange). */
int shc_mesh_parse(shc_mesh *m, const char *shape, const char *ranks, shc_err *e);
/* The same for a mesh in a world of `world` ranks (0: the mesh's size): the map's ranks are
 * distinct ranks of the world, the others torch's non-participating ranks, with no
 * coordinate (device_mesh.py 2.13 _is_current_rank_part_of_mesh).  A world smaller than
 * the mesh and a rank outside it are refused with torch's error. */
int shc_mesh_init_world(shc_mesh *m, int ndim, const int64_t *shape, const int64_t *ranks,
                        int64_t world, shc_err *e);
int shc_mesh_parse_world(shc_mesh *m, const char *shape, const char *ranks, int64_t world,
                         shc_err *e);
/* Whether a global rank is in the mesh (false for any rank outside it, negative included). */
bool shc_mesh_has_rank(const shc_mesh *m, int64_t rank);
/* SHC_OK when a global rank is in the mesh's world (0..max_rank, on the mesh or off it), else
 * SHC_EINVAL "rank R is not in the world (ranks 0..N)". */
int shc_mesh_check_world_rank(const shc_mesh *m, int64_t rank, shc_err *e);
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

/* torch's Partial takes any reduce-op string (placement_types.py Partial, 2.13); the eight
 * c10d names spelt exactly so are an shc_redop, any other string is SHC_OP_OTHER with the
 * string in shc_placement.op_name. */
typedef enum {
    SHC_OP_OTHER = -1,
    SHC_OP_SUM, SHC_OP_AVG, SHC_OP_MIN, SHC_OP_MAX,
    SHC_OP_PRODUCT, SHC_OP_BAND, SHC_OP_BOR, SHC_OP_BXOR,
    SHC_OP_COUNT
} shc_redop;

/* The longest reduce-op string shardcheck holds, with its NUL (torch has no limit). */
#define SHC_MAX_REDOP_NAME 32

/* One placement as torch 2.13 prints it: S(d), R, P(op), _S(d, sf). */
typedef struct shc_placement {
    shc_pkind kind;
    int dim;            /* Shard / _StridedShard tensor dim; < 0 until normalised */
    int64_t split_factor; /* _StridedShard only */
    shc_redop op;       /* Partial only */
    char op_name[SHC_MAX_REDOP_NAME]; /* op == SHC_OP_OTHER: torch's reduce_op string */
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
/* Placements as Python prints the tuple: "(Partial(sum), Shard(dim=1))", "(Replicate(),)". */
void shc_placements_repr(const shc_placements *pl, char *buf, size_t n);
/* Check placements against a mesh and a tensor rank (count, dims in range, order); a
 * negative (not normalised) shard dim is refused: shc_placements_normalize first. */
int shc_placements_check(const shc_placements *pl, const shc_mesh *m, int tensor_ndim,
                         shc_err *e);
/* Negative shard dims d made d + tensor_ndim, as torch's user-facing APIs do (distribute_tensor,
 * DTensor.from_local, DTensor.redistribute); SHC_EINVAL naming torch's refusal where a dim is
 * out of range after that. */
int shc_placements_normalize(shc_placements *pl, int tensor_ndim, shc_err *e);
/* Name of a reduce op as torch spells it ("sum", "avg", ...). */
const char *shc_redop_name(shc_redop op);
/* A Partial's reduce_op string as torch holds and prints it ("sum", "prod", "Sum"). */
const char *shc_placement_op_name(const shc_placement *p);
/* The c10d op a Partial's all_reduce / reduce_scatter runs: funcol lowercases the string and
 * c10d knows the eight names; SHC_OP_OTHER where torch raises "Unrecognized reduce_op". */
shc_redop shc_placement_reduce_op(const shc_placement *p);
/* SHC_OK, or SHC_EINVAL with torch's RuntimeError where the Partial cannot be reduced. */
int shc_placement_check_reduce(const shc_placement *p, shc_err *e);
/* SHC_OK, or SHC_EINVAL with the error torch raises running one redistribute step from src to
 * dst for its reduce op: P(x) -> R, S or _S reduces (shc_placement_check_reduce); R -> P(y)
 * partitions, which only "sum", "avg", "min" and "max" can.  Other refusals are the planner's. */
int shc_placement_check_step(const shc_placement *src, const shc_placement *dst, shc_err *e);
/* Whether two placements are equal (kind, dim, split factor, op string). */
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

/* ---------------------------------------------------------------------------
 * Placement semantics (layout/placement_sem.c): torch 2.13's answers about placements
 * apart from data: the is_shard predicates (placement_types.py), shardability
 * (_ops/utils.py), global shape and stride from local tensors (_utils.py).  Equality is
 * shc_placement_eq; shard orders are plan/plan_core.c's.
 * ------------------------------------------------------------------------- */
/* Placement.is_shard(): true only for a Shard (a _StridedShard is no Shard in 2.13). */
bool shc_pl_is_shard(const shc_placement *p);
/* _is_shard_like: a Shard or a _StridedShard. */
bool shc_pl_is_shard_like(const shc_placement *p);

/* is_tensor_shardable (even == false) or is_tensor_evenly_shardable (even == true) of shape
 * under pl on mesh m: *out.  pl's dims must be normalised (>= 0); a dim past the shape is
 * torch's False.  SHC_EINVAL when pl has not one placement per mesh dim. */
int shc_tensor_shardable(const shc_mesh *m, const shc_placements *pl, const shc_shape *shape,
                         bool even, bool *out, shc_err *e);

/* compute_global_tensor_info: the global shape and stride of a DTensor whose every rank
 * holds a local tensor of shape local and stride lstride (even shards).  Refuses what
 * torch refuses, by torch's message (a negative or too large shard dim), and overflow. */
int shc_global_tensor_info(const shc_mesh *m, const shc_placements *pl, const shc_shape *local,
                           const int64_t *lstride, shc_shape *gshape, int64_t *gstride,
                           shc_err *e);

/* compute_global_tensor_shape: the global shape from every rank's local shape (locals[r],
 * n of them, one per rank of the 1-d mesh m), uneven shards summed.  torch's refusals:
 * more than one placement (NotImplementedError), a _StridedShard or Partial
 * (NotImplementedError), other dims differing (RuntimeError). */
int shc_global_tensor_shape(const shc_mesh *m, const shc_placements *pl, const shc_shape *locals,
                            int n, shc_shape *out, shc_err *e);
/* _maybe_convert_StridedShard_to_shard_order: pl's _StridedShard decoded into a shard
 * order, out the placements with each _S written as S and the order in has_order/order[]
 * (the trace form); *ok false where no order produces the split factors (torch: None). */
int shc_placements_decode_order(const shc_mesh *m, const shc_placements *pl,
                                shc_placements *out, bool *ok, shc_err *e);
/* _convert_shard_order_to_StridedShard: the shard order of pl (its trace form's [i], else
 * left to right) as _StridedShard placements; torch's ValueError for a non-Shard in it. */
int shc_placements_encode_order(const shc_mesh *m, const shc_placements *pl,
                                shc_placements *out, shc_err *e);

/* Per-rank layout: local shape, global offset, and for dims touched by
 * _StridedShard the explicit global index list of that dim. */
typedef struct shc_layout {
    shc_shape local;
    int64_t offset[SHC_MAX_TENSOR_DIMS];
    int64_t *index[SHC_MAX_TENSOR_DIMS]; /* NULL unless the dim is index-listed */
    int64_t index_len[SHC_MAX_TENSOR_DIMS];
} shc_layout;

/* Layout of the rank at mesh coordinate coord (left to right, or by shard order). */
int shc_layout_compute(const shc_mesh *m, const shc_placements *pl, const shc_shape *global,
                       const int64_t *coord, shc_layout *out, shc_err *e);
/* Layout of a global rank; SHC_EINVAL if the rank is not in the mesh. */
int shc_layout_of_rank(const shc_mesh *m, const shc_placements *pl, const shc_shape *global,
                       int64_t rank, shc_layout *out, shc_err *e);
/* Layout of any rank of the mesh's world (shc_mesh_init_world): a rank in the mesh as
 * shc_layout_of_rank, *in_mesh true; a non-participating rank holds torch's empty 1-d
 * tensor, local shape [0] and no global offset (*in_mesh false: offset[] is not one);
 * SHC_EINVAL for a rank outside the world. */
int shc_layout_of_world_rank(const shc_mesh *m, const shc_placements *pl,
                             const shc_shape *global, int64_t rank, shc_layout *out,
                             bool *in_mesh, shc_err *e);
/* Free index lists in a layout. */
void shc_layout_free(shc_layout *l);

/* torch's layout algebra of DeviceMesh dims (_FlatLayout, mesh_layout.c): see
 * shardcheck_mesh_layout.h, included at the end of this header. */

/* ======================================================================
 * Process groups (groups.c) — DeviceMesh groups and seed 002 (HSDP)
 * ==================================================================== */

/* A list of rank lists (groups), flat storage. */
typedef struct shc_groups {
    int64_t ngroups;
    int64_t group_size;
    int64_t *ranks; /* ngroups * group_size */
} shc_groups;

/* DeviceMesh groups over mesh dims axes (ascending, distinct, as torch's slicing
 * requires), flattened row-major; groups enumerated row-major over the other
 * dims; naxes==0 gives one singleton per rank. */
int shc_groups_for_axes(const shc_mesh *m, const int *axes, int naxes, shc_groups *out,
                        shc_err *e);
/* The group containing rank among groups g (linear scan); returns its index or -1. */
int64_t shc_groups_find(const shc_groups *g, int64_t rank);
/* O(1): index of rank's group and its position in it for groups_for_axes(axes). */
int shc_groups_locate(const shc_mesh *m, const int *axes, int naxes, int64_t rank,
                      int64_t *group, int64_t *member, shc_err *e);
/* Communicator rank: position of rank in the sorted group (c10d new_group sorts). */
int64_t shc_group_sorted_index(const int64_t *group, int64_t n, int64_t rank);
/* Free a groups list. */
void shc_groups_free(shc_groups *g);

/* ---- seed 002 (hyper_parallel hsdp_utils / hsdp_param.py): rank lists for
 * mesh axes and HSDP groups ---- */

/* Normalise seed-002 axes: sorted, duplicates dropped (its sorted(set(axes)));
 * out-of-range axes are an error here (the seed ignores them silently). */
int shc_axes_normalize(const shc_mesh *m, const int *axes, int naxes, int *out, int *nout,
                       shc_err *e);
/* Seed 002 get_rank_list_for_axes(mesh, axes, rank): the ranks varying along
 * axes with the other coordinates of rank fixed, in mesh order; [rank] when
 * axes is empty.  *out is malloc'd (n entries). */
int shc_rank_list_for_axes(const shc_mesh *m, const int *axes, int naxes, int64_t rank,
                           int64_t **out, int64_t *n, shc_err *e);
/* Seed 002 get_split_rank_lists_for_axes(mesh, axes): every such list, the
 * complementary coordinates enumerated row-major; ONE list of every rank in
 * mesh order when axes is empty (unlike the rank list's [rank]). */
int shc_split_rank_lists_for_axes(const shc_mesh *m, const int *axes, int naxes,
                                  shc_groups *out, shc_err *e);

/* Seed 002 HSDP groups of one rank. */
typedef struct shc_hsdp {
    bool sharded_valid;     /* false: "fully_shard_sharded_group_invalid", size 1 */
    int64_t shard_size;     /* sharded group size (1 when invalid) */
    int64_t *sharded;       /* sorted ranks along the shard mesh dim (communicator order) */
    bool unsharded_valid;   /* false: "fully_shard_unsharded_group_invalid", size 1 */
    int64_t dp_size;        /* unsharded group size (1 when invalid) */
    int64_t *unsharded;     /* sorted ranks over the Replicate axes minus the shard dim */
    int64_t rank_size;      /* max(1, shard_size * dp_size) */
} shc_hsdp;

/* HSDP groups of rank for a final SPMD layout pl on m; shard_dim is the FSDP
 * shard mesh dim, or -1 when the parameter is not sharded. */
int shc_hsdp_groups(const shc_mesh *m, const shc_placements *pl, int shard_dim, int64_t rank,
                    shc_hsdp *out, shc_err *e);
/* Free the lists in an shc_hsdp. */
void shc_hsdp_free(shc_hsdp *h);

/* ======================================================================
 * Element types (dtype.c) — shared by the RNG kernels, planners' cost model
 * and redistribute execution
 * ==================================================================== */

/* torch dtypes. */
typedef enum {
    SHC_DT_FLOAT32, SHC_DT_FLOAT64, SHC_DT_FLOAT16, SHC_DT_BFLOAT16,
    SHC_DT_INT64, SHC_DT_INT32, SHC_DT_INT16, SHC_DT_INT8, SHC_DT_UINT8, SHC_DT_BOOL,
    SHC_DT_COUNT
} shc_dtype;
/* Parse "float32", "float16", "bfloat16", "int64", ... (torch spellings, also "half", "double", "float", "long", "int"). */
int shc_dtype_parse(const char *s, shc_dtype *out, shc_err *e);
/* torch's name of a dtype ("float32"). */
const char *shc_dtype_name(shc_dtype t);
/* Bytes per element. */
size_t shc_dtype_size(shc_dtype t);
/* Whether the dtype is an integer (or bool) type: bitwise reductions allowed. */
bool shc_dtype_is_int(shc_dtype t);
/* Element size in bytes of any torch dtype name, including those with no
 * element kernels here (float8_*, complex*): the cost model prices them. */
int shc_dtype_bytes(const char *name, int *bytes, shc_err *e);
/* What kind of number a torch dtype holds: what collectives accept of it. */
typedef enum {
    SHC_DTC_FLOAT,   /* float32/64, float16, bfloat16 */
    SHC_DTC_INT,     /* int8..int64, uint8 and bool: bitwise reductions allowed */
    SHC_DTC_COMPLEX, /* complex64/128 */
    SHC_DTC_FLOAT8   /* float8_e4m3fn, float8_e5m2 */
} shc_dtype_class;
/* The class of any torch dtype name shc_dtype_bytes knows, and (scalar not NULL) c10's
 * ScalarType name for it ("Int" for int32), as torch's messages print it. */
int shc_dtype_kind_of(const char *name, shc_dtype_class *cls, const char **scalar, shc_err *e);

/* ======================================================================
 * Random engines (philox.c, curand_stream.c, torch_cuda_rng.c, threefry.c)
 * ==================================================================== */
/* @@SECTION rng-engines@@ */

/* ---- Philox4x32 (philox.c, philox_simd.c) ---- */

/* Which implementation computes Philox blocks (AUTO = best this CPU runs). */
typedef enum { SHC_PHILOX_AUTO = 0, SHC_PHILOX_SCALAR, SHC_PHILOX_AVX2, SHC_PHILOX_AVX512 } shc_philox_path;
/* How the counter advances from block to block in a fill. */
typedef enum {
    SHC_PHILOX_STEP_COUNTER = 0, /* 128-bit counter + 1 (word 0 lowest), a single stream */
    SHC_PHILOX_STEP_SUBSEQ = 1   /* words 2..3 as a 64-bit number + 1 (wraps), one block per subsequence */
} shc_philox_step;

/* One Philox4x32 block with `rounds` rounds (10 = Philox4x32-10, 7 = Philox4x32-7). */
void shc_philox4x32(const uint32_t ctr[4], const uint32_t key[2], int rounds, uint32_t out[4]);
/* Whether a path is compiled in and runs on this CPU (AUTO and SCALAR always do). */
bool shc_philox_path_available(shc_philox_path path);
/* The path AUTO resolves to on this CPU. */
shc_philox_path shc_philox_best_path(void);
/* Name of a path ("scalar", "avx2", "avx512", "auto"). */
const char *shc_philox_path_name(shc_philox_path path);
/* n blocks from counter ctr0 advancing by step; out = 4n words, AoS (block j at
 * out[4j..4j+3]) or, if soa, row w of n words at out[w*n..]. Same bits on every path. */
int shc_philox_fill(shc_philox_path path, const uint32_t key[2], const uint32_t ctr0[4],
                    shc_philox_step step, int rounds, int64_t n, uint32_t *out, bool soa,
                    shc_err *e);

/* ---- cuRAND device-API Philox4_32_10 stream, CUDA 13.0 (curand_stream.c) ---- */

/* curandStatePhilox4_32_10_t, field for field. */
typedef struct shc_curand_philox {
    uint32_t ctr[4];
    uint32_t output[4];
    uint32_t key[2];
    uint32_t state;          /* STATE: index in output of the next word */
    int boxmuller_flag;
    int boxmuller_flag_double;
    float boxmuller_extra;
    double boxmuller_extra_double;
} shc_curand_philox;

/* curand_init(seed, subsequence, offset, &state). */
void shc_curand_init(uint64_t seed, uint64_t subsequence, uint64_t offset, shc_curand_philox *s);
/* skipahead(n, &state): skip n 32-bit outputs. */
void shc_curand_skipahead(uint64_t n, shc_curand_philox *s);
/* skipahead_sequence(n, &state): skip n subsequences of 2^66 outputs. */
void shc_curand_skipahead_sequence(uint64_t n, shc_curand_philox *s);
/* curand(&state). */
uint32_t shc_curand(shc_curand_philox *s);
/* curand4(&state). */
void shc_curand4(shc_curand_philox *s, uint32_t out[4]);
/* curand_uniform(&state). */
float shc_curand_uniform(shc_curand_philox *s);
/* curand_uniform4(&state). */
void shc_curand_uniform4(shc_curand_philox *s, float out[4]);
/* curand_uniform_double(&state) (one 32-bit word). */
double shc_curand_uniform_double(shc_curand_philox *s);
/* curand_uniform2_double(&state) (53-bit values from word pairs). */
void shc_curand_uniform2_double(shc_curand_philox *s, double out[2]);
/* curand_normal(&state) with the Box-Muller cache; accurate sin/cos/log (GPU: __sincosf). */
float shc_curand_normal(shc_curand_philox *s);
/* curand_normal2(&state). */
void shc_curand_normal2(shc_curand_philox *s, float out[2]);
/* curand_normal4(&state). */
void shc_curand_normal4(shc_curand_philox *s, float out[4]);
/* curand_normal_double(&state) with its cache; accurate sinpi (GPU: sincospi). */
double shc_curand_normal_double(shc_curand_philox *s);
/* curand_normal2_double(&state). */
void shc_curand_normal2_double(shc_curand_philox *s, double out[2]);

/* ---- PyTorch 2.13 CUDA random kernels (torch_cuda_rng.c, gpu_profiles.c) ---- */

/* Which torch-cuda-rng golden cases a preset gets (the one GPU table decides). */
enum { SHC_GPU_CORPUS_NONE, SHC_GPU_CORPUS_COMMON, SHC_GPU_CORPUS_ALL };

/* What a generator offset addresses (issue 33's offset-semantics axis). */
enum {
    SHC_OFFSETS_WINDOW = 0, /* CUDA: offset o indexes words o, o+1, ... of one Philox stream */
    SHC_OFFSETS_STREAM = 1  /* Ascend NPU (torch_npu's registered tracker): each offset value
                             * selects an independent Philox stream */
};
/* A device as the RNG sees it: the launch geometry (cudaDeviceProp fields torch reads), what
 * an offset addresses and the alignment the tracker rounds offsets to. */
typedef struct shc_gpu_profile {
    const char *name;        /* "a100", "h100-sxm", "ascend-910b", ... or "custom" */
    int sm_count;            /* multiProcessorCount */
    int max_threads_per_sm;  /* maxThreadsPerMultiProcessor */
    int cc;                  /* compute capability x10 (90 = sm_90); 0 if unknown */
    int corpus;              /* SHC_GPU_CORPUS_*: cases of torch-cuda-rng it gets */
    int offset_semantics;    /* SHC_OFFSETS_*; 0 (a row that does not say) is CUDA's window */
    int offset_align;        /* offsets are multiples of it; 0 (not said) is CUDA's 4 */
} shc_gpu_profile;
/* Name of an offset semantics ("window", "stream"; "?" if out of range). */
const char *shc_offset_semantics_name(int semantics);
/* g's offset alignment (4 where the row does not say). */
int shc_gpu_profile_align(const shc_gpu_profile *g);
/* Whether g is CUDA's model: window semantics at alignment 4 (the launch geometry aside). */
bool shc_gpu_profile_is_cuda_window(const shc_gpu_profile *g);

/* The presets, terminated by an entry with name NULL. */
const shc_gpu_profile *shc_gpu_profiles(void);
/* A preset by name, or "SMSxTHREADS" (e.g. "108x2048") for any other GPU; either may end in
 * ":SEMANTICS[/ALIGN]" (":stream", ":window/8") to set the offset semantics and alignment
 * (a power of two, 1..64); an unknown semantics or alignment is SHC_EINVAL naming it. */
int shc_gpu_profile_parse(const char *s, shc_gpu_profile *out, shc_err *e);
/* The special-function-unit model (lib/rng/cuda_sfu.c) g's MUFU.SIN/COS/LG2
 * follow: SHC_SFU_SM90 for compute capability 9.0 (H100, H200: recorded on an
 * H100), SHC_SFU_NONE for other generations and custom profiles (unrecorded:
 * the CPU reference uses glibc for the unit there). */
enum { SHC_SFU_NONE = 0, SHC_SFU_SM90 = 90 };
int shc_gpu_sfu_model(const shc_gpu_profile *g);
/* g->cc from the preset named g->name when it has g's geometry, else 0 (a golden
 * group states name and geometry only; the generation decides the SFU model). */
void shc_gpu_profile_fill_cc(shc_gpu_profile *g);


/* The random ops emulated. */
typedef enum {
    SHC_TORCH_UNIFORM,     /* uniform_(from, to) / torch.rand */
    SHC_TORCH_NORMAL,      /* normal_(mean, std) / torch.randn */
    SHC_TORCH_RANDOM,      /* random_() or random_(from, to) */
    SHC_TORCH_BERNOULLI,   /* bernoulli_(p) with a float p */
    SHC_TORCH_DROPOUT,     /* native_dropout(x, p, train=True) (fused kernel) */
    SHC_TORCH_EXPONENTIAL, /* exponential_(lambd) */
    SHC_TORCH_LOG_NORMAL,  /* log_normal_(mean, std) */
    SHC_TORCH_GEOMETRIC,   /* geometric_(p) */
    SHC_TORCH_CAUCHY,      /* cauchy_(median, sigma) */
    SHC_TORCH_OP_COUNT
} shc_torch_op;
/* Parse "uniform", "normal", "random", "bernoulli", "dropout", "exponential", "log_normal",
 * "geometric", "cauchy". */
int shc_torch_op_parse(const char *s, shc_torch_op *out, shc_err *e);
/* Name of an op. */
const char *shc_torch_op_name(shc_torch_op op);

/* One random op on a contiguous tensor of numel elements. */
typedef struct shc_torch_rng_req {
    shc_torch_op op;
    shc_dtype dtype;
    int64_t numel;
    double a, b;      /* uniform: from, to; normal, log_normal: mean, std; exponential: lambd (a);
                         bernoulli, geometric: p (a); dropout: p = drop probability (a);
                         cauchy: median, sigma */
    bool has_range;   /* random_: from/to given */
    int64_t from, to; /* random_: [from, to) */
} shc_torch_rng_req;

/* A request with torch's default parameters for op (rand: [0,1), randn: (0,1), p = 0.5, lambd = 1). */
void shc_torch_rng_req_init(shc_torch_rng_req *r, shc_torch_op op, shc_dtype dtype, int64_t numel);
/* Validate a request as torch would (dtype allowed for op, from < to, p in [0,1], ...). */
int shc_torch_rng_check(const shc_torch_rng_req *r, shc_err *e);
/* Generator offset after the op ran from `offset` (every philox_cuda_state increment). */
int shc_torch_rng_offset_after(const shc_gpu_profile *g, int64_t offset,
                               const shc_torch_rng_req *r, int64_t *new_offset, shc_err *e);
/* Elements [start, start+count) of the op's output at generator state (seed, offset):
 * out gets count elements of r->dtype as torch stores them (float16/bfloat16 as uint16
 * bits); dropout writes the result for an all-ones input and, if mask != NULL, the
 * keep mask (0/1 bytes).  *new_offset (may be NULL) = the generator offset afterwards.
 * offset must be a multiple of 4 (torch's invariant). */
int shc_torch_rng_fill(const shc_gpu_profile *g, uint64_t seed, int64_t offset,
                       const shc_torch_rng_req *r, int64_t start, int64_t count, void *out,
                       uint8_t *mask, int64_t *new_offset, shc_err *e);
/* How many of those elements (all of them, start 0) rest on the model of
 * MUFU.RCP64H, the seed of libdevice log's Newton step (lib/rng/cuda_rcp64h.c):
 * the elements whose value changes when the seed is one unit of its last bit
 * (2^-20) below or above the model's.  0 for ops and dtypes that reach no double
 * log (all but float64 normal_, exponential_, log_normal_, geometric_); such a
 * count of 0 means the output is exact for any unit that close to the model. */
int shc_torch_rng_rcp_sensitive(const shc_gpu_profile *g, uint64_t seed, int64_t offset,
                                const shc_torch_rng_req *r, int64_t *count, shc_err *e);
/* The modelled steps an output rests on (torch_rng_model.c), what the golden flags of the
 * same name say: exact where all are false and rcp64h is 0 or -1. */
typedef struct shc_torch_rng_model {
    bool sfu_model;       /* the sm_90 unit model recorded on an H100 (SfuModel) */
    bool unit_unrecorded; /* a unit no recording covers; a stand-in computes it (GpuOnly) */
    bool math_todo;       /* a float transform through an unmodelled MUFU (CudaMathTodo) */
    bool fma_contract;    /* the affine step as nvcc contracts it (FmaContract) */
    int64_t rcp64h;       /* elements on an unrecorded MUFU.RCP64H (0 on sm_90, where the
                           * unit is recorded); -1: the op reaches none */
} shc_torch_rng_model;
int shc_torch_rng_model_of(const shc_gpu_profile *g, uint64_t seed, int64_t offset,
                           const shc_torch_rng_req *r, shc_torch_rng_model *out, shc_err *e);

/* ---- torch 2.13's CUDA sampling kernels (torch_cuda_sample.c): bernoulli with a
 * tensor p, multinomial, randperm -- each with its own launch and host checks ---- */

typedef enum {
    SHC_TORCH_SAMPLE_BERNOULLI_P,  /* self.bernoulli_(p) / torch.bernoulli(p): self = empty_like(p) */
    SHC_TORCH_SAMPLE_MULTINOMIAL,  /* torch.multinomial(input, n, replacement) */
    SHC_TORCH_SAMPLE_RANDPERM,     /* torch.randperm(n, dtype) */
    SHC_TORCH_SAMPLE_COUNT
} shc_torch_sample_op;

/* Largest tensor a sampling op is emulated for: bernoulli's thread index and
 * linearIndex (CUDAApplyUtils.cuh) are 32-bit products that wrap beyond it. */
#define SHC_TORCH_SAMPLE_MAX_NUMEL (INT64_C(1) << 32)

typedef struct shc_torch_sample_req {
    shc_torch_sample_op op;
    shc_dtype dtype;    /* bernoulli: self (the output); multinomial: the input's; randperm: result */
    shc_dtype p_dtype;  /* bernoulli: the p tensor's dtype (torch rejects non-floating ones) */
    shc_shape shape;    /* bernoulli: self; multinomial: the input (1 or 2 dims) */
    shc_shape p_shape;  /* bernoulli: p's shape, broadcast to shape (expand_inplace) */
    const double *w;    /* bernoulli: p's values; multinomial: the input's; row-major */
    int64_t nw;         /* number of values in w (numel of p_shape / shape) */
    int64_t n;          /* multinomial: n_sample; randperm: n */
    bool replacement;   /* multinomial */
} shc_torch_sample_req;

/* Elements and dtype of the op's output (multinomial: int64, rows x n). Checks
 * nothing torch checks; SHC_EOVERFLOW if the count overflows. */
int shc_torch_sample_out(const shc_torch_sample_req *r, int64_t *numel, shc_dtype *dtype,
                         shc_err *e);

/* Run the op at generator state (seed, offset) on GPU g: out gets the output
 * (shc_torch_sample_out elements; float16/bfloat16 as uint16 bits, bool as 0/1
 * bytes), *new_offset the generator offset afterwards.  A rejected input is
 * SHC_EINVAL with torch's message; inputs whose result torch does not fix on
 * the host (a device-side assert) or that we cannot reproduce exactly (a
 * reduction whose rounding depends on the GPU's order) are SHC_EUNSUPPORTED
 * saying why. */
int shc_torch_sample_run(const shc_gpu_profile *g, uint64_t seed, int64_t offset,
                         const shc_torch_sample_req *r, void *out, int64_t *new_offset,
                         shc_err *e);

/* randperm's key width: ceil(log2(n - (6n^2 + 1) / (12 log 0.9))), at most 64
 * (Randperm.cu, note [Algorithm of randperm]). */
int shc_torch_randperm_bits(int64_t n);

/* ---- JAX threefry2x32 (threefry.c) ---- */

/* One Threefry2x32 block with `rounds` rounds (20 = threefry2x32-20, JAX's). */
void shc_threefry2x32(const uint32_t ctr[2], const uint32_t key[2], int rounds, uint32_t out[2]);
/* jax.random.bits(key, shape, uint32) with jax_threefry_partitionable=True, row-major
 * elements [start, start+count): element i = xor of threefry2x32(key, (i>>32, i&0xffffffff)). */
void shc_threefry_bits32(const uint32_t key[2], uint64_t start, int64_t count, uint32_t *out);

/* ======================================================================
 * RNG offsets and policies (rng_offsets.c, rng_policy.c)
 * ==================================================================== */
/* @@SECTION rng-offsets@@ */

/* torch 2.13 OffsetBasedRNGTracker arithmetic for one layout (rank-independent part):
 * which mesh dims shard each tensor dim (mesh-dim order), first-shard size, end increment. */
typedef struct shc_rng_layout {
    int tensor_ndim, mesh_ndim;
    int64_t mesh_shape[SHC_MAX_MESH_DIMS];
    shc_placements pl;
    shc_shape shape;
    int nshard_mesh[SHC_MAX_TENSOR_DIMS];                    /* mesh dims sharding tensor dim d */
    int shard_mesh[SHC_MAX_TENSOR_DIMS][SHC_MAX_MESH_DIMS];  /* ... in mesh-dim order */
    int64_t total_shards[SHC_MAX_TENSOR_DIMS];               /* product of their sizes */
    int64_t first_shard[SHC_MAX_TENSOR_DIMS];                /* torch's _calc_first_shard_size */
    int64_t first_numel, numel, end_incr;
} shc_rng_layout;

/* One rank's view: shard linear index, increments, and its real local numel. */
typedef struct shc_rng_offsets {
    int64_t shard_linear_index;
    int64_t start_incr;  /* ceil4(shard_linear_index * first_numel) */
    int64_t end_incr;    /* ceil4(numel) */
    int64_t local_numel; /* numel of the rank's actual shard (its window length) */
} shc_rng_offsets;

/* torch's Shard chunk rule: size of chunk idx of a dim of `size` split in n (torch.chunk). */
int64_t shc_rng_chunk_size(int64_t size, int64_t n, int64_t idx);
/* torch's _StridedShard size: chunk idx of `size` split in sf, each split in n, re-joined. */
int64_t shc_rng_strided_size(int64_t size, int64_t sf, int64_t n, int64_t idx);
/* Validate a layout and precompute the tracker's rank-independent arithmetic. */
int shc_rng_layout_init(shc_rng_layout *t, const shc_mesh *m, const shc_placements *pl,
                        const shc_shape *shape, shc_err *e);
/* Offsets of the rank at mesh coordinate coord. */
int shc_rng_offsets_at(const shc_rng_layout *t, const int64_t *coord, shc_rng_offsets *out,
                       shc_err *e);
/* Offsets of a global rank of mesh m. */
int shc_rng_offsets_rank(const shc_rng_layout *t, const shc_mesh *m, int64_t rank,
                         shc_rng_offsets *out, shc_err *e);
/* Row-major global linear indices of the local elements of the rank at coord, in its local
 * order (torch 2.13's chunk rules, rng_local.c); *out malloc'd, *count of them. */
int shc_rng_local_globals(const shc_rng_layout *t, const int64_t *coord, int64_t **out,
                          int64_t *count, shc_err *e);
/* The span [lo, hi) of those indices (lo = hi = -1 when the rank holds none). */
int shc_rng_local_span(const shc_rng_layout *t, const int64_t *coord, int64_t *lo, int64_t *hi,
                       shc_err *e);
/* The 16-byte Philox generator state torch exposes: seed u64 LE then offset i64 LE. */
void shc_rng_state_pack(uint64_t seed, int64_t offset, uint8_t out[16]);
/* Inverse of shc_rng_state_pack. */
void shc_rng_state_unpack(const uint8_t in[16], uint64_t *seed, int64_t *offset);
/* _distribute_region on one generator: offset inside the region and after it (overflow-checked;
 * torch's int64 tensor would wrap silently). */
int shc_rng_region(const shc_rng_offsets *o, int64_t old_offset, int64_t *pre, int64_t *post,
                   shc_err *e);
/* torch 2.13 manual_seed(seed, mesh) as `rank` runs it: state = (seed, offset 0); SHC_EINVAL
 * if the rank is not in the mesh (torch raises RuntimeError). */
int shc_rng_manual_seed(const shc_mesh *m, int64_t rank, uint64_t seed, uint8_t state[16],
                        shc_err *e);
/* _distribute_region on a generator's 16-byte state (the user's generator or the device
 * default): *run_offset = offset the op runs at; state becomes (seed, old + end_incr). */
int shc_rng_distribute_region(const shc_rng_offsets *o, uint8_t state[16], int64_t *run_offset,
                              shc_err *e);

/* Audit finding kinds (bit 1<<kind in shc_rng_audit.kinds; names via shc_rng_finding_name). */
enum {
    SHC_RNGF_SAME_START, /* distinct non-empty shards start at the same offset */
    SHC_RNGF_OVERRUN,    /* a shard's window runs past end_incr into the next op's window */
    SHC_RNGF_OVERLAP,    /* windows of distinct shards overlap */
    SHC_RNGF_UNTRACKED_SHARED, /* untracked op (lib/shardcheck_ops.h): distinct shards draw the same numbers */
    SHC_RNGF_COUNT
};
/* One finding: kind, the ranks involved (rank_b = -1 for overrun) and their counter windows. */
typedef struct shc_rng_finding {
    int kind;
    int64_t rank_a, rank_b;
    int64_t a_lo, a_hi, b_lo, b_hi; /* [lo, hi) in offset increments */
} shc_rng_finding;
/* An audit: every finding kind seen, a bounded list of findings, total counts. */
typedef struct shc_rng_audit {
    unsigned kinds;
    int64_t count[SHC_RNGF_COUNT];
    int64_t nlisted;
    shc_rng_finding listed[64];
    int64_t nshards;   /* distinct shards */
    int64_t end_incr;
} shc_rng_audit;
/* Flag name of a finding kind ("OffsetSameStart", "OffsetOverrun", "OffsetOverlap"). */
const char *shc_rng_finding_name(int kind);
/* Audit the tracker's windows over every rank of the mesh. */
int shc_rng_audit_layout(const shc_mesh *m, const shc_placements *pl, const shc_shape *shape,
                         shc_rng_audit *out, shc_err *e);

/* RNG policies (the policy x property table, the dtype axis, Megatron's seeds): see
 * shardcheck_policy.h, included at the end of this header. */

/* Redistribute planning, communicators and execution: see shardcheck_exec.h,
 * included at the end of this header. */

/* Library version string ("0.1.0"). */
const char *shc_version(void);

#ifdef __cplusplus
}
#endif

#include "shardcheck_release.h"
#include "shardcheck_exec.h"
#include "shardcheck_policy.h"
#include "shardcheck_ops.h"
#include "shardcheck_view.h"
#include "shardcheck_mesh_layout.h"

#endif /* SHARDCHECK_H */
