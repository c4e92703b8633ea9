/*
 * groups.c — process-group rank lists: DeviceMesh groups per mesh dim and
 * flattened over several dims, seed 002's rank lists for axes, and seed 002's
 * HSDP sharded/unsharded groups.
 *
 * Reference:
 *  - torch 2.13 device_mesh.py / _mesh_layout.py: the groups of mesh dim d are
 *    _MeshLayout.remap_to_tensor(rank_map): members in mesh order along d,
 *    groups enumerated row-major over the remaining dims.  Flattening several
 *    dims (mesh["a","c"]._flatten()) collapses their layouts, so members run
 *    row-major over the chosen dims in mesh order; slicing requires the dims
 *    in ascending order (KeyError otherwise) and distinct (RuntimeError), which
 *    we enforce, except for size-1 dims, which torch takes in any order or twice
 *    (they leave the layout, device_mesh.py _get_slice_mesh_layout).
 *  - c10d new_group sorts its ranks (distributed_c10d.py), so a rank's rank in
 *    the communicator is its index in the sorted group, which differs from its
 *    mesh coordinate when the rank map is not arange.
 *  - seed 002 (hyper_parallel hsdp_utils.get_rank_list_for_axes,
 *    get_split_rank_lists_for_axes; hsdp_param.py _init_group_infos).
 *
 * Everything is index arithmetic on the row-major mesh, O(1) per member, so
 * all groups of a 65,536-rank mesh take microseconds (bench/bench_layout.c).
 * Tested by conformance/tests/check_layout.c and golden/group-ranks (checked
 * against torch DeviceMesh by the harness).
 */
#include "config.h"
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "shardcheck.h"

void shc_groups_free(shc_groups *g)
{
    if (!g)
        return;
    free(g->ranks);
    g->ranks = NULL;
    g->ngroups = g->group_size = 0;
}

/* Row-major strides of the mesh positions. */
static void mesh_strides(const shc_mesh *m, int64_t *stride)
{
    int64_t s = 1;
    for (int i = m->ndim - 1; i >= 0; i--) {
        stride[i] = s;
        s *= m->shape[i];
    }
}

/* Split mesh dims into the chosen (sel) and the others (rest), both ascending. */
static void split_dims(const shc_mesh *m, const bool *chosen, int *sel, int *nsel, int *rest,
                       int *nrest)
{
    *nsel = *nrest = 0;
    for (int i = 0; i < m->ndim; i++) {
        if (chosen[i])
            sel[(*nsel)++] = i;
        else
            rest[(*nrest)++] = i;
    }
}

/* Mesh position of the idx-th coordinate (row-major) over dims[0..n). */
static int64_t pos_of_index(const shc_mesh *m, const int64_t *stride, const int *dims, int n,
                            int64_t idx)
{
    int64_t pos = 0;
    for (int k = n - 1; k >= 0; k--) {
        int64_t sz = m->shape[dims[k]];
        pos += (idx % sz) * stride[dims[k]];
        idx /= sz;
    }
    assert(idx == 0 && pos >= 0 && pos < m->size); /* idx was a coordinate over dims */
    return pos;
}

/* Row-major index of a coordinate over dims[0..n). */
static int64_t index_of_coord(const shc_mesh *m, const int64_t *coord, const int *dims, int n)
{
    int64_t idx = 0;
    for (int k = 0; k < n; k++) {
        assert(coord[dims[k]] >= 0 && coord[dims[k]] < m->shape[dims[k]]);
        idx = idx * m->shape[dims[k]] + coord[dims[k]];
    }
    return idx;
}

/* Ranks at base + every row-major coordinate over dims[0..n), by odometer
 * (no division per member: this runs for every rank of big meshes). */
static void fill_members(const shc_mesh *m, const int64_t *stride, const int *dims, int n,
                         int64_t base, int64_t *out)
{
    int64_t c[SHC_MAX_MESH_DIMS] = {0}, pos = base, k = 0;
    for (;;) {
        assert(pos >= 0 && pos < m->size); /* the odometer stays inside the mesh */
        out[k++] = m->ranks[pos];
        int i = n - 1;
        for (; i >= 0; i--) {
            int d = dims[i];
            if (++c[i] < m->shape[d]) {
                pos += stride[d];
                break;
            }
            pos -= (m->shape[d] - 1) * stride[d];
            c[i] = 0;
        }
        if (i < 0) {
            assert(pos == base); /* every counter wrapped: back at the start */
            return;
        }
    }
}

/* All groups varying over the chosen dims (mesh order), others row-major. */
static int build_groups(const shc_mesh *m, const bool *chosen, shc_groups *out, shc_err *e)
{
    int sel[SHC_MAX_MESH_DIMS], rest[SHC_MAX_MESH_DIMS], nsel, nrest;
    int64_t stride[SHC_MAX_MESH_DIMS];
    split_dims(m, chosen, sel, &nsel, rest, &nrest);
    mesh_strides(m, stride);
    int64_t gsize = 1;
    for (int k = 0; k < nsel; k++)
        gsize *= m->shape[sel[k]];
    assert(nsel + nrest == m->ndim && gsize >= 1 && m->size % gsize == 0);
    out->group_size = gsize;
    out->ngroups = m->size / gsize;
    out->ranks = malloc((size_t)m->size * sizeof *out->ranks);
    if (!out->ranks)
        return shc_fail(e, SHC_ENOMEM, "groups: out of memory for %lld ranks", (long long)m->size);
    for (int64_t g = 0; g < out->ngroups; g++)
        fill_members(m, stride, sel, nsel, pos_of_index(m, stride, rest, nrest, g),
                     out->ranks + g * gsize);
    return SHC_OK;
}

/* Validate DeviceMesh-style axes: in range, strictly ascending, except where only size-1
 * dims are out of order or repeated, which DeviceMesh slices too (they leave the layout:
 * shc_mesh_slice_layout) and which change no group. */
static int check_mesh_axes(const shc_mesh *m, const int *axes, int naxes, bool *chosen,
                           shc_err *e)
{
    memset(chosen, 0, SHC_MAX_MESH_DIMS * sizeof *chosen);
    int sliced = -1; /* whether the axes slice the mesh: asked only of axes out of order (the
                      * slicer words its names, a tenth of group-ranks' time when always asked) */
    for (int k = 0; k < naxes; k++) {
        if (axes[k] < 0 || axes[k] >= m->ndim)
            return shc_fail(e, SHC_EINVAL, "axes: mesh dim %d out of range 0..%d", axes[k],
                            m->ndim - 1);
        if (k > 0 && axes[k] <= axes[k - 1] && sliced < 0) {
            shc_flat_layout l;
            shc_err ignored = {0};
            sliced = naxes <= SHC_MAX_LAYOUT_MODES &&
                     !shc_mesh_slice_layout(m->shape, m->ndim, axes, naxes, &l, &ignored);
        }
        if (k > 0 && axes[k] <= axes[k - 1] && !sliced)
            return shc_fail(e, SHC_EINVAL, "axes: mesh dims must be distinct and in ascending "
                            "order (torch DeviceMesh slicing: \"Mesh dim indices should be in "
                            "ascending order\"), got %d after %d", axes[k], axes[k - 1]);
        chosen[axes[k]] = true;
    }
    return SHC_OK;
}

int shc_groups_for_axes(const shc_mesh *m, const int *axes, int naxes, shc_groups *out,
                        shc_err *e)
{
    memset(out, 0, sizeof *out);
    bool chosen[SHC_MAX_MESH_DIMS];
    int rc = check_mesh_axes(m, axes, naxes, chosen, e);
    return rc ? rc : build_groups(m, chosen, out, e);
}

int64_t shc_groups_find(const shc_groups *g, int64_t rank)
{
    for (int64_t i = 0; i < g->ngroups * g->group_size; i++)
        if (g->ranks[i] == rank)
            return i / g->group_size;
    return -1;
}

int shc_groups_locate(const shc_mesh *m, const int *axes, int naxes, int64_t rank,
                      int64_t *group, int64_t *member, shc_err *e)
{
    bool chosen[SHC_MAX_MESH_DIMS];
    int64_t coord[SHC_MAX_MESH_DIMS];
    int sel[SHC_MAX_MESH_DIMS], rest[SHC_MAX_MESH_DIMS], nsel, nrest;
    int rc = check_mesh_axes(m, axes, naxes, chosen, e);
    if (!rc)
        rc = shc_mesh_coord(m, rank, coord, e);
    if (rc)
        return rc;
    split_dims(m, chosen, sel, &nsel, rest, &nrest);
    *group = index_of_coord(m, coord, rest, nrest);
    *member = index_of_coord(m, coord, sel, nsel);
    return SHC_OK;
}

int64_t shc_group_sorted_index(const int64_t *group, int64_t n, int64_t rank)
{
    int64_t below = 0;
    bool found = false;
    for (int64_t i = 0; i < n; i++) {
        below += group[i] < rank;
        found |= group[i] == rank;
    }
    return found ? below : -1;
}

int shc_axes_normalize(const shc_mesh *m, const int *axes, int naxes, int *out, int *nout,
                       shc_err *e)
{
    bool seen[SHC_MAX_MESH_DIMS] = {false};
    for (int k = 0; k < naxes; k++) {
        if (axes[k] < 0 || axes[k] >= m->ndim)
            return shc_fail(e, SHC_EINVAL, "axes: mesh dim %d out of range 0..%d", axes[k],
                            m->ndim - 1);
        seen[axes[k]] = true;
    }
    *nout = 0;
    for (int i = 0; i < m->ndim; i++)
        if (seen[i])
            out[(*nout)++] = i;
    return SHC_OK;
}

int shc_rank_list_for_axes(const shc_mesh *m, const int *axes, int naxes, int64_t rank,
                           int64_t **out, int64_t *n, shc_err *e)
{
    int norm[SHC_MAX_MESH_DIMS], nn;
    int64_t group, member;
    *out = NULL;
    *n = 0;
    int rc = shc_axes_normalize(m, axes, naxes, norm, &nn, e);
    if (!rc)
        rc = shc_groups_locate(m, norm, nn, rank, &group, &member, e);
    if (rc)
        return rc;
    bool chosen[SHC_MAX_MESH_DIMS] = {false};
    int sel[SHC_MAX_MESH_DIMS], rest[SHC_MAX_MESH_DIMS], nsel, nrest;
    int64_t stride[SHC_MAX_MESH_DIMS];
    for (int k = 0; k < nn; k++)
        chosen[norm[k]] = true;
    split_dims(m, chosen, sel, &nsel, rest, &nrest);
    mesh_strides(m, stride);
    int64_t gsize = 1;
    for (int k = 0; k < nsel; k++)
        gsize *= m->shape[sel[k]];
    *out = malloc((size_t)gsize * sizeof **out);
    if (!*out)
        return shc_fail(e, SHC_ENOMEM, "rank list: out of memory");
    int64_t base = pos_of_index(m, stride, rest, nrest, group);
    fill_members(m, stride, sel, nsel, base, *out);
    assert(member >= 0 && member < gsize && (*out)[member] == rank); /* rank is in its own list */
    *n = gsize; /* empty axes: gsize 1 and the list is [rank] */
    return SHC_OK;
}

int shc_split_rank_lists_for_axes(const shc_mesh *m, const int *axes, int naxes,
                                  shc_groups *out, shc_err *e)
{
    memset(out, 0, sizeof *out);
    int norm[SHC_MAX_MESH_DIMS], nn;
    int rc = shc_axes_normalize(m, axes, naxes, norm, &nn, e);
    if (rc)
        return rc;
    bool chosen[SHC_MAX_MESH_DIMS] = {false};
    for (int k = 0; k < nn; k++)
        chosen[norm[k]] = true;
    if (nn == 0) /* seed 002: no axes means the whole mesh as one list */
        for (int i = 0; i < m->ndim; i++)
            chosen[i] = true;
    return build_groups(m, chosen, out, e);
}

void shc_hsdp_free(shc_hsdp *h)
{
    if (!h)
        return;
    free(h->sharded);
    free(h->unsharded);
    h->sharded = h->unsharded = NULL;
}

/* Sort ranks (0 <= r < 2^24, SHC_MAX_WORLD) ascending: insertion sort for
 * short lists, else an LSD radix sort, 8 bits a pass — every rank of a big
 * mesh sorts its HSDP group, so this is on the hot path. */
_Static_assert(SHC_MAX_WORLD <= (1 << 24), "sort_ranks makes three 8-bit passes");
static int sort_ranks(int64_t *v, int64_t n)
{
    if (n <= 32) {
        for (int64_t i = 1; i < n; i++) {
            int64_t x = v[i], j = i;
            for (; j > 0 && v[j - 1] > x; j--)
                v[j] = v[j - 1];
            v[j] = x;
        }
        return SHC_OK;
    }
    int64_t *tmp = malloc((size_t)n * sizeof *tmp);
    if (!tmp)
        return SHC_ENOMEM;
    for (int shift = 0; shift < 24; shift += 8) {
        int64_t count[257] = {0};
        for (int64_t i = 0; i < n; i++) {
            assert(v[i] >= 0 && v[i] < SHC_MAX_WORLD); /* ranks of a mesh */
            count[((v[i] >> shift) & 255) + 1]++;
        }
        for (int b = 0; b < 256; b++)
            count[b + 1] += count[b];
        for (int64_t i = 0; i < n; i++)
            tmp[count[(v[i] >> shift) & 255]++] = v[i];
        memcpy(v, tmp, (size_t)n * sizeof *v);
    }
    free(tmp);
    return SHC_OK;
}

int shc_hsdp_groups(const shc_mesh *m, const shc_placements *pl, int shard_dim, int64_t rank,
                    shc_hsdp *out, shc_err *e)
{
    memset(out, 0, sizeof *out);
    out->shard_size = out->dp_size = 1;
    if (pl->n != m->ndim)
        return shc_fail(e, SHC_EINVAL, "hsdp: %d placements for a %d-d mesh", pl->n, m->ndim);
    if (shard_dim < -1 || shard_dim >= m->ndim)
        return shc_fail(e, SHC_EINVAL, "hsdp: shard mesh dim %d out of range 0..%d (or -1 for "
                        "none)", shard_dim, m->ndim - 1);
    int64_t n, coord[SHC_MAX_MESH_DIMS];
    int rc = shc_mesh_coord(m, rank, coord, e);
    if (rc)
        return rc;
    if (shard_dim >= 0 && m->shape[shard_dim] > 1) {
        rc = shc_rank_list_for_axes(m, &shard_dim, 1, rank, &out->sharded, &n, e);
        if (rc)
            return rc;
        /* A process group's ranks as c10d reports them (get_process_group_ranks)
         * are sorted: new_group sorts them. */
        if (sort_ranks(out->sharded, n)) {
            shc_hsdp_free(out);
            return shc_fail(e, SHC_ENOMEM, "hsdp: out of memory");
        }
        out->sharded_valid = true;
        out->shard_size = n;
    }
    /* Unsharded group: Replicate axes (placement.is_replicate(); Partial is
     * not) minus the shard dim; seed 002 sorts the list and calls a list of
     * one rank or fewer invalid. */
    int axes[SHC_MAX_MESH_DIMS], na = 0;
    for (int i = 0; i < m->ndim; i++)
        if (pl->p[i].kind == SHC_P_REPLICATE && i != shard_dim)
            axes[na++] = i;
    if (na > 0) {
        int64_t *list;
        rc = shc_rank_list_for_axes(m, axes, na, rank, &list, &n, e);
        if (rc) {
            shc_hsdp_free(out);
            return rc;
        }
        if (n > 1 && sort_ranks(list, n)) {
            free(list);
            shc_hsdp_free(out);
            return shc_fail(e, SHC_ENOMEM, "hsdp: out of memory");
        }
        if (n > 1) {
            out->unsharded = list;
            out->unsharded_valid = true;
            out->dp_size = n;
        } else {
            free(list);
        }
    }
    out->rank_size = out->shard_size * out->dp_size; /* both >= 1, <= world */
    return SHC_OK;
}
