/*
 * certify_check.c — a certify package's MANIFEST (sha256sum's format, so `sha256sum -c
 * MANIFEST` works too) and `certify --check`, which trusts nothing in the package.
 *
 * Every file must match MANIFEST (and every file must be listed); since whoever edits a file
 * can also rewrite MANIFEST, the statement is re-derived from the results it cites (counts,
 * claims, row verdicts, the overall verdict, the golden MANIFEST hash, statement.txt byte for
 * byte), and every candidate in the package is verified again against the corpus
 * (cert_reverify: a child `verify`, as certify ran it), so an edited candidate is named even
 * with its MANIFEST line rewritten (issue 22 item 4).  The other files are derived, and checked
 * so: report.html is rendered again (through the renderer cmd_certify.c hands over) and each
 * JUnit file again from its results, both compared byte for byte, and every file a package has
 * must be there, so a file removed with its MANIFEST line is named (issue 38 M5).  What no
 * package check can catch is a consistent rewrite of a backend row's results, the statement
 * and MANIFEST together (the backend is not in the package); publishing the MANIFEST's own
 * sha256 (certify prints it) pins the package.  Calls go one way: this file uses
 * certify_package.c (counting, the statement) and certify_claim.c (claims), neither calls back.
 * Tested by conformance/tests/certify.sh, certify_claims.sh and certify_tamper.sh.
 */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "exit_codes.h"
#include "certify.h"
#include "certify_spawn.h"
#include "torch_version.h"
#include "golden.h"
#include "report.h"

static const char *sget(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static long long iget(const json_t *o, const char *k)
{
    return (long long)json_integer_value(json_object_get(o, k));
}

/* ---- MANIFEST ---- */

typedef struct flist { char **v; size_t n, cap; int bad; char odd[512]; } flist;

static void fl_push(flist *l, const char *s)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        char **v = realloc(l->v, cap * sizeof *v);
        if (!v) {
            l->bad = 1;
            return;
        }
        l->v = v, l->cap = cap;
    }
    if (!(l->v[l->n] = strdup(s)))
        l->bad = 1;
    else
        l->n++;
}

static void fl_free(flist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
}

static int cmp_s(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Every regular file under dir/rel, as package-relative paths; anything else (a link, a
 * device) is remembered in l->odd: a package holds plain files only. */
static void walk(const char *dir, const char *rel, flist *l)
{
    char path[4096];
    snprintf(path, sizeof path, "%s%s%s", dir, *rel ? "/" : "", rel);
    DIR *d = opendir(path);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        char sub[4096], full[8192];
        snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", de->d_name);
        snprintf(full, sizeof full, "%s/%s", dir, sub);
        struct stat st;
        if (lstat(full, &st))
            continue;
        if (S_ISDIR(st.st_mode))
            walk(dir, sub, l);
        else if (S_ISREG(st.st_mode))
            fl_push(l, sub);
        else if (!l->odd[0])
            snprintf(l->odd, sizeof l->odd, "%.500s", sub);
    }
    closedir(d);
}

int cert_manifest_write(const char *dir, char sha_out[65], shc_err *e)
{
    flist l = {0};
    walk(dir, "", &l);
    if (l.n)
        qsort(l.v, l.n, sizeof *l.v, cmp_s);
    char path[4096];
    snprintf(path, sizeof path, "%s/MANIFEST", dir);
    FILE *f = fopen(path, "w");
    int rc = l.bad ? shc_fail(e, SHC_ENOMEM, "certify: out of memory")
           : f ? SHC_OK : shc_fail(e, SHC_EIO, "cannot write %s: %s", path, strerror(errno));
    for (size_t i = 0; i < l.n && !rc; i++) {
        char full[8192], hex[65];
        snprintf(full, sizeof full, "%s/%s", dir, l.v[i]);
        if (strcmp(l.v[i], "MANIFEST") && !(rc = shc_sha256_file(full, hex, e)))
            fprintf(f, "%s  %s\n", hex, l.v[i]);
    }
    if (f && (ferror(f) | fclose(f)) && !rc)
        rc = shc_fail(e, SHC_EIO, "cannot write %s", path);
    if (!rc)
        rc = shc_sha256_file(path, sha_out, e);
    fl_free(&l);
    return rc;
}

/* ---- --check ---- */

/* At most max bytes of s, then "... (N bytes)". */
static const char *bounded(char *buf, size_t n, const char *s, size_t max)
{
    size_t len = strlen(s);
    if (len <= max)
        return s;
    snprintf(buf, n, "%.*s... (%zu bytes)", (int)max, s, len);
    return buf;
}

/* One problem line; every piece taken from the package (a path in MANIFEST, a string of
 * statement.json) is echoed at most 512 bytes (2,048 for the reasons), with its length: a
 * 63 MB MANIFEST line costs one short line (issue 38 M15). */
static int problem(const char *dir, const char *file, const char *fmt, const char *a,
                   const char *b)
{
    char d[560], f[560], x[2100], y[2100];
    fprintf(stderr, "shardcheck certify --check: %s/%s: ", bounded(d, sizeof d, dir, 512),
            bounded(f, sizeof f, file, 512));
    fprintf(stderr, fmt, bounded(x, sizeof x, a, 2048), bounded(y, sizeof y, b, 2048));
    fputc('\n', stderr);
    return 1;
}

/* Every listed file present with its hash, every file listed; returns problems found.  The
 * MANIFEST is read by the golden MANIFEST's parser (shc_manifest_read): a path outside the
 * package ('..', absolute), a path listed twice or a malformed line is an alteration, and
 * no listed file is opened then. */
static int check_hashes(const char *dir, int *nfiles)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/MANIFEST", dir);
    struct stat st;
    if (lstat(path, &st))
        return problem(dir, "MANIFEST", "missing: not a certify package, or its MANIFEST was "
                       "removed%s%s", "", "");
    if (!S_ISREG(st.st_mode))
        return problem(dir, "MANIFEST", "altered: not a regular file%s%s", "", "");
    shc_manifest m;
    shc_err me = {0};
    *nfiles = 0;
    if (shc_manifest_read(path, &m, &me))
        return problem(dir, "MANIFEST", "altered: %s%s", me.msg, "");
    flist found = {0};
    int bad = m.n ? 0 : problem(dir, "MANIFEST", "altered: it lists no file%s%s", "", "");
    for (size_t i = 0; i < m.n; i++) {
        const char *rel = m.v[i].rel;
        char hex[65];
        shc_err e = {0};
        snprintf(path, sizeof path, "%s/%s", dir, rel);
        if (lstat(path, &st) || !S_ISREG(st.st_mode))
            bad += problem(dir, rel, "missing (listed in MANIFEST)%s%s", "", "");
        else if (shc_sha256_file(path, hex, &e))
            bad += problem(dir, rel, "unreadable: %s%s", e.msg, "");
        else if (strcmp(hex, m.v[i].hex))
            bad += problem(dir, rel, "altered: sha256 %.16s..., MANIFEST says %.16s...", hex,
                           m.v[i].hex);
    }
    walk(dir, "", &found);
    if (found.odd[0])
        bad += problem(dir, found.odd, "added: not a regular file%s%s", "", "");
    for (size_t i = 0; i < found.n; i++)
        if (strcmp(found.v[i], "MANIFEST") && !shc_manifest_find(&m, found.v[i]))
            bad += problem(dir, found.v[i], "added: not listed in MANIFEST%s%s", "", "");
    *nfiles = (int)m.n;
    shc_manifest_free(&m);
    fl_free(&found);
    return bad;
}

/* A statement row read back; the counts are recomputed from its results by the caller. */
static void row_from_json(const json_t *j, cert_row *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->family, sizeof r->family, "%s", sget(j, "family"));
    snprintf(r->mode, sizeof r->mode, "%s", sget(j, "mode"));
    snprintf(r->backend, sizeof r->backend, "%s", sget(j, "backend"));
    snprintf(r->results, sizeof r->results, "%s", sget(j, "results"));
    snprintf(r->junit, sizeof r->junit, "%s", sget(j, "junit"));
    snprintf(r->log, sizeof r->log, "%s", sget(j, "log"));
    snprintf(r->why, sizeof r->why, "%s", sget(j, "why"));
    snprintf(r->candidate, sizeof r->candidate, "%s", sget(j, "candidate"));
    r->np = (int)iget(j, "np");
    r->exit_code = (int)iget(j, "exit");
}

/* The members in which two rows differ, comma-separated ("claim, verdict"): a statement
 * from a version that did not record claims differs in "claim" alone. */
static void differing(const json_t *a, const json_t *b, char *buf, size_t n)
{
    const char *k;
    json_t *v;
    size_t o = 0;
    buf[0] = '\0';
    for (int pass = 0; pass < 2; pass++)
        json_object_foreach((json_t *)(pass ? b : a), k, v) {
            const json_t *w = json_object_get(pass ? a : b, k);
            if ((pass && w) || (w && json_equal(v, (json_t *)w)) || o >= n)
                continue; /* the second pass adds the members only b has */
            o += (size_t)snprintf(buf + o, n - o, "%s%s", o ? ", " : "", k);
        }
}

/* Whether the statement's row j says what its results say (a message otherwise). */
static int check_row(const char *dir, const char *golden, const json_t *j, size_t i, cert_row *r)
{
    row_from_json(j, r);
    shc_err e = {0};
    char msg[1024];
    const char *cited[] = {r->results, r->log, r->candidate};
    for (size_t k = 0; k < sizeof cited / sizeof *cited; k++)
        if (strstr(cited[k], "..") || cited[k][0] == '/')
            return problem(dir, "statement.json", "altered: row %s cites %s, outside the "
                           "package", r->family, cited[k]);
    if (cert_count(dir, r, &e) || cert_claim(dir, golden, r, &e))
        return problem(dir, "statement.json", "inconsistent: row %s: %s", r->family, e.msg);
    json_t *want = cert_row_json(r);
    bool same = json_equal(want, j);
    if (!same) {
        char keys[256];
        differing(want, j, keys, sizeof keys);
        snprintf(msg, sizeof msg, "row %zu (%s %s %s np %d) says %s with %lld passed, %lld "
                 "failed, %lld NotSupported; %s gives %s with %lld passed, %lld failed, %lld "
                 "NotSupported", i, r->family, r->mode, r->backend, r->np, sget(j, "verdict"),
                 iget(j, "passed"), iget(j, "failed"), iget(j, "notSupported"),
                 r->results[0] ? r->results : "(no results)", sget(want, "verdict"), r->passed,
                 r->failed, r->notsupported);
        problem(dir, "statement.json", "inconsistent with the results: %s (it differs in: "
                "%s)", msg, keys);
    }
    json_decref(want);
    return !same;
}

/* What the corpus --check found has, in a message naming how it was found. */
static const char *given_corpus(const char *golden, bool given, const char *hex)
{
    static char buf[4400];
    snprintf(buf, sizeof buf, "%s %s has %s", given ? "--golden" : "the corpus found at", golden,
             hex[0] ? hex : "no MANIFEST");
    if (!given)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), " (give the package's corpus "
                 "with --golden)");
    return buf;
}

/* Every candidate of the package verified again against the corpus (certify_claim.c):
 * the MANIFEST cannot tell an edited candidate whose line was rewritten. */
static int reverify_all(const char *dir, const char *golden, const json_t *st)
{
    char exe[4096];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k <= 0)
        return problem(dir, "statement.json", "cannot verify its candidates again: "
                       "/proc/self/exe unreadable%s%s", "", "");
    exe[k] = '\0';
    const json_t *w = json_object_get(st, "waivers"); /* the package's own copy, nothing else */
    if (w && !(json_is_string(w) && !strcmp(json_string_value(w), "waivers.json")))
        return problem(dir, "statement.json", "altered: \"waivers\" is not the package's "
                       "waivers.json%s%s", "", "");
    size_t i;
    json_t *j;
    int bad = 0;
    json_array_foreach(json_object_get(st, "rows"), i, j)
        if (!strcmp(sget(j, "mode"), "verify") && *sget(j, "results"))
            bad += cert_reverify(dir, golden, exe, sget(st, "torch"), sget(st, "waivers"), j);
    return bad;
}

/* The statement against the results it cites, statement.txt against the statement, the
 * golden MANIFEST against its hash (and against golden/MANIFEST when --golden is given). */
static int check_statement(const char *dir, const char *golden, bool given, json_t *st)
{
    json_t *rows = json_object_get(st, "rows"), *j;
    size_t n = json_array_size(rows), i;
    if (!json_is_array(rows) || !n)
        return problem(dir, "statement.json", "altered: no \"rows\"%s%s", "", "");
    cert_row *r = calloc(n, sizeof *r);
    int bad = 0;
    json_array_foreach(rows, i, j) {
        bad += check_row(dir, golden, j, i, &r[i]);
        /* every row was judged against the statement's release (run/verify --json record it) */
        char rec[64], path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, sget(j, "results"));
        if (*sget(st, "torch") && *sget(j, "results") && tv_recorded(path, rec, sizeof rec) &&
            strcmp(rec, sget(st, "torch")))
            bad += problem(dir, sget(j, "results"), "inconsistent: judged against torch %s, the "
                           "statement says %s", rec, sget(st, "torch"));
    }
    if (strcmp(sget(st, "verdict"), cert_overall(r, (int)n)))
        bad += problem(dir, "statement.json", "inconsistent: the verdict says %s, the rows give "
                       "%s", sget(st, "verdict"), cert_overall(r, (int)n));
    for (i = 0; i < n; i++)
        cert_row_free(&r[i]);
    free(r);
    char path[4096], hex[65] = "", ghex[65] = "";
    const char *want = sget(json_object_get(st, "corpus"), "manifestSha256");
    shc_err e = {0};
    snprintf(path, sizeof path, "%s/golden-MANIFEST", dir);
    if (shc_sha256_file(path, hex, &e) || strcmp(hex, want))
        bad += problem(dir, "statement.json", "inconsistent: corpus manifestSha256 %s, "
                       "golden-MANIFEST has %s", want, hex[0] ? hex : "(unreadable)");
    snprintf(path, sizeof path, "%s/MANIFEST", golden);
    if (shc_sha256_file(path, ghex, &e) || strcmp(ghex, want))
        return bad + problem(dir, "golden-MANIFEST", "certified against another corpus: "
                             "%s, %s", want, given_corpus(golden, given, ghex));
    return bad + reverify_all(dir, golden, st);
}

/* Another version may word the text differently: its statement.txt must still state the
 * statement's verdict, on the one line that starts "verdict:" (the JSON itself is checked in
 * full); a second such line is a forged one (issue 38 M4). */
static int check_verdict_line(const char *dir, const json_t *st)
{
    char want[64], line[1024], path[4096];
    int k = snprintf(want, sizeof want, "verdict: %s:", sget(st, "verdict"));
    for (int i = 9; i < k; i++)
        want[i] = (char)(want[i] >= 'a' && want[i] <= 'z' ? want[i] - 32 : want[i]);
    snprintf(path, sizeof path, "%s/statement.txt", dir);
    FILE *f = fopen(path, "r");
    int found = 0, other = 0;
    bool start = true; /* at the start of a line (a line longer than the buffer continues) */
    while (f && fgets(line, sizeof line, f)) {
        if (start && !strncmp(line, "verdict:", 8))
            strncmp(line, want, strlen(want)) ? other++ : found++;
        start = strchr(line, '\n') != NULL;
    }
    if (f)
        fclose(f);
    fprintf(stderr, "shardcheck certify --check: %s/statement.txt: written by shardcheck %.64s, "
            "checked for its verdict line only\n", dir, sget(st, "shardcheck"));
    if (found + other > 1)
        return problem(dir, "statement.txt", "altered: %s lines start \"verdict:\" (a text "
                       "states one verdict)%s", found + other == 2 ? "2" : "several", "");
    return found ? 0 : problem(dir, "statement.txt", "inconsistent: no line \"%s\"%s", want, "");
}

/* statement.txt must be this version's rendering of statement.json, byte for byte. */
static int check_text(const char *dir, const json_t *st)
{
    if (strcmp(sget(st, "shardcheck"), shc_version()))
        return check_verdict_line(dir, st);
    char *want = NULL, path[4096];
    size_t wn = 0;
    FILE *m = open_memstream(&want, &wn);
    if (!m)
        return problem(dir, "statement.txt", "cannot be checked: out of memory%s%s", "", "");
    cert_statement_text(m, st);
    fclose(m);
    snprintf(path, sizeof path, "%s/statement.txt", dir);
    FILE *f = fopen(path, "rb");
    char *got = malloc(wn + 2);
    size_t gn = f && got ? fread(got, 1, wn + 1, f) : 0;
    bool same = f && got && gn == wn && !memcmp(got, want, wn);
    if (f)
        fclose(f);
    free(got);
    free(want);
    return same ? 0 : problem(dir, "statement.txt", "inconsistent: it is not the rendering of "
                              "statement.json%s%s", "", "");
}

/* ---- --check: the files every package has, and those rendered from its results ---- */

static bool is_file(const char *dir, const char *rel)
{
    char p[4096];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    return !lstat(p, &st) && S_ISREG(st.st_mode);
}

/* A row's file that must be there: cited, inside the package, a regular file. */
static int check_cited(const char *dir, const json_t *j, const char *key, const char *what)
{
    const char *rel = sget(j, key);
    if (!*rel)
        return problem(dir, "statement.json", "altered: row %s cites no %s", sget(j, "family"),
                       what);
    if (strstr(rel, "..") || rel[0] == '/')
        return problem(dir, "statement.json", "altered: row %s cites %s, outside the package",
                       sget(j, "family"), rel);
    return is_file(dir, rel) ? 0 : problem(dir, rel, "missing: the %s of row %s", what,
                                           sget(j, "family"));
}

/* Every file a package has (certify.h): removing one with its MANIFEST line leaves MANIFEST
 * consistent, so this names it (issue 38 M5).  Each row has its log; a row that ran its
 * results and JUnit file; a verify row its candidate. */
static int check_required(const char *dir, const json_t *st)
{
    static const char *const fixed[] = {"statement.json", "statement.txt", "report.html",
                                        "environment.json", "golden-MANIFEST"};
    int bad = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        if (!is_file(dir, fixed[i]))
            bad += problem(dir, fixed[i], "missing: every package has it%s%s", "", "");
    if (json_object_get(st, "waivers") && !is_file(dir, "waivers.json"))
        bad += problem(dir, "waivers.json", "missing: the statement's rows were judged with "
                       "it%s%s", "", "");
    size_t i;
    json_t *j;
    json_array_foreach(json_object_get(st, "rows"), i, j) {
        bad += check_cited(dir, j, "log", "log");
        if (!strcmp(sget(j, "mode"), "verify"))
            bad += check_cited(dir, j, "candidate", "candidate");
        if (*sget(j, "results"))
            bad += check_cited(dir, j, "junit", "JUnit file");
    }
    return bad;
}

/* Whether the file at path holds exactly the n bytes of want. */
static bool file_is(const char *path, const char *want, size_t n)
{
    FILE *f = fopen(path, "rb");
    char buf[1 << 16];
    size_t got, at = 0;
    bool same = f != NULL;
    while (same && (got = fread(buf, 1, sizeof buf, f)) > 0) {
        same = got <= n - at && !memcmp(buf, want + at, got);
        at += got;
    }
    same = same && !ferror(f) && at == n;
    if (f)
        fclose(f);
    return same;
}

/* Whether files a and b hold the same bytes. */
static bool same_files(const char *a, const char *b)
{
    FILE *f = fopen(a, "rb"), *g = fopen(b, "rb");
    char x[1 << 15], y[1 << 15];
    size_t n, m;
    bool same = f && g;
    while (same && (n = fread(x, 1, sizeof x, f)) > 0)
        same = (m = fread(y, 1, n, g)) == n && !memcmp(x, y, n);
    same = same && !ferror(f) && !ferror(g) && fgetc(g) == EOF;
    if (f)
        fclose(f);
    if (g)
        fclose(g);
    return same;
}

/* Each row's JUnit file must be the JUnit of its results (report_junit_of: what run and verify
 * write, from the same cases): a JUnit file rewritten to pass, its MANIFEST line with it, is
 * named. */
static int check_junit(const char *dir, const json_t *st)
{
    size_t i;
    json_t *j;
    int bad = 0;
    json_array_foreach(json_object_get(st, "rows"), i, j) {
        const char *res = sget(j, "results"), *jun = sget(j, "junit");
        char path[4096];
        if (!*res || !*jun || strstr(res, "..") || strstr(jun, "..") || *res == '/' ||
            *jun == '/' || !is_file(dir, res) || !is_file(dir, jun))
            continue; /* named by check_required or check_row */
        snprintf(path, sizeof path, "%s/%s", dir, res);
        shc_err e = {0};
        json_t *r = shc_json_load_path(path, &e);
        char *want = NULL;
        size_t wn = 0;
        FILE *m = r ? open_memstream(&want, &wn) : NULL;
        if (m) {
            report_junit_of(m, r);
            fclose(m);
        }
        snprintf(path, sizeof path, "%s/%s", dir, jun);
        if (!r || !m || !file_is(path, want, wn))
            bad += problem(dir, jun, "inconsistent: it is not the JUnit of %s (the results it "
                           "reports)%s", res, "");
        free(want);
        json_decref(r);
    }
    return bad;
}

/* Another version's page: its verdict heading (one) must be the statement's verdict. */
static int check_page_verdict(const char *dir, const json_t *st)
{
    char want[80], path[4096], *line = NULL;
    int k = snprintf(want, sizeof want, "<h2>Verdict: %s</h2>", sget(st, "verdict"));
    for (int i = 13; i < k && want[i] != '<'; i++)
        want[i] = (char)(want[i] >= 'a' && want[i] <= 'z' ? want[i] - 32 : want[i]);
    snprintf(path, sizeof path, "%s/report.html", dir);
    FILE *f = fopen(path, "r");
    size_t cap = 0;
    int found = 0, other = 0;
    while (f && getline(&line, &cap, f) >= 0)
        for (char *p = strstr(line, "<h2>Verdict: "); p; p = strstr(p + 1, "<h2>Verdict: "))
            strncmp(p, want, strlen(want)) ? other++ : found++;
    free(line);
    if (f)
        fclose(f);
    if (found == 1 && !other)
        return 0;
    return problem(dir, "report.html", "inconsistent: its verdict is not the statement's "
                   "(no single heading \"%s\")%s", want, "");
}

/* report.html rendered again from the package (its results, statement, and the command in
 * environment.json) against the corpus, and compared byte for byte: a page rewritten to say
 * CONFORMANT is named even with its MANIFEST line rewritten (issue 38 M5). */
static int check_page(const char *dir, const char *golden, const json_t *st, cert_page_fn render)
{
    if (strcmp(sget(st, "shardcheck"), shc_version()))
        return check_page_verdict(dir, st);
    if (!is_file(dir, "environment.json") || !is_file(dir, "report.html"))
        return 0; /* named by check_required */
    char path[4096], tmp[] = "/tmp/shardcheck-check.XXXXXX", page[64];
    snprintf(path, sizeof path, "%s/environment.json", dir);
    shc_err e = {0};
    json_t *env = shc_json_load_path(path, &e), *cmd = json_object_get(env, "command"), *j;
    const json_t *rows = json_object_get(st, "rows");
    size_t argc = json_array_size(cmd), n = json_array_size(rows), k = 0, i;
    char **argv = calloc(argc + 1, sizeof *argv), **in = calloc(n + 1, sizeof *in);
    int bad = 0;
    if (!json_is_array(cmd))
        bad = problem(dir, "environment.json", "inconsistent: no \"command\" (the command "
                      "report.html names)%s%s", "", "");
    else if (!argv || !in || !mkdtemp(tmp))
        bad = problem(dir, "report.html", "cannot be checked: %s%s", strerror(errno), "");
    json_array_foreach(cmd, i, j)
        if (argv)
            argv[i] = (char *)(json_string_value(j) ? json_string_value(j) : "");
    json_array_foreach(rows, i, j)
        if (in && *sget(j, "results") && (in[k] = malloc(4096)))
            snprintf(in[k++], 4096, "%s/%s", dir, sget(j, "results"));
    size_t cells;
    long long fails;
    snprintf(page, sizeof page, "%s/report.html", tmp);
    snprintf(path, sizeof path, "%s/report.html", dir);
    if (!bad && render(page, golden, in, (int)k, (int)argc, argv,
                       *sget(st, "torch") ? sget(st, "torch") : NULL, st, &cells, &fails, &e))
        bad = problem(dir, "report.html", "cannot be rendered again: %s%s", e.msg, "");
    if (!bad && !same_files(page, path))
        bad = problem(dir, "report.html", "inconsistent: it is not the page of the package's "
                      "results and statement%s%s", "", "");
    unlink(page);
    rmdir(tmp);
    for (i = 0; i < k; i++)
        free(in[i]);
    free(in);
    free(argv);
    json_decref(env);
    return bad;
}

int cert_check(const char *dir, const char *golden, bool golden_given, const char *torch_opt,
               cert_page_fn page)
{
    struct stat st;
    if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
        size_t n = strlen(dir); /* echoed bounded (issue 38 M15), as cli_echo does */
        if (n > 240)
            fprintf(stderr, "shardcheck certify --check: %.224s... (%zu bytes): not a "
                    "directory\n", dir, n);
        else
            fprintf(stderr, "shardcheck certify --check: %s: not a directory\n", dir);
        return EXIT_USAGE;
    }
    const char *env = getenv("SHARDCHECK_TORCH_VERSION");
    if ((torch_opt && *torch_opt) || (env && *env)) {
        char path[4096], rec[64] = "", why[256];
        snprintf(path, sizeof path, "%s/statement.json", dir);
        shc_err e = {0};
        shc_torch_release r;
        bool has = tv_recorded(path, rec, sizeof rec);
        if (tv_resolve(torch_opt, has ? rec : shc_torch_release_name(SHC_TORCH_PINNED), path,
                       &r, why, sizeof why, &e)) {
            fprintf(stderr, "shardcheck certify --check: %s\n", e.msg);
            return EXIT_USAGE;
        }
    }
    int nfiles = 0, bad = check_hashes(dir, &nfiles);
    char path[4096], sha[65] = "";
    snprintf(path, sizeof path, "%s/statement.json", dir);
    shc_err e = {0};
    json_t *stm = is_file(dir, "statement.json") ? shc_json_load_path(path, &e) : NULL;
    bad += check_required(dir, stm); /* before the checks that read them */
    if (!stm && is_file(dir, "statement.json"))
        bad += problem(dir, "statement.json", "unreadable: %s%s", e.msg, "");
    else if (stm)
        bad += check_statement(dir, golden, golden_given, stm) + check_text(dir, stm) +
               check_junit(dir, stm) + check_page(dir, golden, stm, page);
    snprintf(path, sizeof path, "%s/MANIFEST", dir);
    shc_sha256_file(path, sha, &e);
    if (!bad)
        printf("certify --check %s: intact: %d files match MANIFEST (sha256 %s); the statement "
               "agrees with the results and every candidate verified again against %s gives "
               "its row; verdict: %s\n", dir, nfiles, sha, golden, sget(stm, "verdict"));
    else
        fprintf(stderr, "shardcheck certify --check: %s: %d problem%s: the package was altered\n",
                dir, bad, bad == 1 ? "" : "s");
    json_decref(stm);
    return bad ? EXIT_FAIL : EXIT_OK;
}

/* ---- --check: the candidates verified again ---- */

/* Whether re-verification gave the row back: the members that must agree (the paths
 * differ by design); those that do not, comma-separated, in buf. */
static bool same_outcome(const json_t *a, const json_t *b, char *buf, size_t n)
{
    static const char *const keys[] = {"passed", "failed", "notSupported", "verdict",
                                       "notSupportedReasons", "notSupportedFields", "claim",
                                       "producer", "waived", "waivedCases"};
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof keys / sizeof *keys && o < n; i++) {
        const json_t *x = json_object_get(a, keys[i]), *y = json_object_get(b, keys[i]);
        if ((x || y) && !(x && y && json_equal((json_t *)x, (json_t *)y)))
            o += (size_t)snprintf(buf + o, n - o, "%s%s", o ? ", " : "", keys[i]);
    }
    return !buf[0];
}

/* Run verify on the package's candidate into tmp; 0, or a problem naming the candidate. */
static int verify_again(const char *dir, const char *golden, const char *exe, const char *torch,
                        const char *waivers, const char *tmp, cert_row *r)
{
    char cand[4096], log[4096], last[512], code_s[16], wpath[4096];
    cert_path(cand, sizeof cand, dir, r->candidate);
    cert_path(wpath, sizeof wpath, dir, waivers);
    snprintf(r->results, sizeof r->results, "%s/results.json", tmp);
    snprintf(r->junit, sizeof r->junit, "%s/results.junit.xml", tmp);
    snprintf(r->log, sizeof r->log, "%s/verify.stderr", tmp);
    snprintf(log, sizeof log, "%s", r->log);
    char *v[] = {(char *)exe, "verify", "--family", r->family, "--candidate", cand, "--golden",
                 (char *)golden, "--json", "--junit", r->junit, "--waivers", wpath,
                 "--torch-version", (char *)torch, NULL};
    if (!*waivers) /* without waivers: --torch-version (when the statement has one) ends it */
        memmove(&v[11], &v[13], 3 * sizeof *v);
    if (!*torch)
        v[*waivers ? 13 : 11] = NULL;
    progress off = {0};
    int code = cert_spawn(v, r->results, log, NULL, &off);
    if (code == 0 || code == 1)
        return 0;
    cert_last_line(log, last, sizeof last);
    snprintf(code_s, sizeof code_s, "%d", code);
    return problem(dir, r->candidate, "no longer verifies against the corpus: %s (verify "
                   "exit %s)", last[0] ? last : "no message", code_s);
}

int cert_reverify(const char *dir, const char *golden, const char *exe, const char *torch,
                  const char *waivers, const json_t *j)
{
    cert_row r = {0};
    char tmp[] = "/tmp/shardcheck-check.XXXXXX";
    snprintf(r.family, sizeof r.family, "%s", sget(j, "family"));
    snprintf(r.mode, sizeof r.mode, "verify");
    snprintf(r.backend, sizeof r.backend, "%s", sget(j, "backend"));
    snprintf(r.candidate, sizeof r.candidate, "%s", sget(j, "candidate"));
    if (!r.candidate[0] || strstr(r.candidate, "..") || r.candidate[0] == '/')
        return problem(dir, "statement.json", "altered: verify row %s cites no candidate "
                       "in the package (\"%s\")", r.family, r.candidate);
    if (!mkdtemp(tmp))
        return problem(dir, r.candidate, "cannot be verified again: %s%s", strerror(errno), "");
    shc_err e = {0};
    int bad = verify_again(dir, golden, exe, torch, waivers, tmp, &r);
    if (!bad && (cert_count(dir, &r, &e) || cert_claim(dir, golden, &r, &e)))
        bad = problem(dir, r.candidate, "cannot be verified again: %s%s", e.msg, "");
    json_t *got = bad ? NULL : cert_row_json(&r);
    char keys[256];
    if (got && !same_outcome(got, j, keys, sizeof keys)) {
        char msg[1024];
        snprintf(msg, sizeof msg, "verified against the corpus it gives %s with %lld passed, "
                 "%lld failed, %lld NotSupported; the statement's row %s says %s with %lld "
                 "passed, %lld failed, %lld NotSupported", sget(got, "verdict"), r.passed,
                 r.failed, r.notsupported, r.family, sget(j, "verdict"),
                 (long long)json_integer_value(json_object_get(j, "passed")),
                 (long long)json_integer_value(json_object_get(j, "failed")),
                 (long long)json_integer_value(json_object_get(j, "notSupported")));
        bad = problem(dir, r.candidate, "inconsistent with the statement: %s (it differs in: "
                      "%s)", msg, keys);
    }
    json_decref(got);
    cert_row_free(&r);
    for (const char *p = r.results; p; p = p == r.results ? r.junit : p == r.junit ? r.log : NULL)
        unlink(p);
    rmdir(tmp);
    return bad;
}
