/*
 * redistribute_exec.h — internals of plan execution shared with the
 * runner, the plugin loader and the tests (public entry points are in
 * shardcheck.h's execution section).  Implemented in redistribute_exec.c,
 * tested by conformance/tests/check_exec.c.
 */
#ifndef SHC_REDISTRIBUTE_EXEC_H
#define SHC_REDISTRIBUTE_EXEC_H
#include "shardcheck.h"
#include "plan.h"
#include "comm.h"

/* out = in with dim d re-indexed: out[.., j, ..] = in[.., idx[j], ..], zero where idx[j] < 0. */
int shc_xt_gather_dim(const shc_xtensor *in, int d, const int64_t *idx, int64_t nidx,
                      shc_xtensor *out, shc_err *e);
/* Positions of shard k of a dim of `size` under _S(sf) over n chunks (out may be NULL);
 * returns how many. */
int64_t shc_strided_positions(int64_t size, int64_t sf, int64_t n, int64_t k, int64_t *out);
#endif
