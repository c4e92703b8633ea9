/*
 * bench_philox.c — Philox4x32-10 fill throughput: our scalar / AVX2 / AVX-512
 * paths against Random123's scalar philox4x32 and against libcurand's host
 * generator (curandGenerate, loaded with dlopen), same machine, same run,
 * printed as blocks/s and ratios.  Not run by make check.
 *
 *   bench/bench_philox [MBLOCKS]      (default 16 million blocks per run)
 */
#include "config.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "shardcheck.h"
#ifdef HAVE_RANDOM123
#include <Random123/philox.h>
#endif
#ifndef SHC_CURAND_LIBDIR
#define SHC_CURAND_LIBDIR ""
#endif

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static volatile uint32_t sink;

/* Best of 3 runs, in blocks per second. */
#define BEST_OF(...) ({ double best = 0; for (int rep = 0; rep < 3; rep++) { double t0 = now(); __VA_ARGS__; double r = n / (now() - t0); if (r > best) best = r; } best; })

#ifdef HAVE_RANDOM123
/* The peer: Random123's scalar philox4x32-10 over the same counters. */
static void r123_fill(uint32_t *out, int64_t n)
{
    philox4x32_key_t k = {{1, 2}};
    for (int64_t i = 0; i < n; i++) {
        philox4x32_ctr_t c = {{(uint32_t)i, (uint32_t)(i >> 32), 0, 0}};
        philox4x32_ctr_t r = philox4x32_R(10, c, k);
        for (int w = 0; w < 4; w++)
            out[4 * i + w] = r.v[w];
    }
}
#endif

int main(int argc, char **argv)
{
    int64_t n = (argc > 1 ? atoll(argv[1]) : 16) << 20;
    uint32_t *out = malloc(16 * (size_t)n);
    uint32_t key[2] = {1, 2}, c0[4] = {0, 0, 0, 0};
    shc_err e;
    if (!out)
        return 1;
    double rate[4] = {0};
    for (int p = SHC_PHILOX_SCALAR; p <= SHC_PHILOX_AVX512; p++)
        if (shc_philox_path_available((shc_philox_path)p))
            rate[p] = BEST_OF(shc_philox_fill((shc_philox_path)p, key, c0, SHC_PHILOX_STEP_COUNTER,
                                              10, n, out, false, &e));
    double r123 = 0;
#ifdef HAVE_RANDOM123
    r123 = BEST_OF(r123_fill(out, n));
#endif
    double cur = 0;
    char path[1024];
    snprintf(path, sizeof path, "%s/libcurand.so.10", SHC_CURAND_LIBDIR);
    void *h = dlopen(path, RTLD_NOW);
    if (!h)
        h = dlopen("libcurand.so.10", RTLD_NOW);
    if (h) {
        int (*create)(void **, int) = (int (*)(void **, int))dlsym(h, "curandCreateGeneratorHost");
        int (*gen)(void *, unsigned *, size_t) = (int (*)(void *, unsigned *, size_t))dlsym(h, "curandGenerate");
        void *g;
        if (create && gen && !create(&g, 161))
            cur = BEST_OF(gen(g, out, 4 * (size_t)n));
    }
    sink = out[n - 1];
    int best = shc_philox_best_path();
    printf("Philox4x32-10 fill, %lld blocks (16 bytes each), best of 3\n", (long long)n);
    for (int p = SHC_PHILOX_SCALAR; p <= SHC_PHILOX_AVX512; p++)
        if (rate[p] > 0)
            printf("  shardcheck %-7s %8.1f Mblocks/s  %6.2f GB/s\n", shc_philox_path_name((shc_philox_path)p),
                   rate[p] / 1e6, rate[p] * 16 / 1e9);
    if (r123 > 0)
        printf("  Random123 scalar   %8.1f Mblocks/s\n", r123 / 1e6);
    else
        printf("  Random123: not available (HAVE_RANDOM123 undefined)\n");
    if (cur > 0)
        printf("  libcurand host     %8.1f Mblocks/s\n", cur / 1e6);
    else
        printf("  libcurand host: not available (%s)\n", h ? "no host generator" : dlerror());
    printf("ratio best(%s)/Random123 = %.2f\n", shc_philox_path_name((shc_philox_path)best),
           r123 > 0 ? rate[best] / r123 : 0.0);
    printf("ratio best(%s)/libcurand-host = %.2f\n", shc_philox_path_name((shc_philox_path)best),
           cur > 0 ? rate[best] / cur : 0.0);
    free(out);
    return 0;
}
