/*
 * consumer.c — a program that knows libshardcheck only through its installed
 * headers and `pkg-config --cflags --libs shardcheck`: `make installcheck`
 * (and so `make distcheck`) builds it against the installed tree and runs it.
 * It calls one entry point of each area — layout, groups, plans (complete
 * types: steps are read), execution over simulated ranks, torch's CUDA random
 * kernels, the RNG tracker's offsets — and checks answers that come from
 * outside shardcheck: torch.chunk's rule, torch 2.13's greedy plan for
 * S(0),S(0),S(0) -> S(1),S(1),S(1) on 2x2x2 (5 steps, 3 collectives), and the
 * published torch.manual_seed(0); torch.rand(4, device='cuda') values.
 * Exit 0 when every answer matches, 1 otherwise (one line per mismatch).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <shardcheck.h>

static int fails;

static void expect(int ok, const char *what)
{
    if (!ok) {
        printf("consumer: FAIL %s\n", what);
        fails++;
    }
}

static void layout_and_groups(void)
{
    shc_mesh m = {0};
    shc_placements pl;
    shc_shape s;
    shc_layout l;
    shc_groups g = {0};
    shc_err e = {0};
    int axes[1] = {0};
    expect(!shc_mesh_parse(&m, "4", NULL, &e) && !shc_placements_parse(&pl, "S(0)", &e) &&
               !shc_shape_parse(&s, "13", &e), "parse mesh, placements, shape");
    int64_t want[4] = {4, 4, 4, 1}; /* torch.chunk(13 rows, 4) */
    for (int r = 0; r < 4; r++) {
        memset(&l, 0, sizeof l);
        expect(!shc_layout_of_rank(&m, &pl, &s, r, &l, &e) && l.local.d[0] == want[r],
               "layout of S(0) over 13 rows");
        shc_layout_free(&l);
    }
    expect(!shc_groups_for_axes(&m, axes, 1, &g, &e) && g.ngroups == 1 && g.group_size == 4,
           "groups over mesh dim 0");
    shc_groups_free(&g);
    shc_mesh_free(&m);
}

static void plans_and_execution(void)
{
    shc_mesh m = {0};
    shc_placements src, dst;
    shc_shape s;
    shc_plan_opts o;
    shc_plan p = {0};
    shc_err e = {0};
    shc_plan_opts_init(&o);
    o.planner = SHC_PLANNER_GREEDY;
    expect(!shc_mesh_parse(&m, "2x2x2", NULL, &e) &&
               !shc_placements_parse(&src, "S(0),S(0),S(0)", &e) &&
               !shc_placements_parse(&dst, "S(1),S(1),S(1)", &e) && !shc_shape_parse(&s, "8,8,8", &e),
           "parse plan inputs");
    expect(!shc_plan_compute(&m, &src, &dst, &s, &o, 0, &p, &e) && p.nsteps == 5 &&
               p.ncollectives == 3, "greedy plan: 5 steps, 3 collectives");
    expect(p.nsteps > 0 && p.steps[0].comm != SHC_COMM_KIND_COUNT, "plan steps readable");
    shc_plan_free(&p);
    shc_mesh_free(&m);

    shc_xcase c = {0};
    shc_xtensor out[4];
    expect(!shc_xcase_parse(&c, "4", NULL, "S(0)", "R", "8", "float32", NULL, &e) &&
               !shc_exec_simulate(&c, out, &e), "execute S(0) -> R on 4 simulated ranks");
    for (int r = 0; r < 4 && !e.code; r++) {
        shc_xtensor want;
        expect(!shc_testdata_expected(&c, r, &want, &e) && want.numel == out[r].numel &&
                   !memcmp(want.data, out[r].data, (size_t)want.numel * 4), "all-gather result");
        shc_xtensor_free(&want);
        shc_xtensor_free(&out[r]);
    }
    shc_xcase_free(&c);
}

static void random_streams(void)
{
    shc_gpu_profile g;
    shc_torch_rng_req r;
    shc_err e = {0};
    float v[4];
    int64_t next = 0;
    const float published[4] = {0.3990f, 0.5167f, 0.0249f, 0.9401f};
    shc_torch_rng_req_init(&r, SHC_TORCH_UNIFORM, SHC_DT_FLOAT32, 4);
    expect(!shc_gpu_profile_parse("a100", &g, &e) &&
               !shc_torch_rng_fill(&g, 0, 0, &r, 0, 4, v, NULL, &next, &e) && next == 4,
           "torch.rand(4) at seed 0");
    for (int i = 0; i < 4; i++)
        expect(fabsf(v[i] - published[i]) < 5e-5f, "torch.rand(4) matches the published values");

    shc_mesh m = {0};
    shc_placements pl;
    shc_shape s;
    shc_rng_layout t;
    shc_rng_offsets o0, o1;
    expect(!shc_mesh_parse(&m, "2", NULL, &e) && !shc_placements_parse(&pl, "S(0)", &e) &&
               !shc_shape_parse(&s, "8,16", &e) && !shc_rng_layout_init(&t, &m, &pl, &s, &e) &&
               !shc_rng_offsets_rank(&t, &m, 0, &o0, &e) &&
               !shc_rng_offsets_rank(&t, &m, 1, &o1, &e),
           "tracker offsets on a 2-rank mesh");
    expect(o0.start_incr == 0 && o1.start_incr == 64 && o0.end_incr == 128 && o1.end_incr == 128,
           "shard 1 starts 64 counters after shard 0; both end at 128");
    shc_mesh_free(&m);
}

int main(void)
{
    layout_and_groups();
    plans_and_execution();
    random_streams();
    printf("consumer: libshardcheck %s, %s\n", shc_version(), fails ? "FAILED" : "ok");
    return fails != 0;
}
