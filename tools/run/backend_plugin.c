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
 * projected (shc_plugin_project), and a case the ABI cannot state is
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
#include "plugin_v2_min.h"

int shc_plugin_open(shc_plugin *p, const char *path, shc_err *e)
{
    memset(p, 0, sizeof *p);
    snprintf(p->path, sizeof p->path, "%s", path);
    p->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!p->dl)
        return shc_fail(e, SHC_EINVAL, "plugin %s: cannot load: %s", path, dlerror());
    shc_backend_abi_fn abi;
    shc_backend_entry_fn entry;
    *(void **)&abi = dlsym(p->dl, SHC_BACKEND_ABI_SYMBOL);
    *(void **)&entry = dlsym(p->dl, SHC_BACKEND_ENTRY_SYMBOL);
    int rc = SHC_OK;
    if (abi && abi() == SHC_BACKEND_ABI_V2) { /* (abi2comm) the stand-in v2 loader */
        if ((rc = plugin_min_open_v2(p->dl, path, &p->be2, e))) {
            dlclose(p->dl);
            p->dl = NULL;
        }
        return rc;
    }
    if (!abi || !entry)
        rc = shc_fail(e, SHC_EINVAL, "plugin %s: missing symbol %s (not a shardcheck backend? "
                      "see shardcheck_backend.h)", path,
                      !abi ? SHC_BACKEND_ABI_SYMBOL : SHC_BACKEND_ENTRY_SYMBOL);
    else if (abi() != SHC_BACKEND_ABI_VERSION)
        rc = shc_fail(e, SHC_EINVAL, "plugin %s: ABI version %u, this runner speaks versions "
                      "%u and %u", path, abi(), SHC_BACKEND_ABI_V1, SHC_BACKEND_ABI_V2);
    else if (!(p->be = entry()))
        rc = shc_fail(e, SHC_EINVAL, "plugin %s: %s() returned NULL", path,
                      SHC_BACKEND_ENTRY_SYMBOL);
    else if (p->be->abi_version != SHC_BACKEND_ABI_VERSION ||
             p->be->struct_size < sizeof(shc_backend_v1))
        rc = shc_fail(e, SHC_EINVAL, "plugin %s: backend table says ABI %u, size %u (want %u, "
                      ">= %zu)", path, p->be->abi_version, p->be->struct_size,
                      SHC_BACKEND_ABI_VERSION, sizeof(shc_backend_v1));
    if (rc) {
        dlclose(p->dl);
        p->dl = NULL;
        p->be = NULL;
    }
    return rc;
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
    int n = snprintf(line, sizeof line, "%d %s", rc, rc ? ce.msg : "");
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
        if (!rc)
            return SHC_OK;
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
}

/* ---- views ---- */

int shc_plugin_views(const shc_plugin *p, const shc_family *f, const json_t *group,
                     const json_t *test, int64_t world, json_t **views, shc_err *e)
{
    /* Each family converts its own cases (its plugin_views hook); a family
     * without one is outside ABI v1. */
    void *const *entry = f->plugin.views
                             ? (void *const *)((const char *)p->be + f->plugin.entry) : NULL;
    if (!entry || !*entry)
        return shc_fail(e, SHC_EUNSUPPORTED, "plugin %s: no ABI v1 entry point for family %s",
                        p->be->name ? p->be->name : p->path, f->name);
    return f->plugin.views(p->be, group, test, world, views, e);
}
