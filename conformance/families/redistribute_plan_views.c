/*
 * redistribute_plan_views.c — the redistribute-plan family seen by a vendor
 * plugin (hook project.abi_v1: ABI v1 states only the default planner setting and
 * each step's kind) and by a real torch process (hook project.collective_counts: it is
 * checked by the collectives it issues, counted per kind).  Tested through the runner:
 * run_mpi.sh (reference plugin), run_faults.sh (broken plugin), run_torch.sh, and
 * fuzz_plugin.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "families.h"
#include "plugin_case.h"
#include "redistribute_plan_views.h"

/* ---- vendor plugins (ABI v1) ---- */

/* redistribute-plan: ABI v1 states only the default planner setting (auto, 8 devices
 * per host, _StridedShard as a shard order, no flattened meshes or explicit source
 * order) and only each step's communication kind; shcrp_abi_v1_extend_want derives the
 * same "stepKinds" from the golden view. */
static int plan_views(const shc_backend_v1 *be, const shc_pcase *b, const json_t *group,
                      const json_t *test, json_t **views, shc_err *e)
{
    const char *planner = json_string_value(json_object_get(group, "planner"));
    const json_t *dph = json_object_get(group, "devicesPerHost");
    if (planner && strcmp(planner, "auto"))
        return shc_fail(e, SHC_EUNSUPPORTED, "ABI v1 plan cannot force the %s planner", planner);
    if (dph && json_integer_value(dph) != 8)
        return shc_fail(e, SHC_EUNSUPPORTED, "ABI v1 plan has no devicesPerHost (case: %lld)",
                        (long long)json_integer_value(dph));
    if (json_is_true(json_object_get(group, "stridedLiteral")))
        return shc_fail(e, SHC_EUNSUPPORTED, "ABI v1 plan has no literal _StridedShard mode");
    if (json_object_get(group, "flattened"))
        return shc_fail(e, SHC_EUNSUPPORTED, "ABI v1 plan has no flattened meshes");
    if (json_object_get(test, "srcShardOrder"))
        return shc_fail(e, SHC_EUNSUPPORTED, "ABI v1 plan has no explicit source shard order");
    for (int64_t r = 0; r < b->world; r++) {
        const char *kinds[64] = {0};
        int nsteps = 0;
        char err[512] = "";
        int rc = be->plan(&b->c, r, &nsteps, kinds, 64, err, sizeof err);
        if (rc == SHC_BACKEND_UNSUPPORTED)
            return shc_fail(e, SHC_EUNSUPPORTED, "plugin: plan unsupported: %s", err);
        if (rc || nsteps < 0 || nsteps > 64) {
            views[r] = shc_error_view(rc ? err : "plugin plan: step count outside 0..64");
            continue;
        }
        json_t *a = json_array();
        for (int i = 0; i < nsteps; i++)
            json_array_append_new(a, kinds[i] ? json_string(kinds[i]) : json_null());
        views[r] = json_pack("{s:o}", "stepKinds", a);
    }
    return SHC_OK;
}

/* Hook project.abi_v1.views: a vendor plugin's answer, as views. */
int shcrp_abi_v1_views(const shc_backend_v1 *be, const json_t *group, const json_t *test,
                        int64_t world, json_t **views, shc_err *e)
{
    return shc_pcase_views(be, group, test, world, true, plan_views, views, e);
}

/* Hook project.abi_v1.extend_want: ABI v1 states only each step's kind,
 * so the golden view gains the "stepKinds" a plugin's answer is compared with. */
void shcrp_abi_v1_extend_want(json_t *want)
{
    if (!want || !json_object_get(want, "plans"))
        return;
    const json_t *plan = json_array_get(json_object_get(want, "plans"),
                                        (size_t)json_integer_value(json_object_get(want, "plan")));
    json_t *kinds = json_array();
    const json_t *st;
    size_t i;
    json_array_foreach(json_object_get(plan, "steps"), i, st)
        json_array_append(kinds, json_array_get(st, 3));
    json_object_set_new(want, "stepKinds", kinds);
}

/* Whether torch raises running step st (a golden [mesh_dims, src, dst, comm]) for its reduce
 * op; a placement that does not parse is left to the comparison. */
static bool reduce_raises(const json_t *st)
{
    shc_placements a, b;
    shc_err e = {0};
    const char *sa = json_string_value(json_array_get(st, 1)),
               *sb = json_string_value(json_array_get(st, 2));
    return sa && sb && !shc_placements_parse(&a, sa, &e) && !shc_placements_parse(&b, sb, &e) &&
           a.n == 1 && b.n == 1 && shc_placement_check_step(&a.p[0], &b.p[0], &e) != SHC_OK;
}

/* Hook project.collective_counts: the real collectives the golden plan implies for rank
 * under the torch backend: per redistribute step, the kind
 * redistribute_local_tensor issues.  On CPU process groups all_to_all is an all-gather plus a
 * local chunk (torch 2.13 _collective_utils.py shard_dim_alltoall: "Gloo does not support
 * alltoall"); a _StridedShard step gathers through Replicate (_redistribute.py, the
 * _StridedShard branches of redistribute_local_tensor).  Returns NULL when a step is one torch
 * refuses ("unsupported") or raises at for its reduce op (a step that runs: comm not "none";
 * shc_placement_check_step): the rank must raise. */
json_t *shcrp_collective_counts(const json_t *test, int64_t rank, bool cpu)
{
    const json_t *exp = json_object_get(test, "expected");
    const json_t *pr = json_object_get(exp, "perRank");
    json_int_t p = json_integer_value(json_array_get(json_object_get(pr, "plan"), (size_t)rank));
    const json_t *steps = json_object_get(json_array_get(json_object_get(exp, "plans"), (size_t)p),
                                          "steps");
    json_t *want = json_object();
    size_t i;
    json_t *st;
    json_array_foreach(steps, i, st) {
        const char *comm = json_string_value(json_array_get(st, 3)) ?: "";
        const char *kind = NULL;
        if (!strcmp(comm, "unsupported") || (strcmp(comm, "none") && reduce_raises(st))) {
            json_decref(want);
            return NULL;
        }
        if (!strcmp(comm, "all_gather") || !strcmp(comm, "strided"))
            kind = "all_gather";
        else if (!strcmp(comm, "all_to_all"))
            kind = cpu ? "all_gather" : "all_to_all";
        else if (!strcmp(comm, "all_reduce") || !strcmp(comm, "reduce_scatter"))
            kind = comm;
        if (kind)
            json_object_set_new(want, kind, json_integer(json_integer_value(json_object_get(want,
                                                                                         kind)) + 1));
    }
    return want;
}

