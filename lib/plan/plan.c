/*
 * plan.c — the redistribute-planning entry point: validate the request as
 * torch 2.13's redistribute_local_tensor does, build the two DTensorSpecs
 * (shard order given, default, or encoded by _StridedShard), choose the
 * planner by _gen_transform_infos_non_cached's rule, run it (falling back to
 * greedy when _StridedShard cannot be decoded, as torch does), merge steps
 * (_optimize_transform_infos), classify each step's communication and
 * stringify the trace.  The helpers every planner shares are plan_core.c's,
 * which calls nothing back here.
 * Tested by check_plan.c, cli_plan.sh and the redistribute-plan family,
 * which the harness recomputes with torch 2.13.
 */
#include "config.h"
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "plan_internal.h"
#include "cost_model.h"
#include "checked_math.h"

/* ---- validation and spec building ---- */

static int check_placements(const char *which, const shc_placements *pl, const shc_mesh *m,
                            const shc_shape *shape, shc_err *e)
{
    if (pl->n != m->ndim)
        return shc_fail(e, SHC_EINVAL, "%s: %d placements for a %d-d mesh (torch: dimensions "
                        "mismatch %d vs %d)", which, pl->n, m->ndim, pl->n, m->ndim);
    const shc_placement *first = NULL;
    for (int i = 0; i < pl->n; i++) {
        const shc_placement *p = &pl->p[i];
        if (shc_is_shard_like(p) && p->dim >= shape->ndim) {
            char one[48];
            shc_placement_format(p, one, sizeof one);
            return shc_fail(e, SHC_EINVAL, "%s: placement %d '%s' shards dim %d of a %d-d tensor",
                            which, i, one, p->dim, shape->ndim);
        }
        if (p->kind != SHC_P_PARTIAL)
            continue;
        if (!first)
            first = p;
        else if (shc_partial_mixes(first, p))
            return shc_fail(e, SHC_EINVAL, "%s: Mixed Partial reduce types are not supported in "
                            "the same placement list. Found reduce ops: {'%s', '%s'}. (torch "
                            "2.13 assert_no_mixed_partial_types)", which,
                            shc_placement_op_name(first), shc_placement_op_name(p));
    }
    return SHC_OK;
}

/* Build a DTensorSpec from parsed placements, as DTensorSpec.__post_init__. */
static int build_spec(const char *which, const shc_placements *pl, const shc_plan_opts *o,
                      shc_spec *s, shc_err *e)
{
    s->n = pl->n;
    s->so_lazy = false;
    bool strided = false;
    for (int i = 0; i < pl->n; i++) {
        s->p[i] = pl->p[i];
        strided |= pl->p[i].kind == SHC_P_STRIDED;
    }
    s->strided_as_order = strided && !o->strided_literal;
    if (s->strided_as_order) {
        if (pl->has_order)
            return shc_fail(e, SHC_EINVAL, "%s: DTensorSpec doesn't allow specify shard_order when "
                            "use_strided_shard_as_shard_order is True. This may result in "
                            "conflicting shard order.", which);
        return SHC_OK;
    }
    s->so_lazy = !pl->has_order; /* the default order is filled only if needed */
    if (!pl->has_order)
        return SHC_OK;
    shc_default_shard_order(s->p, s->n, &s->so);
    /* explicit order: pl->order[i] is mesh dim i's position in its tensor dim */
    for (int i = 0; i < pl->n; i++)
        if (shc_is_shard_like(&pl->p[i]))
            s->so.md[pl->p[i].dim][pl->order[i]] = (int8_t)i;
    return SHC_OK;
}

/* ---- the entry point ---- */

/* Normalize a spec for the graph planner (_try_normalize_spec); false when
 * its _StridedShard placements cannot be decoded. */
static bool normalize_spec(const shc_mesh *m, const shc_spec *in, shc_spec *out)
{
    *out = *in;
    if (!in->strided_as_order)
        return true;
    if (!shc_strided_to_shard_order(m, in->p, in->n, &out->so))
        return false;
    for (int i = 0; i < in->n; i++)
        if (in->p[i].kind == SHC_P_STRIDED)
            out->p[i].kind = SHC_P_SHARD, out->p[i].split_factor = 0;
    out->strided_as_order = false;
    return true;
}

static void fill_order(shc_spec *s)
{
    if (s->so_lazy)
        shc_default_shard_order(s->p, s->n, &s->so);
    s->so_lazy = false;
}

static bool use_graph(const shc_plan_opts *o, const shc_spec *src, const shc_spec *dst)
{
    bool non_default = src->strided_as_order || dst->strided_as_order ||
                       (!src->so_lazy && !shc_shard_order_is_default(&src->so)) ||
                       (!dst->so_lazy && !shc_shard_order_is_default(&dst->so));
    bool strided = false;
    for (int i = 0; i < src->n; i++)
        strided |= src->p[i].kind == SHC_P_STRIDED || dst->p[i].kind == SHC_P_STRIDED;
    if (non_default || strided)
        return true;
    return o->planner == SHC_PLANNER_GRAPH;
}

static int run_planner(const shc_plan_ctx *c, shc_spec *src, shc_spec *dst, shc_plan *out,
                       shc_err *e)
{
    if (!use_graph(c->opts, src, dst)) {
        out->used = SHC_PLANNER_GREEDY;
        return shc_plan_greedy(c, src, dst, out, e);
    }
    fill_order(src);
    fill_order(dst);
    shc_spec ns, nd;
    out->used = SHC_PLANNER_GRAPH;
    bool src_ok = normalize_spec(c->mesh, src, &ns);
    if (src_ok && normalize_spec(c->mesh, dst, &nd))
        return shc_plan_graph(c, &ns, &nd, out, e);
    if (shc_torch_ask(c->opts->torch, SHC_TC_STRIDED_NO_FALLBACK, &out->torch_asked)) {
        /* torch 2.11: DTensorSpec._normalize_placements_into_shard_order raises (src first) */
        shc_placements pl = {.n = src_ok ? dst->n : src->n};
        memcpy(pl.p, src_ok ? dst->p : src->p, sizeof pl.p);
        char r[512];
        shc_placements_repr(&pl, r, sizeof r);
        out->torch_changes |= 1u << SHC_TC_STRIDED_NO_FALLBACK;
        return shc_fail(e, SHC_EINVAL, "use_strided_shard_as_shard_order is True, but "
                        "placements: %s is unable to be interpreted into a corresponding "
                        "shard_order", r);
    }
    /* torch >= 2.12 _gen_transform_infos_non_cached: _StridedShardNotDecodableError
     * -> generate_greedy_transform_infos on the raw specs */
    out->used = SHC_PLANNER_GREEDY;
    out->strided_fallback = true;
    return shc_plan_greedy(c, src, dst, out, e);
}

int shc_plan_prepare(shc_plan_req *r, const shc_mesh *m, const shc_placements *src,
                     const shc_placements *dst, const shc_shape *shape,
                     const shc_plan_opts *opts, shc_err *e)
{
    if (opts)
        r->opts = *opts;
    else
        shc_plan_opts_init(&r->opts);
    r->mesh = m;
    r->shape = *shape;
    r->coord_rank = -1;
    r->cache_path = false;
    r->path = NULL;
    int rc;
    if ((rc = check_placements("src", src, m, shape, e)) ||
        (rc = check_placements("dst", dst, m, shape, e)) ||
        (rc = build_spec("src", src, &r->opts, &r->src, e)) ||
        (rc = build_spec("dst", dst, &r->opts, &r->dst, e)))
        return rc;
    if (r->opts.dtype_bytes < 1 || r->opts.devices_per_host < 0)
        return shc_fail(e, SHC_EINVAL, "plan options: dtype size %d and devices per host %lld "
                        "must be positive", r->opts.dtype_bytes,
                        (long long)r->opts.devices_per_host);
    r->greedy = !use_graph(&r->opts, &r->src, &r->dst);
    return SHC_OK;
}

int shc_plan_run(shc_plan_req *r, int64_t rank, shc_plan *out, shc_err *e)
{
    int rc;
    if (rank != r->coord_rank) { /* cached: a mesh coordinate costs a division per dim */
        if ((rc = shc_mesh_coord(r->mesh, rank, r->coord, e)))
            return rc;
        if (r->greedy)
            shc_plan_narrowing(r->mesh, &r->src, &r->shape, r->coord, &r->narrowing);
        r->coord_rank = rank;
    }
    /* keep the step storage, reset everything else */
    shc_plan_step *steps = out->steps;
    int cap = out->cap;
    bool ext = out->steps_external;
    if (out->trace)
        free(out->trace);
    memset(out, 0, sizeof *out);
    out->steps = steps, out->cap = cap, out->steps_external = ext;
    shc_plan_ctx c = {.mesh = r->mesh, .coord = r->coord, .shape = &r->shape, .opts = &r->opts,
                      .narrowing = r->greedy ? &r->narrowing : NULL,
                      .path = r->cache_path ? &r->path : NULL};
    /* the planners may fill a lazy default order: work on copies (a spec is ~300 bytes,
     * so copy only when the graph planner or the trace needs them) */
    const shc_plan_opts *o = &r->opts;
    shc_spec s_copy, d_copy, *s = &r->src, *d = &r->dst;
    bool greedy = r->greedy;
    if (!greedy) {
        s_copy = r->src, d_copy = r->dst, s = &s_copy, d = &d_copy;
    }
    if ((rc = greedy ? (out->used = SHC_PLANNER_GREEDY, shc_plan_greedy(&c, s, d, out, e))
                     : run_planner(&c, s, d, out, e)))
        goto fail;
    bool merged = o->merge && o->nflattened > 0; /* without a flattened mesh nothing merges */
    if (merged && (rc = shc_plan_merge(&c, out, e)))
        goto fail;
    if (o->trace) {
        if (s == &r->src) {
            s_copy = r->src;
            s = &s_copy;
        }
        fill_order(s);
        if ((rc = shc_plan_trace(&c, s, out, e)))
            goto fail;
    }
    if (!greedy || merged || out->strided_fallback)
        shc_plan_classify(&c, out); /* greedy classified its steps as it pushed them */
    return SHC_OK;
fail:
    shc_plan_free(out); /* keeps torch_changes: which release row made it fail */
    return rc;
}

void shc_plan_req_cache(shc_plan_req *r)
{
    r->cache_path = true;
}

void shc_plan_req_free(shc_plan_req *r)
{
    shc_graph_path_free(r->path);
    r->path = NULL;
}

int shc_plan_each_rank(const shc_mesh *m, const shc_placements *src, const shc_placements *dst,
                       const shc_shape *shape, const shc_plan_opts *opts, const int64_t *ranks,
                       int64_t n, shc_plan_rank_fn fn, void *ctx, shc_err *e)
{
    shc_plan_req r;
    shc_plan p;
    memset(&p, 0, sizeof p);
    int rc = shc_plan_prepare(&r, m, src, dst, shape, opts, e);
    if (rc)
        return rc;
    shc_plan_req_cache(&r);
    for (int64_t i = 0; i < n && rc == SHC_OK; i++)
        if ((rc = shc_plan_run(&r, ranks[i], &p, e)) == SHC_OK)
            rc = fn(ctx, ranks[i], &p, e);
    shc_plan_free(&p);
    shc_plan_req_free(&r);
    return rc;
}

int shc_plan_uses_greedy(const shc_mesh *m, const shc_placements *src, const shc_placements *dst,
                         const shc_shape *shape, const shc_plan_opts *opts, bool *greedy,
                         shc_err *e)
{
    shc_plan_req r;
    int rc = shc_plan_prepare(&r, m, src, dst, shape, opts, e);
    *greedy = rc == SHC_OK && r.greedy;
    return rc;
}

int shc_plan_compute(const shc_mesh *m, const shc_placements *src, const shc_placements *dst,
                     const shc_shape *shape, const shc_plan_opts *opts, int64_t rank,
                     shc_plan *out, shc_err *e)
{
    shc_plan_req r;
    memset(out, 0, sizeof *out);
    int rc = shc_plan_prepare(&r, m, src, dst, shape, opts, e);
    return rc ? rc : shc_plan_run(&r, rank, out, e);
}

/* torch's redistribute_cost(current, target) (_collective_utils.py 2.13): what DTensor's
 * sharding strategies price a redistribution at.  In torch's order: a replicated source, or
 * the same placements and shard order, is free; a rank off the mesh prices nothing; a spec
 * whose _StridedShard encodes the order has no shard_order (None), which is inf; else the
 * plan _gen_transform_infos makes (torch's choice of planner, which opts->planner forces as
 * use_min_cost_redistribution_plan(enabled) does; steps not merged: merging happens only in
 * redistribute_local_tensor) priced step by step from spec_to_bytes / num_shards, a step of
 * inf cost making the whole inf. */
int shc_plan_redistribute_cost(const shc_mesh *m, const shc_placements *src,
                               const shc_placements *dst, const shc_shape *shape,
                               const shc_plan_opts *opts, int64_t rank, double *cost,
                               shc_err *e)
{
    shc_plan_opts o;
    if (opts)
        o = *opts;
    else
        shc_plan_opts_init(&o);
    o.merge = false;
    o.trace = false;
    *cost = 0.0;
    shc_plan_req r;
    shc_plan p;
    memset(&p, 0, sizeof p);
    int rc = shc_plan_prepare(&r, m, src, dst, shape, &o, e);
    if (rc)
        return rc;
    if (o.dtype_bytes > 16) { /* torch's itemsize: complex128 is the largest */
        rc = shc_fail(e, SHC_EINVAL, "redistribute cost: dtype size %d, torch's largest is 16",
                      o.dtype_bytes);
        goto done;
    }
    bool replicated = true, same = r.src.strided_as_order == r.dst.strided_as_order;
    for (int i = 0; i < r.src.n; i++) {
        replicated &= r.src.p[i].kind == SHC_P_REPLICATE;
        same &= shc_placement_eq(&r.src.p[i], &r.dst.p[i]);
    }
    if (same && !r.src.strided_as_order) { /* shard orders compared as tuples */
        fill_order(&r.src);
        fill_order(&r.dst);
        same = !memcmp(&r.src.so, &r.dst.so, sizeof r.src.so);
    }
    if (replicated || same || !shc_mesh_has_rank(m, rank))
        goto done;
    if (r.src.strided_as_order || r.dst.strided_as_order) {
        *cost = INFINITY;
        goto done;
    }
    int64_t numel, shards = 1;
    if ((rc = shc_shape_numel(shape, &numel, e)))
        goto done;
    /* num_shards: shard-like mesh dims (Shard only in torch 2.11, plan_graph.c) */
    uint32_t asked = 0;
    bool shard_only = shc_torch_ask(o.torch, SHC_TC_STRIDED_NOT_SHARD, &asked);
    for (int i = 0; i < r.src.n; i++)
        if (shc_is_shard_like(&r.src.p[i]) &&
            (!shard_only || r.src.p[i].kind == SHC_P_SHARD))
            shards *= m->shape[i];
    if ((rc = shc_plan_run(&r, rank, &p, e)))
        goto done;
    shc_topo t;
    shc_topo_build(m, o.devices_per_host, &t);
    double gb = shc_cost_gb_of(numel, o.dtype_bytes, shards);
    for (int i = 0; i < p.nsteps && !isinf(*cost); i++) {
        const shc_plan_step *st = &p.steps[i];
        assert(st->nmesh_dims == 1); /* nothing merges: o.merge is off */
        double c = shc_cost_transition_step(&st->src, &st->dst, &t, st->mesh_dim, &gb);
        *cost = isinf(c) ? INFINITY : *cost + c;
    }
done:
    shc_plan_free(&p);
    shc_plan_req_free(&r);
    return rc;
}
