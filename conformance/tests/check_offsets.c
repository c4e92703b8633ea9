/*
 * check_offsets.c — tests of lib/offsets/rng_offsets.c, rng_audit.c, rng_policy*.c.
 *
 * Expected values are derived by hand in the comments from torch 2.13's
 * _random.py (the issue's docstring example, the tiny and nested quirks),
 * from seed 000's code for the vendor profile and from Megatron's seeding
 * formulas; none is read back from the code under test.  The local numel
 * the tracker windows use is cross-checked against shard_layout.c (another
 * engineer's implementation).
 */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include "shardcheck.h"
#include "tap.h"
#include "test_layout.h"

static void offsets_of(lay *L, int64_t *lin, int64_t *start, int64_t *end, int64_t *local)
{
    shc_rng_layout t;
    shc_err e;
    ck_assert_int_eq(shc_rng_layout_init(&t, &L->m, &L->pl, &L->s, &e), 0);
    for (int64_t r = 0; r < L->m.size; r++) {
        shc_rng_offsets o;
        ck_assert_int_eq(shc_rng_offsets_rank(&t, &L->m, r, &o, &e), 0);
        if (lin) lin[r] = o.shard_linear_index;
        if (start) start[r] = o.start_incr;
        if (local) local[r] = o.local_numel;
        *end = o.end_incr;
    }
}

/* The issue's example = torch's _set_pre_op_offset docstring layout.  Shards
 * are 4x8 (32 elements); rank r at coord (x,y,z) holds shard (z, x) (tensor
 * dim 0 by mesh dim 2, dim 1 by mesh dim 0), linear index 2z + x. */
START_TEST(docstring_example)
{
    lay L;
    lay_load(&L, "2x2x2", "S(1),R,S(0)", "8,16");
    int64_t lin[8], start[8], end, local[8];
    offsets_of(&L, lin, start, &end, local);
    const int64_t want_lin[8] = {0, 2, 0, 2, 1, 3, 1, 3};
    const int64_t want_start[8] = {0, 64, 0, 64, 32, 96, 32, 96};
    for (int r = 0; r < 8; r++) {
        ck_assert_int_eq(lin[r], want_lin[r]);
        ck_assert_int_eq(start[r], want_start[r]);
        ck_assert_int_eq(local[r], 32);
    }
    ck_assert_int_eq(end, 128);
    shc_rng_audit a;
    shc_err e;
    ck_assert_int_eq(shc_rng_audit_layout(&L.m, &L.pl, &L.s, &a, &e), 0);
    ck_assert_uint_eq(a.kinds, 0);
    ck_assert_int_eq(a.nshards, 4);
    shc_mesh_free(&L.m);
}
END_TEST

/* 3 elements on 4 ranks: chunk(3, 4) = 1,1,1,0; first shard 1; starts
 * ceil4(0,1,2,3) = 0,4,4,4; end ceil4(3) = 4.  Ranks 1 and 2 (distinct shards)
 * both start at 4 and both windows [4,5) run past 4. */
START_TEST(tiny_tensor_audit)
{
    lay L;
    lay_load(&L, "4", "S(0)", "3");
    int64_t start[4], end, local[4];
    offsets_of(&L, NULL, start, &end, local);
    const int64_t ws[4] = {0, 4, 4, 4}, wl[4] = {1, 1, 1, 0};
    for (int r = 0; r < 4; r++) {
        ck_assert_int_eq(start[r], ws[r]);
        ck_assert_int_eq(local[r], wl[r]);
    }
    ck_assert_int_eq(end, 4);
    shc_rng_audit a;
    shc_err e;
    ck_assert_int_eq(shc_rng_audit_layout(&L.m, &L.pl, &L.s, &a, &e), 0);
    ck_assert_uint_eq(a.kinds, 7u);
    ck_assert_int_eq(a.count[SHC_RNGF_SAME_START], 1);
    ck_assert_int_eq(a.count[SHC_RNGF_OVERRUN], 2);
    bool found = false;
    for (int64_t i = 0; i < a.nlisted; i++) {
        const shc_rng_finding *f = &a.listed[i];
        if (f->kind == SHC_RNGF_SAME_START) {
            ck_assert_int_eq(f->rank_a, 1);
            ck_assert_int_eq(f->rank_b, 2);
            ck_assert_int_eq(f->a_lo, 4);
            ck_assert_int_eq(f->a_hi, 5);
            found = true;
        }
    }
    ck_assert(found);
    shc_mesh_free(&L.m);
}
END_TEST

/* S(0),S(0) on 2x2, 8 elements: real shards of 2, but the first-shard size is
 * chunk(8 GLOBAL, 2) = 4, so starts 0,4,8,12 with end 8: ranks 2 and 3 draw
 * [8,10) and [12,14), the next op's counters. */
START_TEST(nested_overrun)
{
    lay L;
    lay_load(&L, "2x2", "S(0),S(0)", "8");
    int64_t start[4], end, local[4];
    offsets_of(&L, NULL, start, &end, local);
    for (int r = 0; r < 4; r++) {
        ck_assert_int_eq(start[r], 4 * r);
        ck_assert_int_eq(local[r], 2);
    }
    ck_assert_int_eq(end, 8);
    shc_rng_audit a;
    shc_err e;
    ck_assert_int_eq(shc_rng_audit_layout(&L.m, &L.pl, &L.s, &a, &e), 0);
    ck_assert_uint_eq(a.kinds, 1u << SHC_RNGF_OVERRUN);
    ck_assert_int_eq(a.count[SHC_RNGF_OVERRUN], 2);
    ck_assert_int_eq(a.listed[0].rank_a, 2);
    ck_assert_int_eq(a.listed[0].a_lo, 8);
    ck_assert_int_eq(a.listed[0].a_hi, 10);
    ck_assert_int_eq(a.listed[1].rank_a, 3);
    /* the spill into the next op: [8,10) for rank 2, [12,14) for rank 3 */
    ck_assert_int_eq(a.listed[0].b_lo, 8);
    ck_assert_int_eq(a.listed[1].b_lo, 12);
    ck_assert_int_eq(a.listed[1].b_hi, 14);
    shc_mesh_free(&L.m);
}
END_TEST

/* torch.chunk sizes and _StridedShard sizes, by hand. */
START_TEST(chunk_sizes)
{
    const int64_t c74[4] = {2, 2, 2, 1}, c52[2] = {3, 2}, c34[4] = {1, 1, 1, 0};
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(shc_rng_chunk_size(7, 4, i), c74[i]);
        ck_assert_int_eq(shc_rng_chunk_size(3, 4, i), c34[i]);
        ck_assert_int_eq(shc_rng_chunk_size(0, 4, i), 0);
    }
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(shc_rng_chunk_size(5, 2, i), c52[i]);
    /* 10 in 4: chunks of 3 -> 3,3,3,1 */
    ck_assert_int_eq(shc_rng_chunk_size(10, 4, 3), 1);
    /* 5 in 4: chunks of 2 -> 2,2,1,0 */
    ck_assert_int_eq(shc_rng_chunk_size(5, 4, 3), 0);
    /* _S(sf=2) of 8 on 2: pieces 4,4 each split 2,2 -> 4 per shard */
    ck_assert_int_eq(shc_rng_strided_size(8, 2, 2, 0), 4);
    /* 7: pieces 4,3; chunk 0 = 2+2, chunk 1 = 2+1 */
    ck_assert_int_eq(shc_rng_strided_size(7, 2, 2, 0), 4);
    ck_assert_int_eq(shc_rng_strided_size(7, 2, 2, 1), 3);
    /* huge split factor on a small dim must not loop: pieces 1,1,1 -> chunk 0 gets 3 */
    ck_assert_int_eq(shc_rng_strided_size(3, INT64_MAX, 2, 0), 3);
}
END_TEST

START_TEST(state_bytes)
{
    uint8_t b[16];
    shc_rng_state_pack(0x0123456789abcdefULL, 5, b);
    const uint8_t want[16] = {0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01,
                              5, 0, 0, 0, 0, 0, 0, 0};
    ck_assert_mem_eq(b, want, 16);
    uint64_t seed;
    int64_t off;
    shc_rng_state_pack(42, -8, b);
    ck_assert_int_eq(b[8], 0xf8);
    ck_assert_int_eq(b[15], 0xff);
    shc_rng_state_unpack(b, &seed, &off);
    ck_assert_uint_eq(seed, 42);
    ck_assert_int_eq(off, -8);
}
END_TEST

/* manual_seed then two regions on the docstring layout, rank 5 (start 96, end 128). */
START_TEST(seed_and_region_state)
{
    lay L;
    shc_err e;
    uint8_t st[16];
    lay_load(&L, "2x2x2", "S(1),R,S(0)", "8,16");
    ck_assert_int_eq(shc_rng_manual_seed(&L.m, 5, 1234, st, &e), 0);
    const uint8_t want0[16] = {0xd2, 0x04, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    ck_assert_mem_eq(st, want0, 16);
    ck_assert_int_eq(shc_rng_manual_seed(&L.m, 8, 1234, st, &e), SHC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "manual_seed requires"));
    shc_rng_manual_seed(&L.m, 5, 1234, st, &e);
    shc_rng_layout t;
    shc_rng_offsets o;
    ck_assert_int_eq(shc_rng_layout_init(&t, &L.m, &L.pl, &L.s, &e), 0);
    ck_assert_int_eq(shc_rng_offsets_rank(&t, &L.m, 5, &o, &e), 0);
    int64_t run, off;
    uint64_t seed;
    ck_assert_int_eq(shc_rng_distribute_region(&o, st, &run, &e), 0);
    ck_assert_int_eq(run, 96);
    ck_assert_int_eq(shc_rng_distribute_region(&o, st, &run, &e), 0);
    ck_assert_int_eq(run, 128 + 96);
    shc_rng_state_unpack(st, &seed, &off);
    ck_assert_uint_eq(seed, 1234);
    ck_assert_int_eq(off, 256);
    shc_mesh_free(&L.m);
}
END_TEST

START_TEST(region_and_overflow)
{
    shc_rng_offsets o = {1, 64, 128, 32};
    int64_t pre, post;
    shc_err e;
    ck_assert_int_eq(shc_rng_region(&o, 100, &pre, &post, &e), 0);
    ck_assert_int_eq(pre, 164);
    ck_assert_int_eq(post, 228);
    ck_assert_int_eq(shc_rng_region(&o, INT64_MAX - 100, &pre, &post, &e), SHC_EOVERFLOW);
    ck_assert_ptr_nonnull(strstr(e.msg, "post-op offset"));
    /* 4x4 mesh, S(0),S(0), 2^62 elements: first shard 2^62/4 = 2^60 (quirk);
     * linear index 15 gives 15 * 2^60 > INT64_MAX; rank 0 is fine. */
    lay L;
    lay_load(&L, "4x4", "S(0),S(0)", "4611686018427387904");
    shc_rng_layout t;
    ck_assert_int_eq(shc_rng_layout_init(&t, &L.m, &L.pl, &L.s, &e), 0);
    ck_assert_int_eq(shc_rng_offsets_rank(&t, &L.m, 0, &o, &e), 0);
    ck_assert_int_eq(o.end_incr, (int64_t)1 << 62);
    ck_assert_int_eq(shc_rng_offsets_rank(&t, &L.m, 15, &o, &e), SHC_EOVERFLOW);
    ck_assert_ptr_nonnull(strstr(e.msg, "start_incr"));
    shc_mesh_free(&L.m);
    /* ceil4 of numel INT64_MAX - 1 overflows */
    lay_load(&L, "2", "R", "9223372036854775806");
    ck_assert_int_eq(shc_rng_layout_init(&t, &L.m, &L.pl, &L.s, &e), SHC_EOVERFLOW);
    ck_assert_ptr_nonnull(strstr(e.msg, "end_incr"));
    shc_mesh_free(&L.m);
}
END_TEST

START_TEST(bad_layouts)
{
    lay L;
    shc_rng_layout t;
    shc_err e;
    lay_load(&L, "2x2", "S(0),R", "8");
    L.pl.n = 1; /* one placement for a 2-d mesh */
    ck_assert_int_eq(shc_rng_layout_init(&t, &L.m, &L.pl, &L.s, &e), SHC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "2-d mesh"));
    shc_mesh_free(&L.m);
    lay_load(&L, "4", "S(1)", "8");
    ck_assert_int_eq(shc_rng_layout_init(&t, &L.m, &L.pl, &L.s, &e), SHC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "shard dim 1"));
    shc_mesh_free(&L.m);
}
END_TEST

/* The windows' local numel against shard_layout.c (another engineer's code). */
START_TEST(local_numel_vs_layout)
{
    static const char *const cases[][3] = {
        {"2x2", "S(0),S(0)", "7,3"}, {"3x2", "S(1),S(0)", "5,7"}, {"2x2", "_S(0, 2),S(0)", "7,8"},
        {"2x2x2", "S(0)[1]RS(0)[0]", "9"}, {"4", "S(0)", "3"}, {"2x3", "P(sum),S(1)", "4,4"}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        lay L;
        lay_load(&L, cases[c][0], cases[c][1], cases[c][2]);
        int64_t end, local[16];
        offsets_of(&L, NULL, NULL, &end, local);
        for (int64_t r = 0; r < L.m.size; r++) {
            int64_t coord[SHC_MAX_MESH_DIMS], n = 1;
            shc_layout l;
            shc_err e;
            shc_mesh_coord(&L.m, r, coord, &e);
            int rc = shc_layout_compute(&L.m, &L.pl, &L.s, coord, &l, &e);
            ck_assert_msg(rc == 0, "case %zu rank %lld: %s", c, (long long)r, e.msg);
            for (int d = 0; d < l.local.ndim; d++)
                n *= l.local.d[d];
            ck_assert_msg(n == local[r], "case %zu rank %lld: layout %lld, tracker %lld", c,
                          (long long)r, (long long)n, (long long)local[r]);
            shc_layout_free(&l);
        }
        shc_mesh_free(&L.m);
    }
}
END_TEST

/* The same comparison swept over every placement combination of a few meshes. */
START_TEST(local_numel_sweep)
{
    static const char *const meshes[] = {"2x2", "2x3", "3x2", "2x2x2"};
    static const char *const opts[] = {"R", "S(0)", "S(1)", "_S(0, 2)", "_S(1, 3)", "P(sum)"};
    static const char *const shapes[] = {"7,5", "2,3", "0,4", "8,8"};
    int64_t compared = 0;
    for (int mi = 0; mi < 4; mi++) {
        int nd = mi == 3 ? 3 : 2, ncombo = nd == 3 ? 216 : 36;
        for (int c = 0; c < ncombo; c++)
            for (int si = 0; si < 4; si++) {
                char pl[96];
                int k = c;
                pl[0] = '\0';
                for (int i = 0; i < nd; i++, k /= 6)
                    snprintf(pl + strlen(pl), sizeof pl - strlen(pl), i ? ",%s" : "%s", opts[k % 6]);
                lay L;
                lay_load(&L, meshes[mi], pl, shapes[si]);
                int64_t end, local[8];
                offsets_of(&L, NULL, NULL, &end, local);
                for (int64_t r = 0; r < L.m.size; r++) {
                    int64_t coord[SHC_MAX_MESH_DIMS], n = 1;
                    shc_layout l;
                    shc_err e;
                    shc_mesh_coord(&L.m, r, coord, &e);
                    ck_assert_int_eq(shc_layout_compute(&L.m, &L.pl, &L.s, coord, &l, &e), 0);
                    for (int d = 0; d < l.local.ndim; d++)
                        n *= l.local.d[d];
                    ck_assert_msg(n == local[r], "%s %s %s rank %lld: layout %lld, tracker %lld",
                                  meshes[mi], pl, shapes[si], (long long)r, (long long)n,
                                  (long long)local[r]);
                    shc_layout_free(&l);
                    compared++;
                }
                shc_mesh_free(&L.m);
            }
    }
    ck_assert_int_eq(compared, (36 * 4 * 4 + 36 * 4 * 6 + 36 * 4 * 6 + 216 * 4 * 8));
}
END_TEST

static void stream(const char *pol, const char *mesh, const char *pl, const char *shape,
                   uint64_t seed, int64_t rank, shc_rng_stream *s)
{
    const shc_rng_policy *p;
    shc_gpu_profile gv, *g = &gv;
    shc_err e;
    lay L;
    lay_load(&L, mesh, pl, shape);
    ck_assert_int_eq(shc_rng_policy_lookup(pol, &p, &e), 0);
    ck_assert_int_eq(shc_gpu_profile_parse("a100", g, &e), 0);
    ck_assert_int_eq(shc_rng_policy_stream(p, g, &L.m, &L.pl, &L.s, seed, 0, rank, s, &e), 0);
    shc_mesh_free(&L.m);
}

/* seed 000 on the docstring layout: first shard from mesh_shape[1] = 2 and
 * mesh_shape[0] = 2 chunked by 2 -> [1, 1], numel 1; rank 1 (linear index 2)
 * starts at ceil4(2) = 4 (torch: 64); every rank ends at ceil4(8 devices) = 8
 * (torch: 128). */
START_TEST(vendor_diverges)
{
    shc_rng_stream s;
    stream("hyper-parallel", "2x2x2", "S(1),R,S(0)", "8,16", 7, 1, &s);
    ck_assert_int_eq(s.shard_linear_index, 2);
    ck_assert_int_eq(s.start, 4);
    ck_assert_int_eq(s.post, 8);
    stream("torch-offset", "2x2x2", "S(1),R,S(0)", "8,16", 7, 1, &s);
    ck_assert_int_eq(s.start, 64);
    ck_assert_int_eq(s.post, 128);
    /* shard dim 1 >= mesh ndim 1: the port's dim_map has 1 entry (IndexError) */
    const shc_rng_policy *p;
    shc_gpu_profile gv, *g = &gv;
    shc_err e;
    lay L;
    lay_load(&L, "4", "S(1)", "8,16");
    shc_rng_policy_lookup("hyper-parallel", &p, &e);
    shc_gpu_profile_parse("a100", g, &e);
    ck_assert_int_eq(shc_rng_policy_stream(p, g, &L.m, &L.pl, &L.s, 0, 0, 0, &s, &e),
                     SHC_EUNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(e.msg, "IndexError"));
    shc_mesh_free(&L.m);
}
END_TEST

/* Megatron on a 2x2 (dp, tp) mesh, rank 3 = coord (1, 1): tp seed 1000 +
 * 2718 + 1; dp seed 1000; ep seed 1000 + 1024 + 100 * 1 + 1. */
START_TEST(megatron_seeds)
{
    shc_rng_stream s;
    stream("megatron-tp", "2x2", "R,S(0)", "8,8", 1000, 3, &s);
    ck_assert_uint_eq(s.seed, 3719);
    ck_assert_int_eq(s.start, 0);
    /* a100: 32 local elements, one block, one round: the kernel advances 4 */
    ck_assert_int_eq(s.post, 4);
    stream("megatron-dp", "2x2", "R,S(0)", "8,8", 1000, 3, &s);
    ck_assert_uint_eq(s.seed, 1000);
    stream("megatron-ep", "2x2", "R,S(0)", "8,8", 1000, 3, &s);
    ck_assert_uint_eq(s.seed, 2125);
    /* 2x2x2 (dp, ep, etp): Megatron-core's expert RankGenerator (tp=etp, ep, dp, pp; fastest
     * first) puts ep on the dim before etp.  Rank 2 = (0,1,0): ep 1 -> 1000 + 1024 + 100;
     * rank 4 = (1,0,0): ep 0, dp 1 -> 2024 (ep on dim 0 would swap the two). */
    stream("megatron-ep", "2x2x2", "S(1),R,S(0)", "8,16", 1000, 2, &s);
    ck_assert_uint_eq(s.seed, 2124);
    stream("megatron-ep", "2x2x2", "S(1),R,S(0)", "8,16", 1000, 4, &s);
    ck_assert_uint_eq(s.seed, 2024);
}
END_TEST

/* Megatron-LM training (megatron/training/initialize.py _set_random_seed): base seed + 100 *
 * pp rank, mesh dim 0 pp.  2x2 (pp, tp) rank 3 = pp 1, tp 1: model-parallel seed 1000 + 100
 * + 2718 + 1.  2x4 (pp, dp) under --data-parallel-random-init, rank 6 = pp 1, dp 2: 1000 +
 * 100 + 20.  2x2x2 (pp, ep, etp) rank 4 = pp 1, ep 0, etp 0: 1000 + 100 + 1024, the expert
 * seed rank 2 (pp 0, ep 1) has too — Megatron checks seeds within a rank only. */
START_TEST(megatron_training_seeds)
{
    shc_rng_stream s;
    stream("megatron-train-tp", "2x2", "R,R", "8", 1000, 3, &s);
    ck_assert_uint_eq(s.seed, 3819);
    stream("megatron-train-dp", "2x2", "R,R", "8", 1000, 3, &s);
    ck_assert_uint_eq(s.seed, 1100);
    stream("megatron-train-dp-random", "2x4", "R,R", "8", 1000, 6, &s);
    ck_assert_uint_eq(s.seed, 1120);
    stream("megatron-train-ep", "2x2x2", "R,R,R", "8", 1000, 4, &s);
    ck_assert_uint_eq(s.seed, 2124);
    stream("megatron-train-ep", "2x2x2", "R,R,R", "8", 1000, 2, &s);
    ck_assert_uint_eq(s.seed, 2124);
    /* a 1-d mesh is all pp: rank 3's default seed 1000 + 300 */
    stream("megatron-train-dp", "4", "R", "8", 1000, 3, &s);
    ck_assert_uint_eq(s.seed, 1300);
}
END_TEST

/* Megatron-core 0.19.2's GTP weight-remat states (random.py model_parallel_cuda_manual_seed;
 * parallel_state.py _inject_gtp_remat_axis puts gtp_remat right after tp, or after ep for the
 * expert ranks).  megatron-gtp on 2x2x2 (dp, gtp, tp), rank 3 = (0,1,1): tp 1, gtp 1 ->
 * 1000 + 2718 + 1 + 65536 * 2 = 134791; rank 4 = (1,0,0): dp 1, tp 0, gtp 0 -> 1000 + 2718 +
 * 65536 = 69254.  megatron-egtp on 2x2x2 (egtp, ep, etp), rank 6 = (1,1,0): etp 0, ep 1,
 * egtp 1 -> 1000 + 1024 + 100 + 32768 + 65536 * 2 = 165964.  A GTP axis of size 1 adds no
 * state: Megatron's fork refuses to draw from it ("is not added"). */
START_TEST(megatron_gtp_seeds)
{
    shc_rng_stream s;
    stream("megatron-gtp", "2x2x2", "R,R,R", "8", 1000, 3, &s);
    ck_assert_uint_eq(s.seed, 134791);
    stream("megatron-gtp", "2x2x2", "R,R,R", "8", 1000, 4, &s);
    ck_assert_uint_eq(s.seed, 69254);
    stream("megatron-egtp", "2x2x2", "R,R,R", "8", 1000, 6, &s);
    ck_assert_uint_eq(s.seed, 165964);
    /* 1-d: all gtp (tp 1), rank 2: 1000 + 2718 + 65536 * 3 */
    stream("megatron-gtp", "4", "R", "8", 1000, 2, &s);
    ck_assert_uint_eq(s.seed, 200326);
    const shc_rng_policy *p;
    shc_gpu_profile g;
    shc_err e;
    lay L;
    shc_gpu_profile_parse("a100", &g, &e);
    lay_load(&L, "1x2", "R,R", "8");
    shc_rng_policy_lookup("megatron-gtp", &p, &e);
    ck_assert_int_eq(shc_rng_policy_stream(p, &g, &L.m, &L.pl, &L.s, 1000, 0, 0, &s, &e),
                     SHC_EUNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(e.msg, "cuda rng state gtp-remat-rng is not added"));
    shc_mesh_free(&L.m);
    /* the decoder grid counts gtp: tp 2 x gtp 3 does not divide 8 ranks */
    shc_megatron_cfg c = {.tp = 2, .etp = 2, .ep = 1, .pp = 1, .gtp = 3};
    shc_megatron_seeds ms;
    ck_assert_int_eq(shc_megatron_rank_seeds(&c, 8, 0, 1000, &ms, &e), SHC_EUNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(e.msg, "world_size (8) is not divisible by 6"));
    /* off (0 or 1): no GTP seed, the other three as before */
    c.gtp = 0;
    ck_assert_int_eq(shc_megatron_rank_seeds(&c, 8, 3, 1000, &ms, &e), 0);
    ck_assert_uint_eq(ms.gtp_remat, 0);
    ck_assert_uint_eq(ms.tensor_parallel, 1000 + 2718 + 1);
}
END_TEST

/* Megatron's refusals, by its own text: tp 8, etp 2, ep 18 over 72 ranks puts rank 70 at tp
 * rank 6, ep rank 17, etp rank 0: 2718 + 6 == 1024 + 1700 (CudaRNGStatesTracker.add: "seed
 * N already exists"); etp = tp never collides; a training seed of 0 (ValueError); a world
 * the sizes do not divide (RuntimeError). */
START_TEST(megatron_refusals)
{
    shc_megatron_cfg c = {.tp = 8, .etp = 2, .ep = 18, .pp = 1};
    shc_megatron_seeds ms;
    shc_err e;
    ck_assert_int_eq(shc_megatron_rank_seeds(&c, 72, 69, 1234, &ms, &e), 0);
    ck_assert_int_eq(shc_megatron_rank_seeds(&c, 72, 70, 1234, &ms, &e), SHC_EUNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(e.msg, "rank 70: seed 3958 already exists"));
    ck_assert_int_eq(shc_megatron_check_world(&c, 72, 1234, &e), SHC_EUNSUPPORTED);
    c.tp = 2; /* etp = tp: 1694 is no multiple of 100, no rank collides */
    ck_assert_int_eq(shc_megatron_check_world(&c, 72, 1234, &e), 0);
    c.training = true;
    ck_assert_int_eq(shc_megatron_rank_seeds(&c, 72, 0, 0, &ms, &e), SHC_EUNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(e.msg, "Seed (0) should be a positive integer."));
    c.tp = 5;
    ck_assert_int_eq(shc_megatron_check_world(&c, 72, 1, &e), SHC_EUNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(e.msg, "world_size (72) is not divisible by 5"));
    c.tp = 0;
    ck_assert_int_eq(shc_megatron_check_world(&c, 72, 1, &e), SHC_EINVAL);
    const shc_rng_policy *p;
    shc_mesh m = {0};
    shc_rng_policy_lookup("torch-offset", &p, &e);
    shc_mesh_parse(&m, "4", NULL, &e);
    ck_assert_int_eq(shc_rng_policy_megatron_cfg(p, &m, &c, &e), SHC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "torch-offset is not Megatron's"));
    shc_mesh_free(&m);
}
END_TEST

/* torch.func._random (PR 177230): element g draws Philox word key offset + g.  S(0),S(1) of
 * 8x8 over 2x2: rank 1 = (0, 1) holds rows 0-3, columns 4-7: g from 4 to 3 * 8 + 7 = 31, span
 * [4, 32), shifted by a key offset of 100; a rank of [3] over 4 holds nothing: an empty span.
 * An NPU (stream) profile is refused by name: no kernel of it exists there. */
START_TEST(torch_func_random_spans)
{
    shc_rng_stream s;
    stream("torch-func-random", "2x2", "S(0),S(1)", "8,8", 7, 1, &s);
    ck_assert_int_eq(s.start, 4);
    ck_assert_int_eq(s.post, 32);
    ck_assert_uint_eq(s.seed, 7);
    stream("torch-func-random", "4", "S(0)", "3", 7, 3, &s);
    ck_assert_int_eq(s.start, 0);
    ck_assert_int_eq(s.post, 0);
    const shc_rng_policy *p;
    shc_gpu_profile g;
    shc_err e;
    lay L;
    lay_load(&L, "2x2", "S(0),S(1)", "8,8");
    shc_rng_policy_lookup("torch-func-random", &p, &e);
    shc_gpu_profile_parse("a100", &g, &e);
    ck_assert_int_eq(shc_rng_policy_stream(p, &g, &L.m, &L.pl, &L.s, 7, 100, 1, &s, &e), 0);
    ck_assert_int_eq(s.start, 104);
    ck_assert_int_eq(s.post, 132);
    unsigned holds = 0;
    ck_assert_int_eq(shc_rng_policy_check(p, &g, &L.m, &L.pl, &L.s, 7, &holds, &e), 0);
    ck_assert_uint_eq(holds & 7u, 7u); /* replicas-equal, shards-distinct, invariant */
    shc_gpu_profile_parse("ascend-910b", &g, &e);
    ck_assert_int_eq(shc_rng_policy_stream(p, &g, &L.m, &L.pl, &L.s, 7, 0, 1, &s, &e),
                     SHC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "torch-func-random: device profile ascend-910b"));
    shc_mesh_free(&L.m);
}
END_TEST

/* Colliding draws of a policy on a layout under a device profile. */
static int64_t collisions(const char *pol, const char *gpu, const char *mesh, const char *pl,
                          const char *shape, unsigned *holds)
{
    const shc_rng_policy *p;
    shc_gpu_profile g;
    shc_err e;
    lay L;
    int64_t n = -1;
    lay_load(&L, mesh, pl, shape);
    ck_assert_int_eq(shc_rng_policy_lookup(pol, &p, &e), 0);
    ck_assert_int_eq(shc_gpu_profile_parse(gpu, &g, &e), 0);
    ck_assert_int_eq(shc_rng_policy_collisions(p, &g, &L.m, &L.pl, &L.s, 0, holds, &n, &e), 0);
    shc_mesh_free(&L.m);
    return n;
}

/* Issue 33's example: seed 000's port, [2048, 1024] over 2 devices.  Each rank launches
 * n = 1048576 elements; op 1 starts at 0 (rank 1: 1024 = ceil4(1 * 1024), the port's first
 * shard [1, 1024]), op 2 four words later (ceil4(2 devices)).  On CUDA's window, element i
 * of T threads draws (thread i mod T, word start + 4(i / 4T) + (i mod 4T) / T), so op 1's
 * element i >= 4T has op 2's element i - 4T's identity: n - 4T collisions per rank (op 2's
 * words stay below 1024, so ranks never meet).  a100: T = 108 * 8 * 256 = 221184, 2 * 163840
 * = 327680.  48x256: T = 12288, 2 * (1048576 - 49152) = 1998848.  Under the NPU's streams the
 * four start offsets 0, 4, 1024, 1028 are four independent streams: none. */
START_TEST(npu_streams)
{
    unsigned h;
    ck_assert_int_eq(collisions("hyper-parallel", "a100", "2", "S(0)", "2048,1024", &h), 327680);
    ck_assert(!(h & (1u << SHC_RNGP_SHARDS_DISTINCT)));
    ck_assert_int_eq(collisions("hyper-parallel", "48x256", "2", "S(0)", "2048,1024", &h),
                     1998848);
    ck_assert_int_eq(collisions("hyper-parallel", "ascend-910b", "2", "S(0)", "2048,1024", &h),
                     0);
    ck_assert(h & (1u << SHC_RNGP_SHARDS_DISTINCT));
    ck_assert_int_eq(collisions("hyper-parallel", "48x256:stream", "2", "S(0)", "2048,1024",
                                &h), 0);
    /* An equal start is an equal draw on both devices.  torch's [3] over 4 ranks, one element
     * on ranks 0-2, end_incr 4: op 1 starts at 0, 4, 4 and op 2 at 4, 8, 8, so offset 4 is
     * drawn three times (2 collisions) and offset 8 twice (1 more), element 0 each time. */
    ck_assert_int_eq(collisions("torch-offset", "a100", "4", "S(0)", "3", &h), 3);
    ck_assert_int_eq(collisions("torch-offset", "ascend-910b", "4", "S(0)", "3", &h), 3);
}
END_TEST

/* The device profile's parameters: the NPU row, ":SEMANTICS/ALIGN", and bad ones by name. */
START_TEST(profile_semantics)
{
    shc_gpu_profile g;
    shc_err e;
    ck_assert_int_eq(shc_gpu_profile_parse("ascend-910b", &g, &e), 0);
    ck_assert_int_eq(g.offset_semantics, SHC_OFFSETS_STREAM);
    ck_assert_int_eq(shc_gpu_profile_align(&g), 4);
    ck_assert(!shc_gpu_profile_is_cuda_window(&g));
    ck_assert_int_eq(shc_gpu_profile_parse("a100", &g, &e), 0);
    ck_assert(shc_gpu_profile_is_cuda_window(&g));
    ck_assert_int_eq(shc_gpu_profile_parse("66x2048@sm_90:window/8", &g, &e), 0);
    ck_assert_int_eq(g.sm_count, 66);
    ck_assert_int_eq(shc_gpu_profile_align(&g), 8);
    ck_assert_int_eq(shc_gpu_profile_parse("a100:streams", &g, &e), SHC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "offset semantics 'streams' is not known"));
    ck_assert_int_eq(shc_gpu_profile_parse("a100:stream/6", &g, &e), SHC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "offset alignment '6'"));
    ck_assert_int_eq(shc_gpu_profile_parse("a100:stream/", &g, &e), SHC_EINVAL);
    ck_assert_int_eq(shc_gpu_profile_parse("a100:stream/128", &g, &e), SHC_EINVAL);
    /* alignment 8: torch's [3] over 4 ranks starts at ceil8(k) = 0, 8, 8, 8, ends at 8 */
    shc_rng_stream s;
    const shc_rng_policy *p;
    lay L;
    lay_load(&L, "4", "S(0)", "3");
    ck_assert_int_eq(shc_rng_policy_lookup("torch-offset", &p, &e), 0);
    ck_assert_int_eq(shc_gpu_profile_parse("a100:window/8", &g, &e), 0);
    ck_assert_int_eq(shc_rng_policy_stream(p, &g, &L.m, &L.pl, &L.s, 0, 0, 1, &s, &e), 0);
    ck_assert_int_eq(s.start_incr, 8);
    ck_assert_int_eq(s.end_incr, 8);
    shc_mesh_free(&L.m);
}
END_TEST

/* Which verdicts may change with the GPU: torch-offset's windows are element counts (at least
 * the words any launch takes) and jax's draws are global indices; every other policy's draws
 * follow the launch (hyper-parallel's op 2 starts 4 words on, whatever the launch takes). */
START_TEST(verdict_gpu_dependence)
{
    /* torch-func-random: Philox word = key offset + global index, on any launch */
    static const char *const fixed[] = {"torch-offset", "jax-partitionable", "torch-func-random"};
    for (int i = 0; i < shc_rng_policy_count(); i++) {
        const shc_rng_policy *p = shc_rng_policy_at(i);
        bool want = true;
        for (size_t k = 0; k < sizeof fixed / sizeof *fixed; k++)
            want &= strcmp(shc_rng_policy_name(p), fixed[k]) != 0;
        ck_assert_msg(shc_rng_policy_verdict_uses_gpu(p) == want, "%s",
                      shc_rng_policy_name(p));
    }
}
END_TEST

/* torch's launch: a100 has 108 SMs * 8 blocks of 256 = 221184 threads;
 * n = 1: one block, one round -> 4; n = 2^20: 884736 per round -> 2 rounds -> 8. */
START_TEST(kernel_increment)
{
    shc_gpu_profile g;
    shc_err e;
    ck_assert_int_eq(shc_gpu_profile_parse("a100", &g, &e), 0);
    ck_assert_int_eq(shc_rng_kernel_offset_incr(&g, 1), 4);
    ck_assert_int_eq(shc_rng_kernel_offset_incr(&g, 1 << 20), 8);
    ck_assert_int_eq(shc_rng_kernel_offset_incr(&g, 0), 0);
    /* the random-engines area's own increment for uniform_ float32 agrees */
    shc_torch_rng_req r;
    int64_t after;
    shc_torch_rng_req_init(&r, SHC_TORCH_UNIFORM, SHC_DT_FLOAT32, 1 << 20);
    ck_assert_int_eq(shc_torch_rng_offset_after(&g, 16, &r, &after, &e), 0);
    ck_assert_int_eq(after, 16 + 8);
}
END_TEST

static unsigned check(const char *pol, const char *mesh, const char *pl, const char *shape)
{
    const shc_rng_policy *p;
    shc_gpu_profile gv, *g = &gv;
    shc_err e;
    lay L;
    unsigned holds = 0;
    lay_load(&L, mesh, pl, shape);
    ck_assert_int_eq(shc_rng_policy_lookup(pol, &p, &e), 0);
    ck_assert_int_eq(shc_gpu_profile_parse("a100", g, &e), 0);
    ck_assert_int_eq(shc_rng_policy_check(p, g, &L.m, &L.pl, &L.s, 5, &holds, &e), 0);
    shc_mesh_free(&L.m);
    return holds;
}

#define HOLDS(m, k) (((m) >> (k)) & 1u)

/* Hand-derived verdicts:
 * - torch-offset, 4 ranks S(0) of 16x16: one GPU draws element 64 with thread
 *   64 word 0; rank 1 draws it (its element 0) with thread 0 at word 64: not
 *   invariant; replicas trivially equal; windows 64 apart, kernels use 4 words
 *   per thread: distinct.
 * - torch-offset, tiny 4/S(0)/3: ranks 1 and 2 draw thread 0 word 4: not distinct.
 * - megatron-dp, 2 ranks S(0): both ranks seed 5, offset 0: shard 0 and 1 draw
 *   the same numbers: not distinct.
 * - megatron-tp, 1-D mesh R: each rank seeds 2718 + rank: replicas differ.
 * - jax and single-device-equal: every property by construction. */
START_TEST(policy_verdicts)
{
    unsigned h = check("torch-offset", "4", "S(0)", "16,16");
    ck_assert_uint_eq(HOLDS(h, SHC_RNGP_REPLICAS_EQUAL), 1);
    ck_assert_uint_eq(HOLDS(h, SHC_RNGP_SHARDS_DISTINCT), 1);
    ck_assert_uint_eq(HOLDS(h, SHC_RNGP_SHARDING_INVARIANT), 0);
    ck_assert_uint_eq(HOLDS(h, SHC_RNGP_TORCH_EQUAL), 1);
    h = check("torch-offset", "4", "S(0)", "3");
    ck_assert_uint_eq(HOLDS(h, SHC_RNGP_SHARDS_DISTINCT), 0);
    h = check("megatron-dp", "2", "S(0)", "8");
    ck_assert_uint_eq(HOLDS(h, SHC_RNGP_SHARDS_DISTINCT), 0);
    ck_assert_uint_eq(HOLDS(h, SHC_RNGP_REPLICAS_EQUAL), 1);
    h = check("megatron-tp", "4", "R", "8");
    ck_assert_uint_eq(HOLDS(h, SHC_RNGP_REPLICAS_EQUAL), 0);
    static const char *const ls[][3] = {{"2x2", "S(0),S(0)", "8"}, {"2x2", "_S(0, 2),S(0)", "7,8"},
                                        {"2x2x2", "S(1),R,S(0)", "8,16"}, {"4", "S(0)", "3"}};
    for (size_t i = 0; i < sizeof ls / sizeof ls[0]; i++)
        for (int k = 0; k < 2; k++) {
            h = check(k ? "jax-partitionable" : "single-device-equal", ls[i][0], ls[i][1], ls[i][2]);
            ck_assert_uint_eq(h & 7u, 7u);
        }
    /* The vendor profile must be shown diverging from torch on the table. */
    const shc_rng_policy *p;
    shc_gpu_profile gv, *g = &gv;
    shc_rng_verdict v;
    shc_err e;
    shc_rng_policy_lookup("hyper-parallel", &p, &e);
    shc_gpu_profile_parse("a100", g, &e);
    ck_assert_int_eq(shc_rng_policy_verdict(p, g, 0, &v, &e), 0);
    ck_assert_int_lt(v.holds[SHC_RNGP_TORCH_EQUAL], v.layouts);
    ck_assert_int_gt(v.rejected, 0);
}
END_TEST

/* rng_lifecycle.c: each branch as torch 2.13's source reads (cited there); the bytes as
 * _PhiloxState lays them out (tools/harness/tests/test_rng_lifecycle.py runs torch's). */
/* The registered trackers (rng_tracker.c): each names a policy and a device profile that
 * exist, the NPU ones on an offset-per-stream profile, names are unique, and a name is found
 * in full or by a class one framework alone has. */
START_TEST(rng_trackers)
{
    shc_err e = {0};
    int n = shc_rng_tracker_count();
    ck_assert_int_ge(n, 7);
    ck_assert(shc_rng_tracker_at(n) == NULL && shc_rng_tracker_at(-1) == NULL);
    for (int i = 0; i < n; i++) {
        const shc_rng_tracker *t = shc_rng_tracker_at(i), *u;
        const shc_rng_policy *p;
        shc_gpu_profile g;
        ck_assert_msg(shc_rng_policy_lookup(t->policy, &p, &e) == SHC_OK, "%s", t->name);
        ck_assert_msg(shc_gpu_profile_parse(t->gpu, &g, &e) == SHC_OK, "%s", t->name);
        bool npu = !strcmp(t->devices, "npu");
        ck_assert_msg(g.offset_semantics == (npu ? SHC_OFFSETS_STREAM : SHC_OFFSETS_WINDOW),
                      "%s", t->name);
        ck_assert_int_eq(shc_rng_tracker_lookup(t->name, &u, &e), SHC_OK);
        ck_assert_ptr_eq(u, t);
        for (int j = 0; j < i; j++)
            ck_assert_str_ne(shc_rng_tracker_at(j)->name, t->name);
    }
    const shc_rng_tracker *t;
    ck_assert_int_eq(shc_rng_tracker_lookup("NpuRNGStateTracker", &t, &e), SHC_OK);
    ck_assert_str_eq(t->policy, "torch-offset");
    ck_assert_str_eq(t->gpu, "ascend-910b");
    ck_assert_int_eq(shc_rng_tracker_lookup("CudaRNGStatesTracker[expert-parallel-rng]", &t, &e),
                     SHC_OK);
    ck_assert_str_eq(t->policy, "megatron-ep");
    ck_assert_int_eq(shc_rng_tracker_lookup("OffsetBasedRNGTracker", &t, &e), SHC_EINVAL);
    ck_assert(strstr(e.msg, "is the class of 2 frameworks: name it in full "
                     "(torch.distributed.tensor._random.OffsetBasedRNGTracker, "
                     "hyper_parallel.core.random.OffsetBasedRNGTracker)"));
    ck_assert_int_eq(shc_rng_tracker_lookup("CudaRNGStatesTracker", &t, &e), SHC_EINVAL);
    ck_assert(strstr(e.msg, "unknown tracker 'CudaRNGStatesTracker' (known: torch."));
    ck_assert_int_eq(shc_rng_tracker_lookup(NULL, &t, &e), SHC_EINVAL);
}
END_TEST

START_TEST(rng_lifecycle)
{
    shc_mesh m;
    shc_err e = {0};
    shc_lc_event ev[SHC_LC_EVENTS];
    ck_assert_int_eq(shc_mesh_parse_world(&m, "2", "1,3", 4, &e), SHC_OK);
    ck_assert_int_eq(shc_rng_lifecycle(&m, 1, true, 7, ev, &e), SHC_OK);
    ck_assert(ev[SHC_LC_MANUAL_SEED].outcome == SHC_LC_RUNS && ev[SHC_LC_MANUAL_SEED].state_set);
    ck_assert(ev[SHC_LC_MANUAL_SEED].seed == 7 && ev[SHC_LC_MANUAL_SEED].offset == 0);
    ck_assert_int_eq(ev[SHC_LC_MANUAL_SEED].collectives, 0);
    ck_assert(ev[SHC_LC_FIRST_OP].outcome == SHC_LC_WAITS && ev[SHC_LC_FIRST_OP].state_from == 0);
    ck_assert(ev[SHC_LC_FACTORY].outcome == SHC_LC_RUNS && ev[SHC_LC_FACTORY].collectives == 1);
    ck_assert_int_eq(shc_rng_lifecycle(&m, 0, true, 7, ev, &e), SHC_OK);
    ck_assert(ev[SHC_LC_MANUAL_SEED].outcome == SHC_LC_RAISES);
    ck_assert(strstr(ev[SHC_LC_MANUAL_SEED].what, "manual_seed requires the current rank"));
    ck_assert(ev[SHC_LC_FIRST_OP].outcome == SHC_LC_NOOP);
    ck_assert(ev[SHC_LC_FACTORY].outcome == SHC_LC_RUNS);
    ck_assert_int_eq(shc_rng_lifecycle(&m, 0, false, 7, ev, &e), SHC_OK);
    ck_assert(ev[SHC_LC_MANUAL_SEED].outcome == SHC_LC_NOOP);
    ck_assert(ev[SHC_LC_FACTORY].outcome == SHC_LC_RAISES);
    ck_assert_int_eq(shc_rng_lifecycle(&m, 4, true, 7, ev, &e), SHC_EINVAL);
    shc_mesh_free(&m);
    ck_assert_int_eq(shc_mesh_parse(&m, "2x2", NULL, &e), SHC_OK); /* the whole world */
    ck_assert_int_eq(shc_rng_lifecycle(&m, 2, true, 7, ev, &e), SHC_OK);
    ck_assert(ev[SHC_LC_FIRST_OP].outcome == SHC_LC_RUNS && ev[SHC_LC_FIRST_OP].collectives == 1);
    shc_mesh_free(&m);
    uint8_t b[16];
    uint64_t seed, off;
    shc_philox_state_pack(0x8000000000000005ull, 12345, b);
    static const uint8_t want[16] = {5, 0, 0, 0, 0, 0, 0, 128, 57, 48, 0, 0, 0, 0, 0, 0};
    ck_assert_mem_eq(b, want, 16);
    shc_philox_state_unpack(b, &seed, &off);
    ck_assert(seed == 0x8000000000000005ull && off == 12345);
    ck_assert_str_eq(shc_lc_outcome_name(SHC_LC_WAITS), "waits");
}
END_TEST

START_TEST(unknown_policy)
{
    const shc_rng_policy *p;
    shc_err e;
    ck_assert_int_eq(shc_rng_policy_lookup("tf-stateless", &p, &e), SHC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "unknown policy 'tf-stateless'"));
    ck_assert_ptr_nonnull(strstr(e.msg, "torch-offset"));
    /* the property check draws every element: a tensor past 2^22 elements is refused */
    shc_gpu_profile g;
    lay L;
    unsigned holds = 0;
    ck_assert_int_eq(shc_gpu_profile_parse("a100", &g, &e), 0);
    ck_assert_int_eq(shc_rng_policy_lookup("torch-offset", &p, &e), 0);
    lay_load(&L, "2", "S(0)", "4194305");
    ck_assert_int_eq(shc_rng_policy_check(p, &g, &L.m, &L.pl, &L.s, 5, &holds, &e), SHC_EUNSUPPORTED);
    ck_assert_str_eq(e.msg, "policy check: 4194305 elements, at most 4194304");
    shc_mesh_free(&L.m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("offsets");
    TCase *tc = tcase_create("tracker");
    tcase_add_test(tc, docstring_example);
    tcase_add_test(tc, tiny_tensor_audit);
    tcase_add_test(tc, nested_overrun);
    tcase_add_test(tc, chunk_sizes);
    tcase_add_test(tc, state_bytes);
    tcase_add_test(tc, region_and_overflow);
    tcase_add_test(tc, seed_and_region_state);
    tcase_add_test(tc, bad_layouts);
    tcase_add_test(tc, local_numel_vs_layout);
    tcase_add_test(tc, local_numel_sweep);
    suite_add_tcase(s, tc);
    TCase *tp = tcase_create("policies");
    tcase_set_timeout(tp, 120);
    tcase_add_test(tp, vendor_diverges);
    tcase_add_test(tp, megatron_seeds);
    tcase_add_test(tp, megatron_training_seeds);
    tcase_add_test(tp, megatron_refusals);
    tcase_add_test(tp, megatron_gtp_seeds);
    tcase_add_test(tp, torch_func_random_spans);
    tcase_add_test(tp, verdict_gpu_dependence);
    tcase_add_test(tp, npu_streams);
    tcase_add_test(tp, profile_semantics);
    tcase_add_test(tp, kernel_increment);
    tcase_add_test(tp, policy_verdicts);
    tcase_add_test(tp, unknown_policy);
    tcase_add_test(tp, rng_lifecycle);
    tcase_add_test(tp, rng_trackers);
    suite_add_tcase(s, tp);
    return shc_run_suite(s);
}
