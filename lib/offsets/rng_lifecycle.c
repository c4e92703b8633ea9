/*
 * rng_lifecycle.c — what DTensor's RNG set-up does on each rank before any draw: manual_seed,
 * the tracker a first random op creates, a random factory's tracker, and the 16-byte state
 * (_PhiloxState) a tracker reads and writes.
 *
 * Why a file of its own: the offsets and policies (rng_offsets.c, rng_policy.c) start from a
 * synchronised state; whether the ranks reach one, at which collective cost, and where torch
 * refuses or waits instead, is decided before that, by the device and by whether the rank is
 * on the mesh (shc_mesh_init_world).  torch 2.13, cited per branch:
 *  - is_rng_supported_mesh (_random.py): a device whose handle has set_rng_state (CUDA and
 *    CUDA-like); torch.cpu has none, so on a CPU mesh manual_seed warns and returns, and no
 *    tracker is ever made;
 *  - manual_seed (_random.py): makes OffsetBasedRNGTracker(mesh, run_state_sync=False) if
 *    there is none (no collective), raises RuntimeError on a rank off the mesh, else
 *    torch.manual_seed(seed): state (seed, offset 0);
 *  - a first random op on a DTensor (_dispatch.py, participating ranks only): with no
 *    tracker, OffsetBasedRNGTracker(mesh) with run_state_sync=True, which broadcasts global
 *    rank 0's state over the default group; ranks off the mesh run no op and never join it;
 *  - a random factory (torch.distributed.tensor.rand/randn, _api.py _dtensor_init_helper):
 *    every rank, on the mesh or not, makes the same synced tracker; with none (a CPU mesh)
 *    it asserts;
 *  - a first random op given a user's generator (generator=g): on a CUDA-like mesh the
 *    tracker's offsets move g, not the device's state; on a CPU mesh g is dropped and the
 *    default generator draws (reproduced on 2.13 and 2.15: docs/findings).
 * The CPU branches are checked against real torch on a gloo world by
 * tools/harness/tests/test_rng_lifecycle.py; the CUDA-like ones need a CUDA-like device
 * (no CPU oracle: the test says so).  Unit tests: check_offsets.c (rng_lifecycle).
 */
#include "config.h"
#include <assert.h>
#include <string.h>
#include "shardcheck.h"

static const char shc_lc_msg_cpu_seed[] =
    "UserWarning: DTensor manual_seed() may not have complete support on cpu device mesh";
static const char shc_lc_msg_off_mesh[] =
    "RuntimeError: manual_seed requires the current rank to be a part of the device mesh "
    "otherwise DTensor RNG state on the rank will not be initialized and the behavior of "
    "DTensor random ops is undefined.";

static void set(shc_lc_event *ev, shc_lc_outcome o, int coll, int64_t state_from,
                const char *what)
{
    memset(ev, 0, sizeof *ev);
    ev->outcome = o;
    ev->collectives = coll;
    ev->state_from = state_from;
    ev->what = what;
}

/* manual_seed(seed, mesh). */
static void manual_seed(bool cuda, bool on, uint64_t seed, shc_lc_event *ev)
{
    if (!cuda)
        return set(ev, SHC_LC_NOOP, 0, -1, shc_lc_msg_cpu_seed);
    if (!on) /* the tracker is made first, without a sync, then the check raises */
        return set(ev, SHC_LC_RAISES, 0, -1, shc_lc_msg_off_mesh);
    set(ev, SHC_LC_RUNS, 0, -1, "torch.manual_seed(seed): the generator's state is (seed, 0)");
    ev->state_set = true;
    ev->seed = seed;
    ev->offset = 0;
}

/* The first random op on a DTensor, no tracker made before. */
static void first_op(bool cuda, bool on, bool whole_world, shc_lc_event *ev)
{
    if (!on)
        return set(ev, SHC_LC_NOOP, 0, -1, "not on the mesh: the rank runs no op (_dispatch.py)");
    if (!cuda)
        return set(ev, SHC_LC_RUNS, 0, -1, "no tracker on a cpu mesh: the local op draws from "
                   "the rank's own generator (torch-untracked)");
    if (!whole_world)
        return set(ev, SHC_LC_WAITS, 1, 0, "OffsetBasedRNGTracker(mesh) broadcasts rank 0's "
                   "state over the default group, which the ranks off the mesh never join");
    set(ev, SHC_LC_RUNS, 1, 0, "OffsetBasedRNGTracker(mesh): broadcast of rank 0's state over "
        "the default group; every rank's state becomes rank 0's");
}

/* torch.distributed.tensor.rand / randn, no tracker made before. */
static void factory(bool cuda, shc_lc_event *ev)
{
    if (!cuda)
        return set(ev, SHC_LC_RAISES, 0, -1, "AssertionError: (no tracker on a cpu mesh: "
                   "_api.py _dtensor_init_helper asserts one)");
    set(ev, SHC_LC_RUNS, 1, 0, "OffsetBasedRNGTracker(mesh): broadcast of rank 0's state over "
        "the default group, every rank of the world joining; every rank's state becomes rank 0's");
}

/* The first random op on a DTensor given a generator of the user's (op(..., generator=g)), no
 * tracker made before.  _dispatch.py (torch 2.13) pops generator= from the local kwargs before
 * it looks for a tracker; with one, _random.py's _distribute_region(spec, generator=g) runs
 * the op on g's state moved by the tracker's start increment inside fork_rng, then sets g to
 * its offset + the end increment and restores the device's state; with none (a cpu mesh) the
 * op runs without g: it draws from the rank's default generator, and g never moves. */
int shc_rng_lifecycle_user_generator(const shc_mesh *m, int64_t rank, bool cuda_like,
                                     shc_lc_event *ev, shc_err *e)
{
    int rc = shc_mesh_check_world_rank(m, rank, e);
    if (rc)
        return rc;
    bool on = shc_mesh_has_rank(m, rank), whole = m->size == m->max_rank + 1;
    if (!on)
        set(ev, SHC_LC_NOOP, 0, -1, "not on the mesh: the rank runs no op (_dispatch.py); g "
            "does not move");
    else if (!cuda_like)
        set(ev, SHC_LC_RUNS, 0, -1, "generator= is dropped (popped before the tracker check, and "
            "a cpu mesh has no tracker): the local op draws from the rank's default generator, "
            "which advances, and g never moves (a torch finding: "
            "docs/findings/user_generator_cpu_mesh.py)");
    else if (!whole)
        set(ev, SHC_LC_WAITS, 1, 0, "OffsetBasedRNGTracker(mesh) broadcasts rank 0's state over "
            "the default group, which the ranks off the mesh never join");
    else
        set(ev, SHC_LC_RUNS, 1, 0, "OffsetBasedRNGTracker(mesh) syncs the default state from rank "
            "0; the op draws from g's state at g's offset + the tracker's start increment, g "
            "ends at its offset + the end increment (offsets --policy torch-offset --offset G), "
            "and the device's state is restored (fork_rng)");
    return SHC_OK;
}

int shc_rng_lifecycle(const shc_mesh *m, int64_t rank, bool cuda_like, uint64_t seed,
                      shc_lc_event ev[SHC_LC_EVENTS], shc_err *e)
{
    int rc = shc_mesh_check_world_rank(m, rank, e);
    if (rc)
        return rc;
    bool on = shc_mesh_has_rank(m, rank), whole = m->size == m->max_rank + 1;
    manual_seed(cuda_like, on, seed, &ev[SHC_LC_MANUAL_SEED]);
    first_op(cuda_like, on, whole, &ev[SHC_LC_FIRST_OP]);
    factory(cuda_like, &ev[SHC_LC_FACTORY]);
    return SHC_OK;
}

const char *shc_lc_outcome_name(shc_lc_outcome o)
{
    static const char *const names[] = {"runs", "noop", "raises", "waits"};
    assert(o >= SHC_LC_RUNS && o <= SHC_LC_WAITS);
    return names[o];
}

/* _PhiloxState: the seed's 8 bytes then the offset's, each in the host's order (torch views
 * the uint8 tensor as uint64 / int64); little-endian on every host torch builds for. */
void shc_philox_state_pack(uint64_t seed, uint64_t offset, uint8_t out[16])
{
    for (int i = 0; i < 8; i++) {
        out[i] = (uint8_t)(seed >> (8 * i));
        out[8 + i] = (uint8_t)(offset >> (8 * i));
    }
}

void shc_philox_state_unpack(const uint8_t in[16], uint64_t *seed, uint64_t *offset)
{
    *seed = *offset = 0;
    for (int i = 7; i >= 0; i--) {
        *seed = *seed << 8 | in[i];
        *offset = *offset << 8 | in[8 + i];
    }
}
