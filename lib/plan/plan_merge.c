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
#include "plan.h"

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

/* The key of st in the planning release; a step whose key the release changes sets the
 * change's bit in plan->torch_changes. */
static key comm_key_for(const shc_plan_ctx *c, shc_plan *plan, const shc_plan_step *st)
{
    key k = comm_key_in(st, false);
    if (!shc_torch_has(c->opts->torch, SHC_TC_STRIDED_NOT_SHARD))
        return k;
    key k11 = comm_key_in(st, true);
    if (k11 != k)
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

static bool has_flattened(const shc_plan_opts *o, unsigned mask)
{
    for (int i = 0; i < o->nflattened; i++)
        if (o->flattened[i] == mask)
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
    if (!has_flattened(c->opts, mask))
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

/* ---- audit: where torch 2.13's plan is unsafe ---- */

typedef struct findings {
    shc_plan_finding *v;
    int n, cap;
    bool oom; /* a finding could not be stored: the audit fails, never drops it silently */
} findings;

static void add_finding(findings *f, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void add_finding(findings *f, const char *code, const char *fmt, ...)
{
    for (int i = 0; i < f->n; i++)
        if (!strcmp(f->v[i].code, code))
            return; /* one finding per kind; the message names the first rank */
    if (f->n == f->cap) {
        int nc = f->cap ? f->cap * 2 : 8;
        shc_plan_finding *nv = realloc(f->v, (size_t)nc * sizeof *nv);
        if (!nv) {
            f->oom = true;
            return;
        }
        f->v = nv;
        f->cap = nc;
    }
    shc_plan_finding *x = &f->v[f->n++];
    snprintf(x->code, sizeof x->code, "%s", code);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->msg, sizeof x->msg, fmt, ap);
    va_end(ap);
}

/* A merged all-gather assumes the flattened rank's chunk of the outermost
 * logical size (torch.chunk over the product); nested shards are chunks of
 * chunks.  Different sizes mean the flat gather unpads the wrong rows. */
static bool merged_gather_mismatch(const shc_mesh *m, const shc_plan_step *st, int64_t *nested,
                                   int64_t *flat)
{
    int dim = st->src.dim;
    int64_t total = 1;
    for (int k = 0; k < st->nmesh_dims; k++)
        total *= m->shape[st->mesh_dims[k]];
    int64_t coord[SHC_MAX_MESH_DIMS] = {0};
    for (int64_t f = 0; f < total; f++) { /* every coordinate over the merged dims */
        int64_t rem = f, size = st->logical_shape.d[dim];
        for (int k = st->nmesh_dims - 1; k >= 0; k--) {
            coord[k] = rem % m->shape[st->mesh_dims[k]];
            rem /= m->shape[st->mesh_dims[k]];
        }
        for (int k = 0; k < st->nmesh_dims; k++)
            size = shc_chunk_size(size, m->shape[st->mesh_dims[k]], coord[k]);
        int64_t fs = shc_chunk_size(st->logical_shape.d[dim], total, f);
        if (size != fs) {
            *nested = size;
            *flat = fs;
            return true;
        }
    }
    return false;
}

static void steps_text(const shc_plan *p, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int i = 0; i < p->nsteps && k < n; i++) {
        char a[48], b[48];
        shc_placement_format(&p->steps[i].src, a, sizeof a);
        shc_placement_format(&p->steps[i].dst, b, sizeof b);
        k += (size_t)snprintf(buf + k, n - k, "%s[%d%s]%s->%s", i ? " " : "",
                              p->steps[i].mesh_dim, p->steps[i].nmesh_dims > 1 ? "+" : "", a, b);
    }
}

static void audit_rank(const shc_mesh *m, int64_t rank, const shc_plan *p, findings *f)
{
    for (int i = 0; i < p->nsteps; i++) {
        const shc_plan_step *st = &p->steps[i];
        char a[48], b[48];
        shc_placement_format(&st->src, a, sizeof a);
        shc_placement_format(&st->dst, b, sizeof b);
        int64_t nested, flat;
        if (st->nmesh_dims > 1 && comm_key(st) == KEY_ALL_GATHER &&
            merged_gather_mismatch(m, st, &nested, &flat))
            add_finding(f, "MergedUnevenAllGather", "rank %lld step %d: torch 2.13 "
                        "_optimize_transform_infos merges %s->%s all-gathers over a flattened "
                        "mesh without an evenness check; a nested shard holds %lld rows where "
                        "the flat gather expects %lld, so the gathered tensor is wrong (reproduced "
                        "with torch 2.13 LocalTensorMode: tools/harness/plan_quirks.py)",
                        (long long)rank, i, a, b, (long long)nested, (long long)flat);
        if (st->nmesh_dims > 1 && (st->src.kind == SHC_P_STRIDED || st->dst.kind == SHC_P_STRIDED))
            add_finding(f, "MergedStridedStep", "rank %lld step %d: %s->%s is merged over a "
                        "flattened mesh, but torch 2.13 redistribute_local_tensor asserts "
                        "_StridedShard steps are never flattened", (long long)rank, i, a, b);
        if (st->comm == SHC_COMM_UNSUPPORTED)
            add_finding(f, "UnsupportedStep", "rank %lld step %d: the plan contains %s->%s, "
                        "which torch 2.13 redistribute_local_tensor rejects at execution",
                        (long long)rank, i, a, b);
    }
    if (!p->trace)
        add_finding(f, "TraceRaises", "rank %lld: DebugMode's stringify_transform_infos "
                    "raises for this plan (%s)", (long long)rank, p->trace_error);
    if (p->strided_fallback)
        add_finding(f, "StridedFallback", "the _StridedShard placements cannot be decoded into "
                    "a shard order; torch 2.13 silently falls back to the greedy planner");
}

int shc_plan_audit(const shc_mesh *m, const shc_placements *src, const shc_placements *dst,
                   const shc_shape *shape, const shc_plan_opts *opts,
                   shc_plan_finding **out, int *nout, shc_err *e)
{
    findings f = {0};
    char first[1024] = "", cur[1024];
    int64_t first_rank = -1;
    shc_plan_req req;
    shc_plan p;
    memset(&p, 0, sizeof p);
    int rc = shc_plan_prepare(&req, m, src, dst, shape, opts, e);
    if (rc)
        return rc;
    shc_plan_req_cache(&req); /* one graph search for every rank (issue 27 N11) */
    for (int64_t pos = 0; pos < m->size && rc == SHC_OK; pos++) {
        int64_t rank = m->ranks[pos];
        if ((rc = shc_plan_run(&req, rank, &p, e)))
            break;
        audit_rank(m, rank, &p, &f);
        steps_text(&p, cur, sizeof cur);
        if (first_rank < 0) {
            first_rank = rank;
            memcpy(first, cur, sizeof first);
        } else if (strcmp(first, cur)) {
            add_finding(&f, "RankDivergentPlan", "rank %lld plans [%s] but rank %lld plans [%s]: "
                        "their collectives do not match (hang or wrong data)",
                        (long long)first_rank, first, (long long)rank, cur);
        }
    }
    shc_plan_free(&p);
    shc_plan_req_free(&req);
    if (!rc && f.oom)
        rc = shc_fail(e, SHC_ENOMEM, "plan audit: out of memory for its findings");
    if (rc) {
        free(f.v);
        return rc;
    }
    *out = f.v;
    *nout = f.n;
    return SHC_OK;
}
