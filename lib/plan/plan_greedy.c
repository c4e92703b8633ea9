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
#include <assert.h>
#include <string.h>
#include "plan_internal.h"

/* Placement.is_shard(dim): true only for Shard (not _StridedShard). */
static bool is_shard_on(const shc_placement *p, int dim)
{
    return p->kind == SHC_P_SHARD && p->dim == dim;
}

/* shc_comm_is_collective as a bit set, for the hot path. */
#define COLLECTIVE_KINDS                                                          \
    ((1u << SHC_COMM_ALL_GATHER) | (1u << SHC_COMM_ALL_REDUCE) |                  \
     (1u << SHC_COMM_REDUCE_SCATTER) | (1u << SHC_COMM_ALL_TO_ALL) | (1u << SHC_COMM_STRIDED))
_Static_assert(SHC_COMM_KIND_COUNT <= 32, "COLLECTIVE_KINDS holds one bit per comm kind");


/* Append a step in place, classified (the hot path of the greedy planner:
 * building a 176-byte step on the stack and copying it in cost 10%).  Room
 * for every step was reserved up front. */
static void push(const shc_plan_ctx *c, shc_plan *plan, int mesh_dim, const shc_placement *a,
                 const shc_placement *b, const shc_narrowing *nw)
{
    assert(plan->nsteps < plan->cap);
    assert(mesh_dim >= 0 && mesh_dim < c->mesh->ndim);
    shc_plan_step *st = &plan->steps[plan->nsteps++];
    st->mesh_dim = mesh_dim;
    st->nmesh_dims = 1;
    st->mesh_dims[0] = mesh_dim;
    st->src = *a;
    st->dst = *b;
    st->logical_shape = *c->shape; /* fixed size: inline moves, not a memcpy call */
    for (int j = 0; j < mesh_dim; j++)
        if (nw->dim[j] >= 0) {
            assert(nw->dim[j] < c->shape->ndim); /* shc_plan_narrowing of a checked spec */
            st->logical_shape.d[nw->dim[j]] = nw->val[j];
        }
    st->comm = shc_classify(a, b, c->mesh->shape[mesh_dim], c->opts->torch, &plan->torch_changes,
                            &plan->torch_asked);
    st->avg_scale = 0;
    st->cost = 0.0;
    assert((unsigned)st->comm < SHC_COMM_KIND_COUNT);
    plan->ncollectives += (COLLECTIVE_KINDS >> st->comm) & 1;
}

/* Number of shards of the spec (DTensorSpec.num_shards: shard-like dims; Shard only in
 * torch 2.11, SHC_TC_STRIDED_NOT_SHARD, whose bit goes to *changes where that decides). */
static int64_t num_shards(const shc_plan_ctx *c, const shc_spec *s, shc_plan *plan)
{
    int64_t n = 1, all = 1;
    for (int i = 0; i < s->n; i++)
        if (shc_is_shard_like(&s->p[i])) {
            all *= c->mesh->shape[i];
            if (s->p[i].kind == SHC_P_SHARD)
                n *= c->mesh->shape[i];
        }
    /* the caller asks only whether more than one shard: the row matters where they differ */
    if ((n > 1) == (all > 1) ||
        !shc_torch_ask(c->opts->torch, SHC_TC_STRIDED_NOT_SHARD, &plan->torch_asked))
        return all;
    plan->torch_changes |= 1u << SHC_TC_STRIDED_NOT_SHARD;
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

void shc_plan_narrowing(const shc_mesh *m, const shc_spec *src, const shc_shape *shape,
                        const int64_t *coord, shc_narrowing *nw)
{
    int64_t size[SHC_MAX_TENSOR_DIMS]; /* running logical sizes */
    memcpy(size, shape->d, sizeof size);
    assert(m->ndim >= 1 && m->ndim <= SHC_MAX_MESH_DIMS);
    for (int i = 0; i < m->ndim; i++) {
        const shc_placement *p = &src->p[i];
        nw->dim[i] = -1;
        if (p->kind == SHC_P_SHARD && i + 1 < m->ndim) { /* the last dim's shard is never applied */
            assert(p->dim >= 0 && p->dim < shape->ndim); /* the spec was checked against shape */
            nw->dim[i] = (int8_t)p->dim;
            nw->val[i] = size[p->dim] = shc_chunk_size(size[p->dim], m->shape[i], coord[i]);
        }
    }
}

int shc_plan_greedy(const shc_plan_ctx *c, const shc_spec *src, const shc_spec *dst,
                    shc_plan *plan, shc_err *e)
{
    const shc_mesh *m = c->mesh;
    int n = m->ndim, rc;
    shc_narrowing local;
    const shc_narrowing *nw = c->narrowing;
    if ((rc = shc_plan_reserve(plan, plan->nsteps + 2 * n, e))) /* two passes of n steps */
        return rc;
    if (n == 1) {
        if (!shc_pl_eq(&src->p[0], &dst->p[0]))
            push(c, plan, 0, &src->p[0], &dst->p[0], NULL);
        return SHC_OK;
    }
    if (!nw) {
        shc_plan_narrowing(m, src, c->shape, c->coord, &local);
        nw = &local;
    }
    shc_placement cur[SHC_MAX_MESH_DIMS];
    const shc_placement *tgt = dst->p; /* never written */
    memcpy(cur, src->p, sizeof cur);
    if (num_shards(c, src, plan) > 1) {
        for (int i = n - 1; i >= 0; i--) {
            shc_placement want = tgt[i];
            if (want.kind == SHC_P_SHARD && !aligned(cur, tgt, i, want.dim)) {
                memset(&want, 0, sizeof want);
                want.kind = SHC_P_REPLICATE;
            }
            if (!shc_pl_eq(&cur[i], &want)) {
                push(c, plan, i, &cur[i], &want, nw);
                cur[i] = want;
            }
        }
    }
    for (int i = 0; i < n; i++)
        if (!shc_pl_eq(&cur[i], &tgt[i])) {
            push(c, plan, i, &cur[i], &tgt[i], nw);
            cur[i] = tgt[i];
        }
    return SHC_OK;
}
