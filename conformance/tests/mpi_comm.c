/*
 * mpi_comm.c — the mpi backend's copy-free collectives (lib/exec/comm_mpi.c)
 * checked against OpenMPI's own: run under `mpirun -np N` (N = 2, 3, 4) by
 * mpi_comm_run.sh.
 *
 * all_reduce_to (the out-of-place ring over MPI_Sendrecv + MPI_Reduce_local,
 * and MPI_Allreduce below the ring's threshold) must give the bytes of
 * MPI_Allreduce on exact data, for every native dtype and op, on the whole
 * world in reversed order (group position != world rank) and on a 2-rank
 * sub-group, at counts that do not divide by the group (segments of unequal
 * length, counts below the group size); it must leave its input unwritten;
 * and on inexact float data every member must end with the same bits (each
 * segment reduced once, then passed on).  all_to_all_runs (a message per
 * long run, a pack into the scratch buffer for short or very many runs) must
 * give the bytes of packing the strided blocks by hand and calling all_to_all.  The plain
 * collectives (all_gather, all_gatherv, all_to_all, reduce_scatter, all_reduce) must give
 * OpenMPI's bytes too, and a bitwise op on floats and a group rank outside the world are
 * refused before any communication, also on a communicator without a deadline (no
 * watchdog); a communicator asked for before MPI_Init is refused.  Each rank prints "ok"/"not ok" lines; rank 0 adds
 * a summary line "mpi_comm: N ranks, K checks, F failed".  Outside mpirun
 * (make check runs every check program) it prints a TAP skip.
 */
#include "config.h"
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "comm.h"

static int checks, failed;

static void expect(int rank, int ok, const char *what, const char *dt, const char *op, size_t n,
                   int gsize)
{
    checks++;
    if (!ok) {
        failed++;
        printf("rank %d: not ok: %s %s %s count %zu on %d ranks\n", rank, what, dt, op, n, gsize);
    }
}

/* Exact data: small integers, so every order of combination gives the same bits. */
static void fill(void *p, shc_dtype t, size_t count, int rank, bool exact)
{
    for (size_t i = 0; i < count; i++) {
        int64_t v = (int64_t)((i * 7 + (size_t)rank * 13) % 23) - 11;
        if (t == SHC_DT_FLOAT32 && !exact) {
            float f = (float)v / 3.0f + 1e-3f * (float)rank;
            memcpy((char *)p + 4 * i, &f, 4);
        } else if (t == SHC_DT_FLOAT64 && !exact) {
            double d = (double)v / 3.0 + 1e-7 * rank;
            memcpy((char *)p + 8 * i, &d, 8);
        } else {
            shc_store_int((char *)p + i * shc_dtype_size(t), t, v ? v : 1);
        }
    }
}

static MPI_Datatype mpi_type(shc_dtype t)
{
    return t == SHC_DT_FLOAT32 ? MPI_FLOAT : t == SHC_DT_FLOAT64 ? MPI_DOUBLE
           : t == SHC_DT_INT32 ? MPI_INT32_T : MPI_INT64_T;
}

/* The reduce checks on one group (a list of world ranks; sub is its communicator). */
static void reduce_checks(shc_comm *c, const int64_t *group, int gn, MPI_Comm sub, int rank)
{
    static const shc_dtype dts[] = {SHC_DT_FLOAT32, SHC_DT_FLOAT64, SHC_DT_INT32, SHC_DT_INT64};
    static const shc_redop ops[] = {SHC_OP_SUM, SHC_OP_MIN, SHC_OP_MAX, SHC_OP_PRODUCT,
                                    SHC_OP_BXOR};
    static const MPI_Op mops[] = {MPI_SUM, MPI_MIN, MPI_MAX, MPI_PROD, MPI_BXOR};
    const size_t counts[] = {1, (size_t)gn - 1, 1001, 70001, 262147};
    for (size_t di = 0; di < 4; di++)
        for (size_t oi = 0; oi < 5; oi++)
            for (size_t ci = 0; ci < 5; ci++) {
                shc_dtype t = dts[di];
                size_t n = counts[ci], es = shc_dtype_size(t), bytes = n * es + 1;
                if (oi == 4 && !shc_dtype_is_int(t))
                    continue;
                /* products of 23 values overflow floats; keep them on the small counts */
                if (oi == 3 && !shc_dtype_is_int(t) && n > 1001)
                    continue;
                char *in = malloc(bytes), *keep = malloc(bytes), *ours = malloc(bytes),
                     *ref = malloc(bytes);
                fill(in, t, n, rank, true);
                memcpy(keep, in, n * es);
                memset(ours, 0x5a, bytes);
                shc_err e = {0};
                int rc = c->ops->all_reduce_to(c, group, gn, in, ours, n, t, ops[oi], &e);
                MPI_Allreduce(in, ref, (int)n, mpi_type(t), mops[oi], sub);
                expect(rank, !rc && !memcmp(ours, ref, n * es), "all_reduce_to = MPI_Allreduce",
                       shc_dtype_name(t), shc_redop_name(ops[oi]), n, gn);
                expect(rank, !memcmp(in, keep, n * es), "all_reduce_to leaves its input",
                       shc_dtype_name(t), shc_redop_name(ops[oi]), n, gn);
                if (!shc_dtype_is_int(t) && oi == 0) {
                    /* inexact data: every member must still hold the same bits */
                    fill(in, t, n, rank, false);
                    rc = c->ops->all_reduce_to(c, group, gn, in, ours, n, t, SHC_OP_SUM, &e);
                    memcpy(ref, ours, n * es);
                    MPI_Bcast(ref, (int)(n * es), MPI_BYTE, 0, sub);
                    expect(rank, !rc && !memcmp(ours, ref, n * es), "all_reduce_to agrees across "
                           "ranks on inexact data", shc_dtype_name(t), "sum", n, gn);
                }
                free(in), free(keep), free(ours), free(ref);
            }
}

/* all_to_all_runs against packing by hand + all_to_all. */
static void runs_checks(shc_comm *c, const int64_t *group, int gn, int rank)
{
    /* {run, runs, extra stride}: short runs (packed), long runs (a message each, with and
     * without a gap between rows), and more long runs than get messages of their own */
    const size_t shapes[][3] = {{1, 1, 0},     {4, 3, 0},      {12, 5, 8},   {4096, 17, 0},
                                {3, 200000, 4}, {140000, 3, 0}, {131072, 2, 100}, {4096, 65, 0},
                                {65536, 3, 0},  {65535, 2, 8}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        size_t run = shapes[s][0], runs = shapes[s][1], stride = run * (size_t)gn + shapes[s][2];
        size_t total = runs * stride, bb = run * runs;
        char *src = malloc(total), *pack = malloc(bb * (size_t)gn), *ours = malloc(bb * gn),
             *ref = malloc(bb * (size_t)gn);
        for (size_t i = 0; i < total; i++)
            src[i] = (char)(i * 31 + (size_t)rank * 7);
        for (int j = 0; j < gn; j++)
            for (size_t o = 0; o < runs; o++)
                memcpy(pack + (size_t)j * bb + o * run, src + (size_t)j * run + o * stride, run);
        shc_err e = {0};
        int rc = c->ops->all_to_all_runs(c, group, gn, src, run, runs, stride, ours, &e);
        int rc2 = c->ops->all_to_all(c, group, gn, pack, bb, ref, &e);
        expect(rank, !rc && !rc2 && !memcmp(ours, ref, bb * (size_t)gn),
               "all_to_all_runs = pack + all_to_all", "bytes", "-", bb, gn);
        free(src), free(pack), free(ours), free(ref);
    }
}

/* The plain collectives against OpenMPI's on the same group: all_gather (MPI_Allgather),
 * all_gatherv with unequal counts (MPI_Allgatherv), all_to_all (MPI_Alltoall), reduce_scatter
 * (MPI_Reduce_scatter_block), all_reduce in place (MPI_Allreduce); and what is refused before
 * any communication: a bitwise op on floats, a group rank outside the world. */
static void plain_checks(shc_comm *c, const int64_t *group, int gn, MPI_Comm sub, int rank)
{
    int pos;
    MPI_Comm_rank(sub, &pos);
    int32_t mine[64], ours[64 * 8], ref[64 * 8];
    for (int i = 0; i < 64; i++)
        mine[i] = rank * 1000 + i * 7 - 50;
    shc_err e = {0};
    /* all_gather: 3 elements each */
    memset(ours, 0x5a, sizeof ours);
    int rc = c->ops->all_gather(c, group, gn, mine, 3 * sizeof *mine, ours, &e);
    MPI_Allgather(mine, 3, MPI_INT32_T, ref, 3, MPI_INT32_T, sub);
    expect(rank, !rc && !memcmp(ours, ref, (size_t)gn * 3 * 4), "all_gather = MPI_Allgather",
           "int32", "-", 3, gn);
    /* all_gatherv: member j gives j + 1 elements */
    size_t counts[8];
    int cnt[8], dis[8], off = 0;
    for (int j = 0; j < gn; j++)
        counts[j] = (size_t)(j + 1) * 4, cnt[j] = j + 1, dis[j] = off, off += j + 1;
    memset(ours, 0x5a, sizeof ours);
    rc = c->ops->all_gatherv(c, group, gn, mine, counts, ours, &e);
    MPI_Allgatherv(mine, pos + 1, MPI_INT32_T, ref, cnt, dis, MPI_INT32_T, sub);
    expect(rank, !rc && !memcmp(ours, ref, (size_t)off * 4), "all_gatherv = MPI_Allgatherv",
           "int32", "-", (size_t)off, gn);
    /* all_to_all: 2 elements per member */
    rc = c->ops->all_to_all(c, group, gn, mine, 2 * sizeof *mine, ours, &e);
    MPI_Alltoall(mine, 2, MPI_INT32_T, ref, 2, MPI_INT32_T, sub);
    expect(rank, !rc && !memcmp(ours, ref, (size_t)gn * 2 * 4), "all_to_all = MPI_Alltoall",
           "int32", "-", 2, gn);
    /* reduce_scatter: 3 elements per member, sum and max */
    static const shc_redop ops[] = {SHC_OP_SUM, SHC_OP_MAX};
    static const MPI_Op mops[] = {MPI_SUM, MPI_MAX};
    for (int k = 0; k < 2; k++) {
        rc = c->ops->reduce_scatter(c, group, gn, mine, 3, ours, SHC_DT_INT32, ops[k], &e);
        MPI_Reduce_scatter_block(mine, ref, 3, MPI_INT32_T, mops[k], sub);
        expect(rank, !rc && !memcmp(ours, ref, 3 * 4), "reduce_scatter = MPI_Reduce_scatter_block",
               "int32", shc_redop_name(ops[k]), 3, gn);
    }
    /* all_reduce in place */
    memcpy(ours, mine, 5 * 4);
    rc = c->ops->all_reduce(c, group, gn, ours, 5, SHC_DT_INT32, SHC_OP_MIN, &e);
    MPI_Allreduce(mine, ref, 5, MPI_INT32_T, MPI_MIN, sub);
    expect(rank, !rc && !memcmp(ours, ref, 5 * 4), "all_reduce = MPI_Allreduce", "int32", "min",
           5, gn);
    /* refusals: no communication happens, so each rank may meet them alone */
    float f[8] = {0};
    rc = c->ops->all_reduce(c, group, gn, f, 2, SHC_DT_FLOAT32, SHC_OP_BXOR, &e);
    expect(rank, rc == SHC_EINVAL && strstr(e.msg, "reduce op bxor is not defined for float32"),
           "bxor on float32 refused", "float32", "bxor", 2, gn);
    rc = c->ops->reduce_scatter(c, group, gn, f, 1, f + 4, SHC_DT_FLOAT32, SHC_OP_BAND, &e);
    expect(rank, rc == SHC_EINVAL && strstr(e.msg, "reduce op band is not defined for float32"),
           "band on float32 refused", "float32", "band", 1, gn);
    int64_t bad[2] = {rank, 99};
    rc = c->ops->all_gather(c, bad, 2, mine, 4, ours, &e);
    expect(rank, rc == SHC_EINVAL && strstr(e.msg, "mpi: group rank 99 outside the"),
           "a group rank outside the world refused", "-", "-", 2, gn);
}

int main(int argc, char **argv)
{
    if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMI_SIZE")) {
        printf("1..0 # SKIP run under mpirun by mpi_comm_run.sh\n");
        return 0;
    }
    shc_comm *c;
    shc_err e = {0};
    /* before MPI_Init the backend refuses to start */
    int early = shc_comm_mpi_new(&c, 60, &e);
    char early_msg[sizeof e.msg];
    memcpy(early_msg, e.msg, sizeof early_msg);
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    expect(rank, early == SHC_EINVAL && !strcmp(early_msg, "mpi backend: MPI is not initialised"),
           "a communicator before MPI_Init refused", "-", "-", 0, size);
    shc_err_clear(&e);
    if (shc_comm_mpi_new(&c, 60, &e)) {
        printf("rank %d: %s\n", rank, e.msg);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* the whole world in reversed order: group position differs from the world rank */
    int64_t *rev = malloc((size_t)size * sizeof *rev);
    int *irev = malloc((size_t)size * sizeof *irev);
    for (int i = 0; i < size; i++)
        rev[i] = size - 1 - i, irev[i] = size - 1 - i;
    MPI_Group wg, g;
    MPI_Comm sub;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_incl(wg, size, irev, &g);
    MPI_Comm_create(MPI_COMM_WORLD, g, &sub);
    reduce_checks(c, rev, size, sub, rank);
    runs_checks(c, rev, size, rank);
    plain_checks(c, rev, size, sub, rank);
    /* without a deadline (timeout 0) the collectives run unguarded: the same bytes */
    shc_comm *c0;
    if (shc_comm_mpi_new(&c0, 0, &e)) {
        printf("rank %d: %s\n", rank, e.msg);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    plain_checks(c0, rev, size, sub, rank);
    runs_checks(c0, rev, size, rank);
    c0->ops->destroy(c0);
    MPI_Comm_free(&sub);
    MPI_Group_free(&g);
    /* a 2-rank sub-group {1, 0} (ranks 2.. sit it out) */
    if (size >= 3) {
        int pair[2] = {1, 0};
        int64_t pg[2] = {1, 0};
        MPI_Group_incl(wg, 2, pair, &g);
        MPI_Comm_create(MPI_COMM_WORLD, g, &sub);
        if (rank < 2) {
            reduce_checks(c, pg, 2, sub, rank);
            runs_checks(c, pg, 2, rank);
            plain_checks(c, pg, 2, sub, rank);
            MPI_Comm_free(&sub);
        }
        MPI_Group_free(&g);
    }
    MPI_Group_free(&wg);
    int all_checks, all_failed;
    MPI_Allreduce(&checks, &all_checks, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&failed, &all_failed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (!rank)
        printf("mpi_comm: %d ranks, %d checks, %d failed\n", size, all_checks, all_failed);
    free(rev), free(irev);
    c->ops->destroy(c);
    MPI_Finalize();
    return all_failed ? 1 : 0;
}
