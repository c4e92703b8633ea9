/*
 * shardcheck.c — entry point of the shardcheck CLI: dispatch to subcommands.
 * The contract (syntax, JSON shapes, exit codes) is in docs/DESIGN.md and README.md;
 * conformance/tests/refusals.sh (the tables in refusals/) and cli_errors.sh check its error
 * paths, and cli_framework.sh runs
 * every command that `shardcheck --list-commands` prints through the common checks.
 */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include "cli.h"

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
    const char *subs; /* its own subcommands, for --list-commands */
} commands[] = {
    {"layout", cmd_layout, "per-rank local shape and global offset of a sharded tensor", NULL},
    {"view", cmd_view, "torch's sharding rule for a view-like op, and whether its answer is right", NULL},
    {"groups", cmd_groups, "process-group rank lists of a device mesh (and HSDP groups)", NULL},
    {"mesh-layout", cmd_mesh_layout, "torch's layout algebra of mesh dims: normal form, "
     "complement, group rank lists", NULL},
    {"offsets", cmd_offsets, "per-rank Philox offsets of DTensor's RNG tracker", NULL},
    {"policies", cmd_policies, "RNG policies x SPMD properties table", NULL},
    {"lifecycle", cmd_lifecycle, "DTensor's RNG set-up per rank: manual_seed, the tracker's "
     "sync, _PhiloxState bytes", NULL},
    {"ops", cmd_rng_ops, "torch's random ops: tracked, untracked or rejected by DTensor", NULL},
    {"trackers", cmd_trackers, "registered RNG trackers and the policy each keeps", NULL},
    {"plan", cmd_plan, "redistribute plan per rank (greedy or min-cost planner)", NULL},
    {"rng", cmd_rng, "random streams: philox, curand, torch-cuda, threefry", NULL},
    {"audit", cmd_audit, "SPMD-invariant findings: audit rng | audit plan", "rng plan"},
    {"placement", cmd_placement, "torch's placement predicates, equality, shardability, shard "
     "orders, global shape", "show shardable order global"},
    {"explain", cmd_explain, "a picture of who holds what: blocks, groups, Philox windows (--svg)", NULL},
    {"gen", cmd_gen, "regenerate golden files from the case tables", NULL},
    {"families", cmd_families, "the registered golden families, their cases and oracles", NULL},
    {"registry", cmd_registry, "releases, families, flags and backends as scripts read them "
     "(--json)", NULL},
    {"verify", cmd_verify, "check a candidate's results against a golden family", NULL},
    {"run", cmd_run, "run the conformance suite on a backend (ref, local, mpi, cuda, torch, plugin:F.so)", NULL},
    {"report", cmd_report, "one self-contained HTML page from run/verify --json output", NULL},
    {"certify", cmd_certify, "a submission package: results, report, statement, sha256 MANIFEST",
     NULL},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
    fprintf(f, "usage: shardcheck COMMAND [options]   (shardcheck COMMAND --help)\n\ncommands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nexit codes: 0 ok, 1 failures, 2 bad usage or input, 77 skipped, 99 internal error\n");
}

int cmd_audit(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "rng") == 0)
        return cmd_audit_rng(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "plan") == 0)
        return cmd_audit_plan(argc - 1, argv + 1);
    const cli_option none[] = {CLI_OPT_END};
    const cli_command cmd = {.name = "audit", .opts = none, .positional = "rng|plan",
                             .synopsis = "rng|plan [layout options]",
                             .about = "See shardcheck audit rng --help and audit plan --help."};
    int x = cli_parse(&cmd, argc, argv, NULL);
    return x != CLI_GO ? x : cli_usage_error("audit", "expected 'rng' or 'plan' after 'audit'");
}

/* Every command a user can type, one a line ("audit rng"): what cli_framework.sh tests. */
static void list_commands(void)
{
    for (size_t i = 0; i < NCOMMANDS; i++) {
        printf("%s\n", commands[i].name);
        for (const char *p = commands[i].subs; p && *p;) {
            size_t n = strcspn(p, " ");
            printf("%s %.*s\n", commands[i].name, (int)n, p);
            p += n + (p[n] == ' ');
        }
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return cli_finish_output(NULL, EXIT_OK);
    }
    if (!strcmp(argv[1], "--list-commands")) {
        list_commands();
        return cli_finish_output(NULL, EXIT_OK);
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
        printf("shardcheck %s (reference: pytorch 2.13.0, cuda 13.0 curand, random123 1.14)\n",
               shc_version());
        return cli_finish_output(NULL, EXIT_OK);
    }
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(argv[1], commands[i].name))
            return cli_finish_output(commands[i].name, commands[i].fn(argc - 1, argv + 1));
    fprintf(stderr, "shardcheck: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return EXIT_USAGE;
}
