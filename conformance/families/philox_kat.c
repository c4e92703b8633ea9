/*
 * philox_kat.c — the philox-kat golden family: Philox4x32-R blocks for
 * Random123's known-answer inputs, counters that carry across every 32-bit
 * word boundary, and long chained streams (as sha256 of the little-endian
 * words plus the first and last block).
 *
 * A test: {counter: 4 hex, key: 2 hex, blocks: n, step: "counter"|"subseq"}
 * in a group {rounds}; expected {words} (n <= 4) or {sha256, first, last}.
 * Cross-checked by check_rng.c (Random123) and, through curand-stream, by
 * libcurand.  Schema: golden/schemas/philox-kat_v1.json.
 */
#include "config.h"
#include "families.h"
#include "rng_common.h"

typedef struct kat_case {
    const char *comment;
    uint32_t c[4], k[2];
    int64_t blocks;
    shc_philox_step step;
} kat_case;

static const kat_case CASES[] = {
    {"Random123 KAT: zeros", {0, 0, 0, 0}, {0, 0}, 1, 0},
    {"Random123 KAT: all ones", {~0u, ~0u, ~0u, ~0u}, {~0u, ~0u}, 1, 0},
    {"Random123 KAT: pi digits", {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
     {0xa4093822, 0x299f31d0}, 1, 0},
    {"carry word 0 -> 1", {0xfffffffe, 0, 0, 0}, {1, 2}, 4, 0},
    {"carry word 1 -> 2", {0xfffffffe, 0xffffffff, 0, 0}, {1, 2}, 4, 0},
    {"carry word 2 -> 3", {0xfffffffe, 0xffffffff, 0xffffffff, 0}, {1, 2}, 4, 0},
    {"counter wraps 2^128", {0xfffffffe, 0xffffffff, 0xffffffff, 0xffffffff}, {1, 2}, 4, 0},
    {"subsequence carry word 2 -> 3", {5, 6, 0xfffffffe, 0}, {3, 4}, 4, 1},
    {"subsequence wraps 2^64", {5, 6, 0xfffffffe, 0xffffffff}, {3, 4}, 4, 1},
    {"key all ones, counter 1", {1, 0, 0, 0}, {~0u, ~0u}, 1, 0},
    {"torch seed 0 thread 3", {0, 0, 3, 0}, {0, 0}, 1, 0},
    {"long stream from 0", {0, 0, 0, 0}, {0, 0}, 65536, 0},
    {"long stream across word 0 carry", {0xffff8000, 7, 0, 0}, {0xcafef00d, 0xdecafbad}, 65536, 0},
    {"long subsequence run (one block per thread)", {12, 0, 0, 0}, {0x12345678, 0}, 65536, 1},
    {"long subsequence run across word 2 carry", {0, 0, 0xffffc000, 1}, {9, 9}, 32768, 1},
};

static const int ROUNDS[] = {10, 7};

static int compute(const json_t *group, const json_t *test, json_t **out, shc_err *e)
{
    uint32_t c[4], k[2];
    int rounds = (int)json_integer_value(json_object_get(group, "rounds"));
    int64_t n = json_integer_value(json_object_get(test, "blocks"));
    const char *step = json_string_value(json_object_get(test, "step"));
    int rc = shcr_words(test, "counter", c, 4, e);
    if (!rc)
        rc = shcr_words(test, "key", k, 2, e);
    if (rc)
        return rc;
    if (n < 1 || n > (1 << 24) || !step)
        return shc_fail(e, SHC_EFORMAT, "philox-kat: blocks must be 1..2^24 and step given");
    uint32_t *w = malloc(sizeof(uint32_t) * 4 * (size_t)n);
    if (!w)
        return shc_fail(e, SHC_ENOMEM, "out of memory");
    rc = shc_philox_fill(SHC_PHILOX_AUTO, k, c,
                         strcmp(step, "subseq") ? SHC_PHILOX_STEP_COUNTER : SHC_PHILOX_STEP_SUBSEQ,
                         rounds, n, w, false, e);
    if (!rc) {
        if (n <= 4)
            *out = json_pack("{s:o}", "words", shcr_hex_array(w, 4 * n));
        else
            *out = json_pack("{s:o,s:o,s:o}", "sha256", shcr_sha256(w, 16 * (size_t)n), "first",
                             shcr_hex_array(w, 4), "last", shcr_hex_array(w + 4 * (n - 1), 4));
    }
    free(w);
    return rc;
}

static int compute_rank(const json_t *group, const json_t *test, int64_t rank, json_t **out,
                        shc_err *e)
{
    return compute(group, test, out, e);
}

static int64_t world_size(const json_t *group) { return 1; }

static int generate(shc_gw *w, shc_err *e)
{
    shc_gw_note(w, "KnownAnswer", "A published Random123 known-answer input.");
    shc_gw_note(w, "Carry", "The counter carries across a 32-bit word boundary inside the run.");
    shc_gw_note(w, "LongStream", "A long chained run, stored as sha256 of the little-endian "
                "words (AoS: block j = words 4j..4j+3) plus first and last block.");
    int rc = shc_gw_file(w, "philox_kat", e);
    for (size_t r = 0; r < sizeof ROUNDS / sizeof ROUNDS[0] && !rc; r++) {
        json_t *g = json_pack("{s:i}", "rounds", ROUNDS[r]);
        json_t *keep = json_incref(g);
        rc = shc_gw_group(w, g, e);
        for (size_t i = 0; i < sizeof CASES / sizeof CASES[0] && !rc; i++) {
            const kat_case *c = &CASES[i];
            json_t *t = shc_test_new(c->comment, "valid");
            json_object_set_new(t, "counter", shcr_hex_array(c->c, 4));
            json_object_set_new(t, "key", shcr_hex_array(c->k, 2));
            json_object_set_new(t, "blocks", json_integer(c->blocks));
            json_object_set_new(t, "step", json_string(c->step ? "subseq" : "counter"));
            if (!strncmp(c->comment, "Random123", 9))
                shc_test_flag(t, "KnownAnswer");
            if (strstr(c->comment, "carry") || strstr(c->comment, "wraps"))
                shc_test_flag(t, "Carry");
            if (c->blocks > 4)
                shc_test_flag(t, "LongStream");
            rc = shcr_add_test(w, keep, t, compute, e);
        }
        json_decref(keep);
    }
    return rc;
}

const shc_family shc_family_philox_kat = {
    .name = "philox-kat",
    .source_name = "random123",
    .source_version = "1.14",
    .summary = "Philox4x32-10/-7 blocks: Random123 KATs, 32-bit carries, long chained streams",
    .generate = generate,
    .compute_rank = compute_rank,
    .world_size = world_size,
    .gives = "Philox4x32-10/-7 blocks: Random123's KATs, 32-bit carries, chained streams",
    .oracle = "Random123 (`make check`)",
    .harness_stride = 0,
    .claim = {.fields = SHC_NAMES("words", "sha256", "first", "last")},
};
