/*
 * layout_common.h — helpers shared by the shard-layout and group-ranks
 * families: reading a mesh and a shape from a test's JSON (through the same
 * parsers as the CLI, so error messages match), enumerating every mesh of a
 * tier, and the named rank-map rules of the tables.  Internal to
 * conformance/; exercised by every regeneration (golden_regen.sh).
 */
#ifndef SHC_LAYOUT_COMMON_H
#define SHC_LAYOUT_COMMON_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "golden.h"

/* Append "%lld" items of a JSON integer array to buf with separator sep. */
static inline int shcl_join(const json_t *a, char sep, char *buf, size_t n, const char *what,
                            shc_err *e)
{
    size_t k = 0, i;
    json_t *v;
    buf[0] = '\0';
    if (!json_is_array(a))
        return shc_fail(e, SHC_EFORMAT, "%s: expected an array of integers", what);
    json_array_foreach(a, i, v) {
        if (!json_is_integer(v))
            return shc_fail(e, SHC_EFORMAT, "%s: item %zu is not an integer", what, i);
        if (i && k < n)
            buf[k++] = sep;
        /* every case's mesh and shape are joined in every process that runs it */
        char d[SHC_I64_DEC_MAX];
        size_t nd = shc_i64_dec((int64_t)json_integer_value(v), d);
        for (size_t j = 0; j < nd && k < n; j++)
            buf[k++] = d[j];
        if (k >= n)
            return shc_fail(e, SHC_EFORMAT, "%s: too long", what);
        buf[k] = '\0';
    }
    return SHC_OK;
}

/* A group's optional "world": the ranks of a world larger than its mesh (torch's
 * non-participating ranks are the others); 0 when absent, -1 when not a positive integer. */
static inline int64_t shcl_group_world(const json_t *group)
{
    const json_t *w = json_object_get(group, "world");
    if (!w)
        return 0;
    return json_is_integer(w) && json_integer_value(w) >= 1 ? json_integer_value(w) : -1;
}

/* Mesh of a test group: "mesh" [sizes], optional "rankMap" [ranks] and "world". */
static inline int shcl_mesh_from_json(const json_t *group, shc_mesh *m, shc_err *e)
{
    char shape[256];
    memset(m, 0, sizeof *m);
    int rc = shcl_join(json_object_get(group, "mesh"), 'x', shape, sizeof shape, "mesh", e);
    if (rc)
        return rc;
    int64_t world = shcl_group_world(group);
    if (world < 0)
        return shc_fail(e, SHC_EFORMAT, "group world: expected a positive integer");
    const json_t *rm = json_object_get(group, "rankMap");
    if (!rm)
        return shc_mesh_parse_world(m, shape, NULL, world, e);
    size_t cap = 24 * json_array_size(rm) + 16; /* an int64 is at most 20 chars + ',' */
    char *ranks = malloc(cap);
    if (!ranks)
        return shc_fail(e, SHC_ENOMEM, "rank map: out of memory");
    rc = shcl_join(rm, ',', ranks, cap, "rankMap", e);
    if (!rc)
        rc = shc_mesh_parse_world(m, shape, ranks, world, e);
    free(ranks);
    return rc;
}

/* Tensor shape from a JSON array (negative sizes rejected by shc_shape_parse). */
static inline int shcl_shape_from_json(const json_t *a, shc_shape *s, shc_err *e)
{
    char buf[512];
    int rc = shcl_join(a, ',', buf, sizeof buf, "shape", e);
    return rc ? rc : shc_shape_parse(s, buf, e);
}

/* World size of a group's mesh (product of "mesh"), 1 if unreadable. */
static inline int64_t shcl_world(const json_t *group)
{
    int64_t gw = shcl_group_world(group);
    if (gw > 0)
        return gw <= SHC_MAX_WORLD ? gw : 1;
    int64_t w = 1;
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(group, "mesh"), i, v) {
        int64_t s = json_integer_value(v);
        if (s < 1 || w > SHC_MAX_WORLD / s)
            return 1;
        w *= s;
    }
    return w;
}

/* A mesh shape of a table (up to 4 dims in the tables). */
typedef struct shcl_mesh_shape {
    int ndim;
    int64_t d[SHC_MAX_MESH_DIMS];
} shcl_mesh_shape;

/* Every mesh of min..max dims, each dim in [min_size, max_ranks], at most
 * max_ranks ranks, in lexicographic order; returns the count (out may be NULL). */
static inline int shcl_enum_meshes(int min_dims, int max_dims, int64_t max_ranks,
                                   int64_t min_size, shcl_mesh_shape *out, int cap)
{
    int n = 0;
    for (int nd = min_dims; nd <= max_dims; nd++) {
        int64_t c[SHC_MAX_MESH_DIMS];
        for (int i = 0; i < nd; i++)
            c[i] = min_size;
        for (;;) {
            int64_t prod = 1;
            for (int i = 0; i < nd; i++)
                prod *= c[i];
            if (prod <= max_ranks) {
                if (out && n < cap) {
                    out[n].ndim = nd;
                    memcpy(out[n].d, c, sizeof c);
                }
                n++;
            }
            int i = nd - 1; /* odometer; a dim resets once the product is too big */
            while (i >= 0) {
                c[i]++;
                int64_t p = 1;
                for (int j = 0; j <= i; j++)
                    p *= c[j];
                for (int j = i + 1; j < nd; j++)
                    p *= min_size;
                if (p <= max_ranks)
                    break;
                c[i] = min_size;
                i--;
            }
            if (i < 0)
                break;
        }
    }
    return n;
}

/* Parse a mesh shape "2x3x4" from a table (tables are trusted; aborts on junk). */
static inline shcl_mesh_shape shcl_mesh_shape_of(const char *s)
{
    shcl_mesh_shape m = {0, {0}};
    while (*s && m.ndim < SHC_MAX_MESH_DIMS) {
        m.d[m.ndim++] = strtoll(s, (char **)&s, 10);
        if (*s == 'x')
            s++;
    }
    return m;
}

/* Rank map named by a table rule, as a JSON array; NULL for "arange".
 * Rules: "reverse" (size-1-i), "transpose" (column-major numbering),
 * "rotate" ((i+1) mod size), "swap-halves", or an explicit "3,1,2,0". */
static inline json_t *shcl_rank_map(const shcl_mesh_shape *ms, const char *rule)
{
    if (!rule || !strcmp(rule, "arange"))
        return NULL;
    int64_t size = 1;
    for (int i = 0; i < ms->ndim; i++)
        size *= ms->d[i];
    json_t *a = json_array();
    for (int64_t pos = 0; pos < size; pos++) {
        int64_t r = 0;
        if (!strcmp(rule, "reverse")) {
            r = size - 1 - pos;
        } else if (!strcmp(rule, "rotate")) {
            r = (pos + 1) % size;
        } else if (!strcmp(rule, "swap-halves")) {
            r = (pos + size / 2) % size;
        } else if (!strcmp(rule, "transpose")) {
            int64_t rem = pos, coord[SHC_MAX_MESH_DIMS], stride = 1;
            for (int i = ms->ndim - 1; i >= 0; i--) {
                coord[i] = rem % ms->d[i];
                rem /= ms->d[i];
            }
            r = 0;
            for (int i = 0; i < ms->ndim; i++) {
                r += coord[i] * stride;
                stride *= ms->d[i];
            }
        } else {
            const char *p = rule;
            for (int64_t k = 0; k <= pos && p; k++) {
                r = strtoll(p, (char **)&p, 10);
                p = (*p == ',') ? p + 1 : p;
            }
        }
        json_array_append_new(a, json_integer(r));
    }
    return a;
}

/* Group parameters {"mesh": [...], "rankMap": [...]?}. */
static inline json_t *shcl_group_params(const shcl_mesh_shape *ms, const char *rule)
{
    json_t *g = json_object();
    json_object_set_new(g, "mesh", shc_json_i64_array(ms->d, ms->ndim));
    json_t *rm = shcl_rank_map(ms, rule);
    if (rm)
        json_object_set_new(g, "rankMap", rm);
    return g;
}

/* Whether a mesh's rank map is not arange: the NonArangeRanks flag asks this of the map
 * itself, not of the rule that built it ("reverse" of one rank is [0], arange). */
static inline bool shcl_non_arange(const shc_mesh *m)
{
    for (int64_t pos = 0; pos < m->size; pos++)
        if (m->ranks[pos] != pos)
            return true;
    return false;
}

/* Format a mesh shape "2x3". */
static inline void shcl_mesh_str(const shcl_mesh_shape *ms, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int i = 0; i < ms->ndim && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, i ? "x%lld" : "%lld", (long long)ms->d[i]);
}
/* Parse a test's inputs: mesh from the group, placements and shape from the
 * test, checked against each other (the mesh is freed on failure). */
static inline int shcl_parse_inputs(const json_t *group, const json_t *test, shc_mesh *m, shc_placements *pl,
                                    shc_shape *s, shc_err *e)
{
    int rc = shcl_mesh_from_json(group, m, e);
    if (rc)
        return rc;
    const char *ps = json_string_value(json_object_get(test, "placements"));
    rc = ps ? shc_placements_parse(pl, ps, e)
            : shc_fail(e, SHC_EFORMAT, "test: \"placements\" is not a string");
    if (!rc)
        rc = shcl_shape_from_json(json_object_get(test, "shape"), s, e);
    if (!rc) /* a negative dim counts from the end, as torch's distribute_tensor has it */
        rc = shc_placements_normalize(pl, s->ndim, e);
    if (!rc)
        rc = shc_placements_check(pl, m, s->ndim, e);
    if (rc)
        shc_mesh_free(m);
    return rc;
}

#endif
