/*
 * mesh.c — the device mesh: shape, rank map, coordinates.
 *
 * Mirrors torch 2.13 DeviceMesh: `mesh` is an n-d tensor of global ranks in
 * row-major order; a rank's coordinate is its position in that tensor.  Rank
 * maps must be a permutation of 0..size-1 (duplicate or missing ranks are
 * rejected, naming the rank), unless the mesh lives in a larger world
 * (shc_mesh_init_world): then its ranks are distinct ranks of that world and
 * the others are torch's "non-participating ranks" (device_mesh.py 2.13,
 * _is_current_rank_part_of_mesh), which have no coordinate.  Tested by
 * check_core.c and cli_layout.sh; test_subworld.py runs the same meshes in torch.
 */
#include "config.h"
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shardcheck.h"
#include "checked_math.h"
#include "parse.h"

void shc_mesh_free(shc_mesh *m)
{
    if (!m)
        return;
    free(m->ranks);
    free(m->pos_of);
    m->ranks = m->pos_of = NULL;
}

static int mesh_check_shape(int ndim, const int64_t *shape, int64_t *size, shc_err *e)
{
    if (ndim < 1 || ndim > SHC_MAX_MESH_DIMS)
        return shc_fail(e, SHC_EINVAL, "mesh: %d dims, expected 1 to %d", ndim, SHC_MAX_MESH_DIMS);
    int64_t n = 1;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] < 1)
            return shc_fail(e, SHC_EINVAL, "mesh: dim %d has size %lld, expected >= 1", i,
                            (long long)shape[i]);
        if (!shc_mul64(n, shape[i], &n) || n > SHC_MAX_WORLD)
            return shc_fail(e, SHC_EOVERFLOW, "mesh: more than %d ranks", SHC_MAX_WORLD);
    }
    *size = n;
    return SHC_OK;
}

/* A rank of the map outside the world: torch's new_group refuses it when DeviceMesh creates
 * the dim groups (distributed_c10d.py 2.13, _new_group_with_tag). */
static int rank_out_of_range(int64_t r, int64_t pos, int64_t size, int64_t world, shc_err *e)
{
    if (world == size)
        return shc_fail(e, SHC_EINVAL, "rank map: rank %lld at position %lld is outside 0..%lld",
                        (long long)r, (long long)pos, (long long)size - 1);
    return shc_fail(e, SHC_EINVAL,
                    "rank map: rank %lld at position %lld is outside the world 0..%lld (torch: "
                    "ValueError: Rank %lld is out of range. Valid ranks are 0 to %lld "
                    "(world_size=%lld))", (long long)r, (long long)pos, (long long)world - 1,
                    (long long)r, (long long)world - 1, (long long)world);
}

int shc_mesh_init_world(shc_mesh *m, int ndim, const int64_t *shape, const int64_t *ranks,
                        int64_t world, shc_err *e)
{
    memset(m, 0, sizeof *m);
    int64_t size;
    int rc = mesh_check_shape(ndim, shape, &size, e);
    if (rc)
        return rc;
    assert(ndim >= 1 && ndim <= SHC_MAX_MESH_DIMS && size >= 1); /* mesh_check_shape's */
    if (world == 0)
        world = size;
    if (world > SHC_MAX_WORLD)
        return shc_fail(e, SHC_EOVERFLOW, "world: %lld ranks, more than %d", (long long)world,
                        SHC_MAX_WORLD);
    if (world < size) /* device_mesh.py 2.13 _setup_world_group_and_device */
        return shc_fail(e, SHC_EINVAL,
                        "world: %lld ranks, fewer than the mesh's %lld (torch: RuntimeError: Mesh "
                        "should not be bigger than default world size %lld, but found %lld ranks!)",
                        (long long)world, (long long)size, (long long)world, (long long)size);
    m->ndim = ndim;
    memcpy(m->shape, shape, (size_t)ndim * sizeof *shape);
    m->size = size;
    m->ranks = malloc((size_t)size * sizeof *m->ranks);
    m->pos_of = malloc((size_t)world * sizeof *m->pos_of);
    if (!m->ranks || !m->pos_of) {
        shc_mesh_free(m);
        return shc_fail(e, SHC_ENOMEM, "mesh: out of memory for %lld ranks", (long long)world);
    }
    for (int64_t i = 0; i < world; i++)
        m->pos_of[i] = -1;
    for (int64_t i = 0; i < size; i++) {
        int64_t r = ranks ? ranks[i] : i;
        if (r < 0 || r >= world) {
            shc_mesh_free(m);
            return rank_out_of_range(r, i, size, world, e);
        }
        if (m->pos_of[r] >= 0) {
            long long first = (long long)m->pos_of[r]; /* read before the free below */
            shc_mesh_free(m);
            return shc_fail(e, SHC_EINVAL, "rank map: duplicate rank %lld at positions %lld and %lld",
                            (long long)r, first, (long long)i);
        }
        m->ranks[i] = r;
        m->pos_of[r] = i;
    }
    m->max_rank = world - 1;
    return SHC_OK;
}

int shc_mesh_init(shc_mesh *m, int ndim, const int64_t *shape, const int64_t *ranks,
                  shc_err *e)
{
    return shc_mesh_init_world(m, ndim, shape, ranks, 0, e);
}

bool shc_mesh_has_rank(const shc_mesh *m, int64_t rank)
{
    return rank >= 0 && rank <= m->max_rank && m->pos_of[rank] >= 0;
}

int shc_mesh_parse_world(shc_mesh *m, const char *shape, const char *ranks, int64_t world,
                         shc_err *e)
{
    memset(m, 0, sizeof *m);
    int64_t *dims = NULL, nd = 0, *rk = NULL, nr = 0;
    int rc = shc_parse_i64_list(shape ? shape : "", 'x', &dims, &nd, "mesh", e);
    if (rc)
        return rc;
    if (nd < 1 || nd > SHC_MAX_MESH_DIMS) {
        free(dims);
        return shc_fail(e, SHC_EINVAL, "mesh '%.64s': %lld dims, expected 1 to %d", shape ? shape : "",
                        (long long)nd, SHC_MAX_MESH_DIMS);
    }
    int64_t size;
    rc = mesh_check_shape((int)nd, dims, &size, e);
    if (!rc && ranks && *ranks) {
        rc = shc_parse_i64_list(ranks, ',', &rk, &nr, "rank map", e);
        if (!rc && nr != size)
            rc = shc_fail(e, SHC_EINVAL, "rank map: %lld ranks given, mesh %s has %lld", (long long)nr,
                          shape, (long long)size);
    }
    if (!rc)
        rc = shc_mesh_init_world(m, (int)nd, dims, rk, world, e);
    free(dims);
    free(rk);
    return rc;
}

int shc_mesh_parse(shc_mesh *m, const char *shape, const char *ranks, shc_err *e)
{
    return shc_mesh_parse_world(m, shape, ranks, 0, e);
}

int shc_mesh_check_world_rank(const shc_mesh *m, int64_t rank, shc_err *e)
{
    if (rank < 0 || rank > m->max_rank)
        return shc_fail(e, SHC_EINVAL, "rank %lld is not in the world (ranks 0..%lld)",
                        (long long)rank, (long long)m->max_rank);
    return SHC_OK;
}

int shc_mesh_coord(const shc_mesh *m, int64_t rank, int64_t *coord, shc_err *e)
{
    if (!shc_mesh_has_rank(m, rank))
        return shc_fail(e, SHC_EINVAL, "rank %lld is not in the mesh (ranks 0..%lld)",
                        (long long)rank, (long long)m->max_rank);
    int64_t pos = m->pos_of[rank];
    assert(pos < m->size && m->ranks[pos] == rank); /* pos_of and ranks are inverses */
    for (int i = m->ndim - 1; i >= 0; i--) {
        coord[i] = pos % m->shape[i];
        pos /= m->shape[i];
    }
    assert(pos == 0); /* the position was inside the mesh's row-major extent */
    return SHC_OK;
}

int64_t shc_mesh_rank_at(const shc_mesh *m, const int64_t *coord)
{
    int64_t pos = 0;
    for (int i = 0; i < m->ndim; i++) {
        assert(coord[i] >= 0 && coord[i] < m->shape[i]); /* a coordinate of this mesh */
        pos = pos * m->shape[i] + coord[i];
    }
    assert(pos >= 0 && pos < m->size);
    return m->ranks[pos];
}

void shc_mesh_format(const shc_mesh *m, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int i = 0; i < m->ndim && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, i ? "x%lld" : "%lld", (long long)m->shape[i]);
}
