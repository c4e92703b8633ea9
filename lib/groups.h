/* groups.h — process-group rank lists beyond shardcheck.h (HSDP, split lists). Owned by the layout/groups area. */
#ifndef SHC_GROUPS_H
#define SHC_GROUPS_H
#include "shardcheck.h"
#endif
