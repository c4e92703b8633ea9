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
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include "families.h"
#include "plugin_case.h"
#include "plan_internal.h"

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
} tier;

static const tier tiers[] = {
    {"greedy", "auto", alpha_partial, 64, 1, ORDER_DEFAULT, false, false, "float32", 8, 16},
    {"graph", "graph", alpha_partial, 40, 1, ORDER_DEFAULT, false, false, "float32", 1, 16},
    {"graph-topology", "graph", alpha_basic, 12, 2, ORDER_DEFAULT, false, false, "bfloat16", 2, 16},
    {"graph-float64", "graph", alpha_basic, 8, 2, ORDER_DEFAULT, false, false, "float64", 8, 16},
    {"shard-order", "auto", alpha_basic, 24, 2, ORDER_REVERSED, false, false, "float32", 8, 8},
    {"strided", "auto", alpha_strided, 16, 1, ORDER_DEFAULT, false, false, "float32", 8, 8},
    {"strided-literal", "auto", alpha_strided, 10, 1, ORDER_DEFAULT, true, false, "float32", 8, 8},
    {"merge", "auto", alpha_merge, 24, 2, ORDER_DEFAULT, false, true, "float32", 8, 16},
    {"merge-graph", "graph", alpha_merge, 10, 2, ORDER_DEFAULT, false, true, "float32", 1, 16},
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

/* ---- inputs ---- */

typedef struct inputs {
    shc_mesh mesh;
    shc_shape shape;
    shc_placements src, dst;
    shc_plan_opts opts;
} inputs;

static int shape_from_json(const json_t *a, shc_shape *s, shc_err *e)
{
    memset(s, 0, sizeof *s);
    if (!json_is_array(a) || json_array_size(a) > SHC_MAX_TENSOR_DIMS)
        return shc_fail(e, SHC_EFORMAT, "test: \"shape\" is not an array of at most %d sizes",
                        SHC_MAX_TENSOR_DIMS);
    for (size_t i = 0; i < json_array_size(a); i++) {
        json_int_t v = json_integer_value(json_array_get(a, i));
        if (!json_is_integer(json_array_get(a, i)) || v < 0)
            return shc_fail(e, SHC_EFORMAT, "test: shape[%zu] is not a size", i);
        s->d[s->ndim++] = v;
    }
    return SHC_OK;
}

/* An explicit ShardOrder [[tensor_dim, [mesh dims]], ...], checked as torch 2.13's
 * DTensorSpec._verify_shard_order does, stored as pl->order. */
static int apply_order(const json_t *so, shc_placements *pl, const char *which, shc_err *e)
{
    int prev = -1, total = 0, shards = 0;
    for (int i = 0; i < pl->n; i++) {
        if (pl->p[i].kind == SHC_P_STRIDED)
            return shc_fail(e, SHC_EINVAL, "%s: DTensorSpec doesn't allow specify shard_order "
                            "when use_strided_shard_as_shard_order is True. This may result in "
                            "conflicting shard order.", which);
        shards += pl->p[i].kind == SHC_P_SHARD;
    }
    for (size_t k = 0; k < json_array_size(so); k++) {
        const json_t *ent = json_array_get(so, k), *mds = json_array_get(ent, 1);
        int td = (int)json_integer_value(json_array_get(ent, 0));
        if (json_array_size(mds) == 0)
            return shc_fail(e, SHC_EINVAL, "%s: shard_order has empty mesh dim", which);
        if (td <= prev)
            return shc_fail(e, SHC_EINVAL, "%s: tensor dim should be sorted in shard_order", which);
        prev = td;
        for (size_t j = 0; j < json_array_size(mds); j++) {
            int md = (int)json_integer_value(json_array_get(mds, j));
            if (md < 0 || md >= pl->n)
                return shc_fail(e, SHC_EINVAL, "%s: shard_order has invalid mesh dim %d", which, md);
            if (pl->p[md].kind != SHC_P_SHARD || pl->p[md].dim != td)
                return shc_fail(e, SHC_EINVAL, "%s: placement[%d] doesn't have a matching shard in "
                                "shard_order", which, md);
            pl->order[md] = (int)j;
            total++;
        }
    }
    if (total != shards)
        return shc_fail(e, SHC_EINVAL, "%s: shard_order covers %d of the %d Shard placements",
                        which, total, shards);
    pl->has_order = true;
    return SHC_OK;
}

/* group "flattened": at most 16 sets of mesh dims of this mesh, as bitmasks.  Golden
 * bytes are input like any other: a dim outside the mesh would be a shift past the mask. */
static int flattened_from_json(const json_t *fl, int nd, shc_plan_opts *o, shc_err *e)
{
    size_t cap = sizeof o->flattened / sizeof o->flattened[0];
    if (!fl)
        return SHC_OK;
    if (!json_is_array(fl) || json_array_size(fl) > cap)
        return shc_fail(e, SHC_EFORMAT, "redistribute-plan: flattened must be an array of at most "
                        "%zu mesh-dim lists", cap);
    for (size_t k = 0; k < json_array_size(fl); k++) {
        const json_t *dims = json_array_get(fl, k);
        unsigned mask = 0;
        if (!json_is_array(dims))
            return shc_fail(e, SHC_EFORMAT, "redistribute-plan: flattened[%zu] is not a list of "
                            "mesh dims", k);
        for (size_t j = 0; j < json_array_size(dims); j++) {
            const json_t *d = json_array_get(dims, j);
            if (!json_is_integer(d) || json_integer_value(d) < 0 || json_integer_value(d) >= nd)
                return shc_fail(e, SHC_EFORMAT, "redistribute-plan: flattened[%zu][%zu] is not a "
                                "mesh dim of this %d-dim mesh", k, j, nd);
            mask |= 1u << json_integer_value(d);
        }
        o->flattened[o->nflattened++] = mask;
    }
    return SHC_OK;
}

static int mesh_from_json(const json_t *mj, shc_mesh *m, shc_err *e)
{
    int64_t ms[SHC_MAX_MESH_DIMS];
    if (!json_is_array(mj) || json_array_size(mj) > SHC_MAX_MESH_DIMS)
        return shc_fail(e, SHC_EFORMAT, "redistribute-plan: mesh must be an array of at most %d "
                        "sizes", SHC_MAX_MESH_DIMS);
    int nd = (int)json_array_size(mj);
    for (int i = 0; i < nd; i++) {
        if (!json_is_integer(json_array_get(mj, i)))
            return shc_fail(e, SHC_EFORMAT, "redistribute-plan: mesh[%d] is not an integer", i);
        ms[i] = json_integer_value(json_array_get(mj, i));
    }
    return shc_mesh_init(m, nd, ms, NULL, e);
}

static int parse_inputs(const json_t *group, const json_t *test, inputs *in, shc_err *e)
{
    memset(in, 0, sizeof *in);
    shc_plan_opts_init(&in->opts);
    const char *planner = json_string_value(json_object_get(group, "planner"));
    const char *dtype = json_string_value(json_object_get(group, "dtype"));
    const char *src = json_string_value(json_object_get(test, "src"));
    const char *dst = json_string_value(json_object_get(test, "dst"));
    if (!planner || !dtype || !src || !dst)
        return shc_fail(e, SHC_EFORMAT, "redistribute-plan: planner, dtype, src or dst missing");
    int rc = mesh_from_json(json_object_get(group, "mesh"), &in->mesh, e);
    if (rc)
        return rc;
    in->opts.devices_per_host = json_integer_value(json_object_get(group, "devicesPerHost"));
    if ((rc = shc_test_torch(test, &in->opts.torch, e))) {
        shc_mesh_free(&in->mesh);
        return rc;
    }
    in->opts.strided_literal = json_is_true(json_object_get(group, "stridedLiteral"));
    const json_t *so = json_object_get(test, "srcShardOrder");
    if ((rc = flattened_from_json(json_object_get(group, "flattened"), in->mesh.ndim, &in->opts,
                                  e)) ||
        (rc = shc_planner_parse(planner, &in->opts.planner, e)) ||
        (rc = shc_dtype_bytes(dtype, &in->opts.dtype_bytes, e)) ||
        (rc = shape_from_json(json_object_get(test, "shape"), &in->shape, e)) ||
        (rc = shc_placements_parse(&in->src, src, e)) ||
        (rc = shc_placements_parse(&in->dst, dst, e)) ||
        (rc = shc_placements_normalize(&in->src, in->shape.ndim, e)) ||
        (rc = shc_placements_normalize(&in->dst, in->shape.ndim, e)) ||
        (so && (rc = apply_order(so, &in->src, "src", e))))
        shc_mesh_free(&in->mesh);
    return rc;
}

/* ---- expected values ---- */

static json_t *plan_key(const shc_plan *p)
{
    json_t *steps = json_array();
    for (int i = 0; i < p->nsteps; i++) {
        const shc_plan_step *st = &p->steps[i];
        char a[64], b[64];
        int64_t md[SHC_MAX_MESH_DIMS];
        for (int k = 0; k < st->nmesh_dims; k++)
            md[k] = st->mesh_dims[k];
        shc_placement_format(&st->src, a, sizeof a);
        shc_placement_format(&st->dst, b, sizeof b);
        json_t *s = json_pack("[o,s,s,s]", shc_json_i64_array(md, st->nmesh_dims), a, b,
                              shc_comm_kind_name(st->comm));
        if (st->avg_scale)
            json_array_append_new(s, json_integer(st->avg_scale));
        json_array_append_new(steps, s);
    }
    return json_pack("{s:o,s:o,s:i}", "steps", steps, "trace",
                     p->trace ? json_string(p->trace) : json_null(), "ncollectives",
                     p->ncollectives);
}

static json_t *shapes_key(const shc_plan *p)
{
    json_t *a = json_array();
    for (int i = 0; i < p->nsteps; i++)
        json_array_append_new(a, shc_json_i64_array(p->steps[i].logical_shape.d,
                                                    p->steps[i].logical_shape.ndim));
    return a;
}

/* Index of v in list (appending it if new); steals v. */
static int intern(json_t *list, json_t *v)
{
    for (size_t i = 0; i < json_array_size(list); i++)
        if (json_equal(json_array_get(list, i), v)) {
            json_decref(v);
            return (int)i;
        }
    json_array_append_new(list, v);
    return (int)json_array_size(list) - 1;
}

typedef struct summary {
    int nreduce_ops;
    bool fallback, merged, unsupported, trace_raises;
    uint32_t changes; /* shc_plan.torch_changes over every rank */
    uint32_t asked;   /* shc_plan.torch_asked over every rank */
} summary;

/* Accumulates expected_for's per-rank answers (a shc_plan_each_rank callback). */
typedef struct rank_acc {
    json_t *plans, *shapes, *pi, *si;
    const char *planner;
    summary *sm;
} rank_acc;

static int add_rank(void *ctx, int64_t rank, const shc_plan *p, shc_err *e)
{
    (void)rank, (void)e;
    rank_acc *a = ctx;
    summary *sm = a->sm;
    sm->changes |= p->torch_changes;
    sm->asked |= p->torch_asked;
    a->planner = p->used == SHC_PLANNER_GRAPH ? "graph" : "greedy";
    sm->nreduce_ops = p->nreduce_ops;
    sm->fallback = p->strided_fallback;
    sm->trace_raises |= !p->trace;
    for (int i = 0; i < p->nsteps; i++) {
        sm->merged |= p->steps[i].nmesh_dims > 1;
        sm->unsupported |= p->steps[i].comm == SHC_COMM_UNSUPPORTED;
    }
    json_array_append_new(a->pi, json_integer(intern(a->plans, plan_key(p))));
    json_array_append_new(a->si, json_integer(intern(a->shapes, shapes_key(p))));
    return SHC_OK;
}

/* The expected object for every rank with the reduce-op set order perm (the graph planner's
 * search made once for all ranks: shc_plan_each_rank). */
static int expected_for(inputs *in, const int *perm, int nperm, json_t **out, summary *sm,
                        shc_err *e)
{
    in->opts.nop_perm = nperm;
    for (int i = 0; i < nperm; i++)
        in->opts.op_perm[i] = perm[i];
    memset(sm, 0, sizeof *sm);
    rank_acc a = {json_array(), json_array(), json_array(), json_array(), "greedy", sm};
    int64_t *ranks = malloc((size_t)in->mesh.size * sizeof *ranks);
    int rc = ranks ? SHC_OK : shc_fail(e, SHC_ENOMEM, "redistribute-plan: out of memory");
    for (int64_t r = 0; ranks && r < in->mesh.size; r++)
        ranks[r] = r;
    if (rc == SHC_OK)
        rc = shc_plan_each_rank(&in->mesh, &in->src, &in->dst, &in->shape, &in->opts, ranks,
                                in->mesh.size, add_rank, &a, e);
    free(ranks);
    if (rc && rc != SHC_ENOMEM) /* which release row made it fail: the failing rank's changes */
        for (int64_t r = 0; r < in->mesh.size; r++) {
            shc_plan p;
            int rc2 = shc_plan_compute(&in->mesh, &in->src, &in->dst, &in->shape, &in->opts, r,
                                       &p, e);
            sm->changes |= p.torch_changes;
            sm->asked |= p.torch_asked;
            shc_plan_free(&p);
            if (rc2)
                break;
        }
    if (rc) {
        json_decref(a.plans), json_decref(a.shapes), json_decref(a.pi), json_decref(a.si);
        return rc;
    }
    *out = json_pack("{s:s,s:o,s:o,s:{s:o,s:o}}", "planner", a.planner, "plans", a.plans,
                     "shapeSets", a.shapes, "perRank", "plan", a.pi, "shapes", a.si);
    return SHC_OK;
}

static bool next_perm(int *a, int n)
{
    int i = n - 2;
    while (i >= 0 && a[i] >= a[i + 1])
        i--;
    if (i < 0)
        return false;
    int j = n - 1;
    while (a[j] <= a[i])
        j--;
    int t = a[i];
    a[i] = a[j], a[j] = t;
    for (int l = i + 1, r = n - 1; l < r; l++, r--)
        t = a[l], a[l] = a[r], a[r] = t;
    return true;
}

/* The full expected object; *alts gets the other set orders' answers (or NULL). */
static int expected_all(inputs *in, json_t **out, json_t **alts, summary *sm, shc_err *e)
{
    int perm[SHC_OP_COUNT] = {0, 1, 2, 3, 4, 5, 6, 7};
    *alts = NULL;
    int rc = expected_for(in, perm, 0, out, sm, e);
    if (rc)
        return rc;
    int n = sm->nreduce_ops;
    while (rc == SHC_OK && n >= 2 && next_perm(perm, n)) {
        json_t *x;
        summary s2;
        rc = expected_for(in, perm, n, &x, &s2, e);
        sm->changes |= s2.changes;
        sm->asked |= s2.asked;
        if (rc)
            break;
        if (json_equal(x, *out)) {
            json_decref(x);
            continue;
        }
        if (!*alts)
            *alts = json_array();
        intern(*alts, x);
    }
    in->opts.nop_perm = 0;
    if (rc) {
        json_decref(*out);
        json_decref(*alts);
    }
    return rc;
}

/* The runner asks compute_rank once per rank of a case, and each call plans every rank under
 * every reduce-op set order (expected_all): a case of N ranks cost N times its work (most of
 * `run --family redistribute-plan`'s time, issue 36).  The last case's answer is kept, keyed
 * by the parsed inputs themselves (every field parse_inputs fills, the rank map's contents
 * included), so a field it reads later cannot be missed by the key; padding that differs only
 * costs a recomputation.  Per thread, so concurrent callers never share it. */
typedef struct plan_memo {
    bool valid;
    inputs in;       /* in.mesh.ranks / pos_of are not owned: see ranks */
    int64_t *ranks;  /* a copy of the rank map (mesh.size entries) */
    json_t *x, *alts;
} plan_memo;
static _Thread_local plan_memo memo;

static bool memo_hit(const inputs *in)
{
    const inputs *m = &memo.in;
    return memo.valid && m->mesh.ndim == in->mesh.ndim && m->mesh.size == in->mesh.size &&
           !memcmp(m->mesh.shape, in->mesh.shape, sizeof m->mesh.shape) &&
           (in->mesh.ranks ? memo.ranks && !memcmp(memo.ranks, in->mesh.ranks,
                                                   (size_t)in->mesh.size * sizeof *memo.ranks)
                           : !memo.ranks) &&
           !memcmp(&m->shape, &in->shape, sizeof m->shape) &&
           !memcmp(&m->src, &in->src, sizeof m->src) && !memcmp(&m->dst, &in->dst, sizeof m->dst) &&
           !memcmp(&m->opts, &in->opts, sizeof m->opts);
}

static void memo_store(const inputs *in, json_t *x, json_t *alts)
{
    json_decref(memo.x), json_decref(memo.alts), free(memo.ranks);
    memset(&memo, 0, sizeof memo);
    if (in->mesh.ranks &&
        !(memo.ranks = malloc((size_t)in->mesh.size * sizeof *memo.ranks)))
        return; /* no memo: the next call recomputes */
    if (memo.ranks)
        memcpy(memo.ranks, in->mesh.ranks, (size_t)in->mesh.size * sizeof *memo.ranks);
    memo.in = *in;
    memo.in.mesh.ranks = memo.in.mesh.pos_of = NULL;
    memo.x = json_incref(x), memo.alts = json_incref(alts);
    memo.valid = true;
}

/* The expected object and alternatives of a case (new references), through the memo. */
static int expected_memo(inputs *in, json_t **x, json_t **alts, shc_err *e)
{
    if (memo_hit(in)) {
        *x = json_incref(memo.x), *alts = json_incref(memo.alts);
        return SHC_OK;
    }
    summary sm;
    int rc = expected_all(in, x, alts, &sm, e);
    if (rc == SHC_OK)
        memo_store(in, *x, *alts);
    return rc;
}

static int compute_rank(const json_t *group, const json_t *test, int64_t rank, json_t **out,
                        shc_err *e)
{
    inputs in;
    int rc = parse_inputs(group, test, &in, e);
    if (rc)
        return rc;
    json_t *x, *alts;
    rc = expected_memo(&in, &x, &alts, e);
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

static int64_t world_size(const json_t *group, const json_t *test)
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

static void add_flags(json_t *t, const inputs *in, const summary *sm, const json_t *x)
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
}

/* Partial ops that torch's assert_no_mixed_partial_types rejects. */
static bool mixed_ops(const shc_placements *pl)
{
    unsigned ops = 0;
    for (int i = 0; i < pl->n; i++)
        if (pl->p[i].kind == SHC_P_PARTIAL)
            ops |= 1u << pl->p[i].op;
    return (ops & (ops - 1)) && ops != ((1u << SHC_OP_SUM) | (1u << SHC_OP_AVG));
}

/* One release's answer to a test (shc_gw_answer_fn; ctx: the group): the JSON inputs are
 * in t; the release r is handed to the planners, and what they asked goes to why->asked. */
static int answer(void *ctx, shc_torch_release r, json_t *t, shc_gw_why *why, shc_err *e)
{
    const json_t *group = ctx;
    inputs in;
    json_t *x, *alts;
    summary sm = {0};
    int rc = parse_inputs(group, t, &in, e);
    if (rc == SHC_OK) {
        in.opts.torch = r; /* handed down, not written into t: the fixture's has no name */
        rc = expected_all(&in, &x, &alts, &sm, e);
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
        if ((mixed_ops(&a) || mixed_ops(&b)) && ++mixed % 8 != 1)
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
        tier ti = {"invalid", b->planner, NULL, 0, 1, ORDER_DEFAULT, false, false, "float32", 8, 0};
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
                   "float32", 8, 0};
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
    return rc ? rc : gen_invalid(w, e);
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
    .harness_stride = 6,
    .claim = {.fields = SHC_NAMES("planner", "plans", "shapeSets", "plan", "shapes")},
};
