/*
 * cmd_groups.c — `shardcheck groups --mesh M [--ranks L] [--axes A] [--rank R]
 * [--placements P --hsdp-shard-dim D] [--json]`: process-group rank lists
 * (lib/layout/groups.c).
 *  - always: "dims", every mesh dim's DeviceMesh groups (mesh order);
 *  - --axes A: "axes", "split" (seed 002 get_split_rank_lists_for_axes) and,
 *    where DeviceMesh slices A (ascending and distinct, or out of order or
 *    twice only in size-1 dims: shc_mesh_slice_layout) "flattened" (its
 *    _flatten groups); when A is not ascending "seed_axes" (the sorted,
 *    de-duplicated dims the seed uses, hyper_parallel hsdp_utils); with --rank also "group"
 *    (get_rank_list_for_axes);
 *  - --rank R: "rank", "coord", per dim the rank's group ("dim_groups") and
 *    its communicator rank = index in the sorted group ("group_ranks");
 *  - --hsdp-shard-dim D (-1: none) with --placements: seed 002's HSDP groups
 *    per rank ("hsdp");
 *  - --world W: the mesh lives in a world of W ranks; a --rank off the mesh has coord
 *    null and no group of any dim (torch's DeviceMesh keeps none for it).
 * Tested by conformance/tests/cli_layout.sh.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

typedef struct gopts {
    cli_common c;
    const char *axes;
    long long hsdp_dim;
    bool hsdp;
} gopts;

static json_t *list_json(const int64_t *v, int64_t n)
{
    json_t *a = json_array();
    for (int64_t i = 0; i < n; i++)
        json_array_append_new(a, json_integer(v[i]));
    return a;
}

static json_t *groups_json(const shc_groups *g)
{
    json_t *a = json_array();
    for (int64_t i = 0; i < g->ngroups; i++)
        json_array_append_new(a, list_json(g->ranks + i * g->group_size, g->group_size));
    return a;
}

static int parse_axes(const char *s, const shc_mesh *m, int *axes, int *n, shc_err *e)
{
    *n = 0;
    for (const char *p = s; *p;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || (*end && *end != ',') || (*end == ',' && !end[1]))
            return shc_fail(e, SHC_EINVAL, "--axes '%s': expected a comma list of mesh dims",
                            CLI_ECHO(s));
        if (*n == SHC_MAX_MESH_DIMS)
            return shc_fail(e, SHC_EINVAL, "--axes '%s': more than %d dims", CLI_ECHO(s),
                            SHC_MAX_MESH_DIMS);
        if (v < 0 || v >= m->ndim)
            return shc_fail(e, SHC_EINVAL, "--axes '%s': mesh dim %ld out of range 0..%d",
                            CLI_ECHO(s), v, m->ndim - 1);
        axes[(*n)++] = (int)v;
        p = *end ? end + 1 : end;
    }
    return SHC_OK;
}

static bool ascending(const int *axes, int n)
{
    for (int i = 1; i < n; i++)
        if (axes[i] <= axes[i - 1])
            return false;
    return n > 0;
}

/* "dims" and, with --rank, the rank's own group per dim. */
static int add_dims(json_t *out, const shc_mesh *m, int64_t rank, shc_err *e)
{
    json_t *dims = json_array(), *mine = json_array(), *granks = json_array();
    int rc = SHC_OK;
    for (int d = 0; d < m->ndim && !rc; d++) {
        shc_groups g;
        int64_t gi, mi;
        if ((rc = shc_groups_for_axes(m, &d, 1, &g, e)))
            break;
        json_array_append_new(dims, groups_json(&g));
        if (rank >= 0 && shc_mesh_has_rank(m, rank) && !(rc = shc_groups_locate(m, &d, 1, rank, &gi, &mi, e))) {
            const int64_t *grp = g.ranks + gi * g.group_size;
            json_array_append_new(mine, list_json(grp, g.group_size));
            json_array_append_new(granks,
                                  json_integer(shc_group_sorted_index(grp, g.group_size, rank)));
        }
        shc_groups_free(&g);
    }
    json_object_set_new(out, "dims", dims);
    if (rank >= 0 && !shc_mesh_has_rank(m, rank)) {
        /* a non-participating rank: device_mesh.py 2.13 _init_one_process_group returns no
         * group name where the rank is in no subgroup, so _dim_group_names is empty */
        json_object_set_new(out, "rank", json_integer(rank));
        json_object_set_new(out, "coord", json_null());
        json_object_set_new(out, "dim_groups", mine);
        json_object_set_new(out, "group_ranks", granks);
    } else if (rank >= 0) {
        int64_t coord[SHC_MAX_MESH_DIMS];
        if (!rc)
            rc = shc_mesh_coord(m, rank, coord, e);
        json_object_set_new(out, "rank", json_integer(rank));
        json_object_set_new(out, "coord", rc ? json_null() : list_json(coord, m->ndim));
        json_object_set_new(out, "dim_groups", mine);
        json_object_set_new(out, "group_ranks", granks);
    } else {
        json_decref(mine);
        json_decref(granks);
    }
    return rc;
}

static int add_axes(json_t *out, const shc_mesh *m, const char *spec, int64_t rank, shc_err *e)
{
    int axes[SHC_MAX_MESH_DIMS], n;
    int rc = parse_axes(spec, m, axes, &n, e);
    if (rc)
        return rc;
    json_t *ax = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(ax, json_integer(axes[i]));
    json_object_set_new(out, "axes", ax);
    shc_groups g;
    if (!ascending(axes, n) && n) {
        /* seed 002 sorts and de-duplicates (the golden group-ranks family covers it); say
         * which dims it used */
        int norm[SHC_MAX_MESH_DIMS], nn;
        if ((rc = shc_axes_normalize(m, axes, n, norm, &nn, e)))
            return rc;
        json_t *sa = json_array();
        for (int i = 0; i < nn; i++)
            json_array_append_new(sa, json_integer(norm[i]));
        json_object_set_new(out, "seed_axes", sa);
    }
    /* DeviceMesh's flattened groups where it slices the dims (shc_groups_for_axes refuses
     * the rest as torch does: then there are none) */
    shc_err refused = {0};
    if (n && (rc = shc_groups_for_axes(m, axes, n, &g, &refused)) == SHC_OK) {
        json_object_set_new(out, "flattened", groups_json(&g));
        shc_groups_free(&g);
    } else if (n && rc != SHC_EINVAL) {
        *e = refused;
        return rc;
    }
    if ((rc = shc_split_rank_lists_for_axes(m, axes, n, &g, e)))
        return rc;
    json_object_set_new(out, "split", groups_json(&g));
    shc_groups_free(&g);
    if (rank >= 0 && !shc_mesh_has_rank(m, rank)) {
        json_object_set_new(out, "group", json_null()); /* off the mesh: no flattened group */
    } else if (rank >= 0) {
        int64_t *list, len;
        if ((rc = shc_rank_list_for_axes(m, axes, n, rank, &list, &len, e)))
            return rc;
        json_object_set_new(out, "group", list_json(list, len));
        free(list);
    }
    return SHC_OK;
}

static int add_hsdp(json_t *out, const shc_mesh *m, const gopts *o, shc_err *e)
{
    shc_placements pl;
    if (!o->c.placements)
        return shc_fail(e, SHC_EINVAL, "--hsdp-shard-dim needs --placements (the final layout)");
    int rc = shc_placements_parse(&pl, o->c.placements, e);
    if (rc)
        return shc_err_prefix(e, "--placements");
    json_t *arr = json_array();
    json_object_set_new(out, "hsdp", arr);
    for (int64_t r = 0; r < m->size; r++) {
        if (o->c.rank >= 0 && r != o->c.rank)
            continue;
        shc_hsdp h;
        if ((rc = shc_hsdp_groups(m, &pl, (int)o->hsdp_dim, r, &h, e)))
            return rc;
        json_array_append_new(
            arr, json_pack("{s:I, s:o, s:o, s:I, s:I, s:I}", "rank", (json_int_t)r, "sharded",
                           h.sharded_valid ? list_json(h.sharded, h.shard_size)
                                           : json_string("invalid"),
                           "unsharded", h.unsharded_valid ? list_json(h.unsharded, h.dp_size)
                                                          : json_string("invalid"),
                           "shard_size", (json_int_t)h.shard_size, "dp_size",
                           (json_int_t)h.dp_size, "rank_size", (json_int_t)h.rank_size));
        shc_hsdp_free(&h);
    }
    return SHC_OK;
}

/* Readable rendering of the JSON object: one line per key, lists compact. */
static void print_text(json_t *out)
{
    const char *k;
    json_t *v;
    json_object_foreach(out, k, v) {
        if (!strcmp(k, "hsdp")) {
            size_t i;
            json_t *r;
            json_array_foreach(v, i, r) {
                fputs("hsdp\t", stdout); /* streamed: write errors reach stdout's error flag */
                json_dumpf(r, stdout, JSON_COMPACT);
                putchar('\n');
            }
            continue;
        }
        if (!strcmp(k, "dims")) {
            size_t i;
            json_t *d;
            json_array_foreach(v, i, d) {
                printf("dim %zu groups\t", i);
                json_dumpf(d, stdout, JSON_COMPACT);
                putchar('\n');
            }
            continue;
        }
        printf("%s\t", k);
        json_dumpf(v, stdout, JSON_COMPACT | JSON_ENCODE_ANY);
        putchar('\n');
    }
}

static int run(const gopts *o)
{
    shc_err e = {0};
    shc_mesh m;
    int rc = cli_load_mesh(&o->c, &m, &e);
    if (!rc && (rc = cli_whole_mesh_e("groups lists every group of every mesh dim", m.size, &e)))
        shc_mesh_free(&m);
    if (rc)
        return cli_report("groups", rc, &e);
    json_t *out = json_object();
    if (o->c.world) /* the answer is for this world */
        json_object_set_new(out, "world", json_integer(o->c.world));
    if (o->c.rank >= 0)
        rc = cli_check_rank(&o->c, &m, o->c.world, &e);
    if (!rc)
        rc = add_dims(out, &m, o->c.rank, &e);
    if (!rc && o->axes)
        rc = add_axes(out, &m, o->axes, o->c.rank, &e);
    if (!rc && o->hsdp)
        rc = add_hsdp(out, &m, o, &e);
    shc_mesh_free(&m);
    int wrc = EXIT_OK;
    if (!rc) {
        if (o->c.json)
            wrc = cli_print_json(out);
        else
            print_text(out);
    }
    json_decref(out);
    return rc ? cli_report("groups", rc, &e) : wrc;
}

int cmd_groups(int argc, char **argv)
{
    gopts o;
    memset(&o, 0, sizeof o);
    cli_common_init(&o.c);
    o.hsdp_dim = LLONG_MIN; /* not given */
    const cli_option opts[] = {
        CLI_OPT_MESH(&o.c), CLI_OPT_RANKS(&o.c), CLI_OPT_WORLD(&o.c),
        {.name = "axes", .kind = CLI_STR, .meta = "A", .to = &o.axes,
         .help = "mesh dims, e.g. 0,2: seed-002 split lists (any order, repeats allowed: the "
                 "seed sorts and de-duplicates them, shown as seed_axes; '' = none) and, if "
                 "ascending, DeviceMesh flattened groups"},
        {.name = "rank", .kind = CLI_LL, .meta = "R", .to = &o.c.rank, .lo = 0, .hi = LLONG_MAX,
         .range = "is negative", .help = "also the rank's own groups and communicator ranks"},
        CLI_OPT_PLACEMENTS(&o.c),
        {.name = "hsdp-shard-dim", .kind = CLI_LL, .meta = "D", .to = &o.hsdp_dim, .lo = -1,
         .hi = SHC_MAX_MESH_DIMS - 1, .range = "is not a mesh dim (or -1 for none)",
         .help = "seed-002 HSDP groups for final placements P (-1: no shard)"},
        CLI_OPT_JSON(&o.c), CLI_OPT_END};
    const cli_command cmd = {
        .name = "groups", .opts = opts,
        .synopsis = "--mesh M [--ranks L] [--world W] [--axes A] [--rank R]\n"
                    "                         [--placements P --hsdp-shard-dim D] [--json]"};
    int x = cli_parse(&cmd, argc, argv, NULL);
    if (x != CLI_GO)
        return x;
    o.hsdp = o.hsdp_dim != LLONG_MIN;
    if (o.hsdp && o.c.world) /* hsdp_utils builds them from the whole world's ranks */
        return cli_usage_error("groups", "--world: not used with --hsdp-shard-dim (seed 002's HSDP "
                               "groups are for a mesh of the whole world)");
    if (o.c.placements && !o.hsdp) /* it is only HSDP's final layout */
        return cli_usage_error("groups", "--placements: not used without --hsdp-shard-dim (the "
                               "final placements of seed 002's HSDP groups)");
    return run(&o);
}
