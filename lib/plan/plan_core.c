/*
 * plan_core.c — what every planner shares (plan_internal.h): plan storage (push, reserve, free),
 * option and planner names, the shard geometry and shard orders of torch 2.13
 * (torch/distributed/tensor/placement_types.py, _dtensor_spec.py), and the classification
 * of a step's communication.  The entry point (plan.c) and the strategies (plan_greedy.c,
 * plan_graph.c, plan_merge.c, trace.c) call down into this file; it calls none of them,
 * so the planner's calls form no circle (call_graph.sh).
 * Tested by check_plan.c and the redistribute-plan family, which the harness recomputes
 * with torch 2.13.
 */
#include "config.h"
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "plan_internal.h"
#include "checked_math.h"

void shc_plan_opts_init(shc_plan_opts *o)
{
    memset(o, 0, sizeof *o);
    o->planner = SHC_PLANNER_AUTO;
    o->dtype_bytes = 4;
    o->devices_per_host = 8;
    o->merge = true;
    o->trace = true;
}

void shc_plan_free(shc_plan *p)
{
    if (!p)
        return;
    if (!p->steps_external)
        free(p->steps);
    free(p->trace);
    p->steps = NULL;
    p->trace = NULL;
    p->nsteps = p->cap = 0;
    p->steps_external = false;
}

void shc_plan_use_buffer(shc_plan *p, shc_plan_step *buf, int cap)
{
    memset(p, 0, sizeof *p);
    p->steps = buf;
    p->cap = cap;
    p->steps_external = true;
}

/* Grow plan->steps to cap entries; a caller's buffer is copied, never realloc'd. */
static int grow(shc_plan *plan, int cap, shc_err *e)
{
    shc_plan_step *s = plan->steps_external ? malloc((size_t)cap * sizeof *s)
                                            : realloc(plan->steps, (size_t)cap * sizeof *s);
    if (!s)
        return shc_fail(e, SHC_ENOMEM, "plan: out of memory");
    if (plan->steps_external && plan->nsteps > 0)
        memcpy(s, plan->steps, (size_t)plan->nsteps * sizeof *s);
    plan->steps = s;
    plan->cap = cap;
    plan->steps_external = false;
    return SHC_OK;
}

static const char *const comm_names[] = {
    "none", "all_gather", "all_reduce", "reduce_scatter", "all_to_all",
    "local_chunk", "partition", "strided", "unsupported", "zero_fill"};
_Static_assert(sizeof comm_names / sizeof comm_names[0] == SHC_COMM_KIND_COUNT,
               "one name per shc_comm_kind");

const char *shc_comm_kind_name(int kind)
{
    return (kind >= 0 && kind < SHC_COMM_KIND_COUNT) ? comm_names[kind] : "?";
}

bool shc_comm_is_collective(shc_comm_kind k)
{
    return k == SHC_COMM_ALL_GATHER || k == SHC_COMM_ALL_REDUCE ||
           k == SHC_COMM_REDUCE_SCATTER || k == SHC_COMM_ALL_TO_ALL || k == SHC_COMM_STRIDED;
}

int shc_planner_parse(const char *s, shc_planner *out, shc_err *e)
{
    if (!strcmp(s, "auto"))
        *out = SHC_PLANNER_AUTO;
    else if (!strcmp(s, "greedy"))
        *out = SHC_PLANNER_GREEDY;
    else if (!strcmp(s, "graph") || !strcmp(s, "min-cost"))
        *out = SHC_PLANNER_GRAPH;
    else
        return shc_fail(e, SHC_EINVAL, "planner '%.64s': expected auto, greedy or graph", s);
    return SHC_OK;
}

int shc_plan_reserve(shc_plan *plan, int n, shc_err *e)
{
    return n <= plan->cap ? SHC_OK : grow(plan, n, e);
}

int shc_plan_push(shc_plan *plan, const shc_plan_step *st, shc_err *e)
{
    int rc;
    if (plan->nsteps == plan->cap &&
        (rc = grow(plan, plan->cap ? plan->cap * 2 : 2 * SHC_MAX_MESH_DIMS, e)))
        return rc;
    assert(plan->nsteps < plan->cap && plan->steps);
    plan->steps[plan->nsteps++] = *st;
    return SHC_OK;
}

/* ---- shard geometry (placement_types.py) ---- */

int64_t shc_chunk_size(int64_t size, int64_t n, int64_t idx)
{
    assert(n >= 1 && idx >= 0 && idx < n); /* a coordinate on a mesh dim of size n */
    if (size % n == 0)
        return size / n;
    int64_t full = size / n + 1; /* ceil without overflow for size % n != 0 */
    if (idx >= size / full + 1)
        return 0;
    int64_t start = full * idx;
    int64_t end = start + full < size ? start + full : size;
    return end > start ? end - start : 0;
}

int64_t shc_strided_chunk_size(int64_t size, int64_t n, int64_t sf, int64_t idx)
{
    /* _StridedShard._split_tensor: chunk into sf pieces, each into n, take
     * piece idx of every first-level piece. */
    int64_t total = 0;
    for (int64_t j = 0; j < sf; j++)
        total += shc_chunk_size(shc_chunk_size(size, sf, j), n, idx);
    return total;
}

/* ---- shard orders (_dtensor_spec.py) ---- */

void shc_default_shard_order(const shc_placement *p, int n, shc_shard_order *so)
{
    memset(so, 0, sizeof *so);
    for (int i = 0; i < n; i++)
        if (shc_is_shard_like(&p[i])) {
            int d = p[i].dim;
            assert(d >= 0 && d < SHC_MAX_TENSOR_DIMS && so->len[d] < SHC_MAX_MESH_DIMS);
            so->md[d][so->len[d]++] = (int8_t)i;
        }
}

bool shc_shard_order_is_default(const shc_shard_order *so)
{
    for (int d = 0; d < SHC_MAX_TENSOR_DIMS; d++)
        for (int k = 1; k < so->len[d]; k++)
            if (so->md[d][k - 1] >= so->md[d][k])
                return false;
    return true;
}

bool shc_strided_to_shard_order(const shc_mesh *m, const shc_placement *p, int n,
                                shc_shard_order *so)
{
    /* Walk mesh dims right to left; insert each shard where the product of the
     * sizes already before it equals its split factor (1 for Shard). */
    memset(so, 0, sizeof *so);
    for (int i = n - 1; i >= 0; i--) {
        if (!shc_is_shard_like(&p[i]))
            continue;
        int d = p[i].dim, len = so->len[d];
        int64_t sf = p[i].kind == SHC_P_STRIDED ? p[i].split_factor : 1, acc = 1;
        int at = -1;
        for (int k = 0; k <= len; k++) {
            if (acc == sf) {
                at = k;
                break;
            }
            if (k < len && !shc_mul64(acc, m->shape[so->md[d][k]], &acc))
                return false;
        }
        if (at < 0)
            return false;
        assert(d >= 0 && d < SHC_MAX_TENSOR_DIMS && at <= len && len < SHC_MAX_MESH_DIMS);
        memmove(&so->md[d][at + 1], &so->md[d][at], (size_t)(len - at));
        so->md[d][at] = (int8_t)i;
        so->len[d]++;
    }
    return true;
}

int shc_shard_order_to_strided(const shc_mesh *m, const shc_placement *p, int n,
                               const shc_shard_order *so, shc_placement *out, shc_err *e)
{
    /* _convert_shard_order_to_StridedShard: a mesh dim's split factor is the
     * product of the sizes of mesh dims earlier in the order but later in the mesh. */
    memcpy(out, p, (size_t)n * sizeof *out);
    for (int d = 0; d < SHC_MAX_TENSOR_DIMS; d++)
        for (int k = 0; k < so->len[d]; k++) {
            int md = so->md[d][k];
            if (md >= n || p[md].kind != SHC_P_SHARD) {
                char one[48] = "?";
                if (md < n)
                    shc_placement_format(&p[md], one, sizeof one);
                return shc_fail(e, SHC_EINVAL, "Only Shard placement can be converted to "
                                "_StridedShard, found %s at mesh dim %d", one, md);
            }
            int64_t sf = 1;
            for (int j = 0; j < k; j++)
                if (so->md[d][j] > md)
                    sf *= m->shape[so->md[d][j]];
            out[md] = (shc_placement){.kind = sf == 1 ? SHC_P_SHARD : SHC_P_STRIDED, .dim = d,
                                      .split_factor = sf == 1 ? 0 : sf};
        }
    return SHC_OK;
}

/* ---- classification ---- */

/* Steps some releases execute differently from the pinned 2.13 (redistribute_local_tensor's
 * branches; the releases and torch lines are the change's row in torch_release.c).  A row
 * applies to a -> b when the kinds match, the target's reduce op does (-1: any) and the
 * source is not a _StridedShard where `shard_only` says torch tests isinstance(Shard). */
static const struct step_row {
    shc_pkind src, dst;
    int dst_op;
    shc_torch_change change;
    shc_comm_kind comm;
} step_rows[] = {
    /* 2.14+: `elif _is_shard_like(current)` then Shard._to_partial_tensor (a _StridedShard
     * source or any other reduce op still raises "not supported yet") */
    {SHC_P_SHARD, SHC_P_PARTIAL, SHC_OP_SUM, SHC_TC_SHARD_TO_PARTIAL, SHC_COMM_ZERO_FILL},
    /* 2.11: NotImplementedError where 2.12 goes through Replicate */
    {SHC_P_STRIDED, SHC_P_SHARD, -1, SHC_TC_STRIDED_STEPS_RAISE, SHC_COMM_UNSUPPORTED},
    {SHC_P_PARTIAL, SHC_P_STRIDED, -1, SHC_TC_STRIDED_STEPS_RAISE, SHC_COMM_UNSUPPORTED},
    {SHC_P_SHARD, SHC_P_STRIDED, -1, SHC_TC_STRIDED_STEPS_RAISE, SHC_COMM_UNSUPPORTED},
    /* the fixture release 9.99 only (check_release_rows.c): a new release's new row */
    {SHC_P_SHARD, SHC_P_STRIDED, -1, SHC_TC_FIXTURE, SHC_COMM_UNSUPPORTED},
};
_Static_assert(SHC_TC_SLOTS <= 32, "a plan's torch_changes/torch_asked hold one bit per change");

shc_comm_kind shc_classify_release(const shc_placement *a, const shc_placement *b,
                                   shc_torch_release r, shc_comm_kind pinned, uint32_t *changes,
                                   uint32_t *asked)
{
    for (size_t i = 0; i < sizeof step_rows / sizeof *step_rows; i++) {
        const struct step_row *w = &step_rows[i];
        if (w->src == a->kind && w->dst == b->kind && (w->dst_op < 0 || (int)b->op == w->dst_op) &&
            shc_torch_ask(r, w->change, asked)) {
            if (changes)
                *changes |= 1u << w->change;
            return w->comm;
        }
    }
    return pinned;
}

/* Devices a step spans (the product over a merged step's mesh dims). */
static int64_t step_devices(const shc_plan_ctx *c, const shc_plan_step *st)
{
    assert(st->nmesh_dims >= 1 && st->nmesh_dims <= SHC_MAX_MESH_DIMS);
    int64_t n = c->mesh->shape[st->mesh_dims[0]];
    for (int k = 1; k < st->nmesh_dims; k++)
        n *= c->mesh->shape[st->mesh_dims[k]];
    return n;
}

void shc_plan_classify(const shc_plan_ctx *c, shc_plan *plan)
{
    plan->ncollectives = 0;
    for (int i = 0; i < plan->nsteps; i++) {
        shc_plan_step *st = &plan->steps[i];
        st->comm = shc_classify(&st->src, &st->dst, step_devices(c, st), c->opts->torch,
                                &plan->torch_changes, &plan->torch_asked);
        plan->ncollectives += shc_comm_is_collective(st->comm);
    }
}

bool shc_plan_step_skipped(const shc_plan_step *st)
{
    /* the classifiers answer none for a real step only on one device (no release row
     * answers none), and torch never plans a step between equal placements */
    return st->comm == SHC_COMM_NONE && !shc_pl_eq(&st->src, &st->dst);
}

shc_comm_kind shc_plan_step_label(const shc_plan_step *st)
{
    if (!shc_plan_step_skipped(st))
        return st->comm;
    /* _TransformInfo._comm_type_key, the one name torch gives a step whatever its size */
    const shc_placement *a = &st->src, *b = &st->dst;
    bool a_shard = shc_is_shard_like(a), b_shard = shc_is_shard_like(b);
    if (a->kind == SHC_P_PARTIAL && b->kind == SHC_P_REPLICATE)
        return SHC_COMM_ALL_REDUCE;
    if (a->kind == SHC_P_PARTIAL && b_shard)
        return SHC_COMM_REDUCE_SCATTER;
    if (a_shard && b->kind == SHC_P_REPLICATE)
        return SHC_COMM_ALL_GATHER;
    if (a_shard && b_shard)
        return SHC_COMM_ALL_TO_ALL;
    return SHC_COMM_NONE;
}

/* redistribute_local_tensor's Partial -> Partial branch: only the same Partial passes
 * (placement equality: the reduce op string), any other raises this AssertionError, in
 * 2.13.0 (_redistribute.py:1718-1721) as in 2.14.1 and 2.15.0 (:1793-1796). */
static int partial_to_partial(const shc_plan_step *st, shc_err *e)
{
    char a[48], b[48];
    shc_placement_format(&st->src, a, sizeof a);
    shc_placement_format(&st->dst, b, sizeof b);
    return shc_fail(e, SHC_EINVAL, "AssertionError: Redistribution from one partial type (%s) "
                    "to another (%s) is unsupported.", a, b);
}

int shc_plan_step_refused(const shc_plan_step *st, shc_torch_release r, shc_err *e)
{
    if (st->comm != SHC_COMM_UNSUPPORTED || st->dst.kind != SHC_P_PARTIAL)
        return SHC_OK;
    if (st->src.kind == SHC_P_PARTIAL) /* two Partials that differ (equal ones are no step) */
        return partial_to_partial(st, e);
    if (!shc_is_shard_like(&st->src))
        return SHC_OK;
    /* redistribute_local_tensor's `target.is_partial()` branch: Replicate partitions, the
     * same Partial is no step, a shard-like source raises (2.14+: but S(d) -> P(sum), the
     * classifier's zero_fill) */
    char a[48], b[48];
    shc_placement_format(&st->src, a, sizeof a);
    shc_placement_format(&st->dst, b, sizeof b);
    bool zf = shc_torch_ask(r, SHC_TC_SHARD_TO_PARTIAL, NULL);
    return shc_fail(e, SHC_EINVAL, "RuntimeError: redistribute from %s to %s not supported yet "
                    "(torch %s redistribute_local_tensor: a Partial target is reached from "
                    "Replicate%s only)", a, b, shc_torch_release_name(shc_torch_norm(r)),
                    zf ? " or, as Shard(d) -> Partial(sum), from a Shard" : "");
}

/* DTensor.redistribute's own check of the target, before any planning (_api.py: 2.13.0
 * :712-718; 2.14.1 and 2.15.0 :789-800): a Partial target on a mesh dim whose source differs
 * is refused, but from 2.14 (the row that also makes Shard -> Partial(sum) one step) a Shard
 * source to Partial("sum") exactly.  torch formats both placements with str(). */
int shc_redistribute_api_check(const shc_placements *src, const shc_placements *dst,
                               shc_torch_release r, shc_err *e)
{
    bool s2p = shc_torch_ask(r, SHC_TC_SHARD_TO_PARTIAL, NULL);
    for (int i = 0; i < dst->n && i < src->n; i++) {
        const shc_placement *a = &src->p[i], *b = &dst->p[i];
        if (b->kind != SHC_P_PARTIAL || shc_placement_eq(a, b))
            continue;
        if (s2p && a->kind == SHC_P_SHARD && b->op == SHC_OP_SUM)
            continue;
        char sa[48], sb[48];
        shc_placement_format(a, sa, sizeof sa);
        shc_placement_format(b, sb, sizeof sb);
        return shc_fail(e, SHC_EINVAL, "RuntimeError: Can not redistribute from %s to %s, %s", sa,
                        sb, s2p ? "only Shard to Partial(sum) redistribution is supported!"
                                : "redistributing to Partial is for internal use only!");
    }
    return SHC_OK;
}

/* ---- the shard-order queries of the public API (shardcheck.h) ---- */

int shc_placements_decode_order(const shc_mesh *m, const shc_placements *pl,
                                shc_placements *out, bool *ok, shc_err *e)
{
    shc_shard_order so;
    if (pl->n != m->ndim)
        return shc_fail(e, SHC_EINVAL, "%d placements for a %d-d mesh", pl->n, m->ndim);
    *out = *pl;
    *ok = shc_strided_to_shard_order(m, pl->p, pl->n, &so);
    if (!*ok)
        return SHC_OK;
    /* _normalize_placements_into_shard_order: the order carried, each _S written as S */
    out->has_order = true;
    for (int i = 0; i < out->n; i++)
        if (out->p[i].kind == SHC_P_STRIDED)
            out->p[i] = (shc_placement){.kind = SHC_P_SHARD, .dim = out->p[i].dim};
    for (int d = 0; d < SHC_MAX_TENSOR_DIMS; d++)
        for (int k = 0; k < so.len[d]; k++)
            out->order[so.md[d][k]] = k;
    return SHC_OK;
}

int shc_placements_encode_order(const shc_mesh *m, const shc_placements *pl,
                                shc_placements *out, shc_err *e)
{
    shc_shard_order so;
    memset(&so, 0, sizeof so);
    if (pl->n != m->ndim)
        return shc_fail(e, SHC_EINVAL, "%d placements for a %d-d mesh", pl->n, m->ndim);
    for (int i = 0; i < pl->n; i++)
        if (shc_is_shard_like(&pl->p[i])) {
            int d = pl->p[i].dim;
            if (d < 0)
                return shc_fail(e, SHC_EINVAL, "placement %d: shard dim %d is not normalised",
                                i, d);
            so.md[d][pl->has_order ? pl->order[i] : so.len[d]] = (int8_t)i;
            so.len[d]++;
        }
    memset(out, 0, sizeof *out);
    out->n = pl->n;
    return shc_shard_order_to_strided(m, pl->p, pl->n, &so, out->p, e);
}
