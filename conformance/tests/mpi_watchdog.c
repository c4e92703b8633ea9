/*
 * mpi_watchdog.c — the mpi backend's hang detection with blocking collectives
 * (lib/exec/comm_mpi.c): run under `mpirun -np 2` by mpi_watchdog_run.sh.
 *
 * Both ranks first all-gather once under a 2 s deadline (the watchdog armed
 * and disarmed on the normal path, the group's communicator created), then
 * rank 0 sleeps past the deadline (a disarmed timer must never fire).  Then
 * rank 1 stops taking part (it sleeps) while rank 0 all-gathers again: the
 * watchdog must turn the stuck blocking collective into the timeout error
 * naming the collective and group, after about 2 s; a further collective on
 * that communicator must fail at once the same way.  Rank 0 prints what it
 * saw and ends the job with MPI_Abort, as the runner does once it has
 * reported.  Exit 77 when not run on exactly 2 ranks; outside mpirun (make
 * check runs every check program) it prints a TAP skip.
 */
#include "config.h"
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "comm.h"
#include "child_exit.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    /* make check also runs every check program directly: that run is a TAP skip */
    if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMI_SIZE")) {
        printf("1..0 # SKIP run under mpirun by mpi_watchdog_run.sh\n");
        return 0;
    }
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (!rank)
            printf("mpi_watchdog: needs 2 ranks, got %d\n", size);
        MPI_Finalize();
        return 77;
    }
    shc_comm *c;
    shc_err e = {0};
    int64_t group[2] = {0, 1};
    int send = rank + 10, recv[2] = {0, 0};
    if (shc_comm_mpi_new(&c, 2.0, &e) ||
        c->ops->all_gather(c, group, 2, &send, sizeof send, recv, &e)) {
        printf("rank %d: first all_gather failed: %s\n", rank, e.msg);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    printf("rank %d: first all_gather ok: %d %d\n", rank, recv[0], recv[1]);
    fflush(stdout);
    if (rank == 1) {
        sleep(60); /* never joins again; mpirun ends it when rank 0 aborts */
        MPI_Finalize();
        return 1;
    }
    sleep(3); /* past the deadline of the first, disarmed, collective */
    printf("rank 0: no stray watchdog after the first collective\n");
    double t0 = now();
    int rc = c->ops->all_gather(c, group, 2, &send, sizeof send, recv, &e);
    printf("rank 0: second all_gather rc %d after %.1f s: %s\n", rc, now() - t0, e.msg);
    t0 = now();
    shc_err_clear(&e);
    rc = c->ops->all_reduce(c, group, 2, &send, 1, SHC_DT_INT32, SHC_OP_SUM, &e);
    printf("rank 0: then all_reduce rc %d after %.1f s: %s\n", rc, now() - t0, e.msg);
    /* every other collective of the broken communicator is refused at once, by name */
    int big[2 * 32768], out[2 * 32768];
    size_t counts[2] = {sizeof send, sizeof send};
    memset(big, 0, sizeof big);
    for (int k = 0; k < 5; k++) {
        const char *name[] = {"all_gatherv", "all_to_all", "reduce_scatter", "all_reduce_to",
                              "all_to_all_runs"};
        shc_err_clear(&e);
        t0 = now();
        switch (k) {
        case 0: rc = c->ops->all_gatherv(c, group, 2, &send, counts, recv, &e); break;
        case 1: rc = c->ops->all_to_all(c, group, 2, recv, sizeof send, out, &e); break;
        case 2: rc = c->ops->reduce_scatter(c, group, 2, recv, 1, out, SHC_DT_INT32, SHC_OP_SUM, &e); break;
        case 3: /* ring-sized and small: both of all_reduce_to's paths */
            rc = c->ops->all_reduce_to(c, group, 2, big, out, 2 * 32768, SHC_DT_INT32, SHC_OP_SUM, &e);
            if (rc && strstr(e.msg, "mpi: timeout: all_reduce on group [0,1]")) {
                shc_err_clear(&e);
                rc = c->ops->all_reduce_to(c, group, 2, big, out, 2, SHC_DT_INT32, SHC_OP_SUM, &e);
            }
            break;
        default: rc = c->ops->all_to_all_runs(c, group, 2, big, 4, 2, 8, out, &e); break;
        }
        printf("rank 0: then %s rc %d after %.1f s: %s\n", name[k], rc, now() - t0, e.msg);
    }
    fflush(stdout);
#ifdef SHC_COVERAGE
    __gcov_dump(); /* MPI_Abort skips gcov's exit hook: the timeout path would read as unrun */
#endif
    MPI_Abort(MPI_COMM_WORLD, 3);
    return 3;
}
