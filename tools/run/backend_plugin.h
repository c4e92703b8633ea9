/*
 * backend_plugin.h — loading a vendor backend (shardcheck_backend.h) and
 * asking it for a test's per-rank views in the golden format.  Internal to
 * libshardcheck and the runner; implemented in backend_plugin.c, tested by
 * conformance/tests/run_faults.sh (missing symbols, wrong ABI version, the
 * broken example plugin caught) and run_mpi.sh (the reference plugin passes).
 */
#ifndef SHC_BACKEND_PLUGIN_H
#define SHC_BACKEND_PLUGIN_H
#include <jansson.h>
#include "shardcheck.h"
#include "shardcheck_backend.h"
#include "family.h"

typedef struct shc_plugin {
    void *dl;
    const shc_backend_v1 *be;
    const shc_backend_v2 *be2;   /* an ABI v2 plugin (be NULL) */
    char path[512];
} shc_plugin;

/* dlopen path and check its symbols and ABI version; messages name the file and symbol.
 * The plugin's code runs in the calling process: the runner calls this only inside its
 * forked workers, after shc_plugin_probe. */
int shc_plugin_open(shc_plugin *p, const char *path, shc_err *e);
/* Load path in a forked throw-away process and check it as shc_plugin_open does, so
 * that the plugin's code (its constructors) never runs in the caller's process.
 * SHC_OK: it loads (the caller's workers then open it themselves); the loader's code
 * and message for a bad library; *crashed = true (with a message) when loading
 * killed, exited or hung the process past timeout_s. */
int shc_plugin_probe(const char *path, double timeout_s, bool *crashed, shc_err *e);
/* dlclose. */
void shc_plugin_close(shc_plugin *p);
/* views[r] for r < world: the plugin's answer for test (of family f, in group) as
 * golden-format views ({"error": msg} where it refuses the case), through the
 * family's plugin_views hook.  Only the fields the ABI covers are present.
 * SHC_EUNSUPPORTED when the plugin lacks the entry point or the family is
 * outside ABI v1. */
struct shc_family;
int shc_plugin_views(const shc_plugin *p, const struct shc_family *f, const json_t *group,
                     const json_t *test, int64_t world, json_t **views, shc_err *e);
#endif
