/*
 * cmd_mesh_layout.c — `shardcheck mesh-layout`: torch's layout algebra of DeviceMesh dims
 * (lib/layout/mesh_layout.c): a (shape):(stride) layout's normal form, ranks, orthogonality,
 * complement in a world and the process groups' rank lists it makes.
 *
 *   shardcheck mesh-layout --layout '(2, 2):(4, 1)' [--world W] [--json]
 *   shardcheck mesh-layout --mesh 2x2x2 [--ranks L] --dims 0,2 [--json]
 *
 * With --mesh, the layout is that of the root mesh's dims --dims taken together in that order
 * (what DeviceMesh's slicing and _flatten keep: each dim (size):(row-major stride),
 * collapsed; refused where torch refuses the slice, shc_mesh_slice_layout),
 * the world the mesh's size, and the groups are mapped through the rank map.
 * Tested by conformance/tests/cli_mesh_layout.sh and tools/harness/tests/test_mesh_layout.py.
 */
#include "config.h"
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "golden.h"
#include "torch_version.h"

typedef struct ml_opts {
    cli_common c;
    const char *layout, *dims, *tver;
    long long world;
} ml_opts;

/* "(2, 2):(4, 1)", "(8,):(1,)", "8:1" or "():()": one flat tuple each side. */
static int parse_tuple(const char **p, int64_t *v, int *n, shc_err *e)
{
    const char *s = *p;
    bool paren = *s == '(';
    s += paren;
    *n = 0;
    while (*s == ' ')
        s++;
    while (*s && *s != ')' && *s != ':') {
        char *end;
        if (!isdigit((unsigned char)*s))
            return shc_fail(e, SHC_EINVAL, "expected a non-negative integer at '%.16s'", s);
        long long x = strtoll(s, &end, 10);
        if (*n == SHC_MAX_LAYOUT_MODES)
            return shc_fail(e, SHC_EINVAL, "more than %d modes", SHC_MAX_LAYOUT_MODES);
        v[(*n)++] = x;
        s = end;
        while (*s == ' ')
            s++;
        if (*s == ',')
            s++;
        while (*s == ' ')
            s++;
        if (!paren)
            break;
    }
    if (paren && *s++ != ')')
        return shc_fail(e, SHC_EINVAL, "a '(' without its ')'");
    *p = s;
    return SHC_OK;
}

static int parse_layout(const char *text, shc_flat_layout *l, shc_err *e)
{
    int64_t sh[SHC_MAX_LAYOUT_MODES], st[SHC_MAX_LAYOUT_MODES];
    int ns, nd;
    const char *p = text;
    int rc = parse_tuple(&p, sh, &ns, e);
    if (!rc && *p++ != ':')
        rc = shc_fail(e, SHC_EINVAL, "expected SHAPE:STRIDE");
    if (!rc)
        rc = parse_tuple(&p, st, &nd, e);
    if (!rc && *p)
        rc = shc_fail(e, SHC_EINVAL, "unexpected '%.16s' after the stride", p);
    if (!rc && ns != nd)
        rc = shc_fail(e, SHC_EINVAL, "%d sizes and %d strides (torch: ValueError: sizes and "
                      "strides don't match)", ns, nd);
    if (!rc)
        rc = shc_flat_layout_make(sh, st, ns, l, e);
    return rc ? shc_err_prefix(e, "--layout '%s'", CLI_ECHO(text)) : SHC_OK;
}

/* The root mesh's dims `dims`, in the order given, as DeviceMesh slicing keeps them
 * (shc_mesh_slice_layout: torch's refusals, in its order). */
static int mesh_dims_layout(const shc_mesh *m, const char *dims, shc_flat_layout *l, shc_err *e)
{
    int d[SHC_MAX_LAYOUT_MODES], n = 0;
    for (const char *p = dims; *p;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || (*end && *end != ',') || v < INT_MIN || v > INT_MAX)
            return shc_fail(e, SHC_EINVAL, "--dims '%s': expected a comma list of mesh dims",
                            CLI_ECHO(dims));
        if (n == SHC_MAX_LAYOUT_MODES)
            return shc_fail(e, SHC_EINVAL, "--dims '%s': at most %d mesh dims",
                            CLI_ECHO(dims), SHC_MAX_LAYOUT_MODES);
        d[n++] = (int)v;
        p = *end ? end + 1 : end;
    }
    if (!n)
        return shc_fail(e, SHC_EINVAL, "--dims: no mesh dim given");
    int rc = shc_mesh_slice_layout(m->shape, m->ndim, d, n, l, e);
    return rc ? shc_err_prefix(e, "--dims '%s'", CLI_ECHO(dims)) : SHC_OK;
}

static json_t *layout_json(const shc_flat_layout *l)
{
    return json_pack("{s:o,s:o}", "shape", shc_json_i64_array(l->shape, l->n), "stride",
                     shc_json_i64_array(l->stride, l->n));
}

/* As Python prints the tuples: (8,):(1,), (2, 2):(4, 1), ():(). */
static void layout_text(const shc_flat_layout *l, char *buf, size_t n)
{
    size_t k = 0;
    for (int side = 0; side < 2; side++) {
        const int64_t *v = side ? l->stride : l->shape;
        k += (size_t)snprintf(buf + k, n - k, "%s(", side ? ":" : "");
        for (int i = 0; i < l->n && k < n; i++)
            k += (size_t)snprintf(buf + k, n - k, i ? ", %lld" : "%lld", (long long)v[i]);
        if (k < n)
            k += (size_t)snprintf(buf + k, n - k, l->n == 1 ? ",)" : ")");
    }
}

/* The groups of layout l in a world of `world` ranks: each complement rank plus each of
 * l's, through the rank map where there is one (remap_to_tensor). */
static int groups_json(const shc_flat_layout *l, int64_t world, const shc_mesh *m, json_t *out,
                       shc_err *e)
{
    shc_flat_layout c;
    int64_t *inner = NULL, *outer = NULL, ni, no;
    int rc = shc_flat_layout_complement(l, world, &c, e);
    if (!rc)
        json_object_set_new(out, "complement", layout_json(&c));
    if (!rc && !(rc = shc_flat_layout_ranks(l, &inner, &ni, e)))
        rc = shc_flat_layout_ranks(&c, &outer, &no, e);
    if (!rc && (ni ? no > CLI_MAX_PRINTED_RANKS / ni : no > CLI_MAX_PRINTED_RANKS))
        rc = shc_fail(e, SHC_EINVAL, "%lld groups of %lld ranks: more than %lld to print",
                      (long long)no, (long long)ni, (long long)CLI_MAX_PRINTED_RANKS);
    json_t *groups = json_array();
    for (int64_t o = 0; !rc && o < no; o++) {
        json_t *g = json_array();
        for (int64_t i = 0; !rc && i < ni; i++) {
            int64_t r = outer[o] + inner[i];
            if (m && r >= m->size) /* as_strided past the rank map */
                rc = shc_fail(e, SHC_EINVAL, "rank index %lld is past the rank map's %lld",
                              (long long)r, (long long)m->size);
            json_array_append_new(g, json_integer(m && !rc ? m->ranks[r] : r));
        }
        json_array_append_new(groups, g);
    }
    json_object_set_new(out, "groups", groups);
    free(inner);
    free(outer);
    return rc;
}

static int answer(const ml_opts *o, shc_err *e)
{
    shc_flat_layout l;
    shc_mesh m = {0};
    bool has_mesh = o->c.mesh != NULL;
    int rc = has_mesh ? cli_load_mesh(&o->c, &m, e) : parse_layout(o->layout, &l, e);
    if (!rc && has_mesh)
        rc = mesh_dims_layout(&m, o->dims, &l, e);
    int64_t world = has_mesh ? m.size : o->world, numel = 0, cosize = 0, *ranks = NULL, nr = 0;
    bool orth = false;
    json_t *out = json_object();
    char text[512];
    if (!rc) {
        layout_text(&l, text, sizeof text);
        json_object_set_new(out, "layout", layout_json(&l));
        json_object_set_new(out, "text", json_string(text));
        rc = shc_flat_layout_numel(&l, &numel, e);
    }
    if (!rc && !(rc = shc_flat_layout_ranks(&l, &ranks, &nr, e))) {
        json_object_set_new(out, "numel", json_integer(numel));
        json_object_set_new(out, "ranks", shc_json_i64_array(ranks, nr));
        json_object_set_new(out, "sorted", json_boolean(shc_flat_layout_sorted(&l)));
    }
    shc_err why = {0}; /* torch's own errors are answers, not failures of the query */
    if (!rc && numel && !shc_flat_layout_cosize(&l, &cosize, &why))
        json_object_set_new(out, "cosize", json_integer(cosize));
    if (!rc && shc_flat_layout_orthogonal(&l, &orth, &why) == SHC_OK)
        json_object_set_new(out, "orthogonal", json_boolean(orth));
    else if (!rc)
        json_object_set_new(out, "orthogonal", json_pack("{s:s}", "raises", why.msg));
    if (!rc && world) {
        json_object_set_new(out, "world", json_integer(world));
        shc_err_clear(&why);
        if (groups_json(&l, world, has_mesh ? &m : NULL, out, &why)) {
            json_object_del(out, "groups");
            json_object_set_new(out, "complement", json_pack("{s:s}", "raises", why.msg));
        }
    }
    free(ranks);
    shc_mesh_free(&m);
    if (!rc)
        rc = o->c.json ? (cli_print_json(out) ? SHC_EIO : SHC_OK) : SHC_OK;
    if (!rc && !o->c.json) {
        const char *k;
        json_t *v;
        json_object_foreach(out, k, v) {
            printf("%-11s ", k);
            if (json_is_string(v))
                puts(json_string_value(v));
            else {
                json_dumpf(v, stdout, JSON_COMPACT | JSON_ENCODE_ANY);
                putchar('\n');
            }
        }
    }
    json_decref(out);
    return rc;
}

int cmd_mesh_layout(int argc, char **argv)
{
    ml_opts o;
    memset(&o, 0, sizeof o);
    cli_common_init(&o.c);
    unsigned long long given = 0;
    const cli_option opts[] = {
        {.name = "layout", .kind = CLI_STR, .meta = "L", .to = &o.layout,
         .help = "a layout SHAPE:STRIDE as torch prints it: '(2, 2):(4, 1)', '(8,):(1,)', '8:1'"},
        CLI_OPT_MESH(&o.c), CLI_OPT_RANKS(&o.c),
        {.name = "dims", .kind = CLI_STR, .meta = "D", .to = &o.dims,
         .help = "with --mesh: the root mesh's dims taken together in this order, e.g. 0,2 "
                 "(refused where torch refuses the slice)"},
        {.name = "world", .kind = CLI_LL, .meta = "W", .to = &o.world, .lo = 1,
         .hi = SHC_MAX_WORLD, .range = "is not 1 to 16777216",
         .help = "with --layout: the world for the complement and the groups"},
        {.name = "torch-version", .kind = CLI_STR, .meta = "V", .to = &o.tver, .help = TV_HELP},
        CLI_OPT_JSON(&o.c), CLI_OPT_END};
    const cli_command cmd = {
        .name = "mesh-layout", .opts = opts, .given = &given,
        .synopsis = "--layout L [--world W] [--json]\n"
                    "       shardcheck mesh-layout --mesh M [--ranks L] --dims D [--json]",
        .about = "torch 2.13's (and 2.14, 2.15's) _FlatLayout (torch/distributed/_mesh_layout.py): the normal\n"
                 "form, numel, cosize, the ranks from zero, check_sorted, check_orthogonal,\n"
                 "and in a world the complement and global_ranks: the rank lists of the\n"
                 "process groups DeviceMesh makes for such a dim.  torch's own errors\n"
                 "(ZeroDivisionError, AssertionError) are printed as the answer."};
    int x = cli_parse(&cmd, argc, argv, NULL);
    if (x != CLI_GO)
        return x;
    if (!o.layout == !o.c.mesh)
        return cli_usage_error("mesh-layout", "give --layout or --mesh (with --dims), one of them");
    if (o.layout && (x = cli_used(&cmd, "layout world json torch-version", "with --layout")) != CLI_GO)
        return x;
    if (o.c.mesh && (x = cli_used(&cmd, "mesh ranks dims json torch-version", "with --mesh")) !=
        CLI_GO)
        return x;
    if (o.c.mesh && !o.dims)
        return cli_usage_error("mesh-layout", "--dims: required with --mesh (e.g. --dims 0,2)");
    shc_err e = {0};
    shc_torch_release rel;
    char why[128];
    int rc = tv_resolve(o.tver, NULL, NULL, &rel, why, sizeof why, &e);
    if (!rc && shc_torch_has(rel, SHC_TC_MESH_LAYOUT_LEGACY)) /* the row says which releases */
        rc = shc_fail(&e, SHC_EINVAL, "torch %s (%s): not modelled (MeshLayoutLegacy: %s)",
                      shc_torch_release_name(rel), why,
                      shc_torch_change_get(SHC_TC_MESH_LAYOUT_LEGACY)->what);
    if (!rc)
        rc = answer(&o, &e);
    return rc ? cli_report("mesh-layout", rc, &e) : EXIT_OK;
}
