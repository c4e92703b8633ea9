/*
 * plugin_v2.c — an example vendor backend on ABI v2 (lib/shardcheck_backend.h,
 * docs/backends/plugin.md): the template a vendor copies.
 *
 *   shardcheck run --backend plugin:examples/.libs/plugin_v2.so --family shard-layout
 *   mpirun -np 4 shardcheck run --backend plugin:examples/.libs/plugin_v2.so
 *
 * Each call gets the whole case (read with host->i64s, host->str, ...) and one rank;
 * it answers that rank's view in the golden form (host->put_*).  shard-layout is
 * computed here through the public libshardcheck API (lib/shardcheck.h), as a vendor
 * would call its own library; replace layout_answer's body with yours.  group-ranks,
 * rng-offsets, redistribute-plan and view-sharding answer through shardcheck's own per-rank
 * reference (the families' compute_rank, an internal helper: their views have many fields —
 * op rank lists and HSDP groups, per-op dispatch and findings, plans with traces and
 * shape sets, view rules with verdicts — see docs/families/<family>.md), the case's JSON
 * parsed once and the
 * view's members written back with put_json: the form any answer takes.
 * redistribute-data is executed, not answered: examples/plugin_v2_exec.c holds the
 * example's execute (a redistribute over the communicator table it is handed) and, built
 * with MPI, its own communicator table over MPI (comm_open; docs/backends/plugin_comm.md).
 *
 * With SHARDCHECK_EXAMPLE_BUG=uneven in its environment it plants an uneven-split
 * bug in shard-layout (n // k per shard, the remainder spread over the first ranks,
 * as numpy.array_split does, instead of torch.chunk's ceil(n / k)): run's first group
 * then names UnevenShard.  Tested by conformance/tests/plugin_v2.sh.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <jansson.h>
#include "shardcheck.h"
#include "plugin_v2_exec.h" /* redistribute-data and the communicator */
#include "shardcheck_backend.h"
#include "family.h"

/* The numpy.array_split rule the planted bug uses for every tensor dim one Shard (and
 * nothing else) splits. */
static void uneven_bug(const shc_mesh *m, const shc_placements *pl, const int64_t *coord,
                       const shc_shape *s, shc_layout *l)
{
    for (int i = 0; i < pl->n; i++) {
        if (pl->p[i].kind != SHC_P_SHARD)
            continue;
        int d = pl->p[i].dim, splits = 0;
        for (int j = 0; j < pl->n; j++)
            splits += (pl->p[j].kind == SHC_P_SHARD || pl->p[j].kind == SHC_P_STRIDED) &&
                      pl->p[j].dim == d;
        if (splits != 1)
            continue;
        int64_t n = s->d[d], k = m->shape[i], c = coord[i];
        int64_t q = n / k, rem = n % k;
        l->local.d[d] = q + (c < rem);
        l->offset[d] = c * q + (c < rem ? c : rem);
    }
}

/* shard-layout: localShape, globalOffset and, where a _StridedShard makes a dim's
 * indices non-contiguous, "indices" (null for the other dims). */
static int layout_answer(const shc_host_v2 *h, const shc_case_v2 *c, int64_t rank,
                         shc_answer_v2 *out, bool bug, shc_err *e)
{
    int64_t mesh[SHC_MAX_MESH_DIMS], dims[SHC_MAX_TENSOR_DIMS], coord[SHC_MAX_MESH_DIMS];
    int64_t nmesh = h->i64s(c, "mesh", mesh, SHC_MAX_MESH_DIMS);
    int64_t ndim = h->i64s(c, "shape", dims, SHC_MAX_TENSOR_DIMS);
    const char *placements = h->str(c, "placements");
    if (nmesh < 1 || nmesh > SHC_MAX_MESH_DIMS || ndim < 0 || ndim > SHC_MAX_TENSOR_DIMS ||
        !placements)
        return shc_fail(e, SHC_EINVAL, "the case needs mesh, shape and placements");
    /* an explicit rank map (group "rankMap"), else arange */
    int64_t world = 1;
    for (int i = 0; i < nmesh; i++)
        world = mesh[i] > 0 && world <= INT32_MAX / mesh[i] ? world * mesh[i] : -1;
    int64_t *ranks = NULL;
    if (world > 0 && h->i64s(c, "rankMap", NULL, 0) >= 0) {
        ranks = malloc((size_t)world * sizeof *ranks);
        if (!ranks || h->i64s(c, "rankMap", ranks, world) != world) {
            free(ranks);
            return shc_fail(e, SHC_EINVAL, "rankMap: not %lld ranks", (long long)world);
        }
    }
    char shape[512] = "";
    size_t k = 0;
    for (int i = 0; i < ndim && k < sizeof shape; i++)
        k += (size_t)snprintf(shape + k, sizeof shape - k, i ? ",%lld" : "%lld",
                              (long long)dims[i]);
    /* the case's world: more ranks than the mesh where the group says "world" (shard-layout's
     * sub-world.json), the others torch's non-participating ranks */
    int64_t all = 0;
    if (h->i64(c, "world", &all) || all < world)
        all = world;
    shc_mesh m = {0};
    shc_placements pl;
    shc_shape s;
    shc_layout l;
    bool in_mesh = true;
    memset(&l, 0, sizeof l);
    int rc = shc_mesh_init_world(&m, (int)nmesh, mesh, ranks, all, e) ||
             shc_placements_parse(&pl, placements, e) || shc_shape_parse(&s, shape, e) ||
             shc_placements_normalize(&pl, s.ndim, e) || /* S(-1): d + ndim, as torch */
             shc_placements_check(&pl, &m, s.ndim, e) ||
             shc_layout_of_world_rank(&m, &pl, &s, rank, &l, &in_mesh, e);
    free(ranks);
    if (!rc && in_mesh)
        rc = shc_mesh_coord(&m, rank, coord, e);
    if (!rc && bug && in_mesh)
        uneven_bug(&m, &pl, coord, &s, &l);
    bool strided = false;
    for (int i = 0; i < pl.n && !rc; i++)
        strided |= pl.p[i].kind == SHC_P_STRIDED;
    /* a rank off the mesh holds torch's empty 1-d tensor: [0], no offset, [null] */
    if (!rc && (h->put_ints(out, "localShape", l.local.d, l.local.ndim) ||
                h->put_decs(out, "globalOffset", l.offset, in_mesh ? s.ndim : 0)))
        rc = shc_fail(e, SHC_EINTERNAL, "the host refused the answer");
    if (!rc && strided) { /* [null, [0, 4, ...], ...]: built as JSON text */
        json_t *idx = json_array();
        for (int d = 0; d < l.local.ndim; d++) {
            json_t *a = l.index[d] ? json_array() : json_null();
            for (int64_t i = 0; l.index[d] && i < l.index_len[d]; i++)
                json_array_append_new(a, json_integer(l.index[d][i]));
            json_array_append_new(idx, a);
        }
        char *text = json_dumps(idx, JSON_COMPACT);
        if (!text || h->put_json(out, "indices", text))
            rc = shc_fail(e, SHC_EINTERNAL, "the host refused the indices");
        free(text);
        json_decref(idx);
    }
    shc_layout_free(&l);
    shc_mesh_free(&m);
    return rc;
}

/* The last case's JSON, parsed once for all its ranks: the host asks rank after rank of a
 * case, and parsing the case's text again for each rank was a seventh of this example's time
 * on group-ranks (perf on `run --backend plugin:... --family group-ranks`).  Entry points may
 * run on several threads at once: the mutex guards the slot, and a tree handed out is only
 * read (jansson's reference counts are atomic). */
static struct {
    pthread_mutex_t mu;
    char *text;
    json_t *root;
} last_case = {PTHREAD_MUTEX_INITIALIZER, NULL, NULL};

/* The case's tree (a new reference) for its text, or NULL when unreadable. */
static json_t *case_tree(const char *text)
{
    if (!text)
        return NULL;
    json_t *root = NULL;
    pthread_mutex_lock(&last_case.mu);
    if (last_case.text && !strcmp(last_case.text, text))
        root = json_incref(last_case.root);
    pthread_mutex_unlock(&last_case.mu);
    if (root)
        return root;
    json_error_t je;
    char *copy = NULL;
    if (!(root = json_loads(text, 0, &je)) || !(copy = strdup(text)))
        return root; /* kept only when it can be compared */
    pthread_mutex_lock(&last_case.mu);
    free(last_case.text);
    json_decref(last_case.root);
    last_case.text = copy;
    last_case.root = json_incref(root);
    pthread_mutex_unlock(&last_case.mu);
    return root;
}

/* Any family through shardcheck's reference: the case's group and test, the rank's view
 * written member by member. */
static int reference_answer(const shc_host_v2 *h, const shc_case_v2 *c, int64_t rank,
                            shc_answer_v2 *out, shc_err *e)
{
    json_t *cs = case_tree(h->case_json(c)), *view = NULL;
    const shc_family *f = shc_family_find(json_string_value(json_object_get(cs, "family")));
    int rc = !cs || !f ? shc_fail(e, SHC_EINVAL, "an unreadable case")
                       : f->compute_rank(json_object_get(cs, "group"),
                                         json_object_get(cs, "test"), rank, &view, e);
    const char *key;
    json_t *v;
    json_object_foreach(rc ? NULL : view, key, v) {
        char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        if (!text || h->put_json(out, key, text))
            rc = shc_fail(e, SHC_EINTERNAL, "the host refused %s", key);
        free(text);
        if (rc)
            break;
    }
    json_decref(view);
    json_decref(cs);
    return rc;
}

static int supports(void *self, const char *family, char *err, size_t errlen)
{
    (void)self;
    static const char *const mine[] = {"shard-layout", "group-ranks", "rng-offsets",
                                       "redistribute-plan", "redistribute-data",
                                       "view-sharding"};
    for (size_t i = 0; i < sizeof mine / sizeof *mine; i++)
        if (!strcmp(family, mine[i]))
            return 0;
    snprintf(err, errlen, "the v2 example answers shard-layout, group-ranks, rng-offsets, "
             "redistribute-plan, redistribute-data and view-sharding only");
    return SHC_BACKEND_UNSUPPORTED;
}

/* Entry points may run on several threads at once: nothing here is shared but constants and
 * the last case's tree (case_tree, behind its mutex). */
static int answer(void *self, const shc_host_v2 *h, const shc_case_v2 *c, int64_t rank,
                  shc_answer_v2 *out, char *err, size_t errlen)
{
    (void)self;
    const char *family = h->str(c, "family"), *bug = getenv("SHARDCHECK_EXAMPLE_BUG");
    shc_err e = {0};
    int rc = family && !strcmp(family, "shard-layout")
                 ? layout_answer(h, c, rank, out, bug && !strcmp(bug, "uneven"), &e)
                 : reference_answer(h, c, rank, out, &e);
    if (!rc)
        return 0;
    snprintf(err, errlen, "%s", e.msg);
    return e.code == SHC_EUNSUPPORTED ? SHC_BACKEND_UNSUPPORTED : 1; /* 1: a refused case */
}

static const shc_backend_v2 table = {
    .abi_version = SHC_BACKEND_ABI_V2, .struct_size = sizeof(shc_backend_v2),
    .name = "example-v2 (libshardcheck)", .supports = supports, .answer = answer,
    .execute = shc_example_execute, .comm_open = shc_example_comm_open,
    .comm_close = shc_example_comm_close,
};

uint32_t shardcheck_backend_abi(void) { return SHC_BACKEND_ABI_V2; }
const shc_backend_v2 *shardcheck_backend_v2(void) { return &table; }
