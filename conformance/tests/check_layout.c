/*
 * check_layout.c — unit tests of lib/layout/shard_layout.c and lib/layout/groups.c.
 *
 * Every expectation here is written by hand from torch 2.13's documented
 * examples (the docstrings of _utils.compute_local_shape_and_global_offset,
 * _StridedShard, DeviceMesh._flatten, _MeshLayout.remap_to_tensor), from
 * torch.chunk arithmetic worked out in the comments, or from seed 002's code —
 * never from our own output.  The harness checks the full golden corpus
 * against torch itself.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "shardcheck.h"

/* ---- helpers ---- */

static void mesh(shc_mesh *m, const char *shape, const char *ranks)
{
    shc_err e = {0};
    int rc = shc_mesh_parse(m, shape, ranks, &e);
    ck_assert_msg(rc == SHC_OK, "mesh %s: %s", shape, e.msg);
}

/* Layout of a rank; asserts success. */
static void layout(const char *ms, const char *ranks, const char *pls, const char *shape,
                   int64_t rank, shc_layout *l)
{
    shc_mesh m;
    shc_placements pl;
    shc_shape s;
    shc_err e = {0};
    mesh(&m, ms, ranks);
    ck_assert_int_eq(shc_placements_parse(&pl, pls, &e), SHC_OK);
    ck_assert_int_eq(shc_shape_parse(&s, shape, &e), SHC_OK);
    int rc = shc_layout_of_rank(&m, &pl, &s, rank, l, &e);
    ck_assert_msg(rc == SHC_OK, "%s %s %s rank %lld: %s", ms, pls, shape, (long long)rank, e.msg);
    shc_mesh_free(&m);
}

/* Expect an error whose message contains want. */
static void layout_err(const char *ms, const char *pls, const char *shape, int64_t rank,
                       int code, const char *want)
{
    shc_mesh m;
    shc_placements pl;
    shc_shape s;
    shc_err e = {0};
    mesh(&m, ms, NULL);
    ck_assert_int_eq(shc_placements_parse(&pl, pls, &e), SHC_OK);
    ck_assert_int_eq(shc_shape_parse(&s, shape, &e), SHC_OK);
    shc_layout l;
    int rc = shc_layout_of_rank(&m, &pl, &s, rank, &l, &e);
    ck_assert_int_eq(rc, code);
    ck_assert_msg(strstr(e.msg, want), "message '%s' lacks '%s'", e.msg, want);
    shc_mesh_free(&m);
}

#define CK_LAYOUT2(l, s0, s1, o0, o1)                                                           \
    do {                                                                                        \
        ck_assert_int_eq((l).local.d[0], s0);                                                   \
        ck_assert_int_eq((l).local.d[1], s1);                                                   \
        ck_assert_int_eq((l).offset[0], o0);                                                    \
        ck_assert_int_eq((l).offset[1], o1);                                                    \
    } while (0)

static void ck_list(const int64_t *got, int64_t n, const int64_t *want, int64_t wn)
{
    ck_assert_int_eq(n, wn);
    for (int64_t i = 0; i < n; i++)
        ck_assert_int_eq(got[i], want[i]);
}

/* ---- Shard.local_shard_size_and_offset: the torch.chunk rule ---- */

static void ck_chunks(int64_t size, int64_t n, const int64_t *sizes, const int64_t *offs)
{
    int64_t total = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t ls, off;
        ck_assert_int_eq(shc_shard_size_offset(size, n, i, &ls, &off, NULL), SHC_OK);
        ck_assert_msg(ls == sizes[i] && off == offs[i], "size %lld / %lld chunk %lld: got (%lld,"
                      "%lld), want (%lld,%lld)", (long long)size, (long long)n, (long long)i,
                      (long long)ls, (long long)off, (long long)sizes[i], (long long)offs[i]);
        total += ls;
    }
    ck_assert_int_eq(total, size);
}

START_TEST(chunk_rule)
{
    /* 13 into 8: ceil(13/8) = 2, chunks start at 0,2,..,12; the 7th holds only
     * row 12, the 8th is empty and sits at offset 13 (min(16, 13)). */
    ck_chunks(13, 8, (int64_t[]){2, 2, 2, 2, 2, 2, 1, 0},
              (int64_t[]){0, 2, 4, 6, 8, 10, 12, 13});
    /* 10 into 4: ceil = 3 -> 3,3,3,1. */
    ck_chunks(10, 4, (int64_t[]){3, 3, 3, 1}, (int64_t[]){0, 3, 6, 9});
    /* 6 into 4: ceil = 2 -> torch.chunk returns 3 chunks; the 4th is empty at 6. */
    ck_chunks(6, 4, (int64_t[]){2, 2, 2, 0}, (int64_t[]){0, 2, 4, 6});
    /* 5 into 4: 2,2,1,0. */
    ck_chunks(5, 4, (int64_t[]){2, 2, 1, 0}, (int64_t[]){0, 2, 4, 5});
    /* 1 into 4: one row, three empty shards clamped to offset 1. */
    ck_chunks(1, 4, (int64_t[]){1, 0, 0, 0}, (int64_t[]){0, 1, 1, 1});
    ck_chunks(0, 3, (int64_t[]){0, 0, 0}, (int64_t[]){0, 0, 0});
    ck_chunks(8, 2, (int64_t[]){4, 4}, (int64_t[]){0, 4});
    ck_chunks(7, 1, (int64_t[]){7}, (int64_t[]){0});
}
END_TEST

START_TEST(chunk_rule_extremes)
{
    /* INT64_MAX into 2: ceil = 2^62, second chunk 2^62 - 1; no overflow. */
    int64_t ls, off;
    ck_assert_int_eq(shc_shard_size_offset(INT64_MAX, 2, 1, &ls, &off, NULL), SHC_OK);
    ck_assert_int_eq(off, (int64_t)1 << 62);
    ck_assert_int_eq(ls, ((int64_t)1 << 62) - 1);
    /* INT64_MAX into INT64_MAX chunks: every chunk one row. */
    ck_assert_int_eq(shc_shard_size_offset(INT64_MAX, INT64_MAX, INT64_MAX - 1, &ls, &off, NULL),
                     SHC_OK);
    ck_assert_int_eq(ls, 1);
    ck_assert_int_eq(off, INT64_MAX - 1);
    /* 3 into INT64_MAX chunks: chunk 1; chunk k >= 3 is empty at 3. */
    ck_assert_int_eq(shc_shard_size_offset(3, INT64_MAX, INT64_MAX - 1, &ls, &off, NULL), SHC_OK);
    ck_assert_int_eq(ls, 0);
    ck_assert_int_eq(off, 3);
}
END_TEST

START_TEST(chunk_rule_errors)
{
    shc_err e = {0};
    int64_t ls, off;
    ck_assert_int_eq(shc_shard_size_offset(-1, 2, 0, &ls, &off, &e), SHC_EINVAL);
    ck_assert_str_eq(e.msg, "shard: dim size -1 is negative");
    ck_assert_int_eq(shc_shard_size_offset(4, 0, 0, &ls, &off, &e), SHC_EINVAL);
    ck_assert_str_eq(e.msg, "shard: 0 chunks, expected >= 1");
    ck_assert_int_eq(shc_shard_size_offset(4, 2, 2, &ls, &off, &e), SHC_EINVAL);
    ck_assert_str_eq(e.msg, "shard: index 2 outside 0..1");
}
END_TEST

/* ---- compute_local_shape_and_global_offset ---- */

START_TEST(torch_docstring_example)
{
    /* _utils.py docstring: [2,5] on mesh (DP=2, TP=2) with (Shard(1), Shard(1)):
     * rank 0 (2,2) (0,0); rank 1 (2,1) (0,2); rank 2 (2,1) (0,3); rank 3 (2,1) (0,4). */
    shc_layout l;
    layout("2x2", NULL, "S(1),S(1)", "2,5", 0, &l);
    CK_LAYOUT2(l, 2, 2, 0, 0);
    layout("2x2", NULL, "S(1),S(1)", "2,5", 1, &l);
    CK_LAYOUT2(l, 2, 1, 0, 2);
    layout("2x2", NULL, "S(1),S(1)", "2,5", 2, &l);
    CK_LAYOUT2(l, 2, 1, 0, 3);
    layout("2x2", NULL, "S(1),S(1)", "2,5", 3, &l);
    CK_LAYOUT2(l, 2, 1, 0, 4);
}
END_TEST

START_TEST(issue_example_4x2)
{
    /* 13 rows over mesh dim 0 (4): ceil 4 -> 4,4,4,1 at 0,4,8,12; each piece
     * over mesh dim 1 (2): 4 -> 2,2; the last piece [12] -> [12], empty at 13. */
    static const int64_t rows[8] = {2, 2, 2, 2, 2, 2, 1, 0};
    static const int64_t offs[8] = {0, 2, 4, 6, 8, 10, 12, 13};
    for (int r = 0; r < 8; r++) {
        shc_layout l;
        layout("4x2", NULL, "S(0),S(0)", "13,2", r, &l);
        CK_LAYOUT2(l, rows[r], 2, offs[r], 0);
        ck_assert_ptr_null(l.index[0]);
    }
}
END_TEST

START_TEST(strided_docstring_examples)
{
    /* _StridedShard docstring: [8,8], mesh [[0,1],[2,3]],
     * [_StridedShard(0, split_factor=2), Shard(0)]: rank 0 rows 0-1, rank 1
     * rows 4-5, rank 2 rows 2-3, rank 3 rows 6-7. */
    static const int64_t first[4] = {0, 4, 2, 6};
    for (int r = 0; r < 4; r++) {
        shc_layout l;
        layout("2x2", NULL, "_S(0, 2),S(0)", "8,8", r, &l);
        CK_LAYOUT2(l, 2, 8, first[r], 0);
        ck_list(l.index[0], l.index_len[0], (int64_t[]){first[r], first[r] + 1}, 2);
        ck_assert_ptr_null(l.index[1]);
        shc_layout_free(&l);
    }
    /* _utils.py comment: [0..7], S(0), SS(0, split_factor=2), mesh (2,2):
     * [0,0] -> [0,2]; [0,1] -> [1,3]; [1,0] -> [4,6]; [1,1] -> [5,7]. */
    static const int64_t want[4][2] = {{0, 2}, {1, 3}, {4, 6}, {5, 7}};
    for (int r = 0; r < 4; r++) {
        shc_layout l;
        layout("2x2", NULL, "S(0),_S(0, 2)", "8", r, &l);
        ck_assert_int_eq(l.local.d[0], 2);
        ck_assert_int_eq(l.offset[0], want[r][0]);
        ck_list(l.index[0], l.index_len[0], want[r], 2);
        shc_layout_free(&l);
    }
}
END_TEST

START_TEST(strided_uneven)
{
    /* 7 rows, _S(0, 3) over 2: first split chunk(7, 3) = [0,1,2] [3,4,5] [6];
     * each into 2: [0,1][2] / [3,4][5] / [6][] -> shard 0 = 0,1,3,4,6, shard 1 = 2,5. */
    shc_layout l;
    layout("2", NULL, "_S(0, 3)", "7", 0, &l);
    ck_list(l.index[0], l.index_len[0], (int64_t[]){0, 1, 3, 4, 6}, 5);
    ck_assert_int_eq(l.offset[0], 0);
    shc_layout_free(&l);
    layout("2", NULL, "_S(0, 3)", "7", 1, &l);
    ck_list(l.index[0], l.index_len[0], (int64_t[]){2, 5}, 2);
    ck_assert_int_eq(l.offset[0], 2);
    shc_layout_free(&l);
    /* 2 rows, _S(0, 3) over 2: pieces [0] [1] []; shard 1 gets nothing, so its
     * offset is the global size 2 (zero_global_offset) and its list is empty. */
    layout("2", NULL, "_S(0, 3)", "2", 1, &l);
    ck_assert_int_eq(l.local.d[0], 0);
    ck_assert_int_eq(l.offset[0], 2);
    ck_assert_ptr_nonnull(l.index[0]);
    ck_assert_int_eq(l.index_len[0], 0);
    shc_layout_free(&l);
}
END_TEST

START_TEST(empty_shard_offset_is_global_size)
{
    /* S(0),S(0) on 2x4 over 3 rows: mesh dim 0 -> [0,1] [2]; rank 7 = (1,3):
     * [2] into 4 -> chunk 3 of 4 is empty: offset = global 3, not the local 1. */
    shc_layout l;
    layout("2x4", NULL, "S(0),S(0)", "3", 7, &l);
    ck_assert_int_eq(l.local.d[0], 0);
    ck_assert_int_eq(l.offset[0], 3);
    /* Nested strided after an empty shard stays empty at the global size. */
    layout("4x2", NULL, "S(0),_S(0, 2)", "2", 7, &l);
    ck_assert_int_eq(l.local.d[0], 0);
    ck_assert_int_eq(l.offset[0], 2);
    shc_layout_free(&l);
    /* Zero-size dim: every shard empty at offset 0 (= the global size). */
    layout("4", NULL, "S(0)", "0,5", 3, &l);
    CK_LAYOUT2(l, 0, 5, 0, 0);
}
END_TEST

START_TEST(replicate_partial_rank_map)
{
    shc_layout l;
    layout("2x2", NULL, "R,P(max)", "5,3", 3, &l);
    CK_LAYOUT2(l, 5, 3, 0, 0);
    /* Rank map 3,1,2,0: rank 0 sits at position 3, so it holds the 4th chunk. */
    layout("4", "3,1,2,0", "S(0)", "8", 0, &l);
    ck_assert_int_eq(l.local.d[0], 2);
    ck_assert_int_eq(l.offset[0], 6);
    layout("4", "3,1,2,0", "S(0)", "8", 3, &l);
    ck_assert_int_eq(l.offset[0], 0);
}
END_TEST

START_TEST(shard_order)
{
    /* S(0)[1]S(0)[0] on 2x2 over 7 rows: mesh dim 1 first: [0..3] [4..6];
     * then mesh dim 0: (0,0) [0,1]; (0,1) [4,5]; (1,0) [2,3]; (1,1) [6]. */
    static const int64_t sz[4] = {2, 2, 2, 1}, off[4] = {0, 4, 2, 6};
    for (int r = 0; r < 4; r++) {
        shc_layout l;
        layout("2x2", NULL, "S(0)[1]S(0)[0]", "7", r, &l);
        ck_assert_int_eq(l.local.d[0], sz[r]);
        ck_assert_int_eq(l.offset[0], off[r]);
    }
    /* Default order written explicitly equals left to right. */
    shc_layout a, b;
    layout("2x2", NULL, "S(0)[0]S(0)[1]", "7", 3, &a);
    layout("2x2", NULL, "S(0),S(0)", "7", 3, &b);
    ck_assert_int_eq(a.local.d[0], b.local.d[0]);
    ck_assert_int_eq(a.offset[0], b.offset[0]);
}
END_TEST

START_TEST(layout_errors)
{
    layout_err("2x2", "S(2),R", "4,4", 0, SHC_EINVAL,
               "placement 0 'S(2)': shard dim 2 out of range for a 2-d tensor");
    layout_err("2x2", "S(0)", "4", 0, SHC_EINVAL, "placements: 1 given for a 2-d mesh");
    layout_err("2", "S(0)", "", 0, SHC_EINVAL, "shard dim 0 out of range for a 0-d tensor");
    layout_err("2x2", "_S(0, 2)[0]S(0)[1]", "8", 0, SHC_EINVAL,
               "a shard order cannot be combined with _StridedShard");
    layout_err("2x2", "S(0),R", "8", 4, SHC_EINVAL, "rank 4 is not in the mesh");
    /* a stated limit (README "Limits"): bad input, exit 2 in the CLI */
    layout_err("2", "_S(0, 2)", "33554433", 0, SHC_EINVAL, "too large for an index list");
    layout_err("2", "_S(0, 2)", "1048577", 0, SHC_EINVAL, "(at most 1048576)");
    /* Overflowing element counts are rejected before any layout work. */
    shc_mesh m;
    shc_placements pl;
    shc_shape s = {2, {INT64_MAX, 2}};
    shc_err e = {0};
    shc_layout l;
    mesh(&m, "2", NULL);
    ck_assert_int_eq(shc_placements_parse(&pl, "S(0)", &e), SHC_OK);
    ck_assert_int_eq(shc_layout_of_rank(&m, &pl, &s, 0, &l, &e), SHC_EOVERFLOW);
    ck_assert_str_eq(e.msg, "shape 9223372036854775807,2: element count overflows int64");
    shc_mesh_free(&m);
}
END_TEST

/* Property: along every tensor dim, the ranks' held indices partition the dim
 * once per replica: index i is held by exactly world / (product of the mesh
 * dims sharding that dim) ranks, and every held index is in range.  Checked
 * for every placement combination of a few meshes, shapes and shard orders. */
static void ck_partition(const char *ms, const char *pls, const char *shape)
{
    shc_mesh m;
    shc_placements pl;
    shc_shape s;
    shc_err e = {0};
    mesh(&m, ms, NULL);
    ck_assert_msg(shc_placements_parse(&pl, pls, &e) == SHC_OK, "%s: %s", pls, e.msg);
    ck_assert_int_eq(shc_shape_parse(&s, shape, &e), SHC_OK);
    for (int d = 0; d < s.ndim; d++) {
        int64_t shards = 1;
        for (int i = 0; i < pl.n; i++)
            if ((pl.p[i].kind == SHC_P_SHARD || pl.p[i].kind == SHC_P_STRIDED) && pl.p[i].dim == d)
                shards *= m.shape[i];
        int64_t *held = calloc((size_t)s.d[d] + 1, sizeof *held);
        for (int64_t r = 0; r < m.size; r++) {
            shc_layout l;
            ck_assert_msg(shc_layout_of_rank(&m, &pl, &s, r, &l, &e) == SHC_OK, "%s", e.msg);
            for (int64_t k = 0; k < l.local.d[d]; k++) {
                int64_t g = l.index[d] ? l.index[d][k] : l.offset[d] + k;
                ck_assert_msg(g >= 0 && g < s.d[d], "%s %s [%s] rank %lld dim %d: index %lld",
                              ms, pls, shape, (long long)r, d, (long long)g);
                held[g]++;
            }
            if (l.local.d[d] == 0)
                ck_assert_int_eq(l.offset[d], s.d[d]);
            shc_layout_free(&l);
        }
        for (int64_t g = 0; g < s.d[d]; g++)
            ck_assert_msg(held[g] == m.size / shards, "%s %s [%s] dim %d index %lld held %lld "
                          "times, want %lld", ms, pls, shape, d, (long long)g,
                          (long long)held[g], (long long)(m.size / shards));
        free(held);
    }
    shc_mesh_free(&m);
}

START_TEST(partition_property)
{
    static const char *const opts[] = {"R", "P(sum)", "S(0)", "S(1)", "_S(0, 2)", "_S(1, 3)",
                                       "_S(0, 5)"};
    static const char *const meshes[] = {"3", "2x3", "4x2", "2x2x3"};
    static const char *const shapes[] = {"0,1", "1,7", "7,5", "13,12", "30,2", "61,29"};
    for (int mi = 0; mi < 4; mi++) {
        int nd = mi < 1 ? 1 : mi < 3 ? 2 : 3, total = 1;
        for (int i = 0; i < nd; i++)
            total *= 7;
        for (int c = 0; c < total; c++) {
            char pls[128] = "";
            for (int i = 0, x = c; i < nd; i++, x /= 7)
                snprintf(pls + strlen(pls), sizeof pls - strlen(pls), i ? ",%s" : "%s",
                         opts[x % 7]);
            for (int k = 0; k < 6; k++)
                ck_partition(meshes[mi], pls, shapes[k]);
        }
    }
    /* Explicit shard orders partition too. */
    ck_partition("2x3", "S(0)[1]S(0)[0]", "7,1");
    ck_partition("2x2x3", "S(1)[2]S(1)[0]S(1)[1]", "2,13");
    ck_partition("2x2x3", "S(0)[1]S(1)S(0)[0]", "11,5");
}
END_TEST

/* ---- groups ---- */

static void ck_groups(const shc_groups *g, int64_t ng, int64_t gs, const int64_t *want)
{
    ck_assert_int_eq(g->ngroups, ng);
    ck_assert_int_eq(g->group_size, gs);
    ck_list(g->ranks, ng * gs, want, ng * gs);
}

START_TEST(device_mesh_groups)
{
    shc_mesh m;
    shc_groups g;
    shc_err e = {0};
    /* _MeshLayout.remap_to_tensor docstring, case 1: 2x2, layout (2:2) -> [[0,2],[1,3]]. */
    mesh(&m, "2x2", NULL);
    ck_assert_int_eq(shc_groups_for_axes(&m, (int[]){0}, 1, &g, &e), SHC_OK);
    ck_groups(&g, 2, 2, (int64_t[]){0, 2, 1, 3});
    shc_groups_free(&g);
    shc_mesh_free(&m);
    /* DeviceMesh._flatten docstring: [[[0,1],[2,3]],[[4,5],[6,7]]] ("dp","cp","tp"):
     * mesh_3d["dp","cp"]._flatten() -> [0,2,4,6] and [1,3,5,7]. */
    mesh(&m, "2x2x2", NULL);
    ck_assert_int_eq(shc_groups_for_axes(&m, (int[]){0, 1}, 2, &g, &e), SHC_OK);
    ck_groups(&g, 2, 4, (int64_t[]){0, 2, 4, 6, 1, 3, 5, 7});
    shc_groups_free(&g);
    /* Non-adjacent dims (0, 2): members row-major over (dp, tp), groups over cp. */
    ck_assert_int_eq(shc_groups_for_axes(&m, (int[]){0, 2}, 2, &g, &e), SHC_OK);
    ck_groups(&g, 2, 4, (int64_t[]){0, 1, 4, 5, 2, 3, 6, 7});
    shc_groups_free(&g);
    int64_t gi, mi;
    ck_assert_int_eq(shc_groups_locate(&m, (int[]){0, 2}, 2, 6, &gi, &mi, &e), SHC_OK);
    ck_assert_int_eq(gi, 1);
    ck_assert_int_eq(mi, 2);
    /* Torch requires ascending dims when slicing. */
    ck_assert_int_eq(shc_groups_for_axes(&m, (int[]){1, 0}, 2, &g, &e), SHC_EINVAL);
    ck_assert_msg(strstr(e.msg, "ascending order"), "%s", e.msg);
    ck_assert_int_eq(shc_groups_for_axes(&m, (int[]){3}, 1, &g, &e), SHC_EINVAL);
    ck_assert_str_eq(e.msg, "axes: mesh dim 3 out of range 0..2");
    ck_assert_int_eq(shc_groups_for_axes(&m, (int[]){1, 1}, 2, &g, &e), SHC_EINVAL);
    shc_mesh_free(&m);
    /* Size-1 dims in any order or twice: torch 2.13 slices them (a real DeviceMesh on a fake
     * world: 1x4 ("d1","d0") flattens to [0,1,2,3], ("d0","d0") to [0]; 2x1x2 ("d1","d0") to
     * [0,2]), the groups those of the other dims. */
    mesh(&m, "1x4", NULL);
    ck_assert_int_eq(shc_groups_for_axes(&m, (int[]){1, 0}, 2, &g, &e), SHC_OK);
    ck_groups(&g, 1, 4, (int64_t[]){0, 1, 2, 3});
    shc_groups_free(&g);
    ck_assert_int_eq(shc_groups_for_axes(&m, (int[]){0, 0}, 2, &g, &e), SHC_OK);
    ck_groups(&g, 4, 1, (int64_t[]){0, 1, 2, 3});
    shc_groups_free(&g);
    ck_assert_int_eq(shc_groups_for_axes(&m, (int[]){1, 1}, 2, &g, &e), SHC_EINVAL);
    shc_mesh_free(&m);
    mesh(&m, "2x1x2", NULL);
    ck_assert_int_eq(shc_groups_for_axes(&m, (int[]){1, 0}, 2, &g, &e), SHC_OK);
    ck_groups(&g, 2, 2, (int64_t[]){0, 2, 1, 3});
    shc_groups_free(&g);
    shc_mesh_free(&m);
}
END_TEST

START_TEST(non_arange_groups)
{
    /* Mesh [[3,1],[2,0]]: dim 0 groups are the columns [3,2] and [1,0]; rank 0
     * is second in mesh order but first in the sorted communicator. */
    shc_mesh m;
    shc_groups g;
    shc_err e = {0};
    mesh(&m, "2x2", "3,1,2,0");
    ck_assert_int_eq(shc_groups_for_axes(&m, (int[]){0}, 1, &g, &e), SHC_OK);
    ck_groups(&g, 2, 2, (int64_t[]){3, 2, 1, 0});
    ck_assert_int_eq(shc_groups_find(&g, 0), 1);
    ck_assert_int_eq(shc_group_sorted_index(g.ranks + 2, 2, 0), 0);
    ck_assert_int_eq(shc_group_sorted_index(g.ranks + 2, 2, 1), 1);
    ck_assert_int_eq(shc_group_sorted_index(g.ranks + 2, 2, 7), -1);
    int64_t gi, mi;
    ck_assert_int_eq(shc_groups_locate(&m, (int[]){0}, 1, 0, &gi, &mi, &e), SHC_OK);
    ck_assert_int_eq(gi, 1);
    ck_assert_int_eq(mi, 1);
    shc_groups_free(&g);
    ck_assert_int_eq(shc_groups_locate(&m, (int[]){0}, 1, 9, &gi, &mi, &e), SHC_EINVAL);
    ck_assert_str_eq(e.msg, "rank 9 is not in the mesh (ranks 0..3)");
    shc_mesh_free(&m);
}
END_TEST

START_TEST(seed002_rank_lists)
{
    shc_mesh m;
    shc_groups g;
    shc_err e = {0};
    int64_t *list, n;
    mesh(&m, "2x3", NULL); /* [[0,1,2],[3,4,5]] */
    /* Empty axes: get_rank_list_for_axes returns [rank] ... */
    ck_assert_int_eq(shc_rank_list_for_axes(&m, NULL, 0, 4, &list, &n, &e), SHC_OK);
    ck_list(list, n, (int64_t[]){4}, 1);
    free(list);
    /* ... but get_split_rank_lists_for_axes returns the whole mesh as one list. */
    ck_assert_int_eq(shc_split_rank_lists_for_axes(&m, NULL, 0, &g, &e), SHC_OK);
    ck_groups(&g, 1, 6, (int64_t[]){0, 1, 2, 3, 4, 5});
    shc_groups_free(&g);
    /* Axis 1 (vary columns, fix the row): rank 4 -> [3,4,5]. */
    ck_assert_int_eq(shc_rank_list_for_axes(&m, (int[]){1}, 1, 4, &list, &n, &e), SHC_OK);
    ck_list(list, n, (int64_t[]){3, 4, 5}, 3);
    free(list);
    /* Axes are sorted and de-duplicated: [1,0,1] is every axis. */
    ck_assert_int_eq(shc_split_rank_lists_for_axes(&m, (int[]){1, 0, 1}, 3, &g, &e), SHC_OK);
    ck_groups(&g, 1, 6, (int64_t[]){0, 1, 2, 3, 4, 5});
    shc_groups_free(&g);
    ck_assert_int_eq(shc_split_rank_lists_for_axes(&m, (int[]){0}, 1, &g, &e), SHC_OK);
    ck_groups(&g, 3, 2, (int64_t[]){0, 3, 1, 4, 2, 5});
    shc_groups_free(&g);
    ck_assert_int_eq(shc_rank_list_for_axes(&m, (int[]){2}, 1, 0, &list, &n, &e), SHC_EINVAL);
    ck_assert_str_eq(e.msg, "axes: mesh dim 2 out of range 0..1");
    ck_assert_int_eq(shc_rank_list_for_axes(&m, (int[]){0}, 1, 6, &list, &n, &e), SHC_EINVAL);
    ck_assert_str_eq(e.msg, "rank 6 is not in the mesh (ranks 0..5)");
    shc_mesh_free(&m);
}
END_TEST

static void hsdp(const char *ms, const char *pls, int shard_dim, int64_t rank, shc_hsdp *h)
{
    shc_mesh m;
    shc_placements pl;
    shc_err e = {0};
    mesh(&m, ms, NULL);
    ck_assert_int_eq(shc_placements_parse(&pl, pls, &e), SHC_OK);
    int rc = shc_hsdp_groups(&m, &pl, shard_dim, rank, h, &e);
    ck_assert_msg(rc == SHC_OK, "%s", e.msg);
    shc_mesh_free(&m);
}

START_TEST(seed002_hsdp)
{
    shc_hsdp h;
    /* 2x4, (R, S(0)), FSDP shard dim 1, rank 3 = (0,3): sharded = row [0,1,2,3];
     * unsharded = Replicate axes {0} minus 1 -> column [3,7]; 4 * 2 = 8. */
    hsdp("2x4", "R,S(0)", 1, 3, &h);
    ck_assert(h.sharded_valid && h.unsharded_valid);
    ck_list(h.sharded, h.shard_size, (int64_t[]){0, 1, 2, 3}, 4);
    ck_list(h.unsharded, h.dp_size, (int64_t[]){3, 7}, 2);
    ck_assert_int_eq(h.rank_size, 8);
    shc_hsdp_free(&h);
    /* Both lists come sorted (communicator order) even when the mesh is not:
     * 2x2 [[3,1],[2,0]], shard dim 1, rank 0 = (1,1): row [2,0] -> [0,2];
     * column [1,0] -> [0,1]. */
    {
        shc_mesh m;
        shc_placements pl;
        mesh(&m, "2x2", "3,1,2,0");
        ck_assert_int_eq(shc_placements_parse(&pl, "R,S(0)", NULL), SHC_OK);
        ck_assert_int_eq(shc_hsdp_groups(&m, &pl, 1, 0, &h, NULL), SHC_OK);
        ck_list(h.sharded, h.shard_size, (int64_t[]){0, 2}, 2);
        ck_list(h.unsharded, h.dp_size, (int64_t[]){0, 1}, 2);
        shc_hsdp_free(&h);
        shc_mesh_free(&m);
    }
    /* No shard dim: sharded invalid (size 1); unsharded over both R dims. */
    hsdp("2x4", "R,R", -1, 5, &h);
    ck_assert(!h.sharded_valid);
    ck_assert_int_eq(h.shard_size, 1);
    ck_list(h.unsharded, h.dp_size, (int64_t[]){0, 1, 2, 3, 4, 5, 6, 7}, 8);
    ck_assert_int_eq(h.rank_size, 8);
    shc_hsdp_free(&h);
    /* Unsharded axes of size 1 give a one-rank list: invalid, dp_size 1. */
    hsdp("1x4", "R,S(0)", 1, 2, &h);
    ck_assert(h.sharded_valid && !h.unsharded_valid);
    ck_assert_int_eq(h.dp_size, 1);
    ck_assert_int_eq(h.rank_size, 4);
    shc_hsdp_free(&h);
    /* Partial is not Replicate; the only R dim is the shard dim: both sizes. */
    hsdp("4x2", "R,P(sum)", 0, 1, &h);
    ck_assert(h.sharded_valid && !h.unsharded_valid);
    ck_list(h.sharded, h.shard_size, (int64_t[]){1, 3, 5, 7}, 4);
    ck_assert_int_eq(h.rank_size, 4);
    shc_hsdp_free(&h);
    /* Shard dim of size 1: sharded invalid. */
    hsdp("1x2", "R,R", 0, 1, &h);
    ck_assert(!h.sharded_valid && h.unsharded_valid);
    ck_list(h.unsharded, h.dp_size, (int64_t[]){0, 1}, 2);
    shc_hsdp_free(&h);
    /* Errors. */
    shc_mesh m;
    shc_placements pl;
    shc_err e = {0};
    mesh(&m, "2x2", NULL);
    ck_assert_int_eq(shc_placements_parse(&pl, "R,R", &e), SHC_OK);
    ck_assert_int_eq(shc_hsdp_groups(&m, &pl, 2, 0, &h, &e), SHC_EINVAL);
    ck_assert_str_eq(e.msg, "hsdp: shard mesh dim 2 out of range 0..1 (or -1 for none)");
    ck_assert_int_eq(shc_hsdp_groups(&m, &pl, 0, 4, &h, &e), SHC_EINVAL);
    ck_assert_str_eq(e.msg, "rank 4 is not in the mesh (ranks 0..3)");
    ck_assert_int_eq(shc_placements_parse(&pl, "R", &e), SHC_OK);
    ck_assert_int_eq(shc_hsdp_groups(&m, &pl, 0, 0, &h, &e), SHC_EINVAL);
    ck_assert_str_eq(e.msg, "hsdp: 1 placements for a 2-d mesh");
    shc_mesh_free(&m);
}
END_TEST

/* mesh_layout.c, on the examples of torch 2.13's _mesh_layout.py docstrings. */
START_TEST(mesh_layout)
{
    shc_err e = {0};
    shc_flat_layout l, c;
    int64_t *r, n;
    bool orth;
    ck_assert_int_eq(shc_flat_layout_make((int64_t[]){2, 3}, (int64_t[]){1, 2}, 2, &l, &e), SHC_OK);
    ck_assert_int_eq(shc_flat_layout_ranks(&l, &r, &n, &e), SHC_OK);
    ck_assert(n == 6 && r[0] == 0 && r[1] == 2 && r[2] == 4 && r[3] == 1 && r[5] == 5);
    free(r);
    ck_assert_int_eq(shc_flat_layout_orthogonal(&l, &orth, &e), SHC_OK);
    ck_assert(orth); /* 2 % (2 x 1) == 0: example B lists every rank once */
    /* (2,1,4):(4,9,1) coalesces to (8,):(1,); (1,1):(5,7) to () */
    ck_assert_int_eq(shc_flat_layout_make((int64_t[]){2, 1, 4}, (int64_t[]){4, 9, 1}, 3, &l, &e),
                     SHC_OK);
    ck_assert(l.n == 1 && l.shape[0] == 8 && l.stride[0] == 1);
    ck_assert_int_eq(shc_flat_layout_make((int64_t[]){1, 1}, (int64_t[]){5, 7}, 2, &l, &e), SHC_OK);
    ck_assert_int_eq(l.n, 0);
    /* complement((4:1), 8) = (2:4) lexicographic; (2,2):(1,1) in 8 keeps a zero-size mode */
    ck_assert_int_eq(shc_flat_layout_make((int64_t[]){4}, (int64_t[]){1}, 1, &l, &e), SHC_OK);
    ck_assert_int_eq(shc_flat_layout_complement(&l, 8, &c, &e), SHC_OK);
    ck_assert(c.n == 1 && c.shape[0] == 2 && c.stride[0] == 4);
    ck_assert_int_eq(shc_flat_layout_make((int64_t[]){2, 2}, (int64_t[]){1, 1}, 2, &l, &e), SHC_OK);
    ck_assert_int_eq(shc_flat_layout_complement(&l, 8, &c, &e), SHC_OK);
    ck_assert(c.n == 2 && c.shape[0] == 4 && c.shape[1] == 0 && c.stride[0] == 2 && c.stride[1] == 2);
    ck_assert_int_eq(shc_flat_layout_make((int64_t[]){2, 8}, (int64_t[]){2, 1}, 2, &l, &e), SHC_OK);
    ck_assert_int_eq(shc_flat_layout_complement(&l, 16, &c, &e), SHC_EINVAL);
    ck_assert(strstr(e.msg, "AssertionError"));
    ck_assert_int_eq(shc_flat_layout_make((int64_t[]){2, 3}, (int64_t[]){0, 1}, 2, &l, &e), SHC_OK);
    ck_assert_int_eq(shc_flat_layout_orthogonal(&l, &orth, &e), SHC_EINVAL);
    ck_assert_str_eq(e.msg, "ZeroDivisionError: integer modulo by zero");
    ck_assert_int_eq(shc_flat_layout_make((int64_t[]){2}, (int64_t[]){-1}, 1, &l, &e), SHC_EINVAL);
}
END_TEST

START_TEST(big_mesh_groups)
{
    /* 4x4x4x4: every dim-3 group is 4 consecutive ranks; flattened (1,3)
     * members of rank 0 are 0,1,2,3,16,17,18,19,...: stride 16 over dim 1. */
    shc_mesh m;
    shc_groups g;
    mesh(&m, "4x4x4x4", NULL);
    ck_assert_int_eq(shc_groups_for_axes(&m, (int[]){3}, 1, &g, NULL), SHC_OK);
    ck_assert_int_eq(g.ngroups, 64);
    ck_list(g.ranks + 4 * 63, 4, (int64_t[]){252, 253, 254, 255}, 4);
    shc_groups_free(&g);
    ck_assert_int_eq(shc_groups_for_axes(&m, (int[]){1, 3}, 2, &g, NULL), SHC_OK);
    ck_list(g.ranks, 8, (int64_t[]){0, 1, 2, 3, 16, 17, 18, 19}, 8);
    shc_groups_free(&g);
    shc_mesh_free(&m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("check_layout");
    TCase *tc = tcase_create("shard");
    tcase_add_test(tc, chunk_rule);
    tcase_add_test(tc, chunk_rule_extremes);
    tcase_add_test(tc, chunk_rule_errors);
    tcase_add_test(tc, torch_docstring_example);
    tcase_add_test(tc, issue_example_4x2);
    tcase_add_test(tc, strided_docstring_examples);
    tcase_add_test(tc, strided_uneven);
    tcase_add_test(tc, empty_shard_offset_is_global_size);
    tcase_add_test(tc, replicate_partial_rank_map);
    tcase_add_test(tc, shard_order);
    tcase_add_test(tc, layout_errors);
    tcase_add_test(tc, partition_property);
    suite_add_tcase(s, tc);
    TCase *tg = tcase_create("groups");
    tcase_add_test(tg, device_mesh_groups);
    tcase_add_test(tg, non_arange_groups);
    tcase_add_test(tg, seed002_rank_lists);
    tcase_add_test(tg, seed002_hsdp);
    tcase_add_test(tg, big_mesh_groups);
    tcase_add_test(tg, mesh_layout);
    suite_add_tcase(s, tg);
    return shc_run_suite(s);
}
