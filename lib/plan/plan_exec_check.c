/*
 * plan_exec_check.c — whether torch 2.13 can run a plan's local ops for one rank: the
 * plan's steps carry the logical shapes the planner computed, but the rank's local tensor
 * is what the source layout and the steps before made of it.  A Shard -> Replicate (or ->
 * _StridedShard, which gathers through Replicate) step all-gathers n local tensors of the
 * rank's size and, when the logical size of the shard dim divides evenly by n (no padding),
 * Shard._maybe_unpad_tensor demands that n x local == logical (placement_types.py: a
 * smaller result fails torch._check(orig_size >= logical_dim_size), a larger one "narrow
 * unexpectedly changed concrete size").  The greedy planner's logical shapes ignore a
 * _StridedShard on an earlier mesh dim (generate_greedy_transform_infos narrows on
 * isinstance(src, Shard) only), so such plans fail there (docs/findings/
 * greedy_strided_logical_shape.py).  The local sizes are followed through the steps whose
 * effect on them is exact (gathers, _StridedShard gathers, which pad to the logical size's
 * chunk and select it back, local chunks, reductions); past any other step (an all-to-all,
 * a merged chunk, 2.14's zero fill) the check claims nothing.
 * The gather runs before the unpad check, so a rank that raises has taken part in its step's
 * collective but in none after it: shc_plan_exec_stall finds the ranks that then wait for it
 * in a later step's collective (ranks raising at different steps hang the others:
 * docs/findings/strided_unpad_stall.py).
 * Tested by cli_plan.sh (expected values from torch's source), check_plan.c and
 * tools/harness/tests/test_plan_torch.py (the same plans executed by real torch).
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plan_internal.h"

/* Devices the step spans and, for a single mesh dim, the rank's coordinate on it. */
static int64_t step_n(const shc_mesh *m, const shc_plan_step *st)
{
    int64_t n = 1;
    for (int k = 0; k < st->nmesh_dims; k++)
        n *= m->shape[st->mesh_dims[k]];
    return n;
}

/* The failure of a gather of local size l to logical size L over n, or 0 (none). */
static int gather_fails(int64_t l, int64_t L, int64_t n, int dim, char *msg, size_t cap)
{
    if (L % n != 0 || l * n == L) /* padded gathers unpad to L whatever they gathered */
        return 0;
    if (l * n < L)
        snprintf(msg, cap, "RuntimeError: Expected cond to be True, but got False. "
                 "(Shard._maybe_unpad_tensor: torch._check(orig_size >= logical_dim_size), "
                 "%lld < %lld)", (long long)(l * n), (long long)L);
    else
        snprintf(msg, cap, "RuntimeError: narrow unexpectedly changed concrete size on dim %d: "
                 "%lld -> %lld", dim, (long long)(l * n), (long long)L);
    return 1;
}

/* Apply a local chunk of dim p->dim over n at index idx to sizes l. */
static void chunk(int64_t *l, const shc_placement *p, int64_t n, int64_t idx)
{
    l[p->dim] = p->kind == SHC_P_STRIDED ? shc_strided_chunk_size(l[p->dim], n, p->split_factor,
                                                                  idx)
                                         : shc_chunk_size(l[p->dim], n, idx);
}

/* The check stops following at step i: what comes after it is not claimed. */
static int unfollowed(shc_plan_exec_fail *out, int i)
{
    out->entered = i;
    return SHC_OK;
}

int shc_plan_exec_check(const shc_mesh *m, const shc_placements *src, const shc_shape *shape,
                        int64_t rank, const shc_plan *p, shc_plan_exec_fail *out, shc_err *e)
{
    memset(out, 0, sizeof *out);
    out->step = -1;
    out->entered = p->nsteps;
    shc_layout lay;
    int64_t coord[SHC_MAX_MESH_DIMS], l[SHC_MAX_TENSOR_DIMS];
    int rc = shc_mesh_coord(m, rank, coord, e);
    if (rc)
        return rc;
    shc_err lay_err = {0}; /* a source torch cannot lay out: the planner's answer stands, this
                            * check claims nothing (the plan's own checks name the input) */
    if ((rc = shc_layout_of_rank(m, src, shape, rank, &lay, &lay_err)))
        return rc == SHC_ENOMEM ? shc_fail(e, rc, "%s", lay_err.msg) : unfollowed(out, 0);
    memcpy(l, lay.local.d, sizeof l);
    shc_layout_free(&lay);
    for (int i = 0; i < p->nsteps; i++) {
        const shc_plan_step *st = &p->steps[i];
        const shc_placement *a = &st->src, *b = &st->dst;
        int64_t n = step_n(m, st), idx = st->nmesh_dims == 1 ? coord[st->mesh_dim] : -1;
        if (st->nmesh_dims > 1 && (a->kind == SHC_P_STRIDED || b->kind == SHC_P_STRIDED))
            return unfollowed(out, i); /* redistribute_local_tensor asserts "_StridedShard
                                        * redistribute assumes no flattened transforms" before
                                        * any collective or short cut (_redistribute.py) */
        if (shc_plan_step_skipped(st))
            continue; /* one device: torch returns the local tensor as it is */
        if (a->kind == SHC_P_SHARD && (b->kind == SHC_P_REPLICATE || b->kind == SHC_P_STRIDED)) {
            int64_t L = st->logical_shape.d[a->dim];
            if (gather_fails(l[a->dim], L, n, a->dim, out->msg, sizeof out->msg)) {
                out->step = i;
                out->entered = i + 1;
                out->local = l[a->dim];
                out->logical = L;
                return SHC_OK;
            }
            l[a->dim] = L;
            if (b->kind == SHC_P_STRIDED)
                chunk(l, b, n, idx); /* one mesh dim: merged strided steps end above */
        } else if (a->kind == SHC_P_STRIDED && b->kind != SHC_P_PARTIAL && idx >= 0) {
            /* _StridedShard._to_replicate_tensor pads to the chunk size of the logical size
             * and index-selects that size back: it never raises, the dim is then logical */
            l[a->dim] = st->logical_shape.d[a->dim];
            if (shc_is_shard_like(b))
                chunk(l, b, n, idx);
        } else if ((a->kind == SHC_P_REPLICATE || a->kind == SHC_P_PARTIAL) &&
                   shc_is_shard_like(b) && idx >= 0) {
            chunk(l, b, n, idx); /* a local chunk, or a reduce-scatter of the local tensor */
        } else if (!(a->kind == SHC_P_PARTIAL && b->kind == SHC_P_REPLICATE) &&
                   !(a->kind == SHC_P_REPLICATE && b->kind == SHC_P_PARTIAL)) {
            /* a step whose local sizes this check does not follow: the rank has entered its
             * collective when nothing before it can raise (Shard._to_new_shard_dim pads for
             * the all-to-all, Partial._reduce_shard_value for the reduce-scatter; an
             * unsupported or merged _StridedShard step raises before any collective) */
            return unfollowed(out, i + (st->comm == SHC_COMM_ALL_TO_ALL ||
                                        st->comm == SHC_COMM_REDUCE_SCATTER));
        }
    }
    return SHC_OK;
}

/* Position pos with the coordinates of step st's mesh dims zeroed: one id per group. */
static int64_t group_base(const shc_mesh *m, const shc_plan_step *st, int64_t pos)
{
    int64_t stride[SHC_MAX_MESH_DIMS], s = 1;
    for (int d = m->ndim - 1; d >= 0; d--)
        stride[d] = s, s *= m->shape[d];
    for (int k = 0; k < st->nmesh_dims; k++) {
        int d = st->mesh_dims[k];
        pos -= (pos / stride[d] % m->shape[d]) * stride[d];
    }
    return pos;
}

/* Per group (indexed by group_base) at one step: a member that raised before it and the
 * first member that raises in it. */
typedef struct step_groups {
    int64_t *gone, *raiser; /* position + 1; 0: none */
} step_groups;

static void record(const shc_mesh *m, const shc_plan_step *st, int s,
                   const shc_plan_exec_fail *at, step_groups *g)
{
    memset(g->gone, 0, (size_t)m->size * sizeof *g->gone);
    memset(g->raiser, 0, (size_t)m->size * sizeof *g->raiser);
    for (int64_t i = 0; i < m->size; i++) {
        int64_t b = group_base(m, st, i);
        if (at[i].step >= 0 && at[i].step < s)
            g->gone[b] = i + 1;
        else if (at[i].step == s && !g->raiser[b])
            g->raiser[b] = i + 1;
    }
}

static void found(const shc_mesh *m, shc_stall_kind kind, int s, int64_t w, int64_t q,
                  const shc_plan_exec_fail *at, shc_plan_stall *out)
{
    out->kind = kind;
    out->step = s;
    out->peer_step = at[q].step;
    out->waiter = m->ranks ? m->ranks[w] : w;
    out->peer = m->ranks ? m->ranks[q] : q;
}

/* One collective step s.  A member that enters it while another raised before it waits for
 * that one.  A member that raises in it sent its local size, which is not the step's logical
 * size over n; the group shares that logical size (its ranks differ only on the step's mesh
 * dims), so a member that passes sent another size, as did a raiser of another local size:
 * the gather's buffers do not match across the group. */
static bool step_stalls(const shc_mesh *m, const shc_plan_step *st, int s,
                        const shc_plan_exec_fail *at, step_groups *g, shc_plan_stall *out)
{
    record(m, st, s, at, g);
    for (int64_t i = 0; i < m->size; i++) {
        int64_t b = group_base(m, st, i), r = g->raiser[b] - 1;
        if (at[i].entered > s && g->gone[b]) {
            found(m, SHC_STALL_WAITS, s, i, g->gone[b] - 1, at, out);
            return true;
        }
        if (r >= 0 && i != r && at[i].entered > s &&
            (at[i].step != s || at[i].local != at[r].local)) {
            found(m, SHC_STALL_SIZES, s, i, r, at, out);
            return true;
        }
    }
    return false;
}

/* The stall check over plan p's steps. */
static int stall_steps(const shc_mesh *m, const shc_plan *p, const shc_plan_exec_fail *at,
                       shc_plan_stall *out, shc_err *e)
{
    step_groups g = {calloc((size_t)m->size, sizeof *g.gone),
                     calloc((size_t)m->size, sizeof *g.raiser)};
    int rc = g.gone && g.raiser ? SHC_OK
             : shc_fail(e, SHC_ENOMEM, "plan stall check: out of memory for %lld ranks",
                        (long long)m->size);
    for (int s = 0; rc == SHC_OK && s < p->nsteps; s++) {
        const shc_plan_step *st = &p->steps[s];
        if (shc_comm_is_collective(st->comm) && !shc_plan_step_skipped(st) &&
            step_stalls(m, st, s, at, &g, out))
            break;
    }
    free(g.gone), free(g.raiser);
    return rc;
}

int shc_plan_exec_stall(const shc_mesh *m, const shc_placements *src, const shc_placements *dst,
                        const shc_shape *shape, const shc_plan_opts *opts,
                        const shc_plan_exec_fail *at, shc_plan_stall *out, shc_err *e)
{
    memset(out, 0, sizeof *out);
    out->step = -1;
    bool raises = false;
    for (int64_t i = 0; i < m->size; i++)
        raises |= at[i].step >= 0;
    if (!raises)
        return SHC_OK;
    shc_plan p = {0};
    int rc = shc_plan_compute(m, src, dst, shape, opts, m->ranks ? m->ranks[0] : 0, &p, e);
    if (rc == SHC_OK)
        rc = stall_steps(m, &p, at, out, e);
    shc_plan_free(&p);
    return rc;
}

void shc_plan_stall_describe(const shc_plan_stall *st, char *buf, size_t n)
{
    if (st->kind == SHC_STALL_WAITS)
        snprintf(buf, n, "rank %lld waits in step %d's collective for rank %lld, which raised "
                 "at step %d and never joins it (a hang; docs/findings/strided_unpad_stall.py)",
                 (long long)st->waiter, st->step, (long long)st->peer, st->peer_step);
    else
        snprintf(buf, n, "step %d's gather gets local sizes that differ between ranks %lld and "
                 "%lld (torch assumes they are equal; rank %lld raises after it): gloo hangs or "
                 "aborts (docs/findings/strided_unpad_stall.py)", st->step,
                 (long long)st->waiter, (long long)st->peer, (long long)st->peer);
}
