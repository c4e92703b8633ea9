/*
 * megatron_seeds.c — Megatron's per-rank generator seeds and its refusals.
 *
 * Why a file of its own: the megatron-* RNG policies (rng_policy.c) read one seed of a rank's
 * tracker, but Megatron decides every seed of the tracker together and refuses a
 * configuration as a whole; both live here, cited:
 *  - ranks: Megatron-core 0.19.2 parallel_state.py RankGenerator, order "tp-cp-ep-dp-pp"
 *    (initialize_model_parallel's default, the first token fastest): decoder ranks from
 *    (tp, dp, pp), expert ranks from (etp, ep, edp, pp); world % (tp * pp) and
 *    world % (etp * ep * pp) must be 0 (its RuntimeError "world_size (N) is not divisible
 *    by ...");
 *  - base seed: Megatron-LM megatron/training/initialize.py _set_random_seed (NVIDIA/
 *    Megatron-LM 00c2c0ad, shipped): seed + 100 * pp_rank, and + 10 * dp_rank with
 *    --data-parallel-random-init; a seed <= 0 raises ValueError "Seed (N) should be a
 *    positive integer.";
 *  - tracker seeds: Megatron-core 0.19.2 tensor_parallel/random.py
 *    model_parallel_cuda_manual_seed: default (data parallel) = base, model-parallel-rng =
 *    base + 2718 + tp_rank, expert-parallel-rng = base + 1024 + 100 * ep_rank + etp_rank,
 *    added in that order to CudaRNGStatesTracker, whose add() raises
 *    "seed N already exists" on a seed already in use.  With etp = tp (Megatron's default)
 *    no two collide (2718 - 1024 = 1694 is no multiple of 100); with etp != tp they can.
 *  - GTP weight rematerialisation (Megatron-core 0.19.2: parallel_state.py
 *    _inject_gtp_remat_axis puts a gtp_remat axis right after tp in the decoder order,
 *    "tp-gtp_remat-cp-ep-dp-pp", and right after ep in the expert order,
 *    "tp-cp-ep-gtp_remat-dp-pp"; world = tp * gtp * cp * dp * pp, the expert grid's
 *    etp * ep * egtp * edp * pp): random.py adds "gtp-remat-rng" = model-parallel seed +
 *    65536 * (1 + gtp_rank) only when gtp_remat_size > 1, and "egtp-remat-rng" =
 *    expert-parallel seed + 32768 + 65536 * (1 + egtp_rank) only when
 *    expert_gtp_remat_size > 1, after the three above and under the same duplicate check.
 * A tracker seed past 2^64 - 1 is refused too: torch.cuda.manual_seed raises on it.
 * Tested by check_offsets.c (megatron_training_seeds, megatron_refusals: numbers read off
 * the cited sources) and the rng-policies golden family, whose megatron-* seeds the harness
 * checks with Megatron-core's own code (tools/harness/adapters/megatron_rng_policies.py).
 */
#include "config.h"
#include <string.h>
#include "shardcheck.h"
#include "checked_math.h"

/* A GTP axis size: 0 (a configuration that never set it) is 1, off. */
static int64_t axis(int64_t size) { return size > 1 ? size : 1; }

static int check_sizes(const shc_megatron_cfg *c, int64_t world, int64_t rank, shc_err *e)
{
    if (c->tp < 1 || c->etp < 1 || c->ep < 1 || c->pp < 1 || world < 1 || c->gtp < 0 ||
        c->egtp < 0)
        return shc_fail(e, SHC_EINVAL, "megatron: sizes tp %lld, etp %lld, ep %lld, pp %lld "
                        "and world %lld must be >= 1 (gtp %lld and egtp %lld >= 0)",
                        (long long)c->tp, (long long)c->etp, (long long)c->ep,
                        (long long)c->pp, (long long)world, (long long)c->gtp,
                        (long long)c->egtp);
    if (rank < 0 || rank >= world)
        return shc_fail(e, SHC_EINVAL, "megatron: rank %lld is not in a world of %lld",
                        (long long)rank, (long long)world);
    int64_t dec, exp;
    if (!shc_mul64(c->tp, c->pp, &dec) || !shc_mul64(dec, axis(c->gtp), &dec) ||
        !shc_mul64(c->etp, c->ep, &exp) || !shc_mul64(exp, c->pp, &exp) ||
        !shc_mul64(exp, axis(c->egtp), &exp))
        return shc_fail(e, SHC_EOVERFLOW, "megatron: parallel sizes overflow int64");
    if (world % dec && axis(c->gtp) > 1)
        return shc_fail(e, SHC_EUNSUPPORTED, "megatron: world_size (%lld) is not divisible by "
                        "%lld (tp %lld x gtp_remat %lld x pp %lld; Megatron-core "
                        "parallel_state.py raises RuntimeError)", (long long)world,
                        (long long)dec, (long long)c->tp, (long long)c->gtp, (long long)c->pp);
    if (world % dec)
        return shc_fail(e, SHC_EUNSUPPORTED, "megatron: world_size (%lld) is not divisible by "
                        "%lld (tp %lld x pp %lld; Megatron-core parallel_state.py raises "
                        "RuntimeError)", (long long)world, (long long)dec, (long long)c->tp,
                        (long long)c->pp);
    if (world % exp)
        return shc_fail(e, SHC_EUNSUPPORTED, "megatron: world_size (%lld) is not divisible by "
                        "expert_tensor_model_pipeline_parallel size (%lld) (Megatron-core "
                        "parallel_state.py raises RuntimeError)", (long long)world,
                        (long long)exp);
    return SHC_OK;
}

/* RankGenerator, order tp-cp-ep-dp-pp with cp = 1, the first token varying fastest, and
 * gtp_remat after tp (decoder) or after ep (expert). */
static void ranks_of(const shc_megatron_cfg *c, int64_t world, int64_t r, shc_megatron_seeds *o)
{
    int64_t gtp = axis(c->gtp), dp = world / (c->tp * gtp * c->pp);
    o->tp_rank = r % c->tp;
    o->gtp_rank = r / c->tp % gtp;
    o->dp_rank = r / (c->tp * gtp) % dp;
    o->pp_rank = r / (c->tp * gtp * dp);
    o->etp_rank = r % c->etp;
    o->ep_rank = r / c->etp % c->ep;
    o->egtp_rank = r / (c->etp * c->ep) % axis(c->egtp);
}

/* Python's ints do not wrap: a seed past 2^64 - 1 reaches torch.cuda.manual_seed, which
 * raises ValueError ("Overflow when unpacking long long"; torch 2.13's Generator.manual_seed
 * does so on a CPU too), so Megatron refuses the configuration. */
static int add_u64(uint64_t a, uint64_t b, uint64_t *out, shc_err *e)
{
    if (a > UINT64_MAX - b)
        return shc_fail(e, SHC_EUNSUPPORTED, "megatron: seed %llu + %llu is past 2^64 - 1: "
                        "torch.cuda.manual_seed raises ValueError (Overflow when unpacking "
                        "long long)", (unsigned long long)a, (unsigned long long)b);
    *out = a + b;
    return SHC_OK;
}

int shc_megatron_rank_seeds(const shc_megatron_cfg *c, int64_t world, int64_t rank,
                            uint64_t seed, shc_megatron_seeds *out, shc_err *e)
{
    memset(out, 0, sizeof *out);
    int rc = check_sizes(c, world, rank, e);
    if (rc)
        return rc;
    ranks_of(c, world, rank, out);
    uint64_t base = seed;
    if (c->training) {
        if (seed == 0) /* seed_ > 0 or ValueError; our seeds are unsigned */
            return shc_fail(e, SHC_EUNSUPPORTED, "megatron: Seed (0) should be a positive "
                            "integer. (Megatron-LM training/initialize.py _set_random_seed "
                            "raises ValueError)");
        if ((rc = add_u64(base, 100 * (uint64_t)out->pp_rank, &base, e)) ||
            (c->dp_random_init && (rc = add_u64(base, 10 * (uint64_t)out->dp_rank, &base, e))))
            return rc;
    }
    out->base = base;
    out->data_parallel = base;
    if ((rc = add_u64(base, 2718 + (uint64_t)out->tp_rank, &out->tensor_parallel, e)) ||
        (rc = add_u64(base, 1024 + 100 * (uint64_t)out->ep_rank + (uint64_t)out->etp_rank,
                      &out->expert_parallel, e)))
        return rc;
    /* CudaRNGStatesTracker.add in model_parallel_cuda_manual_seed's order: default,
     * model-parallel, expert-parallel, then the GTP states whose axis is on; the first seed
     * already added is refused */
    uint64_t added[5] = {out->data_parallel, out->tensor_parallel, out->expert_parallel};
    int nadded = 3;
    if (axis(c->gtp) > 1) {
        if ((rc = add_u64(out->tensor_parallel, 65536 * (1 + (uint64_t)out->gtp_rank),
                          &out->gtp_remat, e)))
            return rc;
        added[nadded++] = out->gtp_remat;
    }
    if (axis(c->egtp) > 1) {
        if ((rc = add_u64(out->expert_parallel, 32768 + 65536 * (1 + (uint64_t)out->egtp_rank),
                          &out->egtp_remat, e)))
            return rc;
        added[nadded++] = out->egtp_remat;
    }
    for (int i = 1; i < nadded; i++)
        for (int j = 0; j < i; j++)
            if (added[i] == added[j])
                return shc_fail(e, SHC_EUNSUPPORTED, "megatron: rank %lld: seed %llu already "
                                "exists (Megatron-core random.py CudaRNGStatesTracker.add "
                                "raises; tp rank %lld, ep rank %lld, etp rank %lld)",
                                (long long)rank, (unsigned long long)added[i],
                                (long long)out->tp_rank, (long long)out->ep_rank,
                                (long long)out->etp_rank);
    return SHC_OK;
}

int shc_megatron_check_world(const shc_megatron_cfg *c, int64_t world, uint64_t seed,
                             shc_err *e)
{
    shc_megatron_seeds s;
    int rc = check_sizes(c, world, 0, e);
    for (int64_t r = 0; r < world && rc == SHC_OK; r++)
        rc = shc_megatron_rank_seeds(c, world, r, seed, &s, e);
    return rc;
}
