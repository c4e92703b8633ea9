/*
 * bench_offsets.c — RNG offsets for every rank of a 65,536-rank 4-D mesh.
 *
 * Times lib/offsets/rng_offsets.c over all ranks of a 16x16x16x16 mesh (nested,
 * strided and plain shards), then the audit of the same layout, then the
 * peer in the same run: torch 2.13's own OffsetBasedRNGTracker.
 * _compute_rng_offsets on a sample of ranks (python with torch, from
 * $SHARDCHECK_PYTHON, default /work/main/.venv/bin/python or python3), which
 * also prints its results so the sample is checked against ours.  Both are
 * repeated 3 times, interleaved; prints ranks/s min/median/max of each and
 * the ratio of the medians (bench_stats.h).  Goal: all ranks in under 1 s.
 *
 * Usage: bench_offsets [SAMPLE [CASES]]   (default SAMPLE = 512 torch ranks)
 * With CASES > 0 it also times verifying the first CASES rng-offsets golden
 * cases both ways in the same run: `shardcheck run --backend ref` (our
 * compute_rank per rank) against the torch harness (tools/harness/run.py
 * with torch_rng_offsets.py), and prints that ratio too.  Sources are found
 * through $top_srcdir (default /work/main).
 * Not run by make check (timing never belongs in tests).
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "shardcheck.h"
#include "bench_stats.h"

#define REPS 3

#define MESH "16x16x16x16"
#define PLACEMENTS "S(0),_S(1, 2),S(0),S(2)"
#define SHAPE "4096,2050,63"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* torch: time _compute_rng_offsets on ranks 0, step, 2*step, ...; prints
 * "rank start end" lines and a final "seconds N". */
static const char *const peer_script =
    "import sys,time,torch\n"
    "from torch.distributed.device_mesh import DeviceMesh\n"
    "from torch.distributed.tensor._dtensor_spec import DTensorSpec, TensorMeta\n"
    "from torch.distributed.tensor._random import OffsetBasedRNGTracker\n"
    "from torch.distributed.tensor.placement_types import Shard, _StridedShard\n"
    "n, step = int(sys.argv[1]), int(sys.argv[2])\n"
    "t = torch.arange(65536).view(16,16,16,16)\n"
    "pl = (Shard(0), _StridedShard(1, split_factor=2), Shard(0), Shard(2))\n"
    "shape = (4096, 2050, 63)\n"
    "meta = TensorMeta(torch.Size(shape), (2050*63, 63, 1), torch.float32)\n"
    "tr = object.__new__(OffsetBasedRNGTracker)\n"
    "meshes = [DeviceMesh('cpu', t, _init_backend=False, _rank=i*step) for i in range(n)]\n"
    "t0 = time.perf_counter()\n"
    "out = [OffsetBasedRNGTracker._compute_rng_offsets(tr, DTensorSpec(m, pl, tensor_meta=meta))"
    " for m in meshes]\n"
    "dt = time.perf_counter() - t0\n"
    "for i, (s, e) in enumerate(out): print(i*step, int(s), int(e))\n"
    "print('seconds', dt)\n";

/* Run the peer and compare its sample with ours; returns seconds or -1. */
static double run_peer(const shc_rng_layout *t, const shc_mesh *m, int sample, int *mismatches)
{
    char path[] = "/tmp/bench_offsets_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    FILE *f = fdopen(fd, "w");
    fputs(peer_script, f);
    fclose(f);
    char cmd[512];
    int step = (int)(m->size / sample);
    snprintf(cmd, sizeof cmd, "%s %s %d %d 2>/dev/null", bench_python(), path, sample, step);
    FILE *p = popen(cmd, "r");
    double secs = -1;
    char line[256];
    *mismatches = 0;
    while (p && fgets(line, sizeof line, p)) {
        long long r, s, e;
        if (sscanf(line, "seconds %lf", &secs) == 1)
            continue;
        if (sscanf(line, "%lld %lld %lld", &r, &s, &e) != 3)
            continue;
        shc_rng_offsets o;
        shc_err err;
        if (shc_rng_offsets_rank(t, m, r, &o, &err) || o.start_incr != s || o.end_incr != e)
            (*mismatches)++;
    }
    if (p && pclose(p) != 0)
        secs = -1;
    unlink(path);
    return secs;
}

/* Seconds a shell command takes; -1 if it fails. */
static double time_cmd(const char *cmd)
{
    double t0 = now();
    int rc = system(cmd);
    if (rc != 0)
        fprintf(stderr, "bench_offsets: '%s' exited with status %d\n", cmd, rc);
    return rc == 0 ? now() - t0 : -1;
}

/* Verification throughput on the golden family: ours vs the torch harness. */
static void bench_verify(const char *argv0, int cases)
{
    const char *src = getenv("top_srcdir");
    char dir[512], cmd[2048];
    if (!src || !*src)
        src = "/work/main";
    /* the shardcheck next to us: $SHARDCHECK, or ../tools from bench/ (or from
     * bench/.libs/ when libtool runs us through its wrapper) */
    const char *sc = getenv("SHARDCHECK");
    char exe[600] = "";
    if (sc && *sc) {
        snprintf(exe, sizeof exe, "%s", sc);
    } else {
        snprintf(dir, sizeof dir, "%s", argv0);
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = '\0';
        else
            snprintf(dir, sizeof dir, ".");
        snprintf(exe, sizeof exe, "%s/../tools/shardcheck", dir);
        if (access(exe, X_OK) != 0)
            snprintf(exe, sizeof exe, "%s/../../tools/shardcheck", dir);
    }
    snprintf(cmd, sizeof cmd, "%s run --backend ref --family rng-offsets "
             "--golden %s/golden --max-cases %d >/dev/null 2>&1", exe, src, cases);
    double ours = time_cmd(cmd);
    snprintf(cmd, sizeof cmd, "cd %s && %s tools/harness/run.py --family rng-offsets "
             "--max-cases %d >/dev/null 2>&1", src, bench_python(), cases);
    double torch = time_cmd(cmd);
    if (ours < 0 || torch < 0) {
        printf("verify %d rng-offsets cases: unavailable (ours %s, torch harness %s)\n", cases,
               ours < 0 ? "failed" : "ok", torch < 0 ? "failed" : "ok");
        return;
    }
    printf("verify %d rng-offsets cases: shardcheck run %.2f s, torch harness %.2f s, "
           "ratio torch/shardcheck %.1fx\n", cases, ours, torch, torch / ours);
}

int main(int argc, char **argv)
{
    int sample = argc > 1 ? atoi(argv[1]) : 512;
    if (sample < 1 || sample > 65536) {
        fprintf(stderr, "bench_offsets: SAMPLE must be 1..65536\n");
        return 2;
    }
    shc_mesh m = {0};
    shc_placements pl;
    shc_shape s;
    shc_rng_layout t;
    shc_err e;
    if (shc_mesh_parse(&m, MESH, NULL, &e) || shc_placements_parse(&pl, PLACEMENTS, &e) ||
        shc_shape_parse(&s, SHAPE, &e) || shc_rng_layout_init(&t, &m, &pl, &s, &e)) {
        fprintf(stderr, "bench_offsets: %s\n", e.msg);
        return 99;
    }
    double vo[REPS], vp[REPS], va[REPS];
    int np = 0, mism = 0;
    int64_t check = 0;
    shc_rng_audit au;
    for (int rep = 0; rep < REPS; rep++) { /* interleaved: ours, the audit, torch */
        double t0 = now();
        check = 0;
        for (int64_t r = 0; r < m.size; r++) {
            shc_rng_offsets o;
            if (shc_rng_offsets_rank(&t, &m, r, &o, &e)) {
                fprintf(stderr, "bench_offsets: rank %lld: %s\n", (long long)r, e.msg);
                return 99;
            }
            check ^= o.start_incr + o.local_numel;
        }
        vo[rep] = (double)m.size / (now() - t0);
        t0 = now();
        if (shc_rng_audit_layout(&m, &pl, &s, &au, &e)) {
            fprintf(stderr, "bench_offsets: audit: %s\n", e.msg);
            return 99;
        }
        va[rep] = now() - t0;
        double peer = run_peer(&t, &m, sample, &mism);
        if (peer > 0)
            vp[np++] = sample / peer;
    }
    bench_spread so = bench_spread_of(vo, REPS), sa = bench_spread_of(va, REPS);
    bench_spread sp = bench_spread_of(vp, np);
    printf("# bench_offsets: mesh %s (%lld ranks) placements %s shape %s, %d interleaved "
           "repeats,\n# wall clock on a shared machine; peer: torch 2.13 _compute_rng_offsets on "
           "%d sampled ranks (%d mismatches)\n", MESH, (long long)m.size, PLACEMENTS, SHAPE, REPS,
           sample, mism);
    bench_header("ranks/s");
    bench_row("rng offsets per rank", so, np ? "torch-2.13" : "", sp);
    printf("all ranks: %.4f s at the median (goal < 1 s), checksum %lld; audit of all ranks "
           "%.4f/%.4f/%.4f s (%lld shards, %lld findings)\n", (double)m.size / so.med,
           (long long)check, sa.min, sa.med, sa.max, (long long)au.nshards,
           (long long)(au.count[0] + au.count[1] + au.count[2]));
    if (!np)
        printf("# peer unavailable (python %s)\n", bench_python());
    int cases = argc > 2 ? atoi(argv[2]) : 0;
    if (cases > 0)
        bench_verify(argv[0], cases);
    shc_mesh_free(&m);
    return mism ? 1 : 0;
}
