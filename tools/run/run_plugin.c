/*
 * run_plugin.c — the plugin backend (`run --backend plugin:FILE.so`): a vendor library
 * implementing lib/shardcheck_backend.h, loaded by backend_plugin.c.  It is probed in a
 * child first (a crash while loading is a Crash row, not a dead runner) and opened only in
 * the forked workers, never in the runner's own process; a worker the plugin ends with
 * exit() is a Crash.  Its answers hold only the fields ABI v1 covers, so they are
 * compared field by field with the golden view projected to that form.
 * Tested by run_mpi.sh, run_faults.sh, hardening.sh, certify.sh and the plugin fuzzer.
 */
#include "config.h"
#include <string.h>
#include "run.h"

typedef struct plugin_state {
    const char *path;  /* FILE.so, as given */
    shc_plugin plugin; /* opened in a worker */
} plugin_state;

static plugin_state *state(const run_opts *o) { return o->be_state; }

static void configure(run_opts *o, const char *arg) { state(o)->path = arg; }

static const char *input(const run_opts *o) { return state(o)->path; }

static int probe(run_opts *o, bool *crashed, char *comment, size_t n, shc_err *e)
{
    snprintf(comment, n, "loading %s", state(o)->path);
    return shc_plugin_probe(state(o)->path, o->timeout_s, crashed, e);
}

static void stop(run_opts *o) { shc_plugin_close(&state(o)->plugin); }

static int worker_open(run_opts *o, shc_err *e)
{
    return shc_plugin_open(&state(o)->plugin, state(o)->path, e);
}

static run_status views(const run_opts *o, const shc_family *f, const json_t *group,
                        const json_t *test, int64_t world, int64_t first, int64_t count,
                        json_t **views, char *msg, size_t n)
{
    shc_err e = {0};
    int rc = shc_plugin_views(&state(o)->plugin, f, group, test, world, views, &e);
    if (rc)
        snprintf(msg, n, "%s", e.msg);
    return rc == SHC_EUNSUPPORTED ? RUN_NOTSUPPORTED : rc ? RUN_INTERNAL : RUN_PASS;
}

/* Plugins answer only the fields the ABI covers: compare those with the view of
 * expected exp (projected to the ABI's form where the family's fields are beyond it). */
static int compare_fields(const shc_family *f, const json_t *exp, int64_t rank,
                          const json_t *got, char *msg, size_t n)
{
    json_t *want = shc_expected_view(exp, rank);
    if (f->plugin.project)
        f->plugin.project(want);
    const char *k;
    json_t *v;
    int ok = 1;
    json_object_foreach((json_t *)got, k, v) {
        json_t *w = json_object_get(want, k);
        if (!w || !json_equal(w, v)) {
            char *a = w ? json_dumps(w, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
            char *b = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
            snprintf(msg, n, "%s: expected %.200s, got %.200s", k, a ? a : "(missing)",
                     b ? b : "?");
            free(a), free(b);
            ok = 0;
            break;
        }
    }
    json_decref(want);
    return ok;
}

/* An "acceptable" test also passes when an alternative's fields match. */
static int compare_subset(const shc_family *f, const json_t *test, int64_t rank,
                          const json_t *got, char *msg, size_t n)
{
    const json_t *exp = json_object_get(test, "expected");
    const char *res = json_string_value(json_object_get(test, "result"));
    if (res && !strcmp(res, "invalid")) {
        if (json_object_get(got, "error"))
            return 1;
        snprintf(msg, n, "an invalid case was accepted");
        return 0;
    }
    if (compare_fields(f, exp, rank, got, msg, n))
        return 1;
    size_t i;
    const json_t *alt;
    char m[8];
    json_array_foreach(json_object_get(exp, "alternatives"), i, alt)
        if (compare_fields(f, alt, rank, got, m, sizeof m))
            return 1;
    return 0;
}

static int compare(const shc_family *f, const json_t *test, int64_t rank, json_t *got,
                   char *msg, size_t n)
{
    return compare_subset(f, test, rank, got, msg, n);
}

static plugin_state plugin_own;

const run_backend run_backend_plugin = {
    .name = "plugin", .arg_prefix = "plugin:", .usage = "plugin:FILE.so",
    .procs = RUN_IN_PROCESS, .ranks_per_process = 1, .max_ranks = 1024,
    .state = &plugin_own, .configure = configure, .input = input,
    .probe = probe, .stop = stop, .worker_open = worker_open, .worker_exit_is_crash = true,
    .views = views, .compare = compare,
};
