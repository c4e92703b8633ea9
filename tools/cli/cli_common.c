/*
 * cli_common.c — what every subcommand shares after its options are parsed
 * (cli_opt.c parses them): usage and library errors as exit codes, the mesh from
 * --mesh/--ranks, the layout from --placements/--shape, JSON output streamed to stdout,
 * and the check that stdout was really written.  Tested through the CLI tests
 * (cli_errors.sh, hardening.sh, cli_layout.sh and cli_view.sh for cli_load_layout).
 */
#include "config.h"
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

/* Set by the build from automake's pkgdatadir; a unit compiled outside tools/ (a fuzz
 * target) gets the default prefix's. */
#ifndef SHC_PKGDATADIR
#define SHC_PKGDATADIR "/usr/local/share/shardcheck"
#endif

const char *cli_golden_installed(void)
{
    return SHC_PKGDATADIR "/golden";
}

static bool has_manifest(const char *dir)
{
    char p[4096];
    int n = snprintf(p, sizeof p, "%s/MANIFEST", dir);
    return n > 0 && (size_t)n < sizeof p && access(p, R_OK) == 0;
}

const char *cli_golden_dir(const char *given, shc_err *e)
{
    if (given)
        return given;
    const char *env = getenv("SHARDCHECK_GOLDEN");
    if (env && *env)
        return env;
    if (has_manifest(cli_golden_installed()))
        return cli_golden_installed();
    if (has_manifest("golden"))
        return "golden";
    shc_fail(e, SHC_EIO, "no golden corpus: none given by --golden, $SHARDCHECK_GOLDEN is not "
             "set, none installed (%s/MANIFEST) and none in this directory (./golden/MANIFEST)",
             cli_golden_installed());
    return NULL;
}

void cli_common_init(cli_common *c)
{
    memset(c, 0, sizeof *c);
    c->rank = -1;
}

/* The longest usage message printed whole: echoed arguments are shortened where they are
 * formatted (CLI_ECHO); this bound is the net under any that is not. */
#define CLI_MSG_MAX 2048

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    char msg[CLI_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "shardcheck %s: %s%s\n", cmd, msg, n >= (int)sizeof msg ? "..." : "");
    return EXIT_USAGE;
}

const char *cli_echo(cli_echo_buf *b, const char *arg)
{
    size_t n = arg ? strlen(arg) : 0;
    if (!arg || n <= CLI_ECHO_MAX)
        return arg ? arg : "";
    size_t k = CLI_ECHO_MAX - 16;
    while (k > 0 && ((unsigned char)arg[k] & 0xc0) == 0x80) /* not inside a UTF-8 sequence */
        k--;
    snprintf(b->s, sizeof b->s, "%.*s... (%zu bytes)", (int)k, arg, n);
    return b->s;
}

int cli_parse_seed(const char *s, uint64_t *out, shc_err *e)
{
    const char *why = "is not a seed: a decimal integer in 0..18446744073709551615";
    if (!s || !*s || *s < '0' || *s > '9')
        return shc_fail(e, SHC_EINVAL, "'%s' %s%s", CLI_ECHO(s), why,
                        s && *s == '-' ? " (torch stores a negative seed s as 2^64 + s)" : "");
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end)
        return shc_fail(e, SHC_EINVAL, "'%s' %s", CLI_ECHO(s), why);
    if (errno == ERANGE)
        return shc_fail(e, SHC_EINVAL, "'%s' is larger than 18446744073709551615 (2^64 - 1)",
                        CLI_ECHO(s));
    *out = (uint64_t)v;
    return SHC_OK;
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

int cli_load_mesh(const cli_common *c, shc_mesh *m, shc_err *e)
{
    if (!c->mesh)
        return shc_fail(e, SHC_EINVAL, "--mesh is required (e.g. --mesh 2x2)");
    int rc = shc_mesh_parse_world(m, c->mesh, c->ranks, c->world, e);
    if (rc && c->world)
        shc_err_prefix(e, "--mesh %s%s%s --world %lld", CLI_ECHO(c->mesh),
                       c->ranks ? " --ranks " : "", c->ranks ? CLI_ECHO(c->ranks) : "", c->world);
    else if (rc)
        shc_err_prefix(e, "--mesh %s%s%s", CLI_ECHO(c->mesh), c->ranks ? " --ranks " : "",
                       c->ranks ? CLI_ECHO(c->ranks) : "");
    return rc;
}

int cli_check_rank(const cli_common *c, const shc_mesh *m, bool world, shc_err *e)
{
    int64_t coord[SHC_MAX_MESH_DIMS];
    int rc = world ? shc_mesh_check_world_rank(m, c->rank, e) : shc_mesh_coord(m, c->rank, coord, e);
    if (rc)
        shc_err_prefix(e, "--rank");
    return rc;
}

int cli_load_layout(const cli_common *c, const shc_mesh *m, shc_placements *pl, shc_shape *s,
                    shc_err *e)
{
    int rc;
    if ((rc = shc_placements_parse(pl, c->placements, e)))
        return shc_err_prefix(e, "--placements"), rc;
    if ((rc = shc_shape_parse(s, c->shape, e)))
        return shc_err_prefix(e, "--shape"), rc;
    /* dims as distribute_tensor normalises them, then checked against the mesh */
    if ((rc = shc_placements_normalize(pl, s->ndim, e)) ||
        (rc = shc_placements_check(pl, m, s->ndim, e)))
        return shc_err_prefix(e, "--placements"), rc;
    return SHC_OK;
}

int cli_print_json_e(json_t *v, shc_err *e)
{
    /* Streamed, not built whole with json_dumps: a million ranks' answer is hundreds of
     * MB of text, and a copy of it is what ran out of memory and printed nothing. */
    errno = 0;
    if (json_dumpf(v, stdout, JSON_COMPACT | JSON_ENCODE_ANY) || putchar('\n') == EOF ||
        fflush(stdout))
        return shc_fail(e, SHC_EIO, "cannot write the JSON output: %s",
                        errno ? strerror(errno) : "out of memory");
    return SHC_OK;
}

int cli_print_json(json_t *v)
{
    shc_err e = {0};
    if (!cli_print_json_e(v, &e))
        return EXIT_OK;
    fprintf(stderr, "shardcheck: %s\n", e.msg);
    return EXIT_USAGE;
}

int cli_printed_ranks_e(int64_t n, shc_err *e)
{
    if (n <= CLI_MAX_PRINTED_RANKS)
        return SHC_OK;
    return shc_fail(e, SHC_EINVAL, "the mesh has %lld ranks; printing every rank is limited to "
                    "%lld ranks: ask for one with --rank R (README, Limits)", (long long)n,
                    (long long)CLI_MAX_PRINTED_RANKS);
}

int cli_whole_mesh_e(const char *what, int64_t n, shc_err *e)
{
    const char *env = getenv("SHARDCHECK_MAX_RANKS");
    long long lim = CLI_MAX_PRINTED_RANKS;
    if (env && *env) {
        char *end;
        errno = 0;
        lim = strtoll(env, &end, 10);
        if (errno || *end || end == env || lim < 1 || lim > SHC_MAX_WORLD)
            return shc_fail(e, SHC_EINVAL, "SHARDCHECK_MAX_RANKS='%s': expected a rank count "
                            "1..%d", CLI_ECHO(env), SHC_MAX_WORLD);
    }
    if (n <= lim)
        return SHC_OK;
    /* a 4096x4096 mesh's groups were 280 MB of text built in 1.7 GB, its audit plan 23 s */
    return shc_fail(e, SHC_EINVAL, "the mesh has %lld ranks; %s, which is limited to %lld "
                    "ranks (output, memory and time grow with the mesh): "
                    "SHARDCHECK_MAX_RANKS=%lld lifts it (README, Limits)", (long long)n, what,
                    lim, (long long)n);
}

int cli_check_printed_ranks(const char *cmd, int64_t n)
{
    shc_err e = {0};
    return cli_printed_ranks_e(n, &e) ? cli_usage_error(cmd, "%s", e.msg) : EXIT_OK;
}

void cli_jstream_open(cli_jstream *s, json_t *head, const char *key)
{
    s->n = 0;
    s->bad = 0;
    char *h = head ? json_dumps(head, JSON_COMPACT) : NULL;
    json_decref(head);
    size_t len = h ? strlen(h) : 0;
    if (head && (len < 2 || h[len - 1] != '}'))
        s->bad = 1;
    /* "{a:1}" -> "{a:1," : the head without its closing brace */
    if (printf("%.*s%s", len >= 2 ? (int)(len - 1) : 1, h ? h : "{", len > 2 ? "," : "") < 0)
        s->bad = 1;
    free(h);
    json_t *k = json_string(key);
    if (!k || json_dumpf(k, stdout, JSON_ENCODE_ANY) || printf(":[") < 0)
        s->bad = 1;
    json_decref(k);
}

void cli_jstream_item(cli_jstream *s, json_t *item)
{
    if ((s->n++ && putchar(',') == EOF) || !item || json_dumpf(item, stdout, JSON_COMPACT))
        s->bad = 1;
    json_decref(item);
}

int cli_jstream_close(cli_jstream *s)
{
    return cli_jstream_close_tail(s, NULL);
}

int cli_jstream_close_tail(cli_jstream *s, json_t *tail)
{
    errno = 0;
    if (printf("]") < 0)
        s->bad = 1;
    const char *k;
    json_t *v;
    json_object_foreach(tail, k, v) {
        json_t *key = json_string(k);
        if (!key || printf(",") < 0 || json_dumpf(key, stdout, JSON_ENCODE_ANY) ||
            printf(":") < 0 || json_dumpf(v, stdout, JSON_COMPACT | JSON_ENCODE_ANY))
            s->bad = 1;
        json_decref(key);
    }
    json_decref(tail);
    if (printf("}\n") < 0 || fflush(stdout) || s->bad) {
        fprintf(stderr, "shardcheck: cannot write the JSON output: %s\n",
                errno ? strerror(errno) : "out of memory");
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

int cli_finish_output(const char *cmd, int code)
{
    errno = 0;
    int bad = fflush(stdout) != 0;
    int err = errno;
    bad |= ferror(stdout) != 0;
    if (fclose(stdout) != 0 && !bad) {
        bad = 1;
        err = errno;
    }
    if (!bad)
        return code;
    if (code == EXIT_OK || code == EXIT_FAIL || code == EXIT_SKIP) /* not reported yet */
        fprintf(stderr, "shardcheck%s%s: cannot write standard output: %s\n", cmd ? " " : "",
                cmd ? cmd : "", err ? strerror(err) : "an earlier write failed");
    return code == EXIT_INTERNAL ? code : EXIT_USAGE;
}
