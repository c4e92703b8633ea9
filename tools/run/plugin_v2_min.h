/*
 * plugin_v2_min.h — a stand-in ABI v2 loader and case reader for plugin_comm.c until the
 * full ones (branch abi2) land; see plugin_v2_min.c.  Tested by plugin_comm.sh.
 */
#ifndef SHC_PLUGIN_V2_MIN_H
#define SHC_PLUGIN_V2_MIN_H
#include <jansson.h>
#include "shardcheck.h"
#include "shardcheck_backend.h"

/* The v2 table of an opened library whose shardcheck_backend_abi() said 2. */
int plugin_min_open_v2(void *dl, const char *path, const shc_backend_v2 **out, shc_err *e);
/* The case reader (put_* refuse: answers are not written here). */
const shc_host_v2 *plugin_min_host(void);
/* The case object (family, torch release name, group, test, world); NULL with e. */
shc_case_v2 *plugin_min_case_new(const char *family, const char *torch, const json_t *group,
                                 const json_t *test, int64_t world, shc_err *e);
void plugin_min_case_free(shc_case_v2 *c);
#endif
