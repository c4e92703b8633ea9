/*
 * check_plugin_comm.c — shardcheck's communicator as an ABI v2 plugin sees it
 * (tools/run/plugin_comm.c's plugin_bcomm over comm_local.c's threads): every entry of the
 * shc_backend_comm table against hand-computed answers, broadcast and send/recv (built from
 * all_gatherv and the in-process mailbox), and its named errors (a bad op, a recv from a
 * rank that returned, a recv past the limit).
 */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "tap.h"
#include "plugin_comm.h"

#define N 4

typedef struct world_out {
    plugin_mailbox *mb;
    int32_t gather[N][N], a2a[N][N], gv[N][16], maxv[N], bc[N];
    float rs[N];
    int64_t ring[N];
    int rc[N];
    char err[N][512], failure[N][512];
} world_out;

static int all_entries(shc_comm *sc, void *arg, shc_err *e)
{
    (void)e;
    world_out *w = arg;
    int r = (int)sc->rank, rc = 0;
    plugin_bcomm b;
    plugin_bcomm_init(&b, sc, w->mb, false);
    const shc_backend_comm *c = &b.pub;
    int64_t g[N] = {0, 1, 2, 3};
    char *err = w->err[r];
    size_t en = sizeof w->err[r];
    int32_t mine = r * 10, blocks[N], v[4] = {r, r, r, r};
    for (int j = 0; j < N; j++)
        blocks[j] = r * 100 + j;
    size_t counts[N] = {4, 0, 8, 4}; /* bytes: rank r sends counts[r] of v */
    float fs[N];
    for (int j = 0; j < N; j++)
        fs[j] = (float)(r + j);
    rc = rc || c->all_gather(c, g, N, &mine, sizeof mine, w->gather[r], err, en);
    rc = rc || c->all_gatherv(c, g, N, v, counts, w->gv[r], err, en);
    rc = rc || c->all_to_all(c, g, N, blocks, sizeof blocks[0], w->a2a[r], err, en);
    rc = rc || c->reduce_scatter(c, g, N, fs, 1, "float32", "sum", &w->rs[r], err, en);
    w->maxv[r] = r;
    rc = rc || c->all_reduce(c, g, N, &w->maxv[r], 1, "int32", "max", err, en);
    w->bc[r] = r == 2 ? 77 : -1;
    rc = rc || c->broadcast(c, g, N, 2, &w->bc[r], sizeof w->bc[r], err, en);
    int64_t out = 1000 + r; /* a ring: every send first (buffered), then every recv */
    rc = rc || c->send(c, (r + 1) % N, &out, sizeof out, err, en);
    rc = rc || c->recv(c, (r + N - 1) % N, &w->ring[r], sizeof w->ring[r], err, en);
    /* a bad reduce op: named by the communicator and the entry, and remembered */
    int bad = c->all_reduce(c, g, N, &w->maxv[r], 1, "int32", "bogus", err, en);
    w->rc[r] = rc ? rc : bad ? 0 : -1;
    snprintf(w->failure[r], sizeof w->failure[r], "%s", b.failure);
    plugin_mailbox_leave(w->mb, r);
    return SHC_OK;
}

START_TEST(t_entries)
{
    world_out w;
    memset(&w, 0, sizeof w);
    w.mb = plugin_mailbox_new(0, N, 10);
    shc_err e = {0};
    ck_assert_int_eq(shc_comm_local_run(N, all_entries, &w, NULL, &e), 0);
    for (int r = 0; r < N; r++) {
        ck_assert_msg(w.rc[r] == 0, "rank %d: %d %s", r, w.rc[r], w.err[r]);
        for (int j = 0; j < N; j++) {
            ck_assert_int_eq(w.gather[r][j], j * 10);
            ck_assert_int_eq(w.a2a[r][j], j * 100 + r);
        }
        /* all_gatherv: rank 0's one int (0), rank 2's two (2, 2), rank 3's one (3) */
        ck_assert_int_eq(w.gv[r][0], 0);
        ck_assert_int_eq(w.gv[r][1], 2);
        ck_assert_int_eq(w.gv[r][2], 2);
        ck_assert_int_eq(w.gv[r][3], 3);
        ck_assert(w.rs[r] == (float)(6 + 4 * r)); /* sum over ranks q of q + r */
        ck_assert_int_eq(w.maxv[r], 3);
        ck_assert_int_eq(w.bc[r], 77);
        ck_assert_int_eq(w.ring[r], 1000 + (r + N - 1) % N);
        ck_assert_msg(strstr(w.failure[r], "communicator shardcheck-local: all_reduce: unknown "
                             "reduce op \"bogus\""), "%s", w.failure[r]);
    }
    plugin_mailbox_free(w.mb);
}
END_TEST

typedef struct pair_out {
    plugin_mailbox *mb;
    int rc;
    char err[512];
} pair_out;

/* Rank 0 waits for a letter rank 1 never sends: rank 1 returns (sleeping first when
 * `late`, past the mailbox's limit). */
static int quiet_peer(shc_comm *sc, void *arg, bool late)
{
    pair_out *p = arg;
    plugin_bcomm b;
    plugin_bcomm_init(&b, sc, p->mb, false);
    int64_t x;
    if (sc->rank == 0)
        p->rc = b.pub.recv(&b.pub, 1, &x, sizeof x, p->err, sizeof p->err);
    else if (late)
        sleep(2);
    plugin_mailbox_leave(p->mb, sc->rank);
    return SHC_OK;
}
static int peer_returns(shc_comm *sc, void *arg, shc_err *e)
{
    (void)e;
    return quiet_peer(sc, arg, false);
}
static int peer_late(shc_comm *sc, void *arg, shc_err *e)
{
    (void)e;
    return quiet_peer(sc, arg, true);
}

START_TEST(t_recv_errors)
{
    pair_out p = {plugin_mailbox_new(0, 2, 30), 0, ""};
    shc_err e = {0};
    shc_comm_local_run(2, peer_returns, &p, NULL, &e);
    ck_assert_int_ne(p.rc, 0);
    ck_assert_msg(strstr(p.err, "communicator shardcheck-local: recv: recv from rank 1: it "
                         "returned without sending"), "%s", p.err);
    plugin_mailbox_free(p.mb);
    pair_out q = {plugin_mailbox_new(0, 2, 1), 0, ""};
    shc_comm_local_run(2, peer_late, &q, NULL, &e);
    ck_assert_int_ne(q.rc, 0);
    ck_assert_msg(strstr(q.err, "timeout: recv from rank 1: nothing sent within 1 s"), "%s",
                  q.err);
    plugin_mailbox_free(q.mb);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("plugin_comm");
    TCase *tc = tcase_create("bcomm");
    tcase_add_test(tc, t_entries);
    tcase_add_test(tc, t_recv_errors);
    suite_add_tcase(s, tc);
    return shc_run_suite(s);
}
