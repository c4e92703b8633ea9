/*
 * shardcheck_view.h — sharding propagation for view-like ops (installed; shardcheck.h includes
 * it): torch 2.13's rule for an op (lib/layout/view_map.c, view_rule.c) and whether its answer
 * is right (lib/layout/view_check.c).
 *
 * An op (view, reshape, flatten, unflatten, squeeze, unsqueeze, permute, transpose) and its
 * arguments are first turned into a dim map: for each output dim, how it is made from input
 * dims (an input dim, a singleton, a flatten of input dims, or one piece of a split of an input
 * dim or of a flatten).  The rule then walks the map with the input placements and gives the
 * placements the input is redistributed to first and the output's placements, or torch's
 * exception where the rule raises (torch/distributed/tensor/_ops/_view_ops.py).  The check then
 * asks whether each rank's local result (its input shard, redistributed as the rule asks, with
 * the op run locally as DTensor runs it) equals its slice of the op applied to the global
 * tensor, as the output placements name the slice: index arithmetic, element by element.
 *
 * Tested by conformance/tests/check_view.c (hand-derived cases), conformance/tests/cli_view.sh
 * and, against torch 2.13's own propagate_shape_and_sharding and LocalTensor runs, by
 * tools/harness/tests/test_view_sharding.py.
 */
#ifndef SHARDCHECK_VIEW_H
#define SHARDCHECK_VIEW_H

#include <stdbool.h>
#include <stdint.h>
/* shc_shape, shc_mesh, shc_placements, shc_err: shardcheck.h, which includes this header at
 * its end (include it, not this one). */

#ifdef __cplusplus
extern "C" {
#endif
typedef enum {
    SHC_VOP_VIEW,      /* Tensor.view(shape): aten.view, strict */
    SHC_VOP_RESHAPE,   /* aten.reshape.default's registered rule, not strict */
    SHC_VOP_FLATTEN,   /* Tensor.flatten(start, end): dispatches as aten.view */
    SHC_VOP_UNFLATTEN, /* Tensor.unflatten(dim, sizes): dispatches as aten.view */
    SHC_VOP_SQUEEZE,   /* Tensor.squeeze(dims) (none: every dim), strict */
    SHC_VOP_UNSQUEEZE, /* Tensor.unsqueeze(dim) */
    SHC_VOP_PERMUTE,   /* Tensor.permute(dims) */
    SHC_VOP_TRANSPOSE  /* Tensor.transpose(d0, d1) */
} shc_vop_kind;

/* An op and its arguments as the user wrote them (negative dims, one -1 size allowed). */
typedef struct shc_vop {
    shc_vop_kind kind;
    int nargs;                        /* sizes / dims as written */
    int64_t args[SHC_MAX_TENSOR_DIMS];
    bool all_dims;                    /* squeeze(): no dims given */
    int64_t dim0, dim1;               /* flatten start/end, unflatten dim, unsqueeze dim,
                                       * transpose dims */
} shc_vop;

/* One output dim of a dim map (torch's DimSpec, restricted to what these ops produce). */
typedef enum { SHC_VS_INPUT, SHC_VS_SINGLETON, SHC_VS_FLATTEN, SHC_VS_SPLIT } shc_vspec_kind;
typedef struct shc_vspec {
    shc_vspec_kind kind;
    int nin;                          /* INPUT: 1; FLATTEN: >= 2; SPLIT: 1 or (a flatten) >= 2 */
    int in[SHC_MAX_TENSOR_DIMS];
    int ngroup;                       /* SPLIT: the group's sizes, singletons removed */
    int64_t group[SHC_MAX_TENSOR_DIMS];
    int split_id;
} shc_vspec;

typedef struct shc_vmap {
    int n;                            /* output ndim */
    shc_vspec d[SHC_MAX_TENSOR_DIMS];
    bool strict;                      /* torch 2.13's strict_view for this op */
    shc_vop_kind op;                  /* the op the map is of (releases register ops apart) */
    bool dims_list;                   /* squeeze given dims: aten.squeeze.dims */
} shc_vmap;

/* What the rule gives.  raises: torch's rule raises (exception class and message in error);
 * otherwise tgt is what the input is redistributed to and out the output's placements. */
typedef struct shc_vrule {
    bool raises;
    char error[SHC_ERR_MAX];
    shc_placements tgt, out;
    bool redistribute;                /* tgt differs from the input's placements */
    bool squeeze_local;               /* the local squeeze drops the rank's own size-1 dims
                                       * (torch 2.11: no rewrite to the global ones) */
} shc_vrule;

/* Parse an op spec: "view:16,6", "reshape:-1,4", "flatten:0,1" ("flatten" = flatten()),
 * "unflatten:1:2,4", "squeeze" / "squeeze:0,2", "unsqueeze:1", "permute:1,0",
 * "transpose:0,1".  SHC_EINVAL naming the part that does not parse. */
int shc_vop_parse(shc_vop *op, const char *s, shc_err *e);
/* Format the op back as torch spells the call ("view(16, 6)"). */
void shc_vop_format(const shc_vop *op, char *buf, size_t n);

/* The op on a global shape: its output shape and dim map.  Bad arguments are SHC_EINVAL with
 * the error torch raises on a plain tensor ("RuntimeError: only one dimension can be
 * inferred", "IndexError: Dimension out of range ..."); SHC_EOVERFLOW where sizes overflow;
 * SHC_EUNSUPPORTED for what the rule is not modelled on (a view of an empty tensor). */
int shc_vop_apply(const shc_vop *op, const shc_shape *in, shc_shape *out, shc_vmap *map,
                  shc_err *e);

/* torch 2.13's propagate_shape_and_sharding for the map.  The input placements must already
 * be checked against the mesh and the input shape (normalised, no shard order: torch's view
 * rule reads placements only).  SHC_OK with r->raises where torch's rule raises. */
int shc_vrule_propagate(const shc_vmap *map, const shc_shape *in, const shc_mesh *m,
                        const shc_placements *src, shc_vrule *r, shc_err *e);
/* The rule as torch release rel runs it (SHC_TORCH_PINNED: 2.13; 2.11's one-pass rule, 2.12's
 * differences: the ViewRuleLegacy, ViewStrictReplicates, FlattenSplitRaises and
 * SqueezeNotStrict rows of lib/core/torch_release.c); *asked |= the rows it read (NULL: not
 * recorded). */
int shc_vrule_propagate_in(const shc_vmap *map, const shc_shape *in, const shc_mesh *m,
                           const shc_placements *src, shc_torch_release rel, uint32_t *asked,
                           shc_vrule *r, shc_err *e);

typedef enum {
    SHC_VV_CORRECT,     /* every rank holds its slice */
    SHC_VV_WRONG,       /* a rank holds other elements than its slice */
    SHC_VV_SHAPE,       /* a rank's local result has another shape than its slice */
    SHC_VV_LOCAL_ERROR, /* the local op fails on a rank (its sizes do not fit the shard) */
    SHC_VV_RAISES       /* torch's rule raises: nothing runs */
} shc_vverdict;

typedef struct shc_vrank {
    int64_t rank;
    shc_shape in_local;    /* the input shard after the redistribution */
    shc_shape got_local;   /* the local op's result shape (unset where it fails) */
    shc_shape want_local;  /* the output placements' slice of the global result */
    shc_vverdict status;
    char error[SHC_ERR_MAX];            /* SHC_VV_LOCAL_ERROR: torch's error on the rank */
    int64_t first;                      /* SHC_VV_WRONG: first wrong element, local flat index */
    int64_t got[SHC_MAX_TENSOR_DIMS];   /* ... the global output index it holds */
    int64_t want[SHC_MAX_TENSOR_DIMS];  /* ... and the one its slice names */
} shc_vrank;

typedef struct shc_vcheck {
    shc_vverdict verdict;
    int64_t first_rank;    /* the first rank (mesh order) that is not right; -1 if none */
    int64_t nranks;
    shc_vrank *ranks;      /* in mesh order; NULL when the rule raises */
} shc_vcheck;

/* Check the rule's answer r for op (map from shc_vop_apply, in -> out global shapes).
 * SHC_EUNSUPPORTED where the elements to compare exceed the check's limit. */
int shc_vcheck_run(const shc_vop *op, const shc_vmap *map, const shc_shape *in,
                   const shc_shape *out, const shc_mesh *m, const shc_vrule *r, shc_vcheck *c,
                   shc_err *e);
void shc_vcheck_free(shc_vcheck *c);
/* "correct", "wrong", "wrong-shape", "local-error", "rule-raises". */
const char *shc_vverdict_name(shc_vverdict v);

#ifdef __cplusplus
}
#endif

#endif
