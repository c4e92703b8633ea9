/*
 * registry.c — the list of golden families `shardcheck gen` knows, and what a conformance
 * claim on a family covers (shc_claim: one rule for certify, `families --json` and the
 * docs pages; tested by certify_claims.sh and family_docs.sh).
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
    X(view_sharding) \
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

static bool in_list(const char *const *list, const char *s)
{
    for (; list && *list; list++)
        if (!strcmp(*list, s))
            return true;
    return false;
}

bool shc_claim_field(const shc_family *f, const char *field)
{
    return in_list(f->claim.fields, field);
}

/* Whether an expected object names a required field (top level or perRank). */
static bool names_required(const shc_family *f, json_t *exp)
{
    const char *k;
    json_t *v;
    json_object_foreach(exp, k, v) {
        if (shc_claim_field(f, k))
            return true;
        if (!strcmp(k, "perRank") && json_is_object(v) && names_required(f, v))
            return true;
    }
    return false;
}

/* A test carrying an optional flag is not required (a GpuOnly value a CPU port cannot
 * recompute); nor is a valid one whose answer holds no required field (nothing a claim
 * computes is asked of it); an invalid or acceptable one is (it must be rejected, or
 * answered as one of its alternatives). */
bool shc_claim_requires(const shc_family *f, const json_t *test)
{
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(test, "flags"), i, v)
        if (json_is_string(v) && in_list(f->claim.optional, json_string_value(v)))
            return false;
    const char *res = json_string_value(json_object_get(test, "result"));
    return (res && strcmp(res, "valid")) || names_required(f, json_object_get(test, "expected"));
}
