/*
 * redist_body.h — the per-thread kernel bodies of redistribute execution on a
 * device: local slicing (narrow, pad, torch.chunk, _StridedShard's
 * index_select) and the packing/unpacking of collective blocks, one source for
 * every executor:
 *   - the CPU grid emulator (xdev_emu.c) runs shc_rk_*_thread for every
 *     (block, thread) of a launch, with any grid shape;
 *   - the CUDA kernels (lib/cuda/redist_kernels.cu) run the same bodies, one
 *     CUDA thread each.
 * Everything is `static inline SHC_HD` (= __host__ __device__ under nvcc).
 *
 * Two bodies cover every data movement redistribute_exec.c does with memcpy:
 *   gather: out[o][j][q] = in[o][src(j)][q], zero where src(j) < 0
 *           (src from an index list, or start + j while inside the input);
 *   swap:   out[a][b][r] = in[b][a][r] (packing n blocks out of a dim for
 *           all_to_all / reduce_scatter, and concatenating received blocks).
 * Both are pure byte permutations of elements of size es, so the device result
 * is the host's byte for byte.  Each thread runs a grid-stride loop over the
 * output elements (thread t of T handles t, t + T, ...), so any grid is correct.
 *
 * Tested by conformance/tests/check_redist_dev.c (every redistribute-data case
 * under the grid emulator with several grid shapes, against the host execution).
 */
#ifndef SHC_REDIST_BODY_H
#define SHC_REDIST_BODY_H

#include <stdint.h>
#include <string.h>

#ifndef SHC_HD
#ifdef __CUDACC__
#define SHC_HD __host__ __device__
#else
#define SHC_HD
#endif
#endif

/* A gather launch: out has shape (outer, nidx, inner) elements of es bytes. */
typedef struct shc_rk_gather {
    int64_t outer, nidx, inner; /* the output's three extents */
    int64_t in_len;             /* the input's extent along the gathered dim */
    const int64_t *idx;         /* device memory: source index per j (< 0: zero); NULL: */
    int64_t start;              /* ... source start + j, zero from in_len on */
    int es;                     /* element bytes: 1, 2, 4 or 8 */
    const uint8_t *in;
    uint8_t *out;
} shc_rk_gather;

/* A swap launch: in is (B, A, run), out is (A, B, run) elements of es bytes. */
typedef struct shc_rk_swap {
    int64_t A, B, run;
    int es;
    const uint8_t *in;
    uint8_t *out;
} shc_rk_swap;

/* One element's bytes; pointers are es-aligned (cudaMalloc'd or malloc'd bases,
 * offsets multiples of es). */
static inline SHC_HD void shc_rk_copy(uint8_t *d, const uint8_t *s, int es)
{
#ifdef __CUDA_ARCH__
    switch (es) {
    case 8: *(uint64_t *)d = *(const uint64_t *)s; return;
    case 4: *(uint32_t *)d = *(const uint32_t *)s; return;
    case 2: *(uint16_t *)d = *(const uint16_t *)s; return;
    default: for (int b = 0; b < es; b++) d[b] = s[b]; return;
    }
#else
    switch (es) { /* constant sizes: the compiler emits one load and store */
    case 8: memcpy(d, s, 8); return;
    case 4: memcpy(d, s, 4); return;
    case 2: memcpy(d, s, 2); return;
    default: memcpy(d, s, (size_t)es); return;
    }
#endif
}

static inline SHC_HD void shc_rk_zero(uint8_t *d, int es)
{
    for (int b = 0; b < es; b++)
        d[b] = 0;
}

static inline SHC_HD int64_t shc_rk_gather_total(const shc_rk_gather *k)
{
    return k->outer * k->nidx * k->inner;
}

static inline SHC_HD int64_t shc_rk_swap_total(const shc_rk_swap *k)
{
    return k->A * k->B * k->run;
}

/* Output element i of a gather. */
static inline SHC_HD void shc_rk_gather_elem(const shc_rk_gather *k, int64_t i)
{
    int64_t q = i % k->inner, oj = i / k->inner, j = oj % k->nidx, o = oj / k->nidx;
    int64_t src = k->idx ? k->idx[j] : (k->start + j < k->in_len ? k->start + j : -1);
    uint8_t *d = k->out + i * k->es;
    if (src < 0)
        shc_rk_zero(d, k->es);
    else
        shc_rk_copy(d, k->in + ((o * k->in_len + src) * k->inner + q) * k->es, k->es);
}

/* Output element i of a swap. */
static inline SHC_HD void shc_rk_swap_elem(const shc_rk_swap *k, int64_t i)
{
    int64_t r = i % k->run, ab = i / k->run, b = ab % k->B, a = ab / k->B;
    shc_rk_copy(k->out + i * k->es, k->in + ((b * k->A + a) * k->run + r) * k->es, k->es);
}

/* Threads per block and the grid the CUDA launcher uses (the emulator's default):
 * enough blocks to cover total, at most SHC_RK_MAX_GRID (threads then loop). */
#define SHC_RK_BLOCK 256
#define SHC_RK_MAX_GRID 4096
static inline SHC_HD uint32_t shc_rk_grid(int64_t total, uint32_t block)
{
    int64_t g = (total + block - 1) / block;
    return g < 1 ? 1u : g > SHC_RK_MAX_GRID ? (uint32_t)SHC_RK_MAX_GRID : (uint32_t)g;
}

/* Thread t of nthreads: the grid-stride loop (torch's kernels' pattern). */
static inline SHC_HD void shc_rk_gather_thread(const shc_rk_gather *k, uint64_t t, uint64_t nthreads)
{
    int64_t total = shc_rk_gather_total(k);
    for (int64_t i = (int64_t)t; i < total; i += (int64_t)nthreads)
        shc_rk_gather_elem(k, i);
}

static inline SHC_HD void shc_rk_swap_thread(const shc_rk_swap *k, uint64_t t, uint64_t nthreads)
{
    int64_t total = shc_rk_swap_total(k);
    for (int64_t i = (int64_t)t; i < total; i += (int64_t)nthreads)
        shc_rk_swap_elem(k, i);
}

#endif
