/*
 * bench_plan.c — redistribute plans per second: lib/'s planners against
 * torch 2.13's on the same cases in the same run, as ratios (goal: 1,000x
 * greedy, 100x min-cost), and how planning time grows with mesh dims (1-6)
 * and tensor dims (1-3).
 *
 * Each case is planned for rank 0 repeatedly for a fixed time.  torch's
 * figure comes from tools/harness/bench_plan.py, run here through the Python
 * in $SHC_PYTHON (default: python3) with the source tree in $top_srcdir
 * (default: .); without torch only our figures are printed.  Usage:
 *   SHC_PYTHON=.venv/bin/python top_srcdir=. bench/bench_plan [seconds per case]
 * Not run by make check (rule 5: timing never inside tests).
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "plan.h"

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
    if (shc_mesh_parse(&m, b->mesh, NULL, &e) || shc_shape_parse(&s, b->shape, &e) ||
        shc_placements_parse(&a, b->src, &e) || shc_placements_parse(&d, b->dst, &e)) {
        fprintf(stderr, "bench_plan: %s: %s\n", b->label, e.msg);
        exit(99);
    }
    long n = 0;
    double t0 = now(), t;
    do {
        shc_plan p;
        if (shc_plan_compute(&m, &a, &d, &s, &o, 0, &p, &e)) {
            fprintf(stderr, "bench_plan: %s: %s\n", b->label, e.msg);
            exit(99);
        }
        shc_plan_free(&p);
        n++;
        t = (n & 255) ? 0 : now() - t0; /* reading the CPU clock costs more than a plan */
    } while (t < seconds);
    shc_mesh_free(&m);
    return (double)n / t;
}

/* torch's figures by label, from bench_plan.py (0 = unavailable, -1 = timeout). */
static int torch_rates(const bcase *c, int n, double seconds, char labels[][32], double *rate)
{
    const char *py = getenv("SHC_PYTHON"), *src = getenv("top_srcdir");
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

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 0.3;
    bcase c[64];
    int n = build_cases(c, 64);
    char labels[64][32];
    double trate[64];
    int nt = torch_rates(c, n, seconds, labels, trate);
    printf("%-18s %14s %14s %10s\n", "case", "shardcheck/s", "torch/s", "ratio");
    for (int i = 0; i < n; i++) {
        if (i > 0 && !strcmp(c[i].label, c[i - 1].label))
            continue;
        double sum = 0;
        int cnt = 0;
        for (int j = i; j < n && !strcmp(c[j].label, c[i].label); j++, cnt++)
            sum += 1.0 / ours(&c[j], seconds);
        double r = cnt / sum; /* plans per second over the label's cases */
        double t = 0;
        for (int k = 0; k < nt; k++)
            if (!strcmp(labels[k], c[i].label))
                t = trate[k];
        if (t > 0)
            printf("%-18s %14.0f %14.1f %9.0fx\n", c[i].label, r, t, r / t);
        else
            printf("%-18s %14.0f %14s %10s\n", c[i].label, r, t < 0 ? "timeout" : "n/a", "-");
    }
    return 0;
}
