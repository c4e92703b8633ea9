/*
 * cli_opt.c — the one option loop of the shardcheck CLI (see cli.h).
 *
 * Every command hands cli_parse a table of its options; getopt_long runs with
 * opterr = 0 so that every usage error is reported here, in one form:
 * "shardcheck CMD: --opt: reason" and exit 2 (docs/DESIGN.md, CLI contract), and
 * --help is generated from the same table, so the help cannot drift from what is
 * accepted.  An option given twice is refused by name unless it is a CLI_LIST (the
 * repeatable kind).  conformance/tests/cli_framework.sh runs --help, an unknown option, a
 * missing argument, a stray argument and a repeated option against every command the program
 * lists.
 */
#include "config.h"
#include <assert.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

/* Room for the largest table (rng: 31 options); a bigger one is a programming error (and
 * cli_command.given has one bit per option). */
#define CLI_MAX_OPTS 48
/* getopt_long ids: 'h' is --help, options are CLI_ID0 + their index (never ':' or '?'). */
#define CLI_ID0 256

static void help_choices(const cli_option *o, FILE *f)
{
    fputs(" (", f);
    for (int i = 0; o->choices[i]; i++)
        fprintf(f, "%s%s", i ? ", " : "", o->choices[i]);
    fputs(")", f);
}

/* Whether cmd has a --torch-version option (its answer can depend on the release). */
static bool takes_release(const cli_command *cmd)
{
    for (const cli_option *o = cmd->opts; o && o->name; o++)
        if (!strcmp(o->name, "torch-version"))
            return true;
    return false;
}

void cli_help(const cli_command *cmd, FILE *f)
{
    fprintf(f, "usage: shardcheck %s %s\n", cmd->name, cmd->synopsis ? cmd->synopsis : "[options]");
    if (cmd->positional)
        fprintf(f, "\narguments: %s\n", cmd->positional);
    fputs("\noptions:\n", f);
    for (const cli_option *o = cmd->opts; o && o->name; o++) {
        char left[64];
        snprintf(left, sizeof left, "--%s%s%s", o->name, o->meta ? " " : "",
                 o->meta ? o->meta : "");
        /* a long left column gets its own line, so the help column stays aligned */
        if (strlen(left) > 22)
            fprintf(f, "  %s\n  %-22s ", left, "");
        else
            fprintf(f, "  %-22s ", left);
        fputs(o->help ? o->help : "", f);
        if (o->kind == CLI_CHOICE && o->choices)
            help_choices(o, f);
        fputc('\n', f);
    }
    fprintf(f, "  %-22s %s\n", "--help", "print this help and exit");
    if (!takes_release(cmd))
        fprintf(f, "\nno --torch-version (%s;\n$SHARDCHECK_TORCH_VERSION is not read)\n",
                CLI_NO_RELEASE);
    if (cmd->about) {
        size_t n = strlen(cmd->about);
        fprintf(f, "\n%s%s", cmd->about, n && cmd->about[n - 1] == '\n' ? "" : "\n");
    }
}

static int set_ll(const cli_command *cmd, const cli_option *o, const char *arg)
{
    char *end;
    errno = 0;
    long long v = strtoll(arg, &end, 10);
    if (errno || end == arg || *end)
        return cli_usage_error(cmd->name, "--%s: '%s' is not an integer", o->name,
                               CLI_ECHO(arg));
    if ((o->lo || o->hi) && (v < o->lo || v > o->hi)) {
        if (o->range)
            return cli_usage_error(cmd->name, "--%s: %lld %s", o->name, v, o->range);
        return cli_usage_error(cmd->name, "--%s: %lld is outside %lld..%lld", o->name, v, o->lo,
                               o->hi);
    }
    *(long long *)o->to = v;
    return CLI_GO;
}

static int set_choice(const cli_command *cmd, const cli_option *o, const char *arg)
{
    for (int i = 0; o->choices[i]; i++)
        if (!strcmp(o->choices[i], arg)) {
            *(int *)o->to = i;
            return CLI_GO;
        }
    char list[256] = "";
    for (int i = 0; o->choices[i]; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                 o->choices[i]);
    return cli_usage_error(cmd->name, "--%s: unknown value '%s' (one of %s)", o->name,
                           CLI_ECHO(arg), list);
}

static int set_list(const cli_command *cmd, const cli_option *o, const char *arg)
{
    assert(o->count && o->hi > 0);
    if (*o->count >= o->hi)
        return cli_usage_error(cmd->name, "--%s: at most %lld", o->name, o->hi);
    ((const char **)o->to)[(*o->count)++] = arg;
    return CLI_GO;
}

static int set_value(const cli_command *cmd, const cli_option *o, const char *arg)
{
    if (o->mark)
        *o->mark = 1;
    switch (o->kind) {
    case CLI_FLAG: *(int *)o->to = o->set ? o->set : 1; return CLI_GO;
    case CLI_STR:
        /* a path option given "" named the filesystem root: `gen --out ""` wrote /MANIFEST
         * (issue 38 M9); every FILE or DIR option refuses it here, by name */
        if (!*arg && o->meta && (!strncmp(o->meta, "FILE", 4) || !strncmp(o->meta, "DIR", 3)))
            return cli_usage_error(cmd->name, "--%s: empty (give a %s)", o->name, o->meta);
        *(const char **)o->to = arg;
        return CLI_GO;
    case CLI_LL: return set_ll(cmd, o, arg);
    case CLI_CHOICE: return set_choice(cmd, o, arg);
    case CLI_LIST: return set_list(cmd, o, arg);
    case CLI_SEED: {
        shc_err e = {0};
        if (cli_parse_seed(arg, (uint64_t *)o->to, &e) == SHC_OK)
            return CLI_GO;
        return cli_usage_error(cmd->name, "--%s: %s", o->name, e.msg);
    }
    case CLI_CALL: {
        shc_err e = {0};
        int rc = o->call(cmd->ctx, arg, &e);
        if (rc == SHC_OK)
            return CLI_GO;
        return cli_usage_error(cmd->name, "--%s: %s", o->name, e.msg[0] ? e.msg : shc_strerror(rc));
    }
    }
    return cli_usage_error(cmd->name, "--%s: not handled (internal)", o->name);
}

/* How many of the table's names (and --help) start with the n bytes of s. */
static int prefix_matches(const cli_command *cmd, const char *s, size_t n)
{
    int k = !strncmp("help", s, n);
    for (const cli_option *o = cmd->opts; o && o->name; o++)
        k += !strncmp(o->name, s, n);
    return k;
}

/* getopt_long said '?': an unknown option, an ambiguous abbreviation, or a flag given
 * "=value". */
static int bad_option(const cli_command *cmd, int argc, char **argv, int nopts)
{
    if (optopt >= CLI_ID0 && optopt < CLI_ID0 + nopts)
        return cli_usage_error(cmd->name, "--%s: takes no argument",
                               cmd->opts[optopt - CLI_ID0].name);
    if (optopt && optopt < CLI_ID0)
        return cli_usage_error(cmd->name, "-%c: unknown option (see shardcheck %s --help)",
                               optopt, cmd->name);
    const char *a = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
    size_t n = strcspn(a, "=");
    const char *why = strncmp(a, "--", 2) == 0 && n > 2 && prefix_matches(cmd, a + 2, n - 2) > 1
                    ? "ambiguous abbreviation" : "unknown option";
    if (n == strlen("--torch-version") && strncmp(a, "--torch-version", n) == 0)
        return cli_usage_error(cmd->name, "--torch-version: not taken by %s (%s)", cmd->name,
                               CLI_NO_RELEASE);
    char name[CLI_ECHO_MAX + 1];
    snprintf(name, sizeof name, "%.*s", (int)n, a);
    return cli_usage_error(cmd->name, "%s%s: %s (see shardcheck %s --help)", name,
                           n > CLI_ECHO_MAX ? "..." : "", why, cmd->name);
}

static int build_longopts(const cli_command *cmd, struct option *lo, int *nopts)
{
    int n = 0;
    for (const cli_option *o = cmd->opts; o && o->name; o++, n++) {
        if (n == CLI_MAX_OPTS) {
            fprintf(stderr, "shardcheck %s: more than %d options (internal)\n", cmd->name,
                    CLI_MAX_OPTS);
            return EXIT_INTERNAL;
        }
        lo[n] = (struct option){o->name, o->kind == CLI_FLAG ? no_argument : required_argument,
                                NULL, CLI_ID0 + n};
    }
    lo[n++] = (struct option){"help", no_argument, NULL, 'h'};
    lo[n] = (struct option){NULL, 0, NULL, 0};
    *nopts = n - 1;
    return CLI_GO;
}

int cli_parse(const cli_command *cmd, int argc, char **argv, int *first_pos)
{
    struct option lo[CLI_MAX_OPTS + 2];
    int nopts, rc = build_longopts(cmd, lo, &nopts), c;
    if (rc != CLI_GO)
        return rc;
    optind = 0; /* glibc: a full restart (audit rng|plan hands over argv + 1, not main's argv) */
    opterr = 0;
    if (cmd->given)
        *cmd->given = 0;
    unsigned long long seen = 0;
    while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
        if (c == 'h') {
            cli_help(cmd, stdout);
            return EXIT_OK;
        }
        if (c == ':')
            return optopt >= CLI_ID0 && optopt < CLI_ID0 + nopts
                 ? cli_usage_error(cmd->name, "--%s: needs an argument (%s)",
                                   cmd->opts[optopt - CLI_ID0].name,
                                   cmd->opts[optopt - CLI_ID0].meta)
                 : cli_usage_error(cmd->name, "%s: needs an argument",
                                   CLI_ECHO(argv[optind - 1]));
        if (c == '?' || c < CLI_ID0 || c >= CLI_ID0 + nopts)
            return bad_option(cmd, argc, argv, nopts);
        /* one value each: `--candidate bad --candidate good` checked the good one only
         * (issue 38 M16); a CLI_LIST option is the repeatable kind, and says so */
        if (seen >> (c - CLI_ID0) & 1 && cmd->opts[c - CLI_ID0].kind != CLI_LIST)
            return cli_usage_error(cmd->name, "--%s: given more than once (it takes one "
                                   "value; see shardcheck %s --help)",
                                   cmd->opts[c - CLI_ID0].name, cmd->name);
        seen |= 1ull << (c - CLI_ID0);
        if (cmd->given)
            *cmd->given |= 1ull << (c - CLI_ID0);
        if ((rc = set_value(cmd, &cmd->opts[c - CLI_ID0], optarg)) != CLI_GO)
            return rc;
    }
    if (!cmd->positional && optind < argc)
        return cli_usage_error(cmd->name, "unexpected argument '%s'", CLI_ECHO(argv[optind]));
    if (first_pos)
        *first_pos = optind;
    return CLI_GO;
}

/* Is name one of the space-separated words of list? */
static bool listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        size_t k = strcspn(p, " ");
        if (k == n && !strncmp(p, name, n))
            return true;
        p += k;
        p += strspn(p, " ");
    }
    return false;
}

int cli_used(const cli_command *cmd, const char *used, const char *mode)
{
    assert(cmd->given);
    int i = 0;
    for (const cli_option *o = cmd->opts; o && o->name; o++, i++)
        if ((*cmd->given >> i & 1) && !listed(used, o->name))
            return cli_usage_error(cmd->name, "--%s: not used %s", o->name, mode);
    return CLI_GO;
}

bool cli_given(const cli_command *cmd, const char *name)
{
    assert(cmd->given);
    int i = 0;
    for (const cli_option *o = cmd->opts; o && o->name; o++, i++)
        if (!strcmp(o->name, name))
            return *cmd->given >> i & 1;
    assert(!"cli_given: no such option");
    return false;
}
