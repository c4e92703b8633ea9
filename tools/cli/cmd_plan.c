/*
 * cmd_plan.c — `shardcheck plan` (torch 2.13's redistribute plan per rank:
 * steps, logical shapes, communication, trace string) and `shardcheck audit
 * plan` (findings where torch's plan is unsafe: merged uneven all-gathers,
 * rank-divergent plans, steps execution rejects).  Readable table by
 * default, one JSON object with --json (docs/DESIGN.md "CLI contract").
 * plan --world W: the mesh in a larger world; a rank off it runs no step (torch 2.13
 * _redistribute.py redistribute_local_tensor returns its empty local tensor untouched).
 * Tested by conformance/tests/cli_plan.sh and tools/harness/tests/test_subworld.py.
 */
#include "config.h"
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "golden.h"
#include "plan_internal.h"
#include "torch_version.h"

static const char plan_synopsis[] =
    "--mesh M [--ranks L] [--world W] --shape S --src P --dst P\n"
    "         [--planner auto|greedy|graph] [--dtype T] [--devices-per-host N]\n"
    "         [--flatten 0+1[,1+2..]] [--no-merge] [--strided-literal] [--rank R] [--json]\n"
    "         [--torch-version V]";

typedef struct plan_args {
    cli_common c;
    const char *src, *dst, *planner, *dtype, *flatten;
    const char *tver; /* --torch-version as given (NULL: not) */
    long long dph;
    int no_merge, strided_literal;
} plan_args;

/* Parse "0+1,1+2" into bitmasks: each set a slice DeviceMesh makes and flattens
 * (mesh[("d0", "d1")]._flatten()), so refused where torch refuses the slice
 * (shc_mesh_slice_layout: a dim past the mesh, out of order, or twice).  A set of one dim
 * flattens to that dim's own mesh, which torch does not record as a flattened mesh
 * (_flatten_mapping), so it is not kept; a set of size-1 dims again or out of order is
 * (the merge compares the sets without their size-1 dims, as torch compares layouts). */
static int parse_flatten(const char *s, const shc_mesh *m, shc_plan_opts *o, shc_err *e)
{
    const char *p = s;
    while (*p) {
        int dims[SHC_MAX_LAYOUT_MODES], count = 0;
        for (;;) {
            char *end;
            long d = strtol(p, &end, 10);
            if (end == p || d < INT_MIN || d > INT_MAX)
                return shc_fail(e, SHC_EINVAL, "--flatten '%s': expected mesh dims like 0+1",
                                CLI_ECHO(s));
            if (count == SHC_MAX_LAYOUT_MODES)
                return shc_fail(e, SHC_EINVAL, "--flatten '%s': at most %d dims in a set",
                                CLI_ECHO(s), SHC_MAX_LAYOUT_MODES);
            dims[count++] = (int)d;
            p = end;
            if (*p != '+')
                break;
            p++;
        }
        shc_flat_layout l;
        if (shc_mesh_slice_layout(m->shape, m->ndim, dims, count, &l, e))
            return shc_err_prefix(e, "--flatten '%s'", CLI_ECHO(s));
        unsigned mask = 0;
        for (int i = 0; i < count; i++)
            mask |= 1u << dims[i];
        if (count >= 2) {
            if (o->nflattened == 16)
                return shc_fail(e, SHC_EINVAL, "--flatten '%s': at most 16 sets", CLI_ECHO(s));
            o->flattened[o->nflattened++] = mask;
        }
        if (*p == ',')
            p++;
        else if (*p)
            return shc_fail(e, SHC_EINVAL, "--flatten '%s': unexpected '%c'", CLI_ECHO(s), *p);
    }
    return SHC_OK;
}

/* CLI_GO, or the exit code of --help or a usage error. */
static int parse_args(const char *name, int argc, char **argv, plan_args *a)
{
    memset(a, 0, sizeof *a);
    cli_common_init(&a->c);
    a->dph = -1;
    const cli_option opts[] = {
        CLI_OPT_MESH(&a->c), CLI_OPT_RANKS(&a->c), CLI_OPT_WORLD(&a->c), CLI_OPT_SHAPE(&a->c),
        {.name = "src", .kind = CLI_STR, .meta = "P", .to = &a->src,
         .help = "source placements: 'S(0),R,P(sum),_S(0, 2)' or the trace form 'S(0)[1]S(0)[0]R'"},
        {.name = "dst", .kind = CLI_STR, .meta = "P", .to = &a->dst,
         .help = "destination placements, as --src"},
        {.name = "planner", .kind = CLI_STR, .meta = "NAME", .to = &a->planner,
         .help = "auto, greedy or graph"},
        {.name = "dtype", .kind = CLI_STR, .meta = "T", .to = &a->dtype,
         .help = "element dtype (the cost model's bytes)"},
        {.name = "devices-per-host", .kind = CLI_LL, .meta = "N", .to = &a->dph, .lo = 1,
         .hi = LLONG_MAX, .range = "must be >= 1",
         .help = "the cost model's host size (default 8; torch on CPU uses 1)"},
        {.name = "no-merge", .kind = CLI_FLAG, .to = &a->no_merge,
         .help = "do not merge steps over flattened mesh dims"},
        {.name = "flatten", .kind = CLI_STR, .meta = "0+1[,1+2..]", .to = &a->flatten,
         .help = "mesh-dim sets with an explicitly flattened mesh (torch merges steps over them)"},
        {.name = "strided-literal", .kind = CLI_FLAG, .to = &a->strided_literal,
         .help = "_S is a real strided shard (use_strided_shard_as_shard_order=False)"},
        {.name = "torch-version", .kind = CLI_STR, .meta = "V", .to = &a->tver, .help = TV_HELP},
        CLI_OPT_RANK(&a->c), CLI_OPT_JSON(&a->c), CLI_OPT_END};
    const cli_command cmd = {.name = name, .opts = opts, .synopsis = plan_synopsis};
    int x = cli_parse(&cmd, argc, argv, NULL);
    if (x != CLI_GO)
        return x;
    if (!a->c.shape || !a->src || !a->dst)
        return cli_usage_error(name, "--shape, --src and --dst are required (see --help)");
    if (strcmp(name, "plan") && a->c.world) /* audit plan */
        return cli_usage_error(name, "--world: not used by audit plan (its findings are among "
                               "the mesh's ranks; a rank off the mesh runs nothing)");
    if (strcmp(name, "plan") && a->c.rank >= 0) /* audit plan */
        return cli_usage_error(name, "--rank: not used by audit plan (it audits every rank: "
                               "its findings compare them)");
    if (a->no_merge && !a->flatten)
        return cli_usage_error(name, "--no-merge: not used without --flatten (torch merges "
                               "steps only over an explicitly flattened mesh)");
    return CLI_GO;
}

/* Everything parsed into library types. */
typedef struct plan_req {
    shc_mesh mesh;
    shc_shape shape;
    shc_placements src, dst;
    shc_plan_opts opts;
    int64_t world; /* --world as given (0: not) */
} plan_req;

/* The options only one planner or layout reads, refused where they do not act (issue 25
 * item 4): --devices-per-host prices the graph planner's moves and, in plan's answer, torch's
 * redistribute_cost whichever planner runs (audit plan prints no cost); --dtype also says
 * what gloo refuses or reduces part by part (gloo_dtype.c), so every planner reads it;
 * --strided-literal reads _StridedShard placements. */
static int check_planner_options(const char *name, const plan_args *a, const plan_req *q,
                                 shc_err *e)
{
    bool greedy;
    int rc = shc_plan_uses_greedy(&q->mesh, &q->src, &q->dst, &q->shape, &q->opts, &greedy, e);
    if (rc)
        return rc;
    if (strcmp(name, "plan") && greedy && a->dph > 0)
        return shc_fail(e, SHC_EINVAL, "--devices-per-host: not used by the greedy planner, "
                        "which torch 2.13 picks here (only the graph planner has a cost model)");
    bool strided = false;
    for (int i = 0; i < q->src.n; i++)
        strided |= q->src.p[i].kind == SHC_P_STRIDED || q->dst.p[i].kind == SHC_P_STRIDED;
    if (a->strided_literal && !strided)
        return shc_fail(e, SHC_EINVAL, "--strided-literal: not used without a _StridedShard "
                        "placement in --src or --dst");
    return SHC_OK;
}

static int load_req(const char *name, const plan_args *a, plan_req *q, shc_err *e)
{
    int rc;
    shc_plan_opts_init(&q->opts);
    char why[128]; /* the planner is release-dependent: the release is one rule, every command's */
    if ((rc = tv_resolve(a->tver, NULL, NULL, &q->opts.torch, why, sizeof why, e)))
        return rc; /* its message names --torch-version */
    if ((rc = cli_load_mesh(&a->c, &q->mesh, e)))
        return rc;
    q->world = a->c.world;
    if ((rc = shc_shape_parse(&q->shape, a->c.shape, e)))
        return shc_err_prefix(e, "--shape");
    if ((rc = shc_placements_parse(&q->src, a->src, e)))
        return shc_err_prefix(e, "--src");
    if ((rc = shc_placements_parse(&q->dst, a->dst, e)))
        return shc_err_prefix(e, "--dst");
    /* as from_local (the source DTensor) and redistribute (the target) normalise them */
    if ((rc = shc_placements_normalize(&q->src, q->shape.ndim, e)))
        return shc_err_prefix(e, "--src");
    if ((rc = shc_placements_normalize(&q->dst, q->shape.ndim, e)))
        return shc_err_prefix(e, "--dst");
    if (a->planner && (rc = shc_planner_parse(a->planner, &q->opts.planner, e)))
        return shc_err_prefix(e, "--planner");
    if (a->dtype && (rc = shc_dtype_bytes(a->dtype, &q->opts.dtype_bytes, e)))
        return shc_err_prefix(e, "--dtype");
    q->opts.dtype = a->dtype;
    if (a->flatten && (rc = parse_flatten(a->flatten, &q->mesh, &q->opts, e)))
        return rc;
    if (a->dph > 0)
        q->opts.devices_per_host = a->dph;
    q->opts.merge = !a->no_merge;
    q->opts.strided_literal = a->strided_literal;
    if (a->c.rank >= 0 && (rc = cli_check_rank(&a->c, &q->mesh, a->c.world, e)))
        return rc;
    return check_planner_options(name, a, q, e);
}

static json_t *shape_json(const shc_shape *s)
{
    return shc_json_i64_array(s->d, s->ndim);
}

/* The plan torch cannot run for this rank (a local op fails: shc_plan_exec_check). */
#define EXEC_FINDING "docs/findings/greedy_strided_logical_shape.py"

/* The rank's local tensor after each step it reaches (shc_plan_local_meta), n of them. */
typedef struct local_view {
    shc_local_meta *m;
    int n;
    shc_local_ops *ops; /* the local ops of each step (shc_plan_local_ops), nops of them */
    int nops;
    int raises;         /* the step torch raises at for its reduce op or dtype, or -1 ... */
    shc_err why;        /* ... and torch's error (shc_plan_raising_step_dtype) */
} local_view;

/* The local ops are stated for the releases whose dispatch traces the test command checks
 * them against (the release rows' local_ops_checked, tools/harness/plan_local_check.py):
 * torch 2.13 (test_plan_local.py) and 2.15 (release_check.sh, with its venv; 556 ranks, the
 * same ops although placement_types.py and _functional_collectives.py changed).  2.11, 2.12
 * and 2.14 are not checked: no "ops". */
static bool local_ops_stated(shc_torch_release r)
{
    const shc_torch_release_info *ri = shc_torch_release_get(r);
    return ri && ri->local_ops_checked;
}

static json_t *ops_json(const shc_local_ops *o)
{
    json_t *a = json_array();
    for (int i = 0; i < o->n; i++)
        json_array_append_new(a, json_string(shc_local_op_name(o->op[i])));
    return a;
}

/* Strides as torch's addressing reads them: a dim of size 1 never advances (torch's own
 * is_contiguous skips it) and a tensor with no elements reads none; those strides differ by
 * device (a CPU group's all_to_all fallback returns a chunk view that keeps its parent's,
 * other paths a new dense tensor), so they are null, not a guess (plan_local.c). */
static json_t *local_json(const shc_local_meta *t)
{
    bool empty = false;
    for (int d = 0; d < t->shape.ndim; d++)
        empty |= t->shape.d[d] == 0;
    json_t *st = empty ? json_null() : json_array();
    for (int d = 0; !empty && d < t->shape.ndim; d++)
        json_array_append_new(st, t->shape.d[d] == 1 ? json_null() : json_integer(t->stride[d]));
    return json_pack("{s:o,s:o,s:b}", "shape", shape_json(&t->shape), "stride", st,
                     "contiguous", t->contiguous);
}

/* The double torch returns ("inf" where it returns float("inf")); jansson writes it with 17
 * significant digits, which may be more than Python's repr, but name the same double. */
static json_t *cost_json(double c)
{
    return isinf(c) ? json_string("inf") : json_real(c);
}

static json_t *plan_json(int64_t rank, const int64_t *coord, int nd, const shc_plan *p,
                         const shc_plan_exec_fail *xf, const local_view *lv, double cost)
{
    json_t *steps = json_array();
    for (int i = 0; i < p->nsteps; i++) {
        const shc_plan_step *st = &p->steps[i];
        char a[64], b[64];
        shc_placement_format(&st->src, a, sizeof a);
        shc_placement_format(&st->dst, b, sizeof b);
        int64_t md[SHC_MAX_MESH_DIMS];
        for (int k = 0; k < st->nmesh_dims; k++)
            md[k] = st->mesh_dims[k];
        json_t *o = json_pack("{s:i,s:o,s:s,s:s,s:o,s:s}", "mesh_dim", st->mesh_dim, "mesh_dims",
                              shc_json_i64_array(md, st->nmesh_dims), "src", a, "dst", b,
                              "logical_shape", shape_json(&st->logical_shape), "comm",
                              shc_comm_kind_name(shc_plan_step_label(st)));
        if (shc_plan_step_skipped(st)) /* torch's name for it, but nothing runs */
            json_object_set_new(o, "skipped", json_true());
        if (st->avg_scale)
            json_object_set_new(o, "avg_scale", json_integer(st->avg_scale));
        if (p->used == SHC_PLANNER_GRAPH && st->nmesh_dims == 1) /* merged: no one edge */
            json_object_set_new(o, "cost", json_real(st->cost));
        if (i < lv->n) /* the local tensor after the step: shape, strides, contiguity */
            json_object_set_new(o, "local", local_json(&lv->m[i]));
        if (i < lv->nops) /* the ops torch dispatches for it on a CPU group */
            json_object_set_new(o, "ops", ops_json(&lv->ops[i]));
        json_array_append_new(steps, o);
    }
    json_t *o = json_pack("{s:I,s:o,s:s,s:o,s:i,s:o}", "rank", (json_int_t)rank, "coord",
                          shc_json_i64_array(coord, nd), "planner",
                          p->used == SHC_PLANNER_GRAPH ? "graph" : "greedy", "steps", steps,
                          "ncollectives", p->ncollectives, "trace",
                          p->trace ? json_string(p->trace) : json_null());
    if (o)
        json_object_set_new(o, "redistributeCost", cost_json(cost));
    if (o && lv->raises >= 0)
        json_object_set_new(o, "torchRaises", json_pack("{s:i,s:s}", "step", lv->raises,
                                                        "error", lv->why.msg));
    if (o && xf->step >= 0)
        json_object_set_new(o, "torchCannotExecute",
                            json_pack("{s:i,s:I,s:I,s:s,s:s}", "step", xf->step, "localSize",
                                      (json_int_t)xf->local, "logicalSize",
                                      (json_int_t)xf->logical, "error", xf->msg, "finding",
                                      EXEC_FINDING));
    return o;
}

/* The readable body for one rank (ranks with equal bodies are printed once). */
static char *plan_text(const shc_plan *p, const shc_plan_exec_fail *xf, const local_view *lv,
                       double cost)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f)
        return NULL;
    fprintf(f, "  planner %s%s, %d step%s, %d collective%s\n",
            p->used == SHC_PLANNER_GRAPH ? "graph (min-cost)" : "greedy",
            p->strided_fallback ? " (fallback: _StridedShard not decodable)" : "", p->nsteps,
            p->nsteps == 1 ? "" : "s", p->ncollectives, p->ncollectives == 1 ? "" : "s");
    if (p->nsteps)
        fprintf(f, "  %-4s %-9s %-10s %-10s %-16s %s\n", "step", "mesh_dim", "src", "dst",
                "logical_shape", "comm");
    for (int i = 0; i < p->nsteps; i++) {
        const shc_plan_step *st = &p->steps[i];
        char a[64], b[64], md[32] = "", sh[96];
        shc_placement_format(&st->src, a, sizeof a);
        shc_placement_format(&st->dst, b, sizeof b);
        for (int k = 0; k < st->nmesh_dims; k++)
            snprintf(md + strlen(md), sizeof md - strlen(md), k ? "+%d" : "%d", st->mesh_dims[k]);
        shc_shape_format(&st->logical_shape, sh, sizeof sh);
        fprintf(f, "  %-4d %-9s %-10s %-10s %-16s %s", i, md, a, b, sh,
                shc_comm_kind_name(shc_plan_step_label(st)));
        if (shc_plan_step_skipped(st))
            fputs(" (skipped: 1 device on the mesh dim, no collective runs)", f);
        if (st->avg_scale)
            fprintf(f, " (then / %lld)", (long long)st->avg_scale);
        fputc('\n', f);
    }
    if (p->used == SHC_PLANNER_GRAPH && p->nsteps) {
        fputs("  costs (the min-cost search's, one_step_redistribute_cost, us):", f);
        for (int i = 0; i < p->nsteps; i++)
            if (p->steps[i].nmesh_dims == 1)
                fprintf(f, " %d: %.17g", i, p->steps[i].cost);
            else
                fprintf(f, " %d: (merged)", i);
        fputc('\n', f);
    }
    for (int i = 0; i < lv->n; i++) /* only what leaves the rank a view: the rest are dense */
        if (!lv->m[i].contiguous) {
            char sh[96], sd[96];
            shc_shape_format(&lv->m[i].shape, sh, sizeof sh);
            shc_shape s = {.ndim = lv->m[i].shape.ndim};
            memcpy(s.d, lv->m[i].stride, sizeof s.d);
            shc_shape_format(&s, sd, sizeof sd);
            fprintf(f, "  local tensor after step %d: shape [%s] stride (%s), not contiguous "
                    "(the view torch's unpad narrows out of a padded result)\n", i, sh, sd);
        }
    /* %.17g: the same double as Python's float (its repr may print fewer digits) */
    fprintf(f, "  redistribute_cost (torch's, the strategies' price, us): %.17g\n", cost);
    if (p->trace)
        fprintf(f, "  trace: %s\n", p->trace);
    else
        fprintf(f, "  trace: (torch's stringify raises: %s)\n", p->trace_error);
    if (lv->raises >= 0)
        fprintf(f, "  torch raises at step %d: %s\n", lv->raises, lv->why.msg);
    if (xf->step >= 0)
        fprintf(f, "  torch cannot execute this plan: step %d all-gathers a local size %lld "
                "where its logical shape says %lld; torch raises %s (%s)\n", xf->step,
                (long long)xf->local, (long long)xf->logical, xf->msg, EXEC_FINDING);
    fclose(f);
    return buf;
}

/* Ranks grouped by their plan's text (text output prints each distinct plan once with
 * its ranks): each text is kept once, found through an open-addressed table, and every
 * rank costs one group index, so a mesh of 2^20 ranks groups in linear time. */
typedef struct text_groups {
    char **text;       /* distinct texts, in order of first appearance */
    int64_t n, cap;
    int64_t *slot;     /* table of group index + 1 (0 = empty), size mask + 1 */
    size_t mask;
    int64_t *of;       /* group of each position */
} text_groups;

static uint64_t text_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static int groups_init(text_groups *g, int64_t npos, shc_err *e)
{
    memset(g, 0, sizeof *g);
    size_t size = 16;
    while (size < 2 * (size_t)npos)
        size *= 2;
    g->mask = size - 1;
    g->slot = calloc(size, sizeof *g->slot);
    g->of = malloc((size_t)(npos ? npos : 1) * sizeof *g->of);
    return g->slot && g->of ? SHC_OK : shc_fail(e, SHC_ENOMEM, "out of memory");
}

/* Position pos's text (taken over: freed here when another group holds it already). */
static int groups_add(text_groups *g, int64_t pos, char *text, shc_err *e)
{
    if (!text)
        return shc_fail(e, SHC_ENOMEM, "out of memory");
    size_t i = (size_t)text_hash(text) & g->mask;
    while (g->slot[i] && strcmp(g->text[g->slot[i] - 1], text))
        i = (i + 1) & g->mask;
    if (g->slot[i]) {
        free(text);
        g->of[pos] = g->slot[i] - 1;
        return SHC_OK;
    }
    if (g->n == g->cap) {
        int64_t cap = g->cap ? 2 * g->cap : 16;
        char **t = realloc(g->text, (size_t)cap * sizeof *t);
        if (!t) {
            free(text);
            return shc_fail(e, SHC_ENOMEM, "out of memory");
        }
        g->text = t;
        g->cap = cap;
    }
    g->text[g->n] = text;
    g->slot[i] = ++g->n;
    g->of[pos] = g->n - 1;
    return SHC_OK;
}

static void groups_free(text_groups *g)
{
    for (int64_t i = 0; i < g->n; i++)
        free(g->text[i]);
    free(g->text);
    free(g->slot);
    free(g->of);
}

/* Each distinct plan once: "rank R:" or "ranks R,S,...:" and its text. */
static int print_groups(const text_groups *g, int64_t npos, const int64_t *rank_at, shc_err *e)
{
    int64_t *start = calloc((size_t)g->n + 1, sizeof *start);
    int64_t *order = malloc((size_t)(npos ? npos : 1) * sizeof *order);
    if (!start || !order) {
        free(start);
        free(order);
        return shc_fail(e, SHC_ENOMEM, "out of memory");
    }
    for (int64_t p = 0; p < npos; p++) /* counting sort: positions by group, in order */
        start[g->of[p] + 1]++;
    for (int64_t k = 0; k < g->n; k++)
        start[k + 1] += start[k];
    for (int64_t p = 0; p < npos; p++)
        order[start[g->of[p]]++] = p;
    for (int64_t k = 0, at = 0; k < g->n; k++) {
        int64_t end = start[k];
        printf("rank%s", end - at > 1 ? "s " : " ");
        for (int64_t j = at; j < end; j++)
            printf("%s%lld", j == at ? "" : ",", (long long)rank_at[order[j]]);
        printf(":\n%s", g->text[k]);
        at = end;
    }
    free(start);
    free(order);
    return SHC_OK;
}

static void print_head(const plan_req *q)
{
    char m[64], s[128], sp[256], dp[256];
    shc_mesh_format(&q->mesh, m, sizeof m);
    shc_shape_format(&q->shape, s, sizeof s);
    shc_placements_format_trace(&q->src, sp, sizeof sp);
    shc_placements_format_trace(&q->dst, dp, sizeof dp);
    printf("redistribute plan: mesh %s", m);
    if (q->world)
        printf(" (world %lld)", (long long)q->world);
    printf(", shape [%s], %s -> %s (torch %s)\n", s, sp, dp,
           shc_torch_release_name(shc_torch_norm(q->opts.torch)));
    shc_err why = {0};
    if (shc_redistribute_api_check(&q->src, &q->dst, q->opts.torch, &why))
        printf("DTensor.redistribute raises before planning: %s (the plan below is "
               "redistribute_local_tensor's, which DTensor's ops run)\n", why.msg);
}

/* What each rank's plan goes to: the JSON stream, or the text groups. */
typedef struct plan_sink {
    const plan_args *a;
    const plan_req *q;
    cli_jstream js;
    text_groups tg;
    int64_t pos;
    shc_plan_exec_fail *at; /* every rank's, by mesh position (no --rank): the stall check */
    double cost;            /* torch's redistribute_cost, the same on every rank of the mesh */
    bool have_cost;
} plan_sink;

/* torch's redistribute_cost, asked of the first rank on the mesh: the steps it prices (their
 * placements and mesh dims) do not depend on the rank, only their logical shapes do. */
static int sink_cost(plan_sink *k, int64_t rank, shc_err *e)
{
    if (k->have_cost)
        return SHC_OK;
    k->have_cost = true;
    return shc_plan_redistribute_cost(&k->q->mesh, &k->q->src, &k->q->dst, &k->q->shape,
                                      &k->q->opts, rank, &k->cost, e);
}

static int sink_rank(void *ctx, int64_t rank, const shc_plan *p, shc_err *e)
{
    plan_sink *k = ctx;
    int64_t coord[SHC_MAX_MESH_DIMS];
    shc_mesh_coord(&k->q->mesh, rank, coord, NULL);
    shc_plan_exec_fail xf;
    int rc = shc_plan_exec_check(&k->q->mesh, &k->q->src, &k->q->shape, rank, p, &xf, e);
    if (rc || (rc = sink_cost(k, rank, e)))
        return rc;
    if (k->at)
        k->at[k->q->mesh.pos_of ? k->q->mesh.pos_of[rank] : rank] = xf;
    size_t nst = (size_t)(p->nsteps ? p->nsteps : 1);
    local_view lv = {.m = calloc(nst, sizeof *lv.m), .ops = calloc(nst, sizeof *lv.ops)};
    if (!lv.m || !lv.ops) {
        free(lv.m);
        free(lv.ops);
        return shc_fail(e, SHC_ENOMEM, "out of memory for %d steps", p->nsteps);
    }
    rc = shc_plan_local_meta(&k->q->mesh, &k->q->src, &k->q->shape, rank, p, lv.m, &lv.n, e);
    if (rc == SHC_OK && local_ops_stated(k->q->opts.torch))
        rc = shc_plan_local_ops(&k->q->mesh, &k->q->src, &k->q->shape, rank, p, lv.ops, &lv.nops,
                                e);
    /* no claim past a step torch raises at; a tensor of torch's default dtype unless --dtype */
    lv.raises = shc_plan_raising_step_dtype(p, k->q->opts.dtype ? k->q->opts.dtype : "float32",
                                           &lv.why);
    if (lv.raises >= 0 && lv.n > lv.raises)
        lv.n = lv.raises;
    if (xf.step >= 0 && lv.n > xf.step)
        lv.n = xf.step;
    lv.nops = lv.nops < lv.n ? lv.nops : lv.n;
    if (rc == SHC_OK && k->a->c.json)
        cli_jstream_item(&k->js, plan_json(rank, coord, k->q->mesh.ndim, p, &xf, &lv, k->cost));
    else if (rc == SHC_OK)
        rc = groups_add(&k->tg, k->pos++, plan_text(p, &xf, &lv, k->cost), e);
    free(lv.m);
    free(lv.ops);
    return rc;
}

/* torch refuses to execute the plan (a shard-like source to a Partial target it cannot
 * reach, or one Partial to another: shc_plan_step_refused): its exception, exit 2, nothing
 * printed.  The steps' kinds do
 * not depend on the rank (only their logical shapes and merges do), so one rank's plan asks. */
static int check_refused(const plan_req *q, int64_t rank, shc_err *e)
{
    shc_plan p;
    int rc = shc_plan_compute(&q->mesh, &q->src, &q->dst, &q->shape, &q->opts, rank, &p, e);
    for (int i = 0; rc == SHC_OK && i < p.nsteps; i++)
        if ((rc = shc_plan_step_refused(&p.steps[i], q->opts.torch, e)))
            shc_err_prefix(e, "step %d (mesh dim %d)", i, p.steps[i].mesh_dim);
    shc_plan_free(&p);
    shc_err api = {0}; /* the public API refuses it sooner, where it does: say so too */
    if (rc && shc_redistribute_api_check(&q->src, &q->dst, q->opts.torch, &api)) {
        size_t n = strlen(e->msg);
        int room = (int)(sizeof e->msg - n); /* both messages are torch's: well under it */
        snprintf(e->msg + n, (size_t)room, "; DTensor.redistribute raises before planning: %.*s",
                 room > 48 ? room - 48 : 0, api.msg);
    }
    return rc;
}

/* The world's ranks off the mesh (only with --world): no step, no collective. */
#define OFF_MESH_TEXT "  not in the mesh: no step, no collective (torch 2.13 " \
    "redistribute_local_tensor returns the rank's empty local tensor)\n" \
    "  redistribute_cost (torch's, the strategies' price, us): 0 (a rank off the mesh)\n"

/* The JSON answer's head: the release and, with --world, the world. */
static json_t *json_head(const plan_req *q)
{
    json_t *h = json_pack("{s:s}", "torch", shc_torch_release_name(shc_torch_norm(q->opts.torch)));
    if (h && q->world)
        json_object_set_new(h, "world", json_integer(q->world));
    shc_err why = {0}; /* the public API's refusal; the plan is the internal function's */
    if (h && shc_redistribute_api_check(&q->src, &q->dst, q->opts.torch, &why))
        json_object_set_new(h, "apiRaises", json_string(why.msg));
    return h;
}

static json_t *off_mesh_json(int64_t rank)
{
    /* redistribute_cost: 0 on a rank off the mesh (_is_current_rank_part_of_mesh) */
    return json_pack("{s:I,s:n,s:[],s:i,s:b,s:f}", "rank", (json_int_t)rank, "coord", "steps",
                     "ncollectives", 0, "inMesh", 0, "redistributeCost", 0.0);
}

/* The off-mesh ranks --rank selects (all of them without it), after the mesh's own. */
static void print_off_mesh(const plan_args *a, const plan_req *q, cli_jstream *js)
{
    int64_t lo = a->c.rank >= 0 ? a->c.rank : 0;
    int64_t hi = a->c.rank >= 0 ? a->c.rank : q->mesh.max_rank;
    /* how many ranks are printed: the one asked for, or every rank of the world off the mesh */
    int64_t off = a->c.rank >= 0 ? 1 : q->mesh.max_rank + 1 - q->mesh.size, n = 0;
    for (int64_t r = lo; r <= hi; r++) {
        if (shc_mesh_has_rank(&q->mesh, r))
            continue;
        if (a->c.json)
            cli_jstream_item(js, off_mesh_json(r));
        else if (n)
            printf(",%lld", (long long)r);
        else /* "rank 2:" or "ranks 0,2:" */
            printf("rank%s%lld", off > 1 ? "s " : " ", (long long)r);
        n++;
    }
    if (n && !a->c.json)
        printf(":\n" OFF_MESH_TEXT);
}

static int print_plans(const plan_args *a, plan_req *q, shc_err *e)
{
    if (a->c.rank >= 0 && !shc_mesh_has_rank(&q->mesh, a->c.rank)) { /* --world: off the mesh */
        cli_jstream js;
        if (a->c.json)
            cli_jstream_open(&js, json_head(q), "ranks");
        else
            print_head(q);
        print_off_mesh(a, q, &js);
        if (a->c.json && cli_jstream_close(&js))
            return shc_fail(e, SHC_EIO, "the JSON output is incomplete");
        return SHC_OK;
    }
    if (a->c.rank < 0 && cli_printed_ranks_e(q->mesh.size, e))
        return SHC_EINVAL;
    int64_t one = a->c.rank, npos = a->c.rank >= 0 ? 1 : q->mesh.size;
    const int64_t *rank_at = a->c.rank >= 0 ? &one : q->mesh.ranks;
    int rc0 = check_refused(q, rank_at[0], e);
    if (rc0)
        return rc0;
    plan_sink k = {.a = a, .q = q};
    int rc = SHC_OK;
    shc_plan_stall st = {.step = -1};
    if (a->c.rank < 0 && !(k.at = calloc((size_t)npos, sizeof *k.at)))
        return shc_fail(e, SHC_ENOMEM, "out of memory for %lld ranks", (long long)npos);
    /* text groups ranks with equal plans, so it holds each distinct text; JSON streams */
    if (a->c.json)
        cli_jstream_open(&k.js, json_head(q), "ranks");
    else
        rc = groups_init(&k.tg, npos, e);
    /* the graph planner searches once for all ranks (issue 27 N11) */
    if (rc == SHC_OK)
        rc = shc_plan_each_rank(&q->mesh, &q->src, &q->dst, &q->shape, &q->opts, rank_at, npos,
                                sink_rank, &k, e);
    if (rc == SHC_OK && k.at) /* ranks that raise at different steps leave others waiting */
        rc = shc_plan_exec_stall(&q->mesh, &q->src, &q->dst, &q->shape, &q->opts, k.at, &st, e);
    free(k.at);
    char why[400];
    if (st.step >= 0)
        shc_plan_stall_describe(&st, why, sizeof why);
    if (rc == SHC_OK && a->c.world && a->c.rank < 0 && a->c.json)
        print_off_mesh(a, q, &k.js);
    if (a->c.json) {
        if (rc == SHC_OK && cli_jstream_close_tail(&k.js, st.step < 0 ? NULL :
                                                   json_pack("{s:s}", "torchStalls", why)))
            rc = shc_fail(e, SHC_EIO, "the JSON output is incomplete");
        return rc;
    }
    if (rc == SHC_OK) {
        print_head(q);
        rc = print_groups(&k.tg, npos, rank_at, e);
    }
    if (rc == SHC_OK && a->c.world && a->c.rank < 0)
        print_off_mesh(a, q, NULL);
    if (rc == SHC_OK && st.step >= 0)
        printf("torch's ranks stop agreeing: %s\n", why);
    groups_free(&k.tg);
    return rc;
}

/* Both commands begin alike: their options parsed (anything but CLI_GO is the exit code of
 * --help or a usage error) and loaded into q, *rc saying whether that worked; q's mesh is
 * then the caller's to free. */
static int begin(const char *name, int argc, char **argv, plan_args *a, plan_req *q,
                 shc_err *e, int *rc)
{
    int x = parse_args(name, argc, argv, a);
    if (x != CLI_GO)
        return x;
    memset(q, 0, sizeof *q);
    shc_err_clear(e);
    *rc = load_req(name, a, q, e);
    return CLI_GO;
}

int cmd_plan(int argc, char **argv)
{
    plan_args a;
    plan_req q;
    shc_err e;
    int rc, x = begin("plan", argc, argv, &a, &q, &e, &rc);
    if (x != CLI_GO)
        return x;
    if (rc == SHC_OK)
        rc = print_plans(&a, &q, &e);
    shc_mesh_free(&q.mesh);
    return cli_report("plan", rc, &e);
}

/* audit plan's answer: the findings as JSON or one line each; EXIT_FAIL when there are any. */
static int print_findings(const plan_args *a, const plan_req *q, const shc_plan_finding *f,
                          int nf)
{
    const char *tv = shc_torch_release_name(shc_torch_norm(q->opts.torch));
    if (a->c.json) {
        json_t *arr = json_array();
        for (int i = 0; i < nf; i++)
            json_array_append_new(arr, json_pack("{s:s,s:s}", "code", f[i].code, "message",
                                                 f[i].msg));
        json_t *doc = json_pack("{s:s,s:o}", "torch", tv, "findings", arr);
        int wrc = cli_print_json(doc);
        json_decref(doc);
        if (wrc)
            return wrc;
    } else {
        for (int i = 0; i < nf; i++)
            printf("finding %s: %s\n", f[i].code, f[i].msg);
        printf("%d finding%s (torch %s)\n", nf, nf == 1 ? "" : "s", tv);
    }
    return nf ? EXIT_FAIL : EXIT_OK;
}

int cmd_audit_plan(int argc, char **argv)
{
    plan_args a;
    plan_req q;
    shc_err e;
    int rc, x = begin("audit plan", argc, argv, &a, &q, &e, &rc);
    if (x != CLI_GO)
        return x;
    shc_plan_finding *f = NULL;
    int nf = 0;
    if (rc == SHC_OK)
        rc = cli_whole_mesh_e("audit plan audits every rank", q.mesh.size, &e);
    if (rc == SHC_OK)
        rc = shc_plan_audit(&q.mesh, &q.src, &q.dst, &q.shape, &q.opts, &f, &nf, &e);
    shc_mesh_free(&q.mesh);
    if (rc)
        return cli_report("audit plan", rc, &e);
    x = print_findings(&a, &q, f, nf);
    free(f);
    return x;
}
