/*
 * redistribute_exec.h — internals of plan execution shared with the
 * runner, the plugin loader and the tests (public entry points are in
 * shardcheck.h's execution section).  Implemented in redistribute_exec.c,
 * tested by conformance/tests/check_exec.c.
 */
#ifndef SHC_REDISTRIBUTE_EXEC_H
#define SHC_REDISTRIBUTE_EXEC_H
#include "shardcheck.h"
#include "plan_internal.h"
#include "comm.h"

/* out = in with dim d re-indexed: out[.., j, ..] = in[.., idx[j], ..], zero where idx[j] < 0. */
int shc_xt_gather_dim(const shc_xtensor *in, int d, const int64_t *idx, int64_t nidx,
                      shc_xtensor *out, shc_err *e);
/* Positions of shard k of a dim of `size` under _S(sf) over n chunks (out may be NULL);
 * returns how many. */
int64_t shc_strided_positions(int64_t size, int64_t sf, int64_t n, int64_t k, int64_t *out);
/* The steps' shared arithmetic (also used by redistribute_dev.c, the device executor). */
/* outer = product of dims before d, inner = product of dims after d. */
void shc_xt_dims_split(const shc_shape *s, int d, int64_t *outer, int64_t *inner);
/* torch.chunk of `size` into n: chunk k's start and length (empty past the end). */
void shc_xt_chunk_of(int64_t size, int64_t n, int64_t k, int64_t *start, int64_t *len);
/* The group a step's collective runs over, as this rank sees it. */
typedef struct shc_xgroup {
    int64_t *ranks; /* owned: free() */
    int n, pos;     /* group size, this rank's position in it */
} shc_xgroup;
/* The group of c's rank along the step's mesh dim(s); g->ranks is malloc'd. */
int shc_xt_step_group(shc_comm *c, const shc_xcase *x, const shc_plan_step *st, shc_xgroup *g,
                      shc_err *e);
#endif
