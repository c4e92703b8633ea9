/*
 * plugin_case.c — the golden test as ABI v1's shc_backend_case (see
 * plugin_case.h).  Malformed golden input is an error naming the field, never
 * a crash: the runner and fuzz_plugin feed it golden bytes.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "plugin_case.h"
#include "golden.h"

static int ints(const json_t *a, int64_t *out, int cap, int *n, const char *what, shc_err *e)
{
    size_t i;
    json_t *v;
    if (!json_is_array(a) || (int)json_array_size(a) > cap)
        return shc_fail(e, SHC_EFORMAT, "%s: expected an array of at most %d integers", what, cap);
    json_array_foreach(a, i, v) {
        if (!json_is_integer(v))
            return shc_fail(e, SHC_EFORMAT, "%s: item %zu is not an integer", what, i);
        out[i] = json_integer_value(v);
    }
    *n = (int)json_array_size(a);
    return SHC_OK;
}

static int from_json(shc_pcase *b, const json_t *group, const json_t *test, shc_err *e)
{
    memset(b, 0, sizeof *b);
    int rc = ints(json_object_get(group, "mesh"), b->mesh, SHC_MAX_MESH_DIMS, &b->c.mesh_ndim,
                  "group mesh", e);
    if (!rc && json_object_get(test, "shape")) /* group-ranks has none */
        rc = ints(json_object_get(test, "shape"), b->shape, SHC_MAX_TENSOR_DIMS, &b->c.ndim,
                  "test shape", e);
    if (rc)
        return rc;
    b->world = 1;
    for (int i = 0; i < b->c.mesh_ndim; i++)
        b->world *= b->mesh[i];
    const json_t *gw = json_object_get(group, "world");
    if (gw && json_integer_value(gw) != b->world) /* shard-layout's sub-world.json */
        return shc_fail(e, SHC_EUNSUPPORTED, "ABI v1 states no world larger than the mesh "
                        "(group world %lld, mesh of %lld ranks)",
                        (long long)json_integer_value(gw), (long long)b->world);
    const json_t *rm = json_object_get(group, "rankMap");
    if (rm) {
        int n;
        b->rank_map = malloc((size_t)b->world * sizeof *b->rank_map);
        if (!b->rank_map || json_array_size(rm) != (size_t)b->world)
            return shc_fail(e, SHC_EFORMAT, "group rankMap: expected %lld ranks",
                            (long long)b->world);
        if ((rc = ints(rm, b->rank_map, (int)b->world, &n, "group rankMap", e)))
            return rc;
    }
    b->c.mesh_shape = b->mesh;
    b->c.shape = b->shape;
    b->c.rank_map = b->rank_map;
    b->c.placements = json_string_value(json_object_get(test, "placements"));
    b->c.src = json_string_value(json_object_get(test, "src"));
    b->c.dst = json_string_value(json_object_get(test, "dst"));
    b->c.dtype = json_string_value(json_object_get(test, "dtype"));
    return SHC_OK;
}

int shc_pcase_load(shc_pcase *b, const json_t *group, const json_t *test, int64_t world,
                   bool unstateable_invalid, shc_err *e)
{
    int rc = from_json(b, group, test, e);
    if (!rc && !b->c.dtype)
        b->c.dtype = json_string_value(json_object_get(group, "dtype"));
    if (!rc && b->world != world)
        rc = shc_fail(e, SHC_EFORMAT, "test mesh has %lld ranks, runner expected %lld",
                      (long long)b->world, (long long)world);
    const char *res = json_string_value(json_object_get(test, "result"));
    if (rc && unstateable_invalid && res && !strcmp(res, "invalid")) {
        char why[sizeof e->msg]; /* a rank map of the wrong length, a mesh without ranks */
        snprintf(why, sizeof why, "%s", e->msg);
        rc = shc_fail(e, SHC_EUNSUPPORTED, "ABI v1 cannot state this malformed case (%.400s)",
                      why);
    }
    return rc;
}

void shc_pcase_free(shc_pcase *b)
{
    free(b->rank_map);
    b->rank_map = NULL;
}

int shc_pcase_views(const shc_backend_v1 *be, const json_t *group, const json_t *test,
                    int64_t world, bool unstateable_invalid, shc_pcase_views_fn fn,
                    json_t **views, shc_err *e)
{
    shc_pcase b;
    int rc = shc_pcase_load(&b, group, test, world, unstateable_invalid, e);
    if (!rc)
        rc = b.c.src && b.c.dst ? fn(be, &b, group, test, views, e)
                                : shc_fail(e, SHC_EFORMAT, "test has no src/dst");
    shc_pcase_free(&b);
    return rc;
}

json_t *shc_error_view(const char *msg) { return json_pack("{s:s}", "error", msg); }

json_t *shc_json_i64s_array(const int64_t *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, shc_json_i64s(v[i]));
    return a;
}
