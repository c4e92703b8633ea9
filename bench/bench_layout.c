/*
 * bench_layout.c — layout and process groups for every rank of a 65,536-rank
 * 4-D mesh (16x16x16x16, rank map reversed so nothing is arange by accident).
 * Issue 2's goal: under 1 second for all of it.
 *
 * Per rank it computes the layout under several placements (nested, uneven,
 * _StridedShard with index lists, an explicit shard order), the rank's group
 * and communicator rank on every mesh dim and on two flattened pairs, seed
 * 002's rank list for two axes, and its HSDP groups.  The peer in the same
 * run is the O(world) linear group search (shc_groups_find) a port typically
 * writes first, timed on a sample of ranks and scaled; the ratio is printed.
 * The verify-vs-torch ratio lives in the harness benchmark.  Repeated 3
 * times: min/median/max and the ratio of medians (bench_stats.h).  Built by
 * `make`, run by hand: bench/bench_layout.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "shardcheck.h"
#include "bench_stats.h"

#define REPS 3
enum { SAMPLE = 512 };

/* Process CPU time: the machine is shared, and wall time would measure the
 * neighbours; the total wall time is printed too. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void die(const shc_err *e)
{
    fprintf(stderr, "bench_layout: %s\n", e->msg);
    exit(99);
}

static const char *const placements[] = {"S(0),S(0),S(1),P(sum)", "_S(0, 16),S(0),S(1),R",
                                          "S(1),R,S(0)[1],S(0)[0]", "S(0),S(1),S(2),S(0)"};
static const char *const shapes[] = {"4099,1000", "8192,64", "1000,77", "17,33,65"};

int main(void)
{
    enum { W = 65536 };
    shc_err e = {0};
    shc_mesh m;
    int64_t shape[4] = {16, 16, 16, 16}, *map = malloc(W * sizeof *map);
    for (int64_t i = 0; i < W; i++)
        map[i] = W - 1 - i;
    if (shc_mesh_init(&m, 4, shape, map, &e))
        die(&e);
    free(map);
    int64_t checksum = 0;
    double v_total[REPS], v_wall[REPS], v_ours[REPS], v_peer[REPS];
    for (int rp = 0; rp < REPS; rp++) { /* repeats; ours and the peer interleave */
    double w0 = wall(), t0 = now();
    for (size_t p = 0; p < sizeof placements / sizeof *placements; p++) {
        shc_placements pl;
        shc_shape s;
        if (shc_placements_parse(&pl, placements[p], &e) || shc_shape_parse(&s, shapes[p], &e))
            die(&e);
        for (int64_t r = 0; r < W; r++) {
            shc_layout l;
            if (shc_layout_of_rank(&m, &pl, &s, r, &l, &e))
                die(&e);
            checksum += l.local.d[0] + l.offset[0];
            shc_layout_free(&l);
        }
    }
    double t_layout = now() - t0;

    t0 = now();
    static const int axes_sets[6][2] = {{0, -1}, {1, -1}, {2, -1}, {3, -1}, {0, 1}, {2, 3}};
    shc_groups g[6];
    for (int k = 0; k < 6; k++)
        if (shc_groups_for_axes(&m, axes_sets[k], axes_sets[k][1] < 0 ? 1 : 2, &g[k], &e))
            die(&e);
    shc_placements hp;
    if (shc_placements_parse(&hp, "R,S(0),R,S(1)", &e))
        die(&e);
    for (int64_t r = 0; r < W; r++) {
        for (int k = 0; k < 6; k++) {
            int64_t gi, mi;
            if (shc_groups_locate(&m, axes_sets[k], axes_sets[k][1] < 0 ? 1 : 2, r, &gi, &mi, &e))
                die(&e);
            checksum += shc_group_sorted_index(g[k].ranks + gi * g[k].group_size,
                                               g[k].group_size, r);
        }
        int64_t *list, n;
        if (shc_rank_list_for_axes(&m, (int[]){1, 2}, 2, r, &list, &n, &e))
            die(&e);
        checksum += list[n - 1];
        free(list);
        shc_hsdp h;
        if (shc_hsdp_groups(&m, &hp, 1, r, &h, &e))
            die(&e);
        checksum += h.rank_size;
        shc_hsdp_free(&h);
    }
    double t_groups = now() - t0, t_wall = wall() - w0;

    /* Peer: linear search for the rank's dim-3 group, on SAMPLE sampled ranks. */
    t0 = now();
    for (int64_t i = 0; i < SAMPLE; i++)
        checksum += shc_groups_find(&g[3], (i * 127) % W);
    double t_peer = (now() - t0) * (double)W / SAMPLE;
    double t_ours_one = 0;
    t0 = now();
    for (int64_t r = 0; r < W; r++) {
        int64_t gi, mi;
        shc_groups_locate(&m, axes_sets[3], 1, r, &gi, &mi, &e);
        checksum += gi;
    }
    t_ours_one = now() - t0;

    for (int k = 0; k < 6; k++)
        shc_groups_free(&g[k]);
    v_total[rp] = t_layout + t_groups;
    v_wall[rp] = t_wall;
    v_ours[rp] = W / (t_ours_one > 0 ? t_ours_one : 1e-9);
    v_peer[rp] = W / t_peer;
    }
    shc_mesh_free(&m);
    bench_spread st = bench_spread_of(v_total, REPS), sw = bench_spread_of(v_wall, REPS);
    bench_spread so = bench_spread_of(v_ours, REPS), sp = bench_spread_of(v_peer, REPS);
    printf("# bench_layout: mesh 16x16x16x16 (65536 ranks, reversed rank map), %d repeats, CPU "
           "time\n# on a shared machine; peer: linear group search (scaled from %d ranks)\n",
           REPS, SAMPLE);
    printf("layout (%zu placements) + groups (6 axis sets, seed-002 list, HSDP), all ranks: "
           "%.3f/%.3f/%.3f s CPU, %.3f/%.3f/%.3f s wall (min/med/max; goal < 1 s)%s\n",
           sizeof placements / sizeof *placements, st.min, st.med, st.max, sw.min, sw.med,
           sw.max, st.med < 1.0 ? "" : "  GOAL MISSED");
    bench_header("group lookups/s");
    bench_row("group lookup, all ranks", so, "linear-search", sp);
    printf("checksum %lld\n", (long long)checksum);
    return 0;
}
