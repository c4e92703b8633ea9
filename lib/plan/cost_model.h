/*
 * cost_model.h — torch 2.13's communication cost model
 * (torch/distributed/tensor/_collective_utils.py: MeshTopoInfo,
 * allgather_cost, allreduce_cost, reduce_scatter_cost,
 * _compute_placement_transition_cost, one_step_redistribute_cost), which the
 * min-cost planner's Dijkstra search adds up.  Internal to libshardcheck;
 * tested by check_plan.c (hand-computed values) and through the
 * redistribute-plan family against torch.
 */
#ifndef SHC_COST_MODEL_H
#define SHC_COST_MODEL_H
#include "shardcheck.h"

/* MeshTopoInfo: per mesh dim device count, bandwidth (GB/s), latency (us). */
typedef struct shc_topo {
    int ndim;
    int64_t devices[SHC_MAX_MESH_DIMS];
    double bandwidth[SHC_MAX_MESH_DIMS];
    double latency[SHC_MAX_MESH_DIMS];
} shc_topo;

/* MeshTopoInfo.build_from_mesh with num_devices_per_host devices on a host. */
void shc_topo_build(const shc_mesh *m, int64_t devices_per_host, shc_topo *t);
/* allgather_cost / allreduce_cost / reduce_scatter_cost in microseconds. */
double shc_cost_allgather(double bytes_gb, const shc_topo *t, int mesh_dim);
double shc_cost_allreduce(double bytes_gb, const shc_topo *t, int mesh_dim);
double shc_cost_reduce_scatter(double bytes_gb, const shc_topo *t, int mesh_dim);
/* spec_to_bytes / num_shards / 1024 / 1024 / 1024, evaluated as torch does (Python's
 * correctly rounded int / int): of numel elements of itemsize bytes (1..16), so that no
 * product overflows; shc_cost_bytes_gb of a byte count. */
double shc_cost_gb_of(int64_t numel, int64_t itemsize, int64_t num_shards);
double shc_cost_bytes_gb(int64_t bytes, int64_t num_shards);
/* _compute_placement_transition_cost's cost for mesh dim d at comm_bytes_gb. */
double shc_cost_transition(const shc_placement *a, const shc_placement *b, const shc_topo *t,
                           int d, double bytes_gb);
/* The same, with *bytes_gb updated as torch updates comm_bytes_gb for the next step (an
 * all-gather multiplies it by the dim's devices, a reduce-scatter or R -> S divides). */
double shc_cost_transition_step(const shc_placement *a, const shc_placement *b,
                                const shc_topo *t, int d, double *bytes_gb);

#endif
