/*
 * cuda_sfu_rcp_ex2.h — models of two more units of the H200's (sm_90)
 * special-function unit: MUFU.RCP (rcp.approx.ftz.f32, behind __fdividef and
 * __tanf's division: float cauchy_) and MUFU.EX2 (ex2.approx.ftz.f32, behind
 * __expf: float log_normal_).
 *
 * Both are the unit's integer quadratic interpolator recovered from exhaustive
 * H200 recordings (tools/gpu/fit_rcp_ex2.py) and reproduce every recorded entry:
 * MUFU.RCP on [1, 2), and through it MUFU.RCP64H on [1, 2); MUFU.EX2 on [0.5, 1),
 * [1, 2), [-1, -0.5), [-2, -1).  Other binades and the special inputs follow the
 * structure and the ftz/NaN conventions stated in cuda_sfu_rcp_ex2.c; on the same GPU
 * tools/gpu/sfu_scan.cu compared both functions with the unit on all 2^32 floats: 0 differ.
 */
#ifndef SHC_CUDA_SFU_RCP_EX2_H
#define SHC_CUDA_SFU_RCP_EX2_H

#ifdef __cplusplus
extern "C" {
#endif

/* MUFU.RCP: about 1/x, the truncation of a value within one unit of the last
 * place above the exact reciprocal; subnormal inputs and outputs flushed to
 * (signed) zero, +-0 -> +-inf, +-inf -> +-0, NaN -> 0x7fffffff. */
float shc_sfu_rcp_sm90(float x);
/* MUFU.EX2: about 2^x, x truncated to 23 fraction bits first; subnormal inputs
 * count as 0 (-> 1), results below 2^-126 flush to +0, x >= 128 -> +inf,
 * -inf -> +0, NaN -> 0x7fffffff. */
float shc_sfu_ex2_sm90(float x);

#ifdef __cplusplus
}
#endif

#endif
