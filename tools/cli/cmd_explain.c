/*
 * cmd_explain.c — `shardcheck explain`: a picture of who holds what.
 *   explain --mesh M [--ranks L] --placements P --shape S [--op OP] [--svg FILE]
 * draws a layout given on the command line (tools/kit/explain_draw.c: the global tensor
 * with each shard's block, the shards, the groups of every mesh dim; with --op, a random op
 * torch tracks on this layout, each shard's Philox window: an untracked or rejected op is
 * exit 2 saying so, as audit rng decides).
 *   explain --family F --tcid N [--candidate FILE] [--golden DIR] [--svg FILE]
 * draws a golden case instead (explain_case.c): its file, flags and notes,
 * inputs, the picture of its layout(s) and the expected answer per rank; with a candidate
 * (a results file or golden-shaped, as verify reads it) what the candidate got per rank
 * beside the expected, differing fields marked, exit 1 when it fails the case; a run's JSON
 * (run --json) gives the run's status and detail and the views it kept of a failure.  An unknown
 * family, a tcId the family lacks, an invalid (expected-refusal) case and options of the
 * other form are exit 2 naming them.
 * Tested by conformance/tests/cli_explain.sh (pictures, SVG, golden cases, candidates,
 * every error path) and run_failure_groups.sh (a run's JSON as the candidate).
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "explain.h"
#include "explain_case.h"

static const char *const OPS[] = {"uniform", "normal", "random", "bernoulli", "dropout",
                                  "exponential", NULL};

static int explain(const cli_common *c, const char *op, const char *svgpath, const char *tver)
{
    shc_err e = {0};
    xp x = {0};
    x.op = op;
    if (!c->placements || !c->shape)
        return cli_usage_error("explain", "--placements and --shape are required (see --help)");
    const shc_rng_op *row = NULL;
    if (op) { /* a kernel name (uniform, ...) or an op of `shardcheck ops` */
        int i = 0;
        shc_torch_op k;
        while (OPS[i] && strcmp(OPS[i], op))
            i++;
        row = OPS[i] && !shc_torch_op_parse(op, &k, &e) ? shc_rng_op_for_kernel(k)
                                                         : shc_rng_op_find(op);
        if (!row)
            return cli_usage_error("explain", "--op: unknown random op '%s' (one of uniform, "
                                   "normal, random, bernoulli, dropout, exponential, or an op "
                                   "of `shardcheck ops`)", CLI_ECHO(op));
    }
    int rc = cli_load_mesh(c, &x.m, &e);
    if (!rc)
        rc = xp_make(&x, c->placements, c->shape, row, tver, &e);
    if (rc) {
        xp_free(&x);
        return cli_report("explain", rc, &e);
    }
    int code = EXIT_OK;
    if (svgpath && xp_svg_file(&x, svgpath) != 0) {
        fprintf(stderr, "shardcheck explain: --svg %s: cannot write: %s\n", svgpath,
                strerror(errno));
        code = EXIT_USAGE;
    }
    if (code == EXIT_OK)
        xp_print(&x);
    xp_free(&x);
    return code;
}

/* The two forms take different options: each refuses the other's by name. */
static int explain_mode(const cli_command *cmd, const char *family, const char *op,
                        const char *tver)
{
    if (family)
        return cli_used(cmd, "family tcid candidate golden svg torch-version",
                        "with --family (the golden case gives the layout)");
    int x = cli_used(cmd, "mesh ranks world placements shape op svg torch-version",
                     "without --family (it draws a golden case)");
    if (x == CLI_GO && tver && !op) /* the release decides only the random op's dispatch */
        return cli_usage_error("explain", "--torch-version: not used without --op (layouts "
                               "are the same in every release)");
    return x;
}

int cmd_explain(int argc, char **argv)
{
    cli_common c;
    cli_common_init(&c);
    const char *op = NULL, *svgpath = NULL, *tver = NULL;
    explain_case_opts co = {.tcid = -1};
    unsigned long long given = 0;
    const cli_option opts[] = {
        CLI_OPT_MESH(&c), CLI_OPT_RANKS(&c), CLI_OPT_WORLD(&c), CLI_OPT_PLACEMENTS(&c),
        CLI_OPT_SHAPE(&c),
        {.name = "op", .kind = CLI_STR, .meta = "OP", .to = &op,
         .help = "a tracked random op: uniform, normal, bernoulli, dropout or one of `ops`"},
        {.name = "svg", .kind = CLI_STR, .meta = "FILE", .to = &svgpath,
         .help = "also draw it as SVG into FILE"},
        {.name = "torch-version", .kind = CLI_STR, .meta = "V", .to = &tver,
         .help = "with --op: the release whose DTensor dispatch decides (default "
                 "$SHARDCHECK_TORCH_VERSION, else the pinned 2.13); with --family: the "
                 "release whose answer is expected (default: the candidate's, else 2.13)"},
        {.name = "family", .kind = CLI_STR, .meta = "F", .to = &co.family,
         .help = "draw a golden case of family F (with --tcid)"},
        {.name = "tcid", .kind = CLI_LL, .meta = "N", .to = &co.tcid, .lo = 0, .hi = LLONG_MAX,
         .range = "is negative", .help = "with --family: the case"},
        {.name = "candidate", .kind = CLI_STR, .meta = "FILE", .to = &co.candidate,
         .help = "with --family: a results file (as verify reads it) or a run's JSON "
                 "(run --json): its answer per rank beside the expected"},
        {.name = "golden", .kind = CLI_STR, .meta = "DIR", .to = &co.golden,
         .help = "with --family: " CLI_GOLDEN_HELP},
        CLI_OPT_END};
    char about[800];
    snprintf(about, sizeof about,
             "Who holds what: the global tensor with each shard's block, the shards (uneven and\n"
             "empty marked), the groups of every mesh dim; with --op each shard's Philox window\n"
             "on the counter line (! past end_incr, X overlapping another shard, same starts\n"
             "named).  Meshes of at most %d ranks; any shape (the picture is scaled to at most\n"
             "32 x 64 cells, the counter line to 64 chars).  With --family F --tcid N: a golden\n"
             "case, its flags, inputs, picture and expected answer per rank; with --candidate\n"
             "FILE what the candidate got beside it, differing fields marked by '*' (exit 1 when\n"
             "it fails the case).", XP_MAX_WORLD);
    const cli_command cmd = {.name = "explain", .opts = opts, .about = about, .given = &given,
                             .synopsis = "--mesh M [--ranks L] [--world W] --placements P "
                                         "--shape S [--op OP] "
                                         "[--svg FILE] [--torch-version V]\n"
                                         "       shardcheck explain --family F --tcid N "
                                         "[--candidate FILE] [--golden DIR] [--svg FILE] "
                                         "[--torch-version V]"};
    int x = cli_parse(&cmd, argc, argv, NULL);
    if (x != CLI_GO)
        return x;
    if (svgpath && !*svgpath)
        return cli_usage_error("explain", "--svg: empty file name");
    if ((x = explain_mode(&cmd, co.family, op, tver)) != CLI_GO)
        return x;
    if (!co.family)
        return explain(&c, op, svgpath, tver);
    if (co.tcid < 0)
        return cli_usage_error("explain", "--family: give the case with --tcid N");
    co.svg = svgpath;
    co.tver = tver;
    return explain_case(&co);
}
