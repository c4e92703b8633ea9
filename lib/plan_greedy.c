/*
 * plan_greedy.c — torch 2.13's greedy redistribute planner
 * (DTensorRedistributePlanner.generate_greedy_transform_infos in
 * torch/distributed/tensor/_redistribute.py), reimplemented:
 *   1. per mesh dim, the logical shape the rank sees before that dim's shard
 *      (only Shard, never _StridedShard, narrows it; the last mesh dim's
 *      shard is never applied);
 *   2. a 1-d mesh is one direct step;
 *   3. when the source is sharded, an inner-to-outer pass that first
 *      replicates any shard whose target shard is misaligned with the
 *      shardings of the same tensor dim on outer mesh dims;
 *   4. an outer-to-inner pass for whatever still differs.
 * Tested by check_plan.c (torch's documented examples) and the
 * redistribute-plan family against torch.
 */
#include "config.h"
#include <string.h>
#include "plan.h"

/* Placement.is_shard(dim): true only for Shard (not _StridedShard). */
static bool is_shard_on(const shc_placement *p, int dim)
{
    return p->kind == SHC_P_SHARD && p->dim == dim;
}

/* Append a step in place (the hot path of the greedy planner). */
static int push(shc_plan *plan, int mesh_dim, const shc_placement *a, const shc_placement *b,
                const shc_shape *shape, shc_err *e)
{
    if (plan->nsteps == plan->cap) {
        shc_plan_step st = {.mesh_dim = mesh_dim};
        int rc = shc_plan_push(plan, &st, e); /* grows the array */
        if (rc)
            return rc;
        plan->nsteps--;
    }
    shc_plan_step *st = &plan->steps[plan->nsteps++];
    st->mesh_dim = mesh_dim;
    st->nmesh_dims = 1;
    st->mesh_dims[0] = mesh_dim;
    st->src = *a;
    st->dst = *b;
    st->logical_shape.ndim = shape->ndim;
    memcpy(st->logical_shape.d, shape->d, (size_t)shape->ndim * sizeof shape->d[0]);
    st->comm = SHC_COMM_NONE;
    st->avg_scale = 0;
    return SHC_OK;
}

/* Number of shards of the spec (DTensorSpec.num_shards: shard-like dims). */
static int64_t num_shards(const shc_mesh *m, const shc_spec *s)
{
    int64_t n = 1;
    for (int i = 0; i < s->n; i++)
        if (shc_is_shard_like(&s->p[i]))
            n *= m->shape[i];
    return n;
}

/* Whether the target shard on mesh_dim is aligned: the mesh dims before it
 * that shard its tensor dim are the same in cur and tgt. */
static bool aligned(const shc_placement *cur, const shc_placement *tgt, int mesh_dim, int dim)
{
    for (int i = 0; i < mesh_dim; i++)
        if (is_shard_on(&cur[i], dim) != is_shard_on(&tgt[i], dim))
            return false;
    return true;
}

int shc_plan_greedy(const shc_plan_ctx *c, const shc_spec *src, const shc_spec *dst,
                    shc_plan *plan, shc_err *e)
{
    const shc_mesh *m = c->mesh;
    int n = m->ndim, rc;
    shc_shape logical[SHC_MAX_MESH_DIMS];
    if ((rc = shc_plan_reserve(plan, 2 * n, e))) /* at most two passes of n steps */
        return rc;
    if (n == 1) {
        if (!shc_placement_eq(&src->p[0], &dst->p[0]))
            return push(plan, 0, &src->p[0], &dst->p[0], &c->shape, e);
        return SHC_OK;
    }
    size_t bytes = (size_t)c->shape.ndim * sizeof c->shape.d[0];
    logical[0].ndim = c->shape.ndim;
    memcpy(logical[0].d, c->shape.d, bytes);
    for (int i = 0; i + 1 < n; i++) {
        logical[i + 1].ndim = c->shape.ndim; /* copy only the dims in use: a hot path */
        memcpy(logical[i + 1].d, logical[i].d, bytes);
        const shc_placement *p = &src->p[i];
        if (p->kind == SHC_P_SHARD)
            logical[i + 1].d[p->dim] = shc_chunk_size(logical[i].d[p->dim], m->shape[i],
                                                      c->coord[i]);
    }
    shc_placement cur[SHC_MAX_MESH_DIMS], tgt[SHC_MAX_MESH_DIMS];
    memcpy(cur, src->p, (size_t)n * sizeof cur[0]);
    memcpy(tgt, dst->p, (size_t)n * sizeof tgt[0]);
    if (num_shards(m, src) > 1) {
        for (int i = n - 1; i >= 0; i--) {
            shc_placement want = tgt[i];
            if (want.kind == SHC_P_SHARD && !aligned(cur, tgt, i, want.dim)) {
                memset(&want, 0, sizeof want);
                want.kind = SHC_P_REPLICATE;
            }
            if (!shc_placement_eq(&cur[i], &want)) {
                if ((rc = push(plan, i, &cur[i], &want, &logical[i], e)))
                    return rc;
                cur[i] = want;
            }
        }
    }
    for (int i = 0; i < n; i++)
        if (!shc_placement_eq(&cur[i], &tgt[i])) {
            if ((rc = push(plan, i, &cur[i], &tgt[i], &logical[i], e)))
                return rc;
            cur[i] = tgt[i];
        }
    return SHC_OK;
}
