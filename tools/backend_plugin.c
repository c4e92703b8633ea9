/*
 * backend_plugin.c — load a vendor backend (shardcheck_backend.h, ABI v1)
 * with dlopen and turn its answers into golden-format views.
 *
 * The loader is strict on purpose: a library without the two symbols, with
 * another ABI version, or whose table is shorter than v1's gets a message
 * naming the file and what is wrong, never a crash.  For redistribute-data
 * the plugin executes every rank at once on the same deterministic inputs
 * our backends use (testdata.c), and the runner checks the outputs both
 * against the golden digests and against the oracle.  Where a family's
 * fields are beyond the ABI (group-ranks, redistribute-plan, torch-cuda-rng)
 * the answers are converted to the golden view's form, or the golden view
 * projected (shc_plugin_project), and a case the ABI cannot state is
 * NotSupported with the reason, never Fail.  Tested by
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
#include "checked_math.h"

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
    if (!rc && json_object_get(test, "shape")) /* group-ranks has none */
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

/* group-ranks, op device_mesh: the plugin names each rank's group (mesh order);
 * the family's view follows from all ranks' answers: "groups" are the distinct
 * lists ordered by the mesh position of their first member (DeviceMesh order),
 * "group" the index of the rank's own list, "localRank" its place in it and
 * "groupRank" its place in the sorted list (c10d sorts). */
static int64_t mesh_pos(const bcase *b, int64_t rank)
{
    for (int64_t p = 0; b->rank_map && p < b->world; p++)
        if (b->rank_map[p] == rank)
            return p;
    return rank;
}

static int group_views(const shc_plugin *p, const bcase *b, const json_t *test, json_t **views,
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
        int prc = p->be->group(&b->c, axes, na, r, lists + r * cap, cap, &len[r], err, sizeof err);
        if (prc == SHC_BACKEND_UNSUPPORTED)
            rc = shc_fail(e, SHC_EUNSUPPORTED, "plugin: group unsupported: %s", err);
        else if (prc || len[r] < 0 || len[r] > cap) {
            views[r] = err_view(prc ? err : "plugin group: list length outside 0..world");
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
            views[r] = err_view(why);
    free(lists), free(len), free(order);
    return rc;
}

/* redistribute-plan: ABI v1 states only the default planner setting (auto, 8 devices
 * per host, _StridedShard as a shard order, no flattened meshes or explicit source
 * order) and only each step's communication kind; shc_plugin_project derives the
 * same "stepKinds" from the golden view. */
static int plan_views(const shc_plugin *p, const bcase *b, const json_t *group,
                      const json_t *test, json_t **views, shc_err *e)
{
    const char *planner = json_string_value(json_object_get(group, "planner"));
    const json_t *dph = json_object_get(group, "devicesPerHost");
    if (planner && strcmp(planner, "auto"))
        return shc_fail(e, SHC_EUNSUPPORTED, "ABI v1 plan cannot force the %s planner", planner);
    if (dph && json_integer_value(dph) != 8)
        return shc_fail(e, SHC_EUNSUPPORTED, "ABI v1 plan has no devicesPerHost (case: %lld)",
                        (long long)json_integer_value(dph));
    if (json_is_true(json_object_get(group, "stridedLiteral")))
        return shc_fail(e, SHC_EUNSUPPORTED, "ABI v1 plan has no literal _StridedShard mode");
    if (json_object_get(group, "flattened"))
        return shc_fail(e, SHC_EUNSUPPORTED, "ABI v1 plan has no flattened meshes");
    if (json_object_get(test, "srcShardOrder"))
        return shc_fail(e, SHC_EUNSUPPORTED, "ABI v1 plan has no explicit source shard order");
    for (int64_t r = 0; r < b->world; r++) {
        const char *kinds[64] = {0};
        int nsteps = 0;
        char err[512] = "";
        int rc = p->be->plan(&b->c, r, &nsteps, kinds, 64, err, sizeof err);
        if (rc == SHC_BACKEND_UNSUPPORTED)
            return shc_fail(e, SHC_EUNSUPPORTED, "plugin: plan unsupported: %s", err);
        if (rc || nsteps < 0 || nsteps > 64) {
            views[r] = err_view(rc ? err : "plugin plan: step count outside 0..64");
            continue;
        }
        json_t *a = json_array();
        for (int i = 0; i < nsteps; i++)
            json_array_append_new(a, kinds[i] ? json_string(kinds[i]) : json_null());
        views[r] = json_pack("{s:o}", "stepKinds", a);
    }
    return SHC_OK;
}

/* torch-cuda-rng: random_fill is torch.rand (uniform float32 in [0, 1)) without a GPU
 * name, so only cases whose launch grid is not capped by the GPU (numel <= SMs x
 * threads per SM: element i is then thread i's first draw on any GPU) and whose
 * golden holds the bits or the sha256 can be checked; new_offset is not in the ABI. */
static int fill_views(const shc_plugin *p, const json_t *group, const json_t *test,
                      json_t **views, shc_err *e)
{
    const char *op = json_string_value(json_object_get(test, "op"));
    const char *dt = json_string_value(json_object_get(test, "dtype"));
    const json_t *pa = json_object_get(test, "params");
    const json_t *exp = json_object_get(test, "expected");
    if (!op || !dt || strcmp(op, "uniform") || strcmp(dt, "float32"))
        return shc_fail(e, SHC_EUNSUPPORTED, "ABI v1 random_fill is uniform float32 only "
                        "(case: %s %s)", op ? op : "?", dt ? dt : "?");
    if (json_real_value(json_object_get(pa, "from")) != 0.0 ||
        json_real_value(json_object_get(pa, "to")) != 1.0)
        return shc_fail(e, SHC_EUNSUPPORTED, "ABI v1 random_fill draws [0, 1) only");
    int64_t numel = 1, cap;
    if (!shc_mul64(json_integer_value(json_object_get(group, "smCount")),
                   json_integer_value(json_object_get(group, "maxThreadsPerSM")), &cap))
        return shc_fail(e, SHC_EFORMAT, "group: smCount x maxThreadsPerSM overflows int64");
    const json_t *sh = json_object_get(test, "shape");
    for (size_t i = 0; i < json_array_size(sh); i++)
        if (!shc_mul64(numel, json_integer_value(json_array_get(sh, i)), &numel))
            return shc_fail(e, SHC_EFORMAT, "test shape: element count overflows int64");
    const char *res = json_string_value(json_object_get(test, "result"));
    bool invalid = res && !strcmp(res, "invalid");
    if (numel < 0 || numel > cap)
        return shc_fail(e, SHC_EUNSUPPORTED, "ABI v1 random_fill names no GPU: %lld elements "
                        "exceed this GPU's uncapped grid (%lld)", (long long)numel,
                        (long long)cap);
    if (!invalid && !json_object_get(exp, "bits") && !json_object_get(exp, "sha256"))
        return shc_fail(e, SHC_EUNSUPPORTED, "golden case stores samples only");
    const char *seed = json_string_value(json_object_get(test, "seed"));
    const char *off = json_string_value(json_object_get(test, "offset"));
    float *out = malloc((size_t)(numel ? numel : 1) * sizeof *out);
    if (!out)
        return shc_fail(e, SHC_ENOMEM, "out of memory");
    char err[512] = "";
    int rc = p->be->random_fill(strtoull(seed ? seed : "0", NULL, 10),
                                strtoll(off ? off : "0", NULL, 10), numel, out, err, sizeof err);
    if (rc == SHC_BACKEND_UNSUPPORTED) {
        free(out);
        return shc_fail(e, SHC_EUNSUPPORTED, "plugin: random_fill unsupported: %s", err);
    }
    if (rc) {
        views[0] = err_view(err);
    } else if (json_object_get(exp, "bits")) {
        json_t *a = json_array();
        for (int64_t i = 0; i < numel; i++) {
            uint32_t u;
            char hex[9];
            memcpy(&u, &out[i], 4);
            snprintf(hex, sizeof hex, "%08x", u);
            json_array_append_new(a, json_string(hex));
        }
        views[0] = json_pack("{s:o}", "bits", a);
    } else {
        char hex[65];
        shc_sha256_hex(out, (size_t)numel * sizeof *out, hex); /* little-endian host */
        views[0] = json_pack("{s:s}", "sha256", hex);
    }
    free(out);
    return SHC_OK;
}

void shc_plugin_project(const char *family, json_t *want)
{
    if (!want || strcmp(family, "redistribute-plan") || !json_object_get(want, "plans"))
        return;
    const json_t *plan = json_array_get(json_object_get(want, "plans"),
                                        (size_t)json_integer_value(json_object_get(want, "plan")));
    json_t *kinds = json_array();
    const json_t *st;
    size_t i;
    json_array_foreach(json_object_get(plan, "steps"), i, st)
        json_array_append(kinds, json_array_get(st, 3));
    json_object_set_new(want, "stepKinds", kinds);
}

int shc_plugin_views(const shc_plugin *p, const char *family, const json_t *group,
                     const json_t *test, int64_t world, json_t **views, shc_err *e)
{
    bool known = (!strcmp(family, "shard-layout") && p->be->layout) ||
                 (!strcmp(family, "rng-offsets") && p->be->offsets) ||
                 (!strcmp(family, "redistribute-data") && p->be->execute) ||
                 (!strcmp(family, "group-ranks") && p->be->group) ||
                 (!strcmp(family, "redistribute-plan") && p->be->plan) ||
                 (!strcmp(family, "torch-cuda-rng") && p->be->random_fill);
    if (!known)
        return shc_fail(e, SHC_EUNSUPPORTED, "plugin %s: no ABI v1 entry point for family %s",
                        p->be->name ? p->be->name : p->path, family);
    if (!strcmp(family, "torch-cuda-rng"))
        return world == 1 ? fill_views(p, group, test, views, e)
                          : shc_fail(e, SHC_EFORMAT, "torch-cuda-rng: runner expected %lld ranks",
                                     (long long)world);
    bcase b;
    int rc = bcase_from_json(&b, group, test, e);
    if (!rc && !b.c.dtype)
        b.c.dtype = json_string_value(json_object_get(group, "dtype"));
    if (!rc && b.world != world)
        rc = shc_fail(e, SHC_EFORMAT, "test mesh has %lld ranks, runner expected %lld",
                      (long long)b.world, (long long)world);
    const char *res = json_string_value(json_object_get(test, "result"));
    if (rc && res && !strcmp(res, "invalid") &&
        (!strcmp(family, "group-ranks") || !strcmp(family, "redistribute-plan"))) {
        char why[sizeof e->msg]; /* a rank map of the wrong length, a mesh without ranks */
        snprintf(why, sizeof why, "%s", e->msg);
        rc = shc_fail(e, SHC_EUNSUPPORTED, "ABI v1 cannot state this malformed case (%.400s)",
                      why);
    }
    if (!rc) {
        if (!strcmp(family, "shard-layout") && p->be->layout && b.c.placements)
            rc = layout_views(p, &b, test, views, e);
        else if (!strcmp(family, "rng-offsets") && json_object_get(group, "op"))
            rc = shc_fail(e, SHC_EUNSUPPORTED, "ABI v1 offsets: no per-rank random data "
                          "(start_offset, digest) for a %s op",
                          json_string_value(json_object_get(group, "op")) ?: "random");
        else if (!strcmp(family, "rng-offsets") && p->be->offsets && b.c.placements)
            rc = offsets_views(p, &b, views, e);
        else if (!strcmp(family, "redistribute-data") && p->be->execute && b.c.src && b.c.dst)
            rc = execute_views(p, &b, group, test, views, e);
        else if (!strcmp(family, "group-ranks") && p->be->group)
            rc = group_views(p, &b, test, views, e);
        else if (!strcmp(family, "redistribute-plan") && p->be->plan && b.c.src && b.c.dst)
            rc = plan_views(p, &b, group, test, views, e);
        else
            rc = shc_fail(e, SHC_EUNSUPPORTED, "plugin %s: no ABI v1 entry point for family %s",
                          p->be->name ? p->be->name : p->path, family);
    }
    free(b.rank_map);
    return rc;
}
