/*
 * plan.h — redistribute plans: the data structure shared by the planners
 * (plan_greedy.c, plan_graph.c), the trace strings (trace.c) and plan
 * execution (redistribute_exec.c).  Semantics follow torch 2.13
 * torch/distributed/tensor/_redistribute.py (_TransformInfo, per-rank
 * logical shapes).
 */
#ifndef SHC_PLAN_H
#define SHC_PLAN_H
#include "shardcheck.h"

/* What a step communicates (torch's collective for the transform). */
typedef enum {
    SHC_COMM_NONE,           /* no data movement (e.g. same placement) */
    SHC_COMM_ALL_GATHER,     /* S -> R (padded all-gather, then unpad) */
    SHC_COMM_ALL_REDUCE,     /* P -> R */
    SHC_COMM_REDUCE_SCATTER, /* P -> S (padded) */
    SHC_COMM_ALL_TO_ALL,     /* S(a) -> S(b) */
    SHC_COMM_LOCAL_CHUNK,    /* R -> S (no communication) */
    SHC_COMM_PARTITION,      /* R -> P (no communication; sum divides by n) */
    SHC_COMM_STRIDED,        /* _StridedShard transitions (gather and permute) */
    SHC_COMM_KIND_COUNT
} shc_comm_kind;

/* One transform step, as torch's _TransformInfo. */
typedef struct shc_plan_step {
    int mesh_dim;                 /* first mesh dim (the only one unless merged) */
    int nmesh_dims;               /* > 1 for a merged (flattened) step */
    int mesh_dims[SHC_MAX_MESH_DIMS];
    shc_placement src, dst;
    shc_shape logical_shape;      /* this rank's logical shape before the step */
    shc_comm_kind comm;
} shc_plan_step;

/* A plan for one rank. */
typedef struct shc_plan {
    int nsteps;
    shc_plan_step *steps;         /* malloc'd */
    int ncollectives;             /* steps that communicate */
    char *trace;                  /* torch's stringified transform infos, malloc'd */
} shc_plan;

typedef enum { SHC_PLANNER_AUTO, SHC_PLANNER_GREEDY, SHC_PLANNER_GRAPH } shc_planner;

/* Planner options (defaults: auto, float32, every device on one host). */
typedef struct shc_plan_opts {
    shc_planner planner;
    int dtype_bytes;          /* element size for the cost model */
    int64_t devices_per_host; /* topology for the cost model; 0 = all on one host */
} shc_plan_opts;

#endif
