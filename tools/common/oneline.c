/*
 * oneline.c — see oneline.h.  Tested by conformance/tests/certify_tamper.sh.
 */
#include "config.h"
#include <string.h>
#include "oneline.h"

static char one(char c) { return (unsigned char)c < 0x20 || c == 0x7f ? ' ' : c; }

void oneline_put(FILE *f, const char *s, size_t max)
{
    size_t n = 0;
    for (; s && *s && n < max; s++, n++)
        putc(one(*s), f);
    if (s && *s)
        fputs("...", f);
}

const char *oneline_copy(char *buf, size_t n, const char *s)
{
    size_t k = 0;
    for (; s && *s && k + 1 < n; s++)
        buf[k++] = one(*s);
    buf[k] = '\0';
    if (s && *s && n >= 4) /* cut: say so */
        memcpy(buf + (k > n - 4 ? n - 4 : k), "...", 4);
    return buf;
}
