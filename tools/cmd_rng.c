/*
 * cmd_rng.c — `shardcheck rng`: print a random engine's stream as hex bits and
 * values (text table, or one JSON object with --json).
 *
 *   shardcheck rng --engine philox [--key H,H | --seed N] [--counter H,H,H,H]
 *                  [--rounds 10] [--blocks N] [--step counter|subseq]
 *                  [--path auto|scalar|avx2|avx512]
 *   shardcheck rng --engine curand --seed N [--subsequence N] [--offset N]
 *                  [--call curand|uniform|uniform_double|normal|normal_double] [--count N]
 *   shardcheck rng --engine torch-cuda --seed N [--offset N] --shape S --op OP
 *                  [--dtype T] [--gpu NAME|SMSxTHREADS] [--from X --to Y | --mean M --std S |
 *                  --p P | --lambd L] [--start I] [--count N] [--digest]
 *   shardcheck rng --engine torch-cuda --seed N [--offset N] [--gpu G] [--dtype T] --op
 *                  randperm --n N | multinomial --shape [R,]C --values W,... --n N
 *                  [--replacement] | bernoulli_tensor --shape S --values P,...
 *                  [--p-shape S] [--p-dtype T]   (lib/rng/torch_cuda_sample.c)
 *   shardcheck rng --engine threefry [--key H,H | --seed N] --shape S
 *
 * Tested by conformance/tests/cli_rng.sh.
 */
#include "config.h"
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "torch_cuda_rng.h"
#include "golden.h"

typedef struct rng_opts {
    cli_common c;
    const char *engine, *seed, *key, *counter, *step, *sub, *offset, *call, *op, *dtype, *gpu;
    const char *from, *to, *mean, *std, *p, *lambd, *count, *start, *rounds, *blocks, *path;
    int digest; /* print the sha256 of the whole output (golden "sha256") */
    const char *n, *values, *p_shape, *p_dtype; /* the sampling ops */
    int repl;
} rng_opts;

static int parse_u64(const char *opt, const char *s, uint64_t *out, shc_err *e)
{
    char *end;
    errno = 0;
    if (!s || !*s || *s == '-')
        return shc_fail(e, SHC_EINVAL, "--%s: '%s' is not a non-negative integer", opt, s ? s : "");
    *out = strtoull(s, &end, 0);
    if (errno || *end)
        return shc_fail(e, SHC_EINVAL, "--%s: '%s' is not a 64-bit unsigned integer", opt, s);
    return SHC_OK;
}

static int parse_i64(const char *opt, const char *s, int64_t *out, shc_err *e)
{
    char *end;
    errno = 0;
    *out = strtoll(s, &end, 0);
    if (!*s || errno || *end)
        return shc_fail(e, SHC_EINVAL, "--%s: '%s' is not a 64-bit integer", opt, s);
    return SHC_OK;
}

static int parse_double(const char *opt, const char *s, double *out, shc_err *e)
{
    char *end;
    errno = 0;
    *out = strtod(s, &end);
    if (!*s || errno || *end)
        return shc_fail(e, SHC_EINVAL, "--%s: '%s' is not a number", opt, s);
    return SHC_OK;
}

/* "h,h,..." -> n words */
static int parse_words(const char *opt, const char *s, uint32_t *w, int n, shc_err *e)
{
    const char *p = s;
    for (int i = 0; i < n; i++) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(p, &end, 16);
        if (end == p || errno || v > 0xffffffffull || (i < n - 1 ? *end != ',' : *end != 0))
            return shc_fail(e, SHC_EINVAL, "--%s: '%s' must be %d comma-separated hex words", opt,
                            s, n);
        w[i] = (uint32_t)v;
        p = end + 1;
    }
    return SHC_OK;
}

static int key_of(const rng_opts *o, uint32_t k[2], bool seed_hi_first, shc_err *e)
{
    if (o->key)
        return parse_words("key", o->key, k, 2, e);
    uint64_t seed = 0;
    int rc = o->seed ? parse_u64("seed", o->seed, &seed, e) : 0;
    k[seed_hi_first ? 1 : 0] = (uint32_t)seed;
    k[seed_hi_first ? 0 : 1] = (uint32_t)(seed >> 32);
    return rc;
}

static int64_t count_or(const rng_opts *o, int64_t dflt, int64_t *out, shc_err *e)
{
    *out = dflt;
    if (!o->count)
        return SHC_OK;
    int rc = parse_i64("count", o->count, out, e);
    if (!rc && (*out < 0 || *out > (1 << 24)))
        rc = shc_fail(e, SHC_EINVAL, "--count: %lld is outside 0..16777216", (long long)*out);
    return rc;
}

static int print_words(const rng_opts *o, const uint32_t *w, int64_t n)
{
    if (o->c.json) {
        json_t *a = json_array();
        for (int64_t i = 0; i < n; i++) {
            char b[9];
            snprintf(b, sizeof b, "%08x", w[i]);
            json_array_append_new(a, json_string(b));
        }
        json_t *r = json_pack("{s:o}", "words", a);
        int wrc = cli_print_json(r);
        json_decref(r);
        return wrc;
    }
    for (int64_t i = 0; i < n; i++)
        printf("%08x%s", w[i], i % 4 == 3 || i == n - 1 ? "\n" : " ");
    return EXIT_OK;
}

static int run_philox(const rng_opts *o, shc_err *e)
{
    uint32_t k[2], c[4] = {0, 0, 0, 0};
    uint64_t rounds = 10, blocks = 1;
    int rc = key_of(o, k, false, e);
    if (!rc && o->counter) rc = parse_words("counter", o->counter, c, 4, e);
    if (!rc && o->rounds) rc = parse_u64("rounds", o->rounds, &rounds, e);
    if (!rc && o->blocks) rc = parse_u64("blocks", o->blocks, &blocks, e);
    if (!rc && blocks > (1u << 22)) rc = shc_fail(e, SHC_EINVAL, "--blocks: at most 4194304");
    if (!rc && o->step && strcmp(o->step, "counter") && strcmp(o->step, "subseq"))
        rc = shc_fail(e, SHC_EINVAL, "--step: '%s' is not counter or subseq", o->step);
    if (rc)
        return cli_report("rng", rc, e);
    shc_philox_path path = SHC_PHILOX_AUTO;
    if (o->path) {
        static const char *const names[] = {"auto", "scalar", "avx2", "avx512"};
        int i = 0;
        while (i < 4 && strcmp(o->path, names[i]))
            i++;
        if (i == 4)
            return cli_report("rng", shc_fail(e, SHC_EINVAL, "--path: '%s' is not auto, scalar, "
                                              "avx2 or avx512", o->path), e);
        path = (shc_philox_path)i;
    }
    uint32_t *w = malloc(16 * (size_t)blocks + 16);
    shc_philox_step step = o->step && !strcmp(o->step, "subseq") ? SHC_PHILOX_STEP_SUBSEQ
                                                                 : SHC_PHILOX_STEP_COUNTER;
    rc = w ? shc_philox_fill(path, k, c, step, rounds > 16 ? 0 : (int)rounds,
                             (int64_t)blocks, w, false, e)
           : shc_fail(e, SHC_ENOMEM, "out of memory");
    int ex = rc ? cli_report("rng", rc, e) : print_words(o, w, 4 * (int64_t)blocks);
    free(w);
    return ex;
}

static int run_curand(const rng_opts *o, shc_err *e)
{
    uint64_t seed = 0, sub = 0, off = 0;
    int64_t n;
    int rc = o->seed ? parse_u64("seed", o->seed, &seed, e) : 0;
    if (!rc && o->sub) rc = parse_u64("subsequence", o->sub, &sub, e);
    if (!rc && o->offset) rc = parse_u64("offset", o->offset, &off, e);
    if (!rc) rc = count_or(o, 8, &n, e);
    const char *call = o->call ? o->call : "curand";
    static const char *const calls[] = {"curand", "uniform", "uniform_double", "normal",
                                        "normal_double", NULL};
    int ci = 0;
    while (calls[ci] && strcmp(calls[ci], call))
        ci++;
    if (!rc && !calls[ci])
        rc = shc_fail(e, SHC_EINVAL, "--call: unknown call '%s' (curand uniform uniform_double "
                      "normal normal_double)", call);
    if (rc)
        return cli_report("rng", rc, e);
    shc_curand_philox s;
    shc_curand_init(seed, sub, off, &s);
    json_t *bits = json_array(), *vals = json_array();
    for (int64_t i = 0; i < n; i++) {
        char b[17];
        double v;
        if (ci == 0) {
            uint32_t w = shc_curand(&s);
            snprintf(b, sizeof b, "%08x", w);
            v = w;
        } else if (ci == 1 || ci == 3) {
            float f = ci == 1 ? shc_curand_uniform(&s) : shc_curand_normal(&s);
            uint32_t u;
            memcpy(&u, &f, 4);
            snprintf(b, sizeof b, "%08x", u);
            v = f;
        } else {
            double d = ci == 2 ? shc_curand_uniform_double(&s) : shc_curand_normal_double(&s);
            uint64_t u;
            memcpy(&u, &d, 8);
            snprintf(b, sizeof b, "%016" PRIx64, u);
            v = d;
        }
        json_array_append_new(bits, json_string(b));
        json_array_append_new(vals, json_real(v));
        if (!o->c.json)
            printf("%lld %s %.17g\n", (long long)i, b, v);
    }
    if (o->c.json) {
        json_t *r = json_pack("{s:o,s:o}", "bits", bits, "values", vals);
        int wrc = cli_print_json(r);
        json_decref(r);
        return wrc;
    } else {
        json_decref(bits);
        json_decref(vals);
    }
    return EXIT_OK;
}

static int torch_req(const rng_opts *o, shc_torch_rng_req *r, shc_err *e)
{
    shc_torch_op op;
    shc_dtype dt = SHC_DT_FLOAT32;
    shc_shape s;
    int64_t n;
    if (!o->op)
        return shc_fail(e, SHC_EINVAL, "--op is required (uniform normal random bernoulli "
                        "dropout exponential log_normal geometric cauchy bernoulli_tensor "
                        "multinomial randperm)");
    if (!o->c.shape)
        return shc_fail(e, SHC_EINVAL, "--shape is required (e.g. --shape 4 or --shape 8,16)");
    int rc = shc_torch_op_parse(o->op, &op, e);
    if (!rc && o->dtype) rc = shc_dtype_parse(o->dtype, &dt, e);
    if (!rc) rc = shc_shape_parse(&s, o->c.shape, e);
    if (!rc) rc = shc_shape_numel(&s, &n, e);
    if (rc)
        return rc;
    shc_torch_rng_req_init(r, op, dt, n);
    if (op == SHC_TORCH_RANDOM) {
        if (!o->from != !o->to)
            return shc_fail(e, SHC_EINVAL, "random: give both --from and --to, or neither");
        if (o->from) {
            r->has_range = true;
            if ((rc = parse_i64("from", o->from, &r->from, e)) || (rc = parse_i64("to", o->to, &r->to, e)))
                return rc;
        }
    } else {
        const char *a = op == SHC_TORCH_UNIFORM ? o->from : op == SHC_TORCH_NORMAL ? o->mean
                      : op == SHC_TORCH_EXPONENTIAL ? o->lambd : o->p;
        const char *b = op == SHC_TORCH_UNIFORM ? o->to : op == SHC_TORCH_NORMAL ? o->std : NULL;
        if (a && (rc = parse_double("param", a, &r->a, e)))
            return rc;
        if (b && (rc = parse_double("param", b, &r->b, e)))
            return rc;
    }
    return shc_torch_rng_check(r, e);
}

/* An element's bits as hex and its value as a double. */
static void torch_elem(shc_dtype t, const uint8_t *p, char *hex, size_t hn, double *v)
{
    size_t sz = shc_dtype_size(t);
    uint64_t u = 0;
    memcpy(&u, p, sz);
    snprintf(hex, hn, "%0*" PRIx64, (int)(2 * sz), u);
    switch (t) {
    case SHC_DT_FLOAT32: { float f; memcpy(&f, p, 4); *v = f; break; }
    case SHC_DT_FLOAT64: memcpy(v, p, 8); break;
    case SHC_DT_FLOAT16: *v = shc_f16_to_f32((uint16_t)u); break;
    case SHC_DT_BFLOAT16: *v = shc_bf16_to_f32((uint16_t)u); break;
    case SHC_DT_INT64: *v = (double)(int64_t)u; break;
    case SHC_DT_INT32: *v = (int32_t)(uint32_t)u; break;
    case SHC_DT_INT16: *v = (int16_t)(uint16_t)u; break;
    case SHC_DT_INT8: *v = (int8_t)(uint8_t)u; break;
    default: *v = (double)u; break;
    }
}

/* --digest: sha256 of the whole little-endian output (and of the dropout mask), the
 * values the torch-cuda-rng golden files store for large tensors. */
static int torch_digest(const shc_gpu_profile *g, uint64_t seed, int64_t off,
                        const shc_torch_rng_req *r, int json, shc_err *e)
{
    size_t sz = shc_dtype_size(r->dtype);
    int64_t no = 0;
    if (r->numel > (1ll << 28))
        return cli_report("rng", shc_fail(e, SHC_EINVAL, "--digest: at most 2^28 elements"), e);
    uint8_t *buf = malloc((size_t)r->numel * sz + 8), *mask = malloc((size_t)r->numel + 1);
    int rc = buf && mask ? shc_torch_rng_fill(g, seed, off, r, 0, r->numel, buf, mask, &no, e)
                         : shc_fail(e, SHC_ENOMEM, "out of memory");
    char h[65], hm[65];
    if (!rc) {
        shc_sha256_hex(buf, (size_t)r->numel * sz, h);
        shc_sha256_hex(mask, (size_t)r->numel, hm);
    }
    free(buf);
    free(mask);
    if (rc)
        return cli_report("rng", rc, e);
    bool dropout = r->op == SHC_TORCH_DROPOUT;
    if (json) {
        json_t *res = json_pack("{s:s,s:o}", "sha256", h, "new_offset", json_sprintf("%lld", (long long)no));
        if (dropout)
            json_object_set_new(res, "mask_sha256", json_string(hm));
        int wrc = cli_print_json(res);
        json_decref(res);
        if (wrc)
            return wrc;
    } else {
        printf("sha256 %s\n", h);
        if (dropout)
            printf("mask_sha256 %s\n", hm);
        printf("new_offset %lld\n", (long long)no);
    }
    return EXIT_OK;
}

/* "0.5,0.25,1" -> values (malloc'ed). */
static int parse_values(const char *s, double **out, int64_t *n, shc_err *e)
{
    size_t cap = 1;
    for (const char *q = s; *q; q++)
        cap += *q == ',';
    double *v = malloc(sizeof *v * cap);
    if (!v)
        return shc_fail(e, SHC_ENOMEM, "out of memory");
    int64_t k = 0;
    for (const char *q = s;; q++) {
        char *end;
        errno = 0;
        v[k] = strtod(q, &end);
        if (end == q || errno || (*end && *end != ',')) {
            free(v);
            return shc_fail(e, SHC_EINVAL, "--values: '%s' is not a comma-separated list of "
                            "numbers", s);
        }
        k++;
        if (!*end)
            break;
        q = end;
    }
    *out = v;
    *n = k;
    return SHC_OK;
}

/* The sampling ops' request from the options (r->w is malloc'ed). */
static int sample_req(const rng_opts *o, shc_torch_sample_req *r, shc_err *e)
{
    memset(r, 0, sizeof *r);
    r->op = !strcmp(o->op, "randperm") ? SHC_TORCH_SAMPLE_RANDPERM
          : !strcmp(o->op, "multinomial") ? SHC_TORCH_SAMPLE_MULTINOMIAL
          : SHC_TORCH_SAMPLE_BERNOULLI_P;
    r->dtype = r->op == SHC_TORCH_SAMPLE_RANDPERM ? SHC_DT_INT64 : SHC_DT_FLOAT32;
    r->p_dtype = SHC_DT_FLOAT32;
    r->replacement = o->repl != 0;
    int rc = o->dtype ? shc_dtype_parse(o->dtype, &r->dtype, e) : SHC_OK;
    if (!rc && o->p_dtype) rc = shc_dtype_parse(o->p_dtype, &r->p_dtype, e);
    if (!rc && r->op != SHC_TORCH_SAMPLE_BERNOULLI_P && !o->n)
        rc = shc_fail(e, SHC_EINVAL, "--n is required for %s", o->op);
    if (!rc && o->n) rc = parse_i64("n", o->n, &r->n, e);
    if (rc || r->op == SHC_TORCH_SAMPLE_RANDPERM)
        return rc;
    if (!o->c.shape || !o->values)
        return shc_fail(e, SHC_EINVAL, "%s needs --shape and --values", o->op);
    rc = shc_shape_parse(&r->shape, o->c.shape, e);
    r->p_shape = r->shape;
    if (!rc && o->p_shape) rc = shc_shape_parse(&r->p_shape, o->p_shape, e);
    double *w = NULL;
    if (!rc) rc = parse_values(o->values, &w, &r->nw, e);
    r->w = w;
    return rc;
}

/* randperm, multinomial, bernoulli with a tensor p: the whole output. */
static int run_torch_sample(const rng_opts *o, const shc_gpu_profile *g, uint64_t seed,
                            int64_t off, shc_err *e)
{
    shc_torch_sample_req r;
    int64_t n = 0, no = 0;
    shc_dtype odt = SHC_DT_INT64;
    int rc = sample_req(o, &r, e);
    if (!rc) rc = shc_torch_sample_out(&r, &n, &odt, e);
    if (!rc && n > (INT64_C(1) << 24)) /* randperm sorts with ~40 bytes per element */
        rc = shc_fail(e, SHC_EINVAL, "%s: %lld output elements: at most 2^24", o->op, (long long)n);
    size_t sz = shc_dtype_size(odt);
    uint8_t *buf = rc ? NULL : malloc((size_t)(n > 0 ? n : 1) * sz);
    if (!rc && !buf) rc = shc_fail(e, SHC_ENOMEM, "out of memory");
    if (!rc) rc = shc_torch_sample_run(g, seed, off, &r, buf, &no, e);
    free((void *)r.w);
    if (rc) {
        free(buf);
        return cli_report("rng", rc, e);
    }
    json_t *bits = json_array(), *vals = json_array();
    for (int64_t i = 0; i < n; i++) {
        char hex[17];
        double v;
        torch_elem(odt, buf + (size_t)i * sz, hex, sizeof hex, &v);
        json_array_append_new(bits, json_string(hex));
        json_array_append_new(vals, json_real(v));
        if (!o->c.json)
            printf("%lld %s %.9g\n", (long long)i, hex, v);
    }
    free(buf);
    if (!o->c.json) {
        json_decref(bits);
        json_decref(vals);
        printf("new_offset %lld\n", (long long)no);
        return EXIT_OK;
    }
    json_t *res = json_pack("{s:o,s:o,s:o}", "bits", bits, "values", vals, "new_offset",
                            json_sprintf("%lld", (long long)no));
    int wrc = cli_print_json(res);
    json_decref(res);
    return wrc ? wrc : EXIT_OK;
}

static bool is_sample_op(const char *op)
{
    return op && (!strcmp(op, "randperm") || !strcmp(op, "multinomial") ||
                  !strcmp(op, "bernoulli_tensor"));
}

static int run_torch(const rng_opts *o, shc_err *e)
{
    shc_torch_rng_req r;
    shc_gpu_profile g;
    uint64_t seed = 0;
    int64_t off = 0, start = 0, n, no;
    int rc = shc_gpu_profile_parse(o->gpu ? o->gpu : "a100", &g, e);
    if (!rc && o->seed) rc = parse_u64("seed", o->seed, &seed, e);
    if (!rc && o->offset) rc = parse_i64("offset", o->offset, &off, e);
    if (!rc && o->start) rc = parse_i64("start", o->start, &start, e);
    if (!rc && is_sample_op(o->op))
        return run_torch_sample(o, &g, seed, off, e);
    if (!rc) rc = torch_req(o, &r, e);
    if (!rc) rc = count_or(o, r.numel - start < 1024 ? r.numel - start : 16, &n, e);
    if (!rc && (start < 0 || start > r.numel || n > r.numel - start))
        rc = shc_fail(e, SHC_EINVAL, "--start/--count: [%lld, +%lld) is outside the %lld elements",
                      (long long)start, (long long)n, (long long)r.numel);
    if (rc)
        return cli_report("rng", rc, e);
    size_t sz = shc_dtype_size(r.dtype);
    if (o->digest)
        return torch_digest(&g, seed, off, &r, o->c.json, e);
    uint8_t *buf = malloc((size_t)n * sz + 8);
    if (!buf)
        return cli_report("rng", shc_fail(e, SHC_ENOMEM, "out of memory"), e);
    rc = shc_torch_rng_fill(&g, seed, off, &r, start, n, buf, NULL, &no, e);
    if (rc) {
        free(buf);
        return cli_report("rng", rc, e);
    }
    json_t *bits = json_array(), *vals = json_array();
    for (int64_t i = 0; i < n; i++) {
        char hex[17];
        double v;
        torch_elem(r.dtype, buf + (size_t)i * sz, hex, sizeof hex, &v);
        if (o->c.json) {
            json_array_append_new(bits, json_string(hex));
            json_array_append_new(vals, json_real(v));
        } else {
            printf("%lld %s %.9g\n", (long long)(start + i), hex, v);
        }
    }
    if (o->c.json) {
        json_t *res = json_pack("{s:o,s:o,s:o}", "bits", bits, "values", vals, "new_offset",
                                json_sprintf("%lld", (long long)no));
        int wrc = cli_print_json(res);
        json_decref(res);
        if (wrc)
            return wrc;
    } else {
        json_decref(bits);
        json_decref(vals);
        printf("new_offset %lld (gpu %s: %d SMs x %d threads)\n", (long long)no, g.name,
               g.sm_count, g.max_threads_per_sm);
    }
    free(buf);
    return EXIT_OK;
}

static int run_threefry(const rng_opts *o, shc_err *e)
{
    uint32_t k[2];
    shc_shape s;
    int64_t n;
    int rc = key_of(o, k, false, e);
    if (!rc && !o->c.shape) rc = shc_fail(e, SHC_EINVAL, "--shape is required for threefry");
    if (!rc) rc = shc_shape_parse(&s, o->c.shape, e);
    if (!rc) rc = shc_shape_numel(&s, &n, e);
    if (!rc && n > (1 << 24)) rc = shc_fail(e, SHC_EINVAL, "--shape: at most 2^24 elements");
    if (rc)
        return cli_report("rng", rc, e);
    /* key_data = (seed >> 32, seed & 0xffffffff) */
    if (!o->key) {
        uint32_t t = k[0];
        k[0] = k[1];
        k[1] = t;
    }
    uint32_t *b = malloc(4 * (size_t)n + 4);
    if (!b)
        return cli_report("rng", shc_fail(e, SHC_ENOMEM, "out of memory"), e);
    shc_threefry_bits32(k, 0, n, b);
    int ex = print_words(o, b, n);
    free(b);
    return ex;
}

static const char RNG_ABOUT[] =
    "  shardcheck rng --engine philox [--key H,H | --seed N] [--counter H,H,H,H]\n"
    "                 [--rounds 10] [--blocks N] [--step counter|subseq] [--path P]\n"
    "  shardcheck rng --engine curand --seed N [--subsequence N] [--offset N]\n"
    "                 [--call curand|uniform|uniform_double|normal|normal_double] [--count N]\n"
    "  shardcheck rng --engine torch-cuda --seed N [--offset N] --shape S --op OP [--dtype T]\n"
    "                 [--gpu NAME|SMSxTHREADS] [--from X --to Y | --mean M --std S | --p P |\n"
    "                 --lambd L] [--start I] [--count N] [--digest]\n"
    "  shardcheck rng --engine torch-cuda --seed N --op randperm|multinomial|bernoulli_tensor\n"
    "                 [--n N] [--values V,V] [--shape S] [--p-shape S] [--p-dtype T]\n"
    "                 [--replacement] [--dtype T] [--gpu G]\n"
    "  shardcheck rng --engine threefry [--key H,H | --seed N] --shape S";

int cmd_rng(int argc, char **argv)
{
    rng_opts o;
    memset(&o, 0, sizeof o);
    cli_common_init(&o.c);
    const cli_option opts[] = {
        {.name = "engine", .kind = CLI_STR, .meta = "E", .help = "philox, curand, torch-cuda or threefry", .to = &o.engine},
        {.name = "seed", .kind = CLI_STR, .meta = "N", .help = "the seed (decimal)", .to = &o.seed},
        {.name = "key", .kind = CLI_STR, .meta = "H,H", .help = "philox/threefry key words (hex)", .to = &o.key},
        {.name = "counter", .kind = CLI_STR, .meta = "H,H,H,H", .help = "philox: first counter (hex words)", .to = &o.counter},
        {.name = "rounds", .kind = CLI_STR, .meta = "N", .help = "philox: rounds (default 10)", .to = &o.rounds},
        {.name = "blocks", .kind = CLI_STR, .meta = "N", .help = "philox: blocks to print", .to = &o.blocks},
        {.name = "step", .kind = CLI_STR, .meta = "S", .help = "philox: counter or subseq", .to = &o.step},
        {.name = "subsequence", .kind = CLI_STR, .meta = "N", .help = "curand: subsequence", .to = &o.sub},
        {.name = "offset", .kind = CLI_STR, .meta = "N", .help = "curand/torch-cuda: Philox offset", .to = &o.offset},
        {.name = "call", .kind = CLI_STR, .meta = "F", .help = "curand: curand, uniform, uniform_double, normal, normal_double", .to = &o.call},
        {.name = "count", .kind = CLI_STR, .meta = "N", .help = "values to print", .to = &o.count},
        {.name = "start", .kind = CLI_STR, .meta = "I", .help = "torch-cuda: first element printed", .to = &o.start},
        {.name = "op", .kind = CLI_STR, .meta = "OP", .help = "torch-cuda: the random op", .to = &o.op},
        {.name = "dtype", .kind = CLI_STR, .meta = "T", .help = "torch-cuda: element dtype", .to = &o.dtype},
        {.name = "gpu", .kind = CLI_STR, .meta = "G", .help = "torch-cuda: GPU profile NAME or SMSxTHREADS", .to = &o.gpu},
        {.name = "from", .kind = CLI_STR, .meta = "X", .help = "torch-cuda: random_/uniform_ low", .to = &o.from},
        {.name = "to", .kind = CLI_STR, .meta = "Y", .help = "torch-cuda: random_/uniform_ high", .to = &o.to},
        {.name = "mean", .kind = CLI_STR, .meta = "M", .help = "torch-cuda: normal_ mean", .to = &o.mean},
        {.name = "std", .kind = CLI_STR, .meta = "S", .help = "torch-cuda: normal_ std", .to = &o.std},
        {.name = "p", .kind = CLI_STR, .meta = "P", .help = "torch-cuda: bernoulli_ probability", .to = &o.p},
        {.name = "lambd", .kind = CLI_STR, .meta = "L", .help = "torch-cuda: exponential_ lambda", .to = &o.lambd},
        {.name = "path", .kind = CLI_STR, .meta = "P", .help = "philox: auto, scalar, avx2 or avx512", .to = &o.path},
        {.name = "digest", .kind = CLI_FLAG, .to = &o.digest,
         .help = "torch-cuda: the sha256 of the whole output (golden \"sha256\")"},
        {.name = "n", .kind = CLI_STR, .meta = "N", .to = &o.n,
         .help = "torch-cuda randperm: n; multinomial: samples per row"},
        {.name = "values", .kind = CLI_STR, .meta = "V,V", .to = &o.values,
         .help = "torch-cuda multinomial weights / bernoulli_tensor probabilities"},
        {.name = "p-shape", .kind = CLI_STR, .meta = "S", .to = &o.p_shape,
         .help = "torch-cuda bernoulli_tensor: p's shape (default the output's)"},
        {.name = "p-dtype", .kind = CLI_STR, .meta = "T", .to = &o.p_dtype,
         .help = "torch-cuda bernoulli_tensor/multinomial: the input's dtype"},
        {.name = "replacement", .kind = CLI_FLAG, .to = &o.repl,
         .help = "torch-cuda multinomial: with replacement"},
        CLI_OPT_SHAPE(&o.c), CLI_OPT_JSON(&o.c), CLI_OPT_END};
    const cli_command cmd = {.name = "rng", .opts = opts, .about = RNG_ABOUT,
                             .synopsis = "--engine philox|curand|torch-cuda|threefry [options] "
                                         "[--json]"};
    int x = cli_parse(&cmd, argc, argv, NULL);
    if (x != CLI_GO)
        return x;
    shc_err e;
    shc_err_clear(&e);
    if (!o.engine)
        return cli_usage_error("rng", "--engine is required (philox, curand, torch-cuda, threefry)");
    if (!strcmp(o.engine, "philox"))
        return run_philox(&o, &e);
    if (!strcmp(o.engine, "curand"))
        return run_curand(&o, &e);
    if (!strcmp(o.engine, "torch-cuda"))
        return run_torch(&o, &e);
    if (!strcmp(o.engine, "threefry"))
        return run_threefry(&o, &e);
    return cli_usage_error("rng", "--engine: unknown engine '%s' (philox, curand, torch-cuda, "
                           "threefry)", o.engine);
}
