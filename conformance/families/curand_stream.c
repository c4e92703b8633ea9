/*
 * curand_stream.c — the curand-stream golden family: sequences of cuRAND
 * device-API calls on a curandStatePhilox4_32_10_t after curand_init(seed,
 * subsequence, offset), with each call's result as hex bits (words, float
 * bits, double bits).
 *
 * A group is {seed, subsequence, offset} (decimal strings); a test is
 * {calls: ["curand", "uniform4", "skipahead:5", ...]}; expected {results: one
 * array of hex strings per call (empty for skips)}.  Normals are flagged
 * GpuOnly (the GPU's __sincosf / sincospi differ from accurate math).
 * Cross-checked by check_curand.c against libcurand's host generator (words,
 * uniform floats) and check_rng.c against Random123 (layout).
 * Schema: golden/schemas/curand-stream_v1.json.
 */
#include "config.h"
#include "families.h"
#include "rng_common.h"

static const struct { uint64_t seed, sub, off; } STATES[] = {
    {0, 0, 0},
    {0, 0, 1},
    {0, 3, 6},
    {0x123456789abcdefull, 65535, 262150},
    {42, 1ull << 32, 5000000003ull},
    {0xffffffffffffffffull, 0xffffffffffffffffull, 0xfffffffffffffffeull},
    {2024, 7, 4},
};

/* Call sequences; each is one test in every state group. */
static const char *const SEQS[][12] = {
    {"curand", "curand", "curand", "curand", "curand", "curand", NULL},
    {"curand", "curand4", "curand4", "curand", "curand4", NULL},
    {"uniform", "uniform4", "uniform", "uniform4", NULL},
    {"uniform_double", "uniform2_double", "uniform_double", "uniform2_double", NULL},
    {"skipahead:3", "curand", "skipahead:1000001", "curand4", "skipahead_sequence:2", "curand", NULL},
    {"normal", "normal", "normal", "curand", "normal2", NULL},
    {"normal4", "normal_double", "normal_double", "normal_double", "normal2_double", NULL},
};

static json_t *fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return shcr_hex32(u);
}

static json_t *dbits(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return shcr_hex64(u);
}

/* Run one call; appends its results to r. Returns 1 if it was a normal. */
static int run_call(shc_curand_philox *s, const char *c, json_t *r, shc_err *e)
{
    uint32_t w[4];
    float f[4];
    double d[2];
    if (!strcmp(c, "curand")) {
        json_array_append_new(r, shcr_hex32(shc_curand(s)));
    } else if (!strcmp(c, "curand4")) {
        shc_curand4(s, w);
        for (int i = 0; i < 4; i++) json_array_append_new(r, shcr_hex32(w[i]));
    } else if (!strcmp(c, "uniform")) {
        json_array_append_new(r, fbits(shc_curand_uniform(s)));
    } else if (!strcmp(c, "uniform4")) {
        shc_curand_uniform4(s, f);
        for (int i = 0; i < 4; i++) json_array_append_new(r, fbits(f[i]));
    } else if (!strcmp(c, "uniform_double")) {
        json_array_append_new(r, dbits(shc_curand_uniform_double(s)));
    } else if (!strcmp(c, "uniform2_double")) {
        shc_curand_uniform2_double(s, d);
        for (int i = 0; i < 2; i++) json_array_append_new(r, dbits(d[i]));
    } else if (!strcmp(c, "normal")) {
        json_array_append_new(r, fbits(shc_curand_normal(s)));
        return 1;
    } else if (!strcmp(c, "normal2")) {
        shc_curand_normal2(s, f);
        for (int i = 0; i < 2; i++) json_array_append_new(r, fbits(f[i]));
        return 1;
    } else if (!strcmp(c, "normal4")) {
        shc_curand_normal4(s, f);
        for (int i = 0; i < 4; i++) json_array_append_new(r, fbits(f[i]));
        return 1;
    } else if (!strcmp(c, "normal_double")) {
        json_array_append_new(r, dbits(shc_curand_normal_double(s)));
        return 1;
    } else if (!strcmp(c, "normal2_double")) {
        shc_curand_normal2_double(s, d);
        for (int i = 0; i < 2; i++) json_array_append_new(r, dbits(d[i]));
        return 1;
    } else if (!strncmp(c, "skipahead:", 10) || !strncmp(c, "skipahead_sequence:", 19)) {
        bool seq = c[9] == '_';
        const char *num = strchr(c, ':') + 1;
        char *end;
        errno = 0;
        uint64_t n = strtoull(num, &end, 10);
        if (errno || end == num || *end)
            return shc_fail(e, SHC_EFORMAT, "curand-stream: bad count in call '%s'", c), -1;
        if (seq)
            shc_curand_skipahead_sequence(n, s);
        else
            shc_curand_skipahead(n, s);
    } else {
        shc_fail(e, SHC_EFORMAT, "curand-stream: unknown call '%s'", c);
        return -1;
    }
    return 0;
}

static int compute(const json_t *group, const json_t *test, json_t **out, int *normals, shc_err *e)
{
    uint64_t seed = 0, sub = 0, off = 0;
    int rc = shcr_u64(group, "seed", &seed, e);
    if (!rc) rc = shcr_u64(group, "subsequence", &sub, e);
    if (!rc) rc = shcr_u64(group, "offset", &off, e);
    if (rc)
        return rc;
    const json_t *calls = json_object_get(test, "calls");
    if (!json_is_array(calls))
        return shc_fail(e, SHC_EFORMAT, "curand-stream: 'calls' must be an array");
    shc_curand_philox s;
    shc_curand_init(seed, sub, off, &s);
    json_t *res = json_array();
    *normals = 0;
    for (size_t i = 0; i < json_array_size(calls); i++) {
        const char *c = json_string_value(json_array_get(calls, i));
        json_t *r = json_array();
        int k = c ? run_call(&s, c, r, e) : (shc_fail(e, SHC_EFORMAT, "call %zu not a string", i), -1);
        if (k < 0) {
            json_decref(r);
            json_decref(res);
            return e->code;
        }
        *normals += k;
        json_array_append_new(res, r);
    }
    *out = json_pack("{s:o}", "results", res);
    return SHC_OK;
}

static int compute_rank(const json_t *group, const json_t *test, int64_t rank, json_t **out,
                        shc_err *e)
{
    int normals;
    return compute(group, test, out, &normals, e);
}

static int64_t world_size(const json_t *group) { return 1; }

static int generate(shc_gw *w, shc_err *e)
{
    shc_gw_note(w, "GpuOnly", "Box-Muller normals: a GPU computes __sincosf (float, absolute "
                "error up to ~1e-5 after scaling) or sincospi (double, up to 2 ulp); these values "
                "use accurate sin/cos/log, so a GPU may differ in the last bits. Raw words and "
                "uniforms are bit-exact. Tolerance: 0 ulp, compared exactly (every value is stored, "
                "raw words beside normals, and no GPU recording bounds cuRAND's device normals yet).");
    shc_gw_note(w, "Skipahead", "The sequence calls skipahead / skipahead_sequence.");
    int rc = shc_gw_file(w, "curand_stream", e);
    for (size_t g = 0; g < sizeof STATES / sizeof STATES[0] && !rc; g++) {
        json_t *grp = json_pack("{s:o,s:o,s:o}", "seed", shcr_u64s(STATES[g].seed), "subsequence",
                                shcr_u64s(STATES[g].sub), "offset", shcr_u64s(STATES[g].off));
        json_t *keep = json_incref(grp);
        rc = shc_gw_group(w, grp, e);
        for (size_t q = 0; q < sizeof SEQS / sizeof SEQS[0] && !rc; q++) {
            json_t *t = shc_test_new("", "valid"), *calls = json_array(), *ex = NULL;
            bool skips = false;
            for (int i = 0; SEQS[q][i]; i++) {
                json_array_append_new(calls, json_string(SEQS[q][i]));
                skips |= !strncmp(SEQS[q][i], "skipahead", 9);
            }
            json_object_set_new(t, "calls", calls);
            int normals = 0;
            if ((rc = compute(keep, t, &ex, &normals, e))) {
                json_decref(t);
                break;
            }
            if (normals)
                shc_test_flag(t, "GpuOnly");
            if (skips)
                shc_test_flag(t, "Skipahead");
            json_object_set_new(t, "expected", ex);
            rc = shc_gw_test(w, t, e);
        }
        json_decref(keep);
    }
    return rc;
}

const shc_family shc_family_curand_stream = {
    .name = "curand-stream",
    .source_name = "cuda-curand",
    .source_version = "13.0",
    .summary = "cuRAND device-API Philox4_32_10 call sequences after curand_init(seed, subsequence, offset)",
    .generate = generate,
    .compute_rank = compute_rank,
    .world_size = world_size,
    .gives = "cuRAND device-API call sequences after `curand_init(seed, subsequence, offset)`",
    .oracle = "libcurand's host generator (`make check`)",
    .harness_stride = 0,
    .claim = {.fields = SHC_NAMES("results"),
              .optional = SHC_NAMES("GpuOnly")},
};
