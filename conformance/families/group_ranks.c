/*
 * group_ranks.c — the group-ranks golden family: process-group rank lists.
 *
 * Three kinds of test ("op"), all over one mesh + rank map (the test group):
 *  - "device_mesh": torch 2.13 DeviceMesh groups over ascending mesh dims
 *    "axes" (one dim = get_group(d); several = mesh[dims]._flatten()): every
 *    group in DeviceMesh order, and per rank its group, its position in the
 *    group in mesh order (the mesh coordinate) and in sorted order (its rank
 *    in the c10d communicator, which sorts).
 *  - "rank_lists": seed 002's get_split_rank_lists_for_axes(mesh, axes) and,
 *    per rank, get_rank_list_for_axes(mesh, axes, rank); axes as given (the
 *    seed sorts and de-duplicates; empty axes mean [rank] for the one and the
 *    whole mesh for the other).
 *  - "hsdp": seed 002's HSDP groups for a final layout and FSDP shard dim.
 *
 * The tables below say what is covered: mesh tiers, rank maps, seed axes
 * extras, HSDP layouts per mesh rank, and invalid inputs.  Schema:
 * golden/schemas/group-ranks_v1.json; checked against torch DeviceMesh and
 * the seed's semantics by the harness (tools/harness/adapters/torch_group_ranks.py).
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

static const char *const arange_only[] = {"arange", NULL};
static const char *const permuted[] = {"reverse", "transpose", "rotate", "swap-halves", NULL};
static const char *const tiny_maps[] = {"reverse", "rotate", NULL};
static const char *const explicit_4[] = {"3,1,2,0", "2,0,3,1", "1,3,0,2", NULL};
static const char *const large_meshes[] = {"30x8", "2x3x4x5", "64x8", "4x4x4x4", NULL};
static const char *const permuted_meshes[] = {"4", "6", "2x2", "2x4", "4x2", "3x2", "2x2x2",
                                              "4x4", "2x3x2", "2x2x2x2", "2x1x3", "30x8", NULL};
static const char *const mesh_4[] = {"4", NULL};

typedef struct tier {
    const char *stem;
    int min_dims, max_dims;
    int64_t max_ranks, min_size;
    const char *const *meshes;     /* explicit list instead of enumeration */
    const char *const *rank_maps;
    int64_t max_list_entries;      /* skip hsdp tests whose per-rank lists would hold
                                    * more entries than this in all (rank_lists stay
                                    * small: per-rank lists point into "split") */
} tier;

static const tier tiers[] = {
    {"all-meshes", 1, 4, 16, 1, NULL, arange_only, 1 << 20},
    {"rank-maps-tiny", 1, 4, 8, 1, NULL, tiny_maps, 1 << 20},
    {"rank-maps", 0, 0, 0, 0, permuted_meshes, permuted, 4096},
    {"rank-maps-explicit", 0, 0, 0, 0, mesh_4, explicit_4, 4096},
    {"large-meshes", 0, 0, 0, 0, large_meshes, arange_only, 4096},
};

/* Seed-002 axes beyond the ascending subsets: unsorted and repeated. */
static const char *const extra_axes[] = {"1,0", "0,0", "1,1,0", "2,0,2", "3,1", NULL};

/* HSDP layouts: final SPMD placements and the FSDP shard mesh dim (-1: none). */
typedef struct hsdp_row {
    const char *placements;
    int shard_dim;
} hsdp_row;
static const hsdp_row hsdp_rows[] = {
    {"R", 0}, {"R", -1}, {"S(0)", 0}, {"P(sum)", -1},
    {"R,R", 0}, {"R,R", 1}, {"R,S(0)", 0}, {"S(0),R", 0}, {"R,P(sum)", 0}, {"R,R", -1},
    {"S(0),S(1)", -1}, {"P(avg),R", 1},
    {"R,R,S(0)", 0}, {"R,R,R", 1}, {"R,P(avg),R", 2}, {"S(0),R,R", 0}, {"R,R,R", -1},
    {"R,S(1),R", 2},
    {"R,R,R,S(0)", 1}, {"R,R,R,R", 0}, {"R,S(0),R,P(sum)", 2}, {"R,R,R,R", -1},
    {"S(0),R,R,R", 3},
};

/* Inputs every implementation must reject. */
typedef struct bad_case {
    const char *mesh, *rank_map, *op, *axes, *placements;
    int shard_dim;
    const char *comment, *flag;
} bad_case;
static const bad_case invalid_cases[] = {
    {"2x2", "0,1,1,3", "device_mesh", "0", NULL, 0, "duplicate rank 1 in the rank map", NULL},
    {"2x2", "0,1,2,4", "device_mesh", "0", NULL, 0, "rank 4 outside a 4-rank mesh", NULL},
    {"2x2", "0,1,2", "device_mesh", "0", NULL, 0, "3 ranks for a 4-rank mesh", NULL},
    {"2x2", "0,1,2,-1", "device_mesh", "0", NULL, 0, "negative rank", NULL},
    {"4", "3,1,2,3", "rank_lists", "0", NULL, 0, "duplicate rank 3 (rank 0 missing)", NULL},
    {"2x0", NULL, "device_mesh", "0", NULL, 0, "mesh dim of size 0", NULL},
    {"2x2", NULL, "device_mesh", "1,0", NULL, 0, "DeviceMesh dims not ascending", NULL},
    {"2x2", NULL, "device_mesh", "0,0", NULL, 0, "DeviceMesh dim repeated", NULL},
    {"2x2", NULL, "device_mesh", "2", NULL, 0, "mesh dim 2 of a 2-d mesh", NULL},
    {"2x2", NULL, "rank_lists", "2", NULL, 0, "seed axis 2 of a 2-d mesh", "StricterThanSeed"},
    {"2x2", NULL, "rank_lists", "-1", NULL, 0, "seed axis -1", "StricterThanSeed"},
    {"2x2", NULL, "hsdp", NULL, "R,R", 2, "HSDP shard dim 2 of a 2-d mesh", NULL},
    {"2x2", NULL, "hsdp", NULL, "R", 0, "one placement for a 2-d mesh", NULL},
    {"2x2", NULL, "hsdp", NULL, "R,X", 0, "unparsable placement", SHC_NOT_TORCH_INPUT},
};

/* ---- computing one rank ---- */

static int axes_from_json(const json_t *a, int *axes, int *n, shc_err *e)
{
    size_t i;
    json_t *v;
    *n = 0;
    if (!json_is_array(a))
        return shc_fail(e, SHC_EFORMAT, "test: \"axes\" is not an array");
    json_array_foreach(a, i, v) {
        if (i >= SHC_MAX_MESH_DIMS)
            return shc_fail(e, SHC_EINVAL, "axes: more than %d", SHC_MAX_MESH_DIMS);
        axes[(*n)++] = (int)json_integer_value(v);
    }
    return SHC_OK;
}

static json_t *groups_json(const shc_groups *g)
{
    json_t *a = json_array();
    for (int64_t i = 0; i < g->ngroups; i++)
        json_array_append_new(a, shc_json_i64_array(g->ranks + i * g->group_size, g->group_size));
    return a;
}

/* What every rank of a case shares, computed once per case (per rank it was O(world) ints
 * built and freed for each of world ranks): the mesh's groups along the axes (device_mesh) or
 * its split rank lists (rank_lists), and their JSON, which each rank's view holds by
 * reference. */
typedef struct case_groups {
    bool have;
    shc_groups g;
    json_t *json;
} case_groups;

static void case_groups_free(case_groups *c)
{
    if (c->have) {
        shc_groups_free(&c->g);
        json_decref(c->json);
    }
    c->have = false;
}

/* The case's groups, made by make the first time: 0 or its error. */
static int case_groups_get(case_groups *c, const shc_mesh *m, const int *axes, int na,
                           int (*make)(const shc_mesh *, const int *, int, shc_groups *,
                                       shc_err *),
                           shc_err *e)
{
    if (c->have)
        return SHC_OK;
    int rc = make(m, axes, na, &c->g, e);
    if (rc)
        return rc;
    if (!(c->json = groups_json(&c->g))) {
        shc_groups_free(&c->g);
        return shc_fail(e, SHC_ENOMEM, "groups: out of memory");
    }
    c->have = true;
    return SHC_OK;
}

static int rank_device_mesh(const shc_mesh *m, const int *axes, int na, int64_t rank,
                            case_groups *cg, json_t *o, shc_err *e)
{
    int64_t gi, mi;
    int rc = shc_groups_locate(m, axes, na, rank, &gi, &mi, e);
    if (!rc)
        rc = case_groups_get(cg, m, axes, na, shc_groups_for_axes, e);
    if (rc)
        return rc;
    const shc_groups *g = &cg->g;
    int64_t si = shc_group_sorted_index(g->ranks + gi * g->group_size, g->group_size, rank);
    json_object_set(o, "groups", cg->json);
    json_object_set_new(o, "group", json_integer(gi));
    json_object_set_new(o, "localRank", json_integer(mi));
    json_object_set_new(o, "groupRank", json_integer(si));
    return SHC_OK;
}

static int rank_lists(const shc_mesh *m, const int *axes, int na, int64_t rank,
                      case_groups *cg, json_t *o, shc_err *e)
{
    int64_t *list, n;
    int rc = shc_rank_list_for_axes(m, axes, na, rank, &list, &n, e);
    if (rc)
        return rc;
    rc = case_groups_get(cg, m, axes, na, shc_split_rank_lists_for_axes, e);
    if (!rc) { /* compact form: the index of the equal split list, if any */
        const shc_groups *g = &cg->g;
        json_t *l = shc_json_i64_array(list, n);
        for (int64_t i = 0; i < g->ngroups && n == g->group_size; i++)
            if (!memcmp(list, g->ranks + i * n, (size_t)n * sizeof *list)) {
                json_decref(l);
                l = json_integer(i);
                break;
            }
        json_object_set(o, "split", cg->json);
        json_object_set_new(o, "rankList", l);
    }
    free(list);
    return rc;
}

static int rank_hsdp(const shc_mesh *m, const json_t *test, int64_t rank, json_t *o, shc_err *e)
{
    shc_placements pl;
    shc_hsdp h;
    const char *ps = json_string_value(json_object_get(test, "placements"));
    if (!ps)
        return shc_fail(e, SHC_EFORMAT, "test: \"placements\" is not a string");
    int rc = shc_placements_parse(&pl, ps, e);
    if (!rc)
        rc = shc_hsdp_groups(m, &pl, (int)json_integer_value(json_object_get(test, "shardDim")),
                             rank, &h, e);
    if (rc)
        return rc;
    json_object_set_new(o, "sharded", h.sharded_valid ? shc_json_i64_array(h.sharded, h.shard_size)
                                                      : json_string("invalid"));
    json_object_set_new(o, "unsharded", h.unsharded_valid
                                            ? shc_json_i64_array(h.unsharded, h.dp_size)
                                            : json_string("invalid"));
    json_object_set_new(o, "shardSize", json_integer(h.shard_size));
    json_object_set_new(o, "dpSize", json_integer(h.dp_size));
    json_object_set_new(o, "rankSize", json_integer(h.rank_size));
    shc_hsdp_free(&h);
    return SHC_OK;
}

/* One rank's values of a test on an already-built mesh; cg: what the case's ranks share
 * (zeroed for a case's first rank, case_groups_free after its last). */
static int rank_values(const shc_mesh *m, const json_t *test, int64_t rank, case_groups *cg,
                       json_t **out, shc_err *e)
{
    const char *op = json_string_value(json_object_get(test, "op"));
    int axes[SHC_MAX_MESH_DIMS], na = 0, rc;
    json_t *o = json_object();
    if (!op) {
        rc = shc_fail(e, SHC_EFORMAT, "test: \"op\" is not a string");
    } else if (!strcmp(op, "hsdp")) {
        rc = rank_hsdp(m, test, rank, o, e);
    } else if ((rc = axes_from_json(json_object_get(test, "axes"), axes, &na, e))) {
        /* reported */
    } else if (!strcmp(op, "device_mesh")) {
        rc = rank_device_mesh(m, axes, na, rank, cg, o, e);
    } else if (!strcmp(op, "rank_lists")) {
        rc = rank_lists(m, axes, na, rank, cg, o, e);
    } else {
        rc = shc_fail(e, SHC_EFORMAT, "test: unknown op '%s'", op);
    }
    if (rc) {
        json_decref(o);
        return rc;
    }
    *out = o;
    return SHC_OK;
}

/* Ranks [first, first + count) with the mesh read once (reading it per rank was a third of
 * `run --backend ref`'s time on this family). */
static int compute_ranks(const json_t *group, const json_t *test, int64_t first, int64_t count,
                         json_t **views, shc_err *e)
{
    shc_mesh m;
    int rc = shcl_mesh_from_json(group, &m, e);
    if (rc)
        return rc;
    case_groups cg = {0};
    for (int64_t i = 0; i < count && !rc; i++)
        rc = rank_values(&m, test, first + i, &cg, &views[i], e);
    case_groups_free(&cg);
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
    shc_gw_note(w, "NonArangeRanks",
                "The mesh's rank map is not arange (group rankMap): a rank's mesh coordinate "
                "is its position in the map. A port that takes rank r to sit at row-major "
                "position r gets every group wrong here.");
    shc_gw_note(w, "SortedOrderDiffers",
                "Some rank's communicator rank differs from its mesh-order position. "
                "groupRank is the index in the SORTED group (c10d new_group sorts ranks, and "
                "DeviceMesh.get_local_rank returns this), localRank the mesh-order position. "
                "A port must report both, and must not sort the groups lists themselves (they "
                "keep mesh order).");
    shc_gw_note(w, "Flatten",
                "DeviceMesh groups over several mesh dims (mesh[names]._flatten()): members "
                "row-major over the chosen dims in mesh order, groups enumerated row-major "
                "over the other dims.");
    shc_gw_note(w, "NonAdjacentFlatten",
                "Flattened mesh dims are not adjacent: the group strides over the dims in "
                "between. A port that flattens by a contiguous reshape of the chosen dims "
                "gets the members wrong.");
    shc_gw_note(w, "EmptyAxes",
                "Seed 002 with no axes: the rank list is [rank] and the split list is ONE "
                "list of every rank in mesh order (not one list per rank); rankList is then "
                "explicit, as [rank] is no split list.");
    shc_gw_note(w, "AllAxes",
                "Seed 002 over every mesh dim: one group of the whole mesh, in rank-map "
                "order.");
    shc_gw_note(w, "UnsortedAxes",
                "Seed 002 axes given unsorted or repeated: the seed sorts and de-duplicates "
                "them first (DeviceMesh would reject them). A port that uses them in the "
                "given order gets the member order wrong.");
    shc_gw_note(w, "InvalidGroup",
                "An HSDP group of size <= 1 is reported as \"invalid\" "
                "(fully_shard_sharded_group_invalid) with size 1 in shardSize/dpSize, and "
                "rankSize = max(1, shardSize * dpSize). A port must not report a one-rank "
                "group as a group.");
    shc_gw_note(w, "SizeOneMeshDim", "A mesh dim of size 1.");
    shc_gw_note(w, "LargeMesh", SHC_LARGE_MESH_NOTE);
    shc_gw_note(w, "StricterThanSeed",
                "shardcheck rejects an out-of-range axis (expected.error); seed 002 silently "
                "ignores it and answers as if the axis were absent. result acceptable: a "
                "rejection passes, and so does seed 002's answer, expected.alternatives[0].");
    shc_gw_note(w, SHC_NOT_TORCH_INPUT, SHC_NOT_TORCH_INPUT_NOTE);
}

/* Add every rank's values to test: rank-independent keys once, the rest perRank. */
static int fill_expected(json_t *test, const shc_mesh *m, const char *const *shared, shc_err *e)
{
    json_t *exp = json_object(), *per = json_object();
    case_groups cg = {0};
    for (int64_t r = 0; r < m->size; r++) {
        json_t *v;
        int rc = rank_values(m, test, r, &cg, &v, e);
        if (rc) {
            case_groups_free(&cg);
            json_decref(exp), json_decref(per);
            return rc;
        }
        const char *k;
        json_t *x;
        json_object_foreach(v, k, x) {
            bool is_shared = false;
            for (int i = 0; shared[i]; i++)
                is_shared |= !strcmp(shared[i], k);
            if (is_shared) {
                if (r == 0)
                    json_object_set(exp, k, x);
                continue;
            }
            json_t *arr = json_object_get(per, k);
            if (!arr)
                json_object_set_new(per, k, arr = json_array());
            json_array_append(arr, x);
        }
        json_decref(v);
    }
    case_groups_free(&cg);
    json_object_set_new(exp, "perRank", per);
    json_object_set_new(test, "expected", exp);
    return SHC_OK;
}

static bool has_unit_dim(const shc_mesh *m)
{
    for (int i = 0; i < m->ndim; i++)
        if (m->shape[i] == 1)
            return true;
    return false;
}

static void common_flags(json_t *t, const shc_mesh *m, bool non_arange)
{
    if (non_arange)
        shc_test_flag(t, "NonArangeRanks");
    if (has_unit_dim(m))
        shc_test_flag(t, "SizeOneMeshDim");
    if (m->size > SHC_LARGE_MESH_RANKS)
        shc_test_flag(t, "LargeMesh");
}

static json_t *axes_json(const int *axes, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_integer(axes[i]));
    return a;
}

static int emit_device_mesh(shc_gw *w, const shc_mesh *m, const char *ms, unsigned mask,
                            bool non_arange, shc_err *e)
{
    static const char *const shared[] = {"groups", NULL};
    int axes[SHC_MAX_MESH_DIMS], n = 0;
    char comment[192], buf[64] = ""; /* room for the longest mesh string and dims */
    for (int i = 0; i < m->ndim; i++)
        if (mask & (1u << i)) {
            axes[n++] = i;
            snprintf(buf + strlen(buf), sizeof buf - strlen(buf), n > 1 ? ",%d" : "%d", i);
        }
    snprintf(comment, sizeof comment, "%s DeviceMesh dims [%s]", ms, buf);
    json_t *t = shc_test_new(comment, "valid");
    json_object_set_new(t, "op", json_string("device_mesh"));
    json_object_set_new(t, "axes", axes_json(axes, n));
    int rc = fill_expected(t, m, shared, e);
    if (rc) {
        json_decref(t);
        return rc;
    }
    common_flags(t, m, non_arange);
    if (n > 1)
        shc_test_flag(t, "Flatten");
    for (int i = 1; i < n; i++)
        if (axes[i] != axes[i - 1] + 1)
            shc_test_flag(t, "NonAdjacentFlatten");
    json_t *per = json_object_get(json_object_get(t, "expected"), "perRank");
    if (!json_equal(json_object_get(per, "localRank"), json_object_get(per, "groupRank")))
        shc_test_flag(t, "SortedOrderDiffers");
    return shc_gw_test(w, t, e);
}

static int emit_rank_lists(shc_gw *w, const shc_mesh *m, const char *ms, const int *axes, int n,
                           bool non_arange, shc_err *e)
{
    static const char *const shared[] = {"split", NULL};
    int norm[SHC_MAX_MESH_DIMS], nn;
    if (shc_axes_normalize(m, axes, n, norm, &nn, NULL))
        return SHC_OK; /* table row not applicable to this mesh */
    char comment[128], buf[64] = "";
    for (int i = 0; i < n; i++)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), i ? ",%d" : "%d", axes[i]);
    snprintf(comment, sizeof comment, "%s seed-002 axes [%s]", ms, buf);
    json_t *t = shc_test_new(comment, "valid");
    json_object_set_new(t, "op", json_string("rank_lists"));
    json_object_set_new(t, "axes", axes_json(axes, n));
    int rc = fill_expected(t, m, shared, e);
    if (rc) {
        json_decref(t);
        return rc;
    }
    common_flags(t, m, non_arange);
    if (nn == 0)
        shc_test_flag(t, "EmptyAxes");
    if (nn == m->ndim)
        shc_test_flag(t, "AllAxes");
    bool sorted = nn == n;
    for (int i = 0; i < n && sorted; i++)
        sorted = axes[i] == norm[i];
    if (!sorted)
        shc_test_flag(t, "UnsortedAxes");
    return shc_gw_test(w, t, e);
}

static int emit_hsdp(shc_gw *w, const shc_mesh *m, const char *ms, const hsdp_row *row,
                     bool non_arange, int64_t max_entries, shc_err *e)
{
    static const char *const shared[] = {NULL};
    char comment[160];
    snprintf(comment, sizeof comment, "%s HSDP", ms);
    json_t *t = shc_test_new(comment, "valid");
    json_object_set_new(t, "op", json_string("hsdp"));
    json_object_set_new(t, "placements", json_string(row->placements));
    json_object_set_new(t, "shardDim", json_integer(row->shard_dim));
    int rc = fill_expected(t, m, shared, e);
    if (rc) {
        json_decref(t);
        return rc;
    }
    json_t *per = json_object_get(json_object_get(t, "expected"), "perRank");
    int64_t entries = 0;
    for (int64_t r = 0; r < m->size; r++)
        entries += (int64_t)json_array_size(json_array_get(json_object_get(per, "sharded"), r)) +
                   (int64_t)json_array_size(json_array_get(json_object_get(per, "unsharded"), r));
    if (entries > max_entries) { /* keep the corpus small: sampled out */
        json_decref(t);
        return SHC_OK;
    }
    common_flags(t, m, non_arange);
    json_t *s0 = json_array_get(json_object_get(per, "sharded"), 0);
    json_t *u0 = json_array_get(json_object_get(per, "unsharded"), 0);
    if (json_is_string(s0) || json_is_string(u0))
        shc_test_flag(t, "InvalidGroup");
    return shc_gw_test(w, t, e);
}

static int gen_mesh(shc_gw *w, const tier *t, const shcl_mesh_shape *ms, const char *rule,
                    shc_err *e)
{
    shc_mesh m;
    char mstr[64];
    shcl_mesh_str(ms, mstr, sizeof mstr);
    json_t *params = shcl_group_params(ms, rule);
    int rc = shcl_mesh_from_json(params, &m, e);
    if (rc) {
        json_decref(params);
        return rc;
    }
    bool non_arange = shcl_non_arange(&m);
    rc = shc_gw_group(w, params, e);
    unsigned full = (1u << m.ndim) - 1;
    for (unsigned mask = 1; mask <= full && !rc; mask++)
        rc = emit_device_mesh(w, &m, mstr, mask, non_arange, e);
    for (unsigned mask = 0; mask <= full && !rc; mask++) {
        int axes[SHC_MAX_MESH_DIMS], n = 0;
        for (int i = 0; i < m.ndim; i++)
            if (mask & (1u << i))
                axes[n++] = i;
        rc = emit_rank_lists(w, &m, mstr, axes, n, non_arange, e);
    }
    for (int x = 0; extra_axes[x] && !rc; x++) {
        int axes[SHC_MAX_MESH_DIMS], n = 0;
        for (const char *p = extra_axes[x]; *p && n < SHC_MAX_MESH_DIMS;) {
            axes[n++] = (int)strtol(p, (char **)&p, 10);
            if (*p == ',')
                p++;
        }
        rc = emit_rank_lists(w, &m, mstr, axes, n, non_arange, e);
    }
    for (size_t h = 0; h < sizeof hsdp_rows / sizeof *hsdp_rows && !rc; h++) {
        shc_placements pl;
        if (shc_placements_parse(&pl, hsdp_rows[h].placements, NULL) || pl.n != m.ndim)
            continue;
        rc = emit_hsdp(w, &m, mstr, &hsdp_rows[h], non_arange, t->max_list_entries, e);
    }
    shc_mesh_free(&m);
    return rc;
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
    for (int i = 0; i < n && !rc; i++)
        for (int r = 0; t->rank_maps[r] && !rc; r++) {
            if (list[i].ndim == 1 && !strcmp(t->rank_maps[r], "transpose"))
                continue; /* same as arange */
            rc = gen_mesh(w, t, &list[i], t->rank_maps[r], e);
        }
    return rc;
}

static json_t *int_list(const char *s)
{
    json_t *a = json_array();
    for (const char *p = s; p && *p;) {
        json_array_append_new(a, json_integer(strtoll(p, (char **)&p, 10)));
        if (*p == ',')
            p++;
    }
    return a;
}

/* StricterThanSeed: shardcheck rejects an out-of-range seed-002 axis, the seed
 * ignores it (note StricterThanSeed).  The case is acceptable: a rejection
 * passes (expected.error), and so does the seed's answer, computed here as the
 * rank lists over the axes left once out-of-range ones are dropped. */
static int seed_alternative(const json_t *params, json_t *t, shc_err *e)
{
    static const char *const shared[] = {"split", NULL};
    shc_mesh m;
    int rc = shcl_mesh_from_json(params, &m, e);
    if (rc)
        return rc;
    json_t *kept = json_array(), *ax, *seed = json_deep_copy(t);
    size_t i;
    json_array_foreach(json_object_get(t, "axes"), i, ax) {
        json_int_t a = json_integer_value(ax);
        if (a >= 0 && a < m.ndim)
            json_array_append(kept, ax);
    }
    json_object_set_new(seed, "axes", kept);
    rc = fill_expected(seed, &m, shared, e);
    if (!rc) {
        json_object_set_new(json_object_get(t, "expected"), "alternatives",
                            json_pack("[O]", json_object_get(seed, "expected")));
        json_object_set_new(t, "result", json_string("acceptable"));
    }
    json_decref(seed);
    shc_mesh_free(&m);
    return rc;
}

static int gen_invalid(shc_gw *w, shc_err *e)
{
    int rc = shc_gw_file(w, "invalid", e);
    for (size_t i = 0; i < sizeof invalid_cases / sizeof *invalid_cases && !rc; i++) {
        const bad_case *b = &invalid_cases[i];
        shcl_mesh_shape ms = shcl_mesh_shape_of(b->mesh);
        json_t *params = shcl_group_params(&ms, NULL);
        if (b->rank_map)
            json_object_set_new(params, "rankMap", int_list(b->rank_map));
        json_t *t = shc_test_new(b->comment, "invalid");
        json_object_set_new(t, "op", json_string(b->op));
        if (b->axes)
            json_object_set_new(t, "axes", int_list(b->axes));
        if (b->placements) {
            json_object_set_new(t, "placements", json_string(b->placements));
            json_object_set_new(t, "shardDim", json_integer(b->shard_dim));
        }
        if (b->flag)
            shc_test_flag(t, b->flag);
        json_t *out = NULL;
        shc_err err;
        shc_err_clear(&err);
        if (compute_rank(params, t, 0, &out, &err) == SHC_OK) {
            json_decref(out), json_decref(t), json_decref(params);
            return shc_fail(e, SHC_EINTERNAL, "invalid case '%s' was accepted", b->comment);
        }
        json_object_set_new(t, "expected", json_pack("{s:s}", "error", err.msg));
        if (b->flag && !strcmp(b->flag, "StricterThanSeed"))
            rc = seed_alternative(params, t, e);
        if (rc) {
            json_decref(t), json_decref(params);
            return rc;
        }
        if (!(rc = shc_gw_group(w, params, e)))
            rc = shc_gw_test(w, t, e);
        else
            json_decref(t);
    }
    return rc;
}

static int generate(shc_gw *w, shc_err *e)
{
    declare_notes(w);
    int rc = SHC_OK;
    for (size_t i = 0; i < sizeof tiers / sizeof *tiers && !rc; i++)
        rc = gen_tier(w, &tiers[i], e);
    return rc ? rc : gen_invalid(w, e);
}

/* ---- vendor plugins (ABI v1) ---- */

/* group-ranks, op device_mesh: the plugin names each rank's group (mesh order);
 * the family's view follows from all ranks' answers: "groups" are the distinct
 * lists ordered by the mesh position of their first member (DeviceMesh order),
 * "group" the index of the rank's own list, "localRank" its place in it and
 * "groupRank" its place in the sorted list (c10d sorts). */
static int64_t mesh_pos(const shc_pcase *b, int64_t rank)
{
    for (int64_t p = 0; b->rank_map && p < b->world; p++)
        if (b->rank_map[p] == rank)
            return p;
    return rank;
}

static int group_views(const shc_backend_v1 *be, const shc_pcase *b, const json_t *test, json_t **views,
                       shc_err *e)
{
    const char *op = json_string_value(json_object_get(test, "op"));
    if (!op || strcmp(op, "device_mesh"))
        return shc_fail(e, SHC_EUNSUPPORTED, "ABI v1 group covers DeviceMesh groups only, not op "
                        "%s (seed-002 rank lists, HSDP)", op ? op : "(none)");
    const json_t *aj = json_object_get(test, "axes");
    int axes[SHC_MAX_MESH_DIMS], na = 0;
    if (!json_is_array(aj) || json_array_size(aj) > SHC_MAX_MESH_DIMS)
        return shc_fail(e, SHC_EFORMAT, "test axes: expected at most %d mesh dims",
                        SHC_MAX_MESH_DIMS);
    for (size_t i = 0; i < json_array_size(aj); i++)
        axes[na++] = (int)json_integer_value(json_array_get(aj, i));
    int64_t w = b->world, cap = w ? w : 1;
    if (w > (1 << 14)) /* every rank's list is held at once: world^2 entries */
        return shc_fail(e, SHC_EUNSUPPORTED, "group check holds at most %d ranks, mesh has %lld",
                        1 << 14, (long long)w);
    int64_t *lists = calloc((size_t)(cap * cap), sizeof *lists), *len = calloc((size_t)cap,
                                                                                sizeof *len);
    int64_t *order = calloc((size_t)cap, sizeof *order);
    if (!lists || !len || !order) {
        free(lists), free(len), free(order);
        return shc_fail(e, SHC_ENOMEM, "out of memory");
    }
    bool all = true;
    int rc = SHC_OK;
    char why[600] = "";
    for (int64_t r = 0; r < w && !rc; r++) {
        char err[512] = "";
        int prc = be->group(&b->c, axes, na, r, lists + r * cap, cap, &len[r], err, sizeof err);
        if (prc == SHC_BACKEND_UNSUPPORTED)
            rc = shc_fail(e, SHC_EUNSUPPORTED, "plugin: group unsupported: %s", err);
        else if (prc || len[r] < 0 || len[r] > cap) {
            views[r] = shc_error_view(prc ? err : "plugin group: list length outside 0..world");
            if (all)
                snprintf(why, sizeof why, "rank %lld's group failed (%.500s); this rank's answer "
                         "is not checked", (long long)r, prc ? err : "bad length");
            all = false;
        }
    }
    /* distinct lists (first occurrence per rank), sorted by their first member's mesh position */
    int64_t ng = 0;
    for (int64_t r = 0; r < w && !rc && all; r++) {
        bool seen = false;
        for (int64_t g = 0; g < ng && !seen; g++)
            seen = len[order[g]] == len[r] &&
                   !memcmp(lists + order[g] * cap, lists + r * cap, (size_t)len[r] * sizeof *lists);
        if (!seen)
            order[ng++] = r;
    }
    for (int64_t i = 1; i < ng; i++)
        for (int64_t j = i; j > 0; j--) {
            int64_t a = order[j - 1], c = order[j];
            int64_t pa = len[a] ? mesh_pos(b, lists[a * cap]) : -1;
            int64_t pc = len[c] ? mesh_pos(b, lists[c * cap]) : -1;
            if (pa <= pc)
                break;
            order[j - 1] = c, order[j] = a;
        }
    for (int64_t r = 0; r < w && !rc && all; r++) {
        json_t *groups = json_array();
        int64_t gi = -1, mi = -1, si = 0;
        for (int64_t g = 0; g < ng; g++) {
            const int64_t *l = lists + order[g] * cap;
            json_array_append_new(groups, shc_json_i64_array(l, len[order[g]]));
            if (gi < 0 && len[order[g]] == len[r] &&
                !memcmp(l, lists + r * cap, (size_t)len[r] * sizeof *l))
                gi = g;
        }
        for (int64_t k = 0; k < len[r]; k++) {
            if (lists[r * cap + k] == r && mi < 0)
                mi = k;
            si += lists[r * cap + k] < r;
        }
        views[r] = json_pack("{s:o, s:I, s:I, s:I}", "groups", groups, "group", (json_int_t)gi,
                             "localRank", (json_int_t)mi, "groupRank",
                             (json_int_t)(mi < 0 ? -1 : si));
    }
    for (int64_t r = 0; r < w && !all && !rc; r++)
        if (!views[r])
            views[r] = shc_error_view(why);
    free(lists), free(len), free(order);
    return rc;
}

/* Hook project.abi_v1.views: a vendor plugin's answer, as views. */
static int abi_v1_views(const shc_backend_v1 *be, const json_t *group, const json_t *test,
                        int64_t world, json_t **views, shc_err *e)
{
    shc_pcase b;
    int rc = shc_pcase_load(&b, group, test, world, true, e);
    if (!rc)
        rc = group_views(be, &b, test, views, e);
    shc_pcase_free(&b);
    return rc;
}

const shc_family shc_family_group_ranks = {
    .name = "group-ranks",
    .source_name = "pytorch",
    .source_version = "2.13.0",
    .releases = SHC_TORCH_ALL_RELEASES,
    .summary = "DeviceMesh groups per dim and flattened, seed-002 rank lists and HSDP groups",
    .generate = generate,
    .compute_ranks = compute_ranks,
    .compute_rank = compute_rank,
    .world_size = world_size,
    .gives = "per-dim and flattened groups, the rank's group, sorted communicator order, seed-002 rank lists, HSDP groups",
    .oracle = "torch 2.13 DeviceMesh on a fake process group (harness); Megatron-core 0.19.2's "
              "RankGenerator (arange device_mesh cases)",
    .project.abi_v1.views = abi_v1_views,
    .project.abi_v1.entry = offsetof(shc_backend_v1, group),
    .harness_stride = 4,  /* every 4th: 5,279 cases, about 54 s of adapter time (issue 36: CI time) */
    .harness_peers = SHC_NAMES("adapters.megatron_group_ranks"),
    .claim = {.fields = SHC_NAMES("groups", "group", "localRank", "groupRank", "split", "rankList",
                                  "sharded", "unsharded", "shardSize", "dpSize", "rankSize")},
};
