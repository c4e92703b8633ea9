/*
 * golden.c — golden format v1: the writer and the loader (see golden.h).
 *
 * The writer keeps a family's files in memory and prints them with one test
 * per line: a regeneration then shows up in git as a per-test diff, and
 * `make check` can demand byte-identical output (jansson's object key order
 * is insertion order, so output is deterministic).  The loader validates the
 * structure every family shares — schema name, family, numberOfTests, unique
 * tcIds, declared flags, result values — and names the file and tcId of the
 * first problem; the per-family JSON Schemas are checked by the harness.
 * Tested by check_golden.c and golden_regen.sh (tampered, truncated and
 * duplicated inputs included).
 */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "golden.h"

typedef struct gw_file {
    char *stem;
    json_t *groups; /* array of group objects, each with "tests" */
} gw_file;

struct shc_gw {
    char *family, *source_name, *source_version;
    uint32_t releases; /* torch releases the files answer for (source.releases); 0: none */
    json_t *notes;
    gw_file *files;
    int nfiles, cap;
    int64_t ntests;
    void (*on_test)(void *ctx, int64_t count); /* progress (shc_gw_on_test) */
    void *on_test_ctx;
};

shc_gw *shc_gw_new(const char *family, const char *source_name, const char *source_version)
{
    shc_gw *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->family = strdup(family);
    w->source_name = strdup(source_name);
    w->source_version = strdup(source_version);
    w->notes = json_object();
    return w;
}

void shc_gw_free(shc_gw *w)
{
    if (!w)
        return;
    for (int i = 0; i < w->nfiles; i++) {
        free(w->files[i].stem);
        json_decref(w->files[i].groups);
    }
    free(w->files);
    json_decref(w->notes);
    free(w->family);
    free(w->source_name);
    free(w->source_version);
    free(w);
}

void shc_gw_note(shc_gw *w, const char *flag, const char *description)
{
    json_object_set_new(w->notes, flag, json_string(description));
}

void shc_gw_releases(shc_gw *w, uint32_t set) { w->releases = set; }

/* ---- answers by torch release ---- */

/* The note of a change's flag: what, which release, and torch's lines per release. */
static void note_change(shc_gw *w, shc_torch_change c)
{
    const shc_torch_change_info *ci = shc_torch_change_get(c);
    if (json_object_get(w->notes, ci->flag))
        return;
    char rel[64], buf[2048];
    shc_torch_set_format(ci->releases, rel, sizeof rel);
    snprintf(buf, sizeof buf, "Expected answer differs by torch release (byVersion; in %s): %s. "
             "torch source: %s.", rel, ci->what, ci->where);
    shc_gw_note(w, ci->flag, buf);
}

static bool same_answer(json_t *a, json_t *b)
{
    return json_equal(json_object_get(a, "result"), json_object_get(b, "result")) &&
           json_equal(json_object_get(a, "expected"), json_object_get(b, "expected"));
}

int shc_gw_test_by_release(shc_gw *w, json_t *t, shc_gw_answer_fn fn, void *ctx, shc_err *e)
{
    json_t *ans[SHC_TORCH_SLOTS] = {0};
    shc_gw_why why[SHC_TORCH_SLOTS] = {{0}};
    uint32_t changes[SHC_TORCH_SLOTS] = {0};
    int rc = SHC_OK;
    /* the pinned release first: a case it does not model is no test at all; then every
     * release in which a row the pinned answer asked holds otherwise (no other can differ) */
    for (int k = 0; k <= SHC_TORCH_SLOTS - SHC_TORCH_FIRST && !rc; k++) {
        int r = k ? SHC_TORCH_FIRST + k - 1 : SHC_TORCH_PIN_RELEASE;
        if (k && (r == SHC_TORCH_PIN_RELEASE || !(w->releases & SHC_TORCH_SET(r)) ||
                  !(why[SHC_TORCH_PIN_RELEASE].asked & shc_torch_differs((shc_torch_release)r))))
            continue;
        ans[r] = json_deep_copy(t);
        why[r].asked = SHC_GW_ASKED_ALL;
        rc = ans[r] ? fn(ctx, (shc_torch_release)r, ans[r], &why[r], e)
                    : shc_fail(e, SHC_ENOMEM, "golden writer: out of memory");
        changes[r] = why[r].changes;
        if (rc == SHC_EUNSUPPORTED && r == SHC_TORCH_PIN_RELEASE) {
            rc = SHC_OK; /* the pinned release does not model it: no test */
            goto out;
        }
        if (rc == SHC_EUNSUPPORTED) {
            char why[SHC_ERR_MAX];
            snprintf(why, sizeof why, "%s", e->msg);
            rc = shc_fail(e, SHC_EINTERNAL, "%s: torch %s: the case is not modelled in this "
                          "release (%s)", w->family, shc_torch_release_name((shc_torch_release)r),
                          why);
        }
    }
    json_t *top = ans[SHC_TORCH_PIN_RELEASE], *by = json_array();
    for (int r = SHC_TORCH_FIRST; r < SHC_TORCH_SLOTS && !rc; r++) {
        if (!ans[r] || r == SHC_TORCH_PIN_RELEASE || same_answer(ans[r], top))
            continue;
        uint32_t mine = changes[r] & ~changes[SHC_TORCH_PIN_RELEASE];
        if (!mine)
            rc = shc_fail(e, SHC_EINTERNAL, "%s: %s: torch %s answers otherwise than %s but no "
                          "modelled change (shc_torch_change) says why", w->family,
                          json_string_value(json_object_get(t, "comment")),
                          shc_torch_release_name((shc_torch_release)r),
                          shc_torch_release_name(SHC_TORCH_PIN_RELEASE));
        for (int c = 0; c < SHC_TC_SLOTS && !rc; c++)
            if (mine & (1u << c)) {
                note_change(w, (shc_torch_change)c);
                shc_test_flag(top, shc_torch_change_get((shc_torch_change)c)->flag);
            }
        size_t i;
        json_t *entry, *hit = NULL;
        json_array_foreach(by, i, entry)
            if (!hit && same_answer(entry, ans[r]))
                hit = entry;
        if (!hit) {
            hit = json_pack("{s:[],s:O,s:O}", "torch", "result", json_object_get(ans[r], "result"),
                            "expected", json_object_get(ans[r], "expected"));
            json_array_append_new(by, hit);
        }
        json_array_append_new(json_object_get(hit, "torch"),
                              json_string(shc_torch_release_name((shc_torch_release)r)));
    }
    if (!rc && json_array_size(by))
        json_object_set(top, "byVersion", by);
    json_decref(by);
    if (!rc) {
        ans[SHC_TORCH_PIN_RELEASE] = NULL;
        rc = shc_gw_test(w, top, e);
    }
out:
    for (int r = 0; r < SHC_TORCH_SLOTS; r++)
        json_decref(ans[r]);
    json_decref(t);
    return rc;
}

int shc_gw_file(shc_gw *w, const char *stem, shc_err *e)
{
    for (const char *p = stem; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '_'))
            return shc_fail(e, SHC_EINTERNAL, "golden file stem '%s': use [a-z0-9_-] only", stem);
    for (int i = 0; i < w->nfiles; i++)
        if (!strcmp(w->files[i].stem, stem))
            return shc_fail(e, SHC_EINTERNAL, "golden file stem '%s' used twice", stem);
    if (w->nfiles == w->cap) {
        int cap = w->cap ? 2 * w->cap : 8;
        gw_file *f = realloc(w->files, (size_t)cap * sizeof *f);
        if (!f)
            return shc_fail(e, SHC_ENOMEM, "golden writer: out of memory");
        w->files = f;
        w->cap = cap;
    }
    w->files[w->nfiles].stem = strdup(stem);
    w->files[w->nfiles].groups = json_array();
    w->nfiles++;
    return SHC_OK;
}

int shc_gw_group(shc_gw *w, json_t *params, shc_err *e)
{
    if (!params || !json_is_object(params)) {
        json_decref(params);
        return shc_fail(e, SHC_EINTERNAL, "golden writer: group parameters must be an object");
    }
    if (w->nfiles == 0) {
        int rc = shc_gw_file(w, w->family, e);
        if (rc) {
            json_decref(params);
            return rc;
        }
    }
    json_object_set_new(params, "tests", json_array());
    json_array_append_new(w->files[w->nfiles - 1].groups, params);
    return SHC_OK;
}

/* Check that every flag of a test is declared. */
static int check_flags(const shc_gw *w, json_t *test, shc_err *e)
{
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(test, "flags"), i, f) {
        if (!json_object_get(w->notes, json_string_value(f)))
            return shc_fail(e, SHC_EINTERNAL, "family %s: flag '%s' used but not declared",
                            w->family, json_string_value(f));
    }
    return SHC_OK;
}

int shc_gw_test(shc_gw *w, json_t *test, shc_err *e)
{
    if (w->nfiles == 0 || json_array_size(w->files[w->nfiles - 1].groups) == 0) {
        json_decref(test);
        return shc_fail(e, SHC_EINTERNAL, "golden writer: test added before any group");
    }
    int rc = check_flags(w, test, e);
    if (rc) {
        json_decref(test);
        return rc;
    }
    /* tcId goes first so that a line reads as "which case, then what". */
    json_t *t = json_object();
    json_object_set_new(t, "tcId", json_integer(++w->ntests));
    json_object_update(t, test);
    json_decref(test);
    json_t *groups = w->files[w->nfiles - 1].groups;
    json_t *g = json_array_get(groups, json_array_size(groups) - 1);
    json_array_append_new(json_object_get(g, "tests"), t);
    if (w->on_test)
        w->on_test(w->on_test_ctx, w->ntests);
    return SHC_OK;
}

int64_t shc_gw_count(const shc_gw *w) { return w->ntests; }

void shc_gw_on_test(shc_gw *w, void (*fn)(void *ctx, int64_t count), void *ctx)
{
    w->on_test = fn;
    w->on_test_ctx = ctx;
}

json_t *shc_test_new(const char *comment, const char *result)
{
    return json_pack("{s:s, s:[], s:s}", "comment", comment ? comment : "", "flags", "result",
                     result ? result : "valid");
}

void shc_test_flag(json_t *test, const char *flag)
{
    json_t *flags = json_object_get(test, "flags");
    size_t i;
    json_t *f;
    json_array_foreach(flags, i, f) {
        if (!strcmp(json_string_value(f), flag))
            return;
    }
    json_array_append_new(flags, json_string(flag));
}

size_t shc_i64_dec(int64_t v, char *buf)
{
    char d[SHC_I64_DEC_MAX], *p = d + sizeof d;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v; /* INT64_MIN's magnitude too */
    do
        *--p = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        *--p = '-';
    size_t n = (size_t)(d + sizeof d - p);
    memcpy(buf, p, n);
    return n;
}

json_t *shc_json_i64s(int64_t v)
{
    char buf[SHC_I64_DEC_MAX];
    return json_stringn_nocheck(buf, shc_i64_dec(v, buf)); /* ASCII digits */
}

json_t *shc_json_i64_array(const int64_t *v, int64_t n)
{
    json_t *a = json_array();
    for (int64_t i = 0; i < n; i++)
        json_array_append_new(a, json_integer(v[i]));
    return a;
}

/* ---- output ---- */

static int mkdir_p(const char *path, shc_err *e)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, 0755) && errno != EEXIST)
                return shc_fail(e, SHC_EIO, "mkdir %s: %s", buf, strerror(errno));
            *p = '/';
        }
    }
    if (mkdir(buf, 0755) && errno != EEXIST)
        return shc_fail(e, SHC_EIO, "mkdir %s: %s", buf, strerror(errno));
    return SHC_OK;
}

static int64_t file_ntests(const gw_file *f)
{
    int64_t n = 0;
    size_t i;
    json_t *g;
    json_array_foreach(f->groups, i, g) n += (int64_t)json_array_size(json_object_get(g, "tests"));
    return n;
}

/* Print value v compactly; returns -1 on failure. */
static int put_json(FILE *fp, json_t *v)
{
    return json_dumpf(v, fp, JSON_COMPACT | JSON_ENCODE_ANY);
}

static int write_file(const shc_gw *w, const gw_file *f, FILE *fp)
{
    char schema[160];
    snprintf(schema, sizeof schema, "%s_v1.json", w->family);
    json_t *head = json_pack("{s:s, s:s, s:{s:s, s:s}, s:I, s:O}", "schema", schema, "family",
                             w->family, "source", "name", w->source_name, "version",
                             w->source_version, "numberOfTests", (json_int_t)file_ntests(f),
                             "notes", w->notes);
    if (w->releases) { /* the releases the file answers for: source.releases */
        json_t *rel = json_array();
        for (int r = SHC_TORCH_FIRST; r < SHC_TORCH_SLOTS; r++)
            if (w->releases & SHC_TORCH_SET(r))
                json_array_append_new(rel, json_string(shc_torch_release_name((shc_torch_release)r)));
        json_object_set_new(json_object_get(head, "source"), "releases", rel);
    }
    char *h = json_dumps(head, JSON_COMPACT);
    json_decref(head);
    if (!h)
        return -1;
    h[strlen(h) - 1] = '\0'; /* drop the closing brace: testGroups follows */
    int bad = fprintf(fp, "%s,\"testGroups\":[\n", h) < 0;
    free(h);
    size_t gi, ti, nk = 0;
    json_t *g, *t;
    json_array_foreach(f->groups, gi, g) {
        json_t *params = json_deep_copy(g);
        json_object_del(params, "tests");
        char *p = json_dumps(params, JSON_COMPACT);
        json_decref(params);
        if (!p)
            return -1;
        p[strlen(p) - 1] = '\0';
        bad |= fprintf(fp, "%s%s%s\"tests\":[\n", gi ? ",\n" : "", p, strlen(p) > 1 ? "," : "") < 0;
        free(p);
        json_array_foreach(json_object_get(g, "tests"), ti, t) {
            bad |= (ti ? fputs(",\n", fp) : 0) < 0;
            bad |= put_json(fp, t) != 0;
        }
        bad |= fputs("\n]}", fp) < 0;
        nk++;
    }
    bad |= fputs("\n]}\n", fp) < 0;
    return bad ? -1 : 0;
}

int shc_gw_write(shc_gw *w, const char *outdir, shc_err *e)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", outdir, w->family);
    int rc = mkdir_p(dir, e);
    if (rc)
        return rc;
    /* Remove stale files of this family so a renamed stem cannot linger. */
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *de;
        while ((de = readdir(d))) {
            size_t n = strlen(de->d_name);
            if (n > 5 && !strcmp(de->d_name + n - 5, ".json")) {
                char p[8192];
                snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
                remove(p);
            }
        }
        closedir(d);
    }
    for (int i = 0; i < w->nfiles; i++) {
        char path[8192], tmp[8300];
        snprintf(path, sizeof path, "%s/%s.json", dir, w->files[i].stem);
        snprintf(tmp, sizeof tmp, "%s.tmp", path);
        FILE *fp = fopen(tmp, "w");
        if (!fp)
            return shc_fail(e, SHC_EIO, "cannot write %s: %s", tmp, strerror(errno));
        errno = 0;
        int bad = write_file(w, &w->files[i], fp) || fflush(fp) != 0;
        int err = errno ? errno : EIO;
        bad |= fclose(fp) != 0;
        if (!bad && rename(tmp, path))
            bad = 1, err = errno;
        if (bad) { /* a full disk leaves no half-written .json.tmp behind */
            unlink(tmp);
            return shc_fail(e, SHC_EIO, "cannot write %s: %s", path, strerror(err));
        }
    }
    return SHC_OK;
}

int shc_test_torch(const json_t *test, shc_torch_release *out, shc_err *e)
{
    const json_t *v = json_object_get(test, "torch");
    *out = SHC_TORCH_PINNED;
    if (!v)
        return SHC_OK;
    if (!json_is_string(v))
        return shc_fail(e, SHC_EFORMAT, "test: \"torch\" must be a release name");
    shc_err pe;
    int rc = shc_torch_release_parse(json_string_value(v), out, &pe);
    return rc ? shc_fail(e, SHC_EFORMAT, "test: %s", pe.msg) : SHC_OK;
}

bool shc_golden_declares_flag(const shc_golden *g, const char *flag)
{
    for (int f = 0; f < g->nfiles; f++)
        if (json_object_get(json_object_get(g->roots[f], "notes"), flag))
            return true;
    return false;
}

bool shc_test_has_flag(const json_t *test, const char *flag)
{
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(test, "flags"), i, v)
        if (json_is_string(v) && !strcmp(json_string_value(v), flag))
            return true;
    return false;
}
