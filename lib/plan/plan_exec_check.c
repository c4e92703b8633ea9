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
 * Tested by cli_plan.sh (expected values from torch's source) and
 * tools/harness/tests/test_plan_torch.py (the same plans executed by real torch).
 */
#include "config.h"
#include <stdio.h>
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

int shc_plan_exec_check(const shc_mesh *m, const shc_placements *src, const shc_shape *shape,
                        int64_t rank, const shc_plan *p, shc_plan_exec_fail *out, shc_err *e)
{
    memset(out, 0, sizeof *out);
    out->step = -1;
    shc_layout lay;
    int64_t coord[SHC_MAX_MESH_DIMS], l[SHC_MAX_TENSOR_DIMS];
    int rc = shc_mesh_coord(m, rank, coord, e);
    if (rc)
        return rc;
    shc_err lay_err = {0}; /* a source torch cannot lay out: the planner's answer stands, this
                            * check claims nothing (the plan's own checks name the input) */
    if ((rc = shc_layout_of_rank(m, src, shape, rank, &lay, &lay_err)))
        return rc == SHC_ENOMEM ? shc_fail(e, rc, "%s", lay_err.msg) : SHC_OK;
    memcpy(l, lay.local.d, sizeof l);
    shc_layout_free(&lay);
    for (int i = 0; i < p->nsteps; i++) {
        const shc_plan_step *st = &p->steps[i];
        const shc_placement *a = &st->src, *b = &st->dst;
        int64_t n = step_n(m, st), idx = st->nmesh_dims == 1 ? coord[st->mesh_dim] : -1;
        if (shc_plan_step_skipped(st))
            continue; /* one device: torch returns the local tensor as it is */
        if (a->kind == SHC_P_SHARD && (b->kind == SHC_P_REPLICATE || b->kind == SHC_P_STRIDED)) {
            int64_t L = st->logical_shape.d[a->dim];
            if (gather_fails(l[a->dim], L, n, a->dim, out->msg, sizeof out->msg)) {
                out->step = i;
                out->local = l[a->dim];
                out->logical = L;
                return SHC_OK;
            }
            l[a->dim] = L;
            if (b->kind == SHC_P_STRIDED && idx >= 0)
                chunk(l, b, n, idx);
            else if (b->kind == SHC_P_STRIDED)
                return SHC_OK;
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
            return SHC_OK; /* a step whose local sizes this check does not follow */
        }
    }
    return SHC_OK;
}
