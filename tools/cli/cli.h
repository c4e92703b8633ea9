/*
 * cli.h — shared pieces of the shardcheck command-line tool.
 *
 * Each subcommand is `int cmd_NAME(int argc, char **argv)` in tools/cli/cmd_NAME.c.  It
 * declares its options as a table of cli_option (name, kind, argument name, help line,
 * target) and a cli_command (name, usage line, description), and calls cli_parse
 * (cli_opt.c), which is the only option loop: it fills the targets, prints the
 * generated --help, and reports every usage error as "shardcheck CMD: --opt: reason"
 * with exit 2.  Exit codes follow docs/DESIGN.md: 0 all good, 1 failures, 2 bad usage
 * or input, 77 skipped, 99 internal error.  The common options (mesh, rank map,
 * placements, shape, rank, --json) come from the CLI_OPT_* macros so every command
 * spells, documents and checks them the same way.  Reports (text/TAP/JUnit/JSON) go
 * through report.h.  conformance/tests/cli_framework.sh checks every command's --help
 * and usage errors; the per-command tests check the rest.
 */
#ifndef SHC_CLI_H
#define SHC_CLI_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>
#include "shardcheck.h"

#include "exit_codes.h"

/* Options most query commands share. */
typedef struct cli_common {
    const char *mesh, *ranks, *placements, *shape;
    long long rank;   /* -1 = every rank */
    long long world;  /* --world: ranks in the world (0: the mesh's size) */
    int json;
} cli_common;

/* ---- declaring and parsing options (cli_opt.c) ---- */

typedef enum {
    CLI_FLAG,   /* no argument: *(int *)to = set (1 when set is 0) */
    CLI_STR,    /* *(const char **)to = the argument */
    CLI_LL,     /* *(long long *)to = the argument as an integer in [lo, hi] */
    CLI_CHOICE, /* *(int *)to = the argument's index in choices (NULL-terminated) */
    CLI_CALL,   /* call(ctx, arg, e): anything else; SHC_OK or a code with e's reason */
    CLI_LIST,   /* repeatable: ((const char **)to)[(*count)++] = the argument, at most hi */
    CLI_SEED    /* *(uint64_t *)to = a seed: decimal 0..18446744073709551615 (cli_parse_seed) */
} cli_kind;

typedef struct cli_option {
    const char *name;            /* long name without "--" */
    cli_kind kind;
    const char *meta;            /* the argument in --help ("M", "FILE"); NULL for flags */
    const char *help;            /* one line of --help */
    void *to;
    long long lo, hi;            /* CLI_LL: accepted range (both 0: any value) */
    const char *range;           /* CLI_LL: why a value outside it is refused ("is negative") */
    const char *const *choices;  /* CLI_CHOICE */
    int (*call)(void *ctx, const char *arg, shc_err *e); /* CLI_CALL */
    int set;                     /* CLI_FLAG: the value stored (0 means 1) */
    int *count;                  /* CLI_LIST: how many arguments `to` holds */
    int *mark;                   /* any kind: set to 1 when the option is given (may be NULL) */
} cli_option;

typedef struct cli_command {
    const char *name;            /* as typed: "layout", "audit rng" */
    const char *synopsis;        /* the usage line after "shardcheck NAME " */
    const char *about;           /* printed after the option list (may be NULL) */
    const cli_option *opts;      /* ends with an entry whose name is NULL */
    void *ctx;                   /* passed to CLI_CALL options */
    const char *positional;      /* NULL: positional arguments are usage errors */
    unsigned long long *given;   /* may be NULL: bit i set when opts[i] is given (cli_used) */
} cli_command;

/* Why a command without --torch-version has none (its --help and the refusal say it; the
 * rule is README's "torch releases"): a command whose answer can differ between releases
 * takes the option, every other one refuses it by name. */
#define CLI_NO_RELEASE "its answers are the same in every torch release 2.11-2.15, " \
    "docs/torch-releases.md"

/* cli_parse's answer when the command should go on (anything else is its exit code). */
enum { CLI_GO = -1 };
/* Parse argv[1..argc) against cmd's table: CLI_GO with targets filled and *first_pos
 * (may be NULL) the first positional's index; EXIT_OK after printing --help to stdout;
 * EXIT_USAGE after "shardcheck CMD: --opt: reason" on stderr. */
int cli_parse(const cli_command *cmd, int argc, char **argv, int *first_pos);
/* Print cmd's generated --help to f. */
void cli_help(const cli_command *cmd, FILE *f);

/* No silently ignored option (issue 25 item 4): after cli_parse, a command that knows its
 * mode (an engine, a format, a backend) names the options that mode uses, as a
 * space-separated list; the first other option given is refused as
 * "shardcheck CMD: --opt: not used MODE" (mode e.g. "with --engine philox"), EXIT_USAGE.
 * CLI_GO when every given option is in the list (cmd->given must be set). */
int cli_used(const cli_command *cmd, const char *used, const char *mode);
/* Whether the option called name was given (cmd->given must be set). */
bool cli_given(const cli_command *cmd, const char *name);

/* A seed, as every command takes one: the unsigned 64-bit value torch's generator holds
 * (torch.initial_seed()), in decimal, 0..18446744073709551615; a sign, another base or a
 * larger value is refused (torch.manual_seed(-1) stores 18446744073709551615: give that). */
int cli_parse_seed(const char *s, uint64_t *out, shc_err *e);

/* User input echoed in a message: the argument itself, or when longer than CLI_ECHO_MAX
 * bytes its first part, "..." and its length, so a 100 kB argument costs one line. */
#define CLI_ECHO_MAX 64
typedef struct cli_echo_buf {
    char s[CLI_ECHO_MAX + 40];
} cli_echo_buf;
const char *cli_echo(cli_echo_buf *b, const char *arg);
/* cli_echo with a buffer living to the end of the enclosing block. */
#define CLI_ECHO(arg) cli_echo(&(cli_echo_buf){{0}}, (arg))

/* The common options, one spelling and one help line each. */
#define CLI_OPT_MESH(c) {.name = "mesh", .kind = CLI_STR, .meta = "M", \
        .help = "device mesh shape, e.g. 2x4", .to = &(c)->mesh}
#define CLI_OPT_RANKS(c) {.name = "ranks", .kind = CLI_STR, .meta = "L", \
        .help = "rank map, row-major, e.g. 3,1,2,0 (default arange)", .to = &(c)->ranks}
#define CLI_OPT_PLACEMENTS(c) {.name = "placements", .kind = CLI_STR, .meta = "P", \
        .help = "e.g. 'S(0),R', 'P(sum),_S(0, 2)' or the trace form 'S(0)[1]S(0)[0]'", \
        .to = &(c)->placements}
#define CLI_OPT_SHAPE(c) {.name = "shape", .kind = CLI_STR, .meta = "S", \
        .help = "global tensor shape, e.g. 8,16", .to = &(c)->shape}
#define CLI_OPT_RANK(c) {.name = "rank", .kind = CLI_LL, .meta = "R", \
        .help = "only this global rank", .to = &(c)->rank, .lo = 0, .hi = LLONG_MAX, \
        .range = "is negative"}
/* Only commands that answer for ranks off the mesh declare it (layout, groups). */
#define CLI_OPT_WORLD(c) {.name = "world", .kind = CLI_LL, .meta = "W", \
        .help = "ranks in the world (default the mesh's size); --ranks may then name any " \
        "distinct ranks below W, the others hold no part of the mesh", .to = &(c)->world, \
        .lo = 1, .hi = SHC_MAX_WORLD, .range = "is not 1 to 16777216"}
#define CLI_OPT_JSON(c) {.name = "json", .kind = CLI_FLAG, \
        .help = "one JSON object instead of text", .to = &(c)->json}
/* All six, for the layout queries. */
#define CLI_OPTS_LAYOUT(c) CLI_OPT_MESH(c), CLI_OPT_RANKS(c), CLI_OPT_PLACEMENTS(c), \
        CLI_OPT_SHAPE(c), CLI_OPT_RANK(c), CLI_OPT_JSON(c)
#define CLI_OPT_END {.name = NULL}

/* Reset to defaults (rank = -1). */
/* The golden corpus a command reads, found the same way by every command (issue 22 item 7):
 * --golden as given, else $SHARDCHECK_GOLDEN (when set and not empty), else the installed copy
 * (`make install` puts it in $(pkgdatadir)/golden), else ./golden; the last two only where a
 * MANIFEST is.  NULL with e naming every place looked at when none is. */
const char *cli_golden_dir(const char *given, shc_err *e);
#define CLI_GOLDEN_HELP "golden directory (default $SHARDCHECK_GOLDEN, else the installed " \
    "corpus, else ./golden)"
/* The installed corpus's directory ($(pkgdatadir)/golden), for messages and `families`. */
const char *cli_golden_installed(void);

void cli_common_init(cli_common *c);
/* Map a library return code to an exit code and print "shardcheck CMD: msg". */
int cli_report(const char *cmd, int rc, const shc_err *e);
/* Print a usage error for cmd and return EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Parse --mesh/--ranks (and --world where the command has it) into m, with the option
 * named in errors. */
int cli_load_mesh(const cli_common *c, shc_mesh *m, shc_err *e);
/* --rank R (given: c->rank >= 0) against mesh m: any rank of the world when world is true (on
 * the mesh or off it), else a rank of the mesh; errors prefixed "--rank".  One check, one
 * wording for every command that takes --rank with --world. */
int cli_check_rank(const cli_common *c, const shc_mesh *m, bool world, shc_err *e);
/* Parse --placements and --shape for mesh m (loaded by cli_load_mesh): placement dims
 * normalised by the shape's ndim and checked against m, errors prefixed "--placements" or
 * "--shape".  One reading for every layout query (layout, view), so they refuse alike. */
int cli_load_layout(const cli_common *c, const shc_mesh *m, shc_placements *pl, shc_shape *s,
                    shc_err *e);
/* Print a JSON value compactly followed by a newline (streamed); returns EXIT_OK, or
 * EXIT_USAGE after a message when the output cannot be written. */
int cli_print_json(json_t *v);
/* The same for code that reports through shc_err: SHC_OK or SHC_EIO with the reason. */
int cli_print_json_e(json_t *v, shc_err *e);
/* Most ranks a query prints at once (layout, offsets, plan without --rank): output and
 * time grow with the mesh, so larger meshes are answered one --rank at a time. */
#define CLI_MAX_PRINTED_RANKS ((int64_t)1 << 20)
/* EXIT_OK, or a usage error naming the limit when printing n ranks exceeds it. */
int cli_check_printed_ranks(const char *cmd, int64_t n);
/* The same as SHC_OK or SHC_EINVAL with the message in e. */
int cli_printed_ranks_e(int64_t n, shc_err *e);
/* Commands that cover every rank whatever --rank says (groups lists every group of every
 * mesh dim, audit rng and audit plan audit every rank): SHC_OK when n ranks are within
 * CLI_MAX_PRINTED_RANKS, or within SHARDCHECK_MAX_RANKS (up to SHC_MAX_WORLD) where it is
 * set to lift it; else SHC_EINVAL naming what (the work) and how to lift the limit. */
int cli_whole_mesh_e(const char *what, int64_t n, shc_err *e);

/* A JSON object streamed to stdout whose last member is a long array, one item at a
 * time: memory stays one item's, not the whole answer's (a million ranks' offsets were
 * 1.8 GB as one json_t).  Bytes are those json_dumps(JSON_COMPACT) gives for the whole. */
typedef struct cli_jstream {
    long long n;
    int bad;
} cli_jstream;
/* Print head's members (head may be NULL; its reference is stolen) and `"key":[`. */
void cli_jstream_open(cli_jstream *s, json_t *head, const char *key);
/* Print one item (reference stolen). */
void cli_jstream_item(cli_jstream *s, json_t *item);
/* Print `]}` and a newline; EXIT_OK, or EXIT_USAGE after a message if a write failed. */
int cli_jstream_close(cli_jstream *s);
/* The same, with tail's members after the array (tail may be NULL; its reference is stolen):
 * what is known only once every item has been seen. */
int cli_jstream_close_tail(cli_jstream *s, json_t *tail);

/* Flush and close stdout at exit: a lost write turns code into EXIT_USAGE (2) with a
 * message (EXIT_INTERNAL stays), so output is never lost silently. */
int cli_finish_output(const char *cmd, int code);

/* Subcommands (mk/cli.am lists their files). */
int cmd_layout(int argc, char **argv);
int cmd_groups(int argc, char **argv);
int cmd_view(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_families(int argc, char **argv);
int cmd_registry(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_rng(int argc, char **argv);
int cmd_offsets(int argc, char **argv);
int cmd_policies(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_audit(int argc, char **argv);    /* dispatches to the two below (shardcheck.c) */
int cmd_audit_rng(int argc, char **argv);
int cmd_rng_ops(int argc, char **argv);
int cmd_trackers(int argc, char **argv);
/* One row of `trackers` as JSON (cmd_rng_tables.c; offsets --tracker prints it too). */
json_t *cli_tracker_json(const shc_rng_tracker *t);
int cmd_audit_plan(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_placement(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_certify(int argc, char **argv);
int cmd_lifecycle(int argc, char **argv);
int cmd_mesh_layout(int argc, char **argv);

#endif
