/*
 * fuzz_common.h — helpers shared by the fuzz targets in fuzz/: splitting the
 * fuzzer's bytes into NUL-terminated fields of exact size (so an over-read is
 * an ASan report, not a silent read of the next field) and a loud abort for a
 * broken invariant.  Header-only; exercised by every target (make check replays).
 */
#ifndef SHC_FUZZ_COMMON_H
#define SHC_FUZZ_COMMON_H
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Print a broken invariant and abort: libFuzzer and the replay driver both report it. */
static inline void fuzz_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static inline void fuzz_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("fuzz invariant: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

/* A malloc'd NUL-terminated copy of n bytes (embedded NULs end the string early). */
static inline char *fuzz_strndup(const uint8_t *p, size_t n)
{
    char *s = malloc(n + 1);
    if (!s)
        abort();
    if (n)
        memcpy(s, p, n);
    s[n] = '\0';
    return s;
}

/* Split data at sep into at most nf fields (the last takes the rest); missing
 * fields stay NULL.  Each field is its own allocation of exactly its length + 1. */
static inline void fuzz_split(const uint8_t *data, size_t size, char sep, char **f, int nf)
{
    size_t start = 0;
    for (int i = 0; i < nf; i++) {
        if (start > size)
            break;
        size_t end = start;
        if (i < nf - 1)
            while (end < size && data[end] != (uint8_t)sep)
                end++;
        else
            end = size;
        f[i] = fuzz_strndup(data + start, end - start);
        start = end + 1;
    }
}

#ifdef FUZZ_WITH_GOLDEN
#include <unistd.h>
#include "family.h"

/* The golden loader reads paths: each input is written to one scratch file per
 * process (in $TMPDIR, else /dev/shm where there is one: a disk file costs most of
 * an input's time, else /tmp), rewritten for every input, removed at exit. */
static char fuzz_scratch_path[4096];

static inline void fuzz_scratch_remove(void) { unlink(fuzz_scratch_path); }

static inline const char *fuzz_scratch(const uint8_t *data, size_t size)
{
    if (!fuzz_scratch_path[0]) {
        const char *dir = getenv("TMPDIR");
        if (!dir || !*dir)
            dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(fuzz_scratch_path, sizeof fuzz_scratch_path, "%s/shc-fuzz-XXXXXX.json", dir);
        int fd = mkstemps(fuzz_scratch_path, 5);
        if (fd < 0) {
            perror("fuzz scratch file");
            abort();
        }
        close(fd);
        atexit(fuzz_scratch_remove);
    }
    FILE *fp = fopen(fuzz_scratch_path, "wb");
    if (!fp || (size && fwrite(data, 1, size, fp) != size) || fclose(fp) != 0) {
        perror(fuzz_scratch_path);
        abort();
    }
    return fuzz_scratch_path;
}

/* Load data as a one-file golden family, exactly as run and verify load golden files. */
static inline int fuzz_golden_load(const uint8_t *data, size_t size, shc_golden *g, shc_err *e)
{
    return shc_golden_load_file(g, fuzz_scratch(data, size), e);
}
#endif /* FUZZ_WITH_GOLDEN */
#endif
