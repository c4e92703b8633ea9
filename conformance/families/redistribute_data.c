/*
 * redistribute_data.c — the redistribute-data golden family: a plan executed
 * on deterministic data (lib/exec/testdata.c); per rank, the sha256 of the local
 * result, its shape and its first few values.
 *
 * What the corpus covers is the tables below: tiers of meshes, per-mesh-dim
 * placement options (src and dst combos enumerated, sampled by a fixed
 * stride when there are too many), shape rules relative to the world size
 * w, explicit pairs for _StridedShard and shard orders, and the invalid
 * cases torch rejects.  Dtypes and reduce ops cycle with the case counter so
 * every dtype meets every kind of step.  Adding a row is the whole change
 * needed to cover something new.
 *
 * Expected values come from executing the plan on the local backend
 * (shc_exec_simulate); check_exec.c checks that execution against the
 * oracle (global tensor sliced by the layout), and the harness adapter
 * tools/harness/adapters/torch_redistribute_data.py re-runs every case on
 * torch 2.13 LocalTensor and compares digests bitwise.
 * Schema: golden/schemas/redistribute-data_v1.json.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include "families.h"
#include "plugin_case.h"
#include "checked_math.h"
#include "layout_common.h"
#include "redistribute_exec.h"
#include "world_memo.h"
#include "redistribute_data.h"

static const char *const dtypes[] = {"float32", "bfloat16", "float16", "float64", "int32",
                                     "int64"};
static const shc_redop float_ops[] = {SHC_OP_SUM, SHC_OP_AVG, SHC_OP_MIN, SHC_OP_MAX,
                                      SHC_OP_PRODUCT};

/* A tier: meshes x enumerated (src, dst) combos of per-dim options x shapes,
 * or meshes x explicit "src|dst" pairs x shapes. */
typedef struct xtier {
    const char *stem;
    const char *const *meshes;
    const char *const *options;  /* per mesh dim; "P" becomes P(op) */
    int combo_limit;             /* (src, dst) pairs per mesh, sampled beyond */
    const char *const *pairs;    /* or explicit pairs */
    const char *const *shapes;   /* rules: "a", "w", "kw", "kw+b", "kw-b" */
} xtier;

static const char *const opt2d[] = {"R", "S(0)", "S(1)", "P", NULL};
static const char *const m1[] = {"2", "3", "4", NULL};
static const char *const m2[] = {"2x2", "2x3", "3x2", NULL};
static const char *const m3[] = {"2x2x2", NULL};
static const char *const mlarge[] = {"8", "4x4", "2x4x8", "4x4x4", NULL};
static const char *const munit[] = {"1", "2x1", "1x3", NULL};
static const char *const s1[] = {"2w+1,3", "w,w-1", "1,5", NULL};
static const char *const s2[] = {"2w+1,w-1", "w,3", NULL};
static const char *const s3[] = {"w+1,5", "3,w", NULL};
static const char *const slarge[] = {"2w+1,3", NULL};
static const char *const sunit[] = {"3,2", NULL};
static const char *const mstrided[] = {"4", "2x2", "2x4", NULL};
static const char *const pstrided[] = {
    "_S(0, 2)|R", "R|_S(0, 2)", "_S(0, 2)|S(0)", "S(0)|_S(0, 2)", "_S(0, 2)|_S(0, 3)",
    "P|_S(0, 2)", "_S(1, 2)|S(0)", NULL};
static const char *const pstrided2[] = {
    "_S(0, 2),S(0)|R,R", "R,R|_S(0, 2),S(0)", "_S(0, 2),S(0)|S(0),R", "S(0),S(0)|_S(0, 2),S(0)",
    "_S(0, 2),S(1)|R,S(0)", "P,P|_S(1, 2),S(1)", NULL};
static const char *const morder[] = {"2x2", "2x3", NULL};
static const char *const porder[] = {
    "S(0)[1]S(0)[0]|R,R", "R,R|S(0)[1]S(0)[0]", "S(0)[1]S(0)[0]|S(0),S(0)",
    "S(0),S(0)|S(0)[1]S(0)[0]", "S(0)[1]S(0)[0]|S(1),R", "P,R|S(0)[1]S(0)[0]",
    "S(1)[1]S(1)[0]|S(0),S(1)", NULL};
static const char *const sorder[] = {"2w+1,3", "w,w", NULL};
static const char *const m3x[] = {"2x2x2", NULL};
static const char *const porder3[] = {
    "S(0)[2]S(0)[1]S(0)[0]|R,R,R", "S(0)[0]S(0)[2]S(0)[1]|S(1),R,S(0)",
    "R,R,R|S(0)[2]S(0)[0]S(0)[1]", NULL};

static const xtier tiers[] = {
    {"one-dim", m1, opt2d, 16, NULL, s1},
    {"two-dim", m2, opt2d, 48, NULL, s2},
    {"three-dim", m3, opt2d, 48, NULL, s3},
    {"large-meshes", mlarge, opt2d, 8, NULL, slarge},
    {"unit-dims", munit, opt2d, 16, NULL, sunit},
    {"strided-1d", m1 + 2, NULL, 0, pstrided, s1},
    {"strided-2d", mstrided + 1, NULL, 0, pstrided2, s2},
    {"shard-order", morder, NULL, 0, porder, sorder},
    {"shard-order-3d", m3x, NULL, 0, porder3, sorder},
};

/* Every dtype meets every op: P(op),P(op) -> R,R and P(op),R -> S(0),S(1) on 2x2. */
static const char *const ptabs[] = {"P,P|R,R", "P,R|S(0),S(1)", "P,P|S(1),P", NULL};

/* Inputs torch 2.13 rejects at execution (expected: its error message). */
static const struct { const char *mesh, *src, *dst, *shape, *dtype, *comment; } invalid[] = {
    {"2", "R", "P(product)", "4", "float32", "R -> P(product) cannot be partitioned"},
    {"2", "R", "P(bxor)", "4", "int32", "R -> P(bxor) cannot be partitioned"},
    {"2x2", "P(sum),R", "P(max),R", "4", "float32", "P(sum) -> P(max)"},
    {"2", "S(0)", "P(sum)", "4", "float32", "Shard -> Partial"},
};

static void eval_shape(const char *rule, int64_t w, shc_shape *s)
{
    memset(s, 0, sizeof *s);
    const char *r = rule;
    while (*r) {
        int64_t k = 1, v;
        if (*r >= '0' && *r <= '9')
            k = strtoll(r, (char **)&r, 10);
        v = k;
        if (*r == 'w') {
            v = k * w;
            r++;
            if (*r == '+' || *r == '-') {
                char sign = *r;
                int64_t b = strtoll(r + 1, (char **)&r, 10);
                v = sign == '+' ? v + b : v - b;
            }
        }
        s->d[s->ndim++] = v < 0 ? 0 : v;
        if (*r == ',')
            r++;
    }
}

/* ---- one case ---- */

/* One simulation answers every rank of a case: its views are kept for the next rank's
 * question (world_memo.h). */
static shc_world_memo memo = SHC_WORLD_MEMO_INIT;

static int compute_rank(const json_t *group, const json_t *test, int64_t rank, json_t **out,
                        shc_err *e)
{
    if ((*out = shc_world_memo_get(&memo, group, test, rank)))
        return SHC_OK;
    shc_xcase x;
    int rc = shcrd_xcase_from_json(group, test, &x, e);
    if (rc)
        return rc;
    if (rank < 0 || rank >= x.mesh.size) {
        shc_xcase_free(&x);
        return shc_fail(e, SHC_EINVAL, "rank %lld outside the %lld-rank mesh", (long long)rank,
                        (long long)x.mesh.size);
    }
    int64_t n = x.mesh.size;
    shc_xtensor *res = calloc((size_t)n, sizeof *res);
    json_t **views = calloc((size_t)n, sizeof *views);
    rc = res && views ? shc_exec_simulate(&x, res, e) : shc_fail(e, SHC_ENOMEM, "out of memory");
    for (int64_t r = 0; !rc && r < n; r++) {
        views[r] = shcrd_view(&res[r]);
        shc_xtensor_free(&res[r]);
    }
    if (!rc) {
        *out = json_deep_copy(views[rank]);
        shc_world_memo_put(&memo, group, test, views, n);
    }
    free(views);
    free(res);
    shc_xcase_free(&x);
    return rc;
}

static int64_t world_size(const json_t *group) { return shcl_world(group); }

/* ---- generating ---- */

static void declare_notes(shc_gw *w)
{
    shc_gw_note(w, "UnevenShard", "Some rank's source or target shard is shorter (padding paths).");
    shc_gw_note(w, "Partial", "A Partial placement: the source holds partial values that reduce "
                "exactly to the global tensor, or the target partitions (sum divides by n).");
    shc_gw_note(w, "StridedShard", "A _StridedShard placement (gather and permute).");
    shc_gw_note(w, "ShardOrder", "An explicit shard order in trace form.");
    shc_gw_note(w, "SizeOneMeshDim", "A mesh dim of size 1 (torch's num_chunks == 1 shortcut).");
    shc_gw_note(w, "WrongDataFinding", "Finding: torch 2.13 executes this plan (the greedy "
                "fallback for an undecodable _StridedShard) and the result is not the global "
                "tensor's slice on some rank; expected records what torch computes.");
    shc_gw_note(w, "LargeMesh", SHC_LARGE_MESH_NOTE);
}

static void add_flags(json_t *t, const shc_xcase *x, const json_t *per)
{
    bool partial = false, strided = false, unit = false;
    for (int i = 0; i < x->mesh.ndim; i++) {
        const shc_placement *a = &x->src.p[i], *b = &x->dst.p[i];
        partial |= a->kind == SHC_P_PARTIAL || b->kind == SHC_P_PARTIAL;
        strided |= a->kind == SHC_P_STRIDED || b->kind == SHC_P_STRIDED;
        unit |= x->mesh.shape[i] == 1;
    }
    const json_t *ls = json_object_get(per, "localShape");
    for (size_t r = 1; r < json_array_size(ls); r++)
        if (!json_equal(json_array_get(ls, r), json_array_get(ls, 0))) {
            shc_test_flag(t, "UnevenShard");
            break;
        }
    if (partial)
        shc_test_flag(t, "Partial");
    if (strided)
        shc_test_flag(t, "StridedShard");
    if (x->src.has_order || x->dst.has_order)
        shc_test_flag(t, "ShardOrder");
    if (unit)
        shc_test_flag(t, "SizeOneMeshDim");
    if (x->mesh.size > SHC_LARGE_MESH_RANKS)
        shc_test_flag(t, "LargeMesh");
}

/* Replace each bare "P" in a placements string by P(op). */
static void subst_op(const char *in, shc_redop op, char *out, size_t n)
{
    size_t k = 0;
    for (const char *p = in; *p && k + 16 < n; p++) {
        if (*p == 'P' && p[1] != '(')
            k += (size_t)snprintf(out + k, n - k, "P(%s)", shc_redop_name(op));
        else
            out[k++] = *p;
    }
    out[k] = '\0';
}

typedef struct gen_state {
    shc_gw *w;
    int64_t counter;
} gen_state;

/* The shc_torch_change bits the plans of every rank of x take (exec_plan_for). */
static uint32_t plan_changes(const shc_xcase *x)
{
    uint32_t bits = 0;
    for (int64_t r = 0; r < x->mesh.size; r++) {
        shc_plan p;
        shc_err pe;
        if (shc_exec_plan_for(x, r, &p, &pe) == SHC_OK)
            shc_plan_free(&p);
        bits |= p.torch_changes;
    }
    return bits;
}

/* What one case's answer is computed from (shc_gw_answer_fn's ctx). */
typedef struct data_case {
    const char *mesh, *src, *dst, *shape, *dtype;
} data_case;

/* One release's answer (shc_gw_answer_fn): execute on every rank, the views; an input the
 * executor does not model (EUNSUPPORTED: dtype/op mixes) is no test. */
static int answer(void *ctx, shc_torch_release rel, json_t *t, shc_gw_why *why, shc_err *e)
{
    const data_case *dc = ctx;
    shc_xcase x;
    int rc = shc_xcase_parse(&x, dc->mesh, NULL, dc->src, dc->dst, dc->shape, dc->dtype, NULL, e);
    if (rc)
        return shc_err_prefix(e, "table case %s %s -> %s", dc->mesh, dc->src, dc->dst);
    x.torch = rel;
    why->changes |= plan_changes(&x);
    shc_xtensor *res = calloc((size_t)x.mesh.size, sizeof *res);
    shc_err ee = {0};
    rc = res ? shc_exec_simulate(&x, res, &ee) : shc_fail(&ee, SHC_ENOMEM, "out of memory");
    json_object_set_new(t, "result", json_string(rc ? "invalid" : "valid"));
    if (rc == SHC_EUNSUPPORTED) {
        rc = shc_fail(e, SHC_EUNSUPPORTED, "%s", ee.msg);
    } else if (rc == SHC_EINVAL) {
        json_object_set_new(t, "expected", json_pack("{s:s}", "error", ee.msg));
        rc = SHC_OK;
    } else if (!rc) {
        json_t *ls = json_array(), *hs = json_array(), *vs = json_array();
        bool wrong = false;
        for (int64_t r = 0; r < x.mesh.size; r++) {
            json_t *v = shcrd_view(&res[r]);
            shcrd_oracle_note(&x, r, &res[r], v);
            wrong |= json_object_get(v, "oracleMismatch") != NULL;
            json_array_append(ls, json_object_get(v, "localShape"));
            json_array_append(hs, json_object_get(v, "sha256"));
            json_array_append(vs, json_object_get(v, "values"));
            json_decref(v);
            shc_xtensor_free(&res[r]);
        }
        json_t *per = json_pack("{s:o, s:o, s:o}", "localShape", ls, "sha256", hs, "values", vs);
        add_flags(t, &x, per);
        if (wrong)
            shc_test_flag(t, "WrongDataFinding");
        json_object_set_new(t, "expected", json_pack("{s:o}", "perRank", per));
    } else {
        rc = shc_fail(e, rc, "%s", ee.msg);
    }
    free(res);
    shc_xcase_free(&x);
    return rc;
}

/* Emit one case (mesh group already open), answered by every release. */
static int emit(gen_state *g, const char *mesh, const char *src0, const char *dst0,
                const shc_shape *s, const char *dtype_forced, shc_redop *op_forced, shc_err *e)
{
    int64_t c = g->counter++;
    const char *dt = dtype_forced ? dtype_forced : dtypes[c % 6];
    bool is_int = !strncmp(dt, "int", 3);
    shc_redop op = op_forced ? *op_forced
                 : is_int ? (shc_redop)((c / 6) % SHC_OP_COUNT) : float_ops[(c / 6) % 5];
    char src[128], dst[128], shape[128], comment[512];
    subst_op(src0, op, src, sizeof src);
    subst_op(dst0, op, dst, sizeof dst);
    shc_shape_format(s, shape, sizeof shape);
    snprintf(comment, sizeof comment, "mesh %s, %s -> %s, shape [%s], %s", mesh, src, dst, shape,
             dt);
    json_t *t = shc_test_new(comment, "valid");
    json_object_set_new(t, "src", json_string(src));
    json_object_set_new(t, "dst", json_string(dst));
    json_object_set_new(t, "shape", shc_json_i64_array(s->d, s->ndim));
    json_object_set_new(t, "dtype", json_string(dt));
    data_case dc = {mesh, src, dst, shape, dt};
    int rc = shc_gw_test_by_release(g->w, t, answer, &dc, e);
    return rc ? shc_err_prefix(e, "%s", comment) : SHC_OK;
}

static int open_group(gen_state *g, const char *mesh, int64_t *world, shc_err *e)
{
    shc_mesh m;
    int rc = shc_mesh_parse(&m, mesh, NULL, e);
    if (rc)
        return rc;
    *world = m.size;
    json_t *p = json_pack("{s:o}", "mesh", shc_json_i64_array(m.shape, m.ndim));
    shc_mesh_free(&m);
    return shc_gw_group(g->w, p, e);
}

/* Placements string for combo index c over nd mesh dims. */
static void combo(int64_t c, int nd, const char *const *opts, int nopt, char *buf, size_t n)
{
    size_t k = 0;
    int64_t dig[SHC_MAX_MESH_DIMS];
    for (int i = nd - 1; i >= 0; i--, c /= nopt)
        dig[i] = c % nopt;
    for (int i = 0; i < nd; i++)
        k += (size_t)snprintf(buf + k, n - k, i ? ",%s" : "%s", opts[dig[i]]);
}

static int gen_tier(gen_state *g, const xtier *t, shc_err *e)
{
    int rc = shc_gw_file(g->w, t->stem, e);
    for (int mi = 0; !rc && t->meshes[mi]; mi++) {
        const char *mesh = t->meshes[mi];
        int64_t world;
        int nd = 1;
        for (const char *p = mesh; *p; p++)
            nd += *p == 'x';
        if ((rc = open_group(g, mesh, &world, e)))
            break;
        for (int si = 0; !rc && t->shapes[si]; si++) {
            shc_shape s;
            eval_shape(t->shapes[si], world, &s);
            if (t->pairs) {
                for (int pi = 0; !rc && t->pairs[pi]; pi++) {
                    char src[128], *bar;
                    snprintf(src, sizeof src, "%s", t->pairs[pi]);
                    bar = strchr(src, '|');
                    *bar = '\0';
                    rc = emit(g, mesh, src, bar + 1, &s, NULL, NULL, e);
                }
                continue;
            }
            int nopt = 0;
            while (t->options[nopt])
                nopt++;
            int64_t one = 1;
            for (int i = 0; i < nd; i++)
                one *= nopt;
            int64_t total = one * one, n = total < t->combo_limit ? total : t->combo_limit;
            for (int64_t j = 0; !rc && j < n; j++) {
                int64_t c = total <= t->combo_limit ? j : (j * 7919 + si * 31 + mi) % total;
                char src[128], dst[128];
                combo(c / one, nd, t->options, nopt, src, sizeof src);
                combo(c % one, nd, t->options, nopt, dst, sizeof dst);
                rc = emit(g, mesh, src, dst, &s, NULL, NULL, e);
            }
        }
    }
    return rc;
}

static int gen_ops(gen_state *g, shc_err *e)
{
    int64_t world;
    int rc = shc_gw_file(g->w, "ops-dtypes", e);
    if (!rc)
        rc = open_group(g, "2x2", &world, e);
    shc_shape s = {2, {5, 3}};
    for (int d = 0; !rc && d < 6; d++)
        for (int op = 0; !rc && op < SHC_OP_COUNT; op++) {
            if (strncmp(dtypes[d], "int", 3) && op >= SHC_OP_BAND)
                continue;
            for (int p = 0; !rc && ptabs[p]; p++) {
                char src[64], *bar;
                snprintf(src, sizeof src, "%s", ptabs[p]);
                bar = strchr(src, '|');
                *bar = '\0';
                shc_redop o = (shc_redop)op;
                rc = emit(g, "2x2", src, bar + 1, &s, dtypes[d], &o, e);
            }
        }
    return rc;
}

static int gen_invalid(gen_state *g, shc_err *e)
{
    int rc = shc_gw_file(g->w, "invalid", e);
    const char *open = NULL;
    for (size_t i = 0; !rc && i < sizeof invalid / sizeof invalid[0]; i++) {
        int64_t world;
        if (!open || strcmp(open, invalid[i].mesh))
            rc = open_group(g, invalid[i].mesh, &world, e);
        open = invalid[i].mesh;
        shc_shape s;
        if (!rc)
            rc = shc_shape_parse(&s, invalid[i].shape, e);
        if (!rc)
            rc = emit(g, invalid[i].mesh, invalid[i].src, invalid[i].dst, &s, invalid[i].dtype,
                      NULL, e);
    }
    return rc;
}

static int generate(shc_gw *w, shc_err *e)
{
    gen_state g = {w, 0};
    declare_notes(w);
    int rc = SHC_OK;
    for (size_t i = 0; !rc && i < sizeof tiers / sizeof tiers[0]; i++)
        rc = gen_tier(&g, &tiers[i], e);
    if (!rc)
        rc = gen_ops(&g, e);
    if (!rc)
        rc = gen_invalid(&g, e);
    return rc;
}

/* ---- cross-rank invariants ---- */

/* The runner's check of one rank's view (family.h view_check), on every backend: the
 * executor's comparison with the global tensor ("oracleMismatch", set by the view
 * functions above) fails the case unless it carries the finding's flag; the note is then
 * removed, since the golden view has no such field. */
static int view_check(const json_t *test, json_t *view, char *msg, size_t n)
{
    const char *oracle = json_string_value(json_object_get(view, "oracleMismatch"));
    if (oracle && !shc_test_has_flag(test, "WrongDataFinding")) {
        snprintf(msg, n, "redistributed data differs from the global tensor: %s", oracle);
        return 0;
    }
    json_object_del(view, "oracleMismatch");
    return 1;
}

/* Runner hook (shc_family.invariants): every rank holds the global tensor's slice (the
 * oracle note) and ranks that differ only along Replicate target dims hold equal
 * bytes.  1 when they hold, else 0 with msg. */
static int invariants(const json_t *group, const json_t *test, int64_t world,
                      json_t *const *v, char *msg, size_t n)
{
    if (!json_object_get(v[0], "sha256"))
        return 1;
    shc_placements dst;
    shc_err e = {0};
    const json_t *mesh = json_object_get(group, "mesh");
    if (shc_placements_parse(&dst, json_string_value(json_object_get(test, "dst")), &e) ||
        dst.n != (int)json_array_size(mesh))
        return 1; /* the golden comparison already reported it */
    bool finding = shc_test_has_flag(test, "WrongDataFinding");
    for (int64_t a = 0; a < world; a++) {
        const char *oracle = json_string_value(json_object_get(v[a], "oracleMismatch"));
        if (oracle && !finding) {
            snprintf(msg, n, "redistributed data differs from the global tensor: %s", oracle);
            return 0;
        }
        for (int64_t b = 0; b < a; b++) {
            int64_t ra = a, rb = b;
            bool replicas = true;
            for (int d = dst.n - 1; d >= 0; d--) {
                int64_t sz = json_integer_value(json_array_get(mesh, (size_t)d));
                if (dst.p[d].kind != SHC_P_REPLICATE && ra % sz != rb % sz)
                    replicas = false;
                ra /= sz, rb /= sz;
            }
            if (replicas && !json_equal(json_object_get(v[a], "sha256"),
                                        json_object_get(v[b], "sha256"))) {
                snprintf(msg, n, "replicas differ: ranks %lld and %lld hold the same part but "
                         "their bytes differ (sha256 %.12s... vs %.12s...)", (long long)b,
                         (long long)a, json_string_value(json_object_get(v[b], "sha256")),
                         json_string_value(json_object_get(v[a], "sha256")));
                return 0;
            }
        }
    }
    return 1;
}

const shc_family shc_family_redistribute_data = {
    .name = "redistribute-data",
    .source_name = "pytorch",
    .source_version = "2.13.0",
    .releases = SHC_TORCH_ALL_RELEASES,
    .summary = "redistribute on deterministic data: per rank sha256 of the local result (LocalTensor)",
    .generate = generate,
    .compute_rank = compute_rank,
    .world_size = world_size,
    .gives = "per rank: sha256 of the redistributed local tensor and samples",
    .oracle = "torch 2.13 LocalTensor (harness)",
    .view_check = view_check,
    .invariants = invariants,
    .exec.simulated = shcrd_exec_simulated,
    .exec.over_comm = shcrd_exec_over_comm,
    .exec.on_device_comm = shcrd_exec_on_device_comm,
    .exec.comm_batch = 8, /* every case runs collectives: keep a stuck batch small */
    .exec.outside = shcrd_exec_outside,
    .project.abi_v1.views = shcrd_abi_v1_views,
    .project.abi_v1.entry = offsetof(shc_backend_v1, execute),
    .harness_stride = 1,
    .claim = {.fields = SHC_NAMES("localShape", "sha256", "values")},
};
