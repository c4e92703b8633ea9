/*
 * plugin_ref.c — an example vendor backend (shardcheck_backend.h, ABI v1)
 * built on libshardcheck itself, so it passes: the template a vendor copies
 * and replaces function by function with calls into their own library.
 *
 *   shardcheck run --backend plugin:examples/.libs/plugin_ref.so
 *
 * Compiled with -DSHC_PLUGIN_BROKEN it becomes examples/plugin_broken.c's
 * base: that file defines the hooks below to introduce its bugs.
 * Tested by conformance/tests/run_mpi.sh (passes) and run_faults.sh.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shardcheck.h"
#include "shardcheck_backend.h"
#include "plan_internal.h"
#include "comm.h"
#include "redistribute_exec.h"

#ifndef PLUGIN_NAME
#define PLUGIN_NAME "reference (libshardcheck)"
#endif
/* Hooks a derived plugin may define to alter answers (identity here). */
#ifndef HOOK_LAYOUT
#define HOOK_LAYOUT(c, rank, ls, off) ((void)0)
#endif
#ifndef HOOK_OFFSETS
#define HOOK_OFFSETS(c, rank, o) ((void)0)
#endif
#ifndef HOOK_FILL_OFFSET
#define HOOK_FILL_OFFSET(offset) (offset)
#endif
#ifndef HOOK_EXECUTE
#define HOOK_EXECUTE(c, world, out, oshape) ((void)0)
#endif

static int say(char *err, size_t n, const shc_err *e)
{
    snprintf(err, n, "%s", e->msg);
    return e->code == SHC_EUNSUPPORTED ? SHC_BACKEND_UNSUPPORTED : (e->code ? e->code : 1);
}

/* The case's mesh as libshardcheck wants it ("2x2" and "3,1,2,0"). */
static int mesh_of(const shc_backend_case *c, shc_mesh *m, shc_err *e)
{
    char shape[128] = "", *ranks = NULL;
    size_t k = 0;
    int64_t world = 1;
    for (int i = 0; i < c->mesh_ndim; i++) {
        k += (size_t)snprintf(shape + k, sizeof shape - k, i ? "x%lld" : "%lld",
                              (long long)c->mesh_shape[i]);
        world *= c->mesh_shape[i];
    }
    if (c->rank_map) {
        ranks = malloc((size_t)world * 24 + 1);
        if (!ranks)
            return shc_fail(e, SHC_ENOMEM, "out of memory");
        k = 0;
        for (int64_t r = 0; r < world; r++)
            k += (size_t)sprintf(ranks + k, r ? ",%lld" : "%lld", (long long)c->rank_map[r]);
    }
    int rc = shc_mesh_parse(m, shape, ranks, e);
    free(ranks);
    return rc;
}

static void shape_of(const shc_backend_case *c, shc_shape *s)
{
    memset(s, 0, sizeof *s);
    s->ndim = c->ndim;
    for (int i = 0; i < c->ndim; i++)
        s->d[i] = c->shape[i];
}

static int ref_layout(const shc_backend_case *c, int64_t rank, int64_t *ls, int64_t *off,
                      char *err, size_t n)
{
    shc_mesh m;
    shc_placements pl;
    shc_shape s;
    shc_layout l;
    shc_err e = {0};
    int64_t coord[SHC_MAX_MESH_DIMS];
    memset(&l, 0, sizeof l);
    shape_of(c, &s);
    if (mesh_of(c, &m, &e))
        return say(err, n, &e);
    int rc = shc_placements_parse(&pl, c->placements, &e) ||
             shc_placements_normalize(&pl, s.ndim, &e) || /* S(-1): as torch */
             shc_placements_check(&pl, &m, s.ndim, &e) || shc_mesh_coord(&m, rank, coord, &e) ||
             shc_layout_compute(&m, &pl, &s, coord, &l, &e);
    if (!rc) {
        for (int d = 0; d < s.ndim; d++) {
            ls[d] = l.local.d[d];
            off[d] = l.offset[d];
        }
        HOOK_LAYOUT(c, rank, ls, off);
    }
    shc_layout_free(&l);
    shc_mesh_free(&m);
    return rc ? say(err, n, &e) : 0;
}

static int ref_offsets(const shc_backend_case *c, int64_t rank, shc_backend_offsets *o,
                       char *err, size_t n)
{
    shc_mesh m;
    shc_placements pl;
    shc_shape s;
    shc_rng_layout t;
    shc_rng_offsets r;
    shc_err e = {0};
    shape_of(c, &s);
    if (mesh_of(c, &m, &e))
        return say(err, n, &e);
    int rc = shc_placements_parse(&pl, c->placements, &e) ||
             shc_placements_normalize(&pl, s.ndim, &e) || /* S(-1): as torch */
             shc_placements_check(&pl, &m, s.ndim, &e) ||
             shc_rng_layout_init(&t, &m, &pl, &s, &e) ||
             shc_rng_offsets_rank(&t, &m, rank, &r, &e);
    shc_mesh_free(&m);
    if (rc)
        return say(err, n, &e);
    *o = (shc_backend_offsets){r.shard_linear_index, r.start_incr, r.end_incr, r.local_numel};
    HOOK_OFFSETS(c, rank, o);
    return 0;
}

static int ref_group(const shc_backend_case *c, const int *axes, int naxes, int64_t rank,
                     int64_t *ranks, int64_t cap, int64_t *nout, char *err, size_t n)
{
    shc_mesh m;
    shc_groups g;
    shc_err e = {0};
    int64_t gi, mi;
    if (mesh_of(c, &m, &e))
        return say(err, n, &e);
    int rc = shc_groups_locate(&m, axes, naxes, rank, &gi, &mi, &e) ||
             shc_groups_for_axes(&m, axes, naxes, &g, &e);
    shc_mesh_free(&m);
    if (rc)
        return say(err, n, &e);
    if (g.group_size > cap) {
        shc_groups_free(&g);
        snprintf(err, n, "group of %lld ranks, room for %lld", (long long)g.group_size,
                 (long long)cap);
        return 1;
    }
    memcpy(ranks, g.ranks + gi * g.group_size, (size_t)g.group_size * sizeof *ranks);
    *nout = g.group_size;
    shc_groups_free(&g);
    return 0;
}

/* The planner with its defaults (auto, 8 devices per host): what ABI v1 states. */
static int ref_plan(const shc_backend_case *c, int64_t rank, int *nsteps, const char **kinds,
                    int cap, char *err, size_t n)
{
    shc_mesh m;
    shc_placements src, dst;
    shc_shape s;
    shc_plan_opts o;
    shc_plan p;
    shc_err e = {0};
    memset(&p, 0, sizeof p);
    shc_plan_opts_init(&o);
    shape_of(c, &s);
    if (mesh_of(c, &m, &e))
        return say(err, n, &e);
    int rc = (c->dtype && shc_dtype_bytes(c->dtype, &o.dtype_bytes, &e)) ||
             shc_placements_parse(&src, c->src, &e) || shc_placements_parse(&dst, c->dst, &e) ||
             shc_plan_compute(&m, &src, &dst, &s, &o, rank, &p, &e);
    shc_mesh_free(&m);
    if (rc) {
        shc_plan_free(&p);
        return say(err, n, &e);
    }
    *nsteps = p.nsteps;
    for (int i = 0; i < p.nsteps && i < cap; i++)
        kinds[i] = shc_comm_kind_name(p.steps[i].comm); /* static names */
    shc_plan_free(&p);
    return 0;
}

/* torch.rand on a GPU whose grid is never capped (the ABI names no GPU). */
static int ref_fill(uint64_t seed, int64_t offset, int64_t count, float *out, char *err,
                    size_t n)
{
    static const shc_gpu_profile big = {.name = "custom", .sm_count = 4096,
                                        .max_threads_per_sm = 2048}; /* > any real GPU */
    shc_torch_rng_req r;
    shc_err e = {0};
    int64_t after;
    shc_torch_rng_req_init(&r, SHC_TORCH_UNIFORM, SHC_DT_FLOAT32, count);
    if (shc_torch_rng_fill(&big, seed, HOOK_FILL_OFFSET(offset), &r, 0, count, out, NULL, &after,
                           &e))
        return say(err, n, &e);
    return 0;
}

/* ---- execute: every rank on the local communicator, from the given inputs ---- */

typedef struct xjob {
    shc_xcase x;
    const void *const *in;
    const int64_t (*in_shapes)[SHC_BACKEND_MAX_DIMS];
    shc_xtensor *out;
} xjob;

static int xrank(shc_comm *comm, void *arg, shc_err *e)
{
    xjob *j = arg;
    int64_t r = comm->rank;
    shc_xtensor in = {.dtype = j->x.dtype, .numel = 1};
    in.shape.ndim = j->x.shape.ndim;
    for (int d = 0; d < in.shape.ndim; d++) {
        in.shape.d[d] = j->in_shapes[r][d];
        in.numel *= in.shape.d[d];
    }
    in.data = (void *)j->in[r];
    return shc_exec_redistribute(comm, &j->x, &in, &j->out[r], e);
}

static int ref_execute(const shc_backend_case *c, int64_t world, const void *const *in,
                       const int64_t (*in_shapes)[SHC_BACKEND_MAX_DIMS], void **out,
                       int64_t (*oshape)[SHC_BACKEND_MAX_DIMS], char *err, size_t n)
{
    char mesh[128] = "", shape[256] = "";
    size_t k = 0;
    for (int i = 0; i < c->mesh_ndim; i++)
        k += (size_t)snprintf(mesh + k, sizeof mesh - k, i ? "x%lld" : "%lld",
                              (long long)c->mesh_shape[i]);
    k = 0;
    for (int i = 0; i < c->ndim; i++)
        k += (size_t)snprintf(shape + k, sizeof shape - k, i ? ",%lld" : "%lld",
                              (long long)c->shape[i]);
    xjob j = {.in = in, .in_shapes = in_shapes};
    shc_err e = {0};
    if (shc_xcase_parse(&j.x, mesh, NULL, c->src, c->dst, shape, c->dtype, NULL, &e))
        return say(err, n, &e);
    j.out = calloc((size_t)world, sizeof *j.out);
    int rc = j.out ? shc_comm_local_run(world, xrank, &j, NULL, &e) : 1;
    for (int64_t r = 0; !rc && r < world; r++) {
        out[r] = j.out[r].data;
        for (int d = 0; d < c->ndim; d++)
            oshape[r][d] = j.out[r].shape.d[d];
    }
    if (rc)
        for (int64_t r = 0; j.out && r < world; r++)
            shc_xtensor_free(&j.out[r]);
    free(j.out);
    shc_xcase_free(&j.x);
    if (rc)
        return say(err, n, &e);
    HOOK_EXECUTE(c, world, out, oshape);
    return 0;
}

static const shc_backend_v1 backend = {
    SHC_BACKEND_ABI_VERSION, sizeof(shc_backend_v1), PLUGIN_NAME,
    ref_layout, ref_group, ref_offsets, ref_plan, ref_fill, ref_execute,
};

uint32_t shardcheck_backend_abi(void) { return SHC_BACKEND_ABI_VERSION; }
const shc_backend_v1 *shardcheck_backend_v1(void) { return &backend; }
