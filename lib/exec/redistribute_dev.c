/*
 * redistribute_dev.c — execute a redistribute plan with the rank's tensor in
 * device memory (xdev.h): redistribute_step.c's dispatch on (src, dst)
 * placements, the one the host executor uses, over the device's local-tensor
 * operations (dev_ops below): every local slice, pad, chunk and block
 * (un)packing is a kernel of redist_body.h on the device and every collective
 * goes through a device communicator.  The host copy of the input goes up once
 * and the result comes down once.
 *
 * Element-wise arithmetic stays on the host, staged: the reduction of
 * collectives (host-staged comm: shc_reduce_into, in group order, as the host
 * execution and torch's LocalTensor reduce) and the division of R -> P(sum) and
 * merged avg (shc_div_scalar).  That keeps the device result the host's bit for
 * bit, which is what the golden files hold; it costs a round trip in those steps.
 *
 * check_redist_dev.c holds the two operation tables together: it runs every
 * redistribute-data case both ways (grid emulator, several grids) and compares
 * bytes.
 */
#include "config.h"
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "plan_internal.h"
#include "redistribute_exec.h"
#include "redistribute_step.h"
#include "checked_math.h"
#include "xdev.h"

/* A tensor here is a shc_xtensor whose data is device memory of dev. */
static size_t es_of(const shc_xtensor *t) { return shc_dtype_size(t->dtype); }
static size_t bytes_of(const shc_xtensor *t) { return (size_t)t->numel * es_of(t); }

static void drop(shc_xdev *dev, shc_xtensor *t)
{
    dev->ops->release(dev, t->data);
    t->data = NULL;
}

/* Replace *t by r (the old buffer released). */
static void adopt(shc_xdev *dev, shc_xtensor *t, shc_xtensor r)
{
    drop(dev, t);
    *t = r;
}

/* out = in re-indexed along d (host idx[j], -1: zero) or, idx NULL, in[start:start+len]
 * padded with zeros past the end: the device form of shc_xt_gather_dim. */
static int dgather(shc_xdev *dev, const shc_xtensor *in, int d, const int64_t *idx,
                   int64_t start, int64_t nidx, shc_xtensor *out, shc_err *e)
{
    assert(d >= 0 && d < in->shape.ndim && nidx >= 0);
    shc_rk_gather k = {.nidx = nidx, .in_len = in->shape.d[d], .start = start,
                       .es = (int)es_of(in), .in = in->data};
    shc_xt_dims_split(&in->shape, d, &k.outer, &k.inner);
    *out = (shc_xtensor){in->shape, in->dtype, NULL, k.outer * nidx * k.inner};
    out->shape.d[d] = nidx;
    void *didx = NULL;
    int rc = dev->ops->alloc(dev, bytes_of(out), &out->data, e);
    if (!rc && idx && !(rc = dev->ops->alloc(dev, (size_t)nidx * sizeof *idx, &didx, e)))
        rc = dev->ops->upload(dev, didx, idx, (size_t)nidx * sizeof *idx, e);
    k.idx = didx;
    k.out = out->data;
    if (!rc)
        rc = dev->ops->gather(dev, &k, e);
    dev->ops->release(dev, didx);
    if (rc)
        drop(dev, out);
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
                         shc_dtype dtype, int d, shc_xtensor *out, shc_err *e)
{
    int64_t outer, inner;
    shc_xt_dims_split(bs, d, &outer, &inner);
    *out = (shc_xtensor){*bs, dtype, NULL, outer * inner * bs->d[d] * n};
    out->shape.d[d] = bs->d[d] * n;
    return dswap(dev, blocks, outer, n, bs->d[d] * inner, (int)shc_dtype_size(dtype),
                 &out->data, e);
}

/* ---- the device's local-tensor operations (redistribute_step.h); ctx is the shc_dcomm ---- */

static int d_reindex(void *ctx, shc_xtensor *t, int d, const int64_t *idx, int64_t start,
                     int64_t n, shc_err *e)
{
    shc_xdev *dev = ((shc_dcomm *)ctx)->dev;
    shc_xtensor r;
    int rc = dgather(dev, t, d, idx, start, n, &r, e);
    if (!rc)
        adopt(dev, t, r);
    return rc;
}

static int d_all_gather_cat(void *ctx, const shc_xgroup *g, int d, shc_xtensor *t, shc_err *e)
{
    shc_dcomm *c = ctx;
    shc_xdev *dev = c->dev;
    size_t bytes = bytes_of(t);
    void *recv = NULL;
    int rc = dev->ops->alloc(dev, bytes * (size_t)g->n, &recv, e);
    if (rc)
        return rc;
    rc = c->ops->all_gather(c, g->ranks, g->n, t->data, bytes, recv, e);
    shc_xtensor r;
    if (!rc)
        rc = concat_blocks(dev, recv, g->n, &t->shape, t->dtype, d, &r, e);
    dev->ops->release(dev, recv);
    if (!rc)
        adopt(dev, t, r);
    return rc;
}

static int d_all_to_all_cat(void *ctx, const shc_xgroup *g, int b, int a, shc_xtensor *t,
                            shc_err *e)
{
    shc_dcomm *c = ctx;
    shc_xdev *dev = c->dev;
    int n = g->n;
    assert(t->shape.d[b] % n == 0); /* padded to n equal blocks along b */
    int64_t bsz = t->shape.d[b] / n, outer, inner;
    shc_shape bs = t->shape;
    bs.d[b] = bsz;
    shc_xt_dims_split(&t->shape, b, &outer, &inner);
    size_t bbytes = (size_t)(bsz * inner * outer) * es_of(t);
    void *send = NULL, *recv = NULL;
    int rc = dswap(dev, t->data, n, outer, bsz * inner, (int)es_of(t), &send, e);
    if (!rc)
        rc = dev->ops->alloc(dev, bbytes * (size_t)n, &recv, e);
    if (!rc)
        rc = c->ops->all_to_all(c, g->ranks, n, send, bbytes, recv, e);
    dev->ops->release(dev, send);
    shc_xtensor r;
    if (!rc)
        rc = concat_blocks(dev, recv, n, &bs, t->dtype, a, &r, e);
    dev->ops->release(dev, recv);
    if (!rc)
        adopt(dev, t, r);
    return rc;
}

static int d_reduce_scatter_dim(void *ctx, const shc_xgroup *g, shc_redop op, int d,
                                shc_xtensor *t, shc_err *e)
{
    shc_dcomm *c = ctx;
    shc_xdev *dev = c->dev;
    int64_t full = t->shape.d[d] / g->n;
    /* block j = rows [j*full, (j+1)*full) of dim d, packed contiguously */
    shc_shape bs = t->shape;
    bs.d[d] = full;
    int64_t outer, inner;
    shc_xt_dims_split(&bs, d, &outer, &inner);
    size_t bcount = (size_t)(outer * full * inner);
    void *blocks = NULL;
    int rc = dswap(dev, t->data, g->n, outer, full * inner, (int)es_of(t), &blocks, e);
    shc_xtensor mine = {bs, t->dtype, NULL, (int64_t)bcount};
    if (!rc)
        rc = dev->ops->alloc(dev, bcount * es_of(t), &mine.data, e);
    if (!rc)
        rc = c->ops->reduce_scatter(c, g->ranks, g->n, blocks, bcount, mine.data, t->dtype, op,
                                    e);
    dev->ops->release(dev, blocks);
    if (rc)
        drop(dev, &mine);
    else
        adopt(dev, t, mine);
    return rc;
}

static int d_all_reduce(void *ctx, const shc_xgroup *g, shc_redop op, shc_xtensor *t,
                        shc_err *e)
{
    shc_dcomm *c = ctx;
    return c->ops->all_reduce(c, g->ranks, g->n, t->data, (size_t)t->numel, t->dtype, op, e);
}

/* buf[i] /= n on the host (shc_div_scalar), staged. */
static int d_div(void *ctx, shc_xtensor *t, int64_t n, shc_err *e)
{
    shc_xdev *dev = ((shc_dcomm *)ctx)->dev;
    size_t b = bytes_of(t);
    void *h = malloc(b + 1);
    if (!h)
        return shc_fail(e, SHC_ENOMEM, "out of memory");
    int rc = dev->ops->download(dev, h, t->data, b, e);
    if (!rc) {
        shc_div_scalar(h, (size_t)t->numel, t->dtype, n);
        rc = dev->ops->upload(dev, t->data, h, b, e);
    }
    free(h);
    return rc;
}

static const shc_xops dev_ops = {"device", d_reindex, d_all_gather_cat, d_all_to_all_cat,
                                 d_reduce_scatter_dim, d_all_reduce, d_div};

int shc_dexec_redistribute(shc_dcomm *c, const shc_xcase *x, const shc_xtensor *in,
                           shc_xtensor *out, shc_err *e)
{
    shc_xdev *dev = c->dev;
    shc_xexec xe = {&dev_ops, c, c->host};
    shc_plan plan;
    memset(out, 0, sizeof *out);
    int rc = shc_exec_plan_for(x, c->host->rank, &plan, e);
    if (rc)
        return rc;
    shc_xtensor t = {in->shape, in->dtype, NULL, in->numel};
    if (!(rc = dev->ops->alloc(dev, bytes_of(&t), &t.data, e)))
        rc = dev->ops->upload(dev, t.data, in->data, bytes_of(&t), e);
    for (int i = 0; i < plan.nsteps && !rc; i++)
        if ((rc = shc_xstep_run(&xe, x, &plan.steps[i], &t, e)))
            rc = shc_err_prefix(e, "step %d", i);
    shc_plan_free(&plan);
    if (!rc) {
        *out = (shc_xtensor){t.shape, t.dtype, malloc(bytes_of(&t) + 1), t.numel};
        rc = out->data ? dev->ops->download(dev, out->data, t.data, bytes_of(&t), e)
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
