/*
 * view_map.c — a view-like op on a global shape: its argument checks as ATen makes them on a
 * plain tensor, its output shape, and its dim map (what each output dim is made of).
 *
 * Reference (torch 2.13.0): torch/distributed/tensor/_ops/_view_ops.py view_groups,
 * Flatten.new, Split.new, dim_squeeze, dim_unsqueeze, dim_transpose and the permute entry of
 * dim_maps; ATen's infer_size (InferSize.h), maybe_wrap_dim, flatten, unflatten and permute
 * for the refusals.  A flatten and an unflatten reach DTensor as aten.view with the output
 * shape, so they are mapped through the view grouping (which gives the same map as
 * dim_flatten for a flatten).
 *
 * Tested by conformance/tests/check_view.c and, against torch's own maps through the rule's
 * answers, by tools/harness/tests/test_view_sharding.py.
 */
#include "config.h"
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "checked_math.h"
#include "parse.h"
#include "shardcheck.h"

static void fmt_list(const int64_t *v, int n, char *buf, size_t size)
{
    size_t k = 0;
    k += (size_t)snprintf(buf, size, "[");
    for (int i = 0; i < n && k < size; i++)
        k += (size_t)snprintf(buf + k, size - k, i ? ", %lld" : "%lld", (long long)v[i]);
    if (k < size)
        snprintf(buf + k, size - k, "]");
}

/* ATen's maybe_wrap_dim: a dim in [-n, n-1] (n = max(ndim, 1) for a scalar). */
static int wrap_dim(int64_t d, int ndim, int *out, shc_err *e)
{
    int64_t n = ndim > 0 ? ndim : 1;
    if (d < -n || d >= n)
        return shc_fail(e, SHC_EINVAL,
                        "IndexError: Dimension out of range (expected to be in range of "
                        "[%lld, %lld], but got %lld)", (long long)-n, (long long)n - 1,
                        (long long)d);
    *out = (int)(d < 0 ? d + n : d);
    return SHC_OK;
}

/* ATen's infer_size for view/reshape: at most one -1, no other negative, product = numel. */
static int infer_size(const int64_t *sizes, int n, int64_t numel, shc_shape *out, shc_err *e)
{
    assert(n >= 0 && n <= SHC_MAX_TENSOR_DIMS); /* every caller bounds its list */
    char shp[256];
    fmt_list(sizes, n, shp, sizeof shp);
    int infer = -1;
    int64_t prod = 1;
    for (int i = 0; i < n; i++) {
        if (sizes[i] == -1) {
            if (infer >= 0)
                return shc_fail(e, SHC_EINVAL, "RuntimeError: only one dimension can be "
                                "inferred");
            infer = i;
        } else if (sizes[i] < 0) {
            return shc_fail(e, SHC_EINVAL, "RuntimeError: invalid shape dimension %lld at "
                            "index %d of shape %s", (long long)sizes[i], i, shp);
        } else if (!shc_mul64(prod, sizes[i], &prod)) {
            return shc_fail(e, SHC_EOVERFLOW, "view shape %s: the product of its sizes "
                            "overflows int64", shp);
        }
    }
    bool ok = numel == prod || (infer >= 0 && prod > 0 && numel % prod == 0);
    if (!ok)
        return shc_fail(e, SHC_EINVAL, "RuntimeError: shape '%s' is invalid for input of "
                        "size %lld", shp, (long long)numel);
    out->ndim = n;
    for (int i = 0; i < n; i++)
        out->d[i] = i == infer ? numel / prod : sizes[i];
    return SHC_OK;
}

/* Split.new(Flatten.new(dims), group, idx) as one spec. */
static shc_vspec split_new(const int *dims, int ndims, const int64_t *group, int ngroup, int idx)
{
    shc_vspec s = {0};
    if (ndims == 0 || (ngroup > 1 && group[idx] == 1)) {
        s.kind = SHC_VS_SINGLETON;
        return s;
    }
    assert(ndims <= SHC_MAX_TENSOR_DIMS && idx >= 0 && idx < ngroup);
    s.nin = ndims;
    memcpy(s.in, dims, sizeof(int) * (size_t)ndims);
    if (ngroup == 1) {
        s.kind = ndims == 1 ? SHC_VS_INPUT : SHC_VS_FLATTEN;
        return s;
    }
    s.kind = SHC_VS_SPLIT;
    for (int i = 0; i < ngroup; i++) {
        if (group[i] == 1)
            continue;
        if (i == idx)
            s.split_id = s.ngroup;
        s.group[s.ngroup++] = group[i];
    }
    return s;
}

/* torch's view_groups on concrete sizes (no empty tensor: the caller refuses one). */
static void view_groups(const shc_shape *from, const shc_shape *to, shc_vmap *map)
{
    int fi = 0, ti = 0;
    map->n = 0;
    while (fi < from->ndim || ti < to->ndim) {
        int fg[SHC_MAX_TENSOR_DIMS], nfg = 0, ntg = 0;
        int64_t tg[SHC_MAX_TENSOR_DIMS], f = 1, t = 1;
        if (fi < from->ndim) {
            f = from->d[fi];
            fg[nfg++] = fi++;
        }
        if (ti < to->ndim) {
            t = to->d[ti];
            tg[ntg++] = to->d[ti++];
        }
        if (f == 1 && t != 1) {
            ti--;
            ntg = 0;
        } else if (f != 1 && t == 1) {
            fi--;
            nfg = 0;
        } else {
            /* Partial products never exceed the numel, which fits int64. */
            while (f != t) {
                if (fi < from->ndim && (ti >= to->ndim || t % f == 0 || t > f)) {
                    f *= from->d[fi];
                    fg[nfg++] = fi++;
                } else if (ti < to->ndim && (fi >= from->ndim || f % t == 0 || f > t)) {
                    t *= to->d[ti];
                    tg[ntg++] = to->d[ti++];
                } else {
                    break;
                }
            }
        }
        for (int i = 0; i < ntg; i++) {
            assert(map->n < SHC_MAX_TENSOR_DIMS); /* one spec per output dim */
            map->d[map->n++] = split_new(fg, nfg, tg, ntg, i);
        }
    }
}

static void identity_map(int ndim, shc_vmap *map)
{
    map->n = ndim;
    for (int i = 0; i < ndim; i++)
        map->d[i] = (shc_vspec){.kind = SHC_VS_INPUT, .nin = 1, .in = {i}};
}

static int apply_view(const int64_t *sizes, int n, const shc_shape *in, shc_shape *out,
                      shc_vmap *map, shc_err *e)
{
    int64_t numel;
    int rc = shc_shape_numel(in, &numel, e);
    if (rc)
        return rc;
    if ((rc = infer_size(sizes, n, numel, out, e)))
        return rc;
    if (numel == 0)
        return shc_fail(e, SHC_EUNSUPPORTED, "a view of an empty tensor is not modelled "
                        "(torch's view_groups divides by its zero sizes)");
    view_groups(in, out, map);
    return SHC_OK;
}

static int apply_flatten(const shc_vop *op, const shc_shape *in, shc_shape *out,
                         shc_vmap *map, shc_err *e)
{
    int s = 0, t = 0, rc;
    if ((rc = wrap_dim(op->dim0, in->ndim, &s, e)) || (rc = wrap_dim(op->dim1, in->ndim, &t, e)))
        return rc;
    if (s > t)
        return shc_fail(e, SHC_EINVAL, "RuntimeError: flatten() has invalid args: start_dim "
                        "cannot come after end_dim");
    if (in->ndim == 0) {
        int64_t one = 1;
        return apply_view(&one, 1, in, out, map, e);
    }
    if (s == t) { /* ATen returns the input itself: no op reaches DTensor */
        *out = *in;
        identity_map(in->ndim, map);
        return SHC_OK;
    }
    int64_t sizes[SHC_MAX_TENSOR_DIMS], p = 1;
    int n = 0;
    for (int i = 0; i < in->ndim; i++) {
        if (i < s || i > t) {
            sizes[n++] = in->d[i];
            continue;
        }
        if ((rc = shc_mul64_e(p, in->d[i], &p, "flatten: the flattened size", e)))
            return rc;
        if (i == t)
            sizes[n++] = p;
    }
    return apply_view(sizes, n, in, out, map, e);
}

static int apply_unflatten(const shc_vop *op, const shc_shape *in, shc_shape *out,
                           shc_vmap *map, shc_err *e)
{
    int d = 0, rc;
    if (op->nargs == 0)
        return shc_fail(e, SHC_EINVAL, "RuntimeError: unflatten: sizes must be non-empty");
    if ((rc = wrap_dim(op->dim0, in->ndim, &d, e)))
        return rc;
    if (in->ndim - 1 + op->nargs > SHC_MAX_TENSOR_DIMS)
        return shc_fail(e, SHC_EINVAL, "unflatten: the output has more than %d dims",
                        SHC_MAX_TENSOR_DIMS);
    shc_shape piece;
    shc_err pe = {0};
    int nminus = 0;
    for (int i = 0; i < op->nargs; i++)
        nminus += op->args[i] == -1;
    if (nminus > 1)
        return shc_fail(e, SHC_EINVAL, "RuntimeError: unflatten got an unexpected error: "
                        "only one dimension can be inferred");
    if ((rc = infer_size(op->args, op->nargs, in->d[d], &piece, &pe))) {
        if (rc == SHC_EOVERFLOW) {
            *e = pe;
            return rc;
        }
        char shp[256];
        fmt_list(op->args, op->nargs, shp, sizeof shp);
        return shc_fail(e, SHC_EINVAL, "RuntimeError: unflatten: Provided sizes %s don't "
                        "multiply up to the size of dim %d (%lld) in the input tensor", shp, d,
                        (long long)in->d[d]);
    }
    int64_t sizes[SHC_MAX_TENSOR_DIMS];
    int n = 0;
    for (int i = 0; i < in->ndim; i++) {
        if (i != d) {
            sizes[n++] = in->d[i];
            continue;
        }
        for (int k = 0; k < piece.ndim; k++) {
            assert(n < SHC_MAX_TENSOR_DIMS); /* the output's rank was checked above */
            sizes[n++] = piece.d[k];
        }
    }
    return apply_view(sizes, n, in, out, map, e);
}

static int apply_squeeze(const shc_vop *op, const shc_shape *in, shc_shape *out, shc_vmap *map,
                         shc_err *e)
{
    bool target[SHC_MAX_TENSOR_DIMS] = {0};
    for (int i = 0; i < op->nargs; i++) {
        int d = 0, rc;
        if ((rc = wrap_dim(op->args[i], in->ndim, &d, e)))
            return rc;
        if (in->ndim == 0)
            continue;
        if (target[d])
            return shc_fail(e, SHC_EINVAL, "RuntimeError: dim %d appears multiple times in "
                            "the list of dims", d);
        target[d] = true;
    }
    out->ndim = map->n = 0;
    for (int i = 0; i < in->ndim; i++) {
        if (in->d[i] == 1 && (op->all_dims || target[i]))
            continue; /* globally singleton: sharding_prop squeezes it, dim_squeeze drops it */
        out->d[out->ndim++] = in->d[i];
        map->d[map->n++] = (shc_vspec){.kind = SHC_VS_INPUT, .nin = 1, .in = {i}};
    }
    return SHC_OK;
}

static int apply_permute(const shc_vop *op, const shc_shape *in, shc_shape *out, shc_vmap *map,
                         shc_err *e)
{
    if (op->nargs != in->ndim)
        return shc_fail(e, SHC_EINVAL, "RuntimeError: permute(sparse_coo): number of "
                        "dimensions in the tensor input does not match the length of the "
                        "desired ordering of dimensions i.e. input.dim() = %d is not equal to "
                        "len(dims) = %d", in->ndim, op->nargs);
    bool seen[SHC_MAX_TENSOR_DIMS] = {0};
    int perm[SHC_MAX_TENSOR_DIMS];
    for (int i = 0; i < op->nargs; i++) {
        int rc = wrap_dim(op->args[i], in->ndim, &perm[i], e);
        if (rc)
            return rc;
        if (seen[perm[i]])
            return shc_fail(e, SHC_EINVAL, "RuntimeError: permute(): duplicate dims are not "
                            "allowed.");
        seen[perm[i]] = true;
    }
    out->ndim = map->n = in->ndim;
    for (int i = 0; i < in->ndim; i++) {
        out->d[i] = in->d[perm[i]];
        map->d[i] = (shc_vspec){.kind = SHC_VS_INPUT, .nin = 1, .in = {perm[i]}};
    }
    return SHC_OK;
}

static int apply_unsqueeze(const shc_vop *op, const shc_shape *in, shc_shape *out,
                           shc_vmap *map, shc_err *e)
{
    int d = 0, rc;
    if (in->ndim >= SHC_MAX_TENSOR_DIMS)
        return shc_fail(e, SHC_EINVAL, "unsqueeze: the output has more than %d dims",
                        SHC_MAX_TENSOR_DIMS);
    shc_shape wider = {.ndim = in->ndim + 1};
    if ((rc = wrap_dim(op->dim0, wider.ndim, &d, e)))
        return rc;
    identity_map(in->ndim, map);
    out->ndim = map->n = in->ndim + 1;
    for (int i = in->ndim; i > d; i--) {
        map->d[i] = map->d[i - 1];
        out->d[i] = in->d[i - 1];
    }
    for (int i = 0; i < d; i++)
        out->d[i] = in->d[i];
    out->d[d] = 1;
    map->d[d] = (shc_vspec){.kind = SHC_VS_SINGLETON};
    return SHC_OK;
}

int shc_vop_apply(const shc_vop *op, const shc_shape *in, shc_shape *out, shc_vmap *map,
                  shc_err *e)
{
    memset(map, 0, sizeof *map);
    map->strict = op->kind == SHC_VOP_VIEW || op->kind == SHC_VOP_FLATTEN ||
                  op->kind == SHC_VOP_UNFLATTEN || op->kind == SHC_VOP_SQUEEZE;
    map->op = op->kind;
    map->dims_list = op->kind == SHC_VOP_SQUEEZE && !op->all_dims;
    switch (op->kind) {
    case SHC_VOP_VIEW:
    case SHC_VOP_RESHAPE:
        return apply_view(op->args, op->nargs, in, out, map, e);
    case SHC_VOP_FLATTEN:
        return apply_flatten(op, in, out, map, e);
    case SHC_VOP_UNFLATTEN:
        return apply_unflatten(op, in, out, map, e);
    case SHC_VOP_SQUEEZE:
        return apply_squeeze(op, in, out, map, e);
    case SHC_VOP_UNSQUEEZE:
        return apply_unsqueeze(op, in, out, map, e);
    case SHC_VOP_PERMUTE:
        return apply_permute(op, in, out, map, e);
    case SHC_VOP_TRANSPOSE: {
        shc_vop p = {.kind = SHC_VOP_PERMUTE, .nargs = in->ndim};
        int a = 0, b = 0, rc;
        if ((rc = wrap_dim(op->dim0, in->ndim, &a, e)) ||
            (rc = wrap_dim(op->dim1, in->ndim, &b, e)))
            return rc;
        for (int i = 0; i < in->ndim; i++)
            p.args[i] = i == a ? b : i == b ? a : i;
        if (in->ndim == 0) { /* a scalar's transpose(0, 0) is itself */
            *out = *in;
            map->n = 0;
            return SHC_OK;
        }
        return apply_permute(&p, in, out, map, e);
    }
    }
    return shc_fail(e, SHC_EINTERNAL, "view op kind %d unknown", (int)op->kind);
}

static const struct {
    shc_vop_kind kind;
    const char *name;
} VOPS[] = {
    {SHC_VOP_VIEW, "view"}, {SHC_VOP_RESHAPE, "reshape"}, {SHC_VOP_FLATTEN, "flatten"},
    {SHC_VOP_UNFLATTEN, "unflatten"}, {SHC_VOP_SQUEEZE, "squeeze"},
    {SHC_VOP_UNSQUEEZE, "unsqueeze"}, {SHC_VOP_PERMUTE, "permute"},
    {SHC_VOP_TRANSPOSE, "transpose"},
};
_Static_assert(sizeof VOPS / sizeof VOPS[0] == SHC_VOP_TRANSPOSE + 1, "one row per shc_vop_kind");

/* The op's name: VOPS is indexed by kind, so its rows are in enum order. */
static const char *vop_name(shc_vop_kind k)
{
    assert((unsigned)k < sizeof VOPS / sizeof VOPS[0] && VOPS[k].kind == k);
    return VOPS[k].name;
}

static int parse_list(const char *s, int64_t *v, int *n, const char *what, shc_err *e)
{
    int64_t *list = NULL, len = 0;
    int rc = shc_parse_i64_list(s, ',', &list, &len, what, e);
    if (!rc && len > SHC_MAX_TENSOR_DIMS)
        rc = shc_fail(e, SHC_EINVAL, "%s: %lld values, at most %d", what, (long long)len,
                      SHC_MAX_TENSOR_DIMS);
    if (!rc) {
        memcpy(v, list, sizeof(int64_t) * (size_t)len);
        *n = (int)len;
    }
    free(list);
    return rc;
}

/* The arguments after "name:"; args is NULL where none were given. */
static int parse_args(shc_vop *op, const char *args, shc_err *e)
{
    int64_t v[SHC_MAX_TENSOR_DIMS];
    int n = 0, rc;
    const char *colon = args ? strchr(args, ':') : NULL;
    switch (op->kind) {
    case SHC_VOP_FLATTEN:
        op->dim0 = 0;
        op->dim1 = -1;
        if (!args)
            return SHC_OK;
        if ((rc = parse_list(args, v, &n, "flatten dims", e)))
            return rc;
        if (n < 1 || n > 2)
            return shc_fail(e, SHC_EINVAL, "flatten takes start_dim[,end_dim], got %d values",
                            n);
        op->dim0 = v[0];
        op->dim1 = n == 2 ? v[1] : -1;
        return SHC_OK;
    case SHC_VOP_UNFLATTEN:
        if (!args || !colon)
            return shc_fail(e, SHC_EINVAL, "unflatten takes DIM:SIZES (\"unflatten:1:2,4\")");
        if ((rc = shc_parse_i64(&args, &op->dim0, "unflatten dim", e)))
            return rc;
        if (args != colon)
            return shc_fail(e, SHC_EINVAL, "unflatten dim: expected ':' after the dim");
        return parse_list(colon + 1, op->args, &op->nargs, "unflatten sizes", e);
    case SHC_VOP_SQUEEZE:
        op->all_dims = !args;
        return args ? parse_list(args, op->args, &op->nargs, "squeeze dims", e) : SHC_OK;
    default:
        break;
    }
    if (!args)
        return shc_fail(e, SHC_EINVAL, "%s needs arguments after ':'", vop_name(op->kind));
    if ((rc = parse_list(args, op->args, &op->nargs, "op arguments", e)))
        return rc;
    int want = op->kind == SHC_VOP_UNSQUEEZE ? 1 : op->kind == SHC_VOP_TRANSPOSE ? 2 : -1;
    if (want > 0 && op->nargs != want)
        return shc_fail(e, SHC_EINVAL, "%s takes %d value(s), got %d", vop_name(op->kind),
                        want, op->nargs);
    op->dim0 = op->args[0];
    op->dim1 = op->nargs > 1 ? op->args[1] : 0;
    return SHC_OK;
}

int shc_vop_parse(shc_vop *op, const char *s, shc_err *e)
{
    memset(op, 0, sizeof *op);
    const char *colon = strchr(s, ':');
    size_t len = colon ? (size_t)(colon - s) : strlen(s);
    for (size_t i = 0; i < sizeof VOPS / sizeof VOPS[0]; i++) {
        if (strlen(VOPS[i].name) != len || strncmp(VOPS[i].name, s, len))
            continue;
        op->kind = VOPS[i].kind;
        return parse_args(op, colon ? colon + 1 : NULL, e);
    }
    return shc_fail(e, SHC_EINVAL, "unknown op \"%.*s\" (view, reshape, flatten, unflatten, "
                    "squeeze, unsqueeze, permute, transpose)", (int)len, s);
}

void shc_vop_format(const shc_vop *op, char *buf, size_t n)
{
    char list[256];
    fmt_list(op->args, op->nargs, list, sizeof list);
    const char *name = vop_name(op->kind);
    switch (op->kind) {
    case SHC_VOP_FLATTEN:
    case SHC_VOP_TRANSPOSE:
        snprintf(buf, n, "%s(%lld, %lld)", name, (long long)op->dim0, (long long)op->dim1);
        return;
    case SHC_VOP_UNFLATTEN:
        snprintf(buf, n, "%s(%lld, %s)", name, (long long)op->dim0, list);
        return;
    case SHC_VOP_UNSQUEEZE:
        snprintf(buf, n, "%s(%lld)", name, (long long)op->dim0);
        return;
    case SHC_VOP_SQUEEZE:
        /* a list even of one dim: aten.squeeze.dims, which torch 2.11 has no strategy for
         * (squeeze(1), aten.squeeze.dim, it has) */
        snprintf(buf, n, op->all_dims ? "squeeze()" : "squeeze(%s)", list);
        return;
    default:
        break;
    }
    list[strlen(list) - 1] = 0;
    snprintf(buf, n, "%s(%s)", name, list + 1);
}
