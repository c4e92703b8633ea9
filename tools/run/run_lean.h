/*
 * run_lean.h — a trusted worker's check of a case without the golden test's expected tree
 * (issue 36 item 1): see run_lean.c.
 */
#ifndef SHC_RUN_LEAN_H
#define SHC_RUN_LEAN_H
#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include "family.h"
#include "golden.h"

/* One worker's reusable state: the split golden bytes and the lean test's text. */
typedef struct run_lean {
    shc_bview bv;
    char *buf;
    size_t cap;
    int64_t in_bytes, by_trees; /* cases decided each way (SHARDCHECK_RUN_LEAN_COUNT=1) */
} run_lean;

/* Golden test i parsed without its expected object (read as null), for the family to compute
 * with; NULL where the lean check does not apply (no golden bytes, an invalid test, the trees
 * asked for by SHARDCHECK_RUN_TREES=1, no memory): then the caller parses the whole test. */
json_t *run_lean_test(run_lean *L, const shc_golden *g, int64_t i);
/* Whether views[0..count) (ranks first.. of a world-rank case, computed from the lean test)
 * pass for sure: each has the family's view_check run and is, in bytes, the golden view
 * (shc_bview_same).  false: not known; the caller checks them against the whole test. */
bool run_lean_pass(run_lean *L, const shc_family *f, const shc_golden *g, int64_t i,
                   const json_t *lean, int64_t world, int64_t first, int64_t count,
                   json_t *const *views);
/* Free it; with SHARDCHECK_RUN_LEAN_COUNT=1 first say on stderr how many cases each way
 * decided ("run: lean check: N passed in bytes, M by the trees", where it decided any), for
 * run_lean.sh. */
void run_lean_free(run_lean *L);
#endif
