/*
 * redistribute_exec.c — execute a redistribute plan on one rank in host
 * memory, as torch 2.13's redistribute_local_tensor does (torch/distributed/
 * tensor/_redistribute.py), over any communicator (comm.h).
 *
 * The step dispatch (which of torch's branches a (src, dst) step takes) is
 * redistribute_step.c's, shared with the device executor (redistribute_dev.c);
 * this file holds the host's local-tensor operations it calls (host_ops:
 * re-indexing a dim with memcpy runs, all-gather / all-to-all / reduce-scatter
 * with their block packing, all-reduce, division), the plan loop, and the
 * simulation of every rank on the local backend.
 * Tested by check_exec.c against the oracle in testdata.c, and by the
 * redistribute-data family against torch 2.13 LocalTensor (harness).
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "comm.h"
#include "plan_internal.h"
#include "redistribute_exec.h"
#include "redistribute_step.h"
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

/* ---- the host's local-tensor operations (redistribute_step.h) ---- */

/* Replace *t by r, releasing t's buffer. */
static void adopt(shc_xtensor *t, shc_xtensor r)
{
    xt_release(t);
    *t = r;
}

static int h_reindex(void *ctx, shc_xtensor *t, int d, const int64_t *idx, int64_t start,
                     int64_t n, shc_err *e)
{
    (void)ctx;
    shc_xtensor r;
    int rc = idx ? shc_xt_gather_dim(t, d, idx, n, &r, e) : range_dim(t, d, start, n, &r, e);
    if (!rc)
        adopt(t, r);
    return rc;
}

static int h_all_gather_cat(void *ctx, const shc_xgroup *g, int d, shc_xtensor *t, shc_err *e)
{
    shc_comm *c = ctx;
    size_t bytes = (size_t)t->numel * es_of(t);
    char *recv = malloc(bytes * g->n + 1);
    if (!recv)
        return shc_fail(e, SHC_ENOMEM, "out of memory");
    int rc = c->ops->all_gather(c, g->ranks, g->n, t->data, bytes, recv, e);
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
    if (!rc)
        adopt(t, r);
    return rc;
}

static int h_all_to_all_cat(void *ctx, const shc_xgroup *g, int b, int a, shc_xtensor *t,
                            shc_err *e)
{
    shc_comm *c = ctx;
    int n = g->n, rc = SHC_OK;
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
    if (!rc)
        adopt(t, r);
    return rc;
}

static int h_reduce_scatter_dim(void *ctx, const shc_xgroup *g, shc_redop op, int d,
                                shc_xtensor *t, shc_err *e)
{
    shc_comm *c = ctx;
    int64_t full = t->shape.d[d] / g->n;
    /* block j = rows [j*full, (j+1)*full) of dim d, packed contiguously */
    int64_t *perm = malloc((size_t)(full * g->n + 1) * sizeof *perm);
    int rc = perm ? SHC_OK : shc_fail(e, SHC_ENOMEM, "out of memory");
    shc_shape bs = t->shape;
    bs.d[d] = full;
    int64_t outer, inner;
    shc_xt_dims_split(&bs, d, &outer, &inner);
    size_t bcount = (size_t)(outer * full * inner), es = es_of(t);
    char *blocks = rc ? NULL : malloc(bcount * g->n * es + 1);
    if (!rc && !blocks)
        rc = shc_fail(e, SHC_ENOMEM, "out of memory");
    for (int j = 0; !rc && j < g->n; j++) {
        for (int64_t q = 0; q < full; q++)
            perm[q] = j * full + q;
        shc_xtensor b;
        if ((rc = shc_xt_gather_dim(t, d, perm, full, &b, e)))
            break;
        memcpy(blocks + (size_t)j * bcount * es, b.data, bcount * es);
        shc_xtensor_free(&b);
    }
    free(perm);
    shc_xtensor mine = {bs, t->dtype, rc ? NULL : malloc(bcount * es + 1), (int64_t)bcount};
    if (!rc && !mine.data)
        rc = shc_fail(e, SHC_ENOMEM, "out of memory");
    if (!rc)
        rc = c->ops->reduce_scatter(c, g->ranks, g->n, blocks, bcount, mine.data, t->dtype, op,
                                    e);
    free(blocks);
    if (rc)
        shc_xtensor_free(&mine);
    else
        adopt(t, mine);
    return rc;
}

static int h_all_reduce(void *ctx, const shc_xgroup *g, shc_redop op, shc_xtensor *t,
                        shc_err *e)
{
    shc_comm *c = ctx;
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

static int h_div(void *ctx, shc_xtensor *t, int64_t n, shc_err *e)
{
    (void)ctx;
    int rc = xt_own(t, e);
    if (!rc)
        shc_div_scalar(t->data, (size_t)t->numel, t->dtype, n);
    return rc;
}

static const shc_xops host_ops = {"host", h_reindex, h_all_gather_cat, h_all_to_all_cat,
                                  h_reduce_scatter_dim, h_all_reduce, h_div};

int shc_exec_step(shc_comm *c, const shc_xcase *x, const shc_plan_step *st, shc_xtensor *t,
                  shc_err *e)
{
    shc_xexec xe = {&host_ops, c, c};
    return shc_xstep_run(&xe, x, st, t, e);
}

int shc_exec_plan_for(const shc_xcase *x, int64_t rank, shc_plan *plan, shc_err *e)
{
    shc_plan_opts o;
    shc_plan_opts_init(&o);
    o.planner = x->planner;
    o.torch = x->torch;
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
