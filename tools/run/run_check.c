/*
 * run_check.c — the heart of `shardcheck run`: compute a test's per-rank
 * views on a backend inside a forked worker (its loop, run_worker_serve; the
 * runner's side, which makes a crash Crash and a hang Timeout after the per-case
 * limit, never a dead or hung runner, is run_views.c), then check them: the
 * family's own check of each view (view_check), every
 * rank against the golden view, and the family's SPMD invariants across ranks
 * (invariants: replicas, RNG windows, ...; conformance/families/family.h).
 * Faults are injected here (SHARDCHECK_FAULT) so the Crash and Timeout paths
 * are tested for real.  Tested by conformance/tests/run_faults.sh.
 */
#include "config.h"
#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "run.h"
#include "run_lean.h"
#include "run_views.h"
#include "child_exit.h"
#include "comm.h"

static const char *const status_names[] = {"Pass", "Fail", "NotSupported", "Crash",
                                           "Timeout", "InternalError"};
_Static_assert(sizeof status_names / sizeof status_names[0] == RUN_NSTATUS,
               "one name per run_status");

const char *run_status_name(run_status s) { return s < RUN_NSTATUS ? status_names[s] : "?"; }

void run_journal(const run_opts *o, const char *fmt, ...)
{
    if (!o->journal)
        return;
    if (o->journal == stdout) { /* the report's pending lines first, then the whole line */
        fflush(stdout);
        fputs(RUN_JOURNAL_MARKER, stdout);
    }
    va_list ap;
    va_start(ap, fmt);
    vfprintf(o->journal, fmt, ap);
    va_end(ap);
    fputc('\n', o->journal);
    fflush(o->journal);
}

int run_parse_fault(const char *spec, run_fault *f)
{
    memset(f, 0, sizeof *f);
    if (!spec || !*spec)
        return 0;
    char kind[16];
    long long r, t;
    if (sscanf(spec, "%15[a-z]:%lld:%lld", kind, &r, &t) != 3 ||
        (strcmp(kind, "kill") && strcmp(kind, "hang") && strcmp(kind, "stop") &&
         strcmp(kind, "die") && strcmp(kind, "strand") && strcmp(kind, "setup"))) {
        fprintf(stderr, "shardcheck run: SHARDCHECK_FAULT='%s': expected kill:RANK:TCID, "
                "hang:RANK:TCID, stop:RANK:TCID, die:RANK:TCID, strand:RANK:TCID or "
                "setup:RANK:TCID\n", spec);
        return -1;
    }
    f->kind = !strcmp(kind, "kill") ? FAULT_KILL : !strcmp(kind, "hang") ? FAULT_HANG
            : !strcmp(kind, "stop") ? FAULT_STOP : !strcmp(kind, "die") ? FAULT_DIE
            : !strcmp(kind, "strand") ? FAULT_STRAND : FAULT_SETUP;
    f->rank = r;
    f->tcid = t;
    return 0;
}

/* ---- computing views (inside the worker) ---- */

static json_t *error_view(const char *m) { return json_pack("{s:s}", "error", m); }

/* An ordinary family: compute_rank per rank. */
static run_status ref_views(const shc_family *f, const json_t *group, const json_t *test,
                            int64_t first, int64_t count, json_t **views, char *msg, size_t n)
{
    shc_err fast = {0}; /* an error of the fast path is worded by compute_rank below */
    if (f->compute_ranks && !f->compute_ranks(group, test, first, count, views, &fast))
        return RUN_PASS;
    for (int64_t i = 0; f->compute_ranks && i < count; i++) { /* what it made before failing */
        json_decref(views[i]);
        views[i] = NULL;
    }
    for (int64_t i = 0; i < count; i++) {
        shc_err e = {0};
        json_t *v = NULL;
        int rc = f->compute_rank(group, test, first + i, &v, &e);
        if (rc == SHC_EUNSUPPORTED) {
            snprintf(msg, n, "%s", e.msg);
            return RUN_NOTSUPPORTED;
        }
        if (rc == SHC_EINTERNAL || rc == SHC_ENOMEM) {
            snprintf(msg, n, "rank %lld: %s", (long long)(first + i), e.msg);
            return RUN_INTERNAL;
        }
        views[i] = rc ? error_view(e.msg) : v;
    }
    return RUN_PASS;
}

/* The local backend, for a family that executes for real (exec.simulated):
 * every rank on simulated ranks in this worker. */
static run_status local_exec_views(const run_opts *o, const shc_family *f, const json_t *group,
                                   const json_t *test, int64_t world, json_t **views, char *msg,
                                   size_t n)
{
    if (world > o->max_ranks) {
        snprintf(msg, n, "needs %lld simulated ranks, --max-ranks is %lld", (long long)world,
                 (long long)o->max_ranks);
        return RUN_NOTSUPPORTED;
    }
    shc_err e = {0};
    if (!f->exec.simulated(group, test, world, views, &e))
        return RUN_PASS;
    snprintf(msg, n, "local backend: %s", e.msg);
    return RUN_INTERNAL;
}

void run_inject(const run_opts *o, const json_t *test, int64_t first, int64_t count)
{
    if (o->fault.kind == FAULT_NONE || o->fault.kind == FAULT_STOP || o->fault.kind == FAULT_DIE ||
        o->fault.kind == FAULT_STRAND || o->fault.kind == FAULT_SETUP ||
        json_integer_value(json_object_get(test, "tcId")) != o->fault.tcid ||
        o->fault.rank < first || o->fault.rank >= first + count)
        return;
    if (o->fault.kind == FAULT_KILL)
        raise(SIGKILL);
    for (;;)
        pause();
}

static run_status compute_views(const run_opts *o, const shc_family *f, const json_t *group,
                                const json_t *test, int64_t world, int64_t first, int64_t count,
                                json_t **views, char *msg, size_t n)
{
    run_inject(o, test, first, count);
    if (o->be->views)
        return o->be->views(o, f, group, test, world, first, count, views, msg, n);
    return ref_views(f, group, test, first, count, views, msg, n);
}

/* The local backend: a family that executes for real (exec.simulated) on simulated ranks,
 * any other through compute_rank. */
static run_status local_views(const run_opts *o, const shc_family *f, const json_t *group,
                              const json_t *test, int64_t world, int64_t first, int64_t count,
                              json_t **views, char *msg, size_t n)
{
    if (f->exec.simulated)
        return local_exec_views(o, f, group, test, world, views, msg, n);
    return ref_views(f, group, test, first, count, views, msg, n);
}

static const char *const ref_spellings[] = {"ref", NULL};
const run_backend run_backend_ref = {
    .name = "ref", .spellings = ref_spellings, .usage = "ref",
    .help = "the reference, every rank in one process", .procs = RUN_IN_PROCESS,
    .ranks_per_process = 1, .max_ranks = 1024, .checks_in_worker = true,
};

static const char *const local_spellings[] = {"local", NULL};
const run_backend run_backend_local = {
    .name = "local", .spellings = local_spellings, .usage = "local",
    .help = "simulated ranks with real collectives, in one process", .procs = RUN_IN_PROCESS,
    .ranks_per_process = 1, .max_ranks = 64, .views = local_views, .checks_in_worker = true,
};

/* ---- the worker ---- */

void run_block_of(const run_opts *o, int64_t proc, run_outcome *oc)
{
    oc->first = 0;
    oc->count = oc->world;
    if (proc >= 0)
        shc_comm_host_block(oc->world, proc, o->nprocs, &oc->first, &oc->count);
}

void run_case_supported(const run_opts *o, const shc_family *f, const json_t *group,
                        int64_t cap, run_outcome *oc)
{
    oc->world = f->world_size(group);
    if (o->be->whole_world && oc->world != cap) {
        oc->status = RUN_NOTSUPPORTED;
        snprintf(oc->msg, sizeof oc->msg, "the mesh has %lld ranks, the %s job %lld (%s)",
                 (long long)oc->world, o->be->name, (long long)cap,
                 o->be->whole_world_why ? o->be->whole_world_why : "no hosting");
    } else if (oc->world > cap) {
        oc->status = RUN_NOTSUPPORTED;
        snprintf(oc->msg, sizeof oc->msg, "needs %lld ranks, the %s has %lld",
                 (long long)oc->world, o->mpi_job ? "mpirun job" : "backend (--max-ranks)",
                 (long long)cap);
    }
}

bool run_outcome_keeps_views(const run_opts *o, run_status checked, int64_t world)
{
    return o->views_path || (checked == RUN_FAIL && o->json && world <= RUN_KEEP_VIEWS);
}

/* A case a worker computed from its lean test (run_lean.c), to check in bytes first. */
typedef struct lean_case {
    run_lean *L;
    const shc_golden *g;
    int64_t i;
} lean_case;

/* The whole golden test where the lean one was not enough (lc: the lean case, else NULL). */
static const json_t *whole_test(const lean_case *lc, const json_t *test)
{
    return lc ? shc_golden_test(lc->g, lc->i) : test;
}

/* A trusted worker's verdict on its case (run_backend.checks_in_worker): NotSupported or a
 * failure to compute as they came, else run_check's; the views go only where the runner
 * needs them (run_outcome_keeps_views). */
static void check_in_worker(const run_opts *o, const shc_family *f, const json_t *group,
                            const json_t *test, const lean_case *lc, run_outcome *oc)
{
    oc->checked = true;
    run_copy(oc->comment, sizeof oc->comment, json_string_value(json_object_get(test, "comment")));
    if (oc->status != RUN_PASS)
        return; /* the runner reports that, as when it checks */
    assert(oc->first == 0 && oc->count == oc->world);
    bool whole = true;
    for (int64_t r = 0; r < oc->world; r++)
        whole = whole && oc->views[r];
    oc->msg[0] = '\0';
    if (whole && lc && run_lean_pass(lc->L, f, lc->g, lc->i, test, oc->world, 0, oc->world,
                                     oc->views))
        /* every rank is the golden view: run_check's verdict is its invariants' */
        oc->status = f->invariants && !f->invariants(group, test, oc->world, oc->views,
                                                     oc->msg, sizeof oc->msg)
                     ? RUN_FAIL : RUN_PASS;
    else
        oc->status = whole ? run_check(o, f, group, whole_test(lc, test), oc->world,
                                       oc->views, oc->msg, sizeof oc->msg)
                           : RUN_INTERNAL;
    if (!whole)
        snprintf(oc->msg, sizeof oc->msg, "a rank computed no view");
    if (!run_outcome_keeps_views(o, oc->status, oc->world))
        run_outcome_clear(oc), oc->count = 0;
}

static run_status check_ranks(const run_opts *o, const shc_family *f, const json_t *test,
                              int64_t world, int64_t first, int64_t count,
                              json_t *const *views, char *msg, size_t n, char *note, size_t nn);

/* Whether a worker under mpirun that computed a block of a case's ranks can check them itself:
 * every rank's check stands alone there (no cross-rank invariants, not an invalid case, whose
 * StricterThanTorch verdict needs every rank's answer), and the runner needs no view (no
 * --views, no --json).  Then only the verdict travels to rank 0, not every view to be dumped,
 * sent and parsed there (issue 36 item 1). */
static bool block_checkable(const run_opts *o, const shc_family *f, const json_t *test)
{
    const char *res = json_string_value(json_object_get(test, "result"));
    return (!f->invariants || f->invariant_fields) && !o->views_path && !o->json &&
           !(res && !strcmp(res, "invalid"));
}

bool run_worker_checks_block(const run_opts *o, const shc_family *f, const shc_golden *g,
                             int64_t i)
{
    return o->be->checks_in_worker && !o->be->compare && g->text && !g->text[i].invalid &&
           (!f->invariants || f->invariant_fields) && !o->views_path && !o->json;
}

/* A checked view cut to the fields the family's invariants read (family.invariant_fields),
 * in place; false when out of memory. */
static bool keep_invariant_fields(const shc_family *f, json_t **view)
{
    json_t *cut = json_object();
    for (int i = 0; cut && f->invariant_fields[i]; i++) {
        json_t *v = json_object_get(*view, f->invariant_fields[i]);
        if (v && json_object_set(cut, f->invariant_fields[i], v)) {
            json_decref(cut);
            cut = NULL;
        }
    }
    if (!cut)
        return false;
    json_decref(*view);
    *view = cut;
    return true;
}

/* A trusted worker's verdict on its block of a case's ranks under mpirun (block_checkable):
 * check_ranks' over the block, its views dropped, or, for a family with invariants, cut to
 * the fields they read (rank 0 runs them over every block's: run_mpi.c); rank 0 takes the
 * worst block's verdict. */
static void check_block_in_worker(const run_opts *o, const shc_family *f, const json_t *test,
                                  const lean_case *lc, run_outcome *oc)
{
    oc->checked = true;
    run_copy(oc->comment, sizeof oc->comment, json_string_value(json_object_get(test, "comment")));
    if (oc->status == RUN_PASS) {
        char note[640] = "";
        oc->msg[0] = '\0';
        if (!lc || !run_lean_pass(lc->L, f, lc->g, lc->i, test, oc->world, oc->first,
                                  oc->count, oc->views))
            oc->status = check_ranks(o, f, whole_test(lc, test), oc->world, oc->first,
                                     oc->count, oc->views, oc->msg, sizeof oc->msg, note,
                                     sizeof note);
        if (oc->status == RUN_PASS)
            run_copy(oc->msg, sizeof oc->msg, note);
    }
    bool cut = oc->status == RUN_PASS && f->invariants;
    for (int64_t i = 0; cut && i < oc->count; i++)
        cut = keep_invariant_fields(f, &oc->views[i]);
    if (cut)
        return;
    if (oc->status == RUN_PASS && f->invariants) {
        oc->status = RUN_INTERNAL;
        snprintf(oc->msg, sizeof oc->msg, "out of memory for the invariants' fields");
    }
    run_outcome_clear(oc);
    oc->count = 0;
}

/* One case in the worker: its block computed (and, where the worker checks, checked) and its
 * outcome line written; false when the answer pipe broke. */
static bool serve_case(const run_opts *o, const shc_family *f, const shc_golden *g,
                       int64_t proc, const run_views_item *it, run_lean *lean, FILE *fp)
{
    if (it->skip)
        return fputs("{}\n", fp) >= 0 && !fflush(fp);
    int64_t i = it->idx;
    /* a tree the runner parsed before the fork is shared: freeing it here would only copy
     * its pages */
    bool parsed_here = g->text && !g->tests[i];
    /* a worker that checks what it computes needs no expected tree to compute, nor, where
     * the views are right, to check them (run_lean.c) */
    json_t *lean_test = o->be->checks_in_worker && !o->be->compare
                        ? run_lean_test(lean, g, i) : NULL;
    lean_case lc = {lean, g, i}, *lcp = lean_test ? &lc : NULL;
    const json_t *group = shc_golden_group(g, i);
    const json_t *test = lean_test ? lean_test : shc_golden_test(g, i);
    run_outcome oc = {.world = it->world};
    if (oc.world == RUN_WORLD_UNKNOWN) /* one process: the runner left it to the worker */
        run_case_supported(o, f, group, o->max_ranks, &oc);
    if (oc.status != RUN_NOTSUPPORTED) {
        run_block_of(o, proc, &oc);
        oc.views = calloc((size_t)oc.count, sizeof *oc.views);
        oc.status = oc.views ? compute_views(o, f, group, test, oc.world, oc.first, oc.count,
                                             oc.views, oc.msg, sizeof oc.msg)
                             : RUN_INTERNAL;
    }
    if (o->be->checks_in_worker && proc < 0)
        check_in_worker(o, f, group, test, lcp, &oc);
    else if (o->be->checks_in_worker && oc.status != RUN_NOTSUPPORTED &&
             block_checkable(o, f, test))
        check_block_in_worker(o, f, test, lcp, &oc);
    char *text = run_outcome_dump(&oc);
    bool ok = text && fputs(text, fp) >= 0 && fputc('\n', fp) >= 0 && !fflush(fp);
    free(text);
    run_outcome_clear(&oc);
    /* the worker's own parse of the test, freed for the next one's: kept, the trees took
     * fresh pages (a tenth of ref's time in page faults) */
    if (parsed_here)
        shc_golden_test_done(g, i);
    json_decref(lean_test);
    return ok;
}

/* A whole read of n bytes from fd: n, 0 at end of file before any byte, -1 otherwise. */
static ssize_t read_whole(int fd, void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (char *)buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return got || r < 0 ? -1 : 0;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

/* The worker's next request (run_views.h): its item count (0: the runner closed the channel,
 * -1: unreadable), the items in *items (grown as needed). */
static int64_t read_request(int fd, run_views_item **items, size_t *cap)
{
    int64_t n;
    ssize_t r = read_whole(fd, &n, sizeof n);
    if (r <= 0)
        return r;
    if (n <= 0 || n > RUN_VIEWS_MAX_ITEMS)
        return -1;
    if ((size_t)n > *cap) {
        run_views_item *m = realloc(*items, (size_t)n * sizeof *m);
        if (!m)
            return -1;
        *items = m;
        *cap = (size_t)n;
    }
    return read_whole(fd, *items, (size_t)n * sizeof **items) > 0 ? n : -1;
}

_Noreturn void run_worker_serve(const run_opts *o, const shc_family *f, const shc_golden *g,
                      int64_t proc, int req, int ans)
{
    FILE *fp = fdopen(ans, "w");
    if (!fp)
        shc_child_exit(5);
    run_opts mine = *o; /* the plugin is opened here, never in the runner's own process */
    shc_err pe = {0};
    char *bad = NULL; /* the plugin did not open: every case says why */
    if (o->be->worker_open && o->be->worker_open(&mine, &pe)) {
        run_outcome b = {.status = RUN_INTERNAL};
        snprintf(b.msg, sizeof b.msg, "worker: %s", pe.msg);
        if (!(bad = run_outcome_dump(&b)))
            shc_child_exit(3);
    }
    o = &mine;
    run_lean lean = {0};
    run_views_item *items = NULL;
    size_t cap = 0;
    int64_t n;
    while ((n = read_request(req, &items, &cap)) > 0)
        for (int64_t k = 0; k < n; k++) {
            bool ok = bad ? fprintf(fp, "%s\n", items[k].skip ? "{}" : bad) >= 0 && !fflush(fp)
                          : serve_case(o, f, g, proc, &items[k], &lean, fp);
            if (!ok)
                shc_child_exit(3);
        }
    run_lean_free(&lean);
    shc_child_exit(n < 0 ? 5 : fclose(fp) ? 3 : 0);
}

/* ---- checking ---- */

/* An invalid case flagged StricterThanTorch is one shardcheck rejects and torch accepts (the
 * flag's note says why: a limit of shardcheck's own, docs/invalid-audit.md), so an
 * implementation that follows torch answers it.  A rejection passes; when every rank answered,
 * the case is NotSupported (shc_stricter_answered).  true with the status in *s. */
static bool stricter_than_torch(const json_t *test, int64_t world, json_t *const *views,
                                run_status *s, char *msg, size_t n)
{
    for (int64_t r = 0; r < world; r++)
        if (!shc_stricter_answered(test, views[r]))
            return false;  /* a rejection, or ranks that disagree: judged as any case */
    *s = RUN_NOTSUPPORTED;
    snprintf(msg, n, "%s", SHC_STRICTER_ANSWERED);
    return world > 0;
}

/* Ranks [first, first+count) of a world-rank case, views[i] rank first+i's, each checked on
 * its own: the family's view_check and the comparison with golden.  The first rank that does
 * not pass decides (its message in msg); a pass may leave a note (a GpuOnly digest within
 * tolerance, or the backend's pass_note) in note[0..nn). */
static run_status check_ranks(const run_opts *o, const shc_family *f, const json_t *test,
                              int64_t world, int64_t first, int64_t count,
                              json_t *const *views, char *msg, size_t n, char *note, size_t nn)
{
    char m[600];
    for (int64_t i = 0; i < count; i++) {
        int64_t r = first + i;
        m[0] = 0;
        if (!views[i]) {
            snprintf(msg, n, "rank %lld: no view", (long long)r);
            return RUN_INTERNAL;
        }
        /* the family's own check of the view (family.h view_check), on every backend */
        if (f->view_check && !f->view_check(test, views[i], msg, n))
            return RUN_FAIL;
        int ok = o->be->compare ? o->be->compare(f, test, r, views[i], m, sizeof m)
                                : shc_compare_view(test, r, views[i], m, sizeof m);
        if (ok == 2) { /* cuda: a GpuOnly value the golden's CPU model of CUDA math misses */
            snprintf(msg, n, "rank %lld: %s", (long long)r, m);
            return RUN_NOTSUPPORTED;
        }
        if (ok && o->be->pass_note && m[0]) /* cuda: the profile the check used */
            snprintf(msg, n, "%s", m);
        if (!ok) {
            snprintf(msg, n, "rank %lld: %s", (long long)r, m);
            return RUN_FAIL;
        }
        if (m[0] && !note[0] && world > 1) /* a GpuOnly digest within tolerance */
            snprintf(note, nn, "rank %lld: %s", (long long)r, m);
        else if (m[0] && !note[0])
            snprintf(note, nn, "%s", m);
    }
    return RUN_PASS;
}

run_status run_check(const run_opts *o, const shc_family *f, const json_t *group,
                     const json_t *test, int64_t world, json_t *const *views, char *msg,
                     size_t n)
{
    char note[640] = "";
    run_status st;
    if (stricter_than_torch(test, world, views, &st, msg, n))
        return st;
    if ((st = check_ranks(o, f, test, world, 0, world, views, msg, n, note, sizeof note)) !=
        RUN_PASS)
        return st;
    const char *res = json_string_value(json_object_get(test, "result"));
    if (res && !strcmp(res, "invalid"))
        return RUN_PASS;
    /* The family's own SPMD invariants across ranks (replicas, RNG windows, ...). */
    if (f->invariants && !f->invariants(group, test, world, views, msg, n))
        return RUN_FAIL;
    if (note[0]) /* a Pass with a note: the caller prints it beside the Pass */
        run_copy(msg, n, note);
    return RUN_PASS;
}
