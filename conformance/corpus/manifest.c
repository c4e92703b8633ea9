/*
 * manifest.c — golden/MANIFEST: one "sha256  family/file.json" line per
 * golden file, sorted, in sha256sum's format (so `sha256sum -c MANIFEST` in
 * golden/ works too).  verify reports the first missing, extra or changed
 * file by name.  sha256 comes from OpenSSL's libcrypto.
 * Tested by check_golden.c and golden_regen.sh.
 */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <openssl/evp.h>
#include "golden.h"

int shc_sha256_file(const char *path, char out[65], shc_err *e)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return shc_fail(e, SHC_EIO, "cannot read %s: %s", path, strerror(errno));
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
    unsigned char buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, fp)) > 0)
        EVP_DigestUpdate(ctx, buf, n);
    int bad = ferror(fp);
    fclose(fp);
    unsigned char md[32];
    unsigned int len = 0;
    EVP_DigestFinal_ex(ctx, md, &len);
    EVP_MD_CTX_free(ctx);
    if (bad)
        return shc_fail(e, SHC_EIO, "error reading %s", path);
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

int shc_manifest_write(const char *dir, shc_err *e)
{
    strlist files = {0};
    list_golden(dir, &files);
    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s/MANIFEST", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *fp = fopen(tmp, "w");
    int rc = fp ? SHC_OK : shc_fail(e, SHC_EIO, "cannot write %s: %s", tmp, strerror(errno));
    for (int i = 0; !rc && i < files.n; i++) {
        char full[8192], hex[65];
        snprintf(full, sizeof full, "%s/%s", dir, files.v[i]);
        rc = shc_sha256_file(full, hex, e);
        if (!rc)
            fprintf(fp, "%s  %s\n", hex, files.v[i]);
    }
    if (fp) {
        bool bad = ferror(fp) != 0; /* a failed fprintf must not leave a short MANIFEST */
        if ((fclose(fp) || bad) && !rc)
            rc = shc_fail(e, SHC_EIO, "cannot write %s", tmp);
    }
    if (!rc && rename(tmp, path))
        rc = shc_fail(e, SHC_EIO, "cannot rename %s: %s", tmp, strerror(errno));
    sl_free(&files);
    return rc;
}

/* Parse one MANIFEST line "hex  rel"; returns 0 if well formed. */
static int parse_line(char *line, char **hex, char **rel)
{
    line[strcspn(line, "\r\n")] = '\0';
    char *sp = strstr(line, "  ");
    if (!sp || sp - line != 64)
        return -1;
    *sp = '\0';
    *hex = line;
    *rel = sp + 2;
    for (int i = 0; i < 64; i++)
        if (!strchr("0123456789abcdef", line[i]))
            return -1;
    return **rel ? 0 : -1;
}

/* Does MANIFEST entry rel belong to family (NULL: every entry)? */
static bool in_scope(const char *rel, const char *family)
{
    if (!family)
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
    FILE *fp = fopen(path, "r");
    if (!fp)
        return shc_fail(e, SHC_EIO, "cannot read %s: %s", path, strerror(errno));
    strlist files = {0}, listed = {0};
    list_golden(dir, &files);
    char line[8400];
    int rc = SHC_OK, lineno = 0;
    while (!rc && fgets(line, sizeof line, fp)) {
        lineno++;
        char *hex, *rel, got[65], full[8192];
        if (parse_line(line, &hex, &rel)) {
            rc = shc_fail(e, SHC_EFORMAT, "%s line %d: expected \"<sha256>  <family>/<file>.json\"",
                          path, lineno);
            break;
        }
        if (!in_scope(rel, family))
            continue;
        snprintf(full, sizeof full, "%s/%s", dir, rel);
        rc = shc_sha256_file(full, got, e);
        if (rc)
            rc = shc_fail(e, SHC_EFORMAT, "%s line %d: %s is listed but missing", path, lineno, rel);
        else if (strcmp(got, hex))
            rc = shc_fail(e, SHC_EFORMAT, "%s line %d: %s has sha256 %.16s..., MANIFEST says %.16s...",
                          path, lineno, rel, got, hex);
        sl_push(&listed, rel);
    }
    fclose(fp);
    if (!rc && listed.n)
        qsort(listed.v, (size_t)listed.n, sizeof *listed.v, cmp_str);
    for (int i = 0, j = 0; !rc && i < files.n; i++) {
        if (!in_scope(files.v[i], family))
            continue;
        while (j < listed.n && strcmp(listed.v[j], files.v[i]) < 0)
            j++;
        if (j >= listed.n || strcmp(listed.v[j], files.v[i]))
            rc = shc_fail(e, SHC_EFORMAT, "%s: %s is not listed", path, files.v[i]);
    }
    sl_free(&files);
    sl_free(&listed);
    return rc;
}
