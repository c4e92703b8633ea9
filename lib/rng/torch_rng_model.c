/*
 * torch_rng_model.c — which modelled steps an output of torch's CUDA random kernels rests on,
 * so that every answer can say how exact it is: the golden torch-cuda-rng cases (their flags)
 * and `shardcheck rng` (its "modelled" member) ask this one function.
 *
 * Why: most kernels are exact integer and IEEE arithmetic, reproduced bit for bit; some steps
 * are hardware units or compiler choices known only from recordings or assumptions:
 *  - the special-function unit (MUFU.SIN/COS/LG2) of float normal_, exponential_ and
 *    geometric_: modelled for sm_90 from an H100's recordings (lib/rng/cuda_sfu.c: exact
 *    there, SfuModel); on other generations glibc stands in for an unrecorded unit (GpuOnly);
 *  - float log_normal_ and cauchy_ (MUFU.EX2, MUFU.RCP): modelled for sm_90 from an H200's
 *    recordings (lib/rng/cuda_sfu_rcp_ex2.c, SfuModel); off sm_90 log_normal_, geometric_
 *    and cauchy_ are not modelled (CudaMathTodo);
 *  - float64 ops through libdevice log: MUFU.RCP64H seeds its Newton step.  On sm_90 the
 *    unit is a recording of every high word (lib/rng/cuda_rcp64h.c), so the output is exact;
 *    elsewhere the elements whose value changes with a one-unit change of that seed
 *    (shc_torch_rng_rcp_sensitive) rest on an unrecorded unit: none, the output is exact on
 *    any unit that close; some, GpuOnly.  float64 cauchy_'s tan does not depend on its seed;
 *  - uniform_/normal_ with a non-default range or mean/std: the affine step as nvcc 13.0
 *    contracts it into an FMA (FmaContract).
 * Tested by check_torch_rng.c (torch_rng_model) and, through the golden flags it decides, by
 * golden_regen.sh (the corpus regenerates byte for byte).
 */
#include "config.h"
#include <string.h>
#include "shardcheck.h"

static bool uses_sfu(shc_torch_op op)
{
    return op == SHC_TORCH_NORMAL || op == SHC_TORCH_EXPONENTIAL || op == SHC_TORCH_GEOMETRIC ||
           op == SHC_TORCH_LOG_NORMAL || op == SHC_TORCH_CAUCHY;
}

static bool reaches_log64(const shc_torch_rng_req *r)
{
    return r->dtype == SHC_DT_FLOAT64 &&
           (r->op == SHC_TORCH_NORMAL || r->op == SHC_TORCH_EXPONENTIAL ||
            r->op == SHC_TORCH_LOG_NORMAL || r->op == SHC_TORCH_GEOMETRIC);
}

int shc_torch_rng_model_of(const shc_gpu_profile *g, uint64_t seed, int64_t offset,
                           const shc_torch_rng_req *r, shc_torch_rng_model *out, shc_err *e)
{
    memset(out, 0, sizeof *out);
    out->rcp64h = -1;
    bool sm90 = shc_gpu_sfu_model(g) == SHC_SFU_SM90, dbl = r->dtype == SHC_DT_FLOAT64;
    bool math = r->op == SHC_TORCH_LOG_NORMAL || r->op == SHC_TORCH_GEOMETRIC ||
                r->op == SHC_TORCH_CAUCHY;
    bool exact_math = dbl && r->op == SHC_TORCH_CAUCHY; /* tan washes its seed out */
    bool sfu = sm90 && !dbl && uses_sfu(r->op);
    if (g && reaches_log64(r) && sm90) {
        out->rcp64h = 0; /* the recorded unit itself: nothing rests on a model */
        exact_math = true;
    } else if (g && reaches_log64(r)) {
        int rc = shc_torch_rng_rcp_sensitive(g, seed, offset, r, &out->rcp64h, e);
        if (rc)
            return rc;
        if (out->rcp64h == 0)
            exact_math = true; /* nothing rests on the seed */
    }
    out->sfu_model = sfu;
    out->unit_unrecorded = (r->op == SHC_TORCH_NORMAL || r->op == SHC_TORCH_EXPONENTIAL ||
                            (math && !exact_math)) && !sfu && out->rcp64h != 0;
    out->math_todo = math && !dbl && !sfu;
    out->fma_contract = (r->op == SHC_TORCH_UNIFORM || r->op == SHC_TORCH_NORMAL) &&
                        (r->a != 0.0 || r->b != 1.0); /* [0, 1) and (0, 1) are the defaults */
    return SHC_OK;
}
