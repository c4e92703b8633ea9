/*
 * families.h — what the golden families' generators share (one file per family in
 * conformance/families/, each walking its case tables and defining its record,
 * family.h).  Registered by one line in registry.c; every family also has
 * golden/schemas/<family>_v1.json.
 */
#ifndef SHC_FAMILIES_H
#define SHC_FAMILIES_H
#include "family.h"

/* LargeMesh, stated once for every family: a mesh larger than the largest
 * world the test job launches (mpirun -np 8), so the mpi backend reports its
 * cases NotSupported there. */
#define SHC_LARGE_MESH_RANKS 8
/* The SfuModel flag (torch-cuda-rng, rng-offsets): values through an sm_90
 * special-function-unit instruction we model from H100 recordings (lib/rng/cuda_sfu.c;
 * docs/cuda-math.md).  float64's MUFU.RCP64H is no model but a recording of every input
 * (lib/rng/cuda_rcp64h.c), so float64 cases on sm_90 are exact and carry no flag. */
#define SHC_SFU_MODEL_NOTE "The group's GPU is sm_90 and the value passes through the " \
    "special-function unit: MUFU.SIN/MUFU.COS via __sincosf in float Box-Muller (the normal " \
    "draw of float/half/bfloat16 normal_) and MUFU.LG2 via __logf in float-accscalar " \
    "exponential_ and geometric_, which lib/rng/cuda_sfu.c models bit for bit on all 59.3 " \
    "million entries of exhaustive H100 recordings (MUFU.LG2 on [0.5, 2); MUFU.SIN/COS on " \
    "t = fmul_rz(v, 1/2pi) in [2^-7, 2^-6) and [0.25, 1)); MUFU.EX2 via __expf in float " \
    "log_normal_ and MUFU.RCP in __tanf's division in float cauchy_, which " \
    "lib/rng/cuda_sfu_rcp_ex2.c models bit for bit on all 41.9 million entries of exhaustive " \
    "H200 recordings (MUFU.EX2 on [0.5, 2) and [-2, -0.5); MUFU.RCP on [1, 2)) and which " \
    "tools/gpu/sfu_scan.cu compared with that GPU's unit on all 2^32 floats (0 differ). " \
    "Every other step is IEEE or " \
    "libdevice, reimplemented bit for bit. Compared exactly (no tolerance). Inputs outside " \
    "the recordings, which these cases reach (t below 1/4: about a quarter of normals; " \
    "MUFU.LG2 below 1/2: exponential_ draws u < 1/2), follow the model's recovered " \
    "structure, which no recording confirms, and no implementation someone else wrote " \
    "computes these bits on a CPU: only a run on an sm_90 GPU (tools/harness) cross-checks " \
    "them. float64 normal_, exponential_, log_normal_ and geometric_ on sm_90 do not carry " \
    "this flag: MUFU.RCP64H, the seed of libdevice log's Newton step, is lib/rng/cuda_rcp64h.c's " \
    "table of the unit as an H200 recorded it, which tools/gpu/rcp64h_scan.cu compared on all " \
    "2^32 high words (0 differ). Other generations keep GpuOnly (their unit is not recorded)."

/* Keep large freed blocks in this process's heap from now on (once; rng_policies.c says
 * why): for a process about to run many policy checks (the family, `shardcheck policies`). */
void shc_policy_heap_keep(void);

#define SHC_LARGE_MESH_NOTE "More than 8 ranks: larger than the biggest world the test job " \
    "launches (mpirun -np 8)."

/* The note of SHC_NOT_TORCH_INPUT (golden.h), for every family that has such cases
 * (docs/invalid-audit.md, tools/harness/invalid_audit.py). */
#define SHC_NOT_TORCH_INPUT_NOTE "The input cannot be written as a torch object at all: a " \
    "placement no torch Placement prints as (Q(0), an unclosed S(0), an unknown letter), or " \
    "a shard order in trace form that no torch ShardOrder prints as " \
    "(DTensorSpec.format_shard_order_str numbers a tensor dim's mesh dims [0], [1], ...; two " \
    "with the same [i] name none). No torch call exists to reject it: shardcheck's notation " \
    "does, and so does the harness's parser (whose placements must print back as torch " \
    "prints them)."


#endif
