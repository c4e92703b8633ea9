/*
 * view_internal.h — what the view-op files share inside lib/layout (not installed): the
 * per-release pieces of the rule (view_rule.c, view_rule_legacy.c).
 */
#ifndef SHC_VIEW_INTERNAL_H
#define SHC_VIEW_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "shardcheck.h"

/* Whether release rel registers the map's op with strict_view (*asked |= the row read). */
bool shc_vrule_strict(const shc_vmap *map, shc_torch_release rel, uint32_t *asked);
/* torch 2.11's one-pass rule (view_rule_legacy.c); false with r->raises where it raises. */
bool shc_vrule_legacy(const shc_vmap *map, const shc_shape *in, const shc_mesh *m,
                      const shc_placements *src, bool strict, shc_vrule *r);
/* A split's group_shape as Python prints the tuple: "(3, 2)", "(6,)". */
void shc_vgroup_format(const shc_vspec *s, char *buf, size_t n);

#endif
