/*
 * run_child.c — a helper process spoken to in lines over pipes (run_child.h): the process and
 * pipe machinery the torch backend's Python worker and the worker backend's CMD share.  A
 * child that dies is an EOF here and a wait status in run_child_reap; one that never answers
 * is a timeout the caller turns into Timeout; nothing here blocks without a deadline except a
 * write to a child that reads nothing (callers bound what they send ahead).
 * Tested through conformance/tests/run_torch.sh and run_worker.sh.
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
#include "run_child.h"

double run_child_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void run_child_setenv_ll(const char *k, long long v)
{
    char b[32];
    snprintf(b, sizeof b, "%lld", v);
    setenv(k, b, 1);
}

int run_child_spawn(run_child *c, char *const argv[], void (*setup)(void *arg), void *arg)
{
    int in[2], out[2];
    if (pipe(in))
        return -1;
    if (pipe(out)) {
        close(in[0]), close(in[1]);
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        int err = errno;
        close(in[0]), close(in[1]), close(out[0]), close(out[1]);
        errno = err;
        return -1;
    }
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[0]), close(in[1]), close(out[0]), close(out[1]);
        signal(SIGPIPE, SIG_DFL); /* the runner ignores it; the child gets the default */
        if (c->group)
            setpgid(0, 0);
        if (setup)
            setup(arg);
        execvp(argv[0], argv);
        fprintf(stderr, "shardcheck run: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(in[0]), close(out[1]);
    if (c->group)
        setpgid(pid, pid); /* here too: a kill right after the fork reaches the group */
    c->pid = pid, c->to = in[1], c->from = out[0], c->len = 0;
    return 0;
}

bool run_child_send(run_child *c, const char *line)
{
    size_t len = line ? strlen(line) : 0, done = 0;
    while (line && c->to >= 0 && done < len) {
        ssize_t w = write(c->to, line + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        done += (size_t)w;
    }
    return line && c->to >= 0;
}

int run_child_read_line(run_child *c, double deadline, bool (*interrupt)(void *arg), void *arg,
                        char **line)
{
    for (;;) {
        char *nl = c->buf ? memchr(c->buf, '\n', c->len) : NULL;
        if (nl) {
            size_t k = (size_t)(nl - c->buf);
            *line = strndup(c->buf, k);
            memmove(c->buf, nl + 1, c->len - k - 1);
            c->len -= k + 1;
            return *line ? 1 : 0;
        }
        if (interrupt && interrupt(arg))
            return -2;
        double left = deadline - run_child_now();
        if (left <= 0)
            return -1;
        if (c->from < 0)
            return 0;
        struct pollfd p = {c->from, POLLIN, 0};
        /* short polls when interrupt must be asked again (MPI notices) */
        int ms = interrupt ? (left < 0.02 ? (int)(left * 1000) + 1 : 20)
                           : (int)(left * 1000) + 1;
        int pr = poll(&p, 1, ms);
        if (pr <= 0)
            continue;
        if (c->len + 65536 > c->cap) {
            size_t cap = c->cap ? 2 * c->cap : 1 << 17;
            char *b = realloc(c->buf, cap);
            if (!b)
                return 0;
            c->buf = b, c->cap = cap;
        }
        ssize_t r = read(c->from, c->buf + c->len, c->cap - c->len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return 0;
        c->len += (size_t)r;
    }
}

void run_child_kill(const run_child *c)
{
    if (c->pid > 0)
        kill(c->group ? -c->pid : c->pid, SIGKILL);
}

void run_child_reap(run_child *c, char *msg, size_t n)
{
    int st = 0;
    pid_t p = c->pid > 0 ? waitpid(c->pid, &st, 0) : -1;
    if (p > 0 && c->group)
        kill(-p, SIGKILL); /* what it left running */
    c->pid = -1;
    if (p < 0)
        snprintf(msg, n, "gone");
    else if (WIFSIGNALED(st))
        snprintf(msg, n, "signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
    else
        snprintf(msg, n, "exit status %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

void run_child_stop(run_child *c, const char *quit_line, double grace_s)
{
    bool reaped = false;
    if (c->pid > 0 && quit_line && c->to >= 0) {
        if (!run_child_send(c, quit_line)) { /* dead already: waited for below */ }
        close(c->to);
        c->to = -1;
        for (double end = run_child_now() + grace_s; !reaped && run_child_now() < end;) {
            reaped = waitpid(c->pid, NULL, WNOHANG) != 0;
            if (!reaped)
                usleep(10000);
        }
    }
    if (c->pid > 0 && !reaped) { /* never a reaped pid: it may be another process's now */
        run_child_kill(c);
        waitpid(c->pid, NULL, 0);
    } else if (c->pid > 0 && c->group) {
        kill(-c->pid, SIGKILL); /* what it left running; the group id is not reused while
                                 * a member lives */
    }
    if (c->to >= 0)
        close(c->to);
    if (c->from >= 0)
        close(c->from);
    c->pid = -1, c->to = c->from = -1, c->len = 0;
}

void run_child_free(run_child *c)
{
    free(c->buf);
    c->buf = NULL;
    c->cap = c->len = 0;
}
