/*
 * xdev_emu.c — the CPU grid emulator as a redistribute device: "device memory"
 * is host memory, and a kernel launch runs the per-thread bodies of
 * redist_body.h for every (block, thread) of the grid, in order, exactly as
 * lib/cuda/redist_kernels.cu runs them on a GPU.
 *
 * Why: without a GPU this is how the kernels' index arithmetic and grid-stride
 * loops are tested — with grids smaller than the data (threads loop), larger
 * (threads idle) and of odd sizes — against the host execution.
 * Tested by conformance/tests/check_redist_dev.c.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "xdev.h"

typedef struct emu {
    uint32_t grid, block;
} emu;

static int emu_alloc(shc_xdev *d, size_t bytes, void **out, shc_err *e)
{
    *out = malloc(bytes ? bytes : 1);
    if (!*out)
        return shc_fail(e, SHC_ENOMEM, "out of memory (%zu bytes)", bytes);
    /* poison: an element no thread writes changes the result (the test's sha256) */
    memset(*out, 0xa5, bytes);
    return SHC_OK;
}

static void emu_release(shc_xdev *d, void *p) { free(p); }

static int emu_copy(shc_xdev *d, void *dst, const void *src, size_t bytes, shc_err *e)
{
    if (bytes)
        memcpy(dst, src, bytes);
    return SHC_OK;
}

/* The launch's grid: the configured one, or the CUDA launcher's (shc_rk_grid). */
static uint32_t grid_for(const emu *m, int64_t total)
{
    return m->grid ? m->grid : shc_rk_grid(total, m->block);
}

static int emu_gather(shc_xdev *d, const shc_rk_gather *k, shc_err *e)
{
    const emu *m = d->impl;
    uint32_t g = grid_for(m, shc_rk_gather_total(k));
    uint64_t nt = (uint64_t)g * m->block;
    for (uint32_t b = 0; b < g; b++)
        for (uint32_t tx = 0; tx < m->block; tx++)
            shc_rk_gather_thread(k, (uint64_t)b * m->block + tx, nt);
    return SHC_OK;
}

static int emu_swap(shc_xdev *d, const shc_rk_swap *k, shc_err *e)
{
    const emu *m = d->impl;
    uint32_t g = grid_for(m, shc_rk_swap_total(k));
    uint64_t nt = (uint64_t)g * m->block;
    for (uint32_t b = 0; b < g; b++)
        for (uint32_t tx = 0; tx < m->block; tx++)
            shc_rk_swap_thread(k, (uint64_t)b * m->block + tx, nt);
    return SHC_OK;
}

static void emu_destroy(shc_xdev *d)
{
    free(d->impl);
    free(d);
}

static const shc_xdev_ops emu_ops = {"emulator", emu_alloc, emu_release, emu_copy, emu_copy,
                                     emu_gather, emu_swap, emu_destroy};

int shc_xdev_emu_open(uint32_t grid, uint32_t block, shc_xdev **out, shc_err *e)
{
    if (block == 0)
        return shc_fail(e, SHC_EINVAL, "grid emulator: a block of 0 threads");
    shc_xdev *d = calloc(1, sizeof *d);
    emu *m = calloc(1, sizeof *m);
    if (!d || !m) {
        free(d);
        free(m);
        return shc_fail(e, SHC_ENOMEM, "out of memory");
    }
    *m = (emu){grid, block};
    *d = (shc_xdev){&emu_ops, -1, m};
    *out = d;
    return SHC_OK;
}
