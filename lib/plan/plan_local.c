/*
 * plan_local.c — the local tensor a rank holds after each step of its redistribute plan:
 * its shape, its strides and whether torch calls it contiguous (issue 34 item 4).
 *
 * Which local op torch runs for a step decides the strides, so each is stated from torch's
 * source (placement_types.py and _collective_utils.py, the same in 2.13.0, 2.14.1 and 2.15.0):
 *   - Partial -> Replicate: funcol.all_reduce returns a new contiguous tensor;
 *   - Shard(d) -> Replicate: pad, all_gather, narrow to the logical size, then an unconditional
 *     .contiguous() (_maybe_unpad_tensor; upstream's fix of a non-contiguous result, PR 184443,
 *     is in all three releases): contiguous, dim d the step's logical size;
 *   - Replicate -> Shard(d): _select_split_tensor(clone=True): a contiguous chunk of the tensor
 *     the rank actually holds (not of the step's logical shape);
 *   - Partial -> Shard(d): reduce_scatter of the rank's tensor padded to n full chunks, then
 *     _maybe_unpad_tensor_with_sizes(make_contiguous=False): a short chunk is a narrow view of
 *     the full chunk, so on a dim after the first it is NOT contiguous;
 *   - Shard(a) -> Shard(b): _pad_for_new_shard_dim, the all-to-all (a contiguous result; on a
 *     CPU group all_gather + chunk + .contiguous()), then _unpad_for_new_shard_dim narrows dim
 *     a to its logical size and dim b to the rank's chunk with no .contiguous(): an uneven
 *     reshard leaves views of the padded result, NOT contiguous past the first dim (no upstream
 *     fix in 2.13-2.15);
 *   - Replicate -> Partial: "sum" divides (a new dense tensor), avg/min/max return the same
 *     tensor (its metadata unchanged); Shard(d) -> Partial(sum) (2.14+): new_zeros of the
 *     logical size and index_add, contiguous;
 *   - _StridedShard sources gather to the logical size (contiguous); _StridedShard targets
 *     select a cloned strided chunk (contiguous).
 * The source local tensor is taken contiguous, as distribute_tensor and from_local of a
 * contiguous tensor give it.  A step this file does not state (a merged _StridedShard step,
 * one torch refuses) ends what it claims: *nmodelled says how far the answer goes.
 * Tested by cli_plan.sh (values from torch's source) and tools/harness/tests/
 * test_plan_local.py (torch 2.13's redistribute_local_tensor on a fake process group, every
 * rank, against the CLI's answer).
 */
#include "config.h"
#include <string.h>
#include "plan_internal.h"

/* Row-major strides of a shape (torch's contiguous strides: a size-0 dim counts as 1). */
static void dense_strides(const shc_shape *s, int64_t *stride)
{
    int64_t acc = 1;
    for (int d = s->ndim - 1; d >= 0; d--) {
        stride[d] = acc;
        acc *= s->d[d] > 1 ? s->d[d] : 1;
    }
}

/* torch's is_contiguous: no elements, or the strides of every dim of size > 1 row-major. */
static bool is_contiguous(const shc_shape *s, const int64_t *stride)
{
    int64_t expected = 1;
    for (int d = 0; d < s->ndim; d++)
        if (s->d[d] == 0)
            return true;
    for (int d = s->ndim - 1; d >= 0; d--) {
        if (s->d[d] == 1)
            continue;
        if (stride[d] != expected)
            return false;
        expected *= s->d[d];
    }
    return true;
}

/* The rank's coordinate on the step's (possibly flattened) mesh dims: row-major over them,
 * as DeviceMesh._flatten numbers the flattened dim. */
static int64_t step_coord(const shc_mesh *m, const shc_plan_step *st, const int64_t *coord,
                          int64_t *n)
{
    int64_t idx = 0;
    *n = 1;
    for (int k = 0; k < st->nmesh_dims; k++) {
        int64_t size = m->shape[st->mesh_dims[k]];
        idx = idx * size + coord[st->mesh_dims[k]];
        *n *= size;
    }
    return idx;
}

/* Shard(a) -> Shard(b): the all-to-all's padded result, then the two narrows. */
static void reshard(shc_local_meta *t, const shc_shape *L, int a, int b, int64_t n, int64_t idx)
{
    bool pad_a = L->d[a] % n != 0, pad_b = L->d[b] % n != 0;
    int64_t full_a = (L->d[a] + n - 1) / n, full_b = (L->d[b] + n - 1) / n;
    t->shape.d[a] = (pad_a ? full_a : t->shape.d[a]) * n;
    t->shape.d[b] = pad_b ? full_b : t->shape.d[b] / n;
    dense_strides(&t->shape, t->stride);
    if (pad_a)
        t->shape.d[a] = L->d[a];
    if (pad_b)
        t->shape.d[b] = shc_chunk_size(L->d[b], n, idx);
}

/* Partial -> Shard(b): the reduce-scatter's full chunk, narrowed to the rank's chunk. */
static void reduce_scatter(shc_local_meta *t, int b, int64_t n, int64_t idx)
{
    int64_t size = t->shape.d[b];
    t->shape.d[b] = (size + n - 1) / n;
    dense_strides(&t->shape, t->stride);
    t->shape.d[b] = shc_chunk_size(size, n, idx);
}

/* A local chunk of the tensor the rank holds, cloned: contiguous. */
static void local_chunk(shc_local_meta *t, const shc_placement *b, int64_t n, int64_t idx)
{
    int64_t *l = &t->shape.d[b->dim];
    *l = b->kind == SHC_P_STRIDED ? shc_strided_chunk_size(*l, n, b->split_factor, idx)
                                  : shc_chunk_size(*l, n, idx);
    dense_strides(&t->shape, t->stride);
}

/* One step applied to t; false where this file states nothing for it. */
static bool apply_step(shc_local_meta *t, const shc_plan_step *st, int64_t n, int64_t idx)
{
    const shc_placement *a = &st->src, *b = &st->dst;
    const shc_shape *L = &st->logical_shape;
    if (shc_plan_step_skipped(st) || shc_placement_eq(a, b))
        return true; /* torch returns the local tensor as it is */
    if (st->nmesh_dims > 1 && (a->kind == SHC_P_STRIDED || b->kind == SHC_P_STRIDED))
        return false; /* torch asserts first: no flattened _StridedShard transforms */
    if (shc_is_shard_like(a) && b->kind != SHC_P_PARTIAL && !(a->kind == SHC_P_SHARD &&
                                                            b->kind == SHC_P_SHARD)) {
        t->shape.d[a->dim] = L->d[a->dim]; /* gathered (and unpadded) to the logical size */
        if (b->kind == SHC_P_REPLICATE) {
            dense_strides(&t->shape, t->stride);
            return true;
        }
        local_chunk(t, b, n, idx);
        return true;
    }
    switch (a->kind * 8 + b->kind) {
    case SHC_P_PARTIAL * 8 + SHC_P_REPLICATE:
        dense_strides(&t->shape, t->stride);
        return true;
    case SHC_P_REPLICATE * 8 + SHC_P_SHARD:
    case SHC_P_REPLICATE * 8 + SHC_P_STRIDED:
        local_chunk(t, b, n, idx);
        return true;
    case SHC_P_PARTIAL * 8 + SHC_P_SHARD:
        reduce_scatter(t, b->dim, n, idx);
        return true;
    case SHC_P_PARTIAL * 8 + SHC_P_STRIDED: /* all_reduce, then the strided chunk */
        local_chunk(t, b, n, idx);
        return true;
    case SHC_P_SHARD * 8 + SHC_P_SHARD:
        reshard(t, L, a->dim, b->dim, n, idx);
        return true;
    case SHC_P_REPLICATE * 8 + SHC_P_PARTIAL:
        if (b->op == SHC_OP_SUM)
            dense_strides(&t->shape, t->stride);
        return true; /* avg/min/max: the same tensor; any other op raises (not planned) */
    case SHC_P_SHARD * 8 + SHC_P_PARTIAL: /* 2.14+'s zero fill (other releases refuse it) */
        t->shape.d[a->dim] = L->d[a->dim];
        dense_strides(&t->shape, t->stride);
        return st->comm == SHC_COMM_ZERO_FILL;
    default:
        return false;
    }
}

int shc_plan_local_meta(const shc_mesh *m, const shc_placements *src, const shc_shape *shape,
                        int64_t rank, const shc_plan *p, shc_local_meta *out, int *nmodelled,
                        shc_err *e)
{
    int64_t coord[SHC_MAX_MESH_DIMS];
    shc_layout lay;
    *nmodelled = 0;
    int rc = shc_mesh_coord(m, rank, coord, e);
    if (rc)
        return rc;
    shc_err lay_err = {0}; /* a source this layout cannot list (a _StridedShard dim past the
                            * index-list limit): the plan stands, this claims nothing */
    if ((rc = shc_layout_of_rank(m, src, shape, rank, &lay, &lay_err)))
        return rc == SHC_ENOMEM ? shc_fail(e, rc, "%s", lay_err.msg) : SHC_OK;
    shc_local_meta t = {.shape = lay.local};
    shc_layout_free(&lay);
    dense_strides(&t.shape, t.stride);
    for (int i = 0; i < p->nsteps; i++) {
        int64_t n, idx = step_coord(m, &p->steps[i], coord, &n);
        if (!apply_step(&t, &p->steps[i], n, idx))
            return SHC_OK;
        t.contiguous = is_contiguous(&t.shape, t.stride);
        out[i] = t;
        *nmodelled = i + 1;
    }
    return SHC_OK;
}
