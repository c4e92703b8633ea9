/*
 * cmd_layout.c — `shardcheck layout --mesh M [--ranks L] --placements P
 * --shape S [--rank R] [--json]`: which part of the global tensor each rank
 * holds (local shape, global offset, and the index list of every dim a
 * _StridedShard touches), as torch 2.13 computes it (lib/layout/shard_layout.c).
 * Output: a table by default; with --json one object
 * {"ranks":[{"rank","coord","localShape","globalOffset"[,"indices"]}]}: each rank's
 * object is the golden shard-layout view (the same names and encodings: offsets as
 * decimal strings) plus its rank and coordinate, so one spelling serves all three.
 * Tested by conformance/tests/cli_layout.sh (outputs and every error path).
 */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include "cli.h"

static void print_list(const int64_t *v, int64_t n)
{
    putchar('[');
    for (int64_t i = 0; i < n; i++)
        printf(i ? ",%lld" : "%lld", (long long)v[i]);
    putchar(']');
}

static json_t *rank_json(int64_t rank, const int64_t *coord, int ndim, const shc_layout *l,
                         bool strided)
{
    json_t *o = json_object(), *off = json_array(), *idx = json_array();
    json_object_set_new(o, "rank", json_integer(rank));
    json_t *c = json_array();
    for (int i = 0; i < ndim; i++)
        json_array_append_new(c, json_integer(coord[i]));
    json_object_set_new(o, "coord", c);
    json_t *ls = json_array();
    for (int d = 0; d < l->local.ndim; d++) {
        json_array_append_new(ls, json_integer(l->local.d[d]));
        json_array_append_new(off, json_sprintf("%lld", (long long)l->offset[d]));
        json_t *ix = json_null();
        if (l->index[d]) {
            ix = json_array();
            for (int64_t k = 0; k < l->index_len[d]; k++)
                json_array_append_new(ix, json_integer(l->index[d][k]));
        }
        json_array_append_new(idx, ix);
    }
    json_object_set_new(o, "localShape", ls);
    json_object_set_new(o, "globalOffset", off);
    if (strided)
        json_object_set_new(o, "indices", idx);
    else
        json_decref(idx);
    return o;
}

/* A rank of the world off the mesh: coord null, localShape [0], globalOffset []. */
static json_t *outside_json(int64_t rank, bool strided)
{
    json_t *o = json_pack("{sI,sn,s[i],s[]}", "rank", (json_int_t)rank, "coord", "localShape", 0,
                          "globalOffset");
    if (strided)
        json_object_set_new(o, "indices", json_pack("[n]"));
    return o;
}

static void rank_text(int64_t rank, const int64_t *coord, int ndim, const shc_layout *l)
{
    printf("%-6lld", (long long)rank);
    print_list(coord, ndim);
    printf("\t");
    print_list(l->local.d, l->local.ndim);
    printf("\t");
    print_list(l->offset, l->local.ndim);
    for (int d = 0; d < l->local.ndim; d++)
        if (l->index[d]) {
            printf("\tdim%d=", d);
            print_list(l->index[d], l->index_len[d]);
        }
    putchar('\n');
}

static int run(const cli_common *c)
{
    shc_err e = {0};
    shc_mesh m;
    shc_placements pl;
    shc_shape s;
    if (!c->placements || !c->shape)
        return cli_usage_error("layout", "--placements and --shape are required (see --help)");
    int rc = cli_load_mesh(c, &m, &e);
    if (rc)
        return cli_report("layout", rc, &e);
    rc = cli_load_layout(c, &m, &pl, &s, &e);
    bool strided = false;
    for (int i = 0; !rc && i < pl.n; i++)
        strided |= pl.p[i].kind == SHC_P_STRIDED;
    int64_t first = 0, last = m.max_rank, coord[SHC_MAX_MESH_DIMS];
    if (!rc && c->rank >= 0) {
        rc = cli_check_rank(c, &m, c->world, &e);
        first = last = c->rank;
    }
    if (!rc && c->rank < 0 && cli_check_printed_ranks("layout", m.max_rank + 1)) {
        shc_mesh_free(&m);
        return EXIT_USAGE;
    }
    cli_jstream js;
    if (!rc && c->json)
        cli_jstream_open(&js, c->world ? json_pack("{sI}", "world", (json_int_t)c->world) : NULL,
                         "ranks");
    if (!rc && !c->json) {
        char mbuf[128], pbuf[256], sbuf[256];
        shc_mesh_format(&m, mbuf, sizeof mbuf);
        if (pl.has_order)
            shc_placements_format_trace(&pl, pbuf, sizeof pbuf);
        else
            shc_placements_format(&pl, pbuf, sizeof pbuf);
        shc_shape_format(&s, sbuf, sizeof sbuf);
        printf("mesh %s", mbuf);
        if (c->world)
            printf(" (world %lld)", c->world);
        printf("  placements %s  shape [%s]\n", pbuf, sbuf);
        printf("rank  coord\tlocalShape\tglobalOffset%s\n", strided ? "\tindices" : "");
    }
    for (int64_t r = first; r <= last && !rc; r++) {
        shc_layout l;
        if (!shc_mesh_has_rank(&m, r)) { /* only with --world: the map is arange else */
            if (c->json)
                cli_jstream_item(&js, outside_json(r, strided));
            else
                printf("%-6lld-\t[0]\t[]\n", (long long)r);
            continue;
        }
        if ((rc = shc_mesh_coord(&m, r, coord, &e)) ||
            (rc = shc_layout_compute(&m, &pl, &s, coord, &l, &e)))
            break;
        if (c->json)
            cli_jstream_item(&js, rank_json(r, coord, m.ndim, &l, strided));
        else
            rank_text(r, coord, m.ndim, &l);
        shc_layout_free(&l);
    }
    shc_mesh_free(&m);
    if (rc)
        return cli_report("layout", rc, &e);
    return c->json ? cli_jstream_close(&js) : EXIT_OK;
}

int cmd_layout(int argc, char **argv)
{
    cli_common c;
    cli_common_init(&c);
    const cli_option opts[] = {CLI_OPTS_LAYOUT(&c), CLI_OPT_WORLD(&c), CLI_OPT_END};
    const cli_command cmd = {
        .name = "layout", .opts = opts,
        .synopsis = "--mesh M [--ranks L] [--world W] --placements P --shape S [--rank R] [--json]",
        .about = "Prints every rank's local shape and global offset (torch 2.13\n"
                 "compute_local_shape_and_global_offset); dims touched by _StridedShard\n"
                 "also list the global indices held.  With --world W every rank of the\n"
                 "world is listed: a rank off the mesh (torch's non-participating rank)\n"
                 "has no coordinate (-) and holds an empty tensor, shape [0], no offset."};
    int x = cli_parse(&cmd, argc, argv, NULL);
    return x == CLI_GO ? run(&c) : x;
}
