/*
 * shard_layout.c — which part of a global tensor each rank holds, exactly as
 * torch 2.13 computes it.
 *
 * Reference (torch 2.13.0, torch/distributed/tensor/):
 *  - placement_types.py Shard.local_shard_size_and_offset: the torch.chunk
 *    rule.  Chunks are ceil(size / n) long, trailing chunks may be short or
 *    empty, and an empty chunk's offset is clamped to the current size.
 *  - placement_types.py _StridedShard._split_tensor: the dim is first chunked
 *    into split_factor pieces, each piece is chunked into n pieces, and shard
 *    i is the concatenation of the i-th sub-chunk of every piece.  So a shard
 *    is a list of indices, not a range; torch returns it as a list
 *    (offset_mode ALL).
 *  - _utils.py _compute_local_shape_and_global_offset: placements are applied
 *    left to right over mesh dims; for each tensor dim the global indices held
 *    so far are kept and re-indexed by each later shard.  The reported offset
 *    is the first held index; an empty shard reports the global dim size
 *    (`zero_global_offset`), whatever was applied before.
 *
 * An explicit shard order (trace form "S(0)[1]S(0)[0]") is the DTensorSpec
 * shard_order that redistribute produces: the mesh dims sharding a tensor dim
 * are applied in that order, each chunking what the previous one left.  torch
 * refuses a shard order together with _StridedShard (DTensorSpec.__post_init__),
 * and so do we.
 *
 * Tested by conformance/tests/check_layout.c (hand-derived torch.chunk
 * arithmetic and torch's documented examples) and, case by case against torch
 * itself, by the harness over golden/shard-layout.
 */
#include "config.h"
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "shardcheck.h"
#include "checked_math.h"

/* Largest index list we materialise for a _StridedShard dim. */
/* _StridedShard dims are answered as explicit index lists; a list is capped so that
 * a layout query stays seconds, not minutes (README "Limits"). */
#define SHC_MAX_INDEX_LIST (1 << 20)

/* min(a * b, cap) for a, b, cap >= 0, without overflow. */
static int64_t mul_cap(int64_t a, int64_t b, int64_t cap)
{
    int64_t r;
    if (!shc_mul64(a, b, &r) || r > cap)
        return cap;
    return r;
}

int shc_shard_size_offset(int64_t size, int64_t nchunks, int64_t idx, int64_t *local_size,
                          int64_t *offset, shc_err *e)
{
    if (size < 0)
        return shc_fail(e, SHC_EINVAL, "shard: dim size %lld is negative", (long long)size);
    if (nchunks < 1)
        return shc_fail(e, SHC_EINVAL, "shard: %lld chunks, expected >= 1", (long long)nchunks);
    if (idx < 0 || idx >= nchunks)
        return shc_fail(e, SHC_EINVAL, "shard: index %lld outside 0..%lld", (long long)idx,
                        (long long)nchunks - 1);
    int64_t chunk = shc_ceildiv64(size, nchunks);
    int64_t start = mul_cap(chunk, idx, size);
    int64_t end = start + (chunk < size - start ? chunk : size - start);
    assert(0 <= start && start <= end && end <= size); /* the chunk lies inside the dim */
    *local_size = end - start;
    *offset = start;
    return SHC_OK;
}

/* Positions (within a dim of `size`) held by shard idx of _S(sf) over n chunks.
 * Writes at most cap entries to out (out may be NULL to count); returns the count. */
static int64_t strided_positions(int64_t size, int64_t sf, int64_t n, int64_t idx, int64_t *out,
                                 int64_t cap)
{
    int64_t first = shc_ceildiv64(size, sf), k = 0;
    for (int64_t j = 0; j < sf; j++) {
        int64_t s = mul_cap(first, j, size);
        int64_t len = (first < size - s) ? first : size - s;
        if (len == 0)
            break; /* every later piece is empty too */
        int64_t second = shc_ceildiv64(len, n);
        int64_t a = mul_cap(second, idx, len);
        int64_t b = a + (second < len - a ? second : len - a);
        for (int64_t p = a; p < b; p++, k++)
            if (out && k < cap)
                out[k] = s + p;
    }
    return k;
}

/* State of one tensor dim while placements are applied. */
typedef struct dim_state {
    int64_t size;   /* current local size */
    int64_t start;  /* first global index when contiguous */
    bool listed;    /* held indices kept as an explicit list */
    bool empty;     /* an empty shard happened: offset is the global size */
    int64_t *idx;   /* explicit global indices (listed) */
} dim_state;

/* Apply Shard over n chunks at position c to one dim. */
static int apply_shard(dim_state *d, int64_t n, int64_t c, shc_err *e)
{
    int64_t sz, off;
    int rc = shc_shard_size_offset(d->size, n, c, &sz, &off, e);
    if (rc)
        return rc;
    assert(off >= 0 && sz >= 0 && off + sz <= d->size);
    if (sz == 0)
        d->empty = true;
    else if (d->listed)
        memmove(d->idx, d->idx + off, (size_t)sz * sizeof *d->idx);
    else
        d->start += off;
    d->size = sz;
    return SHC_OK;
}

/* Apply _StridedShard(sf) over n chunks at position c to one dim. */
static int apply_strided(dim_state *d, int64_t sf, int64_t n, int64_t c, shc_err *e)
{
    if (d->size > SHC_MAX_INDEX_LIST)
        return shc_fail(e, SHC_EINVAL, "_StridedShard: dim of %lld elements is too large "
                        "for an index list (at most %d)", (long long)d->size, SHC_MAX_INDEX_LIST);
    int64_t cnt = strided_positions(d->size, sf, n, c, NULL, 0);
    int64_t *pos = malloc((size_t)(cnt ? cnt : 1) * sizeof *pos);
    if (!pos)
        return shc_fail(e, SHC_ENOMEM, "_StridedShard: out of memory");
    int64_t again = strided_positions(d->size, sf, n, c, pos, cnt);
    assert(again == cnt); /* the counting pass and the writing pass agree */
    (void)again;
    if (!d->listed) {
        for (int64_t k = 0; k < cnt; k++)
            pos[k] += d->start;
    } else {
        for (int64_t k = 0; k < cnt; k++) {
            assert(pos[k] >= 0 && pos[k] < d->size);
            pos[k] = d->idx[pos[k]];
        }
        free(d->idx);
    }
    d->idx = pos;
    d->listed = true;
    d->size = cnt;
    if (cnt == 0)
        d->empty = true;
    return SHC_OK;
}

static bool shard_like(const shc_placement *p)
{
    return p->kind == SHC_P_SHARD || p->kind == SHC_P_STRIDED;
}

/* The order in which mesh dims are applied: left to right, or by shard order. */
static void apply_order(const shc_placements *pl, int *seq)
{
    int k = 0;
    if (!pl->has_order) {
        for (int i = 0; i < pl->n; i++)
            seq[k++] = i;
        return;
    }
    /* Tensor dims are independent, so applying every dim's first mesh dim,
     * then every second one, ... respects each tensor dim's order. */
    for (int pos = 0; pos < pl->n; pos++)
        for (int i = 0; i < pl->n; i++)
            if (shard_like(&pl->p[i]) ? pl->order[i] == pos : pos == 0)
                seq[k++] = i;
}

int shc_layout_compute(const shc_mesh *m, const shc_placements *pl, const shc_shape *global,
                       const int64_t *coord, shc_layout *out, shc_err *e)
{
    memset(out, 0, sizeof *out);
    int64_t numel;
    int rc = shc_placements_check(pl, m, global->ndim, e);
    if (!rc)
        rc = shc_shape_numel(global, &numel, e);
    if (rc)
        return rc;
    if (pl->has_order)
        for (int i = 0; i < pl->n; i++)
            if (pl->p[i].kind == SHC_P_STRIDED)
                return shc_fail(e, SHC_EINVAL, "placement %d: a shard order cannot be combined "
                                "with _StridedShard (torch's DTensorSpec rejects it)", i);
    assert(global->ndim >= 0 && global->ndim <= SHC_MAX_TENSOR_DIMS); /* a shape holds no more */
    assert(pl->n == m->ndim && pl->n <= SHC_MAX_MESH_DIMS);          /* shc_placements_check's */
    dim_state st[SHC_MAX_TENSOR_DIMS];
    memset(st, 0, sizeof st);
    for (int d = 0; d < global->ndim; d++)
        st[d].size = global->d[d];
    int seq[SHC_MAX_MESH_DIMS];
    apply_order(pl, seq);
    for (int k = 0; k < pl->n && !rc; k++) {
        int i = seq[k];
        const shc_placement *p = &pl->p[i];
        assert(i >= 0 && i < pl->n);
        assert(!shard_like(p) || (p->dim >= 0 && p->dim < global->ndim));
        if (p->kind == SHC_P_SHARD)
            rc = apply_shard(&st[p->dim], m->shape[i], coord[i], e);
        else if (p->kind == SHC_P_STRIDED)
            rc = apply_strided(&st[p->dim], p->split_factor, m->shape[i], coord[i], e);
        if (rc)
            shc_err_prefix(e, "mesh dim %d", i);
    }
    out->local.ndim = global->ndim;
    for (int d = 0; d < global->ndim; d++) {
        out->local.d[d] = st[d].size;
        if (st[d].empty)
            out->offset[d] = global->d[d];
        else
            out->offset[d] = st[d].listed ? st[d].idx[0] : st[d].start;
        if (st[d].listed) {
            out->index[d] = st[d].idx;
            out->index_len[d] = st[d].size;
            st[d].idx = NULL;
        }
    }
    if (rc)
        shc_layout_free(out);
    for (int d = 0; d < global->ndim; d++)
        free(st[d].idx);
    return rc;
}

int shc_layout_of_rank(const shc_mesh *m, const shc_placements *pl, const shc_shape *global,
                       int64_t rank, shc_layout *out, shc_err *e)
{
    int64_t coord[SHC_MAX_MESH_DIMS];
    memset(out, 0, sizeof *out);
    int rc = shc_mesh_coord(m, rank, coord, e);
    return rc ? rc : shc_layout_compute(m, pl, global, coord, out, e);
}

int shc_layout_of_world_rank(const shc_mesh *m, const shc_placements *pl,
                             const shc_shape *global, int64_t rank, shc_layout *out,
                             bool *in_mesh, shc_err *e)
{
    memset(out, 0, sizeof *out);
    *in_mesh = shc_mesh_has_rank(m, rank);
    if (*in_mesh)
        return shc_layout_of_rank(m, pl, global, rank, out, e);
    int rc = shc_mesh_check_world_rank(m, rank, e);
    if (rc)
        return rc;
    /* _utils.py 2.13 compute_local_shape_and_global_offset: ((0,), ()) off the mesh, and
     * distribute_tensor gives such a rank input.new_empty(0) (_api.py) */
    out->local.ndim = 1;
    out->local.d[0] = 0;
    return SHC_OK;
}

void shc_layout_free(shc_layout *l)
{
    if (!l)
        return;
    for (int d = 0; d < SHC_MAX_TENSOR_DIMS; d++) {
        free(l->index[d]);
        l->index[d] = NULL;
        l->index_len[d] = 0;
    }
}
