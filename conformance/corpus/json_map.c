/*
 * json_map.c — JSON inputs read through a read-only mapping, with a bounded resident window.
 *
 * Why: verify's scanned path (json_scan.h) keeps spans into the bytes of the golden files
 * and of the candidate until it has compared them.  Read into malloc'd buffers, every byte
 * stayed resident (and counted) for the whole run: 2.75x the largest file on the big
 * family (issue 12 asks < 2x, ideally bounded by a test group).  Mapped, the bytes are the
 * page cache's own pages: a span stays valid for the whole run, yet the pages a reader
 * has passed can be dropped from this process (madvise MADV_DONTNEED on a clean private
 * file mapping only unmaps them; touching them again faults them back in from the page
 * cache, same bytes).  So readers report the bytes they touch (shc_map_touched) and,
 * every SHC_MAP_WINDOW bytes, every live mapping is trimmed: the process's resident share
 * of its JSON inputs stays near the window plus the test being compared, whatever the
 * file sizes.  Peak RSS (ru_maxrss, GNU time's %M) counts mapped file pages too, so the
 * figure bench_verify_mbps.sh prints is not flattered by the mapping.
 *
 * A mapped file that shrinks under us would raise SIGBUS on the lost pages: a handler
 * turns a SIGBUS inside one of our mappings into a message and exit 2 (bad input), never a
 * crash (any other SIGBUS keeps its default action).  Empty files and
 * systems where mmap fails fall back to a malloc'd copy (shc_read_path).
 * Tested by verify_fast.sh (scanned and tree paths print the same bytes) and, for the
 * window, by bench/bench_verify_mbps.sh's peak RSS.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "golden.h"

/* Live mappings, so a trim can reach them all; verify holds a handful (golden files and
 * one candidate).  More than this are still mapped, just not trimmed. */
#define MAX_LIVE 4096
static struct { const char *p; size_t n; } live[MAX_LIVE]; /* copies: a shc_map may move */
static size_t nlive, touched;

/* SIGBUS on one of our mappings: the file lost those pages (it shrank).  Any other SIGBUS is
 * not ours to explain: the default action, as if no handler were installed. */
static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    const char *a = si ? (const char *)si->si_addr : NULL;
    for (size_t i = 0; a && i < nlive; i++) {
        if (a >= live[i].p && a < live[i].p + live[i].n) {
            static const char msg[] = "shardcheck: a JSON input file shrank while it was being "
                                      "read (changed on disk during the run)\n";
            ssize_t w = write(2, msg, sizeof msg - 1);
            (void)w;
            _exit(2);
        }
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void watch_sigbus(void)
{
    static bool done;
    if (done)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);
    done = true;
}

/* ---- reading a JSON input (golden_load.c, the candidate) ---- */

/* Open path for reading only if it is a regular file of at most SHC_MAX_JSON_BYTES:
 * O_NONBLOCK so a FIFO with no writer cannot block open(), and the type is checked
 * before a byte is read (a FIFO or /dev/zero would otherwise block or grow forever). */
int shc_open_json_input(const char *path, int64_t *size, shc_err *e)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return shc_fail(e, SHC_EIO, "cannot read %s: %s", path, strerror(errno)), -1;
    struct stat st;
    if (fstat(fd, &st)) {
        shc_fail(e, SHC_EIO, "cannot read %s: %s", path, strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
        shc_fail(e, SHC_EINVAL, "%s is not a regular file (%s): JSON is read from regular files "
                 "only", path, S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISCHR(st.st_mode) ? "a character device" : "a special file");
    } else if (st.st_size > SHC_MAX_JSON_BYTES) {
        shc_fail(e, SHC_EINVAL, "%s is %lld bytes; the limit for a JSON input is %lld bytes "
                 "(split the candidate by golden file)", path, (long long)st.st_size,
                 (long long)SHC_MAX_JSON_BYTES);
    } else if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) == 0) {
        *size = st.st_size;
        return fd;
    } else {
        shc_fail(e, SHC_EIO, "cannot read %s: %s", path, strerror(errno));
    }
    close(fd);
    return -1;
}

char *shc_read_path(const char *path, size_t *lenp, shc_err *e)
{
    int64_t size = 0;
    int fd = shc_open_json_input(path, &size, e);
    if (fd < 0)
        return NULL;
    /* one byte more than the size, so a file that grew since fstat is seen (and bounded) */
    size_t cap = (size_t)size + 1, len = 0;
    char *buf = malloc(cap);
    if (!buf) {
        close(fd);
        shc_fail(e, SHC_EINVAL, "%s: out of memory for its %lld bytes", path, (long long)size);
        return NULL;
    }
    ssize_t got = 0;
    while (len < cap && (got = read(fd, buf + len, cap - len)) != 0) {
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            break;
        len += (size_t)got;
    }
    int err = got < 0 ? errno : 0;
    close(fd);
    if (err)
        shc_fail(e, SHC_EIO, "error reading %s: %s", path, strerror(err));
    else if (len > (size_t)size)
        shc_fail(e, SHC_EIO, "%s grew while it was read", path);
    if (err || len > (size_t)size) {
        free(buf);
        return NULL;
    }
    *lenp = len;
    return buf;
}


int shc_map_path(shc_map *m, const char *path, shc_err *e)
{
    memset(m, 0, sizeof *m);
    int64_t size = 0;
    int fd = shc_open_json_input(path, &size, e);
    if (fd < 0)
        return e ? e->code : SHC_EIO;
    void *p = size > 0 ? mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
    close(fd);
    if (p == MAP_FAILED) { /* empty, or not mappable: a private copy as before */
        char *buf = shc_read_path(path, &m->n, e);
        if (!buf)
            return e ? e->code : SHC_EIO;
        m->p = m->heap = buf;
        return SHC_OK;
    }
    watch_sigbus();
    m->p = p;
    m->n = (size_t)size;
    m->mapped = true;
    if (nlive < MAX_LIVE)
        live[nlive].p = m->p, live[nlive++].n = m->n;
    return SHC_OK;
}

void shc_map_trim_all(void)
{
    for (size_t i = 0; i < nlive; i++)
        /* clean private file pages: dropped from this process, the file's bytes unchanged */
        madvise((void *)live[i].p, live[i].n, MADV_DONTNEED);
    touched = 0;
}

void shc_map_touched(size_t bytes)
{
    touched += bytes;
    if (touched >= SHC_MAP_WINDOW)
        shc_map_trim_all();
}

void shc_map_free(shc_map *m)
{
    if (!m->p)
        return;
    for (size_t i = 0; i < nlive; i++) {
        if (live[i].p == m->p) {
            live[i] = live[--nlive];
            break;
        }
    }
    if (m->mapped)
        munmap((void *)m->p, m->n);
    free(m->heap);
    memset(m, 0, sizeof *m);
}
