/*
 * fuzz_candidate.c — libFuzzer target for the candidate loader of `shardcheck
 * verify` (the verify engine, tools/verify/, linked as a library): both candidate forms
 * (the minimal results file and the golden-shaped file) checked against small fixed golden families.
 *
 * Input: byte 0 picks the golden family (fuzz/data/verify/F/F.json for shard-layout: per-rank
 * tests with _StridedShard index lists, group-ranks: invalid tests, philox-kat:
 * rank-independent); the rest is the candidate file's bytes.  The golden family is loaded as
 * `verify` loads it, indexed as bytes (shc_golden_index_family), so the byte fast path
 * (golden_bytes.c, the scanner's vouch hook) runs as it does in the CLI (issue 27 N13).  The
 * code under test is linked (verify_candidate, tools/verify/verify.h), not included.
 * Tested by: make check (fuzz/replay.sh over fuzz/corpus/candidate and
 * fuzz/regressions/candidate), make fuzz (libFuzzer, --enable-fuzzing).
 */
#define FUZZ_WITH_GOLDEN
#include "fuzz_common.h"
#include "verify.h"

#ifndef FUZZ_DATA_DIR
#error "FUZZ_DATA_DIR must name fuzz/data (set by mk/fuzz.am)"
#endif

static const char *const families[] = {"shard-layout", "group-ranks", "philox-kat"};
#define NGOLDEN (sizeof families / sizeof *families)

static const shc_golden *golden_at(size_t k)
{
    static shc_golden g[NGOLDEN];
    static int loaded;
    if (!loaded) {
        for (size_t i = 0; i < NGOLDEN; i++) {
            shc_err e;
            const char *dir = FUZZ_DATA_DIR "/verify";
            if (shc_golden_index_family(&g[i], dir, families[i], &e) != SHC_OK)
                fuzz_die("fixed golden %s/%s: %s", dir, families[i], e.msg);
            if (!g[i].text) /* the tree loader took over: the byte path would not run */
                fuzz_die("fixed golden %s/%s: not indexed as bytes", dir, families[i]);
        }
        loaded = 1;
    }
    return &g[k];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const shc_golden *g = golden_at(data[0] % NGOLDEN);
    report rep;
    report_opts ro = {.fmt = REP_JSON, .cmd = "fuzz", .suite = "fuzz"};
    if (report_open(&rep, &ro) != 0)
        fuzz_die("report_open");
    shc_err e;
    (void)verify_candidate(g, fuzz_scratch(data + 1, size - 1), &rep, &e);
    report_abandon(&rep); /* report_close would print the cases */
    return 0;
}
