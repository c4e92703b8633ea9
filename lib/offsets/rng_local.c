/*
 * rng_local.c — which global elements a rank holds, in its local order, for the RNG
 * policies: the local element -> global index map of torch 2.13's layout rules (torch.chunk
 * per Shard in shard order, _StridedShard's split-then-chunk), and its span.
 * Why here: rng_policy.c (a policy whose draws follow the global index) and
 * rng_policy_check.c (every element's draw identity) both need it.
 * Tested by check_offsets.c (cross-checked against shard_layout.c there) and, through the
 * policies, by the rng-policies golden family.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "shardcheck.h"
#include "checked_math.h"

/* torch.chunk piece idx of src[0..n) split in k, appended at dst; returns its length. */
static int64_t take_chunk(const int64_t *src, int64_t n, int64_t k, int64_t idx, int64_t *dst)
{
    int64_t sz = shc_rng_chunk_size(n, k, idx);
    int64_t step = n % k == 0 ? n / k : (n + k - 1) / k;
    if (sz)
        memcpy(dst, src + step * idx, sizeof(int64_t) * (size_t)sz);
    return sz;
}

/* Global indices along dim d held at coord, in local order; returns the count. */
static int64_t dim_indices(const shc_rng_layout *t, int d, const int64_t *coord, int64_t *a,
                           int64_t *tmp)
{
    int64_t n = t->shape.d[d];
    for (int64_t i = 0; i < n; i++)
        a[i] = i;
    int k = t->nshard_mesh[d], order[SHC_MAX_MESH_DIMS];
    memcpy(order, t->shard_mesh[d], sizeof(int) * (size_t)k);
    if (t->pl.has_order)
        for (int x = 1; x < k; x++)
            for (int y = x; y > 0 && t->pl.order[order[y]] < t->pl.order[order[y - 1]]; y--) {
                int s = order[y];
                order[y] = order[y - 1];
                order[y - 1] = s;
            }
    for (int j = 0; j < k; j++) {
        const shc_placement *p = &t->pl.p[order[j]];
        int64_t m = t->mesh_shape[order[j]], c = coord[order[j]], len = 0;
        if (p->kind == SHC_P_STRIDED) {
            for (int64_t s = 0; s < p->split_factor && s < n; s++) {
                int64_t plen = take_chunk(a, n, p->split_factor, s, tmp + n);
                len += take_chunk(tmp + n, plen, m, c, tmp + len);
            }
        } else {
            len = take_chunk(a, n, m, c, tmp);
        }
        memcpy(a, tmp, sizeof(int64_t) * (size_t)len);
        n = len;
    }
    return n;
}

/* Row-major global linear indices of a rank's local elements; *out malloc'd. */
int shc_rng_local_globals(const shc_rng_layout *t, const int64_t *coord, int64_t **out,
                          int64_t *count, shc_err *e)
{
    int64_t *lists[SHC_MAX_TENSOR_DIMS] = {0}, len[SHC_MAX_TENSOR_DIMS], total = 1;
    int rc = SHC_OK;
    for (int d = 0; d < t->tensor_ndim && rc == SHC_OK; d++) {
        int64_t n = t->shape.d[d];
        lists[d] = malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
        int64_t *tmp = malloc(sizeof(int64_t) * (size_t)(2 * n + 1));
        if (!lists[d] || !tmp)
            rc = shc_fail(e, SHC_ENOMEM, "policy check: out of memory");
        else
            total *= (len[d] = dim_indices(t, d, coord, lists[d], tmp));
        free(tmp);
    }
    int64_t *g = rc ? NULL : malloc(sizeof(int64_t) * (size_t)(total ? total : 1));
    if (!rc && !g)
        rc = shc_fail(e, SHC_ENOMEM, "policy check: out of memory");
    for (int64_t i = 0; !rc && i < total; i++) {
        int64_t rem = i, lin = 0, stride = 1;
        for (int d = t->tensor_ndim - 1; d >= 0; d--) {
            lin += lists[d][rem % len[d]] * stride;
            rem /= len[d];
            stride *= t->shape.d[d];
        }
        g[i] = lin;
    }
    for (int d = 0; d < t->tensor_ndim; d++)
        free(lists[d]);
    *out = g;
    *count = total;
    return rc;
}

int shc_rng_local_span(const shc_rng_layout *t, const int64_t *coord, int64_t *lo, int64_t *hi,
                       shc_err *e)
{
    /* g = sum idx_d * stride_d with each idx_d chosen independently: the extremes are those
     * of each dim's list */
    int64_t stride = 1, n = 1;
    *lo = 0;
    *hi = 0;
    for (int d = t->tensor_ndim - 1; d >= 0; d--) {
        int64_t sz = t->shape.d[d];
        int64_t *a = malloc(sizeof(int64_t) * (size_t)(sz ? sz : 1));
        int64_t *tmp = malloc(sizeof(int64_t) * (size_t)(2 * sz + 1));
        if (!a || !tmp) {
            free(a);
            free(tmp);
            return shc_fail(e, SHC_ENOMEM, "policy span: out of memory");
        }
        int64_t len = dim_indices(t, d, coord, a, tmp), mn = INT64_MAX, mx = -1;
        for (int64_t i = 0; i < len; i++) {
            mn = a[i] < mn ? a[i] : mn;
            mx = a[i] > mx ? a[i] : mx;
        }
        free(a);
        free(tmp);
        n *= len;
        if (n == 0)
            break;
        *lo += mn * stride; /* below numel, which the layout checked fits int64 */
        *hi += mx * stride;
        stride *= sz;
    }
    if (n == 0)
        *lo = *hi = -1; /* the rank holds nothing */
    else
        (*hi)++;
    return SHC_OK;
}
