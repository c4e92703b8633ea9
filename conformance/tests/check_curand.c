/*
 * check_curand.c — the cuRAND stream emulation (curand_stream.c) against
 * NVIDIA's libcurand host generator (curandCreateGeneratorHost with
 * CURAND_RNG_PSEUDO_PHILOX4_32_10), which runs without a GPU.
 *
 * Its default ordering, found by experiment with CUDA 13.0's libcurand.so.10:
 * word f of the output (f = index + generator offset) is word f%4 of block
 * B = f/4, and block B comes from subsequence B % 65536 at block B / 65536 of
 * that subsequence, i.e. curand_init(seed, B % 65536, 4*(B/65536) + f%4).
 * That checks the seed -> key, subsequence -> counter words 2..3 and offset
 * layout of curand_init, and curand_uniform's floats bit for bit.
 *
 * libcurand is loaded with dlopen (curand.h needs cuda_runtime.h, which a
 * CPU machine lacks); where it cannot be loaded the program prints a TAP skip
 * plan with dlerror()'s reason.
 */
#include "config.h"
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "tap.h"

/* ck_assert records every passing check through a temporary file; hot loops
 * use this instead and only report failures. */
#define EXPECT(c, ...) do { if (!(c)) ck_abort_msg(__VA_ARGS__); } while (0)
#include "shardcheck.h"
#include "golden.h"

#ifndef SHC_CURAND_LIBDIR
#define SHC_CURAND_LIBDIR ""
#endif

typedef struct curand_api {
    int (*create_host)(void **g, int type);
    int (*destroy)(void *g);
    int (*set_seed)(void *g, unsigned long long seed);
    int (*set_offset)(void *g, unsigned long long off);
    int (*generate)(void *g, unsigned int *out, size_t n);
    int (*uniform)(void *g, float *out, size_t n);
    int (*uniform_double)(void *g, double *out, size_t n);
    int (*normal)(void *g, float *out, size_t n, float mean, float std);
    int (*normal_double)(void *g, double *out, size_t n, double mean, double std);
} curand_api;

static curand_api api;
static void *gen;
#define PHILOX4_32_10 161
#define HOST_THREADS 65536

static const char *load(char *why, size_t n)
{
    const char *dir = SHC_CURAND_LIBDIR;
    const char *names[] = {"libcurand.so", "libcurand.so.10"};
    void *h = NULL;
    char path[1024];
    for (int i = 0; i < 2 && !h; i++) {
        snprintf(path, sizeof path, "%s%s%s", dir, *dir ? "/" : "", names[i]);
        h = dlopen(path, RTLD_NOW);
        if (!h)
            snprintf(why, n, "libcurand could not be loaded (%s): %s", path, dlerror());
    }
    if (!h)
        return why;
    api.create_host = (int (*)(void **, int))dlsym(h, "curandCreateGeneratorHost");
    api.destroy = (int (*)(void *))dlsym(h, "curandDestroyGenerator");
    api.set_seed = (int (*)(void *, unsigned long long))dlsym(h, "curandSetPseudoRandomGeneratorSeed");
    api.set_offset = (int (*)(void *, unsigned long long))dlsym(h, "curandSetGeneratorOffset");
    api.generate = (int (*)(void *, unsigned int *, size_t))dlsym(h, "curandGenerate");
    api.uniform = (int (*)(void *, float *, size_t))dlsym(h, "curandGenerateUniform");
    api.uniform_double = (int (*)(void *, double *, size_t))dlsym(h, "curandGenerateUniformDouble");
    api.normal = (int (*)(void *, float *, size_t, float, float))dlsym(h, "curandGenerateNormal");
    api.normal_double = (int (*)(void *, double *, size_t, double, double))dlsym(
        h, "curandGenerateNormalDouble");
    if (!api.uniform_double || !api.normal || !api.normal_double || !api.create_host || !api.set_seed || !api.set_offset || !api.generate || !api.uniform) {
        snprintf(why, n, "libcurand at %s lacks the host generator API", path);
        return why;
    }
    int rc = api.create_host(&gen, PHILOX4_32_10);
    if (rc) {
        snprintf(why, n, "curandCreateGeneratorHost(PHILOX4_32_10) failed with status %d", rc);
        return why;
    }
    return NULL;
}

/* The word libcurand's host generator puts at stream position f. */
static void expect_state(uint64_t seed, uint64_t f, shc_curand_philox *s)
{
    uint64_t b = f / 4;
    shc_curand_init(seed, b % HOST_THREADS, 4 * (b / HOST_THREADS) + f % 4, s);
}

static const struct { uint64_t seed, offset; size_t n; } CASES[] = {
    {0, 0, 4 * HOST_THREADS + 40},
    {0x123456789abcdefull, 7, 4 * HOST_THREADS + 13},
    {0xffffffffffffffffull, 262150, 1000},
    {42, 5000000000ull, 2048},
    {1ull << 32, 3, 300000},
};

START_TEST(words_match_host_generator)
{
    for (size_t c = 0; c < sizeof CASES / sizeof CASES[0]; c++) {
        unsigned int *o = malloc(CASES[c].n * 4);
        ck_assert_int_eq(api.set_seed(gen, CASES[c].seed), 0);
        ck_assert_int_eq(api.set_offset(gen, CASES[c].offset), 0);
        ck_assert_int_eq(api.generate(gen, o, CASES[c].n), 0);
        for (size_t i = 0; i < CASES[c].n; i++) {
            shc_curand_philox s;
            expect_state(CASES[c].seed, CASES[c].offset + i, &s);
            uint32_t w = shc_curand(&s);
            EXPECT(w == o[i], "case %zu word %zu: %08x, libcurand %08x", c, i, w, o[i]);
        }
        free(o);
    }
}
END_TEST

START_TEST(uniform_floats_match_host_generator)
{
    for (size_t c = 0; c < sizeof CASES / sizeof CASES[0]; c++) {
        float *o = malloc(CASES[c].n * 4);
        ck_assert_int_eq(api.set_seed(gen, CASES[c].seed), 0);
        ck_assert_int_eq(api.set_offset(gen, CASES[c].offset), 0);
        ck_assert_int_eq(api.uniform(gen, o, CASES[c].n), 0);
        for (size_t i = 0; i < CASES[c].n; i++) {
            shc_curand_philox s;
            expect_state(CASES[c].seed, CASES[c].offset + i, &s);
            float v = shc_curand_uniform(&s);
            EXPECT(!memcmp(&v, &o[i], 4), "case %zu float %zu: %a, libcurand %a", c, i,
                          (double)v, (double)o[i]);
        }
        free(o);
    }
}
END_TEST

START_TEST(curand4_windows_match_host_generator)
{
    /* 4 consecutive words of one subsequence from any STATE = curand4 */
    unsigned int o[8];
    for (uint64_t off = 0; off < 8; off++) {
        ck_assert_int_eq(api.set_seed(gen, 77), 0);
        ck_assert_int_eq(api.set_offset(gen, off), 0);
        ck_assert_int_eq(api.generate(gen, o, 8), 0);
        shc_curand_philox s;
        expect_state(77, off, &s);
        uint32_t q[4];
        shc_curand4(&s, q);
        for (uint64_t w = 0; w < 4; w++) {
            uint64_t f = off + w; /* same subsequence only while f/4 == off/4 */
            if (f / 4 == off / 4)
                EXPECT(q[w] == o[w], "offset %llu word %llu", (unsigned long long)off, (unsigned long long)w);
        }
    }
}
END_TEST


/* libcurand's word (or uniform float bits) at subsequence sub, word position pos.
 * Re-seeding or moving the host generator costs ~20 ms (it re-initialises its
 * 65536 states), so whole blocks are fetched and the last one is kept. */
static uint32_t host_at(uint64_t seed, uint64_t sub, uint64_t pos, bool uniform)
{
    static uint64_t c_seed, c_f0 = ~0ull;
    static bool c_uniform;
    static uint32_t c_w[4];
    uint64_t f0 = 4 * ((pos / 4) * HOST_THREADS + sub);
    if (f0 != c_f0 || seed != c_seed || uniform != c_uniform) {
        ck_assert_int_eq(api.set_seed(gen, seed), 0);
        ck_assert_int_eq(api.set_offset(gen, f0), 0);
        if (uniform)
            ck_assert_int_eq(api.uniform(gen, (float *)(void *)c_w, 4), 0);
        else
            ck_assert_int_eq(api.generate(gen, c_w, 4), 0);
        c_seed = seed, c_f0 = f0, c_uniform = uniform;
    }
    return c_w[pos % 4];
}

/* Every curand-stream golden test made of curand/curand4/uniform/uniform4/skipahead calls,
 * replayed on libcurand: a call consuming k words reads positions pos..pos+k-1. */
START_TEST(golden_family_matches_host_generator)
{
    shc_golden g;
    shc_err e;
    char dir[1024];
    const char *top = getenv("top_srcdir");
#ifdef SHC_TOP_SRCDIR
    if (!top)
        top = SHC_TOP_SRCDIR;
#endif
    snprintf(dir, sizeof dir, "%s/golden", top ? top : ".");
    EXPECT(shc_golden_load_family(&g, dir, "curand-stream", &e) == 0, "%s", e.msg);
    int checked = 0;
    for (int64_t t = 0; t < g.ntests; t++) {
        const json_t *grp = g.groups[t], *test = g.tests[t];
        uint64_t seed = strtoull(json_string_value(json_object_get(grp, "seed")), NULL, 10);
        uint64_t sub = strtoull(json_string_value(json_object_get(grp, "subsequence")), NULL, 10);
        uint64_t pos = strtoull(json_string_value(json_object_get(grp, "offset")), NULL, 10);
        const json_t *calls = json_object_get(test, "calls");
        const json_t *res = json_object_get(json_object_get(test, "expected"), "results");
        bool ok = sub < HOST_THREADS;
        for (size_t i = 0; ok && i < json_array_size(calls); i++) {
            const char *c = json_string_value(json_array_get(calls, i));
            ok = !strcmp(c, "curand") || !strcmp(c, "curand4") || !strcmp(c, "uniform") ||
                 !strcmp(c, "uniform4") || !strncmp(c, "skipahead:", 10);
        }
        if (!ok || pos > (1ull << 40))
            continue; /* normals, doubles, subsequence jumps, or beyond the host's 64-bit offset */
        for (size_t i = 0; i < json_array_size(calls); i++) {
            const char *c = json_string_value(json_array_get(calls, i));
            if (!strncmp(c, "skipahead:", 10)) {
                pos += strtoull(c + 10, NULL, 10);
                continue;
            }
            const json_t *r = json_array_get(res, i);
            for (size_t k = 0; k < json_array_size(r); k++, pos++) {
                uint32_t want = host_at(seed, sub, pos, c[0] == 'u');
                uint32_t got = (uint32_t)strtoul(json_string_value(json_array_get(r, k)), NULL, 16);
                EXPECT(got == want, "tcId %lld call %zu (%s) value %zu: golden %08x, "
                              "libcurand %08x", (long long)json_integer_value(
                                  json_object_get(test, "tcId")), i, c, k, got, want);
            }
        }
        checked++;
    }
    EXPECT(checked >= 10, "only %d curand-stream tests were replayable", checked);
    printf("# %d curand-stream golden tests replayed on libcurand\n", checked);
    shc_golden_free(&g);
}
END_TEST

/* Doubles (offset 0): the host generator runs curand_uniform2_double /
 * curand_normal2_double twice per thread before moving to the next of 65536
 * threads: double i comes from thread (i/4) % 65536, block 2*(i/(4*65536)) +
 * (i%4)/2, pair (i%4)%2.  Float normals follow the word layout, Box-Muller on
 * word pairs (0,1) and (2,3).  Uniform doubles are bit-exact; normals use the
 * host's own sin/cos (curand_normal.h host branch: sinf/cosf, sin(v*PI)), so
 * they are compared with a tolerance, which pins the pairing and caching order. */
START_TEST(doubles_and_normals_match_host_generator)
{
    const uint64_t seed = 0x123456789abcdefull;
    const size_t n = 4 * HOST_THREADS + 1000;
    double *d = malloc(n * 8), *dn = malloc(n * 8);
    float *fn = malloc(n * 4);
    ck_assert_int_eq(api.set_seed(gen, seed), 0);
    ck_assert_int_eq(api.set_offset(gen, 0), 0);
    ck_assert_int_eq(api.uniform_double(gen, d, n), 0);
    ck_assert_int_eq(api.set_offset(gen, 0), 0);
    ck_assert_int_eq(api.normal_double(gen, dn, n, 0.0, 1.0), 0);
    ck_assert_int_eq(api.set_offset(gen, 0), 0);
    ck_assert_int_eq(api.normal(gen, fn, n, 0.0f, 1.0f), 0);
    size_t exact = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t th = (i / 4) % HOST_THREADS, blk = 2 * (i / (4 * HOST_THREADS)) + (i % 4) / 2;
        shc_curand_philox s;
        shc_curand_init(seed, th, 4 * blk, &s);
        double u[2], z[2];
        shc_curand_philox s2 = s;
        shc_curand_uniform2_double(&s, u);
        shc_curand_normal2_double(&s2, z);
        EXPECT(u[(i % 4) % 2] == d[i], "uniform double %zu: %a, libcurand %a", i,
                      u[(i % 4) % 2], d[i]);
        EXPECT(fabs(z[(i % 4) % 2] - dn[i]) < 1e-13, "normal double %zu: %.17g vs %.17g", i,
                      z[(i % 4) % 2], dn[i]);
        shc_curand_philox sf;
        shc_curand_init(seed, (i / 4) % HOST_THREADS, 4 * ((i / 4) / HOST_THREADS) + (i % 4 & 2), &sf);
        float v[2];
        shc_curand_normal2(&sf, v);
        EXPECT(fabsf(v[i & 1] - fn[i]) < 1e-5f, "normal float %zu: %.9g vs %.9g", i,
                      (double)v[i & 1], (double)fn[i]);
        exact += v[i & 1] == fn[i];
    }
    EXPECT(exact > n / 100 * 99, "only %zu of %zu float normals bit-equal", exact, n);
    printf("# float normals bit-equal to libcurand's host math: %zu of %zu\n", exact, n);
    free(d);
    free(dn);
    free(fn);
}
END_TEST

int main(void)
{
    char why[1400];
    const char *skip = load(why, sizeof why);
    if (skip) {
        printf("1..0 # SKIP %s\n", skip);
        return 0;
    }
    Suite *s = suite_create("check_curand");
    TCase *tc = tcase_create("host_generator");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, words_match_host_generator);
    tcase_add_test(tc, uniform_floats_match_host_generator);
    tcase_add_test(tc, curand4_windows_match_host_generator);
    tcase_add_test(tc, golden_family_matches_host_generator);
    tcase_add_test(tc, doubles_and_normals_match_host_generator);
    suite_add_tcase(s, tc);
    return shc_run_suite(s);
}
