/* groups.c — STUB (layout/groups area will replace). */
#include "config.h"
#include "shardcheck.h"
int shc_groups_for_axes(const shc_mesh *m, const int *axes, int naxes, shc_groups *out, shc_err *e)
{ return shc_fail(e, SHC_EINTERNAL, "not implemented"); }
int64_t shc_groups_find(const shc_groups *g, int64_t rank) { return -1; }
void shc_groups_free(shc_groups *g) {}
