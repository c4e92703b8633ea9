/*
 * cmd_gen.c — `shardcheck gen [--family F] [--out DIR] [--list]`:
 * regenerate golden files from the case tables, then rewrite MANIFEST (with --family, that
 * family's lines only: the others stay as MANIFEST had them).
 * golden_regen.sh runs it into a scratch directory and demands byte-identical
 * files, which is what keeps golden/ honest (nobody edits it by hand).
 * On a terminal a progress bar (tools/common/progress.h) counts families, naming the one being
 * generated and its tests so far.
 */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "cli.h"
#include "family.h"
#include "progress.h"

/* Name the family and its tests so far on the bar (every 4,096 tests: the label is a
 * snprintf, and the bar redraws ten times a second at most anyway). */
static void on_test(void *ctx, int64_t count)
{
    progress *p = ctx;
    if (!p->on || count % 4096)
        return;
    char label[96], *colon = strchr(p->label, ':');
    snprintf(label, sizeof label, "%.*s: %lld tests", colon ? (int)(colon - p->label) : 40,
             p->label, (long long)count);
    progress_label(p, label);
}

static int gen_one(const shc_family *f, const char *out, int quiet, progress *bar)
{
    shc_err e = {0};
    clock_t t0 = clock();
    shc_gw *w = shc_gw_new(f->name, f->source_name, f->source_version);
    if (!w)
        return cli_report("gen", SHC_ENOMEM, NULL);
    shc_gw_releases(w, f->releases);
    char label[96];
    snprintf(label, sizeof label, "gen %s: 0 tests", f->name);
    progress_label(bar, label);
    shc_gw_on_test(w, on_test, bar);
    int rc = f->generate(w, &e);
    if (rc)
        shc_err_prefix(&e, "family %s", f->name);
    if (!rc)
        rc = shc_gw_write(w, out, &e);
    if (!rc && !quiet) {
        progress_hide();
        printf("%-18s %8lld tests  (%.1f s)\n", f->name, (long long)shc_gw_count(w),
               (double)(clock() - t0) / CLOCKS_PER_SEC);
    }
    shc_gw_free(w);
    if (rc)
        progress_hide(); /* the message must not land on (and be erased with) the bar */
    return rc ? cli_report("gen", rc, &e) : EXIT_OK;
}

int cmd_gen(int argc, char **argv)
{
    const char *family = NULL, *out = "golden";
    int list = 0, quiet = 0;
    unsigned long long given = 0;
    const cli_option opts[] = {
        {.name = "family", .kind = CLI_STR, .meta = "F", .help = "only this family", .to = &family},
        {.name = "out", .kind = CLI_STR, .meta = "DIR", .help = "golden directory (default golden)",
         .to = &out},
        {.name = "list", .kind = CLI_FLAG, .help = "list the families and exit", .to = &list},
        {.name = "quiet", .kind = CLI_FLAG, .help = "no per-family line", .to = &quiet},
        CLI_OPT_END};
    const cli_command cmd = {
        .name = "gen", .opts = opts, .given = &given,
        .synopsis = "[--family F] [--out DIR] [--quiet] | --list",
        .about = "Regenerates golden/<family>/*.json from the case tables and rewrites MANIFEST\n"
                 "(with --family, that family's lines; the others stay as they were)."};
    int x = cli_parse(&cmd, argc, argv, NULL);
    if (x != CLI_GO)
        return x;
    const shc_family *const *all = shc_families();
    if (list && (x = cli_used(&cmd, "list", "with --list (it only lists)")) != CLI_GO)
        return x;
    if (list) {
        for (int i = 0; all[i]; i++)
            printf("%-18s %s %s — %s\n", all[i]->name, all[i]->source_name,
                   all[i]->source_version, all[i]->summary);
        return EXIT_OK;
    }
    if (family && !shc_family_find(family))
        return cli_usage_error("gen", "--family: unknown family '%s' (see gen --list)",
                               CLI_ECHO(family));
    shc_err e = {0};
    int rc = shc_torch_check_rows(&e); /* the release rows decide what each family computes */
    if (rc)
        return cli_report("gen", rc, &e);
    int nfam = 0;
    for (int i = 0; all[i]; i++)
        nfam += !family || !strcmp(family, all[i]->name);
    progress bar;
    progress_begin(&bar, "gen", nfam);
    for (int i = 0; all[i]; i++) {
        if (family && strcmp(family, all[i]->name))
            continue;
        rc = gen_one(all[i], out, quiet, &bar);
        if (rc) {
            progress_end(&bar);
            return rc;
        }
        progress_add(&bar, 1);
    }
    progress_end(&bar);
    rc = shc_manifest_write_family(out, family, &e); /* --family: that family's lines */
    return rc ? cli_report("gen", rc, &e) : EXIT_OK;
}
