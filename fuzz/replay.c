/*
 * replay.c — a main() for the fuzz targets without libFuzzer: calls
 * LLVMFuzzerTestOneInput once for each file named on the command line (or,
 * with no arguments, one path per line on stdin: corpora outgrow argv), each
 * read into a buffer of exactly its size (so ASan sees an over-read).  The
 * normal build links it with every target (fuzz/replay_*), which is how
 * `make check` replays the committed corpora and regression inputs under
 * whatever sanitizers CFLAGS name (the ASan+UBSan stage of tools/test_job.sh).
 * A crash or sanitizer report fails the run, naming the input first.
 * Tested by fuzz/replay.sh (make check).
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_common.h"

static int replay(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        fprintf(stderr, "replay: cannot read %s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t cap = 4096, len = 0, got;
    uint8_t *buf = malloc(cap);
    while (buf && (got = fread(buf + len, 1, cap - len, fp)) > 0) {
        len += got;
        if (len == cap) {
            uint8_t *nb = realloc(buf, cap *= 2);
            if (!nb)
                free(buf);
            buf = nb;
        }
    }
    int bad = !buf || ferror(fp);
    fclose(fp);
    if (bad) {
        fprintf(stderr, "replay: error reading %s\n", path);
        free(buf);
        return -1;
    }
    uint8_t *exact = malloc(len ? len : 1); /* exact size: over-reads are ASan reports */
    if (!exact) {
        free(buf);
        return -1;
    }
    memcpy(exact, buf, len);
    free(buf);
    fprintf(stderr, "replay: %s\n", path); /* named before it runs, in case it crashes */
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    return 0;
}

int main(int argc, char **argv)
{
    int n = 0;
    for (int i = 1; i < argc; i++) {
        if (replay(argv[i]) != 0)
            return 2;
        n++;
    }
    char line[4096];
    while (argc == 1 && fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = '\0';
        if (!*line)
            continue;
        if (replay(line) != 0)
            return 2;
        n++;
    }
    printf("replayed %d inputs\n", n);
    return 0;
}
