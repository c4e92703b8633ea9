/*
 * shard_layout.c — the shard-layout golden family: per rank, the local shape
 * and global offset of a DTensor (torch 2.13 compute_local_shape_and_global_offset),
 * plus the explicit global index list of every dim touched by _StridedShard.
 *
 * What the corpus covers is the tables below: mesh tiers (which meshes, rank
 * maps, how many placement combinations per mesh and tensor rank, how many
 * shapes), the per-mesh-dim placement options, the shape rules (relative to
 * the world size w, so "even", "uneven", "smaller than the mesh" and "zero"
 * mean the same on every mesh) and the invalid cases.  Adding a row is the
 * whole change needed to cover something new.  Combinations beyond a tier's
 * limit are sampled by a fixed stride coprime to their count, so every
 * regeneration picks the same ones.
 *
 * Schema: golden/schemas/shard-layout_v1.json.  Checked against torch by the
 * harness (tools/harness/adapters/torch_shard_layout.py); regenerated
 * byte-for-byte by golden_regen.sh.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include "families.h"
#include "plugin_case.h"
#include "layout_common.h"

/* ---- tables ---- */

/* Placement options for one mesh dim; a tensor of rank t uses the first
 * options_for_rank[t].  "P" cycles through the eight reduce ops. */
static const char *const options[] = {"R", "P", "S(0)", "_S(0, 2)", "S(1)", "_S(1, 3)",
                                      "S(2)", "_S(2, 2)"};
static const int options_for_rank[4] = {2, 4, 6, 8};

/* Shapes by tensor rank: comma-separated size rules "a", "w", "kw", "kw+b", "kw-b"
 * with w the world size.  Listed most-informative first (tiers take a prefix). */
static const char *const shapes_1d[] = {"2w+1", "w", "w-1", "0", "13", "1", "4w", NULL};
static const char *const shapes_2d[] = {"w,2w+1", "2w+1,w-1", "0,w", "13,2w", "3w,5", "1,1",
                                        NULL};
static const char *const shapes_3d[] = {"w,2w+1,3", "2w+1,1,w-1", "0,2,w", "5,w-1,2w",
                                        "3w,w,1", NULL};
static const char *const *const shapes_by_rank[4] = {NULL, shapes_1d, shapes_2d, shapes_3d};

static const char *const arange_only[] = {"arange", NULL};
static const char *const permuted[] = {"reverse", "transpose", "rotate", NULL};
static const char *const tiny_maps[] = {"reverse", "rotate", NULL};
static const char *const large_meshes[] = {"30x8", "2x3x4x5", "64x8", "4x4x4x4", NULL};
static const char *const permuted_meshes[] = {"4", "2x2", "2x4", "3x2", "2x2x2", "4x4",
                                              "2x3x2", "2x2x2x2", NULL};
static const char *const permuted_1d4[] = {"3,1,2,0", "2,0,3,1", NULL};
static const char *const mesh_4[] = {"4", NULL};

typedef struct tier {
    const char *stem;               /* output file golden/shard-layout/<stem>.json */
    int min_dims, max_dims;         /* enumerate meshes of these dims ... */
    int64_t min_ranks, max_ranks;   /* ... with this many ranks ... */
    int64_t min_size;               /* ... and every dim >= min_size */
    bool need_unit_dim;             /* keep only meshes with a dim of size 1 */
    const char *const *meshes;      /* or an explicit list */
    const char *const *rank_maps;   /* rank-map rules (layout_common.h) */
    int combo_limit;                /* placement combos per (mesh, tensor rank) */
    int shape_limit;                /* shapes per combo (a prefix of the rule list) */
    bool shard_order;               /* emit only combos with a nested plain Shard, in
                                     * reversed shard order (trace form) */
} tier;

#define ALL_COMBOS (1 << 30)
static const tier tiers[] = {
    {"tiny-meshes", 1, 3, 1, 8, 2, false, NULL, arange_only, ALL_COMBOS, 7, false},
    {"small-meshes", 1, 4, 9, 16, 2, false, NULL, arange_only, 24, 3, false},
    {"unit-dim-tiny", 1, 4, 1, 8, 1, true, NULL, arange_only, 8, 3, false},
    {"unit-dim-meshes", 1, 4, 9, 16, 1, true, NULL, arange_only, 1, 2, false},
    {"rank-maps-tiny", 2, 3, 1, 8, 2, false, NULL, tiny_maps, 8, 2, false},
    {"large-meshes", 0, 0, 0, 0, 0, false, large_meshes, arange_only, 4, 1, false},
    {"rank-maps", 0, 0, 0, 0, 0, false, permuted_meshes, permuted, 8, 2, false},
    {"rank-maps-explicit", 0, 0, 0, 0, 0, false, mesh_4, permuted_1d4, ALL_COMBOS, 5, false},
    {"shard-order", 2, 4, 1, 16, 2, false, NULL, arange_only, 64, 3, true},
};

/* The torch.chunk sweep: every 1-d tensor size 0..max_size under nested and
 * strided placements on every mesh of ndim dims (dims >= min_size). */
static const char *const sweep_1d[] = {"S(0)", "_S(0, 2)", "_S(0, 3)", "_S(0, 4)", NULL};
static const char *const sweep_2d[] = {"S(0),S(0)", "_S(0, 2),S(0)", "S(0),_S(0, 3)",
                                       "_S(0, 3),_S(0, 2)", NULL};
typedef struct sweep {
    const char *stem;
    int ndim;
    int64_t min_size, max_ranks;
    const char *const *placements;
    int64_t max_size;
} sweep;
static const sweep sweeps[] = {
    {"chunk-sweep-1d", 1, 1, 16, sweep_1d, 64},
    {"chunk-sweep-2d", 2, 2, 16, sweep_2d, 32},
};

/* Inputs every implementation must reject. */
typedef struct bad_case {
    const char *mesh, *placements, *shape, *comment, *flag;
} bad_case;
static const bad_case invalid_cases[] = {
    {"2x2", "S(2),R", "4,4", "shard dim 2 of a 2-d tensor", NULL},
    {"4", "S(1)", "8", "shard dim 1 of a 1-d tensor", NULL},
    {"2", "_S(1, 2)", "8", "strided shard dim 1 of a 1-d tensor", NULL},
    {"2", "S(0)", "", "shard of a 0-d tensor", NULL},
    {"2x2", "S(0)", "8", "one placement for a 2-d mesh", NULL},
    {"4", "S(0),R", "8", "two placements for a 1-d mesh", NULL},
    {"2", "_S(0, 0)", "8", "split factor 0", NULL},
    {"2x2", "_S(0, 2)[0]S(0)[1]", "8", "shard order together with _StridedShard", NULL},
    {"2", "S(0)", "-1", "negative size", NULL},
    {"2x2", "S(0),S(1)", "4,-3", "negative size in dim 1", NULL},
    {"2", "Q(0)", "8", "unknown placement", SHC_NOT_TORCH_INPUT},
    {"2", "S(0", "8", "unbalanced parenthesis", SHC_NOT_TORCH_INPUT},
    /* was P(mean) until issue 34: torch's Partial takes any string, and so does shardcheck
     * now, up to its own length limit, which this row (same tcId) holds */
    {"2", "P(abcdefghijabcdefghijabcdefghijab)", "8",
     "reduce op longer than shardcheck's 31 characters (torch takes any string)",
     SHC_STRICTER_THAN_TORCH},
    {"2x2", "S(0)[0]S(0)[0]", "8", "two mesh dims with the same shard order index",
     SHC_NOT_TORCH_INPUT},
    {"2", "S(0)", "9223372036854775807,2", "element count overflows int64", "Int64Overflow"},
    {"2x2", "S(0),S(1)", "4294967296,4294967296", "element count overflows int64",
     "Int64Overflow"},
};

/* Shard dims counted from the end (issue 34 item 1): torch's distribute_tensor, from_local and
 * redistribute make d + ndim of a negative d (torch 2.13 _api.py) and print the placement as
 * given, so an implementation reads the golden "placements" as torch does.  The last file
 * (earlier tcIds stay).  A row with valid false is an "invalid" case (d + ndim still out of
 * range); adding one means auditing it in every release (tools/invalid_audit.sh), and the
 * CLI's tests hold those refusals (cli_placement.sh). */
static const struct {
    const char *mesh, *placements, *shape, *comment;
    bool valid;
} negative_cases[] = {
    {"4", "S(-1)", "8,6", "S(-1) of a 2-d tensor is S(1)", true},
    {"4", "S(-2)", "7,3", "S(-2) of a 2-d tensor is S(0): uneven", true},
    {"3", "S(-3)", "5,4,2", "S(-3) of a 3-d tensor is S(0)", true},
    {"2x2", "S(-1),S(-2)", "5,7", "S(-1),S(-2) is S(1),S(0)", true},
    {"2x2", "S(-1),S(-1)", "9", "nested on the one dim of a 1-d tensor", true},
    {"2x3", "S(-2),R", "7,3", "with a Replicate", true},
    {"2x2", "_S(-1, 2),S(-1)", "4,8", "_S(-1, 2),S(-1) is _S(1, 2),S(1): FSDP2 + TP strided", true},
    {"2x2", "P(sum),S(-1)", "3,6", "with a Partial", true},
    {"4", "S(-1)", "0", "a size-0 dim counted from the end", true},
};

/* Meshes smaller than the world (issue 34 item 3): the ranks of the world the rank map does
 * not name are torch's non-participating ranks (device_mesh.py, _is_current_rank_part_of_mesh),
 * whose DTensor holds an empty 1-d local tensor with no global offset (_utils.py
 * compute_local_shape_and_global_offset: ((0,), ()), torch 2.13).  Each row is a group
 * (mesh, rank map, world) with every placement of its row's list on every shape; the last
 * file (earlier tcIds stay), valid cases only (an invalid one is a row of
 * docs/invalid-audit.md in every release). */
static const char *const sub_pl_1d[] = {"S(0)", "R", "S(1)", "P(sum)", "S(-1)", NULL};
static const char *const sub_pl_2d[] = {"S(0),S(1)", "R,S(0)", "S(0),S(0)", "P(sum),S(1)", NULL};
static const char *const sub_shapes[] = {"8,6", "5,3", "0,4", NULL};
static const struct {
    const char *mesh, *ranks;
    int64_t world;
    const char *const *placements;
} subworld_groups[] = {
    {"2", "0,1", 4, sub_pl_1d},   /* the mesh first, the rest of the world after it */
    {"2", "1,3", 4, sub_pl_1d},   /* interleaved */
    {"2", "2,0", 3, sub_pl_1d},   /* a permuted map, rank 1 outside */
    {"1", "2", 3, sub_pl_1d},     /* one rank of three */
    {"3", "0,2,4", 6, sub_pl_1d}, /* every other rank */
    {"2x2", "4,5,6,7", 8, sub_pl_2d},
    {"2x1", "1,2", 4, sub_pl_2d}, /* a size-1 mesh dim */
};

/* ---- computing one rank ---- */

/* The expected values of one rank: {"localShape", "globalOffset"[, "indices"]}. */
static int rank_values(const shc_mesh *m, const shc_placements *pl, const shc_shape *s,
                       int64_t rank, bool with_indices, json_t **out, shc_err *e)
{
    shc_layout l;
    bool in_mesh;
    int rc = shc_layout_of_world_rank(m, pl, s, rank, &l, &in_mesh, e);
    if (rc)
        return rc;
    json_t *o = json_object(), *off = json_array(), *idx = json_array();
    json_object_set_new(o, "localShape", shc_json_i64_array(l.local.d, l.local.ndim));
    if (!in_mesh) /* torch's empty 1-d tensor: no offset, no dim index-listed */
        json_array_append_new(idx, json_null());
    for (int d = 0; in_mesh && d < s->ndim; d++) {
        json_array_append_new(off, shc_json_i64s(l.offset[d]));
        json_array_append_new(idx, l.index[d] ? shc_json_i64_array(l.index[d], l.index_len[d])
                                              : json_null());
    }
    json_object_set_new(o, "globalOffset", off);
    if (with_indices)
        json_object_set_new(o, "indices", idx);
    else
        json_decref(idx);
    shc_layout_free(&l);
    *out = o;
    return SHC_OK;
}

static bool has_strided(const shc_placements *pl)
{
    for (int i = 0; i < pl->n; i++)
        if (pl->p[i].kind == SHC_P_STRIDED)
            return true;
    return false;
}


static int compute_ranks(const json_t *group, const json_t *test, int64_t first, int64_t count,
                         json_t **views, shc_err *e)
{
    shc_mesh m;
    shc_placements pl;
    shc_shape s;
    int rc = shcl_parse_inputs(group, test, &m, &pl, &s, e);
    if (rc)
        return rc;
    bool strided = has_strided(&pl);
    for (int64_t i = 0; i < count && !rc; i++)
        rc = rank_values(&m, &pl, &s, first + i, strided, &views[i], e);
    shc_mesh_free(&m);
    return rc;
}

static int compute_rank(const json_t *group, const json_t *test, int64_t rank, json_t **out,
                        shc_err *e)
{
    *out = NULL;
    return compute_ranks(group, test, rank, 1, out, e);
}

static int64_t world_size(const json_t *group) { return shcl_world(group); }

/* ---- generating ---- */

static void declare_notes(shc_gw *w)
{
    shc_gw_note(w, "UnevenShard",
                "Ranks hold local shapes of different sizes: the torch.chunk rule gives every "
                "shard ceil(n / k) elements and the last ones what is left (possibly "
                "nothing), not n // k with the remainder spread over the first ranks "
                "(numpy.array_split). Ports that split evenly-then-remainder go wrong here.");
    shc_gw_note(w, "EmptyShard",
                "Some rank holds nothing of a non-empty sharded dim; its globalOffset on that "
                "dim is the global dim size (torch's zero_global_offset), not 0 nor where its "
                "chunk would have started.");
    shc_gw_note(w, "ZeroSizeDim", "The global tensor has a dim of size 0.");
    shc_gw_note(w, "SubWorld",
                "The mesh is smaller than the world (group \"world\"): a rank the rank map "
                "does not name is torch's non-participating rank, whose DTensor holds an empty "
                "1-d local tensor, localShape [0], globalOffset [] and indices [null] "
                "(compute_local_shape_and_global_offset returns ((0,), ()) when "
                "_is_current_rank_part_of_mesh is false; torch 2.13 _utils.py, device_mesh.py).");
    shc_gw_note(w, "NegativeDim",
                "A shard dim counted from the end (S(-1), _S(-1, 2)): torch's distribute_tensor "
                "and redistribute make d + ndim of it and print the placement as given, so the "
                "case is the one with d + ndim; where that is still out of range torch raises "
                "(an invalid case).");
    shc_gw_note(w, "NestedShard",
                "Several mesh dims shard the same tensor dim: each mesh dim chunks what the "
                "previous one left (left to right, or in shard order), so offsets accumulate; "
                "the sizes differ from chunking the global dim once by the product of the "
                "mesh dims.");
    shc_gw_note(w, "StridedShard",
                "A _StridedShard placement _S(d, sf): the dim is first cut into sf pieces and "
                "this mesh dim takes its chunk of each piece, so a rank holds non-contiguous "
                "indices (expected.perRank.indices) and its size differs from Shard's when "
                "pieces are uneven (mesh 2, _S(0, 3), shape [3]: rank 0 holds all 3, rank 1 "
                "none).");
    shc_gw_note(w, "Partial", "A Partial placement (no effect on the layout).");
    shc_gw_note(w, "SizeOneMeshDim", "A mesh dim of size 1.");
    shc_gw_note(w, "NonArangeRanks",
                "The mesh's rank map is not arange (group rankMap): a rank's mesh coordinate "
                "is its position in the map; perRank stays indexed by global rank.");
    shc_gw_note(w, "LargeMesh", SHC_LARGE_MESH_NOTE);
    shc_gw_note(w, "ShardOrder",
                "An explicit shard order in trace form (S(0)[1]S(0)[0]): the mesh dims "
                "sharding a tensor dim are applied in that order (DTensorSpec.shard_order). "
                "Torch's own _StridedShard encoding of the same order lays out uneven sizes "
                "differently; the golden follows the order.");
    shc_gw_note(w, "Int64Overflow",
                "Rejected because the element count overflows int64. torch refuses the "
                "global tensor too (ATen's storage size check: torch.empty(shape, "
                "device=\"meta\") raises \"Storage size calculation overflowed\"), so "
                "distribute_tensor never sees it; only its layout routine alone "
                "(compute_local_shape_and_global_offset, on Python ints) would answer.");
    shc_gw_note(w, SHC_STRICTER_THAN_TORCH,
                "torch accepts this input; shardcheck rejects it. Partial(\"mean\"): torch's "
                "Partial takes any string as its reduce op, and DTensor.from_local and the "
                "layout routine lay it out as any Partial (the whole tensor on every rank); "
                "torch refuses it only when a collective reduces it (c10d: \"Unrecognized "
                "reduce_op: mean\") or when distribute_tensor partitions a value into it, as "
                "for product, band, bor and bxor. shardcheck refuses a reduce op c10d cannot "
                "reduce (sum, avg, min, max, product, band, bor, bxor) when it parses the "
                "placement, since no redistribute of it can run. The harness's torch adapter "
                "and the torch backend check that torch does accept it "
                "(docs/invalid-audit.md).");
    shc_gw_note(w, SHC_NOT_TORCH_INPUT, SHC_NOT_TORCH_INPUT_NOTE);
}

/* Evaluate one size rule ("2w+1", "w", "13") for world size w. */
static int64_t eval_rule(const char *r, const char **end, int64_t w)
{
    int64_t k = 1, v = 0;
    if (*r >= '0' && *r <= '9')
        k = strtoll(r, (char **)&r, 10);
    if (*r == 'w') {
        v = k * w;
        r++;
        if (*r == '+' || *r == '-') {
            int64_t b = strtoll(r + 1, (char **)end, 10);
            return *r == '+' ? v + b : (v - b < 0 ? 0 : v - b);
        }
    } else {
        v = k;
    }
    *end = r;
    return v;
}

static void eval_shape(const char *rule, int64_t w, shc_shape *s)
{
    memset(s, 0, sizeof *s);
    const char *p = rule;
    while (*p) {
        s->d[s->ndim++] = eval_rule(p, &p, w);
        if (*p == ',')
            p++;
    }
}

/* Compute every rank's values and the flags of one valid test. */
static int fill_expected(json_t *test, const shc_mesh *m, const shc_placements *pl,
                         const shc_shape *s, bool non_arange, shc_err *e)
{
    bool strided = has_strided(pl);
    json_t *ls = json_array(), *go = json_array(), *ix = strided ? json_array() : NULL;
    bool uneven = false, empty = false;
    json_t *first = NULL;
    for (int64_t r = 0; r <= m->max_rank; r++) { /* every rank of the world */
        json_t *v;
        int rc = rank_values(m, pl, s, r, strided, &v, e);
        if (rc) {
            json_decref(ls), json_decref(go), json_decref(ix);
            return rc;
        }
        json_t *shape = json_object_get(v, "localShape");
        if (!first && shc_mesh_has_rank(m, r))
            first = shape;
        for (int d = 0; shc_mesh_has_rank(m, r) && d < s->ndim; d++) /* the shards' flags */
            empty |= s->d[d] > 0 && json_integer_value(json_array_get(shape, (size_t)d)) == 0;
        uneven |= shc_mesh_has_rank(m, r) && !json_equal(first, shape);
        json_array_append(ls, shape);
        json_array_append(go, json_object_get(v, "globalOffset"));
        if (ix)
            json_array_append(ix, json_object_get(v, "indices"));
        json_decref(v);
    }
    json_t *per = json_pack("{s:o, s:o}", "localShape", ls, "globalOffset", go);
    if (ix)
        json_object_set_new(per, "indices", ix);
    json_object_set_new(test, "expected", json_pack("{s:o}", "perRank", per));
    int nshard[SHC_MAX_TENSOR_DIMS] = {0};
    bool zero = false, unit = false;
    for (int i = 0; i < pl->n; i++) {
        if (pl->p[i].kind == SHC_P_SHARD || pl->p[i].kind == SHC_P_STRIDED)
            nshard[pl->p[i].dim]++;
        unit |= m->shape[i] == 1;
    }
    for (int d = 0; d < s->ndim; d++) {
        if (nshard[d] > 1)
            shc_test_flag(test, "NestedShard");
        zero |= s->d[d] == 0;
    }
    for (int i = 0; i < pl->n; i++)
        if (pl->p[i].kind == SHC_P_PARTIAL)
            shc_test_flag(test, "Partial");
    if (uneven)
        shc_test_flag(test, "UnevenShard");
    if (empty)
        shc_test_flag(test, "EmptyShard");
    if (zero)
        shc_test_flag(test, "ZeroSizeDim");
    if (strided)
        shc_test_flag(test, "StridedShard");
    if (unit)
        shc_test_flag(test, "SizeOneMeshDim");
    if (non_arange)
        shc_test_flag(test, "NonArangeRanks");
    if (m->size > SHC_LARGE_MESH_RANKS)
        shc_test_flag(test, "LargeMesh");
    if (m->max_rank + 1 > m->size)
        shc_test_flag(test, "SubWorld");
    if (pl->has_order)
        shc_test_flag(test, "ShardOrder");
    return SHC_OK;
}

/* Placements string of combo index c over nd mesh dims with nopt options. */
static void combo_string(int64_t c, int nd, int nopt, char *buf, size_t n)
{
    size_t k = 0;
    int64_t digits[SHC_MAX_MESH_DIMS], rest = c;
    for (int i = nd - 1; i >= 0; i--) {
        digits[i] = rest % nopt;
        rest /= nopt;
    }
    for (int i = 0; i < nd; i++) {
        const char *o = options[digits[i]];
        char one[32];
        if (!strcmp(o, "P"))
            snprintf(one, sizeof one, "P(%s)", shc_redop_name((shc_redop)((c + i) % SHC_OP_COUNT)));
        else
            snprintf(one, sizeof one, "%s", o);
        k += (size_t)snprintf(buf + k, n - k, i ? ",%s" : "%s", one);
    }
}

/* Reverse the shard order of every tensor dim sharded by >= 2 plain Shards;
 * false if the combo has none (or has _StridedShard, which forbids an order). */
static bool reverse_order(shc_placements *pl)
{
    int count[SHC_MAX_TENSOR_DIMS] = {0};
    bool any = false;
    for (int i = 0; i < pl->n; i++) {
        if (pl->p[i].kind == SHC_P_STRIDED)
            return false;
        if (pl->p[i].kind == SHC_P_SHARD)
            any |= ++count[pl->p[i].dim] > 1;
    }
    if (!any)
        return false;
    int seen[SHC_MAX_TENSOR_DIMS] = {0};
    for (int i = 0; i < pl->n; i++)
        if (pl->p[i].kind == SHC_P_SHARD) {
            int d = pl->p[i].dim;
            pl->order[i] = count[d] - 1 - seen[d]++;
        }
    pl->has_order = true;
    return true;
}

/* One valid test: mesh m (group already open), placements pl as written, computed as held
 * (the placements torch holds: S(-1) normalised; NULL: pl itself), shape. */
static int emit_case(shc_gw *w, const shc_mesh *m, const char *mesh_str, shc_placements *pl,
                     const shc_placements *held, const shc_shape *s, const char *shape_rule,
                     bool non_arange, shc_err *e)
{
    char pbuf[256], comment[300];
    if (pl->has_order)
        shc_placements_format_trace(pl, pbuf, sizeof pbuf);
    else
        shc_placements_format(pl, pbuf, sizeof pbuf);
    snprintf(comment, sizeof comment, "shape %s", shape_rule); /* inputs say the rest */
    json_t *t = shc_test_new(comment, "valid");
    json_object_set_new(t, "placements", json_string(pbuf));
    json_object_set_new(t, "shape", shc_json_i64_array(s->d, s->ndim));
    int rc = fill_expected(t, m, held ? held : pl, s, non_arange, e);
    if (!rc && held && memcmp(held, pl, sizeof *pl))
        shc_test_flag(t, "NegativeDim");
    if (rc) {
        json_decref(t);
        return shc_err_prefix(e, "mesh %s, %s, %s", mesh_str, pbuf, comment);
    }
    return shc_gw_test(w, t, e);
}

/* Every case of one tier for one mesh and rank map. */
static int gen_mesh(shc_gw *w, const tier *t, const shcl_mesh_shape *ms, const char *rule,
                    shc_err *e)
{
    shc_mesh m;
    char mesh_str[64];
    shcl_mesh_str(ms, mesh_str, sizeof mesh_str);
    json_t *params = shcl_group_params(ms, rule);
    int rc = shcl_mesh_from_json(params, &m, e);
    if (!rc)
        rc = shc_gw_group(w, params, e);
    else
        json_decref(params);
    for (int tr = 1; tr <= 3 && !rc; tr++) {
        int nopt = options_for_rank[tr];
        int64_t total = 1;
        for (int i = 0; i < ms->ndim; i++)
            total *= nopt;
        int64_t n = total < t->combo_limit ? total : t->combo_limit;
        for (int64_t j = 0; j < n && !rc; j++) {
            int64_t c = total <= t->combo_limit ? j : (j * 7919 + tr) % total;
            char pstr[256];
            shc_placements pl;
            combo_string(c, ms->ndim, nopt, pstr, sizeof pstr);
            rc = shc_placements_parse(&pl, pstr, e);
            if (rc || (t->shard_order && !reverse_order(&pl)))
                continue;
            shc_shape prev[8];
            int nprev = 0;
            for (int k = 0; k < t->shape_limit && shapes_by_rank[tr][k] && !rc; k++) {
                shc_shape s;
                eval_shape(shapes_by_rank[tr][k], m.size, &s);
                bool dup = false;
                for (int q = 0; q < nprev; q++)
                    dup |= !memcmp(&prev[q], &s, sizeof s);
                if (dup)
                    continue;
                prev[nprev++] = s;
                rc = emit_case(w, &m, mesh_str, &pl, NULL, &s, shapes_by_rank[tr][k],
                               rule && strcmp(rule, "arange"), e);
            }
        }
    }
    shc_mesh_free(&m);
    return rc;
}

static bool has_unit_dim(const shcl_mesh_shape *ms)
{
    for (int i = 0; i < ms->ndim; i++)
        if (ms->d[i] == 1)
            return true;
    return false;
}

static int gen_tier(shc_gw *w, const tier *t, shc_err *e)
{
    int rc = shc_gw_file(w, t->stem, e);
    shcl_mesh_shape list[512];
    int n = 0;
    if (t->meshes) {
        for (; t->meshes[n]; n++)
            list[n] = shcl_mesh_shape_of(t->meshes[n]);
    } else {
        n = shcl_enum_meshes(t->min_dims, t->max_dims, t->max_ranks, t->min_size, list, 512);
    }
    for (int i = 0; i < n && !rc; i++) {
        int64_t world = 1;
        for (int k = 0; k < list[i].ndim; k++)
            world *= list[i].d[k];
        if ((t->need_unit_dim && !has_unit_dim(&list[i])) || (!t->meshes && world < t->min_ranks))
            continue;
        for (int r = 0; t->rank_maps[r] && !rc; r++) {
            const char *rule = t->rank_maps[r];
            if (list[i].ndim == 1 && !strcmp(rule, "transpose"))
                continue; /* same as arange */
            rc = gen_mesh(w, t, &list[i], rule, e);
        }
    }
    return rc;
}

static int gen_sweep(shc_gw *w, const sweep *sw, shc_err *e)
{
    int rc = shc_gw_file(w, sw->stem, e);
    shcl_mesh_shape list[64];
    int n = shcl_enum_meshes(sw->ndim, sw->ndim, sw->max_ranks, sw->min_size, list, 64);
    for (int i = 0; i < n && !rc; i++) {
        shc_mesh m;
        char mesh_str[64];
        shcl_mesh_str(&list[i], mesh_str, sizeof mesh_str);
        json_t *params = shcl_group_params(&list[i], NULL);
        if ((rc = shcl_mesh_from_json(params, &m, e))) {
            json_decref(params);
            break;
        }
        rc = shc_gw_group(w, params, e);
        for (int p = 0; sw->placements[p] && !rc; p++) {
            shc_placements pl;
            rc = shc_placements_parse(&pl, sw->placements[p], e);
            for (int64_t size = 0; size <= sw->max_size && !rc; size++) {
                shc_shape s = {1, {size}};
                char rule[32];
                snprintf(rule, sizeof rule, "%lld", (long long)size);
                rc = emit_case(w, &m, mesh_str, &pl, NULL, &s, rule, false, e);
            }
        }
        shc_mesh_free(&m);
    }
    return rc;
}

static int gen_invalid(shc_gw *w, shc_err *e)
{
    int rc = shc_gw_file(w, "invalid", e);
    json_t *params = NULL;
    const char *cur = "";
    for (size_t i = 0; i < sizeof invalid_cases / sizeof *invalid_cases && !rc; i++) {
        const bad_case *b = &invalid_cases[i];
        if (strcmp(cur, b->mesh)) { /* one group per mesh */
            shcl_mesh_shape ms = shcl_mesh_shape_of(b->mesh);
            params = shcl_group_params(&ms, NULL);
            if ((rc = shc_gw_group(w, params, e)))
                break;
            cur = b->mesh;
        }
        json_t *t = shc_test_new(b->comment, "invalid");
        json_object_set_new(t, "placements", json_string(b->placements));
        json_t *shape = json_array();
        for (const char *p = b->shape; *p;) {
            json_array_append_new(shape, json_integer(strtoll(p, (char **)&p, 10)));
            if (*p == ',')
                p++;
        }
        json_object_set_new(t, "shape", shape);
        if (b->flag)
            shc_test_flag(t, b->flag);
        json_t *out = NULL;
        shc_err err;
        shc_err_clear(&err);
        if (compute_rank(params, t, 0, &out, &err) == SHC_OK) {
            json_decref(out);
            json_decref(t);
            return shc_fail(e, SHC_EINTERNAL, "invalid case '%s' was accepted", b->comment);
        }
        json_object_set_new(t, "expected", json_pack("{s:s}", "error", err.msg));
        rc = shc_gw_test(w, t, e);
    }
    return rc;
}

/* The negative-dims file: negative_cases, each in a group of its own mesh. */
static int gen_negative(shc_gw *w, shc_err *e)
{
    int rc = shc_gw_file(w, "negative-dims", e);
    for (size_t i = 0; i < sizeof negative_cases / sizeof *negative_cases && !rc; i++) {
        shcl_mesh_shape ms = shcl_mesh_shape_of(negative_cases[i].mesh);
        json_t *params = shcl_group_params(&ms, NULL), *keep = json_incref(params);
        json_t *t = shc_test_new(negative_cases[i].comment,
                                 negative_cases[i].valid ? "valid" : "invalid");
        json_object_set_new(t, "placements", json_string(negative_cases[i].placements));
        shc_shape s;
        if ((rc = shc_shape_parse(&s, negative_cases[i].shape, e)) ||
            (rc = shc_gw_group(w, params, e))) {
            json_decref(t), json_decref(keep);
            break;
        }
        json_object_set_new(t, "shape", shc_json_i64_array(s.d, s.ndim));
        shc_test_flag(t, "NegativeDim");
        shc_mesh m;
        shc_placements pl;
        shc_shape s2;
        shc_err pe;
        int prc = shcl_parse_inputs(keep, t, &m, &pl, &s2, &pe);
        if (prc == SHC_OK && negative_cases[i].valid) {
            rc = fill_expected(t, &m, &pl, &s2, false, e);
            shc_mesh_free(&m);
        } else if (prc != SHC_OK && !negative_cases[i].valid) {
            json_object_set_new(t, "expected", json_pack("{s:s}", "error", pe.msg));
        } else {
            if (prc == SHC_OK)
                shc_mesh_free(&m);
            rc = shc_fail(e, SHC_EINTERNAL, "negative-dims case '%s': %s", negative_cases[i].comment,
                          prc ? pe.msg : "accepted, but the table says torch refuses it");
        }
        json_decref(keep);
        rc = rc ? (json_decref(t), rc) : shc_gw_test(w, t, e);
    }
    return rc;
}

/* The sub-world file: subworld_groups, each group with its placements on every shape. */
static int gen_subworld(shc_gw *w, shc_err *e)
{
    int rc = shc_gw_file(w, "sub-world", e);
    for (size_t i = 0; i < sizeof subworld_groups / sizeof *subworld_groups && !rc; i++) {
        shcl_mesh_shape ms = shcl_mesh_shape_of(subworld_groups[i].mesh);
        shc_mesh m;
        json_t *params = shcl_group_params(&ms, NULL), *rm = json_array();
        for (const char *r = subworld_groups[i].ranks; *r; r += *r == ',')
            json_array_append_new(rm, json_integer(strtoll(r, (char **)&r, 10)));
        json_object_set_new(params, "rankMap", rm);
        json_object_set_new(params, "world", json_integer(subworld_groups[i].world));
        if ((rc = shcl_mesh_from_json(params, &m, e)) || (rc = shc_gw_group(w, params, e)))
            break;
        for (int p = 0; subworld_groups[i].placements[p] && !rc; p++) {
            shc_placements pl;
            rc = shc_placements_parse(&pl, subworld_groups[i].placements[p], e);
            for (int k = 0; sub_shapes[k] && !rc; k++) {
                shc_shape s;
                shc_placements held = pl; /* S(-1) is computed as the S(1) torch holds */
                if (!(rc = shc_shape_parse(&s, sub_shapes[k], e)) &&
                    !(rc = shc_placements_normalize(&held, s.ndim, e)))
                    rc = emit_case(w, &m, subworld_groups[i].mesh, &pl, &held, &s, sub_shapes[k],
                                   shcl_non_arange(&m), e);
            }
        }
        shc_mesh_free(&m);
    }
    return rc;
}

static int generate(shc_gw *w, shc_err *e)
{
    declare_notes(w);
    int rc = SHC_OK;
    for (size_t i = 0; i < sizeof sweeps / sizeof *sweeps && !rc; i++)
        rc = gen_sweep(w, &sweeps[i], e);
    for (size_t i = 0; i < sizeof tiers / sizeof *tiers && !rc; i++)
        rc = gen_tier(w, &tiers[i], e);
    if (!rc)
        rc = gen_invalid(w, e);
    if (!rc)
        rc = gen_negative(w, e);
    return rc ? rc : gen_subworld(w, e);
}

/* ---- vendor plugins (ABI v1) ---- */

static int layout_views(const shc_backend_v1 *be, const shc_pcase *b, const json_t *test, json_t **views,
                        shc_err *e)
{
    const json_t *flags = json_object_get(test, "flags");
    size_t i;
    json_t *f;
    json_array_foreach(flags, i, f)
        if (!strcmp(json_string_value(f), "StridedShard"))
            return shc_fail(e, SHC_EUNSUPPORTED, "ABI v1 layout has no _StridedShard index lists");
    for (int64_t r = 0; r < b->world; r++) {
        int64_t ls[SHC_BACKEND_MAX_DIMS] = {0}, off[SHC_BACKEND_MAX_DIMS] = {0};
        char err[512] = "";
        int rc = be->layout(&b->c, r, ls, off, err, sizeof err);
        if (rc == SHC_BACKEND_UNSUPPORTED)
            return shc_fail(e, SHC_EUNSUPPORTED, "plugin: layout unsupported: %s", err);
        views[r] = rc ? shc_error_view(err) : json_pack("{s:o, s:o}", "localShape",
                                                  shc_json_i64_array(ls, b->c.ndim),
                                                  "globalOffset", shc_json_i64s_array(off, b->c.ndim));
    }
    return SHC_OK;
}

/* Hook project.abi_v1.views: a vendor plugin's answer, as views. */
static int abi_v1_views(const shc_backend_v1 *be, const json_t *group, const json_t *test,
                        int64_t world, json_t **views, shc_err *e)
{
    shc_pcase b;
    int rc = shc_pcase_load(&b, group, test, world, false, e);
    if (!rc)
        rc = b.c.placements ? layout_views(be, &b, test, views, e)
                            : shc_fail(e, SHC_EFORMAT, "test has no placements");
    shc_pcase_free(&b);
    return rc;
}

const shc_family shc_family_shard_layout = {
    .name = "shard-layout",
    .source_name = "pytorch",
    .source_version = "2.13.0",
    .releases = SHC_TORCH_ALL_RELEASES,
    .summary = "per-rank local shape, global offset and _StridedShard index lists "
               "(torch 2.13 compute_local_shape_and_global_offset)",
    .generate = generate,
    .compute_rank = compute_rank,
    .compute_ranks = compute_ranks,
    .world_size = world_size,
    .gives = "per rank: local shape, global offset, `_StridedShard` index lists",
    .oracle = "torch 2.13 `_compute_local_shape_and_global_offset` (harness)",
    .project.abi_v1.views = abi_v1_views,
    .project.abi_v1.entry = offsetof(shc_backend_v1, layout),
    .harness_stride = 3,
    .claim = {.fields = SHC_NAMES("localShape", "globalOffset", "indices"),
              .optional = SHC_NAMES(SHC_STRICTER_THAN_TORCH)},
};
