/*
 * certify_spawn.c — how `shardcheck certify` runs its rows: each claimed family at each
 * claimed rank count is `shardcheck run ... --json --junit F --journal F` in a child
 * process (under `mpirun -np N` for the mpi and torch backends, as tools/run/mpirun_runner.sh
 * does), and each candidate is `shardcheck verify ... --json --junit F`; the child is this
 * very binary (/proc/self/exe).  Children keep certify itself out of harm's way: a rank
 * that dies ends its mpirun job, not certify, and the row's journal still says which cases
 * finished (the row's results are then rebuilt from it, with the Crash).
 * Tested by conformance/tests/certify.sh.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include "exit_codes.h"
#include "certify_spawn.h"

static void child_exec(char *const argv[], const char *out, const char *err)
{
    int fo = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fo < 0 || fe < 0)
        _exit(126);
    dup2(fo, STDOUT_FILENO);
    dup2(fe, STDERR_FILENO);
    close(fo);
    close(fe);
    /* the children's own bars would only go to their log files */
    setenv("SHARDCHECK_NO_PROGRESS", "1", 1);
    unsetenv("SHARDCHECK_PROGRESS");
    setenv("OMPI_MCA_mpi_warn_on_fork", "0", 0); /* run forks its per-case workers */
    execvp(argv[0], argv);
    fprintf(stderr, "shardcheck certify: cannot execute %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

/* Lines in the journal so far (cases finished), read on from where the last call ended. */
static long long journal_cases(FILE **jf, const char *path, long long n)
{
    if (!*jf && !(*jf = fopen(path, "r")))
        return n;
    char line[512];
    clearerr(*jf);
    while (fgets(line, sizeof line, *jf))
        n += strncmp(line, "start ", 6) && strncmp(line, "done ", 5) &&
             strncmp(line, "begin ", 6) && strncmp(line, "chunk ", 6);
    return n;
}

int cert_spawn(char *const argv[], const char *out, const char *err, const char *journal,
               progress *bar)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0)
        child_exec(argv, out, err);
    int status = 0;
    FILE *jf = NULL;
    long long cases = 0;
    char base[96];
    snprintf(base, sizeof base, "%s", bar->label);
    for (;;) {
        pid_t w = waitpid(pid, &status, bar->on ? WNOHANG : 0);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR)
            return -1;
        if (w == 0 && journal) { /* the bar is on: show the row's cases as they finish */
            long long now = journal_cases(&jf, journal, cases);
            if (now != cases) {
                char label[96];
                cases = now;
                snprintf(label, sizeof label, "%.60s: %lld cases", base, cases);
                progress_label(bar, label);
            }
        }
        if (w == 0)
            nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL);
    }
    if (jf)
        fclose(jf);
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
}

/* argv of mpirun -np N (MPIRUN, MPIRUN_ARGS split on blanks, as mpirun_runner.sh) then
 * the rest; returns the count written into v (at most cap - 1, NULL-terminated). */
int cert_mpirun_prefix(char **v, int cap, int np, char *npbuf, size_t npn, char **argsbuf)
{
    int n = 0;
    const char *mpirun = getenv("MPIRUN");
    v[n++] = (char *)(mpirun && *mpirun ? mpirun : "mpirun");
    const char *extra = getenv("MPIRUN_ARGS");
    *argsbuf = strdup(extra ? extra : "");
    char *save = NULL;
    for (char *t = *argsbuf ? strtok_r(*argsbuf, " \t", &save) : NULL; t && n < cap - 8;
         t = strtok_r(NULL, " \t", &save))
        v[n++] = t;
    snprintf(npbuf, npn, "%d", np);
    v[n++] = "-np";
    v[n++] = npbuf;
    return n;
}

/* A log's last line from shardcheck itself ("shardcheck run: ..."), else its last line with
 * a letter in it (mpirun closes with rules of dashes), for a row's "why". */
void cert_last_line(const char *path, char *out, size_t n)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    bool ours = false;
    out[0] = '\0';
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        bool mine = !strncmp(line, "shardcheck ", 11);
        if ((mine || !ours) && strpbrk(line, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")) {
            snprintf(out, n, "%s", line);
            ours |= mine;
        }
    }
    fclose(f);
}

/* A journal (`run --journal`: "Status family tcId" per case) turned into run --json output
 * when the job ended without printing it; the end itself is one more Crash. */
json_t *cert_from_journal(const char *journal, const char *backend, int np, int code,
                          const char *log)
{
    FILE *f = fopen(journal, "r");
    json_t *a = json_array();
    char line[512], st[32], one[96], fam[96] = "";
    long long tc;
    while (f && fgets(line, sizeof line, f)) {
        if (sscanf(line, "%31s %95s %lld", st, one, &tc) != 3)
            continue; /* "done N" */
        snprintf(fam, sizeof fam, "%s", one);
        /* "start F N": rank 0 began executing a case; "chunk F N..": began a chunk */
        if (strcmp(st, "start") && strcmp(st, "chunk"))
            json_array_append_new(a, json_pack("{s:s, s:I, s:s, s:s, s:s, s:f}", "family", fam,
                                               "tcId", (json_int_t)tc, "comment", "", "status",
                                               st, "detail", "", "seconds", 0.0));
    }
    if (f)
        fclose(f);
    char msg[600];
    snprintf(msg, sizeof msg, "the job ended before its report (exit %d); the cases above come "
             "from its journal; see %s", code, log);
    json_array_append_new(a, json_pack("{s:s, s:I, s:s, s:s, s:s, s:f}", "family", fam[0] ? fam
                                       : "run", "tcId", (json_int_t)0, "comment", "", "status",
                                       "Crash", "detail", msg, "seconds", 0.0));
    /* the spelling of run --json (report.c), so report and cert_count read it alike */
    return json_pack("{s:s, s:i, s:o}", "backend", backend, "ranks", np, "cases", a);
}
