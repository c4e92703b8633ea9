/*
 * cmd_placement.c — `shardcheck placement show|shardable|order|global`: what torch 2.13
 * answers about placements apart from data (issue 34 item 3).  show: each placement's
 * str, repr and predicates (is_shard() is false for a _StridedShard) and which are equal
 * (== as placement_types.py's __eq__); shardable: is_tensor_shardable and
 * is_tensor_evenly_shardable; order: a _StridedShard decoded into a shard order, or a
 * shard order (the trace form S(0)[1]S(0)[0]) encoded as _StridedShard; global: the
 * global shape and stride from a local tensor (compute_global_tensor_info) or from every
 * rank's local shape (compute_global_tensor_shape).  The semantics are
 * lib/layout/placement_sem.c, shc_placement_eq and lib/plan/plan_core.c's shard orders; this file
 * parses and prints.  Tested by conformance/tests/cli_placement.sh and, against real torch,
 * tools/harness/tests/test_placement.py.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "cli.h"

/* The answer: JSON with --json, else one "key: value" line per member (values compact). */
static int answer(const char *cmd, json_t *doc, int json)
{
    shc_err e = {0};
    int rc = SHC_OK;
    if (json)
        rc = cli_print_json_e(doc, &e);
    else {
        const char *k;
        json_t *v;
        json_object_foreach(doc, k, v) {
            char *s = json_is_string(v) ? NULL : json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
            printf("%s: %s\n", k, s ? s : json_string_value(v));
            free(s);
        }
    }
    json_decref(doc);
    return cli_report(cmd, rc, &e);
}

static json_t *i64_array(const int64_t *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_integer((json_int_t)v[i]));
    return a;
}

static int parse_pl(const char *cmd, const char *s, shc_placements *pl)
{
    shc_err e = {0};
    if (!s)
        return cli_usage_error(cmd, "--placements: required");
    if (shc_placements_parse(pl, s, &e))
        return cli_report(cmd, shc_err_prefix(&e, "--placements"), &e);
    return SHC_OK;
}

static int parse_shape(const char *cmd, const char *opt, const char *s, shc_shape *sh)
{
    shc_err e = {0};
    if (!s)
        return cli_usage_error(cmd, "--%s: required", opt);
    if (shc_shape_parse(sh, s, &e))
        return cli_report(cmd, shc_err_prefix(&e, "--%s", opt), &e);
    return SHC_OK;
}

static json_t *one_placement(const shc_placement *p)
{
    char s[64], r[64];
    shc_placement_format(p, s, sizeof s);
    shc_placements one = {.n = 1, .p = {*p}};
    shc_placements_repr(&one, r, sizeof r);
    r[strlen(r) - 2] = '\0'; /* "(X,)" -> "X" */
    return json_pack("{s:s,s:s,s:b,s:b,s:b,s:b}", "str", s, "repr", r + 1, "is_shard",
                     shc_pl_is_shard(p), "is_shard_like", shc_pl_is_shard_like(p),
                     "is_replicate", p->kind == SHC_P_REPLICATE, "is_partial",
                     p->kind == SHC_P_PARTIAL);
}

static int cmd_show(int argc, char **argv)
{
    cli_common c;
    cli_common_init(&c);
    const cli_option opts[] = {CLI_OPT_PLACEMENTS(&c), CLI_OPT_JSON(&c), CLI_OPT_END};
    const cli_command cmd = {
        .name = "placement show", .opts = opts, .synopsis = "--placements P [--json]",
        .about = "Each placement's str and repr, is_shard() (false for a _StridedShard: no Shard\n"
                 "subclass in torch 2.13), _is_shard_like, is_replicate(), is_partial(), and the\n"
                 "classes of equal ones (placement_types.py __eq__: _S(3, 1) is not S(3),\n"
                 "P(Sum) is not P(sum)).  The placements need no mesh here."};
    int x = cli_parse(&cmd, argc, argv, NULL);
    if (x != CLI_GO)
        return x;
    shc_placements pl;
    if ((x = parse_pl(cmd.name, c.placements, &pl)))
        return x;
    json_t *each = json_array(), *classes = json_array();
    int cls[SHC_MAX_MESH_DIMS];
    for (int i = 0; i < pl.n; i++) {
        json_array_append_new(each, one_placement(&pl.p[i]));
        cls[i] = i;
        for (int j = 0; j < i; j++)
            if (shc_placement_eq(&pl.p[i], &pl.p[j])) {
                cls[i] = cls[j];
                break;
            }
        if (cls[i] == i)
            json_array_append_new(classes, json_array());
    }
    /* classes in first-seen order, each the indices of equal placements */
    for (int i = 0, k = 0; i < pl.n; i++) {
        if (cls[i] != i)
            continue;
        for (int j = i; j < pl.n; j++)
            if (cls[j] == i)
                json_array_append_new(json_array_get(classes, (size_t)k), json_integer(j));
        k++;
    }
    return answer(cmd.name, json_pack("{s:o,s:o}", "placements", each, "equal", classes),
                  c.json);
}

/* --mesh and --placements, dims normalised by ndim (-1: not) as torch's user-facing APIs. */
static int load_mesh_pl(const char *cmd, const cli_common *c, int ndim, shc_mesh *m,
                        shc_placements *pl)
{
    shc_err e = {0};
    int x;
    if (!c->mesh)
        return cli_usage_error(cmd, "--mesh: required");
    if ((x = parse_pl(cmd, c->placements, pl)))
        return x;
    if (cli_load_mesh(c, m, &e))
        return cli_report(cmd, SHC_EINVAL, &e);
    if (ndim >= 0 && shc_placements_normalize(pl, ndim, &e)) {
        shc_mesh_free(m);
        return cli_report(cmd, shc_err_prefix(&e, "--placements"), &e);
    }
    return SHC_OK;
}

static int cmd_shardable(int argc, char **argv)
{
    cli_common c;
    cli_common_init(&c);
    const cli_option opts[] = {CLI_OPT_MESH(&c), CLI_OPT_PLACEMENTS(&c), CLI_OPT_SHAPE(&c),
                               CLI_OPT_JSON(&c), CLI_OPT_END};
    const cli_command cmd = {
        .name = "placement shardable", .opts = opts,
        .synopsis = "--mesh M --placements P --shape S [--json]",
        .about = "is_tensor_shardable (every sharded dim at least its number of shards, times\n"
                 "the split factor for a _StridedShard) and is_tensor_evenly_shardable (divisible\n"
                 "by them) of torch 2.13's _ops/utils.py; a shard dim past the shape is False."};
    int x = cli_parse(&cmd, argc, argv, NULL);
    if (x != CLI_GO)
        return x;
    shc_shape sh;
    shc_mesh m;
    shc_placements pl;
    if ((x = parse_shape(cmd.name, "shape", c.shape, &sh)) ||
        (x = load_mesh_pl(cmd.name, &c, sh.ndim, &m, &pl)))
        return x;
    shc_err e = {0};
    bool sa = false, ev = false;
    int rc = shc_tensor_shardable(&m, &pl, &sh, false, &sa, &e);
    if (!rc)
        rc = shc_tensor_shardable(&m, &pl, &sh, true, &ev, &e);
    shc_mesh_free(&m);
    if (rc)
        return cli_report(cmd.name, rc, &e);
    return answer(cmd.name, json_pack("{s:b,s:b}", "is_tensor_shardable", sa,
                                      "is_tensor_evenly_shardable", ev), c.json);
}

/* The shard order of trace-form placements: [[tensor_dim, [mesh dims in order]], ...] as
 * torch's ShardOrderEntry tuples. */
static json_t *order_json(const shc_placements *t)
{
    json_t *a = json_array();
    for (int d = 0; d < SHC_MAX_TENSOR_DIMS; d++) {
        int md[SHC_MAX_MESH_DIMS], n = 0;
        for (int i = 0; i < t->n; i++)
            if (shc_pl_is_shard_like(&t->p[i]) && t->p[i].dim == d)
                md[n++] = i;
        if (!n)
            continue;
        json_t *v = json_array();
        for (int k = 0; k < n; k++) /* the k-th to shard d: order[i] == k */
            for (int j = 0; j < n; j++)
                if ((t->has_order ? t->order[md[j]] : j) == k)
                    json_array_append_new(v, json_integer(md[j]));
        json_array_append_new(a, json_pack("[i,o]", d, v));
    }
    return a;
}

static int cmd_order(int argc, char **argv)
{
    cli_common c;
    cli_common_init(&c);
    const cli_option opts[] = {CLI_OPT_MESH(&c), CLI_OPT_PLACEMENTS(&c), CLI_OPT_JSON(&c),
                               CLI_OPT_END};
    const cli_command cmd = {
        .name = "placement order", .opts = opts, .synopsis = "--mesh M --placements P [--json]",
        .about = "Placements in the trace form S(0)[1]S(0)[0] (a shard order): encoded as\n"
                 "_StridedShard (_convert_shard_order_to_StridedShard).  Other placements:\n"
                 "decoded into torch's shard order (_maybe_convert_StridedShard_to_shard_order;\n"
                 "null when no order produces their split factors; without _StridedShard the\n"
                 "default left-to-right order)."};
    int x = cli_parse(&cmd, argc, argv, NULL);
    if (x != CLI_GO)
        return x;
    shc_mesh m;
    shc_placements pl, out;
    if ((x = load_mesh_pl(cmd.name, &c, -1, &m, &pl)))
        return x;
    shc_err e = {0};
    char buf[512];
    json_t *doc;
    bool ok = true;
    int rc = pl.has_order ? shc_placements_encode_order(&m, &pl, &out, &e)
                          : shc_placements_decode_order(&m, &pl, &out, &ok, &e);
    shc_mesh_free(&m);
    if (rc)
        return cli_report(cmd.name, pl.has_order ? shc_err_prefix(&e, "ValueError") : rc, &e);
    if (pl.has_order) {
        shc_placements_format(&out, buf, sizeof buf);
        doc = json_pack("{s:o,s:s}", "shard_order", order_json(&pl), "placements", buf);
    } else {
        if (ok)
            shc_placements_format_trace(&out, buf, sizeof buf);
        doc = json_pack("{s:o,s:s}", "shard_order", ok ? order_json(&out) : json_null(),
                        "trace", ok ? buf : "not decodable (_StridedShardNotDecodableError)");
    }
    return answer(cmd.name, doc, c.json);
}

/* --local-shapes "2,3;2,3;1,3": one local shape per rank. */
static int parse_locals(const char *cmd, const char *s, shc_shape **out, int *n)
{
    int k = 1;
    for (const char *p = s; *p; p++)
        k += *p == ';';
    shc_shape *v = calloc((size_t)k, sizeof *v);
    char *dup = strdup(s);
    if (!v || !dup) {
        free(v);
        free(dup);
        return cli_usage_error(cmd, "out of memory");
    }
    char *save = NULL, *tok = strtok_r(dup, ";", &save);
    for (int i = 0; i < k; i++, tok = strtok_r(NULL, ";", &save)) {
        shc_err e = {0};
        if (!tok || shc_shape_parse(&v[i], tok, &e)) {
            free(v);
            free(dup);
            return cli_usage_error(cmd, "--local-shapes: shape %d: %s", i,
                                   tok ? e.msg : "empty");
        }
    }
    free(dup);
    *out = v;
    *n = k;
    return SHC_OK;
}

static int cmd_global(int argc, char **argv)
{
    cli_common c;
    cli_common_init(&c);
    const char *ls = NULL, *lst = NULL, *lss = NULL;
    const cli_option opts[] = {
        CLI_OPT_MESH(&c), CLI_OPT_PLACEMENTS(&c),
        {.name = "local-shape", .kind = CLI_STR, .meta = "S", .to = &ls,
         .help = "every rank's local shape (even shards): compute_global_tensor_info"},
        {.name = "local-stride", .kind = CLI_STR, .meta = "T", .to = &lst,
         .help = "with --local-shape: its stride (default contiguous)"},
        {.name = "local-shapes", .kind = CLI_STR, .meta = "S;S;..", .to = &lss,
         .help = "each rank's local shape, ';' between ranks: compute_global_tensor_shape"},
        CLI_OPT_JSON(&c), CLI_OPT_END};
    const cli_command cmd = {
        .name = "placement global", .opts = opts,
        .synopsis = "--mesh M --placements P (--local-shape S [--local-stride T] | "
                    "--local-shapes S;S;..) [--json]",
        .about = "The global shape and stride DTensor.from_local gives a local tensor (every\n"
                 "rank's the same: torch's compute_global_tensor_info), or the global shape from\n"
                 "every rank's local shape (uneven: compute_global_tensor_shape, a 1-d mesh).\n"
                 "Negative shard dims are normalised by the local ndim as from_local does."};
    int x = cli_parse(&cmd, argc, argv, NULL);
    if (x != CLI_GO)
        return x;
    if (!ls == !lss)
        return cli_usage_error(cmd.name, "--local-shape or --local-shapes: exactly one");
    if (lst && !ls)
        return cli_usage_error(cmd.name, "--local-stride: only with --local-shape");
    shc_err e = {0};
    shc_mesh m;
    shc_placements pl;
    shc_shape loc, g;
    int rc;
    if (lss) {
        shc_shape *v = NULL;
        int n = 0;
        if ((x = parse_locals(cmd.name, lss, &v, &n)))
            return x;
        if ((x = load_mesh_pl(cmd.name, &c, -1, &m, &pl))) {
            free(v);
            return x;
        }
        rc = shc_global_tensor_shape(&m, &pl, v, n, &g, &e);
        free(v);
        shc_mesh_free(&m);
        if (rc)
            return cli_report(cmd.name, rc, &e);
        return answer(cmd.name, json_pack("{s:o}", "global_shape", i64_array(g.d, g.ndim)),
                      c.json);
    }
    int64_t st[SHC_MAX_TENSOR_DIMS], gst[SHC_MAX_TENSOR_DIMS];
    if ((x = parse_shape(cmd.name, "local-shape", ls, &loc)))
        return x;
    if (lst) {
        shc_shape t;
        if ((x = parse_shape(cmd.name, "local-stride", lst, &t)))
            return x;
        if (t.ndim != loc.ndim)
            return cli_usage_error(cmd.name, "--local-stride: %d strides for %d dims", t.ndim,
                                   loc.ndim);
        memcpy(st, t.d, sizeof st);
    } else
        for (int64_t i = loc.ndim - 1, s = 1; i >= 0; i--) { /* torch.empty's strides */
            st[i] = s;
            if (__builtin_mul_overflow(s, loc.d[i] ? loc.d[i] : 1, &s))
                return cli_usage_error(cmd.name, "--local-shape: its numel overflows int64");
        }
    if ((x = load_mesh_pl(cmd.name, &c, loc.ndim, &m, &pl)))
        return x;
    rc = shc_global_tensor_info(&m, &pl, &loc, st, &g, gst, &e);
    shc_mesh_free(&m);
    if (rc)
        return cli_report(cmd.name, rc, &e);
    return answer(cmd.name, json_pack("{s:o,s:o}", "global_shape", i64_array(g.d, g.ndim),
                                      "global_stride", i64_array(gst, g.ndim)), c.json);
}

int cmd_placement(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } subs[] = {{"show", cmd_show}, {"shardable", cmd_shardable}, {"order", cmd_order},
                {"global", cmd_global}};
    for (size_t i = 0; argc >= 2 && i < sizeof subs / sizeof subs[0]; i++)
        if (!strcmp(argv[1], subs[i].name))
            return subs[i].fn(argc - 1, argv + 1);
    const cli_option none[] = {CLI_OPT_END};
    const cli_command cmd = {.name = "placement", .opts = none,
                             .positional = "show|shardable|order|global",
                             .synopsis = "show|shardable|order|global [options]",
                             .about = "See shardcheck placement SUB --help."};
    int x = cli_parse(&cmd, argc, argv, NULL);
    return x != CLI_GO ? x : cli_usage_error("placement", "expected show, shardable, order or "
                                             "global after 'placement'");
}
