/*
 * manifest.c — golden/MANIFEST: one "sha256  family/file.json" line per
 * golden file, sorted, in sha256sum's format (so `sha256sum -c MANIFEST` in
 * golden/ works too).  verify reports the first missing, extra or changed
 * file by name.  sha256 comes from OpenSSL's libcrypto.
 * shc_manifest_read is the one parser of every MANIFEST reader (golden/MANIFEST for
 * verify, run, report and certify; a certify package's MANIFEST for certify --check): it
 * refuses, naming the line, an absolute path, a '..', '.' or empty component, a path
 * listed twice and a malformed line, and accepts CRLF line ends as sha256sum -c does.
 * Only regular files are hashed (a FIFO would block, a directory is no file).
 * Tested by check_golden.c, golden_regen.sh and certify.sh.
 */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <openssl/evp.h>
#include "golden.h"

/* Open path for reading if it is a regular file (O_NONBLOCK: a FIFO cannot block the open,
 * and nothing is read before the type is known); the fd, or -1 with e naming why. */
static int open_regular(const char *path, struct stat *st, shc_err *e)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return shc_fail(e, SHC_EIO, "cannot read %s: %s", path, strerror(errno)), -1;
    if (fstat(fd, st)) {
        shc_fail(e, SHC_EIO, "cannot read %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    if (!S_ISREG(st->st_mode)) {
        shc_fail(e, SHC_EIO, "cannot read %s: %s", path, S_ISDIR(st->st_mode) ? "a directory"
                 : "not a regular file");
        close(fd);
        return -1;
    }
    return fd;
}

int shc_sha256_file(const char *path, char out[65], shc_err *e)
{
    struct stat st = {0};
    int fd = open_regular(path, &st, e);
    if (fd < 0)
        return e ? e->code : SHC_EIO;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
    unsigned char buf[1 << 16];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        EVP_DigestUpdate(ctx, buf, (size_t)n);
    }
    int err = n < 0 ? errno : 0;
    close(fd);
    unsigned char md[32];
    unsigned int len = 0;
    EVP_DigestFinal_ex(ctx, md, &len);
    EVP_MD_CTX_free(ctx);
    if (err)
        return shc_fail(e, SHC_EIO, "error reading %s: %s", path, strerror(err));
    for (int i = 0; i < 32; i++)
        sprintf(out + 2 * i, "%02x", md[i]);
    out[64] = '\0';
    return SHC_OK;
}

typedef struct { char **v; int n, cap; } strlist;

static void sl_push(strlist *l, const char *s)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->v = realloc(l->v, (size_t)l->cap * sizeof *l->v);
    }
    l->v[l->n++] = strdup(s);
}

static void sl_free(strlist *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Every "family/file.json" under dir (one level of family directories), the schemas
 * (golden/schemas/<family>_v1.json) included: a changed schema changes what a golden
 * file is checked against, so MANIFEST covers it too. */
static void list_golden(const char *dir, strlist *out)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char sub[4096];
        snprintf(sub, sizeof sub, "%s/%s", dir, de->d_name);
        struct stat st;
        if (stat(sub, &st) || !S_ISDIR(st.st_mode))
            continue;
        DIR *f = opendir(sub);
        if (!f)
            continue;
        struct dirent *fe;
        while ((fe = readdir(f))) {
            size_t n = strlen(fe->d_name);
            if (n > 5 && !strcmp(fe->d_name + n - 5, ".json")) {
                char rel[4096];
                snprintf(rel, sizeof rel, "%s/%s", de->d_name, fe->d_name);
                sl_push(out, rel);
            }
        }
        closedir(f);
    }
    closedir(d);
    if (out->n)
        qsort(out->v, (size_t)out->n, sizeof *out->v, cmp_str);
}

static bool in_scope(const char *rel, const char *family);

/* The lines MANIFEST keeps for the families not regenerated: those of dir/MANIFEST outside
 * family's scope, as they are (the files on disk are not their authority: rehashing them
 * approved a tampered file of another family, issue 38 M8).  No MANIFEST yet: none. */
static int kept_lines(const char *dir, const char *family, strlist *hex, strlist *rel,
                      shc_err *e)
{
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/MANIFEST", dir);
    if (!family || (lstat(path, &st) && errno == ENOENT))
        return SHC_OK;
    shc_manifest m;
    int rc = shc_manifest_read(path, &m, e);
    if (rc)
        return shc_err_prefix(e, "the lines of the families other than %s", family);
    for (size_t i = 0; i < m.n; i++)
        if (!in_scope(m.v[i].rel, family)) {
            sl_push(hex, m.v[i].hex);
            sl_push(rel, m.v[i].rel);
        }
    shc_manifest_free(&m);
    return SHC_OK;
}

typedef struct { const char *hex, *rel; } mpair;

static int cmp_pair(const void *a, const void *b)
{
    return strcmp(((const mpair *)a)->rel, ((const mpair *)b)->rel);
}

/* "sha256  rel" lines, sorted by path, to fp. */
static void put_sorted(FILE *fp, const strlist *hex, const strlist *rel)
{
    mpair *v = malloc((size_t)(rel->n ? rel->n : 1) * sizeof *v);
    if (!v) {
        fputs("(out of memory)", fp); /* not a MANIFEST line: the next read refuses it */
        return;
    }
    for (int i = 0; i < rel->n; i++)
        v[i] = (mpair){hex->v[i], rel->v[i]};
    qsort(v, (size_t)rel->n, sizeof *v, cmp_pair);
    for (int i = 0; i < rel->n; i++)
        fprintf(fp, "%s  %s\n", v[i].hex, v[i].rel);
    free(v);
}

int shc_manifest_write(const char *dir, shc_err *e)
{
    return shc_manifest_write_family(dir, NULL, e);
}

int shc_manifest_write_family(const char *dir, const char *family, shc_err *e)
{
    strlist files = {0}, hex = {0}, rel = {0};
    list_golden(dir, &files);
    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s/MANIFEST", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int rc = kept_lines(dir, family, &hex, &rel, e);
    for (int i = 0; !rc && i < files.n; i++) {
        char full[8192], h[65];
        if (!in_scope(files.v[i], family))
            continue;
        snprintf(full, sizeof full, "%s/%s", dir, files.v[i]);
        rc = shc_sha256_file(full, h, e);
        if (!rc) {
            sl_push(&hex, h);
            sl_push(&rel, files.v[i]);
        }
    }
    FILE *fp = rc ? NULL : fopen(tmp, "w");
    if (!rc && !fp)
        rc = shc_fail(e, SHC_EIO, "cannot write %s: %s", tmp, strerror(errno));
    if (fp) {
        put_sorted(fp, &hex, &rel);
        errno = 0;
        bool bad = fflush(fp) != 0 || ferror(fp) != 0; /* a failed fprintf: no short MANIFEST */
        int err = errno ? errno : EIO;
        if ((fclose(fp) || bad) && !rc)
            rc = shc_fail(e, SHC_EIO, "cannot write %s: %s", tmp, strerror(err));
    }
    if (!rc && rename(tmp, path))
        rc = shc_fail(e, SHC_EIO, "cannot rename %s: %s", tmp, strerror(errno));
    if (rc && fp)
        unlink(tmp);
    sl_free(&files);
    sl_free(&hex);
    sl_free(&rel);
    return rc;
}

/* ---- reading a MANIFEST: the one parser of every reader ---- */

/* A path as MANIFEST may name it: relative and plain (no empty, "." or ".." component, no
 * control character), so it names a file under the MANIFEST's directory, in one spelling
 * only; NULL, or why not. */
static const char *bad_path(const char *rel)
{
    if (!*rel)
        return "no path";
    if (*rel == '/')
        return "an absolute path (MANIFEST names files relative to its directory)";
    for (const char *p = rel; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            return "a control character in the path";
    for (const char *c = rel; c; c = strchr(c, '/') ? strchr(c, '/') + 1 : NULL) {
        size_t k = strcspn(c, "/");
        if (k == 2 && !strncmp(c, "..", 2))
            return "a '..' component (outside the MANIFEST's directory)";
        if (k == 0 || (k == 1 && *c == '.'))
            return "an empty or '.' component (write each path in one plain spelling)";
    }
    return NULL;
}

static int cmp_mline(const void *a, const void *b)
{
    const shc_mline *x = *(shc_mline *const *)a, *y = *(shc_mline *const *)b;
    int c = strcmp(x->rel, y->rel);
    return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* One line into m->v (its end, "\n" or "\r\n", already cut at len). */
static int parse_mline(shc_manifest *m, char *line, size_t len, int lineno, shc_err *e)
{
    if (strlen(line) != len)
        return shc_fail(e, SHC_EFORMAT, "%s line %d: a NUL byte", m->path, lineno);
    if (len < 67 || line[64] != ' ' || line[65] != ' ' || strspn(line, "0123456789abcdef") != 64)
        return shc_fail(e, SHC_EFORMAT, "%s line %d: expected \"<sha256>  <path>\" (64 "
                        "lowercase hex digits, two spaces, a path), got \"%.80s\"", m->path,
                        lineno, line);
    const char *why = bad_path(line + 66);
    if (why)
        return shc_fail(e, SHC_EFORMAT, "%s line %d: \"%.200s\": %s", m->path, lineno,
                        line + 66, why);
    shc_mline *l = &m->v[m->n];
    memcpy(l->hex, line, 64);
    l->hex[64] = '\0';
    l->line = lineno;
    if (!(l->rel = strdup(line + 66)))
        return shc_fail(e, SHC_ENOMEM, "%s: out of memory", m->path);
    m->n++;
    return SHC_OK;
}

static int read_lines(shc_manifest *m, FILE *f, shc_err *e)
{
    char *line = NULL;
    size_t cap = 0, vcap = 0;
    ssize_t len;
    int rc = SHC_OK, lineno = 0;
    while (!rc && (len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (len && line[len - 1] == '\n')
            line[--len] = '\0';
        if (len && line[len - 1] == '\r') /* CRLF, as sha256sum -c accepts */
            line[--len] = '\0';
        if (m->n == vcap) {
            vcap = vcap ? 2 * vcap : 64;
            shc_mline *v = realloc(m->v, vcap * sizeof *v);
            if (!v) {
                rc = shc_fail(e, SHC_ENOMEM, "%s: out of memory", m->path);
                break;
            }
            m->v = v;
        }
        rc = parse_mline(m, line, (size_t)len, lineno, e);
    }
    if (!rc && ferror(f))
        rc = shc_fail(e, SHC_EIO, "error reading %s: %s", m->path, strerror(errno));
    free(line);
    return rc;
}

/* m->sorted: the lines by path; a path listed twice is refused with both lines. */
static int sort_unique(shc_manifest *m, shc_err *e)
{
    if (!m->n)
        return SHC_OK;
    if (!(m->sorted = malloc(m->n * sizeof *m->sorted)))
        return shc_fail(e, SHC_ENOMEM, "%s: out of memory", m->path);
    for (size_t i = 0; i < m->n; i++)
        m->sorted[i] = &m->v[i];
    qsort(m->sorted, m->n, sizeof *m->sorted, cmp_mline);
    for (size_t i = 1; i < m->n; i++)
        if (!strcmp(m->sorted[i]->rel, m->sorted[i - 1]->rel))
            return shc_fail(e, SHC_EFORMAT, "%s line %d: %s is listed twice (also on line %d)",
                            m->path, m->sorted[i]->line, m->sorted[i]->rel,
                            m->sorted[i - 1]->line);
    return SHC_OK;
}

int shc_manifest_read(const char *path, shc_manifest *m, shc_err *e)
{
    memset(m, 0, sizeof *m);
    snprintf(m->path, sizeof m->path, "%s", path);
    struct stat st = {0};
    int fd = open_regular(path, &st, e);
    if (fd < 0)
        return e ? e->code : SHC_EIO;
    if (st.st_size > SHC_MAX_MANIFEST_BYTES) {
        close(fd);
        return shc_fail(e, SHC_EFORMAT, "%s is %lld bytes; a MANIFEST holds at most %lld",
                        path, (long long)st.st_size, (long long)SHC_MAX_MANIFEST_BYTES);
    }
    FILE *f = fdopen(fd, "r");
    if (!f) {
        close(fd);
        return shc_fail(e, SHC_ENOMEM, "%s: out of memory", path);
    }
    int rc = read_lines(m, f, e);
    fclose(f);
    if (!rc)
        rc = sort_unique(m, e);
    if (rc)
        shc_manifest_free(m);
    return rc;
}

const shc_mline *shc_manifest_find(const shc_manifest *m, const char *rel)
{
    size_t lo = 0, hi = m->n; /* no bsearch: it may not be given an empty (NULL) array */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(m->sorted[mid]->rel, rel);
        if (!c)
            return m->sorted[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

void shc_manifest_free(shc_manifest *m)
{
    for (size_t i = 0; i < m->n; i++)
        free(m->v[i].rel);
    free(m->v);
    free(m->sorted);
    m->v = NULL;
    m->sorted = NULL;
    m->n = 0;
}

/* Does MANIFEST entry rel belong to family (NULL: every entry)?  The schemas every family
 * schema refers to (schemas/common.json) belong to each: a changed common.json changes what
 * every family's files are checked against. */
static bool in_scope(const char *rel, const char *family)
{
    if (!family || !strcmp(rel, "schemas/common.json"))
        return true;
    size_t n = strlen(family);
    if (!strncmp(rel, family, n) && rel[n] == '/')
        return true;
    return !strncmp(rel, "schemas/", 8) && !strncmp(rel + 8, family, n) &&
           !strcmp(rel + 8 + n, "_v1.json");
}

int shc_manifest_verify(const char *dir, shc_err *e)
{
    return shc_manifest_verify_family(dir, NULL, e);
}

int shc_manifest_verify_family(const char *dir, const char *family, shc_err *e)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/MANIFEST", dir);
    shc_manifest m;
    int rc = shc_manifest_read(path, &m, e);
    if (rc)
        return rc;
    strlist files = {0};
    list_golden(dir, &files);
    for (size_t i = 0; !rc && i < m.n; i++) {
        const shc_mline *l = &m.v[i];
        char got[65], full[8192];
        if (!in_scope(l->rel, family))
            continue;
        snprintf(full, sizeof full, "%s/%s", dir, l->rel);
        shc_err he = {0};
        struct stat st;
        if (shc_sha256_file(full, got, &he) == SHC_OK) {
            if (strcmp(got, l->hex))
                rc = shc_fail(e, SHC_EFORMAT, "%s line %d: %s has sha256 %.16s..., MANIFEST "
                              "says %.16s...", path, l->line, l->rel, got, l->hex);
            else
                shc_golden_vouch(full, got);
        } else if (lstat(full, &st) && errno == ENOENT) {
            rc = shc_fail(e, SHC_EFORMAT, "%s line %d: %s is listed but missing", path, l->line,
                          l->rel);
        } else { /* there, but not a file that can be read: say why, not "missing" */
            rc = shc_fail(e, SHC_EFORMAT, "%s line %d: %s is listed but unreadable: %s", path,
                          l->line, l->rel, he.msg);
        }
    }
    for (int i = 0; !rc && i < files.n; i++)
        if (in_scope(files.v[i], family) && !shc_manifest_find(&m, files.v[i]))
            rc = shc_fail(e, SHC_EFORMAT, "%s: %s is not listed", path, files.v[i]);
    sl_free(&files);
    shc_manifest_free(&m);
    return rc;
}
