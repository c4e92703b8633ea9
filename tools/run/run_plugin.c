/*
 * run_plugin.c — the plugin backend (`run --backend plugin:FILE.so`): a vendor library
 * implementing lib/shardcheck_backend.h, loaded by backend_plugin.c.  It is probed in a
 * child first (a crash while loading is a Crash row, not a dead runner); in one process it
 * is opened only in the forked workers, never in the runner's own process, and a worker the
 * plugin ends with exit() is a Crash.  Under mpirun each process hosts its block of mesh
 * ranks: the families computed in forked workers keep only the hosted ranks' views, and
 * redistribute-data executes in the rank's own process (the plugin loaded there by
 * job_start, which also opens an ABI v2 plugin's own communicator) on a helper thread under
 * the case limit (plugin_comm.c).  ABI v1 answers hold only the fields ABI v1 covers, so
 * they are compared field by field with the golden view projected to that form; an ABI v2
 * redistribute-data view names its communicator, which the comparison drops and the
 * outcome shows.
 * Tested by run_mpi.sh, run_faults.sh, hardening.sh, certify.sh, plugin_comm.sh and the
 * plugin fuzzer.
 */
#include "config.h"
#include <string.h>
#include "run.h"
#include "plugin_comm.h"
#include "plugin_v2_min.h"

typedef struct plugin_state {
    const char *path;  /* FILE.so, as given */
    shc_plugin plugin; /* opened in a worker (and, under mpirun, in the rank's process) */
    plugin_seam seam;  /* ABI v2: the table, the case reader (plugin_comm.h) */
    const shc_backend_comm *vendor; /* under mpirun: the plugin's comm_open, or NULL */
} plugin_state;

static plugin_state *state(const run_opts *o) { return o->be_state; }

static void configure(run_opts *o, const char *arg) { state(o)->path = arg; }

static const char *input(const run_opts *o) { return state(o)->path; }

static int probe(run_opts *o, bool *crashed, char *comment, size_t n, shc_err *e)
{
    snprintf(comment, n, "loading %s", state(o)->path);
    return shc_plugin_probe(state(o)->path, o->timeout_s, crashed, e);
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
    if (!rc && s->plugin.be2) /* (abi2comm) the seam: the full loader's host and cases */
        s->seam = (plugin_seam){s->plugin.be2, plugin_min_host(), plugin_min_case_new,
                                plugin_min_case_free};
    return rc;
}

/* Every rank's views of a test, into all[0..world). */
static run_status all_views(const run_opts *o, const shc_family *f, const json_t *group,
                            const json_t *test, int64_t world, json_t **all, char *msg,
                            size_t n)
{
    plugin_state *s = state(o);
    if (s->plugin.be2 && f->plugin.exec_view)
        return plugin_comm_views(&s->seam, o, f, group, test, world, all, msg, n);
    if (s->plugin.be2) {
        snprintf(msg, n, "plugin %s: ABI v2 answers for %s are not in this build", s->path,
                 f->name);
        return RUN_NOTSUPPORTED;
    }
    shc_err e = {0};
    int rc = shc_plugin_views(&s->plugin, f, group, test, world, all, &e);
    if (rc)
        snprintf(msg, n, "%s", e.msg);
    return rc == SHC_EUNSUPPORTED ? RUN_NOTSUPPORTED : rc ? RUN_INTERNAL : RUN_PASS;
}

/* The views of ranks [first, first+count): every rank computed, the others dropped. */
static run_status views(const run_opts *o, const shc_family *f, const json_t *group,
                        const json_t *test, int64_t world, int64_t first, int64_t count,
                        json_t **views, char *msg, size_t n)
{
    json_t **all = calloc((size_t)world, sizeof *all);
    run_status st = all ? all_views(o, f, group, test, world, all, msg, n) : RUN_INTERNAL;
    for (int64_t r = 0; all && r < world; r++)
        if (st == RUN_PASS && r >= first && r < first + count)
            views[r - first] = all[r];
        else
            json_decref(all[r]);
    free(all);
    return st;
}

/* Under mpirun, in the rank's own process: the plugin loaded and, for ABI v2, its
 * communicator opened (every process, before its first case). */
static int job_start(run_opts *o)
{
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
#ifdef HAVE_MPI
    int64_t low = run_mpi_first_failing(o, !s->vendor || refuse);
#else
    int64_t low = !s->vendor || refuse ? o->rank : o->nprocs;
#endif
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
    return views(v->o, v->f, v->group, v->test, v->f->world_size(v->group, v->test), v->rank, 1,
                 view, msg, n);
}

/* Under mpirun, a family executing over a communicator (redistribute-data), in this
 * process, under the case limit (a hang is a Timeout, never a hung job). */
static run_status comm_view(const run_opts *o, shc_comm *comm, int64_t rank,
                            const shc_family *f, const json_t *group, const json_t *test,
                            json_t **view, char *msg, size_t n)
{
    plugin_state *s = state(o);
    if (s->plugin.be2 && f->plugin.exec_view)
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
    char comm[64]; /* ABI v2 redistribute-data: the communicator it ran over */
    plugin_comm_take(got, comm, sizeof comm);
    int ok = compare_subset(f, test, rank, got, msg, n);
    plugin_comm_note(comm, ok, msg, n);
    return ok;
}

static plugin_state plugin_own;

const run_backend run_backend_plugin = {
    .name = "plugin", .arg_prefix = "plugin:", .usage = "plugin:FILE.so",
    .procs = RUN_PER_RANK_UNDER_MPIRUN, .ranks_per_process = RUN_HOSTS_ANY, .max_ranks = 1024,
    .state = &plugin_own, .configure = configure, .input = input,
    .probe = probe, .job_start = job_start, .stop = stop, .worker_open = worker_open,
    .worker_exit_is_crash = true, .views = views, .compare = compare, .comm_view = comm_view,
};
