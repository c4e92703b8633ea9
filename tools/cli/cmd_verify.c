/*
 * cmd_verify.c — `shardcheck verify`: check a vendor's results against a
 * golden family, or (with --manifest) check golden/ itself.
 *
 * A candidate is either a file in the golden schema (its tests' "expected"
 * compared per rank) or a minimal results file
 *   {"family":F,"results":[{"tcId":N,"rank":R,"values":{field:value}}, ...]}
 * (golden/schemas/results_v1.json): one entry per rank with every field of that rank,
 * "rank" left out only for a test with no per-rank fields, a rejected input reported as
 * {"tcId":N,"error":"why"}.  Every golden case is reported: Pass,
 * Fail (expected vs got), or Fail "missing" when the candidate lacks it;
 * candidate entries for unknown tcIds are failures too.  Malformed candidate
 * files are exit 2 with the entry named.  On a terminal a progress bar counts the golden
 * cases (tools/common/progress.h).  A candidate may declare the fields
 * it computes ("fields": [...], see partial_begin): the others are NotSupported.
 * Cases are reported through report.c, the reporter `run` uses too (text, --tap,
 * --junit FILE, --json; NotSupported cases listed with --verbose; --waivers FILE reports the
 * failures a known deviation explains as Waived, tools/run/waivers.h).  Exit 0, 1 a
 * failure, 77 when nothing passed (every case NotSupported), 2 bad input.
 * The command only parses options, loads the golden family and opens the report; the
 * work is the verify engine's (tools/verify/verify.h, a library the fuzzers link too).
 * Tested by verify_candidate.sh, verify_partial.sh, hardening.sh and waivers.sh.
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "family.h"
#include "report.h"
#include "verify.h"
#include "torch_version.h"
#include "waivers.h"

/* The failures grouped by flag and field (report_groups.c), read from either loader. */
static int group_failures(report *rep, const shc_golden *g)
{
    if (!json_array_size(rep->fails))
        return SHC_OK;
    return report_group_failures(rep, g);
}

/* The reporter's questions to the waivers (report_opts.waive, waive_notes). */
static const char *waive(void *ctx, const char *family, long long tcid, const char *status,
                         const char *detail)
{
    return waivers_match(ctx, family, tcid, status, detail);
}

static void waive_notes(void *ctx, FILE *f, const char *prefix)
{
    waivers_notes(ctx, f, prefix);
}

/* --manifest: MANIFEST hashes plus structural validation of every family. */
static int verify_manifest(const char *dir)
{
    shc_err e = {0};
    int rc = shc_manifest_verify(dir, &e);
    if (rc)
        return cli_report("verify", rc, &e);
    const shc_family *const *all = shc_families();
    long long files = 0, tests = 0;
    for (int i = 0; all[i]; i++) {
        shc_golden g;
        rc = shc_golden_load_family(&g, dir, all[i]->name, &e);
        if (rc)
            return cli_report("verify", rc, &e);
        files += g.nfiles;
        tests += g.ntests;
        shc_golden_free(&g);
    }
    printf("golden %s: MANIFEST ok, %lld files, %lld tests, structure ok\n", dir, files, tests);
    return EXIT_OK;
}

/* Options another mode uses are refused by name (issue 25 item 4): --manifest checks the
 * corpus only; one format; --verbose lists passes in the text report only. */
static int verify_modes(const cli_command *cmd, int fmt, int manifest)
{
    if (manifest)
        return cli_used(cmd, "manifest golden", "with --manifest (it checks the corpus, no "
                        "candidate)");
    if (cli_given(cmd, "tap") && cli_given(cmd, "json"))
        return cli_usage_error("verify", "--tap and --json exclude each other");
    if (fmt != REP_TEXT && cli_given(cmd, "verbose"))
        return cli_usage_error("verify", "--verbose: not used with --%s (it lists every case)",
                               fmt == REP_TAP ? "tap" : "json");
    return CLI_GO;
}

int cmd_verify(int argc, char **argv)
{
    const char *family = NULL, *cand = NULL, *dir = NULL, *junit = NULL, *tver = NULL;
    const char *tcids = NULL, *flag = NULL, *wpath = NULL;
    int fmt = REP_TEXT, verbose = 0, manifest = 0, answered = 0;
    unsigned long long given = 0;
    const cli_option opts[] = {
        {.name = "family", .kind = CLI_STR, .meta = "F", .help = "the golden family", .to = &family},
        {.name = "candidate", .kind = CLI_STR, .meta = "FILE", .to = &cand,
         .help = "the candidate's results: {\"family\", \"results\": [...]} or the golden schema"},
        {.name = "golden", .kind = CLI_STR, .meta = "DIR", .help = CLI_GOLDEN_HELP, .to = &dir},
        {.name = "tap", .kind = CLI_FLAG, .help = "TAP on stdout", .to = &fmt, .set = REP_TAP},
        {.name = "junit", .kind = CLI_STR, .meta = "FILE", .help = "also JUnit XML into FILE",
         .to = &junit},
        {.name = "json", .kind = CLI_FLAG, .help = "one JSON report on stdout", .to = &fmt,
         .set = REP_JSON},
        {.name = "verbose", .kind = CLI_FLAG, .help = "text: list passes too", .to = &verbose},
        {.name = "torch-version", .kind = CLI_STR, .meta = "V", .help = TV_HELP, .to = &tver},
        {.name = "manifest", .kind = CLI_FLAG, .help = "check MANIFEST and every golden file's "
         "structure instead", .to = &manifest},
        {.name = "tcid", .kind = CLI_STR, .meta = "N[,M...]", .to = &tcids,
         .help = "check only these tests (the rest is neither printed nor counted)"},
        {.name = "flag", .kind = CLI_STR, .meta = "F", .to = &flag,
         .help = "check only the tests carrying flag F (with --tcid: those of them)"},
        {.name = "answered", .kind = CLI_FLAG, .to = &answered,
         .help = "check only the tests the candidate answers (no line per missing test)"},
        {.name = "waivers", .kind = CLI_STR, .meta = "FILE", .to = &wpath,
         .help = "known deviations: their failures are Waived, with why (README)"},
        CLI_OPT_END};
    const cli_command cmd = {
        .name = "verify", .opts = opts, .given = &given,
        .synopsis = "--family F --candidate FILE [--golden DIR] [--torch-version V] "
                    "[--tap | --junit FILE | --json] [--verbose] [--tcid N[,M...]] [--flag F] "
                    "[--answered] [--waivers FILE]\n       shardcheck verify "
                    "--manifest [--golden DIR]"};
    int x = cli_parse(&cmd, argc, argv, NULL);
    if (x != CLI_GO)
        return x;
    if ((x = verify_modes(&cmd, fmt, manifest)) != CLI_GO)
        return x;
    if (!manifest && (!family || !cand))
        return cli_usage_error("verify", "--family and --candidate are required");
    if (!manifest && !shc_family_find(family))
        return cli_usage_error("verify", "--family: unknown family '%s' (see gen --list)",
                               CLI_ECHO(family));
    shc_err e = {0};
    if (!(dir = cli_golden_dir(dir, &e)))
        return cli_report("verify", e.code, &e);
    if (manifest)
        return verify_manifest(dir);
    out_inputs in = {0}; /* --junit must not overwrite the candidate or a golden file */
    out_inputs_file(&in, "given as --candidate", cand);
    out_inputs_file(&in, "given as --waivers", wpath);
    out_inputs_tree(&in, "golden directory", dir, 1);
    int rc = out_refuse(&in, "--junit", junit, &e);
    out_inputs_free(&in);
    if (rc)
        return cli_report("verify", rc, &e);
    shc_golden g;
    shc_torch_release rel;
    char rec[64], why[256];
    bool has_rec;
    if (!(rc = tv_read_recorded(cand, rec, sizeof rec, &has_rec, &e)))
        rc = tv_resolve(tver, has_rec ? rec : NULL, cand, &rel, why, sizeof why, &e);
    /* the golden files are the oracle: a tampered one would fail a correct candidate and
     * pass a matching wrong one, so they must match MANIFEST before anything is compared */
    if (!rc)
        rc = shc_manifest_verify_family(dir, family, &e);
    if (!rc)
        rc = verify_trees_only() ? shc_golden_load_family_at(&g, dir, family, rel, &e)
                          : shc_golden_index_family_at(&g, dir, family, rel, &e);
    bool loaded = !rc;
    waivers *wv = NULL; /* checked against the corpus before the first case */
    if (!rc && wpath && !*wpath)
        rc = shc_fail(&e, SHC_EINVAL, "--waivers: an empty file name");
    if (!rc && wpath)
        rc = waivers_load(&wv, wpath, dir, "candidate", rel, &e);
    if (rc) {
        if (loaded) /* a refused waivers file: the corpus is freed as on every other exit */
            shc_golden_free(&g);
        return cli_report("verify", rc, &e);
    }
    if (g.unversioned)
        fprintf(stderr, "verify: note: %s has no version data (source.releases): read as what "
                "it is, torch %s's answers\n", g.unversioned,
                shc_torch_release_name(SHC_TORCH_PIN_RELEASE));
    verify_select sel;
    if ((rc = verify_select_build(&sel, &g, dir, rel, tcids, flag, answered, &e))) {
        waivers_free(wv);
        if (shc_free_at_exit())
            shc_golden_free(&g);
        return cli_report("verify", rc, &e);
    }
    report rep;
    report_opts ro = {.keep = sel.some || sel.answered ? verify_select_keep : NULL,
                      .keep_ctx = &sel, .fmt = (report_format)fmt, .cmd = "verify",
                      .suite = family, .junit_path = junit, .verbose = verbose,
                      .head = json_pack("{s:s}", "suite", family),
                      .torch = shc_torch_release_name(rel), .torch_why = why,
                      .group_failures = 1, .waive = wv ? waive : NULL,
                      .waive_notes = wv ? waive_notes : NULL, .waive_ctx = wv};
    if (report_open(&rep, &ro)) {
        int err = errno;
        shc_golden_free(&g);
        verify_select_free(&sel);
        waivers_free(wv);
        return cli_usage_error("verify", "--junit: cannot write %s: %s", junit, strerror(err));
    }
    progress bar;
    char label[96];
    snprintf(label, sizeof label, "verify %s", family);
    progress_begin(&bar, label, g.ntests);
    rep.bar = &bar;
    rc = verify_candidate(&g, cand, &rep, &e);
    progress_end(&bar);
    rep.bar = NULL;
    if (!rc)
        rc = group_failures(&rep, &g);
    if (!rc && sel.answered) /* said even when 0: a whole candidate needs no --answered */
        fprintf(stderr, "verify: --answered: %lld golden tests the candidate does not answer "
                "were not checked\n", sel.unanswered);
    /* a refused candidate (exit 2) gets no closing count line: "0 passed, 0 failed" would
     * read to a CI grep as a run that checked nothing and failed nothing (issue 22 item 3) */
    int code = EXIT_USAGE;
    if (rc)
        report_abandon(&rep);
    else
        code = report_close(&rep);
    verify_select_free(&sel);
    waivers_free(wv);
    if (shc_free_at_exit())
        shc_golden_free(&g);
    return rc ? cli_report("verify", rc, &e) : code;
}
