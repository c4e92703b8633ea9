/*
 * plugin_case.h — a golden test as a vendor plugin sees it (ABI v1,
 * lib/shardcheck_backend.h), for the families' project.abi_v1.views hooks.
 *
 * Each family that ABI v1 can express converts its own golden inputs and the
 * plugin's answers in its own file; what they share is here: the (mesh, rank
 * map, shape, placements) case read from the golden JSON, and the error view.
 * Tested through the runner: conformance/tests/run_mpi.sh (the reference plugin
 * passes) and run_faults.sh (the broken plugin is caught), and fuzz_plugin.
 */
#ifndef SHC_PLUGIN_CASE_H
#define SHC_PLUGIN_CASE_H
#include <jansson.h>
#include "shardcheck.h"
#include "shardcheck_backend.h"

/* The ABI's case plus the storage it points into. */
typedef struct shc_pcase {
    shc_backend_case c;
    int64_t mesh[SHC_MAX_MESH_DIMS], shape[SHC_MAX_TENSOR_DIMS];
    int64_t *rank_map;
    int64_t world;
} shc_pcase;

/* Read the case of (group, test); the world must be the runner's.  When the
 * case is malformed on purpose (an "invalid" test) and the ABI cannot state it,
 * unstateable_invalid turns the error into SHC_EUNSUPPORTED.  Free with
 * shc_pcase_free, also after an error. */
int shc_pcase_load(shc_pcase *b, const json_t *group, const json_t *test, int64_t world,
                   bool unstateable_invalid, shc_err *e);
void shc_pcase_free(shc_pcase *b);
/* A plugin's views of a loaded redistribute case (its src and dst given). */
typedef int (*shc_pcase_views_fn)(const shc_backend_v1 *be, const shc_pcase *b,
                                  const json_t *group, const json_t *test, json_t **views,
                                  shc_err *e);
/* The project.abi_v1.views hook of a redistribute family: the case loaded as shc_pcase_load
 * does, answered by fn; a test without src and dst is SHC_EFORMAT. */
int shc_pcase_views(const shc_backend_v1 *be, const json_t *group, const json_t *test,
                    int64_t world, bool unstateable_invalid, shc_pcase_views_fn fn,
                    json_t **views, shc_err *e);
/* {"error": msg}: a rank's refusal. */
json_t *shc_error_view(const char *msg);
/* A JSON array of 64-bit integers as decimal strings (the golden encoding). */
json_t *shc_json_i64s_array(const int64_t *v, int n);
#endif
