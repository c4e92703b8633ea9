/*
 * bench_plan.c — redistribute plans per second: lib/'s planners against
 * torch 2.13's on the same cases in the same run, as ratios (goal: 1,000x
 * greedy, 100x min-cost), and how planning time grows with mesh dims (1-6)
 * and tensor dims (1-3).
 *
 * Each case is planned for rank 0 repeatedly for a fixed CPU time, as torch's
 * timed path does it: the DTensorSpecs are built once (shc_plan_prepare:
 * validation and specs once per layout) and every plan goes into the same
 * caller-supplied step buffer.  torch's figure comes from
 * tools/harness/bench_plan.py, run here through the Python in
 * $SHARDCHECK_PYTHON (default: python3) with the source tree in $top_srcdir
 * (default: .); without torch only our figures are printed.  Both sides are
 * measured REPS times, interleaved (torch runs while we wait, so each of our
 * repeats is taken between two of its): the table shows the ratio of the
 * medians and the spread (min/median/max) of each side.  Usage:
 *   SHARDCHECK_PYTHON=.venv/bin/python top_srcdir=. bench/bench_plan [seconds per case]
 * Not run by make check (rule 5: timing never inside tests).
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "plan_internal.h"
#include "bench_stats.h"

#define REPS 3

typedef struct bcase {
    char label[32];
    char mesh[32], shape[32], src[96], dst[96];
    shc_planner planner;
} bcase;

/* The mixed cases behind the headline "greedy" and "graph" figures. */
static const char *const mixed[][4] = {
    {"2x2x2", "8,8,8", "S(0),S(0),S(0)", "S(1),S(1),S(1)"},
    {"2x2", "8,8", "S(0),S(0)", "R,S(0)"},
    {"2x2x2", "7,6,5", "S(0),P(sum),S(1)", "R,S(0),S(2)"},
    {"4", "8,8", "S(0)", "S(1)"},
    {"2x3x2", "9,8,7", "P(sum),S(0),R", "S(1),S(1),S(0)"},
    {"2x2x2x2", "16,8", "S(0),S(1),S(0),R", "R,S(0),S(1),S(1)"},
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts); /* CPU time: the machine is shared */
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int build_cases(bcase *c, int max)
{
    int n = 0;
    for (int p = 0; p < 2; p++)
        for (size_t i = 0; i < sizeof mixed / sizeof mixed[0] && n < max; i++, n++) {
            snprintf(c[n].label, sizeof c[n].label, "%s", p ? "graph" : "greedy");
            snprintf(c[n].mesh, sizeof c[n].mesh, "%s", mixed[i][0]);
            snprintf(c[n].shape, sizeof c[n].shape, "%s", mixed[i][1]);
            snprintf(c[n].src, sizeof c[n].src, "%s", mixed[i][2]);
            snprintf(c[n].dst, sizeof c[n].dst, "%s", mixed[i][3]);
            c[n].planner = p ? SHC_PLANNER_GRAPH : SHC_PLANNER_GREEDY;
        }
    /* growth: mesh 2^k, all shards on dim 0 -> all on the last dim (1-d: -> R) */
    for (int p = 0; p < 2; p++)
        for (int t = 1; t <= 3; t++)
            for (int k = 1; k <= 6 && n < max; k++, n++) {
                bcase *b = &c[n];
                snprintf(b->label, sizeof b->label, "%s-m%d-t%d", p ? "graph" : "greedy", k, t);
                b->mesh[0] = b->shape[0] = b->src[0] = b->dst[0] = '\0';
                for (int i = 0; i < k; i++) {
                    strcat(b->mesh, i ? "x2" : "2");
                    strcat(b->src, i ? ",S(0)" : "S(0)");
                    char d[16];
                    snprintf(d, sizeof d, "%sS(%d)", i ? "," : "", t - 1);
                    strcat(b->dst, t == 1 ? (i ? ",R" : "R") : d);
                }
                for (int i = 0; i < t; i++)
                    strcat(b->shape, i ? ",64" : "64");
                b->planner = p ? SHC_PLANNER_GRAPH : SHC_PLANNER_GREEDY;
            }
    return n;
}

/* Our plans per second for one case (rank 0). */
static double ours(const bcase *b, double seconds)
{
    shc_mesh m;
    shc_shape s;
    shc_placements a, d;
    shc_err e = {0};
    shc_plan_opts o;
    shc_plan_opts_init(&o);
    o.planner = b->planner;
    o.trace = false; /* torch's timed path does not stringify either */
    shc_plan_req req;
    if (shc_mesh_parse(&m, b->mesh, NULL, &e) || shc_shape_parse(&s, b->shape, &e) ||
        shc_placements_parse(&a, b->src, &e) || shc_placements_parse(&d, b->dst, &e) ||
        shc_plan_prepare(&req, &m, &a, &d, &s, &o, &e)) {
        fprintf(stderr, "bench_plan: %s: %s\n", b->label, e.msg);
        exit(99);
    }
    shc_plan_step buf[2 * SHC_MAX_MESH_DIMS];
    shc_plan p;
    shc_plan_use_buffer(&p, buf, 2 * SHC_MAX_MESH_DIMS);
    long n = 0;
    double t0 = now(), t;
    do {
        if (shc_plan_run(&req, 0, &p, &e)) {
            fprintf(stderr, "bench_plan: %s: %s\n", b->label, e.msg);
            exit(99);
        }
        n++;
        t = (n & 255) ? 0 : now() - t0; /* reading the CPU clock costs more than a plan */
    } while (t < seconds);
    shc_plan_free(&p);
    shc_mesh_free(&m);
    return (double)n / t;
}

/* torch's figures by label, from bench_plan.py (0 = unavailable, -1 = timeout). */
static int torch_rates(const bcase *c, int n, double seconds, char labels[][32], double *rate)
{
    const char *py = getenv("SHARDCHECK_PYTHON"), *src = getenv("top_srcdir");
    char path[] = "/tmp/bench_plan_XXXXXX", cmd[1024];
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f)
        return 0;
    for (int i = 0; i < n; i++)
        fprintf(f, "%s|%s|%s|%s|%s|%s\n", c[i].label, c[i].mesh, c[i].shape, c[i].src, c[i].dst,
                c[i].planner == SHC_PLANNER_GRAPH ? "graph" : "greedy");
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s %s/tools/harness/bench_plan.py --seconds %g < %s 2>/dev/null",
             py ? py : "python3", src ? src : ".", seconds, path);
    FILE *p = popen(cmd, "r");
    int k = 0;
    char line[256];
    while (p && fgets(line, sizeof line, p) && k < 64) {
        char val[64];
        if (sscanf(line, "%31s %63s", labels[k], val) != 2)
            continue;
        rate[k++] = strcmp(val, "timeout") ? atof(val) : -1.0;
    }
    if (p)
        pclose(p);
    remove(path);
    return k;
}

/* Harmonic-mean plans per second of ours over the cases [i, j) of one label. */
static double label_rate(const bcase *c, int i, int j, double seconds)
{
    double sum = 0;
    for (int k = i; k < j; k++)
        sum += 1.0 / ours(&c[k], seconds);
    return (j - i) / sum;
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 0.2;
    static bcase c[64];
    int n = build_cases(c, 64);
    static char labels[REPS][64][32];
    static double trate[REPS][64], orate[64][REPS];
    int nt[REPS];
    /* Repeats alternate: torch's pass over every case, then ours. */
    for (int rep = 0; rep < REPS; rep++) {
        nt[rep] = torch_rates(c, n, seconds, labels[rep], trate[rep]);
        for (int i = 0; i < n; i++) {
            int j = i;
            while (j < n && !strcmp(c[j].label, c[i].label))
                j++;
            orate[i][rep] = label_rate(c, i, j, seconds);
            i = j - 1;
        }
    }
    printf("# bench_plan: plans per second (CPU time, rank 0, prepared request, caller's step "
           "buffer),\n# %d interleaved repeats of %.2f s per case on a shared machine; "
           "goal: greedy >= 1000x, graph >= 100x\n", REPS, seconds);
    bench_header("plans/s");
    for (int i = 0; i < n; i++) {
        if (i > 0 && !strcmp(c[i].label, c[i - 1].label))
            continue;
        double tv[REPS];
        int k = 0, timeout = 0;
        for (int rep = 0; rep < REPS; rep++)
            for (int q = 0; q < nt[rep]; q++)
                if (!strcmp(labels[rep][q], c[i].label)) {
                    if (trate[rep][q] > 0)
                        tv[k++] = trate[rep][q];
                    else
                        timeout = 1;
                }
        bench_spread so = bench_spread_of(orate[i], REPS), st = bench_spread_of(tv, k);
        bench_row(c[i].label, so, timeout ? "torch(timeout)" : "torch-2.13", st);
    }
    return 0;
}
