/*
 * torch_rng_grid.h — the CPU grid emulator of torch's CUDA random kernels
 * (torch_rng_grid.c): the per-thread bodies of torch_rng_body.h run for every
 * (block, thread) of each launch torch would make.  Internal; tested by
 * conformance/tests/check_torch_grid.c.
 */
#ifndef SHC_TORCH_RNG_GRID_H
#define SHC_TORCH_RNG_GRID_H

#include "shardcheck.h"
#include "torch_rng_body.h"

/* Run one launch's every thread over the iterations that reach [L->win0, L->win1). */
void shc_tk_grid_launch(const shc_tk *k, const shc_tk_launch *L);

/* shc_torch_rng_fill computed by the grid emulator (same arguments and result). */
int shc_torch_rng_grid_fill(const shc_gpu_profile *g, uint64_t seed, int64_t offset,
                            const shc_torch_rng_req *r, int64_t start, int64_t count, void *out,
                            uint8_t *mask, int64_t *new_offset, shc_err *e);

#endif
