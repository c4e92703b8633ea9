/*
 * fuzz_golden.c — libFuzzer target for the golden loader
 * (conformance/corpus/golden_load.c) and the per-rank view and comparison code
 * every command runs on what it loaded (conformance/corpus/golden_compare.c):
 * the input is the bytes of one golden file.
 *
 * A file that loads must index its tests by tcId (every test found again by
 * shc_golden_find); each test's per-rank views are taken for the ranks its
 * perRank arrays imply (at most FUZZ_MAX_RANKS) and compared with the test.
 * Tested by: make check (fuzz/replay.sh over fuzz/corpus/golden and
 * fuzz/regressions/golden), make fuzz (libFuzzer, --enable-fuzzing).
 */
#include "config.h"
#include <string.h>
#define FUZZ_WITH_GOLDEN
#include "fuzz_common.h"

#define FUZZ_MAX_RANKS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    shc_golden g;
    shc_err e;
    if (fuzz_golden_load(data, size, &g, &e) != SHC_OK)
        return 0;
    for (int64_t i = 0; i < g.ntests; i++) {
        json_t *t = g.tests[i];
        int64_t tcid = json_integer_value(json_object_get(t, "tcId"));
        if (shc_golden_find(&g, tcid) != t)
            fuzz_die("tcId %lld is loaded but not found again", (long long)tcid);
        const json_t *exp = json_object_get(t, "expected");
        int64_t world = shc_expected_world(exp);
        if (world > FUZZ_MAX_RANKS)
            world = FUZZ_MAX_RANKS;
        for (int64_t r = world ? 0 : -1; r < (world ? world : 0); r++) {
            char msg[600];
            json_t *v = shc_expected_view(exp, r);
            if (v)
                (void)shc_compare_view(t, r, v, msg, sizeof msg);
            json_decref(v);
        }
    }
    shc_golden_free(&g);
    return 0;
}
