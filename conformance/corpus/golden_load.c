/*
 * golden_load.c — reading golden files back and checking their shared structure.
 *
 * Every rule here guards a way a golden file can be wrong in transit or by
 * hand: truncated JSON (jansson reports line and column), a wrong schema or
 * family name, a numberOfTests that disagrees with the tests present, a key
 * repeated in an object (shc_json_loadb), a duplicated or non-positive tcId,
 * an undeclared flag, a result outside valid/invalid/acceptable, a test
 * without "expected", a "tolerance" on a case that is not GpuOnly or not of
 * the one form.  The message always
 * names the file, and the tcId where there is one.  Tested by check_golden.c.
 */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "golden.h"

void shc_golden_free(shc_golden *g)
{
    if (!g)
        return;
    for (int64_t i = 0; g->text && g->tests && i < g->ntests; i++)
        json_decref(g->tests[i]); /* parsed on demand, owned */
    for (int i = 0; i < g->nfiles; i++) {
        if (g->roots)
            json_decref(g->roots[i]);
        if (g->maps)
            shc_map_free(&g->maps[i]);
        free(g->paths[i]);
    }
    free(g->roots);
    free(g->paths);
    free(g->maps);
    free(g->tests);
    free(g->groups);
    free(g->tcids);
    free(g->text);
    free(g->unversioned);
    for (int64_t k = 0; g->gtree && k < g->ngroups; k++)
        json_decref(g->gtree[k]);
    free(g->gtree);
    free(g->gtext);
    for (int f = 0; g->ntree && f < g->nfiles; f++)
        json_decref(g->ntree[f]);
    free(g->ntree);
    free(g->fnotes);
    memset(g, 0, sizeof *g);
}

bool shc_free_at_exit(void)
{
#if defined(__SANITIZE_ADDRESS__)
    return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(leak_sanitizer)
    return true;
#endif
#endif
    const char *v = getenv("SHARDCHECK_SANITIZED");
    return v && !strcmp(v, "1");
}

static int check_test(const char *path, json_t *notes, json_t *t, shc_err *e)
{
    json_t *id = json_object_get(t, "tcId");
    if (!json_is_integer(id) || json_integer_value(id) < 1)
        return shc_fail(e, SHC_EFORMAT, "%s: a test has no positive integer tcId", path);
    long long tc = (long long)json_integer_value(id);
    const char *res = json_string_value(json_object_get(t, "result"));
    if (!res || (strcmp(res, "valid") && strcmp(res, "invalid") && strcmp(res, "acceptable")))
        return shc_fail(e, SHC_EFORMAT, "%s: tcId %lld: result must be valid, invalid or acceptable",
                        path, tc);
    json_t *flags = json_object_get(t, "flags");
    if (!json_is_array(flags))
        return shc_fail(e, SHC_EFORMAT, "%s: tcId %lld: flags must be an array", path, tc);
    size_t i;
    json_t *f;
    json_array_foreach(flags, i, f) {
        if (!json_is_string(f) || !json_object_get(notes, json_string_value(f)))
            return shc_fail(e, SHC_EFORMAT, "%s: tcId %lld: flag %s is not declared in notes", path,
                            tc, json_is_string(f) ? json_string_value(f) : "(not a string)");
    }
    if (!json_is_object(json_object_get(t, "expected")))
        return shc_fail(e, SHC_EFORMAT, "%s: tcId %lld: expected must be an object", path, tc);
    char why[200];
    if (!shc_tolerance_check(t, why, sizeof why))
        return shc_fail(e, SHC_EFORMAT, "%s: tcId %lld: %s", path, tc, why);
    return SHC_OK;
}

/* ---- answers by torch release ---- */

/* A file's source.releases as a set (0: none listed); EFORMAT for a malformed list. */
static int file_releases(const char *path, const json_t *root, uint32_t *set, shc_err *e)
{
    const json_t *rel = json_object_get(json_object_get(root, "source"), "releases");
    *set = 0;
    if (!rel)
        return SHC_OK;
    size_t i;
    json_t *v;
    if (!json_is_array(rel) || !json_array_size(rel))
        return shc_fail(e, SHC_EFORMAT, "%s: source.releases must be a non-empty list of torch "
                        "releases", path);
    json_array_foreach(rel, i, v) {
        shc_torch_release r;
        shc_err pe;
        if (!json_is_string(v) || shc_torch_release_parse(json_string_value(v), &r, &pe) ||
            strcmp(json_string_value(v), shc_torch_release_name(r)))
            return shc_fail(e, SHC_EFORMAT, "%s: source.releases[%zu]: %s", path, i,
                            json_is_string(v) ? pe.msg : "not a string");
        if (*set & SHC_TORCH_SET(r))
            return shc_fail(e, SHC_EFORMAT, "%s: source.releases names %s twice", path,
                            shc_torch_release_name(r));
        *set |= SHC_TORCH_SET(r);
    }
    if (!(*set & SHC_TORCH_SET(SHC_TORCH_PIN_RELEASE)))
        return shc_fail(e, SHC_EFORMAT, "%s: source.releases lacks the pinned release %s, whose "
                        "answers the top level holds", path,
                        shc_torch_release_name(SHC_TORCH_PIN_RELEASE));
    return SHC_OK;
}

/* Check a test's byVersion against the file's releases (set) and, for release want (not
 * the pinned one), put that release's answer at the top level. */
static int by_version(const char *path, long long tc, json_t *t, uint32_t set,
                      shc_torch_release want, shc_err *e)
{
    json_t *by = json_object_get(t, "byVersion"), *hit = NULL;
    if (!by)
        return SHC_OK;
    if (!set || !json_is_array(by) || !json_array_size(by))
        return shc_fail(e, SHC_EFORMAT, "%s: tcId %lld: byVersion must be a non-empty list, in "
                        "a file whose source lists its releases", path, tc);
    uint32_t seen = 0;
    size_t i, j;
    json_t *ent, *v;
    json_array_foreach(by, i, ent) {
        json_t *rels = json_object_get(ent, "torch");
        const char *res = json_string_value(json_object_get(ent, "result"));
        if (!json_is_object(ent) || !json_is_array(rels) || !json_array_size(rels) || !res ||
            (strcmp(res, "valid") && strcmp(res, "invalid") && strcmp(res, "acceptable")) ||
            !json_is_object(json_object_get(ent, "expected")))
            return shc_fail(e, SHC_EFORMAT, "%s: tcId %lld: byVersion[%zu] must be {\"torch\": "
                            "[releases], \"result\", \"expected\": {...}}", path, tc, i);
        json_array_foreach(rels, j, v) {
            shc_torch_release r;
            shc_err pe;
            if (!json_is_string(v) || shc_torch_release_parse(json_string_value(v), &r, &pe) ||
                !(set & SHC_TORCH_SET(r)) || r == SHC_TORCH_PIN_RELEASE ||
                (seen & SHC_TORCH_SET(r)))
                return shc_fail(e, SHC_EFORMAT, "%s: tcId %lld: byVersion[%zu].torch[%zu] is not "
                                "one of the file's releases other than the pinned %s, named "
                                "once", path, tc, i, j,
                                shc_torch_release_name(SHC_TORCH_PIN_RELEASE));
            seen |= SHC_TORCH_SET(r);
            if (r == want)
                hit = ent;
        }
    }
    if (hit) {
        json_object_set(t, "result", json_object_get(hit, "result"));
        json_object_set(t, "expected", json_object_get(hit, "expected"));
    }
    return SHC_OK;
}

static int append_test(shc_golden *g, json_t *t, json_t *grp, shc_err *e)
{
    if ((g->ntests & (g->ntests - 1)) == 0) { /* grow at powers of two */
        int64_t cap = g->ntests ? 2 * g->ntests : 64;
        json_t **nt = realloc(g->tests, (size_t)cap * sizeof *nt);
        json_t **ng = realloc(g->groups, (size_t)cap * sizeof *ng);
        if (nt)
            g->tests = nt;
        if (ng)
            g->groups = ng;
        if (!nt || !ng)
            return shc_fail(e, SHC_ENOMEM, "golden: out of memory");
    }
    g->tests[g->ntests] = t;
    g->groups[g->ntests] = grp;
    g->ntests++;
    return SHC_OK;
}

/* Structural validation of one parsed file; appends its tests to g. */
static int check_root(shc_golden *g, const char *path, json_t *root, shc_err *e)
{
    const char *family = json_string_value(json_object_get(root, "family"));
    const char *schema = json_string_value(json_object_get(root, "schema"));
    if (!family || !schema)
        return shc_fail(e, SHC_EFORMAT, "%s: missing \"family\" or \"schema\"", path);
    char want[160];
    snprintf(want, sizeof want, "%s_v1.json", family);
    if (strcmp(schema, want))
        return shc_fail(e, SHC_EFORMAT, "%s: schema is \"%s\", expected \"%s\"", path, schema, want);
    if (g->family[0] && strcmp(g->family, family))
        return shc_fail(e, SHC_EFORMAT, "%s: family \"%s\", expected \"%s\"", path, family, g->family);
    snprintf(g->family, sizeof g->family, "%s", family);
    json_t *notes = json_object_get(root, "notes");
    json_t *groups = json_object_get(root, "testGroups");
    json_t *ntests = json_object_get(root, "numberOfTests");
    if (!json_is_object(notes) || !json_is_array(groups) || !json_is_integer(ntests))
        return shc_fail(e, SHC_EFORMAT, "%s: missing notes, testGroups or numberOfTests", path);
    int64_t count = 0;
    size_t gi, ti;
    json_t *grp, *t;
    uint32_t set;
    int rc = file_releases(path, root, &set, e);
    if (rc)
        return rc;
    shc_torch_release rel = shc_torch_norm(g->torch);
    const char *src = json_string_value(json_object_get(json_object_get(root, "source"), "name"));
    bool torch_family = src && !strncmp(src, "pytorch", 7);
    if (rel != SHC_TORCH_PIN_RELEASE && set && !(set & SHC_TORCH_SET(rel)))
        return shc_fail(e, SHC_EFORMAT, "%s: holds no answers for torch %s", path,
                        shc_torch_release_name(rel));
    if (rel != SHC_TORCH_PIN_RELEASE && !set && torch_family && !g->unversioned)
        g->unversioned = strdup(path);
    json_array_foreach(groups, gi, grp) {
        json_t *tests = json_object_get(grp, "tests");
        if (!json_is_array(tests))
            return shc_fail(e, SHC_EFORMAT, "%s: testGroups[%zu] has no tests array", path, gi);
        json_array_foreach(tests, ti, t) {
            rc = check_test(path, notes, t, e);
            if (!rc)
                rc = by_version(path, (long long)json_integer_value(json_object_get(t, "tcId")),
                                t, set, rel, e);
            if (!rc && set && rel != SHC_TORCH_PIN_RELEASE) /* the families compute for it */
                json_object_set_new(t, "torch", json_string(shc_torch_release_name(rel)));
            if (!rc)
                rc = append_test(g, t, grp, e);
            if (rc)
                return rc;
            count++;
        }
    }
    if (count != json_integer_value(ntests))
        return shc_fail(e, SHC_EFORMAT, "%s: numberOfTests is %lld but %lld tests are present", path,
                        (long long)json_integer_value(ntests), (long long)count);
    return SHC_OK;
}

typedef struct { json_t *test, *group; } tg_pair;

static json_int_t tcid_of(const json_t *t) { return json_integer_value(json_object_get(t, "tcId")); }

static int cmp_pair(const void *a, const void *b)
{
    json_int_t x = tcid_of(((const tg_pair *)a)->test), y = tcid_of(((const tg_pair *)b)->test);
    return (x > y) - (x < y);
}

/* Sort tests by tcId (keeping each test's group) and reject duplicates. */
static int index_tests(shc_golden *g, shc_err *e)
{
    int64_t n = g->ntests;
    tg_pair *pairs = malloc((size_t)(n ? n : 1) * sizeof *pairs);
    if (!pairs)
        return shc_fail(e, SHC_ENOMEM, "golden: out of memory");
    for (int64_t i = 0; i < n; i++)
        pairs[i] = (tg_pair){g->tests[i], g->groups[i]};
    qsort(pairs, (size_t)n, sizeof *pairs, cmp_pair);
    int rc = SHC_OK;
    g->tcids = malloc((size_t)(n ? n : 1) * sizeof *g->tcids);
    if (!g->tcids)
        rc = shc_fail(e, SHC_ENOMEM, "golden: out of memory");
    for (int64_t i = 0; i < n; i++) {
        g->tests[i] = pairs[i].test;
        g->groups[i] = pairs[i].group;
        if (g->tcids)
            g->tcids[i] = tcid_of(g->tests[i]);
        if (!rc && i > 0 && tcid_of(g->tests[i - 1]) == tcid_of(g->tests[i]))
            rc = shc_fail(e, SHC_EFORMAT, "family %s: duplicate tcId %lld", g->family,
                          (long long)tcid_of(g->tests[i]));
    }
    free(pairs);
    return rc;
}

void shc_json_error_name_key(const char *buf, size_t len, json_error_t *je)
{
    size_t end = je->position > 0 ? (size_t)je->position : 0;
    if (json_error_code(je) != json_error_duplicate_key)
        return;
    if (end < 2 || end > len || buf[end - 1] != '"')
        return;
    size_t start = end - 1; /* the opening quote: the first one not escaped (an even run of
                             * backslashes before it) */
    while (start > 0) {
        start--;
        if (buf[start] != '"')
            continue;
        size_t bs = 0;
        while (bs < start && buf[start - 1 - bs] == '\\')
            bs++;
        if (bs % 2 == 0)
            break;
    }
    size_t n = end - 1 - (start + 1), show = n > 80 ? 80 : n;
    while (show < n && show > 0 && ((unsigned char)buf[start + 1 + show] & 0xC0) == 0x80)
        show--; /* cut at a character */
    char msg[JSON_ERROR_TEXT_LENGTH];
    snprintf(msg, sizeof msg, "repeated key \"%.*s%s\" in an object (a key may appear once)",
             (int)show, buf + start + 1, show < n ? "..." : "");
    memcpy(je->text, msg, sizeof je->text - 1); /* the last byte holds json_error_code */
}

json_t *shc_json_loadb(const char *buf, size_t len, json_error_t *je)
{
    json_t *v = json_loadb(buf, len, JSON_REJECT_DUPLICATES, je);
    if (!v)
        shc_json_error_name_key(buf, len, je);
    return v;
}

json_t *shc_json_load_path(const char *path, shc_err *e)
{
    /* One read and json_loadb: jansson's FILE* reader goes through a
     * per-character callback, several times slower on 15 MB files. */
    size_t len = 0;
    char *buf = shc_read_path(path, &len, e);
    if (!buf)
        return NULL;
    json_error_t je;
    json_t *root = shc_json_loadb(buf, len, &je);
    if (!root)
        shc_fail(e, SHC_EFORMAT, "%s: line %d column %d: %s", path, je.line, je.column, je.text);
    free(buf);
    return root;
}

static int load_one(shc_golden *g, const char *path, shc_err *e)
{
    json_t *root = shc_json_load_path(path, e);
    if (!root)
        return e ? e->code : SHC_EFORMAT;
    json_t **nr = realloc(g->roots, (size_t)(g->nfiles + 1) * sizeof *nr);
    char **np = realloc(g->paths, (size_t)(g->nfiles + 1) * sizeof *np);
    if (nr)
        g->roots = nr;
    if (np)
        g->paths = np;
    if (!nr || !np) {
        json_decref(root);
        return shc_fail(e, SHC_ENOMEM, "golden: out of memory");
    }
    g->roots[g->nfiles] = root;
    g->paths[g->nfiles] = strdup(path);
    g->nfiles++;
    return check_root(g, path, root, e);
}

int shc_golden_load_file(shc_golden *g, const char *path, shc_err *e)
{
    memset(g, 0, sizeof *g);
    int rc = load_one(g, path, e);
    if (!rc)
        rc = index_tests(g, e);
    if (rc)
        shc_golden_free(g);
    return rc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int shc_golden_list_family(const char *fdir, const char *family, char **names, int *count,
                           shc_err *e)
{
    *count = 0;
    DIR *d = opendir(fdir);
    if (!d)
        return shc_fail(e, SHC_EIO, "golden family %s: cannot open directory %s: %s", family, fdir,
                        strerror(errno));
    int n = 0, rc = SHC_OK;
    struct dirent *de;
    while (!rc && (de = readdir(d))) {
        size_t len = strlen(de->d_name);
        if (len <= 5 || strcmp(de->d_name + len - 5, ".json"))
            continue;
        if (n == SHC_MAX_GOLDEN_FILES) /* never drop a file silently */
            rc = shc_fail(e, SHC_EINVAL, "golden family %s: more than %d .json files in %s",
                          family, SHC_MAX_GOLDEN_FILES, fdir);
        else if (!(names[n++] = strdup(de->d_name)))
            rc = shc_fail(e, SHC_ENOMEM, "golden: out of memory");
    }
    closedir(d);
    if (!rc)
        qsort(names, (size_t)n, sizeof *names, cmp_str);
    if (!rc && !n)
        rc = shc_fail(e, SHC_EFORMAT, "golden family %s: no .json files in %s", family, fdir);
    *count = n;
    return rc;
}

int shc_golden_load_family(shc_golden *g, const char *dir, const char *family, shc_err *e)
{
    return shc_golden_load_family_at(g, dir, family, SHC_TORCH_PINNED, e);
}

int shc_golden_load_family_at(shc_golden *g, const char *dir, const char *family,
                              shc_torch_release r, shc_err *e)
{
    memset(g, 0, sizeof *g);
    g->torch = r;
    snprintf(g->family, sizeof g->family, "%s", family);
    char fdir[4096];
    snprintf(fdir, sizeof fdir, "%s/%s", dir, family);
    char *names[SHC_MAX_GOLDEN_FILES];
    int n = 0, rc = shc_golden_list_family(fdir, family, names, &n, e);
    for (int i = 0; i < n; i++) {
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", fdir, names[i]);
        if (!rc)
            rc = load_one(g, path, e);
        free(names[i]);
    }
    if (!rc)
        rc = index_tests(g, e);
    if (rc)
        shc_golden_free(g);
    return rc;
}

int64_t shc_golden_index(const shc_golden *g, int64_t tcid)
{
    int64_t lo = 0, hi = g->ntests - 1;
    while (lo <= hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (g->tcids[mid] == tcid)
            return mid;
        if (g->tcids[mid] < tcid)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

json_t *shc_golden_find(const shc_golden *g, int64_t tcid)
{
    int64_t i = shc_golden_index(g, tcid);
    return i < 0 ? NULL : shc_golden_test(g, i);
}

/* The tests accessor, for either loader (the trees here, the byte index in golden_index.c,
 * which calls down into this file, never back). */
json_t *shc_golden_test(const shc_golden *g, int64_t i)
{
    if (g->tests[i] || !g->text)
        return g->tests[i];
    json_error_t je;
    /* tests[] is the cache; the pointer array itself is not const */
    g->tests[i] = shc_json_loadb(g->text[i].test.p, g->text[i].test.n, &je);
    if (!g->tests[i]) { /* the bytes scanned as JSON: only memory can be short here */
        fprintf(stderr, "shardcheck: golden tcId %lld: %s\n", (long long)g->tcids[i], je.text);
        exit(99);
    }
    shc_map_touched(g->text[i].test.n);
    return g->tests[i];
}

void shc_golden_test_done(const shc_golden *g, int64_t i)
{
    if (!g->text || !g->tests[i])
        return; /* the tree loaders' tests are borrowed from their roots */
    json_decref(g->tests[i]);
    g->tests[i] = NULL;
}
