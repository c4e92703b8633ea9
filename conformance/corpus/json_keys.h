/*
 * json_keys.h — repeated object keys, found as jansson's JSON_REJECT_DUPLICATES finds them
 * (two keys of one object whose decoded bytes are equal), for the scanner (json_scan.c).
 * Internal to conformance/corpus.
 *
 * Why: jansson without that flag keeps the last of two equal keys, so a candidate could
 * carry a wrong answer and a right one under one key and pass (issue 27 N3).  verify loads
 * every file with the flag (golden_load.c), so the scanner must refuse the same files:
 * every key of every object it validates is checked against the object's others.
 *
 * The keys of the objects open at the cursor are a stack of (offset, length) records into
 * the scanned buffer, or into an arena for a key written with escapes (decoded there).
 * Each key is checked as it comes, as jansson checks it, so the scan stops where jansson
 * does (verify_scan.c words the error from there): against the object's keys one by one
 * while it has at most SHC_JKEYS_LINEAR, then through a hash table of the object's keys.
 * Memory: 8 bytes per key of the open objects, and 8 to 16 more in a large one.
 * Tested by check_golden_bytes, verify_fast.sh, the verify_diff fuzz target.
 */
#ifndef SHC_JSON_KEYS_H
#define SHC_JSON_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "json_scan.h"

#define SHC_JKEYS_LINEAR 16

typedef struct shc_jkey { uint32_t off, len; } shc_jkey; /* len's top bit: off is in the arena */
typedef struct shc_jframe {
    size_t start, astart;  /* the object's first key in v, its first byte in arena */
    uint32_t *tab;         /* past SHC_JKEYS_LINEAR keys: open addressing, key index + 1 */
    size_t tcap;           /* (a power of two) */
} shc_jframe;

typedef struct shc_jkeys {
    const char *base;           /* the scanned buffer (at most 2 GiB: offsets are 32-bit) */
    shc_jkey *v;                /* the keys of the open objects, innermost last */
    size_t n, cap;
    char *arena;                /* decoded escaped keys */
    size_t an, acap;
    shc_jframe *f;              /* one per open object */
    size_t nf, fcap;
} shc_jkeys;

void shc_jkeys_init(shc_jkeys *k, const char *base);
void shc_jkeys_free(shc_jkeys *k);
/* A key of the innermost object, raw[0, n) its contents as written (plain: no escape):
 * 0 with its decoded bytes in *name (valid until the next call), or SHC_SCAN_UNSURE when
 * the object holds it already (or memory is short). */
int shc_jkeys_add(shc_jkeys *k, const char *raw, size_t n, bool plain, shc_span *name);
bool shc_jkeys_grow_frames(shc_jkeys *k);

/* The innermost object ends (every key was checked as it came). */
static inline void shc_jkeys_drop(shc_jkeys *k)
{
    shc_jframe *f = &k->f[--k->nf];
    k->n = f->start;
    k->an = f->astart;
    if (f->tab) {
        free(f->tab);
        f->tab = NULL;
    }
}
static inline int shc_jkeys_close(shc_jkeys *k)
{
    shc_jkeys_drop(k);
    return 0;
}

/* An object begins.  false: out of memory.  (Inline: once per object the scan validates.) */
static inline bool shc_jkeys_open(shc_jkeys *k)
{
    if (k->nf == k->fcap && !shc_jkeys_grow_frames(k))
        return false;
    k->f[k->nf++] = (shc_jframe){k->n, k->an, NULL, 0};
    return true;
}

#endif
