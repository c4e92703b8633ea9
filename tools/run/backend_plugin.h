/*
 * backend_plugin.h — loading a vendor backend (shardcheck_backend.h, ABI v1 or v2) and
 * asking it for a test's per-rank views in the golden format.  Internal to the runner;
 * implemented in backend_plugin.c, tested by conformance/tests/run_faults.sh (missing
 * symbols, wrong ABI version, the broken example plugin caught), run_mpi.sh (the v1
 * reference plugin passes) and plugin_v2.sh (the v2 example, its refusals).
 */
#ifndef SHC_BACKEND_PLUGIN_H
#define SHC_BACKEND_PLUGIN_H
#include <jansson.h>
#include "shardcheck.h"
#include "shardcheck_backend.h"
#include "family.h"

typedef struct shc_plugin {
    void *dl;
    const shc_backend_v1 *be;  /* ABI v1's table, or NULL */
    const shc_backend_v2 *be2; /* ABI v2's table, or NULL */
    char path[512];
    /* v2: the last family asked of supports() and its answer (asked once per family) */
    char supports_family[64];
    int supports_rc;
    char supports_why[512];
} shc_plugin;

/* The plugin's own name (its table's), or its path when it gives none. */
const char *shc_plugin_name(const shc_plugin *p);

/* dlopen path and check its symbols and ABI version (v1, v2; any other is refused naming
 * both), and for v2 its table (version, size, answer); messages name the file and symbol.
 * The plugin's code runs in the calling process: the runner calls this only inside its
 * forked workers, after shc_plugin_probe. */
int shc_plugin_open(shc_plugin *p, const char *path, shc_err *e);
/* Load path in a forked throw-away process and check it as shc_plugin_open does, so
 * that the plugin's code (its constructors) never runs in the caller's process.
 * SHC_OK: it loads (the caller's workers then open it themselves); the loader's code
 * and message for a bad library; *crashed = true (with a message) when loading
 * killed, exited or hung the process past timeout_s. */
int shc_plugin_probe(const char *path, double timeout_s, bool *crashed, shc_err *e);
/* As shc_plugin_probe, also giving its ABI version (1, 2) and its name (its table's,
 * control characters as '?') in name (n bytes). */
int shc_plugin_probe_info(const char *path, double timeout_s, bool *crashed, unsigned *abi,
                          char *name, size_t n, shc_err *e);
/* dlclose. */
void shc_plugin_close(shc_plugin *p);
/* views[r] for r < world: the plugin's answer for test (of family f, in group) as
 * golden-format views ({"error": msg} where it refuses the case), through the
 * family's project.abi_v1.views hook.  Only the fields the ABI covers are present.
 * SHC_EUNSUPPORTED when the plugin lacks the entry point or the family is
 * outside ABI v1. */
struct shc_family;
int shc_plugin_views(const shc_plugin *p, const struct shc_family *f, const json_t *group,
                     const json_t *test, int64_t world, json_t **views, shc_err *e);
/* views[i] for i < count: ranks [first, first+count) of a case of world ranks, on either
 * ABI.  v1: shc_plugin_views' views of those ranks; per-op rng-offsets cases NotSupported.
 * v2: each rank's answer() as its golden view (SHC_EUNSUPPORTED with the reason where
 * supports() or the answer says so; SHC_EINVAL naming the rank where an answer was
 * refused: a key twice, bad JSON); redistribute-data goes to shc_plugin_v2_execute.
 * torch names the release judged against (the case's "torch"). */
int shc_plugin_block(shc_plugin *p, const struct shc_family *f, const char *torch,
                     const json_t *group, const json_t *test, int64_t world, int64_t first,
                     int64_t count, json_t **views, shc_err *e);
/* redistribute-data on ABI v2 (the seam for the plugin's execute and its communicator
 * table, shc_backend_comm): views[i] = mesh rank first+i's view after executing the case
 * ({"error": msg} where it refuses), of a case of world ranks.  Called in a forked worker
 * holding ranks [first, first+count) of the case.  Until the executor lands it is
 * SHC_EUNSUPPORTED "execute: not wired yet". */
int shc_plugin_v2_execute(shc_plugin *p, const char *torch, const json_t *group,
                          const json_t *test, int64_t world, int64_t first, int64_t count,
                          json_t **views, shc_err *e);
#endif
