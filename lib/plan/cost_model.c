/*
 * cost_model.c — torch 2.13's collective cost model, reproduced operation by
 * operation so that the floating-point sums the min-cost planner compares
 * are bit-identical to Python's (same constants, same evaluation order; all
 * arithmetic in IEEE double as CPython floats are).
 * Source: torch/distributed/tensor/_collective_utils.py (2.13.0).
 * Tested by check_plan.c and the redistribute-plan family (harness vs torch).
 */
#include "config.h"
#include <assert.h>
#include <stdbool.h>
#include <stdint.h>
#include <math.h>
#include "cost_model.h"
#include "plan_internal.h"

void shc_topo_build(const shc_mesh *m, int64_t devices_per_host, shc_topo *t)
{
    /* build_from_mesh: intra-host NVLink figures, scaled for every mesh dim
     * (walking inner to outer) once the devices spanned exceed one host. */
    const double base_bw = 87.7;
    int64_t total = 1;
    t->ndim = m->ndim;
    for (int d = m->ndim - 1; d >= 0; d--) {
        t->devices[d] = m->shape[d];
        t->bandwidth[d] = base_bw;
        t->latency[d] = 0.6;
        total *= m->shape[d];
        if (total > devices_per_host) {
            t->bandwidth[d] = base_bw * 0.22;
            t->latency[d] = 2.7;
        }
    }
}

/* allgather and reduce_scatter share one formula in torch. */
static double ring_cost(double bytes_gb, const shc_topo *t, int d, int64_t hops)
{
    double latency = 6.6 + (double)hops * t->latency[d];
    double bw = (bytes_gb * (double)hops / (double)t->devices[d]) / t->bandwidth[d];
    return latency + bw * 1e6;
}

double shc_cost_allgather(double bytes_gb, const shc_topo *t, int d)
{
    return ring_cost(bytes_gb, t, d, t->devices[d] - 1);
}

double shc_cost_allreduce(double bytes_gb, const shc_topo *t, int d)
{
    return ring_cost(bytes_gb, t, d, 2 * (t->devices[d] - 1));
}

double shc_cost_reduce_scatter(double bytes_gb, const shc_topo *t, int d)
{
    return ring_cost(bytes_gb, t, d, t->devices[d] - 1);
}

/* Python's int / int is correctly rounded whatever the sizes (spec_to_bytes / num_shards);
 * the divisions by 1024 then scale by powers of two, exactly.  Below 2^53 bytes the double
 * division of two exact operands is that rounding; above it the quotient is formed in
 * integers (bytes < 2^67 as numel < 2^63 and an element at most 16 bytes; shards at most
 * SHC_MAX_WORLD) and rounded to nearest, ties to even, with the remainder as sticky bit. */
double shc_cost_gb_of(int64_t numel, int64_t itemsize, int64_t num_shards)
{
    assert(numel >= 0 && itemsize >= 1 && itemsize <= 16 && num_shards >= 1 &&
           num_shards <= SHC_MAX_WORLD);
    unsigned __int128 a = (unsigned __int128)numel * (uint64_t)itemsize, b = (uint64_t)num_shards;
    double q;
    if (a < ((unsigned __int128)1 << 53)) {
        q = (double)(uint64_t)a / (double)num_shards;
    } else {
        int shift = 0; /* a / b >= 2^29: 2^26 more bits make a quotient of at least 55 */
        while (((a << shift) / b) >> 55 == 0)
            shift++;
        unsigned __int128 n = (a << shift) / b;
        bool sticky = (a << shift) % b != 0;
        int extra = 0;
        while (n >> (53 + extra))
            extra++;
        uint64_t m = (uint64_t)(n >> extra);
        unsigned __int128 rest = n & (((unsigned __int128)1 << extra) - 1),
                          half = (unsigned __int128)1 << (extra - 1);
        if (rest > half || (rest == half && (sticky || (m & 1))))
            m++;
        q = ldexp((double)m, extra - shift);
    }
    return q / 1024.0 / 1024.0 / 1024.0;
}

double shc_cost_bytes_gb(int64_t bytes, int64_t num_shards)
{
    return shc_cost_gb_of(bytes, 1, num_shards);
}

/* is_shard() is false for _StridedShard, so its transitions cost 0 and leave the bytes. */
double shc_cost_transition_step(const shc_placement *a, const shc_placement *b,
                                const shc_topo *t, int d, double *gb)
{
    bool a_s = a->kind == SHC_P_SHARD, b_s = b->kind == SHC_P_SHARD;
    bool a_p = a->kind == SHC_P_PARTIAL, b_p = b->kind == SHC_P_PARTIAL;
    bool a_r = a->kind == SHC_P_REPLICATE, b_r = b->kind == SHC_P_REPLICATE;
    if (shc_placement_eq(a, b))
        return 0.0;
    if (a_s && b_r) { /* the all-gather's output is the larger */
        *gb *= (double)t->devices[d];
        return shc_cost_allgather(*gb, t, d);
    }
    if (a_s && b_s) /* all-to-all: torch charges an all-gather plus a 1.0 penalty */
        return shc_cost_allgather(*gb, t, d) + 1.0;
    if (a_p && b_r)
        return shc_cost_allreduce(*gb, t, d);
    if (a_p && b_s) {
        double c = shc_cost_reduce_scatter(*gb, t, d);
        *gb /= (double)t->devices[d];
        return c;
    }
    if ((a_s && b_p) || (a_p && b_p))
        return INFINITY;
    if (a_r && b_s)
        *gb /= (double)t->devices[d];
    return 0.0;
}

double shc_cost_transition(const shc_placement *a, const shc_placement *b, const shc_topo *t,
                           int d, double gb)
{
    return shc_cost_transition_step(a, b, t, d, &gb);
}
