/*
 * outfile.c — see outfile.h: output files that never overwrite an input and are written
 * whole or not at all.  Tested by hardening.sh.
 */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "outfile.h"

/* A golden directory holds about a hundred files; the cap only bounds a --golden that
 * names something else (a home directory), where the MANIFEST check fails anyway. */
#define OUT_MAX_INPUTS 65536

static void add(out_inputs *in, const char *what, const char *path, const struct stat *st)
{
    if (in->n == OUT_MAX_INPUTS)
        return;
    if (in->n == in->cap) {
        size_t cap = in->cap ? 2 * in->cap : 32;
        out_input *v = realloc(in->v, cap * sizeof *v);
        if (!v)
            return; /* an unlisted input only weakens the guard; the write itself still works */
        in->v = v, in->cap = cap;
    }
    out_input *x = &in->v[in->n];
    x->path = strdup(path);
    x->what = strdup(what);
    if (!x->path || !x->what) {
        free(x->path);
        free(x->what);
        return;
    }
    x->dev = st->st_dev;
    x->ino = st->st_ino;
    x->dir = S_ISDIR(st->st_mode);
    in->n++;
}

void out_inputs_file(out_inputs *in, const char *what, const char *path)
{
    struct stat st;
    if (path && !stat(path, &st))
        add(in, what, path, &st);
}

/* What is in directory dir, folders depth levels down. */
static void tree(out_inputs *in, const char *what, const char *dir, int depth)
{
    struct stat st;
    DIR *d = depth >= 0 ? opendir(dir) : NULL;
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d)) && in->n < OUT_MAX_INPUTS) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        char sub[4096];
        if (snprintf(sub, sizeof sub, "%s/%s", dir, de->d_name) >= (int)sizeof sub ||
            stat(sub, &st))
            continue;
        add(in, what, sub, &st);
        if (S_ISDIR(st.st_mode))
            tree(in, what, sub, depth - 1);
    }
    closedir(d);
}

void out_inputs_tree(out_inputs *in, const char *label, const char *dir, int depth)
{
    struct stat st;
    if (!dir || stat(dir, &st))
        return;
    char what[4200];
    snprintf(what, sizeof what, "the %s", label);
    add(in, what, dir, &st);
    snprintf(what, sizeof what, "in the %s %s", label, dir);
    if (S_ISDIR(st.st_mode))
        tree(in, what, dir, depth);
}

static const out_input *find(const out_inputs *in, const struct stat *st, bool dirs_only)
{
    for (size_t i = 0; i < in->n; i++)
        if (in->v[i].dev == st->st_dev && in->v[i].ino == st->st_ino &&
            (!dirs_only || in->v[i].dir))
            return &in->v[i];
    return NULL;
}

/* The directory a new file at path would be created in. */
static void parent_of(const char *path, char *buf, size_t n)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(buf, n, ".");
    else if (slash == path)
        snprintf(buf, n, "/");
    else
        snprintf(buf, n, "%.*s", (int)(slash - path), path);
}

int out_refuse(const out_inputs *in, const char *opt, const char *path, shc_err *e)
{
    struct stat st;
    const out_input *x = NULL;
    if (!path)
        return SHC_OK;
    if (!stat(path, &st) && (x = find(in, &st, false)))
        return shc_fail(e, SHC_EINVAL, "%s %s: that is %s, %s, an input of this command: an "
                        "output never overwrites an input (name another file)", opt, path,
                        x->path, x->what);
    char parent[4096];
    parent_of(path, parent, sizeof parent);
    if (!stat(parent, &st) && (x = find(in, &st, true)))
        return shc_fail(e, SHC_EINVAL, "%s %s: that is inside %s, %s, an input of this "
                        "command: write it elsewhere", opt, path, x->path, x->what);
    return SHC_OK;
}

/* The name a file that does not exist yet would get: its directory resolved (realpath: no
 * ., .. or links) and its last component; false when the directory cannot be resolved. */
static bool resolved_name(const char *path, char *buf, size_t n)
{
    char parent[4096], *real;
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    parent_of(path, parent, sizeof parent);
    if (!*base || !strcmp(base, ".") || !strcmp(base, "..") || !(real = realpath(parent, NULL)))
        return false;
    bool ok = snprintf(buf, n, "%s/%s", strcmp(real, "/") ? real : "", base) < (int)n;
    free(real);
    return ok;
}

bool out_same(const char *a, const char *b)
{
    struct stat sa, sb;
    char ra[4200], rb[4200];
    if (!a || !b)
        return false;
    if (!strcmp(a, b))
        return true;
    bool ea = !stat(a, &sa), eb = !stat(b, &sb);
    if (ea && eb) /* existing files: one inode under any spelling or link */
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    /* neither exists yet (X and ./X, d/../X): the file each would create */
    return !ea && !eb && resolved_name(a, ra, sizeof ra) && resolved_name(b, rb, sizeof rb) &&
           !strcmp(ra, rb);
}

void out_inputs_free(out_inputs *in)
{
    for (size_t i = 0; i < in->n; i++) {
        free(in->v[i].path);
        free(in->v[i].what);
    }
    free(in->v);
    memset(in, 0, sizeof *in);
}

/* ---- whole or nothing ---- */

FILE *out_open(out_file *o, const char *path)
{
    memset(o, 0, sizeof *o);
    struct stat st;
    bool exists = !stat(path, &st);
    if (snprintf(o->path, sizeof o->path, "%s", path) >= (int)sizeof o->path) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    if (exists && !S_ISREG(st.st_mode)) /* /dev/null, /dev/stdout, a FIFO: no rename there */
        return o->f = fopen(path, "w");
    snprintf(o->tmp, sizeof o->tmp, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        o->tmp[0] = '\0';
        return NULL;
    }
    mode_t mask = umask(0); /* the mode fopen would have given, or the file's own */
    umask(mask);
    if (fchmod(fd, exists ? st.st_mode & 07777 : 0666 & ~mask) || !(o->f = fdopen(fd, "w"))) {
        int err = errno;
        close(fd);
        unlink(o->tmp);
        o->tmp[0] = '\0';
        errno = err;
    }
    return o->f;
}

int out_commit(out_file *o)
{
    if (!o->f) {
        errno = EBADF;
        return -1;
    }
    errno = 0;
    /* fsync: a filesystem that reports a full disk only when the data is written back
     * (NFS, some delayed allocation) must say so before the rename, not after it */
    bool bad = fflush(o->f) != 0 || ferror(o->f) || (o->tmp[0] && fsync(fileno(o->f)));
    int err = errno ? errno : EIO;
    bad |= fclose(o->f) != 0;
    if (bad && !errno)
        errno = err;
    err = errno;
    o->f = NULL;
    if (!bad && o->tmp[0] && rename(o->tmp, o->path)) {
        bad = true;
        err = errno;
    }
    if (bad && o->tmp[0])
        unlink(o->tmp);
    o->tmp[0] = '\0';
    errno = bad ? err : 0;
    return bad ? -1 : 0;
}

int out_publish(out_file *o)
{
    if (!o->f || !o->tmp[0])
        return 0;
    if (rename(o->tmp, o->path))
        return -1;
    o->tmp[0] = '\0';
    return 0;
}

int out_close_published(out_file *o)
{
    struct stat mine, there;
    if (!o->f) {
        errno = EBADF;
        return -1;
    }
    errno = 0;
    bool bad = fflush(o->f) != 0 || ferror(o->f);
    int err = errno; /* 0: an earlier write failed, its reason gone (a line flushed alone) */
    /* removed only while the name is still this file: a later run's file stays */
    bool ours = !fstat(fileno(o->f), &mine) && S_ISREG(mine.st_mode) &&
                !stat(o->path, &there) && mine.st_dev == there.st_dev &&
                mine.st_ino == there.st_ino;
    if (!bad && ours && fsync(fileno(o->f)))
        bad = true, err = errno;
    if (fclose(o->f) && !bad)
        bad = true, err = errno;
    o->f = NULL;
    if (bad && ours)
        unlink(o->path);
    errno = bad ? err : 0;
    return bad ? -1 : 0;
}

void out_discard(out_file *o)
{
    if (o->f)
        fclose(o->f);
    if (o->tmp[0])
        unlink(o->tmp);
    o->f = NULL;
    o->tmp[0] = '\0';
}
