/*
 * bench_philox.c — Philox4x32-10 fill throughput: our scalar / AVX2 / AVX-512
 * paths against Random123's scalar philox4x32 and against libcurand's host
 * generator (curandGenerate, loaded with dlopen), same machine, same run:
 * Mblocks/s min/median/max over 7 interleaved repeats and the ratio of medians
 * (bench_stats.h).  Not run by make check.
 *
 *   bench/bench_philox [MBLOCKS]      (default 16 million blocks per run)
 */
#include "config.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include "shardcheck.h"
#include "bench_stats.h"
#ifdef HAVE_RANDOM123
#include <Random123/philox.h>
#endif
#ifndef SHC_CURAND_LIBDIR
#define SHC_CURAND_LIBDIR ""
#endif

static volatile uint32_t sink;
static volatile uint32_t run_time_zero; /* keeps key and counter run-time values */

#define REPS 7
/* One timed run of BODY, as blocks per second of thread CPU time. */
#define RATE(...) ({ double t0_ = bench_cpu_now(); __VA_ARGS__; n / (bench_cpu_now() - t0_); })

#ifdef HAVE_RANDOM123
/* The peer: Random123's scalar philox4x32-10 over the same counters.  The
 * start counter and key are run-time values, as they are for our fill: with
 * constant zero high words the compiler folds part of the first round. */
static void r123_fill(uint32_t *out, int64_t n, const uint32_t key[2], const uint32_t c0[4])
{
    philox4x32_key_t k = {{key[0], key[1]}};
    for (int64_t i = 0; i < n; i++) {
        philox4x32_ctr_t c = {{c0[0] + (uint32_t)i, c0[1] + (uint32_t)(i >> 32), c0[2], c0[3]}};
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
    uint32_t key[2] = {1 + run_time_zero, 2 + run_time_zero};
    uint32_t c0[4] = {run_time_zero, run_time_zero, run_time_zero, run_time_zero};
    shc_err e;
    if (!out)
        return 1;
    char path[1024];
    snprintf(path, sizeof path, "%s/libcurand.so.10", SHC_CURAND_LIBDIR);
    void *h = dlopen(path, RTLD_NOW), *g = NULL;
    if (!h)
        h = dlopen("libcurand.so.10", RTLD_NOW);
    int (*gen)(void *, unsigned *, size_t) = NULL;
    if (h) {
        int (*create)(void **, int) = (int (*)(void **, int))dlsym(h, "curandCreateGeneratorHost");
        gen = (int (*)(void *, unsigned *, size_t))dlsym(h, "curandGenerate");
        if (!create || !gen || create(&g, 161))
            gen = NULL;
    }
    /* Repeats interleave every contender, so a noisy neighbour hits them alike. */
    double v[4][REPS], vr[REPS], vc[REPS];
    int np = 0, nr = 0, nc = 0;
    for (int rep = 0; rep < REPS; rep++, np++) {
        for (int p = SHC_PHILOX_SCALAR; p <= SHC_PHILOX_AVX512; p++)
            v[p][rep] = !shc_philox_path_available((shc_philox_path)p) ? 0
                        : RATE(shc_philox_fill((shc_philox_path)p, key, c0, SHC_PHILOX_STEP_COUNTER,
                                               10, n, out, false, &e));
#ifdef HAVE_RANDOM123
        vr[nr++] = RATE(r123_fill(out, n, key, c0));
#endif
        if (gen)
            vc[nc++] = RATE(gen(g, out, 4 * (size_t)n));
    }
    bench_spread rate[4], r123 = bench_spread_of(vr, nr), cur = bench_spread_of(vc, nc);
    for (int p = SHC_PHILOX_SCALAR; p <= SHC_PHILOX_AVX512; p++)
        rate[p] = v[p][0] > 0 ? bench_spread_of(v[p], np) : (bench_spread){0, 0, 0, 0};
    sink = out[n - 1];
    printf("# bench_philox: Philox4x32-10 fill, %lld blocks (16 bytes each), %d repeats; "
           "thread CPU time on a shared machine\n", (long long)n, REPS);
    bench_header("Mblocks/s");
    for (int p = SHC_PHILOX_SCALAR; p <= SHC_PHILOX_AVX512; p++) {
        if (rate[p].n == 0 || rate[p].med <= 0)
            continue;
        bench_spread o = rate[p];
        o.min /= 1e6, o.med /= 1e6, o.max /= 1e6;
        bench_spread a = r123, b = cur;
        a.min /= 1e6, a.med /= 1e6, a.max /= 1e6;
        b.min /= 1e6, b.med /= 1e6, b.max /= 1e6;
        char label[48];
        snprintf(label, sizeof label, "philox %s", shc_philox_path_name((shc_philox_path)p));
        bench_row(label, o, "Random123-scalar", a);
        bench_row(label, o, "libcurand-host", b);
    }
#ifndef HAVE_RANDOM123
    printf("# Random123: not available (HAVE_RANDOM123 undefined)\n");
#endif
    if (cur.n == 0)
        printf("# libcurand host: not available (%s)\n", h ? "no host generator" : dlerror());
    free(out);
    return 0;
}
