/*
 * torch_cuda_sample_cases.c — torch-cuda-rng cases of the sampling kernels
 * (lib/rng/torch_cuda_sample.c): bernoulli with a tensor p
 * (torch.bernoulli(p) and Tensor.bernoulli_(p)), multinomial (with
 * replacement: the cumulative-distribution kernel; without, or n_sample 1:
 * exponential_ then argmax/topk, GpuOnly), randperm, and torch's rejections.
 *
 * A test carries every input value it needs (p's values, the multinomial
 * weights) so that an implementation never re-derives them; the recipes
 * below only pick them.  Multinomial weights are integers summing to a power
 * of two, so the GPU's reduction and scan order cannot change the cumulative
 * distribution (flag ExactCumsum; other weights are refused by the library
 * as not modelled).  Cross-checked by conformance/tests/check_torch_sample.c
 * (a naive per-thread emulation) and, for the rejections, against torch on a
 * CPU by tools/harness/tests/test_torch_adapters.py.
 */
#include "config.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "families.h"
#include "rng_common.h"
#include "torch_cuda_rng.h"
#include "torch_cuda_sample_cases.h"

/* One element as 2*sz hex digits (little-endian value). */
json_t *shc_tcr_elem_hex(const uint8_t *p, size_t sz)
{
    uint64_t v = 0;
    memcpy(&v, p, sz);
    char b[17];
    snprintf(b, sizeof b, "%0*llx", (int)(2 * sz), (unsigned long long)v);
    return json_string(b);
}

/* The expected object's encoding of an output (torch_cuda_sample_cases.h); also used by
 * torch_cuda_rng.c, which calls down into this file (never the other way). */
void shc_tcr_encode(json_t *ex, const uint8_t *buf, int64_t n, size_t sz, const uint8_t *mask)
{
    if (n <= 16) {
        json_t *a = json_array();
        for (int64_t i = 0; i < n; i++)
            json_array_append_new(a, shc_tcr_elem_hex(buf + i * sz, sz));
        json_object_set_new(ex, "bits", a);
        return;
    }
    int64_t idx[8] = {0, 1, 2, 3, n / 3, n / 2, n - 2, n - 1};
    json_object_set_new(ex, "sha256", shcr_sha256(buf, (size_t)n * sz));
    if (mask)
        json_object_set_new(ex, "mask_sha256", shcr_sha256(mask, (size_t)n));
    json_t *si = json_array(), *sb = json_array();
    for (int i = 0; i < 8; i++) {
        json_array_append_new(si, shc_json_i64s(idx[i]));
        json_array_append_new(sb, shc_tcr_elem_hex(buf + idx[i] * sz, sz));
    }
    json_object_set_new(ex, "samples", json_pack("{s:o,s:o}", "index", si, "bits", sb));
}


/* How a case's input values are made. */
typedef enum {
    W_NONE,
    W_RAMP,    /* ((37 i) mod 257) / 256: dyadic p in [0, 1], both ends included */
    W_DECIMAL, /* 0.1 * (i mod 11) rounded to the p dtype: p_.to(float) rounds a double p */
    W_POW2,    /* integer weights 0..9, each row summing to 64 */
    W_NEG,     /* a negative weight */
    W_ZERO,    /* all zero */
} wrecipe;

typedef struct scase {
    const char *op, *api, *dtype, *shape; /* shape: bernoulli self, multinomial input */
    const char *p_dtype, *p_shape;        /* bernoulli */
    wrecipe w;
    int64_t n;                            /* multinomial n_sample, randperm n */
    bool replacement;
    uint64_t seed;
    int64_t offset;
    bool all_gpus;                        /* else only SHC_GPU_CORPUS_ALL profiles */
} scase;

#define BP "bernoulli_tensor", "bernoulli"
#define BT "bernoulli_tensor", "bernoulli_.Tensor"
#define MN "multinomial", "multinomial"
#define RP "randperm", "randperm"
#define MNR "multinomial", "multinomial.noreplace"

static const scase CASES[] = {
    {BP, "float32", "1000,37", "float32", "37", W_RAMP, 0, false, 31, 0, true},
    {BP, "float64", "999,7", "float64", "7", W_DECIMAL, 0, false, 31, 4, false},
    {BP, "float16", "33,5,7", "float16", "5,1", W_RAMP, 0, false, 31, 8, false},
    {BP, "bfloat16", "4099", "bfloat16", "1", W_RAMP, 0, false, 31, 8, false},
    {BP, "float32", "3,5", "float32", "3,5", W_DECIMAL, 0, false, 31, 0, false},
    {BT, "float32", "4099", "float64", "4099", W_DECIMAL, 0, false, 37, 0, false},
    {BT, "uint8", "4099", "float64", "1", W_DECIMAL, 0, false, 37, 12, false},
    {BT, "bool", "61,67", "float32", "61,1", W_RAMP, 0, false, 37, 0, false},
    {BT, "int64", "61,67", "float16", "67", W_RAMP, 0, false, 37, 0, false},
    {BT, "int32", "777", "float32", "777", W_RAMP, 0, false, 37, 4, false},
    {BT, "int16", "777", "bfloat16", "1", W_RAMP, 0, false, 37, 4, false},
    {BT, "int8", "7,111", "float32", "7,111", W_DECIMAL, 0, false, 37, 4, false},
    {BT, "float64", "2,3", "float32", "3", W_DECIMAL, 0, false, 37, 4, false},
    {MN, "float32", "10", NULL, NULL, W_POW2, 1000, true, 41, 0, true},
    {MN, "float64", "37,16", NULL, NULL, W_POW2, 300, true, 41, 8, false},
    {MN, "float16", "5,40", NULL, NULL, W_POW2, 129, true, 41, 4, false},
    {MN, "bfloat16", "3,9", NULL, NULL, W_POW2, 2, true, 41, 0, false},
    {MN, "float32", "4,5", NULL, NULL, W_POW2, 3, true, 41, 0, false},
    {MNR, "float32", "10", NULL, NULL, W_POW2, 5, false, 47, 0, true},
    {MNR, "float64", "37,16", NULL, NULL, W_POW2, 6, false, 47, 8, false},
    {MNR, "float32", "4,5", NULL, NULL, W_POW2, 3, false, 47, 4, false},
    {MN, "float16", "5,40", NULL, NULL, W_POW2, 1, true, 47, 0, false},
    {MN, "bfloat16", "3,9", NULL, NULL, W_POW2, 1, true, 47, 0, false},
    {MN, "float32", "300,33", NULL, NULL, W_POW2, 1, true, 47, 0, false},
    {RP, "int64", "", NULL, NULL, W_NONE, 10, false, 43, 0, true},
    {RP, "int64", "", NULL, NULL, W_NONE, 1, false, 43, 0, false},
    {RP, "int32", "", NULL, NULL, W_NONE, 100, false, 43, 8, false},
    {RP, "float16", "", NULL, NULL, W_NONE, 2049, false, 43, 4, false},
    {RP, "uint8", "", NULL, NULL, W_NONE, 200, false, 43, 4, false},
    {RP, "int16", "", NULL, NULL, W_NONE, 3000, false, 43, 0, false},
    {RP, "float32", "", NULL, NULL, W_NONE, 25000, false, 43, 0, true}, /* 32-bit keys, signed order */
    {RP, "int64", "", NULL, NULL, W_NONE, 40000, false, 43, 0, false},  /* 64-bit keys */
    {RP, "float64", "", NULL, NULL, W_NONE, 0, false, 43, 4, false},
    {RP, "int8", "", NULL, NULL, W_NONE, 128, false, 43, 4, false},     /* n - 1 = 127 fits */
    {BT, "float16", "130", "float32", "130", W_RAMP, 0, false, 53, 0, false},
    {BT, "bfloat16", "9,10", "float64", "10", W_DECIMAL, 0, false, 53, 0, false},
};

/* Rejected by torch with a host-side message (one group, a100). */
static const scase INVALID[] = {
    {BT, "float32", "3", "int64", "3", W_RAMP, 0, false, 0, 0, false},
    {BT, "float32", "4,3", "float32", "2,1", W_RAMP, 0, false, 0, 0, false},
    {MN, "float32", "4", NULL, NULL, W_POW2, 0, true, 0, 0, false},
    {MN, "float32", "4", NULL, NULL, W_POW2, 5, false, 0, 0, false},
    {MN, "int64", "4", NULL, NULL, W_POW2, 2, true, 0, 0, false},
    {MN, "float32", "1,1,4", NULL, NULL, W_POW2, 2, true, 0, 0, false},
    {MNR, "float32", "4", NULL, NULL, W_NEG, 2, false, 0, 0, false},
    {MNR, "float32", "2,4", NULL, NULL, W_ZERO, 2, false, 0, 0, false},
    {RP, "int64", "", NULL, NULL, W_NONE, -1, false, 0, 0, false},
    {RP, "float16", "", NULL, NULL, W_NONE, 2050, false, 0, 0, false},
    {RP, "int8", "", NULL, NULL, W_NONE, 129, false, 0, 0, false},
};

#define NCASES(a) (sizeof a / sizeof a[0])

bool shc_tcs_is_sample(const char *op)
{
    return op && (!strcmp(op, "bernoulli_tensor") || !strcmp(op, "multinomial") ||
                  !strcmp(op, "randperm"));
}

/* The input values of a case (count from its p_shape or shape). */
static json_t *weights_of(const scase *c, int64_t count, shc_dtype t)
{
    json_t *a = json_array();
    int64_t cats = 1;
    shc_shape s;
    shc_err e;
    if (c->w == W_POW2 && !shc_shape_parse(&s, c->shape, &e) && s.ndim)
        cats = s.d[s.ndim - 1];
    int64_t left = 64;
    for (int64_t i = 0; i < count; i++) {
        double v = 0;
        int64_t col = i % cats, row = i / cats;
        switch (c->w) {
        case W_RAMP: v = (double)((i * 37) % 257) / 256.0; break;
        case W_DECIMAL: v = 0.1 * (double)(i % 11); break;
        case W_POW2:
            if (col == 0)
                left = 64;
            v = (row * 7 + col * 13) % 5 == 0 ? 0 : (double)(1 + (row + 3 * col) % 9);
            v = col == cats - 1 || v > (double)left ? (double)left : v;
            left -= (int64_t)v;
            break;
        case W_NEG: v = i == 1 ? -0.25 : 0.25; break;
        default: break;
        }
        if (t == SHC_DT_FLOAT32)
            v = (float)v;
        else if (t == SHC_DT_FLOAT16) /* via float, not _Float16 (clang 14 lacks it): no */
            v = shc_f16_to_f32(shc_f32_to_f16((float)v)); /* weight here rounds twice */
        else if (t == SHC_DT_BFLOAT16) /* W_RAMP values are dyadic with <= 8 bits: exact */
            v = (double)(float)v;
        json_array_append_new(a, json_real(v));
    }
    return a;
}

static json_t *case_test(const scase *c, shc_err *e)
{
    shc_shape s = {0}, ps = {0};
    shc_dtype dt = SHC_DT_FLOAT32, pdt = SHC_DT_FLOAT32;
    int64_t n = 0, np = 0;
    if (shc_shape_parse(&s, c->shape, e) || shc_shape_numel(&s, &n, e) ||
        shc_dtype_parse(c->dtype, &dt, e))
        return NULL;
    json_t *t = shc_test_new("", "valid"), *p = json_object();
    json_object_set_new(t, "seed", shcr_u64s(c->seed));
    json_object_set_new(t, "offset", shc_json_i64s(c->offset));
    json_object_set_new(t, "op", json_string(c->op));
    json_object_set_new(t, "api", json_string(c->api));
    json_object_set_new(t, "dtype", json_string(c->dtype));
    json_object_set_new(t, "shape", shc_json_i64_array(s.d, s.ndim));
    if (!strcmp(c->op, "bernoulli_tensor")) {
        if (shc_shape_parse(&ps, c->p_shape, e) || shc_shape_numel(&ps, &np, e) ||
            shc_dtype_parse(c->p_dtype, &pdt, e)) {
            json_decref(t);
            json_decref(p);
            return NULL;
        }
        json_object_set_new(p, "p_dtype", json_string(c->p_dtype));
        json_object_set_new(p, "p_shape", shc_json_i64_array(ps.d, ps.ndim));
        json_object_set_new(p, "p_values", weights_of(c, np, pdt));
    } else if (!strcmp(c->op, "multinomial")) {
        json_object_set_new(p, "weights", weights_of(c, n, dt));
        json_object_set_new(p, "n_sample", json_integer(c->n));
        json_object_set_new(p, "replacement", json_boolean(c->replacement));
        /* n_sample >= 2 with replacement: the cumulative-distribution kernel; else the
         * Gumbel-max path through exponential_ (its logf/log: GpuOnly) */
        shc_test_flag(t, c->replacement && c->n >= 2 ? "ExactCumsum" : "GpuOnly");
    } else {
        json_object_set_new(p, "n", json_integer(c->n));
    }
    json_object_set_new(t, "params", p);
    shc_test_flag(t, "NoGpuOracle");
    return t;
}

static int values_of(const json_t *a, double **out, int64_t *n, shc_err *e)
{
    size_t k = json_array_size(a);
    *out = malloc(sizeof **out * (k ? k : 1));
    if (!*out)
        return shc_fail(e, SHC_ENOMEM, "out of memory");
    for (size_t i = 0; i < k; i++) {
        if (!json_is_number(json_array_get(a, i))) {
            free(*out);
            *out = NULL; /* the caller frees the request's values */
            return shc_fail(e, SHC_EFORMAT, "torch-cuda-rng: value %zu is not a number", i);
        }
        (*out)[i] = json_number_value(json_array_get(a, i));
    }
    *n = (int64_t)k;
    return SHC_OK;
}

static int shape_from(const json_t *a, shc_shape *s, shc_err *e)
{
    if (!json_is_array(a) || json_array_size(a) > SHC_MAX_TENSOR_DIMS)
        return shc_fail(e, SHC_EFORMAT, "torch-cuda-rng: a shape is not an array of <= %d dims",
                        SHC_MAX_TENSOR_DIMS);
    s->ndim = (int)json_array_size(a);
    for (int i = 0; i < s->ndim; i++) {
        s->d[i] = json_integer_value(json_array_get(a, (size_t)i));
        if (s->d[i] < 0)
            return shc_fail(e, SHC_EFORMAT, "torch-cuda-rng: negative dim in a shape");
    }
    return SHC_OK;
}

/* A test's request; r->w is allocated (free it). */
static int req_from(const json_t *test, shc_torch_sample_req *r, shc_err *e)
{
    const char *op = json_string_value(json_object_get(test, "op"));
    const json_t *p = json_object_get(test, "params");
    memset(r, 0, sizeof *r);
    r->op = !strcmp(op, "bernoulli_tensor") ? SHC_TORCH_SAMPLE_BERNOULLI_P
          : !strcmp(op, "multinomial") ? SHC_TORCH_SAMPLE_MULTINOMIAL : SHC_TORCH_SAMPLE_RANDPERM;
    int rc = shc_dtype_parse(json_string_value(json_object_get(test, "dtype")), &r->dtype, e);
    if (!rc)
        rc = shape_from(json_object_get(test, "shape"), &r->shape, e);
    if (rc)
        return rc;
    double *w = NULL;
    if (r->op == SHC_TORCH_SAMPLE_BERNOULLI_P) {
        rc = shc_dtype_parse(json_string_value(json_object_get(p, "p_dtype")), &r->p_dtype, e);
        if (!rc)
            rc = shape_from(json_object_get(p, "p_shape"), &r->p_shape, e);
        if (!rc)
            rc = values_of(json_object_get(p, "p_values"), &w, &r->nw, e);
    } else if (r->op == SHC_TORCH_SAMPLE_MULTINOMIAL) {
        r->n = json_integer_value(json_object_get(p, "n_sample"));
        r->replacement = json_is_true(json_object_get(p, "replacement"));
        rc = values_of(json_object_get(p, "weights"), &w, &r->nw, e);
    } else {
        r->n = json_integer_value(json_object_get(p, "n"));
    }
    r->w = w;
    return rc;
}

int shc_tcs_compute(const json_t *group, const json_t *test, json_t **out, shc_err *e)
{
    shc_gpu_profile g = {
        .name = json_string_value(json_object_get(group, "gpu")),
        .sm_count = (int)json_integer_value(json_object_get(group, "smCount")),
        .max_threads_per_sm = (int)json_integer_value(json_object_get(group, "maxThreadsPerSM"))};
    shc_gpu_profile_fill_cc(&g); /* the SFU model of an sm_90 group's exponential_ */
    return shc_tcs_compute_on(&g, test, out, e);
}

int shc_tcs_compute_on(const shc_gpu_profile *gp, const json_t *test, json_t **out, shc_err *e)
{
    const shc_gpu_profile g = *gp;
    shc_torch_sample_req r;
    uint64_t seed = 0;
    int64_t off = 0, no = 0, n = 0;
    shc_dtype odt;
    int rc = req_from(test, &r, e);
    if (!rc) rc = shcr_u64(test, "seed", &seed, e);
    if (!rc) rc = shcr_i64(test, "offset", &off, e);
    if (!rc) rc = shc_torch_sample_out(&r, &n, &odt, e);
    if (n < 0) /* randperm(-1): torch's rejection comes from the run */
        n = 0;
    /* randperm holds ~40 bytes per element while it sorts: keep a malformed case small */
    if (!rc && n > (INT64_C(1) << 22))
        rc = shc_fail(e, SHC_EUNSUPPORTED, "torch-cuda-rng: %lld output elements: sampling "
                      "cases hold at most 2^22", (long long)n);
    size_t sz = shc_dtype_size(odt);
    uint8_t *buf = rc ? NULL : malloc((size_t)(n > 0 ? n : 1) * sz);
    if (!rc && !buf)
        rc = shc_fail(e, SHC_ENOMEM, "out of memory");
    if (!rc)
        rc = shc_torch_sample_run(&g, seed, off, &r, buf, &no, e);
    if (!rc) {
        json_t *ex = json_object();
        shc_tcr_encode(ex, buf, n, sz, NULL);
        json_object_set_new(ex, "new_offset", shc_json_i64s(no));
        *out = ex;
    }
    free(buf);
    free((void *)r.w);
    return rc;
}

void shc_tcs_notes(shc_gw *w)
{
    shc_gw_note(w, "ExactCumsum", "multinomial: integer weights whose row sums are powers of "
                "two, so every partial sum is exact in the dtype and the GPU's reduction "
                "(renormRowsL1) and scan (cumsum) order cannot change the cumulative "
                "distribution the binary search reads; other weights are not modelled.");
    shc_gw_note(w, "CudaHostCheck", "Rejected on the host by torch's CUDA kernel (bernoulli_kernel "
                "checks p's dtype after philox_cuda_state(10)); torch's CPU kernel rejects the same "
                "input with another message, so the harness cannot check this one on a CPU.");
}

static json_t *group_of(const shc_gpu_profile *g)
{
    return json_pack("{s:s,s:i,s:i}", "gpu", g->name, "smCount", g->sm_count,
                     "maxThreadsPerSM", g->max_threads_per_sm);
}

/* A rejection torch's CPU kernel words differently: bernoulli's p dtype check. */
static bool cuda_host_check(const scase *c)
{
    return !strcmp(c->op, "bernoulli_tensor") && strcmp(c->p_dtype, "float32") &&
           strcmp(c->p_dtype, "float64") && strcmp(c->p_dtype, "float16") &&
           strcmp(c->p_dtype, "bfloat16");
}

static int gen_invalid(shc_gw *w, shc_err *e)
{
    shc_gpu_profile g;
    int rc = shc_gpu_profile_parse("a100", &g, e);
    json_t *grp = group_of(&g), *keep = json_incref(grp);
    if (!rc)
        rc = shc_gw_group(w, grp, e);
    for (size_t i = 0; i < NCASES(INVALID) && !rc; i++) {
        json_t *t = case_test(&INVALID[i], e), *ex = NULL;
        if (!t) {
            rc = e->code;
            break;
        }
        shc_err ce;
        if (shc_tcs_compute(keep, t, &ex, &ce) != SHC_EINVAL) {
            json_decref(ex);
            json_decref(t);
            rc = shc_fail(e, SHC_EINTERNAL, "invalid sampling case %zu was not rejected", i);
            break;
        }
        json_object_set_new(t, "result", json_string("invalid"));
        json_object_set_new(t, "flags", json_array());
        if (cuda_host_check(&INVALID[i]))
            shc_test_flag(t, "CudaHostCheck");
        json_object_set_new(t, "expected", json_pack("{s:s}", "error", ce.msg));
        rc = shc_gw_test(w, t, e);
    }
    json_decref(keep);
    return rc;
}

int shc_tcs_generate(shc_gw *w, shc_err *e)
{
    int rc = gen_invalid(w, e);
    for (const shc_gpu_profile *gp = shc_gpu_profiles(); gp->name && !rc; gp++) {
        if (gp->corpus == SHC_GPU_CORPUS_NONE)
            continue;
        json_t *grp = group_of(gp), *keep = json_incref(grp);
        rc = shc_gw_group(w, grp, e);
        for (size_t i = 0; i < NCASES(CASES) && !rc; i++) {
            if (!CASES[i].all_gpus && gp->corpus != SHC_GPU_CORPUS_ALL)
                continue;
            json_t *t = case_test(&CASES[i], e);
            rc = t ? shcr_add_test(w, keep, t, shc_tcs_compute, e) : e->code;
        }
        json_decref(keep);
    }
    return rc;
}
