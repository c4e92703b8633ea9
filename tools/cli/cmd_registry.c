/*
 * cmd_registry.c — `shardcheck registry`: what the binary knows, for scripts and the harness
 * (issue 37 item 3: the binary is the registry).  Every section is printed from the C table
 * that already holds it, so no script lists releases, families, flags or backends itself:
 *
 *   releases  lib/core/torch_release.c (shc_torch_release_get; pinned and newest)
 *   families  conformance/families/registry.c (shc_families; schema, doc page, capabilities)
 *   flags     the "notes" each family's generator declared, read from the corpus files'
 *             first line (the generators are the only writers of notes; golden_regen.sh
 *             holds the corpus to them), joined with the release-change table
 *             (shc_torch_change_get) for the flags a torch release decides
 *   backends  tools/run/backends.c (run_backends)
 *
 *   shardcheck registry [--json] [--names] [--capable CAP] [--golden DIR] [SECTION...]
 *
 * Tested by conformance/tests/registry.sh (the JSON against the tree: golden directories,
 * schemas, doc pages, --torch-version, the docs' flags) and registry_lint.sh (no script
 * lists releases or families itself).
 */
#include "config.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "family.h"
#include "run.h"

/* What a family can do, as scripts select it (--capable): each row reads the family record's
 * capabilities.  Some names say which backend serves the family (local, mpi, plugin): they are
 * the published names scripts select by; the record's own hooks name no backend. */
typedef struct fam_cap {
    const char *name;
    bool (*has)(const shc_family *f);
} fam_cap;

static bool cap_releases(const shc_family *f) { return f->releases != 0; }
static bool cap_harness(const shc_family *f) { return f->harness_stride > 0; }
static bool cap_simulated(const shc_family *f) { return f->exec.simulated != NULL; }
static bool cap_over_comm(const shc_family *f) { return f->exec.over_comm != NULL; }
static bool cap_abi(const shc_family *f) { return f->project.abi_v1.views || f->exec.outside; }
static bool cap_outside(const shc_family *f) { return f->exec.outside != NULL; }
static bool cap_counts(const shc_family *f) { return f->project.collective_counts != NULL; }
static bool cap_on_device(const shc_family *f) { return f->device.fill || f->exec.on_device_comm; }
static bool cap_invariants(const shc_family *f) { return f->invariants != NULL; }

static const fam_cap CAPS[] = {
    {"releases", cap_releases},     /* answers differ by torch release (byVersion) */
    {"harness", cap_harness},       /* cross-checked through a harness adapter */
    {"local", cap_simulated},       /* executed on simulated ranks by the local backend */
    {"mpi", cap_over_comm},         /* executed over a real communicator (mpi backend) */
    {"plugin", cap_abi},            /* a vendor plugin answers it (ABI v1 or v2) */
    {"pluginExec", cap_outside},    /* ABI v2: a plugin executes it */
    {"torchView", cap_counts},      /* real torch reports it in another form */
    {"device", cap_on_device},      /* computed on a GPU by the cuda backend */
    {"invariants", cap_invariants}, /* cross-rank SPMD invariants */
    {NULL, NULL},
};

enum { SEC_RELEASES, SEC_FAMILIES, SEC_FLAGS, SEC_BACKENDS, SEC_COUNT };
static const char *const SECTIONS[] = {"releases", "families", "flags", "backends"};
_Static_assert(sizeof SECTIONS / sizeof SECTIONS[0] == SEC_COUNT, "one name per section");

static json_t *releases_json(void)
{
    json_t *a = json_array();
    for (int r = SHC_TORCH_FIRST; r < SHC_TORCH_RELEASE_END; r++) {
        const shc_torch_release_info *ri = shc_torch_release_get((shc_torch_release)r);
        json_array_append_new(a, json_pack("{s:s,s:s,s:b,s:b}", "name", ri->name, "patch",
                                           ri->patch, "pinned", r == SHC_TORCH_PIN_RELEASE,
                                           "newest", r == SHC_TORCH_RELEASE_END - 1));
    }
    return a;
}

static json_t *release_set_json(uint32_t set)
{
    json_t *a = json_array();
    for (int r = SHC_TORCH_FIRST; r < SHC_TORCH_RELEASE_END; r++)
        if (set & SHC_TORCH_SET(r))
            json_array_append_new(a, json_string(shc_torch_release_name((shc_torch_release)r)));
    return a;
}

static json_t *family_json(const shc_family *f)
{
    char schema[128], doc[128], golden[128];
    snprintf(schema, sizeof schema, "golden/schemas/%s_v1.json", f->name);
    snprintf(doc, sizeof doc, "docs/families/%s.md", f->name);
    snprintf(golden, sizeof golden, "golden/%s", f->name);
    json_t *caps = json_array();
    for (const fam_cap *c = CAPS; c->name; c++)
        if (c->has(f))
            json_array_append_new(caps, json_string(c->name));
    return json_pack("{s:s,s:s,s:s,s:s,s:{s:s,s:s},s:o,s:s,s:s,s:s,s:i,s:o}", "name", f->name,
                     "schema", schema, "doc", doc, "golden", golden, "source", "name",
                     f->source_name, "version", f->source_version, "releases",
                     release_set_json(f->releases), "summary", f->summary, "gives", f->gives,
                     "oracle", f->oracle, "harnessStride", f->harness_stride, "capabilities",
                     caps);
}

static bool has_cap(const shc_family *f, const char *cap)
{
    for (const fam_cap *c = CAPS; c->name; c++)
        if (!strcmp(c->name, cap))
            return c->has(f);
    return false;
}

static json_t *families_json(const char *cap)
{
    json_t *a = json_array();
    for (const shc_family *const *f = shc_families(); *f; f++)
        if (!cap || has_cap(*f, cap))
            json_array_append_new(a, family_json(*f));
    return a;
}

/* The "notes" of a corpus file: its first line is the header up to "testGroups":[ (the
 * writer puts one test a line), so the notes are read without parsing the tests. */
static int file_notes(const char *path, json_t **notes, shc_err *e)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return shc_fail(e, SHC_EIO, "%s: cannot open", path);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n = getline(&line, &cap, fp);
    fclose(fp);
    json_t *doc = NULL;
    if (n > 0) {
        while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = 0;
        char *s = malloc((size_t)n + 3);
        if (s) {
            snprintf(s, (size_t)n + 3, "%s]}", line);
            doc = json_loads(s, 0, NULL);
            free(s);
        }
    }
    free(line);
    json_t *v = json_object_get(doc, "notes");
    if (!json_is_object(v)) {
        json_decref(doc);
        return shc_fail(e, SHC_EFORMAT, "%s: its first line holds no \"notes\" object (a golden "
                        "file as shardcheck gen writes it?)", path);
    }
    *notes = json_incref(v);
    json_decref(doc);
    return SHC_OK;
}

static int is_json_name(const struct dirent *d)
{
    size_t n = strlen(d->d_name);
    return d->d_name[0] != '.' && n > 5 && !strcmp(d->d_name + n - 5, ".json");
}

/* flags[flag].meanings[family] = note, for every file of the family in the corpus. */
static int family_flags(const shc_family *f, const char *golden, json_t *flags, shc_err *e)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", golden, f->name);
    struct dirent **ents = NULL;
    int n = scandir(dir, &ents, is_json_name, alphasort);
    if (n < 0)
        return shc_fail(e, SHC_EIO, "%s: no such golden directory (shardcheck gen --family %s "
                        "writes it)", dir, f->name);
    int rc = SHC_OK;
    for (int i = 0; i < n; i++) {
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, ents[i]->d_name);
        json_t *notes = NULL;
        if (!rc && !(rc = file_notes(path, &notes, e))) {
            const char *k;
            json_t *v;
            json_object_foreach(notes, k, v) {
                json_t *fl = json_object_get(flags, k);
                if (!fl)
                    json_object_set_new(flags, k, fl = json_object());
                if (!json_object_get(fl, f->name))
                    json_object_set(fl, f->name, v);
            }
            json_decref(notes);
        }
        free(ents[i]);
    }
    free(ents);
    return rc;
}

static int flags_json(const char *golden, json_t **out, shc_err *e)
{
    json_t *by = json_object();
    int rc = SHC_OK;
    for (const shc_family *const *f = shc_families(); *f && !rc; f++)
        rc = family_flags(*f, golden, by, e);
    json_t *a = json_array();
    const char *k;
    json_t *v;
    json_object_foreach(by, k, v) {
        json_t *fams = json_array();
        const char *fk;
        json_t *fv;
        json_object_foreach(v, fk, fv)
            json_array_append_new(fams, json_string(fk));
        json_t *row = json_pack("{s:s,s:o,s:O}", "flag", k, "families", fams, "meanings", v);
        int c = shc_torch_change_by_flag(k);
        if (c >= 0) /* a flag a torch release change decides: its row */
            json_object_set_new(row, "releases",
                                release_set_json(shc_torch_change_get(c)->releases));
        json_array_append_new(a, row);
    }
    json_decref(by);
    if (rc)
        json_decref(a);
    *out = rc ? NULL : a;
    return rc;
}

static const char *procs_name(run_procs p)
{
    return p == RUN_IN_PROCESS ? "in-process" : p == RUN_PER_RANK ? "per-rank"
                                                                  : "per-rank-under-mpirun";
}

static json_t *backends_json(void)
{
    json_t *a = json_array();
    for (const run_backend *const *b = run_backends(); *b; b++) {
        const run_backend *be = *b;
        json_t *sp = json_array();
        for (int k = 0; be->spellings && be->spellings[k]; k++)
            json_array_append_new(sp, json_string(be->spellings[k]));
        json_t *rpp = be->ranks_per_process == RUN_HOSTS_ANY
                          ? json_string("any") : json_integer(be->ranks_per_process);
        json_array_append_new(a, json_pack("{s:s,s:s,s:o,s:s?,s:s,s:o,s:I,s:b,s:b}", "name",
                                            be->name, "usage", be->usage, "spellings", sp,
                                            "argPrefix", be->arg_prefix, "processes",
                                            procs_name(be->procs), "ranksPerProcess", rpp,
                                            "maxRanks", (json_int_t)be->max_ranks,
                                            "wholeWorld", be->whole_world, "certifyNp",
                                            be->certify_np));
    }
    return a;
}

/* ---- text: one line per item, the name first (--names: the name alone) ---- */

static void print_joined(json_t *a)
{
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v)
        printf("%s%s", i ? "," : "", json_string_value(v));
    if (!json_array_size(a))
        printf("-");
}

static void print_text(int sec, json_t *items, bool names)
{
    size_t i;
    json_t *it;
    json_array_foreach(items, i, it) {
        const char *key = sec == SEC_FLAGS ? "flag" : "name";
        printf("%s", json_string_value(json_object_get(it, key)));
        if (names) {
            printf("\n");
            continue;
        }
        if (sec == SEC_RELEASES)
            printf(" %s%s%s", json_string_value(json_object_get(it, "patch")),
                   json_is_true(json_object_get(it, "pinned")) ? " pinned" : "",
                   json_is_true(json_object_get(it, "newest")) ? " newest" : "");
        else if (sec == SEC_BACKENDS)
            printf(" %s", json_string_value(json_object_get(it, "usage")));
        else {
            printf(" ");
            print_joined(json_object_get(it, sec == SEC_FLAGS ? "families" : "capabilities"));
        }
        printf("\n");
    }
}

static int section_index(const char *s)
{
    for (int i = 0; i < SEC_COUNT; i++)
        if (!strcmp(s, SECTIONS[i]))
            return i;
    return -1;
}

static int build(int sec, const char *golden_opt, const char *cap, json_t **out)
{
    shc_err e = {0};
    const char *golden;
    switch (sec) {
    case SEC_RELEASES:
        *out = releases_json();
        return EXIT_OK;
    case SEC_FAMILIES:
        *out = families_json(cap);
        return EXIT_OK;
    case SEC_BACKENDS:
        *out = backends_json();
        return EXIT_OK;
    default:
        if (!(golden = cli_golden_dir(golden_opt, &e)))
            return cli_report("registry", e.code, &e);
        int rc = flags_json(golden, out, &e);
        return rc ? cli_report("registry", rc, &e) : EXIT_OK;
    }
}

static int check_args(const char *cap, bool want[SEC_COUNT], int argc, char **argv, int first)
{
    if (cap) {
        const fam_cap *c = CAPS;
        while (c->name && strcmp(c->name, cap))
            c++;
        if (!c->name)
            return cli_usage_error("registry", "--capable: unknown capability '%s' (known: "
                                   "releases, harness, local, mpi, plugin, pluginExec, "
                                   "torchView, device, invariants)", CLI_ECHO(cap));
    }
    bool any = false;
    for (int i = first; i > 0 && i < argc; i++) {
        int s = section_index(argv[i]);
        if (s < 0)
            return cli_usage_error("registry", "unknown section '%s' (known: releases, "
                                   "families, flags, backends)", CLI_ECHO(argv[i]));
        want[s] = any = true;
    }
    for (int s = 0; s < SEC_COUNT && !any; s++)
        want[s] = true;
    return CLI_GO;
}

int cmd_registry(int argc, char **argv)
{
    const char *golden = NULL, *cap = NULL;
    int json = 0, names = 0, first = 0;
    unsigned long long given = 0;
    const cli_option opts[] = {
        {.name = "json", .kind = CLI_FLAG, .help = "one JSON object, a member per section",
         .to = &json},
        {.name = "names", .kind = CLI_FLAG, .help = "text: each item's name alone, one a line",
         .to = &names},
        {.name = "capable", .kind = CLI_STR, .meta = "CAP",
         .help = "only the families with capability CAP (e.g. harness, mpi, releases)",
         .to = &cap},
        {.name = "golden", .kind = CLI_STR, .meta = "DIR", .help = CLI_GOLDEN_HELP,
         .to = &golden},
        CLI_OPT_END};
    const cli_command cmd = {
        .name = "registry", .opts = opts, .positional = "SECTION", .given = &given,
        .synopsis = "[--json | --names] [--capable CAP] [--golden DIR] "
                    "[releases] [families] [flags] [backends]",
        .about = "Prints what the binary knows, from the tables that hold it: the torch\n"
                 "releases modelled (pinned and newest), the golden families (schema, doc\n"
                 "page, capabilities), the case flags and their meanings (read from the\n"
                 "corpus the generators wrote: DIR) and the run backends.  Every section\n"
                 "when none is named.  Text: one line per item, its name first.\n"
                 "Scripts and the harness ask this instead of listing them."};
    int x = cli_parse(&cmd, argc, argv, &first);
    if (x != CLI_GO)
        return x;
    if (json && names)
        return cli_usage_error("registry", "--json and --names exclude each other");
    bool want[SEC_COUNT] = {0};
    if ((x = check_args(cap, want, argc, argv, first)) != CLI_GO)
        return x;
    /* no silently ignored option: --golden reads the flags, --capable selects families */
    if (!want[SEC_FLAGS] && (x = cli_used(&cmd, "json names capable", "without the flags "
                                          "section (it reads no corpus)")) != CLI_GO)
        return x;
    if (!want[SEC_FAMILIES] && (x = cli_used(&cmd, "json names golden", "without the "
                                             "families section")) != CLI_GO)
        return x;
    json_t *doc = json_object();
    int rc = EXIT_OK;
    for (int s = 0; s < SEC_COUNT && !rc; s++) {
        json_t *items = NULL;
        if (!want[s] || (rc = build(s, golden, cap, &items)))
            continue;
        if (json)
            json_object_set_new(doc, SECTIONS[s], items);
        else {
            print_text(s, items, names);
            json_decref(items);
        }
    }
    if (!rc && json) {
        if (want[SEC_RELEASES]) {
            json_object_set_new(doc, "pinned", json_string(shc_torch_release_name(
                                                   SHC_TORCH_PIN_RELEASE)));
            json_object_set_new(doc, "newest", json_string(shc_torch_release_name(
                                                   SHC_TORCH_RELEASE_END - 1)));
        }
        rc = cli_print_json(doc);
    }
    json_decref(doc);
    return rc;
}
