/*
 * rng_policy_check.c — decide which SPMD properties an RNG policy keeps on
 * a layout, element by element, and the policy verdict table.
 *
 * Every element of every rank's local shard gets a draw identity
 * (seed, stream, word) from its policy stream (rng_policy.c); two random
 * ops run back to back.  Then:
 *  - replicas-equal: every rank holding global element g gives it the same
 *    identity (Partial and Replicate mesh dims hold replicas);
 *  - shards-distinct: no two distinct (op, element) pairs share an
 *    identity — this catches windows of distinct shards overlapping and a
 *    window running into the next op's;
 *  - sharding-invariant: op 1's identities equal those the same policy gives
 *    on a 1-device mesh (Replicate) for the same global tensor;
 *  - torch-equal: every rank's seed, start and post offsets equal
 *    torch-offset's.
 * A draw's identity is the device profile's: under CUDA's window semantics
 * (thread, start + word) of one Philox stream; under stream semantics (an
 * Ascend NPU, gpu_profiles.c) each start offset is its own stream, so the
 * identity is (start, position in the launch).  shards-distinct's counterexamples
 * are counted (colliding draws: draws whose identity an earlier draw has).  The op's dtype
 * sets how many values a thread takes from a Philox block (shc_rng_dtype_unroll).
 * The local element -> global index map is rng_local.c's.
 */
#include "config.h"
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "shardcheck.h"

#define MAX_CHECK_NUMEL ((int64_t)1 << 22)

typedef struct draw_id {
    uint64_t seed;
    int64_t stream, word;
} draw_id;

/* How a policy names a draw (element_id), decided once per check from the policy's name:
 * element_id runs per element, and comparing names there was a fifth of the check. */
typedef enum id_kind {
    ID_JAX,    /* jax-partitionable: the op's key is split(key)[start]; bits from the global index */
    ID_FUNC,   /* torch-func-random: word key_offset + g of the op's key */
    ID_GLOBAL, /* single-device-equal: the launch of the whole tensor */
    ID_LOCAL,  /* every other policy: the launch of the local shard */
} id_kind;

static id_kind id_kind_of(const shc_rng_policy *p)
{
    const char *n = shc_rng_policy_name(p);
    return !strcmp(n, "jax-partitionable")     ? ID_JAX
           : !strcmp(n, "torch-func-random")   ? ID_FUNC
           : !strcmp(n, "single-device-equal") ? ID_GLOBAL
                                               : ID_LOCAL;
}

/* Identity of element i (global g) of a stream under policy kind; unroll: values a thread
 * takes from one Philox block (shc_rng_dtype_unroll).  A float64 element's identity is the
 * first of its two words: every draw of a launch starts on an even word, and the two ops
 * compared are of one dtype. */
static draw_id element_id(id_kind kind, const shc_gpu_profile *gpu, int unroll,
                          const shc_rng_stream *s, int op, int64_t i, int64_t g, int64_t numel)
{
    draw_id id = {s->seed, s->start, g};
    if (kind == ID_JAX)
        return id;
    if (kind == ID_FUNC) {
        /* op 2's key is split(key), taken as distinct */
        id.stream = op;
        id.word = g;
        return id;
    }
    bool global = kind == ID_GLOBAL;
    int64_t n = global ? numel : s->local_numel, e = global ? g : i;
    int64_t grid = (n + 255) / 256, cap = (int64_t)gpu->sm_count * (gpu->max_threads_per_sm / 256);
    int64_t T = 256 * (grid < cap ? grid : cap);
    if (gpu->offset_semantics == SHC_OFFSETS_STREAM) { /* the offset picks the stream */
        id.stream = s->start;
        id.word = e;
        return id;
    }
    id.stream = e % T;
    id.word = s->start + 4 * (e / (unroll * T)) + (4 / unroll) * ((e % (unroll * T)) / T);
    return id;
}

static bool id_eq(const draw_id *a, const draw_id *b)
{
    return a->seed == b->seed && a->stream == b->stream && a->word == b->word;
}

static uint64_t id_hash(const draw_id *a)
{
    uint64_t h = (uint64_t)a->seed * 0x9e3779b97f4a7c15ULL;
    h = (h ^ (uint64_t)a->stream) * 0xff51afd7ed558ccdULL;
    h = (h ^ (h >> 29) ^ (uint64_t)a->word) * 0xc4ceb9fe1a85ec53ULL;
    return h ^ (h >> 32);
}

typedef struct check_ctx {
    const shc_rng_policy *p;
    id_kind kind; /* id_kind_of(p) */
    const shc_gpu_profile *gpu;
    shc_dtype dt;
    int unroll; /* shc_rng_dtype_unroll(dt), once: element_id runs per element */
    const shc_mesh *m;
    const shc_placements *pl;
    const shc_shape *shape;
    uint64_t seed;
    int64_t numel;
    draw_id *ids[2];
    unsigned char *set[2];
    int64_t *post; /* op-1 post offset per mesh position */
    bool replicas_ok, torch_ok;
} check_ctx;

/* Draw every rank's shard for op `op`, recording identities per global element. */
static int draw_op(check_ctx *c, const shc_rng_layout *t, const shc_rng_policy *torch, int op,
                   shc_err *e)
{
    int rc = SHC_OK;
    for (int64_t pos = 0; pos < c->m->size && rc == SHC_OK; pos++) {
        int64_t r = c->m->ranks[pos], coord[SHC_MAX_MESH_DIMS], *g = NULL, n = 0;
        shc_rng_stream s, ts;
        int64_t old = op == 0 ? 0 : c->post[pos];
        if ((rc = shc_rng_policy_stream_dtype(c->p, c->gpu, c->dt, c->m, c->pl, c->shape,
                                              c->seed, old, r, &s, e)))
            break;
        if (op == 0) {
            c->post[pos] = s.post;
            if ((rc = shc_rng_policy_stream(torch, c->gpu, c->m, c->pl, c->shape, c->seed, 0, r,
                                            &ts, e)))
                break;
            if (ts.seed != s.seed || ts.start != s.start || ts.post != s.post)
                c->torch_ok = false;
        }
        if ((rc = shc_mesh_coord(c->m, r, coord, e)) ||
            (rc = shc_rng_local_globals(t, coord, &g, &n, e)))
            break;
        for (int64_t i = 0; i < n; i++) {
            draw_id id = element_id(c->kind, c->gpu, c->unroll, &s, op, i, g[i], c->numel);
            if (!c->set[op][g[i]]) {
                c->set[op][g[i]] = 1;
                c->ids[op][g[i]] = id;
            } else if (!id_eq(&id, &c->ids[op][g[i]])) {
                c->replicas_ok = false;
            }
        }
        free(g);
    }
    return rc;
}

/* Ids per bucket of all_distinct: a bucket's set (4096 slots of 4 bytes) and ids stay in the
 * cache. */
#define BUCKET_IDS 1024

/* Count, in all[0..n), the ids equal to an earlier one, with slot[] (cap entries, a power of
 * two at least 2n) as an open-addressed set of indices into all. */
static int64_t bucket_dups(const draw_id *all, int64_t n, int32_t *slot, size_t cap)
{
    int64_t dups = 0;
    memset(slot, 0xff, sizeof *slot * cap);
    for (int64_t i = 0; i < n; i++) {
        size_t h = (size_t)id_hash(&all[i]) & (cap - 1);
        while (slot[h] >= 0 && !id_eq(&all[slot[h]], &all[i]))
            h = (h + 1) & (cap - 1);
        if (slot[h] >= 0)
            dups++;
        else
            slot[h] = (int32_t)i;
    }
    return dups;
}

/* *dups: drawn elements of the two ops whose identity an earlier one has (0: all distinct).
 * The ids are first spread by their hash's top bits into buckets of about BUCKET_IDS, then
 * counted bucket by bucket: equal ids share a bucket, and one set over all of them (up to
 * 2^23 ids) missed the cache twice per probe, 70% of `run --backend ref --family
 * rng-policies` (a sort before it was 60% of `policies`, issue 36).  An allocation failure is
 * SHC_ENOMEM, not "the property does not hold" (check_hardening's alloc_failures). */
static int all_distinct(check_ctx *c, int64_t *dups, shc_err *e)
{
    int64_t n = 0;
    for (int op = 0; op < 2; op++)
        for (int64_t g = 0; g < c->numel; g++)
            n += c->set[op][g];
    int bits = 0;
    while (bits < 24 && (n >> bits) > BUCKET_IDS)
        bits++;
    size_t nb = (size_t)1 << bits;
    int64_t *at = calloc(nb + 1, sizeof *at);
    draw_id *all = malloc(sizeof *all * (size_t)(n + 1));
    if (!at || !all) {
        free(at);
        free(all);
        return shc_fail(e, SHC_ENOMEM, "policy check: out of memory");
    }
#define BUCKET_OF(id) (bits ? (size_t)(id_hash(id) >> (64 - bits)) : 0)
    for (int op = 0; op < 2; op++) /* at[b + 1]: bucket b's size */
        for (int64_t g = 0; g < c->numel; g++)
            if (c->set[op][g])
                at[BUCKET_OF(&c->ids[op][g]) + 1]++;
    int64_t most = 0;
    for (size_t b = 0; b < nb; b++) { /* at[b]: where bucket b starts */
        most = at[b + 1] > most ? at[b + 1] : most;
        at[b + 1] += at[b];
    }
    for (int op = 0; op < 2; op++) /* at[b]: where bucket b ends */
        for (int64_t g = 0; g < c->numel; g++)
            if (c->set[op][g])
                all[at[BUCKET_OF(&c->ids[op][g])]++] = c->ids[op][g];
#undef BUCKET_OF
    assert(at[nb - 1] == n);
    size_t cap = 16;
    while (cap < 2 * (size_t)most)
        cap <<= 1;
    int32_t *slot = most <= INT32_MAX ? malloc(sizeof *slot * cap) : NULL;
    if (!slot) {
        free(at);
        free(all);
        return shc_fail(e, SHC_ENOMEM, "policy check: out of memory");
    }
    *dups = 0;
    for (size_t b = 0; b < nb; b++) {
        int64_t from = b ? at[b - 1] : 0, size = at[b] - from;
        size_t bcap = 16;
        while (bcap < 2 * (size_t)size)
            bcap <<= 1;
        *dups += bucket_dups(all + from, size, slot, bcap);
    }
    free(slot);
    free(at);
    free(all);
    return SHC_OK;
}

/* Identities of the same policy on a 1-device mesh, compared with op 1's.  A policy that
 * cannot draw on one device at all (Megatron's GTP states: no GTP axis, no generator) is not
 * sharding-invariant: there are no single-device values to equal. */
static int invariant(check_ctx *c, bool *ok, shc_err *e)
{
    shc_mesh one = {0};
    shc_placements rep = {0};
    int64_t sz = 1;
    rep.n = 1;
    rep.p[0].kind = SHC_P_REPLICATE;
    int rc = shc_mesh_init(&one, 1, &sz, NULL, e);
    shc_rng_stream s;
    if (!rc)
        rc = shc_rng_policy_stream_dtype(c->p, c->gpu, c->dt, &one, &rep, c->shape, c->seed, 0,
                                         0, &s, e);
    *ok = true;
    if (rc == SHC_EUNSUPPORTED) {
        *ok = false;
        rc = SHC_OK;
    }
    for (int64_t g = 0; !rc && g < c->numel && *ok; g++) {
        draw_id id = element_id(c->kind, c->gpu, c->unroll, &s, 0, g, g, c->numel);
        *ok = c->set[0][g] && id_eq(&id, &c->ids[0][g]);
    }
    shc_mesh_free(&one);
    return rc;
}

/* shc_rng_policy_check with torch-equal measured against `torch` (NULL: torch-offset). */
static int check_vs(const shc_rng_policy *p, const shc_rng_policy *torch,
                    const shc_gpu_profile *gpu, shc_dtype dt, const shc_mesh *m,
                    const shc_placements *pl, const shc_shape *shape, uint64_t seed,
                    unsigned *holds, int64_t *dups, shc_err *e)
{
    shc_rng_layout t;
    int rc = shc_rng_policy_models_dtype(p, gpu, dt, e);
    if (!rc)
        rc = shc_rng_layout_init(&t, m, pl, shape, e);
    if (rc || (!torch && (rc = shc_rng_policy_lookup("torch-offset", &torch, e))))
        return rc;
    if (t.numel > MAX_CHECK_NUMEL)
        return shc_fail(e, SHC_EUNSUPPORTED, "policy check: %lld elements, at most %lld",
                        (long long)t.numel, (long long)MAX_CHECK_NUMEL);
    check_ctx c = {p, id_kind_of(p), gpu, dt, shc_rng_dtype_unroll(dt), m, pl, shape, seed, t.numel,
                   {0}, {0}, NULL, true, true};
    assert(c.unroll > 0); /* models_dtype refused a dtype without one */
    for (int op = 0; op < 2; op++) {
        c.ids[op] = malloc(sizeof(draw_id) * (size_t)(t.numel + 1));
        c.set[op] = calloc((size_t)t.numel + 1, 1);
    }
    c.post = malloc(sizeof(int64_t) * (size_t)m->size);
    if (!c.ids[0] || !c.ids[1] || !c.set[0] || !c.set[1] || !c.post)
        rc = shc_fail(e, SHC_ENOMEM, "policy check: out of memory");
    for (int op = 0; op < 2 && !rc; op++)
        rc = draw_op(&c, &t, torch, op, e);
    bool inv = false;
    if (!rc)
        rc = invariant(&c, &inv, e);
    if (!rc)
        rc = all_distinct(&c, dups, e);
    if (!rc)
        *holds = (c.replicas_ok ? 1u << SHC_RNGP_REPLICAS_EQUAL : 0) |
                 (*dups == 0 ? 1u << SHC_RNGP_SHARDS_DISTINCT : 0) |
                 (inv ? 1u << SHC_RNGP_SHARDING_INVARIANT : 0) |
                 (c.torch_ok ? 1u << SHC_RNGP_TORCH_EQUAL : 0);
    for (int op = 0; op < 2; op++) {
        free(c.ids[op]);
        free(c.set[op]);
    }
    free(c.post);
    return rc;
}

int shc_rng_policy_check(const shc_rng_policy *p, const shc_gpu_profile *gpu, const shc_mesh *m,
                         const shc_placements *pl, const shc_shape *shape, uint64_t seed,
                         unsigned *holds, shc_err *e)
{
    int64_t dups;
    return check_vs(p, NULL, gpu, SHC_DT_FLOAT32, m, pl, shape, seed, holds, &dups, e);
}

int shc_rng_policy_collisions(const shc_rng_policy *p, const shc_gpu_profile *gpu,
                              const shc_mesh *m, const shc_placements *pl,
                              const shc_shape *shape, uint64_t seed, unsigned *holds,
                              int64_t *collisions, shc_err *e)
{
    return check_vs(p, NULL, gpu, SHC_DT_FLOAT32, m, pl, shape, seed, holds, collisions, e);
}

int shc_rng_policy_collisions_dtype(const shc_rng_policy *p, const shc_gpu_profile *gpu,
                                    shc_dtype dt, const shc_mesh *m, const shc_placements *pl,
                                    const shc_shape *shape, uint64_t seed, unsigned *holds,
                                    int64_t *collisions, shc_err *e)
{
    return check_vs(p, NULL, gpu, dt, m, pl, shape, seed, holds, collisions, e);
}

/* The layouts verdicts are computed over: add a row to cover a layout. */
static const shc_rng_case cases[] = {
    {"4", "R", "8,8"},                   /* replicate only */
    {"4", "S(0)", "16,16"},              /* even row split */
    {"4", "S(1)", "8,16"},               /* column split */
    {"3", "S(0)", "7,5"},                /* uneven */
    {"4", "S(0)", "3"},                  /* tiny: fewer elements than ranks */
    {"2x2", "S(0),R", "8,8"},            /* DP x TP, sharded on DP (FSDP-like) */
    {"2x2", "R,S(0)", "8,8"},            /* DP x TP, sharded on TP */
    {"2x2", "S(0),S(1)", "8,8"},
    {"2x2", "S(0),S(0)", "8"},           /* nested on one dim */
    {"2x2", "S(0),S(0)", "6,3"},         /* nested and uneven */
    {"2x2", "_S(0, 2),S(0)", "8,8"},     /* FSDP2 + TP strided */
    {"2x2", "P(sum),S(0)", "8,4"},       /* partial replicas */
    {"2x2x2", "S(1),R,S(0)", "8,16"},    /* torch's docstring example */
    {"2x4", "S(0),S(1)", "16,1024"},     /* several blocks per shard */
    {"2", "S(0)", "1024,1024"},          /* many kernel rounds per thread */
};

int shc_rng_policy_cases(const shc_rng_case **out)
{
    *out = cases;
    return (int)(sizeof cases / sizeof cases[0]);
}

/* The verdict over the case table of policy p, or with op set of torch 2.13 running op
 * (the policy it follows on each layout, torch-equal against itself). */
static int verdict(const shc_rng_policy *p, const shc_rng_op *op, const shc_gpu_profile *gpu,
                   shc_dtype dt, uint64_t seed, shc_rng_verdict *out, shc_err *e)
{
    memset(out, 0, sizeof *out);
    for (int k = 0; k < SHC_RNGP_COUNT; k++)
        out->first_fail[k] = -1;
    int n = shc_rng_policy_cases(&(const shc_rng_case *){NULL}), rc = SHC_OK;
    if (n > SHC_RNG_MAX_CASES)
        return shc_fail(e, SHC_EINTERNAL, "policy case table has %d rows, at most %d", n,
                        SHC_RNG_MAX_CASES);
    out->ncases = n;
    for (int i = 0; i < n && rc == SHC_OK; i++) {
        shc_mesh m = {0};
        shc_placements pl;
        shc_shape s;
        unsigned holds = 0;
        int64_t dups = 0;
        if ((rc = shc_mesh_parse(&m, cases[i].mesh, NULL, e)) ||
            (rc = shc_placements_parse(&pl, cases[i].placements, e)) ||
            (rc = shc_shape_parse(&s, cases[i].shape, e))) {
            shc_mesh_free(&m);
            return shc_err_prefix(e, "policy case %d", i);
        }
        if (op && (rc = shc_rng_op_policy(op, &m, &pl, &s, &p, e)) == SHC_EINVAL)
            rc = SHC_EUNSUPPORTED; /* torch rejects the op on this layout */
        if (rc == SHC_OK)
            rc = check_vs(p, op ? p : NULL, gpu, dt, &m, &pl, &s, seed, &holds, &dups, e);
        shc_mesh_free(&m);
        out->mask[i] = rc == SHC_OK ? (int)holds : -1;
        out->collisions[i] = rc == SHC_OK ? dups : 0;
        out->total_collisions += out->collisions[i];
        if (rc == SHC_EUNSUPPORTED) { /* the policy cannot run this layout */
            out->rejected++;
            rc = SHC_OK;
            continue;
        }
        out->layouts++;
        for (int k = 0; k < SHC_RNGP_COUNT; k++) {
            if (holds & (1u << k))
                out->holds[k]++;
            else if (out->first_fail[k] < 0)
                out->first_fail[k] = i;
        }
    }
    return rc;
}

int shc_rng_policy_verdict(const shc_rng_policy *p, const shc_gpu_profile *gpu, uint64_t seed,
                           shc_rng_verdict *out, shc_err *e)
{
    return verdict(p, NULL, gpu, SHC_DT_FLOAT32, seed, out, e);
}

int shc_rng_policy_verdict_dtype(const shc_rng_policy *p, const shc_gpu_profile *gpu,
                                 shc_dtype dt, uint64_t seed, shc_rng_verdict *out, shc_err *e)
{
    int rc = shc_rng_policy_models_dtype(p, gpu, dt, e);
    return rc ? rc : verdict(p, NULL, gpu, dt, seed, out, e);
}

int shc_rng_op_verdict(const shc_rng_op *op, const shc_gpu_profile *gpu, uint64_t seed,
                       shc_rng_verdict *out, shc_err *e)
{
    const shc_rng_policy *any;
    int rc = shc_rng_policy_lookup("torch-offset", &any, e); /* replaced per layout */
    return rc ? rc : verdict(any, op, gpu, SHC_DT_FLOAT32, seed, out, e);
}
