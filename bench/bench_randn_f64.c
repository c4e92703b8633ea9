/*
 * bench_randn_f64.c — CPU speed of the float64 Box-Muller as an sm_90 GPU computes it
 * (issue 26): curand_normal2_double's pair from four Philox words with libdevice log as
 * nvcc compiles it (reduction from sqrt 2, MUFU.RCP64H modelled by cuda_rcp64h.c's rule
 * and exception table), sincospi and IEEE sqrt (shc_curand_box_muller_double), against
 * the previous emulation, kept here for the comparison: the same code with log's
 * earlier reduction threshold (0x3ff5e91e) and the truncated reciprocal as its seed.
 * Both run over the same pre-drawn Philox words (drawing is not timed), interleaved,
 * REPS repeats of thread CPU time: million pairs per CPU second, min/median/max and the
 * ratio of medians (bench_stats.h).  A third row times whole torch.randn(float64) fills
 * on the h100-sxm profile (shc_torch_rng_fill) for scale, with no peer.  Not run by
 * make check.
 *
 *   bench/bench_randn_f64 [MPAIRS]   (default 4 million pairs)
 */
#include "config.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shardcheck.h"
#include "bench_stats.h"
#include "philox_core.h"
#include "curand_stream.h"
#include "cuda_libdevice.h"

#define REPS 7

static inline uint64_t dbits(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
static inline double lohi(uint32_t lo, uint32_t hi) { double d; uint64_t u = (uint64_t)hi << 32 | lo; memcpy(&d, &u, 8); return d; }

/* The previous __nv_log emulation (before issue 26), for the comparison only: the
 * same steps as cuda_libdevice.c's, halving m from 0x3ff5e91f, the seed truncated; not
 * inlined, as the library's log is not (it is in another translation unit). */
__attribute__((noinline)) static double prev_log(double a)
{
    int32_t hi = (int32_t)(dbits(a) >> 32), e = -1023;
    uint32_t lo = (uint32_t)dbits(a);
    if (hi < 0x00100000) {
        a *= 0x1p54;
        e = -1023 - 54;
        hi = (int32_t)(dbits(a) >> 32);
        lo = (uint32_t)dbits(a);
    }
    if (!(hi > 0 && hi < 0x7ff00000))
        return a == 0.0 ? -INFINITY : fma(a, INFINITY, INFINITY);
    e += (int32_t)((uint32_t)hi >> 20);
    uint32_t mh = ((uint32_t)hi & 0x800fffffu) | 0x3ff00000u;
    if (mh > 0x3ff5e91eu) {
        mh -= 0x00100000u;
        e += 1;
    }
    double m = lohi(lo, mh), f = m - 1.0, g = m + 1.0;
    double r = shc_cuda_rcp64h_trunc(g), t = fma(-g, r, 1.0);
    t = fma(t, t, t);
    double q = fma(t, r, r), u = f * q;
    u = u + u;
    double v = u * u;
    double p = fma(0x1.1380b3ae80f1ep-20, v, 0x1.0ee258b7a8b04p-18);
    p = fma(p, v, 0x1.3b2669f02676fp-16);
    p = fma(p, v, 0x1.745cba9ab0956p-14);
    p = fma(p, v, 0x1.c71c72d1b5154p-12);
    p = fma(p, v, 0x1.24924923be72dp-9);
    p = fma(p, v, 0x1.999999999a3c4p-7);
    p = fma(p, v, 0x1.5555555555554p-4);
    double w = fma(-u, f, 2.0 * (f - u));
    w = q * w;
    double z = fma(p * v, u, w);
    double ed = lohi((uint32_t)e ^ 0x80000000u, 0x43300000u) - lohi(0x80000000u, 0x43300000u);
    double h = fma(ed, 0x1.62e42fefa39efp-1, u), k = fma(-ed, 0x1.62e42fefa39efp-1, h);
    k = k - u;
    z = fma(ed, 0x1.abc9e3b39803fp-56, z - k);
    return h + z;
}

static void prev_box_muller_double(const uint32_t w[4], double out[2])
{
    uint64_t zx = (uint64_t)w[0] ^ ((uint64_t)w[1] << 21), zy = (uint64_t)w[2] ^ ((uint64_t)w[3] << 21);
    double u = (double)zx * 0x1p-53 + 0x1p-54, v = (double)zy * 0x1p-52 + 0x1p-53, sv, cv;
    double s = sqrt(-2.0 * prev_log(u));
    shc_cuda_sincospi(v, &sv, &cv);
    out[0] = sv * s;
    out[1] = cv * s;
}

static double sink;

static double pairs_rate(const uint32_t *w, int64_t n, int prev)
{
    double acc = 0, o[2];
    double t0 = bench_cpu_now();
    for (int64_t i = 0; i < n; i++) {
        if (prev)
            prev_box_muller_double(w + 4 * i, o);
        else
            shc_curand_box_muller_double(w[4 * i], w[4 * i + 1], w[4 * i + 2], w[4 * i + 3], o);
        acc += o[0] + o[1];
    }
    double dt = bench_cpu_now() - t0;
    sink += acc;
    return (double)n / dt / 1e6;
}

int main(int argc, char **argv)
{
    int64_t n = (argc > 1 ? atoll(argv[1]) : 4) << 20;
    uint32_t *w = malloc(16 * (size_t)n);
    double *out = malloc(16 * (size_t)n);
    shc_gpu_profile g;
    shc_err e;
    if (!w || !out || n <= 0 || shc_gpu_profile_parse("h100-sxm", &g, &e))
        return 1;
    const uint32_t key[2] = {42, 0};
    for (int64_t i = 0; i < n; i++) {
        uint32_t c[4] = {(uint32_t)i, (uint32_t)(i >> 32), 7, 0};
        shc_philox4x32_10(c, key, w + 4 * i);
    }
    long differ = 0; /* how often the two emulations disagree, for the record */
    for (int64_t i = 0; i < n; i++) {
        double a[2], b[2];
        shc_curand_box_muller_double(w[4 * i], w[4 * i + 1], w[4 * i + 2], w[4 * i + 3], a);
        prev_box_muller_double(w + 4 * i, b);
        differ += (dbits(a[0]) != dbits(b[0])) + (dbits(a[1]) != dbits(b[1]));
    }
    shc_torch_rng_req r;
    shc_torch_rng_req_init(&r, SHC_TORCH_NORMAL, SHC_DT_FLOAT64, 2 * n);
    double vn[REPS], vp[REPS], vf[REPS];
    pairs_rate(w, n, 0); /* warm-up */
    for (int rep = 0; rep < REPS; rep++) { /* interleaved with the peer */
        vn[rep] = pairs_rate(w, n, 0);
        vp[rep] = pairs_rate(w, n, 1);
        double t0 = bench_cpu_now();
        if (shc_torch_rng_fill(&g, 42, 0, &r, 0, r.numel, out, NULL, NULL, &e)) {
            fprintf(stderr, "bench_randn_f64: %s\n", e.msg);
            return 1;
        }
        vf[rep] = (double)r.numel / (bench_cpu_now() - t0) / 1e6;
    }
    printf("# bench_randn_f64: curand_normal2_double pairs from %lld pre-drawn Philox blocks, %d "
           "interleaved repeats, thread CPU time,\n# one core of a shared machine; ours: sm_90 "
           "model (log from sqrt 2, MUFU.RCP64H rule + table); peer: the previous emulation\n"
           "# (log from 0x3ff5e91f, truncated seed); they disagree on %ld of %lld normals\n",
           (long long)n, REPS, differ, (long long)(2 * n));
    bench_header("million pairs per CPU second; last row: million normals per CPU second");
    bench_row("normal2_double sm_90", bench_spread_of(vn, REPS), "previous", bench_spread_of(vp, REPS));
    bench_row("randn float64 h100-sxm", bench_spread_of(vf, REPS), NULL, (bench_spread){0, 0, 0, 0});
    free(w);
    free(out);
    return sink == 12345.678 ? 2 : 0;
}
