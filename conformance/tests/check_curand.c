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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "shardcheck.h"

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
    if (!api.create_host || !api.set_seed || !api.set_offset || !api.generate || !api.uniform) {
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
            ck_assert_msg(w == o[i], "case %zu word %zu: %08x, libcurand %08x", c, i, w, o[i]);
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
            ck_assert_msg(!memcmp(&v, &o[i], 4), "case %zu float %zu: %a, libcurand %a", c, i,
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
                ck_assert_uint_eq(q[w], o[w]);
        }
    }
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
    suite_add_tcase(s, tc);
    return shc_run_suite(s);
}
