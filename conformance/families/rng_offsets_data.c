/*
 * rng_offsets_data.c — the random-data variant of the rng-offsets family: the
 * tracker's offsets drive a torch CUDA random op (lib/rng/torch_cuda_rng.c) on each
 * rank's local shard; expected per rank is the sha256 of the local output bytes
 * and its first elements' bits.  Tracked ops take the tracker's windows,
 * untracked ones each rank's own generator (rng_ops.c).  The values no CPU
 * implementation but ours computes carry GpuOnly; the harness checks the
 * offsets against torch 2.13 (torch_rng_offsets.py).
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "families.h"
#include "layout_common.h"
#include "checked_math.h"
#include "rng_offsets_data.h"

/* ---- the tracker view of one rank (rng_offsets.c calls it; here so that the family file
 * calls down into this one, never back) ---- */

static json_t *findings_json(const shc_rng_audit *a)
{
    json_t *f = json_array();
    for (int k = 0; k < SHC_RNGF_COUNT; k++)
        if (a->kinds & (1u << k))
            json_array_append_new(f, json_string(shc_rng_finding_name(k)));
    return f;
}

/* One rank's view: per-rank fields plus the case-wide ones. */
int shcro_rank_view(const shc_mesh *m, const shc_placements *pl, const shc_shape *s,
                    int64_t rank, const shc_rng_audit *au, json_t **out, shc_err *e)
{
    shc_rng_layout t;
    shc_rng_offsets o;
    int rc = shc_rng_layout_init(&t, m, pl, s, e);
    if (rc || (rc = shc_rng_offsets_rank(&t, m, rank, &o, e)))
        return rc;
    *out = json_pack("{s:I,s:o,s:o,s:o,s:o,s:o}", "shard_linear_index",
                     (json_int_t)o.shard_linear_index, "start_incr", shc_json_i64s(o.start_incr),
                     "local_numel", shc_json_i64s(o.local_numel), "end_incr",
                     shc_json_i64s(o.end_incr), "first_shard_numel",
                     shc_json_i64s(t.first_numel), "findings", findings_json(au));
    return SHC_OK;
}


/* Random-data variant: the tracker's offsets drive a torch CUDA random op
 * (lib/rng/torch_cuda_rng.c) on each rank's local shard; expected per rank is the
 * sha256 of the local output bytes and its first elements' bits. */
typedef struct data_case {
    const char *mesh, *placements, *shape, *op, *dtype, *gpu, *comment;
    uint64_t seed;
    int64_t offset;
} data_case;
static const data_case data_cases[] = {
    {"2x2x2", "S(1),R,S(0)", "8,16", "uniform", "float32", "a100", "docstring layout", 1234, 0},
    {"4", "S(0)", "3", "uniform", "float32", "a100", "tiny: ranks 1 and 2 draw the same", 1234, 0},
    {"2x2", "S(0),S(0)", "8", "normal", "float32", "h100-sxm", "nested overrun", 42, 8},
    {"2x2", "_S(0, 2),S(0)", "8,8", "dropout", "float32", "a100", "FSDP2+TP dropout", 7, 0},
    {"2", "S(0)", "1024,1024", "uniform", "float32", "t4", "several kernel rounds", 1, 0},
    {"2x4", "S(0),S(1)", "16,1024", "normal", "bfloat16", "a100", "bf16 normal", 5, 16},
    {"4", "R", "8,8", "bernoulli", "float32", "v100", "replicas draw the same", 3, 0},
    {"2x2", "P(sum),S(1)", "5,6", "exponential", "float64", "l4", "partial, uneven", 11, 4},
    /* appended (issue 14): exponential_ is untracked, every shard draws the same numbers */
    {"4", "S(0)", "8,16", "exponential", "float32", "h100-sxm",
     "untracked: four identical shards, each offset 0 -> 4 (seen on an H100)", 0, 0},
    {"2x2", "S(0),S(1)", "6,5", "exponential", "float64", "a100", "untracked, uneven", 11, 4},
    {"2x2", "P(sum),S(1)", "5,6", "uniform", "float32", "a100", "uniform_ on Partial: rejected",
     11, 4},
};

/* ---- the random-data variant ---- */

typedef struct data_in {
    shc_gpu_profile gpu;
    const shc_rng_device *dev; /* NULL: the CPU reference */
    shc_torch_rng_req req;
    uint64_t seed;
    int64_t offset;
} data_in;

static int data_params(const json_t *group, data_in *d, shc_err *e)
{
    const char *op = json_string_value(json_object_get(group, "op"));
    const char *dt = json_string_value(json_object_get(group, "dtype"));
    const char *gpu = json_string_value(json_object_get(group, "gpu"));
    const char *seed = json_string_value(json_object_get(group, "seed"));
    const char *off = json_string_value(json_object_get(group, "offset"));
    if (!op || !dt || !gpu || !seed || !off)
        return shc_fail(e, SHC_EFORMAT, "random-data group needs op, dtype, gpu, seed, offset");
    shc_torch_op o;
    shc_dtype t;
    int rc = shc_torch_op_parse(op, &o, e);
    if (rc || (rc = shc_dtype_parse(dt, &t, e)) || (rc = shc_gpu_profile_parse(gpu, &d->gpu, e)))
        return rc;
    shc_torch_rng_req_init(&d->req, o, t, 0);
    d->dev = NULL;
    d->seed = strtoull(seed, NULL, 10);
    d->offset = strtoll(off, NULL, 10);
    return SHC_OK;
}

/* The rank's local random shard: digest and up to 4 elements' bits in hex; computed
 * by the CPU reference, or by d->dev (the cuda backend) when set. */
static int draw_local(const data_in *d, int64_t start, int64_t n, json_t **digest,
                      json_t **sample, shc_err *e)
{
    shc_torch_rng_req r = d->req;
    size_t es = shc_dtype_size(r.dtype);
    unsigned char *buf = malloc(es * (size_t)(n ? n : 1));
    if (!buf)
        return shc_fail(e, SHC_ENOMEM, "random data: out of memory for %lld elements", (long long)n);
    r.numel = n;
    int rc = !n ? 0
           : d->dev ? d->dev->fill(d->dev, d->seed, start, &r, 0, n, buf, NULL, NULL, e)
                    : shc_torch_rng_fill(&d->gpu, d->seed, start, &r, 0, n, buf, NULL, NULL, e);
    if (!rc) {
        char hex[65];
        shc_sha256_hex(buf, es * (size_t)n, hex);
        *digest = json_string(hex);
        *sample = json_array();
        for (int64_t i = 0; i < n && i < 4; i++) {
            char b[24] = "";
            for (size_t k = es; k-- > 0;) /* little-endian bytes, most significant first */
                snprintf(b + strlen(b), sizeof b - strlen(b), "%02x", buf[es * (size_t)i + k]);
            json_array_append_new(*sample, json_string(b));
        }
    }
    free(buf);
    return rc;
}

/* The rank's view; gpu/dev (may be NULL) replace the group's GPU profile and the CPU. */
static int data_rank(const json_t *group, const json_t *test, int64_t rank,
                     const shc_gpu_profile *gpu, const shc_rng_device *dev, json_t **out,
                     shc_err *e)
{
    data_in d;
    shc_mesh m;
    shc_placements pl;
    shc_shape s;
    shc_rng_audit au;
    json_t *v = NULL, *dig = NULL, *smp = NULL;
    int rc = data_params(group, &d, e);
    if (rc || (rc = shcl_parse_inputs(group, test, &m, &pl, &s, e)))
        return rc;
    if (gpu)
        d.gpu = *gpu;
    d.dev = dev;
    /* the op row, as the test's torch release has it, decides tracked / untracked /
     * rejected (lib/offsets/rng_ops.c) */
    shc_torch_release rel;
    if ((rc = shc_test_torch(test, &rel, e))) {
        shc_mesh_free(&m);
        return rc;
    }
    const shc_rng_op *op = shc_rng_op_in(shc_rng_op_for_kernel(d.req.op), rel);
    bool untracked = op && op->dispatch == SHC_RNGD_UNTRACKED;
    if ((rc = shc_rng_audit_op(op, &m, &pl, &s, &au, e)) == SHC_OK &&
        (rc = shcro_rank_view(&m, &pl, &s, rank, &au, &v, e)) == SHC_OK) {
        int64_t start = strtoll(json_string_value(json_object_get(v, "start_incr")), NULL, 10);
        int64_t end = strtoll(json_string_value(json_object_get(v, "end_incr")), NULL, 10);
        int64_t n = strtoll(json_string_value(json_object_get(v, "local_numel")), NULL, 10);
        int64_t pre, post;
        if (untracked) { /* own generator: no shift, the kernel's own increment after */
            shc_torch_rng_req r = d.req;
            r.numel = n;
            pre = d.offset;
            post = d.offset;
            rc = n ? shc_torch_rng_offset_after(&d.gpu, d.offset, &r, &post, e) : SHC_OK;
        } else if ((rc = shc_add64_e(d.offset, start, &pre, "pre-op offset", e)) == SHC_OK) {
            rc = shc_add64_e(d.offset, end, &post, "post-op offset", e);
        }
        if (rc == SHC_OK && (rc = draw_local(&d, pre, n, &dig, &smp, e)) == SHC_OK) {
            json_object_set_new(v, "start_offset", shc_json_i64s(pre));
            json_object_set_new(v, "post_offset", shc_json_i64s(post));
            json_object_set_new(v, "digest", dig);
            json_object_set_new(v, "sample", smp);
            json_object_del(v, "start_incr");
            json_object_del(v, "shard_linear_index");
            json_object_del(v, "first_shard_numel");
            json_object_del(v, "end_incr");
            if (untracked)
                json_object_set_new(v, "dispatch", json_string("untracked"));
            *out = v;
            v = NULL;
        }
    }
    json_decref(v);
    shc_mesh_free(&m);
    return rc;
}

int shcro_data_rank(const json_t *group, const json_t *test, int64_t rank, json_t **out,
                    shc_err *e)
{
    return data_rank(group, test, rank, NULL, NULL, out, e);
}

int shcro_data_device_rank(const shc_rng_device *dev, const json_t *group, const json_t *test,
                           int64_t rank, json_t **view, json_t **ref, shc_err *e)
{
    data_in d;
    int rc = data_params(group, &d, e);
    *ref = NULL;
    if (rc || (rc = data_rank(group, test, rank, &dev->profile, dev, view, e)))
        return rc;
    /* torch's launches depend on the SM count and threads per SM only */
    if (d.gpu.sm_count == dev->profile.sm_count &&
        d.gpu.max_threads_per_sm == dev->profile.max_threads_per_sm)
        return SHC_OK;
    if ((rc = data_rank(group, test, rank, &dev->profile, NULL, ref, e))) {
        json_decref(*view);
        *view = NULL;
    }
    return rc;
}

/* Does some pair of distinct non-empty shards hold identical random bytes? */
static bool draws_collide(const shc_mesh *m, const shc_placements *pl, const shc_shape *s,
                          json_t *digests, json_t *local)
{
    shc_rng_layout t;
    shc_err e;
    if (shc_rng_layout_init(&t, m, pl, s, &e))
        return false;
    for (int64_t a = 0; a < m->size; a++)
        for (int64_t b = a + 1; b < m->size; b++) {
            shc_rng_offsets oa, ob;
            shc_rng_offsets_rank(&t, m, a, &oa, &e);
            shc_rng_offsets_rank(&t, m, b, &ob, &e);
            if (oa.shard_linear_index != ob.shard_linear_index && oa.local_numel > 0 &&
                json_equal(json_array_get(digests, a), json_array_get(digests, b)) &&
                json_equal(json_array_get(local, a), json_array_get(local, b)))
                return true;
        }
    return false;
}

/* How many elements of all ranks' random data rest on libdevice log's MUFU.RCP64H
 * seed (shc_torch_rng_rcp_sensitive per rank, from its start offset and local
 * numel); 0 for data that reach no double log.  *rc gets an error, if any. */
static int64_t seed_elements(const json_t *group, const json_t *start, const json_t *local,
                             int *rc, shc_err *e)
{
    data_in d;
    int64_t total = 0;
    if ((*rc = data_params(group, &d, e)))
        return -1;
    for (size_t r = 0; r < json_array_size(local) && !*rc; r++) {
        int64_t n = 0;
        d.req.numel = strtoll(json_string_value(json_array_get(local, r)), NULL, 10);
        int64_t off = strtoll(json_string_value(json_array_get(start, r)), NULL, 10);
        if (d.req.numel && !(*rc = shc_torch_rng_rcp_sensitive(&d.gpu, d.seed, off, &d.req, &n, e)))
            total += n;
    }
    return *rc ? -1 : total;
}

/* One release's answer (shc_gw_answer_fn; ctx: the group): the release goes in as t's
 * "torch" member while the ranks are computed. */
static int data_answer(void *ctx, shc_torch_release rel, json_t *t, shc_gw_why *why,
                       shc_err *e)
{
    const json_t *group = ctx;
    shc_mesh m;
    shc_placements pl;
    shc_shape s;
    int rc = shcl_parse_inputs(group, t, &m, &pl, &s, e);
    if (rc)
        return rc;
    json_object_set_new(t, "result", json_string("valid"));
    json_object_set_new(t, "torch", json_string(shc_torch_release_name(rel)));
    json_t *start = json_array(), *local = json_array(), *dig = json_array(), *smp = json_array();
    json_t *post = json_array(), *v = NULL;
    shc_err ce;
    const shc_rng_op *op = NULL;
    shc_torch_op k;
    if (shc_torch_op_parse(json_string_value(json_object_get(group, "op")), &k, &ce) == SHC_OK)
        op = shc_rng_op_in(shc_rng_op_for_kernel(k), rel);
    if (op)
        why->changes |= op->torch_changes;
    if (op && shc_rng_op_check_layout(op, &m, &pl, &s, &ce) == SHC_EINVAL) { /* torch rejects */
        json_decref(start);
        json_decref(local);
        json_decref(dig);
        json_decref(smp);
        json_decref(post);
        shc_mesh_free(&m);
        json_object_del(t, "torch");
        json_object_set_new(t, "result", json_string("invalid"));
        json_object_set_new(t, "expected", json_pack("{s:s}", "error", ce.msg));
        return SHC_OK;
    }
    bool untracked = op && op->dispatch == SHC_RNGD_UNTRACKED;
    for (int64_t r = 0; r < m.size && !rc; r++) {
        json_decref(v);
        if ((rc = shcro_data_rank(group, t, r, &v, e)))
            break;
        json_array_append(post, json_object_get(v, "post_offset"));
        json_array_append(start, json_object_get(v, "start_offset"));
        json_array_append(local, json_object_get(v, "local_numel"));
        json_array_append(dig, json_object_get(v, "digest"));
        json_array_append(smp, json_object_get(v, "sample"));
    }
    const char *dtn = json_string_value(json_object_get(group, "dtype"));
    bool dbl = dtn && !strcmp(dtn, "float64");
    const char *opn = json_string_value(json_object_get(group, "op"));
    shc_gpu_profile gp;
    shc_err pe;
    bool sm90 = shc_gpu_profile_parse(json_string_value(json_object_get(group, "gpu")), &gp,
                                      &pe) == SHC_OK &&
                shc_gpu_sfu_model(&gp) == SHC_SFU_SM90;
    /* on sm_90 the seed is the recorded unit (cuda_rcp64h.c): no element rests on a model */
    int64_t seeded = !rc && dbl && !sm90 ? seed_elements(group, start, local, &rc, e)
                                         : (dbl ? 0 : -1);
    if (!rc) {
        json_t *f = json_object_get(v, "findings");
        size_t i;
        json_t *x;
        json_array_foreach(f, i, x) shc_test_flag(t, json_string_value(x));
        shc_test_flag(t, "GpuOnly");
        /* on an sm_90 profile float normal/exponential data follow cuda_sfu.c's model
         * of the unit (bit-exact on every recorded entry): compared exactly.  float64
         * data through libdevice log are exact on sm_90 (its MUFU.RCP64H seed is the
         * recorded unit) and elsewhere where no element rests on the seed (seed_elements) */
        bool sfu = sm90 && opn && (!strcmp(opn, "normal") || !strcmp(opn, "exponential")) &&
                   !dbl;
        if (sfu)
            shc_test_flag(t, "SfuModel");
        else if (seeded != 0)
            shc_test_set_tolerance(t, opn, dtn);
        if (draws_collide(&m, &pl, &s, dig, local))
            shc_test_flag(t, "ShardDrawsCollide");
        if (untracked)
            json_object_set_new(t, "expected",
                                json_pack("{s:s,s:O,s:{s:o,s:o,s:o,s:o,s:o}}", "dispatch",
                                          "untracked", "findings", f, "perRank", "start_offset",
                                          start, "post_offset", post, "local_numel", local,
                                          "digest", dig, "sample", smp));
        else
            json_object_set_new(t, "expected",
                                json_pack("{s:O,s:O,s:{s:o,s:o,s:o,s:o}}", "findings", f,
                                          "post_offset", json_object_get(v, "post_offset"),
                                          "perRank", "start_offset", start, "local_numel", local,
                                          "digest", dig, "sample", smp));
        if (!untracked)
            json_decref(post);
    } else {
        json_decref(post);
        json_decref(start);
        json_decref(local);
        json_decref(dig);
        json_decref(smp);
    }
    json_object_del(t, "torch");
    json_decref(v);
    shc_mesh_free(&m);
    return rc;
}

static int data_expected(shc_gw *w, const json_t *group, json_t *t, shc_err *e)
{
    return shc_gw_test_by_release(w, t, data_answer, (void *)group, e);
}

int shcro_gen_data(shc_gw *w, shc_err *e)
{
    int rc = shc_gw_file(w, "random-data", e);
    for (size_t i = 0; i < sizeof data_cases / sizeof data_cases[0] && !rc; i++) {
        const data_case *c = &data_cases[i];
        shcl_mesh_shape ms = shcl_mesh_shape_of(c->mesh);
        json_t *g = shcl_group_params(&ms, "arange");
        char seed[24];
        snprintf(seed, sizeof seed, "%llu", (unsigned long long)c->seed);
        json_object_set_new(g, "op", json_string(c->op));
        json_object_set_new(g, "dtype", json_string(c->dtype));
        json_object_set_new(g, "gpu", json_string(c->gpu));
        json_object_set_new(g, "seed", json_string(seed));
        json_object_set_new(g, "offset", shc_json_i64s(c->offset));
        json_t *keep = json_incref(g);
        shc_shape s;
        shc_err pe;
        if ((rc = shc_gw_group(w, g, e)) == SHC_OK && shc_shape_parse(&s, c->shape, &pe))
            rc = shc_fail(e, SHC_EINTERNAL, "data case %zu: %s", i, pe.msg);
        json_t *t = rc ? NULL : shc_test_new(c->comment, "valid");
        if (t) {
            json_object_set_new(t, "placements", json_string(c->placements));
            json_object_set_new(t, "shape", shc_json_i64_array(s.d, s.ndim));
            rc = data_expected(w, keep, t, e);
        }
        json_decref(keep);
    }
    return rc;
}

