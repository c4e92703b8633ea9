/*
 * run_views.h — the forked worker that computes a family's views, between the runner's
 * process (run_views.c: it starts the worker, sends it chunks of cases, reads an outcome line
 * per case, and names a crash or a hang after the case it was on) and the worker's side
 * (run_check.c: run_worker_serve computes and checks each case).
 */
#ifndef SHC_RUN_VIEWS_H
#define SHC_RUN_VIEWS_H
#include <stdint.h>
#include "run.h"

/* One case of a request: golden test idx, its world (RUN_WORLD_UNKNOWN: the worker finds
 * it), skip: preset NotSupported (the worker answers "{}").  A request is an int64 count,
 * then that many items, in the bytes of this struct: both ends are the same binary. */
typedef struct run_views_item {
    int64_t idx, world;
    int32_t skip, pad;
} run_views_item;
/* The most items one request carries (the runner's largest chunk is far below it). */
#define RUN_VIEWS_MAX_ITEMS (1 << 20)

/* The worker's loop (it never returns): requests read from req, one outcome line per item
 * written to ans, until req ends (exit 0); a broken answer pipe exits 3, an unreadable
 * request 5.  proc: the process whose block of each case's ranks it computes (< 0: all). */
_Noreturn void run_worker_serve(const run_opts *o, const shc_family *f, const shc_golden *g,
                                int64_t proc, int req, int ans);
/* The ranks of oc's case (oc->world set) that process proc computes (all when proc < 0). */
void run_block_of(const run_opts *o, int64_t proc, run_outcome *oc);
#endif
