/*
 * view_check.c — the correct answer for a view-like op's sharding: run the op locally on each
 * rank's shard, as DTensor does, and compare every element's global index with the one the
 * output placements say the rank holds.
 *
 * How DTensor runs it (torch 2.13.0, torch/distributed/tensor/_sharding_prop.py): the input
 * is redistributed to the rule's target placements, then the local op runs on the local
 * tensor.  A view's shape argument is rewritten from the global output shape to the output
 * spec's local shape (_adjust_shape_and_stride_args, compute_local_shape_and_global_offset)
 * when an output placement shards; permute, transpose, unsqueeze and squeeze run unchanged
 * (squeeze on the globally singleton dims; in torch 2.11 on the rank's own size-1 dims, as the
 * rule says: shc_vrule.squeeze_local).  A shard's elements are the row-major product of
 * its dims' global index sets (shard_layout.c), so a local element's global index is index
 * arithmetic; the global op maps it to a global output index (a view keeps the row-major
 * flat index, a permute permutes the multi-index).
 *
 * Tested by conformance/tests/check_view.c and on real data by
 * tools/harness/tests/test_view_sharding.py.
 */
#include "config.h"
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "checked_math.h"
#include "shardcheck.h"

/* Elements compared per query, over all ranks: a query stays well under a second. */
#define SHC_VCHECK_MAX_ELEMS (1LL << 26)

static const char *const NAMES[] = {"correct", "wrong", "wrong-shape", "local-error",
                                    "rule-raises"};
_Static_assert(sizeof NAMES / sizeof NAMES[0] == SHC_VV_RAISES + 1, "one name per shc_vverdict");

const char *shc_vverdict_name(shc_vverdict v)
{
    assert((unsigned)v <= SHC_VV_RAISES); /* only this library makes verdicts */
    return NAMES[v];
}

static bool view_like(shc_vop_kind k)
{
    return k != SHC_VOP_PERMUTE && k != SHC_VOP_TRANSPOSE;
}

/* The global input dim each output dim is (permute and transpose maps are all INPUT). */
static void perm_of(const shc_vmap *map, int *perm)
{
    for (int i = 0; i < map->n; i++)
        perm[i] = map->d[i].in[0];
}

static int64_t held(const shc_layout *l, int d, int64_t i)
{
    return l->index[d] ? l->index[d][i] : l->offset[d] + i;
}

static int64_t flat(const int64_t *ix, const shc_shape *s)
{
    int64_t f = 0;
    for (int d = 0; d < s->ndim; d++)
        f = f * s->d[d] + ix[d];
    return f;
}

static void unflat(int64_t f, const shc_shape *s, int64_t *ix)
{
    for (int d = s->ndim - 1; d >= 0; d--) {
        ix[d] = s->d[d] ? f % s->d[d] : 0;
        f = s->d[d] ? f / s->d[d] : 0;
    }
}

static bool any_shard(const shc_placements *pl)
{
    for (int k = 0; k < pl->n; k++)
        if (pl->p[k].kind == SHC_P_SHARD || pl->p[k].kind == SHC_P_STRIDED)
            return true;
    return false;
}

static int64_t numel_of(const shc_shape *s)
{
    int64_t n = 1;
    for (int d = 0; d < s->ndim; d++)
        n *= s->d[d]; /* a local shape: at most its global shape's numel */
    return n;
}

static void fmt_shape(const shc_shape *s, char *buf, size_t size)
{
    size_t k = (size_t)snprintf(buf, size, "[");
    for (int d = 0; d < s->ndim && k < size; d++)
        k += (size_t)snprintf(buf + k, size - k, d ? ", %lld" : "%lld", (long long)s->d[d]);
    if (k < size)
        snprintf(buf + k, size - k, "]");
}

/* The local op's result shape on one rank; false with rk->error where it fails. */
static bool local_op(const shc_vop *op, const shc_vmap *map, const shc_vrule *r,
                     const shc_shape *out, shc_vrank *rk)
{
    const shc_shape *in = &rk->in_local;
    shc_shape *got = &rk->got_local;
    int perm[SHC_MAX_TENSOR_DIMS];
    switch (op->kind) {
    case SHC_VOP_PERMUTE:
    case SHC_VOP_TRANSPOSE:
        perm_of(map, perm);
        got->ndim = map->n;
        for (int i = 0; i < map->n; i++)
            got->d[i] = in->d[perm[i]];
        return true;
    case SHC_VOP_SQUEEZE:
        if (r->squeeze_local) { /* squeeze.default on the local tensor (torch 2.11) */
            got->ndim = 0;
            for (int i = 0; i < in->ndim; i++)
                if (in->d[i] != 1)
                    got->d[got->ndim++] = in->d[i];
            return true;
        }
        /* fall through */
    case SHC_VOP_UNSQUEEZE:
        /* Input dims the map keeps, singletons where it inserts one; a squeezed dim that is
         * not 1 locally stays (ATen's squeeze leaves it). */
        got->ndim = 0;
        for (int i = 0, o = 0; o < map->n || i < in->ndim;) {
            if (o < map->n && map->d[o].kind == SHC_VS_SINGLETON) {
                got->d[got->ndim++] = 1;
                o++;
            } else if (o < map->n && map->d[o].in[0] == i) {
                got->d[got->ndim++] = in->d[i++];
                o++;
            } else if (i < in->ndim) {
                if (in->d[i] != 1)
                    got->d[got->ndim++] = in->d[i];
                i++;
            } else {
                break;
            }
        }
        return true;
    default:
        break;
    }
    if (op->kind == SHC_VOP_FLATTEN && map->n == in->ndim && map->n == out->ndim) {
        bool same = true; /* flatten(d, d): ATen returns the input itself */
        for (int i = 0; i < map->n; i++)
            same &= map->d[i].kind == SHC_VS_INPUT && map->d[i].in[0] == i;
        if (same) {
            *got = *in;
            return true;
        }
    }
    *got = any_shard(&r->out) ? rk->want_local : *out;
    if (numel_of(got) != numel_of(in)) {
        char shp[256];
        fmt_shape(got, shp, sizeof shp);
        snprintf(rk->error, sizeof rk->error, "RuntimeError: shape '%s' is invalid for input "
                 "of size %lld", shp, (long long)numel_of(in));
        return false;
    }
    return true;
}

static bool same_shape(const shc_shape *a, const shc_shape *b)
{
    if (a->ndim != b->ndim)
        return false;
    for (int d = 0; d < a->ndim; d++)
        if (a->d[d] != b->d[d])
            return false;
    return true;
}

/* Compare every element of one rank's result; fills rk->first/got/want at the first wrong. */
static void compare(const shc_vop *op, const shc_vmap *map, const shc_shape *in,
                    const shc_shape *out, const shc_layout *li, const shc_layout *lo,
                    shc_vrank *rk)
{
    int perm[SHC_MAX_TENSOR_DIMS];
    perm_of(map, perm);
    int64_t n = numel_of(&rk->got_local);
    for (int64_t k = 0; k < n; k++) {
        int64_t j[SHC_MAX_TENSOR_DIMS], i[SHC_MAX_TENSOR_DIMS], gi[SHC_MAX_TENSOR_DIMS];
        int64_t go[SHC_MAX_TENSOR_DIMS], want[SHC_MAX_TENSOR_DIMS];
        unflat(k, &rk->got_local, j);
        if (view_like(op->kind)) {
            unflat(k, &rk->in_local, i);
        } else {
            for (int a = 0; a < map->n; a++)
                i[perm[a]] = j[a];
        }
        for (int d = 0; d < in->ndim; d++)
            gi[d] = held(li, d, i[d]);
        if (view_like(op->kind)) {
            unflat(flat(gi, in), out, go);
        } else {
            for (int a = 0; a < map->n; a++)
                go[a] = gi[perm[a]];
        }
        for (int d = 0; d < out->ndim; d++)
            want[d] = held(lo, d, j[d]);
        if (flat(go, out) == flat(want, out))
            continue;
        rk->status = SHC_VV_WRONG;
        rk->first = k;
        memcpy(rk->got, go, sizeof go);
        memcpy(rk->want, want, sizeof want);
        return;
    }
}

static int check_rank(const shc_vop *op, const shc_vmap *map, const shc_shape *in,
                      const shc_shape *out, const shc_mesh *m, const shc_vrule *r,
                      const int64_t *coord, shc_vrank *rk, shc_err *e)
{
    shc_layout li, lo;
    int rc = shc_layout_compute(m, &r->tgt, in, coord, &li, e);
    if (rc)
        return rc;
    if ((rc = shc_layout_compute(m, &r->out, out, coord, &lo, e))) {
        shc_layout_free(&li);
        return rc;
    }
    rk->in_local = li.local;
    rk->want_local = lo.local;
    if (!local_op(op, map, r, out, rk))
        rk->status = SHC_VV_LOCAL_ERROR;
    else if (!same_shape(&rk->got_local, &rk->want_local))
        rk->status = SHC_VV_SHAPE;
    else
        compare(op, map, in, out, &li, &lo, rk);
    shc_layout_free(&li);
    shc_layout_free(&lo);
    return SHC_OK;
}

int shc_vcheck_run(const shc_vop *op, const shc_vmap *map, const shc_shape *in,
                   const shc_shape *out, const shc_mesh *m, const shc_vrule *r, shc_vcheck *c,
                   shc_err *e)
{
    memset(c, 0, sizeof *c);
    c->first_rank = -1;
    if (r->raises) {
        c->verdict = SHC_VV_RAISES;
        return SHC_OK;
    }
    int64_t numel, total;
    int rc = shc_shape_numel(in, &numel, e);
    if (rc)
        return rc;
    if (!shc_mul64(numel, m->size, &total) || total > SHC_VCHECK_MAX_ELEMS)
        return shc_fail(e, SHC_EUNSUPPORTED, "view check: %lld elements on each of %lld ranks "
                        "exceed the check's limit of %lld compared elements", (long long)numel,
                        (long long)m->size, SHC_VCHECK_MAX_ELEMS);
    c->ranks = calloc((size_t)m->size, sizeof *c->ranks);
    if (!c->ranks)
        return shc_fail(e, SHC_ENOMEM, "view check: out of memory");
    c->nranks = m->size;
    for (int64_t pos = 0; pos < m->size && !rc; pos++) {
        int64_t coord[SHC_MAX_MESH_DIMS];
        int64_t rest = pos;
        for (int d = m->ndim - 1; d >= 0; d--) {
            coord[d] = rest % m->shape[d];
            rest /= m->shape[d];
        }
        shc_vrank *rk = &c->ranks[pos];
        rk->rank = m->ranks[pos];
        rc = check_rank(op, map, in, out, m, r, coord, rk, e);
        if (!rc && rk->status != SHC_VV_CORRECT && c->first_rank < 0) {
            c->first_rank = rk->rank;
            c->verdict = rk->status;
        }
    }
    if (rc)
        shc_vcheck_free(c);
    return rc;
}

void shc_vcheck_free(shc_vcheck *c)
{
    free(c->ranks);
    c->ranks = NULL;
    c->nranks = 0;
}
