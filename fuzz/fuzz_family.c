/*
 * fuzz_family.c — libFuzzer target for the family computations fed from golden
 * bytes, as `shardcheck run` does it (tools/run/run_check.c): load the input as a
 * golden file, look its family up in the registry, and for each test ask
 * world_size and then compute_rank on every rank (ref backend); for
 * redistribute-data also execute it on simulated ranks (local backend).  Each
 * view is compared with the test's expected view, as the runner does.
 *
 * Golden files are input like any other: a crash, a hang or an undefined
 * operation on a malformed value is a defect (issue 9, D9).  Tests needing more
 * than FUZZ_MAX_RANKS ranks are skipped, as run skips beyond --max-ranks.
 * Tested by: make check (fuzz/replay.sh over fuzz/corpus/family and
 * fuzz/regressions/family), make fuzz (libFuzzer, --enable-fuzzing).
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#define FUZZ_WITH_GOLDEN
#include "fuzz_common.h"
#include "redistribute_exec.h"

#define FUZZ_MAX_RANKS 16
#define FUZZ_MAX_TESTS 4

static void check_view(const json_t *test, int64_t rank, json_t *v)
{
    char msg[600];
    (void)shc_compare_view(test, rank, v, msg, sizeof msg);
    json_decref(v);
}

static void ref_ranks(const shc_family *f, const json_t *group, const json_t *test, int64_t world)
{
    for (int64_t r = 0; r < world; r++) {
        shc_err e = {0};
        json_t *v = NULL;
        if (f->compute_rank(group, test, r, &v, &e) == SHC_OK)
            check_view(test, r, v);
        else
            json_decref(v);
    }
}

/* The family's real execution on simulated ranks (its exec.simulated hook). */
static void local_exec(const shc_family *f, const json_t *group, const json_t *test,
                       int64_t world)
{
    shc_err e = {0};
    json_t **views = calloc((size_t)world, sizeof *views);
    if (views && f->exec.simulated(group, test, world, views, &e) == SHC_OK)
        for (int64_t r = 0; r < world; r++)
            check_view(test, r, views[r]);
    free(views);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    shc_golden g;
    shc_err e;
    if (fuzz_golden_load(data, size, &g, &e) != SHC_OK)
        return 0;
    const shc_family *f = shc_family_find(g.family);
    for (int64_t i = 0; f && f->compute_rank && f->world_size && i < g.ntests && i < FUZZ_MAX_TESTS;
         i++) {
        const json_t *group = g.groups[i], *test = g.tests[i];
        int64_t world = f->world_size(group);
        if (world < 1 || world > FUZZ_MAX_RANKS)
            continue;
        ref_ranks(f, group, test, world);
        if (f->exec.simulated)
            local_exec(f, group, test, world);
    }
    shc_golden_free(&g);
    return 0;
}
