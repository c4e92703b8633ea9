/*
 * redistribute_step.h — the one step dispatcher of redistribute execution
 * (torch's redistribute_local_tensor decision table) over a small table of
 * local-tensor operations, which the host executor (redistribute_exec.c: host
 * memory, a shc_comm) and the device executor (redistribute_dev.c: device
 * memory, a shc_dcomm) each implement.  A (src, dst) rule, such as the
 * S -> P(sum) step torch 2.15 plans, is written once, in redistribute_step.c.
 * Internal (not in libshardcheck's API).  Tested by check_exec.c (host) and
 * check_redist_dev.c, which runs every redistribute-data case through both
 * tables and compares the bytes.
 */
#ifndef SHC_REDISTRIBUTE_STEP_H
#define SHC_REDISTRIBUTE_STEP_H
#include "shardcheck.h"
#include "redistribute_exec.h"

/* What a step does to a rank's local tensor, in the memory the table owns.  A tensor's
 * `data` is that memory (host or device); every op replaces *t by its result and
 * releases the old buffer, so a failed op leaves *t as it was. */
typedef struct shc_xops {
    const char *name;
    /* Re-index dim d: out[.., j, ..] = in[.., src(j), ..], zero where src(j) < 0 or past
     * the input's end; src(j) = idx[j] (host memory), or start + j when idx is NULL. */
    int (*reindex)(void *ctx, shc_xtensor *t, int d, const int64_t *idx, int64_t start,
                   int64_t n, shc_err *e);
    /* All-gather t over g and concatenate the n blocks along d (torch: funcol
     * all_gather_tensor with gather_dim d). */
    int (*all_gather_cat)(void *ctx, const shc_xgroup *g, int d, shc_xtensor *t, shc_err *e);
    /* t's dim `split` holds n equal blocks: block j goes to member j, and the blocks
     * received are concatenated along `cat` (torch: all_to_all_single on the chunks). */
    int (*all_to_all_cat)(void *ctx, const shc_xgroup *g, int split, int cat, shc_xtensor *t,
                          shc_err *e);
    /* t's dim d holds n equal blocks: reduce block j over g into member j (t becomes
     * one block: torch's reduce_scatter_tensor on the packed blocks). */
    int (*reduce_scatter_dim)(void *ctx, const shc_xgroup *g, shc_redop op, int d,
                              shc_xtensor *t, shc_err *e);
    int (*all_reduce)(void *ctx, const shc_xgroup *g, shc_redop op, shc_xtensor *t, shc_err *e);
    /* t[i] /= n in t's dtype (shc_div_scalar: torch's true division, cast back). */
    int (*div)(void *ctx, shc_xtensor *t, int64_t n, shc_err *e);
} shc_xops;

/* An executor: its op table and state, and the host communicator that knows the rank
 * and the groups (for the device executor, its staging/bootstrap communicator). */
typedef struct shc_xexec {
    const shc_xops *ops;
    void *ctx;
    shc_comm *comm;
} shc_xexec;

/* Execute one plan step in place on t, dispatched on its (src, dst) placements as
 * torch's redistribute_local_tensor branches. */
int shc_xstep_run(const shc_xexec *x, const shc_xcase *c, const shc_plan_step *st,
                  shc_xtensor *t, shc_err *e);
#endif
