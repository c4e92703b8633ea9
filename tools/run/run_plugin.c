/*
 * run_plugin.c — the plugin backend (`run --backend plugin:FILE.so`): a vendor library
 * implementing lib/shardcheck_backend.h (ABI v1 or v2), loaded by backend_plugin.c.  It is
 * probed in a child first (a crash while loading is a Crash row, not a dead runner; the
 * probe also tells its ABI version and name) and opened only in the forked workers, never
 * in the runner's own process; a worker the plugin ends with exit() is a Crash.
 * In one process every rank of a case is asked; under mpirun each process hosts the block
 * of mesh ranks shc_comm_host_block gives it, as the mpi backend does, and rank 0 gathers
 * the views and checks them (run_mpi.c, run_check.c).  Every process must load the same
 * file: their sha256 are compared at start (job_start), a difference refused naming the
 * rank and host.  A v2 answer is a golden view, compared by the normal rule
 * (shc_compare_view); a v1 answer holds only the fields ABI v1 covers, compared field by
 * field with the golden view projected to that form.  The plugin's name, file name and
 * sha256 are in every report (subject).
 * Tested by plugin_v2.sh, run_mpi.sh, run_faults.sh, hardening.sh, certify.sh and the
 * plugin fuzzer.
 */
#include "config.h"
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "run.h"
#include "golden.h"
#ifdef HAVE_MPI
#include <mpi.h>
#endif

typedef struct plugin_state {
    const char *path;  /* FILE.so, as given */
    shc_plugin plugin; /* opened in a worker */
    unsigned abi;      /* the probe's: 1 or 2 */
    char name[256];    /* the probe's: the table's name */
    char sha256[65];   /* of the file, "" when it cannot be read */
} plugin_state;

static plugin_state *state(const run_opts *o) { return o->be_state; }

static void configure(run_opts *o, const char *arg) { state(o)->path = arg; }

static const char *input(const run_opts *o) { return state(o)->path; }

static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

static int probe(run_opts *o, bool *crashed, char *comment, size_t n, shc_err *e)
{
    plugin_state *s = state(o);
    snprintf(comment, n, "loading %s", s->path);
    shc_err he = {0};
    if (shc_sha256_file(s->path, s->sha256, &he))
        s->sha256[0] = '\0'; /* the loader names an unreadable file itself */
    return shc_plugin_probe_info(s->path, o->timeout_s, crashed, &s->abi, s->name,
                                 sizeof s->name, e);
}

/* {"name", "file" (its base name: no path of this machine), "sha256", "abi"}. */
static json_t *subject(const run_opts *o)
{
    const plugin_state *s = state(o);
    return json_pack("{s:s, s:s, s:s, s:i}", "name", s->name[0] ? s->name : base_name(s->path),
                     "file", base_name(s->path), "sha256", s->sha256, "abi", (int)s->abi);
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
    shc_plugin *p = &state(o)->plugin;
    int rc = shc_plugin_block(p, f, shc_torch_release_name(o->torch), group, test, world,
                              first, count, views, &e);
    if (rc)
        snprintf(msg, n, "%s", e.msg);
    /* a v2 plugin's answer the host refused (bad JSON, a key twice) is its failure */
    return rc == SHC_EUNSUPPORTED                ? RUN_NOTSUPPORTED
         : rc == SHC_EINVAL && p->be2 ? RUN_FAIL
         : rc                                    ? RUN_INTERNAL
                                                 : RUN_PASS;
}

/* ABI v1 answers hold only the fields it covers: compare those with the view of
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

static plugin_state plugin_own;

/* v2: the normal rule, as for every other backend; v1: the fields it covers. */
static int compare(const shc_family *f, const json_t *test, int64_t rank, json_t *got,
                   char *msg, size_t n)
{
    if (plugin_own.abi == SHC_BACKEND_ABI_V2)
        return shc_compare_view(test, rank, got, msg, n);
    return compare_subset(f, test, rank, got, msg, n);
}

#ifdef HAVE_MPI
/* One process's file: its sha256 and host, as every process sees it. */
typedef struct file_id {
    char sha256[65];
    char host[63];
    char file[128]; /* its base name */
} file_id;

/* Under mpirun every process loads its own copy of the file (nodes may differ): they
 * must all be the same library, or the ranks' answers would come from different code. */
static int job_start(run_opts *o)
{
    file_id mine, *all = calloc((size_t)o->nprocs, sizeof *all);
    memset(&mine, 0, sizeof mine);
    snprintf(mine.sha256, sizeof mine.sha256, "%s", state(o)->sha256);
    gethostname(mine.host, sizeof mine.host - 1);
    snprintf(mine.file, sizeof mine.file, "%s", base_name(state(o)->path));
    if (!all || MPI_Allgather(&mine, sizeof mine, MPI_CHAR, all, sizeof mine, MPI_CHAR,
                              MPI_COMM_WORLD) != MPI_SUCCESS) {
        free(all);
        if (o->rank == 0)
            fputs("shardcheck run: --backend plugin: the processes could not compare their "
                  "plugin files\n", stderr);
        return EXIT_INTERNAL;
    }
    int64_t bad = -1;
    for (int64_t r = 1; r < o->nprocs && bad < 0; r++)
        if (strcmp(all[r].sha256, all[0].sha256))
            bad = r;
    if (bad >= 0 && o->rank == 0)
        fprintf(stderr, "shardcheck run: --backend plugin: the processes load different plugin "
                "files: rank %lld on host %s loads %s with sha256 %s, rank 0 on host %s loads "
                "%s with sha256 %s; every rank must load the same library\n", (long long)bad,
                all[bad].host, all[bad].file,
                all[bad].sha256[0] ? all[bad].sha256 : "(unreadable)", all[0].host,
                all[0].file, all[0].sha256[0] ? all[0].sha256 : "(unreadable)");
    free(all);
    return bad >= 0 ? EXIT_USAGE : 0;
}
#endif

/* A rank's cases run in forked workers, needing no other rank: rank 0 can go on alone. */
static bool alone(const shc_family *f) { return !f->plugin.execute; }

const run_backend run_backend_plugin = {
    .name = "plugin", .arg_prefix = "plugin:", .usage = "plugin:FILE.so",
    .procs = RUN_PER_RANK_UNDER_MPIRUN, .ranks_per_process = RUN_HOSTS_ANY, .max_ranks = 1024,
    .certify_np = true,
    .state = &plugin_own, .configure = configure, .input = input, .subject = subject,
    .probe = probe, .stop = stop, .worker_open = worker_open, .worker_exit_is_crash = true,
#ifdef HAVE_MPI
    .job_start = job_start,
#endif
    .views = views, .compare = compare, .alone = alone,
};
