/*
 * plan_graph.c — torch 2.13's min-cost redistribute planner
 * (DTensorRedistributePlanner.find_min_cost_path / get_next_state /
 * generate_graph_based_transform_infos in torch/distributed/tensor/
 * _redistribute.py), reimplemented for speed:
 *   - a state is (placements, shard order) — torch's DistState — with each
 *     placement interned as a one-byte code, hashed into an open-addressed
 *     table;
 *   - neighbours are generated in torch's exact order (cases 1, 2, 3, 4, 5,
 *     6, 8, then 11 when the target holds _StridedShard, then, from torch 2.14,
 *     case 7's Shard -> Partial(sum) edges towards the target), because
 *     Dijkstra's ties are broken by push order (torch's heap counter); the
 *     cases are the rows of `moves`, each with the releases that have it;
 *   - costs come from cost_model.c, bit-identical to torch's floats;
 *   - the Python sets torch iterates (reduce ops, _StridedShard targets) are
 *     ordered as CPython would order them: _StridedShard hashes are
 *     deterministic (tuple of ints) and are placed as CPython 3.11's set does;
 *     string hashes are salted per process, so the reduce-op order is an
 *     option (opts->op_perm) and callers try every permutation.
 * Tested by check_plan.c and the redistribute-plan family against torch.
 */
#include "config.h"
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plan_internal.h"
#include "cost_model.h"
#include "checked_math.h"

#define MAX_CODES 64

/* A DistState in 16 bytes: each mesh dim's placement code and, for a shard,
 * its position in its tensor dim's shard order (0 otherwise). */
typedef struct gstate {
    uint8_t pc[SHC_MAX_MESH_DIMS];
    uint8_t pos[SHC_MAX_MESH_DIMS];
} gstate;

typedef struct gnode {
    gstate s;
    int parent;
    double edge; /* the transition cost from parent (one_step_redistribute_cost, or 0) */
} gnode;

typedef struct hentry {
    double cost;
    uint64_t counter;
    int node;
} hentry;

typedef struct graph {
    const shc_plan_ctx *c;
    int n, tdims;
    shc_placement codes[MAX_CODES];
    int ncodes;
    shc_placement ops[2 * SHC_MAX_MESH_DIMS]; /* reduce-op set in iteration order */
    int nops;
    int strided[SHC_MAX_MESH_DIMS * 2]; /* codes of target _StridedShard, set order */
    int nstrided;
    shc_topo topo;
    int64_t bytes;
    gnode *nodes;
    int nnodes, capnodes;
    hentry *heap;
    int nheap, capheap;
    uint64_t counter;
    int *visited; /* open addressing over node indexes, -1 = empty */
    size_t vcap, vcount;
    const gstate *target; /* the destination state (case 7 looks at it) */
    uint32_t changes;     /* shc_torch_change bits that decided something */
    uint32_t asked;       /* shc_torch_change bits asked (shc_torch_ask) */
} graph;

/* ---- placement codes ---- */

static int code_of(graph *g, const shc_placement *p)
{
    for (int i = 0; i < g->ncodes; i++)
        if (shc_placement_eq(&g->codes[i], p))
            return i;
    if (g->ncodes == MAX_CODES)
        return -1;
    g->codes[g->ncodes] = *p;
    if (p->kind != SHC_P_STRIDED)
        g->codes[g->ncodes].split_factor = 0;
    return g->ncodes++;
}

static int code_kind(const graph *g, const gstate *s, int i)
{
    assert(i >= 0 && i < g->n && s->pc[i] < g->ncodes);
    return g->codes[s->pc[i]].kind;
}

/* ---- CPython 3.11 set iteration order for _StridedShard (hash of (dim, sf)) ---- */

static uint64_t py_tuple2_hash(int64_t a, int64_t b)
{
    const uint64_t p1 = 11400714785074694791ULL, p2 = 14029467366897019727ULL,
                   p5 = 2870177450012600261ULL;
    uint64_t lanes[2] = {(uint64_t)a, (uint64_t)b}, acc = p5;
    for (int i = 0; i < 2; i++) {
        acc += lanes[i] * p2;
        acc = (acc << 31) | (acc >> 33);
        acc *= p1;
    }
    acc += 2 ^ (p5 ^ 3527539UL);
    return acc == (uint64_t)-1 ? 1546275796 : acc;
}

/* Insert into a CPython set table (slots hold code+1, 0 = empty). */
static void pyset_insert(int *table, uint64_t *hashes, size_t mask, int key, uint64_t h)
{
    size_t i = (size_t)h & mask, perturb = (size_t)h;
    for (;;) {
        int probes = (i + 9 <= mask) ? 9 : 0;
        for (size_t j = i;; j++) {
            if (table[j] == 0) {
                table[j] = key;
                hashes[j] = h;
                return;
            }
            if (probes-- == 0)
                break;
        }
        perturb >>= 5;
        i = (i * 5 + 1 + perturb) & mask;
    }
}

/* Order g->strided as iterating torch's strided_shard_placements_in_target. */
static void order_strided(graph *g, const int *keys, int nkeys)
{
    int table[64] = {0};
    uint64_t hashes[64] = {0};
    size_t mask = 7, fill = 0;
    assert(nkeys >= 0 && nkeys <= SHC_MAX_MESH_DIMS); /* one key per mesh dim at most */
    for (int k = 0; k < nkeys; k++) {
        const shc_placement *p = &g->codes[keys[k]];
        uint64_t h = py_tuple2_hash(p->dim, p->split_factor);
        bool dup = false;
        for (size_t j = 0; j <= mask; j++)
            dup |= table[j] == keys[k] + 1;
        if (dup)
            continue;
        pyset_insert(table, hashes, mask, keys[k] + 1, h);
        if (++fill * 5 >= mask * 3) { /* set_table_resize(used * 4) */
            size_t nsize = 8;
            while (nsize <= fill * 4)
                nsize <<= 1;
            assert(nsize <= 64); /* fill <= SHC_MAX_MESH_DIMS: the table fits its arrays */
            int nt[64] = {0};
            uint64_t nh[64] = {0};
            for (size_t j = 0; j <= mask; j++)
                if (table[j])
                    pyset_insert(nt, nh, nsize - 1, table[j], hashes[j]);
            memcpy(table, nt, sizeof nt);
            memcpy(hashes, nh, sizeof nh);
            mask = nsize - 1;
        }
    }
    g->nstrided = 0;
    assert(fill <= (size_t)nkeys);
    for (size_t j = 0; j <= mask; j++)
        if (table[j])
            g->strided[g->nstrided++] = table[j] - 1;
}

/* ---- shard orders of compact states ---- */

static void to_order(const graph *g, const gstate *s, shc_shard_order *so)
{
    memset(so, 0, sizeof *so);
    for (int md = 0; md < g->n; md++)
        if (shc_is_shard_like(&g->codes[s->pc[md]])) {
            int d = g->codes[s->pc[md]].dim;
            assert(d >= 0 && d < SHC_MAX_TENSOR_DIMS && s->pos[md] < SHC_MAX_MESH_DIMS);
            so->md[d][s->pos[md]] = (int8_t)md;
            so->len[d]++;
        }
}

/* ---- visited set ---- */

_Static_assert(sizeof(gstate) % 8 == 0, "gstate hashes as 64-bit words");

static uint64_t state_hash(const gstate *s)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL, w;
    for (size_t i = 0; i < sizeof *s; i += 8) {
        memcpy(&w, (const char *)s + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
        h ^= h >> 32;
    }
    return h;
}

static bool visited_has(const graph *g, const gstate *s)
{
    assert(g->vcap && (g->vcap & (g->vcap - 1)) == 0); /* a power of two: & m wraps */
    size_t m = g->vcap - 1, i = (size_t)state_hash(s) & m;
    while (g->visited[i] >= 0) {
        if (!memcmp(&g->nodes[g->visited[i]].s, s, sizeof *s))
            return true;
        i = (i + 1) & m;
    }
    return false;
}

static int visited_add(graph *g, int node)
{
    if ((g->vcount + 1) * 2 > g->vcap) {
        size_t ncap = g->vcap * 2;
        int *nv = malloc(ncap * sizeof *nv);
        if (!nv)
            return SHC_ENOMEM;
        memset(nv, 0xff, ncap * sizeof *nv);
        for (size_t j = 0; j < g->vcap; j++)
            if (g->visited[j] >= 0) {
                size_t i = (size_t)state_hash(&g->nodes[g->visited[j]].s) & (ncap - 1);
                while (nv[i] >= 0)
                    i = (i + 1) & (ncap - 1);
                nv[i] = g->visited[j];
            }
        free(g->visited);
        g->visited = nv;
        g->vcap = ncap;
    }
    size_t m = g->vcap - 1, i = (size_t)state_hash(&g->nodes[node].s) & m;
    while (g->visited[i] >= 0)
        i = (i + 1) & m;
    g->visited[i] = node;
    g->vcount++;
    assert(g->vcount * 2 <= g->vcap); /* at most half full: every probe finds an empty slot */
    return SHC_OK;
}

/* ---- heap ordered by (cost, counter), as torch's heapq tuples ---- */

static bool hless(const hentry *a, const hentry *b)
{
    return a->cost < b->cost || (a->cost == b->cost && a->counter < b->counter);
}

static int heap_push(graph *g, double cost, int node)
{
    if (g->nheap == g->capheap) {
        int nc = g->capheap ? g->capheap * 2 : 256;
        hentry *nh = realloc(g->heap, (size_t)nc * sizeof *nh);
        if (!nh)
            return SHC_ENOMEM;
        g->heap = nh;
        g->capheap = nc;
    }
    hentry x = {cost, g->counter++, node};
    int i = g->nheap++;
    while (i > 0 && hless(&x, &g->heap[(i - 1) / 2])) {
        g->heap[i] = g->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    g->heap[i] = x;
    return SHC_OK;
}

static hentry heap_pop(graph *g)
{
    assert(g->nheap > 0);
    hentry top = g->heap[0], x = g->heap[--g->nheap];
    int i = 0, n = g->nheap;
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        const hentry *best = &x;
        if (l < n && hless(&g->heap[l], best))
            m = l, best = &g->heap[l];
        if (r < n && hless(&g->heap[r], best))
            m = r;
        if (m == i)
            break;
        g->heap[i] = g->heap[m];
        i = m;
    }
    if (n > 0)
        g->heap[i] = x;
    return top;
}

static int new_node(graph *g, const gstate *s, int parent, double edge)
{
    if (g->nnodes == g->capnodes) {
        int nc = g->capnodes ? g->capnodes * 2 : 256;
        gnode *nn = realloc(g->nodes, (size_t)nc * sizeof *nn);
        if (!nn)
            return -1;
        g->nodes = nn;
        g->capnodes = nc;
    }
    g->nodes[g->nnodes].s = *s;
    g->nodes[g->nnodes].parent = parent;
    g->nodes[g->nnodes].edge = edge;
    return g->nnodes++;
}

/* ---- neighbours (get_next_state) ---- */

typedef struct expand {
    graph *g;
    int from;              /* node being expanded */
    double cost;           /* its path cost */
    double gb;             /* its comm bytes in GB (spec_to_bytes / num_shards / 2^30) */
    const gstate *cur;
    shc_shard_order so;    /* its shard order as lists */
    int rc;
} expand;

/* Push a neighbour reached at transition cost edge unless visited (find_min_cost_path:
 * new_cost = cost + transition_cost, the same float sum). */
static void offer_at(expand *x, const gstate *nxt, double edge)
{
    graph *g = x->g;
    if (x->rc || visited_has(g, nxt))
        return;
    int node = new_node(g, nxt, x->from, edge);
    if (node < 0 || heap_push(g, x->cost + edge, node))
        x->rc = SHC_ENOMEM;
}

/* One neighbour differing on mesh dim md, priced by one_step_redistribute_cost. */
static void offer(expand *x, const gstate *nxt, int md)
{
    graph *g = x->g;
    if (x->rc || visited_has(g, nxt))
        return;
    offer_at(x, nxt, shc_cost_transition(&g->codes[x->cur->pc[md]], &g->codes[nxt->pc[md]],
                                         &g->topo, md, x->gb));
}

/* Replace mesh dim md's placement by code c (a shard goes last in its tensor dim). */
static void set_code(expand *x, gstate *nx, int md, int c)
{
    const shc_placement *p = &x->g->codes[c];
    nx->pc[md] = (uint8_t)c;
    nx->pos[md] = shc_is_shard_like(p) ? (uint8_t)x->so.len[p->dim] : 0;
}

static int shard_code(graph *g, int dim)
{
    shc_placement p = {.kind = SHC_P_SHARD, .dim = dim};
    return code_of(g, &p);
}

/* Cases 1 (S(a) -> S(b), all-to-all), 2 (S -> R) and 8 (_S -> R): only the
 * last mesh dim of each tensor dim's shard order may move. */
static void shard_moves(expand *x, int rcode, int kind, bool to_replicate)
{
    graph *g = x->g;
    for (int a = 0; a < g->tdims; a++) {
        if (x->so.len[a] == 0)
            continue;
        int md = x->so.md[a][x->so.len[a] - 1];
        if (code_kind(g, x->cur, md) != kind)
            continue;
        gstate nx = *x->cur;
        if (to_replicate) {
            set_code(x, &nx, md, rcode);
            offer(x, &nx, md);
            continue;
        }
        for (int b = 0; b < g->tdims; b++)
            if (b != a) {
                set_code(x, &nx, md, shard_code(g, b));
                offer(x, &nx, md);
            }
    }
}

/* Whether the partial ops in placements pc mix (other than sum with avg); torch compares
 * the reduce_op strings (_redistribute.py:1088-1091). */
static bool mixed_partials(const graph *g, const gstate *s)
{
    const shc_placement *first = NULL;
    bool mixed = false, sum_avg_only = true;
    for (int i = 0; i < g->n; i++) {
        if (code_kind(g, s, i) != SHC_P_PARTIAL)
            continue;
        const shc_placement *p = &g->codes[s->pc[i]];
        sum_avg_only &= p->op == SHC_OP_SUM || p->op == SHC_OP_AVG;
        if (!first)
            first = p;
        else
            mixed |= !shc_pl_eq(p, first);
    }
    return mixed && !sum_avg_only;
}

/* Cases 3 (P -> R), 4 (R -> S), 5 (P -> S), 6 (R -> P(op)) and 11 (R -> _S),
 * each over mesh dims in order; from_kind selects the source placement. */
static void replace_moves(expand *x, int from_kind, int rcode, int which)
{
    graph *g = x->g;
    for (int md = 0; md < g->n; md++) {
        if (code_kind(g, x->cur, md) != from_kind)
            continue;
        gstate nx = *x->cur;
        if (which == 3) {
            set_code(x, &nx, md, rcode);
            offer(x, &nx, md);
        } else if (which == 4 || which == 5) {
            for (int b = 0; b < g->tdims; b++) {
                set_code(x, &nx, md, shard_code(g, b));
                offer(x, &nx, md);
            }
        } else if (which == 6) {
            for (int k = 0; k < g->nops; k++) {
                set_code(x, &nx, md, code_of(g, &g->ops[k]));
                if (!mixed_partials(g, &nx))
                    offer(x, &nx, md);
            }
        } else {
            for (int k = 0; k < g->nstrided; k++) {
                set_code(x, &nx, md, g->strided[k]);
                offer(x, &nx, md);
            }
        }
    }
}

/* Case 7 (torch >= 2.14, _get_shard_to_partial_target_states): for each tensor dim in
 * shard-order entry order, the last mesh dim sharding it may become the target's
 * Partial(sum) on that dim, at cost 0 (explicit-only: only towards that target).  The
 * source must be a Shard (isinstance: not _StridedShard); the new state pops that mesh
 * dim off the tensor dim's order, the others keep their positions. */
static void shard_to_partial_moves(expand *x, int rcode)
{
    (void)rcode;
    graph *g = x->g;
    for (int a = 0; a < g->tdims; a++) {
        if (x->so.len[a] == 0)
            continue;
        int md = x->so.md[a][x->so.len[a] - 1];
        const shc_placement *want = &g->codes[g->target->pc[md]];
        if (code_kind(g, x->cur, md) != SHC_P_SHARD || want->kind != SHC_P_PARTIAL ||
            want->op != SHC_OP_SUM)
            continue;
        gstate nx = *x->cur;
        nx.pc[md] = g->target->pc[md];
        nx.pos[md] = 0;
        offer_at(x, &nx, 0.0);
    }
}

/* get_next_state's cases in torch's order (find_min_cost_path pushes them so); a row
 * applies in the releases it names (0: every release). */
typedef struct move {
    int which;                 /* torch's case number */
    shc_torch_change only_in;  /* applies only where the release has this change ... */
    bool gated;                /* ... when set */
} move;
static const move moves[] = {
    {1, 0, false}, {2, 0, false}, {3, 0, false}, {4, 0, false}, {5, 0, false}, {6, 0, false},
    {8, 0, false}, {11, 0, false},
    /* 2.14.1/2.15.0 _redistribute.py:1259-1261: next_states.update(...) after get_next_state */
    {7, SHC_TC_SHARD_TO_PARTIAL, true},
};

/* Whether a gated move can offer anything in this search: case 7 only towards a target
 * holding a Partial(sum) (shard_to_partial_moves), so only such a search asks its row. */
static bool move_may_apply(const graph *g, int which)
{
    if (which != 7)
        return true;
    for (int md = 0; md < g->n; md++) {
        const shc_placement *want = &g->codes[g->target->pc[md]];
        if (want->kind == SHC_P_PARTIAL && want->op == SHC_OP_SUM)
            return true;
    }
    return false;
}

static void expand_state(expand *x)
{
    graph *g = x->g;
    shc_placement r = {.kind = SHC_P_REPLICATE};
    int rcode = code_of(g, &r);
    /* DTensorSpec.num_shards: shard-like mesh dims; Shard only in torch 2.11 (asked where a
     * _StridedShard makes it matter) */
    bool strided = false;
    for (int md = 0; md < g->n; md++)
        strided |= g->codes[x->cur->pc[md]].kind == SHC_P_STRIDED;
    bool shard_only = strided && shc_torch_ask(g->c->opts->torch, SHC_TC_STRIDED_NOT_SHARD,
                                               &g->asked);
    int64_t shards = 1;
    for (int md = 0; md < g->n; md++) {
        const shc_placement *p = &g->codes[x->cur->pc[md]];
        if (shc_is_shard_like(p) && (!shard_only || p->kind == SHC_P_SHARD))
            shards *= g->topo.devices[md];
        else if (shc_is_shard_like(p))
            g->changes |= 1u << SHC_TC_STRIDED_NOT_SHARD;
    }
    x->gb = shc_cost_bytes_gb(g->bytes, shards);
    to_order(g, x->cur, &x->so);
    for (size_t i = 0; i < sizeof moves / sizeof *moves; i++) {
        if (moves[i].gated && !(move_may_apply(g, moves[i].which) &&
                                shc_torch_ask(g->c->opts->torch, moves[i].only_in, &g->asked)))
            continue;
        switch (moves[i].which) {
        case 1: shard_moves(x, rcode, SHC_P_SHARD, false); break;
        case 2: shard_moves(x, rcode, SHC_P_SHARD, true); break;
        case 3: replace_moves(x, SHC_P_PARTIAL, rcode, 3); break;
        case 4: replace_moves(x, SHC_P_REPLICATE, rcode, 4); break;
        case 5: replace_moves(x, SHC_P_PARTIAL, rcode, 5); break;
        case 6: replace_moves(x, SHC_P_REPLICATE, rcode, 6); break;
        case 7: shard_to_partial_moves(x, rcode); break;
        case 8: shard_moves(x, rcode, SHC_P_STRIDED, true); break;
        case 11:
            if (g->nstrided > 0)
                replace_moves(x, SHC_P_REPLICATE, rcode, 11);
            break;
        }
    }
}

/* ---- the search (find_min_cost_path) and the steps it implies ---- */

#define MAX_NODES (1 << 24)

static int dijkstra(graph *g, const gstate *src, const gstate *dst, int *found, shc_err *e)
{
    g->vcap = 1024;
    g->visited = malloc(g->vcap * sizeof *g->visited);
    if (!g->visited)
        return shc_fail(e, SHC_ENOMEM, "plan graph: out of memory");
    memset(g->visited, 0xff, g->vcap * sizeof *g->visited);
    int root = new_node(g, src, -1, 0.0);
    if (root < 0 || heap_push(g, 0.0, root))
        return shc_fail(e, SHC_ENOMEM, "plan graph: out of memory");
    while (g->nheap > 0) {
        hentry top = heap_pop(g);
        const gstate *s = &g->nodes[top.node].s;
        if (!memcmp(s, dst, sizeof *s)) {
            *found = top.node;
            return SHC_OK;
        }
        if (visited_has(g, s))
            continue;
        if (visited_add(g, top.node))
            return shc_fail(e, SHC_ENOMEM, "plan graph: out of memory");
        gstate cur = *s; /* nodes may move while expanding */
        expand x = {.g = g, .from = top.node, .cost = top.cost, .cur = &cur, .rc = SHC_OK};
        expand_state(&x);
        if (x.rc)
            return shc_fail(e, SHC_ENOMEM, "plan graph: out of memory");
        if (g->nnodes > MAX_NODES)
            return shc_fail(e, SHC_EUNSUPPORTED, "plan graph: more than %d search states",
                            MAX_NODES);
    }
    *found = -1;
    return SHC_OK;
}

/* get_logical_shape: the global shape narrowed by every shard of the state
 * except the one on mesh_dim (shards ordered after it included). */
static void logical_shape(const graph *g, const gstate *s, int mesh_dim, shc_shape *out)
{
    const shc_mesh *m = g->c->mesh;
    shc_shard_order so;
    to_order(g, s, &so);
    *out = *g->c->shape;
    for (int d = 0; d < g->tdims; d++)
        for (int k = 0; k < so.len[d]; k++) {
            int md = so.md[d][k];
            if (md == mesh_dim)
                continue;
            const shc_placement *p = &g->codes[s->pc[md]];
            if (p->kind == SHC_P_STRIDED)
                out->d[d] = shc_strided_chunk_size(out->d[d], m->shape[md], p->split_factor,
                                                   g->c->coord[md]);
            else
                out->d[d] = shc_chunk_size(out->d[d], m->shape[md], g->c->coord[md]);
        }
}

static int path_to_steps(graph *g, int node, shc_plan *plan, shc_err *e)
{
    int len = 0;
    for (int i = node; i >= 0; i = g->nodes[i].parent)
        len++;
    int *path = malloc((size_t)len * sizeof *path);
    if (!path)
        return shc_fail(e, SHC_ENOMEM, "plan graph: out of memory");
    int k = len;
    for (int i = node; i >= 0; i = g->nodes[i].parent)
        path[--k] = i;
    assert(k == 0); /* the second walk visits the nodes the first counted */
    int rc = SHC_OK;
    for (int i = 0; i + 1 < len && rc == SHC_OK; i++) {
        const gstate *a = &g->nodes[path[i]].s, *b = &g->nodes[path[i + 1]].s;
        bool priced = false; /* an edge changes one mesh dim: its first step carries the cost */
        for (int md = 0; md < g->n; md++) {
            if (a->pc[md] == b->pc[md])
                continue;
            shc_plan_step st;
            memset(&st, 0, sizeof st);
            st.mesh_dim = md;
            st.nmesh_dims = 1;
            st.mesh_dims[0] = md;
            st.src = g->codes[a->pc[md]];
            st.dst = g->codes[b->pc[md]];
            st.cost = priced ? 0.0 : g->nodes[path[i + 1]].edge;
            priced = true;
            if (st.src.kind == SHC_P_SHARD && st.dst.kind == SHC_P_PARTIAL)
                g->changes |= 1u << SHC_TC_SHARD_TO_PARTIAL; /* only case 7 makes this edge */
            logical_shape(g, a, md, &st.logical_shape);
            rc = shc_plan_push(plan, &st, e);
        }
    }
    free(path);
    return rc;
}

static void format_gstate(const graph *g, const gstate *s, char *buf, size_t n)
{
    shc_placement p[SHC_MAX_MESH_DIMS];
    for (int i = 0; i < g->n; i++)
        p[i] = g->codes[s->pc[i]];
    char *b = NULL;
    size_t len = 0, cap = 0;
    shc_shard_order so;
    to_order(g, s, &so);
    if (shc_format_state(p, g->n, &so, &b, &len, &cap) == SHC_OK && b)
        snprintf(buf, n, "%s", b);
    else
        snprintf(buf, n, "?");
    free(b);
}

/* The reduce ops torch collects from src then dst placements, in first-appearance
 * order, permuted by opts->op_perm (Python's salted string hashes order the set). */
static void collect_ops(graph *g, const shc_spec *src, const shc_spec *dst)
{
    shc_placement first[2 * SHC_MAX_MESH_DIMS];
    int n = 0;
    for (int k = 0; k < 2 * g->n; k++) {
        const shc_placement *p = k < g->n ? &src->p[k] : &dst->p[k - g->n];
        if (p->kind != SHC_P_PARTIAL)
            continue;
        bool seen = false;
        for (int j = 0; j < n; j++)
            seen |= shc_pl_eq(&first[j], p);
        if (!seen)
            first[n++] = (shc_placement){.kind = SHC_P_PARTIAL, .op = p->op};
        if (!seen && p->op == SHC_OP_OTHER)
            memcpy(first[n - 1].op_name, p->op_name, sizeof p->op_name);
    }
    const shc_plan_opts *o = g->c->opts;
    g->nops = n;
    for (int j = 0; j < n; j++)
        g->ops[j] = (o->nop_perm == n && n <= SHC_OP_COUNT && o->op_perm[j] < n)
                        ? first[o->op_perm[j]] : first[j];
}

static int make_state(graph *g, const shc_spec *s, gstate *out, shc_err *e)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < s->n; i++) {
        int c = code_of(g, &s->p[i]);
        if (c < 0)
            return shc_fail(e, SHC_EUNSUPPORTED, "plan graph: too many distinct placements");
        out->pc[i] = (uint8_t)c;
    }
    for (int d = 0; d < g->tdims; d++)
        for (int k = 0; k < s->so.len[d]; k++)
            out->pos[s->so.md[d][k]] = (uint8_t)k;
    return SHC_OK;
}

/* A search kept for the request's other ranks: the graph's placement codes and the nodes
 * on the path (the heap and the visited set are freed). */
struct shc_graph_path {
    graph *g;
    int found;
};

void shc_graph_path_free(shc_graph_path *p)
{
    if (!p)
        return;
    free(p->g->nodes);
    free(p->g);
    free(p);
}

int shc_plan_graph(const shc_plan_ctx *c, const shc_spec *src, const shc_spec *dst,
                   shc_plan *plan, shc_err *e)
{
    if (c->path && *c->path) { /* an earlier rank's search: only the logical shapes differ */
        graph *g = (*c->path)->g;
        g->c = c;
        plan->nreduce_ops = g->nops;
        plan->torch_changes |= g->changes;
        plan->torch_asked |= g->asked;
        return path_to_steps(g, (*c->path)->found, plan, e);
    }
    graph *g = calloc(1, sizeof *g);
    if (!g)
        return shc_fail(e, SHC_ENOMEM, "plan graph: out of memory");
    g->c = c;
    g->n = c->mesh->ndim;
    g->tdims = c->shape->ndim;
    shc_topo_build(c->mesh, c->opts->devices_per_host, &g->topo);
    int64_t numel = 1;
    gstate s, t;
    int rc = SHC_OK, found = -1;
    for (int d = 0; d < g->tdims && rc == SHC_OK; d++)
        rc = shc_mul64_e(numel, c->shape->d[d], &numel, "plan graph: element count", e);
    if (rc == SHC_OK)
        rc = shc_mul64_e(numel, c->opts->dtype_bytes, &g->bytes, "plan graph: tensor bytes", e);
    if (rc == SHC_OK && g->bytes > ((int64_t)1 << 53)) /* torch divides exact Python ints */
        rc = shc_fail(e, SHC_EUNSUPPORTED, "plan graph: %lld bytes exceed 2^53; the cost model "
                      "would round differently from torch", (long long)g->bytes);
    if (rc || (rc = make_state(g, src, &s, e)) || (rc = make_state(g, dst, &t, e)))
        goto out;
    collect_ops(g, src, dst);
    plan->nreduce_ops = g->nops;
    int keys[SHC_MAX_MESH_DIMS], nkeys = 0;
    for (int i = 0; i < g->n; i++)
        if (dst->p[i].kind == SHC_P_STRIDED)
            keys[nkeys++] = t.pc[i];
    order_strided(g, keys, nkeys);
    g->target = &t;
    if ((rc = dijkstra(g, &s, &t, &found, e)))
        goto out;
    if (found < 0) {
        char a[256], b[256];
        format_gstate(g, &s, a, sizeof a);
        format_gstate(g, &t, b, sizeof b);
        rc = shc_fail(e, SHC_EINVAL, "No path found from src_state %s to dst_state %s", a, b);
        goto out;
    }
    rc = path_to_steps(g, found, plan, e);
out:
    plan->torch_changes |= g->changes;
    plan->torch_asked |= g->asked;
    free(g->heap);
    free(g->visited);
    shc_graph_path *keep = rc == SHC_OK && c->path ? malloc(sizeof *keep) : NULL;
    if (keep) { /* without memory to keep it, the next rank searches again */
        g->heap = NULL;
        g->visited = NULL;
        *keep = (shc_graph_path){g, found};
        *c->path = keep;
        return rc;
    }
    free(g->nodes);
    free(g);
    return rc;
}
