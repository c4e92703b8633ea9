/*
 * report_groups.c — from a failure to its cause in one look (issue 22 item 1): the report's
 * failing cases are joined back to the golden corpus they came from (flags, file, inputs) and
 * grouped by flag and by differing field.  The corpus already knows why ports fail: a port
 * that splits the numpy.array_split way fails thousands of shard-layout cases, nearly all
 * flagged UnevenShard, whose note names the bug; a flat list in tcId order shows
 * _StridedShard cases first.  So the groups come first, largest first, each with its count
 * of failing tests, the flag's note and its smallest case (fewest bytes of inputs: the one
 * a person reads to find the bug), inputs included.
 *
 * verify groups its one family (report_group_failures); run groups each family once its cases
 * are done, while its trees are loaded (report_group_family), so run's groups are per family.
 * Only golden-format knowledge is used (testGroups, flags, notes, expected): no family is
 * named here.  A group counts failing tests, not ranks: one wrong test on 8 ranks is one.
 * Tested by failure_groups.sh (a planted numpy.array_split bug in a small shard-layout port:
 * the first group is UnevenShard and shows inputs; every output format carries the groups)
 * and run_failure_groups.sh (the same through `run` and the broken example plugin).
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "report.h"
#include "oneline.h"

/* The members of a test that are its answer or its bookkeeping, not its inputs. */
static bool answer_member(const char *k)
{
    static const char *const skip[] = {"tcId", "comment", "flags", "result", "expected",
                                       "byVersion", "torch", "tests", NULL};
    for (const char *const *s = skip; *s; s++)
        if (!strcmp(k, *s))
            return true;
    return false;
}

/* The case's inputs: its group's members, then its own (a test's member wins). */
json_t *report_case_inputs(const json_t *group, const json_t *test)
{
    json_t *in = json_object();
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)group, k, v)
        if (!answer_member(k))
            json_object_set(in, k, v);
    json_object_foreach((json_t *)test, k, v)
        if (!answer_member(k))
            json_object_set(in, k, v);
    return in;
}

static bool is_ident_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
static bool is_ident(char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }

/* "F: expected ..." or "F: not an expected field" at s: F's length, else 0. */
static size_t field_at(const char *s)
{
    if (!is_ident_start(*s))
        return 0;
    size_t n = 1;
    while (is_ident(s[n]))
        n++;
    return !strncmp(s + n, ": expected ", 11) || !strncmp(s + n, ": not an expected field", 23)
           ? n : 0;
}

static void add_unique(json_t *arr, const char *s, size_t n)
{
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v)
        if (json_string_length(v) == n && !strncmp(json_string_value(v), s, n))
            return;
    json_array_append_new(arr, json_stringn(s, n));
}

json_t *report_detail_fields(const char *detail)
{
    json_t *out = json_array();
    const char *d = detail ? detail : "";
    for (const char *p = d; *p; p++) { /* a field starts the detail or follows "; " */
        if (p != d && !(p - d >= 2 && p[-2] == ';' && p[-1] == ' '))
            continue;
        size_t n = field_at(p);
        if (n)
            add_unique(out, p, n);
    }
    if (json_array_size(out))
        return out;
    static const char *const kinds[] = {"missing from the candidate", "rejected a valid input",
                                        "accepted an input that must be rejected",
                                        "not a tcId of the golden family", NULL};
    for (const char *const *k = kinds; *k; k++)
        if (strstr(d, *k)) {
            json_array_append_new(out, json_sprintf("(%s)", *k));
            return out;
        }
    json_array_append_new(out, json_string("(other)"));
    return out;
}

/* "family/stem.json" of file f (the corpus-relative name a vendor can open). */
static json_t *file_name(const shc_golden *t, int f)
{
    if (f < 0)
        return json_string("");
    const char *p = t->paths[f], *slash = strrchr(p, '/');
    return json_sprintf("%s/%s", t->family, slash ? slash + 1 : p);
}

/* Per failing test (keyed by tcId): flags, file, inputs, fields, the size of its inputs
 * and the first failure's rank and detail. */
static json_t *test_info(const shc_golden *t, const json_t *fail)
{
    int64_t tc = json_integer_value(json_object_get(fail, "tcId"));
    int64_t i = tc >= 0 ? shc_golden_index(t, tc) : -1;
    const json_t *test = i >= 0 ? shc_golden_test(t, i) : NULL;
    const json_t *group = i >= 0 ? shc_golden_group(t, i) : NULL;
    json_t *flags = json_object_get(test, "flags");
    json_t *in = test ? report_case_inputs(group, test) : json_object();
    char *dump = json_dumps(in, JSON_COMPACT | JSON_SORT_KEYS);
    json_t *info = json_pack("{s:I,s:o,s:o,s:o,s:I,s:O,s:O,s:o}", "tcId", (json_int_t)tc,
                             "flags", flags ? json_incref(flags) : json_array(), "file",
                             file_name(t, shc_golden_file_of(t, i)), "inputs", in,
                             "size", (json_int_t)(dump ? strlen(dump) : 0), "rank",
                             json_object_get(fail, "rank"), "detail",
                             json_object_get(fail, "detail"), "fields", json_array());
    free(dump);
    if (i >= 0)
        shc_golden_test_done(t, i); /* what info keeps of it holds its own references */
    return info;
}

/* Count test info under name in groups (an object name -> group), keeping the smallest. */
static void count_in(json_t *groups, const char *name, const json_t *info, const char *note)
{
    json_t *g = json_object_get(groups, name);
    if (!g) {
        g = json_pack("{s:s,s:I}", "name", name, "tests", (json_int_t)0);
        if (note)
            json_object_set_new(g, "note", json_string(note));
        json_object_set_new(groups, name, g);
    }
    json_object_set_new(g, "tests", json_integer(json_integer_value(json_object_get(g, "tests")) + 1));
    json_t *best = json_object_get(g, "smallest");
    json_int_t sz = json_integer_value(json_object_get(info, "size"));
    json_int_t bsz = json_integer_value(json_object_get(best, "size"));
    json_int_t tc = json_integer_value(json_object_get(info, "tcId"));
    if (!best || sz < bsz || (sz == bsz && tc < json_integer_value(json_object_get(best, "tcId"))))
        json_object_set(g, "smallest", (json_t *)info);
}

static int cmp_group(const void *a, const void *b)
{
    const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    json_int_t nx = json_integer_value(json_object_get(x, "tests"));
    json_int_t ny = json_integer_value(json_object_get(y, "tests"));
    if (nx != ny)
        return nx > ny ? -1 : 1;
    return strcmp(json_string_value(json_object_get(x, "name")),
                  json_string_value(json_object_get(y, "name")));
}

/* The groups object as an array, largest first, "size" (a sorting aid) left out. */
static json_t *sorted(json_t *groups)
{
    size_t n = json_object_size(groups), k = 0;
    json_t **v = calloc(n ? n : 1, sizeof *v), *g, *out = json_array();
    const char *name;
    if (!v)
        return out;
    json_object_foreach(groups, name, g)
        v[k++] = g;
    qsort(v, k, sizeof *v, cmp_group);
    for (size_t i = 0; i < k; i++) {
        json_t *s = json_deep_copy(json_object_get(v[i], "smallest"));
        json_object_del(s, "size");
        json_object_set_new(v[i], "smallest", s);
        json_array_append(out, v[i]);
    }
    free(v);
    return out;
}

/* Each test once: its fields are every field any of its failing ranks named.  only: NULL,
 * or the family whose failures count (run's report holds several). */
static json_t *collect_tests(report *r, const shc_golden *t, const char *only)
{
    json_t *tests = json_object(), *f;
    if (!tests)
        return NULL;
    size_t i;
    json_array_foreach(r->fails, i, f) {
        const char *fam = json_string_value(json_object_get(f, "family"));
        if (only && (!fam || strcmp(fam, only)))
            continue;
        char key[32];
        snprintf(key, sizeof key, "%lld", (long long)json_integer_value(json_object_get(f, "tcId")));
        json_t *info = json_object_get(tests, key);
        if (!info)
            json_object_set_new(tests, key, info = test_info(t, f));
        json_t *fields = report_detail_fields(json_string_value(json_object_get(f, "detail")));
        size_t j;
        json_t *x;
        json_array_foreach(fields, j, x)
            add_unique(json_object_get(info, "fields"), json_string_value(x), json_string_length(x));
        json_decref(fields);
        json_int_t at = json_integer_value(json_object_get(f, "at"));
        json_t *c = at >= 0 ? json_array_get(r->cases, (size_t)at) : NULL;
        if (c) /* the case in JSON and JUnit carries where it comes from and what it is */
            json_object_set_new(c, "failure", json_pack("{s:O,s:O,s:O,s:O,s:O,s:o}", "tcId",
                                json_object_get(f, "tcId"), "rank", json_object_get(f, "rank"),
                                "file", json_object_get(info, "file"), "flags",
                                json_object_get(info, "flags"), "inputs",
                                json_object_get(info, "inputs"), "fields",
                                report_detail_fields(json_string_value(json_object_get(f, "detail")))));
    }
    return tests;
}

/* The groups of the kept failures (of family only, when not NULL): a new object, NULL when
 * there are none (*rc SHC_OK) or memory ran out (*rc SHC_ENOMEM). */
static json_t *group_of(report *r, const shc_golden *t, const char *only, int *rc)
{
    *rc = SHC_OK;
    if (!r->fails || !json_array_size(r->fails))
        return NULL;
    json_t *tests = collect_tests(r, t, only);
    if (!tests) {
        *rc = SHC_ENOMEM;
        return NULL;
    }
    if (!json_object_size(tests)) {
        json_decref(tests);
        return NULL;
    }
    json_t *by_flag = json_object(), *by_field = json_object(), *info, *x;
    const char *key;
    json_object_foreach(tests, key, info) {
        size_t j;
        json_t *flags = json_object_get(info, "flags");
        json_array_foreach(flags, j, x)
            count_in(by_flag, json_string_value(x), info, shc_golden_note(t, json_string_value(x)));
        if (!json_array_size(flags))
            count_in(by_flag, "(no flag)", info, NULL);
        json_array_foreach(json_object_get(info, "fields"), j, x)
            count_in(by_field, json_string_value(x), info, NULL);
    }
    json_t *groups = json_pack("{s:I,s:o,s:o}", "failingTests",
                               (json_int_t)json_object_size(tests), "byFlag", sorted(by_flag),
                               "byField", sorted(by_field));
    json_decref(by_flag);
    json_decref(by_field);
    json_decref(tests);
    *rc = groups ? SHC_OK : SHC_ENOMEM;
    return groups;
}

int report_group_failures(report *r, const shc_golden *t)
{
    int rc;
    json_t *g = group_of(r, t, NULL, &rc);
    if (g) {
        json_decref(r->groups);
        r->groups = g;
    }
    return rc;
}

int report_group_family(report *r, const shc_golden *t)
{
    int rc;
    json_t *g = group_of(r, t, t->family, &rc);
    if (!g)
        return rc;
    json_object_set_new(g, "family", json_string(t->family));
    if (!r->groups)
        r->groups = json_array();
    if (!json_is_array(r->groups) || json_array_append_new(r->groups, g))
        return SHC_ENOMEM;
    return SHC_OK;
}

/* One group's lines: name, count, note; its smallest case with inputs and what differed. */
static void print_group(const json_t *g, long long total, const char *pre)
{
    const json_t *s = json_object_get(g, "smallest");
    char *in = json_dumps(json_object_get(s, "inputs"), JSON_COMPACT);
    long long n = json_integer_value(json_object_get(g, "tests"));
    char name[256], detail[2048]; /* a field's name and a detail may come from a candidate */
    printf("%s  %-22s %lld of %lld failing tests (%.0f%%)\n", pre,
           oneline_copy(name, sizeof name, json_string_value(json_object_get(g, "name"))), n,
           total, total ? 100.0 * n / total : 0);
    if (json_string_value(json_object_get(g, "note")))
        printf("%s    note: %s\n", pre, json_string_value(json_object_get(g, "note")));
    long long rank = json_integer_value(json_object_get(s, "rank"));
    printf("%s    smallest: tcId %lld (%s) inputs %s\n", pre,
           (long long)json_integer_value(json_object_get(s, "tcId")),
           json_string_value(json_object_get(s, "file")), in ? in : "{}");
    oneline_copy(detail, sizeof detail, json_string_value(json_object_get(s, "detail")));
    if (rank >= 0)
        printf("%s      rank %lld: %s\n", pre, rank, detail);
    else
        printf("%s      %s\n", pre, detail);
    free(in);
}

/* One family's groups (verify's only ones; one of run's, named by its "family"). */
static void print_groups_of(const json_t *groups, const char *pre)
{
    long long total = json_integer_value(json_object_get(groups, "failingTests"));
    const char *fam = json_string_value(json_object_get(groups, "family"));
    static const char *const kinds[][2] = {{"byFlag", "flag"}, {"byField", "field"}};
    for (int k = 0; k < 2; k++) {
        const json_t *arr = json_object_get(groups, kinds[k][0]);
        printf("%sFailures %s%s%sby %s (%lld failing tests; a test can carry several):\n", pre,
               fam ? "of " : "", fam ? fam : "", fam ? " " : "", kinds[k][1], total);
        size_t i;
        json_t *g;
        json_array_foreach((json_t *)arr, i, g)
            print_group(g, total, pre);
    }
}

void report_print_groups(const report *r, const char *pre)
{
    if (json_is_array(r->groups)) {
        size_t i;
        json_t *g;
        json_array_foreach(r->groups, i, g)
            print_groups_of(g, pre);
    } else {
        print_groups_of(r->groups, pre);
    }
    printf("%s\n", *pre ? "#" : "");
}
