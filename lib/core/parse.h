/*
 * parse.h — strict parsing of the CLI/table syntax shared by every command:
 * integer lists ("8,16", "3,1,2,0") and mesh shapes ("2x2x2").
 * Internal to libshardcheck; tested through check_core.c.
 */
#ifndef SHC_PARSE_H
#define SHC_PARSE_H
#include <stdint.h>
#include "shardcheck.h"

/* Parse one decimal int64 at *p (optional leading '-'); advances *p.
 * what names the field for error messages. */
int shc_parse_i64(const char **p, int64_t *out, const char *what, shc_err *e);
/* Parse a sep-separated list of int64 into a malloc'd array (*out, *n).
 * An empty string gives n = 0.  Whitespace around items is allowed. */
int shc_parse_i64_list(const char *s, char sep, int64_t **out, int64_t *n,
                       const char *what, shc_err *e);
#endif
