/*
 * cmd_offsets.c — `shardcheck offsets`, `shardcheck audit rng` and `shardcheck policies`:
 * per-rank RNG offsets of torch's OffsetBasedRNGTracker (or another policy, or a registered
 * tracker's), their SPMD findings and the policy x property table, for an op of a dtype
 * (--dtype).  The random-op and tracker tables are cmd_rng_tables.c.  The arithmetic is lib/offsets/rng_offsets.c,
 * lib/offsets/rng_audit.c and lib/offsets/rng_policy.c; this file only parses and prints.
 * Tested by conformance/tests/cli_offsets.sh (outputs and every bad input).
 *
 * Exit codes: offsets and policies 0; audit rng 0 whether or not it finds
 * something (a finding describes the layout, it is not a failure of
 * shardcheck; scripts read "findings": N or the summary line), 2 for bad
 * input, as every command.
 */
#include "config.h"
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "torch_version.h"
#include "golden.h"
#include "families.h"

typedef struct offsets_args {
    cli_common c;
    const char *policy, *gpu, *op, *tracker_name;
    const shc_rng_tracker *tracker; /* --tracker's row: its policy and device profile */
    uint64_t seed;
    long long offset;
    unsigned long long given;
    const shc_rng_op *rop; /* --op's row, as release rel has it */
    const char *tver;      /* --torch-version as given (NULL: not) */
    shc_torch_release rel; /* whose DTensor dispatch of --op decides */
    bool policy_given;
    const char *dtype;     /* --dtype as given (NULL: not) */
    shc_dtype dt;          /* the op's dtype (float32 unless --dtype) */
} offsets_args;

/* A parsed layout (mesh, placements, shape). */
typedef struct layout_in {
    shc_mesh m;
    shc_placements pl;
    shc_shape shape;
    char shown[512]; /* the placements as torch shows them once the DTensor exists */
} layout_in;

/* Decimal-string JSON value of an unsigned 64-bit seed. */
static json_t *json_u64s(uint64_t v)
{
    char b[24];
    snprintf(b, sizeof b, "%llu", (unsigned long long)v);
    return json_string(b);
}

enum { CMD_OFFSETS, CMD_AUDIT, CMD_POLICIES };

/* Which mesh dim is which parallelism for the megatron-* policies (lib/offsets/rng_policy.c):
 * Megatron-core's RankGenerator order, fastest-varying first, is tp-cp-ep-dp-pp. */
#define MEGATRON_DIMS                                                                          \
    "Megatron mesh dims (Megatron-core RankGenerator, order tp-cp-ep-dp-pp, tp fastest):\n"  \
    "megatron-tp: tp = the last mesh dim; megatron-ep: etp = the last mesh dim, ep = the\n"  \
    "dim before it (a 1-d mesh is ep, etp 1); megatron-dp: the same seed on every rank.\n" \
    "megatron-train-*: Megatron-LM training (seed + 100 * pp rank): mesh dim 0 is pp (a\n"  \
    "1-d mesh is all pp), the rest as above; -dp-random (+ 10 * dp rank): the rest is dp.\n" \
    "They refuse seed 0 (Megatron-LM's seed > 0 check): give --seed.\n"                     \
    "megatron-gtp (gtp_remat after tp): tp = the last mesh dim, gtp = the dim before it (a\n" \
    "1-d mesh is gtp); megatron-egtp (after ep): etp, ep, egtp from the last dim back (1-d:\n" \
    "egtp; 2-d: egtp, ep).  A GTP dim of size 1 adds no GTP state: refused."

/* The policy torch follows for an op DTensor accepts (shc_rng_op_policy says where
 * a layout makes torch refuse it). */
static const char *op_policy_name(const shc_rng_op *op)
{
    return op->dispatch == SHC_RNGD_UNTRACKED ? "torch-untracked" : "torch-offset";
}

/* The release --op's dispatch is read in, as torch prints it ("2.13"). */
static const char *rel_name(const offsets_args *a)
{
    return shc_torch_release_name(shc_torch_norm(a->rel));
}

/* Why a policy's verdicts are the same on every GPU (shc_rng_policy_verdict_uses_gpu says
 * which), for the refusal of --gpu. */
static const char *gpu_free_reason(const shc_rng_policy *p)
{
    if (!strcmp(shc_rng_policy_name(p), "jax-partitionable"))
        return "its bits come from the global element index, with no launch";
    if (!strcmp(shc_rng_policy_name(p), "torch-func-random"))
        return "its Philox word is the key offset plus the global index, on any launch";
    return "its windows are spaced by element counts, more than any launch's threads take";
}

/* --tracker NAME: the tracker's policy on its device's profile (lib/offsets/rng_tracker.c).
 * It names the policy, so --policy and --op are refused with it; --gpu may name another
 * profile of the same offset semantics (another NPU's geometry), never the other one. */
static int use_tracker(const cli_command *cmd, offsets_args *a)
{
    shc_err e = {0};
    if (!a->tracker_name)
        return CLI_GO;
    if (shc_rng_tracker_lookup(a->tracker_name, &a->tracker, &e))
        return cli_usage_error(cmd->name, "--tracker: %s", e.msg);
    if (cli_given(cmd, "policy") || a->op)
        return cli_usage_error(cmd->name, "--tracker: and --%s exclude each other (the tracker "
                               "keeps the %s policy)", a->op ? "op" : "policy",
                               a->tracker->policy);
    a->policy = a->tracker->policy;
    shc_gpu_profile mine, given;
    int rc = shc_gpu_profile_parse(a->tracker->gpu, &mine, &e);
    assert(rc == SHC_OK); /* check_offsets: every row's profile parses */
    (void)rc;
    if (!a->gpu) {
        a->gpu = a->tracker->gpu;
        return CLI_GO;
    }
    if (shc_gpu_profile_parse(a->gpu, &given, &e))
        return cli_usage_error(cmd->name, "--gpu: %s", e.msg);
    if (given.offset_semantics != mine.offset_semantics)
        return cli_usage_error(cmd->name, "--gpu %s: its offsets are %s, but %s's device "
                               "draws %s (profile %s)", CLI_ECHO(a->gpu),
                               shc_offset_semantics_name(given.offset_semantics),
                               a->tracker->name, shc_offset_semantics_name(mine.offset_semantics),
                               a->tracker->gpu);
    return CLI_GO;
}

/* What each command does with the shared options, beyond cli_parse: --op parsed (an unknown
 * op is exit 2 naming the known ones), and every option its mode does not use refused by name
 * (issue 27 N5: offsets and policies took --op and ignored it).  CLI_GO or the exit code. */
static int check_modes(int kind, const cli_command *cmd, offsets_args *a)
{
    shc_err e = {0};
    if (a->op && shc_rng_op_parse(a->op, &a->rop, &e))
        return cli_usage_error(cmd->name, "--op: %s", e.msg);
    a->dt = SHC_DT_FLOAT32;
    if (a->dtype && shc_dtype_parse(a->dtype, &a->dt, &e))
        return cli_usage_error(cmd->name, "--dtype: %s", e.msg);
    if (!shc_rng_dtype_unroll(a->dt))
        return cli_usage_error(cmd->name, "--dtype %s: the policies model torch's floating "
                               "uniform_/normal_ (float32, float64, float16, bfloat16)",
                               shc_dtype_name(a->dt));
    if (a->dtype && a->op)
        return cli_usage_error(cmd->name, "--dtype: not with --op (torch's dispatch of an op "
                               "is modelled for float32; give --policy for another dtype)");
    int x = kind == CMD_AUDIT ? CLI_GO : use_tracker(cmd, a);
    if (x != CLI_GO)
        return x;
    /* the release decides only the random op's dispatch (docs/torch-releases.md): the
     * tracker's offsets are the same in 2.11-2.15, so without --op the option is refused */
    if (a->tver && !a->rop)
        return cli_usage_error(cmd->name, "--torch-version: not used without --op (the "
                               "tracker's offsets are the same in every release)");
    char why[128];
    if (a->rop && tv_resolve(a->tver, NULL, NULL, &a->rel, why, sizeof why, &e))
        return cli_report(cmd->name, SHC_EINVAL, &e);
    if (a->rop)
        a->rop = shc_rng_op_in(a->rop, a->rel);
    const char *tn = shc_torch_release_name(shc_torch_norm(a->rel));
    if (a->rop && cli_given(cmd, "policy"))
        return cli_usage_error(cmd->name, "--op: and --policy exclude each other (--op follows "
                               "torch %s's dispatch: a tracked op the torch-offset policy, an "
                               "untracked one torch-untracked)", tn);
    if (kind == CMD_AUDIT)
        return cli_used(cmd, "mesh ranks placements shape json op policy torch-version",
                        "by audit rng (it audits every rank's window increments, whatever the "
                        "seed, offset and GPU)");
    if (kind == CMD_POLICIES &&
        (x = cli_used(cmd, "json policy tracker seed gpu op offset torch-version dtype", "by "
                                              "policies: it takes no layout options (verdicts "
                                              "cover its own layout table)")) != CLI_GO)
        return x;
    /* torch rejects it on every layout, or it takes no DTensor: no policy to follow */
    if (a->rop && a->rop->dispatch == SHC_RNGD_REJECTED && shc_rng_op_check(a->rop, NULL, &e))
        return cli_usage_error(cmd->name, "--op %s: torch %s rejects it on a DTensor: %s",
                               a->rop->name, tn, e.msg);
    if (a->rop && a->rop->dispatch == SHC_RNGD_LOCAL)
        return cli_usage_error(cmd->name, "--op %s: takes no DTensor (%s), so no policy of "
                               "DTensor's applies", a->rop->name, a->rop->api);
    const shc_rng_policy *pol = NULL;
    const char *name = a->rop ? op_policy_name(a->rop) : a->policy;
    a->policy_given = cli_given(cmd, "policy") || a->tracker;
    if (shc_rng_policy_lookup(name, &pol, &e))
        return cli_usage_error(cmd->name, "--policy: %s", e.msg);
    bool gpu = shc_rng_policy_uses_gpu(pol);
    /* a profile that is not CUDA's window at alignment 4 changes every policy's draws (an
     * NPU's streams) and the tracker's offsets (an alignment): taken whatever the policy */
    shc_gpu_profile prof;
    bool other = a->gpu && !shc_gpu_profile_parse(a->gpu, &prof, &e) &&
                 !shc_gpu_profile_is_cuda_window(&prof);
    char mode[320];
    if (kind == CMD_POLICIES) { /* without --policy or --op, every row: some use the GPU */
        gpu = shc_rng_policy_verdict_uses_gpu(pol) || other ||
              (!a->rop && !a->policy_given);
        if (cli_given(cmd, "offset"))
            snprintf(mode, sizeof mode, "by policies (each verdict starts at offset 0)");
        else
            snprintf(mode, sizeof mode, "by policies %s %s (its verdicts do not depend on the "
                     "GPU: %s)", a->rop ? "--op" : "--policy", a->rop ? a->rop->name : name,
                     gpu_free_reason(pol));
        return cli_used(cmd, gpu ? "json policy tracker seed gpu op torch-version dtype"
                              : "json policy tracker seed op torch-version dtype", mode);
    }
    gpu |= other && shc_gpu_profile_align(&prof) != 4; /* streams do not move offsets */
    /* the dtype moves a kernel's own increment and torch.func._random's words per element;
     * the trackers' offsets are element counts */
    bool dt = shc_rng_policy_uses_gpu(pol) || !strcmp(name, "torch-func-random");
    snprintf(mode, sizeof mode, "with %s %s (its offsets do not depend on the %s)",
             a->rop ? "--op" : "--policy", a->rop ? a->rop->name : name,
             !gpu && !dt ? "GPU or the dtype" : !gpu ? "GPU" : "dtype");
    /* --world: torch's dispatcher runs no op on a rank off the mesh (_dispatch.py, torch 2.13:
     * a non-participating rank gets empty local results, before any RNG); the policies that
     * are torch's own dispatch take it, the others have no ranks off their mesh */
    bool world = !strcmp(name, "torch-offset") || !strcmp(name, "torch-untracked");
    if (!world && a->c.world)
        return cli_usage_error(cmd->name, "--world: not used with %s %s (only torch's DTensor "
                               "dispatch, torch-offset and torch-untracked, has ranks off the "
                               "mesh: they run no op)", a->rop ? "--op" : "--policy",
                               a->rop ? a->rop->name : name);
    char used[160];
    snprintf(used, sizeof used, "mesh ranks placements shape rank json policy tracker seed "
             "offset op torch-version%s%s%s", gpu ? " gpu" : "", dt ? " dtype" : "",
             world ? " world" : "");
    return cli_used(cmd, used, mode);
}

/* The three commands share one table: CLI_GO, or the exit code of --help or a usage error. */
static int parse_args(int kind, const char *name, const char *synopsis, const char *about,
                      int argc, char **argv, offsets_args *a)
{
    memset(a, 0, sizeof *a);
    cli_common_init(&a->c);
    a->policy = "torch-offset";
    const cli_option opts[] = {
        CLI_OPTS_LAYOUT(&a->c),
        CLI_OPT_WORLD(&a->c),
        {.name = "policy", .kind = CLI_STR, .meta = "NAME", .to = &a->policy,
         .help = "RNG policy (default torch-offset)"},
        {.name = "seed", .kind = CLI_SEED, .meta = "N", .to = &a->seed,
         .help = "the seed, decimal 0..2^64-1"},
        {.name = "offset", .kind = CLI_LL, .meta = "N", .to = &a->offset, .lo = 0,
         .hi = LLONG_MAX, .range = "is negative", .help = "the Philox offset before the op"},
        {.name = "gpu", .kind = CLI_STR, .meta = "PROFILE", .to = &a->gpu,
         .help = "device profile NAME (a100, ascend-910b, ...) or SMSxTHREADS[@sm_XY], either "
                 "with :window or :stream and /ALIGN (default a100)"},
        {.name = "op", .kind = CLI_STR, .meta = "OP",
         .to = &a->op, .help = "a random op of `shardcheck ops`: torch's dispatch of it"},
        {.name = "tracker", .kind = CLI_STR, .meta = "NAME", .to = &a->tracker_name,
         .help = "a registered RNG tracker of `shardcheck trackers`: its policy on its "
                 "device's profile"},
        {.name = "torch-version", .kind = CLI_STR, .meta = "V", .to = &a->tver,
         .help = "with --op: the release whose DTensor dispatch decides (default "
                 "$SHARDCHECK_TORCH_VERSION, else the pinned 2.13)"},
        {.name = "dtype", .kind = CLI_STR, .meta = "T", .to = &a->dtype,
         .help = "the random op's dtype: float32 (default), float64, float16 or bfloat16 "
                 "(float64's kernel takes two Philox words per element)"},
        CLI_OPT_END};
    const cli_command cmd = {.name = name, .opts = opts, .synopsis = synopsis, .about = about,
                             .given = &a->given};
    int x = cli_parse(&cmd, argc, argv, NULL);
    return x != CLI_GO ? x : check_modes(kind, &cmd, a);
}

static int load_layout(const cli_common *c, layout_in *L, shc_err *e)
{
    memset(L, 0, sizeof *L);
    int rc = cli_load_mesh(c, &L->m, e);
    if (rc)
        return rc;
    if (!c->placements)
        return shc_fail(e, SHC_EINVAL, "--placements is required (e.g. --placements 'S(0),R')");
    if (!c->shape)
        return shc_fail(e, SHC_EINVAL, "--shape is required (e.g. --shape 8,16)");
    if ((rc = shc_placements_parse(&L->pl, c->placements, e)))
        return shc_err_prefix(e, "--placements '%s'", CLI_ECHO(c->placements));
    if ((rc = shc_shape_parse(&L->shape, c->shape, e)))
        return shc_err_prefix(e, "--shape '%s'", CLI_ECHO(c->shape));
    if ((rc = shc_placements_normalize(&L->pl, L->shape.ndim, e)) ||
        (rc = shc_placements_check(&L->pl, &L->m, L->shape.ndim, e)))
        return shc_err_prefix(e, "--placements '%s' on --mesh %s --shape %s", c->placements,
                              c->mesh, c->shape); /* each parsed, so short */
    /* S(-1) is S(1) on a 2-d DTensor (distribute_tensor, _api.py:971-990), as torch prints it */
    if (L->pl.has_order)
        shc_placements_format_trace(&L->pl, L->shown, sizeof L->shown);
    else
        shc_placements_format(&L->pl, L->shown, sizeof L->shown);
    if (c->rank >= 0)
        return cli_check_rank(c, &L->m, c->world, e);
    return SHC_OK;
}

/* Ranks to print: all ranks of the mesh (of the world with --world) in ascending order, or
 * --rank. */
static bool wanted(const layout_in *L, const cli_common *c, int64_t r)
{
    if (!c->world && L->m.pos_of[r] < 0)
        return false;
    return c->rank < 0 || c->rank == r;
}

/* A rank of the world off the mesh (--world): torch runs no op there, so it draws nothing and
 * its generator stays where it was. */
static void print_off_mesh(const offsets_args *a, int64_t r, cli_jstream *js)
{
    if (a->c.json)
        cli_jstream_item(js, json_pack("{s:I,s:n,s:b,s:o,s:o,s:o}", "rank", (json_int_t)r,
                                       "coord", "draws", 0, "seed", json_u64s(a->seed),
                                       "start_offset", shc_json_i64s(a->offset), "post_offset",
                                       shc_json_i64s(a->offset)));
    else
        printf("%6lld %-14s off the mesh: no op, no draw; the offset stays %lld\n",
               (long long)r, "-", a->offset);
}

static int print_streams(const offsets_args *a, layout_in *L, const shc_rng_policy *pol,
                         const shc_gpu_profile *gpu, shc_err *e)
{
    int64_t nranks = a->c.world ? a->c.world : L->m.max_rank + 1;
    int rc = a->c.rank < 0 ? cli_printed_ranks_e(a->c.world ? a->c.world : L->m.size, e) : SHC_OK;
    if (rc)
        return rc;
    cli_jstream js;
    if (a->c.json) {
        json_t *head = json_pack("{s:s,s:s,s:s,s:s,s:o,s:o,s:s}", "policy",
                                 shc_rng_policy_name(pol), "mesh", a->c.mesh, "placements",
                                 L->shown, "shape", a->c.shape, "seed",
                                 json_u64s(a->seed), "offset", shc_json_i64s(a->offset),
                                 "dtype", shc_dtype_name(a->dt));
        if (a->rop)
            json_object_set_new(head, "op", json_pack("{s:s,s:s,s:s}", "name", a->rop->name,
                                "dispatch", shc_rng_dispatch_name(a->rop->dispatch),
                                "torch", rel_name(a)));
        if (a->tracker)
            json_object_set_new(head, "tracker", cli_tracker_json(a->tracker));
        if (a->c.world)
            json_object_set_new(head, "world", json_integer(a->c.world));
        cli_jstream_open(&js, head, "ranks");
    } else {
        if (a->tracker)
            printf("tracker %s (%s): policy %s on %s\n", a->tracker->name,
                   a->tracker->framework, a->tracker->policy, a->gpu);
        if (a->rop)
            printf("op %s: %s in torch %s, so %s\n", a->rop->name,
                   shc_rng_dispatch_name(a->rop->dispatch), rel_name(a),
                   a->rop->dispatch == SHC_RNGD_TRACKED
                       ? "OffsetBasedRNGTracker's windows"
                       : "each rank's own generator: every shard starts at the same offset");
        char w[40] = "";
        if (a->c.world)
            snprintf(w, sizeof w, "  world %lld", a->c.world);
        printf("policy %s  mesh %s  placements %s  shape %s  seed %llu  offset %lld%s%s%s\n"
               "%6s %-14s %11s %12s %12s %12s %12s %12s\n",
               shc_rng_policy_name(pol), a->c.mesh, L->shown, a->c.shape,
               (unsigned long long)a->seed, a->offset, w, a->dtype ? "  dtype " : "",
               a->dtype ? shc_dtype_name(a->dt) : "", "rank", "coord", "shard_index",
               "start_incr", "end_incr", "local_numel", "start", "post");
    }
    for (int64_t r = 0; r < nranks && rc == SHC_OK; r++) {
        if (!wanted(L, &a->c, r))
            continue;
        if (!shc_mesh_has_rank(&L->m, r)) {
            print_off_mesh(a, r, &js);
            continue;
        }
        shc_rng_stream s;
        if ((rc = shc_rng_policy_stream_dtype(pol, gpu, a->dt, &L->m, &L->pl, &L->shape,
                                              (uint64_t)a->seed, a->offset, r, &s, e)))
            break;
        int64_t coord[SHC_MAX_MESH_DIMS];
        shc_mesh_coord(&L->m, r, coord, e);
        if (a->c.json) {
            json_t *it = json_pack("{s:I,s:o,s:I,s:o,s:o,s:o,s:o,s:o,s:o}", "rank",
                              (json_int_t)r, "coord", shc_json_i64_array(coord, L->m.ndim),
                              "shard_linear_index", (json_int_t)s.shard_linear_index,
                              "start_incr", shc_json_i64s(s.start_incr),
                              "end_incr", shc_json_i64s(s.end_incr),
                              "local_numel", shc_json_i64s(s.local_numel),
                              "seed", json_u64s(s.seed),
                              "start_offset", shc_json_i64s(s.start),
                              "post_offset", shc_json_i64s(s.post));
            if (a->c.world) /* beside the ranks off the mesh, which do not */
                json_object_set_new(it, "draws", json_true());
            cli_jstream_item(&js, it);
        } else {
            char cs[64] = "", *p = cs;
            for (int i = 0; i < L->m.ndim; i++)
                p += snprintf(p, sizeof cs - (size_t)(p - cs), i ? ",%lld" : "(%lld",
                              (long long)coord[i]);
            snprintf(p, sizeof cs - (size_t)(p - cs), ")");
            printf("%6lld %-14s %11lld %12lld %12lld %12lld %12lld %12lld", (long long)r, cs,
                   (long long)s.shard_linear_index, (long long)s.start_incr,
                   (long long)s.end_incr, (long long)s.local_numel, (long long)s.start,
                   (long long)s.post);
            if (s.seed != (uint64_t)a->seed)
                printf("  seed %llu", (unsigned long long)s.seed);
            printf("\n");
        }
    }
    if (rc == SHC_OK && a->c.json && cli_jstream_close(&js))
        rc = shc_fail(e, SHC_EIO, "the JSON output is incomplete");
    return rc;
}

/* The policy: --op's (the op table's decision on this layout, as audit rng makes it) or
 * --policy's; and the GPU profile. */
static int resolve_policy(const offsets_args *a, const layout_in *L, const shc_rng_policy **pol,
                          shc_gpu_profile *gpu, shc_err *e)
{
    int rc = a->rop ? shc_rng_op_policy(a->rop, &L->m, &L->pl, &L->shape, pol, e)
                    : shc_rng_policy_lookup(a->policy, pol, e);
    if (rc)
        return shc_err_prefix(e, a->rop ? "--op %s" : "--policy", a->rop ? a->rop->name : "");
    if ((rc = shc_gpu_profile_parse(a->gpu ? a->gpu : "a100", gpu, e)))
        return shc_err_prefix(e, "--gpu");
    return SHC_OK;
}

int cmd_offsets(int argc, char **argv)
{
    const char *cmd = "offsets";
    offsets_args a;
    char about[2048];
    snprintf(about, sizeof about, "policies: %s\n--op OP: the policy torch V follows for OP "
             "on this layout, as audit rng decides it\n(tracked: torch-offset; untracked: "
             "torch-untracked; rejected or local: exit 2 with torch's message).\n--gpu is "
             "refused for a policy whose offsets do not depend on the GPU, --dtype for one\n"
             "whose offsets do not depend on the dtype.\n--world W: ranks of the world off the "
             "mesh run no op under torch's dispatch (torch-offset,\ntorch-untracked): no draw, "
             "the offset unchanged (their tracker's set-up: shardcheck lifecycle).\n"
             MEGATRON_DIMS,
             shc_rng_policy_names());
    int rc = parse_args(CMD_OFFSETS, cmd, "--mesh M [--ranks L] [--world W] --placements P "
                        "--shape S\n"
                        "       [--policy NAME | --op OP | --tracker NAME] [--gpu PROFILE] "
                        "[--seed N] [--offset N] [--dtype T] [--rank R] [--json]\n"
                        "       [--torch-version V]", about,
                        argc, argv, &a);
    if (rc != CLI_GO)
        return rc;
    shc_err e;
    shc_err_clear(&e);
    layout_in L;
    memset(&L, 0, sizeof L);
    const shc_rng_policy *pol;
    shc_gpu_profile gpu;
    if ((rc = load_layout(&a.c, &L, &e)) == SHC_OK &&
        (rc = resolve_policy(&a, &L, &pol, &gpu, &e)) == SHC_OK)
        rc = print_streams(&a, &L, pol, &gpu, &e);
    shc_mesh_free(&L.m);
    return cli_report(cmd, rc, &e);
}

static void print_audit_text(const offsets_args *a, const layout_in *L, const shc_rng_op *op,
                             const shc_rng_audit *au)
{
    printf("audit rng  mesh %s  placements %s  shape %s  op %s  (torch %s %s)\n",
           a->c.mesh, L->shown, a->c.shape, op ? op->name : "(any tracked op)", rel_name(a),
           op && op->dispatch == SHC_RNGD_UNTRACKED ? "untracked: each rank's own generator"
                                                    : "OffsetBasedRNGTracker");
    if (op && op->dispatch == SHC_RNGD_UNTRACKED)
        printf("%lld distinct shards, each rank's offset advances by its own kernel's "
               "increment\n", (long long)au->nshards);
    else
        printf("%lld distinct shards, end_incr %lld\n", (long long)au->nshards,
               (long long)au->end_incr);
    for (int64_t i = 0; i < au->nlisted; i++) {
        const shc_rng_finding *f = &au->listed[i];
        if (f->rank_b < 0)
            printf("  %-16s rank %lld window [%lld, %lld) runs past end_incr %lld: [%lld, %lld) "
                   "belongs to the next op\n", shc_rng_finding_name(f->kind),
                   (long long)f->rank_a, (long long)f->a_lo, (long long)f->a_hi,
                   (long long)au->end_incr, (long long)f->b_lo, (long long)f->b_hi);
        else
            printf("  %-16s ranks %lld and %lld (distinct shards): windows [%lld, %lld) and "
                   "[%lld, %lld)\n", shc_rng_finding_name(f->kind), (long long)f->rank_a,
                   (long long)f->rank_b, (long long)f->a_lo, (long long)f->a_hi,
                   (long long)f->b_lo, (long long)f->b_hi);
    }
    int64_t total = 0;
    for (int k = 0; k < SHC_RNGF_COUNT; k++)
        total += au->count[k];
    if (total > au->nlisted)
        printf("  ... %lld more\n", (long long)(total - au->nlisted));
    printf("%lld findings\n", (long long)total);
}

static json_t *audit_json(const shc_rng_audit *au)
{
    json_t *list = json_array(), *kinds = json_array(), *counts = json_object();
    int64_t total = 0;
    for (int k = 0; k < SHC_RNGF_COUNT; k++) {
        if (au->kinds & (1u << k))
            json_array_append_new(kinds, json_string(shc_rng_finding_name(k)));
        json_object_set_new(counts, shc_rng_finding_name(k), json_integer(au->count[k]));
        total += au->count[k];
    }
    for (int64_t i = 0; i < au->nlisted; i++) {
        const shc_rng_finding *f = &au->listed[i];
        json_t *ranks = f->rank_b < 0 ? json_pack("[I]", (json_int_t)f->rank_a)
                                      : json_pack("[I,I]", (json_int_t)f->rank_a, (json_int_t)f->rank_b);
        json_array_append_new(list, json_pack("{s:s,s:o,s:[o,o],s:[o,o]}", "kind",
                                              shc_rng_finding_name(f->kind), "ranks", ranks,
                                              "range_a", shc_json_i64s(f->a_lo),
                                              shc_json_i64s(f->a_hi), "range_b",
                                              shc_json_i64s(f->b_lo), shc_json_i64s(f->b_hi)));
    }
    return json_pack("{s:I,s:o,s:I,s:o,s:o,s:o}", "findings", (json_int_t)total, "kinds", kinds,
                     "shards", (json_int_t)au->nshards, "end_incr", shc_json_i64s(au->end_incr),
                     "counts", counts, "listed", list);
}

int cmd_audit_rng(int argc, char **argv)
{
    const char *cmd = "audit rng";
    offsets_args a;
    int rc = parse_args(CMD_AUDIT, cmd, "--mesh M [--ranks L] --placements P --shape S "
                        "[--op OP] [--json] [--torch-version V]",
                        "--op: a random op of `shardcheck ops` (default: any tracked op); "
                        "untracked ops\nreport UntrackedOpSharedDraws, ops torch rejects exit 2 "
                        "with torch's message.\nExit 0 with or without findings (they describe "
                        "the layout), 2 on bad input.  Every rank is audited, and the\nwindows "
                        "are increments: --rank, --seed, --offset and --gpu are refused.",
                        argc, argv, &a);
    if (rc != CLI_GO)
        return rc;
    if (strcmp(a.policy, "torch-offset") != 0)
        return cli_usage_error(cmd, "--policy: audit rng checks torch-offset windows only; "
                               "use 'shardcheck policies' for other policies");
    shc_err e;
    shc_err_clear(&e);
    layout_in L;
    memset(&L, 0, sizeof L);
    shc_rng_audit au;
    const shc_rng_op *op = a.rop;
    if ((rc = load_layout(&a.c, &L, &e)) == SHC_OK &&
        (rc = cli_whole_mesh_e("audit rng audits every rank", L.m.size, &e)) == SHC_OK &&
        (rc = op ? shc_rng_audit_op(op, &L.m, &L.pl, &L.shape, &au, &e)
                 : shc_rng_audit_layout(&L.m, &L.pl, &L.shape, &au, &e)) == SHC_OK) {
        if (a.c.json) {
            json_t *j = audit_json(&au);
            if (op)
                json_object_set_new(j, "dispatch",
                                    json_string(shc_rng_dispatch_name(op->dispatch)));
            rc = cli_print_json_e(j, &e);
            json_decref(j);
        } else {
            print_audit_text(&a, &L, op, &au);
        }
    }
    shc_mesh_free(&L.m);
    return cli_report(cmd, rc, &e);
}

static json_t *verdict_json(const shc_rng_policy *p, const shc_rng_verdict *v)
{
    json_t *props = json_object();
    for (int k = 0; k < SHC_RNGP_COUNT; k++)
        json_object_set_new(props, shc_rng_property_name(k),
                            json_pack("{s:b,s:I,s:o}", "holds", v->holds[k] == v->layouts,
                                      "layouts_holding", (json_int_t)v->holds[k],
                                      "first_counterexample",
                                      v->first_fail[k] < 0 ? json_null()
                                                           : json_integer(v->first_fail[k])));
    json_t *per = json_array(), *coll = json_array();
    for (int i = 0; i < v->ncases; i++)
        json_array_append_new(coll, v->mask[i] < 0 ? json_null() : json_integer(v->collisions[i]));
    for (int i = 0; i < v->ncases; i++) {
        json_t *h = json_array();
        for (int k = 0; k < SHC_RNGP_COUNT && v->mask[i] >= 0; k++)
            if (v->mask[i] & (1 << k))
                json_array_append_new(h, json_string(shc_rng_property_name(k)));
        json_array_append_new(per, v->mask[i] < 0 ? (json_decref(h), json_string("rejected")) : h);
    }
    return json_pack("{s:s,s:s,s:I,s:I,s:o,s:o,s:I,s:o}", "name", shc_rng_policy_name(p),
                     "summary", shc_rng_policy_summary(p), "layouts", (json_int_t)v->layouts,
                     "rejected", (json_int_t)v->rejected, "properties", props, "per_layout", per,
                     "collisions", (json_int_t)v->total_collisions, "collisions_per_layout",
                     coll);
}

static void verdict_text(const shc_rng_policy *p, const shc_rng_verdict *v)
{
    printf("%-24s", shc_rng_policy_name(p));
    for (int k = 0; k < SHC_RNGP_COUNT; k++) {
        char cell[40];
        if (v->holds[k] == v->layouts)
            snprintf(cell, sizeof cell, "yes");
        else
            snprintf(cell, sizeof cell, "no (%lld/%lld, #%d)", (long long)v->holds[k],
                     (long long)v->layouts, v->first_fail[k]);
        printf(" %-19s", cell);
    }
    printf(" %10lld", (long long)v->total_collisions);
    if (v->rejected)
        printf(" rejects %lld", (long long)v->rejected);
    printf("\n");
}

/* The rows policies prints: every policy, --policy's, or torch running --op. */
static int policy_rows(const offsets_args *a, const shc_gpu_profile *gpu, json_t *pols,
                       shc_err *e)
{
    int rc = SHC_OK;
    for (int i = 0; i < shc_rng_policy_count() && rc == SHC_OK; i++) {
        shc_rng_verdict v;
        const shc_rng_policy *p = shc_rng_policy_at(i);
        const char *name = a->rop ? op_policy_name(a->rop) : a->policy;
        if ((a->rop || a->policy_given) && strcmp(name, shc_rng_policy_name(p)))
            continue;
        shc_err why;
        if (!a->rop && !a->policy_given && shc_rng_policy_models_dtype(p, gpu, a->dt, &why)) {
            /* the whole table: a row the profile (or the dtype) has no model for says so
             * (asked by name, the policy is refused, exit 2) */
            if (a->c.json)
                json_array_append_new(pols, json_pack("{s:s,s:s,s:s}", "name",
                                                      shc_rng_policy_name(p), "summary",
                                                      shc_rng_policy_summary(p),
                                                      "not_modelled", why.msg));
            else
                printf("%-24s %s\n", shc_rng_policy_name(p), why.msg);
            continue;
        }
        rc = a->rop ? shc_rng_op_verdict(a->rop, gpu, a->seed, &v, e)
                    : shc_rng_policy_verdict_dtype(p, gpu, a->dt, a->seed, &v, e);
        if (rc == SHC_OK && a->c.json)
            json_array_append_new(pols, verdict_json(p, &v));
        else if (rc == SHC_OK)
            verdict_text(p, &v);
    }
    return rc;
}

int cmd_policies(int argc, char **argv)
{
    const char *cmd = "policies";
    offsets_args a;
    int rc = parse_args(CMD_POLICIES, cmd, "[--policy NAME | --op OP | --tracker NAME] "
                        "[--gpu PROFILE] [--seed N] [--dtype T] [--json] [--torch-version V]",
                        "Verdicts are computed over the layout table in "
                        "lib/offsets/rng_policy_check.c.\n--policy NAME: that policy's row only.  "
                        "--op OP: torch V running OP, the policy it\nfollows (tracked: "
                        "torch-offset, untracked: torch-untracked), layouts where torch\nrejects "
                        "it counted as rejected.\n--gpu PROFILE: the launch geometry draws "
                        "follow and what an offset addresses (:window, CUDA;\n:stream, an "
                        "Ascend NPU such as ascend-910b: each offset its own Philox stream).  A "
                        "CUDA\nwindow profile is refused with --policy torch-offset and "
                        "jax-partitionable, whose\nverdicts are the same on every GPU.  "
                        "collisions: draws of the two ops whose identity\nanother draw has.  "
                        "--dtype T: two ops of dtype T (default float32).\n"
                        MEGATRON_DIMS,
                        argc, argv, &a);
    if (rc != CLI_GO)
        return rc;
    shc_policy_heap_keep();
    shc_err e;
    shc_err_clear(&e);
    shc_gpu_profile gpu_v, *gpu = &gpu_v;
    if ((rc = shc_gpu_profile_parse(a.gpu ? a.gpu : "a100", gpu, &e)))
        return cli_report(cmd, shc_err_prefix(&e, "--gpu"), &e);
    const shc_rng_case *cs;
    int ncases = shc_rng_policy_cases(&cs);
    json_t *pols = json_array(), *layouts = json_array();
    for (int i = 0; i < ncases; i++)
        json_array_append_new(layouts, json_pack("{s:s,s:s,s:s}", "mesh", cs[i].mesh,
                                                 "placements", cs[i].placements, "shape",
                                                 cs[i].shape));
    /* a policy asked by name that the profile or the dtype has no model for is refused
     * before any line of the table (exit 2, nothing on stdout) */
    const shc_rng_policy *named = NULL;
    if (a.policy_given && !a.rop && !shc_rng_policy_lookup(a.policy, &named, &e) &&
        (rc = shc_rng_policy_models_dtype(named, gpu, a.dt, &e))) {
        json_decref(pols);
        json_decref(layouts);
        return cli_report(cmd, rc, &e);
    }
    if (!a.c.json) {
        if (a.tracker)
            printf("tracker %s (%s): policy %s on %s\n", a.tracker->name, a.tracker->framework,
                   a.tracker->policy, a.gpu);
        if (a.rop)
            printf("torch %s running %s (%s: policy %s)\n", rel_name(&a), a.rop->name,
                   shc_rng_dispatch_name(a.rop->dispatch), op_policy_name(a.rop));
        printf("RNG policies x SPMD properties (GPU profile %s: offsets %s, alignment %d; "
               "%s%s%sseed %llu, %d layouts)\n", a.gpu ? a.gpu : gpu->name,
               shc_offset_semantics_name(gpu->offset_semantics), shc_gpu_profile_align(gpu),
               a.dtype ? "dtype " : "", a.dtype ? shc_dtype_name(a.dt) : "",
               a.dtype ? "; " : "", (unsigned long long)a.seed, ncases);
        printf("%-24s", "policy");
        for (int k = 0; k < SHC_RNGP_COUNT; k++)
            printf(" %-19s", shc_rng_property_name(k));
        printf(" %10s\n", "collisions");
    }
    rc = policy_rows(&a, gpu, pols, &e);
    if (rc == SHC_OK && a.c.json) {
        json_t *root = json_pack("{s:s,s:s,s:i,s:o,s:s,s:o,s:o}", "gpu",
                                 a.gpu ? a.gpu : gpu->name, "offset_semantics",
                                 shc_offset_semantics_name(gpu->offset_semantics),
                                 "offset_align", shc_gpu_profile_align(gpu), "seed",
                                 json_u64s(a.seed), "dtype", shc_dtype_name(a.dt), "layouts",
                                 layouts, "policies", pols);
        if (a.tracker)
            json_object_set_new(root, "tracker", cli_tracker_json(a.tracker));
        if (a.rop)
            json_object_set_new(root, "op", json_pack("{s:s,s:s,s:s}", "name", a.rop->name,
                                "dispatch", shc_rng_dispatch_name(a.rop->dispatch),
                                "torch", rel_name(&a)));
        rc = cli_print_json_e(root, &e);
        json_decref(root);
    } else {
        json_decref(pols);
        json_decref(layouts);
        if (rc == SHC_OK) {
            printf("no (k/n, #i): holds on k of n layouts, first counterexample is layout #i;\n"
                   "collisions: draws of the two ops whose identity another draw has, all "
                   "layouts:\n");
            for (int i = 0; i < ncases; i++)
                printf("  #%-2d --mesh %s --placements '%s' --shape %s\n", i, cs[i].mesh,
                       cs[i].placements, cs[i].shape);
        }
    }
    return cli_report(cmd, rc, &e);
}
