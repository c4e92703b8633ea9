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
    const shc_jframe *f = &k->f[k->nf - 1];
    if (k->n - f->start < SHC_JKEYS_LINEAR) /* more keys: checked sorted, at the close */
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

static int cmp_key(const void *a, const void *b, void *ctx)
{
    shc_span x = name_of(ctx, *(const shc_jkey *)a), y = name_of(ctx, *(const shc_jkey *)b);
    int c = memcmp(x.p, y.p, x.n < y.n ? x.n : y.n);
    return c ? c : (x.n > y.n) - (x.n < y.n);
}

int shc_jkeys_close_sorted(shc_jkeys *k)
{
    const shc_jframe *f = &k->f[k->nf - 1];
    size_t m = k->n - f->start;
    shc_jkey *v = k->v + f->start;
    int rc = 0;
    qsort_r(v, m, sizeof *v, cmp_key, k);
    for (size_t i = 1; i < m && !rc; i++)
        if (same_name(name_of(k, v[i - 1]), name_of(k, v[i])))
            rc = SHC_SCAN_UNSURE;
    shc_jkeys_drop(k);
    return rc;
}
