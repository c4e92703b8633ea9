/*
 * gloo_dtype.c — which redistribute steps torch's gloo process group refuses for the tensor's
 * element type.
 *
 * A plan is the same for every dtype (the dtype only prices the graph planner's moves), but
 * running it is not: the collectives a step runs check the elements.  What each refuses was
 * measured on torch 2.13.0 (and 2.15.0 where it matters) with a gloo world of two CPU
 * processes redistributing a DTensor of every dtype shardcheck names (their messages quoted
 * below); tools/harness/tests/test_torch_input.py puts the same table to real torch in the
 * test command, and conformance/tests/cli_torch_input.sh pins the CLI's answers without it.
 *
 *  - gloo carries no int16 and no float8 element at all: every step that moves data raises
 *    "Invalid scalar type" (ProcessGroupGloo's type switch), reductions and gathers alike;
 *  - band, bor and bxor reduce integers and bool only: a floating or complex tensor raises
 *    "Cannot use ReduceOp.BAND with non-integral dtype" (gloo), except that funcol's
 *    all_reduce refuses a complex tensor first, for every op but sum and avg (c10d's
 *    functional all_reduce in 2.13: "all_reduce: reduce_op band does not support complex
 *    tensors"; 2.15.0 fails an internal assert in c10d Types.hpp there instead); its
 *    reduce_scatter takes complex max, min and product, reducing real and imaginary parts
 *    apart (a quirk: no error, so no answer here);
 *  - avg on integers or bool: gloo sums, then divides in place, and the float quotient cannot
 *    be stored ("result type Float can't be cast to the desired output type Int").  NCCL
 *    averages integers natively; this refusal is gloo's (docs/findings/partial_avg_integer_gloo.py).
 * NCCL (not modelled here) refuses every bitwise op whatever the dtype.
 */
#include "config.h"
#include <ctype.h>
#include <string.h>
#include "shardcheck.h"
#include "shardcheck_exec.h"

static bool moves_data(shc_comm_kind k)
{
    return k == SHC_COMM_ALL_GATHER || k == SHC_COMM_ALL_REDUCE || k == SHC_COMM_REDUCE_SCATTER ||
           k == SHC_COMM_ALL_TO_ALL || k == SHC_COMM_STRIDED;
}

static bool bitwise(shc_redop op)
{
    return op == SHC_OP_BAND || op == SHC_OP_BOR || op == SHC_OP_BXOR;
}

/* A Partial source's reduction on gloo: all_reduce when the target is replicated (or a strided
 * shard, chunked from the replicated value), reduce_scatter when it is a plain shard. */
static int check_reduction(const shc_plan_step *st, shc_dtype_class cls, const char *scalar,
                           shc_err *e)
{
    shc_redop op = shc_placement_reduce_op(&st->src);
    if (op == SHC_OP_OTHER)
        return SHC_OK; /* funcol refuses the string first: shc_placement_check_step */
    const char *name = shc_redop_name(op);
    bool all_reduce = st->dst.kind != SHC_P_SHARD;
    if (cls == SHC_DTC_COMPLEX && all_reduce && op != SHC_OP_SUM && op != SHC_OP_AVG)
        return shc_fail(e, SHC_EINVAL, "RuntimeError: all_reduce: reduce_op %s does not support "
                        "complex tensors (torch 2.13's functional all_reduce; 2.15.0 fails an "
                        "internal assert in c10d Types.hpp)", name);
    if (bitwise(op) && cls != SHC_DTC_INT) {
        char up[8];
        size_t i = 0;
        for (; name[i] && i + 1 < sizeof up; i++)
            up[i] = (char)toupper((unsigned char)name[i]);
        up[i] = '\0';
        return shc_fail(e, SHC_EINVAL, "RuntimeError: Cannot use ReduceOp.%s with non-integral "
                        "dtype (gloo)", up);
    }
    if (op == SHC_OP_AVG && cls == SHC_DTC_INT)
        return shc_fail(e, SHC_EINVAL, "RuntimeError: result type Float can't be cast to the "
                        "desired output type %s (gloo averages by an in-place true division; "
                        "docs/findings/partial_avg_integer_gloo.py)", scalar);
    return SHC_OK;
}

/* The c10 scalar types ProcessGroupGloo's type switch has no case for, beside the float8
 * class: a row per type (measured: int16 raises, every other integer is carried). */
static const char *const gloo_lacks[] = {"Short"};

static bool gloo_carries(shc_dtype_class cls, const char *scalar)
{
    if (cls == SHC_DTC_FLOAT8)
        return false;
    for (size_t i = 0; i < sizeof gloo_lacks / sizeof *gloo_lacks; i++)
        if (!strcmp(scalar, gloo_lacks[i]))
            return false;
    return true;
}

int shc_gloo_step_check(const shc_plan_step *st, const char *dtype, shc_err *e)
{
    if (!dtype || shc_plan_step_skipped(st) || !moves_data(st->comm))
        return SHC_OK;
    shc_dtype_class cls;
    const char *scalar;
    int rc = shc_dtype_kind_of(dtype, &cls, &scalar, e);
    if (rc)
        return rc;
    if (!gloo_carries(cls, scalar))
        return shc_fail(e, SHC_EINVAL, "RuntimeError: Invalid scalar type (gloo carries no %s "
                        "elements)", dtype);
    if (st->src.kind == SHC_P_PARTIAL && st->dst.kind != SHC_P_PARTIAL)
        return check_reduction(st, cls, scalar, e);
    return SHC_OK;
}

bool shc_gloo_step_splits_complex(const shc_plan_step *st, const char *dtype)
{
    shc_dtype_class cls;
    shc_err e;
    if (!dtype || shc_plan_step_skipped(st) || st->src.kind != SHC_P_PARTIAL ||
        st->dst.kind != SHC_P_SHARD || shc_dtype_kind_of(dtype, &cls, NULL, &e) ||
        cls != SHC_DTC_COMPLEX)
        return false;
    shc_redop op = shc_placement_reduce_op(&st->src);
    return op == SHC_OP_MAX || op == SHC_OP_MIN || op == SHC_OP_PRODUCT;
}

/* Both raising-step queries live here, beside the element check they share (plan_core.c's
 * step skip is the only thing they take from the planner). */
int shc_plan_raising_step_dtype(const shc_plan *p, const char *dtype, shc_err *why)
{
    for (int i = 0; i < p->nsteps; i++) {
        const shc_plan_step *st = &p->steps[i];
        if (shc_plan_step_skipped(st))
            continue;
        if (shc_placement_check_step(&st->src, &st->dst, why) ||
            shc_gloo_step_check(st, dtype, why))
            return i;
    }
    return -1;
}

int shc_plan_raising_step(const shc_plan *p, shc_err *why)
{
    return shc_plan_raising_step_dtype(p, NULL, why);
}
