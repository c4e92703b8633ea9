/*
 * plan_audit.c — shc_plan_audit: where torch 2.13's plan is unsafe.  Every rank's plan is
 * computed through the entry point (plan.c) and checked for the merge quirks
 * (plan_merge.c), unsupported or untraceable steps, the _StridedShard fallback, a complex
 * reduce_scatter torch reduces part by part (gloo_dtype.c), ranks
 * whose collectives differ, and plans a rank cannot execute (plan_exec_check.c).  An
 * entry point itself: it calls plan.c, which nothing here is called back from.
 * Tested by check_plan.c and cli_plan.sh (audit plan).
 */
#include "config.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plan_internal.h"

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

static void audit_rank(const shc_mesh *m, int64_t rank, const shc_plan *p, const char *dtype,
                       findings *f)
{
    for (int i = 0; i < p->nsteps; i++) {
        const shc_plan_step *st = &p->steps[i];
        char a[48], b[48];
        shc_placement_format(&st->src, a, sizeof a);
        shc_placement_format(&st->dst, b, sizeof b);
        int64_t nested, flat;
        if (st->nmesh_dims > 1 && shc_plan_step_gathers(st) &&
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
        if (shc_gloo_step_splits_complex(st, dtype))
            add_finding(f, "ComplexReduceScatter", "rank %lld step %d: %s->%s on %s runs torch's "
                        "reduce_scatter, which reduces the real and imaginary parts apart "
                        "(max(1+5j, 2+1j) gives 2+5j, a value no rank holds), where an "
                        "all_reduce to Replicate refuses it (torch 2.13, 2.15; "
                        "docs/findings/complex_reduce_scatter_max.py)", (long long)rank, i, a,
                        b, dtype);
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

/* The walk over every rank: the findings so far, and the first rank's steps, which every
 * other rank's must equal. */
typedef struct audit_walk {
    const shc_mesh *m;
    const shc_placements *src; /* for the executability check (plan_exec_check.c) */
    const shc_shape *shape;
    const char *dtype; /* the tensor's dtype (opts.dtype), for the element findings */
    findings f;
    char first[1024];
    int64_t first_rank;
    shc_plan_exec_fail *at; /* by mesh position, for the stall check */
} audit_walk;

static int audit_one(void *ctx, int64_t rank, const shc_plan *p, shc_err *e)
{
    audit_walk *w = ctx;
    char cur[1024];
    audit_rank(w->m, rank, p, w->dtype, &w->f);
    shc_plan_exec_fail xf;
    int rc = shc_plan_exec_check(w->m, w->src, w->shape, rank, p, &xf, e);
    if (rc)
        return rc;
    w->at[w->m->pos_of ? w->m->pos_of[rank] : rank] = xf;
    if (xf.step >= 0)
        add_finding(&w->f, "CannotExecute", "rank %lld step %d: the all-gather's logical size "
                    "is %lld but the rank holds %lld of it; torch raises %s "
                    "(docs/findings/greedy_strided_logical_shape.py)", (long long)rank, xf.step,
                    (long long)xf.logical, (long long)xf.local, xf.msg);
    steps_text(p, cur, sizeof cur);
    if (w->first_rank < 0) {
        w->first_rank = rank;
        memcpy(w->first, cur, sizeof w->first);
    } else if (strcmp(w->first, cur)) {
        add_finding(&w->f, "RankDivergentPlan", "rank %lld plans [%s] but rank %lld plans [%s]: "
                    "their collectives do not match (hang or wrong data)",
                    (long long)w->first_rank, w->first, (long long)rank, cur);
    }
    return SHC_OK;
}

int shc_plan_audit(const shc_mesh *m, const shc_placements *src, const shc_placements *dst,
                   const shc_shape *shape, const shc_plan_opts *opts,
                   shc_plan_finding **out, int *nout, shc_err *e)
{
    audit_walk w = {.m = m, .src = src, .shape = shape, .dtype = opts->dtype, .first_rank = -1,
                    .at = calloc((size_t)m->size, sizeof *w.at)};
    if (!w.at)
        return shc_fail(e, SHC_ENOMEM, "plan audit: out of memory for %lld ranks",
                        (long long)m->size);
    /* every rank in mesh order, one graph search for all (issue 27 N11) */
    int rc = shc_plan_each_rank(m, src, dst, shape, opts, m->ranks, m->size, audit_one, &w, e);
    shc_plan_stall st = {.step = -1};
    if (!rc)
        rc = shc_plan_exec_stall(m, src, dst, shape, opts, w.at, &st, e);
    if (!rc && st.step >= 0) {
        char msg[sizeof w.f.v->msg];
        shc_plan_stall_describe(&st, msg, sizeof msg);
        add_finding(&w.f, "ExecStall", "%s", msg);
    }
    free(w.at);
    if (!rc && w.f.oom)
        rc = shc_fail(e, SHC_ENOMEM, "plan audit: out of memory for its findings");
    if (rc) {
        free(w.f.v);
        return rc;
    }
    *out = w.f.v;
    *nout = w.f.n;
    return SHC_OK;
}
