/* shard_layout.c — STUB family (layout/groups area will replace). */
#include "config.h"
#include "families.h"
static int gen(shc_gw *w, shc_err *e) { return shc_fail(e, SHC_EINTERNAL, "not implemented"); }
const shc_family shc_family_shard_layout = { "shard-layout", "pytorch", "2.13.0", "stub", gen, NULL, NULL };
