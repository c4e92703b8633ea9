/*
 * plan_internal.h — the plan area's internal interface (not installed; the public one
 * is shardcheck_exec.h): the planners' shared data structures (torch's DTensorSpec and
 * ShardOrder as shc_spec and shc_shard_order, the prepared request and its per-rank
 * narrowing), the step classification, and the entry points the planners
 * (plan_greedy.c, plan_graph.c), step merging (plan_merge.c), the trace strings
 * (trace.c), plan execution (redistribute_exec.c) and the white-box tests share.
 * Named for what it is rather than plan.c's header (issue 37 item 5).  Semantics
 * follow torch 2.13 torch/distributed/tensor/_redistribute.py
 * (_TransformInfo, _FlattenedTransformInfo, per-rank logical shapes).
 * Tested by conformance/tests/check_plan.c and the redistribute-plan family.
 */
#ifndef SHC_PLAN_INTERNAL_H
#define SHC_PLAN_INTERNAL_H
#include <string.h>
#include "shardcheck.h"

/* ---- internal to libshardcheck (planners, trace, merge, exec) ---- */

/* torch's ShardOrder: for each tensor dim, the mesh dims sharding it in
 * execution order (ShardOrderEntry.mesh_dims); len 0 = not sharded. */
typedef struct shc_shard_order {
    int8_t len[SHC_MAX_TENSOR_DIMS];
    int8_t md[SHC_MAX_TENSOR_DIMS][SHC_MAX_MESH_DIMS];
} shc_shard_order;

/* A DTensorSpec as the planners see it: placements plus a shard order, or
 * no order when _StridedShard encodes it (use_strided_shard_as_shard_order). */
typedef struct shc_spec {
    int n;
    shc_placement p[SHC_MAX_MESH_DIMS];
    bool strided_as_order;   /* shard order is None; _S placements encode it */
    bool so_lazy;            /* so not filled yet: it is the default order */
    shc_shard_order so;      /* valid when !strided_as_order && !so_lazy */
} shc_spec;

/* The greedy planner's logical shapes for one rank, as changes: mesh dim i's
 * Shard sets tensor dim dim[i] (-1: none) to val[i] for the mesh dims after it.
 * A step copies the global shape and applies its predecessors' changes: no
 * division (torch.chunk sizes) and no freshly stored shape read back whole
 * (that stalls store forwarding) on the hot path. */
typedef struct shc_narrowing {
    int8_t dim[SHC_MAX_MESH_DIMS];
    int64_t val[SHC_MAX_MESH_DIMS];
} shc_narrowing;

/* The graph planner's search result (plan_graph.c): the min-cost path, which depends on
 * the specs, the global shape and the options but not on the rank (the cost model reads
 * the global shape; a rank's coordinate enters only the logical shapes of the path's
 * steps), so a request planning many ranks searches once (issue 27 N11). */
typedef struct shc_graph_path shc_graph_path;
void shc_graph_path_free(shc_graph_path *p);

/* Everything a planner needs (built per shc_plan_run; points into the request). */
typedef struct shc_plan_ctx {
    const shc_mesh *mesh;
    const int64_t *coord;     /* the rank's mesh coordinate */
    const shc_shape *shape;
    const shc_plan_opts *opts;
    const shc_narrowing *narrowing; /* the rank's, cached by the request; NULL = compute */
    shc_graph_path **path;    /* the request's cached search (NULL: search every call) */
} shc_plan_ctx;

/* ---- planning one layout many times: the hot path ----
 * shc_plan_compute validates the request and builds both specs on every call.
 * A caller planning one layout repeatedly (every rank of a mesh, a benchmark,
 * torch's own cached DTensorSpecs) prepares it once and runs it per rank,
 * optionally into a caller-supplied step buffer so that a run allocates
 * nothing.  Same results as shc_plan_compute (check_plan.c compares them). */

/* A validated request (shc_plan_prepare); the mesh must outlive it. */
typedef struct shc_plan_req {
    const shc_mesh *mesh;
    shc_shape shape;
    shc_plan_opts opts;
    shc_spec src, dst;
    bool greedy;                        /* torch's planner rule chose greedy (no fallback) */
    int64_t coord_rank;                 /* the rank coord holds, -1 = none yet */
    int64_t coord[SHC_MAX_MESH_DIMS];   /* cached mesh coordinate of coord_rank */
    shc_narrowing narrowing;            /* cached for coord_rank (greedy requests) */
    bool cache_path;                    /* opt-in: search the graph once (shc_plan_req_free) */
    shc_graph_path *path;               /* that search, after the first graph run */
} shc_plan_req;

/* Validate and build the specs once (the checks shc_plan_compute makes). */
int shc_plan_prepare(shc_plan_req *r, const shc_mesh *m, const shc_placements *src,
                     const shc_placements *dst, const shc_shape *shape,
                     const shc_plan_opts *opts, shc_err *e);
/* Plan r for rank into out.  out must be zeroed, set by shc_plan_use_buffer, or
 * hold a previous plan, whose step storage is reused (free it with shc_plan_free). */
int shc_plan_run(shc_plan_req *r, int64_t rank, shc_plan *out, shc_err *e);
/* Ask r to keep the graph planner's search across runs (callers planning every rank of a
 * mesh); the first run searches, the others rebuild only their logical shapes.  Off by
 * default, so a benchmark of shc_plan_run times the search as torch runs it. */
void shc_plan_req_cache(shc_plan_req *r);
/* Free what r holds (the cached search); r may be prepared again afterwards. */
void shc_plan_req_free(shc_plan_req *r);
/* Zero *p and let it plan into buf (cap steps; 2 x mesh dims always suffice for
 * greedy); the plan never frees buf. */
void shc_plan_use_buffer(shc_plan *p, shc_plan_step *buf, int cap);

/* Shard/_StridedShard placement (torch's _is_shard_like). */
static inline bool shc_is_shard_like(const shc_placement *p)
{
    return p->kind == SHC_P_SHARD || p->kind == SHC_P_STRIDED;
}

/* shc_placement_eq, inlined for the planners' inner loops. */
static inline bool shc_pl_eq(const shc_placement *a, const shc_placement *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case SHC_P_SHARD: return a->dim == b->dim;
    case SHC_P_STRIDED: return a->dim == b->dim && a->split_factor == b->split_factor;
    case SHC_P_PARTIAL: /* torch compares the reduce_op strings */
        return a->op == b->op && (a->op != SHC_OP_OTHER || strcmp(a->op_name, b->op_name) == 0);
    default: return true;
    }
}

/* Whether Partial p mixes with first, the list's first Partial, in a way torch's
 * assert_no_mixed_partial_types rejects: it compares the reduce_op strings, and {'sum', 'avg'}
 * is the one mix it allows (torch 2.13 placement_types.py). */
static inline bool shc_partial_mixes(const shc_placement *first, const shc_placement *p)
{
    bool sum_avg = (p->op == SHC_OP_SUM || p->op == SHC_OP_AVG) &&
                   (first->op == SHC_OP_SUM || first->op == SHC_OP_AVG);
    return !shc_pl_eq(p, first) && !sum_avg;
}

/* The pinned release's (torch 2.13's) branches of redistribute_local_tensor for a step
 * a -> b over n devices. */
static inline shc_comm_kind shc_classify_pinned(const shc_placement *a, const shc_placement *b,
                                                int64_t n)
{
    if (shc_pl_eq(a, b) || n == 1)
        return SHC_COMM_NONE;
    switch (b->kind) {
    case SHC_P_REPLICATE:
        return a->kind == SHC_P_PARTIAL ? SHC_COMM_ALL_REDUCE : SHC_COMM_ALL_GATHER;
    case SHC_P_SHARD:
        if (a->kind == SHC_P_PARTIAL)
            return SHC_COMM_REDUCE_SCATTER;
        if (a->kind == SHC_P_REPLICATE)
            return SHC_COMM_LOCAL_CHUNK;
        return a->kind == SHC_P_SHARD ? SHC_COMM_ALL_TO_ALL : SHC_COMM_STRIDED;
    case SHC_P_PARTIAL:
        return a->kind == SHC_P_REPLICATE ? SHC_COMM_PARTITION : SHC_COMM_UNSUPPORTED;
    default: /* _StridedShard target */
        return a->kind == SHC_P_REPLICATE ? SHC_COMM_LOCAL_CHUNK : SHC_COMM_STRIDED;
    }
}

/* The comm kind of a step a -> b that release r classifies differently from the pinned
 * release (plan.c's version-keyed rows, one per shc_torch_change); `pinned` when none
 * applies.  A row that applies sets its change's bit in *changes; a row whose kinds match,
 * in *asked (shc_torch_ask). */
shc_comm_kind shc_classify_release(const shc_placement *a, const shc_placement *b,
                                   shc_torch_release r, shc_comm_kind pinned, uint32_t *changes,
                                   uint32_t *asked);

/* What redistribute_local_tensor does for a step a -> b over n devices (its
 * branches, in order), in release r; inline so the greedy planner classifies as it
 * pushes.  *changes as shc_classify_release. */
static inline shc_comm_kind shc_classify(const shc_placement *a, const shc_placement *b,
                                         int64_t n, shc_torch_release r, uint32_t *changes,
                                         uint32_t *asked)
{
    shc_comm_kind k = shc_classify_pinned(a, b, n);
    /* the pinned release asks too: its answer's asked rows decide what else is recomputed */
    if (k == SHC_COMM_UNSUPPORTED || k == SHC_COMM_STRIDED)
        return shc_classify_release(a, b, r, k, changes, asked);
    return k;
}

/* torch.chunk-rule local size of chunk idx of size split in n (Shard.local_shard_size_and_offset). */
int64_t shc_chunk_size(int64_t size, int64_t n, int64_t idx);
/* _StridedShard.local_shard_size_and_offset's size. */
int64_t shc_strided_chunk_size(int64_t size, int64_t n, int64_t sf, int64_t idx);
/* DTensorSpec.compute_default_shard_order. */
void shc_default_shard_order(const shc_placement *p, int n, shc_shard_order *so);
/* DTensorSpec.is_default_device_order (every entry ascending). */
bool shc_shard_order_is_default(const shc_shard_order *so);
/* _maybe_convert_StridedShard_to_shard_order: false when not decodable. */
bool shc_strided_to_shard_order(const shc_mesh *m, const shc_placement *p, int n,
                                shc_shard_order *so);
/* _convert_shard_order_to_StridedShard: placements p with order so as _S placements. */
int shc_shard_order_to_strided(const shc_mesh *m, const shc_placement *p, int n,
                               const shc_shard_order *so, shc_placement *out, shc_err *e);
/* format_shard_order_str of placements + order, appended to buf at *len (cap total). */
int shc_format_state(const shc_placement *p, int n, const shc_shard_order *so, char **buf,
                     size_t *len, size_t *cap);

/* The logical-shape changes of src for the rank at coord (see shc_narrowing). */
void shc_plan_narrowing(const shc_mesh *m, const shc_spec *src, const shc_shape *shape,
                        const int64_t *coord, shc_narrowing *nw);
/* The greedy planner (generate_greedy_transform_infos); appends steps to *plan,
 * classified as it pushes (comm and ncollectives set). */
int shc_plan_greedy(const shc_plan_ctx *c, const shc_spec *src, const shc_spec *dst,
                    shc_plan *plan, shc_err *e);
/* The min-cost planner (generate_graph_based_transform_infos) on normalized
 * specs (no strided_as_order); sets plan->nreduce_ops. */
int shc_plan_graph(const shc_plan_ctx *c, const shc_spec *src, const shc_spec *dst,
                   shc_plan *plan, shc_err *e);
/* _optimize_transform_infos: merge consecutive steps over flattened meshes. */
int shc_plan_merge(const shc_plan_ctx *c, shc_plan *plan, shc_err *e);
/* Whether a step is an all-gather by _TransformInfo._comm_type_key (plan_merge.c; the
 * audit asks it). */
bool shc_plan_step_gathers(const shc_plan_step *st);
/* stringify_transform_infos for the steps in plan from src; sets plan->trace. */
int shc_plan_trace(const shc_plan_ctx *c, const shc_spec *src, shc_plan *plan, shc_err *e);
/* Comm kinds and the collective count, from the steps (after merging). */
void shc_plan_classify(const shc_plan_ctx *c, shc_plan *plan);
/* Make room for n steps (one small allocation on the greedy hot path). */
int shc_plan_reserve(shc_plan *plan, int n, shc_err *e);
/* Append a step (grows plan->steps). */
int shc_plan_push(shc_plan *plan, const shc_plan_step *st, shc_err *e);

#endif
