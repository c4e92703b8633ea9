/*
 * rng_tracker.c — registered RNG trackers: the tracker class a framework creates or a
 * device registers, named as its framework names it, and the contract it keeps, said as an
 * RNG policy (rng_policy.c) on a device profile (gpu_profiles.c: the launch geometry, what an
 * offset addresses and its alignment).  A vendor names its tracker and gets the oracle's
 * answer for it (`shardcheck trackers`, `offsets --tracker`, `policies --tracker`).
 *
 * Upstream is moving towards a registry per device type: register_rng_tracker(device_type,
 * cls) with OffsetBasedRNGTracker the fallback (pytorch PR 195245, open; consumed by DTensor's
 * dispatch in PR 195246, open); torch_npu registers NpuRNGStateTracker through it (Ascend/pytorch
 * PR 165), a subclass of OffsetBasedRNGTracker whose offsets each select an independent Philox
 * stream instead of a window into one (the semantic difference that PR documents).  Each row
 * cites where its class and contract are stated.
 *
 * Tested by check_offsets (every row names a known policy and a profile that parses with the
 * row's offset semantics; names are unique), cli_offsets.sh (trackers, --tracker against
 * --policy/--gpu) and tools/harness/tests/test_trackers.py (each class and state name is in
 * the framework's own source where the venv has it: torch 2.13, Megatron-core 0.19.2).
 */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include "shardcheck.h"

static const shc_rng_tracker trackers[] = {
    {"torch.distributed.tensor._random.OffsetBasedRNGTracker", "torch 2.13",
     "cuda, xpu, hpu (CUDA-like)", "torch-offset", "a100",
     "made by DTensor's random ops and manual_seed on a CUDA-like mesh (_dispatch.py, _api.py); "
     "the fallback of register_rng_tracker (pytorch PR 195245, open)",
     "torch/distributed/tensor/_random.py"},
    {"torch_npu.NpuRNGStateTracker", "torch_npu (Ascend)", "npu", "torch-offset",
     "ascend-910b",
     "register_rng_tracker('npu', ...) (Ascend/pytorch PR 165; needs pytorch PRs 195245 and "
     "195246, open): OffsetBasedRNGTracker's offsets, each offset its own Philox stream",
     "Ascend/pytorch PR 165 (NpuRNGStateTracker subclasses OffsetBasedRNGTracker)"},
    {"hyper_parallel.core.random.OffsetBasedRNGTracker", "hyper_parallel (seed 000)", "npu",
     "hyper-parallel", "ascend-910b",
     "the port's own module global, made as torch's is (no registry), on its default device "
     "type 'npu'", "seed 000: hyper_parallel/core/random.py"},
    {"vescale.dtensor.random.ThreadBasedRNGTracker", "veScale", "cuda", "single-device-equal",
     "a100", "veScale's own module global (no registry)", "vescale/dtensor/random.py"},
    {"megatron.core.tensor_parallel.random.CudaRNGStatesTracker[model-parallel-rng]",
     "Megatron-core 0.19.2", "cuda", "megatron-tp", "a100",
     "model_parallel_cuda_manual_seed adds the state 'model-parallel-rng': seed + 2718 + tp rank",
     "megatron/core/tensor_parallel/random.py"},
    {"megatron.core.tensor_parallel.random.CudaRNGStatesTracker[expert-parallel-rng]",
     "Megatron-core 0.19.2", "cuda", "megatron-ep", "a100",
     "model_parallel_cuda_manual_seed adds the state 'expert-parallel-rng': seed + 1024 + "
     "100 * ep rank + etp rank", "megatron/core/tensor_parallel/random.py"},
    {"megatron.core.tensor_parallel.random.CudaRNGStatesTracker[data-parallel-rng]",
     "Megatron-core 0.19.2", "cuda", "megatron-dp", "a100",
     "model_parallel_cuda_manual_seed adds the state 'data-parallel-rng' (and seeds the default "
     "generator): the seed itself", "megatron/core/tensor_parallel/random.py"},
    {"megatron.core.tensor_parallel.random.CudaRNGStatesTracker[gtp-remat-rng]",
     "Megatron-core 0.19.2", "cuda", "megatron-gtp", "a100",
     "model_parallel_cuda_manual_seed adds the state 'gtp-remat-rng' when gtp_remat_size > 1: "
     "the model-parallel seed + 65536 * (1 + gtp rank)", "megatron/core/tensor_parallel/random.py"},
    {"megatron.core.tensor_parallel.random.CudaRNGStatesTracker[egtp-remat-rng]",
     "Megatron-core 0.19.2", "cuda", "megatron-egtp", "a100",
     "model_parallel_cuda_manual_seed adds the state 'egtp-remat-rng' when "
     "expert_gtp_remat_size > 1: the expert seed + 32768 + 65536 * (1 + egtp rank)",
     "megatron/core/tensor_parallel/random.py"},
};
#define NTRACKERS ((int)(sizeof trackers / sizeof trackers[0]))

int shc_rng_tracker_count(void) { return NTRACKERS; }

const shc_rng_tracker *shc_rng_tracker_at(int i)
{
    return i >= 0 && i < NTRACKERS ? &trackers[i] : NULL;
}

/* The name after the last '.', a Megatron state's bracket included. */
static const char *short_name(const char *name)
{
    const char *b = strchr(name, '['), *p = name, *dot;
    while ((dot = strchr(p, '.')) && (!b || dot < b))
        p = dot + 1;
    return p;
}

int shc_rng_tracker_lookup(const char *name, const shc_rng_tracker **out, shc_err *e)
{
    const shc_rng_tracker *hit = NULL;
    int n = 0;
    for (int i = 0; i < NTRACKERS; i++)
        if (name && !strcmp(name, trackers[i].name)) {
            *out = &trackers[i];
            return SHC_OK;
        }
    /* the class name alone, where only one framework has it */
    for (int i = 0; name && i < NTRACKERS; i++)
        if (!strcmp(name, short_name(trackers[i].name)))
            hit = &trackers[i], n++;
    if (n == 1) {
        *out = hit;
        return SHC_OK;
    }
    char known[1024] = "";
    for (int i = 0; i < NTRACKERS; i++) /* the ambiguous class's frameworks, or every one */
        if (n < 2 || !strcmp(name, short_name(trackers[i].name)))
            snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s",
                     *known ? ", " : "", trackers[i].name);
    if (n > 1)
        return shc_fail(e, SHC_EINVAL, "tracker '%s' is the class of %d frameworks: name it "
                        "in full (%s)", name, n, known);
    return shc_fail(e, SHC_EINVAL, "unknown tracker '%s' (known: %s)", name ? name : "",
                    known);
}
