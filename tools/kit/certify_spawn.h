/*
 * certify_spawn.h — child processes of `shardcheck certify` (certify_spawn.c): run one
 * `shardcheck run`/`verify` (or mpirun of it) with its output in files.
 * Tested by conformance/tests/certify.sh.
 */
#ifndef SHC_CERTIFY_SPAWN_H
#define SHC_CERTIFY_SPAWN_H
#include <stddef.h>
#include <jansson.h>
#include "progress.h"

/* Run argv (execvp) with stdout to out (NULL: discarded) and stderr to err; while it runs,
 * a bar that is on shows the cases journal has recorded.  Returns its exit code, 128+signal,
 * 127 when it could not be executed, or -1 when it could not be started. */
int cert_spawn(char *const argv[], const char *out, const char *err, const char *journal,
               progress *bar);
/* Fill v with `$MPIRUN $MPIRUN_ARGS -np N`; *argsbuf is to be freed by the caller. */
int cert_mpirun_prefix(char **v, int cap, int np, char *npbuf, size_t npn, char **argsbuf);
/* The line of a child's log that says why it stopped (empty when none). */
void cert_last_line(const char *path, char *out, size_t n);
/* run --json output rebuilt from a run journal plus a Crash for the job's end. */
json_t *cert_from_journal(const char *journal, const char *backend, int np, int code,
                          const char *log);
#endif
