/*
 * bench_stats.h — what every bench prints: shardcheck's figure and its peer's
 * (measured in the same run), the ratio of their medians, and the spread
 * (min / median / max) over the repeats, because this machine is shared and
 * noisy and a single best-of figure hides that.  Header-only (each bench is
 * one program).  Benches are never run by make check (timing in tests is
 * banned); bench/run_all.sh runs them all.
 */
#ifndef SHC_BENCH_STATS_H
#define SHC_BENCH_STATS_H
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

typedef struct bench_spread {
    double min, med, max;
    int n;
} bench_spread;

static int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Spread of v[0..n) (sorts v in place). */
static inline bench_spread bench_spread_of(double *v, int n)
{
    bench_spread s = {0, 0, 0, n};
    if (n <= 0)
        return s;
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    s.min = v[0];
    s.max = v[n - 1];
    s.med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    return s;
}

/* Monotonic wall-clock seconds. */
static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* CPU seconds of the calling thread: for single-threaded CPU-bound work this
 * leaves out the time a neighbour holds the core (it does not remove cache
 * and frequency effects, hence the spread). */
static inline double bench_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The python that runs a torch peer: $SHARDCHECK_PYTHON, else the repo's venv where it is at
 * /work/main, else python3. */
static inline const char *bench_python(void)
{
    const char *p = getenv("SHARDCHECK_PYTHON");
    if (p && *p)
        return p;
    return access("/work/main/.venv/bin/python", X_OK) == 0 ? "/work/main/.venv/bin/python"
                                                            : "python3";
}

/* The column header for bench_row. */
static inline void bench_header(const char *unit)
{
    printf("%-24s %-30s %-16s %-30s %8s\n", "case", "shardcheck min/med/max", "peer",
           "peer min/med/max", "ratio");
    printf("%-24s (%s; ratio = median ours / median peer, higher is better for ours)\n", "",
           unit);
}

/* One case: our figures and the peer's (higher = better); peer may be NULL/empty. */
static inline void bench_row(const char *label, bench_spread ours, const char *peer,
                             bench_spread theirs)
{
    char a[64], b[64];
    snprintf(a, sizeof a, "%.4g/%.4g/%.4g", ours.min, ours.med, ours.max);
    if (peer && theirs.n > 0 && theirs.med > 0) {
        snprintf(b, sizeof b, "%.4g/%.4g/%.4g", theirs.min, theirs.med, theirs.max);
        printf("%-24s %-30s %-16s %-30s %7.2fx\n", label, a, peer, b, ours.med / theirs.med);
    } else {
        printf("%-24s %-30s %-16s %-30s %8s\n", label, a, peer && *peer ? peer : "-", "n/a", "-");
    }
}
#endif
