/*
 * run_plugin.c — the plugin backend (`run --backend plugin:FILE.so`): a vendor library
 * implementing lib/shardcheck_backend.h (ABI v1 or v2), loaded by backend_plugin.c.  It is
 * probed in a child first (a crash while loading is a Crash row, not a dead runner; the
 * probe also tells its ABI version and name); in one process it is opened only in the forked
 * workers, never in the runner's own process, and a worker the plugin ends with exit() is a
 * Crash.  Under mpirun each process hosts the block of mesh ranks shc_comm_host_block gives
 * it, as the mpi backend does: the families computed in forked workers keep only the hosted
 * ranks' views, and redistribute-data executes in the rank's own process (the plugin loaded
 * there by job_start, which also opens an ABI v2 plugin's own communicator) on a helper
 * thread under the case limit (plugin_comm.c); rank 0 gathers the views and checks them
 * (run_mpi.c, run_check.c).  Every process must load the same file: their sha256 are
 * compared at start (job_start), a difference refused naming the rank and host.
 * A v2 answer is a golden view, compared by the normal rule (shc_compare_view); a v1 answer
 * holds only the fields ABI v1 covers, compared field by field with the golden view
 * projected to that form.  An ABI v2 redistribute-data view names its communicator, which
 * the comparison drops and the outcome shows.  The plugin's name, file name and sha256 are
 * in every report (subject).
 * Tested by plugin_v2.sh, plugin_comm.sh, run_mpi.sh, run_faults.sh, hardening.sh,
 * certify.sh and the plugin fuzzer.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "exit_codes.h"
#include "run.h"
#include "golden.h"
#include "plugin_comm.h"
#include "plugin_host.h"
#ifdef HAVE_MPI
#include <mpi.h>
#endif

typedef struct plugin_state {
    const char *path;  /* FILE.so, as given */
    shc_plugin plugin; /* opened in a worker (and, under mpirun, in the rank's process) */
    unsigned abi;      /* the probe's: 1 or 2 */
    char name[256];    /* the probe's: the table's name */
    char sha256[65];   /* of the file, "" when it cannot be read */
    plugin_seam seam;  /* ABI v2: the table, the case reader (plugin_comm.h) */
    const shc_backend_comm *vendor; /* under mpirun: the plugin's comm_open, or NULL */
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

static void stop(run_opts *o)
{
    plugin_state *s = state(o);
    if (s->vendor && s->plugin.be2->comm_close)
        s->plugin.be2->comm_close(s->plugin.be2->self, s->vendor);
    s->vendor = NULL;
    shc_plugin_close(&s->plugin);
}

static int worker_open(run_opts *o, shc_err *e)
{
    plugin_state *s = state(o);
    int rc = shc_plugin_open(&s->plugin, s->path, e);
    if (!rc && s->plugin.be2) /* what plugin_comm.c needs of the loader */
        s->seam = (plugin_seam){s->plugin.be2, shc_plugin_host(), shc_case_v2_new,
                                shc_case_v2_delete};
    return rc;
}

/* ABI v2 redistribute-data: every rank executed over shardcheck's communicator on threads
 * (plugin_comm_views), the hosted ones kept. */
static run_status exec_block(const run_opts *o, const shc_family *f, const json_t *group,
                             const json_t *test, int64_t world, int64_t first, int64_t count,
                             json_t **views, char *msg, size_t n)
{
    json_t **all = calloc((size_t)world, sizeof *all);
    run_status st = all ? plugin_comm_views(&state(o)->seam, o, f, group, test, world, all,
                                            msg, n)
                        : RUN_INTERNAL;
    for (int64_t r = 0; all && r < world; r++)
        if (st == RUN_PASS && r >= first && r < first + count)
            views[r - first] = all[r];
        else
            json_decref(all[r]);
    free(all);
    return st;
}

/* The views of ranks [first, first+count). */
static run_status views(const run_opts *o, const shc_family *f, const json_t *group,
                        const json_t *test, int64_t world, int64_t first, int64_t count,
                        json_t **views, char *msg, size_t n)
{
    shc_err e = {0};
    shc_plugin *p = &state(o)->plugin;
    if (p->be2 && f->exec.outside)
        return exec_block(o, f, group, test, world, first, count, views, msg, n);
    int rc = shc_plugin_block(p, f, plugin_comm_release(o), group, test, world, first, count,
                              views, &e);
    if (rc)
        snprintf(msg, n, "%s", e.msg);
    /* a v2 plugin's answer the host refused (bad JSON, a key twice) is its failure */
    return rc == SHC_EUNSUPPORTED                ? RUN_NOTSUPPORTED
         : rc == SHC_EINVAL && p->be2 ? RUN_FAIL
         : rc                                    ? RUN_INTERNAL
                                                 : RUN_PASS;
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
static int same_file(run_opts *o)
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

/* Under mpirun, in the rank's own process: the plugin loaded and, for ABI v2, its
 * communicator opened (every process, before its first case). */
static int job_start(run_opts *o)
{
    int rc = same_file(o);
    if (rc)
        return rc;
    plugin_state *s = state(o);
    shc_err e = {0};
    if (worker_open(o, &e)) {
        fprintf(stderr, "shardcheck run: %s\n", e.msg);
        return 2;
    }
    const shc_backend_v2 *be = s->plugin.be2;
    if (!be || !be->comm_open)
        return 0;
    char err[512] = "";
    bool refuse = false;
    s->vendor = be->comm_open(be->self, o->rank, o->nprocs, err, sizeof err);
    if (s->vendor && s->vendor->struct_size < sizeof(shc_backend_comm))
        refuse = snprintf(err, sizeof err, "its communicator table has size %u, this runner's "
                          "is %zu", s->vendor->struct_size, sizeof(shc_backend_comm)) > 0;
    else if (s->vendor && (s->vendor->rank != o->rank || s->vendor->world != o->nprocs))
        refuse = snprintf(err, sizeof err, "its communicator says rank %lld of %lld, the job's "
                          "is %lld of %lld", (long long)s->vendor->rank,
                          (long long)s->vendor->world, (long long)o->rank,
                          (long long)o->nprocs) > 0;
    /* every process uses the vendor's communicator, or none does */
    int64_t low = run_mpi_first_failing(o, !s->vendor || refuse);
    if (low != o->nprocs && s->vendor) {
        if (be->comm_close)
            be->comm_close(be->self, s->vendor);
        s->vendor = NULL;
    }
    if (low == o->rank && err[0])
        fprintf(stderr, "shardcheck run: plugin %s: comm_open on process %lld: %s; "
                "redistribute-data uses shardcheck's communicator\n", be->name ? be->name
                : s->path, (long long)o->rank, err);
    return 0;
}

#endif

/* An ABI v1 plugin's view of one rank under mpirun (plugin_comm_guard's work): its execute
 * runs every rank at once, in this process. */
typedef struct v1_rank {
    const run_opts *o;
    const shc_family *f;
    const json_t *group, *test;
    int64_t rank;
} v1_rank;

static run_status v1_rank_work(void *arg, json_t **view, char *msg, size_t n)
{
    v1_rank *v = arg;
    return views(v->o, v->f, v->group, v->test, v->f->world_size(v->group), v->rank, 1,
                 view, msg, n);
}

/* Under mpirun, a family executing over a communicator (redistribute-data), in this
 * process, under the case limit (a hang is a Timeout, never a hung job). */
static run_status comm_view(const run_opts *o, shc_comm *comm, int64_t rank,
                            const shc_family *f, const json_t *group, const json_t *test,
                            json_t **view, char *msg, size_t n)
{
    plugin_state *s = state(o);
    if (s->plugin.be2 && f->exec.outside)
        return plugin_comm_view(&s->seam, s->vendor, o, comm, rank, f, group, test, view, msg,
                                n);
    v1_rank *v = malloc(sizeof *v);
    if (v)
        *v = (v1_rank){o, f, group, test, rank};
    char what[64];
    snprintf(what, sizeof what, "rank %lld: the plugin's execute", (long long)rank);
    return v ? plugin_comm_guard(o->timeout_s, what, v1_rank_work, v, free, NULL, view, msg, n)
             : RUN_INTERNAL;
}

/* ABI v1 answers hold only the fields it covers: compare those with the view of
 * expected exp (projected to the ABI's form where the family's fields are beyond it). */
static int compare_fields(const shc_family *f, const json_t *exp, int64_t rank,
                          const json_t *got, char *msg, size_t n)
{
    json_t *want = shc_expected_view(exp, rank);
    if (f->project.abi_v1.extend_want)
        f->project.abi_v1.extend_want(want);
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

/* v2: the normal rule, as for every other backend; v1: the fields it covers.  An ABI v2
 * redistribute-data view's communicator is taken out first and shown in the outcome. */
static int compare(const shc_family *f, const json_t *test, int64_t rank, json_t *got,
                   char *msg, size_t n)
{
    char comm[64];
    plugin_comm_take(got, comm, sizeof comm);
    int ok = plugin_own.abi == SHC_BACKEND_ABI_V2 ? shc_compare_view(test, rank, got, msg, n)
                                                  : compare_subset(f, test, rank, got, msg, n);
    plugin_comm_note(comm, ok, msg, n);
    return ok;
}

/* A rank's cases run in forked workers, needing no other rank: rank 0 can go on alone. */
static bool alone(const shc_family *f) { return !f->exec.outside; }

const run_backend run_backend_plugin = {
    .name = "plugin", .arg_prefix = "plugin:", .usage = "plugin:FILE.so",
    .help = "a vendor library implementing shardcheck_backend.h",
    .procs = RUN_PER_RANK_UNDER_MPIRUN, .ranks_per_process = RUN_HOSTS_ANY, .max_ranks = 1024,
    .certify_np = true,
    .state = &plugin_own, .configure = configure, .input = input, .subject = subject,
    .probe = probe, .stop = stop, .worker_open = worker_open, .worker_exit_is_crash = true,
#ifdef HAVE_MPI
    .job_start = job_start,
#endif
    .views = views, .compare = compare, .comm_view = comm_view, .alone = alone,
};
