/*
 * fuzz_candidate.c — libFuzzer target for the candidate loader of `shardcheck
 * verify` (tools/cmd_verify.c, tools/verify_scan.c): both candidate forms (the minimal results file
 * and the golden-shaped file) checked against small fixed golden families.
 *
 * Input: byte 0 picks the golden family (fuzz/data/candidate-*.json: per-rank
 * shard-layout tests with _StridedShard index lists, group-ranks with invalid
 * tests, rank-independent philox-kat); the rest is the candidate file's bytes.
 * The tool's own functions are reached by including cmd_verify.c here, so the
 * fuzzer runs exactly the code the CLI runs without exporting anything from it.
 * Tested by: make check (fuzz/replay.sh over fuzz/corpus/candidate and
 * fuzz/regressions/candidate), make fuzz (libFuzzer, --enable-fuzzing).
 */
#define FUZZ_WITH_GOLDEN
#include "fuzz_common.h"
#include "cmd_verify.c" /* static verify_candidate(): the code under test */

#ifndef FUZZ_DATA_DIR
#error "FUZZ_DATA_DIR must name fuzz/data (set by mk/fuzz.am)"
#endif

static const char *const golden_files[] = {"candidate-shard-layout.json",
                                           "candidate-group-ranks.json",
                                           "candidate-philox-kat.json"};
#define NGOLDEN (sizeof golden_files / sizeof *golden_files)

static const shc_golden *golden_at(size_t k)
{
    static shc_golden g[NGOLDEN];
    static int loaded;
    if (!loaded) {
        for (size_t i = 0; i < NGOLDEN; i++) {
            char path[4096];
            shc_err e;
            snprintf(path, sizeof path, "%s/%s", FUZZ_DATA_DIR, golden_files[i]);
            if (shc_golden_load_file(&g[i], path, &e) != SHC_OK)
                fuzz_die("fixed golden %s: %s", path, e.msg);
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
