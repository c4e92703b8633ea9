/*
 * cmd_families.c — `shardcheck families`: the registry as people and scripts
 * read it.  The registry (conformance/families/registry.c) is the only list of
 * families; README's family table (--markdown, checked by readme_tables.sh)
 * and the test job's harness lists (--harness, and --peers: the outside peers' adapters) are
 * printed from it, so adding a family or a peer never means editing a second list.
 *
 *   shardcheck families [--golden DIR] [--markdown | --harness | --peers | --json]
 *
 * Case counts come from the committed golden files (loaded and validated),
 * so the README states what the corpus really holds.  --json also gives each family's
 * claim (the fields and tests a conformance claim must cover), which
 * tools/scripts/gen_family_docs.py prints on the family's page.
 */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "family.h"

enum { FMT_TEXT, FMT_MARKDOWN, FMT_HARNESS, FMT_PEERS, FMT_JSON };

/* Thousands separators, as the README writes counts. */
static void group_digits(long long v, char *buf, size_t n)
{
    char raw[32];
    snprintf(raw, sizeof raw, "%lld", v);
    size_t len = strlen(raw), o = 0;
    for (size_t i = 0; i < len && o + 2 < n; i++) {
        if (i && (len - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = raw[i];
    }
    buf[o] = '\0';
}

/* The family's tests, and (req not NULL) how many of them a claim requires
 * (shc_claim_requires).  Only --json prints the latter, which builds every test's tree: for
 * the text and markdown tables the index's count alone (families under ASan: 7 -> 1 s). */
static int count_cases(const shc_family *f, const char *golden, long long *n, long long *req)
{
    shc_golden g = {0};
    shc_err e = {0};
    int rc = shc_golden_index_family(&g, golden, f->name, &e);
    *n = rc ? -1 : (long long)g.ntests;
    if (req)
        *req = 0;
    for (int64_t i = 0; !rc && req && i < g.ntests; i++) {
        *req += shc_claim_requires(f, shc_golden_test(&g, i));
        shc_golden_test_done(&g, i); /* one test's tree at a time */
    }
    shc_golden_free(&g);
    return rc ? cli_report("families", rc, &e) : EXIT_OK;
}

static json_t *names_json(const char *const *v)
{
    json_t *a = json_array();
    for (; v && *v; v++)
        json_array_append_new(a, json_string(*v));
    return a;
}

/* What a conformance claim on f covers (family.h's shc_claim): docs/families prints it. */
static json_t *claim_json(const shc_family *f, long long required)
{
    return json_pack("{s:o,s:o,s:I}", "fields", names_json(f->claim.fields), "optionalFlags",
                     names_json(f->claim.optional), "requiredCases", (json_int_t)required);
}

static int print_one(const shc_family *f, int fmt, const char *golden, json_t *arr)
{
    long long n = -1, req = -1;
    int rc = fmt == FMT_HARNESS || fmt == FMT_PEERS
                 ? EXIT_OK
                 : count_cases(f, golden, &n, fmt == FMT_JSON ? &req : NULL);
    if (rc)
        return rc;
    char cnt[40];
    group_digits(n, cnt, sizeof cnt);
    switch (fmt) {
    case FMT_MARKDOWN:
        printf("| %s | %s | %s | %s |\n", f->name, cnt, f->gives, f->oracle);
        break;
    case FMT_HARNESS:
        if (f->harness_stride > 0)
            printf("%s:%d\n", f->name, f->harness_stride);
        break;
    case FMT_PEERS:
        for (const char *const *p = f->harness_peers; p && *p; p++)
            printf("%s:%s\n", f->name, *p);
        break;
    case FMT_JSON:
        json_array_append_new(arr, json_pack("{s:s,s:s,s:s,s:I,s:s,s:s,s:i,s:o,s:o}", "family",
                                             f->name, "source", f->source_name, "version",
                                             f->source_version, "cases", (json_int_t)n, "gives",
                                             f->gives, "oracle", f->oracle, "harnessStride",
                                             f->harness_stride, "harnessPeers",
                                             names_json(f->harness_peers), "claim",
                                             claim_json(f, req)));
        break;
    default:
        printf("%-18s %8s  %s\n", f->name, cnt, f->summary);
    }
    return EXIT_OK;
}

int cmd_families(int argc, char **argv)
{
    const char *golden = NULL;
    int fmt = FMT_TEXT;
    unsigned long long given = 0;
    const cli_option opts[] = {
        {.name = "golden", .kind = CLI_STR, .meta = "DIR", .help = CLI_GOLDEN_HELP, .to = &golden},
        {.name = "markdown", .kind = CLI_FLAG, .help = "README's family table", .to = &fmt,
         .set = FMT_MARKDOWN},
        {.name = "harness", .kind = CLI_FLAG, .help = "the harness list, NAME:STRIDE", .to = &fmt,
         .set = FMT_HARNESS},
        {.name = "peers", .kind = CLI_FLAG, .help = "the outside peers' adapters, NAME:ADAPTER",
         .to = &fmt, .set = FMT_PEERS},
        {.name = "json", .kind = CLI_FLAG, .help = "one JSON object", .to = &fmt, .set = FMT_JSON},
        CLI_OPT_END};
    const cli_command cmd = {
        .name = "families", .opts = opts, .given = &given,
        .synopsis = "[--golden DIR] [--markdown | --harness | --peers | --json]",
        .about = "Lists the registered golden families with their case counts in DIR.\n"
                 "--markdown prints README's family table, --harness the families the test\n"
                 "job cross-checks through the harness as NAME:STRIDE, --peers the outside peers'\n"
                 "harness adapters it also runs, as NAME:ADAPTER.  --json also gives each\n"
                 "family's claim: the fields and tests a conformance claim on it must cover."};
    int x = cli_parse(&cmd, argc, argv, NULL);
    if (x != CLI_GO)
        return x;
    /* one format (the last one given won silently); --harness and --peers count no cases */
    if (cli_given(&cmd, "markdown") + cli_given(&cmd, "harness") + cli_given(&cmd, "peers") +
            cli_given(&cmd, "json") > 1)
        return cli_usage_error("families", "--markdown, --harness, --peers and --json exclude "
                               "each other");
    if (fmt == FMT_HARNESS && (x = cli_used(&cmd, "harness", "with --harness (it counts no "
                                            "cases)")) != CLI_GO)
        return x;
    if (fmt == FMT_PEERS &&
        (x = cli_used(&cmd, "peers", "with --peers (it counts no cases)")) != CLI_GO)
        return x;
    shc_err ge = {0};
    if (fmt != FMT_HARNESS && fmt != FMT_PEERS && !(golden = cli_golden_dir(golden, &ge)))
        return cli_report("families", ge.code, &ge);
    json_t *arr = fmt == FMT_JSON ? json_array() : NULL;
    if (fmt == FMT_MARKDOWN)
        printf("| family | cases | what each case gives | cross-checked against |\n"
               "|---|---:|---|---|\n");
    int rc = EXIT_OK;
    for (const shc_family *const *f = shc_families(); *f && !rc; f++)
        rc = print_one(*f, fmt, golden, arr);
    if (!rc && arr) {
        json_t *doc = json_pack("{s:O}", "families", arr);
        rc = doc ? cli_print_json(doc) : EXIT_INTERNAL;
        json_decref(doc);
    }
    json_decref(arr);
    return rc;
}
