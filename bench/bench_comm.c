/*
 * bench_comm.c — bus bandwidth of the mpi backend's redistribute against the
 * raw MPI collective moving the same bytes, in the same run.
 *
 *   mpirun -np N bench/bench_comm [--min-mib 1] [--max-mib 64] [--iters K]
 *
 * For each size S (bytes of the full float32 tensor, 1..64 MiB by powers of
 * two) and three transforms on a 1-d mesh of all N ranks:
 *   S(0) -> R     (padded all-gather path)   vs MPI_Allgather
 *   P(sum) -> R   (all-reduce path)          vs MPI_Allreduce
 *   S(0) -> S(1)  (all-to-all path)          vs MPI_Alltoall
 * it reports bus bandwidth with nccl-tests' conventions (algbw = S / time;
 * busbw = algbw * (N-1)/N for all-gather and all-to-all, * 2(N-1)/N for
 * all-reduce): the median and min/median/max over interleaved repeats (ours
 * under the runner's watchdog, ours without a deadline, raw MPI, in turn;
 * each the max over ranks), and the ratio of medians ours / MPI (goal >= 0.9).
 * The plan is computed once per case, as torch caches its transform infos;
 * each timed redistribute includes everything else (copies, padding, result
 * buffer).  Freed buffers stay in the heap (mallopt), as torch's caching
 * allocator keeps them.  The raw MPI peer overwrites its input in place and
 * moves bytes in the layout it already has; ours returns a new tensor, which
 * the all-reduce ring writes as it reduces (comm_mpi.c all_reduce_to: no copy
 * first), and for S(0) -> S(1) sends each row's column block as a message of
 * its own (all_to_all_runs: no pack), so neither makes a pass raw MPI skips.
 */
#include "config.h"
#include <malloc.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shardcheck.h"
#include "comm.h"
#include "plan_internal.h"
#include "redistribute_exec.h"
#include "bench_stats.h"

typedef enum { K_GATHER, K_REDUCE, K_ALLTOALL } kind;
static const char *const names[] = {"S(0)->R     all_gather", "P(sum)->R   all_reduce",
                                    "S(0)->S(1)  all_to_all"};
static const char *const srcs[] = {"S(0)", "P(sum)", "S(0)"};
static const char *const dsts[] = {"R", "R", "S(1)"};

/* Seconds of one redistribute (ours), the max over ranks. */
static double once_ours(shc_comm *c, const shc_xcase *x, const shc_plan *p, const shc_xtensor *in)
{
    shc_err e = {0};
    shc_xtensor out;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (shc_exec_plan(c, x, p, in, &out, &e)) {
        fprintf(stderr, "bench_comm: %s\n", e.msg);
        MPI_Abort(MPI_COMM_WORLD, 99);
    }
    double dt = MPI_Wtime() - t0, mx;
    shc_xtensor_free(&out);
    MPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return mx;
}

/* Seconds of the raw MPI collective on the same bytes (buffers a, b reused), max over ranks. */
static double once_mpi(kind k, size_t bytes, int n, char *a, char *b)
{
    size_t per = bytes / (size_t)n;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (k == K_GATHER)
        MPI_Allgather(a, (int)per, MPI_BYTE, b, (int)per, MPI_BYTE, MPI_COMM_WORLD);
    else if (k == K_REDUCE)
        MPI_Allreduce(MPI_IN_PLACE, a, (int)(bytes / 4), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    else
        MPI_Alltoall(a, (int)(per / (size_t)n), MPI_BYTE, b, (int)(per / (size_t)n), MPI_BYTE,
                     MPI_COMM_WORLD);
    double dt = MPI_Wtime() - t0, mx;
    MPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return mx;
}

/* Bytes moved per the nccl-tests convention: S for the full tensor. */
static double busbw(kind k, double bytes, double t, int n)
{
    double alg = bytes / t / 1e9;
    return k == K_REDUCE ? alg * 2 * (n - 1) / n : alg * (n - 1) / n;
}

int main(int argc, char **argv)
{
    /* Keep freed tensors in the heap, as torch's caching allocator keeps its blocks:
     * otherwise every result buffer is a fresh mmap and the page faults, not the
     * communication, dominate (the raw MPI side reuses its buffers). */
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    MPI_Init(&argc, &argv);
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    long min_mib = 1, max_mib = 64, iters_arg = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--min-mib"))
            min_mib = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--max-mib"))
            max_mib = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--iters"))
            iters_arg = atol(argv[i + 1]);
    }
    shc_comm *c, *cb;
    shc_err e = {0};
    if (n < 2 || shc_comm_mpi_new(&c, 600, &e) || shc_comm_mpi_new(&cb, 0, &e)) {
        if (!rank)
            fprintf(stderr, "bench_comm: needs mpirun -np N with N >= 2 (%s)\n", e.msg);
        MPI_Finalize();
        return 77;
    }
    if (!rank)
        printf("# bench_comm: %d ranks, float32; busbw in GB/s (nccl-tests conventions), median of\n"
               "# interleaved repeats (max over ranks each); spread = min/median/max busbw.\n"
               "# wd = the runner's path (blocking collective under the watchdog timer),\n"
               "# blk = no deadline; peer = raw MPI on the same bytes; ratio = median ours/median MPI\n"
               "# %-22s %9s %7s %7s %7s %6s %6s  %-17s %-17s\n", n, "transform", "bytes",
               "wd_bw", "blk_bw", "mpi_bw", "r_wd", "r_blk", "wd min/med/max", "mpi min/med/max");
    double worst = 1e9, worst_b = 1e9;
    for (long mib = min_mib; mib <= max_mib; mib *= 2) {
        size_t bytes = (size_t)mib << 20;
        int iters = iters_arg ? (int)iters_arg : (mib <= 4 ? 15 : mib <= 16 ? 9 : 5);
        for (int k = 0; k < 3; k++) {
            /* shape: n*n rows so every path is even; columns fill the size */
            int64_t rows = (int64_t)n * n, cols = (int64_t)(bytes / 4) / rows;
            char shape[64], mesh[16];
            snprintf(shape, sizeof shape, "%lld,%lld", (long long)rows, (long long)cols);
            snprintf(mesh, sizeof mesh, "%d", n);
            shc_xcase x;
            shc_plan p;
            shc_xtensor in;
            if (shc_xcase_parse(&x, mesh, NULL, srcs[k], dsts[k], shape, "float32", NULL, &e) ||
                shc_exec_plan_for(&x, rank, &p, &e) || shc_testdata_source(&x, rank, &in, &e)) {
                fprintf(stderr, "bench_comm: %s\n", e.msg);
                MPI_Abort(MPI_COMM_WORLD, 99);
            }
            double real = (double)(rows * cols * 4);
            char *a = calloc(1, (size_t)real), *b = calloc(1, (size_t)real);
            double bo[64], bb[64], bm[64];
            if (iters > 64)
                iters = 64;
            /* one warm-up round, then interleaved repeats: a noisy neighbour hits all three */
            for (int it = -1; it < iters; it++) {
                double to = once_ours(c, &x, &p, &in), tb = once_ours(cb, &x, &p, &in);
                double tm = once_mpi((kind)k, (size_t)real, n, a, b);
                if (it >= 0) {
                    bo[it] = busbw((kind)k, real, to, n);
                    bb[it] = busbw((kind)k, real, tb, n);
                    bm[it] = busbw((kind)k, real, tm, n);
                }
            }
            free(a), free(b);
            bench_spread so = bench_spread_of(bo, iters), sb = bench_spread_of(bb, iters);
            bench_spread sm = bench_spread_of(bm, iters);
            double ro = so.med / sm.med, rb = sb.med / sm.med;
            worst = ro < worst ? ro : worst;
            worst_b = rb < worst_b ? rb : worst_b;
            if (!rank) {
                char s1[48], s2[48];
                snprintf(s1, sizeof s1, "%.2f/%.2f/%.2f", so.min, so.med, so.max);
                snprintf(s2, sizeof s2, "%.2f/%.2f/%.2f", sm.min, sm.med, sm.max);
                printf("  %-22s %9.0f %7.2f %7.2f %7.2f %6.2f %6.2f  %-17s %-17s\n", names[k], real,
                       so.med, sb.med, sm.med, ro, rb, s1, s2);
            }
            shc_xtensor_free(&in);
            shc_plan_free(&p);
            shc_xcase_free(&x);
        }
    }
    if (!rank)
        printf("# worst ratio ours/MPI (medians): runner (watchdog) %.2f, blocking %.2f "
               "(goal >= 0.9)\n", worst, worst_b);
    c->ops->destroy(c);
    cb->ops->destroy(cb);
    MPI_Finalize();
    return 0;
}
