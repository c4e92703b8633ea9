/*
 * redistribute_exec.c — execute a redistribute plan on one rank, as torch
 * 2.13's redistribute_local_tensor does (torch/distributed/tensor/
 * _redistribute.py), over any communicator (comm.h).
 *
 * Each step is dispatched on its (src, dst) placements the way torch's
 * branches are, not on the planner's comm kind, so a planner bug shows up
 * as wrong data: padded all-gather then unpad for S -> R
 * (Shard._to_replicate_tensor), all-reduce for P -> R, padded
 * reduce-scatter for P -> S (_reduce_shard_tensor), all-to-all with pad and
 * unpad for S(a) -> S(b) (_to_new_shard_dim), local torch.chunk for R -> S,
 * partition for R -> P (Partial._partition_value: sum divides by n, avg/min/
 * max keep the value, others raise), gather-and-permute for _StridedShard
 * (_StridedShard._to_replicate_tensor), merged steps on the flattened group
 * with the avg scale applied afterwards.  torch's two shortcuts come first:
 * src == dst and a mesh dim of size 1 do nothing (so R -> P(sum) on a size-1
 * dim does not divide).  Tensor reshaping helpers are in xtensor_ops below.
 * Tested by check_exec.c against the oracle in testdata.c, and by the
 * redistribute-data family against torch 2.13 LocalTensor (harness).
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "comm.h"
#include "plan.h"
#include "redistribute_exec.h"
#include "checked_math.h"

/* ---- tensor helpers ---- */

static size_t es_of(const shc_xtensor *t) { return shc_dtype_size(t->dtype); }

/* The caller's input buffer while shc_exec_plan runs on this thread (each
 * simulated rank of the local backend is a thread).  The first step reads it
 * in place instead of from a whole-input copy; a step that would write it or
 * free it copies (xt_own) or drops the pointer (xt_release) instead. */
static _Thread_local const void *borrowed;

/* Free t's data unless it is the caller's buffer. */
static void xt_release(shc_xtensor *t)
{
    if (t->data != borrowed)
        free(t->data);
    t->data = NULL;
}

/* Make t's data writable: copy it if it is the caller's buffer. */
static int xt_own(shc_xtensor *t, shc_err *e)
{
    if (t->data != borrowed || !t->data)
        return SHC_OK;
    size_t bytes = (size_t)t->numel * es_of(t);
    void *d = malloc(bytes + 1);
    if (!d)
        return shc_fail(e, SHC_ENOMEM, "out of memory (%zu bytes)", bytes);
    memcpy(d, t->data, bytes);
    t->data = d;
    return SHC_OK;
}

void shc_xt_dims_split(const shc_shape *s, int d, int64_t *outer, int64_t *inner)
{
    *outer = 1;
    *inner = 1;
    for (int i = 0; i < d; i++)
        *outer *= s->d[i];
    for (int i = d + 1; i < s->ndim; i++)
        *inner *= s->d[i];
}

int shc_xt_gather_dim(const shc_xtensor *in, int d, const int64_t *idx, int64_t nidx,
                      shc_xtensor *out, shc_err *e)
{
    int64_t outer, inner;
    shc_xt_dims_split(&in->shape, d, &outer, &inner);
    size_t es = es_of(in), ib = (size_t)inner * es;
    out->shape = in->shape;
    out->shape.d[d] = nidx;
    out->dtype = in->dtype;
    out->numel = outer * nidx * inner;
    out->data = calloc((size_t)(out->numel ? out->numel : 1), es);
    if (!out->data)
        return shc_fail(e, SHC_ENOMEM, "out of memory (%lld elements)", (long long)out->numel);
    /* Copy runs of consecutive source indices with one memcpy each: narrowing, padding
     * and chunking (almost every use) are a single run per outer index. */
    for (int64_t j = 0; j < nidx;) {
        int64_t len = 1;
        if (idx[j] < 0) {
            j++;
            continue;
        }
        while (j + len < nidx && idx[j + len] == idx[j] + len)
            len++;
        for (int64_t o = 0; o < outer; o++)
            memcpy((char *)out->data + ((size_t)(o * nidx + j)) * ib,
                   (const char *)in->data + ((size_t)(o * in->shape.d[d] + idx[j])) * ib,
                   (size_t)len * ib);
        j += len;
    }
    return SHC_OK;
}

/* out = in[start:start+len] along d, -1 (zero) past the input's end: narrow and pad. */
static int range_dim(const shc_xtensor *in, int d, int64_t start, int64_t len, shc_xtensor *out,
                     shc_err *e)
{
    int64_t *idx = malloc((size_t)(len ? len : 1) * sizeof *idx);
    if (!idx)
        return shc_fail(e, SHC_ENOMEM, "out of memory");
    for (int64_t j = 0; j < len; j++)
        idx[j] = start + j < in->shape.d[d] ? start + j : -1;
    int rc = shc_xt_gather_dim(in, d, idx, len, out, e);
    free(idx);
    return rc;
}

/* Replace *t by the result of range_dim. */
static int narrow_inplace(shc_xtensor *t, int d, int64_t start, int64_t len, shc_err *e)
{
    shc_xtensor r;
    if (start == 0 && len == t->shape.d[d])
        return SHC_OK;
    int rc = range_dim(t, d, start, len, &r, e);
    if (!rc) {
        xt_release(t);
        *t = r;
    }
    return rc;
}

/* n equal blocks (each of shape bs, contiguous) concatenated along d. */
static int concat_blocks(const char *blocks, int n, const shc_shape *bs, shc_dtype dt, int d,
                         shc_xtensor *out, shc_err *e)
{
    int64_t outer, inner;
    shc_xt_dims_split(bs, d, &outer, &inner);
    size_t es = shc_dtype_size(dt), run = (size_t)(bs->d[d] * inner) * es;
    out->shape = *bs;
    out->shape.d[d] = bs->d[d] * n;
    out->dtype = dt;
    out->numel = outer * inner * out->shape.d[d];
    out->data = calloc((size_t)(out->numel ? out->numel : 1), es);
    if (!out->data)
        return shc_fail(e, SHC_ENOMEM, "out of memory");
    for (int j = 0; j < n; j++)
        for (int64_t o = 0; o < outer; o++)
            memcpy((char *)out->data + ((size_t)o * n + j) * run,
                   blocks + (size_t)j * outer * run + (size_t)o * run, run);
    return SHC_OK;
}

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

/* ---- step kinds ---- */

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

/* Shard._to_replicate_tensor: pad to ceil(L/n), all-gather, concatenate, unpad. */
static int shard_to_rep(shc_comm *c, const shc_xgroup *g, int d, int64_t L, shc_xtensor *t,
                        shc_err *e)
{
    int64_t full = shc_ceildiv64(L, g->n);
    int rc = L % g->n ? narrow_inplace(t, d, 0, full, e) : SHC_OK;
    if (rc)
        return rc;
    size_t bytes = (size_t)t->numel * es_of(t);
    char *recv = malloc(bytes * g->n + 1);
    if (!recv)
        return shc_fail(e, SHC_ENOMEM, "out of memory");
    rc = c->ops->all_gather(c, g->ranks, g->n, t->data, bytes, recv, e);
    shc_xtensor r;
    int64_t outer, inner;
    shc_xt_dims_split(&t->shape, d, &outer, &inner);
    if (!rc && outer == 1) {  /* the blocks already lie in order along d: no copy */
        r = *t;
        r.shape.d[d] *= g->n;
        r.numel *= g->n;
        r.data = recv;
        recv = NULL;
    } else if (!rc) {
        rc = concat_blocks(recv, g->n, &t->shape, t->dtype, d, &r, e);
    }
    free(recv);
    if (rc)
        return rc;
    xt_release(t);
    *t = r;
    return narrow_inplace(t, d, 0, L, e);
}

/* _StridedShard._to_replicate_tensor: pad to shard 0's size, all-gather, index_select. */
static int strided_to_rep(shc_comm *c, const shc_xgroup *g, const shc_placement *p, int64_t L,
                          shc_xtensor *t, shc_err *e)
{
    int d = p->dim;
    int64_t sf = p->split_factor, maxc = shc_strided_positions(L, sf, g->n, 0, NULL);
    if (t->shape.d[d] > maxc)
        return shc_fail(e, SHC_EUNSUPPORTED, "_S(%d, %lld): local size %lld exceeds shard 0's "
                        "%lld, which torch 2.13 pads to", d, (long long)sf,
                        (long long)t->shape.d[d], (long long)maxc);
    int rc = narrow_inplace(t, d, 0, maxc, e); /* pad to shard 0's size */
    if (!rc)
        rc = shard_to_rep(c, g, d, maxc * g->n, t, e); /* gather; nothing to unpad */
    int64_t *sel = malloc((size_t)(L ? L : 1) * sizeof *sel), *pos = malloc((size_t)(L + 1) * 8);
    if (!rc && (!sel || !pos))
        rc = shc_fail(e, SHC_ENOMEM, "out of memory");
    for (int64_t j = 0; !rc && j < g->n; j++) {
        int64_t k = shc_strided_positions(L, sf, g->n, j, pos);
        for (int64_t q = 0; q < k; q++)
            sel[pos[q]] = j * maxc + q;
    }
    shc_xtensor r;
    if (!rc && !(rc = shc_xt_gather_dim(t, d, sel, L, &r, e))) {
        xt_release(t);
        *t = r;
    }
    free(sel);
    free(pos);
    return rc;
}

/* R -> S(d) or R -> _S(d, sf): keep this rank's chunk (no communication). */
static int local_chunk(const shc_xgroup *g, const shc_placement *p, shc_xtensor *t, shc_err *e)
{
    int d = p->dim;
    int64_t size = t->shape.d[d];
    if (p->kind == SHC_P_SHARD) {
        int64_t s, l;
        shc_xt_chunk_of(size, g->n, g->pos, &s, &l);
        return narrow_inplace(t, d, s, l, e);
    }
    int64_t *idx = malloc((size_t)(size + 1) * sizeof *idx);
    if (!idx)
        return shc_fail(e, SHC_ENOMEM, "out of memory");
    int64_t k = shc_strided_positions(size, p->split_factor, g->n, g->pos, idx);
    shc_xtensor r;
    int rc = shc_xt_gather_dim(t, d, idx, k, &r, e);
    free(idx);
    if (!rc) {
        xt_release(t);
        *t = r;
    }
    return rc;
}

static int all_reduce(shc_comm *c, const shc_xgroup *g, shc_redop op, shc_xtensor *t, shc_err *e)
{
    size_t count = (size_t)t->numel;
    if (t->data != borrowed || !c->ops->all_reduce_to) {
        int rc = xt_own(t, e); /* in place: copy the caller's buffer, never write it */
        return rc ? rc : c->ops->all_reduce(c, g->ranks, g->n, t->data, count, t->dtype, op, e);
    }
    /* out of place from the caller's buffer: the reduction writes the result, no copy first */
    void *r = malloc(count * es_of(t) + 1);
    if (!r)
        return shc_fail(e, SHC_ENOMEM, "out of memory");
    int rc = c->ops->all_reduce_to(c, g->ranks, g->n, t->data, r, count, t->dtype, op, e);
    if (rc) {
        free(r);
        return rc;
    }
    t->data = r;
    return SHC_OK;
}

/* Shard._reduce_shard_tensor: chunk + pad to n equal blocks, reduce-scatter, unpad. */
static int reduce_scatter(shc_comm *c, const shc_xgroup *g, shc_redop op, int d, shc_xtensor *t,
                          shc_err *e)
{
    /* Quirk (torch 2.13 on LocalTensor, checked by the harness): the functional
     * reduce_scatter with avg returns the float quotient, so P(avg) -> S turns an integer
     * tensor into float32, while P(avg) -> R keeps the dtype.  Not modelled. */
    if (op == SHC_OP_AVG && shc_dtype_is_int(t->dtype))
        return shc_fail(e, SHC_EUNSUPPORTED, "P(avg) -> S on %s: torch 2.13's reduce_scatter "
                        "returns a float32 quotient", shc_dtype_name(t->dtype));
    int64_t size = t->shape.d[d], full = shc_ceildiv64(size, g->n), s, l;
    int64_t *idx = malloc((size_t)(full * g->n + 1) * sizeof *idx);
    if (!idx)
        return shc_fail(e, SHC_ENOMEM, "out of memory");
    for (int j = 0; j < g->n; j++) {
        shc_xt_chunk_of(size, g->n, j, &s, &l);
        for (int64_t q = 0; q < full; q++)
            idx[j * full + q] = q < l ? s + q : -1;
    }
    shc_xtensor padded, blocks, mine;
    int rc = shc_xt_gather_dim(t, d, idx, full * g->n, &padded, e);
    free(idx);
    if (rc)
        return rc;
    /* block j = rows [j*full, (j+1)*full) of dim d, packed contiguously */
    int64_t *perm = malloc((size_t)(full * g->n + 1) * sizeof *perm);
    rc = perm ? SHC_OK : shc_fail(e, SHC_ENOMEM, "out of memory");
    shc_shape bs = padded.shape;
    bs.d[d] = full;
    int64_t outer, inner;
    shc_xt_dims_split(&bs, d, &outer, &inner);
    size_t bcount = (size_t)(outer * full * inner), es = es_of(t);
    blocks.data = rc ? NULL : malloc(bcount * g->n * es + 1);
    for (int j = 0; !rc && j < g->n; j++) {
        for (int64_t q = 0; q < full; q++)
            perm[q] = j * full + q;
        shc_xtensor b;
        if ((rc = shc_xt_gather_dim(&padded, d, perm, full, &b, e)))
            break;
        memcpy((char *)blocks.data + (size_t)j * bcount * es, b.data, bcount * es);
        shc_xtensor_free(&b);
    }
    free(perm);
    shc_xtensor_free(&padded);
    mine = (shc_xtensor){bs, t->dtype, malloc(bcount * es + 1), (int64_t)bcount};
    if (!rc)
        rc = c->ops->reduce_scatter(c, g->ranks, g->n, blocks.data, bcount, mine.data, t->dtype,
                                    op, e);
    free(blocks.data);
    if (rc) {
        shc_xtensor_free(&mine);
        return rc;
    }
    xt_release(t);
    *t = mine;
    shc_xt_chunk_of(size, g->n, g->pos, &s, &l);
    return narrow_inplace(t, d, 0, l, e);
}

/* Shard._to_new_shard_dim: pad both dims, all-to-all along the new dim, unpad. */
static int shard_to_shard(shc_comm *c, const shc_xgroup *g, int a, int b, const shc_shape *Ls,
                          shc_xtensor *t, shc_err *e)
{
    int n = g->n, rc = SHC_OK;
    int64_t fa = shc_ceildiv64(Ls->d[a], n), fb = shc_ceildiv64(Ls->d[b], n), s, l;
    if (Ls->d[a] % n)
        rc = narrow_inplace(t, a, 0, fa, e);
    if (!rc && Ls->d[b] % n)
        rc = narrow_inplace(t, b, 0, fb * n, e);
    if (rc)
        return rc;
    int64_t bsz = t->shape.d[b] / n, outer, inner;
    shc_shape bs = t->shape;
    bs.d[b] = bsz;
    shc_xt_dims_split(&t->shape, b, &outer, &inner);
    size_t es = es_of(t), run = (size_t)(bsz * inner) * es, bbytes = run * (size_t)outer;
    /* block j = rows [j*bsz, (j+1)*bsz) of dim b: already contiguous when b is the
     * outermost dim; else `outer` runs n*run apart, which the communicator sends as
     * they lie (all_to_all_runs: MPI derived datatypes) or which are packed once, run
     * by run, into its reused buffer */
    const char *send = t->data;
    char *recv = NULL;
    bool strided = outer > 1 && c->ops->all_to_all_runs;
    if (outer > 1 && !strided) {
        char *pack = shc_comm_scratch(c, bbytes * n + 1);
        if (!pack)
            rc = shc_fail(e, SHC_ENOMEM, "out of memory");
        for (int j = 0; !rc && j < n; j++)
            for (int64_t o = 0; o < outer; o++)
                memcpy(pack + (size_t)j * bbytes + (size_t)o * run,
                       (const char *)t->data + ((size_t)o * n + (size_t)j) * run, run);
        send = pack;
    }
    if (!rc && !(recv = malloc(bbytes * n + 1)))
        rc = shc_fail(e, SHC_ENOMEM, "out of memory");
    if (!rc && strided)
        rc = c->ops->all_to_all_runs(c, g->ranks, n, send, run, (size_t)outer, run * (size_t)n,
                                     recv, e);
    else if (!rc)
        rc = c->ops->all_to_all(c, g->ranks, n, send, bbytes, recv, e);
    shc_xtensor r;
    shc_xt_dims_split(&bs, a, &outer, &inner);
    if (!rc && outer == 1) {  /* blocks already lie in order along a: adopt the buffer */
        r = (shc_xtensor){bs, t->dtype, recv, 0};
        r.shape.d[a] *= n;
        r.numel = t->numel;
        recv = NULL;
    } else if (!rc) {
        rc = concat_blocks(recv, n, &bs, t->dtype, a, &r, e);
    }
    free(recv);
    if (rc)
        return rc;
    xt_release(t);
    *t = r;
    rc = narrow_inplace(t, a, 0, Ls->d[a], e);
    shc_xt_chunk_of(Ls->d[b], n, g->pos, &s, &l);
    return rc ? rc : narrow_inplace(t, b, 0, l, e);
}

/* Partial._partition_value (R -> P). */
static int partition(const shc_xgroup *g, shc_redop op, shc_xtensor *t, shc_err *e)
{
    if (op == SHC_OP_SUM) {
        if (shc_dtype_is_int(t->dtype))
            return shc_fail(e, SHC_EUNSUPPORTED, "Replicate to Partial(sum) on %s: torch 2.13 "
                            "divides with true division and returns float32",
                            shc_dtype_name(t->dtype));
        int rc = xt_own(t, e);
        if (!rc)
            shc_div_scalar(t->data, (size_t)t->numel, t->dtype, g->n);
        return rc;
    }
    if (op == SHC_OP_AVG || op == SHC_OP_MIN || op == SHC_OP_MAX)
        return SHC_OK;
    return shc_fail(e, SHC_EINVAL, "Replicate to Partial(%s) conversion is not supported.",
                    shc_redop_name(op));
}

/* To Replicate from any source placement (the first half of most branches). */
static int to_replicate(shc_comm *c, const shc_xgroup *g, const shc_plan_step *st, shc_xtensor *t,
                        shc_err *e)
{
    const shc_placement *p = &st->src;
    switch (p->kind) {
    case SHC_P_PARTIAL: return all_reduce(c, g, p->op, t, e);
    case SHC_P_SHARD: return shard_to_rep(c, g, p->dim, st->logical_shape.d[p->dim], t, e);
    case SHC_P_STRIDED: return strided_to_rep(c, g, p, st->logical_shape.d[p->dim], t, e);
    default: return SHC_OK;
    }
}

int shc_exec_step(shc_comm *c, const shc_xcase *x, const shc_plan_step *st, shc_xtensor *t,
                  shc_err *e)
{
    const shc_placement *s = &st->src, *d = &st->dst;
    if (shc_placement_eq(s, d))
        return SHC_OK;
    shc_xgroup g = {0};
    int rc = shc_xt_step_group(c, x, st, &g, e);
    if (rc || g.n == 1) {
        free(g.ranks);
        return rc;
    }
    bool scaled = st->avg_scale > 1 && s->kind == SHC_P_PARTIAL;
    if (scaled && shc_dtype_is_int(t->dtype))
        rc = shc_fail(e, SHC_EUNSUPPORTED, "merged avg on %s: torch 2.13 divides by the avg "
                      "scale and returns float32", shc_dtype_name(t->dtype));
    else if (d->kind == SHC_P_REPLICATE)
        rc = to_replicate(c, &g, st, t, e);
    else if (d->kind == SHC_P_SHARD && s->kind == SHC_P_PARTIAL)
        rc = reduce_scatter(c, &g, s->op, d->dim, t, e);
    else if (d->kind == SHC_P_SHARD && s->kind == SHC_P_SHARD)
        rc = s->dim == d->dim ? SHC_OK
             : shard_to_shard(c, &g, s->dim, d->dim, &st->logical_shape, t, e);
    else if (d->kind == SHC_P_SHARD || d->kind == SHC_P_STRIDED)
        rc = (rc = to_replicate(c, &g, st, t, e)) ? rc : local_chunk(&g, d, t, e);
    else if (s->kind == SHC_P_REPLICATE)
        rc = partition(&g, d->op, t, e);
    else if (s->kind == SHC_P_PARTIAL)
        rc = shc_fail(e, SHC_EINVAL, "Redistribution from one partial type (P(%s)) to another "
                      "(P(%s)) is unsupported.", shc_redop_name(s->op), shc_redop_name(d->op));
    else {
        char a[64], b[64];
        shc_placement_format(s, a, sizeof a);
        shc_placement_format(d, b, sizeof b);
        rc = shc_fail(e, SHC_EINVAL, "redistribute from %s to %s not supported yet", a, b);
    }
    if (!rc && scaled && !(rc = xt_own(t, e)))
        shc_div_scalar(t->data, (size_t)t->numel, t->dtype, st->avg_scale);
    free(g.ranks);
    return rc;
}

int shc_exec_plan_for(const shc_xcase *x, int64_t rank, shc_plan *plan, shc_err *e)
{
    shc_plan_opts o;
    shc_plan_opts_init(&o);
    o.planner = x->planner;
    o.dtype_bytes = (int)shc_dtype_size(x->dtype);
    memset(plan, 0, sizeof *plan);
    return shc_plan_compute(&x->mesh, &x->src, &x->dst, &x->shape, &o, rank, plan, e);
}

int shc_exec_redistribute(shc_comm *c, const shc_xcase *x, const shc_xtensor *in,
                          shc_xtensor *out, shc_err *e)
{
    shc_plan plan;
    int rc = shc_exec_plan_for(x, c->rank, &plan, e);
    if (rc)
        return rc;
    rc = shc_exec_plan(c, x, &plan, in, out, e);
    shc_plan_free(&plan);
    return rc;
}

int shc_exec_plan(shc_comm *c, const shc_xcase *x, const shc_plan *plan, const shc_xtensor *in,
                  shc_xtensor *out, shc_err *e)
{
    /* Run from the caller's buffer (see `borrowed`): most steps produce a new
     * buffer anyway, so the input is copied only if it is also the result. */
    int rc = SHC_OK;
    *out = *in;
    borrowed = in->data;
    for (int i = 0; i < plan->nsteps && !rc; i++)
        if ((rc = shc_exec_step(c, x, &plan->steps[i], out, e)))
            rc = shc_err_prefix(e, "step %d", i);
    if (!rc)
        rc = xt_own(out, e);
    if (rc)
        xt_release(out);
    borrowed = NULL;
    return rc;
}

/* ---- simulation on the local backend ---- */

typedef struct sim {
    const shc_xcase *x;
    shc_xtensor *out;
} sim;

static int sim_rank(shc_comm *c, void *arg, shc_err *e)
{
    sim *s = arg;
    shc_xtensor in;
    int rc = shc_testdata_source(s->x, c->rank, &in, e);
    if (rc)
        return rc;
    rc = shc_exec_redistribute(c, s->x, &in, &s->out[c->rank], e);
    shc_xtensor_free(&in);
    return rc;
}

int shc_exec_simulate(const shc_xcase *x, shc_xtensor *out, shc_err *e)
{
    sim s = {x, out};
    memset(out, 0, (size_t)x->mesh.size * sizeof *out);
    int rc = shc_comm_local_run(x->mesh.size, sim_rank, &s, NULL, e);
    if (rc)
        for (int64_t r = 0; r < x->mesh.size; r++)
            shc_xtensor_free(&out[r]);
    return rc;
}
