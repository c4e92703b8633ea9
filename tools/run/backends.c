/*
 * backends.c — the table of `run` backends, the only place that lists them: each row is a
 * record (run_backend, run.h) defined in its backend's own file (ref and local in
 * run_check.c, mpi in run_mpi.c, torch in run_torch.c, cuda in run_cuda.c, plugin in
 * run_plugin.c, worker in run_worker.c).  `run --backend`, certify (which rank counts a backend takes), the report
 * (the backend's name) and the mpirun runner ask it.  Adding a backend: one file with its
 * record, one row here.  Tested by cli_options.sh (every spelling and the refusal),
 * run_mpi.sh, run_torch.sh, run_cuda.sh, certify.sh; `run --help` lists its rows' help
 * (registry.sh checks every backend is there).
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "run.h"

static const run_backend *const table[] = {
    &run_backend_ref, &run_backend_local, &run_backend_mpi,
    &run_backend_torch, &run_backend_cuda, &run_backend_plugin, &run_backend_worker,
    NULL,
};

const run_backend *const *run_backends(void) { return table; }

const run_backend *run_backend_find(const char *spec, const char **arg)
{
    for (int i = 0; table[i]; i++) {
        const run_backend *be = table[i];
        for (int k = 0; be->spellings && be->spellings[k]; k++)
            if (!strcmp(spec, be->spellings[k])) {
                *arg = spec;
                return be;
            }
        size_t p = be->arg_prefix ? strlen(be->arg_prefix) : 0;
        if (p && !strncmp(spec, be->arg_prefix, p) && spec[p]) {
            *arg = spec + p;
            return be;
        }
    }
    return NULL;
}

void run_backend_spellings(char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; table[i]; i++)
        len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "%s%s",
                                !i ? "" : table[i + 1] ? ", " : " or ", table[i]->usage);
}

void run_backend_help(char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; table[i]; i++)
        len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "  %-7s %s\n", table[i]->name,
                                table[i]->help ? table[i]->help : "");
}

void run_backend_synopsis(char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; table[i]; i++)
        len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "%s%s", i ? "|" : "",
                                table[i]->usage);
}

bool run_backend_per_rank(const run_backend *be)
{
    if (be->procs == RUN_PER_RANK_UNDER_MPIRUN) /* mpirun sets the first; srun (PMIx, PMI-2) the others */
        return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_RANK");
    return be->procs == RUN_PER_RANK;
}

void run_backend_per_rank_names(char *buf, size_t n)
{
    int m = 0, k = 0;
    for (int i = 0; table[i]; i++)
        m += table[i]->procs == RUN_PER_RANK;
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; table[i]; i++)
        if (table[i]->procs == RUN_PER_RANK) {
            len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "%s%s",
                                    !k ? "" : k == m - 1 ? " and " : ", ", table[i]->name);
            k++;
        }
}
