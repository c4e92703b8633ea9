/*
 * backend_plugin.c — load a vendor backend (shardcheck_backend.h, ABI v1)
 * with dlopen and turn its answers into golden-format views.
 *
 * The loader is strict on purpose: a library without the two symbols, with
 * another ABI version, or whose table is shorter than v1's gets a message
 * naming the file and what is wrong, never a crash.  For redistribute-data
 * the plugin executes every rank at once on the same deterministic inputs
 * our backends use (testdata.c), and the runner checks the outputs both
 * against the golden digests and against the oracle.  Tested by
 * conformance/tests/run_faults.sh and run_mpi.sh.
 */
#include "config.h"
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "backend_plugin.h"
#include "redistribute_exec.h"
#include "golden.h"

int shc_plugin_open(shc_plugin *p, const char *path, shc_err *e)
{
    memset(p, 0, sizeof *p);
    snprintf(p->path, sizeof p->path, "%s", path);
    p->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!p->dl)
        return shc_fail(e, SHC_EINVAL, "plugin %s: cannot load: %s", path, dlerror());
    shc_backend_abi_fn abi;
    shc_backend_entry_fn entry;
    *(void **)&abi = dlsym(p->dl, SHC_BACKEND_ABI_SYMBOL);
    *(void **)&entry = dlsym(p->dl, SHC_BACKEND_ENTRY_SYMBOL);
    int rc = SHC_OK;
    if (!abi || !entry)
        rc = shc_fail(e, SHC_EINVAL, "plugin %s: missing symbol %s (not a shardcheck backend? "
                      "see shardcheck_backend.h)", path,
                      !abi ? SHC_BACKEND_ABI_SYMBOL : SHC_BACKEND_ENTRY_SYMBOL);
    else if (abi() != SHC_BACKEND_ABI_VERSION)
        rc = shc_fail(e, SHC_EINVAL, "plugin %s: ABI version %u, this runner speaks version %u",
                      path, abi(), SHC_BACKEND_ABI_VERSION);
    else if (!(p->be = entry()))
        rc = shc_fail(e, SHC_EINVAL, "plugin %s: %s() returned NULL", path,
                      SHC_BACKEND_ENTRY_SYMBOL);
    else if (p->be->abi_version != SHC_BACKEND_ABI_VERSION ||
             p->be->struct_size < sizeof(shc_backend_v1))
        rc = shc_fail(e, SHC_EINVAL, "plugin %s: backend table says ABI %u, size %u (want %u, "
                      ">= %zu)", path, p->be->abi_version, p->be->struct_size,
                      SHC_BACKEND_ABI_VERSION, sizeof(shc_backend_v1));
    if (rc) {
        dlclose(p->dl);
        p->dl = NULL;
        p->be = NULL;
    }
    return rc;
}

void shc_plugin_close(shc_plugin *p)
{
    if (p->dl)
        dlclose(p->dl);
    p->dl = NULL;
    p->be = NULL;
}

/* ---- the case, from the golden JSON ---- */

typedef struct bcase {
    shc_backend_case c;
    int64_t mesh[SHC_MAX_MESH_DIMS], shape[SHC_MAX_TENSOR_DIMS];
    int64_t *rank_map;
    int64_t world;
} bcase;

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

static int bcase_from_json(bcase *b, const json_t *group, const json_t *test, shc_err *e)
{
    memset(b, 0, sizeof *b);
    int rc = ints(json_object_get(group, "mesh"), b->mesh, SHC_MAX_MESH_DIMS, &b->c.mesh_ndim,
                  "group mesh", e);
    if (!rc)
        rc = ints(json_object_get(test, "shape"), b->shape, SHC_MAX_TENSOR_DIMS, &b->c.ndim,
                  "test shape", e);
    if (rc)
        return rc;
    b->world = 1;
    for (int i = 0; i < b->c.mesh_ndim; i++)
        b->world *= b->mesh[i];
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

static json_t *err_view(const char *msg) { return json_pack("{s:s}", "error", msg); }

/* ---- per family ---- */

static json_t *i64s_array(const int64_t *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, shc_json_i64s(v[i]));
    return a;
}

static int layout_views(const shc_plugin *p, const bcase *b, const json_t *test, json_t **views,
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
        int rc = p->be->layout(&b->c, r, ls, off, err, sizeof err);
        if (rc == SHC_BACKEND_UNSUPPORTED)
            return shc_fail(e, SHC_EUNSUPPORTED, "plugin: layout unsupported: %s", err);
        views[r] = rc ? err_view(err) : json_pack("{s:o, s:o}", "localShape",
                                                  shc_json_i64_array(ls, b->c.ndim),
                                                  "globalOffset", i64s_array(off, b->c.ndim));
    }
    return SHC_OK;
}

static int offsets_views(const shc_plugin *p, const bcase *b, json_t **views, shc_err *e)
{
    for (int64_t r = 0; r < b->world; r++) {
        shc_backend_offsets o;
        char err[512] = "";
        int rc = p->be->offsets(&b->c, r, &o, err, sizeof err);
        if (rc == SHC_BACKEND_UNSUPPORTED)
            return shc_fail(e, SHC_EUNSUPPORTED, "plugin: offsets unsupported: %s", err);
        views[r] = rc ? err_view(err)
                      : json_pack("{s:I, s:o, s:o, s:o}", "shard_linear_index",
                                  (json_int_t)o.shard_linear_index, "start_incr",
                                  shc_json_i64s(o.start_incr), "end_incr",
                                  shc_json_i64s(o.end_incr), "local_numel",
                                  shc_json_i64s(o.local_numel));
    }
    return SHC_OK;
}

static int execute_views(const shc_plugin *p, const bcase *b, const json_t *group,
                         const json_t *test, json_t **views, shc_err *e)
{
    shc_xcase x;
    memset(&x, 0, sizeof x);
    int rc = shc_xcase_from_json(group, test, &x, e);
    if (rc)
        return rc;
    int64_t n = b->world;
    shc_xtensor *in = calloc((size_t)n, sizeof *in);
    const void **inp = calloc((size_t)n, sizeof *inp);
    void **out = calloc((size_t)n, sizeof *out);
    int64_t (*ishape)[SHC_BACKEND_MAX_DIMS] = calloc((size_t)n, sizeof *ishape);
    int64_t (*oshape)[SHC_BACKEND_MAX_DIMS] = calloc((size_t)n, sizeof *oshape);
    if (!in || !inp || !out || !ishape || !oshape)
        rc = shc_fail(e, SHC_ENOMEM, "out of memory");
    for (int64_t r = 0; !rc && r < n; r++) {
        if ((rc = shc_testdata_source(&x, r, &in[r], e)))
            break;
        inp[r] = in[r].data;
        memcpy(ishape[r], in[r].shape.d, sizeof(int64_t) * (size_t)x.shape.ndim);
    }
    char err[512] = "";
    int prc = rc ? 0 : p->be->execute(&b->c, n, inp, (const int64_t (*)[SHC_BACKEND_MAX_DIMS])ishape,
                                      out, oshape, err, sizeof err);
    if (!rc && prc == SHC_BACKEND_UNSUPPORTED)
        rc = shc_fail(e, SHC_EUNSUPPORTED, "plugin: execute unsupported: %s", err);
    for (int64_t r = 0; !rc && r < n; r++) {
        if (prc) {
            views[r] = err_view(err);
            continue;
        }
        shc_xtensor t = {.dtype = x.dtype, .data = out[r]};
        t.shape.ndim = x.shape.ndim;
        t.numel = 1;
        for (int d = 0; d < x.shape.ndim; d++) {
            t.shape.d[d] = oshape[r][d];
            t.numel *= oshape[r][d];
        }
        views[r] = out[r] ? shc_rdata_view(&t) : err_view("plugin returned no buffer");
        if (out[r])
            shc_rdata_oracle_note(&x, r, &t, views[r]);
    }
    for (int64_t r = 0; r < n && in; r++) {
        shc_xtensor_free(&in[r]);
        if (out)
            free(out[r]);
    }
    free(in), free(inp), free(out), free(ishape), free(oshape);
    shc_xcase_free(&x);
    (void)test;
    return rc;
}

int shc_plugin_views(const shc_plugin *p, const char *family, const json_t *group,
                     const json_t *test, int64_t world, json_t **views, shc_err *e)
{
    bool known = (!strcmp(family, "shard-layout") && p->be->layout) ||
                 (!strcmp(family, "rng-offsets") && p->be->offsets) ||
                 (!strcmp(family, "redistribute-data") && p->be->execute);
    if (!known)
        return shc_fail(e, SHC_EUNSUPPORTED, "plugin %s: no ABI v1 entry point for family %s",
                        p->be->name ? p->be->name : p->path, family);
    bcase b;
    int rc = bcase_from_json(&b, group, test, e);
    if (!rc && b.world != world)
        rc = shc_fail(e, SHC_EFORMAT, "test mesh has %lld ranks, runner expected %lld",
                      (long long)b.world, (long long)world);
    if (!rc) {
        if (!strcmp(family, "shard-layout") && p->be->layout && b.c.placements)
            rc = layout_views(p, &b, test, views, e);
        else if (!strcmp(family, "rng-offsets") && p->be->offsets && b.c.placements)
            rc = offsets_views(p, &b, views, e);
        else if (!strcmp(family, "redistribute-data") && p->be->execute && b.c.src && b.c.dst)
            rc = execute_views(p, &b, group, test, views, e);
        else
            rc = shc_fail(e, SHC_EUNSUPPORTED, "plugin %s: no ABI v1 entry point for family %s",
                          p->be->name ? p->be->name : p->path, family);
    }
    free(b.rank_map);
    return rc;
}
