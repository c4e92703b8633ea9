/*
 * redistribute_plan_answer.h — one redistribute-plan case's inputs and expected answer
 * (redistribute_plan_answer.c), shared by the family's generator and its compute_rank
 * (redistribute_plan.c).
 */
#ifndef SHC_REDISTRIBUTE_PLAN_ANSWER_H
#define SHC_REDISTRIBUTE_PLAN_ANSWER_H
#include "families.h"

/* A case's inputs, parsed from its group and test JSON. */
typedef struct shcrp_inputs {
    shc_mesh mesh;
    shc_shape shape;
    shc_placements src, dst;
    shc_plan_opts opts;
    char dtype[24]; /* the group's torch dtype: what gloo refuses of it (shc_gloo_step_check) */
} shcrp_inputs;

/* What the planners did across the ranks (the flags the generator sets, the release rows). */
typedef struct shcrp_summary {
    int nreduce_ops;
    bool fallback, merged, unsupported, trace_raises;
    bool exec_raises; /* a rank's local op raises when torch runs its plan (exec_check) */
    bool exec_stalls; /* ... and leaves another rank waiting in a collective (exec_stall) */
    bool reduce_raises; /* a rank's step raises for its reduce op or dtype
                           (shc_plan_raising_step_dtype) */
    uint32_t changes; /* shc_plan.torch_changes over every rank */
    uint32_t asked;   /* shc_plan.torch_asked over every rank */
} shcrp_summary;

/* Read a case's inputs (the mesh is owned: shc_mesh_free(&in->mesh) after a success). */
int shcrp_parse_inputs(const json_t *group, const json_t *test, shcrp_inputs *in,
                       shc_err *e);
/* The expected object for every rank; *alts gets the other reduce-op set orders' answers
 * (NULL when none differ); *sm what the planners did. */
int shcrp_expected_all(shcrp_inputs *in, json_t **out, json_t **alts, shcrp_summary *sm,
                       shc_err *e);
/* shcrp_expected_all through a per-thread memo of the last case (new references): the
 * runner asks once per rank of the same case. */
int shcrp_expected_memo(shcrp_inputs *in, json_t **x, json_t **alts, shc_err *e);
#endif
