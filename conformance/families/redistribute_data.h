/*
 * redistribute_data.h — what the redistribute-data family's two files share: the family's
 * tables and record (redistribute_data.c) and its execution on every kind of executor
 * (redistribute_data_exec.c), whose hooks the record points at.
 */
#ifndef SHC_REDISTRIBUTE_DATA_H
#define SHC_REDISTRIBUTE_DATA_H
#include "families.h"
#include "redistribute_exec.h"

/* A case's inputs (group params + test) as an executable case. */
int shcrd_xcase_from_json(const json_t *group, const json_t *test, shc_xcase *x, shc_err *e);
/* One rank's view of a result: {"localShape", "sha256", "values" (the first few elements)}. */
json_t *shcrd_view(const shc_xtensor *t);
/* Add "oracleMismatch" to view where rank's result differs from the global tensor's slice. */
void shcrd_oracle_note(const shc_xcase *x, int64_t rank, const shc_xtensor *got, json_t *view);

/* The record's hooks (family.h says what each does). */
int shcrd_exec_simulated(const json_t *group, const json_t *test, int64_t world, json_t **views,
                         shc_err *e);
int shcrd_exec_over_comm(shc_comm *comm, const json_t *group, const json_t *test, int64_t rank,
                         json_t **view, shc_err *e);
int shcrd_exec_on_device_comm(shc_dexec_fn dexec, struct shc_dcomm *dc, const json_t *group,
                              const json_t *test, int64_t rank, json_t **view, shc_err *e);
int shcrd_exec_outside(shc_xexec_fn exec, void *ctx, const json_t *group, const json_t *test,
                       int64_t rank, json_t **view, shc_err *e);
int shcrd_abi_v1_views(const shc_backend_v1 *be, const json_t *group, const json_t *test,
                       int64_t world, json_t **views, shc_err *e);
#endif
