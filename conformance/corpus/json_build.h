/*
 * json_build.h — a jansson tree built straight from a common kind of JSON text, without
 * jansson's lexer: objects, arrays, strings of printable ASCII without escapes, integers of at
 * most 18 digits, true, false and null.  Anything else (an escape, a byte outside printable
 * ASCII, a real, a long integer, a repeated key, a malformed text) gives NULL, and the caller
 * parses with shc_json_loadb as before, which words any error.  What it builds is the tree
 * shc_json_loadb builds of the same bytes, keys in the same order.  The runner's workers read
 * each case's test this way (run_lean.c): json_loadb was a sixth of `run --backend ref` and
 * of every mpi process.  Tested by check_json_build (every golden test, and random texts of
 * every token kind, against shc_json_loadb).
 */
#ifndef SHC_JSON_BUILD_H
#define SHC_JSON_BUILD_H
#include <jansson.h>
#include <stddef.h>

/* The tree of buf[0, n) (an object or an array at the top, as json_loadb without
 * JSON_DECODE_ANY), or NULL when the text is outside the kinds above or not JSON. */
json_t *shc_json_build(const char *buf, size_t n);
#endif
