/*
 * rng_policy.c — RNG policies as named profiles, and the code that decides,
 * element by element, which SPMD properties each one keeps.
 *
 * A policy says, for every rank of a layout, which generator (seed) and
 * offset its local random op starts from and where the generator is left.
 * To decide properties we give every element a draw identity
 * (seed, stream, word): two elements with equal identities get the same
 * random value, distinct identities distinct values (Philox/threefry are
 * bijections of the counter).  For CUDA-style policies the identity is the
 * one torch's float32 distribution kernel gives element i of a launch over n
 * elements at offset o (aten/src/ATen/native/cuda/DistributionTemplates.h,
 * torch 2.13: block 256, grid = min(SMs * maxThreadsPerSM / 256,
 * ceil(n / 256)), unroll 4 via curand_uniform4, curand_init(seed, thread,
 * offset)): thread = i mod T, word = o + 4 * (i / 4T) + (i mod 4T) / T with
 * T = 256 * grid.  The op's dtype is an axis: float64 draws curand_uniform2_double (unroll
 * 2: element i takes words o + 4 * (i / 2T) + 2 * ((i mod 2T) / T) and the next, and the
 * kernel's increment is ((n - 1) / 2T + 1) * 4), the half types draw as float32 does
 * (shc_rng_dtype_unroll).  The tracker policies' offsets are element counts and do not see
 * the dtype; the policies whose generators advance by their own kernel do.  Policies:
 *  - torch-offset: torch 2.13 OffsetBasedRNGTracker (rng_offsets.c);
 *  - hyper-parallel: seed 000's port (hyper_parallel/core/random.py), which
 *    diverges from torch in three places: _calc_first_shard_size chunks
 *    mesh_shape[shard_dim] instead of the global dim size, _set_post_op_offset
 *    advances by ceil4(prod(mesh_shape)) instead of ceil4(numel), and
 *    _calc_shard_info sizes dim_map by mesh.ndim (IndexError when a shard
 *    dim >= mesh ndim, and tensor dims >= mesh ndim are never indexed);
 *  - megatron-tp / megatron-dp / megatron-ep: Megatron-LM
 *    model_parallel_cuda_manual_seed (megatron/core/tensor_parallel/random.py):
 *    tensor-parallel seed = seed + 2718 + tp_rank, data-parallel seed = seed,
 *    expert-parallel seed = seed + 1024 + 100 * ep_rank + tp_rank; every
 *    rank draws its local shard from its own generator — the scheme torch's
 *    TensorParallelRNGTracker mimicked before PR 141220 (seed 001).  Mesh dims
 *    follow Megatron-core's RankGenerator (megatron/core/parallel_state.py,
 *    NVIDIA/Megatron-LM 00caa53: order "tp-cp-ep-dp-pp", the first token varying
 *    fastest; the expert generator is RankGenerator(tp=etp, ep, dp, pp, cp=1)):
 *    tp (etp for megatron-ep) is the last, fastest mesh dim and ep the dim just
 *    before it; on a 1-d mesh megatron-ep's dim is ep (etp 1); seeds and Megatron's
 *    refusals (its duplicate-seed check) are megatron_seeds.c's;
 *  - megatron-train-tp / -dp / -ep / -dp-random: the same generators as Megatron-LM's
 *    training entry seeds them (megatron/training/initialize.py _set_random_seed,
 *    NVIDIA/Megatron-LM 00c2c0ad, shipped): base seed + 100 * pp_rank (and, for
 *    -dp-random, --data-parallel-random-init's + 10 * dp_rank).  Mesh dim 0 is pp, the
 *    slowest token of Megatron's order (a 1-d mesh is all pp); the remaining dims follow
 *    the megatron-tp / -dp / -ep convention above, except -dp-random, whose remaining
 *    dims are all data parallel (tp 1);
 *  - megatron-gtp / megatron-egtp: Megatron-core 0.19.2's GTP weight-rematerialisation
 *    states, "gtp-remat-rng" (model-parallel seed + 65536 * (1 + gtp_rank)) and
 *    "egtp-remat-rng" (expert seed + 32768 + 65536 * (1 + egtp_rank)), each added only when
 *    its axis has more than one rank (megatron_seeds.c).  Mesh dims: gtp_remat sits right
 *    after tp in Megatron's decoder order and right after ep in its expert order, so
 *    megatron-gtp reads (..., gtp, tp) from the last dim back (1-d: gtp) and megatron-egtp
 *    (..., egtp, ep, etp) (2-d: egtp, ep; 1-d: egtp); a GTP dim of one device has no state
 *    to draw from (Megatron's CudaRNGStatesTracker.fork raises), and so no single-device
 *    run: never sharding-invariant (rng_policy_check.c);
 *  - jax-partitionable: jax_threefry_partitionable=True, bits of element g
 *    are threefry(key, g) over the global index: identity (key, g);
 *  - single-device-equal: each element drawn with the thread and word it
 *    would get on one GPU of the profile (veScale's ThreadBasedRNGTracker);
 *  - torch-func-random: torch's stateless logical-index RNG, torch.func._random
 *    (pytorch PR 177230, shipped in torch 2.13, CUDA only: aten::_philox_uniform_ has no
 *    CPU kernel in 2.13; DTensor support, PRs 191642-191645, open).  Its single-key kernel
 *    (_philox_uniform_cuda_) gives element i of a contiguous float32 output Philox output
 *    word key_offset + i of (key seed, subsequence 0), whatever the launch (each thread
 *    starts at key_offset + 4 * tid and skips ahead 4 * (threads - 1)); float64 takes words
 *    2i, 2i + 1.  Sharded with the logical index = the global element index, rank r's
 *    elements draw words key_offset + g for its global indices g: its span
 *    [start, post) = [key_offset + g_min, key_offset + g_max + 1), shards distinct and the
 *    tensor sharding-invariant by construction.  A second op takes split(key), a key whose
 *    derivation (aten::_philox_key_split, CUDA only) is not modelled: taken as distinct.
 *    Only CUDA's window semantics is modelled (no NPU kernel exists);
 *  - torch-untracked: torch 2.13 itself for a random op DTensor accepts but
 *    does not track (lib/offsets/rng_ops.c, e.g. exponential_): the op dimension of
 *    the table — torch-offset's answers hold for tracked ops only.
 * Verdicts are computed over the layout table below, never written by hand.
 * Tested by check_offsets.c (per-policy expectations derived in comments)
 * and the rng-policies golden family.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "shardcheck.h"
#include "checked_math.h"

/* ---- the kernel's offset increment ---- */

int shc_rng_dtype_unroll(shc_dtype dt)
{
    /* DistributionTemplates.h (torch 2.13) uniform_ and normal_: double draws
     * curand_uniform2_double / curand_normal2_double, two values from each Philox block of
     * four words; float and the half types draw curand_uniform4 / curand_normal4 (the half
     * types compute in accscalar_t, float).  The launch is the same for every dtype. */
    switch (dt) {
    case SHC_DT_FLOAT64: return 2;
    case SHC_DT_FLOAT32:
    case SHC_DT_FLOAT16:
    case SHC_DT_BFLOAT16: return 4;
    default: return 0;
    }
}

int64_t shc_rng_kernel_offset_incr_dtype(const shc_gpu_profile *gpu, int64_t n, shc_dtype dt)
{
    /* counter_offset = ((n - 1) / (256 * grid * unroll) + 1) * 4,
     * grid = min(SMs * maxThreadsPerSM / 256, ceil(n / 256)); nothing runs for n = 0 */
    int64_t unroll = shc_rng_dtype_unroll(dt);
    if (n <= 0 || unroll == 0)
        return 0;
    int64_t grid = shc_ceildiv64(n, 256);
    int64_t cap = (int64_t)gpu->sm_count * (gpu->max_threads_per_sm / 256);
    int64_t threads = 256 * (grid < cap ? grid : cap);
    return ((n - 1) / (threads * unroll) + 1) * 4;
}

int64_t shc_rng_kernel_offset_incr(const shc_gpu_profile *gpu, int64_t n)
{
    return shc_rng_kernel_offset_incr_dtype(gpu, n, SHC_DT_FLOAT32);
}

/* ---- policies ---- */

typedef enum {
    K_TORCH, K_VENDOR, K_MEG_TP, K_MEG_DP, K_MEG_EP, K_JAX, K_SDE, K_LOGICAL, K_MEG_GTP, K_MEG_EGTP
} pkind;

/* Megatron-LM training's additions to the base seed (megatron_seeds.c) */
enum { MEG_CORE = 0, MEG_TRAIN = 1, MEG_TRAIN_DPRAND = 2 };

struct shc_rng_policy {
    const char *name;
    pkind kind;
    const char *summary;
    int meg; /* MEG_*: for the megatron kinds */
};

static const shc_rng_policy policies[] = {
    {"torch-offset", K_TORCH, "torch 2.13 OffsetBasedRNGTracker: one seed, offset per shard",
     MEG_CORE},
    {"hyper-parallel", K_VENDOR, "seed 000: hyper_parallel port of the tracker (diverges)",
     MEG_CORE},
    {"megatron-tp", K_MEG_TP, "Megatron model-parallel-rng: seed + 2718 + tp_rank", MEG_CORE},
    {"megatron-dp", K_MEG_DP, "Megatron default (data-parallel) generator: seed on every rank",
     MEG_CORE},
    {"megatron-ep", K_MEG_EP, "Megatron expert-parallel-rng: seed + 1024 + 100*ep_rank + "
     "etp_rank", MEG_CORE},
    {"jax-partitionable", K_JAX, "JAX threefry, partitionable: bits from the global index",
     MEG_CORE},
    {"single-device-equal", K_SDE, "veScale-style: thread and offset of one GPU per element",
     MEG_CORE},
    /* torch 2.13 itself for the ops DTensor does not track (lib/offsets/rng_ops.c: exponential_,
     * log_normal_, geometric_, cauchy_, multinomial): each rank's own generator, the same
     * seed everywhere, no pre-op shift, advanced by its own kernel's increment — the
     * megatron-dp stream, so the verdicts are computed by that code path */
    {"torch-untracked", K_MEG_DP, "torch 2.13 ops outside _random_ops (exponential_, ...): "
     "each rank's own generator", MEG_CORE},
    /* Megatron-LM training (megatron/training/initialize.py _set_random_seed) */
    {"megatron-train-tp", K_MEG_TP, "Megatron-LM training: base seed + 100*pp, then "
     "+ 2718 + tp_rank", MEG_TRAIN},
    {"megatron-train-dp", K_MEG_DP, "Megatron-LM training: default generator, seed + 100*pp",
     MEG_TRAIN},
    {"megatron-train-ep", K_MEG_EP, "Megatron-LM training: base seed + 100*pp, then "
     "+ 1024 + 100*ep_rank + etp_rank", MEG_TRAIN},
    {"megatron-train-dp-random", K_MEG_DP, "Megatron-LM --data-parallel-random-init: "
     "seed + 100*pp + 10*dp", MEG_TRAIN_DPRAND},
    /* pytorch PR 177230 (torch 2.13, CUDA only) */
    {"torch-func-random", K_LOGICAL, "torch.func._random (stateless): Philox word = key "
     "offset + global element index", MEG_CORE},
    /* Megatron-core 0.19.2's GTP weight-rematerialisation states (megatron_seeds.c) */
    {"megatron-gtp", K_MEG_GTP, "Megatron gtp-remat-rng: seed + 2718 + tp_rank + "
     "65536*(1+gtp_rank)", MEG_CORE},
    {"megatron-egtp", K_MEG_EGTP, "Megatron egtp-remat-rng: seed + 1024 + 100*ep_rank + "
     "etp_rank + 32768 + 65536*(1+egtp_rank)", MEG_CORE},
};
#define NPOL (int)(sizeof policies / sizeof policies[0])

int shc_rng_policy_count(void) { return NPOL; }
const shc_rng_policy *shc_rng_policy_at(int i) { return i >= 0 && i < NPOL ? &policies[i] : NULL; }
const char *shc_rng_policy_name(const shc_rng_policy *p) { return p->name; }
const char *shc_rng_policy_summary(const shc_rng_policy *p) { return p->summary; }

const char *shc_rng_policy_names(void)
{
    return "torch-offset, hyper-parallel, megatron-tp, megatron-dp, megatron-ep, "
           "jax-partitionable, single-device-equal, torch-untracked, megatron-train-tp, "
           "megatron-train-dp, megatron-train-ep, megatron-train-dp-random, torch-func-random, "
           "megatron-gtp, megatron-egtp";
}

static bool is_megatron(const shc_rng_policy *p)
{
    return !strncmp(p->name, "megatron-", 9);
}

/* Each rank draws from a generator of its own, advanced by its own kernel. */
static bool is_own_generator(const shc_rng_policy *p)
{
    return p->kind == K_MEG_TP || p->kind == K_MEG_DP || p->kind == K_MEG_EP ||
           p->kind == K_MEG_GTP || p->kind == K_MEG_EGTP;
}

bool shc_rng_policy_uses_gpu(const shc_rng_policy *p)
{
    /* torch-offset's and the port's windows are element counts, jax's keys are stateless:
     * only a generator advanced by its own kernel (or one GPU's layout) sees the launch */
    return is_own_generator(p) || p->kind == K_SDE;
}

bool shc_rng_policy_verdict_uses_gpu(const shc_rng_policy *p)
{
    /* A verdict compares draw identities (thread, word), and the launch geometry decides how
     * many words a thread takes.  Only two policies are immune: jax's identities are global
     * indices, and torch-offset's windows are spaced by element counts, which bound the words
     * any thread takes (4 * ceil(n / 4T) <= roundup4(n) for T >= 256, T the thread count).
     * seed 000's port spaces successive ops by ceil4(mesh size) instead, so a GPU with fewer
     * threads runs op 1 into op 2 (a 7-SM profile on layout #14). */
    return p->kind != K_TORCH && p->kind != K_JAX && p->kind != K_LOGICAL;
}

int shc_rng_policy_megatron_cfg(const shc_rng_policy *p, const shc_mesh *m,
                                shc_megatron_cfg *c, shc_err *e)
{
    if (!is_megatron(p))
        return shc_fail(e, SHC_EINVAL, "policy %s is not Megatron's (no Megatron "
                        "configuration to read off the mesh)", p->name);
    memset(c, 0, sizeof *c);
    c->tp = c->etp = c->ep = c->pp = 1;
    c->training = p->meg != MEG_CORE;
    c->dp_random_init = p->meg == MEG_TRAIN_DPRAND;
    int first = c->training ? 1 : 0, n = m->ndim - first, last = m->ndim - 1;
    if (c->training)
        c->pp = m->shape[0];
    if (n < 1 || p->meg == MEG_TRAIN_DPRAND) /* all pp, or pp then data parallel */
        return SHC_OK;
    if (p->kind == K_MEG_GTP) { /* tp the last dim, gtp_remat the one before it (or the one) */
        c->gtp = m->shape[n == 1 ? last : last - 1];
        if (n > 1)
            c->tp = c->etp = m->shape[last];
    } else if (p->kind == K_MEG_EGTP) { /* etp, ep, egtp from the last dim back */
        c->egtp = m->shape[last - (n > 2 ? 2 : n - 1)];
        if (n > 1)
            c->ep = m->shape[last - (n > 2 ? 1 : 0)];
        if (n > 2)
            c->etp = c->tp = m->shape[last];
    } else if (p->kind != K_MEG_EP) {
        c->tp = c->etp = m->shape[last];
    } else if (n == 1) {
        c->ep = m->shape[last]; /* the one dim left is ep, etp 1 */
    } else {
        c->etp = c->tp = m->shape[last]; /* expert_tensor_parallel_size defaults to tp */
        c->ep = m->shape[last - 1];
    }
    return SHC_OK;
}

int shc_rng_policy_lookup(const char *name, const shc_rng_policy **out, shc_err *e)
{
    for (int i = 0; i < NPOL; i++)
        if (!strcmp(policies[i].name, name)) {
            *out = &policies[i];
            return SHC_OK;
        }
    return shc_fail(e, SHC_EINVAL, "unknown policy '%.64s' (known: %s)", name, shc_rng_policy_names());
}

static const char *const prop_names[] = {"replicas-equal", "shards-distinct",
                                         "sharding-invariant", "torch-equal"};
_Static_assert(sizeof prop_names / sizeof prop_names[0] == SHC_RNGP_COUNT,
               "one name per RNG policy property");

const char *shc_rng_property_name(int prop)
{
    return prop >= 0 && prop < SHC_RNGP_COUNT ? prop_names[prop] : "?";
}

/* The tracker's increments rounded to the device's alignment instead of torch's fixed 4
 * (pytorch PR 197495, open, takes it from the device's state handler). */
static int realign(int64_t lin, int64_t first_numel, int64_t end_raw, int64_t align,
                   shc_rng_stream *o, shc_err *e)
{
    int64_t raw;
    if (!shc_mul64(lin, first_numel, &raw) || !shc_roundup64(raw, align, &o->start_incr) ||
        !shc_roundup64(end_raw, align, &o->end_incr))
        return shc_fail(e, SHC_EOVERFLOW, "offsets rounded to alignment %lld overflow int64",
                        (long long)align);
    return SHC_OK;
}

/* seed 000's start: first shard from mesh_shape[shard_dim], dim_map of mesh.ndim entries. */
static int vendor_offsets(const shc_mesh *m, const shc_placements *pl, const shc_shape *s,
                          const int64_t *coord, int64_t align, shc_rng_stream *o, shc_err *e)
{
    int64_t first[SHC_MAX_TENSOR_DIMS], idx[SHC_MAX_MESH_DIMS], tot[SHC_MAX_MESH_DIMS];
    for (int d = 0; d < s->ndim; d++)
        first[d] = s->d[d];
    for (int d = 0; d < m->ndim; d++) {
        idx[d] = 0;
        tot[d] = 1;
    }
    for (int i = 0; i < pl->n; i++) {
        const shc_placement *p = &pl->p[i];
        if (p->kind == SHC_P_STRIDED)
            return shc_fail(e, SHC_EUNSUPPORTED, "hyper-parallel: _StridedShard is not modelled "
                            "(the port's placement_types.py is not in seed 000)");
        if (p->kind != SHC_P_SHARD)
            continue;
        if (p->dim >= m->ndim)
            return shc_fail(e, SHC_EUNSUPPORTED, "hyper-parallel: placement %d shards tensor dim "
                            "%d but the port's dim_map and mesh_shape[shard_dim] have only %d "
                            "entries (IndexError in _calc_shard_info)", i, p->dim, m->ndim);
        first[p->dim] = shc_rng_chunk_size(m->shape[p->dim], m->shape[i], 0);
        idx[p->dim] = idx[p->dim] * m->shape[i] + coord[i];
        tot[p->dim] *= m->shape[i];
    }
    int64_t lin = 0, stride = 1, fn = 1;
    for (int d = m->ndim - 1; d >= 0; d--) {
        lin += idx[d] * stride;
        stride *= tot[d];
    }
    for (int d = 0; d < s->ndim; d++)
        if (!shc_mul64(fn, first[d], &fn))
            return shc_fail(e, SHC_EOVERFLOW, "hyper-parallel: first shard numel overflows");
    o->shard_linear_index = lin;
    /* quirk: the end counts devices, not elements */
    return realign(lin, fn, m->size, align, o, e) ? shc_err_prefix(e, "hyper-parallel")
                                                  : SHC_OK;
}

int shc_rng_policy_models_profile(const shc_rng_policy *p, const shc_gpu_profile *gpu,
                                  shc_err *e)
{
    if (p->kind == K_LOGICAL && gpu->offset_semantics != SHC_OFFSETS_WINDOW)
        return shc_fail(e, SHC_EINVAL, "torch-func-random: device profile %s (offsets %s) is "
                        "not modelled: torch.func._random's kernels are CUDA's (one Philox "
                        "stream, the offset a window into it)", gpu->name,
                        shc_offset_semantics_name(gpu->offset_semantics));
    return SHC_OK;
}

int shc_rng_policy_models_dtype(const shc_rng_policy *p, const shc_gpu_profile *gpu,
                                shc_dtype dt, shc_err *e)
{
    int rc = shc_rng_policy_models_profile(p, gpu, e);
    if (rc)
        return rc;
    if (!shc_rng_dtype_unroll(dt))
        return shc_fail(e, SHC_EINVAL, "dtype %s: the policies model torch's floating "
                        "uniform_/normal_ (float32, float64, float16, bfloat16)",
                        shc_dtype_name(dt));
    if (dt == SHC_DT_FLOAT32)
        return SHC_OK;
    /* a dtype moves what a kernel draws: the words per element and its own increment.
     * Modelled where torch's CUDA kernels run: one stream, offsets aligned to a Philox block
     * (4 words), so every float64 draw starts on an even word */
    if (!shc_gpu_profile_is_cuda_window(gpu) && p->kind != K_JAX)
        return shc_fail(e, SHC_EINVAL, "%s: dtype %s on device profile %s (offsets %s, "
                        "alignment %d) is not modelled: only CUDA's window of one stream with "
                        "alignment 4 says what a kernel draws per element of a dtype other "
                        "than float32", p->name, shc_dtype_name(dt), gpu->name,
                        shc_offset_semantics_name(gpu->offset_semantics),
                        shc_gpu_profile_align(gpu));
    if (p->kind == K_LOGICAL && dt != SHC_DT_FLOAT64)
        return shc_fail(e, SHC_EINVAL, "torch-func-random: dtype %s is not modelled (its "
                        "kernels are modelled for float32, one Philox word per element, and "
                        "float64, two)", shc_dtype_name(dt));
    return SHC_OK;
}

/* torch.func._random: the rank's span of Philox words under key (seed, old_offset). */
static int logical_span(const shc_rng_layout *t, const int64_t *coord, int64_t old_offset,
                        shc_dtype dt, shc_rng_stream *out, shc_err *e)
{
    int64_t lo, hi;
    int rc = shc_rng_local_span(t, coord, &lo, &hi, e);
    if (rc)
        return rc;
    if (lo < 0) /* an empty shard draws nothing: its span is empty at the key's offset */
        lo = hi = 0;
    if (dt == SHC_DT_FLOAT64) { /* words 2g and 2g + 1 of element g */
        if ((rc = shc_mul64_e(lo, 2, &lo, "first word", e)) ||
            (rc = shc_mul64_e(hi, 2, &hi, "word span", e)))
            return rc;
    }
    if ((rc = shc_add64_e(old_offset, lo, &out->start, "key offset + first index", e)) ||
        (rc = shc_add64_e(old_offset, hi, &out->post, "key offset + index span", e)))
        return rc;
    out->start_incr = lo;
    out->end_incr = hi;
    return SHC_OK;
}

int shc_rng_policy_stream(const shc_rng_policy *p, const shc_gpu_profile *gpu, const shc_mesh *m,
                          const shc_placements *pl, const shc_shape *shape, uint64_t seed,
                          int64_t old_offset, int64_t rank, shc_rng_stream *out, shc_err *e)
{
    return shc_rng_policy_stream_dtype(p, gpu, SHC_DT_FLOAT32, m, pl, shape, seed, old_offset,
                                       rank, out, e);
}

int shc_rng_policy_stream_dtype(const shc_rng_policy *p, const shc_gpu_profile *gpu,
                                shc_dtype dt, const shc_mesh *m, const shc_placements *pl,
                                const shc_shape *shape, uint64_t seed, int64_t old_offset,
                                int64_t rank, shc_rng_stream *out, shc_err *e)
{
    memset(out, 0, sizeof *out);
    shc_rng_layout t;
    shc_rng_offsets o;
    int64_t coord[SHC_MAX_MESH_DIMS];
    int rc;
    if ((rc = shc_rng_policy_models_dtype(p, gpu, dt, e)) ||
        (rc = shc_rng_layout_init(&t, m, pl, shape, e)) ||
        (rc = shc_mesh_coord(m, rank, coord, e)) || (rc = shc_rng_offsets_at(&t, coord, &o, e)))
        return rc;
    out->seed = seed;
    out->local_numel = o.local_numel;
    out->shard_linear_index = -1;
    if (is_megatron(p)) { /* the rank's tracker seeds, or Megatron's refusal */
        shc_megatron_cfg c;
        shc_megatron_seeds ms;
        int64_t pos = 0;
        for (int d = 0; d < m->ndim; d++) /* Megatron numbers ranks in mesh order */
            pos = pos * m->shape[d] + coord[d];
        if ((rc = shc_rng_policy_megatron_cfg(p, m, &c, e)) ||
            (rc = shc_megatron_rank_seeds(&c, m->size, pos, seed, &ms, e)))
            return rc;
        out->seed = p->kind == K_MEG_TP     ? ms.tensor_parallel
                    : p->kind == K_MEG_EP   ? ms.expert_parallel
                    : p->kind == K_MEG_GTP  ? ms.gtp_remat
                    : p->kind == K_MEG_EGTP ? ms.egtp_remat
                                            : ms.data_parallel;
        if ((p->kind == K_MEG_GTP && c.gtp < 2) || (p->kind == K_MEG_EGTP && c.egtp < 2))
            return shc_fail(e, SHC_EUNSUPPORTED, "megatron: cuda rng state %s is not added "
                            "(its axis has size 1: random.py model_parallel_cuda_manual_seed "
                            "adds it only when larger, and CudaRNGStatesTracker.fork raises)",
                            p->kind == K_MEG_GTP ? "gtp-remat-rng" : "egtp-remat-rng");
    }
    switch (p->kind) {
    case K_TORCH:
    case K_VENDOR:
        out->shard_linear_index = o.shard_linear_index;
        out->start_incr = o.start_incr;
        out->end_incr = o.end_incr;
        if (p->kind == K_VENDOR)
            rc = vendor_offsets(m, pl, shape, coord, shc_gpu_profile_align(gpu), out, e);
        else if (shc_gpu_profile_align(gpu) != 4)
            rc = realign(out->shard_linear_index, t.first_numel, t.numel,
                         shc_gpu_profile_align(gpu), out, e);
        if (rc)
            return rc;
        if ((rc = shc_add64_e(old_offset, out->start_incr, &out->start, "pre-op offset", e)) ||
            (rc = shc_add64_e(old_offset, out->end_incr, &out->post, "post-op offset", e)))
            return rc;
        return SHC_OK;
    case K_MEG_TP:
    case K_MEG_DP: /* torch-untracked too: each rank's own generator, the seed everywhere */
    case K_MEG_EP:
    case K_MEG_GTP:
    case K_MEG_EGTP: break;
    case K_JAX: /* stateless: "offset" counts keys split off for successive ops */
        out->start = old_offset;
        return shc_add64_e(old_offset, 1, &out->post, "key index", e);
    case K_LOGICAL:
        return logical_span(&t, coord, old_offset, dt, out, e);
    case K_SDE:
        out->start = old_offset;
        out->end_incr = shc_rng_kernel_offset_incr_dtype(gpu, t.numel, dt);
        return shc_add64_e(old_offset, out->end_incr, &out->post, "post-op offset", e);
    }
    /* Megatron: each rank's own generator advances by its own kernel's increment */
    out->start = old_offset;
    out->end_incr = shc_rng_kernel_offset_incr_dtype(gpu, o.local_numel, dt);
    return shc_add64_e(old_offset, out->end_incr, &out->post, "post-op offset", e);
}
