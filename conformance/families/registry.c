/*
 * registry.c — the list of golden families `shardcheck gen` knows.
 * Add a family by adding its line here and to families.h.
 */
#include "config.h"
#include <string.h>
#include "families.h"

static const shc_family *const all[] = {
    &shc_family_shard_layout,
    &shc_family_group_ranks,
    &shc_family_rng_offsets,
    &shc_family_rng_policies,
    &shc_family_redistribute_data,
    &shc_family_redistribute_plan,
    &shc_family_philox_kat,
    &shc_family_curand_stream,
    &shc_family_torch_cuda_rng,
    &shc_family_threefry,
    /* @@REGISTRY@@ — add `&shc_family_X,` lines above this marker */
    NULL,
};

const shc_family *const *shc_families(void) { return all; }

const shc_family *shc_family_find(const char *name)
{
    for (int i = 0; all[i]; i++)
        if (!strcmp(all[i]->name, name))
            return all[i];
    return NULL;
}
