/*
 * json_keys.c — repeated object keys (json_keys.h), as jansson's JSON_REJECT_DUPLICATES
 * sees them: equal decoded bytes.  Tested by check_golden_bytes (the scanner against
 * jansson with the flag), verify_fast.sh and the verify_diff fuzz target.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "json_keys.h"
#include "json_lex.h"

#define IN_ARENA 0x80000000u

void shc_jkeys_init(shc_jkeys *k, const char *base)
{
    memset(k, 0, sizeof *k);
    k->base = base;
}

void shc_jkeys_free(shc_jkeys *k)
{
    while (k->nf) /* the objects a failed scan left open */
        shc_jkeys_drop(k);
    free(k->v);
    free(k->arena);
    free(k->f);
    memset(k, 0, sizeof *k);
}

static bool room(void **v, size_t need, size_t *cap, size_t size)
{
    if (need <= *cap)
        return true;
    size_t nc = *cap ? *cap : 64;
    while (nc < need)
        nc *= 2;
    void *nv = realloc(*v, nc * size);
    if (!nv)
        return false;
    *v = nv;
    *cap = nc;
    return true;
}

bool shc_jkeys_grow_frames(shc_jkeys *k)
{
    return room((void **)&k->f, k->nf + 1, &k->fcap, sizeof *k->f);
}

static shc_span name_of(const shc_jkeys *k, shc_jkey r)
{
    size_t n = r.len & ~IN_ARENA;
    return (shc_span){(r.len & IN_ARENA ? k->arena : k->base) + r.off, n};
}

static bool same_name(shc_span a, shc_span b)
{
    return a.n == b.n && !memcmp(a.p, b.p, a.n);
}

/* FNV-1a of a key's bytes. */
static uint64_t hash_of(shc_span s)
{
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < s.n; i++)
        h = (h ^ (unsigned char)s.p[i]) * 1099511628211u;
    return h;
}

/* Key v[at] into frame f's table: false when the table holds an equal one. */
static bool tab_put(const shc_jkeys *k, shc_jframe *f, size_t at)
{
    shc_span name = name_of(k, k->v[at]);
    size_t mask = f->tcap - 1;
    for (size_t i = hash_of(name) & mask;; i = (i + 1) & mask) {
        uint32_t e = f->tab[i];
        if (!e) {
            f->tab[i] = (uint32_t)(at - f->start + 1);
            return true;
        }
        if (same_name(name_of(k, k->v[f->start + e - 1]), name))
            return false;
    }
}

/* Frame f's table sized for m keys (at most half full), its keys put again. */
static bool tab_fit(const shc_jkeys *k, shc_jframe *f, size_t m)
{
    if (f->tab && 2 * m <= f->tcap)
        return true;
    size_t cap = 4 * SHC_JKEYS_LINEAR;
    while (cap < 2 * m)
        cap *= 2;
    uint32_t *t = calloc(cap, sizeof *t);
    if (!t)
        return false;
    free(f->tab);
    f->tab = t;
    f->tcap = cap;
    for (size_t i = f->start; i < k->n; i++)
        tab_put(k, f, i); /* distinct already */
    return true;
}

int shc_jkeys_add(shc_jkeys *k, const char *raw, size_t n, bool plain, shc_span *name)
{
    shc_jkey r;
    if (n >= IN_ARENA || !room((void **)&k->v, k->n + 1, &k->cap, sizeof *k->v))
        return SHC_SCAN_UNSURE;
    if (plain) {
        r = (shc_jkey){(uint32_t)(raw - k->base), (uint32_t)n};
    } else {
        if (!room((void **)&k->arena, k->an + n, &k->acap, 1))
            return SHC_SCAN_UNSURE;
        size_t m = shc_lex_decode(raw, n, k->arena + k->an);
        r = (shc_jkey){(uint32_t)k->an, (uint32_t)m | IN_ARENA};
        k->an += m;
    }
    *name = name_of(k, r);
    shc_jframe *f = &k->f[k->nf - 1];
    size_t m = k->n - f->start;
    if (m >= SHC_JKEYS_LINEAR) { /* a large object: its table */
        if (m >= UINT32_MAX / 2 || !tab_fit(k, f, m + 1))
            return SHC_SCAN_UNSURE;
        k->v[k->n] = r;
        if (!tab_put(k, f, k->n))
            return SHC_SCAN_UNSURE;
        k->n++;
        return 0;
    }
    for (size_t i = f->start; i < k->n; i++) {
        shc_jkey o = k->v[i];
        if ((o.len & ~IN_ARENA) != name->n) /* the length, then the bytes */
            continue;
        const char *op = (o.len & IN_ARENA ? k->arena : k->base) + o.off;
        if (!name->n || (op[0] == name->p[0] && !memcmp(op, name->p, name->n)))
            return SHC_SCAN_UNSURE;
    }
    k->v[k->n++] = r;
    return 0;
}

