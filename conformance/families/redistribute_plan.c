/*
 * redistribute_plan.c — the redistribute-plan golden family: torch 2.13's
 * redistribute plan (lib/plan*.c) for a source and target placement of one
 * tensor on one mesh, per rank: steps (mesh dims, src -> dst, communication),
 * the logical shape before each step, the trace string and the number of
 * collectives.
 *
 * Format of "expected" (rank-independent parts stored once):
 *   planner    "greedy" | "graph" — what torch's rule (and fallback) chose
 *   plans      distinct plans: {"steps": [[mesh_dims, src, dst, comm(, avg_scale)]],
 *              "trace": str | null, "ncollectives": n}
 *   shapeSets  distinct lists of per-step logical shapes
 *   perRank    {"plan": index into plans, "shapes": index into shapeSets}
 * indexes numbered by first appearance in rank order.  Where torch's answer
 * depends on Python's salted string hashes (the graph planner iterates a set
 * of reduce ops), the test is "acceptable" with flag SetOrder and the other
 * answers under "alternatives".
 *
 * What the corpus covers is the tables: meshes, shapes by tensor rank,
 * placement alphabets per tier, the tiers (planner, options, how many pairs
 * per mesh and shape) and the invalid cases.  Pairs are sampled by a fixed
 * stride coprime to their count, so every regeneration picks the same ones.
 * Schema: golden/schemas/redistribute-plan_v1.json.  Checked against torch
 * 2.13's own planner by tools/harness/adapters/torch_redistribute_plan.py.
 * A case's inputs and answer are computed in redistribute_plan_answer.c; this file holds
 * the tables, the generator and the family record.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include "families.h"
#include "plugin_case.h"
#include "plan_internal.h"
#include "redistribute_plan_answer.h"

/* ---- tables ---- */

static const char *const meshes[] = {"2", "3", "4", "2x2", "2x3", "3x2", "1x2", "4x2",
                                     "2x2x2", "2x3x2", "2x1x2", "2x2x2x2", "1x2x2x2", NULL};
static const char *const shapes_1d[] = {"8", "7", "3", NULL};
static const char *const shapes_2d[] = {"8,8", "6,5", "3,7", NULL};
static const char *const shapes_3d[] = {"8,8,8", "4,6,5", "5,3,2", NULL};
static const char *const *const shapes_by_rank[4] = {NULL, shapes_1d, shapes_2d, shapes_3d};

/* Placement alphabets (one mesh dim's options); "S*" expands to S(0)..S(t-1). */
static const char *const alpha_basic[] = {"R", "S*", "P(sum)", NULL};
static const char *const alpha_partial[] = {"R", "S*", "P(sum)", "P(avg)", "P(max)", NULL};
static const char *const alpha_strided[] = {"R", "S*", "_S(0, 2)", "_S(1, 2)", "_S(0, 3)",
                                            "_S(0, 4)", NULL};
static const char *const alpha_merge[] = {"R", "S(0)", "S(1)", "P(sum)", "P(avg)", NULL};
/* Reduce ops c10d names but the tiers above never use: torch's Partial takes any string and
 * plans it as it plans sum (issue 34 item 1; placement_types.py, torch 2.13). */
static const char *const alpha_ops[] = {"R", "S*", "P(prod)", "P(min)", NULL};

typedef enum { ORDER_DEFAULT, ORDER_REVERSED } order_rule;

typedef struct tier {
    const char *stem;
    const char *planner;            /* auto | greedy | graph */
    const char *const *alphabet;
    int pairs;                      /* src/dst pairs per (mesh, shape) */
    int min_mesh_dims;
    order_rule order;               /* reversed: nested shards in reversed order */
    bool strided_literal;
    bool flatten_all;               /* a flattened mesh for every set of 2+ mesh dims */
    const char *dtype;
    int64_t devices_per_host;
    int max_ranks;                  /* skip meshes with more ranks (keeps torch runs short) */
    bool no_mixed;                  /* no mixed-op pairs: invalid.json has them, and an invalid
                                     * case is a row of docs/invalid-audit.md in every release */
} tier;

static const tier tiers[] = {
    {"greedy", "auto", alpha_partial, 64, 1, ORDER_DEFAULT, false, false, "float32", 8, 16, false},
    {"graph", "graph", alpha_partial, 40, 1, ORDER_DEFAULT, false, false, "float32", 1, 16, false},
    {"graph-topology", "graph", alpha_basic, 12, 2, ORDER_DEFAULT, false, false, "bfloat16", 2, 16, false},
    {"graph-float64", "graph", alpha_basic, 8, 2, ORDER_DEFAULT, false, false, "float64", 8, 16, false},
    {"shard-order", "auto", alpha_basic, 24, 2, ORDER_REVERSED, false, false, "float32", 8, 8, false},
    {"strided", "auto", alpha_strided, 16, 1, ORDER_DEFAULT, false, false, "float32", 8, 8, false},
    {"strided-literal", "auto", alpha_strided, 10, 1, ORDER_DEFAULT, true, false, "float32", 8, 8, false},
    {"merge", "auto", alpha_merge, 24, 2, ORDER_DEFAULT, false, true, "float32", 8, 16, false},
    {"merge-graph", "graph", alpha_merge, 10, 2, ORDER_DEFAULT, false, true, "float32", 1, 16, false},
};

/* Tiers added after notable and invalid: generated last, so every earlier case keeps its
 * tcId (waivers and vendors' results name cases by it).  A new tier goes at the end here. */
static const tier later_tiers[] = {
    {"partial-ops", "auto", alpha_ops, 6, 1, ORDER_DEFAULT, false, false, "float32", 8, 8, true},
    {"partial-ops-graph", "graph", alpha_ops, 4, 1, ORDER_DEFAULT, false, false, "float32", 1, 8,
     true},
};

/* Cases worth naming: torch quirks the audit reports.  Every set of 2+ mesh
 * dims has a flattened mesh unless the row says no_flatten. */
typedef struct notable_case {
    const char *mesh, *planner, *src, *dst, *shape, *comment;
    bool no_flatten;
} notable_case;
static const notable_case notable_cases[] = {
    {"2x2x2", "greedy", "S(0),S(0),S(0)", "S(1),S(1),S(1)", "8,8,8",
     "the issue's acceptance plan: 5 steps, 3 collectives", true},
    {"2x2x2", "greedy", "S(0),S(0),S(0)", "S(1),S(1),S(1)", "8,8,8",
     "the acceptance plan with flattened meshes: the two all-gathers merge", false},
    {"2x2x2", "graph", "S(0),P(sum),P(sum)", "S(0),S(0),S(0)", "9,8",
     "reduce-scatter merge depends on the rank's logical size: ranks diverge", false},
    {"2x2", "auto", "S(0),S(0)", "R,R", "5,4", "merged all-gather over uneven nested shards", false},
    {"2x2", "auto", "S(0),S(0)", "R,R", "8,4", "merged all-gather, even", false},
    {"2x2", "auto", "P(sum),P(avg)", "R,R", "5,4", "merged sum/avg all-reduce: avg_scale 2", false},
    {"2x2x2", "auto", "P(avg),P(avg),P(sum)", "R,R,R", "4", "merged all-reduce of three dims", false},
    {"2x2", "auto", "P(sum),P(sum)", "S(0),S(0)", "6,4", "reduce-scatter merge refused: uneven", false},
    {"2x2", "auto", "P(sum),P(sum)", "S(0),S(0)", "8,4", "reduce-scatter merge, even", false},
    {"2x2", "auto", "_S(0, 3),_S(0, 3)", "R,R", "12", "undecodable _S all-gathers merged", false},
    {"2x3", "auto", "S(0),S(0)", "R,R", "7", "merged all-gather, 2x3 uneven", false},
    {"2x2x2", "auto", "S(0),S(0),S(0)", "R,R,R", "7", "three-dim all-gather merge, uneven", false},
    {"2x2x2", "auto", "S(0),S(0),S(0)", "S(0),R,R", "7", "partial merge of inner dims", false},
};

/* Inputs torch rejects (and one it accepts: flag StricterThanTorch). */
typedef struct bad_case {
    const char *mesh, *src, *dst, *shape, *planner, *src_order, *comment, *flag;
} bad_case;
static const bad_case invalid_cases[] = {
    {"2x2", "P(sum),P(max)", "R,R", "8,8", "auto", NULL, "mixed partial ops in the source", NULL},
    {"2x2", "R,R", "P(min),P(avg)", "8,8", "auto", NULL, "mixed partial ops in the target", NULL},
    {"2x2", "P(sum),P(max)", "R,R", "8,8", "graph", NULL, "mixed partial ops, graph planner", NULL},
    {"2x2", "S(0),R", "R,S(2)", "8,8", "greedy", NULL, "target shards dim 2 of a 2-d tensor", NULL},
    {"2x2", "S(0),R", "R,S(2)", "8,8", "graph", NULL, "target unreachable: dim 2 of a 2-d tensor", NULL},
    {"2x2", "S(3),R", "R,R", "8,8", "auto", NULL, "source shards dim 3 of a 2-d tensor", NULL},
    {"2x2", "S(0)", "R,R", "8,8", "auto", NULL, "one source placement for a 2-d mesh",
     SHC_STRICTER_THAN_TORCH},
    {"2x2x2", "S(0),R,R", "R,S(0)", "8,8", "auto", NULL, "two target placements for a 3-d mesh", NULL},
    {"2x2", "S(0),S(0)", "R,R", "8,8", "auto", "[[0,[1]]]", "shard order misses mesh dim 0", NULL},
    {"2x2", "S(0),S(1)", "R,R", "8,8", "auto", "[[0,[0,1]]]", "shard order names S(1) as dim 0", NULL},
    {"2x2", "S(0),S(1)", "R,R", "8,8", "auto", "[[1,[1]],[0,[0]]]", "shard order not sorted", NULL},
    {"2x2", "S(0),R", "R,R", "8,8", "auto", "[[0,[0,1]]]", "shard order names a replicate", NULL},
    {"2x2", "_S(0, 2),S(0)", "R,R", "8,8", "auto", "[[0,[1,0]]]",
     "shard order given with _StridedShard", NULL},
};

static int compute_rank(const json_t *group, const json_t *test, int64_t rank, json_t **out,
                        shc_err *e)
{
    shcrp_inputs in;
    int rc = shcrp_parse_inputs(group, test, &in, e);
    if (rc)
        return rc;
    json_t *x, *alts;
    rc = shcrp_expected_memo(&in, &x, &alts, e);
    shc_mesh_free(&in.mesh);
    if (rc)
        return rc;
    if (rank < 0 || (size_t)rank >= json_array_size(json_object_get(json_object_get(x, "perRank"),
                                                             "plan"))) {
        json_decref(x), json_decref(alts);
        return shc_fail(e, SHC_EINVAL, "rank %lld is not in the mesh", (long long)rank);
    }
    json_t *per = json_object_get(x, "perRank");
    json_t *o = json_pack("{s:O,s:O,s:O,s:O,s:O}", "planner", json_object_get(x, "planner"),
                          "plans", json_object_get(x, "plans"), "shapeSets",
                          json_object_get(x, "shapeSets"), "plan",
                          json_array_get(json_object_get(per, "plan"), (size_t)rank), "shapes",
                          json_array_get(json_object_get(per, "shapes"), (size_t)rank));
    if (alts)
        json_object_set_new(o, "alternatives", alts);
    json_decref(x);
    *out = o;
    return SHC_OK;
}

static int64_t world_size(const json_t *group)
{
    int64_t n = 1;
    const json_t *m = json_object_get(group, "mesh");
    for (size_t i = 0; i < json_array_size(m); i++)
        n *= json_integer_value(json_array_get(m, i));
    return n;
}

/* ---- generating ---- */

static void declare_notes(shc_gw *w)
{
    shc_gw_note(w, "UnevenShard", "A sharded tensor dim is not divisible by its mesh dims' "
                "product: ranks' logical shapes differ.");
    shc_gw_note(w, "NestedShard", "Several mesh dims shard the same tensor dim.");
    shc_gw_note(w, "Partial", "A Partial placement in the source or target.");
    shc_gw_note(w, "SizeOneMeshDim", "A mesh dim of size 1.");
    shc_gw_note(w, "NonDefaultOrder", "An explicit shard order that is not left to right: torch "
                "uses the min-cost planner.");
    shc_gw_note(w, "StridedShard", "A _StridedShard placement (an encoded shard order, or a real "
                "strided shard when the group says stridedLiteral).");
    shc_gw_note(w, "StridedFallback", "_StridedShard not decodable into a shard order: torch "
                "falls back to the greedy planner.");
    shc_gw_note(w, "TraceRaises", "torch's stringify_transform_infos (DebugMode) raises for this "
                "plan; trace is null.");
    shc_gw_note(w, "Merged", "Steps merged over a flattened mesh (\"-->\" in the trace).");
    shc_gw_note(w, "RankDivergent", "Ranks get different plans (collectives would not match).");
    shc_gw_note(w, "ExecRaises", "torch raises when it runs this plan on some rank: a gather "
                "whose logical size is not the group's n x the rank's local size "
                "(Shard._maybe_unpad_tensor; docs/findings/greedy_strided_logical_shape.py).");
    shc_gw_note(w, "ExecStalls", "Some ranks raise and others do not get the error: a rank "
                "waits in a later collective for one that raised before it, or a gather gets "
                "different sizes from a rank that raises and one that does not (or raises with "
                "another size); gloo hangs or aborts (docs/findings/strided_unpad_stall.py).");
    shc_gw_note(w, "ReduceOpRaises", "torch plans this as for any reduce op and raises running "
                "a step for its reduce op: a reduction with a string c10d does not name "
                "(\"RuntimeError: Unrecognized reduce_op: prod\"; funcol lowercases it and "
                "knows sum, avg, min, max, product, band, bor, bxor), or Replicate -> "
                "Partial of an op no partition inverts (\"ValueError: Replicate to "
                "Partial(prod) conversion is not supported.\"; Partial._partition_value, "
                "placement_types.py, torch 2.13).  `plan` names the step (torchRaises).");
    shc_gw_note(w, "UnsupportedStep", "A step torch's redistribute_local_tensor rejects when it "
                "executes it (comm \"unsupported\").");
    shc_gw_note(w, "SetOrder", "torch's answer depends on the iteration order of a Python set of "
                "reduce-op strings (salted hashes): any of expected and alternatives is right.");
    shc_gw_note(w, SHC_STRICTER_THAN_TORCH,
                "torch accepts this input; shardcheck rejects it. Placements that do not "
                "number the mesh's dims: only distribute_tensor counts them (_api.py, "
                "\"`placements` must have the same length as `device_mesh.ndim`\"); "
                "DTensor.from_local, DTensorSpec and redistribute do not, and with one source "
                "placement on a 2-d mesh torch plans from the placements it has (its trace "
                "raises \"dimensions mismatch\") and runs the first mesh dim's all-gather "
                "alone. shardcheck refuses it: the other mesh dim's placement is unnamed, so "
                "no rank's layout is defined. The harness's torch adapter and the torch "
                "backend check that torch does accept it (docs/invalid-audit.md).");
}

/* Expand an alphabet for a rank-t tensor ("S*" = every shard dim; skip dims >= t). */
static int expand_alphabet(const char *const *a, int t, shc_placement *out)
{
    int n = 0;
    for (int i = 0; a[i]; i++) {
        if (!strcmp(a[i], "S*")) {
            for (int d = 0; d < t; d++)
                out[n++] = (shc_placement){.kind = SHC_P_SHARD, .dim = d};
            continue;
        }
        shc_placements pl;
        if (shc_placements_parse(&pl, a[i], NULL) == SHC_OK && !(shc_is_shard_like(&pl.p[0]) &&
                                                                 pl.p[0].dim >= t))
            out[n++] = pl.p[0];
    }
    return n;
}

/* Placements number idx (base-k digits) with the tier's shard order. */
static void make_placements(const shc_placement *alpha, int k, int64_t idx, int n,
                            order_rule rule, shc_placements *pl)
{
    memset(pl, 0, sizeof *pl);
    pl->n = n;
    for (int i = n - 1; i >= 0; i--, idx /= k)
        pl->p[i] = alpha[idx % k];
    if (rule != ORDER_REVERSED)
        return;
    for (int i = 0; i < n; i++) {
        if (pl->p[i].kind != SHC_P_SHARD)
            continue;
        int count = 0, after = 0;
        for (int j = 0; j < n; j++)
            if (pl->p[j].kind == SHC_P_SHARD && pl->p[j].dim == pl->p[i].dim)
                count++, after += j > i;
        pl->order[i] = after;
        pl->has_order |= count > 1;
    }
}

static bool nested(const shc_placements *pl)
{
    for (int i = 0; i < pl->n; i++)
        for (int j = i + 1; j < pl->n; j++)
            if (shc_is_shard_like(&pl->p[i]) && shc_is_shard_like(&pl->p[j]) &&
                pl->p[i].dim == pl->p[j].dim)
                return true;
    return false;
}

static bool uneven(const shc_mesh *m, const shc_placements *pl, const shc_shape *s)
{
    for (int d = 0; d < s->ndim; d++) {
        int64_t prod = 1;
        for (int i = 0; i < pl->n; i++)
            if (shc_is_shard_like(&pl->p[i]) && pl->p[i].dim == d)
                prod *= m->shape[i];
        if (s->d[d] % prod)
            return true;
    }
    return false;
}

static bool has_kind(const shc_placements *pl, shc_pkind k)
{
    for (int i = 0; i < pl->n; i++)
        if (pl->p[i].kind == k)
            return true;
    return false;
}

static void add_flags(json_t *t, const shcrp_inputs *in, const shcrp_summary *sm, const json_t *x)
{
    const shc_placements *s = &in->src, *d = &in->dst;
    bool unit = false;
    for (int i = 0; i < in->mesh.ndim; i++)
        unit |= in->mesh.shape[i] == 1;
    if (uneven(&in->mesh, s, &in->shape) || uneven(&in->mesh, d, &in->shape))
        shc_test_flag(t, "UnevenShard");
    if (nested(s) || nested(d))
        shc_test_flag(t, "NestedShard");
    if (has_kind(s, SHC_P_PARTIAL) || has_kind(d, SHC_P_PARTIAL))
        shc_test_flag(t, "Partial");
    if (unit)
        shc_test_flag(t, "SizeOneMeshDim");
    if (s->has_order || d->has_order)
        shc_test_flag(t, "NonDefaultOrder");
    if (has_kind(s, SHC_P_STRIDED) || has_kind(d, SHC_P_STRIDED))
        shc_test_flag(t, "StridedShard");
    if (sm->fallback)
        shc_test_flag(t, "StridedFallback");
    if (sm->trace_raises)
        shc_test_flag(t, "TraceRaises");
    if (sm->merged)
        shc_test_flag(t, "Merged");
    if (json_array_size(json_object_get(x, "plans")) > 1)
        shc_test_flag(t, "RankDivergent");
    if (sm->unsupported)
        shc_test_flag(t, "UnsupportedStep");
    if (sm->exec_raises)
        shc_test_flag(t, "ExecRaises");
    if (sm->exec_stalls)
        shc_test_flag(t, "ExecStalls");
    if (sm->reduce_raises)
        shc_test_flag(t, "ReduceOpRaises");
}

/* Partial ops that torch's assert_no_mixed_partial_types rejects (shc_partial_mixes, the
 * planners' own rule: reduce_op strings compared, sum with avg allowed). */
static bool mixed_ops(const shc_placements *pl)
{
    const shc_placement *first = NULL;
    for (int i = 0; i < pl->n; i++) {
        const shc_placement *p = &pl->p[i];
        if (p->kind != SHC_P_PARTIAL)
            continue;
        if (!first)
            first = p;
        else if (shc_partial_mixes(first, p))
            return true;
    }
    return false;
}

/* One release's answer to a test (shc_gw_answer_fn; ctx: the group): the JSON inputs are
 * in t; the release r is handed to the planners, and what they asked goes to why->asked. */
static int answer(void *ctx, shc_torch_release r, json_t *t, shc_gw_why *why, shc_err *e)
{
    const json_t *group = ctx;
    shcrp_inputs in;
    json_t *x, *alts;
    shcrp_summary sm = {0};
    int rc = shcrp_parse_inputs(group, t, &in, e);
    if (rc == SHC_OK) {
        in.opts.torch = r; /* handed down, not written into t: the fixture's has no name */
        rc = shcrp_expected_all(&in, &x, &alts, &sm, e);
        why->changes |= sm.changes;
        why->asked = sm.asked; /* the planners' shc_torch_ask rows: the writer's to use */
        if (rc == SHC_OK) {
            add_flags(t, &in, &sm, x);
            if (alts) {
                json_object_set_new(x, "alternatives", alts);
                json_object_set_new(t, "result", json_string("acceptable"));
                shc_test_flag(t, "SetOrder");
            }
            json_object_set_new(t, "expected", x);
        }
        shc_mesh_free(&in.mesh);
    }
    if (rc == SHC_EINVAL) { /* torch rejects it: an invalid test carrying the error */
        json_object_set_new(t, "result", json_string("invalid"));
        json_object_set_new(t, "expected", json_pack("{s:s}", "error", e->msg));
        rc = SHC_OK;
    }
    return rc;
}

/* One test from its JSON inputs in t (stolen), answered by every release. */
static int emit(shc_gw *w, json_t *t, json_t *group, shc_err *e)
{
    return shc_gw_test_by_release(w, t, answer, group, e);
}

static json_t *new_test(const char *src, const char *dst, const char *mesh, const char *shape,
                        const shc_shape *s)
{
    char comment[512];
    snprintf(comment, sizeof comment, "%s -> %s on %s, shape [%s]", src, dst, mesh, shape);
    json_t *t = shc_test_new(comment, "valid");
    json_object_set_new(t, "src", json_string(src));
    json_object_set_new(t, "dst", json_string(dst));
    json_object_set_new(t, "shape", shc_json_i64_array(s->d, s->ndim));
    return t;
}

static json_t *group_params(const tier *ti, const shc_mesh *m)
{
    json_t *g = json_pack("{s:o,s:s,s:s,s:I}", "mesh", shc_json_i64_array(m->shape, m->ndim),
                          "planner", ti->planner, "dtype", ti->dtype, "devicesPerHost",
                          (json_int_t)ti->devices_per_host);
    if (ti->strided_literal)
        json_object_set_new(g, "stridedLiteral", json_true());
    if (ti->flatten_all) {
        json_t *fl = json_array();
        for (unsigned mask = 1; mask < (1u << m->ndim); mask++) {
            if (!(mask & (mask - 1)))
                continue;
            int64_t dims[SHC_MAX_MESH_DIMS];
            int n = 0;
            for (int d = 0; d < m->ndim; d++)
                if (mask & (1u << d))
                    dims[n++] = d;
            json_array_append_new(fl, shc_json_i64_array(dims, n));
        }
        json_object_set_new(g, "flattened", fl);
    }
    return g;
}

/* The pairs of one (tier, mesh, shape): a fixed-stride sample of alphabet^2n. */
static int gen_pairs(shc_gw *w, const tier *ti, const shc_mesh *m, const char *mesh_s,
                     const char *shape_s, json_t *group, shc_err *e)
{
    shc_shape s;
    int rc = shc_shape_parse(&s, shape_s, e);
    if (rc)
        return rc;
    shc_placement alpha[32];
    int k = expand_alphabet(ti->alphabet, s.ndim, alpha);
    int64_t per = 1;
    for (int i = 0; i < m->ndim; i++)
        per *= k;
    int64_t total = per * per, stride = 7919;
    while (total % stride == 0 || stride % total == 0)
        stride += 2;
    int made = 0, mixed = 0;
    for (int64_t i = 0; i < total && made < ti->pairs && rc == SHC_OK; i++) {
        int64_t idx = (i * stride + 17) % total;
        shc_placements a, b;
        make_placements(alpha, k, idx / per, m->ndim, ti->order, &a);
        make_placements(alpha, k, idx % per, m->ndim, ti->order, &b);
        if (ti->order == ORDER_REVERSED && !a.has_order && !b.has_order)
            continue;
        if (ti->strided_literal && !has_kind(&a, SHC_P_STRIDED) && !has_kind(&b, SHC_P_STRIDED))
            continue;
        if ((mixed_ops(&a) || mixed_ops(&b)) && (ti->no_mixed || ++mixed % 8 != 1))
            continue; /* keep one in eight: they all fail the same check */
        char sa[256], sb[256];
        shc_placements_format(&a, sa, sizeof sa);
        shc_placements_format(&b, sb, sizeof sb);
        if (a.has_order)
            shc_placements_format_trace(&a, sa, sizeof sa);
        if (b.has_order)
            shc_placements_format_trace(&b, sb, sizeof sb);
        rc = emit(w, new_test(sa, sb, mesh_s, shape_s, &s), group, e);
        made++;
    }
    return rc;
}

static int gen_tier(shc_gw *w, const tier *ti, shc_err *e)
{
    int rc = shc_gw_file(w, ti->stem, e);
    for (int mi = 0; meshes[mi] && rc == SHC_OK; mi++) {
        shc_mesh m;
        if ((rc = shc_mesh_parse(&m, meshes[mi], NULL, e)))
            return rc;
        if (m.ndim >= ti->min_mesh_dims && m.size <= ti->max_ranks) {
            json_t *g = group_params(ti, &m);
            rc = shc_gw_group(w, json_deep_copy(g), e);
            for (int t = 1; t <= 3 && rc == SHC_OK; t++)
                for (int si = 0; shapes_by_rank[t][si] && rc == SHC_OK; si++)
                    rc = gen_pairs(w, ti, &m, meshes[mi], shapes_by_rank[t][si], g, e);
            json_decref(g);
        }
        shc_mesh_free(&m);
    }
    return rc;
}

static int gen_invalid(shc_gw *w, shc_err *e)
{
    int rc = shc_gw_file(w, "invalid", e);
    for (size_t i = 0; i < sizeof invalid_cases / sizeof invalid_cases[0] && rc == SHC_OK; i++) {
        const bad_case *b = &invalid_cases[i];
        shc_mesh m;
        shc_shape s;
        if ((rc = shc_mesh_parse(&m, b->mesh, NULL, e)) || (rc = shc_shape_parse(&s, b->shape, e)))
            return rc;
        tier ti = {"invalid", b->planner, NULL, 0, 1, ORDER_DEFAULT, false, false, "float32", 8, 0, false};
        json_t *g = group_params(&ti, &m);
        json_t *t = new_test(b->src, b->dst, b->mesh, b->shape, &s);
        json_object_set_new(t, "comment", json_string(b->comment));
        if (b->src_order)
            json_object_set_new(t, "srcShardOrder", json_loads(b->src_order, 0, NULL));
        if (b->flag)
            shc_test_flag(t, b->flag);
        if ((rc = shc_gw_group(w, json_deep_copy(g), e)) == SHC_OK)
            rc = emit(w, t, g, e);
        else
            json_decref(t);
        json_decref(g);
        shc_mesh_free(&m);
    }
    return rc;
}

static int gen_notable(shc_gw *w, shc_err *e)
{
    int rc = shc_gw_file(w, "notable", e);
    for (size_t i = 0; i < sizeof notable_cases / sizeof notable_cases[0] && rc == SHC_OK; i++) {
        const notable_case *c = &notable_cases[i];
        shc_mesh m;
        shc_shape s;
        if ((rc = shc_mesh_parse(&m, c->mesh, NULL, e)) || (rc = shc_shape_parse(&s, c->shape, e)))
            return rc;
        tier ti = {"notable", c->planner, NULL, 0, 1, ORDER_DEFAULT, false, !c->no_flatten,
                   "float32", 8, 0, false};
        json_t *g = group_params(&ti, &m);
        json_t *t = new_test(c->src, c->dst, c->mesh, c->shape, &s);
        json_object_set_new(t, "comment", json_string(c->comment));
        if ((rc = shc_gw_group(w, json_deep_copy(g), e)) == SHC_OK)
            rc = emit(w, t, g, e);
        else
            json_decref(t);
        json_decref(g);
        shc_mesh_free(&m);
    }
    return rc;
}

static int generate(shc_gw *w, shc_err *e)
{
    declare_notes(w);
    int rc = SHC_OK;
    for (size_t i = 0; i < sizeof tiers / sizeof tiers[0] && rc == SHC_OK; i++)
        rc = gen_tier(w, &tiers[i], e);
    if (rc == SHC_OK)
        rc = gen_notable(w, e);
    if (rc == SHC_OK)
        rc = gen_invalid(w, e);
    for (size_t i = 0; i < sizeof later_tiers / sizeof later_tiers[0] && rc == SHC_OK; i++)
        rc = gen_tier(w, &later_tiers[i], e);
    return rc;
}

#include "redistribute_plan_views.h"

const shc_family shc_family_redistribute_plan = {
    .name = "redistribute-plan",
    .source_name = "pytorch",
    .source_version = "2.13.0",
    .releases = SHC_TORCH_ALL_RELEASES,
    .summary = "redistribute plans per rank: steps, logical shapes, trace (torch 2.13 planners)",
    .generate = generate,
    .compute_rank = compute_rank,
    .world_size = world_size,
    .gives = "per rank: steps, logical shapes, comm kinds, trace string, collective count",
    .oracle = "torch 2.13 planners (harness)",
    .project.abi_v1.views = shcrp_abi_v1_views,
    .project.abi_v1.entry = offsetof(shc_backend_v1, plan),
    .project.abi_v1.extend_want = shcrp_abi_v1_extend_want,
    .project.collective_counts = shcrp_collective_counts,
    .harness_stride = 8,
    .claim = {.fields = SHC_NAMES("planner", "plans", "shapeSets", "plan", "shapes"),
              .optional = SHC_NAMES(SHC_STRICTER_THAN_TORCH)},
};
