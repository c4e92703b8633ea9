/*
 * plan_merge.c — torch 2.13's step merging after planning
 * (_optimize_transform_infos in torch/distributed/tensor/_redistribute.py):
 * runs of consecutive all-gathers, all-reduces or reduce-scatters with
 * mergeable placements become one step over a flattened mesh when one was
 * explicitly created for exactly those mesh dims.  Rules reproduced as torch
 * has them, quirks included:
 *   - all-gathers merge only in descending mesh-dim order, reduce-scatters
 *     only ascending; all-reduces in any order;
 *   - sum and avg partials merge (the merged source is P(sum) and the
 *     result is divided by the product of the avg dims' sizes);
 *   - a reduce-scatter needs the outermost logical size divisible by the
 *     flattened size, but an all-gather has no such check (audit reports
 *     it when nested uneven shards make the flat gather's chunks differ);
 *   - a run that cannot be flattened is kept as is, never split.
 * Tested by check_plan.c and the redistribute-plan family against torch.
 */
#include "config.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plan_internal.h"

typedef enum { KEY_NONE, KEY_ALL_GATHER, KEY_ALL_REDUCE, KEY_REDUCE_SCATTER, KEY_ALL_TO_ALL } key;

/* Whether p counts as a shard for _comm_type_key: _is_shard_like, or Placement.is_shard()
 * (Shard only) in torch 2.11 (SHC_TC_STRIDED_NOT_SHARD). */
static bool key_shard(const shc_placement *p, bool shard_only)
{
    return shard_only ? p->kind == SHC_P_SHARD : shc_is_shard_like(p);
}

/* _TransformInfo._comm_type_key */
static key comm_key_in(const shc_plan_step *st, bool shard_only)
{
    const shc_placement *a = &st->src, *b = &st->dst;
    if (a->kind == SHC_P_PARTIAL && b->kind == SHC_P_REPLICATE)
        return KEY_ALL_REDUCE;
    if (a->kind == SHC_P_PARTIAL && key_shard(b, shard_only))
        return KEY_REDUCE_SCATTER;
    if (key_shard(a, shard_only) && b->kind == SHC_P_REPLICATE)
        return KEY_ALL_GATHER;
    if (key_shard(a, shard_only) && key_shard(b, shard_only))
        return KEY_ALL_TO_ALL;
    return KEY_NONE;
}

static key comm_key(const shc_plan_step *st)
{
    return comm_key_in(st, false);
}

bool shc_plan_step_gathers(const shc_plan_step *st)
{
    return comm_key(st) == KEY_ALL_GATHER;
}

/* The key of st in the planning release; a step whose key the release changes sets the
 * change's bit in plan->torch_changes. */
static key comm_key_for(const shc_plan_ctx *c, shc_plan *plan, const shc_plan_step *st)
{
    key k = comm_key_in(st, false), k11 = comm_key_in(st, true);
    if (k11 == k || !shc_torch_ask(c->opts->torch, SHC_TC_STRIDED_NOT_SHARD, &plan->torch_asked))
        return k;
    plan->torch_changes |= 1u << SHC_TC_STRIDED_NOT_SHARD;
    return k11;
}

static bool mergeable_key(key k)
{
    return k == KEY_ALL_GATHER || k == KEY_ALL_REDUCE || k == KEY_REDUCE_SCATTER;
}

static bool sum_or_avg(const shc_placement *p)
{
    return p->kind == SHC_P_PARTIAL && (p->op == SHC_OP_SUM || p->op == SHC_OP_AVG);
}

/* are_placements_mergeable */
static bool placements_mergeable(const shc_plan_step *x, const shc_plan_step *y)
{
    if (shc_placement_eq(&x->src, &y->src) && shc_placement_eq(&x->dst, &y->dst))
        return true;
    return shc_placement_eq(&x->dst, &y->dst) && sum_or_avg(&x->src) && sum_or_avg(&y->src);
}

/* Whether a flattened mesh spans mesh dims `mask`: torch 2.13 compares layouts
 * (_get_flattened_mesh_by_layout_impl: the sorted dims' slice layout, collapsed, against each
 * flattened mesh's), and size-1 dims leave a layout, so both sides are compared without them
 * (a flatten of 0+2+1 on 2x1x2 is the mesh of dims 0 and 2). */
static bool has_flattened(const shc_plan_ctx *c, unsigned mask)
{
    unsigned ones = 0;
    for (int d = 0; d < c->mesh->ndim; d++)
        if (c->mesh->shape[d] == 1)
            ones |= 1u << d;
    for (int i = 0; i < c->opts->nflattened; i++)
        if ((c->opts->flattened[i] & ~ones) == (mask & ~ones))
            return true;
    return false;
}

/* try_create_flattened for steps g[0..n); false when torch keeps them apart. */
static bool flatten(const shc_plan_ctx *c, const shc_plan_step *g, int n, shc_plan_step *out)
{
    key k = comm_key(&g[0]);
    unsigned mask = 0;
    bool asc = true, desc = true;
    for (int i = 0; i < n; i++) {
        mask |= 1u << g[i].mesh_dim;
        if (i > 0) {
            asc &= g[i - 1].mesh_dim < g[i].mesh_dim;
            desc &= g[i - 1].mesh_dim > g[i].mesh_dim;
        }
    }
    if ((k == KEY_REDUCE_SCATTER && !asc) || (k == KEY_ALL_GATHER && !desc))
        return false; /* non_ascending_mesh_dims */
    if (!has_flattened(c, mask))
        return false; /* no_flattened_mesh */
    int outer = 0;
    if (k != KEY_ALL_REDUCE) { /* Python max(): the first of the largest */
        int dim = k == KEY_ALL_GATHER ? g[0].src.dim : g[0].dst.dim;
        for (int i = 1; i < n; i++)
            if (g[i].logical_shape.d[dim] > g[outer].logical_shape.d[dim])
                outer = i;
        if (k == KEY_REDUCE_SCATTER) {
            int64_t prod = 1;
            for (int i = 0; i < n; i++)
                prod *= c->mesh->shape[g[i].mesh_dim];
            if (g[outer].logical_shape.d[dim] % prod != 0)
                return false; /* uneven_tensor_shape */
        }
    }
    memset(out, 0, sizeof *out);
    out->src = g[0].src;
    out->dst = g[0].dst;
    out->logical_shape = g[outer].logical_shape;
    for (int d = 0; d < SHC_MAX_MESH_DIMS; d++)
        if (mask & (1u << d))
            out->mesh_dims[out->nmesh_dims++] = d;
    out->mesh_dim = out->mesh_dims[0];
    if (g[0].src.kind == SHC_P_PARTIAL) {
        int64_t scale = 1;
        for (int i = 0; i < n; i++)
            if (g[i].src.op == SHC_OP_AVG)
                scale *= c->mesh->shape[g[i].mesh_dim];
        if (scale > 1) {
            out->avg_scale = scale;
            out->src.op = SHC_OP_SUM;
        }
    }
    return true;
}

int shc_plan_merge(const shc_plan_ctx *c, shc_plan *plan, shc_err *e)
{
    if (plan->nsteps < 2)
        return SHC_OK;
    shc_plan merged = *plan;
    merged.steps = NULL;
    merged.nsteps = merged.cap = 0;
    merged.steps_external = false;
    int rc = SHC_OK;
    for (int i = 0; i < plan->nsteps && rc == SHC_OK;) {
        const shc_plan_step *st = &plan->steps[i];
        if (!mergeable_key(comm_key_for(c, &merged, st))) {
            rc = shc_plan_push(&merged, st, e);
            i++;
            continue;
        }
        int j = i + 1;
        while (j < plan->nsteps && mergeable_key(comm_key_for(c, &merged, &plan->steps[j])) &&
               placements_mergeable(&plan->steps[j], st))
            j++;
        shc_plan_step flat;
        if (j - i >= 2 && flatten(c, st, j - i, &flat)) {
            rc = shc_plan_push(&merged, &flat, e);
        } else {
            for (int k = i; k < j && rc == SHC_OK; k++)
                rc = shc_plan_push(&merged, &plan->steps[k], e);
        }
        i = j;
    }
    if (rc) {
        free(merged.steps);
        return rc;
    }
    if (!plan->steps_external)
        free(plan->steps);
    *plan = merged;
    return SHC_OK;
}
