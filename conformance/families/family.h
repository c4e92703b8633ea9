/*
 * family.h — the family record (shc_family): everything a golden family means, reached
 * through one record, so that code outside conformance/families never asks "which family
 * is this?" (docs/DESIGN.md, "The family record").  The generic part (identity,
 * generate, compute_rank, world_size, the README columns, the SPMD invariants and the
 * family's own check of a view) is asked by every backend; the other hooks are grouped by
 * capability (exec: execute on an executor; device: fill on a device; project: another
 * answer form), each NULL where the family has nothing to add, and no group is named after
 * a backend (registry_lint.sh checks it).  The families are listed once, in registry.c.
 * The golden file format is golden.h's, which this header builds on.  Tested through every family's generator
 * (golden_regen.sh), the runner's tests (run_*.sh) and check_redist_dev.
 */
#ifndef SHC_FAMILY_H
#define SHC_FAMILY_H

#include "golden.h"
#include "shardcheck_backend.h"

/* A random-op device (provided by the cuda backend, tools/run/run_cuda.c): the device's GPU
 * profile, and fill with shc_torch_rng_fill's contract computed there. */
typedef struct shc_rng_device {
    shc_gpu_profile profile; /* from the device's cudaDeviceProp */
    int index;               /* which device */
    int (*fill)(const struct shc_rng_device *d, uint64_t seed, int64_t offset,
                const shc_torch_rng_req *r, int64_t start, int64_t count, void *out,
                uint8_t *mask, int64_t *new_offset, shc_err *e);
} shc_rng_device;

struct shc_dcomm; /* lib/exec/xdev.h */
/* shc_dexec_redistribute's type (lib/exec/xdev.h), passed in by the caller. */
typedef int (*shc_dexec_fn)(struct shc_dcomm *dc, const shc_xcase *x, const shc_xtensor *in,
                            shc_xtensor *out, shc_err *e);
/* An outside executor of one rank's redistribute (a vendor plugin's ABI v2 execute,
 * tools/run/plugin_comm.c): *out gets the rank's result; out->data NULL with out->numel > 0
 * is a result whose shape is not the rank's slice (its buffer is not read). */
typedef int (*shc_xexec_fn)(void *ctx, const shc_xcase *x, int64_t rank, const shc_xtensor *in,
                            shc_xtensor *out, shc_err *e);

/* What a conformance claim on a family must cover (issue 22 item 2; a CTS's mustpass list):
 * the fields an implementation must compute, and the flags of the tests a claim may leave
 * out (NotSupported) without being narrowed.  A required test is one carrying none of the
 * optional flags whose answer holds a required field (or is invalid: it must be rejected).
 * certify states a candidate or run covering less as "partial", naming what it covers;
 * docs/families/<family>.md ("What a conformance claim covers") prints it from
 * `shardcheck families --json`. */
typedef struct shc_claim {
    const char *const *fields;   /* NULL-terminated: every field a full claim computes */
    const char *const *optional; /* NULL-terminated flags of tests not required, or NULL */
} shc_claim;
/* A NULL-terminated name list for a claim: SHC_NAMES("localShape", "globalOffset"). */
#define SHC_NAMES(...) ((const char *const[]){__VA_ARGS__, NULL})

/* A golden family: generator plus metadata.  Registered in
 * conformance/families/registry.c. */
typedef struct shc_family {
    const char *name;            /* "shard-layout" */
    const char *source_name;     /* "pytorch" */
    const char *source_version;  /* "2.13.0" */
    /* The torch releases the family's answers are given for (source.releases in its files;
     * SHC_TORCH_SET bits, SHC_TORCH_ALL_RELEASES); 0: not a torch family.  A family whose
     * answers depend on the release writes its tests with shc_gw_test_by_release. */
    uint32_t releases;
    const char *summary;         /* one line for `shardcheck gen --list` */
    /* Walk the case tables and write every test (uses compute_rank for expected). */
    int (*generate)(shc_gw *w, shc_err *e);
    /* One rank's view of a test, computed from its inputs (group params + test):
     * *out = {field: value} holding, for every field of expected.perRank, the
     * value at `rank`, plus every rank-independent field of expected.  For an
     * "invalid" test it returns SHC_EINVAL (message = the error torch raises).
     * The runner calls it on each rank; backends other than ref replace it. */
    int (*compute_rank)(const json_t *group, const json_t *test, int64_t rank, json_t **out,
                        shc_err *e);
    /* Optional, a fast path: the views of ranks [first, first + count) at once, each exactly
     * compute_rank's, the inputs read once instead of per rank (a 64-rank shard-layout case
     * parsed its mesh 64 times).  On any error the caller drops the views it set and computes
     * rank by rank, so compute_rank alone words errors.  NULL: compute_rank per rank. */
    int (*compute_ranks)(const json_t *group, const json_t *test, int64_t first,
                         int64_t count, json_t **views, shc_err *e);
    /* Ranks a test of this group needs (mesh size); 1 for rank-independent families.  From
     * the group alone: the runner asks it of every case before parsing any test, and a
     * process that hosts none of a case's ranks never parses that test. */
    int64_t (*world_size)(const json_t *group);
    /* For people (README's family table and `shardcheck families`): what a
     * case gives, and which independent implementation cross-checks it. */
    const char *gives;
    const char *oracle;
    /* The test job cross-checks the family against torch/jax through the
     * harness adapter, sampling every harness_stride-th case (1 = all);
     * 0 = the family has no harness adapter (its oracle runs in make check). */
    int harness_stride;
    /* Outside peers the test job also cross-checks the family against, over every case: the
     * harness adapter modules (tools/harness/adapters, e.g. "adapters.megatron_group_ranks"),
     * NULL-terminated, or NULL (`shardcheck families --peers`). */
    const char *const *harness_peers;
    /* What a conformance claim on the family must cover (above). */
    shc_claim claim;

    /* ---- checks the runner makes on every backend; NULL: nothing to add ---- */
    /* The family's own check of one rank's view, before it is compared with the golden
     * one: 1 when it holds, else 0 with msg set (the case fails).  It removes from *view
     * what only it reads (redistribute-data: the executor's "oracleMismatch" note). */
    int (*view_check)(const json_t *test, json_t *view, char *msg, size_t n);
    /* Cross-rank SPMD invariants over every rank's view, after each matched the
     * golden one: 1 when they hold, else 0 with msg set (the case fails). */
    int (*invariants)(const json_t *group, const json_t *test, int64_t world,
                      json_t *const *views, char *msg, size_t n);
    /* The view fields invariants reads (NULL: any): under mpirun a worker that checked its
     * block of ranks sends rank 0 only these, not the whole views (run_check.c). */
    const char *const *invariant_fields;

    /* ---- capabilities: ways to answer a case other than compute_rank, each named for what
     * it does, never for who calls it.  Backends are providers of executors (simulated ranks,
     * a communicator, a device communicator, an outside executor) and devices, and each uses
     * every capability it can serve; NULL where the family has nothing to add (the backend
     * then uses compute_rank, or reports the case NotSupported) ---- */
    struct {
        /* Execute the case for real on world simulated ranks (threads) and give every
         * rank's view. */
        int (*simulated)(const json_t *group, const json_t *test, int64_t world,
                         json_t **views, shc_err *e);
        /* This rank's view after executing the case over comm (a real communicator:
         * MPI's, or shc_comm_hosted_run's threads). */
        int (*over_comm)(shc_comm *comm, const json_t *group, const json_t *test,
                         int64_t rank, json_t **view, shc_err *e);
        /* Cases per batch of a job executing over a communicator (0: the runner's default);
         * a family whose cases run collectives keeps it small, so one stuck case costs
         * little. */
        int comm_batch;
        /* This rank's view with its tensors in device memory and collectives over dc
         * (lib/exec/xdev.h), executed by dexec (shc_dexec_redistribute: the caller links
         * it, libshcgen does not). */
        int (*on_device_comm)(shc_dexec_fn dexec, struct shc_dcomm *dc, const json_t *group,
                              const json_t *test, int64_t rank, json_t **view, shc_err *e);
        /* Rank's view after an outside executor exec (ctx passed back; a vendor plugin's
         * ABI v2 execute) redistributed the rank's local input built as every backend
         * builds it. */
        int (*outside)(shc_xexec_fn exec, void *ctx, const json_t *group, const json_t *test,
                       int64_t rank, json_t **view, shc_err *e);
    } exec;
    struct {
        /* Rank's view computed on dev; where the group's GPU profile has another launch
         * geometry than dev's, *ref = the CPU reference's view for dev's profile (the
         * golden view does not apply), else *ref = NULL.  NULL: the family computes nothing
         * on a device but may execute there (exec.on_device_comm). */
        int (*fill)(const shc_rng_device *dev, const json_t *group, const json_t *test,
                    int64_t rank, json_t **view, json_t **ref, shc_err *e);
    } device;
    struct {
        /* The answer of an implementation of ABI v1 (lib/shardcheck_backend.h), whose form
         * is not the golden view's. */
        struct {
            /* Its answer for every rank, as golden views; SHC_EUNSUPPORTED with the reason
             * where ABI v1 cannot state the case. */
            int (*views)(const shc_backend_v1 *be, const json_t *group, const json_t *test,
                         int64_t world, json_t **views, shc_err *e);
            /* The offsetof() of the ABI entry point views needs. */
            size_t entry;
            /* Where the family's fields are beyond ABI v1: add to a golden view the fields
             * the answer is compared with (redistribute-plan: "stepKinds"). */
            void (*extend_want)(json_t *want);
        } abi_v1;
        /* What a real torch process reports of the family's case: that form for rank, from
         * the golden test (redistribute-plan: how many collectives of each kind the rank
         * issues; cpu: a gloo group, where all_to_all is an all-gather).  NULL: such a
         * process must raise. */
        json_t *(*collective_counts)(const json_t *test, int64_t rank, bool cpu);
    } project;
} shc_family;

/* All registered families, NULL-terminated. */
const shc_family *const *shc_families(void);
/* Look up a family by name; NULL if unknown. */
const shc_family *shc_family_find(const char *name);
/* Whether a claim on f must cover test (a golden test object): see shc_claim. */
bool shc_claim_requires(const shc_family *f, const json_t *test);
/* Whether field is one of the fields a claim on f requires. */
bool shc_claim_field(const shc_family *f, const char *field);

#endif
