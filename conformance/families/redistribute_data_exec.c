/*
 * redistribute_data_exec.c — the redistribute-data family executed for real: the hooks
 * exec.* (simulated ranks, a communicator, a device communicator, a vendor's ABI v2 execute)
 * and project.abi_v1 (a vendor plugin's execute), each giving golden views of its results,
 * with each rank's result compared element by element with the global tensor's slice
 * (lib/exec/testdata.c, the "oracleMismatch" note).  The family's tables, generator and
 * record are redistribute_data.c.  Tested by the runner's tests (run_mpi.sh, run_hosted.sh,
 * plugin_v2.sh, plugin_comm.sh) and check_redist_dev, on every golden case.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "families.h"
#include "plugin_case.h"
#include "checked_math.h"
#include "redistribute_exec.h"
#include "layout_common.h"
#include "redistribute_data.h"

#define RDATA_NVALUES 4

/* A case from a golden group ("mesh", "rankMap") and test ("src", "dst", "shape",
 * "dtype", "planner"). */
int shcrd_xcase_from_json(const json_t *group, const json_t *test, shc_xcase *x, shc_err *e)
{
    char mesh[256], shape[256], *ranks = NULL;
    const json_t *rm = json_object_get(group, "rankMap");
    int rc = shcl_join(json_object_get(group, "mesh"), 'x', mesh, sizeof mesh, "group mesh", e);
    if (!rc)
        rc = shcl_join(json_object_get(test, "shape"), ',', shape, sizeof shape, "test shape", e);
    if (!rc && rm) {
        size_t cap = 24 * json_array_size(rm) + 16;
        ranks = malloc(cap);
        rc = ranks ? shcl_join(rm, ',', ranks, cap, "group rankMap", e)
                   : shc_fail(e, SHC_ENOMEM, "out of memory");
    }
    const char *src = json_string_value(json_object_get(test, "src"));
    const char *dst = json_string_value(json_object_get(test, "dst"));
    const char *dt = json_string_value(json_object_get(test, "dtype"));
    if (!rc && (!src || !dst || !dt))
        rc = shc_fail(e, SHC_EFORMAT, "test: \"src\", \"dst\" and \"dtype\" must be strings");
    if (!rc)
        rc = shc_xcase_parse(x, mesh, ranks, src, dst, shape, dt,
                             json_string_value(json_object_get(test, "planner")), e);
    if (!rc && (rc = shc_test_torch(test, &x->torch, e)))
        shc_xcase_free(x);
    free(ranks);
    return rc;
}

/* One rank's view of a result: {"localShape", "sha256", "values" (the first
 * RDATA_NVALUES elements, numbers)}. */
json_t *shcrd_view(const shc_xtensor *t)
{
    char hex[65];
    shc_xtensor_sha256(t, hex);
    json_t *vals = json_array();
    for (int64_t i = 0; i < t->numel && i < RDATA_NVALUES; i++) {
        double v = shc_xtensor_value(t, i);
        json_array_append_new(vals, shc_dtype_is_int(t->dtype) ? json_integer((json_int_t)v)
                                                               : json_real(v));
    }
    return json_pack("{s:o, s:s, s:o}", "localShape",
                     shc_json_i64_array(t->shape.d, t->shape.ndim), "sha256", hex, "values", vals);
}

/* Whether x has a Shard -> Partial(sum) mesh dim its release zero-fills (torch >= 2.14): then
 * an element may be 0 where the oracle gives the global value (testdata.c classify). */
static bool zero_filled(const shc_xcase *x)
{
    for (int d = 0; d < x->mesh.ndim; d++)
        if (x->src.p[d].kind == SHC_P_SHARD && x->dst.p[d].kind == SHC_P_PARTIAL &&
            x->dst.p[d].op == SHC_OP_SUM && x->mesh.shape[d] > 1 &&
            shc_torch_has(x->torch, SHC_TC_SHARD_TO_PARTIAL))
            return true;
    return false;
}

/* Compare rank's result with the oracle (testdata.c); on a difference add
 * "oracleMismatch": "rank R: element i (bytes a..b) is X, the global tensor has Y",
 * which the invariants hook reports unless the case is a flagged finding. */
void shcrd_oracle_note(const shc_xcase *x, int64_t rank, const shc_xtensor *got, json_t *view)
{
    bool zf = zero_filled(x);
    static const char zero[8] = {0};
    shc_xtensor want;
    shc_err e = {0};
    char m[300] = "";
    if (shc_testdata_expected(x, rank, &want, &e)) {
        snprintf(m, sizeof m, "oracle: %.250s", e.msg);
    } else {
        size_t es = shc_dtype_size(want.dtype);
        bool same_shape = want.numel == got->numel && want.shape.ndim == got->shape.ndim &&
                          !memcmp(want.shape.d, got->shape.d, sizeof(int64_t) * (size_t)want.shape.ndim);
        if (!same_shape)
            snprintf(m, sizeof m, "rank %lld: local numel %lld, the global tensor's slice has %lld",
                     (long long)rank, (long long)got->numel, (long long)want.numel);
        for (int64_t i = 0; same_shape && i < want.numel; i++)
            if (memcmp((char *)want.data + i * es, (char *)got->data + i * es, es) &&
                !(zf && !memcmp((char *)got->data + i * es, zero, es))) {
                snprintf(m, sizeof m, "rank %lld: element %lld (bytes %lld..%lld) is %g, the "
                         "global tensor has %g", (long long)rank, (long long)i,
                         (long long)(i * (int64_t)es), (long long)((i + 1) * (int64_t)es - 1),
                         shc_xtensor_value(got, i), shc_xtensor_value(&want, i));
                break;
            }
        shc_xtensor_free(&want);
    }
    if (*m)
        json_object_set_new(view, "oracleMismatch", json_string(m));
}


/* ---- real execution (hooks exec.*) ---- */

/* Hook exec.simulated: every rank executed for real on world simulated ranks
 * (threads, local communicator).  A case the reference
 * rejects gives each rank an error view; only an internal failure is an error. */
int shcrd_exec_simulated(const json_t *group, const json_t *test, int64_t world,
                         json_t **views, shc_err *e)
{
    shc_xcase c;
    memset(&c, 0, sizeof c);
    int rc = shcrd_xcase_from_json(group, test, &c, e);
    shc_xtensor *res = rc ? NULL : calloc((size_t)world, sizeof *res);
    if (!rc)
        rc = res ? shc_exec_simulate(&c, res, e) : shc_fail(e, SHC_ENOMEM, "out of memory");
    if (rc == SHC_EINTERNAL || rc == SHC_ENOMEM) {
        free(res);
        shc_xcase_free(&c);
        return rc;
    }
    for (int64_t r = 0; r < world; r++) {
        if (rc) {
            views[r] = shc_error_view(e->msg);
            continue;
        }
        views[r] = shcrd_view(&res[r]);
        shcrd_oracle_note(&c, r, &res[r], views[r]);
        shc_xtensor_free(&res[r]);
    }
    free(res);
    shc_xcase_free(&c);
    shc_err_clear(e);
    return SHC_OK;
}

/* Where a rank's part executes: on the host over comm, or (dexec set) with the tensors
 * on dc's device (the executor comes from the caller: libshcgen does not link it). */
typedef struct exec_on {
    shc_comm *comm;
    shc_dexec_fn dexec;
    struct shc_dcomm *dc;
    shc_xexec_fn xexec; /* or a vendor's (ABI v2), with its ctx */
    void *ctx;
} exec_on;

static int exec_run(const exec_on *on, const shc_xcase *x, int64_t rank, const shc_xtensor *in,
                    shc_xtensor *out, shc_err *e)
{
    if (on->xexec)
        return on->xexec(on->ctx, x, rank, in, out, e);
    return on->dexec ? on->dexec(on->dc, x, in, out, e)
                     : shc_exec_redistribute(on->comm, x, in, out, e);
}

/* This rank's part executed by run over comm.  A rejected case is an error view; a
 * communicator failure (a timeout names itself "mpi: timeout") or an internal error
 * is returned. */
static int exec_view(const exec_on *on, const json_t *group, const json_t *test,
                     int64_t rank, json_t **view, shc_err *e)
{
    shc_xcase x;
    shc_xtensor in, out;
    memset(&x, 0, sizeof x);
    int rc = shcrd_xcase_from_json(group, test, &x, e);
    if (!rc && !(rc = shc_testdata_source(&x, rank, &in, e))) {
        rc = exec_run(on, &x, rank, &in, &out, e);
        shc_xtensor_free(&in);
    }
    if (!rc && !out.data && out.numel) { /* a vendor's result of another shape */
        *view = json_pack("{s:o}", "localShape", shc_json_i64_array(out.shape.d, out.shape.ndim));
    } else if (!rc) {
        *view = shcrd_view(&out);
        shcrd_oracle_note(&x, rank, &out, *view);
        shc_xtensor_free(&out);
    } else if (rc != SHC_EINTERNAL && rc != SHC_ENOMEM) {
        *view = shc_error_view(e->msg);
        shc_err_clear(e);
        rc = SHC_OK;
    }
    shc_xcase_free(&x);
    return rc;
}

/* Hook exec.over_comm: over a real communicator (MPI, or hosted ranks). */
int shcrd_exec_over_comm(shc_comm *comm, const json_t *group, const json_t *test,
                         int64_t rank, json_t **view, shc_err *e)
{
    exec_on on = {.comm = comm};
    return exec_view(&on, group, test, rank, view, e);
}

/* Hook exec.on_device_comm: the tensors in device memory (dexec:
 * shc_dexec_redistribute), collectives over a device communicator. */
int shcrd_exec_on_device_comm(shc_dexec_fn dexec, struct shc_dcomm *dc, const json_t *group,
                              const json_t *test, int64_t rank, json_t **view, shc_err *e)
{
    exec_on on = {.dexec = dexec, .dc = dc};
    return exec_view(&on, group, test, rank, view, e);
}

/* Hook exec.outside: executed by an outside executor (a plugin's ABI v2 execute). */
int shcrd_exec_outside(shc_xexec_fn exec, void *ctx, const json_t *group, const json_t *test,
                       int64_t rank, json_t **view, shc_err *e)
{
    exec_on on = {.xexec = exec, .ctx = ctx};
    return exec_view(&on, group, test, rank, view, e);
}

/* ---- vendor plugins (ABI v1) ---- */

/* A plugin's output for rank r as a view.  Its shape is the plugin's word: a
 * negative dim or an element count past int64 is refused, and the buffer is read
 * only when the shape is the oracle's (a larger claimed shape would read past the
 * plugin's buffer); otherwise the view holds the shape alone, which fails the
 * comparison with the golden localShape. */
static json_t *plugin_result_view(const shc_xcase *x, int64_t r, const int64_t *shape,
                                  shc_xtensor *t)
{
    if (!t->data)
        return shc_error_view("plugin returned no buffer");
    t->shape.ndim = x->shape.ndim;
    t->numel = 1;
    for (int d = 0; d < x->shape.ndim; d++) {
        t->shape.d[d] = shape[d];
        if (shape[d] < 0 || !shc_mul64(t->numel, shape[d], &t->numel))
            return shc_error_view("plugin returned an invalid output shape (a negative dim, "
                                  "or an element count past int64)");
    }
    shc_xtensor want;
    shc_err e = {0};
    bool same = !shc_testdata_expected(x, r, &want, &e) && want.shape.ndim == t->shape.ndim &&
                !memcmp(want.shape.d, t->shape.d, sizeof(int64_t) * (size_t)t->shape.ndim);
    shc_xtensor_free(&want);
    if (!same)
        return json_pack("{s:o}", "localShape", shc_json_i64_array(t->shape.d, t->shape.ndim));
    json_t *v = shcrd_view(t);
    shcrd_oracle_note(x, r, t, v);
    return v;
}

static int execute_views(const shc_backend_v1 *be, const shc_pcase *b, const json_t *group,
                         const json_t *test, json_t **views, shc_err *e)
{
    shc_xcase x;
    memset(&x, 0, sizeof x);
    int rc = shcrd_xcase_from_json(group, test, &x, e);
    if (rc)
        return rc;
    int64_t n = b->world;
    shc_xtensor *in = calloc((size_t)n, sizeof *in);
    const void **inp = calloc((size_t)n, sizeof *inp);
    void **out = calloc((size_t)n, sizeof *out);
    int64_t (*ishape)[SHC_BACKEND_MAX_DIMS] = calloc((size_t)n, sizeof *ishape);
    int64_t (*oshape)[SHC_BACKEND_MAX_DIMS] = calloc((size_t)n, sizeof *oshape);
    if (!in || !inp || !out || !ishape || !oshape)
        rc = shc_fail(e, SHC_ENOMEM, "out of memory");
    for (int64_t r = 0; !rc && r < n; r++) {
        if ((rc = shc_testdata_source(&x, r, &in[r], e)))
            break;
        inp[r] = in[r].data;
        memcpy(ishape[r], in[r].shape.d, sizeof(int64_t) * (size_t)x.shape.ndim);
    }
    char err[512] = "";
    int prc = rc ? 0 : be->execute(&b->c, n, inp, (const int64_t (*)[SHC_BACKEND_MAX_DIMS])ishape,
                                      out, oshape, err, sizeof err);
    if (!rc && prc == SHC_BACKEND_UNSUPPORTED)
        rc = shc_fail(e, SHC_EUNSUPPORTED, "plugin: execute unsupported: %s", err);
    for (int64_t r = 0; !rc && r < n; r++) {
        if (prc) {
            views[r] = shc_error_view(err);
            continue;
        }
        shc_xtensor t = {.dtype = x.dtype, .data = out[r]};
        views[r] = plugin_result_view(&x, r, oshape[r], &t);
    }
    for (int64_t r = 0; r < n && in; r++) {
        shc_xtensor_free(&in[r]);
        if (out)
            free(out[r]);
    }
    free(in), free(inp), free(out), free(ishape), free(oshape);
    shc_xcase_free(&x);
    (void)test;
    return rc;
}

/* Hook project.abi_v1.views: a vendor plugin's answer, as views. */
int shcrd_abi_v1_views(const shc_backend_v1 *be, const json_t *group, const json_t *test,
                       int64_t world, json_t **views, shc_err *e)
{
    return shc_pcase_views(be, group, test, world, false, execute_views, views, e);
}
