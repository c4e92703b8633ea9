/*
 * shardcheck_exec.h — the installed API for redistribute plans, communicators
 * and execution (part of libshardcheck's public API; shardcheck.h includes it
 * after the core types, so programs include shardcheck.h only: no include loop).  Plans follow torch 2.13's
 * _redistribute.py (_TransformInfo, _FlattenedTransformInfo, per-rank logical
 * shapes); execution performs each step as redistribute_local_tensor does.
 * Tested by conformance/tests/check_plan.c and check_exec.c, and by the
 * installcheck consumer (conformance/tests/consumer.c), which is built against
 * the installed headers alone.
 */
#ifndef SHARDCHECK_EXEC_H
#define SHARDCHECK_EXEC_H
/* Part of shardcheck.h, which includes it after the core types: include that. */
#ifndef SHARDCHECK_H
#error "include <shardcheck.h> (it includes this header)"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================
 * Redistribute planning (plan*.c, cost_model.c, trace.c)
 * ==================================================================== */
/* @@SECTION planners@@ */
/* Planner choice: auto = torch 2.13's rule (non-default shard order or
 * _StridedShard -> graph, otherwise greedy); greedy/graph force one, as
 * torch's use_min_cost_redistribution_plan(False/True) does. */
typedef enum { SHC_PLANNER_AUTO, SHC_PLANNER_GREEDY, SHC_PLANNER_GRAPH } shc_planner;
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
    SHC_COMM_ZERO_FILL,      /* S(d) -> P(sum), torch >= 2.14: the shard embedded in zeros
                                (Shard._to_partial_tensor; no communication) */
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
    double cost;                  /* min-cost planner: the cost its Dijkstra search gave the
                                     step (one_step_redistribute_cost, microseconds); 0 for
                                     the greedy planner, which prices nothing */
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
    bool steps_external;          /* steps is a caller's buffer (shc_plan_use_buffer):
                                     never freed or realloc'd; copied to the heap to grow */
    uint32_t torch_changes;       /* bit c: the release's row of shc_torch_change c decided
                                     something (set also when planning fails) */
    uint32_t torch_asked;         /* bit c: planning asked row c (shc_torch_ask), whichever
                                     way it went: another release whose rows agree on these
                                     bits plans the same */
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
    shc_torch_release torch;  /* the release whose planner to reproduce (0: the pinned one) */
    const char *dtype;        /* the tensor's torch dtype name, NULL for torch's float32: what
                                 gloo refuses or reduces oddly (gloo_dtype.c; audit only) */
} shc_plan_opts;

/* Number of collectives a step kind counts as. */
bool shc_comm_is_collective(shc_comm_kind k);


/* Default options: auto planner, 4-byte dtype, 8 devices per host, merging on, no flattened meshes. */
void shc_plan_opts_init(shc_plan_opts *o);
/* Plan redistributing a tensor of global shape from src to dst as global rank `rank` sees it
 * (torch 2.13 _gen_transform_infos + _optimize_transform_infos); *out must be freed. */
int shc_plan_compute(const shc_mesh *m, const shc_placements *src, const shc_placements *dst,
                     const shc_shape *shape, const shc_plan_opts *opts, int64_t rank,
                     shc_plan *out, shc_err *e);
/* torch's redistribute_cost(src, dst) as global rank `rank` computes it (torch 2.13
 * _collective_utils.py: what sharding strategies price a redistribution at, microseconds;
 * INFINITY where torch returns inf).  opts as for shc_plan_compute (its planner: torch's
 * choice, or forced as use_min_cost_redistribution_plan forces it), but nothing merges, as in
 * _gen_transform_infos. */
int shc_plan_redistribute_cost(const shc_mesh *m, const shc_placements *src,
                               const shc_placements *dst, const shc_shape *shape,
                               const shc_plan_opts *opts, int64_t rank, double *cost,
                               shc_err *e);
/* Called with each rank's plan by shc_plan_each_rank (the plan is valid during the call); a
 * code other than SHC_OK stops the walk and is returned. */
typedef int (*shc_plan_rank_fn)(void *ctx, int64_t rank, const shc_plan *plan, shc_err *e);
/* shc_plan_compute for each of ranks[0..n), in order, handing each plan to fn: the same plans,
 * with the graph planner's search made once for all of them (it reads only the global shape),
 * so every rank of a large mesh is planned in the time of one search and n cheap steps. */
int shc_plan_each_rank(const shc_mesh *m, const shc_placements *src, const shc_placements *dst,
                       const shc_shape *shape, const shc_plan_opts *opts, const int64_t *ranks,
                       int64_t n, shc_plan_rank_fn fn, void *ctx, shc_err *e);
/* Whether torch 2.13's planner rule picks the greedy planner for this request (else the
 * graph planner, whose cost model --dtype and the host size price). */
int shc_plan_uses_greedy(const shc_mesh *m, const shc_placements *src, const shc_placements *dst,
                         const shc_shape *shape, const shc_plan_opts *opts, bool *greedy,
                         shc_err *e);
/* Free a plan's steps and trace (safe on a zeroed plan). */
void shc_plan_free(shc_plan *p);
/* Name of a step's communication kind ("all_gather", "local_chunk", ...); kind is a shc_comm_kind. */
const char *shc_comm_kind_name(int kind);
/* Whether torch skips the step: a step between different placements on a mesh dim of one
 * device (redistribute_local_tensor's num_chunks == 1 short cut: no collective, no local op). */
bool shc_plan_step_skipped(const shc_plan_step *st);
/* The first step of p that torch raises at for its reduce op, with torch's error in why
 * (shc_placement_check_step: Partial("prod") -> R, funcol's all_reduce refuses the string;
 * R -> Partial("product"), no partition); -1 when none.  torch plans such steps as for any
 * other op and raises only running them; a skipped step runs nothing. */
int shc_plan_raising_step(const shc_plan *p, shc_err *why);
/* As shc_plan_raising_step, and also the steps torch's gloo process group refuses for elements
 * of torch dtype `dtype` (gloo_dtype.c: bitwise ops on floats, avg on integers, int16 and
 * float8 at all); dtype NULL checks the reduce ops only. */
int shc_plan_raising_step_dtype(const shc_plan *p, const char *dtype, shc_err *why);
/* SHC_EINVAL with torch's exception when gloo refuses step st for dtype's elements (any name
 * shc_dtype_bytes knows; an unknown one is SHC_EINVAL naming it); SHC_OK for a skipped step, one
 * that moves no data, or dtype NULL. */
int shc_gloo_step_check(const shc_plan_step *st, const char *dtype, shc_err *e);
/* Whether step st reduce-scatters a complex tensor (dtype) with max, min or product, which
 * torch's reduce_scatter takes and reduces real and imaginary parts apart, a value no rank holds
 * (docs/findings/complex_reduce_scatter_max.py); false for a skipped step. */
bool shc_gloo_step_splits_complex(const shc_plan_step *st, const char *dtype);
/* The name torch gives a step: its comm, except that a skipped step (size-1 mesh dim) is
 * named by _TransformInfo._comm_type_key as torch names it (all_gather, all_reduce,
 * reduce_scatter, all_to_all; none for a local op) while nothing runs. */
shc_comm_kind shc_plan_step_label(const shc_plan_step *st);
/* Parse a planner name ("auto", "greedy", "graph"/"min-cost"). */
int shc_planner_parse(const char *s, shc_planner *out, shc_err *e);

/* The local tensor a rank holds after a step (plan_local.c): torch's shape, strides and
 * is_contiguous() of what redistribute_local_tensor's local op leaves (2.13-2.15). */
typedef struct shc_local_meta {
    shc_shape shape;
    int64_t stride[SHC_MAX_TENSOR_DIMS];
    bool contiguous;
} shc_local_meta;
/* out[i] for each step i < *nmodelled of rank's plan p (out holds p->nsteps entries), from a
 * contiguous source local tensor; the steps from *nmodelled on are not stated (a merged
 * _StridedShard step, one torch refuses, a source layout past the index-list limit). */
int shc_plan_local_meta(const shc_mesh *m, const shc_placements *src, const shc_shape *shape,
                        int64_t rank, const shc_plan *p, shc_local_meta *out, int *nmodelled,
                        shc_err *e);

/* The local ops torch dispatches for a step on a CPU process group (plan_local.c): what a
 * TorchDispatchMode records around redistribute_local_tensor, in order, less the functional
 * collectives' bookkeeping (_wrap_tensor_autograd, wait_tensor, whose places depend on when
 * the result is first read).  Stated from torch 2.13's source and checked against its trace. */
typedef enum shc_local_op {
    SHC_LOP_PAD = 1,        /* aten.constant_pad_nd.default (F.pad of a short chunk) */
    SHC_LOP_CLONE,          /* aten.clone.default (.clone(), .contiguous() of a view) */
    SHC_LOP_SLICE,          /* aten.slice.Tensor (narrow) */
    SHC_LOP_SPLIT,          /* aten.split.Tensor (torch.chunk of a non-empty dim) */
    SHC_LOP_SPLIT_SIZES,    /* aten.split_with_sizes.default (torch.chunk of an empty dim) */
    SHC_LOP_CAT,            /* aten.cat.default */
    SHC_LOP_VIEW,           /* aten.view.default (all_gather's view in place of split + cat) */
    SHC_LOP_NEW_ZEROS,      /* aten.new_zeros.default (chunks torch.chunk did not make) */
    SHC_LOP_DIV,            /* aten.div.Tensor (Replicate -> Partial(sum)) */
    SHC_LOP_ALL_GATHER,     /* _c10d_functional.all_gather_into_tensor.default */
    SHC_LOP_ALL_REDUCE,     /* _c10d_functional.all_reduce.default */
    SHC_LOP_REDUCE_SCATTER, /* _c10d_functional.reduce_scatter_tensor.default */
    SHC_LOP_COUNT
} shc_local_op;
#define SHC_LOCAL_OPS_MAX 64
typedef struct shc_local_ops {
    int n;
    unsigned char op[SHC_LOCAL_OPS_MAX]; /* shc_local_op */
} shc_local_ops;
/* torch's name of a local op ("aten.cat.default"; "?" out of range). */
const char *shc_local_op_name(int op);
/* out[i]: the local ops of step i < *nmodelled of rank's plan p (out holds p->nsteps entries),
 * on a CPU process group (a CUDA group's Shard -> Shard runs _dtensor.shard_dim_alltoall
 * instead), torch 2.13.  Not stated from a step on: a _StridedShard source or target, a
 * Shard -> Partial zero fill, one torch refuses, more ops than SHC_LOCAL_OPS_MAX. */
int shc_plan_local_ops(const shc_mesh *m, const shc_placements *src, const shc_shape *shape,
                       int64_t rank, const shc_plan *p, shc_local_ops *out, int *nmodelled,
                       shc_err *e);

/* SHC_EINVAL with torch's exception (type and message) when release r refuses to execute
 * step st: a shard-like source to a Partial target that torch cannot reach (every reduce op
 * before 2.14, all but Shard -> Partial(sum) from 2.14), or one Partial to another (an
 * AssertionError in every release); SHC_OK otherwise. */
int shc_plan_step_refused(const shc_plan_step *st, shc_torch_release r, shc_err *e);
/* SHC_EINVAL with torch's RuntimeError when release r's DTensor.redistribute refuses the
 * target before planning (a new Partial target; from 2.14 Shard -> Partial(sum) passes).
 * The plan is still redistribute_local_tensor's, which DTensor's ops run with such targets. */
int shc_redistribute_api_check(const shc_placements *src, const shc_placements *dst,
                               shc_torch_release r, shc_err *e);
/* Whether torch can run a rank's plan (plan_exec_check.c): the first step whose local op
 * torch fails, or step -1.  A Shard -> Replicate/_StridedShard step all-gathers n local
 * tensors of the rank's size (local) and, where the logical size divides by n, torch
 * requires n x local == logical (Shard._maybe_unpad_tensor) and raises RuntimeError (msg,
 * torch's). */
typedef struct shc_plan_exec_fail {
    int step;
    int64_t local, logical; /* the rank's local size of the shard dim, the step's logical one */
    char msg[256];
    int entered; /* steps 0..entered-1 the rank is known to reach the collective of: step + 1
                  * when it raises (the gather runs before the unpad check); otherwise the
                  * first step the check does not follow, or the one after it when that
                  * step's collective comes before anything that could raise (an all-to-all,
                  * a reduce-scatter); p->nsteps when it follows them all */
} shc_plan_exec_fail;
/* Check the plan p of rank (planned from src on mesh m for a tensor of shape). */
int shc_plan_exec_check(const shc_mesh *m, const shc_placements *src, const shc_shape *shape,
                        int64_t rank, const shc_plan *p, shc_plan_exec_fail *out, shc_err *e);
/* How torch's ranks stop agreeing when some raise (shc_plan_exec_stall). */
typedef enum shc_stall_kind {
    SHC_STALL_WAITS, /* waiter enters step's collective, peer raised at peer_step before it */
    SHC_STALL_SIZES  /* both enter step's gather (peer then raises): their sizes differ */
} shc_stall_kind;
/* step -1: none. */
typedef struct shc_plan_stall {
    shc_stall_kind kind;
    int step, peer_step;
    int64_t waiter, peer; /* global ranks */
} shc_plan_stall;
/* Whether torch's ranks stop agreeing when every rank runs the plan from src to dst and
 * at[pos] is shc_plan_exec_check's answer for the rank at mesh position pos (m->size
 * entries): a rank that raises leaves the collectives of later steps and its partners there
 * wait out the process group's timeout (30 minutes by default); and a rank that raises in a
 * gather sent a size other than the step's logical size over n, so a partner that passes it,
 * or raises with another size, expects other buffers (gloo then hangs or aborts).  Seen
 * at np 8 with torch 2.13 (docs/findings/strided_unpad_stall.py).  The steps are those the
 * mesh's first rank plans: plans that differ by rank are shc_plan_audit's RankDivergentPlan,
 * not this check's. */
int shc_plan_exec_stall(const shc_mesh *m, const shc_placements *src, const shc_placements *dst,
                        const shc_shape *shape, const shc_plan_opts *opts,
                        const shc_plan_exec_fail *at, shc_plan_stall *out, shc_err *e);
/* One sentence on a stall (st->step >= 0), as audit plan and plan print it. */
void shc_plan_stall_describe(const shc_plan_stall *st, char *buf, size_t n);

/* Audit findings about a plan (audit plan). */
typedef struct shc_plan_finding {
    char code[48];
    char msg[400];
} shc_plan_finding;

/* Findings for one redistribute over every rank of the mesh (malloc'd array). */
int shc_plan_audit(const shc_mesh *m, const shc_placements *src, const shc_placements *dst,
                   const shc_shape *shape, const shc_plan_opts *opts,
                   shc_plan_finding **out, int *nout, shc_err *e);


/* ======================================================================
 * Redistribute execution and communicators (comm*.c, redistribute_exec.c)
 * ==================================================================== */
/* @@SECTION execution@@ */

/* A communicator: the collectives redistribute execution needs.  Backends:
 * threads in one process (shc_comm_local_run) and, in the CLI, MPI; a caller
 * may supply its own by filling the ops table. */
typedef struct shc_comm shc_comm;
typedef struct shc_comm_ops {
    const char *name;
    /* recv = concatenation of every member's `bytes` bytes, in group order. */
    int (*all_gather)(shc_comm *c, const int64_t *group, int n, const void *send, size_t bytes,
                      void *recv, shc_err *e);
    /* recv = concatenation of member j's counts[j] bytes, in group order. */
    int (*all_gatherv)(shc_comm *c, const int64_t *group, int n, const void *send,
                       const size_t *counts, void *recv, shc_err *e);
    /* send holds n blocks of `bytes`; block j goes to member j; recv block j came from j. */
    int (*all_to_all)(shc_comm *c, const int64_t *group, int n, const void *send, size_t bytes,
                      void *recv, shc_err *e);
    /* send holds n blocks of `count` elements; member j gets block j reduced over members. */
    int (*reduce_scatter)(shc_comm *c, const int64_t *group, int n, const void *send,
                          size_t count, void *recv, shc_dtype t, shc_redop op, shc_err *e);
    /* buf (count elements) becomes the reduction over members, in place. */
    int (*all_reduce)(shc_comm *c, const int64_t *group, int n, void *buf, size_t count,
                      shc_dtype t, shc_redop op, shc_err *e);
    void (*destroy)(shc_comm *c);
    /* Optional, NULL when a backend has no faster way (the executor then copies or
     * packs and calls the ops above); a backend offering them saves that pass. */
    /* recv (count elements) = the reduction over members of each one's send
     * (all_reduce out of place: send is never written). */
    int (*all_reduce_to)(shc_comm *c, const int64_t *group, int n, const void *send, void *recv,
                         size_t count, shc_dtype t, shc_redop op, shc_err *e);
    /* all_to_all from strided blocks: block j (to member j) is `runs` runs of `run`
     * bytes, run o at send + j*run + o*stride; recv block j (run*runs bytes) came from j. */
    int (*all_to_all_runs)(shc_comm *c, const int64_t *group, int n, const void *send,
                           size_t run, size_t runs, size_t stride, void *recv, shc_err *e);
} shc_comm_ops;

struct shc_comm {
    const shc_comm_ops *ops;
    int64_t rank, size;
    double timeout_s;  /* a collective waiting longer fails with a timeout (0 = none) */
    void *impl;
    void *scratch;     /* shc_comm_scratch's buffer, kept across calls; freed with the comm */
    size_t scratch_cap;
};

/* Helpers for writing a communicator (the MPI one in the CLI uses them): */
/* Position of the caller's rank in a group list, or a clear error. */
int shc_comm_group_pos(const shc_comm *c, const int64_t *group, int n, int *pos, shc_err *e);
/* A buffer of at least `bytes` owned by the communicator and reused by every
 * redistribute on it (the all-to-all pack buffer), so the data path does not
 * allocate and fault in fresh pages per call; NULL when out of memory. */
void *shc_comm_scratch(shc_comm *c, size_t bytes);
/* acc[i] = acc[i] op x[i] for count elements of dtype t, computed as torch
 * does on CPU (half types in float, rounded to nearest even).  avg here is
 * a sum; callers divide by the group size afterwards (LocalTensor's
 * reduce(add) / len).  Bitwise ops on float types are SHC_EINVAL. */
int shc_reduce_into(void *acc, const void *x, size_t count, shc_dtype t, shc_redop op,
                    shc_err *e);
/* buf[i] /= n for count elements: torch's `tensor / n` on float dtypes
 * (half types in float then rounded); integer dtypes divide truncating,
 * as LocalTensor's copy_ of the float quotient into an integer tensor does. */
void shc_div_scalar(void *buf, size_t count, shc_dtype t, int64_t n);

/* Hosting: several mesh ranks per process (comm.c).  The mesh ranks process p of nprocs
 * hosts in a world of `world` ranks: the first A = min(nprocs, world) processes each host
 * one contiguous block, in process order: process p the ranks
 * [floor(p*world/A), floor((p+1)*world/A)), so blocks hold floor(world/A) or one more
 * ranks; the others host none (*first = world, *count = 0).  world and nprocs are
 * 1..2^31-1. */
void shc_comm_host_block(int64_t world, int64_t p, int64_t nprocs, int64_t *first,
                         int64_t *count);
/* The process hosting mesh rank `rank` (0 <= rank < world) under that assignment. */
int64_t shc_comm_host_of(int64_t world, int64_t nprocs, int64_t rank);

/* Body run once per simulated rank, on its own thread. */
typedef int (*shc_rank_fn)(shc_comm *c, void *arg, shc_err *e);
/* Run fn on n simulated ranks (threads) sharing one in-process world;
 * errs[r] (n entries, may be NULL) receives each rank's error.  Returns the
 * first non-zero rank result.  A rank that fails or returns early makes the
 * others' pending collectives fail rather than hang. */
int shc_comm_local_run(int64_t n, shc_rank_fn fn, void *arg, shc_err *errs, shc_err *e);


/* Largest global tensor redistribute execution accepts (elements): it holds whole
 * local tensors, and a replicated one is the global tensor. */
#define SHC_MAX_EXEC_ELEMENTS (INT64_C(1) << 26)

/* One redistribute case: mesh, source and target placements, global shape, dtype. */
typedef struct shc_xcase {
    shc_mesh mesh;          /* owned: freed by shc_xcase_free */
    shc_placements src, dst;
    shc_shape shape;
    shc_dtype dtype;
    shc_planner planner;
    shc_torch_release torch; /* whose planner and redistribute_local_tensor (0: pinned) */
} shc_xcase;

/* A rank's local tensor: shape plus contiguous row-major bytes (malloc'd). */
typedef struct shc_xtensor {
    shc_shape shape;
    shc_dtype dtype;
    void *data;
    int64_t numel;
} shc_xtensor;

/* Parse a case from strings (mesh "2x2", ranks or NULL, placements, shape, dtype, planner or NULL). */
int shc_xcase_parse(shc_xcase *c, const char *mesh, const char *ranks, const char *src,
                    const char *dst, const char *shape, const char *dtype, const char *planner,
                    shc_err *e);
/* SHC_EUNSUPPORTED unless execution handles dtype t (float32/64, bfloat16, float16, int32/64). */
int shc_xdtype_check(shc_dtype t, shc_err *e);
/* Free a case's mesh. */
void shc_xcase_free(shc_xcase *c);
/* Free a tensor's data. */
void shc_xtensor_free(shc_xtensor *t);
/* The deterministic source local tensor of a rank (testdata.c). */
int shc_testdata_source(const shc_xcase *c, int64_t rank, shc_xtensor *out, shc_err *e);
/* The oracle: what a rank must hold after redistribution, from the global data (testdata.c). */
int shc_testdata_expected(const shc_xcase *c, int64_t rank, shc_xtensor *out, shc_err *e);
/* Redistribute a rank's local tensor over communicator c as torch 2.13 executes the plan. */
int shc_exec_redistribute(shc_comm *comm, const shc_xcase *c, const shc_xtensor *in,
                          shc_xtensor *out, shc_err *e);
/* Run a case on a local communicator of mesh-size threads: out[rank] for every rank. */
int shc_exec_simulate(const shc_xcase *c, shc_xtensor *out, shc_err *e);
/* Execute one step in place on t. */
int shc_exec_step(shc_comm *c, const shc_xcase *x, const shc_plan_step *st, shc_xtensor *t,
                  shc_err *e);
/* Execute a whole plan: *out is a new tensor. */
int shc_exec_plan(shc_comm *c, const shc_xcase *x, const shc_plan *plan, const shc_xtensor *in,
                  shc_xtensor *out, shc_err *e);
/* The plan a rank executes for case x (the case's planner, its dtype's size). */
int shc_exec_plan_for(const shc_xcase *x, int64_t rank, shc_plan *plan, shc_err *e);
/* sha256 of a tensor's bytes as 64 hex chars. */
void shc_xtensor_sha256(const shc_xtensor *t, char out[65]);
/* Value of element i as a double (exact for every supported dtype's small integers). */
double shc_xtensor_value(const shc_xtensor *t, int64_t i);

#ifdef __cplusplus
}
#endif

#endif /* SHARDCHECK_EXEC_H */
