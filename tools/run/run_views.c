/*
 * run_views.c — the runner's side of the forked worker that computes views (run_views.h).
 *
 * A family's cases are computed in a child process so that a crash is Crash and a hang is
 * Timeout for the case it happened in, never a dead or hung runner.  The worker is forked at
 * the family's first chunk and kept for its later ones: a fork per chunk copied the page
 * tables of the loaded golden family each time, and each child touched its pages afresh
 * (under mpirun, with chunks of 256, a fifth of a process's CPU; issue 36 item 1).  Each
 * chunk is one request over a socket; the worker answers one line per case, flushed, and the
 * runner waits for each line at most the case limit.  When the worker dies or overruns, the
 * case it was on takes the blame (Crash, Timeout), the worker is reaped, and a new one takes
 * the rest of the chunk.  A worker that died between chunks is found before the next request
 * (and replaced without blaming a case).  Under mpirun a chunk is still the unit a lost
 * process loses and the journal records (runner.c's CHUNK).
 * Tested by conformance/tests/run_faults.sh (kill, hang, a plugin's exit), run_mpi.sh,
 * run_plugin.sh and every run_*.sh that runs cases.
 */
#include "config.h"
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "run.h"
#include "run_views.h"
#include "run_child.h"

#define now_s run_child_now /* run_child.c: the monotonic clock, in seconds */

/* This process's worker: one at a time (the runner is one thread), for one family's golden
 * cases and one block of ranks. */
static struct {
    pid_t pid;               /* 0: none */
    int req, ans;            /* the request socket (written), the answer pipe (read) */
    const shc_family *f;
    const shc_golden *g;
    int64_t proc;
} W;

/* Fork the worker for (f, g, proc); false with errno when it cannot start. */
static bool worker_start(const run_opts *o, const shc_family *f, const shc_golden *g,
                         int64_t proc)
{
    int sv[2], fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
        return false;
    if (pipe(fds)) {
        close(sv[0]);
        close(sv[1]);
        return false;
    }
    fflush(NULL); /* nothing buffered is written twice */
    pid_t pid = fork();
    if (pid == 0) {
        close(sv[0]);
        close(fds[0]);
        run_worker_serve(o, f, g, proc, sv[1], fds[1]);
    }
    int err = errno;
    close(sv[1]);
    close(fds[1]);
    if (pid < 0) {
        close(sv[0]);
        close(fds[0]);
        errno = err;
        return false;
    }
    W.pid = pid, W.req = sv[0], W.ans = fds[0], W.f = f, W.g = g, W.proc = proc;
    return true;
}

/* Close the worker's channels and reap it (killed first when kill_it); its wait status. */
static int worker_end(bool kill_it)
{
    int st = 0;
    close(W.req);
    close(W.ans);
    if (kill_it)
        kill(W.pid, SIGKILL);
    while (waitpid(W.pid, &st, 0) < 0 && errno == EINTR)
        ;
    W.pid = 0;
    return st;
}

void run_views_done(void)
{
    if (!W.pid)
        return;
    /* the worker ends on the closed request channel (a coverage build writes its counters
     * first); one that has not within 10 s is killed */
    close(W.req);
    pid_t r = 0;
    for (int i = 0; i < 10000 && (r = waitpid(W.pid, NULL, WNOHANG)) == 0; i++)
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    close(W.ans);
    if (r == 0) { /* not reaped yet, so the pid is still the worker's */
        kill(W.pid, SIGKILL);
        waitpid(W.pid, NULL, 0);
    }
    W.pid = 0;
}

/* Whether the worker of (f, g, proc) is up: the one there, or a new one (another family's or
 * one that ended between chunks is reaped first, blaming no case). */
static bool worker_ready(const run_opts *o, const shc_family *f, const shc_golden *g,
                         int64_t proc)
{
    if (W.pid && (W.f != f || W.g != g || W.proc != proc))
        run_views_done();
    if (W.pid && waitpid(W.pid, NULL, WNOHANG) != 0) {
        close(W.req);
        close(W.ans);
        W.pid = 0;
    }
    return W.pid || worker_start(o, f, g, proc);
}

/* Send cases idx[0..n) (out's presets) as one request; false when the worker is gone. */
static bool send_request(const int64_t *idx, int64_t n, const run_outcome *out)
{
    size_t len = sizeof(int64_t) + (size_t)n * sizeof(run_views_item);
    char *buf = malloc(len);
    if (!buf)
        return false;
    memcpy(buf, &n, sizeof n);
    run_views_item *it = (run_views_item *)(void *)(buf + sizeof n);
    for (int64_t k = 0; k < n; k++)
        it[k] = (run_views_item){.idx = idx[k], .world = out[k].world,
                                 .skip = out[k].status == RUN_NOTSUPPORTED};
    size_t sent = 0;
    while (sent < len) { /* MSG_NOSIGNAL: a dead worker is EPIPE, not the runner's death */
        ssize_t w = send(W.req, buf + sent, len - sent, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        sent += (size_t)w;
    }
    free(buf);
    return sent == len;
}

/* Under mpirun a rank other than 0 only passes its outcomes on: rank 0 parses them. */
static bool forward_raw(const run_opts *o) { return o->mpi_job && o->rank != 0; }

/* Read lines from fd into out[*k..n) until they are all there, the worker's end of file, or
 * a case overruns the limit (true). */
static bool read_lines(const run_opts *o, int fd, int64_t n, int64_t *k, run_outcome *out)
{
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    double deadline = now_s() + o->timeout_s;
    bool timed_out = false;
    while (buf && *k < n) {
        double left = deadline - now_s();
        if (left <= 0) {
            timed_out = true;
            break;
        }
        struct pollfd p = {fd, POLLIN, 0};
        int pr = poll(&p, 1, (int)(left * 1000) + 1);
        if (pr <= 0)
            continue;
        if (len + 65536 > cap && !(buf = realloc(buf, cap *= 2)))
            break;
        ssize_t r = read(fd, buf + len, cap - len - 1);
        if (r <= 0)
            break;
        len += (size_t)r;
        char *nl, *start = buf;
        while (*k < n && (nl = memchr(start, '\n', len - (size_t)(start - buf)))) {
            *nl = '\0';
            if (out[*k].status != RUN_NOTSUPPORTED && forward_raw(o)) {
                if (!(out[*k].raw = strdup(start))) {
                    out[*k].status = RUN_INTERNAL;
                    snprintf(out[*k].msg, sizeof out[*k].msg, "out of memory");
                }
            } else if (out[*k].status != RUN_NOTSUPPORTED &&
                       run_outcome_parse(start, &out[*k])) {
                out[*k].status = RUN_INTERNAL;
                snprintf(out[*k].msg, sizeof out[*k].msg, "worker sent an unreadable outcome");
            }
            (*k)++;
            start = nl + 1;
            deadline = now_s() + o->timeout_s;
        }
        len -= (size_t)(start - buf);
        memmove(buf, start, len);
        /* a worker answers a case in tens of microseconds: woken for each line, runner and
         * worker spent more system time switching than computing (28,000 polls and reads
         * for shard-layout); a millisecond's pause lets the lines gather in the pipe */
        if (r < 16384)
            nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    free(buf);
    return timed_out;
}

/* Case oc, the one the worker was on when it ended (wait status st) or overran: the blame. */
static void blame(const run_opts *o, const shc_family *f, const shc_golden *g, int64_t i,
                  int64_t proc, bool timed_out, int st, run_outcome *oc)
{
    if (oc->world == RUN_WORLD_UNKNOWN)
        oc->world = f->world_size(shc_golden_group(g, i));
    run_outcome blk = {.world = oc->world};
    run_block_of(o, proc, &blk);
    long long a = (long long)blk.first, b = (long long)(blk.first + blk.count - 1);
    if (timed_out) {
        oc->status = RUN_TIMEOUT;
        snprintf(oc->msg, sizeof oc->msg, "ranks %lld..%lld: no answer within %.0f s "
                 "(worker killed)", a, b, o->timeout_s);
    } else if (WIFSIGNALED(st)) {
        oc->status = RUN_CRASH;
        snprintf(oc->msg, sizeof oc->msg, "ranks %lld..%lld: worker died with signal %d (%s)",
                 a, b, WTERMSIG(st), strsignal(WTERMSIG(st)));
    } else if (o->be->worker_exit_is_crash && WIFEXITED(st) && WEXITSTATUS(st) != 3 &&
               WEXITSTATUS(st) != 5) {
        /* the worker itself ends only with 0 on the closed request channel, or 3/5 on a
         * broken pipe: anything else before an answer is the plugin calling exit() */
        oc->status = RUN_CRASH;
        snprintf(oc->msg, sizeof oc->msg, "ranks %lld..%lld: the plugin ended the worker "
                 "with exit(%d) before answering", a, b, WEXITSTATUS(st));
    } else {
        oc->status = RUN_INTERNAL;
        snprintf(oc->msg, sizeof oc->msg, "worker exited with status %d before answering",
                 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    }
}

/* Every case from k on that the worker could not take: InternalError, saying why. */
static void cannot_start(int64_t k, int64_t n, run_outcome *out, int err)
{
    for (; k < n; k++)
        if (out[k].status != RUN_NOTSUPPORTED) {
            out[k].status = RUN_INTERNAL;
            snprintf(out[k].msg, sizeof out[k].msg, "cannot start a worker: %s", strerror(err));
        }
}

void run_views_chunk(const run_opts *o, const shc_family *f, const shc_golden *g,
                     const int64_t *idx, int64_t n, int64_t proc, run_outcome *out)
{
    int64_t k = 0;
    int tries = 0; /* requests lost to a worker found gone before it read them */
    while (k < n) {
        if (!worker_ready(o, f, g, proc)) {
            cannot_start(k, n, out, errno);
            return;
        }
        if (!send_request(idx + k, n - k, out + k)) {
            int err = errno;
            worker_end(true);
            if (++tries < 3)
                continue; /* it ended between chunks: a new one takes the request */
            cannot_start(k, n, out, err);
            return;
        }
        bool timed_out = read_lines(o, W.ans, n, &k, out);
        if (k >= n)
            break; /* every line came: the worker stays for the next chunk */
        int st = worker_end(timed_out);
        blame(o, f, g, idx[k], proc, timed_out, st, &out[k]);
        k++;
    }
}
