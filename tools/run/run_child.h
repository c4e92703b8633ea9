/*
 * run_child.h — a helper process spoken to in JSON lines over two pipes: started with a
 * setup hook that runs in the child before exec, fed whole request lines, read one answer
 * line at a time under a deadline, reaped with what ended it, stopped gently or not.  The
 * torch backend's worker (run_torch.c) and the worker backend (run_worker.c) both use it.
 * Tested through them: conformance/tests/run_torch.sh and run_worker.sh.
 */
#ifndef SHC_RUN_CHILD_H
#define SHC_RUN_CHILD_H
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct run_child {
    pid_t pid;      /* -1: none */
    bool group;     /* it leads its own process group, killed as a whole */
    int to, from;   /* its stdin (requests) and stdout (answers); -1 when closed */
    char *buf;      /* what it wrote that is not yet a whole line */
    size_t len, cap;
} run_child;

#define RUN_CHILD_NONE {.pid = -1, .to = -1, .from = -1}

/* CLOCK_MONOTONIC in seconds. */
double run_child_now(void);
/* Start argv[0] (looked up on PATH) with its stdin and stdout on pipes; setup(arg) runs in
 * the child first (its environment).  Its stderr is ours.  With c->group set, the child leads
 * a process group of its own, so that a kill reaches what it started too (a shell running a
 * command).  0, or -1 with errno. */
int run_child_spawn(run_child *c, char *const argv[], void (*setup)(void *arg), void *arg);
/* SIGKILL the child (its process group when c->group); it is reaped later. */
void run_child_kill(const run_child *c);
/* Write a whole line (a short write goes on where it stopped); false when the child's
 * stdin is gone. */
bool run_child_send(run_child *c, const char *line);
/* One line from the child before deadline: 1 (*line to free), 0 EOF (or out of memory),
 * -1 timeout, -2 when interrupt(arg) said so while waiting (NULL: never). */
int run_child_read_line(run_child *c, double deadline, bool (*interrupt)(void *arg), void *arg,
                        char **line);
/* Wait for the child that stopped answering and say what ended it ("signal 9 (Killed)",
 * "exit status 3", "gone"). */
void run_child_reap(run_child *c, char *msg, size_t n);
/* Stop it: with quit_line, send that and close its stdin, allowing it up to grace_s to end
 * by itself; then SIGKILL whatever is left and close the pipes (the buffer is kept). */
void run_child_stop(run_child *c, const char *quit_line, double grace_s);
/* Free the line buffer too (after the last stop). */
void run_child_free(run_child *c);
/* setenv(k, decimal v). */
void run_child_setenv_ll(const char *k, long long v);
#endif
