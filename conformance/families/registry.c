/*
 * registry.c — the list of golden families `shardcheck gen` knows.
 * Add a family by adding its line to SHC_FAMILY_LIST here (and its source file to the
 * build).
 */
#include "config.h"
#include <string.h>
#include "families.h"

/* The families, one line each: X(C name) for `const shc_family shc_family_<C name>` in
 * conformance/families/<C name>.c.  This is the only list of families. */
#define SHC_FAMILY_LIST(X) \
    X(shard_layout) \
    X(group_ranks) \
    X(rng_offsets) \
    X(rng_policies) \
    X(redistribute_data) \
    X(redistribute_plan) \
    X(philox_kat) \
    X(curand_stream) \
    X(torch_cuda_rng) \
    X(threefry) \
    /* @@REGISTRY@@ — add `X(name) \` lines above this marker */

#define SHC_FAMILY_DECLARE(c) extern const shc_family shc_family_##c;
SHC_FAMILY_LIST(SHC_FAMILY_DECLARE)
#define SHC_FAMILY_ENTRY(c) &shc_family_##c,
static const shc_family *const all[] = {SHC_FAMILY_LIST(SHC_FAMILY_ENTRY) NULL};

const shc_family *const *shc_families(void) { return all; }

const shc_family *shc_family_find(const char *name)
{
    for (int i = 0; all[i]; i++)
        if (!strcmp(all[i]->name, name))
            return all[i];
    return NULL;
}
