/*
 * groups.h — process-group rank lists beyond shardcheck.h: seed 002's rank
 * lists for mesh axes (hyper_parallel hsdp_utils) and its HSDP groups
 * (hsdp_param.py _init_group_infos).  Implemented in groups.c, tested by
 * conformance/tests/check_layout.c and the group-ranks golden family.
 */
#ifndef SHC_GROUPS_H
#define SHC_GROUPS_H
#include "shardcheck.h"

/* Normalise seed-002 axes: sorted, duplicates dropped (its sorted(set(axes)));
 * out-of-range axes are an error here (the seed ignores them silently). */
int shc_axes_normalize(const shc_mesh *m, const int *axes, int naxes, int *out, int *nout,
                       shc_err *e);
/* Seed 002 get_rank_list_for_axes(mesh, axes, rank): the ranks varying along
 * axes with the other coordinates of rank fixed, in mesh order; [rank] when
 * axes is empty.  *out is malloc'd (n entries). */
int shc_rank_list_for_axes(const shc_mesh *m, const int *axes, int naxes, int64_t rank,
                           int64_t **out, int64_t *n, shc_err *e);
/* Seed 002 get_split_rank_lists_for_axes(mesh, axes): every such list, the
 * complementary coordinates enumerated row-major; ONE list of every rank in
 * mesh order when axes is empty (unlike the rank list's [rank]). */
int shc_split_rank_lists_for_axes(const shc_mesh *m, const int *axes, int naxes,
                                  shc_groups *out, shc_err *e);

/* Seed 002 HSDP groups of one rank. */
typedef struct shc_hsdp {
    bool sharded_valid;     /* false: "fully_shard_sharded_group_invalid", size 1 */
    int64_t shard_size;     /* sharded group size (1 when invalid) */
    int64_t *sharded;       /* sorted ranks along the shard mesh dim (communicator order) */
    bool unsharded_valid;   /* false: "fully_shard_unsharded_group_invalid", size 1 */
    int64_t dp_size;        /* unsharded group size (1 when invalid) */
    int64_t *unsharded;     /* sorted ranks over the Replicate axes minus the shard dim */
    int64_t rank_size;      /* max(1, shard_size * dp_size) */
} shc_hsdp;

/* HSDP groups of rank for a final SPMD layout pl on m; shard_dim is the FSDP
 * shard mesh dim, or -1 when the parameter is not sharded. */
int shc_hsdp_groups(const shc_mesh *m, const shc_placements *pl, int shard_dim, int64_t rank,
                    shc_hsdp *out, shc_err *e);
/* Free the lists in an shc_hsdp. */
void shc_hsdp_free(shc_hsdp *h);
#endif
