/*
 * cli_common.c — option handling and reporting shared by all subcommands.
 */
#include "config.h"
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

void cli_common_init(cli_common *c)
{
    memset(c, 0, sizeof *c);
    c->rank = -1;
}

int cli_parse_ll(const char *cmd, const char *opt, const char *arg, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(arg, &end, 10);
    if (errno || end == arg || *end) {
        cli_usage_error(cmd, "--%s: '%s' is not an integer", opt, arg);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_common_opt(cli_common *c, int opt, const char *arg, const char *cmd)
{
    switch (opt) {
    case OPT_MESH: c->mesh = arg; return 1;
    case OPT_RANKS: c->ranks = arg; return 1;
    case OPT_PLACEMENTS: c->placements = arg; return 1;
    case OPT_SHAPE: c->shape = arg; return 1;
    case OPT_JSON: c->json = 1; return 1;
    case OPT_RANK:
        if (cli_parse_ll(cmd, "rank", arg, &c->rank))
            return -1;
        if (c->rank < 0) {
            cli_usage_error(cmd, "--rank: %lld is negative", c->rank);
            return -1;
        }
        return 1;
    default: return 0;
    }
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "shardcheck %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    return EXIT_USAGE;
}

int cli_report(const char *cmd, int rc, const shc_err *e)
{
    if (rc == SHC_OK)
        return EXIT_OK;
    fprintf(stderr, "shardcheck %s: %s\n", cmd, e && e->msg[0] ? e->msg : shc_strerror(rc));
    switch (rc) {
    case SHC_EINVAL: case SHC_EOVERFLOW: case SHC_EFORMAT: case SHC_EIO: return EXIT_USAGE;
    case SHC_EUNSUPPORTED: return EXIT_SKIP;
    default: return EXIT_INTERNAL;
    }
}

int cli_no_positionals(const char *cmd, int argc, char **argv)
{
    if (optind < argc)
        return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    return 0;
}

int cli_load_mesh(const cli_common *c, shc_mesh *m, shc_err *e)
{
    if (!c->mesh)
        return shc_fail(e, SHC_EINVAL, "--mesh is required (e.g. --mesh 2x2)");
    int rc = shc_mesh_parse(m, c->mesh, c->ranks, e);
    if (rc)
        shc_err_prefix(e, "--mesh %s%s%s", c->mesh, c->ranks ? " --ranks " : "",
                       c->ranks ? c->ranks : "");
    return rc;
}

int cli_print_json(json_t *v)
{
    char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    if (!s)
        return EXIT_INTERNAL;
    puts(s);
    free(s);
    return EXIT_OK;
}
