/*
 * cuda_sfu.h — models of the H100's (sm_90) special-function unit as torch's
 * float random kernels reach it: MUFU.SIN, MUFU.COS (on t = fmul_rz(a, 1/2pi)),
 * MUFU.LG2, and the intrinsics built from them, __sincosf and __logf.
 *
 * The models are the unit's integer interpolator recovered from exhaustive H100
 * recordings and reproduce every recorded entry (docs/cuda-math.md); inputs outside
 * the recorded binades follow the same structure, unrecorded.  Tested by
 * conformance/tests/check_cuda_math.c, which replays a committed subset of the
 * recordings and requires each entry bit for bit.
 */
#ifndef SHC_CUDA_SFU_H
#define SHC_CUDA_SFU_H

#ifdef __cplusplus
extern "C" {
#endif

/* MUFU.SIN / MUFU.COS on their own input t: about sin(2 pi t) / cos(2 pi t). */
float shc_sfu_sin(float t);
float shc_sfu_cos(float t);
/* MUFU.LG2 (lg2.approx.ftz.f32's core): about log2(x). */
float shc_sfu_lg2(float x);

/* FMUL.RZ a * 0x3e22f983, the argument __sincosf gives MUFU. */
float shc_sfu_sincos_arg(float a);
/* __sincosf(a) as nvcc 13.0 compiles it for sm_90. */
void shc_cuda_fast_sincosf(float a, float *s, float *c);
/* __logf(x): MUFU.LG2 (inputs below 2^-126 scaled by 2^24 first) times 0x3f317218. */
float shc_cuda_fast_logf(float x);
/* __tanf(a) as nvcc 13.0 compiles it for sm_90 (torch 2.11's cauchy_ kernel):
 * FMUL.RZ, MUFU.SIN and MUFU.COS (modelled), both scaled by 2^24 when |cos| <
 * 2^-126, then MUFU.RCP of the cosine (cuda_sfu_rcp_ex2.c) times the sine. */
float shc_cuda_fast_tanf(float a);
/* __expf(x) as nvcc 13.0 compiles it for sm_90 (torch 2.11's log_normal_ kernel): x times
 * log2(e), halved when below -126, MUFU.EX2 (cuda_sfu_rcp_ex2.c), squared when halved. */
float shc_cuda_fast_expf(float x);

#ifdef __cplusplus
}
#endif

#endif
