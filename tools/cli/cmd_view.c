/*
 * cmd_view.c — `shardcheck view --mesh M [--ranks L] --placements P --shape S --op OP
 * [--torch-version V] [--json]`: torch's sharding rule for one view-like op, as 2.13 or the
 * release named runs it (lib/layout/view_rule.c, view_rule_legacy.c for 2.11: the
 * placements the input is redistributed to, the output's placements, or the exception the rule
 * raises) and whether that answer is right (lib/layout/view_check.c: every rank's local result
 * against its slice of the global result), with each rank's local shapes.
 * Output: a table, or with --json one object {"op","torch","inputShape","outputShape","mesh",
 * "placements","rule":{"raises","inputTarget","output","redistribute"},"verdict",
 * "firstWrongRank","ranks":[...]}.  An answered query exits 0 whatever the verdict.
 * Tested by conformance/tests/cli_view.sh (hand-derived answers and every error path) and
 * against torch by tools/harness/tests/test_view_sharding.py.
 */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "shardcheck.h"
#include "torch_version.h"

typedef struct view_q {
    shc_mesh m;
    shc_placements pl;
    shc_shape in, out;
    shc_vop op;
    shc_vmap map;
    shc_vrule rule;
    shc_vcheck chk;
    shc_torch_release rel; /* the release whose rule answers */
} view_q;

static json_t *shape_json(const shc_shape *s)
{
    json_t *a = json_array();
    for (int d = 0; d < s->ndim; d++)
        json_array_append_new(a, json_integer(s->d[d]));
    return a;
}

static json_t *idx_json(const int64_t *v, int n)
{
    shc_shape s = {.ndim = n};
    memcpy(s.d, v, sizeof(int64_t) * (size_t)n);
    return shape_json(&s);
}

static json_t *rank_json(const view_q *q, const shc_vrank *rk)
{
    json_t *o = json_object();
    json_object_set_new(o, "rank", json_integer(rk->rank));
    json_object_set_new(o, "inputLocal", shape_json(&rk->in_local));
    json_object_set_new(o, "outputLocal", shape_json(&rk->want_local));
    json_object_set_new(o, "status", json_string(shc_vverdict_name(rk->status)));
    if (rk->status == SHC_VV_LOCAL_ERROR)
        json_object_set_new(o, "error", json_string(rk->error));
    else
        json_object_set_new(o, "resultLocal", shape_json(&rk->got_local));
    if (rk->status == SHC_VV_WRONG) {
        json_t *w = json_object();
        json_object_set_new(w, "localIndex", json_integer(rk->first));
        json_object_set_new(w, "holds", idx_json(rk->got, q->out.ndim));
        json_object_set_new(w, "shouldHold", idx_json(rk->want, q->out.ndim));
        json_object_set_new(o, "firstWrong", w);
    }
    return o;
}

static int print_json(const view_q *q, const char *pl)
{
    char buf[512], mbuf[128];
    json_t *o = json_object(), *r = json_object();
    shc_vop_format(&q->op, buf, sizeof buf);
    json_object_set_new(o, "op", json_string(buf));
    json_object_set_new(o, "torch", json_string(shc_torch_release_name(q->rel)));
    json_object_set_new(o, "inputShape", shape_json(&q->in));
    json_object_set_new(o, "outputShape", shape_json(&q->out));
    shc_mesh_format(&q->m, mbuf, sizeof mbuf);
    json_object_set_new(o, "mesh", json_string(mbuf));
    json_object_set_new(o, "placements", json_string(pl));
    json_object_set_new(r, "raises", q->rule.raises ? json_string(q->rule.error) : json_null());
    if (!q->rule.raises) {
        shc_placements_format(&q->rule.tgt, buf, sizeof buf);
        json_object_set_new(r, "inputTarget", json_string(buf));
        shc_placements_format(&q->rule.out, buf, sizeof buf);
        json_object_set_new(r, "output", json_string(buf));
        json_object_set_new(r, "redistribute", json_boolean(q->rule.redistribute));
    }
    json_object_set_new(o, "rule", r);
    json_object_set_new(o, "verdict", json_string(shc_vverdict_name(q->chk.verdict)));
    json_object_set_new(o, "firstWrongRank", q->chk.first_rank < 0 ? json_null() :
                        json_integer(q->chk.first_rank));
    json_t *ranks = json_array();
    for (int64_t i = 0; i < q->chk.nranks; i++)
        json_array_append_new(ranks, rank_json(q, &q->chk.ranks[i]));
    json_object_set_new(o, "ranks", ranks);
    int rc = cli_print_json(o); /* it does not steal o */
    json_decref(o);
    return rc;
}

static void print_list(const int64_t *v, int n)
{
    putchar('[');
    for (int i = 0; i < n; i++)
        printf(i ? ",%lld" : "%lld", (long long)v[i]);
    putchar(']');
}

static void print_text(const view_q *q, const char *pl)
{
    char buf[512], mbuf[128], tbuf[256], obuf[256];
    const char *rel = shc_torch_release_name(q->rel);
    shc_vop_format(&q->op, buf, sizeof buf);
    shc_mesh_format(&q->m, mbuf, sizeof mbuf);
    printf("%s of ", buf);
    print_list(q->in.d, q->in.ndim);
    printf(" -> ");
    print_list(q->out.d, q->out.ndim);
    printf("  mesh %s  placements %s\n", mbuf, pl);
    if (q->rule.raises) {
        printf("torch %s rule: raises %s\nverdict: rule-raises\n", rel, q->rule.error);
        return;
    }
    shc_placements_format(&q->rule.tgt, tbuf, sizeof tbuf);
    shc_placements_format(&q->rule.out, obuf, sizeof obuf);
    if (q->rule.redistribute)
        printf("torch %s rule: redistribute input to %s, output %s\n", rel, tbuf, obuf);
    else
        printf("torch %s rule: no redistribution, output %s\n", rel, obuf);
    printf("verdict: %s", shc_vverdict_name(q->chk.verdict));
    if (q->chk.first_rank >= 0)
        printf(" (first at rank %lld)", (long long)q->chk.first_rank);
    printf("\nrank  inputLocal\toutputLocal\tstatus\n");
    for (int64_t i = 0; i < q->chk.nranks; i++) {
        const shc_vrank *rk = &q->chk.ranks[i];
        printf("%-6lld", (long long)rk->rank);
        print_list(rk->in_local.d, rk->in_local.ndim);
        putchar('\t');
        print_list(rk->want_local.d, rk->want_local.ndim);
        printf("\t%s", shc_vverdict_name(rk->status));
        if (rk->status == SHC_VV_LOCAL_ERROR)
            printf(": %s", rk->error);
        if (rk->status == SHC_VV_SHAPE) {
            printf(": the local op gives ");
            print_list(rk->got_local.d, rk->got_local.ndim);
        }
        if (rk->status == SHC_VV_WRONG) {
            printf(": local element %lld holds ", (long long)rk->first);
            print_list(rk->got, q->out.ndim);
            printf(", should hold ");
            print_list(rk->want, q->out.ndim);
        }
        putchar('\n');
    }
}

static int answer(view_q *q, const cli_common *c, const char *op, const char *tver, shc_err *e)
{
    int rc;
    char why[128];
    if ((rc = tv_resolve(tver, NULL, NULL, &q->rel, why, sizeof why, e)))
        return rc; /* its message names --torch-version */
    q->rel = shc_torch_norm(q->rel);
    if ((rc = cli_load_layout(c, &q->m, &q->pl, &q->in, e)))
        return rc;
    if (q->pl.has_order)
        return shc_fail(e, SHC_EINVAL, "--placements: a shard order is not modelled by view "
                        "(torch's view rule reads placements only)");
    if ((rc = shc_vop_parse(&q->op, op, e)))
        return shc_err_prefix(e, "--op"), rc;
    if ((rc = shc_vop_apply(&q->op, &q->in, &q->out, &q->map, e)))
        return shc_err_prefix(e, "--op"), rc;
    if ((rc = shc_vrule_propagate_in(&q->map, &q->in, &q->m, &q->pl, q->rel, NULL, &q->rule,
                                     e)))
        return rc;
    return shc_vcheck_run(&q->op, &q->map, &q->in, &q->out, &q->m, &q->rule, &q->chk, e);
}

static int run(const cli_common *c, const char *op, const char *tver)
{
    shc_err e = {0};
    view_q q;
    memset(&q, 0, sizeof q);
    if (!c->placements || !c->shape || !op)
        return cli_usage_error("view", "--placements, --shape and --op are required (see "
                               "--help)");
    int rc = cli_load_mesh(c, &q.m, &e);
    if (rc)
        return cli_report("view", rc, &e);
    if (cli_check_printed_ranks("view", q.m.size)) {
        shc_mesh_free(&q.m);
        return EXIT_USAGE;
    }
    rc = answer(&q, c, op, tver, &e);
    int x = EXIT_OK;
    if (!rc) {
        char pl[256];
        shc_placements_format(&q.pl, pl, sizeof pl);
        if (c->json)
            x = print_json(&q, pl);
        else
            print_text(&q, pl);
    }
    shc_vcheck_free(&q.chk);
    shc_mesh_free(&q.m);
    return rc ? cli_report("view", rc, &e) : x;
}

int cmd_view(int argc, char **argv)
{
    cli_common c;
    const char *op = NULL, *tver = NULL;
    cli_common_init(&c);
    const cli_option opts[] = {
        CLI_OPT_MESH(&c), CLI_OPT_RANKS(&c), CLI_OPT_PLACEMENTS(&c), CLI_OPT_SHAPE(&c),
        {.name = "op", .kind = CLI_STR, .meta = "OP",
         .help = "view:16,6 reshape:-1,4 flatten[:S[,E]] unflatten:D:2,4 squeeze[:D,..] "
                 "(squeeze([D, ..]): aten.squeeze.dims) unsqueeze:D permute:1,0 transpose:0,1", .to = &op},
        {.name = "torch-version", .kind = CLI_STR, .meta = "V", .to = &tver, .help = TV_HELP},
        CLI_OPT_JSON(&c), CLI_OPT_END};
    const cli_command cmd = {
        .name = "view", .opts = opts,
        .synopsis = "--mesh M [--ranks L] --placements P --shape S --op OP [--torch-version V] "
                    "[--json]",
        .about = "Prints torch's sharding rule for a view-like op (_view_ops.py, as 2.13 runs\n"
                 "it, or the release --torch-version names: 2.11's one-pass rule, 2.12's\n"
                 "differences): the input's redistribution, the output's placements, or the\n"
                 "rule's exception,\n"
                 "and the verdict on it: whether every rank's local result is its slice of\n"
                 "the op on the global tensor (correct, wrong, wrong-shape, local-error,\n"
                 "rule-raises), with each rank's local shapes.  --shape is the global input."};
    int x = cli_parse(&cmd, argc, argv, NULL);
    return x == CLI_GO ? run(&c, op, tver) : x;
}
