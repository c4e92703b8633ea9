/*
 * rng_offsets.c — the per-rank Philox offset arithmetic of torch 2.13's
 * OffsetBasedRNGTracker (torch/distributed/tensor/_random.py, 2.13.0:
 * _compute_rng_offsets, _calc_shard_info, _calc_shard_linear_idx,
 * _calc_first_shard_size) and the 16-byte generator state (_PhiloxState).
 *
 * The tracker has its own shard arithmetic, distinct from the layout code
 * (shard_layout.c), and we reproduce it as it is, quirks included:
 *  - the mesh dims sharding one tensor dim are combined in MESH-DIM order
 *    (shard_idx = shard_idx * size + coord), whatever DTensorSpec.shard_order
 *    says; Shard and _StridedShard are treated alike;
 *  - the shard linear index is row-major over the tensor dims;
 *  - the "first shard" size is taken per placement from the GLOBAL dim size
 *    (_calc_first_shard_size calls _local_shard_size_and_offset(spec.shape[d],
 *    mesh.size(i), 0)), so for a tensor dim sharded by several mesh dims the
 *    last placement wins and the size is that of a one-level split: nested
 *    sharding over-estimates it and windows run past the end (audit reports it);
 *  - start_incr = ceil4(linear_index * first_shard_numel), end_incr = ceil4(numel),
 *    "offset must be multiple of 4" (CUDAGeneratorImpl.cpp), which makes tiny
 *    shards collide on the same start (audit reports it).
 * torch's offsets live in an int64 tensor that wraps silently; we fail with
 * SHC_EOVERFLOW instead.  Tested by check_offsets.c (hand-derived examples
 * from torch's docstring), the rng-offsets golden family and the torch
 * harness adapter (tools/harness/adapters/torch_rng_offsets.py), which
 * recomputes every case with torch's own code.
 */
#include "config.h"
#include <assert.h>
#include <string.h>
#include "shardcheck.h"
#include "checked_math.h"

int64_t shc_rng_chunk_size(int64_t size, int64_t n, int64_t idx)
{
    /* Shard.local_shard_size_and_offset: torch.chunk's rule (chunks of
     * ceil(size/n), trailing ones short or empty). */
    assert(n >= 1 && idx >= 0); /* a mesh dim's size, a coordinate on it */
    if (size % n == 0)
        return size / n;
    int64_t full = shc_ceildiv64(size, n);
    if (idx >= shc_ceildiv64(size, full))
        return 0;
    int64_t start = full * idx; /* idx < ceil(size/full) so start < size: no overflow */
    int64_t end = start + full <= size ? start + full : size;
    return end - start;
}

int64_t shc_rng_strided_size(int64_t size, int64_t sf, int64_t n, int64_t idx)
{
    /* _StridedShard._split_tensor: torch.chunk into sf pieces, each into n,
     * shard idx = concatenation of piece j's chunk idx. */
    int64_t total = 0, pieces = sf < size ? sf : size; /* pieces past `size` are empty */
    for (int64_t j = 0; j < pieces; j++)
        total += shc_rng_chunk_size(shc_rng_chunk_size(size, sf, j), n, idx);
    return total;
}

/* Size of chunk idx under placement p on a dim currently of `size`. */
static int64_t placement_chunk(const shc_placement *p, int64_t size, int64_t n, int64_t idx)
{
    if (p->kind == SHC_P_STRIDED)
        return shc_rng_strided_size(size, p->split_factor, n, idx);
    return shc_rng_chunk_size(size, n, idx);
}

static bool is_shard(const shc_placement *p)
{
    return p->kind == SHC_P_SHARD || p->kind == SHC_P_STRIDED;
}

static int ceil4(int64_t v, int64_t *out, const char *what, shc_err *e)
{
    if (!shc_roundup64(v, 4, out))
        return shc_fail(e, SHC_EOVERFLOW, "%s: rounding %lld up to a multiple of 4 overflows int64",
                        what, (long long)v);
    return SHC_OK;
}

int shc_rng_layout_init(shc_rng_layout *t, const shc_mesh *m, const shc_placements *pl,
                        const shc_shape *shape, shc_err *e)
{
    memset(t, 0, sizeof *t);
    int rc = shc_placements_check(pl, m, shape->ndim, e);
    if (rc)
        return rc;
    t->tensor_ndim = shape->ndim;
    t->mesh_ndim = m->ndim;
    memcpy(t->mesh_shape, m->shape, sizeof t->mesh_shape);
    t->pl = *pl;
    t->shape = *shape;
    for (int d = 0; d < shape->ndim; d++) {
        t->first_shard[d] = shape->d[d];
        t->total_shards[d] = 1;
    }
    for (int i = 0; i < pl->n; i++) {
        const shc_placement *p = &pl->p[i];
        if (!is_shard(p))
            continue;
        int d = p->dim;
        t->shard_mesh[d][t->nshard_mesh[d]++] = i;
        /* mesh size <= SHC_MAX_WORLD, so the product cannot overflow */
        t->total_shards[d] *= m->shape[i];
        /* quirk: GLOBAL size, last placement on d wins (_calc_first_shard_size) */
        t->first_shard[d] = placement_chunk(p, shape->d[d], m->shape[i], 0);
    }
    int64_t fn = 1, n = 1;
    for (int d = 0; d < shape->ndim; d++) {
        if ((rc = shc_mul64_e(fn, t->first_shard[d], &fn, "first shard numel", e)) ||
            (rc = shc_mul64_e(n, shape->d[d], &n, "tensor numel", e)))
            return rc;
    }
    t->first_numel = fn;
    t->numel = n;
    return ceil4(n, &t->end_incr, "end_incr", e);
}

/* Real local size of dim d at coord: the layout's rule (shard order honoured),
 * needed only for the window length the audit checks. */
static int64_t local_dim(const shc_rng_layout *t, int d, const int64_t *coord)
{
    int k = t->nshard_mesh[d];
    int order[SHC_MAX_MESH_DIMS];
    memcpy(order, t->shard_mesh[d], sizeof(int) * (size_t)k);
    if (t->pl.has_order) /* insertion sort by declared position */
        for (int a = 1; a < k; a++)
            for (int b = a; b > 0 && t->pl.order[order[b]] < t->pl.order[order[b - 1]]; b--) {
                int tmp = order[b];
                order[b] = order[b - 1];
                order[b - 1] = tmp;
            }
    int64_t size = t->shape.d[d];
    for (int j = 0; j < k; j++) {
        int i = order[j];
        size = placement_chunk(&t->pl.p[i], size, t->mesh_shape[i], coord[i]);
    }
    return size;
}

int shc_rng_offsets_at(const shc_rng_layout *t, const int64_t *coord, shc_rng_offsets *out,
                       shc_err *e)
{
    int64_t lin = 0, stride = 1, local = 1;
    for (int d = t->tensor_ndim - 1; d >= 0; d--) {
        int64_t idx = 0;
        for (int j = 0; j < t->nshard_mesh[d]; j++) {
            int i = t->shard_mesh[d][j];
            idx = idx * t->mesh_shape[i] + coord[i];
        }
        /* lin < product of total shards <= mesh size: no overflow */
        lin += idx * stride;
        stride *= t->total_shards[d];
        local *= local_dim(t, d, coord); /* <= numel, which did not overflow */
    }
    int64_t raw;
    int rc = shc_mul64_e(lin, t->first_numel, &raw, "start_incr (shard linear index * first shard numel)", e);
    if (rc || (rc = ceil4(raw, &out->start_incr, "start_incr", e)))
        return rc;
    out->shard_linear_index = lin;
    out->end_incr = t->end_incr;
    out->local_numel = local;
    return SHC_OK;
}

int shc_rng_offsets_rank(const shc_rng_layout *t, const shc_mesh *m, int64_t rank,
                         shc_rng_offsets *out, shc_err *e)
{
    int64_t coord[SHC_MAX_MESH_DIMS];
    int rc = shc_mesh_coord(m, rank, coord, e);
    return rc ? rc : shc_rng_offsets_at(t, coord, out, e);
}

void shc_rng_state_pack(uint64_t seed, int64_t offset, uint8_t out[16])
{
    uint64_t off = (uint64_t)offset;
    for (int i = 0; i < 8; i++) {
        out[i] = (uint8_t)(seed >> (8 * i));
        out[8 + i] = (uint8_t)(off >> (8 * i));
    }
}

void shc_rng_state_unpack(const uint8_t in[16], uint64_t *seed, int64_t *offset)
{
    uint64_t s = 0, o = 0;
    for (int i = 7; i >= 0; i--) {
        s = (s << 8) | in[i];
        o = (o << 8) | in[8 + i];
    }
    *seed = s;
    *offset = (int64_t)o;
}

int shc_rng_region(const shc_rng_offsets *o, int64_t old_offset, int64_t *pre, int64_t *post,
                   shc_err *e)
{
    /* _distribute_region: the op runs at old + start_incr; afterwards every
     * rank sets old + end_incr, so all ranks leave in step. */
    int rc = shc_add64_e(old_offset, o->start_incr, pre, "pre-op offset", e);
    return rc ? rc : shc_add64_e(old_offset, o->end_incr, post, "post-op offset", e);
}

int shc_rng_manual_seed(const shc_mesh *m, int64_t rank, uint64_t seed, uint8_t state[16],
                        shc_err *e)
{
    /* _random.manual_seed: a rank outside the mesh raises "manual_seed requires
     * the current rank to be a part of the device mesh"; otherwise it is
     * torch.manual_seed(seed), which resets the Philox offset to 0. */
    int64_t coord[SHC_MAX_MESH_DIMS];
    int rc = shc_mesh_coord(m, rank, coord, e);
    if (rc)
        return shc_err_prefix(e, "manual_seed requires the current rank to be a part of the "
                              "device mesh");
    shc_rng_state_pack(seed, 0, state);
    return SHC_OK;
}

int shc_rng_distribute_region(const shc_rng_offsets *o, uint8_t state[16], int64_t *run_offset,
                              shc_err *e)
{
    /* The op runs inside fork_rng on a copy whose offset is old + start_incr;
     * whatever the kernel itself advances is discarded with the fork, and the
     * generator the state came from (a user generator: generator.set_state;
     * else the device default: _set_device_state) is left at old + end_incr,
     * the same on every rank.  Seed bytes are kept as they were. */
    uint64_t seed;
    int64_t old, post;
    shc_rng_state_unpack(state, &seed, &old);
    int rc = shc_rng_region(o, old, run_offset, &post, e);
    if (rc)
        return rc;
    shc_rng_state_pack(seed, post, state);
    return SHC_OK;
}
