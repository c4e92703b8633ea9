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
 * it reports time and bus bandwidth with nccl-tests' conventions (algbw =
 * S / time; busbw = algbw * (N-1)/N for all-gather and all-to-all, * 2(N-1)/N
 * for all-reduce), and the ratio ours / MPI (goal >= 0.9).  The plan is
 * computed once per case, as torch caches its transform infos; each timed
 * redistribute includes everything else (copies, padding, result buffer).
 * Times are the max over ranks of the mean over iterations.  Freed buffers stay
 * in the heap (mallopt), as torch's caching allocator keeps them.
 */
#include "config.h"
#include <malloc.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shardcheck.h"
#include "comm.h"
#include "plan.h"
#include "redistribute_exec.h"

typedef enum { K_GATHER, K_REDUCE, K_ALLTOALL } kind;
static const char *const names[] = {"S(0)->R     all_gather", "P(sum)->R   all_reduce",
                                    "S(0)->S(1)  all_to_all"};
static const char *const srcs[] = {"S(0)", "P(sum)", "S(0)"};
static const char *const dsts[] = {"R", "R", "S(1)"};

/* Mean seconds per call of one redistribute (ours) over iters, max over ranks. */
static double time_ours(shc_comm *c, const shc_xcase *x, const shc_plan *p, const shc_xtensor *in,
                        int iters)
{
    shc_err e = {0};
    double t = 0;
    for (int it = -1; it < iters; it++) {
        shc_xtensor out;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (shc_exec_plan(c, x, p, in, &out, &e)) {
            fprintf(stderr, "bench_comm: %s\n", e.msg);
            MPI_Abort(MPI_COMM_WORLD, 99);
        }
        double dt = MPI_Wtime() - t0;
        if (it >= 0)
            t += dt;
        shc_xtensor_free(&out);
    }
    t /= iters;
    double mx;
    MPI_Allreduce(&t, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return mx;
}

static double time_mpi(kind k, size_t bytes, int n, int iters)
{
    size_t per = bytes / (size_t)n;
    char *a = calloc(1, bytes), *b = calloc(1, bytes);
    double t = 0;
    for (int it = -1; it < iters; it++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (k == K_GATHER)
            MPI_Allgather(a, (int)per, MPI_BYTE, b, (int)per, MPI_BYTE, MPI_COMM_WORLD);
        else if (k == K_REDUCE)
            MPI_Allreduce(MPI_IN_PLACE, a, (int)(bytes / 4), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        else
            MPI_Alltoall(a, (int)(per / (size_t)n), MPI_BYTE, b, (int)(per / (size_t)n), MPI_BYTE,
                         MPI_COMM_WORLD);
        double dt = MPI_Wtime() - t0;
        if (it >= 0)
            t += dt;
    }
    free(a), free(b);
    t /= iters;
    double mx;
    MPI_Allreduce(&t, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
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
        printf("# bench_comm: %d ranks, float32; busbw in GB/s (nccl-tests conventions)\n"
               "# nb = non-blocking with deadline (the runner), blk = blocking\n"
               "# %-22s %9s %9s %9s %9s %7s %7s %7s %5s %5s\n", n, "transform", "bytes",
               "nb_us", "blk_us", "mpi_us", "nb_bw", "blk_bw", "mpi_bw", "r_nb", "r_blk");
    double worst = 1e9, worst_b = 1e9;
    for (long mib = min_mib; mib <= max_mib; mib *= 2) {
        size_t bytes = (size_t)mib << 20;
        int iters = iters_arg ? (int)iters_arg : (mib <= 4 ? 20 : mib <= 16 ? 8 : 4);
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
            double to = time_ours(c, &x, &p, &in, iters);
            double tb = time_ours(cb, &x, &p, &in, iters);
            double tm = time_mpi((kind)k, (size_t)real, n, iters);
            double bo = busbw((kind)k, real, to, n), bb = busbw((kind)k, real, tb, n);
            double bm = busbw((kind)k, real, tm, n);
            worst = bo / bm < worst ? bo / bm : worst;
            worst_b = bb / bm < worst_b ? bb / bm : worst_b;
            if (!rank)
                printf("  %-22s %9.0f %9.1f %9.1f %9.1f %7.2f %7.2f %7.2f %5.2f %5.2f\n",
                       names[k], real, to * 1e6, tb * 1e6, tm * 1e6, bo, bb, bm, bo / bm, bb / bm);
            shc_xtensor_free(&in);
            shc_plan_free(&p);
            shc_xcase_free(&x);
        }
    }
    if (!rank)
        printf("# worst ratio ours/MPI: non-blocking %.2f, blocking %.2f (goal >= 0.9)\n", worst,
               worst_b);
    c->ops->destroy(c);
    cb->ops->destroy(cb);
    MPI_Finalize();
    return 0;
}
