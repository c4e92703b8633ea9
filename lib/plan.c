/*
 * plan.c — the redistribute-planning entry point: validate the request as
 * torch 2.13's redistribute_local_tensor does, build the two DTensorSpecs
 * (shard order given, default, or encoded by _StridedShard), choose the
 * planner by _gen_transform_infos_non_cached's rule, run it (falling back to
 * greedy when _StridedShard cannot be decoded, as torch does), merge steps
 * (_optimize_transform_infos), classify each step's communication and
 * stringify the trace.  Also the small shard-order helpers every planner
 * shares (torch/distributed/tensor/_dtensor_spec.py, placement_types.py).
 * Tested by check_plan.c, cli_plan.sh and the redistribute-plan family,
 * which the harness recomputes with torch 2.13.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "plan.h"
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
    free(p->steps);
    free(p->trace);
    p->steps = NULL;
    p->trace = NULL;
    p->nsteps = p->cap = 0;
}

static const char *const comm_names[SHC_COMM_KIND_COUNT] = {
    "none", "all_gather", "all_reduce", "reduce_scatter", "all_to_all",
    "local_chunk", "partition", "strided", "unsupported"};

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
        return shc_fail(e, SHC_EINVAL, "planner '%s': expected auto, greedy or graph", s);
    return SHC_OK;
}

/* torch dtype names and itemsizes (torch.dtype.itemsize). */
static const struct { const char *name; int bytes; } dtypes[] = {
    {"float32", 4}, {"float", 4}, {"float64", 8}, {"double", 8}, {"float16", 2},
    {"half", 2}, {"bfloat16", 2}, {"float8_e4m3fn", 1}, {"float8_e5m2", 1},
    {"int8", 1}, {"uint8", 1}, {"int16", 2}, {"int32", 4}, {"int64", 8}, {"bool", 1},
    {"complex64", 8}, {"complex128", 16},
};

int shc_dtype_bytes(const char *name, int *bytes, shc_err *e)
{
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (!strcmp(dtypes[i].name, name)) {
            *bytes = dtypes[i].bytes;
            return SHC_OK;
        }
    return shc_fail(e, SHC_EINVAL, "dtype '%s': unknown (expected float32, bfloat16, float16, "
                    "float64, int8, int32, int64, ...)", name);
}

int shc_plan_reserve(shc_plan *plan, int n, shc_err *e)
{
    if (n <= plan->cap)
        return SHC_OK;
    shc_plan_step *s = realloc(plan->steps, (size_t)n * sizeof *s);
    if (!s)
        return shc_fail(e, SHC_ENOMEM, "plan: out of memory");
    plan->steps = s;
    plan->cap = n;
    return SHC_OK;
}

int shc_plan_push(shc_plan *plan, const shc_plan_step *st, shc_err *e)
{
    if (plan->nsteps == plan->cap) {
        int cap = plan->cap ? plan->cap * 2 : 2 * SHC_MAX_MESH_DIMS;
        shc_plan_step *n = realloc(plan->steps, (size_t)cap * sizeof *n);
        if (!n)
            return shc_fail(e, SHC_ENOMEM, "plan: out of memory");
        plan->steps = n;
        plan->cap = cap;
    }
    plan->steps[plan->nsteps++] = *st;
    return SHC_OK;
}

/* ---- shard geometry (placement_types.py) ---- */

int64_t shc_chunk_size(int64_t size, int64_t n, int64_t idx)
{
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

/* ---- validation and spec building ---- */

static int check_placements(const char *which, const shc_placements *pl, const shc_mesh *m,
                            const shc_shape *shape, shc_err *e)
{
    if (pl->n != m->ndim)
        return shc_fail(e, SHC_EINVAL, "%s: %d placements for a %d-d mesh (torch: dimensions "
                        "mismatch %d vs %d)", which, pl->n, m->ndim, pl->n, m->ndim);
    int first_op = -1;
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
        if (first_op < 0)
            first_op = (int)p->op;
        else if ((int)p->op != first_op &&
                 !((p->op == SHC_OP_SUM || p->op == SHC_OP_AVG) &&
                   (first_op == SHC_OP_SUM || first_op == SHC_OP_AVG)))
            return shc_fail(e, SHC_EINVAL, "%s: Mixed Partial reduce types are not supported in "
                            "the same placement list. Found reduce ops: {'%s', '%s'}. (torch "
                            "2.13 assert_no_mixed_partial_types)", which,
                            shc_redop_name((shc_redop)first_op), shc_redop_name(p->op));
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

/* ---- classification ---- */

/* What redistribute_local_tensor does for one step (its branches, in order). */
static shc_comm_kind classify_step(const shc_plan_ctx *c, const shc_plan_step *st)
{
    const shc_placement *a = &st->src, *b = &st->dst;
    int64_t n = c->mesh->shape[st->mesh_dims[0]];
    for (int k = 1; k < st->nmesh_dims; k++)
        n *= c->mesh->shape[st->mesh_dims[k]];
    if (shc_placement_eq(a, b) || n == 1)
        return SHC_COMM_NONE;
    switch (b->kind) {
    case SHC_P_REPLICATE:
        return a->kind == SHC_P_PARTIAL ? SHC_COMM_ALL_REDUCE : SHC_COMM_ALL_GATHER;
    case SHC_P_SHARD:
        if (a->kind == SHC_P_PARTIAL)
            return SHC_COMM_REDUCE_SCATTER;
        if (a->kind == SHC_P_REPLICATE)
            return SHC_COMM_LOCAL_CHUNK;
        return a->kind == SHC_P_SHARD ? SHC_COMM_ALL_TO_ALL : SHC_COMM_STRIDED;
    case SHC_P_PARTIAL:
        return a->kind == SHC_P_REPLICATE ? SHC_COMM_PARTITION : SHC_COMM_UNSUPPORTED;
    default: /* _StridedShard target */
        return a->kind == SHC_P_REPLICATE ? SHC_COMM_LOCAL_CHUNK : SHC_COMM_STRIDED;
    }
}

void shc_plan_classify(const shc_plan_ctx *c, shc_plan *plan)
{
    plan->ncollectives = 0;
    for (int i = 0; i < plan->nsteps; i++) {
        plan->steps[i].comm = classify_step(c, &plan->steps[i]);
        plan->ncollectives += shc_comm_is_collective(plan->steps[i].comm);
    }
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
    if (normalize_spec(c->mesh, src, &ns) && normalize_spec(c->mesh, dst, &nd))
        return shc_plan_graph(c, &ns, &nd, out, e);
    /* torch 2.13 _gen_transform_infos_non_cached: _StridedShardNotDecodableError
     * -> generate_greedy_transform_infos on the raw specs */
    out->used = SHC_PLANNER_GREEDY;
    out->strided_fallback = true;
    return shc_plan_greedy(c, src, dst, out, e);
}

int shc_plan_compute(const shc_mesh *m, const shc_placements *src, const shc_placements *dst,
                     const shc_shape *shape, const shc_plan_opts *opts, int64_t rank,
                     shc_plan *out, shc_err *e)
{
    memset(out, 0, sizeof *out);
    shc_plan_opts defaults;
    if (!opts) {
        shc_plan_opts_init(&defaults);
        opts = &defaults;
    }
    shc_plan_ctx c = {.mesh = m, .shape = *shape, .opts = opts};
    shc_spec s, d;
    int rc;
    if ((rc = check_placements("src", src, m, shape, e)) ||
        (rc = check_placements("dst", dst, m, shape, e)) ||
        (rc = build_spec("src", src, opts, &s, e)) || (rc = build_spec("dst", dst, opts, &d, e)) ||
        (rc = shc_mesh_coord(m, rank, c.coord, e)))
        return rc;
    if (opts->dtype_bytes < 1 || opts->devices_per_host < 0)
        return shc_fail(e, SHC_EINVAL, "plan options: dtype size %d and devices per host %lld "
                        "must be positive", opts->dtype_bytes, (long long)opts->devices_per_host);
    /* without a flattened mesh torch's merge pass can never merge */
    if ((rc = run_planner(&c, &s, &d, out, e)) ||
        (opts->merge && opts->nflattened > 0 && (rc = shc_plan_merge(&c, out, e))) ||
        (opts->trace && (fill_order(&s), rc = shc_plan_trace(&c, &s, out, e)))) {
        shc_plan_free(out);
        return rc;
    }
    shc_plan_classify(&c, out);
    return SHC_OK;
}
