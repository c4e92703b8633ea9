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
#include "golden.h"

/* out = in with dim d re-indexed: out[.., j, ..] = in[.., idx[j], ..], zero where idx[j] < 0. */
int shc_xt_gather_dim(const shc_xtensor *in, int d, const int64_t *idx, int64_t nidx,
                      shc_xtensor *out, shc_err *e);
/* Positions of shard k of a dim of `size` under _S(sf) over n chunks (out may be NULL);
 * returns how many. */
int64_t shc_strided_positions(int64_t size, int64_t sf, int64_t n, int64_t k, int64_t *out);
/* Execute one step in place on t. */
int shc_exec_step(shc_comm *c, const shc_xcase *x, const shc_plan_step *st, shc_xtensor *t,
                  shc_err *e);
/* Execute a whole plan: *out is a new tensor. */
int shc_exec_plan(shc_comm *c, const shc_xcase *x, const shc_plan *plan, const shc_xtensor *in,
                  shc_xtensor *out, shc_err *e);
/* The plan a rank executes for case x (the case's planner, its dtype's size). */
int shc_exec_plan_for(const shc_xcase *x, int64_t rank, shc_plan *plan, shc_err *e);
/* One rank's redistribute-data view of a result: {"localShape", "sha256", "values"
 * (the first SHC_RDATA_NVALUES elements, numbers)}. */
#define SHC_RDATA_NVALUES 4
json_t *shc_rdata_view(const shc_xtensor *t);
/* A case from a golden group ("mesh", "rankMap") and test ("src", "dst", "shape", "dtype",
 * "planner"). */
int shc_xcase_from_json(const json_t *group, const json_t *test, shc_xcase *x, shc_err *e);
/* Compare rank's result with the oracle (testdata.c); on a difference add
 * "oracleMismatch": "rank R: element i (bytes a..b) is X, the global tensor has Y". */
void shc_rdata_oracle_note(const shc_xcase *x, int64_t rank, const shc_xtensor *got,
                           json_t *view);
#endif
