/*
 * cli.h — shared pieces of the shardcheck command-line tool.
 *
 * Each subcommand is `int cmd_NAME(int argc, char **argv)` in tools/cmd_NAME.c,
 * parses its own options with getopt_long, and returns an exit code from the
 * contract in docs/DESIGN.md: 0 all good, 1 failures, 2 bad usage or input,
 * 77 skipped, 99 internal error.  Common options (mesh, rank map, placements,
 * shape, rank, --json) are parsed by cli_common.c so every command spells
 * and reports them the same way.
 */
#ifndef SHC_CLI_H
#define SHC_CLI_H

#include <getopt.h>
#include <stdio.h>
#include <jansson.h>
#include "shardcheck.h"

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2, EXIT_SKIP = 77, EXIT_INTERNAL = 99 };

/* Options most query commands share. */
typedef struct cli_common {
    const char *mesh, *ranks, *placements, *shape;
    long long rank;   /* -1 = every rank */
    int json;
} cli_common;

/* Long-option ids for the common options (use in each command's option table). */
enum { OPT_MESH = 1000, OPT_RANKS, OPT_PLACEMENTS, OPT_SHAPE, OPT_RANK, OPT_JSON, OPT_HELP,
       OPT_CMD_BASE = 1100 /* commands number their own options from here */ };

#define CLI_COMMON_OPTIONS                                     \
    {"mesh", required_argument, NULL, OPT_MESH},               \
    {"ranks", required_argument, NULL, OPT_RANKS},             \
    {"placements", required_argument, NULL, OPT_PLACEMENTS},   \
    {"shape", required_argument, NULL, OPT_SHAPE},             \
    {"rank", required_argument, NULL, OPT_RANK},               \
    {"json", no_argument, NULL, OPT_JSON},                     \
    {"help", no_argument, NULL, OPT_HELP}

/* Reset to defaults (rank = -1). */
void cli_common_init(cli_common *c);
/* Handle a common option; returns 1 if consumed, 0 if not ours, -1 on error (reported). */
int cli_common_opt(cli_common *c, int opt, const char *arg, const char *cmd);
/* Map a library return code to an exit code and print "shardcheck CMD: msg". */
int cli_report(const char *cmd, int rc, const shc_err *e);
/* Print a usage error for cmd and return EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Reject stray positional args; returns 0 or EXIT_USAGE. */
int cli_no_positionals(const char *cmd, int argc, char **argv);
/* Parse --mesh/--ranks into m, with the option named in errors. */
int cli_load_mesh(const cli_common *c, shc_mesh *m, shc_err *e);
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

/* Flush and close stdout at exit: a lost write turns code into EXIT_USAGE (2) with a
 * message (EXIT_INTERNAL stays), so output is never lost silently. */
int cli_finish_output(const char *cmd, int code);
/* Parse a long long option value, or report a usage error (returns -1). */
int cli_parse_ll(const char *cmd, const char *opt, const char *arg, long long *out);

/* Subcommands. */
int cmd_layout(int argc, char **argv);
int cmd_groups(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_families(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_rng(int argc, char **argv);      /* mk/rng.am */
int cmd_offsets(int argc, char **argv);  /* mk/offsets.am */
int cmd_policies(int argc, char **argv); /* mk/offsets.am */
int cmd_plan(int argc, char **argv);     /* mk/plan.am */
int cmd_audit(int argc, char **argv);    /* dispatches to the two below */
int cmd_audit_rng(int argc, char **argv);  /* mk/offsets.am */
int cmd_rng_ops(int argc, char **argv);    /* mk/offsets.am */
int cmd_audit_plan(int argc, char **argv); /* mk/plan.am */
int cmd_run(int argc, char **argv);      /* mk/exec.am */
int cmd_explain(int argc, char **argv);  /* mk/vendor.am */
int cmd_report(int argc, char **argv);   /* mk/vendor.am */
int cmd_certify(int argc, char **argv);  /* mk/vendor.am */

#endif
