/*
 * rng_policies.c — the rng-policies golden family: for every RNG policy
 * (lib/offsets/rng_policy.c) and every layout of the policy table
 * (shc_rng_policy_cases), per rank the generator seed, the offset the local
 * op starts at and the offset after it, and per case the SPMD properties the
 * policy keeps on that layout (computed element by element by
 * lib/offsets/rng_policy_check.c, never written by hand).  One file per policy,
 * golden/rng-policies/<policy>.json; a layout a policy cannot run (seed 000's
 * IndexError) is an "invalid" case.  Every layout is given on the a100's launch geometry,
 * and again on a 7-SM one for each policy whose verdicts depend on the launch.
 *
 * No independent implementation computes the verdicts here but JAX's (the others need
 * GPU draws), so a valid case carries UncheckedVerdicts unless CheckedByJax, and a case no
 * outside peer checks at all carries NoIndependentOracle (flag_oracles).  torch-offset's
 * windows and shard indices are torch's own tracker's (adapters/torch_rng_policies.py):
 * CheckedByTorch.  The megatron-* policies' per-rank seeds are Megatron-core's own: the test job
 * checks them with Megatron-core 0.19.2's random.py and RankGenerator
 * (tools/harness/adapters/megatron_rng_policies.py, the family's harness peer), and
 * those cases carry CheckedByMegatron, which says so; the jax-partitionable verdicts of the
 * layouts JAX can shard are checked against JAX's own sharded draws (test_jax_policy.py), and
 * those cases carry CheckedByJax; the single-device-equal offsets of the layouts veScale can
 * lay out are checked against veScale 0.0.1's ThreadBasedRNGTracker
 * (tools/harness/adapters/vescale_rng_policies.py, a second harness peer), and those cases
 * carry CheckedByVescale.  The megatron-train-* policies add
 * Megatron-LM training's pp / dp terms (megatron/training/initialize.py, which the peer
 * restates: Megatron-LM's training package is not megatron-core).  Two megatron-train-ep groups
 * name a decoder "tp" apart from the expert tp (etp != tp): one valid, one Megatron refuses
 * (its tracker's duplicate-seed check, lib/offsets/megatron_seeds.c), an "invalid" case.
 * The last file, dtypes.json, gives the policies whose answers a dtype moves the table's
 * layouts again with the op in float64 (and single-device-equal in the half types too): the
 * group field "dtype" (dtype_rows below; absent means float32).
 * Schema: golden/schemas/rng-policies_v1.json.
 */
#include "config.h"
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <stdlib.h>
#include <string.h>
#include "families.h"
#include "layout_common.h"

#define GPU "a100"
/* A second launch geometry for the policies whose verdicts depend on it
 * (shc_rng_policy_verdict_uses_gpu): 7 SMs of 2048 threads, 56 blocks of 256, where seed 000's
 * port runs op 1 into op 2 on layout #14 (a100's 864 blocks do not). */
#define SMALL_GPU "7x2048"
#define SEED 1234 /* torch's default DTensor seed in seed 001's commit message */
/* An NPU profile (issue 33): every offset selects its own Philox stream (torch_npu's
 * registered DTensor tracker), so the same policies keep other properties there.  Every
 * policy's layouts are emitted on it after the CUDA groups (so earlier tcIds stay). */
#define NPU_GPU "ascend-910b"

/* Layouts emitted for one policy on GPU and NPU_GPU, after the rest: seed 000's
 * hyper-parallel layout, whose two ranks' draws collide on an A100's window (327,680 draws)
 * and not on an NPU, and the upstream tracker it ports on the same layout.  Two million
 * elements: for these two policies only (generation time). */
static const struct {
    const char *policy;
    shc_rng_case c;
} npu_cases[] = {
    {"hyper-parallel", {"2", "S(0)", "2048,1024"}},
    {"torch-offset", {"2", "S(0)", "2048,1024"}},
};

/* A group's op dtype: "dtype", float32 where absent (the files before the dtype axis). */
static int group_dtype(const json_t *group, shc_dtype *dt, shc_err *e)
{
    const json_t *d = json_object_get(group, "dtype");
    *dt = SHC_DT_FLOAT32;
    if (!d)
        return SHC_OK;
    if (!json_is_string(d))
        return shc_fail(e, SHC_EFORMAT, "rng-policies: group dtype is a string (float32, "
                        "float64, float16, bfloat16)");
    return shc_dtype_parse(json_string_value(d), dt, e);
}

static int parse_inputs(const json_t *group, const json_t *test, const shc_rng_policy **p,
                        shc_gpu_profile *gpu, shc_dtype *dt, uint64_t *seed, shc_mesh *m,
                        shc_placements *pl, shc_shape *s, shc_err *e)
{
    const char *pn = json_string_value(json_object_get(group, "policy"));
    const char *gn = json_string_value(json_object_get(group, "gpu"));
    const char *sd = json_string_value(json_object_get(group, "seed"));
    const char *ps = json_string_value(json_object_get(test, "placements"));
    if (!pn || !gn || !sd || !ps)
        return shc_fail(e, SHC_EFORMAT, "rng-policies: group needs policy, gpu, seed strings "
                        "and the test a placements string");
    int rc = shc_rng_policy_lookup(pn, p, e);
    if (rc || (rc = shc_gpu_profile_parse(gn, gpu, e)) || (rc = group_dtype(group, dt, e)))
        return rc;
    *seed = strtoull(sd, NULL, 10);
    if ((rc = shcl_mesh_from_json(group, m, e)))
        return rc;
    if ((rc = shc_placements_parse(pl, ps, e)) ||
        (rc = shcl_shape_from_json(json_object_get(test, "shape"), s, e)) ||
        (rc = shc_placements_normalize(pl, s->ndim, e)) ||
        (rc = shc_placements_check(pl, m, s->ndim, e)))
        shc_mesh_free(m);
    return rc;
}

/* A group's "tp": Megatron's decoder tp where it differs from etp (the -ep policies only,
 * whose seeds do not depend on it); Megatron's refusal of the whole configuration. */
static int decoder_tp(const json_t *group, const shc_rng_policy *p, const shc_mesh *m,
                      uint64_t seed, shc_err *e)
{
    const json_t *tp = json_object_get(group, "tp");
    if (!tp)
        return SHC_OK;
    const char *n = shc_rng_policy_name(p);
    if (!json_is_integer(tp) || json_integer_value(tp) < 1 ||
        (strcmp(n, "megatron-ep") && strcmp(n, "megatron-train-ep")))
        return shc_fail(e, SHC_EFORMAT, "rng-policies: group tp is an integer >= 1, for "
                        "megatron-ep and megatron-train-ep only (policy %s)", n);
    shc_megatron_cfg c;
    int rc = shc_rng_policy_megatron_cfg(p, m, &c, e);
    if (rc)
        return rc;
    c.tp = (int64_t)json_integer_value(tp);
    return shc_megatron_check_world(&c, m->size, seed, e);
}

static json_t *holds_json(unsigned holds)
{
    json_t *a = json_array();
    for (int k = 0; k < SHC_RNGP_COUNT; k++)
        if (holds & (1u << k))
            json_array_append_new(a, json_string(shc_rng_property_name(k)));
    return a;
}

static json_t *u64s(uint64_t v)
{
    char b[24];
    snprintf(b, sizeof b, "%llu", (unsigned long long)v);
    return json_string(b);
}

/* The case-wide part and one rank's stream. */
static int view(const shc_rng_policy *p, const shc_gpu_profile *g, shc_dtype dt, uint64_t seed,
                const shc_mesh *m, const shc_placements *pl, const shc_shape *s, int64_t rank,
                unsigned holds, json_t **out, shc_err *e)
{
    shc_rng_stream st;
    int rc = shc_rng_policy_stream_dtype(p, g, dt, m, pl, s, seed, 0, rank, &st, e);
    if (rc)
        return rc;
    *out = json_pack("{s:o,s:o,s:o,s:o,s:I}", "holds", holds_json(holds), "seed", u64s(st.seed),
                     "start_offset", shc_json_i64s(st.start), "post_offset",
                     shc_json_i64s(st.post), "shard_linear_index",
                     (json_int_t)st.shard_linear_index);
    return SHC_OK;
}

/* A policy check's draw arrays (tens of MB, one set per layout and case) come from the heap
 * and are reused once freed, instead of being mapped afresh and faulted in page by page each
 * time: page faults were a third of `policies`' time, 2.47 -> 1.38 s, and `run --backend ref
 * --family rng-policies` 14.6 -> 6.9 s (issue 36).  Peak memory is unchanged: only its return
 * is kept.  Process-wide, so only a process that runs policy checks asks for it: kept for
 * every process, a forking runner copied a larger heap per worker (mpi at np 4 on shard-layout
 * paid 7% more CPU). */
static void keep_freed_blocks_once(void)
{
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD)
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

void shc_policy_heap_keep(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, keep_freed_blocks_once);
}

/* Hook compute_ranks: the views of ranks [first, first + count), the layout's verdict (holds)
 * drawn once for all of them.  It is the same for every rank and costs the whole layout's
 * draws, element by element (2 ms to 60 ms): drawn per rank, `run --backend ref --family
 * rng-policies` drew each layout once for each of its ranks. */
static int compute_ranks(const json_t *group, const json_t *test, int64_t first, int64_t count,
                         json_t **views, shc_err *e)
{
    const shc_rng_policy *p;
    shc_gpu_profile g;
    shc_dtype dt;
    uint64_t seed;
    shc_mesh m;
    shc_placements pl;
    shc_shape s;
    unsigned holds = 0;
    int64_t dups;
    int rc = parse_inputs(group, test, &p, &g, &dt, &seed, &m, &pl, &s, e);
    if (rc)
        return rc;
    shc_policy_heap_keep();
    if ((rc = decoder_tp(group, p, &m, seed, e)) == SHC_OK)
        rc = shc_rng_policy_collisions_dtype(p, &g, dt, &m, &pl, &s, seed, &holds, &dups, e);
    for (int64_t i = 0; i < count && rc == SHC_OK; i++)
        rc = view(p, &g, dt, seed, &m, &pl, &s, first + i, holds, &views[i], e);
    shc_mesh_free(&m);
    /* a layout the policy's reference code fails on is an "invalid" case */
    return rc == SHC_EUNSUPPORTED ? (e->code = SHC_EINVAL) : rc;
}

static int compute_rank(const json_t *group, const json_t *test, int64_t rank, json_t **out,
                        shc_err *e)
{
    *out = NULL;
    return compute_ranks(group, test, rank, 1, out, e);
}

static int64_t world_size(const json_t *group) { return shcl_world(group); }

static void declare_notes(shc_gw *w)
{
    shc_gw_note(w, "NoIndependentOracle", "No outside implementation checks any value of this "
                "case: shardcheck computes its seeds, windows and verdicts alone, following the "
                "cited sources (the policy's peer, where it has one, cannot express the layout, "
                "or the policy has no peer that runs without its device).");
    shc_gw_note(w, "UncheckedVerdicts", "The verdicts (holds) are computed by shardcheck alone, "
                "element by element: they need the policy's draws on its device, which no "
                "outside code makes on a CPU.  Only CheckedByJax cases have them checked.");
    shc_gw_note(w, "CheckedByMegatron", "The per-rank seeds are checked against Megatron-core "
                "0.19.2's own code by the test job's harness stage "
                "(tools/harness/adapters/megatron_rng_policies.py: its RankGenerator gives each "
                "rank's tp, ep and etp rank, its model_parallel_cuda_manual_seed the seed); "
                "start_offset, post_offset and shard_linear_index are shardcheck's alone.  For "
                "megatron-train-* the pp and dp ranks are RankGenerator's too, and the base "
                "seed's + 100 * pp (+ 10 * dp) is Megatron-LM's megatron/training/initialize.py "
                "(NVIDIA/Megatron-LM 00c2c0ad), restated by the adapter: that file is not in "
                "megatron-core.  An invalid case's refusal is raised by Megatron's own "
                "CudaRNGStatesTracker.");
    shc_gw_note(w, "CheckedByJax", "The verdicts replicas-equal, shards-distinct and "
                "sharding-invariant are checked against JAX's own sharded draws by the test "
                "job's harness pytest (tools/harness/tests/test_jax_policy.py: "
                "jax.random.bits under jit with the layout's NamedSharding over CPU devices, "
                "jax_threefry_partitionable on); the per-rank fields are shardcheck's alone.  "
                "Only a layout JAX can shard carries it: Replicate and Shard, every sharded dim "
                "divided evenly.");
    shc_gw_note(w, "CheckedByVescale", "The per-rank seed, start_offset and post_offset are "
                "checked against veScale 0.0.1's own ThreadBasedRNGTracker by the test job's "
                "harness stage (tools/harness/adapters/vescale_rng_policies.py: its "
                "_distribute_region run around the op, the state it hands the device read "
                "back, with a stand-in device of the profile's multiprocessors and threads); "
                "shard_linear_index is shardcheck's alone (veScale computes none).  Only a "
                "layout veScale can lay out carries it: no _StridedShard, Partial only as sum, "
                "and every sharded dim at least as large as its mesh dim on every rank (veScale "
                "asserts so where torch gives a rank an empty shard).");
    shc_gw_note(w, "CheckedByTorch", "The per-rank start_offset, post_offset and "
                "shard_linear_index are checked against torch's own OffsetBasedRNGTracker "
                "(_compute_rng_offsets, _calc_shard_linear_idx) by the test job's harness stage "
                "(tools/harness/adapters/torch_rng_policies.py, torch 2.13 on a CPU: the "
                "increments are element counts, whatever the dtype or device profile); the "
                "seed (the group's on every rank) is shardcheck's alone: a CPU generator holds "
                "no Philox state to read it back from.");
    shc_gw_note(w, "CudaOnlyUpstream", "torch-func-random: torch.func._random (pytorch PR "
                "177230, torch 2.13) has CUDA kernels only (aten::_philox_uniform_ raises "
                "NotImplementedError on a CPU), so no CPU run checks these spans "
                "(NoIndependentOracle).  start_offset and post_offset are the span [start, "
                "post) of Philox words the rank's elements draw under key (seed, 0): word = "
                "key offset + global element index g (float32; float64 takes words 2g and "
                "2g + 1).  A second op's key is "
                "split(key), whose derivation is not modelled (taken as a distinct key).");
    shc_gw_note(w, "VendorDivergence", "The policy's offsets differ from torch-offset's on this "
                "layout (seed 000 or another framework).");
    shc_gw_note(w, "PolicyRejects", "The policy's reference code fails on this layout.");
}

/* Whether JAX can lay this layout out itself (tools/harness/tests/jax_policy_worker.py): a
 * NamedSharding exists for Replicate and Shard alone (PartitionSpec), and jit refuses a dim
 * that its mesh dims do not divide evenly.  test_jax_policy.py asserts that JAX shards exactly
 * the cases carrying CheckedByJax. */
static bool jax_can_shard(const shc_mesh *m, const shc_placements *pl, const shc_shape *s)
{
    int64_t parts[SHC_MAX_TENSOR_DIMS];
    for (int d = 0; d < s->ndim; d++)
        parts[d] = 1;
    for (int i = 0; i < pl->n; i++) {
        if (pl->p[i].kind == SHC_P_REPLICATE)
            continue;
        if (pl->p[i].kind != SHC_P_SHARD)
            return false;
        assert(pl->p[i].dim >= 0 && pl->p[i].dim < s->ndim); /* parse_inputs normalised it */
        parts[pl->p[i].dim] *= m->shape[i];
    }
    for (int d = 0; d < s->ndim; d++)
        if (s->d[d] % parts[d])
            return false;
    return true;
}

/* Whether veScale 0.0.1 can lay this layout out (tools/harness/adapters/vescale_rng_policies.py
 * runs its ThreadBasedRNGTracker on it): its placements are Shard, Replicate and Partial(sum)
 * (no _StridedShard), and its Shard._local_shard_size_on_dim (vescale/dtensor/placement_types.py)
 * asserts that the size a rank holds on the sharded dim, before a mesh dim shards it, is at
 * least that mesh dim's size, where torch gives some ranks an empty shard.  The arange rank
 * map is the stand-in mesh's.  test_vescale_peer.py asserts that the adapter checks exactly
 * the cases carrying CheckedByVescale. */
static bool vescale_can_lay_out(const json_t *group, const shc_mesh *m, const shc_placements *pl,
                                const shc_shape *s)
{
    /* veScale's tracker reads a CUDA device's geometry: the adapter knows the A100's and the
     * SMSxTHREADS form, and no NPU */
    const char *gn = json_string_value(json_object_get(group, "gpu"));
    if (json_object_get(group, "rankMap") || !gn || (strcmp(gn, GPU) && strcmp(gn, SMALL_GPU)))
        return false;
    for (int i = 0; i < pl->n; i++)
        if (pl->p[i].kind == SHC_P_STRIDED ||
            (pl->p[i].kind == SHC_P_PARTIAL && strcmp(shc_placement_op_name(&pl->p[i]), "sum")))
            return false;
    int64_t coord[SHC_MAX_MESH_DIMS];
    for (int64_t r = 0; r < m->size; r++) {
        int64_t cur[SHC_MAX_TENSOR_DIMS];
        shc_err e;
        if (shc_mesh_coord(m, r, coord, &e))
            return false;
        memcpy(cur, s->d, sizeof(int64_t) * (size_t)s->ndim);
        for (int i = 0; i < pl->n; i++) {
            if (pl->p[i].kind != SHC_P_SHARD)
                continue;
            int d = pl->p[i].dim;
            int64_t k = m->shape[i];
            if (cur[d] < k)
                return false;
            int64_t chunk = (cur[d] + k - 1) / k; /* torch.chunk's, as veScale computes it */
            int64_t left = cur[d] - chunk * coord[i];
            cur[d] = left < 0 ? 0 : left < chunk ? left : chunk;
        }
    }
    return true;
}

/* Which of a case's values no outside code checks (issue 33 item 3), once its CheckedBy flags
 * are set: NoIndependentOracle where no peer checks any value, and UncheckedVerdicts on a
 * valid case whose verdicts no peer checks (only JAX's sharded draws compute them).  The
 * per-rank fields a CheckedBy peer leaves to shardcheck are its note's, fixed per peer. */
static void flag_oracles(json_t *t, bool valid)
{
    static const char *const peers[] = {"CheckedByMegatron", "CheckedByVescale",
                                        "CheckedByTorch", "CheckedByJax"};
    bool checked = false;
    for (size_t i = 0; i < sizeof peers / sizeof peers[0]; i++)
        checked |= shc_test_has_flag(t, peers[i]);
    if (!checked)
        shc_test_flag(t, "NoIndependentOracle");
    if (valid && !shc_test_has_flag(t, "CheckedByJax"))
        shc_test_flag(t, "UncheckedVerdicts");
}

static int emit(shc_gw *w, const json_t *group, const shc_rng_case *c, const char *comment,
                shc_err *e)
{
    json_t *t = shc_test_new(comment, "valid");
    shc_shape s0;
    shc_err pe;
    if (shc_shape_parse(&s0, c->shape, &pe)) {
        json_decref(t);
        return shc_fail(e, SHC_EINTERNAL, "policy case shape %s: %s", c->shape, pe.msg);
    }
    json_object_set_new(t, "placements", json_string(c->placements));
    json_object_set_new(t, "shape", shc_json_i64_array(s0.d, s0.ndim));
    const shc_rng_policy *p;
    shc_gpu_profile g;
    shc_dtype dt;
    uint64_t seed;
    shc_mesh m;
    shc_placements pl;
    shc_shape s;
    unsigned holds = 0;
    int64_t dups;
    int rc = parse_inputs(group, t, &p, &g, &dt, &seed, &m, &pl, &s, e);
    if (rc) {
        json_decref(t);
        return rc;
    }
    if (!strncmp(shc_rng_policy_name(p), "megatron-", 9))
        shc_test_flag(t, "CheckedByMegatron");
    if (!strcmp(shc_rng_policy_name(p), "torch-offset"))
        shc_test_flag(t, "CheckedByTorch");
    if (!strcmp(shc_rng_policy_name(p), "torch-func-random"))
        shc_test_flag(t, "CudaOnlyUpstream");
    if ((rc = decoder_tp(group, p, &m, seed, &pe)) == SHC_OK)
        rc = shc_rng_policy_collisions_dtype(p, &g, dt, &m, &pl, &s, seed, &holds, &dups, &pe);
    if (rc == SHC_EUNSUPPORTED) {
        json_object_set_new(t, "result", json_string("invalid"));
        json_object_set_new(t, "expected", json_pack("{s:s}", "error", pe.msg));
        shc_test_flag(t, "PolicyRejects");
        flag_oracles(t, false);
        shc_mesh_free(&m);
        return shc_gw_test(w, t, e);
    }
    json_t *seeds = json_array(), *start = json_array(), *post = json_array(), *lin = json_array();
    json_t *v = NULL;
    for (int64_t r = 0; r < m.size && !rc; r++) {
        json_decref(v);
        if ((rc = view(p, &g, dt, seed, &m, &pl, &s, r, holds, &v, e)))
            break;
        json_array_append(seeds, json_object_get(v, "seed"));
        json_array_append(start, json_object_get(v, "start_offset"));
        json_array_append(post, json_object_get(v, "post_offset"));
        json_array_append(lin, json_object_get(v, "shard_linear_index"));
    }
    if (!rc) {
        if (!strcmp(shc_rng_policy_name(p), "jax-partitionable") && jax_can_shard(&m, &pl, &s))
            shc_test_flag(t, "CheckedByJax");
        if (!strcmp(shc_rng_policy_name(p), "single-device-equal") &&
            dt != SHC_DT_FLOAT64 && vescale_can_lay_out(group, &m, &pl, &s))
            shc_test_flag(t, "CheckedByVescale");
        if (!(holds & (1u << SHC_RNGP_TORCH_EQUAL)))
            shc_test_flag(t, "VendorDivergence");
        flag_oracles(t, true);
        json_object_set_new(t, "expected",
                            json_pack("{s:O,s:{s:o,s:o,s:o,s:o}}", "holds",
                                      json_object_get(v, "holds"), "perRank", "seed", seeds,
                                      "start_offset", start, "post_offset", post,
                                      "shard_linear_index", lin));
        rc = shc_gw_test(w, t, e);
    } else {
        json_decref(seeds);
        json_decref(start);
        json_decref(post);
        json_decref(lin);
        json_decref(t);
    }
    json_decref(v);
    shc_mesh_free(&m);
    return rc;
}

/* Megatron configurations past the layout table, each at the end of its policy's file (a file
 * added later than theirs: tcIds of the earlier ones stay).  Megatron-LM training with a
 * decoder tp apart from etp: mesh (pp, edp, ep, etp); tp 8, etp 2, ep 18: rank 70 has tp
 * rank 6, ep rank 17, etp rank 0, so its model-parallel seed base + 2718 + 6 and its expert
 * seed base + 1024 + 1700 + 0 are equal, which Megatron's tracker refuses.  A GTP axis of one
 * device: random.py adds no GTP state, and a random op under it is refused by Megatron's
 * CudaRNGStatesTracker.fork. */
typedef struct meg_tp_row {
    const char *policy, *mesh, *placements;
    int64_t tp; /* 0: no "tp" field */
    const char *comment;
} meg_tp_row;
static const meg_tp_row meg_tp[] = {
    {"megatron-train-ep", "2x2x2x2", "R,R,R,R", 4,
     "decoder tp 4, etp 2 (etp != tp): expert seeds as with tp = etp"},
    {"megatron-train-ep", "2x2x18x2", "R,R,R,R", 8, "decoder tp 8, etp 2, ep 18: rank 70's "
     "model-parallel and expert seeds are both base + 2724; CudaRNGStatesTracker.add refuses"},
    {"megatron-gtp", "1x2", "R,R", 0, "gtp_remat 1 (tp 2): no gtp-remat-rng is added; "
     "CudaRNGStatesTracker.fork refuses it"},
    {"megatron-egtp", "1x2x2", "R,R,R", 0, "expert gtp_remat 1 (ep 2, etp 2): no "
     "egtp-remat-rng is added; CudaRNGStatesTracker.fork refuses it"},
};
#define NMEG_TP (int)(sizeof meg_tp / sizeof meg_tp[0])

static int emit_decoder_tp(shc_gw *w, const meg_tp_row *x, shc_err *e)
{
    const shc_rng_case c = {x->mesh, x->placements, "4"};
    shcl_mesh_shape ms = shcl_mesh_shape_of(x->mesh);
    json_t *g = shcl_group_params(&ms, "arange");
    json_object_set_new(g, "policy", json_string(x->policy));
    if (x->tp)
        json_object_set_new(g, "tp", json_integer(x->tp));
    json_object_set_new(g, "gpu", json_string(GPU));
    json_object_set_new(g, "seed", u64s(SEED));
    json_t *keep = json_incref(g);
    int rc = shc_gw_group(w, g, e);
    if (rc == SHC_OK)
        rc = emit(w, keep, &c, x->comment, e);
    json_decref(keep);
    return rc;
}

/* One group: policy p on profile gpu, the layout c; an op of dtype (NULL: float32, and no
 * "dtype" field, as in the files before the dtype axis). */
static int emit_on_dtype(shc_gw *w, const shc_rng_policy *p, const char *gpu, const char *dtype,
                         const shc_rng_case *c, shc_err *e)
{
    shcl_mesh_shape ms = shcl_mesh_shape_of(c->mesh);
    json_t *g = shcl_group_params(&ms, "arange");
    json_object_set_new(g, "policy", json_string(shc_rng_policy_name(p)));
    json_object_set_new(g, "gpu", json_string(gpu));
    if (dtype)
        json_object_set_new(g, "dtype", json_string(dtype));
    json_object_set_new(g, "seed", u64s(SEED));
    json_t *keep = json_incref(g);
    int rc = shc_gw_group(w, g, e);
    if (rc == SHC_OK)
        rc = emit(w, keep, c, "", e);
    json_decref(keep);
    return rc;
}

static int emit_on(shc_gw *w, const shc_rng_policy *p, const char *gpu, const shc_rng_case *c,
                   shc_err *e)
{
    return emit_on_dtype(w, p, gpu, NULL, c, e);
}

/* The dtype axis (issue 33): the op's dtype sets the words a kernel draws per element and
 * its own increment (shc_rng_dtype_unroll), so a policy whose ranks advance by their own
 * kernel, or whose identities are one GPU's, answers per dtype.  float64 for every policy
 * but jax-partitionable (its identities are global indices, whatever the dtype) and the
 * megatron-train-* policies (they refuse every layout of the table: their layouts are
 * meg_tp's); the half types for single-device-equal, the dense single-device RNG
 * upstream proposes for every floating dtype (pytorch PRs 189546, 190444, open): they
 * draw as float32 does.  Rows: add one to cover a dtype. */
static const struct {
    const char *dtype, *policies;
} dtype_rows[] = {
    {"float64", "torch-offset,hyper-parallel,megatron-tp,megatron-dp,megatron-ep,"
     "single-device-equal,torch-untracked,torch-func-random,megatron-gtp,megatron-egtp"},
    {"float16", "single-device-equal"},
    {"bfloat16", "single-device-equal"},
};

/* Whether the comma-separated list names policy p. */
static bool lists(const char *list, const shc_rng_policy *p)
{
    size_t n = strlen(shc_rng_policy_name(p));
    for (const char *c = list; c && *c; c = strchr(c, ',') ? strchr(c, ',') + 1 : NULL)
        if (!strncmp(c, shc_rng_policy_name(p), n) && (c[n] == ',' || !c[n]))
            return true;
    return false;
}

/* The dtypes file, after the NPU one (earlier tcIds stay): per row, each policy it lists
 * over the layout table on the CUDA GPU. */
static int generate_dtypes(shc_gw *w, const shc_rng_case *cs, int n, shc_err *e)
{
    int rc = shc_gw_file(w, "dtypes", e);
    for (size_t r = 0; r < sizeof dtype_rows / sizeof dtype_rows[0] && !rc; r++)
        for (int i = 0; i < shc_rng_policy_count() && !rc; i++) {
            const shc_rng_policy *p = shc_rng_policy_at(i);
            for (int c = 0; c < n && lists(dtype_rows[r].policies, p) && !rc; c++)
                rc = emit_on_dtype(w, p, GPU, dtype_rows[r].dtype, &cs[c], e);
        }
    return rc;
}

/* The NPU file, after every policy's (so the CUDA groups' tcIds stay): each policy on the
 * NPU profile over the layout table, and its npu_cases on the CUDA GPU and the NPU.  A
 * policy that does not model the NPU (torch-func-random: CUDA's kernels) gets no NPU groups;
 * `policies --gpu ascend-910b` says why. */
static int generate_npu(shc_gw *w, const shc_rng_case *cs, int n, shc_err *e)
{
    shc_gpu_profile npu;
    int rc = shc_gpu_profile_parse(NPU_GPU, &npu, e);
    if (!rc)
        rc = shc_gw_file(w, "npu-" NPU_GPU, e);
    for (int i = 0; i < shc_rng_policy_count() && !rc; i++) {
        const shc_rng_policy *p = shc_rng_policy_at(i);
        shc_err pe;
        bool on_npu = shc_rng_policy_models_profile(p, &npu, &pe) == SHC_OK;
        for (int c = 0; c < n && on_npu && !rc; c++)
            rc = emit_on(w, p, NPU_GPU, &cs[c], e);
        for (size_t c = 0; c < sizeof npu_cases / sizeof npu_cases[0] && !rc; c++) {
            if (strcmp(npu_cases[c].policy, shc_rng_policy_name(p)))
                continue;
            rc = emit_on(w, p, GPU, &npu_cases[c].c, e);
            if (!rc && on_npu)
                rc = emit_on(w, p, NPU_GPU, &npu_cases[c].c, e);
        }
    }
    return rc;
}

static int generate(shc_gw *w, shc_err *e)
{
    shc_policy_heap_keep();
    declare_notes(w);
    const shc_rng_case *cs;
    int n = shc_rng_policy_cases(&cs), rc = SHC_OK;
    for (int i = 0; i < shc_rng_policy_count() && !rc; i++) {
        const shc_rng_policy *p = shc_rng_policy_at(i);
        if ((rc = shc_gw_file(w, shc_rng_policy_name(p), e)))
            break;
        int ngpu = shc_rng_policy_verdict_uses_gpu(p) ? 2 : 1;
        for (int c = 0; c < n * ngpu && !rc; c++)
            rc = emit_on(w, p, c < n ? GPU : SMALL_GPU, &cs[c % n], e);
        for (int x = 0; x < NMEG_TP && !rc; x++)
            if (!strcmp(meg_tp[x].policy, shc_rng_policy_name(p)))
                rc = emit_decoder_tp(w, &meg_tp[x], e);
    }
    if (!rc)
        rc = generate_npu(w, cs, n, e);
    return rc ? rc : generate_dtypes(w, cs, n, e);
}

const shc_family shc_family_rng_policies = {
    .name = "rng-policies",
    .source_name = "shardcheck",
    .source_version = "0.1.0 (torch 2.13, Megatron-LM core, jax, seed 000)",
    .summary = "per policy and layout: per-rank seed/start/post offsets and the SPMD properties kept",
    .generate = generate,
    .compute_rank = compute_rank,
    .compute_ranks = compute_ranks,
    .world_size = world_size,
    .gives = "per policy and layout: per-rank seeds and windows, properties kept",
    .oracle = "megatron-* seeds: Megatron-core 0.19.2's random.py (harness); single-device-equal "
              "seeds and offsets: veScale 0.0.1's ThreadBasedRNGTracker (harness); torch-offset "
              "offsets: torch 2.13's OffsetBasedRNGTracker (harness); jax-partitionable "
              "verdicts: JAX's sharded draws (pytest); the rest computed element by element "
              "(`NoIndependentOracle`, `UncheckedVerdicts`)",
    .harness_stride = 0,
    .harness_peers = SHC_NAMES("adapters.megatron_rng_policies", "adapters.vescale_rng_policies",
                               "adapters.torch_rng_policies"),
    .claim = {.fields = SHC_NAMES("holds", "seed", "start_offset", "post_offset",
                                  "shard_linear_index")},
};
