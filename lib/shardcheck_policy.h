/*
 * shardcheck_policy.h — RNG policies (installed; shardcheck.h includes it): named profiles of
 * how each rank's random op picks its generator and offset (torch-offset, hyper-parallel,
 * megatron-*, jax-partitionable, single-device-equal, torch-untracked, torch-func-random),
 * each rank's stream per policy, device profile and op dtype, the SPMD properties a policy keeps
 * on a layout (decided element by element) and its verdict over the policy table, and the
 * Megatron configuration and seeds the megatron-* policies read off a mesh.
 *
 * Implemented by lib/offsets/rng_policy.c, rng_policy_check.c and megatron_seeds.c; tested by
 * conformance/tests/check_offsets.c, check_rng_dtypes.c and the rng-policies golden family
 * (Megatron-core's and veScale's own code check it in the harness).
 */
#ifndef SHARDCHECK_POLICY_H
#define SHARDCHECK_POLICY_H

#include <stdbool.h>
#include <stdint.h>
/* Part of shardcheck.h, which includes it after the core types: include that. */
#ifndef SHARDCHECK_H
#error "include <shardcheck.h> (it includes this header)"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* GPU profiles are the random-engines area's shc_gpu_profile (gpu_profiles.c). */
/* torch's Philox offset increment of one float32 uniform_ kernel over n elements. */
int64_t shc_rng_kernel_offset_incr(const shc_gpu_profile *gpu, int64_t n);
/* Values a thread of torch's uniform_/normal_ kernel takes from one Philox block of four words
 * for a dtype: 4 (float32, float16, bfloat16) or 2 (float64); 0 where the kernel has none. */
int shc_rng_dtype_unroll(shc_dtype dt);
/* shc_rng_kernel_offset_incr for the kernel of a dtype (0 for a dtype of unroll 0). */
int64_t shc_rng_kernel_offset_incr_dtype(const shc_gpu_profile *gpu, int64_t n, shc_dtype dt);

/* An RNG policy (a named profile: torch-offset, megatron-tp, jax-partitionable, ...). */
typedef struct shc_rng_policy shc_rng_policy;
/* Find a policy by name; SHC_EINVAL naming the known policies if unknown. */
int shc_rng_policy_lookup(const char *name, const shc_rng_policy **out, shc_err *e);
/* Number of policies, and policy i (for tables). */
int shc_rng_policy_count(void);
const shc_rng_policy *shc_rng_policy_at(int i);
/* Name and one-line description of a policy. */
const char *shc_rng_policy_name(const shc_rng_policy *p);
const char *shc_rng_policy_summary(const shc_rng_policy *p);
/* Comma-separated list of every policy name. */
const char *shc_rng_policy_names(void);
/* Whether a policy's streams depend on the GPU profile (its kernel's offset increment or
 * launch layout): the Megatron policies, single-device-equal and torch-untracked do. */
bool shc_rng_policy_uses_gpu(const shc_rng_policy *p);
/* Whether a policy's verdicts (shc_rng_policy_verdict) depend on the GPU profile: every policy
 * whose streams do, and hyper-parallel (its windows overrun by a count of words the launch
 * geometry sets); not torch-offset nor jax-partitionable. */
bool shc_rng_policy_verdict_uses_gpu(const shc_rng_policy *p);

/* Megatron's parallel configuration (megatron_seeds.c): sizes of decoder tp, expert tp,
 * expert ep and pp (dp and edp are what the world leaves), Megatron-LM training's
 * additions to the base seed (+ 100 * pp rank; + 10 * dp rank with dp_random_init), and the
 * GTP weight-rematerialisation axes of Megatron-core 0.19 (gtp_remat_size and
 * expert_gtp_remat_size; 0 or 1: off, as a zeroed configuration leaves them). */
typedef struct shc_megatron_cfg {
    int64_t tp, etp, ep, pp;
    bool training, dp_random_init;
    int64_t gtp, egtp;
} shc_megatron_cfg;
/* One rank's Megatron ranks (RankGenerator, order tp-cp-ep-dp-pp with gtp_remat injected
 * after tp, or after ep for the expert ranks) and tracker seeds; gtp_remat and egtp_remat
 * are 0 where their tracker is not added (its axis is off). */
typedef struct shc_megatron_seeds {
    int64_t tp_rank, dp_rank, pp_rank, ep_rank, etp_rank;
    uint64_t base, data_parallel, tensor_parallel, expert_parallel;
    int64_t gtp_rank, egtp_rank;
    uint64_t gtp_remat, egtp_remat;
} shc_megatron_seeds;
/* The seeds global rank `rank` of `world` gets; SHC_EUNSUPPORTED with Megatron's refusal
 * (a world the sizes do not divide, a duplicate tracker seed, a training seed of 0). */
int shc_megatron_rank_seeds(const shc_megatron_cfg *c, int64_t world, int64_t rank,
                            uint64_t seed, shc_megatron_seeds *out, shc_err *e);
/* shc_megatron_rank_seeds over every rank: Megatron's refusal of the whole configuration. */
int shc_megatron_check_world(const shc_megatron_cfg *c, int64_t world, uint64_t seed,
                             shc_err *e);
/* The Megatron configuration a megatron-* policy reads off a mesh (rng_policy.c says which
 * mesh dim is which); SHC_EINVAL naming the policy if it is not Megatron's. */
int shc_rng_policy_megatron_cfg(const shc_rng_policy *p, const shc_mesh *m,
                                shc_megatron_cfg *out, shc_err *e);

/* SHC_OK if the policy is modelled on the device profile; else SHC_EINVAL naming both
 * (torch-func-random has CUDA kernels only: no stream-semantics profile). */
int shc_rng_policy_models_profile(const shc_rng_policy *p, const shc_gpu_profile *gpu,
                                  shc_err *e);
/* SHC_OK if the policy is modelled for an op of dtype dt on the profile; else SHC_EINVAL
 * saying why (a dtype other than float32 is modelled on CUDA's window with alignment 4;
 * torch-func-random's half types are not). */
int shc_rng_policy_models_dtype(const shc_rng_policy *p, const shc_gpu_profile *gpu,
                                shc_dtype dt, shc_err *e);
/* One rank's random stream for one op under a policy. */
typedef struct shc_rng_stream {
    uint64_t seed;              /* generator seed (jax: the key's low word) */
    int64_t shard_linear_index; /* the policy's shard index (-1 if it has none) */
    int64_t start_incr, end_incr;
    int64_t local_numel;
    int64_t start, post;        /* generator offset the op starts at, and after the op */
} shc_rng_stream;
/* The stream of global rank `rank` for one op starting from generator offset old_offset. */
int shc_rng_policy_stream(const shc_rng_policy *p, const shc_gpu_profile *gpu, const shc_mesh *m,
                          const shc_placements *pl, const shc_shape *shape, uint64_t seed,
                          int64_t old_offset, int64_t rank, shc_rng_stream *out, shc_err *e);
/* shc_rng_policy_stream for an op of dtype dt (the functions without _dtype: float32). */
int shc_rng_policy_stream_dtype(const shc_rng_policy *p, const shc_gpu_profile *gpu,
                                shc_dtype dt, const shc_mesh *m, const shc_placements *pl,
                                const shc_shape *shape, uint64_t seed, int64_t old_offset,
                                int64_t rank, shc_rng_stream *out, shc_err *e);

/* Properties a policy may promise (bit 1<<prop in a verdict mask). */
enum {
    SHC_RNGP_REPLICAS_EQUAL,     /* ranks holding the same element draw the same value */
    SHC_RNGP_SHARDS_DISTINCT,    /* no two elements (this op or the next) share a draw */
    SHC_RNGP_SHARDING_INVARIANT, /* the tensor equals the policy's 1-device tensor */
    SHC_RNGP_TORCH_EQUAL,        /* every rank's seed/start/post equal torch-offset's */
    SHC_RNGP_COUNT
};
/* Name of a property ("replicas-equal", ...). */
const char *shc_rng_property_name(int prop);
/* Which properties hold for one layout (mask), by drawing identities element by element. */
int shc_rng_policy_check(const shc_rng_policy *p, const shc_gpu_profile *gpu, const shc_mesh *m,
                         const shc_placements *pl, const shc_shape *shape, uint64_t seed,
                         unsigned *holds, shc_err *e);
/* shc_rng_policy_check and the number of colliding draws of its two ops: draws whose identity
 * another draw has, each extra draw counted once (0 exactly where shards-distinct holds). */
int shc_rng_policy_collisions(const shc_rng_policy *p, const shc_gpu_profile *gpu,
                              const shc_mesh *m, const shc_placements *pl,
                              const shc_shape *shape, uint64_t seed, unsigned *holds,
                              int64_t *collisions, shc_err *e);
/* shc_rng_policy_collisions for two ops of dtype dt. */
int shc_rng_policy_collisions_dtype(const shc_rng_policy *p, const shc_gpu_profile *gpu,
                                    shc_dtype dt, const shc_mesh *m, const shc_placements *pl,
                                    const shc_shape *shape, uint64_t seed, unsigned *holds,
                                    int64_t *collisions, shc_err *e);
/* A layout of the policy table. */
typedef struct shc_rng_case {
    const char *mesh, *placements, *shape;
} shc_rng_case;
/* The layouts every policy verdict is computed over; returns their count. */
int shc_rng_policy_cases(const shc_rng_case **out);
/* A policy's verdict over the case table: per property, layouts where it holds. */
#define SHC_RNG_MAX_CASES 64
typedef struct shc_rng_verdict {
    int64_t layouts, rejected;
    int ncases;
    int mask[SHC_RNG_MAX_CASES];    /* per case: property bits that hold, -1 if rejected */
    int64_t holds[SHC_RNGP_COUNT];
    int first_fail[SHC_RNGP_COUNT]; /* case index of the first counterexample, -1 if none */
    int64_t collisions[SHC_RNG_MAX_CASES]; /* per case: colliding draws (0 if rejected) */
    int64_t total_collisions;
} shc_rng_verdict;
/* Compute a policy's verdict over shc_rng_policy_cases with the given GPU profile and seed. */
int shc_rng_policy_verdict(const shc_rng_policy *p, const shc_gpu_profile *gpu, uint64_t seed,
                           shc_rng_verdict *out, shc_err *e);
/* shc_rng_policy_verdict for ops of dtype dt. */
int shc_rng_policy_verdict_dtype(const shc_rng_policy *p, const shc_gpu_profile *gpu,
                                 shc_dtype dt, uint64_t seed, shc_rng_verdict *out, shc_err *e);

#ifdef __cplusplus
}
#endif

#endif /* SHARDCHECK_POLICY_H */
