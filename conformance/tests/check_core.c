/*
 * check_core.c — unit tests of the core model: errors.c, mesh.c, placement.c,
 * shape.c (and parse.c through them).
 *
 * Valid inputs are checked against hand-written expectations (coordinates of
 * row-major meshes, torch's str()/repr() spellings of placements); every
 * malformed input is checked for its code and for a message that names what
 * was wrong and where.
 */
#include "config.h"
#include <string.h>
#include "tap.h"
#include "shardcheck.h"

/* ---- helpers ---- */

static void mesh_err(const char *shape, const char *ranks, int code, const char *want)
{
    shc_mesh m;
    shc_err e = {0};
    ck_assert_int_eq(shc_mesh_parse(&m, shape, ranks, &e), code);
    ck_assert_msg(strstr(e.msg, want), "mesh '%s' ranks '%s': message '%s' lacks '%s'", shape,
                  ranks ? ranks : "", e.msg, want);
    ck_assert_ptr_null(m.ranks);
}

static void pl_err(const char *s, const char *want)
{
    shc_placements pl;
    shc_err e = {0};
    ck_assert_int_eq(shc_placements_parse(&pl, s, &e), SHC_EINVAL);
    ck_assert_msg(strstr(e.msg, want), "placements '%s': message '%s' lacks '%s'", s, e.msg, want);
}

static void shape_err(const char *s, int code, const char *want)
{
    shc_shape sh;
    shc_err e = {0};
    ck_assert_int_eq(shc_shape_parse(&sh, s, &e), code);
    ck_assert_msg(strstr(e.msg, want), "shape '%s': message '%s' lacks '%s'", s, e.msg, want);
}

static void roundtrip(const char *in, const char *want)
{
    shc_placements pl;
    shc_err e = {0};
    char buf[256];
    ck_assert_msg(shc_placements_parse(&pl, in, &e) == SHC_OK, "'%s': %s", in, e.msg);
    if (pl.has_order)
        shc_placements_format_trace(&pl, buf, sizeof buf);
    else
        shc_placements_format(&pl, buf, sizeof buf);
    ck_assert_str_eq(buf, want);
}

/* ---- dtypes (dtype.c) ---- */

/* Every spelling torch has for a dtype, with torch 2.13's itemsize (torch.<name>.itemsize)
 * and whether it is an integer type; kind -1: a size-only dtype execution has no kernels for. */
static const struct {
    const char *s;
    int kind;
    int bytes;
    bool is_int;
} DTYPES[] = {
    {"float32", SHC_DT_FLOAT32, 4, false},  {"float", SHC_DT_FLOAT32, 4, false},
    {"torch.float32", SHC_DT_FLOAT32, 4, false}, {"float64", SHC_DT_FLOAT64, 8, false},
    {"double", SHC_DT_FLOAT64, 8, false},   {"float16", SHC_DT_FLOAT16, 2, false},
    {"half", SHC_DT_FLOAT16, 2, false},     {"torch.bfloat16", SHC_DT_BFLOAT16, 2, false},
    {"int64", SHC_DT_INT64, 8, true},       {"long", SHC_DT_INT64, 8, true},
    {"int32", SHC_DT_INT32, 4, true},       {"int", SHC_DT_INT32, 4, true},
    {"int16", SHC_DT_INT16, 2, true},       {"short", SHC_DT_INT16, 2, true},
    {"int8", SHC_DT_INT8, 1, true},         {"uint8", SHC_DT_UINT8, 1, true},
    {"bool", SHC_DT_BOOL, 1, true},         {"float8_e4m3fn", -1, 1, false},
    {"float8_e5m2", -1, 1, false},          {"complex64", -1, 8, false},
    {"cfloat", -1, 8, false},               {"torch.complex128", -1, 16, false},
    {"cdouble", -1, 16, false},
};

START_TEST(dtypes)
{
    for (size_t i = 0; i < sizeof DTYPES / sizeof *DTYPES; i++) {
        shc_dtype t;
        int bytes = 0;
        shc_err e = {0};
        ck_assert_int_eq(shc_dtype_bytes(DTYPES[i].s, &bytes, &e), 0);
        ck_assert_msg(bytes == DTYPES[i].bytes, "%s: %d bytes", DTYPES[i].s, bytes);
        int rc = shc_dtype_parse(DTYPES[i].s, &t, &e);
        if (DTYPES[i].kind < 0) {
            ck_assert_int_eq(rc, SHC_EINVAL);
            ck_assert_msg(strstr(e.msg, "has no element kernels here"), "%s: %s", DTYPES[i].s, e.msg);
            continue;
        }
        ck_assert_msg(rc == 0 && (int)t == DTYPES[i].kind, "%s: %d %s", DTYPES[i].s, rc, e.msg);
        ck_assert_int_eq((int)shc_dtype_size(t), DTYPES[i].bytes);
        ck_assert(shc_dtype_is_int(t) == DTYPES[i].is_int);
        shc_dtype back; /* the name is torch's canonical one, which parses to the same dtype */
        ck_assert_int_eq(shc_dtype_parse(shc_dtype_name(t), &back, &e), 0);
        ck_assert_int_eq(back, t);
    }
    shc_dtype t;
    int bytes;
    shc_err e = {0};
    const char *bad[] = {"float128", "Float32", "torch.", "", NULL};
    for (int i = 0; i < 5; i++) {
        ck_assert_int_eq(shc_dtype_parse(bad[i], &t, &e), SHC_EINVAL);
        ck_assert_msg(strstr(e.msg, "unknown dtype '"), "%s", e.msg);
        ck_assert_int_eq(shc_dtype_bytes(bad[i], &bytes, &e), SHC_EINVAL);
        ck_assert_msg(strstr(e.msg, ": unknown (expected a torch dtype"), "%s", e.msg);
    }
    /* the class and c10 ScalarType name by any spelling (torch's Tensor.dtype table) */
    static const struct { const char *s; shc_dtype_class c; const char *scalar; } cls[] = {
        {"float", SHC_DTC_FLOAT, "Float"},       {"torch.bfloat16", SHC_DTC_FLOAT, "BFloat16"},
        {"half", SHC_DTC_FLOAT, "Half"},         {"double", SHC_DTC_FLOAT, "Double"},
        {"long", SHC_DTC_INT, "Long"},           {"short", SHC_DTC_INT, "Short"},
        {"int8", SHC_DTC_INT, "Char"},           {"uint8", SHC_DTC_INT, "Byte"},
        {"bool", SHC_DTC_INT, "Bool"},           {"cfloat", SHC_DTC_COMPLEX, "ComplexFloat"},
        {"complex128", SHC_DTC_COMPLEX, "ComplexDouble"},
        {"float8_e5m2", SHC_DTC_FLOAT8, "Float8_e5m2"},
    };
    for (size_t i = 0; i < sizeof cls / sizeof *cls; i++) {
        shc_dtype_class c;
        const char *scalar = NULL;
        ck_assert_int_eq(shc_dtype_kind_of(cls[i].s, &c, &scalar, &e), 0);
        ck_assert_msg(c == cls[i].c && !strcmp(scalar, cls[i].scalar), "%s: %d %s", cls[i].s,
                      (int)c, scalar);
    }
    shc_dtype_class c;
    ck_assert_int_eq(shc_dtype_kind_of("float128", &c, NULL, &e), SHC_EINVAL);
    ck_assert_msg(strstr(e.msg, "dtype 'float128': unknown"), "%s", e.msg);
    ck_assert_int_eq(shc_dtype_kind_of(NULL, &c, NULL, &e), SHC_EINVAL);
    ck_assert_str_eq(shc_dtype_name(SHC_DT_COUNT), "?");
    ck_assert_str_eq(shc_dtype_name((shc_dtype)-1), "?");
    ck_assert_int_eq((int)shc_dtype_size(SHC_DT_COUNT), 0);
    ck_assert(!shc_dtype_is_int(SHC_DT_COUNT));
}
END_TEST

/* ---- errors ---- */

/* torch releases: both spellings, and what is refused (issue 21's bad inputs). */
START_TEST(torch_releases)
{
    shc_torch_release r;
    shc_err e = {0};
    ck_assert_int_eq(shc_torch_release_parse("2.15", &r, &e), 0);
    ck_assert_int_eq(r, SHC_TORCH_2_15);
    ck_assert_int_eq(shc_torch_release_parse("2.12.1", &r, &e), 0);
    ck_assert_int_eq(r, SHC_TORCH_2_12);
    ck_assert_str_eq(shc_torch_release_name(SHC_TORCH_PINNED), "2.13");
    ck_assert_str_eq(shc_torch_release_get(SHC_TORCH_PINNED)->patch, "2.13.0");
    const char *bad[] = {"2.10", "2.16", "latest", "2.13.0+cu130", "2.12.0", "", "2.13.", NULL};
    for (int i = 0; bad[i]; i++) {
        ck_assert_int_eq(shc_torch_release_parse(bad[i], &r, &e), SHC_EINVAL);
        ck_assert_ptr_nonnull(strstr(e.msg, "supported: 2.11 (2.11.0), 2.12 (2.12.1), 2.13 "
                                            "(2.13.0, the pinned default), 2.14 (2.14.1), 2.15 "
                                            "(2.15.0)"));
    }
    ck_assert_ptr_nonnull(strstr(e.msg, "'2.13.'"));
    ck_assert_int_eq(shc_torch_release_parse(NULL, &r, &e), SHC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "torch version '': empty; supported: 2.11"));
    /* what lies outside the tables: no release, no change, no flag */
    ck_assert_ptr_null(shc_torch_release_get(SHC_TORCH_SLOTS));
    ck_assert_str_eq(shc_torch_release_name(SHC_TORCH_SLOTS), "?");
    ck_assert_ptr_null(shc_torch_change_get(SHC_TC_SLOTS));
    ck_assert(!shc_torch_has(SHC_TORCH_PINNED, SHC_TC_SLOTS));
    ck_assert(!shc_torch_has(SHC_TORCH_PINNED, SHC_TC_FIXTURE)); /* the fixture's own row */
    ck_assert_int_eq(shc_torch_change_by_flag(NULL), -1);
    ck_assert_int_eq(shc_torch_change_by_flag("NoSuchFlag"), -1);
    ck_assert_int_eq(shc_torch_release_parse("2.13.0+cu130", &r, &e), SHC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "local version tag"));
    /* every change names a flag, releases other than the pinned one, and torch lines */
    for (int c = 0; c < SHC_TC_COUNT; c++) {
        const shc_torch_change_info *ci = shc_torch_change_get((shc_torch_change)c);
        ck_assert(ci->flag && *ci->flag && ci->where && strstr(ci->where, ".py:"));
        ck_assert(ci->releases && !(ci->releases & SHC_TORCH_SET(SHC_TORCH_PIN_RELEASE)));
        ck_assert_int_eq(shc_torch_change_by_flag(ci->flag), c);
        ck_assert(!shc_torch_has(SHC_TORCH_PINNED, (shc_torch_change)c));
    }
    ck_assert(shc_torch_has(SHC_TORCH_2_14, SHC_TC_SHARD_TO_PARTIAL));
    ck_assert(!shc_torch_has(SHC_TORCH_2_12, SHC_TC_SHARD_TO_PARTIAL));
}
END_TEST

START_TEST(errors_prefix)
{
    shc_err e = {0};
    ck_assert_int_eq(shc_fail(&e, SHC_EINVAL, "bad %d", 7), SHC_EINVAL);
    ck_assert_int_eq(shc_err_prefix(&e, "--mesh %s", "2x"), SHC_EINVAL);
    ck_assert_str_eq(e.msg, "--mesh 2x: bad 7");
    shc_err_clear(&e);
    ck_assert_int_eq(e.code, SHC_OK);
    ck_assert_str_eq(e.msg, "");
    ck_assert_str_eq(shc_strerror(SHC_EOVERFLOW), "overflow");
    ck_assert_str_eq(shc_strerror(SHC_EINVAL), "invalid input");
    ck_assert_int_eq(shc_fail(NULL, SHC_EIO, "no buffer"), SHC_EIO);
    ck_assert_int_eq(shc_err_prefix(NULL, "where"), SHC_EINTERNAL);
    shc_err_clear(NULL);
    /* a message near the buffer's end keeps the prefix and as much of the message as fits */
    char big[600];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    shc_fail(&e, SHC_EFORMAT, "tail");
    ck_assert_int_eq(shc_err_prefix(&e, "%.508s", big), SHC_EFORMAT);
    ck_assert_int_eq((int)strlen(e.msg), SHC_ERR_MAX - 1);
    ck_assert_str_eq(e.msg + 508, ": t");
    /* a prefix that fills the buffer: the prefix, cut, and nothing of the message */
    ck_assert_int_eq(shc_err_prefix(&e, "%s", big), SHC_EFORMAT);
    ck_assert_int_eq((int)strlen(e.msg), SHC_ERR_MAX - 1);
    ck_assert_ptr_null(strchr(e.msg, ':'));
}
END_TEST

/* ---- mesh ---- */

START_TEST(mesh_coords)
{
    shc_mesh m;
    shc_err e = {0};
    int64_t c[SHC_MAX_MESH_DIMS];
    char buf[64];
    ck_assert_int_eq(shc_mesh_parse(&m, "2x3x4", NULL, &e), SHC_OK);
    ck_assert_int_eq(m.size, 24);
    /* row-major: rank 17 = 1*12 + 1*4 + 1 */
    ck_assert_int_eq(shc_mesh_coord(&m, 17, c, &e), SHC_OK);
    ck_assert(c[0] == 1 && c[1] == 1 && c[2] == 1);
    ck_assert_int_eq(shc_mesh_rank_at(&m, (int64_t[]){1, 2, 3}), 23);
    shc_mesh_format(&m, buf, sizeof buf);
    ck_assert_str_eq(buf, "2x3x4");
    ck_assert_int_eq(shc_mesh_coord(&m, 24, c, &e), SHC_EINVAL);
    ck_assert_str_eq(e.msg, "rank 24 is not in the mesh (ranks 0..23)");
    ck_assert_int_eq(shc_mesh_coord(&m, -1, c, &e), SHC_EINVAL);
    ck_assert_str_eq(e.msg, "rank -1 is not in the mesh (ranks 0..23)");
    shc_mesh_free(&m);
    /* Rank map [[3,1],[2,0]]: rank 0 is at (1,1), rank 2 at (1,0). */
    ck_assert_int_eq(shc_mesh_parse(&m, "2x2", "3,1,2,0", &e), SHC_OK);
    ck_assert_int_eq(shc_mesh_coord(&m, 0, c, &e), SHC_OK);
    ck_assert(c[0] == 1 && c[1] == 1);
    ck_assert_int_eq(shc_mesh_coord(&m, 2, c, &e), SHC_OK);
    ck_assert(c[0] == 1 && c[1] == 0);
    ck_assert_int_eq(shc_mesh_rank_at(&m, (int64_t[]){0, 0}), 3);
    shc_mesh_free(&m);
    /* Spaces around items are allowed; an empty rank map means arange. */
    ck_assert_int_eq(shc_mesh_parse(&m, "4", " 1, 0 ,3,2", &e), SHC_OK);
    ck_assert_int_eq(m.ranks[1], 0);
    shc_mesh_free(&m);
    ck_assert_int_eq(shc_mesh_parse(&m, "8", "", &e), SHC_OK);
    ck_assert_int_eq(m.ranks[7], 7);
    shc_mesh_free(&m);
    shc_mesh_free(&m); /* idempotent */
    ck_assert_int_eq(shc_mesh_init(&m, 2, (int64_t[]){2, 2}, NULL, &e), SHC_OK);
    ck_assert_int_eq(m.size, 4);
    shc_mesh_free(&m);
}
END_TEST

START_TEST(mesh_world)
{
    /* A mesh of ranks [1, 3] in a world of 4 (torch 2.13 device_mesh.py: ranks 0 and 2 are
     * non-participating: no coordinate; _utils.py gives them local shape (0,), offset ()). */
    shc_mesh m;
    shc_err e = {0};
    int64_t c[SHC_MAX_MESH_DIMS];
    ck_assert_int_eq(shc_mesh_parse_world(&m, "2", "1,3", 4, &e), SHC_OK);
    ck_assert(m.size == 2 && m.max_rank == 3);
    ck_assert(!shc_mesh_has_rank(&m, 0) && shc_mesh_has_rank(&m, 1) && !shc_mesh_has_rank(&m, 2));
    ck_assert(shc_mesh_has_rank(&m, 3) && !shc_mesh_has_rank(&m, 4) && !shc_mesh_has_rank(&m, -1));
    ck_assert_int_eq(shc_mesh_coord(&m, 3, c, &e), SHC_OK);
    ck_assert_int_eq(c[0], 1);
    ck_assert_int_eq(shc_mesh_coord(&m, 2, c, &e), SHC_EINVAL);
    ck_assert_str_eq(e.msg, "rank 2 is not in the mesh (ranks 0..3)");
    ck_assert_int_eq(shc_mesh_check_world_rank(&m, 2, &e), SHC_OK); /* off the mesh, in the world */
    ck_assert_int_eq(shc_mesh_check_world_rank(&m, 4, &e), SHC_EINVAL);
    ck_assert_str_eq(e.msg, "rank 4 is not in the world (ranks 0..3)");
    ck_assert_int_eq(shc_mesh_check_world_rank(&m, -1, &e), SHC_EINVAL);
    shc_placements pl;
    shc_shape s;
    shc_layout l;
    bool in;
    ck_assert_int_eq(shc_placements_parse(&pl, "S(0)", &e), SHC_OK);
    ck_assert_int_eq(shc_shape_parse(&s, "8,2", &e), SHC_OK);
    ck_assert_int_eq(shc_layout_of_world_rank(&m, &pl, &s, 2, &l, &in, &e), SHC_OK);
    ck_assert(!in && l.local.ndim == 1 && l.local.d[0] == 0 && !l.index[0]);
    ck_assert_int_eq(shc_layout_of_world_rank(&m, &pl, &s, 3, &l, &in, &e), SHC_OK);
    ck_assert(in && l.local.ndim == 2 && l.local.d[0] == 4 && l.offset[0] == 4);
    shc_layout_free(&l);
    ck_assert_int_eq(shc_layout_of_world_rank(&m, &pl, &s, 4, &l, &in, &e), SHC_EINVAL);
    ck_assert_str_eq(e.msg, "rank 4 is not in the world (ranks 0..3)");
    shc_mesh_free(&m);
    /* world 0 is the mesh's size: the permutation rule and its wording */
    ck_assert_int_eq(shc_mesh_parse_world(&m, "2", "1,0", 0, &e), SHC_OK);
    ck_assert_int_eq(m.max_rank, 1);
    shc_mesh_free(&m);
    ck_assert_int_eq(shc_mesh_parse_world(&m, "2x3", NULL, 4, &e), SHC_EINVAL);
    ck_assert(strstr(e.msg, "Mesh should not be bigger than default world size 4, but found 6 ranks!"));
    ck_assert_int_eq(shc_mesh_parse_world(&m, "2", "1,4", 4, &e), SHC_EINVAL);
    ck_assert(strstr(e.msg, "Rank 4 is out of range. Valid ranks are 0 to 3 (world_size=4)"));
    ck_assert_int_eq(shc_mesh_parse_world(&m, "2", "3,3", 4, &e), SHC_EINVAL);
    ck_assert(strstr(e.msg, "duplicate rank 3 at positions 0 and 1"));
    ck_assert_int_eq(shc_mesh_init_world(&m, 1, (int64_t[]){2}, NULL, SHC_MAX_WORLD + 1LL, &e),
                     SHC_EOVERFLOW);
}
END_TEST

START_TEST(mesh_errors)
{
    mesh_err("", NULL, SHC_EINVAL, "mesh '': 0 dims, expected 1 to 8");
    mesh_err("2x", NULL, SHC_EINVAL, "mesh item 2: expected an integer at ''");
    mesh_err("2xa", NULL, SHC_EINVAL, "mesh item 2: expected an integer at 'a'");
    mesh_err("2*2", NULL, SHC_EINVAL, "mesh: unexpected '*' in '2*2'");
    mesh_err("0x2", NULL, SHC_EINVAL, "mesh: dim 0 has size 0, expected >= 1");
    mesh_err("2x-2", NULL, SHC_EINVAL, "mesh: dim 1 has size -2, expected >= 1");
    mesh_err("1x1x1x1x1x1x1x1x1", NULL, SHC_EINVAL, "9 dims, expected 1 to 8");
    mesh_err("4096x4096x2", NULL, SHC_EOVERFLOW, "mesh: more than 16777216 ranks");
    mesh_err("99999999999999999999", NULL, SHC_EOVERFLOW, "overflows int64");
    mesh_err("2x2", "0,1,1,3", SHC_EINVAL, "rank map: duplicate rank 1 at positions 1 and 2");
    mesh_err("2x2", "0,1,2", SHC_EINVAL, "rank map: 3 ranks given, mesh 2x2 has 4");
    mesh_err("2x2", "0,1,2,3,4", SHC_EINVAL, "rank map: 5 ranks given, mesh 2x2 has 4");
    mesh_err("2x2", "0,1,2,4", SHC_EINVAL, "rank map: rank 4 at position 3 is outside 0..3");
    mesh_err("2x2", "0,1,2,-1", SHC_EINVAL, "rank map: rank -1 at position 3 is outside 0..3");
    mesh_err("2x2", "0,,1,2", SHC_EINVAL, "rank map item 2: expected an integer");
    mesh_err("2x2", "0;1;2;3", SHC_EINVAL, "rank map: unexpected ';'");
    shc_mesh m;
    shc_err e = {0};
    ck_assert_int_eq(shc_mesh_init(&m, 0, (int64_t[]){1}, NULL, &e), SHC_EINVAL);
    ck_assert_str_eq(e.msg, "mesh: 0 dims, expected 1 to 8");
}
END_TEST

/* ---- placements ---- */

START_TEST(placements_forms)
{
    shc_placements pl;
    shc_err e = {0};
    ck_assert_int_eq(shc_placements_parse(&pl, "S(0),R,P(sum),_S(0, 2)", &e), SHC_OK);
    ck_assert_int_eq(pl.n, 4);
    ck_assert(pl.p[0].kind == SHC_P_SHARD && pl.p[0].dim == 0);
    ck_assert(pl.p[1].kind == SHC_P_REPLICATE);
    ck_assert(pl.p[2].kind == SHC_P_PARTIAL && pl.p[2].op == SHC_OP_SUM);
    ck_assert(pl.p[3].kind == SHC_P_STRIDED && pl.p[3].split_factor == 2);
    ck_assert(!pl.has_order);
    /* torch's str() forms print back unchanged. */
    roundtrip("S(0),R,P(sum),_S(0, 2)", "S(0),R,P(sum),_S(0, 2)");
    /* repr() forms: Shard(dim=1), Replicate(), Partial(max), _StridedShard(dim=0, sf=4). */
    roundtrip("Shard(dim=1),Replicate(),Partial(max),_StridedShard(dim=0, sf=4)",
              "S(1),R,P(max),_S(0, 4)");
    roundtrip("_StridedShard(dim=2, split_factor=3)", "_S(2, 3)");
    roundtrip("Partial()", "P(sum)");
    roundtrip("P", "P(sum)");
    roundtrip("Partial(reduce_op='avg')", "P(avg)");
    roundtrip("P(min),P(max),P(product),P(band),P(bor),P(bxor)",
              "P(min),P(max),P(product),P(band),P(bor),P(bxor)");
    roundtrip(" S(0) , R ", "S(0),R");
    /* Trace-state form: [i] is the mesh dim's place in its tensor dim's order. */
    ck_assert_int_eq(shc_placements_parse(&pl, "S(0)[1]S(0)[0]R", &e), SHC_OK);
    ck_assert(pl.has_order && pl.n == 3 && pl.order[0] == 1 && pl.order[1] == 0);
    roundtrip("S(0)[1]S(0)[0]R", "S(0)[1]S(0)[0]R");
    roundtrip("S(0)[0]S(1)R", "S(0)S(1)R");
    /* Default order in trace form: left to right, [i] only where nested. */
    char buf[128];
    ck_assert_int_eq(shc_placements_parse(&pl, "S(0),S(0),S(1)", &e), SHC_OK);
    shc_placements_format_trace(&pl, buf, sizeof buf);
    ck_assert_str_eq(buf, "S(0)[0]S(0)[1]S(1)");
    shc_placement pa = {SHC_P_STRIDED, 0, 2, SHC_OP_SUM}, pb = {SHC_P_STRIDED, 0, 3, SHC_OP_SUM};
    ck_assert(!shc_placement_eq(&pa, &pb));
    pb.split_factor = 2;
    ck_assert(shc_placement_eq(&pa, &pb));
    ck_assert_str_eq(shc_redop_name(SHC_OP_BXOR), "bxor");
}
END_TEST

START_TEST(placements_errors)
{
    pl_err("", "placements: empty");
    pl_err("   ", "placements: empty");
    pl_err("Q(0)", "placement 0 of 'Q(0)': unknown placement at 'Q(0)'");
    pl_err("S(0),X", "placement 1 of 'S(0),X': unknown placement at 'X'");
    pl_err("S(0", "placement 0 of 'S(0': expected ')' at ''");
    pl_err("S(x)", "placement 0 of 'S(x)': expected an integer at 'x)'");
    pl_err("S(9)", "shard dim 9 out of range -8..7");
    pl_err("S(-9)", "shard dim -9 out of range -8..7");
    pl_err("_S(-9, 2)", "shard dim -9 out of range -8..7");
    pl_err("P(a(b))", "expected ')' at '(b))'");
    pl_err("P([)", "expected a reduce op at '[)'");
    pl_err("P('0123456789012345678901234567890123')",
           "reduce op '0123456789012345678901234567890123' longer than 31 characters");
    /* issue 9 D1: an unterminated quote used to step past the string's end */
    pl_err("P('sum", "placement 0 of 'P('sum': missing closing ' after reduce op 'sum'");
    pl_err("P(\"avg'", "placement 0 of 'P(\"avg'': missing closing \" after reduce op 'avg'");
    pl_err("Partial(reduce_op='max", "missing closing ' after reduce op 'max'");
    pl_err("_S(0, 0)", "split factor 0 must be >= 1");
    pl_err("_S(0 2)", "expected ',' at '2)'");
    pl_err("S(0),", "placements 'S(0),': trailing comma");
    pl_err("R,R,R,R,R,R,R,R,R", "more than 8");
    pl_err("R[0]", "placement 0: an order index is only valid on a shard");
    pl_err("S(0)[0]S(0)[0]", "placements 0 and 1: both have order index [0] on tensor dim 0");
    pl_err("S(0)[0]S(0)", "tensor dim 0 has an order index on some but not all of its 2 mesh dims");
    pl_err("S(0)[2]S(0)[0]", "placement 0: order index [2] out of range 0..1");
    pl_err("S(0)[9]", "order index [9] out of range");
    pl_err("S(0)[x]", "expected an integer at 'x]'");
    shc_placements pl;
    ck_assert_int_eq(shc_placements_parse(&pl, NULL, NULL), SHC_EINVAL);
}
END_TEST

/* What torch 2.13 accepts and how it prints it (a real run: Partial("prod") prints P(prod)
 * and Partial(prod); Partial("Sum") != Partial("sum"); Shard(-1) on a 2-d tensor is S(1)
 * after distribute_tensor; conformance/tests/cli_torch_input.sh cites the run). */
START_TEST(placements_torch_input)
{
    shc_placements pl;
    shc_err e = {0};
    char buf[160];
    ck_assert_int_eq(shc_placements_parse(&pl, "P(prod),Partial('Sum'),P(\" a b\"),P(sum)", &e),
                     SHC_OK);
    ck_assert_int_eq(pl.p[0].op, SHC_OP_OTHER);
    ck_assert_str_eq(shc_placement_op_name(&pl.p[0]), "prod");
    ck_assert_int_eq(shc_placement_reduce_op(&pl.p[0]), SHC_OP_OTHER);
    ck_assert_int_eq(shc_placement_reduce_op(&pl.p[1]), SHC_OP_SUM); /* lowered by funcol */
    ck_assert_int_eq(shc_placement_reduce_op(&pl.p[2]), SHC_OP_OTHER);
    ck_assert(!shc_placement_eq(&pl.p[1], &pl.p[3])); /* the strings differ */
    ck_assert(shc_placement_eq(&pl.p[3], &pl.p[3]));
    shc_placements_format(&pl, buf, sizeof buf);
    ck_assert_str_eq(buf, "P(prod),P(Sum),P( a b),P(sum)");
    shc_placements_repr(&pl, buf, sizeof buf);
    ck_assert_str_eq(buf, "(Partial(prod), Partial(Sum), Partial( a b), Partial(sum))");
    ck_assert_int_eq(shc_placement_check_reduce(&pl.p[0], &e), SHC_EINVAL);
    ck_assert_str_eq(e.msg, "RuntimeError: Unrecognized reduce_op: prod (P(prod): c10d reduces "
                     "sum, avg, min, max, product, band, bor, bxor; funcol lowercases the "
                     "string first)");
    ck_assert_int_eq(shc_placement_check_reduce(&pl.p[1], &e), SHC_OK);
    shc_placement r = {.kind = SHC_P_REPLICATE};
    ck_assert_int_eq(shc_placement_check_step(&r, &pl.p[1], &e), SHC_EINVAL);
    ck_assert_str_eq(e.msg, "ValueError: Replicate to Partial(Sum) conversion is not supported.");
    ck_assert_int_eq(shc_placement_check_step(&r, &pl.p[3], &e), SHC_OK);
    ck_assert_int_eq(shc_placement_check_step(&pl.p[0], &pl.p[0], &e), SHC_OK);
    /* Partial('') prints P(), as torch prints it; P() itself is Partial() = sum */
    ck_assert_int_eq(shc_placements_parse(&pl, "P(''),P()", &e), SHC_OK);
    shc_placements_format(&pl, buf, sizeof buf);
    ck_assert_str_eq(buf, "P(),P(sum)");
    /* negative dims: kept as written until normalised by the tensor's rank */
    ck_assert_int_eq(shc_placements_parse(&pl, "S(-1),_S(-2, 2)", &e), SHC_OK);
    shc_placements_format(&pl, buf, sizeof buf);
    ck_assert_str_eq(buf, "S(-1),_S(-2, 2)");
    shc_mesh m;
    ck_assert_int_eq(shc_mesh_parse(&m, "2x2", NULL, &e), SHC_OK);
    ck_assert_int_eq(shc_placements_check(&pl, &m, 2, &e), SHC_EINVAL);
    ck_assert_int_eq(shc_placements_normalize(&pl, 2, &e), SHC_OK);
    shc_placements_format(&pl, buf, sizeof buf);
    ck_assert_str_eq(buf, "S(1),_S(0, 2)");
    ck_assert_int_eq(shc_placements_check(&pl, &m, 2, &e), SHC_OK);
    ck_assert_int_eq(shc_placements_parse(&pl, "S(-3),R", &e), SHC_OK);
    ck_assert_int_eq(shc_placements_normalize(&pl, 2, &e), SHC_EINVAL);
    ck_assert_msg(strstr(e.msg, "AssertionError: Shard dim -1 in placements"), "%s", e.msg);
    ck_assert_int_eq(shc_placements_parse(&pl, "R,S(2)", &e), SHC_OK);
    ck_assert_int_eq(shc_placements_normalize(&pl, 2, &e), SHC_OK); /* the check's to refuse */
    ck_assert_int_eq(shc_placements_check(&pl, &m, 2, &e), SHC_EINVAL);
    ck_assert_str_eq(e.msg, "placement 1 'S(2)': shard dim 2 out of range for a 2-d tensor");
    ck_assert_int_eq(shc_placements_parse(&pl, "S(-1)[1]S(-1)[0]", &e), SHC_OK);
    ck_assert_int_eq(shc_placements_normalize(&pl, 2, &e), SHC_EINVAL);
    ck_assert_msg(strstr(e.msg, "a negative dim in the trace form"), "%s", e.msg);
    shc_mesh_free(&m);
}
END_TEST

START_TEST(placements_check)
{
    shc_mesh m;
    shc_placements pl;
    shc_err e = {0};
    ck_assert_int_eq(shc_mesh_parse(&m, "2x2", NULL, &e), SHC_OK);
    ck_assert_int_eq(shc_placements_parse(&pl, "S(1),_S(2, 2)", &e), SHC_OK);
    ck_assert_int_eq(shc_placements_check(&pl, &m, 3, &e), SHC_OK);
    ck_assert_int_eq(shc_placements_check(&pl, &m, 2, &e), SHC_EINVAL);
    ck_assert_str_eq(e.msg, "placement 1 '_S(2, 2)': shard dim 2 out of range for a 2-d tensor");
    ck_assert_int_eq(shc_placements_parse(&pl, "R", &e), SHC_OK);
    ck_assert_int_eq(shc_placements_check(&pl, &m, 1, &e), SHC_EINVAL);
    ck_assert_str_eq(e.msg, "placements: 1 given for a 2-d mesh");
    shc_mesh_free(&m);
}
END_TEST

/* ---- shapes ---- */

START_TEST(shapes)
{
    shc_shape s;
    shc_err e = {0};
    int64_t n;
    char buf[64];
    ck_assert_int_eq(shc_shape_parse(&s, "8,16", &e), SHC_OK);
    ck_assert(s.ndim == 2 && s.d[0] == 8 && s.d[1] == 16);
    ck_assert_int_eq(shc_shape_numel(&s, &n, &e), SHC_OK);
    ck_assert_int_eq(n, 128);
    shc_shape_format(&s, buf, sizeof buf);
    ck_assert_str_eq(buf, "8,16");
    ck_assert_int_eq(shc_shape_parse(&s, "", &e), SHC_OK); /* 0-d tensor */
    ck_assert_int_eq(s.ndim, 0);
    ck_assert_int_eq(shc_shape_numel(&s, &n, &e), SHC_OK);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(shc_shape_parse(&s, "0,5", &e), SHC_OK);
    ck_assert_int_eq(shc_shape_numel(&s, &n, &e), SHC_OK);
    ck_assert_int_eq(n, 0);
    /* 2^31 * 2^31 = 2^62 still fits. */
    ck_assert_int_eq(shc_shape_parse(&s, "2147483648,2147483648", &e), SHC_OK);
}
END_TEST

START_TEST(shape_errors)
{
    shape_err("8,-1", SHC_EINVAL, "shape '8,-1': dim 1 has negative size -1");
    shape_err("8,,2", SHC_EINVAL, "shape item 2: expected an integer");
    shape_err("a", SHC_EINVAL, "shape item 1: expected an integer at 'a'");
    shape_err("8x2", SHC_EINVAL, "shape: unexpected 'x' in '8x2'");
    shape_err("1,1,1,1,1,1,1,1,1", SHC_EINVAL, "9 dims, at most 8");
    shape_err("9223372036854775807,2", SHC_EOVERFLOW,
              "shape 9223372036854775807,2: element count overflows int64");
    shape_err("4294967296,4294967296", SHC_EOVERFLOW, "element count overflows int64");
    shape_err("99999999999999999999", SHC_EOVERFLOW, "overflows int64");
    shc_shape s;
    ck_assert_int_eq(shc_shape_parse(&s, NULL, NULL), SHC_EINVAL);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("check_core");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, errors_prefix);
    tcase_add_test(tc, dtypes);
    tcase_add_test(tc, torch_releases);
    tcase_add_test(tc, mesh_coords);
    tcase_add_test(tc, mesh_errors);
    tcase_add_test(tc, mesh_world);
    tcase_add_test(tc, placements_forms);
    tcase_add_test(tc, placements_errors);
    tcase_add_test(tc, placements_torch_input);
    tcase_add_test(tc, placements_check);
    tcase_add_test(tc, shapes);
    tcase_add_test(tc, shape_errors);
    suite_add_tcase(s, tc);
    return shc_run_suite(s);
}
