/*
 * redistribute_dev.c — execute a redistribute plan with the rank's tensor in
 * device memory (xdev.h): the same dispatch on (src, dst) placements as
 * redistribute_exec.c, step for step (torch 2.13's redistribute_local_tensor),
 * with every local slice, pad, chunk and block (un)packing done by the kernels
 * of redist_body.h on the device and every collective by a device
 * communicator.  The host copy of the input goes up once and the result comes
 * down once.
 *
 * Element-wise arithmetic stays on the host, staged: the reduction of
 * collectives (host-staged comm: shc_reduce_into, in group order, as the host
 * execution and torch's LocalTensor reduce) and the division of R -> P(sum) and
 * merged avg (shc_div_scalar).  That keeps the device result the host's bit for
 * bit, which is what the golden files hold; it costs a round trip in those steps.
 *
 * Kept beside redistribute_exec.c rather than inside it so the host path stays
 * as it is; the two are held together by check_redist_dev.c, which runs every
 * redistribute-data case both ways (grid emulator, several grids) and compares
 * bytes.
 */
#include "config.h"
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "plan.h"
#include "redistribute_exec.h"
#include "checked_math.h"
#include "xdev.h"

/* A tensor whose data is device memory of dev. */
typedef struct dt {
    shc_shape shape;
    shc_dtype dtype;
    void *d;
    int64_t numel;
} dt;

static size_t es_of(const dt *t) { return shc_dtype_size(t->dtype); }
static size_t bytes_of(const dt *t) { return (size_t)t->numel * es_of(t); }

static void drop(shc_xdev *dev, dt *t)
{
    dev->ops->release(dev, t->d);
    t->d = NULL;
}

/* Replace *t by r (the old buffer released). */
static void adopt(shc_xdev *dev, dt *t, dt r)
{
    drop(dev, t);
    *t = r;
}

/* out = in re-indexed along d (host idx[j], -1: zero) or, idx NULL, in[start:start+len]
 * padded with zeros past the end: the device form of shc_xt_gather_dim. */
static int dgather(shc_xdev *dev, const dt *in, int d, const int64_t *idx, int64_t start,
                   int64_t nidx, dt *out, shc_err *e)
{
    assert(d >= 0 && d < in->shape.ndim && nidx >= 0);
    shc_rk_gather k = {.nidx = nidx, .in_len = in->shape.d[d], .start = start,
                       .es = (int)es_of(in), .in = in->d};
    shc_xt_dims_split(&in->shape, d, &k.outer, &k.inner);
    *out = (dt){in->shape, in->dtype, NULL, k.outer * nidx * k.inner};
    out->shape.d[d] = nidx;
    void *didx = NULL;
    int rc = dev->ops->alloc(dev, bytes_of(out), &out->d, e);
    if (!rc && idx && !(rc = dev->ops->alloc(dev, (size_t)nidx * sizeof *idx, &didx, e)))
        rc = dev->ops->upload(dev, didx, idx, (size_t)nidx * sizeof *idx, e);
    k.idx = didx;
    k.out = out->d;
    if (!rc)
        rc = dev->ops->gather(dev, &k, e);
    dev->ops->release(dev, didx);
    if (rc)
        drop(dev, out);
    return rc;
}

static int narrow_inplace(shc_xdev *dev, dt *t, int d, int64_t start, int64_t len, shc_err *e)
{
    if (start == 0 && len == t->shape.d[d])
        return SHC_OK;
    dt r;
    int rc = dgather(dev, t, d, NULL, start, len, &r, e);
    if (!rc)
        adopt(dev, t, r);
    return rc;
}

/* Re-index *t along d by host idx (nidx entries). */
static int gather_inplace(shc_xdev *dev, dt *t, int d, const int64_t *idx, int64_t nidx,
                          shc_err *e)
{
    dt r;
    int rc = dgather(dev, t, d, idx, 0, nidx, &r, e);
    if (!rc)
        adopt(dev, t, r);
    return rc;
}

/* out[a][b][r] = in[b][a][r] into a new buffer. */
static int dswap(shc_xdev *dev, const void *in, int64_t A, int64_t B, int64_t run, int es,
                 void **out, shc_err *e)
{
    int rc = dev->ops->alloc(dev, (size_t)(A * B * run) * (size_t)es, out, e);
    shc_rk_swap k = {A, B, run, es, in, rc ? NULL : *out};
    if (!rc && (rc = dev->ops->swap(dev, &k, e))) {
        dev->ops->release(dev, *out);
        *out = NULL;
    }
    return rc;
}

/* n blocks of shape bs, contiguous one after another, concatenated along d. */
static int concat_blocks(shc_xdev *dev, const void *blocks, int n, const shc_shape *bs,
                         shc_dtype dtype, int d, dt *out, shc_err *e)
{
    int64_t outer, inner;
    shc_xt_dims_split(bs, d, &outer, &inner);
    *out = (dt){*bs, dtype, NULL, outer * inner * bs->d[d] * n};
    out->shape.d[d] = bs->d[d] * n;
    return dswap(dev, blocks, outer, n, bs->d[d] * inner, (int)shc_dtype_size(dtype), &out->d, e);
}

/* buf[i] /= n on the host (shc_div_scalar), staged. */
static int div_staged(shc_xdev *dev, dt *t, int64_t n, shc_err *e)
{
    size_t b = bytes_of(t);
    void *h = malloc(b + 1);
    if (!h)
        return shc_fail(e, SHC_ENOMEM, "out of memory");
    int rc = dev->ops->download(dev, h, t->d, b, e);
    if (!rc) {
        shc_div_scalar(h, (size_t)t->numel, t->dtype, n);
        rc = dev->ops->upload(dev, t->d, h, b, e);
    }
    free(h);
    return rc;
}

/* ---- step kinds (each mirrors its namesake in redistribute_exec.c; the group, chunk and dim
 * arithmetic is that file's, shared through redistribute_exec.h) ---- */

static int shard_to_rep(shc_dcomm *c, const shc_xgroup *g, int d, int64_t L, dt *t, shc_err *e)
{
    shc_xdev *dev = c->dev;
    int64_t full = shc_ceildiv64(L, g->n);
    int rc = L % g->n ? narrow_inplace(dev, t, d, 0, full, e) : SHC_OK;
    if (rc)
        return rc;
    size_t bytes = bytes_of(t);
    void *recv = NULL;
    if ((rc = dev->ops->alloc(dev, bytes * (size_t)g->n, &recv, e)))
        return rc;
    rc = c->ops->all_gather(c, g->ranks, g->n, t->d, bytes, recv, e);
    dt r;
    if (!rc)
        rc = concat_blocks(dev, recv, g->n, &t->shape, t->dtype, d, &r, e);
    dev->ops->release(dev, recv);
    if (rc)
        return rc;
    adopt(dev, t, r);
    return narrow_inplace(dev, t, d, 0, L, e);
}

static int strided_to_rep(shc_dcomm *c, const shc_xgroup *g, const shc_placement *p, int64_t L,
                          dt *t, shc_err *e)
{
    int d = p->dim;
    int64_t sf = p->split_factor, maxc = shc_strided_positions(L, sf, g->n, 0, NULL);
    if (t->shape.d[d] > maxc)
        return shc_fail(e, SHC_EUNSUPPORTED, "_S(%d, %lld): local size %lld exceeds shard 0's "
                        "%lld, which torch 2.13 pads to", d, (long long)sf,
                        (long long)t->shape.d[d], (long long)maxc);
    int rc = narrow_inplace(c->dev, t, d, 0, maxc, e);
    if (!rc)
        rc = shard_to_rep(c, g, d, maxc * g->n, t, e);
    int64_t *sel = malloc((size_t)(L ? L : 1) * sizeof *sel), *pos = malloc((size_t)(L + 1) * 8);
    if (!rc && (!sel || !pos))
        rc = shc_fail(e, SHC_ENOMEM, "out of memory");
    for (int64_t j = 0; !rc && j < g->n; j++) {
        int64_t k = shc_strided_positions(L, sf, g->n, j, pos);
        for (int64_t q = 0; q < k; q++)
            sel[pos[q]] = j * maxc + q;
    }
    if (!rc)
        rc = gather_inplace(c->dev, t, d, sel, L, e);
    free(sel);
    free(pos);
    return rc;
}

static int local_chunk(shc_xdev *dev, const shc_xgroup *g, const shc_placement *p, dt *t,
                       shc_err *e)
{
    int d = p->dim;
    int64_t size = t->shape.d[d];
    if (p->kind == SHC_P_SHARD) {
        int64_t s, l;
        shc_xt_chunk_of(size, g->n, g->pos, &s, &l);
        return narrow_inplace(dev, t, d, s, l, e);
    }
    int64_t *idx = malloc((size_t)(size + 1) * sizeof *idx);
    if (!idx)
        return shc_fail(e, SHC_ENOMEM, "out of memory");
    int64_t k = shc_strided_positions(size, p->split_factor, g->n, g->pos, idx);
    int rc = gather_inplace(dev, t, d, idx, k, e);
    free(idx);
    return rc;
}

static int reduce_scatter(shc_dcomm *c, const shc_xgroup *g, shc_redop op, int d, dt *t, shc_err *e)
{
    shc_xdev *dev = c->dev;
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
    dt padded, mine;
    int rc = dgather(dev, t, d, idx, 0, full * g->n, &padded, e);
    free(idx);
    if (rc)
        return rc;
    /* block j = rows [j*full, (j+1)*full) of dim d, packed contiguously */
    shc_shape bs = padded.shape;
    bs.d[d] = full;
    int64_t outer, inner;
    shc_xt_dims_split(&bs, d, &outer, &inner);
    size_t bcount = (size_t)(outer * full * inner);
    void *blocks = NULL;
    rc = dswap(dev, padded.d, g->n, outer, full * inner, (int)es_of(t), &blocks, e);
    drop(dev, &padded);
    mine = (dt){bs, t->dtype, NULL, (int64_t)bcount};
    if (!rc)
        rc = dev->ops->alloc(dev, bcount * es_of(t), &mine.d, e);
    if (!rc)
        rc = c->ops->reduce_scatter(c, g->ranks, g->n, blocks, bcount, mine.d, t->dtype, op, e);
    dev->ops->release(dev, blocks);
    if (rc) {
        drop(dev, &mine);
        return rc;
    }
    adopt(dev, t, mine);
    shc_xt_chunk_of(size, g->n, g->pos, &s, &l);
    return narrow_inplace(dev, t, d, 0, l, e);
}

static int shard_to_shard(shc_dcomm *c, const shc_xgroup *g, int a, int b, const shc_shape *Ls,
                          dt *t,
                          shc_err *e)
{
    shc_xdev *dev = c->dev;
    int n = g->n, rc = SHC_OK;
    int64_t fa = shc_ceildiv64(Ls->d[a], n), fb = shc_ceildiv64(Ls->d[b], n), s, l;
    if (Ls->d[a] % n)
        rc = narrow_inplace(dev, t, a, 0, fa, e);
    if (!rc && Ls->d[b] % n)
        rc = narrow_inplace(dev, t, b, 0, fb * n, e);
    if (rc)
        return rc;
    assert(t->shape.d[b] % n == 0); /* padded to n equal blocks along b */
    int64_t bsz = t->shape.d[b] / n, outer, inner;
    shc_shape bs = t->shape;
    bs.d[b] = bsz;
    shc_xt_dims_split(&t->shape, b, &outer, &inner);
    size_t bbytes = (size_t)(bsz * inner * outer) * es_of(t);
    void *send = NULL, *recv = NULL;
    rc = dswap(dev, t->d, n, outer, bsz * inner, (int)es_of(t), &send, e);
    if (!rc)
        rc = dev->ops->alloc(dev, bbytes * (size_t)n, &recv, e);
    if (!rc)
        rc = c->ops->all_to_all(c, g->ranks, n, send, bbytes, recv, e);
    dev->ops->release(dev, send);
    dt r;
    if (!rc)
        rc = concat_blocks(dev, recv, n, &bs, t->dtype, a, &r, e);
    dev->ops->release(dev, recv);
    if (rc)
        return rc;
    adopt(dev, t, r);
    rc = narrow_inplace(dev, t, a, 0, Ls->d[a], e);
    shc_xt_chunk_of(Ls->d[b], n, g->pos, &s, &l);
    return rc ? rc : narrow_inplace(dev, t, b, 0, l, e);
}

static int partition(shc_xdev *dev, const shc_xgroup *g, shc_redop op, dt *t, shc_err *e)
{
    if (op == SHC_OP_SUM) {
        if (shc_dtype_is_int(t->dtype))
            return shc_fail(e, SHC_EUNSUPPORTED, "Replicate to Partial(sum) on %s: torch 2.13 "
                            "divides with true division and returns float32",
                            shc_dtype_name(t->dtype));
        return div_staged(dev, t, g->n, e);
    }
    if (op == SHC_OP_AVG || op == SHC_OP_MIN || op == SHC_OP_MAX)
        return SHC_OK;
    return shc_fail(e, SHC_EINVAL, "Replicate to Partial(%s) conversion is not supported.",
                    shc_redop_name(op));
}

static int to_replicate(shc_dcomm *c, const shc_xgroup *g, const shc_plan_step *st, dt *t,
                        shc_err *e)
{
    const shc_placement *p = &st->src;
    switch (p->kind) {
    case SHC_P_PARTIAL:
        return c->ops->all_reduce(c, g->ranks, g->n, t->d, (size_t)t->numel, t->dtype, p->op, e);
    case SHC_P_SHARD: return shard_to_rep(c, g, p->dim, st->logical_shape.d[p->dim], t, e);
    case SHC_P_STRIDED: return strided_to_rep(c, g, p, st->logical_shape.d[p->dim], t, e);
    default: return SHC_OK;
    }
}

static int dexec_step(shc_dcomm *c, const shc_xcase *x, const shc_plan_step *st, dt *t,
                      shc_err *e)
{
    const shc_placement *s = &st->src, *d = &st->dst;
    if (shc_placement_eq(s, d))
        return SHC_OK;
    shc_xgroup g = {0};
    int rc = shc_xt_step_group(c->host, x, st, &g, e);
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
        rc = (rc = to_replicate(c, &g, st, t, e)) ? rc : local_chunk(c->dev, &g, d, t, e);
    else if (s->kind == SHC_P_REPLICATE)
        rc = partition(c->dev, &g, d->op, t, e);
    else if (s->kind == SHC_P_PARTIAL)
        rc = shc_fail(e, SHC_EINVAL, "Redistribution from one partial type (P(%s)) to another "
                      "(P(%s)) is unsupported.", shc_redop_name(s->op), shc_redop_name(d->op));
    else {
        char a[64], b[64];
        shc_placement_format(s, a, sizeof a);
        shc_placement_format(d, b, sizeof b);
        rc = shc_fail(e, SHC_EINVAL, "redistribute from %s to %s not supported yet", a, b);
    }
    if (!rc && scaled)
        rc = div_staged(c->dev, t, st->avg_scale, e);
    free(g.ranks);
    return rc;
}

int shc_dexec_redistribute(shc_dcomm *c, const shc_xcase *x, const shc_xtensor *in,
                           shc_xtensor *out, shc_err *e)
{
    shc_xdev *dev = c->dev;
    shc_plan plan;
    memset(out, 0, sizeof *out);
    int rc = shc_exec_plan_for(x, c->host->rank, &plan, e);
    if (rc)
        return rc;
    dt t = {in->shape, in->dtype, NULL, in->numel};
    if (!(rc = dev->ops->alloc(dev, bytes_of(&t), &t.d, e)))
        rc = dev->ops->upload(dev, t.d, in->data, bytes_of(&t), e);
    for (int i = 0; i < plan.nsteps && !rc; i++)
        if ((rc = dexec_step(c, x, &plan.steps[i], &t, e)))
            rc = shc_err_prefix(e, "step %d", i);
    shc_plan_free(&plan);
    if (!rc) {
        *out = (shc_xtensor){t.shape, t.dtype, malloc(bytes_of(&t) + 1), t.numel};
        rc = out->data ? dev->ops->download(dev, out->data, t.d, bytes_of(&t), e)
                       : shc_fail(e, SHC_ENOMEM, "out of memory");
        if (rc)
            shc_xtensor_free(out);
    }
    drop(dev, &t);
    return rc;
}

/* ---- the host-staged communicator ---- */

typedef struct staged {
    void *a, *b; /* host staging buffers, grown as needed */
    size_t na, nb;
} staged;

static int grow(void **p, size_t *cap, size_t want, shc_err *e)
{
    if (want <= *cap)
        return SHC_OK;
    void *q = realloc(*p, want);
    if (!q)
        return shc_fail(e, SHC_ENOMEM, "out of memory (%zu bytes)", want);
    *p = q;
    *cap = want;
    return SHC_OK;
}

static int stage(shc_dcomm *c, size_t in_bytes, size_t out_bytes, const void *dsend,
                 staged **s, shc_err *e)
{
    *s = c->impl;
    int rc = grow(&(*s)->a, &(*s)->na, in_bytes + 1, e);
    if (!rc)
        rc = grow(&(*s)->b, &(*s)->nb, out_bytes + 1, e);
    if (!rc && dsend)
        rc = c->dev->ops->download(c->dev, (*s)->a, dsend, in_bytes, e);
    return rc;
}

static int st_all_gather(shc_dcomm *c, const int64_t *group, int n, const void *send,
                         size_t bytes, void *recv, shc_err *e)
{
    staged *s;
    int rc = stage(c, bytes, bytes * (size_t)n, send, &s, e);
    if (!rc)
        rc = c->host->ops->all_gather(c->host, group, n, s->a, bytes, s->b, e);
    return rc ? rc : c->dev->ops->upload(c->dev, recv, s->b, bytes * (size_t)n, e);
}

static int st_all_to_all(shc_dcomm *c, const int64_t *group, int n, const void *send,
                         size_t bytes, void *recv, shc_err *e)
{
    staged *s;
    int rc = stage(c, bytes * (size_t)n, bytes * (size_t)n, send, &s, e);
    if (!rc)
        rc = c->host->ops->all_to_all(c->host, group, n, s->a, bytes, s->b, e);
    return rc ? rc : c->dev->ops->upload(c->dev, recv, s->b, bytes * (size_t)n, e);
}

static int st_reduce_scatter(shc_dcomm *c, const int64_t *group, int n, const void *send,
                             size_t count, void *recv, shc_dtype t, shc_redop op, shc_err *e)
{
    staged *s;
    size_t b = count * shc_dtype_size(t);
    int rc = stage(c, b * (size_t)n, b, send, &s, e);
    if (!rc)
        rc = c->host->ops->reduce_scatter(c->host, group, n, s->a, count, s->b, t, op, e);
    return rc ? rc : c->dev->ops->upload(c->dev, recv, s->b, b, e);
}

static int st_all_reduce(shc_dcomm *c, const int64_t *group, int n, void *buf, size_t count,
                         shc_dtype t, shc_redop op, shc_err *e)
{
    staged *s;
    size_t b = count * shc_dtype_size(t);
    int rc = stage(c, b, 0, buf, &s, e);
    if (!rc)
        rc = c->host->ops->all_reduce(c->host, group, n, s->a, count, t, op, e);
    return rc ? rc : c->dev->ops->upload(c->dev, buf, s->a, b, e);
}

static void st_destroy(shc_dcomm *c)
{
    staged *s = c->impl;
    free(s->a);
    free(s->b);
    free(s);
    free(c);
}

static const shc_dcomm_ops staged_ops = {"host-staged", st_all_gather, st_all_to_all,
                                         st_reduce_scatter, st_all_reduce, st_destroy};

int shc_dcomm_staged_new(shc_comm *host, shc_xdev *dev, shc_dcomm **out, shc_err *e)
{
    shc_dcomm *c = calloc(1, sizeof *c);
    staged *s = calloc(1, sizeof *s);
    if (!c || !s) {
        free(c);
        free(s);
        return shc_fail(e, SHC_ENOMEM, "out of memory");
    }
    *c = (shc_dcomm){&staged_ops, host, dev, s};
    *out = c;
    return SHC_OK;
}

/* ---- simulated ranks, each on its own device ---- */

typedef struct drun {
    shc_xdev_open_fn open;
    void *open_arg;
    shc_drank_fn fn;
    void *arg;
} drun;

static int drun_rank(shc_comm *c, void *arg, shc_err *e)
{
    const drun *r = arg;
    shc_xdev *dev = NULL;
    shc_dcomm *dc = NULL;
    int rc = r->open(r->open_arg, c->rank, &dev, e);
    if (!rc)
        rc = shc_dcomm_staged_new(c, dev, &dc, e);
    if (!rc)
        rc = r->fn(dc, r->arg, e);
    if (dc)
        dc->ops->destroy(dc);
    if (dev)
        dev->ops->destroy(dev);
    return rc;
}

int shc_dexec_local_run(int64_t n, shc_xdev_open_fn open, void *open_arg, shc_drank_fn fn,
                        void *arg, shc_err *errs, shc_err *e)
{
    drun r = {open, open_arg, fn, arg};
    return shc_comm_local_run(n, drun_rank, &r, errs, e);
}
