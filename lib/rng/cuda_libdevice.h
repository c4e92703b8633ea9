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
#include "cuda_rcp64h.h" /* MUFU.RCP64H, the seed of log, log1p and tan */

#ifdef __cplusplus
extern "C" {
#endif

/* __nv_log: double natural log, its MUFU.RCP64H seed from cuda_rcp64h.c's model.
 * The Newton step after the seed does not wash out the seed's last bit: about 2
 * cuRAND-domain inputs in 10^5 give another result for a seed one unit away. */
double shc_cuda_log(double a);
/* ... with the model's seed moved by shift units (cuda_rcp64h.h). */
double shc_cuda_log_shift(double a, int shift);
/* ... with another model of the unit (the libdevice vectors use
 * shc_cuda_rcp64h_trunc, their oracle's). */
double shc_cuda_log_rcp(double a, double (*rcp)(double));

/* __nv_sincospi: sin(pi a) and cos(pi a), double. */
void shc_cuda_sincospi(double a, double *s, double *c);

/* __nv_logf (non-ftz path, nvcc's default): float natural log. */
float shc_cuda_logf(float a);

/* __nv_exp: double e^a (pure FMA code). */
double shc_cuda_exp(double a);

/* __nv_log1p: double log(1 + a); its |a| >= ~0.4 branch is __nv_log(1 + a),
 * so it shares log's MUFU.RCP64H seed there. */
double shc_cuda_log1p(double a);
double shc_cuda_log1p_shift(double a, int shift);
double shc_cuda_log1p_rcp(double a, double (*rcp)(double));

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
