/*
 * run_check.c — the heart of `shardcheck run`: compute a test's per-rank
 * views on a backend inside a forked worker (so a crash becomes Crash and a
 * hang becomes Timeout after the per-case limit, never a dead or hung
 * runner), then check them: every rank against the golden view, and the SPMD
 * invariants across ranks —
 *   redistribute-data: ranks that hold replicas have identical bytes, and
 *     every rank's result equals the global tensor sliced by its layout
 *     (the oracle in testdata.c; local and plugin backends);
 *   rng-offsets: every rank's generator ends at the same offset (post-op RNG
 *     state equal), replicas start at the same offset, and distinct shards
 *     draw from disjoint Philox windows unless the case carries the flagged
 *     finding (OffsetOverlap, OffsetSameStart, OffsetOverrun).
 * Faults are injected here (SHARDCHECK_FAULT) so the Crash and Timeout paths
 * are tested for real.  Tested by conformance/tests/run_faults.sh.
 */
#include "config.h"
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "run.h"
#include "redistribute_exec.h"

static const char *const status_names[RUN_NSTATUS] = {"Pass", "Fail", "NotSupported", "Crash",
                                                      "Timeout", "InternalError"};

const char *run_status_name(run_status s) { return s < RUN_NSTATUS ? status_names[s] : "?"; }

int run_parse_fault(const char *spec, run_fault *f)
{
    memset(f, 0, sizeof *f);
    if (!spec || !*spec)
        return 0;
    char kind[16];
    long long r, t;
    if (sscanf(spec, "%15[a-z]:%lld:%lld", kind, &r, &t) != 3 ||
        (strcmp(kind, "kill") && strcmp(kind, "hang"))) {
        fprintf(stderr, "shardcheck run: SHARDCHECK_FAULT='%s': expected kill:RANK:TCID or "
                "hang:RANK:TCID\n", spec);
        return -1;
    }
    f->kind = strcmp(kind, "kill") ? FAULT_HANG : FAULT_KILL;
    f->rank = r;
    f->tcid = t;
    return 0;
}

/* ---- outcomes as text (worker -> parent, rank -> rank 0) ---- */

char *run_outcome_dump(run_status s, const char *msg, json_t **views, int64_t count)
{
    json_t *a = json_array();
    for (int64_t i = 0; views && i < count; i++)
        json_array_append(a, views[i] ? views[i] : json_null());
    json_t *o = json_pack("{s:i, s:s, s:o}", "status", (int)s, "msg", msg ? msg : "", "views", a);
    char *text = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return text;
}

run_status run_outcome_load(const char *text, json_t **views, int64_t count, char *msg,
                            size_t n)
{
    json_error_t je;
    json_t *o = text ? json_loads(text, 0, &je) : NULL;
    json_t *a = json_object_get(o, "views");
    if (!o || !json_is_integer(json_object_get(o, "status")) ||
        json_array_size(a) != (size_t)count) {
        snprintf(msg, n, "worker sent an unreadable outcome (%zu bytes)", text ? strlen(text) : 0);
        json_decref(o);
        return RUN_INTERNAL;
    }
    run_status s = (run_status)json_integer_value(json_object_get(o, "status"));
    snprintf(msg, n, "%s", json_string_value(json_object_get(o, "msg")));
    for (int64_t i = 0; i < count; i++) {
        json_t *v = json_array_get(a, (size_t)i);
        views[i] = json_is_null(v) ? NULL : json_incref(v);
    }
    json_decref(o);
    return s;
}

/* ---- computing views (inside the worker) ---- */

static json_t *error_view(const char *m) { return json_pack("{s:s}", "error", m); }

/* An ordinary family: compute_rank per rank. */
static run_status ref_views(const shc_family *f, const json_t *group, const json_t *test,
                            int64_t first, int64_t count, json_t **views, char *msg, size_t n)
{
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

/* redistribute-data on the local backend: execute for real on simulated ranks. */
static run_status local_exec_views(const run_opts *o, const json_t *group, const json_t *test,
                                   int64_t world, json_t **views, char *msg, size_t n)
{
    if (world > o->max_ranks) {
        snprintf(msg, n, "needs %lld simulated ranks, --max-ranks is %lld", (long long)world,
                 (long long)o->max_ranks);
        return RUN_NOTSUPPORTED;
    }
    shc_err e = {0};
    int rc;
    shc_xcase c;
    memset(&c, 0, sizeof c);
    rc = shc_xcase_from_json(group, test, &c, &e);
    shc_xtensor *res = rc ? NULL : calloc((size_t)world, sizeof *res);
    if (!rc)
        rc = res ? shc_exec_simulate(&c, res, &e) : SHC_ENOMEM;
    if (rc == SHC_EINTERNAL || rc == SHC_ENOMEM) {
        snprintf(msg, n, "local backend: %s", e.msg);
        free(res);
        shc_xcase_free(&c);
        return RUN_INTERNAL;
    }
    for (int64_t r = 0; r < world; r++) {
        if (rc) {
            views[r] = error_view(e.msg);
            continue;
        }
        views[r] = shc_rdata_view(&res[r]);
        shc_rdata_oracle_note(&c, r, &res[r], views[r]);
        shc_xtensor_free(&res[r]);
    }
    free(res);
    shc_xcase_free(&c);
    return RUN_PASS;
}

static void inject(const run_opts *o, const json_t *test, int64_t first, int64_t count)
{
    if (o->fault.kind == FAULT_NONE ||
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
    inject(o, test, first, count);
    if (o->backend == BACKEND_PLUGIN) {
        shc_err e = {0};
        int rc = shc_plugin_views(&o->plugin, f->name, group, test, world, views, &e);
        if (rc)
            snprintf(msg, n, "%s", e.msg);
        return rc == SHC_EUNSUPPORTED ? RUN_NOTSUPPORTED : rc ? RUN_INTERNAL : RUN_PASS;
    }
    if (o->backend == BACKEND_LOCAL && !strcmp(f->name, "redistribute-data"))
        return local_exec_views(o, group, test, world, views, msg, n);
    return ref_views(f, group, test, first, count, views, msg, n);
}

/* ---- the worker ---- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void child(const run_opts *o, const shc_family *f, const json_t *group, const json_t *test,
                  int64_t world, int64_t first, int64_t count, int fd)
{
    json_t **views = calloc((size_t)count, sizeof *views);
    char msg[768] = "";
    run_status s = views ? compute_views(o, f, group, test, world, first, count, views, msg,
                                         sizeof msg)
                         : RUN_INTERNAL;
    char *text = run_outcome_dump(s, msg, views, count);
    size_t len = text ? strlen(text) : 0, off = 0;
    while (off < len) {
        ssize_t w = write(fd, text + off, len - off);
        if (w <= 0)
            _exit(3);
        off += (size_t)w;
    }
    _exit(text ? 0 : 4);
}

run_status run_views(const run_opts *o, const shc_family *f, const json_t *group,
                     const json_t *test, int64_t world, int64_t first, int64_t count,
                     json_t **views, char *msg, size_t n)
{
    int fds[2];
    fflush(NULL);
    if (pipe(fds)) {
        snprintf(msg, n, "pipe: %s", strerror(errno));
        return RUN_INTERNAL;
    }
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]), close(fds[1]);
        snprintf(msg, n, "fork: %s", strerror(errno));
        return RUN_INTERNAL;
    }
    if (pid == 0) {
        close(fds[0]);
        child(o, f, group, test, world, first, count, fds[1]);
    }
    close(fds[1]);
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    double deadline = now_s() + o->timeout_s;
    bool timed_out = false;
    for (;;) {
        double left = deadline - now_s();
        if (left <= 0) {
            timed_out = true;
            break;
        }
        struct pollfd p = {fds[0], POLLIN, 0};
        int pr = poll(&p, 1, (int)(left * 1000) + 1);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr <= 0)
            continue;
        if (len + 4096 > cap)
            buf = realloc(buf, cap *= 2);
        ssize_t r = read(fds[0], buf + len, cap - len - 1);
        if (r <= 0)
            break;
        len += (size_t)r;
    }
    close(fds[0]);
    int st = 0;
    if (timed_out)
        kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    buf[len] = '\0';
    run_status s;
    if (timed_out) {
        snprintf(msg, n, "ranks %lld..%lld: no answer within %.0f s (worker killed)",
                 (long long)first, (long long)(first + count - 1), o->timeout_s);
        s = RUN_TIMEOUT;
    } else if (WIFSIGNALED(st)) {
        snprintf(msg, n, "ranks %lld..%lld: worker died with signal %d (%s)", (long long)first,
                 (long long)(first + count - 1), WTERMSIG(st), strsignal(WTERMSIG(st)));
        s = RUN_CRASH;
    } else if (!WIFEXITED(st) || WEXITSTATUS(st)) {
        snprintf(msg, n, "worker exited with status %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        s = RUN_INTERNAL;
    } else {
        s = run_outcome_load(buf, views, count, msg, n);
    }
    free(buf);
    return s;
}

/* ---- checking ---- */

static bool has_flag(const json_t *test, const char *flag)
{
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(test, "flags"), i, v)
        if (!strcmp(json_string_value(v), flag))
            return true;
    return false;
}

/* Plugins answer only the fields the ABI covers: compare those. */
static int compare_subset(const json_t *test, int64_t rank, const json_t *got, char *msg,
                          size_t n)
{
    const json_t *exp = json_object_get(test, "expected");
    const char *res = json_string_value(json_object_get(test, "result"));
    if (res && !strcmp(res, "invalid")) {
        if (json_object_get(got, "error"))
            return 1;
        snprintf(msg, n, "an invalid case was accepted");
        return 0;
    }
    json_t *want = shc_expected_view(exp, rank);
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

static int64_t i64_field(const json_t *v, const char *k)
{
    const json_t *x = json_object_get(v, k);
    return json_is_string(x) ? strtoll(json_string_value(x), NULL, 10) : json_integer_value(x);
}

/* rng-offsets: post-op state equal, replicas aligned, distinct shards disjoint. */
static run_status rng_invariants(const json_t *test, int64_t world, json_t *const *v, char *msg,
                                 size_t n)
{
    bool flagged = has_flag(test, "OffsetOverlap") || has_flag(test, "OffsetSameStart") ||
                   has_flag(test, "OffsetOverrun");
    for (int64_t a = 0; a < world; a++) {
        if (i64_field(v[a], "end_incr") != i64_field(v[0], "end_incr")) {
            snprintf(msg, n, "RNG state differs after the op: rank %lld ends at +%lld, rank 0 at "
                     "+%lld", (long long)a, (long long)i64_field(v[a], "end_incr"),
                     (long long)i64_field(v[0], "end_incr"));
            return RUN_FAIL;
        }
        for (int64_t b = 0; b < a; b++) {
            int64_t sa = i64_field(v[a], "start_incr"), sb = i64_field(v[b], "start_incr");
            int64_t la = i64_field(v[a], "local_numel"), lb = i64_field(v[b], "local_numel");
            bool same = i64_field(v[a], "shard_linear_index") ==
                        i64_field(v[b], "shard_linear_index");
            if (same && (sa != sb || la != lb)) {
                snprintf(msg, n, "replicas draw differently: ranks %lld and %lld hold shard "
                         "%lld but start at +%lld and +%lld", (long long)b, (long long)a,
                         (long long)i64_field(v[a], "shard_linear_index"), (long long)sb,
                         (long long)sa);
                return RUN_FAIL;
            }
            if (!same && la > 0 && lb > 0 && sa < sb + lb && sb < sa + la && !flagged) {
                snprintf(msg, n, "distinct shards share Philox offsets: rank %lld [+%lld, +%lld) "
                         "and rank %lld [+%lld, +%lld) overlap, and the case has no finding flag",
                         (long long)b, (long long)sb, (long long)(sb + lb), (long long)a,
                         (long long)sa, (long long)(sa + la));
                return RUN_FAIL;
            }
        }
    }
    return RUN_PASS;
}

/* redistribute-data: ranks that differ only along Replicate target dims hold equal bytes. */
static run_status data_invariants(const json_t *group, const json_t *test, int64_t world,
                                  json_t *const *v, char *msg, size_t n)
{
    shc_placements dst;
    shc_err e = {0};
    const json_t *mesh = json_object_get(group, "mesh");
    if (shc_placements_parse(&dst, json_string_value(json_object_get(test, "dst")), &e) ||
        dst.n != (int)json_array_size(mesh))
        return RUN_PASS; /* the golden comparison already reported it */
    for (int64_t a = 0; a < world; a++) {
        const char *oracle = json_string_value(json_object_get(v[a], "oracleMismatch"));
        if (oracle) {
            snprintf(msg, n, "redistributed data differs from the global tensor: %s", oracle);
            return RUN_FAIL;
        }
        for (int64_t b = 0; b < a; b++) {
            int64_t ra = a, rb = b;
            bool replicas = true;
            for (int d = dst.n - 1; d >= 0; d--) {
                int64_t sz = json_integer_value(json_array_get(mesh, (size_t)d));
                if (dst.p[d].kind != SHC_P_REPLICATE && ra % sz != rb % sz)
                    replicas = false;
                ra /= sz, rb /= sz;
            }
            if (replicas && !json_equal(json_object_get(v[a], "sha256"),
                                        json_object_get(v[b], "sha256"))) {
                snprintf(msg, n, "replicas differ: ranks %lld and %lld hold the same part but "
                         "their bytes differ (sha256 %.12s... vs %.12s...)", (long long)b,
                         (long long)a, json_string_value(json_object_get(v[b], "sha256")),
                         json_string_value(json_object_get(v[a], "sha256")));
                return RUN_FAIL;
            }
        }
    }
    return RUN_PASS;
}

run_status run_check(const run_opts *o, const shc_family *f, const json_t *group,
                     const json_t *test, int64_t world, json_t *const *views, char *msg,
                     size_t n)
{
    char m[600];
    for (int64_t r = 0; r < world; r++) {
        if (!views[r]) {
            snprintf(msg, n, "rank %lld: no view", (long long)r);
            return RUN_INTERNAL;
        }
        const char *oracle = json_string_value(json_object_get(views[r], "oracleMismatch"));
        if (oracle) {
            snprintf(msg, n, "redistributed data differs from the global tensor: %s", oracle);
            return RUN_FAIL;
        }
        int ok = o->backend == BACKEND_PLUGIN ? compare_subset(test, r, views[r], m, sizeof m)
                                              : shc_compare_view(test, r, views[r], m, sizeof m);
        if (!ok) {
            snprintf(msg, n, "rank %lld: %s", (long long)r, m);
            return RUN_FAIL;
        }
    }
    const char *res = json_string_value(json_object_get(test, "result"));
    if (res && !strcmp(res, "invalid"))
        return RUN_PASS;
    if (!strcmp(f->name, "rng-offsets") && json_object_get(views[0], "end_incr"))
        return rng_invariants(test, world, views, msg, n);
    if (!strcmp(f->name, "redistribute-data") && json_object_get(views[0], "sha256"))
        return data_invariants(group, test, world, views, msg, n);
    return RUN_PASS;
}
