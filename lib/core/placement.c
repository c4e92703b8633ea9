/*
 * placement.c — placements as torch 2.13 prints and parses them.
 *
 * Accepted forms, per mesh dim: the str() forms S(d), R, P(op), _S(d, sf) and
 * the repr() forms Shard(dim=d), Replicate(), Partial(op), _StridedShard(dim=d,
 * sf=k).  A list is comma-separated (commas inside parentheses belong to the
 * item) or concatenated as DTensorSpec.format_shard_order_str prints it
 * (torch/distributed/tensor/_dtensor_spec.py, 2.13): "S(0)[1]S(0)[0]R", where
 * [i] is the mesh dim's position in its tensor dim's shard order and is only
 * printed when that tensor dim is sharded over more than one mesh dim.
 * Tested by check_core.c (round trips and every malformed form).
 */
#include "config.h"
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "shardcheck.h"
#include "parse.h"

static const char *const redop_names[SHC_OP_COUNT] = {
    "sum", "avg", "min", "max", "product", "band", "bor", "bxor"};

const char *shc_redop_name(shc_redop op)
{
    return (op >= 0 && op < SHC_OP_COUNT) ? redop_names[op] : "?";
}

bool shc_placement_eq(const shc_placement *a, const shc_placement *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case SHC_P_SHARD: return a->dim == b->dim;
    case SHC_P_STRIDED: return a->dim == b->dim && a->split_factor == b->split_factor;
    case SHC_P_PARTIAL: return a->op == b->op;
    default: return true;
    }
}

/* Match literal word w at *p; advance on success. */
static bool eat(const char **p, const char *w)
{
    size_t n = strlen(w);
    if (strncmp(*p, w, n) != 0)
        return false;
    *p += n;
    return true;
}

static void skip_ws(const char **p)
{
    while (**p == ' ')
        (*p)++;
}

static int parse_dim(const char **p, int *dim, const char *item, shc_err *e)
{
    int64_t v;
    eat(p, "dim=");
    int rc = shc_parse_i64(p, &v, item, e);
    if (rc)
        return rc;
    if (v < 0 || v >= SHC_MAX_TENSOR_DIMS)
        return shc_fail(e, SHC_EINVAL, "%s: shard dim %lld out of range 0..%d", item, (long long)v,
                        SHC_MAX_TENSOR_DIMS - 1);
    *dim = (int)v;
    return SHC_OK;
}

static int parse_op(const char **p, shc_redop *op, const char *item, shc_err *e)
{
    skip_ws(p);
    char quote = (**p == '\'' || **p == '"') ? **p : '\0';
    if (quote)
        (*p)++;
    for (int i = 0; i < SHC_OP_COUNT; i++) {
        size_t n = strlen(redop_names[i]);
        if (strncmp(*p, redop_names[i], n) == 0 && !isalpha((unsigned char)(*p)[n])) {
            *op = (shc_redop)i;
            *p += n;
            /* Step over the closing quote only when it is there: a blind step past an
             * unterminated quote ("P('sum") would read beyond the string's end. */
            if (quote && **p != quote)
                return shc_fail(e, SHC_EINVAL, "%s: missing closing %c after reduce op '%s'",
                                item, quote, redop_names[i]);
            if (quote)
                (*p)++;
            skip_ws(p);
            return SHC_OK;
        }
    }
    return shc_fail(e, SHC_EINVAL, "%s: unknown reduce op at '%.16s' (expected sum, avg, min, max, "
                    "product, band, bor or bxor)", item, *p);
}

static int expect(const char **p, char c, const char *item, shc_err *e)
{
    skip_ws(p);
    if (**p != c)
        return shc_fail(e, SHC_EINVAL, "%s: expected '%c' at '%.16s'", item, c, *p);
    (*p)++;
    return SHC_OK;
}

/* Parse one placement at *p. */
static int parse_one(const char **p, shc_placement *out, const char *item, shc_err *e)
{
    memset(out, 0, sizeof *out);
    int rc;
    if (eat(p, "_StridedShard(") || eat(p, "_S(")) {
        out->kind = SHC_P_STRIDED;
        if ((rc = parse_dim(p, &out->dim, item, e)) || (rc = expect(p, ',', item, e)))
            return rc;
        skip_ws(p);
        if (!eat(p, "sf="))
            eat(p, "split_factor=");
        if ((rc = shc_parse_i64(p, &out->split_factor, item, e)))
            return rc;
        if (out->split_factor < 1)
            return shc_fail(e, SHC_EINVAL, "%s: split factor %lld must be >= 1", item,
                            (long long)out->split_factor);
        return expect(p, ')', item, e);
    }
    if (eat(p, "Shard(") || eat(p, "S(")) {
        out->kind = SHC_P_SHARD;
        if ((rc = parse_dim(p, &out->dim, item, e)))
            return rc;
        return expect(p, ')', item, e);
    }
    if (eat(p, "Partial(") || eat(p, "P(")) {
        out->kind = SHC_P_PARTIAL;
        skip_ws(p);
        if (**p == ')') { /* Partial() defaults to sum */
            (*p)++;
            return SHC_OK;
        }
        eat(p, "reduce_op=");
        if ((rc = parse_op(p, &out->op, item, e)))
            return rc;
        return expect(p, ')', item, e);
    }
    if (eat(p, "Replicate()") || eat(p, "R")) {
        out->kind = SHC_P_REPLICATE;
        return SHC_OK;
    }
    if (eat(p, "P")) { /* bare P: Partial(sum), as torch's docstrings write it */
        out->kind = SHC_P_PARTIAL;
        return SHC_OK;
    }
    return shc_fail(e, SHC_EINVAL, "%s: unknown placement at '%.24s' (expected S(d), R, P(op) or "
                    "_S(d, sf))", item, *p);
}

/* Fill default order positions for tensor dims with no explicit [i]. */
static int finish_order(shc_placements *pl, const bool *given, shc_err *e)
{
    bool any = false;
    for (int i = 0; i < pl->n; i++)
        any |= given[i];
    pl->has_order = any;
    if (!any)
        return SHC_OK;
    for (int i = 0; i < pl->n; i++) {
        const shc_placement *a = &pl->p[i];
        if (a->kind != SHC_P_SHARD && a->kind != SHC_P_STRIDED) {
            if (given[i])
                return shc_fail(e, SHC_EINVAL, "placement %d: an order index is only valid on a shard",
                                i);
            continue;
        }
        int count = 0, before = 0, ngiven = 0;
        for (int j = 0; j < pl->n; j++) {
            const shc_placement *b = &pl->p[j];
            if ((b->kind == SHC_P_SHARD || b->kind == SHC_P_STRIDED) && b->dim == a->dim) {
                count++;
                before += (j < i);
                ngiven += given[j];
            }
        }
        if (ngiven != 0 && ngiven != count)
            return shc_fail(e, SHC_EINVAL, "placement %d: tensor dim %d has an order index on some "
                            "but not all of its %d mesh dims", i, a->dim, count);
        if (!given[i])
            pl->order[i] = before;
        else if (pl->order[i] < 0 || pl->order[i] >= count)
            return shc_fail(e, SHC_EINVAL, "placement %d: order index [%d] out of range 0..%d", i,
                            pl->order[i], count - 1);
        for (int j = 0; j < i; j++)
            if ((pl->p[j].kind == SHC_P_SHARD || pl->p[j].kind == SHC_P_STRIDED) &&
                pl->p[j].dim == a->dim && pl->order[j] == pl->order[i])
                return shc_fail(e, SHC_EINVAL, "placements %d and %d: both have order index [%d] "
                                "on tensor dim %d", j, i, pl->order[i], a->dim);
    }
    return SHC_OK;
}

int shc_placements_parse(shc_placements *pl, const char *s, shc_err *e)
{
    memset(pl, 0, sizeof *pl);
    bool given[SHC_MAX_MESH_DIMS] = {false};
    if (!s)
        return shc_fail(e, SHC_EINVAL, "placements: missing");
    const char *p = s;
    skip_ws(&p);
    if (*p == '\0')
        return shc_fail(e, SHC_EINVAL, "placements: empty");
    while (*p) {
        char item[96];
        snprintf(item, sizeof item, "placement %d of '%.64s'", pl->n, s);
        if (pl->n == SHC_MAX_MESH_DIMS)
            return shc_fail(e, SHC_EINVAL, "placements '%.64s': more than %d", s, SHC_MAX_MESH_DIMS);
        int rc = parse_one(&p, &pl->p[pl->n], item, e);
        if (rc)
            return rc;
        skip_ws(&p);
        if (*p == '[') {
            p++;
            int64_t k;
            if ((rc = shc_parse_i64(&p, &k, item, e)) || (rc = expect(&p, ']', item, e)))
                return rc;
            if (k < 0 || k >= SHC_MAX_MESH_DIMS)
                return shc_fail(e, SHC_EINVAL, "%s: order index [%lld] out of range", item,
                                (long long)k);
            pl->order[pl->n] = (int)k;
            given[pl->n] = true;
        }
        pl->n++;
        skip_ws(&p);
        if (*p == ',') {
            p++;
            skip_ws(&p);
            if (*p == '\0')
                return shc_fail(e, SHC_EINVAL, "placements '%.64s': trailing comma", s);
        }
    }
    return finish_order(pl, given, e);
}

void shc_placement_format(const shc_placement *p, char *buf, size_t n)
{
    switch (p->kind) {
    case SHC_P_SHARD: snprintf(buf, n, "S(%d)", p->dim); break;
    case SHC_P_STRIDED: snprintf(buf, n, "_S(%d, %lld)", p->dim, (long long)p->split_factor); break;
    case SHC_P_PARTIAL: snprintf(buf, n, "P(%s)", shc_redop_name(p->op)); break;
    default: snprintf(buf, n, "R"); break;
    }
}

void shc_placements_format(const shc_placements *pl, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int i = 0; i < pl->n && k < n; i++) {
        char one[48];
        shc_placement_format(&pl->p[i], one, sizeof one);
        k += (size_t)snprintf(buf + k, n - k, i ? ",%s" : "%s", one);
    }
}

/* Number of mesh dims sharding the same tensor dim as mesh dim i. */
static int shard_count(const shc_placements *pl, int i)
{
    int c = 0;
    for (int j = 0; j < pl->n; j++)
        if ((pl->p[j].kind == SHC_P_SHARD || pl->p[j].kind == SHC_P_STRIDED) &&
            pl->p[j].dim == pl->p[i].dim)
            c++;
    return c;
}

void shc_placements_format_trace(const shc_placements *pl, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int i = 0; i < pl->n && k < n; i++) {
        char one[48];
        shc_placement_format(&pl->p[i], one, sizeof one);
        bool sharded = pl->p[i].kind == SHC_P_SHARD || pl->p[i].kind == SHC_P_STRIDED;
        if (sharded && shard_count(pl, i) > 1) {
            int ord = pl->order[i];
            if (!pl->has_order) { /* default: left-to-right */
                ord = 0;
                for (int j = 0; j < i; j++)
                    ord += (pl->p[j].kind == SHC_P_SHARD || pl->p[j].kind == SHC_P_STRIDED) &&
                           pl->p[j].dim == pl->p[i].dim;
            }
            k += (size_t)snprintf(buf + k, n - k, "%s[%d]", one, ord);
        } else {
            k += (size_t)snprintf(buf + k, n - k, "%s", one);
        }
    }
}

int shc_placements_check(const shc_placements *pl, const shc_mesh *m, int tensor_ndim,
                         shc_err *e)
{
    if (pl->n != m->ndim)
        return shc_fail(e, SHC_EINVAL, "placements: %d given for a %d-d mesh", pl->n, m->ndim);
    for (int i = 0; i < pl->n; i++) {
        const shc_placement *p = &pl->p[i];
        if ((p->kind == SHC_P_SHARD || p->kind == SHC_P_STRIDED) && p->dim >= tensor_ndim) {
            char one[48];
            shc_placement_format(p, one, sizeof one);
            return shc_fail(e, SHC_EINVAL, "placement %d '%s': shard dim %d out of range for a %d-d "
                            "tensor", i, one, p->dim, tensor_ndim);
        }
    }
    return SHC_OK;
}

/* One placement as Python's repr prints it (placement_types.py __repr__). */
static void placement_repr(const shc_placement *p, char *b, size_t n)
{
    switch (p->kind) {
    case SHC_P_REPLICATE: snprintf(b, n, "Replicate()"); break;
    case SHC_P_SHARD: snprintf(b, n, "Shard(dim=%d)", p->dim); break;
    case SHC_P_PARTIAL: snprintf(b, n, "Partial(%s)", shc_redop_name(p->op)); break;
    case SHC_P_STRIDED:
        snprintf(b, n, "_StridedShard(dim=%d, sf=%lld)", p->dim, (long long)p->split_factor);
        break;
    }
}

void shc_placements_repr(const shc_placements *pl, char *buf, size_t n)
{
    size_t k = (size_t)snprintf(buf, n, "(");
    for (int i = 0; i < pl->n && k < n; i++) {
        char one[64];
        placement_repr(&pl->p[i], one, sizeof one);
        k += (size_t)snprintf(buf + k, n - k, "%s%s", i ? ", " : "", one);
    }
    if (k < n)
        snprintf(buf + k, n - k, pl->n == 1 ? ",)" : ")");
}
