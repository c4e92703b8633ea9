/*
 * progress.c — see progress.h.  Redraws are rate-limited (0.1 s) so a bar costs nothing
 * measurable on commands that report hundreds of thousands of cases a second; the ETA
 * is the elapsed time scaled by the fraction left, shown once 1% or a second has passed
 * (earlier estimates swing wildly).  Tested by conformance/tests/progress.sh.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "progress.h"

#define BAR_WIDTH 28

/* The bar on the terminal now, so code printing a result line can erase it without
 * being handed the bar (one terminal, one bar). */
static progress *active;

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int progress_enabled(void)
{
    const char *off = getenv("SHARDCHECK_NO_PROGRESS"), *force = getenv("SHARDCHECK_PROGRESS");
    if (off && *off && strcmp(off, "0"))
        return 0;
    if (force && !strcmp(force, "1"))
        return 1;
    return isatty(STDERR_FILENO);
}

static void fmt_time(char *buf, size_t n, double s)
{
    long long t = (long long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, n, "%lld:%02lld:%02lld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, n, "%lld:%02lld", t / 60, t % 60);
}

static void draw(progress *p, double now)
{
    char bar[BAR_WIDTH + 1], eta[32] = "", el[24];
    double frac = p->total > 0 ? (double)p->done / (double)p->total : 0;
    if (frac > 1)
        frac = 1;
    int full = (int)(frac * BAR_WIDTH);
    for (int i = 0; i < BAR_WIDTH; i++)
        bar[i] = i < full ? '#' : '.';
    bar[BAR_WIDTH] = '\0';
    double el_s = now - p->t0;
    fmt_time(el, sizeof el, el_s);
    if (p->total > 0 && p->done > 0 && p->done < p->total && (frac >= 0.01 || el_s >= 1)) {
        char t[24];
        fmt_time(t, sizeof t, el_s * (1 - frac) / frac);
        snprintf(eta, sizeof eta, "  ETA %s", t);
    }
    if (p->total > 0)
        fprintf(stderr, "\r%s [%s] %lld/%lld %3d%%  %s%s\033[K", p->label, bar, p->done,
                p->total, (int)(frac * 100), el, eta);
    else
        fprintf(stderr, "\r%s %lld done  %s\033[K", p->label, p->done, el);
    fflush(stderr);
    p->drawn = 1;
    p->last = now;
    active = p;
}

void progress_begin(progress *p, const char *label, long long total)
{
    memset(p, 0, sizeof *p);
    p->on = progress_enabled();
    snprintf(p->label, sizeof p->label, "%s", label);
    p->total = total;
    p->t0 = mono_s();
    if (p->on)
        draw(p, p->t0);
}

void progress_label(progress *p, const char *label)
{
    snprintf(p->label, sizeof p->label, "%s", label);
    if (p->on)
        draw(p, mono_s());
}

void progress_set(progress *p, long long done)
{
    p->done = done;
    if (!p->on)
        return;
    double now = mono_s();
    if (now - p->last >= 0.1 || done == p->total)
        draw(p, now);
}

void progress_add(progress *p, long long n) { progress_set(p, p->done + n); }

static void erase(progress *p)
{
    if (p->on && p->drawn) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    p->drawn = 0;
}

void progress_end(progress *p)
{
    erase(p);
    p->on = 0;
    if (active == p)
        active = NULL;
}

void progress_hide(void)
{
    if (active) {
        fflush(stdout);
        erase(active);
    }
}
