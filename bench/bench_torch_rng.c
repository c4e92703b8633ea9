/*
 * bench_torch_rng.c — throughput of the torch.rand(float32) emulation
 * (shc_torch_rng_fill, uniform, A100 profile), in GB of output per second on
 * one core, against a plain memset of the same buffer in the same run as the
 * memory-bandwidth peer.  Not run by make check.
 *
 *   bench/bench_torch_rng [MELEMS]   (default 64 million floats)
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "shardcheck.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

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
    double best = 0, mset = 0;
    for (int rep = 0; rep < 3; rep++) {
        double t0 = now();
        int64_t no;
        if (shc_torch_rng_fill(&g, 0, 0, &r, 0, n, out, NULL, &no, &e))
            return fprintf(stderr, "%s\n", e.msg), 1;
        double gbs = 4.0 * n / (now() - t0) / 1e9;
        best = gbs > best ? gbs : best;
        t0 = now();
        memset(out, rep, 4 * (size_t)n);
        gbs = 4.0 * n / (now() - t0) / 1e9;
        mset = gbs > mset ? gbs : mset;
    }
    printf("torch.rand(%lld, float32) emulation, a100 profile, philox path %s: %.2f GB/s "
           "(memset %.2f GB/s, ratio %.2f)\n", (long long)n,
           shc_philox_path_name(shc_philox_best_path()), best, mset, best / mset);
    free(out);
    return 0;
}
