/*
 * certify_package.c — the parts of `shardcheck certify` that a package is made of and
 * checked by: counting a row's results, verdicts, the conformance statement (JSON, and
 * the text rendered from it), the package MANIFEST (sha256sum's format, so
 * `sha256sum -c MANIFEST` works too) and `certify --check`.
 *
 * --check trusts nothing in the package: every file must match MANIFEST (and every file
 * must be listed), and since whoever edits a file can also rewrite MANIFEST, the statement
 * is re-derived from the results it cites — counts, row verdicts, the overall verdict, the
 * golden MANIFEST hash, and statement.txt byte for byte.  What no package check can catch
 * is a consistent rewrite of results, statement and MANIFEST together; publishing the
 * MANIFEST's own sha256 (certify prints it) pins the package; and every candidate in it is
 * verified again against the corpus (certify_claim.c), so an edited candidate is named even
 * with its MANIFEST line rewritten.  Tested by certify.sh and certify_claims.sh.
 */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "cli.h"
#include "certify.h"
#include "torch_version.h"
#include "golden.h"

/* ---- counting ---- */

void cert_path(char *buf, size_t n, const char *dir, const char *rel)
{
    if (rel[0] == '/')
        snprintf(buf, n, "%s", rel);
    else
        snprintf(buf, n, "%s/%s", dir, rel);
}

void cert_row_free(cert_row *r)
{
    json_decref(r->reasons);
    json_decref(r->fields);
    json_decref(r->claim);
    json_decref(r->producer);
    r->reasons = r->fields = r->claim = r->producer = NULL;
}

static void add_reason(json_t *reasons, const char *why)
{
    if (!why || !*why)
        why = "(no reason given)";
    if (!json_object_get(reasons, why) && json_object_size(reasons) >= CERT_MAX_REASONS)
        why = "(other reasons)";
    json_t *c = json_object_get(reasons, why);
    json_object_set_new(reasons, why, json_integer(c ? json_integer_value(c) + 1 : 1));
}

static void count_status(cert_row *r, const char *st, const char *why)
{
    if (!strcmp(st, "Pass"))
        r->passed++;
    else if (!strcmp(st, "NotSupported")) {
        r->notsupported++;
        add_reason(r->reasons, why);
    } else
        r->failed++;
}

/* verify names the fields a partial candidate left out on stderr (tools/verify/verify_tree.c). */
static void count_fields(const char *dir, cert_row *r)
{
    char path[4096], line[1024], field[256];
    long long n;
    cert_path(path, sizeof path, dir, r->log);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "verify: NotSupported field %255s (not declared by the candidate): "
                   "%lld tests", field, &n) == 2)
            json_object_set_new(r->fields, field, json_integer(n));
    fclose(f);
}

int cert_count(const char *dir, cert_row *r, shc_err *e)
{
    r->passed = r->failed = r->notsupported = 0;
    json_decref(r->reasons);
    json_decref(r->fields);
    r->reasons = json_object();
    r->fields = json_object();
    if (!r->results[0])
        return SHC_OK; /* not run: nothing to count */
    char path[4096];
    cert_path(path, sizeof path, dir, r->results);
    json_t *root = shc_json_load_path(path, e);
    if (!root)
        return shc_err_prefix(e, "results");
    json_t *list = json_object_get(root, "results"), *x;
    const char *key = "message";
    if (!json_is_array(list)) {
        list = json_object_get(root, "cases");
        key = "detail";
    }
    size_t i;
    int rc = json_is_array(list) ? SHC_OK
           : shc_fail(e, SHC_EFORMAT, "%s: neither run nor verify JSON", r->results);
    json_array_foreach(list, i, x) {
        const char *st = json_string_value(json_object_get(x, "status"));
        if (!st) {
            rc = shc_fail(e, SHC_EFORMAT, "%s: entry %zu has no \"status\"", r->results, i);
            break;
        }
        count_status(r, st, json_string_value(json_object_get(x, key)));
    }
    json_decref(root);
    if (!strcmp(r->mode, "verify"))
        count_fields(dir, r);
    return rc;
}

const char *cert_row_verdict(const cert_row *r)
{
    if (!r->results[0])
        return "notrun";
    if (r->failed)
        return "fail";
    if (!r->passed)
        return "notsupported";
    return cert_claim_partial(r) ? "partial" : "pass";
}

const char *cert_overall(const cert_row *rows, int n)
{
    bool fail = false, notrun = false, pass = false, partial = false;
    for (int i = 0; i < n; i++) {
        const char *v = cert_row_verdict(&rows[i]);
        fail |= !strcmp(v, "fail");
        notrun |= !strcmp(v, "notrun");
        partial |= !strcmp(v, "partial");
        pass |= !strcmp(v, "pass") || !strcmp(v, "partial");
    }
    return fail ? "nonconformant" : notrun || !pass ? "incomplete" : partial ? "partial"
                                                                             : "conformant";
}

int cert_verdict_exit(const char *v)
{
    return !strcmp(v, "conformant") ? EXIT_OK : !strcmp(v, "nonconformant") ? EXIT_FAIL
         : !strcmp(v, "partial") ? EXIT_PARTIAL : EXIT_SKIP;
}

/* ---- the statement ---- */

json_t *cert_row_json(const cert_row *r)
{
    json_t *o = json_pack("{s:s, s:s, s:s, s:i, s:I, s:I, s:I, s:s, s:s, s:s, s:s, s:i}",
                          "family", r->family, "mode", r->mode, "backend", r->backend, "np",
                          r->np, "passed", (json_int_t)r->passed, "failed",
                          (json_int_t)r->failed, "notSupported", (json_int_t)r->notsupported,
                          "verdict", cert_row_verdict(r), "results", r->results, "junit",
                          r->junit, "log", r->log, "exit", r->exit_code);
    json_object_set_new(o, "notSupportedReasons", r->reasons ? json_copy(r->reasons) : json_object());
    if (!strcmp(r->mode, "verify"))
        json_object_set_new(o, "notSupportedFields", r->fields ? json_copy(r->fields) : json_object());
    if (r->candidate[0])
        json_object_set_new(o, "candidate", json_string(r->candidate));
    if (r->claim)
        json_object_set_new(o, "claim", json_deep_copy(r->claim));
    if (r->producer)
        json_object_set_new(o, "producer", json_deep_copy(r->producer));
    if (!r->results[0])
        json_object_set_new(o, "why", json_string(r->why));
    return o;
}

void cert_reference(shc_torch_release r, char *buf, size_t n)
{
    snprintf(buf, n, "pytorch %s, cuda 13.0 curand, random123 1.14",
             shc_torch_release_get(r)->patch);
}

json_t *cert_statement(const cert_row *rows, int n, const char *manifest_sha, const char *name,
                       const char *written, shc_torch_release torch)
{
    json_t *a = json_array();
    char ref[160];
    cert_reference(torch, ref, sizeof ref);
    for (int i = 0; i < n; i++)
        json_array_append_new(a, cert_row_json(&rows[i]));
    return json_pack("{s:s, s:i, s:s?, s:s, s:s, s:s, s:{s:s, s:s, s:s}, s:s, s:o, s:s}",
                     "statement", "shardcheck conformance statement", "formatVersion", 1,
                     "implementation", name, "shardcheck", shc_version(), "reference", ref,
                     "torch", shc_torch_release_name(torch), "corpus", "format",
                     "golden v1", "manifest", "golden-MANIFEST", "manifestSha256", manifest_sha,
                     "written", written, "rows", a, "verdict", cert_overall(rows, n));
}

static const char *sget(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static long long iget(const json_t *o, const char *k)
{
    return (long long)json_integer_value(json_object_get(o, k));
}

static void text_rows(FILE *f, const json_t *rows)
{
    size_t i;
    json_t *r;
    fprintf(f, "%-20s %-7s %-22s %4s %9s %9s %9s  %s\n", "family", "mode", "backend", "np",
            "passed", "failed", "notsupp", "verdict");
    json_array_foreach(rows, i, r) {
        char np[16];
        snprintf(np, sizeof np, "%lld", iget(r, "np"));
        fprintf(f, "%-20s %-7s %-22s %4s %9lld %9lld %9lld  %s\n", sget(r, "family"),
                sget(r, "mode"), sget(r, "backend"), iget(r, "np") ? np : "all",
                iget(r, "passed"), iget(r, "failed"), iget(r, "notSupported"), sget(r, "verdict"));
    }
}

static void text_row_name(FILE *f, const json_t *r)
{
    fprintf(f, "%s (%s %s", sget(r, "family"), sget(r, "mode"), sget(r, "backend"));
    if (iget(r, "np"))
        fprintf(f, ", np %lld", iget(r, "np"));
    fputc(')', f);
}

/* NotSupported cases with their reasons, fields a partial candidate left out, rows not run. */
static void text_notsupported(FILE *f, const json_t *rows)
{
    size_t i;
    json_t *r, *v;
    const char *k;
    bool head = false;
    json_array_foreach(rows, i, r) {
        json_t *reasons = json_object_get(r, "notSupportedReasons");
        json_t *fields = json_object_get(r, "notSupportedFields");
        bool notrun = !strcmp(sget(r, "verdict"), "notrun");
        if (!iget(r, "notSupported") && !json_object_size(fields) && !notrun)
            continue;
        if (!head)
            fputs("\nNotSupported and not run:\n", f);
        head = true;
        fputs("  ", f);
        text_row_name(f, r);
        if (notrun) {
            fprintf(f, ": not run: %s\n", sget(r, "why"));
            continue;
        }
        fprintf(f, ": %lld cases NotSupported\n", iget(r, "notSupported"));
        json_object_foreach(reasons, k, v)
            fprintf(f, "    %8lld  %s\n", (long long)json_integer_value(v), k);
        json_object_foreach(fields, k, v)
            fprintf(f, "    field %s not computed by the candidate (%lld tests)\n", k,
                    (long long)json_integer_value(v));
    }
}

/* What each row covers of its family's claim (certify_claim.c), partial rows marked. */
static void text_claims(FILE *f, const json_t *rows)
{
    size_t i;
    json_t *r;
    bool head = false;
    json_array_foreach(rows, i, r) {
        const json_t *c = json_object_get(r, "claim");
        if (!c)
            continue;
        char buf[1400];
        cert_claim_text(c, buf, sizeof buf);
        if (!head)
            fputs("\nWhat each row covers of its family's claim (docs/families):\n", f);
        head = true;
        fputs(!strcmp(sget(r, "verdict"), "partial") ? "  PARTIAL " : "  ", f);
        text_row_name(f, r);
        fprintf(f, ": %s\n", buf);
    }
}

/* How each candidate was produced: its results file's "producer" record. */
static void text_producers(FILE *f, const json_t *rows)
{
    size_t i, k;
    json_t *r, *v;
    bool head = false;
    json_array_foreach(rows, i, r) {
        const json_t *p = json_object_get(r, "producer");
        if (strcmp(sget(r, "mode"), "verify"))
            continue;
        if (!head)
            fputs("\nHow each candidate was produced (its \"producer\" record):\n", f);
        head = true;
        fprintf(f, "  %s (%s): ", sget(r, "family"), sget(r, "candidate"));
        if (!p) {
            fputs("not recorded\n", f);
            continue;
        }
        fprintf(f, "%s", *sget(p, "tool") ? sget(p, "tool") : "(tool not named)");
        if (*sget(p, "adapter"))
            fprintf(f, ", adapter %s", sget(p, "adapter"));
        if (*sget(p, "python"))
            fprintf(f, ", python %s", sget(p, "python"));
        const char *name;
        json_object_foreach(json_object_get(p, "versions"), name, v)
            fprintf(f, ", %s %s", name, json_string_value(v) ? json_string_value(v) : "?");
        if (json_array_size(json_object_get(p, "command"))) {
            fputs("; command:", f);
            json_array_foreach(json_object_get(p, "command"), k, v)
                fprintf(f, " %s", json_string_value(v) ? json_string_value(v) : "?");
        }
        if (*sget(p, "note"))
            fprintf(f, "; note: %s", sget(p, "note"));
        fputc('\n', f);
    }
}

/* The verdict line (--check of another version's text looks for "verdict: WORD:"). */
static void text_verdict(FILE *f, const json_t *rows, const char *v)
{
    const char *want = !strcmp(v, "partial") ? "partial" : "fail";
    if (!strcmp(v, "conformant")) {
        fputs("\nverdict: CONFORMANT: every claimed family passed at every claimed rank count, "
              "covering every field and test its claim requires (NotSupported cases of "
              "optional tests, if any, are listed above)\n", f);
        return;
    }
    if (!strcmp(v, "incomplete")) {
        fputs("\nverdict: INCOMPLETE: nothing failed, but a claimed family did not run or ran "
              "no case\n", f);
        return;
    }
    fputs(!strcmp(v, "partial") ? "\nverdict: PARTIAL: nothing failed, but the claim covers "
          "less than its families require:" : "\nverdict: NONCONFORMANT: failures in", f);
    size_t i;
    json_t *r;
    const char *sep = " ";
    json_array_foreach(rows, i, r) {
        if (strcmp(sget(r, "verdict"), want))
            continue;
        fputs(sep, f);
        text_row_name(f, r);
        if (*want == 'p') {
            char buf[1400];
            cert_claim_text(json_object_get(r, "claim"), buf, sizeof buf);
            fprintf(f, ": %s", buf);
            sep = "; ";
        }
    }
    fputc('\n', f);
}

void cert_statement_text(FILE *f, const json_t *st)
{
    const json_t *corpus = json_object_get(st, "corpus"), *rows = json_object_get(st, "rows");
    const char *name = sget(st, "implementation");
    fprintf(f, "shardcheck conformance statement\n\nimplementation  %s\nshardcheck      %s "
            "(reference: %s)\n", *name ? name : "(not named: certify --name)",
            sget(st, "shardcheck"), sget(st, "reference"));
    if (*sget(st, "torch"))
        fprintf(f, "judged against  torch %s (each case's answer for that release)\n",
                sget(st, "torch"));
    fprintf(f, "corpus          %s, MANIFEST sha256 %s (%s)\nwritten         %s\n\n",
            sget(corpus, "format"), sget(corpus, "manifestSha256"), sget(corpus, "manifest"),
            sget(st, "written"));
    text_rows(f, rows);
    text_notsupported(f, rows);
    text_claims(f, rows);
    text_producers(f, rows);
    text_verdict(f, rows, sget(st, "verdict"));
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

int cert_problem(const char *dir, const char *file, const char *fmt, const char *a,
                   const char *b)
{
    fprintf(stderr, "shardcheck certify --check: %s/%s: ", dir, file);
    fprintf(stderr, fmt, a, b);
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
        return cert_problem(dir, "MANIFEST", "missing: not a certify package, or its MANIFEST was "
                       "removed%s%s", "", "");
    if (!S_ISREG(st.st_mode))
        return cert_problem(dir, "MANIFEST", "altered: not a regular file%s%s", "", "");
    shc_manifest m;
    shc_err me = {0};
    *nfiles = 0;
    if (shc_manifest_read(path, &m, &me))
        return cert_problem(dir, "MANIFEST", "altered: %s%s", me.msg, "");
    flist found = {0};
    int bad = m.n ? 0 : cert_problem(dir, "MANIFEST", "altered: it lists no file%s%s", "", "");
    for (size_t i = 0; i < m.n; i++) {
        const char *rel = m.v[i].rel;
        char hex[65];
        shc_err e = {0};
        snprintf(path, sizeof path, "%s/%s", dir, rel);
        if (lstat(path, &st) || !S_ISREG(st.st_mode))
            bad += cert_problem(dir, rel, "missing (listed in MANIFEST)%s%s", "", "");
        else if (shc_sha256_file(path, hex, &e))
            bad += cert_problem(dir, rel, "unreadable: %s%s", e.msg, "");
        else if (strcmp(hex, m.v[i].hex))
            bad += cert_problem(dir, rel, "altered: sha256 %.16s..., MANIFEST says %.16s...", hex,
                           m.v[i].hex);
    }
    walk(dir, "", &found);
    if (found.odd[0])
        bad += cert_problem(dir, found.odd, "added: not a regular file%s%s", "", "");
    for (size_t i = 0; i < found.n; i++)
        if (strcmp(found.v[i], "MANIFEST") && !shc_manifest_find(&m, found.v[i]))
            bad += cert_problem(dir, found.v[i], "added: not listed in MANIFEST%s%s", "", "");
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

/* Whether the statement's row j says what its results say (a message otherwise). */
static int check_row(const char *dir, const char *golden, const json_t *j, size_t i, cert_row *r)
{
    row_from_json(j, r);
    shc_err e = {0};
    char msg[1024];
    const char *cited[] = {r->results, r->log, r->candidate};
    for (size_t k = 0; k < sizeof cited / sizeof *cited; k++)
        if (strstr(cited[k], "..") || cited[k][0] == '/')
            return cert_problem(dir, "statement.json", "altered: row %s cites %s, outside the "
                                "package", r->family, cited[k]);
    if (cert_count(dir, r, &e) || cert_claim(dir, golden, r, &e))
        return cert_problem(dir, "statement.json", "inconsistent: row %s: %s", r->family, e.msg);
    json_t *want = cert_row_json(r);
    bool same = json_equal(want, j);
    if (!same) {
        snprintf(msg, sizeof msg, "row %zu (%s %s %s np %d) says %s with %lld passed, %lld "
                 "failed, %lld NotSupported; %s gives %s with %lld passed, %lld failed, %lld "
                 "NotSupported", i, r->family, r->mode, r->backend, r->np, sget(j, "verdict"),
                 iget(j, "passed"), iget(j, "failed"), iget(j, "notSupported"),
                 r->results[0] ? r->results : "(no results)", sget(want, "verdict"), r->passed,
                 r->failed, r->notsupported);
        cert_problem(dir, "statement.json", "inconsistent with the results: %s%s", msg, "");
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
        return cert_problem(dir, "statement.json", "cannot verify its candidates again: "
                            "/proc/self/exe unreadable%s%s", "", "");
    exe[k] = '\0';
    size_t i;
    json_t *j;
    int bad = 0;
    json_array_foreach(json_object_get(st, "rows"), i, j)
        if (!strcmp(sget(j, "mode"), "verify") && *sget(j, "results"))
            bad += cert_reverify(dir, golden, exe, sget(st, "torch"), j);
    return bad;
}

/* The statement against the results it cites, statement.txt against the statement, the
 * golden MANIFEST against its hash (and against golden/MANIFEST when --golden is given). */
static int check_statement(const char *dir, const char *golden, bool given, json_t *st)
{
    json_t *rows = json_object_get(st, "rows"), *j;
    size_t n = json_array_size(rows), i;
    if (!json_is_array(rows) || !n)
        return cert_problem(dir, "statement.json", "altered: no \"rows\"%s%s", "", "");
    cert_row *r = calloc(n, sizeof *r);
    int bad = 0;
    json_array_foreach(rows, i, j) {
        bad += check_row(dir, golden, j, i, &r[i]);
        /* every row was judged against the statement's release (run/verify --json record it) */
        char rec[64], path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, sget(j, "results"));
        if (*sget(st, "torch") && *sget(j, "results") && tv_recorded(path, rec, sizeof rec) &&
            strcmp(rec, sget(st, "torch")))
            bad += cert_problem(dir, sget(j, "results"), "inconsistent: judged against torch %s, the "
                           "statement says %s", rec, sget(st, "torch"));
    }
    if (strcmp(sget(st, "verdict"), cert_overall(r, (int)n)))
        bad += cert_problem(dir, "statement.json", "inconsistent: the verdict says %s, the rows give "
                       "%s", sget(st, "verdict"), cert_overall(r, (int)n));
    for (i = 0; i < n; i++)
        cert_row_free(&r[i]);
    free(r);
    char path[4096], hex[65] = "", ghex[65] = "";
    const char *want = sget(json_object_get(st, "corpus"), "manifestSha256");
    shc_err e = {0};
    snprintf(path, sizeof path, "%s/golden-MANIFEST", dir);
    if (shc_sha256_file(path, hex, &e) || strcmp(hex, want))
        bad += cert_problem(dir, "statement.json", "inconsistent: corpus manifestSha256 %s, "
                       "golden-MANIFEST has %s", want, hex[0] ? hex : "(unreadable)");
    snprintf(path, sizeof path, "%s/MANIFEST", golden);
    if (shc_sha256_file(path, ghex, &e) || strcmp(ghex, want))
        return bad + cert_problem(dir, "golden-MANIFEST", "certified against another corpus: "
                                  "%s, %s", want, given_corpus(golden, given, ghex));
    return bad + reverify_all(dir, golden, st);
}

/* Another version may word the text differently: its statement.txt must still state the
 * statement's verdict (the JSON itself is checked in full). */
static int check_verdict_line(const char *dir, const json_t *st)
{
    char want[64], line[1024], path[4096];
    int k = snprintf(want, sizeof want, "verdict: %s:", sget(st, "verdict"));
    for (int i = 9; i < k; i++)
        want[i] = (char)(want[i] >= 'a' && want[i] <= 'z' ? want[i] - 32 : want[i]);
    snprintf(path, sizeof path, "%s/statement.txt", dir);
    FILE *f = fopen(path, "r");
    bool found = false;
    while (f && !found && fgets(line, sizeof line, f))
        found = !strncmp(line, want, strlen(want));
    if (f)
        fclose(f);
    fprintf(stderr, "shardcheck certify --check: %s/statement.txt: written by shardcheck %s, "
            "checked for its verdict line only\n", dir, sget(st, "shardcheck"));
    return found ? 0 : cert_problem(dir, "statement.txt", "inconsistent: no line \"%s\"%s", want, "");
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
        return cert_problem(dir, "statement.txt", "cannot be checked: out of memory%s%s", "", "");
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
    return same ? 0 : cert_problem(dir, "statement.txt", "inconsistent: it is not the rendering of "
                              "statement.json%s%s", "", "");
}

int cert_check(const char *dir, const char *golden_opt, const char *torch_opt)
{
    struct stat st;
    if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
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
    /* the corpus as every command finds it: the candidates are verified again against it */
    shc_err ge = {0};
    const char *golden = cli_golden_dir(golden_opt, &ge);
    if (!golden) {
        fprintf(stderr, "shardcheck certify --check: %s: cannot verify its candidates again: "
                "%s\n", dir, ge.msg);
        return EXIT_USAGE;
    }
    int nfiles = 0, bad = check_hashes(dir, &nfiles);
    char path[4096], sha[65] = "";
    snprintf(path, sizeof path, "%s/statement.json", dir);
    shc_err e = {0};
    json_t *stm = shc_json_load_path(path, &e);
    if (!stm)
        bad += cert_problem(dir, "statement.json", "unreadable: %s%s", e.msg, "");
    else
        bad += check_statement(dir, golden, golden_opt != NULL, stm) + check_text(dir, stm);
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
