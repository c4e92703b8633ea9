/*
 * nvvm_host.c — host definitions of the llvm.nvvm.* intrinsics that libdevice's
 * __nv_log, __nv_sincospi, __nv_logf, __nv_exp, __nv_log1p, __nv_tan and
 * __nv_log1pf call, so that their IR (retargeted to
 * x86-64 by tools/gpu/libdevice_vectors.sh) runs on a CPU as an oracle.
 * All but rcp.approx.ftz.d are exact IEEE operations or word moves (PTX ISA 8.x
 * semantics); rcp.approx.ftz.d is MUFU.RCP64H, modelled as the reciprocal of the
 * high word truncated to the high word.  That is not what an H100 does in about 1 of
 * 16 inputs (lib/rng/cuda_rcp64h.c rounds to a float first); the oracle keeps this
 * simple form, and check_cuda_math compares the vectors with the same seed
 * (shc_cuda_rcp64h_trunc), so the vectors check the IR transcription alone.
 */
#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

int __nvvm_reflect(const char *s) { (void)s; return 0; } /* __CUDA_FTZ=0: nvcc's default */

static double u2d(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }
static uint64_t d2u(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }

double nvvm_host_fma_rn_d(double a, double b, double c) { return fma(a, b, c); }
double nvvm_host_mul_rn_d(double a, double b) { return a * b; }
double nvvm_host_add_rn_d(double a, double b) { return a + b; }
/* llvm.nvvm.round.d lowers to cvt.rni.f64.f64: nearest, ties to even (not C round()) */
double nvvm_host_round_d(double a) { return nearbyint(a); }
double nvvm_host_trunc_d(double a) { return trunc(a); }
int nvvm_host_d2i_hi(double a) { return (int)(uint32_t)(d2u(a) >> 32); }
int nvvm_host_d2i_lo(double a) { return (int)(uint32_t)d2u(a); }
double nvvm_host_lohi_i2d(int lo, int hi) { return u2d((uint64_t)(uint32_t)hi << 32 | (uint32_t)lo); }
static float ftz(float x) { return fabsf(x) < 0x1p-126f ? copysignf(0.0f, x) : x; }
double nvvm_host_fabs_d(double a) { return fabs(a); }
float nvvm_host_fabs_f(float a) { return fabsf(a); }
float nvvm_host_fabs_ftz_f(float a) { return ftz(fabsf(a)); }
/* cvt.rni.s32.f64: nearest-even, saturating, NaN -> 0 */
int nvvm_host_d2i_rn(double a)
{
    if (isnan(a)) return 0;
    if (a >= 2147483647.0) return 2147483647;
    if (a <= -2147483648.0) return -2147483647 - 1;
    return (int)nearbyint(a);
}
/* add.rz.f32 by the FP environment's own round-toward-zero mode */
float nvvm_host_add_rz_f(float a, float b)
{
    volatile float x = a, y = b;
    fesetround(FE_TOWARDZERO);
    volatile float r = x + y;
    fesetround(FE_TONEAREST);
    return r;
}
float nvvm_host_add_rz_ftz_f(float a, float b) { return ftz(nvvm_host_add_rz_f(ftz(a), ftz(b))); }
float nvvm_host_fma_rn_f(float a, float b, float c) { return fmaf(a, b, c); }
float nvvm_host_fma_rn_ftz_f(float a, float b, float c) { return ftz(fmaf(ftz(a), ftz(b), ftz(c))); }

double nvvm_host_rcp_approx_ftz_d(double a)
{
    uint64_t hi = d2u(a) & 0xffffffff00000000ull;
    double x = u2d(hi);
    if (fabs(x) < 0x1p-1022) x = copysign(0.0, x);
    double r = 1.0 / x;
    if (fabs(r) < 0x1p-1022) r = copysign(0.0, r);
    return u2d(d2u(r) & 0xffffffff00000000ull);
}

/* __nv_tan's Payne-Hanek path (|a| >= 2^31) is inline PTX in libdevice and is
 * not part of the oracle (nor of lib/rng/cuda_libdevice.c): gen.c never reaches it. */
struct trig_reduction_return { double r; int q; };
#include <stdio.h>
#include <stdlib.h>
struct trig_reduction_return __internal_trig_reduction_slowpathd(double a)
{
    fprintf(stderr, "oracle: __nv_tan slow path reached for %a\n", a);
    abort();
}
