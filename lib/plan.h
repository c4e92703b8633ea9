/*
 * plan.h — redistribute plans: the data structure shared by the planners
 * (plan_greedy.c, plan_graph.c), step merging (plan_merge.c), the trace
 * strings (trace.c) and plan execution (redistribute_exec.c).  Semantics
 * follow torch 2.13 torch/distributed/tensor/_redistribute.py
 * (_TransformInfo, _FlattenedTransformInfo, per-rank logical shapes).
 * Tested by conformance/tests/check_plan.c and the redistribute-plan family.
 */
#ifndef SHC_PLAN_H
#define SHC_PLAN_H
#include "shardcheck.h"

/* What a step does when torch 2.13's redistribute_local_tensor executes it
 * (the branch it takes, not only _TransformInfo._comm_type_key). */
typedef enum {
    SHC_COMM_NONE,           /* no data movement (mesh dim of size 1) */
    SHC_COMM_ALL_GATHER,     /* S -> R or _S -> R (padded all-gather, then unpad) */
    SHC_COMM_ALL_REDUCE,     /* P -> R */
    SHC_COMM_REDUCE_SCATTER, /* P -> S (padded) */
    SHC_COMM_ALL_TO_ALL,     /* S(a) -> S(b) */
    SHC_COMM_LOCAL_CHUNK,    /* R -> S or R -> _S (no communication) */
    SHC_COMM_PARTITION,      /* R -> P (no communication; sum divides by n) */
    SHC_COMM_STRIDED,        /* _S -> S, S -> _S, _S -> _S, P -> _S: a collective to
                                replicate, then a local (strided) chunk */
    SHC_COMM_UNSUPPORTED,    /* torch plans it but execution raises (S -> P, P(a) -> P(b)) */
    SHC_COMM_KIND_COUNT
} shc_comm_kind;

/* One transform step, as torch's _TransformInfo / _FlattenedTransformInfo. */
typedef struct shc_plan_step {
    int mesh_dim;                 /* first (lowest) mesh dim; the only one unless merged */
    int nmesh_dims;               /* > 1 for a merged (flattened) step */
    int mesh_dims[SHC_MAX_MESH_DIMS]; /* ascending for merged steps */
    shc_placement src, dst;       /* merged sum/avg partials: src is P(sum) */
    shc_shape logical_shape;      /* this rank's logical shape before the step */
    shc_comm_kind comm;
    int64_t avg_scale;            /* merged sum/avg: divide by this afterwards; 0 = none */
} shc_plan_step;

/* A plan for one rank. */
typedef struct shc_plan {
    int nsteps;
    shc_plan_step *steps;         /* malloc'd */
    int cap;                      /* allocated steps */
    int ncollectives;             /* steps that communicate (not NONE/LOCAL_CHUNK/PARTITION/UNSUPPORTED) */
    char *trace;                  /* torch's stringified transform infos, malloc'd; NULL when
                                     torch's stringify raises (see trace_error) */
    const char *trace_error;      /* static text: why stringify_transform_infos raises */
    shc_planner used;             /* GREEDY or GRAPH: what the auto rule / fallback chose */
    bool strided_fallback;        /* graph chosen, _StridedShard not decodable -> greedy */
    int nreduce_ops;              /* graph planner: size of torch's reduce-op set; >= 2 means
                                     the answer may depend on Python set iteration order */
} shc_plan;

/* Planner options: see shc_plan_opts_init for defaults. */
typedef struct shc_plan_opts {
    shc_planner planner;
    int dtype_bytes;          /* element size for the cost model (torch dtype itemsize) */
    int64_t devices_per_host; /* topology for the cost model; 0 = torch's default (8) */
    bool merge;               /* run torch's _optimize_transform_infos pass */
    bool trace;               /* stringify the plan as DebugMode does (off: trace NULL,
                                 trace_error NULL — redistribute without DebugMode) */
    int nflattened;           /* mesh-dim sets with an explicitly flattened mesh ... */
    unsigned flattened[16];   /* ... as bitmasks of mesh dims (merging needs one) */
    bool strided_literal;     /* DTensorSpec(use_strided_shard_as_shard_order=False):
                                 _S is a real strided shard, not an encoded order */
    int nop_perm;             /* 0, or a permutation of the graph planner's Partial reduce-op
                                 set (first-appearance indexes) standing in for Python's
                                 string-hash set iteration order */
    int op_perm[SHC_OP_COUNT];
} shc_plan_opts;

/* Number of collectives a step kind counts as. */
bool shc_comm_is_collective(shc_comm_kind k);

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

/* Everything a planner needs (built once per shc_plan_compute call). */
typedef struct shc_plan_ctx {
    const shc_mesh *mesh;
    int64_t coord[SHC_MAX_MESH_DIMS];
    shc_shape shape;
    const shc_plan_opts *opts;
} shc_plan_ctx;

/* Shard/_StridedShard placement (torch's _is_shard_like). */
static inline bool shc_is_shard_like(const shc_placement *p)
{
    return p->kind == SHC_P_SHARD || p->kind == SHC_P_STRIDED;
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

/* The greedy planner (generate_greedy_transform_infos); appends steps to *plan. */
int shc_plan_greedy(const shc_plan_ctx *c, const shc_spec *src, const shc_spec *dst,
                    shc_plan *plan, shc_err *e);
/* The min-cost planner (generate_graph_based_transform_infos) on normalized
 * specs (no strided_as_order); sets plan->nreduce_ops. */
int shc_plan_graph(const shc_plan_ctx *c, const shc_spec *src, const shc_spec *dst,
                   shc_plan *plan, shc_err *e);
/* _optimize_transform_infos: merge consecutive steps over flattened meshes. */
int shc_plan_merge(const shc_plan_ctx *c, shc_plan *plan, shc_err *e);
/* stringify_transform_infos for the steps in plan from src; sets plan->trace. */
int shc_plan_trace(const shc_plan_ctx *c, const shc_spec *src, shc_plan *plan, shc_err *e);
/* Comm kinds and the collective count, from the steps (after merging). */
void shc_plan_classify(const shc_plan_ctx *c, shc_plan *plan);
/* Make room for n steps (one small allocation on the greedy hot path). */
int shc_plan_reserve(shc_plan *plan, int n, shc_err *e);
/* Append a step (grows plan->steps). */
int shc_plan_push(shc_plan *plan, const shc_plan_step *st, shc_err *e);

/* Audit findings about a plan (audit plan). */
typedef struct shc_plan_finding {
    char code[48];
    char msg[400];
} shc_plan_finding;

/* Findings for one redistribute over every rank of the mesh (malloc'd array). */
int shc_plan_audit(const shc_mesh *m, const shc_placements *src, const shc_placements *dst,
                   const shc_shape *shape, const shc_plan_opts *opts,
                   shc_plan_finding **out, int *nout, shc_err *e);

#endif
