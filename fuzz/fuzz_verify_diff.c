/*
 * fuzz_verify_diff.c — the differential fuzz target of `shardcheck verify` (issue 25 item 5):
 * one candidate file through verify's two paths, which must give the same verdict.
 *
 *   - the byte path, as `verify` runs by default: the golden family indexed as bytes
 *     (shc_golden_index_family), the candidate scanned (json_scan.c), results entries matched
 *     while scanned (the vouch hook) or after (golden_bytes.c), trees only where bytes differ;
 *   - the tree path, as `SHARDCHECK_VERIFY_TREES=1 verify`: both files as jansson trees.
 *
 * They must agree on everything verify reports: the error that refuses the candidate (code and
 * message) or none, and case by case the name, status and detail (report.c's JSON cases).
 * A difference is a crash: one of the two is wrong, and the tree path is the reference.  A
 * wrong answer that passes either path shows up so (the trees compare every value), and
 * invalid JSON that passes is caught by one more check outside verify's code: a candidate
 * verify accepts must be read by jansson with JSON_REJECT_DUPLICATES.
 *
 * Input: byte 0 picks the golden family (fuzz/data/verify/F/F.json, a few tests of every kind
 * per family, in the order of families[] below and of fuzz/make_seeds.py's VERIFY_FAMILIES);
 * the rest is the candidate's bytes (results file or golden-shaped).  The seeds
 * (fuzz/corpus/verify_diff) are right answers of every family.
 * Tested by: make check (fuzz/replay.sh replays fuzz/corpus/verify_diff and
 * fuzz/regressions/verify_diff), make fuzz (libFuzzer, --enable-fuzzing).
 */
#define FUZZ_WITH_GOLDEN
#include "fuzz_common.h"
#include "verify.h"

#ifndef FUZZ_DATA_DIR
#error "FUZZ_DATA_DIR must name fuzz/data (set by mk/fuzz.am)"
#endif

static const char *const families[] = {"shard-layout", "group-ranks", "philox-kat",
                                       "rng-offsets", "rng-policies", "redistribute-data",
                                       "redistribute-plan", "curand-stream", "torch-cuda-rng",
                                       "threefry", "view-sharding"};
#define NFAM (sizeof families / sizeof *families)

/* Each family loaded both ways, once: bytes (the index loader, which must not fall back to
 * the trees, else the byte path would not be fuzzed) and trees. */
static void golden_at(size_t k, const shc_golden **bytes, const shc_golden **trees)
{
    static shc_golden gb[NFAM], gt[NFAM];
    static bool loaded[NFAM];
    if (!loaded[k]) {
        shc_err e;
        const char *dir = FUZZ_DATA_DIR "/verify";
        if (shc_golden_index_family(&gb[k], dir, families[k], &e) != SHC_OK ||
            shc_golden_load_family(&gt[k], dir, families[k], &e) != SHC_OK)
            fuzz_die("fixed golden %s/%s: %s", dir, families[k], e.msg);
        if (!gb[k].text)
            fuzz_die("fixed golden %s/%s: not indexed as bytes", dir, families[k]);
        loaded[k] = true;
    }
    *bytes = &gb[k];
    *trees = &gt[k];
}

typedef struct verdict {
    int rc;
    char msg[SHC_ERR_MAX];
    json_t *cases; /* report.c's JSON cases: {"case", "status", "detail"|"note"} */
} verdict;

static void run(const shc_golden *g, const char *path, bool trees, verdict *v)
{
    if (trees)
        setenv("SHARDCHECK_VERIFY_TREES", "1", 1);
    else
        unsetenv("SHARDCHECK_VERIFY_TREES");
    report rep;
    report_opts ro = {.fmt = REP_JSON, .cmd = "fuzz", .suite = "fuzz"};
    if (report_open(&rep, &ro) != 0)
        fuzz_die("report_open");
    shc_err e = {0};
    v->rc = verify_candidate(g, path, &rep, &e);
    snprintf(v->msg, sizeof v->msg, "%s", v->rc ? e.msg : "");
    v->cases = json_incref(rep.cases);
    report_abandon(&rep); /* report_close would print the cases */
}

static char *dump(const json_t *j)
{
    char *s = json_dumps(j, JSON_COMPACT);
    return s ? s : strdup("?");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const shc_golden *gb, *gt;
    golden_at(data[0] % NFAM, &gb, &gt);
    const char *path = fuzz_scratch(data + 1, size - 1);
    verdict b, t;
    run(gb, path, false, &b);
    run(gt, path, true, &t);
    unsetenv("SHARDCHECK_VERIFY_TREES");
    if (b.rc != t.rc || strcmp(b.msg, t.msg) || !json_equal(b.cases, t.cases)) {
        char *cb = dump(b.cases), *ct = dump(t.cases);
        fprintf(stderr, "byte path: rc %d %s\n  cases %.3000s\ntree path: rc %d %s\n  cases %.3000s\n",
                b.rc, b.msg, cb, t.rc, t.msg, ct);
        fuzz_die("verify's byte and tree paths disagree (family %s)", families[data[0] % NFAM]);
    }
    if (!b.rc) { /* accepted: it must be JSON, repeated keys refused, outside verify's code */
        json_error_t je;
        json_t *j = json_loadb((const char *)data + 1, size - 1, JSON_REJECT_DUPLICATES, &je);
        if (!j)
            fuzz_die("verify accepted a candidate jansson refuses: %s", je.text);
        json_decref(j);
    }
    json_decref(b.cases);
    json_decref(t.cases);
    return 0;
}
