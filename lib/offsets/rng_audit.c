/*
 * rng_audit.c — SPMD-intent findings on torch 2.13's RNG offset windows.
 *
 * The tracker's promise (torch/distributed/tensor/_random.py, 2.13.0,
 * _set_pre_op_offset docstring): a rank holding shard k draws its local
 * shard from offset old + start_incr, one offset per element, and every
 * rank leaves at old + end_incr; replicas share a start, distinct shards get
 * disjoint windows inside [old, old + end_incr).  A rank's window is
 * therefore [start_incr, start_incr + local_numel) in that model.  We report
 * where the arithmetic breaks the promise:
 *  - OffsetSameStart: two distinct non-empty shards with the same start
 *    (tiny shards: ceil4 maps linear indices 1, 2, 3 of 1-element shards to 4);
 *  - OffsetOverrun: a window running past end_incr, i.e. into the window of
 *    the next random op (nested or uneven sharding: the first-shard size
 *    quirk over-estimates the stride);
 *  - OffsetOverlap: windows of two distinct shards intersecting.
 * Empty shards draw nothing and take part in no finding.  Distinct shards
 * are distinct shard linear indices; the representative rank of a shard is
 * its lowest global rank.  shc_rng_op_policy is the op table's decision
 * (tracked: torch-offset, untracked: torch-untracked, or torch's refusal)
 * that audit rng, offsets and policies share.  Tested by check_offsets.c (the
 * issue's two examples and hand-built cases) and, per golden case, by the
 * harness adapter's independent Python audit over torch's own offsets.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "shardcheck.h"

static const char *const names[] = {"OffsetSameStart", "OffsetOverrun", "OffsetOverlap",
                                    "UntrackedOpSharedDraws"};
_Static_assert(sizeof names / sizeof names[0] == SHC_RNGF_COUNT, "one name per RNG finding kind");

const char *shc_rng_finding_name(int kind)
{
    return kind >= 0 && kind < SHC_RNGF_COUNT ? names[kind] : "?";
}

typedef struct shard_win {
    int64_t lin, rank, lo, hi;
} shard_win;

static int cmp_win(const void *a, const void *b)
{
    const shard_win *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return x->lin < y->lin ? -1 : x->lin > y->lin;
}

static void add(shc_rng_audit *a, int kind, const shard_win *x, const shard_win *y, int64_t end)
{
    a->kinds |= 1u << kind;
    a->count[kind]++;
    if (a->nlisted >= (int64_t)(sizeof a->listed / sizeof a->listed[0]))
        return;
    shc_rng_finding *f = &a->listed[a->nlisted++];
    f->kind = kind;
    f->rank_a = x->rank;
    f->a_lo = x->lo;
    f->a_hi = x->hi;
    /* for an overrun the second range is the spill into the next op's window */
    f->rank_b = y ? y->rank : -1;
    f->b_lo = y ? y->lo : (x->lo > end ? x->lo : end);
    f->b_hi = y ? y->hi : x->hi;
}

/* One window per distinct shard (lowest rank), in ascending global rank. */
static int collect(const shc_mesh *m, const shc_rng_layout *t, shard_win *w, int64_t *nw,
                   shc_err *e)
{
    int64_t *seen = malloc(sizeof(int64_t) * (size_t)m->size);
    if (!seen)
        return shc_fail(e, SHC_ENOMEM, "audit: out of memory for %lld ranks", (long long)m->size);
    for (int64_t i = 0; i < m->size; i++)
        seen[i] = 0;
    int rc = SHC_OK;
    *nw = 0;
    for (int64_t r = 0; r <= m->max_rank && rc == SHC_OK; r++) {
        if (m->pos_of[r] < 0)
            continue;
        shc_rng_offsets o;
        if ((rc = shc_rng_offsets_rank(t, m, r, &o, e)))
            break;
        if (seen[o.shard_linear_index]++)
            continue;
        shard_win *x = &w[(*nw)++];
        x->lin = o.shard_linear_index;
        x->rank = r;
        x->lo = o.start_incr;
        /* start_incr + local_numel: start <= ceil4(numel) region bound is not
         * guaranteed, so saturate rather than overflow */
        x->hi = o.local_numel > INT64_MAX - o.start_incr ? INT64_MAX : o.start_incr + o.local_numel;
    }
    free(seen);
    return rc;
}

static void scan(shc_rng_audit *a, shard_win *w, int64_t nw, int64_t end)
{
    qsort(w, (size_t)nw, sizeof *w, cmp_win);
    const shard_win *reach = NULL; /* non-empty window reaching furthest so far */
    const shard_win *prev = NULL;  /* previous non-empty window */
    for (int64_t i = 0; i < nw; i++) {
        const shard_win *x = &w[i];
        if (x->hi == x->lo)
            continue;
        if (x->hi > end)
            add(a, SHC_RNGF_OVERRUN, x, NULL, end);
        if (prev && prev->lo == x->lo)
            add(a, SHC_RNGF_SAME_START, prev, x, end);
        if (reach && reach->hi > x->lo)
            add(a, SHC_RNGF_OVERLAP, reach, x, end);
        if (!reach || x->hi > reach->hi)
            reach = x;
        prev = x;
    }
}

/* An untracked op (shardcheck_ops.h) runs on each rank's own generator with no
 * pre-op shift (torch 2.13 _dispatch.py:423-436): every shard's window is
 * [0, local_numel) of the same stream, so distinct non-empty shards draw the
 * same leading numbers.  One finding per extra distinct shard, paired with
 * the first (lowest-rank) non-empty one. */
static void scan_untracked(shc_rng_audit *a, const shard_win *w, int64_t nw)
{
    shard_win first = {0, -1, 0, 0};
    for (int64_t i = 0; i < nw; i++) {
        shard_win x = w[i];
        if (x.hi == x.lo)
            continue;
        x.hi -= x.lo; /* own stream: the window starts at the rank's current offset */
        x.lo = 0;
        if (first.rank < 0)
            first = x;
        else
            add(a, SHC_RNGF_UNTRACKED_SHARED, &first, &x, 0);
    }
}

/* Every shard's window, scanned as a tracked op lays them out on one stream (findings
 * against end_incr) or as an untracked op draws them, each from 0 of its own: both
 * audits collect the windows alike and differ only in the scan. */
static int audit_windows(const shc_mesh *m, const shc_placements *pl, const shc_shape *shape,
                         bool tracked, shc_rng_audit *out, shc_err *e)
{
    memset(out, 0, sizeof *out);
    shc_rng_layout t;
    int rc = shc_rng_layout_init(&t, m, pl, shape, e);
    if (rc)
        return rc;
    shard_win *w = malloc(sizeof *w * (size_t)m->size);
    if (!w)
        return shc_fail(e, SHC_ENOMEM, "audit: out of memory for %lld ranks", (long long)m->size);
    int64_t nw = 0;
    if ((rc = collect(m, &t, w, &nw, e)) == SHC_OK) {
        out->nshards = nw;
        out->end_incr = tracked ? t.end_incr : 0;
        if (tracked)
            scan(out, w, nw, t.end_incr);
        else
            scan_untracked(out, w, nw);
    }
    free(w);
    return rc;
}

int shc_rng_audit_layout(const shc_mesh *m, const shc_placements *pl, const shc_shape *shape,
                         shc_rng_audit *out, shc_err *e)
{
    return audit_windows(m, pl, shape, true, out, e);
}

int shc_rng_op_policy(const shc_rng_op *op, const shc_mesh *m, const shc_placements *pl,
                      const shc_shape *shape, const shc_rng_policy **out, shc_err *e)
{
    int rc = shc_rng_op_check_layout(op, m, pl, shape, e);
    if (rc)
        return rc;
    if (op->dispatch == SHC_RNGD_LOCAL)
        return shc_fail(e, SHC_EINVAL, "%s takes no DTensor (%s): nothing to audit per layout",
                        op->name, op->api);
    bool partial = false, last_sharded = false;
    for (int i = 0; i < pl->n; i++) {
        partial |= pl->p[i].kind == SHC_P_PARTIAL;
        last_sharded |= pl->p[i].kind != SHC_P_REPLICATE && pl->p[i].kind != SHC_P_PARTIAL &&
                        pl->p[i].dim == shape->ndim - 1;
    }
    if ((partial && op->partial == SHC_RNGP_REDISTRIBUTE) ||
        (last_sharded && op->last_dim_replicated))
        return shc_fail(e, SHC_EUNSUPPORTED,
                        "%s on %s input: torch redistributes it first and the placement its "
                        "cost model picks is not modelled", op->name,
                        partial ? "a Partial" : "a category-dim-sharded");
    return shc_rng_policy_lookup(op->dispatch == SHC_RNGD_TRACKED ? "torch-offset"
                                                                  : "torch-untracked", out, e);
}

int shc_rng_audit_op(const shc_rng_op *op, const shc_mesh *m, const shc_placements *pl,
                     const shc_shape *shape, shc_rng_audit *out, shc_err *e)
{
    const shc_rng_policy *pol;
    int rc = shc_rng_op_policy(op, m, pl, shape, &pol, e);
    if (rc)
        return rc;
    return audit_windows(m, pl, shape, op->dispatch == SHC_RNGD_TRACKED, out, e);
}
