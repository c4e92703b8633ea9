/* shard_layout.c — STUB (layout area will replace). */
#include "config.h"
#include "shardcheck.h"
int shc_shard_size_offset(int64_t size, int64_t nchunks, int64_t idx, int64_t *ls, int64_t *off, shc_err *e)
{ return shc_fail(e, SHC_EINTERNAL, "not implemented"); }
int shc_layout_compute(const shc_mesh *m, const shc_placements *pl, const shc_shape *g, const int64_t *c, shc_layout *o, shc_err *e)
{ return shc_fail(e, SHC_EINTERNAL, "not implemented"); }
void shc_layout_free(shc_layout *l) {}
