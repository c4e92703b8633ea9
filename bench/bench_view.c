/*
 * bench_view.c — view-op sharding queries per second: shardcheck's rule (lib/layout/view_rule.c)
 * and its rule plus the data verdict (view_check.c) against torch 2.13's own
 * propagate_shape_and_sharding, and the torch adapter's verdict on arange data
 * (tools/harness/adapters/torch_view_sharding.py: torch's rule, torch.index_select slices and
 * the op on tensors), in the same run, on the same queries.
 *
 * The queries: every (global shape, op) below crossed with every placement of one mesh dim
 * that the shape has (R, P(sum), S(d), _S(d, 2)) on meshes 4 and 2x3 (the second dim R).  The
 * peer reads them on stdin and prints each rule's answer, which is compared with ours (a
 * mismatch is counted and printed: the bench also cross-checks).  Each side is repeated 3
 * times, interleaved; prints queries/s min/median/max and the ratio of the medians.
 *
 * Usage: bench_view [PASSES]   (each timing loops over the queries PASSES times; default 20)
 * Environment: SHARDCHECK_PYTHON (default /work/main/.venv/bin/python, else python3), top_srcdir
 * (default /work/main: where the adapter is).  Not run by make check.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "shardcheck.h"
#include "bench_stats.h"

#define REPS 3
#define MAXQ 512

typedef struct query {
    char shape[32], op[32], mesh[8], pl[32];
} query;

static const char *const cases[][2] = {
    {"12,8", "view:16,6"},   {"12,8", "view:96"},        {"12,8", "view:3,4,8"},
    {"12,8", "view:12,2,4"}, {"12,8", "reshape:3,32"},   {"12,8", "flatten"},
    {"12,8", "transpose:0,1"}, {"12,8", "unsqueeze:1"}, {"6,4", "unflatten:0:2,3"},
    {"5,4", "view:20"},      {"7,6", "permute:1,0"},     {"2,3,4", "flatten:1,2"},
    {"4,1,6", "squeeze"},    {"24", "unflatten:0:2,3,4"}, {"24", "view:4,-1"},
};

static int build(query *q)
{
    static const char *const meshes[] = {"4", "2x3"};
    int n = 0;
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        int nd = 1;
        for (const char *s = cases[c][0]; *s; s++)
            nd += *s == ',';
        for (int m = 0; m < 2; m++)
            for (int k = -2; k < 2 * nd && n < MAXQ; k++) {
                query *x = &q[n++];
                snprintf(x->shape, sizeof x->shape, "%s", cases[c][0]);
                snprintf(x->op, sizeof x->op, "%s", cases[c][1]);
                snprintf(x->mesh, sizeof x->mesh, "%s", meshes[m]);
                char one[16];
                if (k == -2)
                    snprintf(one, sizeof one, "R");
                else if (k == -1)
                    snprintf(one, sizeof one, "P(sum)");
                else if (k < nd)
                    snprintf(one, sizeof one, "S(%d)", k);
                else
                    snprintf(one, sizeof one, "_S(%d, 2)", k - nd);
                snprintf(x->pl, sizeof x->pl, m ? "%s,R" : "%s", one);
            }
    }
    return n;
}

/* One query through our rule (and the verdict when check); its answer into out. */
static void ours(const query *x, bool check, char *out, size_t n)
{
    shc_mesh m;
    shc_placements pl;
    shc_shape in, o;
    shc_vop op;
    shc_vmap map;
    shc_vrule r;
    shc_err e = {0};
    if (shc_mesh_parse(&m, x->mesh, NULL, &e)) {
        snprintf(out, n, "error");
        return;
    }
    if (shc_shape_parse(&in, x->shape, &e) || shc_placements_parse(&pl, x->pl, &e) ||
        shc_vop_parse(&op, x->op, &e) || shc_vop_apply(&op, &in, &o, &map, &e) ||
        shc_vrule_propagate(&map, &in, &m, &pl, &r, &e)) {
        snprintf(out, n, "error");
    } else if (r.raises) {
        snprintf(out, n, "raises");
    } else {
        char t[64], u[64];
        shc_placements_format(&r.tgt, t, sizeof t);
        shc_placements_format(&r.out, u, sizeof u);
        snprintf(out, n, "%s|%s", t, u);
        shc_vcheck c;
        if (check && !shc_vcheck_run(&op, &map, &in, &o, &m, &r, &c, &e))
            shc_vcheck_free(&c);
    }
    shc_mesh_free(&m);
}

static double time_ours(const query *q, int nq, int passes, bool check)
{
    char buf[160];
    double t0 = bench_cpu_now();
    for (int p = 0; p < passes; p++)
        for (int i = 0; i < nq; i++)
            ours(&q[i], check, buf, sizeof buf);
    return (double)nq * passes / (bench_cpu_now() - t0);
}

/* torch: the rule (and the adapter's verdict) on each query, CPU-timed; prints each rule's
 * answer ("tgt|out" or "raises") and "rate rule R" / "rate verdict R" (queries/s). */
static const char *const peer_script =
    "import sys, time, torch\n"
    "sys.path.insert(0, sys.argv[1] + '/tools/harness/adapters')\n"
    "import torch_view_sharding as vs, torch_shard_layout as ts, _torch_common as tc\n"
    "passes = int(sys.argv[2])\n"
    "qs = []\n"
    "for line in sys.stdin:\n"
    "    shape, op, mesh, pl = line.rstrip('\\n').split('|')\n"
    "    shape = [int(v) for v in shape.split(',')]\n"
    "    mesh = [int(v) for v in mesh.split('x')]\n"
    "    src, _ = tc.parse_placements(pl)\n"
    "    op = vs.parse_op(op)\n"
    "    fn, args = vs.op_call(torch.empty(shape, device='meta'), op)\n"
    "    out = list(fn(*args).shape)\n"
    "    n = 1\n"
    "    for s in mesh: n *= s\n"
    "    cl = ts.coordinates(mesh, list(range(n)))\n"
    "    qs.append((shape, out, src, op, mesh, list(range(n)), {r: cl[r] for r in range(n)}))\n"
    "def rule(q):\n"
    "    try:\n"
    "        return vs.torch_rule(q[0], q[1], q[2], q[3], q[4])\n"
    "    except Exception:\n"
    "        return None\n"
    "for q in qs:\n"
    "    a = rule(q)\n"
    "    print('raises' if a is None else '%s|%s' % (vs.fmt(a[0]), vs.fmt(a[1])))\n"
    "t0 = time.process_time()\n"
    "for _ in range(passes):\n"
    "    for q in qs: rule(q)\n"
    "print('rate rule', len(qs) * passes / (time.process_time() - t0))\n"
    "t0 = time.process_time()\n"
    "for q in qs:\n"
    "    a = rule(q)\n"
    "    if a is not None: vs.check_ranks(q[0], q[1], q[3], q[4], q[5], q[6], a[0], a[1])\n"
    "print('rate verdict', len(qs) / (time.process_time() - t0))\n";

static int run_peer(const query *q, int nq, int passes, double *rule, double *verdict,
                    int *mismatches)
{
    char script[] = "/tmp/bench_view_XXXXXX", input[] = "/tmp/bench_view_in_XXXXXX";
    int fd = mkstemp(script), fi = mkstemp(input);
    if (fd < 0 || fi < 0)
        return -1;
    FILE *f = fdopen(fd, "w"), *g = fdopen(fi, "w");
    fputs(peer_script, f);
    fclose(f);
    for (int i = 0; i < nq; i++)
        fprintf(g, "%s|%s|%s|%s\n", q[i].shape, q[i].op, q[i].mesh, q[i].pl);
    fclose(g);
    const char *src = getenv("top_srcdir");
    char cmd[1024], line[256], mine[160];
    snprintf(cmd, sizeof cmd, "%s %s %s %d <%s 2>/dev/null", bench_python(), script,
             src && *src ? src : "/work/main", passes, input);
    FILE *p = popen(cmd, "r");
    int i = 0;
    *rule = *verdict = -1;
    *mismatches = 0;
    while (p && fgets(line, sizeof line, p)) {
        line[strcspn(line, "\n")] = '\0';
        if (sscanf(line, "rate rule %lf", rule) == 1 || sscanf(line, "rate verdict %lf", verdict))
            continue;
        if (i >= nq)
            continue;
        ours(&q[i], false, mine, sizeof mine);
        if (strcmp(mine, line) != 0 && !(strcmp(mine, "error") == 0 && !strcmp(line, "raises"))) {
            (*mismatches)++;
            fprintf(stderr, "bench_view: [%s] %s on %s %s: ours %s, torch %s\n", q[i].shape,
                    q[i].op, q[i].mesh, q[i].pl, mine, line);
        }
        i++;
    }
    int rc = p ? pclose(p) : -1;
    unlink(script);
    unlink(input);
    return rc == 0 && i == nq ? 0 : -1;
}

int main(int argc, char **argv)
{
    int passes = argc > 1 ? atoi(argv[1]) : 20;
    if (passes < 1)
        passes = 20;
    static query q[MAXQ];
    int nq = build(q);
    double vr[REPS], vc[REPS], pr[REPS], pv[REPS];
    int np = 0, mism = 0;
    for (int k = 0; k < REPS; k++) {
        vr[k] = time_ours(q, nq, passes, false);
        vc[k] = time_ours(q, nq, passes, true);
        double r, v;
        if (run_peer(q, nq, passes / 4 ? passes / 4 : 1, &r, &v, &mism) == 0 && r > 0 && v > 0) {
            pr[np] = r;
            pv[np++] = v;
        }
    }
    printf("# bench_view: %d view-op queries (%zu shape/op pairs on meshes 4 and 2x3), %d "
           "repeats, CPU time;\n# peer: torch's propagate_shape_and_sharding (rule) and the "
           "torch adapter's verdict on arange data\n", nq, sizeof cases / sizeof *cases, REPS);
    bench_header("queries/s");
    bench_row("rule", bench_spread_of(vr, REPS), np ? "torch rule" : NULL,
              bench_spread_of(pr, np));
    bench_row("rule + verdict", bench_spread_of(vc, REPS), np ? "torch verdict" : NULL,
              bench_spread_of(pv, np));
    if (np)
        printf("# answers compared with torch's rule: %d queries, %d differ\n", nq, mism);
    else
        printf("# peer unavailable (python %s)\n", bench_python());
    return mism ? 1 : 0;
}
