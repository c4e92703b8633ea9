/*
 * torch_rng_grid.c — a CUDA grid emulator for torch's random kernels: runs
 * the per-thread kernel bodies of torch_rng_body.h on the CPU for every
 * (block, thread) of each launch, with the grid torch computes from the GPU
 * profile (multiProcessorCount, maxThreadsPerMultiProcessor), exactly as
 * lib/cuda/torch_rng_kernels.cu runs them on a GPU.
 *
 * Why: without a GPU this is how the kernels' index mapping, loop bounds,
 * unroll and per-launch offsets are tested (against the CPU reference's
 * batched executor in torch_cuda_rng.c, which shares only the element step).
 *
 * A window [start, start+count) of the output is computed: every thread of
 * every launch still runs, but only the loop iterations whose elements can
 * reach the window (so a 2^31-element tensor is checked a few thousand
 * elements at a time); bodies write only inside the window.
 *
 * Tested by conformance/tests/check_torch_grid.c.
 */
#include "config.h"
#include "shardcheck.h"
#include "torch_rng_body.h"
#include "torch_rng_grid.h"

typedef struct window {
    int64_t start, end; /* global elements wanted */
    uint8_t *out, *mask;
} window;

/* Emulate one launch: gridDim.x blocks of blockDim.x = 256 threads. */
void shc_tk_grid_launch(const shc_tk *k, const shc_tk_launch *L)
{
    if (L->win0 >= L->win1)
        return;
    int64_t per = (int64_t)SHC_TORCH_BLOCK * L->grid *
                  (L->kind == SHC_TK_DROPOUT_VEC ? L->vec : L->unroll);
    uint64_t it0 = (uint64_t)(L->win0 / per), it1 = (uint64_t)((L->win1 - 1) / per + 1);
    for (uint32_t b = 0; b < L->grid; b++)
        for (uint32_t tx = 0; tx < SHC_TORCH_BLOCK; tx++) {
            uint64_t t = (uint64_t)b * SHC_TORCH_BLOCK + tx; /* blockIdx.x * blockDim.x + threadIdx.x */
            if (L->kind == SHC_TK_DROPOUT_VEC)
                shc_tk_thread_dropout_vec(k, L, t, it0, it1);
            else
                shc_tk_thread_gs(k, L, t, it0, it1);
        }
}

static int on_launch(void *ctx, const shc_tk *k, const shc_tk_launch *plan, shc_err *e)
{
    const window *w = ctx;
    shc_tk_launch L;
    if (!shc_tk_window(k, plan, w->start, w->end, w->out, w->mask, &L))
        return SHC_OK;
    if (L.kind == SHC_TK_ZEROS) { /* no kernel: native_dropout's p == 1 path writes zeros */
        memset(L.out, 0, (size_t)(L.win1 - L.win0) * (size_t)k->size);
        if (L.mask)
            memset(L.mask, 0, (size_t)(L.win1 - L.win0));
        return SHC_OK;
    }
    shc_tk_grid_launch(k, &L);
    return SHC_OK;
}

int shc_torch_rng_grid_fill(const shc_gpu_profile *g, uint64_t seed, int64_t offset,
                            const shc_torch_rng_req *r, int64_t start, int64_t count, void *out,
                            uint8_t *mask, int64_t *new_offset, shc_err *e)
{
    if (start < 0 || count < 0 || start > r->numel || count > r->numel - start)
        return shc_fail(e, SHC_EINVAL, "element range [%lld, +%lld) is outside the %lld elements",
                        (long long)start, (long long)count, (long long)r->numel);
    window w = {start, start + count, out, mask};
    return shc_tk_plan(g, seed, offset, r, on_launch, &w, new_offset, e);
}
