/*
 * view_rule.c — torch 2.13's sharding propagation for view-like ops, reimplemented:
 * given a dim map (view_map.c), the global input shape, the mesh and the input placements,
 * which placements the input is redistributed to and which the output gets, or the exception
 * torch's rule raises.
 *
 * Reference (torch 2.13.0): torch/distributed/tensor/_ops/_view_ops.py,
 * propagate_shape_and_sharding and _ViewShardingPropagator.  Two phases, kept as torch runs
 * them because their side effects are the semantics:
 *  - analysis walks the output dims in order and fills, per input dim and mesh dim, whether
 *    the input may stay sharded.  A split of a flatten re-analyses the flatten for every
 *    piece, so a later piece overwrites what the first decided (this is what makes torch 2.13
 *    replicate pytorch#179502's `[12, 8] S(1) -> view(16, 6)`);
 *  - rewriting walks the mesh dims in order over the surviving placements, turning a shard of
 *    a non-first flattened dim into a _StridedShard and a _StridedShard whose split factor
 *    matches an unflatten's leading sizes back into a Shard.
 * Where torch's Python code would raise (RuntimeError, AssertionError, KeyError), the answer
 * is that exception, named; it is an answer, not an error of ours.
 * Other releases: 2.12 and 2.14/2.15 run this propagator with the differences of their
 * release rows (lib/core/torch_release.c: ViewStrictReplicates, FlattenSplitRaises,
 * SqueezeNotStrict); 2.11's one-pass rule is view_rule_legacy.c.
 *
 * Tested by conformance/tests/check_view.c and against torch's own function, query by query,
 * by tools/harness/tests/test_view_sharding.py.
 */
#include "config.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "shardcheck.h"
#include "view_internal.h"

#define NOWHERE (-1)

typedef struct prop {
    const shc_vmap *map;
    shc_torch_release rel;
    uint32_t *asked;
    bool strict;                                           /* the op's strict_view */
    const shc_shape *in;
    const shc_mesh *m;
    const shc_placements *src;
    bool allowed[SHC_MAX_TENSOR_DIMS][SHC_MAX_MESH_DIMS];
    bool fallback[SHC_MAX_TENSOR_DIMS][SHC_MAX_MESH_DIMS]; /* strict_replicate_fallback */
    bool matched[SHC_MAX_MESH_DIMS];                       /* matched_strided_mesh_dims */
    int nout[SHC_MAX_TENSOR_DIMS];                         /* input_to_output_tensor_dims */
    bool mapped[SHC_MAX_TENSOR_DIMS];
    int out[SHC_MAX_TENSOR_DIMS][SHC_MAX_TENSOR_DIMS];
    bool claimed[SHC_MAX_TENSOR_DIMS][SHC_MAX_TENSOR_DIMS]; /* (input dim, output dim) */
    int64_t local[SHC_MAX_TENSOR_DIMS];
    shc_vrule *r;
} prop;

/* Record torch's exception; returns false so callers can `return raise(...)`. */
static bool raise(prop *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->r->error, sizeof p->r->error, fmt, ap);
    va_end(ap);
    p->r->raises = true;
    return false;
}

static bool is_shard(const shc_placement *q)
{
    return q->kind == SHC_P_SHARD || q->kind == SHC_P_STRIDED;
}

/* _find_plain_shard: the first mesh dim with a plain Shard on dim. */
static int find_plain(const prop *p, int dim)
{
    for (int k = 0; k < p->src->n; k++)
        if (p->src->p[k].kind == SHC_P_SHARD && p->src->p[k].dim == dim)
            return k;
    return NOWHERE;
}

/* _expected_split_factor: prod(group[:split_id]) divided by earlier mesh dims sharding dim;
 * false (torch's None) where one does not divide. */
static bool expected_sf(const prop *p, const shc_vspec *s, int dim, int mesh_dim,
                        const shc_placements *pl, int64_t *sf)
{
    int64_t v = 1;
    for (int i = 0; i < s->split_id; i++)
        v *= s->group[i]; /* a prefix of the output shape: within the numel */
    for (int k = 0; k < mesh_dim; k++) {
        if (!is_shard(&pl->p[k]) || pl->p[k].dim != dim)
            continue;
        if (v % p->m->shape[k] != 0)
            return false;
        v /= p->m->shape[k];
    }
    *sf = v;
    return true;
}

/* _find_shard_for_split: a Shard on dim, or a _StridedShard whose split factor matches. */
static int find_for_split(const prop *p, int dim, const shc_vspec *s)
{
    for (int k = 0; k < p->src->n; k++) {
        const shc_placement *q = &p->src->p[k];
        if (!is_shard(q) || q->dim != dim || p->matched[k])
            continue;
        int64_t sf;
        if (q->kind == SHC_P_SHARD)
            return k;
        if (expected_sf(p, s, dim, k, p->src, &sf) && sf == q->split_factor)
            return k;
    }
    return NOWHERE;
}

/* _analyze_flatten over the spec's input dims: fills the sharded dims (or the first dim). */
static bool analyze_flatten(prop *p, const shc_vspec *s, int *dims, int *n)
{
    *n = 0;
    for (int i = 0; i < s->nin; i++) {
        int dim = s->in[i], k = find_plain(p, dim);
        if (k == NOWHERE)
            continue;
        int64_t size = p->in->d[dim], msize = p->m->shape[k];
        bool can = true;
        if (p->strict) {
            if (i != s->nin - 1 && size % msize != 0)
                return raise(p, "RuntimeError: Cannot flatten unevenly sharded tensor: "
                             "dimension %d (size %lld) is not evenly divisible by mesh "
                             "dimension %d (size %lld). Please redistribute the tensor before "
                             "this operation.", dim, (long long)size, k, (long long)msize);
            dims[(*n)++] = dim;
        } else if (i == 0) {
            dims[(*n)++] = dim;
            can = size % msize == 0;
        } else {
            can = false;
        }
        for (int j = 0; j < p->m->ndim; j++)
            p->allowed[dim][j] = can;
    }
    if (*n == 0)
        dims[(*n)++] = s->in[0];
    return true;
}

static bool analyze_split(prop *p, const shc_vspec *s, int *dims, int *n)
{
    if (s->nin > 1) {
        if (!analyze_flatten(p, s, dims, n))
            return false;
        /* a plain Shard on a non-first flattened dim is replicated, not raised on (2.12:
         * left for the rewrite, which raises) */
        for (int i = 1; i < s->nin; i++)
            for (int k = 0; k < p->src->n; k++)
                if (p->src->p[k].kind == SHC_P_SHARD && p->src->p[k].dim == s->in[i] &&
                    !shc_torch_ask(p->rel, SHC_TC_VIEW_FLATTEN_SPLIT_RAISES, p->asked)) {
                    p->allowed[s->in[i]][k] = false;
                    p->fallback[s->in[i]][k] = true;
                }
    } else {
        dims[0] = s->in[0];
        *n = 1;
    }
    int dim = dims[0];
    int64_t out_size = s->group[s->split_id];
    int sk = find_for_split(p, dim, s);
    if (s->split_id == 0) {
        for (int k = 0; k < p->m->ndim; k++)
            p->allowed[dim][k] = out_size % p->m->shape[k] == 0;
        int pk = find_plain(p, dim);
        if (p->strict && pk != NOWHERE && !p->allowed[dim][pk])
            return raise(p, "RuntimeError: Cannot unflatten unevenly sharded tensor: output "
                         "dimension %d (size %lld) is not evenly divisible by mesh dimension "
                         "%d (size %lld). Please redistribute the tensor before this "
                         "operation.", s->split_id, (long long)out_size, pk,
                         (long long)p->m->shape[pk]);
    }
    if (sk != NOWHERE && p->src->p[sk].kind == SHC_P_STRIDED) {
        bool last = s->split_id == s->ngroup - 1;
        bool even = out_size % p->m->shape[sk] == 0;
        if (p->strict && !last && !even)
            return raise(p, "RuntimeError: Cannot unflatten unevenly sharded tensor: output "
                         "dimension %d (size %lld) is not evenly divisible by mesh dimension "
                         "%d (size %lld). Please redistribute the tensor before this "
                         "operation.", s->split_id, (long long)out_size, sk,
                         (long long)p->m->shape[sk]);
        p->matched[sk] = true;
        p->allowed[dim][sk] = even || last;
    }
    *n = s->split_id == 0 ? 1 : 0;
    return true;
}

static void map_out(prop *p, int in_dim, int out_dim)
{
    p->mapped[in_dim] = true;
    p->out[in_dim][p->nout[in_dim]++] = out_dim;
}

static bool analyze(prop *p)
{
    const shc_vmap *map = p->map;
    bool in_rule[SHC_MAX_TENSOR_DIMS] = {0};
    for (int o = 0; o < map->n; o++)
        for (int i = 0; i < map->d[o].nin; i++)
            in_rule[map->d[o].in[i]] = true;
    for (int d = 0; d < p->in->ndim; d++)
        for (int k = 0; k < p->m->ndim; k++)
            p->allowed[d][k] = in_rule[d];
    for (int o = 0; o < map->n; o++) {
        const shc_vspec *s = &map->d[o];
        int dims[SHC_MAX_TENSOR_DIMS], n = 0;
        if (s->kind == SHC_VS_INPUT) {
            dims[n++] = s->in[0];
        } else if (s->kind == SHC_VS_FLATTEN) {
            if (!analyze_flatten(p, s, dims, &n))
                return false;
            for (int i = 0; i < n; i++) {
                if (p->mapped[dims[i]])
                    return raise(p, "AssertionError: Input dim %d already mapped to output "
                                 "dims", dims[i]);
                p->nout[dims[i]] = 0;
                map_out(p, dims[i], o);
            }
            continue;
        } else if (s->kind == SHC_VS_SPLIT) {
            if (!analyze_split(p, s, dims, &n))
                return false;
            if (n == 0) { /* a later piece: chase the root input dim */
                if (p->mapped[s->in[0]])
                    map_out(p, s->in[0], o);
                continue;
            }
        }
        if (n > 0)
            map_out(p, dims[0], o);
    }
    shc_vrule *r = p->r;
    r->tgt = *p->src;
    for (int k = 0; k < p->src->n; k++) {
        const shc_placement *q = &p->src->p[k];
        if (!is_shard(q) || p->allowed[q->dim][k])
            continue;
        if (p->strict && !p->fallback[q->dim][k] &&
            !shc_torch_ask(p->rel, SHC_TC_VIEW_STRICT_REPLICATES, p->asked))
            return raise(p, "RuntimeError: This operation would remove or reshape sharded "
                         "dimension %d, which requires redistribution. Please redistribute "
                         "the input first.", q->dim);
        r->tgt.p[k] = (shc_placement){.kind = SHC_P_REPLICATE};
    }
    return true;
}

/* The unclaimed output dims of input dim d; false (torch's KeyError) where d maps nowhere. */
static bool targets(prop *p, int d, int *t, int *nt)
{
    if (!p->mapped[d])
        return raise(p, "KeyError: %d", d);
    *nt = 0;
    for (int i = 0; i < p->nout[d]; i++)
        if (!p->claimed[d][p->out[d][i]])
            t[(*nt)++] = p->out[d][i];
    return true;
}

/* _is_last_shard_in_flatten_range over the target placements. */
static bool last_in_range(const prop *p, int k, int start, int end)
{
    int dim = p->r->tgt.p[k].dim;
    for (int j = k + 1; j < p->r->tgt.n; j++) {
        const shc_placement *q = &p->r->tgt.p[j];
        if (is_shard(q) && q->dim >= start && q->dim < end && q->dim >= dim)
            return false;
    }
    return true;
}

static bool rewrite_plain(prop *p, int k, shc_placement *res)
{
    int dim = p->r->tgt.p[k].dim, t[SHC_MAX_TENSOR_DIMS], nt, o = NOWHERE;
    int64_t msize = p->m->shape[k];
    if (!targets(p, dim, t, &nt))
        return false;
    if (nt == 0)
        return raise(p, "AssertionError: No output dim available for Shard(dim=%d) on mesh "
                     "dim %d. All output dims already claimed by earlier mesh dims.", dim, k);
    for (int i = 0; i < nt && nt > 1; i++)
        if (p->map->d[t[i]].kind == SHC_VS_SPLIT && p->map->d[t[i]].split_id == 0) {
            o = t[i];
            break;
        }
    if (nt == 1)
        o = t[0];
    if (o == NOWHERE)
        return raise(p, "AssertionError: No Split(split_id=0) found among unclaimed output "
                     "dims for Shard(dim=%d) on mesh dim %d.", dim, k);
    const shc_vspec *s = &p->map->d[o];
    if (s->kind == SHC_VS_SPLIT && s->nin > 1 && dim != s->in[0]) {
        if (!shc_torch_ask(p->rel, SHC_TC_VIEW_FLATTEN_SPLIT_RAISES, p->asked))
            return raise(p, "AssertionError: Shard(dim=%d) should have been demoted before "
                         "Split(Flatten(...)) rewrite.", dim);
        char g[256];
        shc_vgroup_format(s, g, sizeof g);
        return raise(p, "RuntimeError: Shard(dim=%d) through Split(Flatten(...), %s) is not "
                     "supported yet for non-first flatten dims.", dim, g);
    }
    *res = (shc_placement){.kind = SHC_P_SHARD, .dim = o};
    if (s->kind == SHC_VS_FLATTEN) {
        int start = s->in[0], end = s->in[s->nin - 1] + 1;
        if (dim != start) {
            int64_t sf = 1;
            for (int i = start; i < dim; i++)
                sf *= p->local[i]; /* local sizes of earlier dims: within the numel */
            *res = (shc_placement){.kind = SHC_P_STRIDED, .dim = o, .split_factor = sf};
        }
        if (p->local[dim] % msize != 0 && !last_in_range(p, k, start, end))
            return raise(p, "RuntimeError: Cannot shard unevenly distributed tensor: "
                         "dimension %d (size %lld) is not evenly divisible by mesh dimension "
                         "%d (size %lld). Please redistribute the tensor before this "
                         "operation.", dim, (long long)p->local[dim], k, (long long)msize);
    } else if (s->kind != SHC_VS_SPLIT && s->kind != SHC_VS_INPUT) {
        return raise(p, "AssertionError: Expected Flatten");
    }
    p->local[dim] /= msize;
    return true;
}

/* _find_keep_ss_dim: an output dim whose split holds mesh size * split factor pieces. */
static int keep_ss_dim(const prop *p, const int *t, int nt, const shc_placement *q, int k)
{
    int64_t total, isz = p->in->d[q->dim];
    if (__builtin_mul_overflow(p->m->shape[k], q->split_factor, &total) || isz % total != 0)
        return NOWHERE;
    int64_t shard = isz / total;
    for (int i = 0; i < nt; i++) {
        const shc_vspec *s = &p->map->d[t[i]];
        if (s->kind != SHC_VS_SPLIT)
            continue;
        int64_t inner = 1, trailing = 1, fss;
        for (int g = s->split_id + 1; g < s->ngroup; g++)
            inner *= s->group[g];
        bool found = false;
        for (int j = 0; j < s->nin && s->nin > 1; j++) {
            if (s->in[j] == q->dim)
                found = true;
            else if (found)
                trailing *= p->in->d[s->in[j]];
        }
        fss = shard * trailing; /* at most the numel */
        if (fss >= inner && fss % inner == 0)
            return t[i];
    }
    return NOWHERE;
}

static bool rewrite_strided(prop *p, int k, shc_placement *res)
{
    const shc_placement *q = &p->r->tgt.p[k];
    int t[SHC_MAX_TENSOR_DIMS], nt;
    if (!targets(p, q->dim, t, &nt))
        return false;
    for (int i = 0; i < nt; i++) {
        const shc_vspec *s = &p->map->d[t[i]];
        int64_t sf;
        if (s->kind != SHC_VS_SPLIT || !expected_sf(p, s, q->dim, k, &p->r->tgt, &sf) ||
            sf != q->split_factor)
            continue;
        p->claimed[q->dim][t[i]] = true;
        p->local[q->dim] /= p->m->shape[k];
        *res = (shc_placement){.kind = SHC_P_SHARD, .dim = t[i]};
        return true;
    }
    int o = keep_ss_dim(p, t, nt, q, k);
    if (o == NOWHERE) {
        bool any_split = false;
        for (int i = 0; i < nt; i++)
            any_split |= p->map->d[t[i]].kind == SHC_VS_SPLIT;
        if (p->strict && any_split)
            return raise(p, "RuntimeError: Cannot unflatten tensor with _StridedShard "
                         "placement: split_factor=%lld does not match any output dimension.",
                         (long long)q->split_factor);
        if (nt == 0)
            return raise(p, "AssertionError: No unclaimed output dims for "
                         "_StridedShard(dim=%d) on mesh dim %d.", q->dim, k);
        o = t[0];
    }
    p->local[q->dim] /= p->m->shape[k];
    *res = (shc_placement){.kind = SHC_P_STRIDED, .dim = o, .split_factor = q->split_factor};
    return true;
}

static bool rewrite(prop *p)
{
    shc_vrule *r = p->r;
    r->out = r->tgt;
    r->out.has_order = false;
    for (int d = 0; d < p->in->ndim; d++)
        p->local[d] = p->in->d[d];
    for (int k = 0; k < r->tgt.n; k++) {
        shc_pkind kind = r->tgt.p[k].kind;
        if (kind == SHC_P_SHARD && !rewrite_plain(p, k, &r->out.p[k]))
            return false;
        if (kind == SHC_P_STRIDED && !rewrite_strided(p, k, &r->out.p[k]))
            return false;
    }
    return true;
}

/* Whether release rel registers the map's op with strict_view. */
bool shc_vrule_strict(const shc_vmap *map, shc_torch_release rel, uint32_t *asked)
{
    if (map->op == SHC_VOP_SQUEEZE && shc_torch_ask(rel, SHC_TC_SQUEEZE_NOT_STRICT, asked))
        return false;
    return map->strict;
}

/* torch's Split.group_shape as Python prints the tuple: "(3, 2)", "(6,)". */
void shc_vgroup_format(const shc_vspec *s, char *buf, size_t n)
{
    size_t k = (size_t)snprintf(buf, n, "(");
    for (int i = 0; i < s->ngroup && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, i ? ", %lld" : "%lld", (long long)s->group[i]);
    if (k < n)
        snprintf(buf + k, n - k, s->ngroup == 1 ? ",)" : ")");
}

int shc_vrule_propagate(const shc_vmap *map, const shc_shape *in, const shc_mesh *m,
                        const shc_placements *src, shc_vrule *r, shc_err *e)
{
    return shc_vrule_propagate_in(map, in, m, src, SHC_TORCH_PINNED, NULL, r, e);
}

int shc_vrule_propagate_in(const shc_vmap *map, const shc_shape *in, const shc_mesh *m,
                           const shc_placements *src, shc_torch_release rel, uint32_t *asked,
                           shc_vrule *r, shc_err *e)
{
    if (src->n != m->ndim || src->has_order)
        return shc_fail(e, SHC_EINVAL, "view rule: %d placements for a %d-dim mesh%s", src->n,
                        m->ndim, src->has_order ? " with a shard order (not modelled)" : "");
    prop st, *p = &st;
    memset(p, 0, sizeof *p);
    memset(r, 0, sizeof *r);
    p->map = map;
    p->in = in;
    p->m = m;
    p->src = src;
    p->r = r;
    p->rel = rel;
    p->asked = asked;
    p->strict = shc_vrule_strict(map, rel, asked);
    if (shc_torch_ask(rel, SHC_TC_VIEW_LEGACY_RULE, asked)) {
        if (!shc_vrule_legacy(map, in, m, src, p->strict, r))
            return SHC_OK;
    } else if (!analyze(p) || !rewrite(p)) {
        return SHC_OK;
    }
    for (int k = 0; k < src->n; k++)
        r->redistribute |= !shc_placement_eq(&src->p[k], &r->tgt.p[k]);
    return SHC_OK;
}
