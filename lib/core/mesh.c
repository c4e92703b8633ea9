/*
 * mesh.c — the device mesh: shape, rank map, coordinates.
 *
 * Mirrors torch 2.13 DeviceMesh: `mesh` is an n-d tensor of global ranks in
 * row-major order; a rank's coordinate is its position in that tensor.  Rank
 * maps must be a permutation of 0..size-1 (duplicate or missing ranks are
 * rejected, naming the rank).  Tested by check_core.c.
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

int shc_mesh_init(shc_mesh *m, int ndim, const int64_t *shape, const int64_t *ranks,
                  shc_err *e)
{
    memset(m, 0, sizeof *m);
    int64_t size;
    int rc = mesh_check_shape(ndim, shape, &size, e);
    if (rc)
        return rc;
    assert(ndim >= 1 && ndim <= SHC_MAX_MESH_DIMS && size >= 1); /* mesh_check_shape's */
    m->ndim = ndim;
    memcpy(m->shape, shape, (size_t)ndim * sizeof *shape);
    m->size = size;
    m->ranks = malloc((size_t)size * sizeof *m->ranks);
    m->pos_of = malloc((size_t)size * sizeof *m->pos_of);
    if (!m->ranks || !m->pos_of) {
        shc_mesh_free(m);
        return shc_fail(e, SHC_ENOMEM, "mesh: out of memory for %lld ranks", (long long)size);
    }
    for (int64_t i = 0; i < size; i++)
        m->pos_of[i] = -1;
    for (int64_t i = 0; i < size; i++) {
        int64_t r = ranks ? ranks[i] : i;
        if (r < 0 || r >= size) {
            shc_mesh_free(m);
            return shc_fail(e, SHC_EINVAL,
                            "rank map: rank %lld at position %lld is outside 0..%lld", (long long)r,
                            (long long)i, (long long)size - 1);
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
    m->max_rank = size - 1;
    return SHC_OK;
}

int shc_mesh_parse(shc_mesh *m, const char *shape, const char *ranks, shc_err *e)
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
        rc = shc_mesh_init(m, (int)nd, dims, rk, e);
    free(dims);
    free(rk);
    return rc;
}

int shc_mesh_coord(const shc_mesh *m, int64_t rank, int64_t *coord, shc_err *e)
{
    if (rank < 0 || rank > m->max_rank || m->pos_of[rank] < 0)
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
