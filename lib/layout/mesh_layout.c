/*
 * mesh_layout.c — torch's CuTe-style layouts of a DeviceMesh's dims (_FlatLayout): the
 * normal form, the ranks a layout lists, orthogonality, the complement in a world and the
 * rank lists (one per process group) a flattened or sliced dim gets.
 *
 * Why: since 2.10 DeviceMesh keeps each dim as a (shape):(stride) layout over the root
 * mesh's rank map and derives every flattened or sliced dim's process groups from it
 * (torch/distributed/_mesh_layout.py over its own _pycute, which linearises
 * lexicographically, unlike CuTe).  torch 2.13, reimplemented here:
 *  - normal form (_FlatLayout.__init__ = _pycute coalesce): modes right to left, size-1
 *    modes dropped, a mode merged into the one on its right when its stride is that one's
 *    size times stride; the one-mode (1):(0) written as () (a 0-d layout);
 *  - all_ranks_from_zero: sum of coordinate x stride, the last mode fastest;
 *  - check_orthogonal: with two or more modes, the strides sorted descending (ties by size)
 *    each divisible by the next one's size x stride; a stride-0 mode divides by zero
 *    (Python's ZeroDivisionError: reproduced, shardcheck audit-style, as torch's error);
 *  - complement(world): modes sorted by (stride, size), size-1 and stride-0 ones skipped,
 *    each adding (stride / covered):(covered) with covered = the previous size x stride
 *    (AssertionError when covered exceeds it), then ceil(world / covered):(covered), all
 *    reversed and put in normal form, zero-size modes included (torch gives (4,0):(2,2)
 *    for the overlapping (2,2):(1,1) in 8);
 *  - global_ranks(world): every complement rank plus every rank of the layout.
 * torch's integers are unbounded; a product past int64 is refused here (SHC_EOVERFLOW).
 * Tested by check_layout.c (mesh_layout) and, against torch's own _FlatLayout on hundreds
 * of layouts, by tools/harness/tests/test_mesh_layout.py.
 */
#include "config.h"
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shardcheck.h"
#include "checked_math.h"

/* _pycute coalesce on n modes, lexicographic (the last mode innermost). */
static int coalesce(const int64_t *shape, const int64_t *stride, int n, shc_flat_layout *out,
                    shc_err *e)
{
    int64_t rs[SHC_MAX_LAYOUT_MODES], rd[SHC_MAX_LAYOUT_MODES], span;
    int m = 1;
    rs[0] = 1;
    rd[0] = 0;
    for (int i = n - 1; i >= 0; i--) {
        if (shape[i] == 1)
            continue;
        if (rs[m - 1] == 1) {
            rs[m - 1] = shape[i];
            rd[m - 1] = stride[i];
        } else if (!shc_mul64(rs[m - 1], rd[m - 1], &span)) {
            return shc_fail(e, SHC_EOVERFLOW, "mesh layout: size x stride overflows int64");
        } else if (span == stride[i]) {
            if (!shc_mul64(rs[m - 1], shape[i], &rs[m - 1]))
                return shc_fail(e, SHC_EOVERFLOW, "mesh layout: a merged size overflows int64");
        } else {
            rs[m] = shape[i];
            rd[m++] = stride[i];
        }
    }
    memset(out, 0, sizeof *out);
    if (m == 1 && rs[0] == 1 && rd[0] == 0) /* _FlatLayout writes (1):(0) as () */
        return SHC_OK;
    out->n = m;
    for (int i = 0; i < m; i++) { /* built right to left */
        out->shape[i] = rs[m - 1 - i];
        out->stride[i] = rd[m - 1 - i];
    }
    return SHC_OK;
}

int shc_flat_layout_make(const int64_t *shape, const int64_t *stride, int n,
                         shc_flat_layout *out, shc_err *e)
{
    if (n < 0 || n > SHC_MAX_LAYOUT_MODES)
        return shc_fail(e, SHC_EINVAL, "mesh layout: %d modes, at most %d", n, SHC_MAX_LAYOUT_MODES);
    for (int i = 0; i < n; i++)
        if (shape[i] < 0 || stride[i] < 0)
            return shc_fail(e, SHC_EINVAL, "mesh layout: mode %d is %lld:%lld, sizes and strides "
                            "are >= 0 in a DeviceMesh", i, (long long)shape[i], (long long)stride[i]);
    return coalesce(shape, stride, n, out, e);
}

int shc_flat_layout_numel(const shc_flat_layout *l, int64_t *out, shc_err *e)
{
    *out = 1;
    for (int i = 0; i < l->n; i++)
        if (!shc_mul64(*out, l->shape[i], out))
            return shc_fail(e, SHC_EOVERFLOW, "mesh layout: numel overflows int64");
    return SHC_OK;
}

/* _pycute cosize: the layout at its last coordinate, plus one (an empty layout: 0). */
int shc_flat_layout_cosize(const shc_flat_layout *l, int64_t *out, shc_err *e)
{
    int64_t last = 0, t;
    for (int i = 0; i < l->n; i++) {
        if (l->shape[i] == 0) { /* size() - 1 = -1: torch's crd2idx of -1, not modelled */
            return shc_fail(e, SHC_EUNSUPPORTED, "mesh layout: cosize of a zero-size layout");
        }
        if (!shc_mul64(l->shape[i] - 1, l->stride[i], &t) || !shc_add64(last, t, &last))
            return shc_fail(e, SHC_EOVERFLOW, "mesh layout: cosize overflows int64");
    }
    *out = last + 1;
    return SHC_OK;
}

bool shc_flat_layout_sorted(const shc_flat_layout *l)
{
    for (int i = 1; i < l->n; i++)
        if (l->stride[i] > l->stride[i - 1])
            return false;
    return true;
}

/* (stride, size) pairs in descending order, as Python sorts tuples (reverse=True). */
static int cmp_desc(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? 1 : -1;
    return x[1] < y[1] ? 1 : x[1] > y[1] ? -1 : 0;
}

int shc_flat_layout_orthogonal(const shc_flat_layout *l, bool *out, shc_err *e)
{
    *out = true;
    if (l->n < 2)
        return SHC_OK;
    int64_t p[SHC_MAX_LAYOUT_MODES][2], span;
    for (int i = 0; i < l->n; i++) {
        p[i][0] = l->stride[i];
        p[i][1] = l->shape[i];
    }
    qsort(p, (size_t)l->n, sizeof p[0], cmp_desc);
    for (int i = 0; i + 1 < l->n; i++) {
        if (!shc_mul64(p[i + 1][0], p[i + 1][1], &span))
            return shc_fail(e, SHC_EOVERFLOW, "mesh layout: size x stride overflows int64");
        if (span == 0) /* Python evaluates all() in order and raises at the first zero */
            return shc_fail(e, SHC_EINVAL, "ZeroDivisionError: integer modulo by zero");
        if (p[i][0] % span) {
            *out = false;
            return SHC_OK;
        }
    }
    return SHC_OK;
}

/* (stride, size) ascending, as Python's sorted(zip(stride, shape)). */
static int cmp_asc(const void *a, const void *b)
{
    return -cmp_desc(a, b);
}

int shc_flat_layout_complement(const shc_flat_layout *l, int64_t world, shc_flat_layout *out,
                               shc_err *e)
{
    if (world < 1)
        return shc_fail(e, SHC_EINVAL, "mesh layout: world %lld, expected >= 1", (long long)world);
    int64_t p[SHC_MAX_LAYOUT_MODES][2], rs[SHC_MAX_LAYOUT_MODES + 1], rd[SHC_MAX_LAYOUT_MODES + 1];
    int m = 0;
    for (int i = 0; i < l->n; i++) {
        p[i][0] = l->stride[i];
        p[i][1] = l->shape[i];
    }
    qsort(p, (size_t)l->n, sizeof p[0], cmp_asc);
    int64_t cur = 1, span;
    for (int i = 0; i < l->n; i++) {
        if (p[i][0] == 0 || p[i][1] == 1)
            continue;
        if (!shc_mul64(p[i][1], p[i][0], &span))
            return shc_fail(e, SHC_EOVERFLOW, "mesh layout: size x stride overflows int64");
        if (cur > span) /* _pycute complement's in_bound assertion */
            return shc_fail(e, SHC_EINVAL, "AssertionError: (complement: the modes overlap: %lld "
                            "ranks covered before a mode spanning %lld)", (long long)cur,
                            (long long)span);
        rs[m] = p[i][0] / cur;
        rd[m++] = cur;
        cur = span;
    }
    rs[m] = shc_ceildiv64(world, cur);
    rd[m++] = cur;
    int64_t s[SHC_MAX_LAYOUT_MODES + 1], d[SHC_MAX_LAYOUT_MODES + 1];
    for (int i = 0; i < m; i++) { /* reversed: the largest stride first */
        s[i] = rs[m - 1 - i];
        d[i] = rd[m - 1 - i];
    }
    return coalesce(s, d, m, out, e);
}

int shc_flat_layout_ranks(const shc_flat_layout *l, int64_t **ranks, int64_t *n, shc_err *e)
{
    *ranks = NULL;
    int rc = shc_flat_layout_numel(l, n, e);
    if (rc)
        return rc;
    if (*n > SHC_MAX_WORLD)
        return shc_fail(e, SHC_EINVAL, "mesh layout: %lld ranks, more than %d", (long long)*n,
                        SHC_MAX_WORLD);
    int64_t *r = malloc((size_t)(*n ? *n : 1) * sizeof *r), coord[SHC_MAX_LAYOUT_MODES] = {0};
    if (!r)
        return shc_fail(e, SHC_ENOMEM, "mesh layout: out of memory for %lld ranks", (long long)*n);
    for (int64_t k = 0; k < *n; k++) { /* an odometer, the last mode fastest */
        int64_t v = 0, t;
        for (int i = 0; i < l->n; i++)
            if (!shc_mul64(coord[i], l->stride[i], &t) || !shc_add64(v, t, &v)) {
                free(r);
                return shc_fail(e, SHC_EOVERFLOW, "mesh layout: a rank overflows int64");
            }
        r[k] = v;
        for (int i = l->n - 1; i >= 0 && ++coord[i] == l->shape[i]; i--)
            coord[i] = 0;
    }
    *ranks = r;
    return SHC_OK;
}

/* torch's names for a root mesh's dims as the CLI and the harness give them ("d0", "d1", ..),
 * written as Python prints a tuple or list of them. */
static void dim_names(char *buf, size_t n, const int *dims, int count, bool tuple)
{
    size_t k = (size_t)snprintf(buf, n, "%c", tuple ? '(' : '[');
    for (int i = 0; i < count && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s'd%d'", i ? ", " : "", dims[i]);
    if (k < n)
        snprintf(buf + k, n - k, "%s%c", tuple && count == 1 ? "," : "", tuple ? ')' : ']');
}

int shc_mesh_slice_layout(const int64_t *mesh_shape, int ndim, const int *dims, int n,
                          shc_flat_layout *out, shc_err *e)
{
    if (ndim < 1 || ndim > SHC_MAX_LAYOUT_MODES || n < 0)
        return shc_fail(e, SHC_EINVAL, "slicing a %d-d mesh (1 to %d dims) by %d dims", ndim,
                        SHC_MAX_LAYOUT_MODES, n);
    /* each name at most 'd-2147483648', (16 bytes) */
    char names[SHC_MAX_LAYOUT_MODES * 16 + 8], valid[SHC_MAX_LAYOUT_MODES * 16 + 8];
    int every[SHC_MAX_LAYOUT_MODES];
    for (int d = 0; d < ndim; d++)
        every[d] = d;
    dim_names(names, sizeof names, dims, n < SHC_MAX_LAYOUT_MODES ? n : SHC_MAX_LAYOUT_MODES,
              true);
    dim_names(valid, sizeof valid, every, ndim, false);
    if (n > SHC_MAX_LAYOUT_MODES)
        return shc_fail(e, SHC_EINVAL, "slicing %d mesh dims: at most %d", n,
                        SHC_MAX_LAYOUT_MODES);
    for (int i = 0; i < n; i++) /* every name is looked up before any layout is built */
        if (dims[i] < 0 || dims[i] >= ndim)
            return shc_fail(e, SHC_EINVAL, "mesh dim %d does not exist (torch: KeyError: "
                            "Invalid mesh_dim_names %s specified. Valid mesh_dim_names are %s.)",
                            dims[i], names, valid);
    int64_t st[SHC_MAX_LAYOUT_MODES], sh[SHC_MAX_LAYOUT_MODES], stride = 1;
    int64_t root[SHC_MAX_LAYOUT_MODES]; /* each root dim's row-major stride */
    for (int d = ndim - 1; d >= 0; d--) {
        root[d] = stride;
        if (!shc_mul64(stride, mesh_shape[d], &stride))
            return shc_fail(e, SHC_EOVERFLOW, "mesh layout: the mesh's size overflows int64");
    }
    for (int i = 0; i < n; i++) {
        sh[i] = mesh_shape[dims[i]];
        st[i] = root[dims[i]];
    }
    int rc = shc_flat_layout_make(sh, st, n, out, e);
    if (rc)
        return rc;
    /* size-1 dims leave the normal form, so they may come in any order, or twice */
    if (!shc_flat_layout_sorted(out))
        return shc_fail(e, SHC_EINVAL, "torch slices mesh dims in ascending order only "
                        "(KeyError: Invalid mesh_dim_names %s specified. Mesh dim indices "
                        "should be in ascending order.)", names);
    bool orth;
    if ((rc = shc_flat_layout_orthogonal(out, &orth, e)))
        return rc;
    if (!orth)
        return shc_fail(e, SHC_EINVAL, "a mesh dim is taken twice (torch: RuntimeError: "
                        "Slicing overlapping dim_names %s is not allowed.)", names);
    return SHC_OK;
}
