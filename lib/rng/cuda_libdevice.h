/*
 * cuda_libdevice.h — CUDA 13.0 libdevice math functions (libdevice.10.bc) that
 * torch's random kernels reach, reimplemented on a CPU with the same operation
 * order and FMA placement so that they return the GPU's bits.
 *
 * Algorithms were read from `llvm-dis libdevice.10.bc` (CUDA 13.0.88); each
 * function cites its libdevice name (log, sincospi, logf, exp, log1p, tan).
 * Tested by conformance/tests/check_cuda_math.c
 * against vectors that libdevice's own IR produced when compiled for the host
 * (tools/gpu/libdevice_vectors.sh, conformance/tests/data/libdevice/).
 */
#ifndef SHC_CUDA_LIBDEVICE_H
#define SHC_CUDA_LIBDEVICE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* rcp.approx.ftz.f64 (MUFU.RCP64H): a reciprocal on the high word only; our model
 * (see cuda_libdevice.c).  __nv_log refines it with a Newton step, and the model
 * choice does not change log's result on the vectors checked. */
double shc_cuda_rcp_approx_ftz_d(double d);

/* __nv_log: double natural log. */
double shc_cuda_log(double a);

/* __nv_sincospi: sin(pi a) and cos(pi a), double. */
void shc_cuda_sincospi(double a, double *s, double *c);

/* __nv_logf (non-ftz path, nvcc's default): float natural log. */
float shc_cuda_logf(float a);

/* __nv_exp: double e^a (pure FMA code). */
double shc_cuda_exp(double a);

/* __nv_log1p: double log(1 + a); its |a| >= ~0.4 branch is __nv_log(1 + a),
 * so it shares log's MUFU.RCP64H seed there. */
double shc_cuda_log1p(double a);

/* __nv_tan: double tangent, bit-exact for |a| < 2^31 (odd quadrants use the
 * MUFU.RCP64H model).  libdevice's Payne-Hanek path for |a| >= 2^31 is not
 * reimplemented: those a return the host tan(), which may differ in the last
 * bit (torch's cauchy_ passes |a| <= pi/2 only). */
double shc_cuda_tan(double a);

/* __nv_log1pf (non-ftz): float log(1 + a), pure FMA code.  Not what torch's
 * at::log1p<float> runs on the device (__logf(1.0f + x)). */
float shc_cuda_log1pf(float a);

/* shc_cuda_tan with another model of rcp.approx.ftz.f64 (check_cuda_math measures
 * that the result does not depend on the seed). */
double shc_cuda_tan_rcp(double a, double (*rcp)(double));

#ifdef __cplusplus
}
#endif

#endif
