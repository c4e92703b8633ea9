/*
 * redistribute_plan_views.h — how the redistribute-plan family's cases look to
 * backends other than the reference (redistribute_plan_views.c): a vendor plugin,
 * which states only step kinds, and real torch processes, which are checked by
 * the collectives they issue.  The family record (redistribute_plan.c) points
 * its hooks here.
 */
#ifndef SHC_REDISTRIBUTE_PLAN_VIEWS_H
#define SHC_REDISTRIBUTE_PLAN_VIEWS_H
#include "families.h"

int shcrp_abi_v1_views(const shc_backend_v1 *be, const json_t *group, const json_t *test,
                       int64_t world, json_t **views, shc_err *e);
void shcrp_abi_v1_extend_want(json_t *want);
json_t *shcrp_collective_counts(const json_t *test, int64_t rank, bool cpu);
#endif
