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
 * P(op) takes any reduce-op string, as torch's Partial does (quoted: P('a b')); a shard
 * dim may be negative until shc_placements_normalize counts it from the end.
 * Tested by check_core.c (round trips and every malformed form) and
 * conformance/tests/cli_torch_input.sh (the answers a real torch 2.13 run gives).
 */
#include "config.h"
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "shardcheck.h"
#include "parse.h"

static const char *const redop_names[] = {
    "sum", "avg", "min", "max", "product", "band", "bor", "bxor"};
_Static_assert(sizeof redop_names / sizeof redop_names[0] == SHC_OP_COUNT,
               "one name per shc_redop");

const char *shc_redop_name(shc_redop op)
{
    return (op >= 0 && op < SHC_OP_COUNT) ? redop_names[op] : "?";
}

const char *shc_placement_op_name(const shc_placement *p)
{
    return p->op == SHC_OP_OTHER ? p->op_name : shc_redop_name(p->op);
}

/* funcol.all_reduce / reduce_scatter_tensor pass reduceOp.lower() to c10d
 * (_functional_collectives.py:180, :281, torch 2.13), whose to_reduce_op knows the eight
 * names: "Sum" reduces as sum, "prod" is refused.  ASCII lowering is Python's str.lower()
 * for every string that can lower to one of those names. */
shc_redop shc_placement_reduce_op(const shc_placement *p)
{
    if (p->op != SHC_OP_OTHER)
        return p->op;
    char low[SHC_MAX_REDOP_NAME];
    size_t i = 0;
    for (; p->op_name[i] && i + 1 < sizeof low; i++)
        low[i] = (char)tolower((unsigned char)p->op_name[i]);
    low[i] = '\0';
    for (int k = 0; k < SHC_OP_COUNT; k++)
        if (strcmp(low, redop_names[k]) == 0)
            return (shc_redop)k;
    return SHC_OP_OTHER;
}

int shc_placement_check_reduce(const shc_placement *p, shc_err *e)
{
    if (p->kind != SHC_P_PARTIAL || shc_placement_reduce_op(p) != SHC_OP_OTHER)
        return SHC_OK;
    char low[SHC_MAX_REDOP_NAME];
    size_t i = 0;
    for (; p->op_name[i] && i + 1 < sizeof low; i++)
        low[i] = (char)tolower((unsigned char)p->op_name[i]);
    low[i] = '\0';
    /* the c10d op's refusal, as a real gloo run of torch 2.13 raises it */
    return shc_fail(e, SHC_EINVAL, "RuntimeError: Unrecognized reduce_op: %s (P(%s): c10d "
                    "reduces sum, avg, min, max, product, band, bor, bxor; funcol lowercases "
                    "the string first)", low, p->op_name);
}

/* Partial._partition_value compares the string exactly (placement_types.py:1584-1591):
 * "sum" divides, "avg", "min" and "max" keep the value, any other string raises. */
int shc_placement_check_step(const shc_placement *src, const shc_placement *dst, shc_err *e)
{
    if (src->kind == SHC_P_PARTIAL && dst->kind != SHC_P_PARTIAL)
        return shc_placement_check_reduce(src, e);
    if (src->kind == SHC_P_REPLICATE && dst->kind == SHC_P_PARTIAL && dst->op != SHC_OP_SUM &&
        dst->op != SHC_OP_AVG && dst->op != SHC_OP_MIN && dst->op != SHC_OP_MAX)
        return shc_fail(e, SHC_EINVAL, "ValueError: Replicate to Partial(%s) conversion is not "
                        "supported.", shc_placement_op_name(dst));
    return SHC_OK;
}

bool shc_placement_eq(const shc_placement *a, const shc_placement *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case SHC_P_SHARD: return a->dim == b->dim;
    case SHC_P_STRIDED: return a->dim == b->dim && a->split_factor == b->split_factor;
    case SHC_P_PARTIAL: /* Partial's __eq__ compares the strings: P(Sum) is not P(sum) */
        return a->op == b->op && (a->op != SHC_OP_OTHER || strcmp(a->op_name, b->op_name) == 0);
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

/* A shard dim; negative ones count from the end, as torch's, and are normalised once the
 * tensor's rank is known (shc_placements_normalize). */
static int parse_dim(const char **p, int *dim, const char *item, shc_err *e)
{
    int64_t v;
    eat(p, "dim=");
    int rc = shc_parse_i64(p, &v, item, e);
    if (rc)
        return rc;
    if (v < -SHC_MAX_TENSOR_DIMS || v >= SHC_MAX_TENSOR_DIMS)
        return shc_fail(e, SHC_EINVAL, "%s: shard dim %lld out of range %d..%d (a tensor has at "
                        "most %d dims here; torch refuses a dim outside -ndim..ndim-1)", item,
                        (long long)v, -SHC_MAX_TENSOR_DIMS, SHC_MAX_TENSOR_DIMS - 1,
                        SHC_MAX_TENSOR_DIMS);
    *dim = (int)v;
    return SHC_OK;
}

/* Whether c may stand in an unquoted reduce-op string (a quoted one takes any). */
static bool op_char(char c)
{
    return c && c != ')' && c != '(' && c != '\'' && c != '"' && c != '[' && c != ']';
}

/* torch's Partial takes any string (the constructor checks only its type): the eight c10d
 * names spelt exactly so become an shc_redop, anything else is kept as written. */
static int set_op(shc_placement *out, const char *s, size_t n, const char *item, shc_err *e)
{
    if (n >= SHC_MAX_REDOP_NAME)
        return shc_fail(e, SHC_EINVAL, "%s: reduce op '%.*s' longer than %d characters "
                        "(shardcheck's limit; torch has none)", item, (int)(n > 40 ? 40 : n), s,
                        SHC_MAX_REDOP_NAME - 1);
    for (int i = 0; i < SHC_OP_COUNT; i++)
        if (strlen(redop_names[i]) == n && strncmp(s, redop_names[i], n) == 0) {
            out->op = (shc_redop)i;
            return SHC_OK;
        }
    out->op = SHC_OP_OTHER;
    memcpy(out->op_name, s, n);
    out->op_name[n] = '\0';
    return SHC_OK;
}

static int parse_op(const char **p, shc_placement *out, const char *item, shc_err *e)
{
    skip_ws(p);
    char quote = (**p == '\'' || **p == '"') ? **p : '\0';
    const char *s;
    size_t n;
    if (quote) {
        s = ++(*p);
        const char *end = strchr(s, quote);
        /* an unterminated quote ("P('sum") is refused before anything reads past the end */
        if (!end)
            return shc_fail(e, SHC_EINVAL, "%s: missing closing %c after reduce op '%.16s'",
                            item, quote, s);
        n = (size_t)(end - s);
        *p = end + 1;
    } else {
        s = *p;
        while (op_char(**p))
            (*p)++;
        n = (size_t)(*p - s);
        while (n && s[n - 1] == ' ') /* P( sum ) as P(sum); quote a string with spaces */
            n--;
        if (n == 0)
            return shc_fail(e, SHC_EINVAL, "%s: expected a reduce op at '%.16s' (quote one "
                            "with ( ) [ ] or quotes in it: P('a(b')", item, *p);
    }
    skip_ws(p);
    return set_op(out, s, n, item, e);
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
        if ((rc = parse_op(p, out, item, e)))
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

/* Placement pl->n at *p, with its optional order index "[k]"; item names it in errors. */
static int parse_item(const char **p, shc_placements *pl, bool *given, const char *item,
                      shc_err *e)
{
    int rc = parse_one(p, &pl->p[pl->n], item, e);
    if (rc)
        return rc;
    skip_ws(p);
    if (**p == '[') {
        ++*p;
        int64_t k;
        if ((rc = shc_parse_i64(p, &k, item, e)) || (rc = expect(p, ']', item, e)))
            return rc;
        if (k < 0 || k >= SHC_MAX_MESH_DIMS)
            return shc_fail(e, SHC_EINVAL, "%s: order index [%lld] out of range", item,
                            (long long)k);
        pl->order[pl->n] = (int)k;
        given[pl->n] = true;
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
        if (pl->n == SHC_MAX_MESH_DIMS)
            return shc_fail(e, SHC_EINVAL, "placements '%.64s': more than %d", s, SHC_MAX_MESH_DIMS);
        const char *at = p;
        int rc = parse_item(&p, pl, given, "", NULL);
        if (rc) { /* named only now: an snprintf per item cost more than the parse */
            char item[96];
            snprintf(item, sizeof item, "placement %d of '%.64s'", pl->n, s);
            return parse_item(&at, pl, given, item, e);
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
    case SHC_P_PARTIAL: snprintf(buf, n, "P(%s)", shc_placement_op_name(p)); break;
    default: snprintf(buf, n, "R"); break;
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

/* Whether mesh dim i gets a "[k]" in the trace form (it shards a tensor dim that other
 * mesh dims shard too), and k: its place in that dim's shard order. */
static bool trace_order(const shc_placements *pl, int i, int *ord)
{
    bool sharded = pl->p[i].kind == SHC_P_SHARD || pl->p[i].kind == SHC_P_STRIDED;
    if (!sharded || shard_count(pl, i) <= 1)
        return false;
    *ord = pl->has_order ? pl->order[i] : 0;
    for (int j = 0; !pl->has_order && j < i; j++) /* default: left-to-right */
        *ord += (pl->p[j].kind == SHC_P_SHARD || pl->p[j].kind == SHC_P_STRIDED) &&
                pl->p[j].dim == pl->p[i].dim;
    return true;
}

/* The placements one after another: "S(0),R" (comma-separated), or in the trace form
 * "S(0)[1]S(0)[0]" (no separator, shard orders in brackets): one loop for both forms. */
static void format_list(const shc_placements *pl, char *buf, size_t n, bool trace)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int i = 0; i < pl->n && k < n; i++) {
        char one[48];
        shc_placement_format(&pl->p[i], one, sizeof one);
        int ord;
        if (trace && trace_order(pl, i, &ord))
            k += (size_t)snprintf(buf + k, n - k, "%s[%d]", one, ord);
        else
            k += (size_t)snprintf(buf + k, n - k, i && !trace ? ",%s" : "%s", one);
    }
}

void shc_placements_format(const shc_placements *pl, char *buf, size_t n)
{
    format_list(pl, buf, n, false);
}

void shc_placements_format_trace(const shc_placements *pl, char *buf, size_t n)
{
    format_list(pl, buf, n, true);
}

int shc_placements_check(const shc_placements *pl, const shc_mesh *m, int tensor_ndim,
                         shc_err *e)
{
    if (pl->n != m->ndim)
        return shc_fail(e, SHC_EINVAL, "placements: %d given for a %d-d mesh", pl->n, m->ndim);
    for (int i = 0; i < pl->n; i++) {
        const shc_placement *p = &pl->p[i];
        if ((p->kind == SHC_P_SHARD || p->kind == SHC_P_STRIDED) &&
            (p->dim < 0 || p->dim >= tensor_ndim)) {
            char one[48];
            shc_placement_format(p, one, sizeof one);
            return shc_fail(e, SHC_EINVAL, "placement %d '%s': shard dim %d out of range for a %d-d "
                            "tensor%s", i, one, p->dim, tensor_ndim,
                            p->dim < 0 ? " (not normalised: shc_placements_normalize)" : "");
        }
    }
    return SHC_OK;
}

/* torch 2.13 normalises a negative shard dim by the tensor's rank in its user-facing APIs
 * only, and shows the normalised placement from then on: DTensor.from_local
 * (_api.py:547-558), distribute_tensor (_api.py:971-990), DTensor.redistribute's target
 * (_api.py:718-725).  Shard(-1) itself prints S(-1) (placement_types.py __str__), and the
 * internals refuse it (DTensorSpec, _dtensor_spec.py:176-179: "must be normalized").
 * Where torch does not normalise (a real 2.13 run): compute_local_shape_and_global_offset
 * takes S(-1) (rank 0 of [S(-1), R] on [6, 8] gets (6, 4) at (0, 0), torch.chunk indexing
 * from the end) but raises IndexError for _S(-2, 2); distribute_tensor of _S(-3, 2) on a 2-d
 * tensor keeps _S(-1, 2) unchecked.
 * A dim still out of range is refused as torch's redistribute / DTensorSpec refuse it. */
int shc_placements_normalize(shc_placements *pl, int tensor_ndim, shc_err *e)
{
    for (int i = 0; i < pl->n; i++) {
        shc_placement *p = &pl->p[i];
        /* a dim past the tensor is shc_placements_check's (torch: IndexError, Dimension out
         * of range, from torch.chunk at placement_types.py:317) */
        if ((p->kind != SHC_P_SHARD && p->kind != SHC_P_STRIDED) || p->dim >= 0)
            continue;
        char one[48];
        shc_placement_format(p, one, sizeof one);
        /* still negative: DTensorSpec's assertion for a Shard; a _StridedShard gets past it
         * and fails decoding the shard order (_dtensor_spec.py:334, a real torch run) */
        if (p->dim + tensor_ndim < 0 && p->kind == SHC_P_SHARD)
            return shc_fail(e, SHC_EINVAL, "placement %d '%s': shard dim %d out of range for a "
                            "%d-d tensor (torch 2.13 normalises it to %d, then raises "
                            "AssertionError: Shard dim %d in placements ... must be normalized)",
                            i, one, p->dim, tensor_ndim, p->dim + tensor_ndim,
                            p->dim + tensor_ndim);
        if (p->dim + tensor_ndim < 0)
            return shc_fail(e, SHC_EINVAL, "placement %d '%s': shard dim %d out of range for a "
                            "%d-d tensor (torch 2.13 normalises it to %d, then redistribute "
                            "raises IndexError: list index out of range)", i, one, p->dim,
                            tensor_ndim, p->dim + tensor_ndim);
        if (pl->has_order)
            return shc_fail(e, SHC_EINVAL, "placement %d '%s': a negative dim in the trace form "
                            "(torch prints a shard order with normalised dims only: write "
                            "S(%d))", i, one, p->dim + tensor_ndim);
        p->dim += tensor_ndim;
    }
    return SHC_OK;
}

/* One placement as Python's repr prints it (placement_types.py __repr__). */
static void placement_repr(const shc_placement *p, char *b, size_t n)
{
    switch (p->kind) {
    case SHC_P_REPLICATE: snprintf(b, n, "Replicate()"); break;
    case SHC_P_SHARD: snprintf(b, n, "Shard(dim=%d)", p->dim); break;
    case SHC_P_PARTIAL: snprintf(b, n, "Partial(%s)", shc_placement_op_name(p)); break;
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
