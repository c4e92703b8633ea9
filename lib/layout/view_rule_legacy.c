/*
 * view_rule_legacy.c — torch 2.11's sharding rule for view-like ops, reimplemented: the
 * one-pass propagate_shape_and_sharding that torch 2.12 replaced with the two-phase
 * propagator of view_rule.c (release row ViewRuleLegacy, lib/core/torch_release.c).
 *
 * Reference (torch 2.11.0): torch/distributed/tensor/_ops/_view_ops.py:504-693.  One walk
 * over the output dims asks, per dim, which input dim it may be sharded on
 * (get_in_dim_to_shard) and fills, per input dim and mesh dim, whether a shard may stay:
 *  - a flatten keeps a shard only on its first dim, and only if that dim divides evenly;
 *  - a split keeps a shard on its first piece where that piece's size divides by the mesh
 *    dim; every piece re-walks a split's flatten, so a later piece resets what the first
 *    decided (the rule behind pytorch#179502's wrong answer);
 *  - a _StridedShard keeps its split factor whatever the op: only its dim is renamed.
 * Quirks kept on purpose, each as torch 2.11.0 runs it:
 *  - two of its RuntimeErrors are built with two arguments, so their text is Python's tuple
 *    repr ("('Attempted to flatten ...', 'It cannot be ...')"), :577-581 and :624-628;
 *  - its assertion that a split's first piece divides by the mesh dims sharding it compares
 *    a placement's int dim with an InputDim object (:632-635), which is never equal: the
 *    product is always 1 and the assertion never fires, so it is not modelled;
 *  - squeeze: squeeze.default runs on the rank's local tensor, dropping the rank's own
 *    size-1 dims (r->squeeze_local; torch 2.12 added _adjust_squeeze_to_global_singletons),
 *    and squeeze.dims, a list of dims, has no strategy (:760-766 register only squeeze.default
 *    and squeeze.dim).
 *
 * Tested by conformance/tests/check_view.c (hand-derived 2.11 cases) and, against torch
 * 2.11.0's own function and real dispatch, by the harness run on that release
 * (tools/scripts/torch_matrix.sh).
 */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include "shardcheck.h"
#include "view_internal.h"

#define NONE (-1)
#define NOT_PERFORMED "It cannot be performed without redistribution, which is disallowed by " \
                      "the current operator."

typedef struct legacy {
    const shc_vmap *map;
    const shc_shape *in;
    const shc_mesh *m;
    const shc_placements *src;
    bool strict;
    bool shardable[SHC_MAX_TENSOR_DIMS][SHC_MAX_MESH_DIMS];
    int out_of[SHC_MAX_TENSOR_DIMS]; /* shard_dim_map: input dim -> output dim, or NONE */
    shc_vrule *r;
} legacy;

static bool fail(legacy *g, const char *msg)
{
    snprintf(g->r->error, sizeof g->r->error, "%s", msg);
    g->r->raises = true;
    return false;
}

/* maybe_get_shard_mesh_dim_and_placement: the first mesh dim sharding dim (Shard or
 * _StridedShard), or NONE. */
static int shard_mesh_dim(const legacy *g, int dim)
{
    for (int k = 0; k < g->src->n; k++) {
        const shc_placement *q = &g->src->p[k];
        if ((q->kind == SHC_P_SHARD || q->kind == SHC_P_STRIDED) && q->dim == dim)
            return k;
    }
    return NONE;
}

static void set_all(legacy *g, int dim, bool v)
{
    for (int k = 0; k < g->m->ndim; k++)
        g->shardable[dim][k] = v;
}

/* The Flatten branch of get_in_dim_to_shard over the spec's input dims; *dim = the first. */
static bool flatten_dims(legacy *g, const shc_vspec *s, int *dim)
{
    char msg[SHC_ERR_MAX];
    for (int i = 0; i < s->nin; i++) {
        int d = s->in[i], k = shard_mesh_dim(g, d);
        bool can = true;
        if (i > 0) {
            can = false;
            if (g->strict && k != NONE) {
                snprintf(msg, sizeof msg, "RuntimeError: ('Attempted to flatten multiple "
                         "dimensions, with dimension %d being sharded. ', '" NOT_PERFORMED
                         "')", d);
                return fail(g, msg);
            }
        } else if (k != NONE && g->in->d[d] % g->m->shape[k] != 0) {
            can = false;
            if (g->strict) {
                snprintf(msg, sizeof msg, "RuntimeError: Attempted to flatten unevenly sharded "
                         "dimension %d, which would require resharding the input. Please "
                         "explicitly redistribute the tensor instead.", i);
                return fail(g, msg);
            }
        }
        set_all(g, d, can);
    }
    *dim = s->in[0];
    return true;
}

/* get_in_dim_to_shard for one output dim: *dim the input dim it may shard on, or NONE. */
static bool in_dim_to_shard(legacy *g, const shc_vspec *s, int *dim)
{
    *dim = NONE;
    switch (s->kind) {
    case SHC_VS_INPUT:
        *dim = s->in[0];
        return true;
    case SHC_VS_FLATTEN:
        return flatten_dims(g, s, dim);
    case SHC_VS_SPLIT:
        break;
    default:
        return true;
    }
    int d = s->in[0];
    if (s->nin > 1 && !flatten_dims(g, s, &d))
        return false;
    if (s->split_id != 0)
        return true;
    int64_t out_size = s->group[0];
    for (int k = 0; k < g->m->ndim; k++)
        g->shardable[d][k] = out_size % g->m->shape[k] == 0;
    int k = shard_mesh_dim(g, d);
    if (g->strict && k != NONE && !g->shardable[d][k]) {
        char msg[SHC_ERR_MAX];
        snprintf(msg, sizeof msg, "RuntimeError: ('Attempted to split the sharded dimension %d "
                 "into multiple subdimensions. ', '" NOT_PERFORMED "')", d);
        return fail(g, msg);
    }
    *dim = d;
    return true;
}

bool shc_vrule_legacy(const shc_vmap *map, const shc_shape *in, const shc_mesh *m,
                      const shc_placements *src, bool strict, shc_vrule *r)
{
    legacy st = {.map = map, .in = in, .m = m, .src = src, .strict = strict, .r = r}, *g = &st;
    if (map->op == SHC_VOP_SQUEEZE && map->dims_list)
        return fail(g, "NotImplementedError: Operator aten.squeeze.dims does not have a "
                    "sharding strategy registered.");
    bool seen[SHC_MAX_TENSOR_DIMS] = {0};
    for (int o = 0; o < map->n; o++)
        for (int i = 0; i < map->d[o].nin; i++)
            seen[map->d[o].in[i]] = true;
    for (int d = 0; d < in->ndim; d++) {
        set_all(g, d, seen[d]);
        g->out_of[d] = NONE;
    }
    for (int o = 0; o < map->n; o++) {
        int d;
        if (!in_dim_to_shard(g, &map->d[o], &d))
            return false;
        if (d != NONE)
            g->out_of[d] = o;
    }
    r->tgt = *src;
    r->out = *src;
    r->out.has_order = false;
    for (int k = 0; k < src->n; k++) {
        const shc_placement *q = &src->p[k];
        if (q->kind != SHC_P_SHARD && q->kind != SHC_P_STRIDED)
            continue;
        if (!g->shardable[q->dim][k]) {
            r->tgt.p[k] = r->out.p[k] = (shc_placement){.kind = SHC_P_REPLICATE};
            continue;
        }
        if (g->out_of[q->dim] == NONE) {
            char msg[64];
            snprintf(msg, sizeof msg, "KeyError: %d", q->dim);
            return fail(g, msg);
        }
        r->out.p[k].dim = g->out_of[q->dim]; /* a _StridedShard keeps its split factor */
    }
    r->squeeze_local = map->op == SHC_VOP_SQUEEZE;
    return true;
}
