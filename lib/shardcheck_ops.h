/*
 * shardcheck_ops.h — the op table (installed; shardcheck.h includes it): every random op of
 * torch 2.13 that a DTensor program can reach, the API a case models, and what DTensor does:
 *
 *  - tracked: the op is in OpDispatcher._random_ops
 *    (torch/distributed/tensor/_dispatch.py:179-192) or is a DTensor random
 *    factory (_api.py:1258-1271), so the local op runs inside
 *    OffsetBasedRNGTracker._distribute_region on the input's (or the
 *    factory's) spec: the tracker's windows (lib/offsets/rng_offsets.c);
 *  - untracked: DTensor has a sharding strategy but the op is not in
 *    _random_ops, so the local op runs on each rank's own generator
 *    (_dispatch.py:423-436): no pre-op shift, every shard starts at the
 *    same offset and draws the same numbers, and each rank's offset advances
 *    by its own kernel's increment for its local size;
 *  - rejected: torch raises (no sharding strategy, or an in-place op on a
 *    Partial input) — shc_rng_op_check returns torch's exact message;
 *  - local: no DTensor argument (torch.rand, torch.randperm, ...): a plain
 *    per-rank op on the rank's own generator, nothing DTensor decides.
 *
 * Used by the rng-offsets family (per-rank semantics of each op under each
 * placement kind), the torch-cuda-rng family (each case names its API and
 * the kernel's dtypes), `shardcheck audit rng --op` and `shardcheck
 * policies`.  Tested by conformance/tests/check_rng_ops.c and, against
 * torch 2.13's own dispatcher on a fake process group, by the rng-offsets
 * harness adapter (tools/harness/adapters/torch_rng_offsets.py).
 */
#ifndef SHARDCHECK_OPS_H
#define SHARDCHECK_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
/* Part of shardcheck.h, which includes it after the core types: include that. */
#ifndef SHARDCHECK_H
#error "include <shardcheck.h> (it includes this header)"
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    SHC_RNGD_TRACKED,   /* inside the tracker's _distribute_region */
    SHC_RNGD_UNTRACKED, /* each rank's own generator, no offset shift */
    SHC_RNGD_REJECTED,  /* DTensor raises for every layout */
    SHC_RNGD_LOCAL,     /* takes no DTensor: a per-rank op */
    SHC_RNGD_COUNT
} shc_rng_dispatch;

/* What a Partial input does (no Partial input reaches a random op unchanged). */
typedef enum {
    SHC_RNGP_NONE,          /* op takes no DTensor, or is rejected anyway */
    SHC_RNGP_REJECT,        /* in-place: "in-place operations that require placement changes" */
    SHC_RNGP_TO_REPLICATE,  /* create_like_strategy: output Replicate, tracker sees the input spec */
    SHC_RNGP_REDISTRIBUTE,  /* input redistributed by the cost model (reduce-scatter or all-reduce) */
    SHC_RNGP_AS_REPLICA     /* DTensor factory: Partial placements taken as replicas */
} shc_rng_partial;

typedef enum { SHC_API_PYTHON, SHC_API_ATEN, SHC_API_DTENSOR } shc_rng_api;

#define SHC_DTM(t) (1u << (t))
#define SHC_DTM_FLOATS (SHC_DTM(SHC_DT_FLOAT32) | SHC_DTM(SHC_DT_FLOAT64) | \
                        SHC_DTM(SHC_DT_FLOAT16) | SHC_DTM(SHC_DT_BFLOAT16))
#define SHC_DTM_INTS (SHC_DTM(SHC_DT_INT64) | SHC_DTM(SHC_DT_INT32) | SHC_DTM(SHC_DT_INT16) | \
                      SHC_DTM(SHC_DT_INT8) | SHC_DTM(SHC_DT_UINT8))
#define SHC_DTM_ALL (SHC_DTM_FLOATS | SHC_DTM_INTS | SHC_DTM(SHC_DT_BOOL))

/* shc_rng_op.kernel of an op emulated by lib/rng/torch_cuda_sample.c: this + its shc_torch_sample_op. */
#define SHC_RNG_KERNEL_SAMPLE 64

typedef struct shc_rng_op {
    const char *name;         /* table key, e.g. "exponential_", "random_.from" */
    const char *api;          /* the call a case models, e.g. "torch.Tensor.exponential_" */
    shc_rng_api api_kind;
    const char *aten;         /* the overload DTensor's dispatcher sees */
    shc_rng_dispatch dispatch;
    shc_rng_partial partial;
    bool last_dim_replicated; /* multinomial: the category dim is never sharded */
    unsigned dtypes;          /* output dtypes the CUDA kernel accepts (SHC_DTM bits) */
    int kernel;               /* shc_torch_op emulated by lib/rng/torch_cuda_rng.c, or
                                 SHC_RNG_KERNEL_SAMPLE + shc_torch_sample_op (torch_cuda_sample.c);
                                 -1: none yet */
    const char *cite;         /* torch 2.13 file:line that decides the dispatch */
    const char *kernel_note;  /* CUDA kernel, and the math-library function values go through */
    /* A release row (shc_rng_op_in): the shc_torch_change bits it models; 0 for the pinned
     * table's rows. */
    uint32_t torch_changes;
    /* torch 2.11/2.12's strategy from the op's decomposition: a layout that is not
     * is_tensor_shardable (a sharded tensor dim smaller than its number of shards) is
     * redistributed, which an in-place op refuses (shc_rng_op_check_layout). */
    bool shardable_only;
} shc_rng_op;

/* The whole table (n rows). */
const shc_rng_op *shc_rng_ops(size_t *n);
/* Row by name; NULL if none. */
const shc_rng_op *shc_rng_op_find(const char *name);
/* The row of op as torch release r has it: a release row of rng_ops.c that replaces it in
 * r (its torch_changes names why), else op itself. */
const shc_rng_op *shc_rng_op_in(const shc_rng_op *op, shc_torch_release r);
/* Row modelling a torch-cuda-rng kernel op (uniform -> uniform_, dropout -> native_dropout). */
const shc_rng_op *shc_rng_op_for_kernel(shc_torch_op k);
/* Parse a name into a row, SHC_EINVAL naming the valid names otherwise. */
int shc_rng_op_parse(const char *name, const shc_rng_op **out, shc_err *e);
/* "tracked", "untracked", "rejected", "local". */
const char *shc_rng_dispatch_name(shc_rng_dispatch d);
/* Whether torch 2.13 accepts the op on a DTensor with these placements: SHC_OK, or
 * SHC_EINVAL with torch's exact message (first paragraph of the RuntimeError /
 * NotImplementedError). */
int shc_rng_op_check(const shc_rng_op *op, const shc_placements *pl, shc_err *e);
/* shc_rng_op_check, and for a shardable_only row the layout's shardability: SHC_EINVAL
 * with torch's in-place message when the op would need the input redistributed. */
int shc_rng_op_check_layout(const shc_rng_op *op, const shc_mesh *m, const shc_placements *pl,
                            const shc_shape *shape, shc_err *e);
/* Audit one op on a layout (lib/offsets/rng_audit.c): tracked ops get shc_rng_audit_layout's
 * findings; untracked ops UntrackedOpSharedDraws (end_incr 0: each rank's offset advances
 * by its own kernel's increment); rejected inputs SHC_EINVAL with torch's message; an input
 * torch redistributes by its cost model first (Partial into an out-of-place op, multinomial's
 * category dim sharded) SHC_EUNSUPPORTED. */
int shc_rng_audit_op(const shc_rng_op *op, const shc_mesh *m, const shc_placements *pl,
                     const shc_shape *shape, shc_rng_audit *out, shc_err *e);
/* The RNG policy torch 2.13 follows for op on a layout (rng_audit.c): torch-offset for a
 * tracked op, torch-untracked for an untracked one; the errors of shc_rng_audit_op where
 * torch rejects it (SHC_EINVAL, torch's message), for a local op (SHC_EINVAL: no DTensor) or
 * where torch redistributes first (SHC_EUNSUPPORTED).  The one decision `audit rng --op`,
 * `offsets --op` and `policies --op` share. */
int shc_rng_op_policy(const shc_rng_op *op, const shc_mesh *m, const shc_placements *pl,
                      const shc_shape *shape, const shc_rng_policy **out, shc_err *e);
/* shc_rng_policy_verdict of torch 2.13 running op (rng_policy_check.c): on each layout of
 * the table the policy shc_rng_op_policy gives, compared with itself for torch-equal; the
 * layouts where torch rejects or redistributes the op count as rejected (mask -1). */
int shc_rng_op_verdict(const shc_rng_op *op, const shc_gpu_profile *gpu, uint64_t seed,
                       shc_rng_verdict *out, shc_err *e);

/* ---- the RNG set-up before any draw (rng_lifecycle.c) ---- */

/* What a rank does at one set-up event. */
typedef enum {
    SHC_LC_RUNS,   /* it runs (collectives and state below) */
    SHC_LC_NOOP,   /* nothing happens (a warning, or no op on this rank) */
    SHC_LC_RAISES, /* torch raises (what: the exception) */
    SHC_LC_WAITS   /* it joins a collective that some ranks never join: it waits */
} shc_lc_outcome;
enum { SHC_LC_MANUAL_SEED, SHC_LC_FIRST_OP, SHC_LC_FACTORY, SHC_LC_EVENTS };
typedef struct shc_lc_event {
    shc_lc_outcome outcome;
    int collectives;     /* c10d collectives the rank calls */
    int64_t state_from;  /* the global rank whose state it takes (-1: none) */
    bool state_set;      /* the state is set to (seed, offset) */
    uint64_t seed, offset;
    const char *what;    /* what runs, or torch's warning or exception */
} shc_lc_event;
/* torch 2.13's manual_seed, first random op and random factory on global rank `rank` of the
 * mesh's world (shc_mesh_init_world), none having made a tracker before, on a CUDA-like or a
 * CPU device mesh; SHC_EINVAL for a rank outside the world. */
int shc_rng_lifecycle(const shc_mesh *m, int64_t rank, bool cuda_like, uint64_t seed,
                      shc_lc_event ev[SHC_LC_EVENTS], shc_err *e);
/* The first random op on a DTensor given a user's generator g (generator=g), no tracker made
 * before, on global rank `rank` (rng_lifecycle.c: on a CUDA-like mesh the tracker's offsets
 * move g; on a CPU mesh torch drops g and the rank's default generator draws). */
int shc_rng_lifecycle_user_generator(const shc_mesh *m, int64_t rank, bool cuda_like,
                                     shc_lc_event *ev, shc_err *e);
/* "runs", "noop", "raises", "waits". */
const char *shc_lc_outcome_name(shc_lc_outcome o);
/* torch's _PhiloxState bytes: the seed's 8 little-endian bytes, then the offset's. */
void shc_philox_state_pack(uint64_t seed, uint64_t offset, uint8_t out[16]);
void shc_philox_state_unpack(const uint8_t in[16], uint64_t *seed, uint64_t *offset);

#ifdef __cplusplus
}
#endif

/* A registered RNG tracker (lib/offsets/rng_tracker.c): the class a framework creates or a
 * device registers, and the contract it keeps as an RNG policy on a device profile. */
typedef struct shc_rng_tracker {
    const char *name;      /* module-qualified class; a Megatron state in brackets */
    const char *framework; /* who ships it, and the release read */
    const char *devices;   /* the device types it serves */
    const char *policy;    /* the rng policy whose answers it keeps (shc_rng_policy_lookup) */
    const char *gpu;       /* the device profile its offsets are on (shc_gpu_profile_parse) */
    const char *how;       /* how it comes to be used, upstream state included */
    const char *source;    /* where its class and contract are stated */
} shc_rng_tracker;
/* Number of registered trackers, and tracker i (NULL out of range). */
int shc_rng_tracker_count(void);
const shc_rng_tracker *shc_rng_tracker_at(int i);
/* Find a tracker by its full name, or by its class name where one framework alone has it;
 * SHC_EINVAL naming the known trackers otherwise. */
int shc_rng_tracker_lookup(const char *name, const shc_rng_tracker **out, shc_err *e);

#endif /* SHARDCHECK_OPS_H */
