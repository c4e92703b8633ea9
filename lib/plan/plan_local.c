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
 * The local ops each step dispatches (shc_plan_local_ops, step_ops below) are stated from the
 * same functions of torch 2.13 and its functional collectives (_functional_collectives.py,
 * torch/_utils.py's _maybe_view_chunk_cat), on a CPU process group.
 * Tested by cli_plan.sh (values from torch's source) and tools/harness/tests/
 * test_plan_local.py (torch 2.13's redistribute_local_tensor on a fake process group, every
 * rank, against the CLI's answer: its metadata, and its ops as a TorchDispatchMode records them).
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

/* ---- the local ops of a step ---- */

static const char *const LOP_NAMES[SHC_LOP_COUNT] = {
    [SHC_LOP_PAD] = "aten.constant_pad_nd.default",
    [SHC_LOP_CLONE] = "aten.clone.default",
    [SHC_LOP_SLICE] = "aten.slice.Tensor",
    [SHC_LOP_SPLIT] = "aten.split.Tensor",
    [SHC_LOP_SPLIT_SIZES] = "aten.split_with_sizes.default",
    [SHC_LOP_CAT] = "aten.cat.default",
    [SHC_LOP_VIEW] = "aten.view.default",
    [SHC_LOP_NEW_ZEROS] = "aten.new_zeros.default",
    [SHC_LOP_DIV] = "aten.div.Tensor",
    [SHC_LOP_ALL_GATHER] = "_c10d_functional.all_gather_into_tensor.default",
    [SHC_LOP_ALL_REDUCE] = "_c10d_functional.all_reduce.default",
    [SHC_LOP_REDUCE_SCATTER] = "_c10d_functional.reduce_scatter_tensor.default",
};

const char *shc_local_op_name(int op)
{
    return op > 0 && op < SHC_LOP_COUNT ? LOP_NAMES[op] : "?";
}

/* A step's ops as they are found: full is set once SHC_LOCAL_OPS_MAX would be passed. */
typedef struct op_list {
    shc_local_ops *o;
    bool full;
} op_list;

static void emit(op_list *l, shc_local_op op)
{
    if (l->o->n < SHC_LOCAL_OPS_MAX)
        l->o->op[l->o->n++] = (unsigned char)op;
    else
        l->full = true;
}

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* torch.chunk(size, n): ATen's chunk splits with split_size ceil(size / n), which makes fewer
 * than n chunks where the last ones would be empty; an empty dim goes to split_with_sizes (n
 * chunks).  The number of chunks made. */
static int64_t chunk_op(op_list *l, int64_t size, int64_t n)
{
    if (size == 0) {
        emit(l, SHC_LOP_SPLIT_SIZES);
        return n;
    }
    emit(l, SHC_LOP_SPLIT);
    return cdiv(size, cdiv(size, n));
}

/* Shard._custom_chunk: torch.chunk, then fill_empty_tensor_to_shards's one new_zeros for the
 * chunks it did not make. */
static void custom_chunk(op_list *l, int64_t size, int64_t n)
{
    if (chunk_op(l, size, n) < n)
        emit(l, SHC_LOP_NEW_ZEROS);
}

/* Size of chunk i of torch.chunk(size, n) (0 for a chunk it did not make). */
static int64_t chunk_len(int64_t size, int64_t n, int64_t i)
{
    int64_t split = cdiv(size, n), start = split * i;
    return start >= size ? 0 : (size - start < split ? size - start : split);
}

/* Whether the chunk of t along dim d holding len elements of it is contiguous (a view:
 * t's strides). */
static bool chunk_contiguous(const shc_local_meta *t, int d, int64_t len)
{
    shc_shape c = t->shape;
    c.d[d] = len;
    return is_contiguous(&c, t->stride);
}

/* funcol.all_gather_single(t, gather_dim d): the collective gathers on dim 0; another dim
 * becomes a view where every dim before it is 1 in the gathered [n * s0, ...] sense
 * (_maybe_view_chunk_cat: s0 == 1 and the dims between of size 1), else split + cat.  t
 * becomes the dense gathered tensor. */
static void all_gather(op_list *l, shc_local_meta *t, int d, int64_t n)
{
    emit(l, SHC_LOP_ALL_GATHER);
    if (d != 0) {
        int64_t between = 1;
        for (int k = 1; k < d; k++)
            between *= t->shape.d[k];
        if (t->shape.d[0] == 1 && between == 1) {
            emit(l, SHC_LOP_VIEW);
        } else {
            chunk_op(l, n * t->shape.d[0], n);
            emit(l, SHC_LOP_CAT);
        }
    }
    t->shape.d[d] *= n;
    dense_strides(&t->shape, t->stride);
}

/* A pad of dim d by pad elements (pad_tensor: none when 0); the result is dense. */
static void pad(op_list *l, shc_local_meta *t, int d, int64_t by)
{
    if (by <= 0)
        return;
    emit(l, SHC_LOP_PAD);
    t->shape.d[d] += by;
    dense_strides(&t->shape, t->stride);
}

static void make_contiguous(op_list *l, shc_local_meta *t)
{
    if (!is_contiguous(&t->shape, t->stride)) {
        emit(l, SHC_LOP_CLONE);
        dense_strides(&t->shape, t->stride);
    }
}

/* Python's small-int cache: `size is not logical_size` (Shard._maybe_unpad_tensor) is false
 * for equal sizes in -5..256 only, so a larger logical size is narrowed to itself (one more
 * aten.slice: a quirk of torch 2.13's placement_types.py, reproduced). */
#define PY_SMALL_INT_MAX 256

/* Shard(d) -> Replicate (_to_replicate_tensor): _maybe_pad_tensor, the gather,
 * _maybe_unpad_tensor and its unconditional .contiguous(). */
static void shard_to_replicate(op_list *l, shc_local_meta t, int d, int64_t L, int64_t n)
{
    bool padded = L % n != 0;
    int64_t full = cdiv(L, n);
    if (padded)
        pad(l, &t, d, full - t.shape.d[d]);
    make_contiguous(l, &t);
    all_gather(l, &t, d, n);
    if (padded && full * n - L > 0) {
        emit(l, SHC_LOP_SLICE);
        t.shape.d[d] = L;
    }
    if (L > PY_SMALL_INT_MAX)
        emit(l, SHC_LOP_SLICE);
    make_contiguous(l, &t);
}

/* Partial -> Shard(d) (_reduce_shard_tensor): an uneven dim is chunked, each chunk padded to
 * the full chunk and made contiguous, and catted back; the reduce-scatter scatters dim 0
 * (another dim is chunked and catted onto it first); the rank's pad is narrowed off. */
static void partial_to_shard(op_list *l, shc_local_meta t, int d, int64_t n, int64_t idx)
{
    int64_t size = t.shape.d[d], full = cdiv(size, n);
    bool padded = size % n != 0;
    if (padded) {
        custom_chunk(l, size, n);
        for (int64_t i = 0; i < n && !l->full; i++) {
            int64_t len = chunk_len(size, n, i);
            if (full - len > 0)
                emit(l, SHC_LOP_PAD);
            else if (!chunk_contiguous(&t, d, len))
                emit(l, SHC_LOP_CLONE);
        }
        emit(l, SHC_LOP_CAT);
        t.shape.d[d] = full * n;
        dense_strides(&t.shape, t.stride);
    } else {
        make_contiguous(l, &t);
    }
    if (d != 0) {
        chunk_op(l, t.shape.d[d], n);
        emit(l, SHC_LOP_CAT);
    }
    emit(l, SHC_LOP_REDUCE_SCATTER);
    if (padded && full - chunk_len(size, n, idx) > 0)
        emit(l, SHC_LOP_SLICE);
}

/* Shard(a) -> Shard(b) on a CPU group (_to_new_shard_dim): _pad_for_new_shard_dim, the
 * all_to_all's fallback (all_gather on a, chunk on b, .contiguous()), then
 * _unpad_for_new_shard_dim's narrows. */
static void shard_to_shard(op_list *l, shc_local_meta t, const shc_shape *L, int a, int b,
                           int64_t n, int64_t idx)
{
    bool pad_a = L->d[a] % n != 0, pad_b = L->d[b] % n != 0;
    int64_t full_a = cdiv(L->d[a], n), full_b = cdiv(L->d[b], n);
    if (pad_a)
        pad(l, &t, a, full_a - t.shape.d[a]);
    if (pad_b)
        pad(l, &t, b, full_b * n - t.shape.d[b]);
    make_contiguous(l, &t);
    all_gather(l, &t, a, n);
    custom_chunk(l, t.shape.d[b], n);
    int64_t len = chunk_len(t.shape.d[b], n, idx);
    if (!chunk_contiguous(&t, b, len))
        emit(l, SHC_LOP_CLONE);
    if (pad_a && full_a * n - L->d[a] > 0)
        emit(l, SHC_LOP_SLICE);
    if (pad_b && full_b - shc_chunk_size(L->d[b], n, idx) > 0)
        emit(l, SHC_LOP_SLICE);
}

/* The ops of one step from t, the tensor before it; false where this file states none. */
static bool step_ops(const shc_local_meta *t, const shc_plan_step *st, int64_t n, int64_t idx,
                     op_list *l)
{
    const shc_placement *a = &st->src, *b = &st->dst;
    if (shc_plan_step_skipped(st) || shc_placement_eq(a, b))
        return true;
    if (a->kind == SHC_P_STRIDED || b->kind == SHC_P_STRIDED)
        return false;
    switch (a->kind * 8 + b->kind) {
    case SHC_P_SHARD * 8 + SHC_P_REPLICATE:
        shard_to_replicate(l, *t, a->dim, st->logical_shape.d[a->dim], n);
        return true;
    case SHC_P_REPLICATE * 8 + SHC_P_SHARD: /* _select_split_tensor(clone=True) */
        custom_chunk(l, t->shape.d[b->dim], n);
        emit(l, SHC_LOP_CLONE);
        return true;
    case SHC_P_PARTIAL * 8 + SHC_P_REPLICATE:
        emit(l, SHC_LOP_ALL_REDUCE);
        return true;
    case SHC_P_PARTIAL * 8 + SHC_P_SHARD:
        partial_to_shard(l, *t, b->dim, n, idx);
        return true;
    case SHC_P_SHARD * 8 + SHC_P_SHARD:
        shard_to_shard(l, *t, &st->logical_shape, a->dim, b->dim, n, idx);
        return true;
    case SHC_P_REPLICATE * 8 + SHC_P_PARTIAL: /* _partition_value: sum divides */
        if (b->op == SHC_OP_SUM)
            emit(l, SHC_LOP_DIV);
        return true;
    default:
        return false;
    }
}

/* ---- the walk over a rank's plan ---- */

static int walk(const shc_mesh *m, const shc_placements *src, const shc_shape *shape,
                int64_t rank, const shc_plan *p, shc_local_meta *meta, shc_local_ops *ops,
                int *nmodelled, shc_err *e)
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
        if (ops) {
            op_list l = {&ops[i], false};
            ops[i].n = 0;
            if (!step_ops(&t, &p->steps[i], n, idx, &l) || l.full)
                return SHC_OK;
        }
        if (!apply_step(&t, &p->steps[i], n, idx))
            return SHC_OK;
        t.contiguous = is_contiguous(&t.shape, t.stride);
        if (meta)
            meta[i] = t;
        *nmodelled = i + 1;
    }
    return SHC_OK;
}

int shc_plan_local_meta(const shc_mesh *m, const shc_placements *src, const shc_shape *shape,
                        int64_t rank, const shc_plan *p, shc_local_meta *out, int *nmodelled,
                        shc_err *e)
{
    return walk(m, src, shape, rank, p, out, NULL, nmodelled, e);
}

int shc_plan_local_ops(const shc_mesh *m, const shc_placements *src, const shc_shape *shape,
                       int64_t rank, const shc_plan *p, shc_local_ops *out, int *nmodelled,
                       shc_err *e)
{
    return walk(m, src, shape, rank, p, NULL, out, nmodelled, e);
}
