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
 *                  [--dtype T] [--gpu NAME|SMSxTHREADS[@sm_XY]] [--from X --to Y |
 *                  --mean M --std S | --p P | --lambd L | --median M --sigma S]
 *                  [--start I] [--count N] [--digest]
 *   shardcheck rng --engine torch-cuda --seed N [--offset N] [--gpu G] [--dtype T] --op
 *                  randperm --n N | multinomial --shape [R,]C --values W,... --n N
 *                  [--replacement] | bernoulli_tensor --shape S --values P,...
 *                  [--p-shape S] [--p-dtype T]   (lib/rng/torch_cuda_sample.c)
 *                  [--start I] [--count N] [--digest]
 *   shardcheck rng --engine threefry [--key H,H | --seed N] --shape S
 *
 * Every option acts in the mode it is given for, or is refused by name (mode_options: the
 * engine, and for torch-cuda the op, decide which).  Seeds are decimal 0..2^64-1
 * (cli_parse_seed).  Tested by conformance/tests/cli_rng.sh and cli_options.sh.
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
    const char *engine, *key, *counter, *step, *sub, *offset, *call, *op, *dtype, *gpu;
    const char *from, *to, *mean, *std, *p, *lambd, *median, *sigma, *path;
    uint64_t seed;
    long long rounds, blocks, count, start;
    int digest; /* print the sha256 of the whole output (golden "sha256") */
    const char *n, *values, *p_shape, *p_dtype; /* the sampling ops */
    int repl;
    int count_given;
} rng_opts;

/* A decimal integer in 0..2^64-1 (curand's subsequence and offset). */
static int parse_u64(const char *opt, const char *s, uint64_t *out, shc_err *e)
{
    char *end;
    errno = 0;
    if (!s || *s < '0' || *s > '9' || (*out = strtoull(s, &end, 10), errno || *end))
        return shc_fail(e, SHC_EINVAL, "--%s: '%s' is not a decimal integer in "
                        "0..18446744073709551615", opt, CLI_ECHO(s));
    return SHC_OK;
}

/* A decimal integer in 0..2^63-1 (torch's generator offset). */
static int parse_offset(const char *s, int64_t *out, shc_err *e)
{
    char *end;
    errno = 0;
    if (!s || *s < '0' || *s > '9' || (*out = strtoll(s, &end, 10), errno || *end))
        return shc_fail(e, SHC_EINVAL, "--offset: '%s' is not a decimal integer in "
                        "0..9223372036854775807", CLI_ECHO(s));
    return SHC_OK;
}

static int parse_i64(const char *opt, const char *s, int64_t *out, shc_err *e)
{
    char *end;
    errno = 0;
    *out = strtoll(s, &end, 10);
    if (!*s || errno || *end)
        return shc_fail(e, SHC_EINVAL, "--%s: '%s' is not a 64-bit integer", opt, CLI_ECHO(s));
    return SHC_OK;
}

static int parse_double(const char *opt, const char *s, double *out, shc_err *e)
{
    char *end;
    errno = 0;
    *out = strtod(s, &end);
    if (!*s || errno || *end)
        return shc_fail(e, SHC_EINVAL, "--%s: '%s' is not a number", opt, CLI_ECHO(s));
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
                            CLI_ECHO(s), n);
        w[i] = (uint32_t)v;
        p = end + 1;
    }
    return SHC_OK;
}

static int key_of(const rng_opts *o, uint32_t k[2], bool seed_hi_first, shc_err *e)
{
    if (o->key)
        return parse_words("key", o->key, k, 2, e);
    k[seed_hi_first ? 1 : 0] = (uint32_t)o->seed;
    k[seed_hi_first ? 0 : 1] = (uint32_t)(o->seed >> 32);
    return SHC_OK;
}

/* --count (0..2^24, checked by the option table), or dflt. */
static int64_t count_or(const rng_opts *o, int64_t dflt)
{
    return o->count_given ? o->count : dflt;
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
    int64_t blocks = o->blocks; /* --rounds and --blocks: ranges checked by the option table */
    int rc = key_of(o, k, false, e);
    if (!rc && o->counter) rc = parse_words("counter", o->counter, c, 4, e);
    if (!rc && o->step && strcmp(o->step, "counter") && strcmp(o->step, "subseq"))
        rc = shc_fail(e, SHC_EINVAL, "--step: '%s' is not counter or subseq", CLI_ECHO(o->step));
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
                                              "avx2 or avx512", CLI_ECHO(o->path)), e);
        path = (shc_philox_path)i;
    }
    uint32_t *w = malloc(16 * (size_t)blocks + 16);
    shc_philox_step step = o->step && !strcmp(o->step, "subseq") ? SHC_PHILOX_STEP_SUBSEQ
                                                                 : SHC_PHILOX_STEP_COUNTER;
    rc = w ? shc_philox_fill(path, k, c, step, (int)o->rounds, blocks, w, false, e)
           : shc_fail(e, SHC_ENOMEM, "out of memory");
    int ex = rc ? cli_report("rng", rc, e) : print_words(o, w, 4 * (int64_t)blocks);
    free(w);
    return ex;
}

static int run_curand(const rng_opts *o, shc_err *e)
{
    uint64_t sub = 0, off = 0;
    int64_t n = count_or(o, 8);
    int rc = SHC_OK;
    if (o->sub) rc = parse_u64("subsequence", o->sub, &sub, e);
    if (!rc && o->offset) rc = parse_u64("offset", o->offset, &off, e);
    const char *call = o->call ? o->call : "curand";
    static const char *const calls[] = {"curand", "uniform", "uniform_double", "normal",
                                        "normal_double", NULL};
    int ci = 0;
    while (calls[ci] && strcmp(calls[ci], call))
        ci++;
    if (!rc && !calls[ci])
        rc = shc_fail(e, SHC_EINVAL, "--call: unknown call '%s' (curand uniform uniform_double "
                      "normal normal_double)", CLI_ECHO(call));
    if (rc)
        return cli_report("rng", rc, e);
    shc_curand_philox s;
    shc_curand_init(o->seed, sub, off, &s);
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

/* The options that carry an elementwise op's two parameters (torch's argument names),
 * "" where the op has none. */
static void op_params(shc_torch_op op, const char **a, const char **b)
{
    static const char *const names[SHC_TORCH_OP_COUNT][2] = {
        [SHC_TORCH_UNIFORM] = {"from", "to"},     [SHC_TORCH_NORMAL] = {"mean", "std"},
        [SHC_TORCH_RANDOM] = {"from", "to"},      [SHC_TORCH_BERNOULLI] = {"p", ""},
        [SHC_TORCH_DROPOUT] = {"p", ""},          [SHC_TORCH_EXPONENTIAL] = {"lambd", ""},
        [SHC_TORCH_LOG_NORMAL] = {"mean", "std"}, [SHC_TORCH_GEOMETRIC] = {"p", ""},
        [SHC_TORCH_CAUCHY] = {"median", "sigma"}};
    *a = (unsigned)op < SHC_TORCH_OP_COUNT && names[op][0] ? names[op][0] : "";
    *b = (unsigned)op < SHC_TORCH_OP_COUNT && names[op][1] ? names[op][1] : "";
}

/* The value of the option called name. */
static const char *param_value(const rng_opts *o, const char *name)
{
    return !strcmp(name, "from") ? o->from : !strcmp(name, "to") ? o->to
         : !strcmp(name, "mean") ? o->mean : !strcmp(name, "std") ? o->std
         : !strcmp(name, "p") ? o->p : !strcmp(name, "lambd") ? o->lambd
         : !strcmp(name, "median") ? o->median : !strcmp(name, "sigma") ? o->sigma : NULL;
}

static int torch_req(const rng_opts *o, shc_torch_rng_req *r, shc_err *e)
{
    shc_torch_op op;
    shc_dtype dt = SHC_DT_FLOAT32;
    shc_shape s;
    int64_t n;
    if (!o->c.shape)
        return shc_fail(e, SHC_EINVAL, "--shape is required (e.g. --shape 4 or --shape 8,16)");
    int rc = shc_torch_op_parse(o->op, &op, e);
    if (!rc && o->dtype) rc = shc_dtype_parse(o->dtype, &dt, e);
    if (!rc) rc = shc_shape_parse(&s, o->c.shape, e);
    if (!rc) rc = shc_shape_numel(&s, &n, e);
    if (rc)
        return rc;
    shc_torch_rng_req_init(r, op, dt, n);
    const char *ka, *kb;
    op_params(op, &ka, &kb);
    const char *a = *ka ? param_value(o, ka) : NULL, *b = *kb ? param_value(o, kb) : NULL;
    if (op == SHC_TORCH_RANDOM) {
        if (!a != !b)
            return shc_fail(e, SHC_EINVAL, "random: give both --from and --to, or neither");
        if (a) {
            r->has_range = true;
            if ((rc = parse_i64("from", a, &r->from, e)) || (rc = parse_i64("to", b, &r->to, e)))
                return rc;
        }
    } else {
        if (a && (rc = parse_double(ka, a, &r->a, e)))
            return rc;
        if (b && (rc = parse_double(kb, b, &r->b, e)))
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

/* What an output of torch's kernels rests on beyond exact arithmetic (shc_torch_rng_model_of,
 * the golden flags' source): JSON "modelled", and the text line. */
static json_t *model_json(const shc_torch_rng_model *m)
{
    bool exact = !m->sfu_model && !m->unit_unrecorded && !m->math_todo && !m->fma_contract &&
                 m->rcp64h <= 0;
    return json_pack("{s:b,s:b,s:b,s:b,s:b,s:o}", "exact", exact, "SfuModel", m->sfu_model,
                     "GpuOnly", m->unit_unrecorded, "CudaMathTodo", m->math_todo, "FmaContract",
                     m->fma_contract, "rcp64hElements",
                     m->rcp64h < 0 ? json_null() : json_integer(m->rcp64h));
}

static void model_text(const shc_torch_rng_model *m, int64_t numel)
{
    static const char *const names[] = {"SfuModel", "GpuOnly", "CudaMathTodo", "FmaContract"};
    bool on[] = {m->sfu_model, m->unit_unrecorded, m->math_todo, m->fma_contract};
    int n = 0;
    fputs("modelled:", stdout);
    for (int i = 0; i < 4; i++)
        if (on[i])
            printf("%s%s", n++ ? ", " : " ", names[i]);
    if (m->rcp64h > 0)
        printf("%s%lld of %lld elements rest on MUFU.RCP64H, unrecorded on this GPU",
               n++ ? "; " : " ",
               (long long)m->rcp64h, (long long)numel);
    puts(n ? "" : " exact");
}

/* --digest's answer: the sha256 of the whole little-endian output (and of dropout's mask),
 * the values the torch-cuda-rng golden files store for large tensors, and the offset. */
static int print_digest(const uint8_t *buf, size_t bytes, const uint8_t *mask, size_t nmask,
                        int64_t no, int json, const shc_torch_rng_model *md, int64_t numel)
{
    char h[65], hm[65];
    shc_sha256_hex(buf, bytes, h);
    if (mask)
        shc_sha256_hex(mask, nmask, hm);
    if (json) {
        json_t *res = json_pack("{s:s,s:o}", "sha256", h, "new_offset",
                                json_sprintf("%lld", (long long)no));
        if (mask)
            json_object_set_new(res, "mask_sha256", json_string(hm));
        if (md)
            json_object_set_new(res, "modelled", model_json(md));
        int wrc = cli_print_json(res);
        json_decref(res);
        return wrc;
    }
    printf("sha256 %s\n", h);
    if (mask)
        printf("mask_sha256 %s\n", hm);
    printf("new_offset %lld\n", (long long)no);
    if (md)
        model_text(md, numel);
    return EXIT_OK;
}

static int torch_digest(const shc_gpu_profile *g, uint64_t seed, int64_t off,
                        const shc_torch_rng_req *r, int json, shc_err *e)
{
    size_t sz = shc_dtype_size(r->dtype);
    int64_t no = 0;
    if (r->numel > (1ll << 28))
        return cli_report("rng", shc_fail(e, SHC_EINVAL, "--digest: at most 2^28 elements"), e);
    uint8_t *buf = malloc((size_t)r->numel * sz + 8), *mask = malloc((size_t)r->numel + 1);
    shc_torch_rng_model md;
    int rc = buf && mask ? shc_torch_rng_fill(g, seed, off, r, 0, r->numel, buf, mask, &no, e)
                         : shc_fail(e, SHC_ENOMEM, "out of memory");
    if (!rc)
        rc = shc_torch_rng_model_of(g, seed, off, r, &md, e);
    int x = rc ? cli_report("rng", rc, e)
               : print_digest(buf, (size_t)r->numel * sz, r->op == SHC_TORCH_DROPOUT ? mask : NULL,
                              (size_t)r->numel, no, json, &md, r->numel);
    free(buf);
    free(mask);
    return x;
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

/* Elements [start, start + n) as "i bits value" lines or {"bits", "values"} arrays (and
 * "new_offset"), the output of a torch-cuda op. */
static int print_elems(const rng_opts *o, shc_dtype dt, const uint8_t *buf, int64_t start,
                       int64_t n, int64_t no, const char *tail, const shc_torch_rng_model *md,
                       int64_t numel)
{
    size_t sz = shc_dtype_size(dt);
    json_t *bits = o->c.json ? json_array() : NULL, *vals = o->c.json ? json_array() : NULL;
    for (int64_t i = 0; i < n; i++) {
        char hex[17];
        double v;
        torch_elem(dt, buf + (size_t)i * sz, hex, sizeof hex, &v);
        if (o->c.json) {
            json_array_append_new(bits, json_string(hex));
            json_array_append_new(vals, json_real(v));
        } else {
            printf("%lld %s %.9g\n", (long long)(start + i), hex, v);
        }
    }
    if (!o->c.json) {
        printf("new_offset %lld%s\n", (long long)no, tail);
        if (md)
            model_text(md, numel);
        return EXIT_OK;
    }
    json_t *res = json_pack("{s:o,s:o,s:o}", "bits", bits, "values", vals, "new_offset",
                            json_sprintf("%lld", (long long)no));
    if (md)
        json_object_set_new(res, "modelled", model_json(md));
    int wrc = cli_print_json(res);
    json_decref(res);
    return wrc;
}

/* --start/--count over n elements: the range printed, or an error naming both. */
static int elem_range(const rng_opts *o, int64_t numel, int64_t dflt_max, int64_t *start,
                      int64_t *n, shc_err *e)
{
    *start = o->start;
    if (*start > numel)
        return shc_fail(e, SHC_EINVAL, "--start: %lld is past the output's %lld elements",
                        (long long)*start, (long long)numel);
    *n = count_or(o, numel - *start <= dflt_max ? numel - *start : 16);
    if (*n > numel - *start)
        return shc_fail(e, SHC_EINVAL, "--start/--count: [%lld, %lld) is outside the output's "
                        "%lld elements", (long long)*start, (long long)*start + *n,
                        (long long)numel);
    return SHC_OK;
}

/* randperm, multinomial, bernoulli with a tensor p: the whole output (or --start/--count
 * of it, or --digest). */
static int run_torch_sample(const rng_opts *o, const shc_gpu_profile *g, uint64_t seed,
                            int64_t off, shc_err *e)
{
    shc_torch_sample_req r;
    int64_t n = 0, no = 0, start = 0, count = 0;
    shc_dtype odt = SHC_DT_INT64;
    int rc = sample_req(o, &r, e);
    if (!rc) rc = shc_torch_sample_out(&r, &n, &odt, e);
    if (!rc && n > (INT64_C(1) << 24)) /* randperm sorts with ~40 bytes per element */
        rc = shc_fail(e, SHC_EINVAL, "%s: %lld output elements: at most 2^24", o->op, (long long)n);
    size_t sz = shc_dtype_size(odt);
    uint8_t *buf = rc ? NULL : malloc((size_t)(n > 0 ? n : 1) * sz);
    if (!rc && !buf) rc = shc_fail(e, SHC_ENOMEM, "out of memory");
    if (!rc) rc = shc_torch_sample_run(g, seed, off, &r, buf, &no, e); /* torch's checks first */
    if (!rc && !o->digest) /* the whole output by default, as these ops print it */
        rc = elem_range(o, n, INT64_MAX, &start, &count, e);
    free((void *)r.w);
    int x = rc ? cli_report("rng", rc, e)
          : o->digest ? print_digest(buf, (size_t)n * sz, NULL, 0, no, o->c.json, NULL, 0)
                      : print_elems(o, odt, buf + (size_t)start * sz, start, count, no, "", NULL, 0);
    free(buf);
    return x;
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
    int64_t off = 0, start, n, no;
    int rc = shc_gpu_profile_parse(o->gpu ? o->gpu : "a100", &g, e);
    if (rc)
        shc_err_prefix(e, "--gpu");
    if (!rc && o->offset) rc = parse_offset(o->offset, &off, e);
    if (!rc && is_sample_op(o->op))
        return run_torch_sample(o, &g, o->seed, off, e);
    if (!rc) rc = torch_req(o, &r, e);
    if (rc)
        return cli_report("rng", rc, e);
    if (o->digest)
        return torch_digest(&g, o->seed, off, &r, o->c.json, e);
    if ((rc = elem_range(o, r.numel, 1023, &start, &n, e)))
        return cli_report("rng", rc, e);
    size_t sz = shc_dtype_size(r.dtype);
    uint8_t *buf = malloc((size_t)n * sz + 8);
    if (!buf)
        return cli_report("rng", shc_fail(e, SHC_ENOMEM, "out of memory"), e);
    shc_torch_rng_model md;
    rc = shc_torch_rng_fill(&g, o->seed, off, &r, start, n, buf, NULL, &no, e);
    if (!rc) /* of the whole output, as the golden flags: the window is part of it */
        rc = shc_torch_rng_model_of(&g, o->seed, off, &r, &md, e);
    char tail[96] = "";
    if (g.cc)
        snprintf(tail, sizeof tail, " (gpu %s: %d SMs x %d threads, sm_%d)", g.name, g.sm_count,
                 g.max_threads_per_sm, g.cc);
    else
        snprintf(tail, sizeof tail, " (gpu %s: %d SMs x %d threads)", g.name, g.sm_count,
                 g.max_threads_per_sm);
    int x = rc ? cli_report("rng", rc, e)
               : print_elems(o, r.dtype, buf, start, n, no, tail, &md, r.numel);
    free(buf);
    return x;
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
    "                 [--gpu NAME|SMSxTHREADS[@sm_XY]] [--from X --to Y | --mean M --std S |\n"
    "                 --p P | --lambd L | --median M --sigma S] [--start I] [--count N]\n"
    "                 [--digest]\n"
    "  shardcheck rng --engine torch-cuda --seed N --op randperm|multinomial|bernoulli_tensor\n"
    "                 [--n N] [--values V,V] [--shape S] [--p-shape S] [--p-dtype T]\n"
    "                 [--replacement] [--dtype T] [--gpu G] [--start I] [--count N] [--digest]\n"
    "  shardcheck rng --engine threefry [--key H,H | --seed N] --shape S\n"
    "An option another mode uses is refused by name.  A seed is decimal, 0..2^64-1.";

/* The options of each torch-cuda sampling op (lib/rng/torch_cuda_sample.c).  Their launches
 * read the GPU only where the grid depends on it: randperm's keys, and multinomial without
 * replacement (or n_sample 1: exponential_ on the weights); bernoulli with a tensor p launches
 * ceil(n / 2048) blocks and multinomial with replacement (rows, n / 128) on any GPU. */
static const char *sample_options(const rng_opts *o)
{
    if (!strcmp(o->op, "randperm"))
        return "n gpu";
    if (!strcmp(o->op, "multinomial"))
        return o->repl && !(o->n && !strcmp(o->n, "1")) ? "shape values n replacement"
                                                        : "shape values n replacement gpu";
    return "shape values p-shape p-dtype";
}

/* Refuse what the mode (the engine; for torch-cuda, the op) does not use: CLI_GO or the exit
 * code. */
static int mode_options(const cli_command *cmd, const rng_opts *o, shc_err *e)
{
    char used[256], mode[128];
    if (!strcmp(o->engine, "philox") || !strcmp(o->engine, "threefry")) {
        if (o->key && cli_given(cmd, "seed"))
            return cli_usage_error("rng", "--key: and --seed exclude each other (the key is "
                                   "the seed's two words)");
        snprintf(used, sizeof used, "engine json seed key %s",
                 o->engine[0] == 'p' ? "counter rounds blocks step path" : "shape");
    } else if (!strcmp(o->engine, "curand")) {
        snprintf(used, sizeof used, "engine json seed subsequence offset call count");
    } else if (!strcmp(o->engine, "torch-cuda")) {
        if (!o->op)
            return cli_usage_error("rng", "--op is required (uniform normal random bernoulli "
                                   "dropout exponential log_normal geometric cauchy "
                                   "bernoulli_tensor multinomial randperm)");
        const char *range = o->digest ? "digest" : "start count digest";
        if (is_sample_op(o->op)) {
            snprintf(used, sizeof used, "engine json seed offset op dtype %s %s",
                     sample_options(o), range);
        } else {
            shc_torch_op k;
            const char *pa, *pb;
            if (shc_torch_op_parse(o->op, &k, e))
                return cli_report("rng", SHC_EINVAL, e);
            op_params(k, &pa, &pb);
            snprintf(used, sizeof used, "engine json seed offset gpu op dtype shape %s %s %s",
                     pa, pb, range);
        }
        snprintf(mode, sizeof mode, "with --engine torch-cuda --op %s%s%s", CLI_ECHO(o->op),
                 o->repl ? " --replacement" : "", o->digest ? " --digest" : "");
        return cli_used(cmd, used, mode);
    } else {
        return cli_usage_error("rng", "--engine: unknown engine '%s' (philox, curand, "
                               "torch-cuda, threefry)", CLI_ECHO(o->engine));
    }
    snprintf(mode, sizeof mode, "with --engine %s", o->engine);
    return cli_used(cmd, used, mode);
}

int cmd_rng(int argc, char **argv)
{
    rng_opts o;
    memset(&o, 0, sizeof o);
    cli_common_init(&o.c);
    o.rounds = 10;
    o.blocks = 1;
    unsigned long long given = 0;
    const cli_option opts[] = {
        {.name = "engine", .kind = CLI_STR, .meta = "E", .help = "philox, curand, torch-cuda or threefry", .to = &o.engine},
        {.name = "seed", .kind = CLI_SEED, .meta = "N", .help = "the seed, decimal 0..2^64-1 (default 0)", .to = &o.seed},
        {.name = "key", .kind = CLI_STR, .meta = "H,H", .help = "philox/threefry key words (hex), instead of --seed", .to = &o.key},
        {.name = "counter", .kind = CLI_STR, .meta = "H,H,H,H", .help = "philox: first counter (hex words)", .to = &o.counter},
        {.name = "rounds", .kind = CLI_LL, .meta = "N", .lo = 1, .hi = 16, .help = "philox: rounds (default 10)", .to = &o.rounds},
        {.name = "blocks", .kind = CLI_LL, .meta = "N", .lo = 0, .hi = 1 << 22, .help = "philox: blocks to print (default 1)", .to = &o.blocks},
        {.name = "step", .kind = CLI_STR, .meta = "S", .help = "philox: counter or subseq", .to = &o.step},
        {.name = "subsequence", .kind = CLI_STR, .meta = "N", .help = "curand: subsequence", .to = &o.sub},
        {.name = "offset", .kind = CLI_STR, .meta = "N", .help = "curand/torch-cuda: Philox offset", .to = &o.offset},
        {.name = "call", .kind = CLI_STR, .meta = "F", .help = "curand: curand, uniform, uniform_double, normal, normal_double", .to = &o.call},
        {.name = "count", .kind = CLI_LL, .meta = "N", .lo = 0, .hi = 1 << 24, .mark = &o.count_given, .help = "curand/torch-cuda: values to print", .to = &o.count},
        {.name = "start", .kind = CLI_LL, .meta = "I", .lo = 0, .hi = LLONG_MAX, .range = "is negative", .help = "torch-cuda: first element printed", .to = &o.start},
        {.name = "op", .kind = CLI_STR, .meta = "OP", .help = "torch-cuda: the random op", .to = &o.op},
        {.name = "dtype", .kind = CLI_STR, .meta = "T", .help = "torch-cuda: element dtype (multinomial: the input's)", .to = &o.dtype},
        {.name = "gpu", .kind = CLI_STR, .meta = "G", .help = "torch-cuda: GPU profile NAME, or SMSxTHREADS[@sm_XY], e.g. 132x2048@sm_90", .to = &o.gpu},
        {.name = "from", .kind = CLI_STR, .meta = "X", .help = "torch-cuda: random_/uniform_ low", .to = &o.from},
        {.name = "to", .kind = CLI_STR, .meta = "Y", .help = "torch-cuda: random_/uniform_ high", .to = &o.to},
        {.name = "mean", .kind = CLI_STR, .meta = "M", .help = "torch-cuda: normal_/log_normal_ mean", .to = &o.mean},
        {.name = "std", .kind = CLI_STR, .meta = "S", .help = "torch-cuda: normal_/log_normal_ std", .to = &o.std},
        {.name = "p", .kind = CLI_STR, .meta = "P", .help = "torch-cuda: bernoulli_/dropout/geometric_ probability", .to = &o.p},
        {.name = "lambd", .kind = CLI_STR, .meta = "L", .help = "torch-cuda: exponential_ lambda", .to = &o.lambd},
        {.name = "median", .kind = CLI_STR, .meta = "M", .help = "torch-cuda: cauchy_ median", .to = &o.median},
        {.name = "sigma", .kind = CLI_STR, .meta = "S", .help = "torch-cuda: cauchy_ sigma", .to = &o.sigma},
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
         .help = "torch-cuda bernoulli_tensor: p's dtype (default float32)"},
        {.name = "replacement", .kind = CLI_FLAG, .to = &o.repl,
         .help = "torch-cuda multinomial: with replacement"},
        CLI_OPT_SHAPE(&o.c), CLI_OPT_JSON(&o.c), CLI_OPT_END};
    const cli_command cmd = {.name = "rng", .opts = opts, .about = RNG_ABOUT, .given = &given,
                             .synopsis = "--engine philox|curand|torch-cuda|threefry [options] "
                                         "[--json]"};
    int x = cli_parse(&cmd, argc, argv, NULL);
    if (x != CLI_GO)
        return x;
    shc_err e;
    shc_err_clear(&e);
    if (!o.engine)
        return cli_usage_error("rng", "--engine is required (philox, curand, torch-cuda, threefry)");
    if ((x = mode_options(&cmd, &o, &e)) != CLI_GO)
        return x;
    if (!strcmp(o.engine, "philox"))
        return run_philox(&o, &e);
    if (!strcmp(o.engine, "curand"))
        return run_curand(&o, &e);
    if (!strcmp(o.engine, "torch-cuda"))
        return run_torch(&o, &e);
    return run_threefry(&o, &e);
}
