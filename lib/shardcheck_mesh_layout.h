/*
 * shardcheck_mesh_layout.h — torch's layout algebra of DeviceMesh dims (installed;
 * shardcheck.h includes it): a dim as a CuTe-style (shape):(stride) layout over the root
 * mesh's ranks, as torch 2.13's _FlatLayout keeps it (torch/distributed/_mesh_layout.py),
 * with the operations DeviceMesh derives flattened and sliced dims' groups from.
 * Implemented in lib/layout/mesh_layout.c (which cites each rule); used by
 * `shardcheck mesh-layout`; tested by check_layout.c and, against torch's own _FlatLayout,
 * tools/harness/tests/test_mesh_layout.py.
 */
#ifndef SHARDCHECK_MESH_LAYOUT_H
#define SHARDCHECK_MESH_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
/* torch's CuTe-style layout of one DeviceMesh dim (_FlatLayout, mesh_layout.c): modes
 * (shape):(stride) in normal form, the last mode innermost; n 0 is the 0-d layout (). */
#define SHC_MAX_LAYOUT_MODES 16
typedef struct shc_flat_layout {
    int n;
    int64_t shape[SHC_MAX_LAYOUT_MODES], stride[SHC_MAX_LAYOUT_MODES];
} shc_flat_layout;
/* _FlatLayout(shape, stride): the normal form (coalesced, size-1 modes dropped). */
int shc_flat_layout_make(const int64_t *shape, const int64_t *stride, int n,
                         shc_flat_layout *out, shc_err *e);
int shc_flat_layout_numel(const shc_flat_layout *l, int64_t *out, shc_err *e);
int shc_flat_layout_cosize(const shc_flat_layout *l, int64_t *out, shc_err *e);
/* check_sorted: strides non-increasing. */
bool shc_flat_layout_sorted(const shc_flat_layout *l);
/* check_orthogonal; SHC_EINVAL with Python's ZeroDivisionError for a stride-0 mode. */
int shc_flat_layout_orthogonal(const shc_flat_layout *l, bool *out, shc_err *e);
/* complement(world); SHC_EINVAL with torch's AssertionError where modes overlap. */
int shc_flat_layout_complement(const shc_flat_layout *l, int64_t world, shc_flat_layout *out,
                               shc_err *e);
/* all_ranks_from_zero: *n ranks, malloc'd (the caller frees *ranks). */
int shc_flat_layout_ranks(const shc_flat_layout *l, int64_t **ranks, int64_t *n, shc_err *e);
/* The layout DeviceMesh slicing keeps for a root mesh's dims taken in the order given
 * (mesh[("d1", "d0")], and what _flatten of that slice flattens): torch 2.13 device_mesh.py
 * _get_slice_mesh_layout.  Refused as torch refuses, in its order, each error naming torch's
 * exception: a dim past the mesh (KeyError "Invalid mesh_dim_names"), dims whose layout is
 * not in descending stride order once size-1 dims drop out (KeyError "ascending order"),
 * a dim taken twice (RuntimeError "Slicing overlapping dim_names").  Size-1 dims may come
 * in any order or twice, as torch accepts them. */
int shc_mesh_slice_layout(const int64_t *mesh_shape, int ndim, const int *dims, int n,
                          shc_flat_layout *out, shc_err *e);

#ifdef __cplusplus
}
#endif

#endif /* SHARDCHECK_MESH_LAYOUT_H */
