/*
 * plugin_v2_comm_test.c — a minimal ABI v2 plugin for plugin_comm.sh: redistribute-data
 * through the example's execute and communicator (examples/plugin_v2_exec.c), every other
 * family NotSupported (the example plugin proper, examples/plugin_v2.c, answers them all).
 *
 * SHARDCHECK_TEST_PLUGIN reaches the communicator the runner hands execute, whichever it
 * is (shardcheck's in one process, where the example's own is never used):
 *   hole, error, hang, corrupt: execute runs over a copy of it with that fault (all_to_all
 *     NULL; every collective failing; a collective never returning; a received byte
 *     flipped), so the runner's handling of each is tested in one process too; hang1: only
 *     rank 1 hangs (the others wait in the collective: under mpirun, comm_mpi's watchdog);
 *   selftest: before executing, broadcast from group position 0 and a pairwise send/recv
 *     exchange (rank r with r^1; the lower sends first) over every rank of the case,
 *     checked here: a wrong byte fails the case naming the entry;
 *   badrank: under mpirun the last process's comm_open returns a table claiming rank 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <shardcheck_backend.h>

#include "plugin_v2_exec.h"

static const char *mode(void)
{
    const char *m = getenv("SHARDCHECK_TEST_PLUGIN");
    return m ? m : "";
}

/* ---- a faulty copy of a communicator ---- */

#define INNER(c) ((const shc_backend_comm *)(c)->ctx)

static int planted(const shc_backend_comm *c, char *err, size_t n)
{
    if (!strcmp(mode(), "hang") || (!strcmp(mode(), "hang1") && c->rank == 1))
        for (;;)
            sleep(1000);
    if (strcmp(mode(), "error"))
        return 0;
    snprintf(err, n, "test plugin: injected failure");
    return 1;
}

static void flip(void *p, size_t bytes)
{
    if (bytes && !strcmp(mode(), "corrupt"))
        ((unsigned char *)p)[0] ^= 0x81;
}

static int w_all_gather(const shc_backend_comm *c, const int64_t *g, int n, const void *send,
                        size_t bytes, void *recv, char *err, size_t en)
{
    int rc = planted(c, err, en) || INNER(c)->all_gather(INNER(c), g, n, send, bytes, recv, err, en);
    if (!rc)
        flip(recv, bytes * (size_t)n);
    return rc;
}

static int w_all_gatherv(const shc_backend_comm *c, const int64_t *g, int n, const void *send,
                         const size_t *counts, void *recv, char *err, size_t en)
{
    return planted(c, err, en) || INNER(c)->all_gatherv(INNER(c), g, n, send, counts, recv, err, en);
}

static int w_all_to_all(const shc_backend_comm *c, const int64_t *g, int n, const void *send,
                        size_t bytes, void *recv, char *err, size_t en)
{
    int rc = planted(c, err, en) || INNER(c)->all_to_all(INNER(c), g, n, send, bytes, recv, err, en);
    if (!rc)
        flip(recv, bytes * (size_t)n);
    return rc;
}

static int w_reduce_scatter(const shc_backend_comm *c, const int64_t *g, int n, const void *send,
                            size_t count, const char *dtype, const char *op, void *recv,
                            char *err, size_t en)
{
    return planted(c, err, en) || INNER(c)->reduce_scatter(INNER(c), g, n, send, count, dtype, op,
                                                        recv, err, en);
}

static int w_all_reduce(const shc_backend_comm *c, const int64_t *g, int n, void *buf,
                        size_t count, const char *dtype, const char *op, char *err, size_t en)
{
    return planted(c, err, en) || INNER(c)->all_reduce(INNER(c), g, n, buf, count, dtype, op, err,
                                                    en);
}

/* ---- the self-test of broadcast, send and recv ---- */

static int selftest(const shc_backend_comm *c, int64_t rank, int64_t world, char *err, size_t n)
{
    int64_t *g = malloc(sizeof *g * (size_t)world), got = -1, mine = 1000 + rank;
    for (int64_t i = 0; g && i < world; i++)
        g[i] = i;
    int64_t v = rank == 0 ? 4242 : -1;
    int rc = !g || c->broadcast(c, g, (int)world, 0, &v, sizeof v, err, n);
    free(g);
    if (!rc && v != 4242)
        rc = snprintf(err, n, "broadcast: rank %lld got %lld, not 4242", (long long)rank,
                      (long long)v) > 0;
    int64_t peer = rank ^ 1;
    if (rc || peer >= world)
        return rc;
    if (rank < peer)
        rc = c->send(c, peer, &mine, sizeof mine, err, n) ||
             c->recv(c, peer, &got, sizeof got, err, n);
    else
        rc = c->recv(c, peer, &got, sizeof got, err, n) ||
             c->send(c, peer, &mine, sizeof mine, err, n);
    if (!rc && got != 1000 + peer)
        rc = snprintf(err, n, "send/recv: rank %lld got %lld from %lld", (long long)rank,
                      (long long)got, (long long)peer) > 0;
    return rc;
}

static int execute(void *self, const shc_host_v2 *host, const shc_case_v2 *c, int64_t rank,
                   const shc_backend_comm *comm, const shc_tensor_v2 *in, shc_tensor_v2 *out,
                   char *err, size_t errlen)
{
    int64_t world = 0;
    if (!strcmp(mode(), "selftest") && !host->i64(c, "world", &world) &&
        selftest(comm, rank, world, err, errlen))
        return 1;
    if (!*mode() || !strcmp(mode(), "selftest"))
        return shc_example_execute(self, host, c, rank, comm, in, out, err, errlen);
    shc_backend_comm w = *comm; /* the same communicator, with the fault */
    w.ctx = (void *)comm;
    w.all_gather = w_all_gather, w.all_gatherv = w_all_gatherv, w.all_to_all = w_all_to_all;
    w.reduce_scatter = w_reduce_scatter, w.all_reduce = w_all_reduce;
    if (!strcmp(mode(), "hole"))
        w.all_to_all = NULL;
    return shc_example_execute(self, host, c, rank, &w, in, out, err, errlen);
}

static int supports(void *self, const char *family, char *err, size_t n)
{
    (void)self;
    if (!strcmp(family, "redistribute-data"))
        return 0;
    snprintf(err, n, "the communicator test plugin executes redistribute-data only");
    return SHC_BACKEND_UNSUPPORTED;
}

static int answer(void *self, const shc_host_v2 *host, const shc_case_v2 *c, int64_t rank,
                  shc_answer_v2 *out, char *err, size_t n)
{
    (void)self, (void)host, (void)c, (void)rank, (void)out;
    snprintf(err, n, "the communicator test plugin executes redistribute-data only");
    return SHC_BACKEND_UNSUPPORTED;
}

/* badrank: on the job's last process, the example's communicator claiming rank 0 (the
 * runner must refuse it there, and the other processes must then not use theirs) */
static shc_backend_comm lie;
static const shc_backend_comm *comm_open(void *self, int64_t rank, int64_t world, char *err,
                                         size_t n)
{
    const shc_backend_comm *c = shc_example_comm_open(self, rank, world, err, n);
    if (!c || strcmp(mode(), "badrank") || rank != world - 1 || world < 2)
        return c;
    lie = *c;
    lie.rank = 0;
    lie.ctx = (void *)c;
    return &lie;
}

static void comm_close(void *self, const shc_backend_comm *comm)
{
    shc_example_comm_close(self, comm == &lie ? comm->ctx : comm);
}

static const shc_backend_v2 table = {
    .abi_version = SHC_BACKEND_ABI_V2, .struct_size = sizeof(shc_backend_v2),
    .name = "comm-test", .supports = supports, .answer = answer, .execute = execute,
    .comm_open = comm_open, .comm_close = comm_close};

uint32_t shardcheck_backend_abi(void) { return SHC_BACKEND_ABI_V2; }
const shc_backend_v2 *shardcheck_backend_v2(void) { return &table; }
