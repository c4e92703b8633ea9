/*
 * bench_randn.c — CPU speed of exact torch.randn(float32) for sm_90 (issue 15):
 * shc_torch_rng_fill's normal_ on the h100-sxm profile, whose Box-Muller runs the
 * SFU model (cuda_sfu.c: MUFU.SIN/COS in integer arithmetic) and libdevice logf,
 * against the previous emulation (glibc sinf/cosf/logf), which the same library
 * still runs for a profile with no SFU model: "132x2048", the h100-sxm's geometry
 * with an unknown generation, so the launch layout is identical and only the math
 * differs.  Million normals per CPU-second of the calling thread, REPS interleaved
 * repeats, min/median/max and the ratio of medians (bench_stats.h).  Not run by
 * make check.
 *
 *   bench/bench_randn [MELEMS]   (default 8 million floats)
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include "shardcheck.h"
#include "bench_stats.h"

#define REPS 7

static double rate(const shc_gpu_profile *g, const shc_torch_rng_req *r, float *out)
{
    shc_err e;
    double t0 = bench_cpu_now();
    if (shc_torch_rng_fill(g, 42, 0, r, 0, r->numel, out, NULL, NULL, &e)) {
        fprintf(stderr, "bench_randn: %s\n", e.msg);
        exit(1);
    }
    return (double)r->numel / (bench_cpu_now() - t0) / 1e6;
}

int main(int argc, char **argv)
{
    int64_t n = (argc > 1 ? atoll(argv[1]) : 8) << 20;
    float *out = malloc(4 * (size_t)n);
    shc_gpu_profile sfu, old;
    shc_err e;
    if (!out || n <= 0 || shc_gpu_profile_parse("h100-sxm", &sfu, &e) ||
        shc_gpu_profile_parse("132x2048", &old, &e))
        return 1;
    if (shc_gpu_sfu_model(&sfu) != SHC_SFU_SM90 || shc_gpu_sfu_model(&old) != SHC_SFU_NONE)
        return fprintf(stderr, "bench_randn: profiles do not select the two paths\n"), 1;
    shc_torch_rng_req r;
    shc_torch_rng_req_init(&r, SHC_TORCH_NORMAL, SHC_DT_FLOAT32, n);
    double vs[REPS], vo[REPS];
    rate(&sfu, &r, out); /* warm-up: page in the buffer */
    for (int rep = 0; rep < REPS; rep++) { /* interleaved with the peer */
        vs[rep] = rate(&sfu, &r, out);
        vo[rep] = rate(&old, &r, out);
    }
    printf("# bench_randn: torch.randn(%lld, float32) emulation, %d interleaved repeats, thread "
           "CPU time,\n# one core of a shared machine; ours: h100-sxm (exact sm_90: SFU model + "
           "libdevice logf);\n# peer: 132x2048 (same launch layout, previous glibc "
           "sinf/cosf/logf emulation)\n", (long long)n, REPS);
    bench_header("million normals per CPU second");
    bench_row("randn float32 sm_90", bench_spread_of(vs, REPS), "glibc path",
              bench_spread_of(vo, REPS));
    free(out);
    return 0;
}
