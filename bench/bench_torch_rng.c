/*
 * bench_torch_rng.c — throughput of the torch.rand(float32) emulation
 * (shc_torch_rng_fill, uniform, A100 profile), in GB of output per second on
 * one core, against a plain memset of the same buffer in the same run as the
 * memory-bandwidth peer: 5 interleaved repeats, min/median/max and the ratio
 * of medians (bench_stats.h).  Not run by make check.
 *
 *   bench/bench_torch_rng [MELEMS]   (default 64 million floats)
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shardcheck.h"
#include "bench_stats.h"

#define REPS 5

int main(int argc, char **argv)
{
    int64_t n = (argc > 1 ? atoll(argv[1]) : 64) << 20;
    float *out = malloc(4 * (size_t)n);
    shc_gpu_profile g;
    shc_err e;
    shc_torch_rng_req r;
    if (!out || shc_gpu_profile_parse("a100", &g, &e))
        return 1;
    shc_torch_rng_req_init(&r, SHC_TORCH_UNIFORM, SHC_DT_FLOAT32, n);
    double vr[REPS], vm[REPS];
    for (int rep = 0; rep < REPS; rep++) { /* interleaved with the peer */
        double t0 = bench_now();
        int64_t no;
        if (shc_torch_rng_fill(&g, 0, 0, &r, 0, n, out, NULL, &no, &e))
            return fprintf(stderr, "%s\n", e.msg), 1;
        vr[rep] = 4.0 * n / (bench_now() - t0) / 1e9;
        t0 = bench_now();
        memset(out, rep, 4 * (size_t)n);
        vm[rep] = 4.0 * n / (bench_now() - t0) / 1e9;
    }
    printf("# bench_torch_rng: torch.rand(%lld, float32) emulation, a100 profile, philox path "
           "%s,\n# %d interleaved repeats, wall clock, one core of a shared machine; peer: memset "
           "of the same buffer\n", (long long)n, shc_philox_path_name(shc_philox_best_path()), REPS);
    bench_header("GB/s of output");
    bench_row("torch.rand float32", bench_spread_of(vr, REPS), "memset", bench_spread_of(vm, REPS));
    free(out);
    return 0;
}
