/*
 * golden_index.c — loading a golden family for verify without building its trees.
 *
 * verify needs every test's tcId and, for most tests, nothing but the bytes of its
 * "expected" value (a candidate that repeats them byte for byte is JSON-equal).
 * So each file is mapped (json_map.c: its pages are not held resident), scanned
 * (json_scan.c; trusted, its values skipped by brackets, when the file is one of this
 * build's corpus, golden_trust.c) and checked by the rules of golden_load.c's check_root; the tests stay
 * bytes until shc_golden_test parses one (and shc_golden_test_done frees it again).  Anything unusual (a failed check, input the scanner is unsure of) sends the
 * family through shc_golden_load_family, the one place that words the errors, so
 * messages and exit codes are those of the tree loader.  Tested by verify_fast.sh.
 */
#include "config.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <assert.h>
#include <string.h>
#include "golden.h"

/* A scanned test waiting for the index. */
typedef struct irec { int64_t tcid; shc_gtext text; } irec;

typedef struct iload {
    irec *v;
    int64_t n, cap;
    shc_ggroup *gv; /* the groups so far: a test's group is the next one to be added */
    int64_t ng, gcap;
    json_t *notes; /* the current file's notes (flags must be declared there) */
    bool bad;      /* a check failed: the tree loader words it */
    /* The current file's distinct "flags" texts (shard-layout's 31,842 tests hold 241), so
     * file_ok looks each list up in notes once, not once per test (a tenth of verify's
     * CPU): an open-addressed set of spans, at most half full. */
    shc_span *flagsets;
    size_t nflagsets, fcap;
} iload;

/* A test's "tolerance" as golden_load.c's check_test has it (the tree loader words it). */
static bool tolerance_ok(shc_span text)
{
    json_error_t je;
    json_t *t = shc_json_loadb(text.p, text.n, &je);
    char why[200];
    bool ok = t && shc_tolerance_check(t, why, sizeof why);
    json_decref(t);
    return ok;
}

/* Room for one more element in *v (n used of *cap, doubling from first); false when out of memory. */
static bool grow(void **v, int64_t n, int64_t *cap, int64_t first, size_t size)
{
    if (n < *cap)
        return true;
    int64_t c = *cap ? 2 * *cap : first;
    void *nv = realloc(*v, (size_t)c * size);
    if (!nv)
        return false;
    *v = nv;
    *cap = c;
    return true;
}

/* FNV-1a: the flag lists differ in their words, so any spread hash will do. */
static size_t span_hash(shc_span s)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < s.n; i++)
        h = (h ^ (unsigned char)s.p[i]) * 0x100000001b3ULL;
    return (size_t)h;
}

/* Puts flags in the set unless bytes equal to it are there already (equal bytes, equal
 * strings); false when memory is short. */
static bool note_flagset(iload *L, shc_span flags)
{
    if (2 * (L->nflagsets + 1) > L->fcap) { /* rehash into twice the slots */
        size_t cap = L->fcap ? 2 * L->fcap : 512;
        shc_span *nv = calloc(cap, sizeof *nv), *old = L->flagsets;
        if (!nv)
            return false;
        for (size_t i = 0; i < L->fcap; i++)
            if (old[i].p)
                for (size_t k = span_hash(old[i]) & (cap - 1);; k = (k + 1) & (cap - 1))
                    if (!nv[k].p) {
                        nv[k] = old[i];
                        break;
                    }
        free(old);
        L->flagsets = nv, L->fcap = cap;
    }
    size_t k = span_hash(flags) & (L->fcap - 1);
    for (; L->flagsets[k].p; k = (k + 1) & (L->fcap - 1))
        if (L->flagsets[k].n == flags.n && !memcmp(L->flagsets[k].p, flags.p, flags.n))
            return true;
    L->flagsets[k] = flags;
    L->nflagsets++;
    return true;
}

/* One test: the checks of check_test (golden_load.c), else bad. */
static int on_test(void *ctx, const shc_scan_test *t)
{
    iload *L = ctx;
    if (!t->is_object || !t->has_tcid || t->tcid < 1 || !t->expected.p || *t->expected.p != '{' ||
        !(shc_span_is(t->result, "valid") || shc_span_is(t->result, "invalid") ||
          shc_span_is(t->result, "acceptable")) || !t->flags.p || *t->flags.p != '[')
        return L->bad = true, 1;
    /* a "tolerance" has rules of its own (shc_tolerance_check): those few tests are parsed
     * and checked here (the bytes may hold the word elsewhere, which costs only a parse) */
    if (shc_span_has(t->text, "\"tolerance\"") && !tolerance_ok(t->text))
        return L->bad = true, 1;
    if (!grow((void **)&L->v, L->n, &L->cap, 1024, sizeof *L->v))
        return L->bad = true, 1;
    if (!note_flagset(L, t->flags))
        return L->bad = true, 1;
    L->v[L->n++] = (irec){t->tcid, {t->text, t->expected, t->flags,
                                    shc_span_is(t->result, "invalid"), L->ng}};
    shc_map_touched(t->text.n); /* the pages behind are dropped, the spans stay valid */
    return 0;
}

/* A group, after its tests: its spans, for shc_golden_group. */
static int on_group(void *ctx, size_t gi, shc_span group, shc_span tests)
{
    iload *L = ctx;
    (void)gi;
    if (!grow((void **)&L->gv, L->ng, &L->gcap, 64, sizeof *L->gv))
        return L->bad = true, 1;
    L->gv[L->ng++] = (shc_ggroup){group, tests};
    return 0;
}

static bool flag_declared(void *ctx, shc_span s)
{
    char name[256];
    if (s.n >= sizeof name)
        return false;
    memcpy(name, s.p, s.n);
    name[s.n] = '\0';
    return json_object_get(ctx, name) != NULL;
}

/* The file-level checks of check_root on a scanned document; tests [first, L->n) are
 * this file's. */
static bool file_ok(iload *L, const shc_scan_doc *d, const char *family, int64_t first)
{
    char schema[160];
    int64_t count = 0;
    snprintf(schema, sizeof schema, "%s_v1.json", family);
    if (!d->family.p || !d->schema.p || !shc_span_is(d->family, family) ||
        !shc_span_is(d->schema, schema) || !d->notes.p || *d->notes.p != '{' ||
        !d->test_groups.p || *d->test_groups.p != '[' || !d->groups_ok ||
        !shc_span_int(d->number_of_tests, &count) || count != L->n - first)
        return false;
    json_error_t je;
    L->notes = shc_json_loadb(d->notes.p, d->notes.n, &je);
    bool ok = L->notes != NULL;
    for (size_t i = 0; ok && i < L->fcap; i++)
        if (L->flagsets[i].p) {
            ok = shc_span_each_string(L->flagsets[i], flag_declared, L->notes);
            shc_map_touched(L->flagsets[i].n); /* its page was faulted in again */
        }
    json_decref(L->notes);
    L->notes = NULL;
    return ok;
}

static int cmp_irec(const void *a, const void *b)
{
    int64_t x = ((const irec *)a)->tcid, y = ((const irec *)b)->tcid;
    return (x > y) - (x < y);
}

/* Sorted by tcId into g; false on a repeated tcId (the tree loader words it). */
static bool build_index(shc_golden *g, iload *L)
{
    qsort(L->v, (size_t)L->n, sizeof *L->v, cmp_irec);
    size_t n = (size_t)(L->n ? L->n : 1);
    g->ntests = L->n;
    g->tcids = malloc(n * sizeof *g->tcids);
    g->text = malloc(n * sizeof *g->text);
    g->tests = calloc(n, sizeof *g->tests);
    if (!g->tcids || !g->text || !g->tests)
        return false;
    for (int64_t i = 0; i < L->n; i++) {
        if (i && L->v[i].tcid == L->v[i - 1].tcid)
            return false;
        g->tcids[i] = L->v[i].tcid;
        g->text[i] = L->v[i].text;
    }
    return true;
}

/* Map and scan one file into g and L; false when the tree loader must take over. */
static bool index_file(shc_golden *g, iload *L, const char *path, const char *family)
{
    size_t k = (size_t)g->nfiles + 1;
    shc_map *nm = realloc(g->maps, k * sizeof *nm);
    if (nm)
        g->maps = nm;
    char **np = nm ? realloc(g->paths, k * sizeof *np) : NULL;
    if (np)
        g->paths = np;
    shc_span *nn = np ? realloc(g->fnotes, k * sizeof *nn) : NULL;
    if (!nn)
        return false;
    g->fnotes = nn;
    shc_map *m = &g->maps[g->nfiles];
    if (shc_map_path(m, path, NULL))
        return false;
    g->paths[g->nfiles] = strdup(path);
    g->nfiles++;
    int64_t first = L->n;
    if (L->fcap) /* notes, and so the flag lists, are per file */
        memset(L->flagsets, 0, L->fcap * sizeof *L->flagsets);
    L->nflagsets = 0;
    shc_scan_doc doc;
    bool ok = g->paths[g->nfiles - 1] &&
              shc_scan_golden_groups(m->p, m->n, &doc, on_test, on_group, shc_golden_vouched(path),
                                     L) == 0 && !L->bad &&
              file_ok(L, &doc, family, first);
    g->fnotes[g->nfiles - 1] = ok ? doc.notes : (shc_span){0};
    return ok;
}

int shc_golden_file_of(const shc_golden *g, int64_t i)
{
    if (i < 0 || i >= g->ntests)
        return -1;
    for (int f = 0; f < g->nfiles; f++) {
        if (g->text) { /* the index: the file whose bytes hold the test's */
            const char *p = g->text[i].test.p;
            if (p >= g->maps[f].p && p < g->maps[f].p + g->maps[f].n)
                return f;
            continue;
        }
        size_t k;
        json_t *grp;
        json_array_foreach(json_object_get(g->roots[f], "testGroups"), k, grp)
            if (grp == g->groups[i])
                return f;
    }
    return -1;
}

/* File f's notes object: the tree's, or parsed from the index's bytes on first use. */
static json_t *notes_of(const shc_golden *g, int f)
{
    if (!g->text)
        return json_object_get(g->roots[f], "notes");
    if (!g->ntree[f]) { /* the cache; the pointer array itself is not const */
        json_error_t je;
        g->ntree[f] = shc_json_loadb(g->fnotes[f].p, g->fnotes[f].n, &je);
        if (!g->ntree[f]) { /* file_ok parsed these very bytes: only memory can be short */
            fprintf(stderr, "shardcheck: golden %s: notes: %s\n", g->paths[f], je.text);
            exit(99);
        }
    }
    return g->ntree[f];
}

const char *shc_golden_note(const shc_golden *g, const char *flag)
{
    for (int f = 0; f < g->nfiles; f++) {
        const char *s = json_string_value(json_object_get(notes_of(g, f), flag));
        if (s)
            return s;
    }
    return NULL;
}

json_t *shc_golden_group(const shc_golden *g, int64_t i)
{
    if (!g->text)
        return g->groups[i];
    int64_t k = g->text[i].group;
    assert(k >= 0 && k < g->ngroups);
    if (g->gtree[k])
        return g->gtree[k];
    /* the group's bytes with its tests (parsed one by one) left out: "tests": [] */
    shc_span t = g->gtext[k].text, ts = g->gtext[k].tests;
    size_t head = (size_t)(ts.p - t.p), tail = t.n - head - ts.n;
    char *buf = malloc(head + 2 + tail);
    json_error_t je = {.text = "out of memory"};
    json_t *grp = NULL;
    if (buf) {
        memcpy(buf, t.p, head);
        memcpy(buf + head, "[]", 2);
        memcpy(buf + head + 2, ts.p + ts.n, tail);
        grp = shc_json_loadb(buf, head + 2 + tail, &je);
        free(buf);
    }
    if (!grp) { /* the bytes scanned as JSON: only memory can be short here */
        fprintf(stderr, "shardcheck: golden tcId %lld's group: %s\n", (long long)g->tcids[i],
                je.text);
        exit(99);
    }
    g->gtree[k] = grp; /* the cache; the pointer array itself is not const */
    return grp;
}

int shc_golden_index_family_at(shc_golden *g, const char *dir, const char *family,
                               shc_torch_release r, shc_err *e)
{
    if (shc_torch_norm(r) != SHC_TORCH_PIN_RELEASE)
        return shc_golden_load_family_at(g, dir, family, r, e);
    return shc_golden_index_family(g, dir, family, e);
}

int shc_golden_index_family(shc_golden *g, const char *dir, const char *family, shc_err *e)
{
    memset(g, 0, sizeof *g);
    snprintf(g->family, sizeof g->family, "%s", family);
    char fdir[4096], *names[SHC_MAX_GOLDEN_FILES];
    snprintf(fdir, sizeof fdir, "%s/%s", dir, family);
    int n = 0;
    bool ok = shc_golden_list_family(fdir, family, names, &n, NULL) == SHC_OK;
    iload L = {0};
    for (int i = 0; i < n; i++) {
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", fdir, names[i]);
        ok = ok && index_file(g, &L, path, family);
        free(names[i]);
    }
    ok = ok && build_index(g, &L);
    free(L.v);
    free(L.flagsets);
    g->gtext = L.gv;
    g->ngroups = L.ng;
    if (ok)
        ok = (g->gtree = calloc((size_t)(L.ng ? L.ng : 1), sizeof *g->gtree)) != NULL;
    if (ok)
        ok = (g->roots = calloc((size_t)g->nfiles, sizeof *g->roots)) != NULL;
    if (ok)
        ok = (g->ntree = calloc((size_t)(g->nfiles ? g->nfiles : 1), sizeof *g->ntree)) != NULL;
    if (ok)
        return SHC_OK;
    shc_golden_free(g);
    return shc_golden_load_family(g, dir, family, e);
}
