/*
 * json_skip.h — JSON skipped by its structure alone, 64 bytes at a time: which bytes of a
 * block are quotes, backslashes and brackets (the widest vector unit the CPU has, a byte
 * loop elsewhere: json_skip.c), which lie inside strings, and where a container closes.
 * Nothing is validated: the callers skip bytes that are known to be JSON (a golden file
 * whose sha256 this build's tests checked, golden_trust.c) or that only need their top
 * level found (tools/common/torch_version.c).  Tested by check_golden_trust (every variant
 * against jansson's text on random documents) and check_torch_version.
 */
#ifndef SHC_JSON_SKIP_H
#define SHC_JSON_SKIP_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One past the bracket that closes the container opening at p ('[' or '{'), or NULL when
 * it does not close before end.  The bytes are taken to be JSON (see above). */
const char *shc_skip_container(const char *p, const char *end);

/* The same skip in pieces, so a reader can let the bytes behind it go (json_map.c's window):
 * s starts zeroed with p at the opening bracket; each call goes on from where the last one
 * ended (its end is the next call's p) and gives one past the closing bracket, or NULL with
 * s kept for the next piece. */
typedef struct shc_skip { int depth; bool in_str, esc; } shc_skip;
const char *shc_skip_on(shc_skip *s, const char *p, const char *end);

/* The ways a block's masks are made, narrowest first: the target's baseline (SSE2 on
 * x86-64, a byte loop elsewhere), the same with the POPCNT instruction, AVX2 (x86-64 built
 * by GCC).  shc_skip_container is the widest this CPU runs; shc_skip_variant_fn gives
 * one by name, NULL where this CPU or build lacks it (check_golden_trust holds each to the
 * same answers). */
typedef enum shc_skip_variant {
    SHC_SKIP_PORTABLE, SHC_SKIP_POPCNT, SHC_SKIP_AVX2
} shc_skip_variant;
typedef const char *(*shc_skip_fn)(shc_skip *s, const char *p, const char *end);
shc_skip_fn shc_skip_variant_fn(shc_skip_variant v);
#endif
