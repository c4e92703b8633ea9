/*
 * cuda_rcp64h.h — MUFU.RCP64H (PTX rcp.approx.ftz.f64), the one hardware step of
 * libdevice's double log, log1p and tan: the reciprocal of a double's high word,
 * written to the high word of the result (low word zero).  cuda_rcp64h.c holds the
 * unit as an H200 (sm_90) recorded it, docs/cuda-math.md "MUFU.RCP64H".
 *
 * Tested by conformance/tests/check_cuda_math.c (the recorded high words) and
 * check_cuda_f64.c (the 27 recorded float64 normal_/exponential_ outputs).
 */
#ifndef SHC_CUDA_RCP64H_H
#define SHC_CUDA_RCP64H_H

#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A double's bits and back, through memcpy (no aliasing rule broken): the unit works on
 * high words, and cuda_libdevice.c's steps read and build doubles by their words too. */
static inline uint64_t shc_dbits(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

static inline double shc_bitsd(uint64_t u)
{
    double d;
    memcpy(&d, &u, 8);
    return d;
}

/* The unit: the truncated reciprocal of the high-word value, one unit (2^-20 relative)
 * above it for the fractions the recording shows so (a table); denormal inputs and outputs
 * flush to zero. */
double shc_cuda_rcp_approx_ftz_d(double d);

/* The unit's result moved by shift units of its last high-word bit (2^-20 relative):
 * what libdevice would compute with a unit that answers shift units off.  Used to find
 * the outputs that rest on the unit (shift -1 / +1) on generations not recorded. */
double shc_cuda_rcp64h_shift(double d, int shift);

/* The reciprocal of the high-word value truncated to the high word.  The libdevice
 * oracle (tools/gpu/libdevice_oracle/nvvm_host.c) models the unit this way, so the
 * libdevice vectors are compared with it. */
double shc_cuda_rcp64h_trunc(double d);

/* 1 when the unit answers one unit above the truncated reciprocal for a high word with
 * these 20 fraction bits (the bits above them are ignored), else 0. */
int shc_cuda_rcp64h_up(uint32_t fraction);

#ifdef __cplusplus
}
#endif

#endif
