/*
 * placement_sem.c — torch 2.13's answers about placements apart from data (shardcheck.h):
 * the is_shard predicates (placement_types.py), shardability (_ops/utils.py:173-276) and
 * the global shape and stride from local tensors (_utils.py compute_global_tensor_info, the
 * C++ torch._C._DTensor_compute_global_tensor_info, and compute_global_tensor_shape,
 * _utils.py:359-432).
 * Tested by conformance/tests/cli_placement.sh and tools/harness/tests/test_placement.py,
 * which puts every query to real torch 2.13.
 */
#include "config.h"
#include <string.h>
#include "shardcheck.h"
#include "checked_math.h"

bool shc_pl_is_shard(const shc_placement *p)
{
    return p->kind == SHC_P_SHARD;
}

bool shc_pl_is_shard_like(const shc_placement *p)
{
    return p->kind == SHC_P_SHARD || p->kind == SHC_P_STRIDED;
}

static int one_per_mesh_dim(const shc_mesh *m, const shc_placements *pl, shc_err *e)
{
    if (pl->n != m->ndim)
        return shc_fail(e, SHC_EINVAL, "%d placements for a %d-d mesh (DTensorSpec needs one "
                        "per mesh dim)", pl->n, m->ndim);
    return SHC_OK;
}

/* Both predicates count the shards of each tensor dim in mesh-dim order; a _StridedShard
 * needs its split factor times the shards so far (its chunks are split again). */
int shc_tensor_shardable(const shc_mesh *m, const shc_placements *pl, const shc_shape *shape,
                         bool even, bool *out, shc_err *e)
{
    int rc = one_per_mesh_dim(m, pl, e);
    if (rc)
        return rc;
    int64_t nshards[SHC_MAX_TENSOR_DIMS];
    for (int d = 0; d < SHC_MAX_TENSOR_DIMS; d++)
        nshards[d] = 1;
    *out = true;
    for (int i = 0; i < pl->n; i++) {
        const shc_placement *p = &pl->p[i];
        if (!shc_pl_is_shard_like(p))
            continue;
        if (p->dim < 0)
            return shc_fail(e, SHC_EINVAL, "placement %d: shard dim %d is not normalised", i,
                            p->dim);
        if (p->dim >= shape->ndim) { /* torch: "if shard_dim >= len(shape): return False" */
            *out = false;
            return SHC_OK;
        }
        int64_t need, size = shape->d[p->dim];
        if (!shc_mul64(nshards[p->dim], m->shape[i], &nshards[p->dim]))
            return shc_fail(e, SHC_EOVERFLOW, "shard count of dim %d overflows", p->dim);
        need = nshards[p->dim];
        if (p->kind == SHC_P_STRIDED && !shc_mul64(need, p->split_factor, &need))
            return shc_fail(e, SHC_EOVERFLOW, "shards x split factor of dim %d overflows",
                            p->dim);
        if (even ? (need == 0 || size % need != 0) : size < need) {
            *out = false;
            return SHC_OK;
        }
    }
    return SHC_OK;
}

int shc_global_tensor_info(const shc_mesh *m, const shc_placements *pl, const shc_shape *local,
                           const int64_t *lstride, shc_shape *gshape, int64_t *gstride,
                           shc_err *e)
{
    int rc = one_per_mesh_dim(m, pl, e);
    if (rc)
        return rc;
    *gshape = *local;
    memcpy(gstride, lstride, (size_t)local->ndim * sizeof *gstride);
    for (int i = 0; i < pl->n; i++) {
        const shc_placement *p = &pl->p[i];
        if (!shc_pl_is_shard_like(p))
            continue;
        char one[48];
        shc_placement_format(p, one, sizeof one);
        if (p->dim < 0)
            return shc_fail(e, SHC_EINVAL, "RuntimeError: Shard placements should have "
                            "negative dims normalized in the user-facing APIs: %s", one);
        int d = p->dim;
        if (d >= local->ndim)
            return shc_fail(e, SHC_EINVAL, "RuntimeError: Sharding dim %d greater than tensor "
                            "ndim %d for placement number %d", d, local->ndim, i);
        int64_t k = m->shape[i], sd = gstride[d];
        if (!shc_mul64(gshape->d[d], k, &gshape->d[d]))
            return shc_fail(e, SHC_EOVERFLOW, "global size of dim %d overflows", d);
        /* strides at least the shard dim's grew by the shard count (the local tensor is one
         * of k blocks along d) */
        for (int j = 0; j < local->ndim; j++)
            if (j != d && gstride[j] >= sd && !shc_mul64(gstride[j], k, &gstride[j]))
                return shc_fail(e, SHC_EOVERFLOW, "global stride of dim %d overflows", j);
    }
    return SHC_OK;
}

int shc_global_tensor_shape(const shc_mesh *m, const shc_placements *pl, const shc_shape *locals,
                            int n, shc_shape *out, shc_err *e)
{
    if (pl->n != 1)
        return shc_fail(e, SHC_EINVAL, "NotImplementedError: compute_global_tensor_shape only "
                        "supports 1 placement for now.");
    if (m->ndim != 1)
        return shc_fail(e, SHC_EINVAL, "RuntimeError: Expected one placement per mesh dim, but "
                        "found 1 placements and %d mesh dims.", m->ndim);
    if (n != m->size)
        return shc_fail(e, SHC_EINVAL, "%d local shapes for a mesh of %lld ranks (one per "
                        "rank)", n, (long long)m->size);
    const shc_placement *p = &pl->p[0];
    *out = locals[0];
    if (p->kind == SHC_P_REPLICATE)
        return SHC_OK;
    if (p->kind != SHC_P_SHARD)
        return shc_fail(e, SHC_EINVAL, "NotImplementedError: Placement type <class "
                        "'torch.distributed.tensor.placement_types.%s'> not supported.",
                        p->kind == SHC_P_STRIDED ? "_StridedShard" : "Partial");
    int d = p->dim, nd = locals[0].ndim;
    int64_t sum = 0;
    for (int r = 0; r < n; r++) {
        if (locals[r].ndim != nd)
            return shc_fail(e, SHC_EINVAL, "rank %d's local shape has %d dims, rank 0's %d", r,
                            locals[r].ndim, nd);
        /* torch compares the dims other than the literal shard dim: with a negative dim
         * that is every dim */
        for (int j = 0; j < nd; j++)
            if (j != d && locals[r].d[j] != locals[0].d[j])
                return shc_fail(e, SHC_EINVAL, "RuntimeError: Non-sharded dimensions should "
                                "have identical size across ranks.");
        if (d >= nd || d < -nd)
            return shc_fail(e, SHC_EINVAL, "IndexError: list index out of range");
        if (!shc_add64(sum, locals[r].d[d < 0 ? d + nd : d], &sum))
            return shc_fail(e, SHC_EOVERFLOW, "global size of dim %d overflows", d);
    }
    out->d[d < 0 ? d + nd : d] = sum;
    return SHC_OK;
}
