/*
 * check_rng.c — Philox4x32, the cuRAND device-API stream and Threefry2x32
 * against Random123 (Debian librandom123-dev), an implementation someone
 * else wrote; plus the published known-answer vectors and the proof that
 * every SIMD path gives the scalar path's bits.
 *
 * Without Random123 at configure time the whole program reports a TAP skip
 * with the reason (Check cannot skip single tests).
 */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <jansson.h>
#include "tap.h"

/* ck_assert records every passing check through a temporary file; hot loops
 * use this instead and only report failures. */
#define EXPECT(c, ...) do { if (!(c)) ck_abort_msg(__VA_ARGS__); } while (0)
#include "shardcheck.h"
#include "golden.h"
#include "curand_stream.h"

#ifdef HAVE_RANDOM123
#include <Random123/philox.h>
#include <Random123/threefry.h>

/* Deterministic test inputs (splitmix64). */
static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Published Random123 KAT (kat_vectors: philox4x32 R ctr key -> out). */
static const struct { int r; uint32_t c[4], k[2], o[4]; } KAT[] = {
    {10, {0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {10, {~0u, ~0u, ~0u, ~0u}, {~0u, ~0u}, {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {10, {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0},
     {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
    {7, {0, 0, 0, 0}, {0, 0}, {0x5f6fb709, 0x0d893f64, 0x4f121f81, 0x4f730a48}},
};

START_TEST(philox_published_kat)
{
    for (size_t i = 0; i < sizeof KAT / sizeof KAT[0]; i++) {
        uint32_t o[4];
        shc_philox4x32(KAT[i].c, KAT[i].k, KAT[i].r, o);
        EXPECT(!memcmp(o, KAT[i].o, 16), "KAT %zu: got %08x %08x %08x %08x", i, o[0], o[1],
                      o[2], o[3]);
    }
}
END_TEST

START_TEST(philox_vs_random123)
{
    uint64_t s = 42;
    for (int i = 0; i < 20000; i++) {
        uint64_t a = mix(&s), b = mix(&s), c = mix(&s);
        philox4x32_ctr_t rc = {{(uint32_t)a, (uint32_t)(a >> 32), (uint32_t)b, (uint32_t)(b >> 32)}};
        philox4x32_key_t rk = {{(uint32_t)c, (uint32_t)(c >> 32)}};
        int rounds = i % 2 ? 7 : 10;
        philox4x32_ctr_t want = rounds == 10 ? philox4x32_R(10, rc, rk) : philox4x32_R(7, rc, rk);
        uint32_t got[4];
        shc_philox4x32(rc.v, rk.v, rounds, got);
        EXPECT(!memcmp(got, want.v, 16), "case %d rounds %d differs", i, rounds);
    }
}
END_TEST

/* A fill from ctr0 equals Random123 block by block, on every path, across carries. */
static void check_fill(shc_philox_path path, shc_philox_step step, bool soa, const uint32_t c0[4],
                       int64_t n, int rounds)
{
    static uint32_t out[4 * 1100];
    uint32_t key[2] = {0xdeadbeef, 0x01234567};
    shc_err e;
    ck_assert_int_eq(shc_philox_fill(path, key, c0, step, rounds, n, out, soa, &e), 0);
    philox4x32_ctr_t c = {{c0[0], c0[1], c0[2], c0[3]}};
    philox4x32_key_t k = {{key[0], key[1]}};
    for (int64_t j = 0; j < n; j++) {
        philox4x32_ctr_t want = rounds == 10 ? philox4x32_R(10, c, k) : philox4x32_R(7, c, k);
        for (int w = 0; w < 4; w++) {
            uint32_t got = soa ? out[w * n + j] : out[4 * j + w];
            EXPECT(got == want.v[w], "%s step %d soa %d n %lld block %lld word %d",
                          shc_philox_path_name(path), step, soa, (long long)n, (long long)j, w);
        }
        if (step == SHC_PHILOX_STEP_SUBSEQ) {
            if (++c.v[2] == 0)
                ++c.v[3];
        } else if (++c.v[0] == 0 && ++c.v[1] == 0 && ++c.v[2] == 0) {
            ++c.v[3];
        }
    }
}

START_TEST(philox_paths_vs_random123)
{
    static const uint32_t starts[][4] = {
        {0, 0, 0, 0},
        {0xfffffff0u, 0, 7, 9},                   /* word 0 carries into word 1 */
        {0xfffffff9u, 0xffffffffu, 5, 0},         /* ... into word 2 */
        {0xfffffffau, 0xffffffffu, 0xffffffffu, 3}, /* ... into word 3 */
        {3, 4, 0xfffffff5u, 0},                   /* subsequence word 2 into 3 */
        {3, 4, 0xfffffff5u, 0xffffffffu},         /* subsequence wraps 2^64 */
    };
    static const int64_t ns[] = {0, 1, 7, 8, 15, 16, 17, 33, 1031};
    for (int p = SHC_PHILOX_SCALAR; p <= SHC_PHILOX_AVX512; p++) {
        if (!shc_philox_path_available((shc_philox_path)p)) {
            printf("# path %s not available on this CPU: only the others are checked\n",
                   shc_philox_path_name((shc_philox_path)p));
            continue;
        }
        for (size_t s = 0; s < sizeof starts / sizeof starts[0]; s++)
            for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
                for (int step = 0; step < 2; step++)
                    for (int soa = 0; soa < 2; soa++)
                        check_fill((shc_philox_path)p, (shc_philox_step)step, soa, starts[s], ns[i],
                                   i % 2 ? 7 : 10);
    }
}
END_TEST

START_TEST(curand_constants_are_powers_of_two)
{
    /* the exactness argument of curand_stream.h and the SIMD torch.rand path */
    ck_assert(SHC_CURAND_2POW32_INV == 0x1p-32f);
    ck_assert(SHC_CURAND_2POW32_INV_DOUBLE == 0x1p-32);
    ck_assert(SHC_CURAND_2POW53_INV_DOUBLE == 0x1p-53);
}
END_TEST

START_TEST(philox_fill_errors)
{
    shc_err e;
    uint32_t k[2] = {0, 0}, c[4] = {0, 0, 0, 0}, o[4];
    ck_assert_int_eq(shc_philox_fill(SHC_PHILOX_SCALAR, k, c, 0, 0, 1, o, false, &e), SHC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "rounds 0 is outside 1..16"));
    ck_assert_int_eq(shc_philox_fill(SHC_PHILOX_SCALAR, k, c, 0, 10, -1, o, false, &e), SHC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "block count -1 is negative"));
}
END_TEST

/* curand_init/curand against Random123 blocks: subsequence -> words 2..3,
 * offset -> offset/4 blocks + word offset%4, words in order, curand4 windows. */
START_TEST(curand_layout_vs_random123)
{
    uint64_t s = 7;
    for (int i = 0; i < 3000; i++) {
        uint64_t seed = mix(&s), sub = mix(&s) >> (i % 64), off = mix(&s) >> (i % 63 + 1);
        shc_curand_philox st;
        shc_curand_init(seed, sub, off, &st);
        philox4x32_key_t k = {{(uint32_t)seed, (uint32_t)(seed >> 32)}};
        uint64_t blk = off / 4;
        for (int w = 0; w < 9; w++) {
            uint64_t pos = (off % 4) + (uint64_t)w;
            uint64_t b = blk + pos / 4;
            philox4x32_ctr_t c = {{(uint32_t)b, (uint32_t)(b >> 32), (uint32_t)sub, (uint32_t)(sub >> 32)}};
            philox4x32_ctr_t want = philox4x32_R(10, c, k);
            uint32_t got = shc_curand(&st);
            EXPECT(got == want.v[pos % 4], "case %d word %d", i, w);
        }
        /* curand4 from a non-zero STATE: a window across two blocks */
        shc_curand_philox a, b;
        shc_curand_init(seed, sub, off, &a);
        shc_curand_init(seed, sub, off, &b);
        uint32_t q[4];
        shc_curand4(&a, q);
        for (int w = 0; w < 4; w++)
            EXPECT(q[w] == shc_curand(&b), "curand4 window word %d", w);
    }
}
END_TEST

START_TEST(curand_skipahead_carry)
{
    /* skipahead carries out of counter word 1 into word 2 (Philox_State_Incr) */
    shc_curand_philox st;
    shc_curand_init(0, 0, 0, &st);
    for (int i = 0; i < 4; i++)
        shc_curand_skipahead(4 * ((1ull << 62) - 1), &st); /* 2^64 - 4 blocks */
    ck_assert(st.ctr[0] == 0xfffffffcu && st.ctr[1] == 0xffffffffu && st.ctr[2] == 0);
    shc_curand_skipahead(17, &st);
    ck_assert_uint_eq(st.ctr[0], 0);
    ck_assert_uint_eq(st.ctr[1], 0);
    ck_assert_uint_eq(st.ctr[2], 1);
    ck_assert_uint_eq(st.state, 1);
    /* from subsequence 2^32 - 1 the same carries reach word 3, both the skipahead's and the
     * one-block steps of curand(); every word drawn is Random123's at the 128-bit counter
     * (subsequence * 2^64 + block) computed here */
    for (int by_draw = 0; by_draw < 2; by_draw++) {
        const uint64_t seed = 0x0123456789abcdefull;
        shc_curand_init(seed, 0xffffffffu, 0, &st);
        for (int i = 0; i < 4; i++)
            shc_curand_skipahead(4 * ((1ull << 62) - 1), &st);
        unsigned __int128 blk = ((unsigned __int128)0xffffffffu << 64) + ((unsigned __int128)1 << 64) - 4;
        if (!by_draw) {
            shc_curand_skipahead(16, &st); /* 4 blocks: exactly to 2^96 */
            blk += 4;
            ck_assert(st.ctr[0] == 0 && st.ctr[1] == 0 && st.ctr[2] == 0 && st.ctr[3] == 1);
        }
        philox4x32_key_t k = {{(uint32_t)seed, (uint32_t)(seed >> 32)}};
        for (int w = 0; w < 24; w++) { /* by_draw: 4 blocks up to the carry, 2 past it */
            unsigned __int128 b = blk + (unsigned)w / 4;
            philox4x32_ctr_t c = {{(uint32_t)b, (uint32_t)(b >> 32), (uint32_t)(b >> 64),
                                   (uint32_t)(b >> 96)}};
            philox4x32_ctr_t want = philox4x32_R(10, c, k);
            uint32_t got = shc_curand(&st);
            ck_assert_msg(got == want.v[w % 4], "by_draw %d word %d: %08x, Random123 %08x",
                          by_draw, w, got, want.v[w % 4]);
        }
    }
}
END_TEST

START_TEST(curand_normal_cache)
{
    /* curand_normal caches the second Box-Muller value: two calls use two words,
     * equal to one curand_normal2 on the same state. */
    shc_curand_philox a, b;
    shc_curand_init(99, 3, 5, &a);
    shc_curand_init(99, 3, 5, &b);
    float x = shc_curand_normal(&a), y = shc_curand_normal(&a), v[2];
    shc_curand_normal2(&b, v);
    ck_assert(x == v[0] && y == v[1]);
    ck_assert_uint_eq(shc_curand(&a), shc_curand(&b));
    double dx = shc_curand_normal_double(&a), dy = shc_curand_normal_double(&a), dv[2];
    shc_curand_normal2_double(&b, dv);
    ck_assert(dx == dv[0] && dy == dv[1]);
    ck_assert_uint_eq(shc_curand(&a), shc_curand(&b));
}
END_TEST

START_TEST(threefry_vs_random123)
{
    uint32_t z[2] = {0, 0}, o[2];
    shc_threefry2x32(z, z, 20, o);
    ck_assert(o[0] == 0x6b200159 && o[1] == 0x99ba4efe); /* Random123 KAT */
    uint64_t s = 5;
    for (int i = 0; i < 20000; i++) {
        uint64_t a = mix(&s), b = mix(&s);
        threefry2x32_ctr_t c = {{(uint32_t)a, (uint32_t)(a >> 32)}};
        threefry2x32_key_t k = {{(uint32_t)b, (uint32_t)(b >> 32)}};
        int rounds = i % 3 ? 20 : 13;
        threefry2x32_ctr_t want = rounds == 20 ? threefry2x32_R(20, c, k) : threefry2x32_R(13, c, k);
        shc_threefry2x32(c.v, k.v, rounds, o);
        EXPECT(o[0] == want.v[0] && o[1] == want.v[1], "case %d", i);
    }
}
END_TEST


static const char *srcdir(void)
{
    const char *d = getenv("top_srcdir");
#ifdef SHC_TOP_SRCDIR
    if (!d)
        d = SHC_TOP_SRCDIR;
#endif
    return d ? d : ".";
}

static void hex_words(const json_t *a, uint32_t *w, size_t n)
{
    ck_assert_uint_eq(json_array_size(a), n);
    for (size_t i = 0; i < n; i++)
        w[i] = (uint32_t)strtoul(json_string_value(json_array_get(a, i)), NULL, 16);
}

/* The philox-kat golden file itself, recomputed block by block with Random123. */
START_TEST(golden_philox_kat_vs_random123)
{
    shc_golden g;
    shc_err e;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/golden", srcdir());
    EXPECT(shc_golden_load_family(&g, dir, "philox-kat", &e) == 0, "%s", e.msg);
    ck_assert(g.ntests > 0);
    for (int64_t t = 0; t < g.ntests; t++) {
        const json_t *test = g.tests[t], *ex = json_object_get(test, "expected");
        int rounds = (int)json_integer_value(json_object_get(g.groups[t], "rounds"));
        int64_t n = json_integer_value(json_object_get(test, "blocks"));
        bool sub = !strcmp(json_string_value(json_object_get(test, "step")), "subseq");
        philox4x32_ctr_t c;
        philox4x32_key_t k;
        hex_words(json_object_get(test, "counter"), c.v, 4);
        hex_words(json_object_get(test, "key"), k.v, 2);
        uint32_t *w = malloc(16 * (size_t)n);
        for (int64_t j = 0; j < n; j++) {
            philox4x32_ctr_t r = rounds == 10 ? philox4x32_R(10, c, k) : philox4x32_R(7, c, k);
            memcpy(w + 4 * j, r.v, 16);
            if (sub) {
                if (++c.v[2] == 0)
                    ++c.v[3];
            } else if (++c.v[0] == 0 && ++c.v[1] == 0 && ++c.v[2] == 0) {
                ++c.v[3];
            }
        }
        long long id = (long long)json_integer_value(json_object_get(test, "tcId"));
        if (json_object_get(ex, "words")) {
            uint32_t want[16];
            hex_words(json_object_get(ex, "words"), want, 4 * (size_t)n);
            EXPECT(!memcmp(w, want, 16 * (size_t)n), "tcId %lld differs from Random123", id);
        } else {
            char h[65];
            shc_sha256_hex(w, 16 * (size_t)n, h);
            EXPECT(!strcmp(h, json_string_value(json_object_get(ex, "sha256"))),
                          "tcId %lld: sha256 differs from Random123's stream", id);
        }
        free(w);
    }
    shc_golden_free(&g);
}
END_TEST

/* The threefry golden file recomputed with Random123's threefry2x32-20 and JAX's
 * partitionable counter layout (jax itself checks it again in the harness). */
START_TEST(golden_threefry_vs_random123)
{
    shc_golden g;
    shc_err e;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/golden", srcdir());
    ck_assert_msg(shc_golden_load_family(&g, dir, "threefry", &e) == 0, "%s", e.msg);
    for (int64_t t = 0; t < g.ntests; t++) {
        const json_t *test = g.tests[t], *ex = json_object_get(test, "expected");
        threefry2x32_key_t k;
        hex_words(json_object_get(g.groups[t], "key"), k.v, 2);
        const json_t *sh = json_object_get(test, "shape");
        uint64_t n = 1;
        for (size_t i = 0; i < json_array_size(sh); i++)
            n *= (uint64_t)json_integer_value(json_array_get(sh, i));
        uint32_t *w = malloc(4 * n + 4);
        for (uint64_t i = 0; i < n; i++) {
            threefry2x32_ctr_t c = {{(uint32_t)(i >> 32), (uint32_t)i}};
            threefry2x32_ctr_t r = threefry2x32_R(20, c, k);
            w[i] = r.v[0] ^ r.v[1];
        }
        long long id = (long long)json_integer_value(json_object_get(test, "tcId"));
        if (json_object_get(ex, "bits")) {
            uint32_t want[64];
            hex_words(json_object_get(ex, "bits"), want, n);
            EXPECT(!n || !memcmp(w, want, 4 * n), "tcId %lld differs from Random123", id);
        } else {
            char h[65];
            shc_sha256_hex(w, 4 * n, h);
            EXPECT(!strcmp(h, json_string_value(json_object_get(ex, "sha256"))),
                   "tcId %lld: sha256 differs from Random123's", id);
        }
        free(w);
    }
    shc_golden_free(&g);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("check_rng");
    TCase *tc = tcase_create("philox");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, philox_published_kat);
    tcase_add_test(tc, philox_vs_random123);
    tcase_add_test(tc, philox_paths_vs_random123);
    tcase_add_test(tc, philox_fill_errors);
    tcase_add_test(tc, golden_philox_kat_vs_random123);
    tcase_add_test(tc, curand_constants_are_powers_of_two);
    suite_add_tcase(s, tc);
    TCase *tcu = tcase_create("curand");
    tcase_add_test(tcu, curand_layout_vs_random123);
    tcase_add_test(tcu, curand_skipahead_carry);
    tcase_add_test(tcu, curand_normal_cache);
    suite_add_tcase(s, tcu);
    TCase *tt = tcase_create("threefry");
    tcase_add_test(tt, threefry_vs_random123);
    tcase_add_test(tt, golden_threefry_vs_random123);
    suite_add_tcase(s, tt);
    return shc_run_suite(s);
}
#else
int main(void)
{
    puts("1..0 # SKIP Random123 headers (Debian librandom123-dev) were not found by configure; "
         "the Philox/threefry oracle tests cannot run");
    return 0;
}
#endif
