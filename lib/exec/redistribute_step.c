/*
 * redistribute_step.c — one plan step, as torch 2.13's redistribute_local_tensor
 * (torch/distributed/tensor/_redistribute.py) executes it, over any executor's
 * local-tensor operations (redistribute_step.h: the host's in
 * redistribute_exec.c, a device's in redistribute_dev.c).
 *
 * Each step is dispatched on its (src, dst) placements the way torch's
 * branches are, not on the planner's comm kind, so a planner bug shows up as
 * wrong data: padded all-gather then unpad for S -> R
 * (Shard._to_replicate_tensor), all-reduce for P -> R, padded reduce-scatter
 * for P -> S (_reduce_shard_tensor), all-to-all with pad and unpad for
 * S(a) -> S(b) (_to_new_shard_dim), local torch.chunk for R -> S, partition for
 * R -> P (Partial._partition_value: sum divides by n, avg/min/max keep the
 * value, others raise), gather-and-permute for _StridedShard
 * (_StridedShard._to_replicate_tensor), merged steps on the flattened group
 * with the avg scale applied afterwards.  torch's two shortcuts come first:
 * src == dst and a mesh dim of size 1 do nothing (so R -> P(sum) on a size-1
 * dim does not divide).  The branches are the rows of `rules` below, and the
 * releases that branch otherwise (S -> P(sum) from 2.14, the _StridedShard steps
 * 2.11 does not implement) rows of `release_rules`, tried first.
 *
 * Tested by check_exec.c against the oracle in testdata.c, by
 * check_redist_dev.c (host table against device table, byte for byte), and by
 * the redistribute-data family against torch's LocalTensor (harness).
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "redistribute_step.h"
#include "checked_math.h"

/* ---- the steps' shared arithmetic (redistribute_exec.h), here so that the executors
 * (redistribute_exec.c, redistribute_dev.c) call down into this file, never back ---- */

/* torch.chunk of `size` into n: chunk k's start and length. */
void shc_xt_chunk_of(int64_t size, int64_t n, int64_t k, int64_t *start, int64_t *len)
{
    int64_t cs = shc_ceildiv64(size, n), s = cs * k;
    if (s > size)
        s = size;
    *start = s;
    *len = (size - s < cs) ? size - s : cs;
}

int64_t shc_strided_positions(int64_t size, int64_t sf, int64_t n, int64_t k, int64_t *out)
{
    int64_t cnt = 0;
    for (int64_t j = 0; j < sf; j++) {
        int64_t ps, pl, qs, ql;
        shc_xt_chunk_of(size, sf, j, &ps, &pl);
        shc_xt_chunk_of(pl, n, k, &qs, &ql);
        for (int64_t p = 0; p < ql; p++, cnt++)
            if (out)
                out[cnt] = ps + qs + p;
    }
    return cnt;
}

int shc_xt_step_group(shc_comm *c, const shc_xcase *x, const shc_plan_step *st, shc_xgroup *g,
                      shc_err *e)
{
    int axes[SHC_MAX_MESH_DIMS], na = st->nmesh_dims > 1 ? st->nmesh_dims : 1;
    for (int i = 0; i < na; i++)
        axes[i] = st->nmesh_dims > 1 ? st->mesh_dims[i] : st->mesh_dim;
    shc_groups gs;
    memset(&gs, 0, sizeof gs);
    int rc = shc_groups_for_axes(&x->mesh, axes, na, &gs, e);
    if (rc)
        return rc;
    int64_t gi = shc_groups_find(&gs, c->rank);
    if (gi < 0) {
        shc_groups_free(&gs);
        return shc_fail(e, SHC_EINTERNAL, "rank %lld is in no group of mesh dim %d",
                        (long long)c->rank, st->mesh_dim);
    }
    g->n = (int)gs.group_size;
    g->ranks = malloc((size_t)g->n * sizeof *g->ranks);
    if (!g->ranks) {
        shc_groups_free(&gs);
        return shc_fail(e, SHC_ENOMEM, "out of memory");
    }
    memcpy(g->ranks, gs.ranks + gi * gs.group_size, (size_t)g->n * sizeof *g->ranks);
    shc_groups_free(&gs);
    return shc_comm_group_pos(c, g->ranks, g->n, &g->pos, e);
}


typedef struct step_ctx {
    const shc_xexec *x;
    const shc_plan_step *st;
    const shc_xgroup *g;
} step_ctx;

static int narrow(const step_ctx *k, shc_xtensor *t, int d, int64_t start, int64_t len,
                  shc_err *e)
{
    if (start == 0 && len == t->shape.d[d])
        return SHC_OK;
    return k->x->ops->reindex(k->x->ctx, t, d, NULL, start, len, e);
}

/* Shard._to_replicate_tensor: pad to ceil(L/n), all-gather, concatenate, unpad. */
static int shard_to_rep_dim(const step_ctx *k, int d, int64_t L, shc_xtensor *t, shc_err *e)
{
    int64_t full = shc_ceildiv64(L, k->g->n);
    int rc = L % k->g->n ? narrow(k, t, d, 0, full, e) : SHC_OK;
    if (!rc)
        rc = k->x->ops->all_gather_cat(k->x->ctx, k->g, d, t, e);
    return rc ? rc : narrow(k, t, d, 0, L, e);
}

static int shard_to_rep(const step_ctx *k, shc_xtensor *t, shc_err *e)
{
    int d = k->st->src.dim;
    return shard_to_rep_dim(k, d, k->st->logical_shape.d[d], t, e);
}

/* _StridedShard._to_replicate_tensor: pad to shard 0's size, all-gather, index_select. */
static int strided_to_rep(const step_ctx *k, shc_xtensor *t, shc_err *e)
{
    const shc_placement *p = &k->st->src;
    int d = p->dim, n = k->g->n;
    int64_t L = k->st->logical_shape.d[d];
    int64_t sf = p->split_factor, maxc = shc_strided_positions(L, sf, n, 0, NULL);
    if (t->shape.d[d] > maxc)
        return shc_fail(e, SHC_EUNSUPPORTED, "_S(%d, %lld): local size %lld exceeds shard 0's "
                        "%lld, which torch 2.13 pads to", d, (long long)sf,
                        (long long)t->shape.d[d], (long long)maxc);
    int rc = narrow(k, t, d, 0, maxc, e); /* pad to shard 0's size */
    if (!rc)
        rc = shard_to_rep_dim(k, d, maxc * n, t, e); /* gather; nothing to unpad */
    int64_t *sel = malloc((size_t)(L ? L : 1) * sizeof *sel), *pos = malloc((size_t)(L + 1) * 8);
    if (!rc && (!sel || !pos))
        rc = shc_fail(e, SHC_ENOMEM, "out of memory");
    for (int64_t j = 0; !rc && j < n; j++) {
        int64_t cnt = shc_strided_positions(L, sf, n, j, pos);
        for (int64_t q = 0; q < cnt; q++)
            sel[pos[q]] = j * maxc + q;
    }
    if (!rc)
        rc = k->x->ops->reindex(k->x->ctx, t, d, sel, 0, L, e);
    free(sel);
    free(pos);
    return rc;
}

/* Partial._reduce_value: funcol's all_reduce with the lowered reduce_op string, which c10d
 * refuses unless it names one of its ops (shc_placement_reduce_op). */
static int all_reduce(const step_ctx *k, shc_xtensor *t, shc_err *e)
{
    int rc = shc_placement_check_reduce(&k->st->src, e);
    return rc ? rc : k->x->ops->all_reduce(k->x->ctx, k->g, shc_placement_reduce_op(&k->st->src),
                                           t, e);
}

/* To Replicate from any source placement (the first half of most branches). */
static int to_replicate(const step_ctx *k, shc_xtensor *t, shc_err *e)
{
    switch (k->st->src.kind) {
    case SHC_P_PARTIAL: return all_reduce(k, t, e);
    case SHC_P_SHARD: return shard_to_rep(k, t, e);
    case SHC_P_STRIDED: return strided_to_rep(k, t, e);
    default: return SHC_OK;
    }
}

/* R -> S(d) or R -> _S(d, sf): keep this rank's chunk (no communication). */
static int local_chunk(const step_ctx *k, shc_xtensor *t, shc_err *e)
{
    const shc_placement *p = &k->st->dst;
    int d = p->dim;
    int64_t size = t->shape.d[d];
    if (p->kind == SHC_P_SHARD) {
        int64_t s, l;
        shc_xt_chunk_of(size, k->g->n, k->g->pos, &s, &l);
        return narrow(k, t, d, s, l, e);
    }
    int64_t *idx = malloc((size_t)(size + 1) * sizeof *idx);
    if (!idx)
        return shc_fail(e, SHC_ENOMEM, "out of memory");
    int64_t cnt = shc_strided_positions(size, p->split_factor, k->g->n, k->g->pos, idx);
    int rc = k->x->ops->reindex(k->x->ctx, t, d, idx, 0, cnt, e);
    free(idx);
    return rc;
}

/* Any source to a (strided) shard through Replicate: torch's _replicate_to_shard after
 * the source's _to_replicate_tensor / _reduce_value. */
static int via_replicate(const step_ctx *k, shc_xtensor *t, shc_err *e)
{
    int rc = to_replicate(k, t, e);
    return rc ? rc : local_chunk(k, t, e);
}

/* Shard._reduce_shard_tensor: chunk + pad to n equal blocks, reduce-scatter, unpad. */
static int reduce_scatter(const step_ctx *k, shc_xtensor *t, shc_err *e)
{
    int rc = shc_placement_check_reduce(&k->st->src, e);
    if (rc)
        return rc;
    shc_redop op = shc_placement_reduce_op(&k->st->src);
    int d = k->st->dst.dim, n = k->g->n;
    /* Quirk (torch 2.13 on LocalTensor, checked by the harness): the functional
     * reduce_scatter with avg returns the float quotient, so P(avg) -> S turns an integer
     * tensor into float32, while P(avg) -> R keeps the dtype.  Not modelled. */
    if (op == SHC_OP_AVG && shc_dtype_is_int(t->dtype))
        return shc_fail(e, SHC_EUNSUPPORTED, "P(avg) -> S on %s: torch 2.13's reduce_scatter "
                        "returns a float32 quotient", shc_dtype_name(t->dtype));
    int64_t size = t->shape.d[d], full = shc_ceildiv64(size, n), s, l;
    int64_t *idx = malloc((size_t)(full * n + 1) * sizeof *idx);
    if (!idx)
        return shc_fail(e, SHC_ENOMEM, "out of memory");
    for (int j = 0; j < n; j++) {
        shc_xt_chunk_of(size, n, j, &s, &l);
        for (int64_t q = 0; q < full; q++)
            idx[j * full + q] = q < l ? s + q : -1;
    }
    rc = k->x->ops->reindex(k->x->ctx, t, d, idx, 0, full * n, e);
    free(idx);
    if (!rc)
        rc = k->x->ops->reduce_scatter_dim(k->x->ctx, k->g, op, d, t, e);
    if (rc)
        return rc;
    shc_xt_chunk_of(size, n, k->g->pos, &s, &l);
    return narrow(k, t, d, 0, l, e);
}

/* Shard._to_new_shard_dim: pad both dims, all-to-all along the new dim, unpad. */
static int shard_to_shard(const step_ctx *k, shc_xtensor *t, shc_err *e)
{
    int a = k->st->src.dim, b = k->st->dst.dim, n = k->g->n, rc = SHC_OK;
    if (a == b)
        return SHC_OK;
    const shc_shape *Ls = &k->st->logical_shape;
    int64_t fa = shc_ceildiv64(Ls->d[a], n), fb = shc_ceildiv64(Ls->d[b], n), s, l;
    if (Ls->d[a] % n)
        rc = narrow(k, t, a, 0, fa, e);
    if (!rc && Ls->d[b] % n)
        rc = narrow(k, t, b, 0, fb * n, e);
    if (!rc)
        rc = k->x->ops->all_to_all_cat(k->x->ctx, k->g, b, a, t, e);
    if (!rc)
        rc = narrow(k, t, a, 0, Ls->d[a], e);
    shc_xt_chunk_of(Ls->d[b], n, k->g->pos, &s, &l);
    return rc ? rc : narrow(k, t, b, 0, l, e);
}

/* Partial._partition_value (R -> P). */
static int partition(const step_ctx *k, shc_xtensor *t, shc_err *e)
{
    shc_redop op = k->st->dst.op;
    if (op == SHC_OP_SUM) {
        if (shc_dtype_is_int(t->dtype))
            return shc_fail(e, SHC_EUNSUPPORTED, "Replicate to Partial(sum) on %s: torch 2.13 "
                            "divides with true division and returns float32",
                            shc_dtype_name(t->dtype));
        return k->x->ops->div(k->x->ctx, t, k->g->n, e);
    }
    if (op == SHC_OP_AVG || op == SHC_OP_MIN || op == SHC_OP_MAX)
        return SHC_OK;
    return shc_fail(e, SHC_EINVAL, "Replicate to Partial(%s) conversion is not supported.",
                    shc_placement_op_name(&k->st->dst));
}

static int partial_to_partial(const step_ctx *k, shc_xtensor *t, shc_err *e)
{
    (void)t;
    return shc_fail(e, SHC_EINVAL, "Redistribution from one partial type (P(%s)) to another "
                    "(P(%s)) is unsupported.", shc_placement_op_name(&k->st->src),
                    shc_placement_op_name(&k->st->dst));
}

/* Shard._to_partial_tensor (torch >= 2.14): the rank's shard embedded at its offset in a
 * zero tensor of the step's logical size along the dim, pending the sum.  torch adds the
 * shard onto the zeros (index_add), 0 + x, which is x bit for bit except x = -0.0; the
 * executor's data (testdata.c) are integers converted exactly, never -0.0, so placing
 * the shard is exact for them. */
static int zero_fill(const step_ctx *k, shc_xtensor *t, shc_err *e)
{
    int d = k->st->src.dim, n = k->g->n;
    int64_t L = k->st->logical_shape.d[d], s, l;
    shc_xt_chunk_of(L, n, k->g->pos, &s, &l);
    if (t->shape.d[d] != l) /* torch._check(local_tensor.size(self.dim) == local_shard_size) */
        return shc_fail(e, SHC_EINTERNAL, "S(%d) -> P(sum): local size %lld, shard size %lld",
                        d, (long long)t->shape.d[d], (long long)l);
    int64_t *idx = malloc((size_t)(L ? L : 1) * sizeof *idx);
    if (!idx)
        return shc_fail(e, SHC_ENOMEM, "out of memory");
    for (int64_t j = 0; j < L; j++)
        idx[j] = j >= s && j < s + l ? j - s : -1;
    int rc = k->x->ops->reindex(k->x->ctx, t, d, idx, 0, L, e);
    free(idx);
    return rc;
}

/* torch 2.11's NotImplementedError for the _StridedShard steps 2.12 routes via Replicate. */
static int strided_not_implemented(const step_ctx *k, shc_xtensor *t, shc_err *e)
{
    (void)t;
    const char *what = k->st->src.kind == SHC_P_STRIDED  ? "_StridedShard to Shard"
                       : k->st->src.kind == SHC_P_PARTIAL ? "Partial to _StridedShard"
                                                          : "Shard to _StridedShard";
    return shc_fail(e, SHC_EINVAL, "Redistribute from %s is not implemented yet", what);
}

/* torch's last resort: `redistribute from {current} to {target} not supported yet`. */
static int not_supported(const step_ctx *k, shc_xtensor *t, shc_err *e)
{
    (void)t;
    char a[64], b[64];
    shc_placement_format(&k->st->src, a, sizeof a);
    shc_placement_format(&k->st->dst, b, sizeof b);
    return shc_fail(e, SHC_EINVAL, "redistribute from %s to %s not supported yet", a, b);
}

typedef int (*step_fn)(const step_ctx *k, shc_xtensor *t, shc_err *e);

/* Rows of releases that differ from the pinned one, tried first: a row applies where the
 * release has its change (torch_release.c cites each release's lines) and the target's
 * reduce op matches (-1: any). */
static const struct release_rule {
    shc_pkind src, dst;
    int dst_op;
    shc_torch_change change;
    step_fn fn;
} release_rules[] = {
    /* 2.14+: _redistribute.py:1777-1791, Shard._to_partial_tensor */
    {SHC_P_SHARD, SHC_P_PARTIAL, SHC_OP_SUM, SHC_TC_SHARD_TO_PARTIAL, zero_fill},
    /* 2.11: _redistribute.py:1600-1603, :1627-1630, :1636-1640 */
    {SHC_P_STRIDED, SHC_P_SHARD, -1, SHC_TC_STRIDED_STEPS_RAISE, strided_not_implemented},
    {SHC_P_PARTIAL, SHC_P_STRIDED, -1, SHC_TC_STRIDED_STEPS_RAISE, strided_not_implemented},
    {SHC_P_SHARD, SHC_P_STRIDED, -1, SHC_TC_STRIDED_STEPS_RAISE, strided_not_implemented},
};

/* torch 2.13's branches of redistribute_local_tensor, one row per (src, dst) kind
 * (_redistribute.py: target Replicate, Shard, Partial, _StridedShard in turn);
 * a pair without a row is torch's "not supported yet". */
static const struct rule {
    shc_pkind src, dst;
    step_fn fn;
} rules[] = {
    {SHC_P_PARTIAL, SHC_P_REPLICATE, all_reduce},
    {SHC_P_SHARD, SHC_P_REPLICATE, shard_to_rep},
    {SHC_P_STRIDED, SHC_P_REPLICATE, strided_to_rep},
    {SHC_P_PARTIAL, SHC_P_SHARD, reduce_scatter},
    {SHC_P_REPLICATE, SHC_P_SHARD, local_chunk},
    {SHC_P_SHARD, SHC_P_SHARD, shard_to_shard},
    {SHC_P_STRIDED, SHC_P_SHARD, via_replicate},
    {SHC_P_REPLICATE, SHC_P_PARTIAL, partition},
    {SHC_P_PARTIAL, SHC_P_PARTIAL, partial_to_partial},
    {SHC_P_PARTIAL, SHC_P_STRIDED, via_replicate},
    {SHC_P_REPLICATE, SHC_P_STRIDED, local_chunk},
    {SHC_P_SHARD, SHC_P_STRIDED, via_replicate},
    {SHC_P_STRIDED, SHC_P_STRIDED, via_replicate},
};

static step_fn rule_for(const shc_placement *s, const shc_placement *d, shc_torch_release r)
{
    for (size_t i = 0; i < sizeof release_rules / sizeof *release_rules; i++) {
        const struct release_rule *w = &release_rules[i];
        if (w->src == s->kind && w->dst == d->kind && (w->dst_op < 0 || (int)d->op == w->dst_op) &&
            shc_torch_has(r, w->change))
            return w->fn;
    }
    for (size_t i = 0; i < sizeof rules / sizeof *rules; i++)
        if (rules[i].src == s->kind && rules[i].dst == d->kind)
            return rules[i].fn;
    return not_supported;
}

int shc_xstep_run(const shc_xexec *x, const shc_xcase *c, const shc_plan_step *st,
                  shc_xtensor *t, shc_err *e)
{
    const shc_placement *s = &st->src, *d = &st->dst;
    if (shc_placement_eq(s, d))
        return SHC_OK;
    shc_xgroup g = {0};
    int rc = shc_xt_step_group(x->comm, c, st, &g, e);
    if (rc || g.n == 1) {
        free(g.ranks);
        return rc;
    }
    step_ctx k = {x, st, &g};
    bool scaled = st->avg_scale > 1 && s->kind == SHC_P_PARTIAL;
    if (scaled && shc_dtype_is_int(t->dtype))
        rc = shc_fail(e, SHC_EUNSUPPORTED, "merged avg on %s: torch 2.13 divides by the avg "
                      "scale and returns float32", shc_dtype_name(t->dtype));
    else
        rc = rule_for(s, d, c->torch)(&k, t, e);
    if (!rc && scaled)
        rc = x->ops->div(x->ctx, t, st->avg_scale, e);
    free(g.ranks);
    return rc;
}
