/*
 * backend_plugin.c — load a vendor backend (shardcheck_backend.h, ABI v1)
 * with dlopen and turn its answers into golden-format views.
 *
 * The loader is strict on purpose: a library without the two symbols, with
 * another ABI version, or whose table is shorter than v1's gets a message
 * naming the file and what is wrong, never a crash.  For redistribute-data
 * the plugin executes every rank at once on the same deterministic inputs
 * our backends use (testdata.c), and the runner checks the outputs both
 * against the golden digests and against the oracle.  Where a family's
 * fields are beyond the ABI (group-ranks, redistribute-plan, torch-cuda-rng)
 * the answers are converted to the golden view's form, or the golden view
 * extended (the family's project.abi_v1 hooks), and a case the ABI cannot state is
 * NotSupported with the reason, never Fail.  Tested by
 * conformance/tests/run_faults.sh and run_mpi.sh.
 */
#include "config.h"
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include "backend_plugin.h"
#include "child_exit.h"
#include "golden.h"
#include "plugin_host.h"

static int open_v1(shc_plugin *p, const char *path, shc_err *e)
{
    shc_backend_entry_fn entry;
    *(void **)&entry = dlsym(p->dl, SHC_BACKEND_ENTRY_SYMBOL);
    if (!entry)
        return shc_fail(e, SHC_EINVAL, "plugin %s: missing symbol %s (its %s() says ABI "
                        "version 1)", path, SHC_BACKEND_ENTRY_SYMBOL, SHC_BACKEND_ABI_SYMBOL);
    if (!(p->be = entry()))
        return shc_fail(e, SHC_EINVAL, "plugin %s: %s() returned NULL", path,
                        SHC_BACKEND_ENTRY_SYMBOL);
    if (p->be->abi_version != SHC_BACKEND_ABI_V1 || p->be->struct_size < sizeof(shc_backend_v1))
        return shc_fail(e, SHC_EINVAL, "plugin %s: backend table says ABI %u, size %u (want %u, "
                        ">= %zu)", path, p->be->abi_version, p->be->struct_size,
                        SHC_BACKEND_ABI_V1, sizeof(shc_backend_v1));
    return SHC_OK;
}

/* A v2 table must hold what its families need: answer always (every family but
 * redistribute-data asks it), execute unless supports() refuses redistribute-data. */
static int open_v2(shc_plugin *p, const char *path, shc_err *e)
{
    shc_backend_entry_v2_fn entry;
    *(void **)&entry = dlsym(p->dl, SHC_BACKEND_ENTRY_V2_SYMBOL);
    if (!entry)
        return shc_fail(e, SHC_EINVAL, "plugin %s: missing symbol %s (its %s() says ABI "
                        "version 2)", path, SHC_BACKEND_ENTRY_V2_SYMBOL, SHC_BACKEND_ABI_SYMBOL);
    const shc_backend_v2 *b = p->be2 = entry();
    if (!b)
        return shc_fail(e, SHC_EINVAL, "plugin %s: %s() returned NULL", path,
                        SHC_BACKEND_ENTRY_V2_SYMBOL);
    if (b->abi_version != SHC_BACKEND_ABI_V2 || b->struct_size < sizeof(shc_backend_v2))
        return shc_fail(e, SHC_EINVAL, "plugin %s: backend table says ABI %u, size %u (want %u, "
                        ">= %zu: built against another shardcheck_backend.h?)", path,
                        b->abi_version, b->struct_size, SHC_BACKEND_ABI_V2,
                        sizeof(shc_backend_v2));
    if (!b->answer)
        return shc_fail(e, SHC_EINVAL, "plugin %s: ABI v2 table has no answer entry point "
                        "(every family but redistribute-data needs it)", path);
    char why[256] = "";
    if (!b->execute && (!b->supports || !b->supports(b->self, "redistribute-data", why,
                                                     sizeof why)))
        return shc_fail(e, SHC_EINVAL, "plugin %s: ABI v2 table has no execute entry point, yet "
                        "it claims redistribute-data (supports() %s): give execute, or have "
                        "supports() return SHC_BACKEND_UNSUPPORTED for it", path,
                        b->supports ? "returns 0 for it" : "is NULL");
    return SHC_OK;
}

int shc_plugin_open(shc_plugin *p, const char *path, shc_err *e)
{
    memset(p, 0, sizeof *p);
    snprintf(p->path, sizeof p->path, "%s", path);
    p->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!p->dl)
        return shc_fail(e, SHC_EINVAL, "plugin %s: cannot load: %s", path, dlerror());
    shc_backend_abi_fn abi;
    *(void **)&abi = dlsym(p->dl, SHC_BACKEND_ABI_SYMBOL);
    uint32_t v = abi ? abi() : 0;
    int rc = !abi ? shc_fail(e, SHC_EINVAL, "plugin %s: missing symbol %s (not a shardcheck "
                             "backend? see shardcheck_backend.h)", path, SHC_BACKEND_ABI_SYMBOL)
           : v == SHC_BACKEND_ABI_V1 ? open_v1(p, path, e)
           : v == SHC_BACKEND_ABI_V2 ? open_v2(p, path, e)
           : shc_fail(e, SHC_EINVAL, "plugin %s: ABI version %u; this runner speaks versions "
                      "%u and %u", path, v, SHC_BACKEND_ABI_V1, SHC_BACKEND_ABI_V2);
    if (rc) {
        dlclose(p->dl);
        p->dl = NULL;
        p->be = NULL;
        p->be2 = NULL;
    }
    return rc;
}

const char *shc_plugin_name(const shc_plugin *p)
{
    const char *n = p->be2 ? p->be2->name : p->be ? p->be->name : NULL;
    return n && *n ? n : p->path;
}

/* ---- loading in a throw-away process ---- */

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The probe child: load, report "rc message" on fd, end without running anything else. */
static _Noreturn void probe_child(const char *path, int fd)
{
    shc_plugin p;
    shc_err ce = {0};
    int rc = shc_plugin_open(&p, path, &ce);
    char line[sizeof ce.msg + 16];
    int n = rc ? snprintf(line, sizeof line, "%d %s", rc, ce.msg)
               : snprintf(line, sizeof line, "0 %u %s", p.be2 ? 2u : 1u, shc_plugin_name(&p));
    n = n < (int)sizeof line ? n : (int)sizeof line - 1;
    shc_child_exit(write(fd, line, (size_t)n) == n ? 0 : 3);
}

/* Read the child's one answer until EOF or the deadline; returns bytes read, -1 on timeout. */
static ssize_t probe_read(int fd, char *buf, size_t cap, double timeout_s)
{
    size_t len = 0;
    double deadline = mono_s() + timeout_s;
    for (;;) {
        double left = deadline - mono_s();
        if (left <= 0)
            return -1;
        struct pollfd pf = {fd, POLLIN, 0};
        if (poll(&pf, 1, (int)(left * 1000) + 1) <= 0)
            continue;
        ssize_t r = read(fd, buf + len, cap - 1 - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0 || (len += (size_t)r) == cap - 1)
            break;
    }
    buf[len] = '\0';
    return (ssize_t)len;
}

int shc_plugin_probe(const char *path, double timeout_s, bool *crashed, shc_err *e)
{
    char name[8];
    unsigned abi;
    return shc_plugin_probe_info(path, timeout_s, crashed, &abi, name, sizeof name, e);
}

int shc_plugin_probe_info(const char *path, double timeout_s, bool *crashed, unsigned *abi,
                          char *name, size_t n, shc_err *e)
{
    *abi = 0;
    snprintf(name, n, "%s", path);
    *crashed = false;
    int fds[2];
    fflush(NULL); /* the child must not flush the parent's buffered output again */
    pid_t pid = pipe(fds) ? -1 : fork();
    if (pid < 0)
        return shc_fail(e, SHC_EINTERNAL, "plugin %s: cannot start a loader process: %s", path,
                        strerror(errno));
    if (pid == 0) {
        close(fds[0]);
        probe_child(path, fds[1]);
    }
    close(fds[1]);
    char buf[sizeof e->msg + 16];
    ssize_t len = probe_read(fds[0], buf, sizeof buf, timeout_s);
    close(fds[0]);
    if (len < 0)
        kill(pid, SIGKILL);
    int st = 0;
    waitpid(pid, &st, 0);
    int rc;
    char *msg;
    if (len > 0 && (rc = (int)strtol(buf, &msg, 10), msg > buf && *msg == ' ')) {
        if (!rc) {
            *abi = (unsigned)strtoul(msg + 1, &msg, 10);
            snprintf(name, n, "%s", *msg ? msg + 1 : ""); /* the plugin's name, printable */
            for (char *c = name; *c; c++)
                *c = (unsigned char)*c < 0x20 || *c == 0x7f ? '?' : *c;
            return SHC_OK;
        }
        return shc_fail(e, rc, "%s", msg + 1); /* the loader's own message */
    }
    *crashed = true;
    if (len < 0)
        return shc_fail(e, SHC_EINVAL, "plugin %s: loading it did not finish within %.0f s "
                        "(a constructor hangs?)", path, timeout_s);
    if (WIFSIGNALED(st))
        return shc_fail(e, SHC_EINVAL, "plugin %s: loading it killed the process with signal %d "
                        "(%s): a constructor crashes", path, WTERMSIG(st), strsignal(WTERMSIG(st)));
    return shc_fail(e, SHC_EINVAL, "plugin %s: loading it ended the process with exit(%d) "
                    "before the backend was checked: a constructor calls exit", path,
                    WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

void shc_plugin_close(shc_plugin *p)
{
    if (p->dl)
        dlclose(p->dl);
    p->dl = NULL;
    p->be = NULL;
    p->be2 = NULL;
}

/* ---- views ---- */

int shc_plugin_views(const shc_plugin *p, const shc_family *f, const json_t *group,
                     const json_t *test, int64_t world, json_t **views, shc_err *e)
{
    /* Each family converts its own cases (its project.abi_v1.views hook); a family
     * without one is outside ABI v1. */
    void *const *entry = f->project.abi_v1.views
                             ? (void *const *)((const char *)p->be + f->project.abi_v1.entry)
                             : NULL;
    if (!entry || !*entry)
        return shc_fail(e, SHC_EUNSUPPORTED, "plugin %s: no ABI v1 entry point for family %s",
                        p->be->name ? p->be->name : p->path, f->name);
    return f->project.abi_v1.views(p->be, group, test, world, views, e);
}

/* ABI v1 on a block: every rank's answer (group-ranks derives its fields from all of
 * them), the block's kept. */
static int v1_block(const shc_plugin *p, const shc_family *f, const json_t *group,
                    const json_t *test, int64_t world, int64_t first, int64_t count,
                    json_t **views, shc_err *e)
{
    json_t **all = calloc((size_t)world, sizeof *all);
    if (!all)
        return shc_fail(e, SHC_ENOMEM, "out of memory for %lld views", (long long)world);
    int rc = shc_plugin_views(p, f, group, test, world, all, e);
    for (int64_t r = 0; r < world; r++) {
        if (!rc && r >= first && r < first + count)
            views[r - first] = all[r];
        else
            json_decref(all[r]);
    }
    free(all);
    return rc;
}

/* supports(family), asked once per family in this process. */
static int v2_supports(shc_plugin *p, const shc_family *f, shc_err *e)
{
    const shc_backend_v2 *b = p->be2;
    if (!b->supports)
        return SHC_OK;
    if (strcmp(p->supports_family, f->name)) {
        char why[sizeof p->supports_why] = "";
        p->supports_rc = b->supports(b->self, f->name, why, sizeof why);
        snprintf(p->supports_why, sizeof p->supports_why, "%s", why[0] ? why : "no reason given");
        snprintf(p->supports_family, sizeof p->supports_family, "%s", f->name);
    }
    if (p->supports_rc == SHC_BACKEND_UNSUPPORTED)
        return shc_fail(e, SHC_EUNSUPPORTED, "plugin %s: %s not supported: %s",
                        shc_plugin_name(p), f->name, p->supports_why);
    if (p->supports_rc)
        return shc_fail(e, SHC_EINVAL, "plugin %s: supports(\"%s\") returned %d: %s",
                        shc_plugin_name(p), f->name, p->supports_rc, p->supports_why);
    return SHC_OK;
}

/* One rank's answer: its view, an error view (the plugin refused the case), or an error. */
static int v2_answer(shc_plugin *p, shc_case_v2 *c, int64_t rank, json_t **view, shc_err *e)
{
    const shc_backend_v2 *b = p->be2;
    shc_answer_v2 a;
    shc_answer_v2_init(&a);
    char err[512] = "";
    int rc = b->answer(b->self, shc_plugin_host(), c, rank, &a, err, sizeof err);
    shc_case_v2_reset(c);
    err[sizeof err - 1] = '\0';
    if (rc == SHC_BACKEND_UNSUPPORTED) {
        shc_answer_v2_free(&a);
        return shc_fail(e, SHC_EUNSUPPORTED, "plugin %s: rank %lld: %s", shc_plugin_name(p),
                        (long long)rank, err[0] ? err : "not supported (no reason given)");
    }
    if (rc) { /* a refusal: compared with the golden error (an invalid case must be one) */
        shc_answer_v2_free(&a);
        if (!err[0])
            snprintf(err, sizeof err, "refused with %d (no message)", rc);
        *view = json_pack("{s:s}", "error", err);
        return *view ? SHC_OK : shc_fail(e, SHC_ENOMEM, "out of memory");
    }
    char why[256];
    if (!(*view = shc_answer_v2_take(&a, why, sizeof why)))
        return shc_fail(e, SHC_EINVAL, "plugin %s: rank %lld: answer refused: %s",
                        shc_plugin_name(p), (long long)rank, why);
    return SHC_OK;
}

int shc_plugin_v2_execute(shc_plugin *p, const char *torch, const json_t *group,
                          const json_t *test, int64_t world, int64_t first, int64_t count,
                          json_t **views, shc_err *e)
{
    (void)torch, (void)group, (void)test, (void)world, (void)first, (void)count, (void)views;
    return shc_fail(e, SHC_EUNSUPPORTED, "plugin %s: execute runs in the runner over a "
                    "communicator (plugin_comm.c), not here", shc_plugin_name(p));
}

int shc_plugin_block(shc_plugin *p, const shc_family *f, const char *torch,
                     const json_t *group, const json_t *test, int64_t world, int64_t first,
                     int64_t count, json_t **views, shc_err *e)
{
    if (!p->be2)
        return v1_block(p, f, group, test, world, first, count, views, e);
    int rc = v2_supports(p, f, e);
    if (rc)
        return rc;
    if (f->exec.outside) /* executed over a communicator: run_plugin.c, plugin_comm.c */
        return shc_plugin_v2_execute(p, torch, group, test, world, first, count, views, e);
    shc_case_v2 c;
    if ((rc = shc_case_v2_init(&c, f->name, torch, group, test, world, e)))
        return rc;
    for (int64_t i = 0; i < count && !rc; i++)
        rc = v2_answer(p, &c, first + i, &views[i], e);
    shc_case_v2_free(&c);
    return rc;
}
