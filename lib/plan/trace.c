/*
 * trace.c — trace strings exactly as torch 2.13's
 * DTensorRedistributePlanner.stringify_transform_infos prints them (what
 * DebugMode records for a redistribute): the source state, then for each
 * step "->" (or "-->" for a merged, flattened step) and the state after it,
 * each state in DTensorSpec.format_shard_order_str form ("S(0)[1]S(0)[0]R").
 * The shard order is replayed as _update_shard_order_and_placements does
 * (pop from the end for a shard source, append for a shard target), and
 * where torch raises (an undecodable _StridedShard source, a pop that
 * removes a different mesh dim) the trace is NULL with the reason.
 * Tested by check_plan.c and the redistribute-plan family against torch.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plan_internal.h"

static int append(char **buf, size_t *len, size_t *cap, const char *s)
{
    size_t n = strlen(s);
    if (*len + n + 1 > *cap) {
        size_t nc = (*cap ? *cap * 2 : 128);
        while (nc < *len + n + 1)
            nc *= 2;
        char *b = realloc(*buf, nc);
        if (!b)
            return SHC_ENOMEM;
        *buf = b;
        *cap = nc;
    }
    memcpy(*buf + *len, s, n + 1);
    *len += n;
    return SHC_OK;
}

int shc_format_state(const shc_placement *p, int n, const shc_shard_order *so, char **buf,
                     size_t *len, size_t *cap)
{
    for (int i = 0; i < n; i++) {
        char one[64];
        shc_placement_format(&p[i], one, sizeof one);
        if (shc_is_shard_like(&p[i])) {
            int d = p[i].dim, k = so->len[d], at = -1;
            if (k == 0) /* no entry for the tensor dim: torch prints nothing */
                continue;
            for (int j = 0; j < k; j++)
                if (so->md[d][j] == i)
                    at = j;
            if (at < 0)
                return SHC_EINVAL; /* torch: AssertionError in format_shard_order_str */
            if (k > 1) {
                size_t l = strlen(one);
                snprintf(one + l, sizeof one - l, "[%d]", at);
            }
        }
        if (append(buf, len, cap, one))
            return SHC_ENOMEM;
    }
    return SHC_OK;
}

/* _update_shard_order_and_placements; false where torch raises ValueError. */
static bool update(const shc_plan_step *st, shc_placement *cur, shc_shard_order *so)
{
    if (shc_is_shard_like(&st->src)) {
        int d = st->src.dim;
        unsigned removed = 0, want = 0;
        for (int k = 0; k < st->nmesh_dims; k++) {
            if (so->len[d] == 0)
                return false;
            removed |= 1u << so->md[d][--so->len[d]];
            want |= 1u << st->mesh_dims[k];
        }
        if (removed != want)
            return false;
    }
    if (shc_is_shard_like(&st->dst)) {
        int d = st->dst.dim;
        for (int k = 0; k < st->nmesh_dims; k++)
            so->md[d][so->len[d]++] = (int8_t)st->mesh_dims[k];
    }
    for (int k = 0; k < st->nmesh_dims; k++)
        cur[st->mesh_dims[k]] = st->dst;
    return true;
}

int shc_plan_trace(const shc_plan_ctx *c, const shc_spec *src, shc_plan *plan, shc_err *e)
{
    shc_placement cur[SHC_MAX_MESH_DIMS];
    shc_shard_order so = src->so;
    int n = src->n;
    memcpy(cur, src->p, sizeof cur);
    free(plan->trace);
    plan->trace = NULL;
    plan->trace_error = NULL;
    if (src->strided_as_order) {
        /* _normalize_placements_into_shard_order */
        if (!shc_strided_to_shard_order(c->mesh, src->p, n, &so)) {
            plan->trace_error = "_StridedShardNotDecodableError: the source _StridedShard "
                                "placements cannot be decoded into a shard_order";
            return SHC_OK;
        }
        for (int i = 0; i < n; i++)
            if (cur[i].kind == SHC_P_STRIDED)
                cur[i].kind = SHC_P_SHARD, cur[i].split_factor = 0;
    }
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int rc = shc_format_state(cur, n, &so, &buf, &len, &cap);
    for (int s = 0; s < plan->nsteps && rc == SHC_OK; s++) {
        const shc_plan_step *st = &plan->steps[s];
        if (!update(st, cur, &so)) {
            plan->trace_error = "ValueError: invalid shard_order update (a step removes a mesh "
                                "dim that is not last in its tensor dim's shard order)";
            free(buf);
            return SHC_OK;
        }
        rc = append(&buf, &len, &cap, st->nmesh_dims > 1 ? "-->" : "->");
        if (rc == SHC_OK)
            rc = shc_format_state(cur, n, &so, &buf, &len, &cap);
    }
    if (rc == SHC_EINVAL) {
        plan->trace_error = "AssertionError: a shard's mesh dim is missing from its tensor dim's "
                            "shard order (format_shard_order_str)";
        free(buf);
        return SHC_OK;
    }
    if (rc) {
        free(buf);
        return shc_fail(e, SHC_ENOMEM, "plan trace: out of memory");
    }
    plan->trace = buf ? buf : strdup("");
    return plan->trace ? SHC_OK : shc_fail(e, SHC_ENOMEM, "plan trace: out of memory");
}
