/*
 * cmd_rng_tables.c — `shardcheck ops` and `shardcheck trackers`: the random-op table
 * (lib/offsets/rng_ops.c: what DTensor does with each random op, per torch release) and the
 * registered RNG trackers (lib/offsets/rng_tracker.c: the policy each keeps on its device's
 * profile).  Only parses and prints.  Tested by conformance/tests/cli_offsets.sh.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "torch_version.h"

/* One row of the tracker table as JSON (offsets --tracker prints it too). */
json_t *cli_tracker_json(const shc_rng_tracker *t)
{
    return json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s}", "name", t->name, "framework",
                     t->framework, "devices", t->devices, "policy", t->policy, "gpu", t->gpu,
                     "how", t->how, "source", t->source);
}

/* `shardcheck ops`: the op table of lib/offsets/rng_ops.c (what DTensor does with each random op). */
static const char *const API_KIND[] = {"python", "aten", "dtensor"};
static const char *const PARTIAL_RULE[] = {"-", "rejected (in-place)", "output Replicate",
                                           "redistributed", "as replica"};

static json_t *dtypes_json(unsigned mask)
{
    json_t *a = json_array();
    for (int t = 0; t < SHC_DT_COUNT; t++)
        if (mask & SHC_DTM(t))
            json_array_append_new(a, json_string(shc_dtype_name((shc_dtype)t)));
    return a;
}

int cmd_rng_ops(int argc, char **argv)
{
    const char *cmd = "ops", *tver = NULL;
    int json = 0;
    const cli_option opts[] = {{.name = "json", .kind = CLI_FLAG, .to = &json,
                                .help = "one JSON object instead of the table"},
                               {.name = "torch-version", .kind = CLI_STR, .meta = "V",
                                .to = &tver, .help = "the table as torch release V has it "
                                "(default $SHARDCHECK_TORCH_VERSION, else the pinned 2.13)"},
                               CLI_OPT_END};
    const cli_command c = {
        .name = cmd, .opts = opts, .synopsis = "[--json] [--torch-version V]",
        .about = "torch's random ops (2.13's, or --torch-version V's) and what DTensor does\n"
                 "with each: tracked (inside\n"
                 "OffsetBasedRNGTracker._distribute_region), untracked (each rank's own\n"
                 "generator), rejected (torch's message), local (no DTensor argument)."};
    int x = cli_parse(&c, argc, argv, NULL);
    if (x != CLI_GO)
        return x;
    size_t n;
    const shc_rng_op *ops = shc_rng_ops(&n);
    shc_torch_release rel;
    char why[128];
    shc_err te = {0};
    if (tv_resolve(tver, NULL, NULL, &rel, why, sizeof why, &te))
        return cli_report(cmd, SHC_EINVAL, &te);
    if (json) {
        json_t *rows = json_array();
        for (size_t i = 0; i < n; i++) {
            const shc_rng_op *o = shc_rng_op_in(&ops[i], rel);
            shc_err e;
            json_t *r = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:o,s:s,s:s}", "name", o->name, "api",
                                  o->api, "apiKind", API_KIND[o->api_kind], "aten", o->aten,
                                  "dispatch", shc_rng_dispatch_name(o->dispatch), "partial",
                                  PARTIAL_RULE[o->partial], "dtypes", dtypes_json(o->dtypes),
                                  "cite", o->cite, "kernel", o->kernel_note);
            if (o->dispatch == SHC_RNGD_REJECTED && shc_rng_op_check(o, NULL, &e))
                json_object_set_new(r, "error", json_string(e.msg));
            json_object_set_new(r, "emulated", json_boolean(o->kernel >= 0));
            for (int k = 0; k < SHC_TC_COUNT; k++)
                if (o->torch_changes & (1u << k))
                    json_object_set_new(r, "change", json_string(
                        shc_torch_change_get((shc_torch_change)k)->flag));
            if (o->shardable_only)
                json_object_set_new(r, "shardableOnly", json_true());
            json_array_append_new(rows, r);
        }
        shc_err e;
        char src[64];
        snprintf(src, sizeof src, "pytorch %s", shc_torch_release_get(rel)->patch);
        json_t *doc = json_pack("{s:s,s:s,s:o}", "source", src, "torch",
                                shc_torch_release_name(rel), "ops", rows);
        int rc = cli_print_json_e(doc, &e);
        json_decref(doc);
        return cli_report(cmd, rc, &e);
    }
    printf("torch %s random ops under DTensor (lib/offsets/rng_ops.c; torch/distributed/tensor/...)\n",
           shc_torch_release_name(rel));
    printf("%-22s %-10s %-20s %-9s %s\n", "op", "dispatch", "Partial input", "emulated", "api");
    for (size_t i = 0; i < n; i++) {
        const shc_rng_op *o = shc_rng_op_in(&ops[i], rel);
        const char *flag = "";
        for (int k = 0; k < SHC_TC_COUNT; k++)
            if (o->torch_changes & (1u << k))
                flag = shc_torch_change_get((shc_torch_change)k)->flag;
        printf("%-22s %-10s %-20s %-9s %s%s%s%s\n", o->name, shc_rng_dispatch_name(o->dispatch),
               PARTIAL_RULE[o->partial], o->kernel >= 0 ? "yes" : "no", o->api,
               *flag ? "  [" : "", flag, *flag ? (o->shardable_only ? ": shardable layouts only]"
                                                                    : "]") : "");
    }
    return EXIT_OK;
}

/* `shardcheck trackers`: the registered RNG trackers (lib/offsets/rng_tracker.c). */
int cmd_trackers(int argc, char **argv)
{
    const char *cmd = "trackers";
    int json = 0;
    const cli_option opts[] = {{.name = "json", .kind = CLI_FLAG, .to = &json,
                                .help = "one JSON object instead of the list"},
                               CLI_OPT_END};
    const cli_command c = {
        .name = cmd, .opts = opts, .synopsis = "[--json]",
        .about = "The RNG trackers frameworks create or devices register, each with the\n"
                 "contract it keeps: an RNG policy on its device's profile (what an offset\n"
                 "addresses).  offsets --tracker NAME and policies --tracker NAME answer for\n"
                 "it; NAME is the full name or, where one framework alone has it, the class."};
    int x = cli_parse(&c, argc, argv, NULL);
    if (x != CLI_GO)
        return x;
    int n = shc_rng_tracker_count();
    if (json) {
        json_t *rows = json_array();
        for (int i = 0; i < n; i++)
            json_array_append_new(rows, cli_tracker_json(shc_rng_tracker_at(i)));
        shc_err e;
        json_t *doc = json_pack("{s:o}", "trackers", rows);
        int rc = cli_print_json_e(doc, &e);
        json_decref(doc);
        return cli_report(cmd, rc, &e);
    }
    for (int i = 0; i < n; i++) {
        const shc_rng_tracker *t = shc_rng_tracker_at(i);
        printf("%s\n  %s, devices %s: policy %s on %s\n  %s\n  source: %s\n", t->name,
               t->framework, t->devices, t->policy, t->gpu, t->how, t->source);
    }
    return EXIT_OK;
}
