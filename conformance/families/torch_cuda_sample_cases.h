/*
 * torch_cuda_sample_cases.h — the torch-cuda-rng family's cases for the
 * sampling kernels (bernoulli with a tensor p, multinomial, randperm;
 * lib/rng/torch_cuda_sample.c): their tables, test inputs and expected
 * values.  torch_cuda_rng.c, the family's home, calls these for tests whose
 * op is one of them and appends their groups after its own.
 */
#ifndef SHC_TORCH_CUDA_SAMPLE_CASES_H
#define SHC_TORCH_CUDA_SAMPLE_CASES_H

#include <stdbool.h>
#include "golden.h"

/* Whether a test's "op" is a sampling op ("bernoulli_tensor", "multinomial", "randperm"). */
bool shc_tcs_is_sample(const char *op);
/* Expected object of a sampling test: output bits (shc_tcr_encode) and new_offset. */
int shc_tcs_compute(const json_t *group, const json_t *test, json_t **out, shc_err *e);
/* The same on a given GPU profile (the cuda backend's reference for the device's own). */
int shc_tcs_compute_on(const shc_gpu_profile *g, const json_t *test, json_t **out, shc_err *e);
/* Notes of the flags these cases use (before shc_gw_file). */
void shc_tcs_notes(shc_gw *w);
/* The invalid group and one group per corpus GPU profile, appended to the file. */
int shc_tcs_generate(shc_gw *w, shc_err *e);
/* torch_cuda_rng.c: an output's expected encoding (bits, or sha256 + samples; mask may be NULL). */
void shc_tcr_encode(json_t *ex, const uint8_t *buf, int64_t n, size_t sz, const uint8_t *mask);
/* One element of sz bytes as 2*sz hex digits (its little-endian value). */
json_t *shc_tcr_elem_hex(const uint8_t *p, size_t sz);

#endif
