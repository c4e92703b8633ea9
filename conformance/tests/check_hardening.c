/*
 * check_hardening.c — unit tests for issue 9's hardening where a library call states
 * it more directly than the CLI: the JSON loader's limits (only regular files, at
 * most SHC_MAX_JSON_BYTES, never blocking on a FIFO), MANIFEST covering the schemas
 * and verified per family, torch's launch-grid limit (D2), and the small lookups
 * every message goes through.  The CLI side of each is in hardening.sh.
 *
 * alloc_failures: this program is linked with -Wl,--wrap=malloc,calloc,realloc,strdup
 * (mk/hardening.am), so a test can make the k-th allocation of a library call fail.
 * Each call is run with allocation k = 0, 1, ... failing until it makes fewer than k + 1;
 * every such run must return SHC_ENOMEM with "out of memory" in its message (never a
 * crash, another code or a silent SHC_OK) and free everything it allocated (the wrapped
 * allocations still live are counted), and the run with nothing failing must succeed.
 */
#include "config.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tap.h"
#include "shardcheck.h"
#include "golden.h"
#include "shardcheck_ops.h"
#include "xdev.h"

/* ---- allocation failure injection (see the header comment) ---- */
void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
static long fail_at = -1; /* index of the allocation that fails; -1: none */
static long n_alloc;      /* allocations asked for since arming */
static long n_live;       /* wrapped allocations not yet freed */

static bool fail_now(void)
{
    if (fail_at < 0)
        return false;
    return __atomic_fetch_add(&n_alloc, 1, __ATOMIC_SEQ_CST) == fail_at;
}
static void *counted(void *p)
{
    if (p)
        __atomic_fetch_add(&n_live, 1, __ATOMIC_SEQ_CST);
    return p;
}
void *__wrap_malloc(size_t n) { return fail_now() ? NULL : counted(__real_malloc(n)); }
void *__wrap_calloc(size_t n, size_t m) { return fail_now() ? NULL : counted(__real_calloc(n, m)); }
void *__wrap_realloc(void *p, size_t n)
{
    if (fail_now())
        return NULL;
    void *q = __real_realloc(p, n);
    return p ? q : counted(q);
}
char *__wrap_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = __wrap_malloc(n);
    return d ? memcpy(d, s, n) : NULL;
}
void __wrap_free(void *p)
{
    if (p)
        __atomic_fetch_sub(&n_live, 1, __ATOMIC_SEQ_CST);
    __real_free(p);
}

typedef int (*alloc_fn)(shc_err *e);
static bool af_record; /* the run with nothing failing: a call records its answers */

/* Runs fn with allocation k failing for every k it reaches (see the header comment).
 * absorbs: the call may live without an allocation (a cache it can do without) and then
 * must still give the answers it recorded with nothing failing; fn compares them. */
static void each_alloc_fails(const char *what, alloc_fn fn, bool absorbs)
{
    shc_err e0 = {0};
    af_record = true;
    int rc0 = fn(&e0);
    af_record = false;
    ck_assert_msg(rc0 == SHC_OK, "%s: %d '%s'", what, rc0, e0.msg);
    for (long k = 0;; k++) {
        shc_err e = {0};
        __atomic_store_n(&n_live, 0, __ATOMIC_SEQ_CST);
        __atomic_store_n(&n_alloc, 0, __ATOMIC_SEQ_CST);
        __atomic_store_n(&fail_at, k, __ATOMIC_SEQ_CST);
        int rc = fn(&e);
        __atomic_store_n(&fail_at, -1, __ATOMIC_SEQ_CST);
        long made = n_alloc, live = n_live;
        ck_assert_msg(live == 0, "%s: with allocation %ld failing, %ld blocks are left", what,
                      k, live);
        if (made <= k) { /* nothing failed: the call must have succeeded */
            ck_assert_msg(rc == SHC_OK, "%s: %d '%s' with no allocation failing", what, rc,
                          e.msg);
            ck_assert_msg(k > 0, "%s allocates nothing: not a test of its failures", what);
            return;
        }
        if (absorbs && rc == SHC_OK)
            continue;
        ck_assert_msg(rc == SHC_ENOMEM && strstr(e.msg, "out of memory"),
                      "%s: allocation %ld of %ld failing gave %d '%s'", what, k, made, rc, e.msg);
    }
}

static char dir[] = "/tmp/check_hardening.XXXXXX";

static void write_file(const char *rel, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    FILE *f = fopen(p, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
}

static void load_err(const char *rel, int code, const char *want)
{
    char p[512];
    shc_err e = {0};
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    ck_assert_ptr_null(shc_json_load_path(p, &e));
    ck_assert_int_eq(e.code, code);
    ck_assert_msg(strstr(e.msg, want), "%s: message '%s' lacks '%s'", rel, e.msg, want);
}

START_TEST(json_loader_limits)
{
    shc_err e = {0};
    write_file("ok.json", "{\"a\": [1, 2]}");
    char p[512];
    snprintf(p, sizeof p, "%s/ok.json", dir);
    json_t *j = shc_json_load_path(p, &e);
    ck_assert_ptr_nonnull(j);
    json_decref(j);
    write_file("bad.json", "{\"a\": [1, ");
    load_err("bad.json", SHC_EFORMAT, "line 1 column");
    load_err("absent.json", SHC_EIO, "cannot read");
    snprintf(p, sizeof p, "%s/sub.json", dir);
    ck_assert_int_eq(mkdir(p, 0700), 0);
    load_err("sub.json", SHC_EINVAL, "is not a regular file (a directory)");
    snprintf(p, sizeof p, "%s/fifo", dir);
    ck_assert_int_eq(mkfifo(p, 0600), 0);
    load_err("fifo", SHC_EINVAL, "is not a regular file (a FIFO)"); /* returns at once */
    snprintf(p, sizeof p, "%s/big.json", dir);
    int fd = open(p, O_CREAT | O_WRONLY, 0600);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(ftruncate(fd, (off_t)SHC_MAX_JSON_BYTES + 1), 0);
    close(fd);
    load_err("big.json", SHC_EINVAL, "the limit for a JSON input is 1073741824 bytes");
    ck_assert_ptr_null(shc_json_load_path("/dev/null", &e));
    ck_assert_msg(strstr(e.msg, "a character device"), "%s", e.msg);
}
END_TEST

START_TEST(manifest_covers_schemas)
{
    char p[512];
    shc_err e = {0};
    const char *sub[] = {"fam", "other", "schemas"};
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, sub[i]);
        ck_assert_int_eq(mkdir(p, 0700), 0);
    }
    write_file("fam/a.json", "{}\n");
    write_file("other/b.json", "{}\n");
    write_file("schemas/fam_v1.json", "{\"type\": \"object\"}\n");
    ck_assert_int_eq(shc_manifest_write(dir, &e), SHC_OK);
    ck_assert_int_eq(shc_manifest_verify(dir, &e), SHC_OK);
    write_file("schemas/fam_v1.json", "{\"type\": \"array\"}\n");
    ck_assert_int_eq(shc_manifest_verify(dir, &e), SHC_EFORMAT);
    ck_assert_msg(strstr(e.msg, "schemas/fam_v1.json has sha256"), "%s", e.msg);
    ck_assert_int_eq(shc_manifest_verify_family(dir, "fam", &e), SHC_EFORMAT);
    ck_assert_int_eq(shc_manifest_verify_family(dir, "other", &e), SHC_OK); /* not its schema */
    write_file("other/b.json", "[]\n");
    write_file("other/c.json", "[]\n");
    ck_assert_int_eq(shc_manifest_verify_family(dir, "other", &e), SHC_EFORMAT);
    ck_assert_msg(strstr(e.msg, "other/b.json has sha256"), "%s", e.msg);
    ck_assert_int_eq(shc_manifest_write(dir, &e), SHC_OK);
    ck_assert_int_eq(shc_manifest_verify_family(dir, "fam", &e), SHC_OK);
    write_file("fam/z.json", "{}\n");
    ck_assert_int_eq(shc_manifest_verify_family(dir, "fam", &e), SHC_EFORMAT);
    ck_assert_msg(strstr(e.msg, "fam/z.json is not listed"), "%s", e.msg);
    ck_assert_int_eq(shc_manifest_verify_family(dir, "other", &e), SHC_OK);
}
END_TEST

START_TEST(torch_grid_limit)
{
    shc_gpu_profile g;
    shc_err e = {0};
    ck_assert_int_eq(shc_gpu_profile_parse("a100", &g, &e), SHC_OK);
    const int64_t max = (int64_t)UINT32_MAX * 256;
    for (int op = SHC_TORCH_UNIFORM; op <= SHC_TORCH_DROPOUT; op++) {
        shc_torch_rng_req r;
        int64_t after = 0;
        shc_torch_rng_req_init(&r, (shc_torch_op)op, SHC_DT_FLOAT32, max + 1);
        ck_assert_int_eq(shc_torch_rng_offset_after(&g, 0, &r, &after, &e), SHC_EINVAL);
        ck_assert_msg(strstr(e.msg, "holds at most 1099511627520"), "%s", e.msg);
        r.numel = (int64_t)1 << 40; /* a block count of exactly 2^32: torch divides by 0 */
        ck_assert_int_eq(shc_torch_rng_offset_after(&g, 0, &r, &after, &e), SHC_EINVAL);
        r.numel = max;
        ck_assert_int_eq(shc_torch_rng_offset_after(&g, 0, &r, &after, &e), SHC_OK);
        ck_assert_int_gt(after, 0);
    }
}
END_TEST

START_TEST(names)
{
    const int codes[] = {SHC_OK, SHC_EINVAL, SHC_EOVERFLOW, SHC_ENOMEM, SHC_EIO, SHC_EFORMAT,
                         SHC_EUNSUPPORTED, SHC_EINTERNAL, 12345};
    const char *want[] = {"ok", "invalid input", "overflow", "out of memory", "i/o error",
                          "malformed file", "not supported", "internal error", "internal error"};
    for (int i = 0; i < 9; i++)
        ck_assert_str_eq(shc_strerror(codes[i]), want[i]);
    ck_assert_str_eq(shc_philox_path_name(SHC_PHILOX_AUTO), "auto");
    ck_assert_str_eq(shc_philox_path_name(SHC_PHILOX_SCALAR), "scalar");
    ck_assert_str_eq(shc_philox_path_name(SHC_PHILOX_AVX2), "avx2");
    ck_assert_str_eq(shc_philox_path_name(SHC_PHILOX_AVX512), "avx512");
    ck_assert_str_eq(shc_philox_path_name((shc_philox_path)42), "?");
    ck_assert(!shc_philox_path_available((shc_philox_path)42));
    ck_assert(shc_philox_path_available(shc_philox_best_path()));
}
END_TEST

/* ---- the calls alloc_failures runs: each frees what it made, so every block is counted ---- */

static int af_mesh(shc_err *e)
{
    shc_mesh m;
    int rc = shc_mesh_parse(&m, "2x3", "5,4,3,2,1,0", e);
    if (!rc)
        shc_mesh_free(&m);
    return rc;
}

/* A layout with an _StridedShard index list, groups, seed-002 rank lists and HSDP groups. */
static int af_layout_groups(shc_err *e)
{
    shc_mesh m;
    shc_placements pl, hp;
    shc_shape sh;
    int rc = shc_mesh_parse(&m, "2x2x2", "7,6,5,4,3,2,1,0", e);
    if (rc)
        return rc;
    const int axes[2] = {0, 2};
    if (!(rc = shc_placements_parse(&pl, "_S(0, 2),S(0),R", e)) &&
        !(rc = shc_placements_parse(&hp, "S(0),R,R", e)) && !(rc = shc_shape_parse(&sh, "8,6", e)))
        for (int64_t r = 0; r < m.size && !rc; r++) {
            shc_layout l;
            shc_groups g, sg;
            shc_hsdp h;
            int64_t *list = NULL, n;
            if (!(rc = shc_layout_of_rank(&m, &pl, &sh, r, &l, e)))
                shc_layout_free(&l);
            if (!rc && !(rc = shc_groups_for_axes(&m, axes, 2, &g, e)))
                shc_groups_free(&g);
            if (!rc && !(rc = shc_split_rank_lists_for_axes(&m, axes, 2, &sg, e)))
                shc_groups_free(&sg);
            if (!rc && !(rc = shc_rank_list_for_axes(&m, axes, 2, r, &list, &n, e)))
                free(list);
            if (!rc && !(rc = shc_hsdp_groups(&m, &hp, 1, r, &h, e)))
                shc_hsdp_free(&h);
        }
    shc_mesh_free(&m);
    return rc;
}

/* The offsets audit and every RNG policy's property check. */
static int af_rng_audit_policies(shc_err *e)
{
    shc_mesh m;
    shc_placements pl;
    shc_shape sh;
    shc_gpu_profile g;
    int rc = shc_mesh_parse(&m, "2x2", NULL, e);
    if (rc)
        return rc;
    if (!(rc = shc_placements_parse(&pl, "S(0),R", e)) && !(rc = shc_shape_parse(&sh, "5,7", e)) &&
        !(rc = shc_gpu_profile_parse("a100", &g, e))) {
        shc_rng_audit a;
        rc = shc_rng_audit_layout(&m, &pl, &sh, &a, e);
        for (int i = 0; !rc && i < shc_rng_policy_count(); i++) {
            unsigned holds;
            rc = shc_rng_policy_check(shc_rng_policy_at(i), &g, &m, &pl, &sh, 3, &holds, e);
            if (rc == SHC_EINVAL) /* a layout the policy refuses: not an allocation's doing */
                rc = SHC_OK;
        }
    }
    shc_mesh_free(&m);
    return rc;
}

/* Plans by both planners for every rank, and the plan audit. */
static int af_plans(shc_err *e)
{
    shc_mesh m;
    shc_placements src, dst;
    shc_shape sh;
    int rc = shc_mesh_parse(&m, "2x2x2", NULL, e);
    if (rc)
        return rc;
    if (!(rc = shc_placements_parse(&src, "S(0),S(0),_S(1, 2)", e)) &&
        !(rc = shc_placements_parse(&dst, "S(1),R,S(0)", e)) && !(rc = shc_shape_parse(&sh, "8,8,8", e)))
        for (int planner = SHC_PLANNER_GREEDY; planner <= SHC_PLANNER_GRAPH && !rc; planner++) {
            shc_plan_opts o;
            shc_plan_opts_init(&o);
            o.planner = (shc_planner)planner;
            for (int64_t r = 0; r < m.size && !rc; r++) {
                shc_plan p = {0};
                rc = shc_plan_compute(&m, &src, &dst, &sh, &o, r, &p, e);
                shc_plan_free(&p);
            }
            shc_plan_finding *f = NULL;
            int nf = 0;
            if (!rc)
                rc = shc_plan_audit(&m, &src, &dst, &sh, &o, &f, &nf, e);
            free(f);
        }
    shc_mesh_free(&m);
    return rc;
}

/* Each rank's plan as its trace and step count: recorded, then compared. */
static char ref_trace[8][512];
static int ref_nsteps[8];

static int each_plan(void *ctx, int64_t rank, const shc_plan *plan, shc_err *e)
{
    (void)ctx;
    const char *t = plan->trace ? plan->trace : "-";
    if (af_record) {
        snprintf(ref_trace[rank], sizeof ref_trace[rank], "%s", t);
        ref_nsteps[rank] = plan->nsteps;
    } else if (strcmp(ref_trace[rank], t) || ref_nsteps[rank] != plan->nsteps) {
        return shc_fail(e, SHC_EINTERNAL, "rank %lld plans %s, not %s", (long long)rank, t,
                        ref_trace[rank]);
    }
    return SHC_OK;
}

/* The graph planner's search with the trace on, for one rank and through its cache. */
static int af_graph_trace(shc_err *e)
{
    shc_mesh m;
    shc_placements src, dst;
    shc_shape sh;
    int rc = shc_mesh_parse(&m, "2x2x2", NULL, e);
    if (rc)
        return rc;
    shc_plan_opts o;
    shc_plan_opts_init(&o);
    o.planner = SHC_PLANNER_GRAPH;
    o.trace = true;
    int seen = 0;
    if (!(rc = shc_placements_parse(&src, "S(0),S(0),P(sum)", e)) &&
        !(rc = shc_placements_parse(&dst, "S(1),R,S(0)", e)) && !(rc = shc_shape_parse(&sh, "8,8,8", e))) {
        shc_plan p = {0};
        rc = shc_plan_compute(&m, &src, &dst, &sh, &o, 5, &p, e);
        if (!rc && p.nsteps < 2) /* the case must be worth a search */
            rc = shc_fail(e, SHC_EINTERNAL, "%d steps", p.nsteps);
        shc_plan_free(&p);
        if (!rc)
            rc = shc_plan_each_rank(&m, &src, &dst, &sh, &o, m.ranks, m.size, each_plan, &seen, e);
    }
    shc_mesh_free(&m);
    return rc;
}

/* Redistribute on simulated ranks (threads) and the test data's oracle: a shard-order
 * change, an all-to-all, a reduce-scatter, and strided shards gathered. */
static const char *const af_exec_rows[][4] = {
    {"S(0),_S(1, 2)", "S(1),S(0)", "6,8", "float32"},
    {"S(0),S(1)", "S(1),S(0)", "4,6", "float32"},
    {"P(sum),R", "S(0),S(1)", "5,6", "float64"},
    {"_S(0, 2),S(0)", "R,R", "9,2", "float32"},
    {"S(0)[1]S(0)[0]", "R,S(1)", "8,4", "int32"},
    {"P(avg),R", "R,S(0)", "6,3", "bfloat16"},
};

static int af_exec(shc_err *e)
{
    int rc = SHC_OK;
    for (size_t i = 0; i < sizeof af_exec_rows / sizeof *af_exec_rows && !rc; i++) {
        shc_xcase x;
        const char *const *r = af_exec_rows[i];
        if ((rc = shc_xcase_parse(&x, "2x2", NULL, r[0], r[1], r[2], r[3], NULL, e)))
            return rc;
        shc_xtensor out[4], want;
        memset(out, 0, sizeof out);
        memset(&want, 0, sizeof want);
        rc = shc_exec_simulate(&x, out, e);
        for (int k = 0; k < 4; k++)
            shc_xtensor_free(&out[k]);
        if (!rc && !(rc = shc_testdata_expected(&x, 3, &want, e)))
            shc_xtensor_free(&want);
        shc_xcase_free(&x);
    }
    return rc;
}

/* The same on the CPU grid emulator with host-staged collectives (the cuda backend's path). */
typedef struct dev_case {
    shc_xcase x;
    shc_xtensor out[4];
} dev_case;

static int open_emu(void *arg, int64_t rank, shc_xdev **out, shc_err *e)
{
    (void)arg, (void)rank;
    return shc_xdev_emu_open(0, 64, out, e);
}

static int dev_rank(shc_dcomm *dc, void *arg, shc_err *e)
{
    dev_case *c = arg;
    shc_xtensor in;
    int rc = shc_testdata_source(&c->x, dc->host->rank, &in, e);
    if (!rc) {
        rc = shc_dexec_redistribute(dc, &c->x, &in, &c->out[dc->host->rank], e);
        shc_xtensor_free(&in);
    }
    return rc;
}

static int af_dev(shc_err *e)
{
    int rc = SHC_OK;
    for (size_t i = 0; i < sizeof af_exec_rows / sizeof *af_exec_rows && !rc; i++) {
        dev_case c;
        memset(&c, 0, sizeof c);
        const char *const *r = af_exec_rows[i];
        if ((rc = shc_xcase_parse(&c.x, "2x2", NULL, r[0], r[1], r[2], r[3], NULL, e)))
            return rc;
        rc = shc_dexec_local_run(4, open_emu, NULL, dev_rank, &c, NULL, e);
        for (int k = 0; k < 4; k++)
            shc_xtensor_free(&c.out[k]);
        shc_xcase_free(&c.x);
    }
    return rc;
}

/* HSDP groups of more than 32 ranks (sorted through a buffer), an untracked op's audit, and
 * the float64 log kernels' RCP64H sensitivity count. */
static int af_rng_more(shc_err *e)
{
    shc_mesh m;
    shc_placements pl;
    shc_shape sh;
    shc_gpu_profile g;
    int rc = shc_mesh_parse(&m, "64x2", NULL, e);
    if (rc)
        return rc;
    if (!(rc = shc_placements_parse(&pl, "R,R", e)))
        for (int d = 0; d < 2 && !rc; d++) {
            shc_hsdp h;
            if (!(rc = shc_hsdp_groups(&m, &pl, d, 5, &h, e)))
                shc_hsdp_free(&h);
        }
    shc_rng_audit a;
    if (!rc && !(rc = shc_placements_parse(&pl, "S(0),R", e)) && !(rc = shc_shape_parse(&sh, "8,4", e)))
        rc = shc_rng_audit_op(shc_rng_op_find("exponential_"), &m, &pl, &sh, &a, e);
    shc_mesh_free(&m);
    shc_torch_rng_req r;
    int64_t cnt;
    shc_torch_rng_req_init(&r, SHC_TORCH_NORMAL, SHC_DT_FLOAT64, 100);
    if (!rc && !(rc = shc_gpu_profile_parse("a100", &g, e)))
        rc = shc_torch_rng_rcp_sensitive(&g, 1, 0, &r, &cnt, e);
    return rc;
}

/* torch's CUDA sampling ops: multinomial without replacement, randperm, bernoulli(p). */
static int af_sample(shc_err *e)
{
    shc_gpu_profile g;
    int rc = shc_gpu_profile_parse("a100", &g, e);
    double w[6] = {0.5, 0.25, 0.25, 1, 0, 3}; /* row sums 1 and 4: exact in float32 */
    int64_t o[64], no;
    shc_torch_sample_req m = {.op = SHC_TORCH_SAMPLE_MULTINOMIAL, .dtype = SHC_DT_FLOAT32,
                              .n = 2, .replacement = false, .w = w, .nw = 6};
    m.shape.ndim = 2;
    m.shape.d[0] = 2;
    m.shape.d[1] = 3;
    if (!rc)
        rc = shc_torch_sample_run(&g, 5, 0, &m, o, &no, e);
    m.replacement = true;
    if (!rc)
        rc = shc_torch_sample_run(&g, 5, 0, &m, o, &no, e);
    shc_torch_sample_req p = {.op = SHC_TORCH_SAMPLE_RANDPERM, .dtype = SHC_DT_INT64, .n = 40};
    if (!rc)
        rc = shc_torch_sample_run(&g, 5, 0, &p, o, &no, e);
    float b[6];
    shc_torch_sample_req bp = {.op = SHC_TORCH_SAMPLE_BERNOULLI_P, .dtype = SHC_DT_FLOAT32,
                               .p_dtype = SHC_DT_FLOAT64, .w = w, .nw = 3};
    bp.shape.ndim = 2;
    bp.shape.d[0] = 2;
    bp.shape.d[1] = 3;
    bp.p_shape.ndim = 1;
    bp.p_shape.d[0] = 3;
    w[2] = 0.75; /* p in [0, 1] */
    if (!rc)
        rc = shc_torch_sample_run(&g, 5, 0, &bp, b, &no, e);
    return rc;
}

/* Every allocation a library call makes can fail (issue 25 item 6: the ENOMEM branches). */
START_TEST(alloc_failures)
{
    each_alloc_fails("mesh", af_mesh, false);
    each_alloc_fails("layout, groups, rank lists, hsdp", af_layout_groups, false);
    each_alloc_fails("rng audit and policies", af_rng_audit_policies, false);
    each_alloc_fails("plans and plan audit", af_plans, false);
    each_alloc_fails("graph planner with trace", af_graph_trace, true);
    each_alloc_fails("exec simulate", af_exec, false);
    each_alloc_fails("exec on the grid emulator", af_dev, false);
    each_alloc_fails("hsdp, untracked audit, rcp64h count", af_rng_more, false);
    each_alloc_fails("sampling ops", af_sample, false);
}
END_TEST

static void cleanup(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "check_hardening: could not remove %s\n", dir);
}

int main(void)
{
    if (!mkdtemp(dir))
        return 99;
    Suite *s = suite_create("check_hardening");
    TCase *tc = tcase_create("hardening");
    tcase_add_test(tc, json_loader_limits);
    tcase_add_test(tc, manifest_covers_schemas);
    tcase_add_test(tc, torch_grid_limit);
    tcase_add_test(tc, names);
    suite_add_tcase(s, tc);
    tc = tcase_create("alloc_failures"); /* a few thousand runs, threads included */
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, alloc_failures);
    suite_add_tcase(s, tc);
    int rc = shc_run_suite(s);
    cleanup();
    return rc;
}
