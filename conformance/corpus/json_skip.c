/*
 * json_skip.c — shc_skip_container (json_skip.h): a container's end found by brackets
 * outside strings, whole 64-byte blocks at a time where no backslash and no possible
 * close to the container's level stand in the way, byte by byte elsewhere.  Tested by
 * check_golden_bytes, against the validating scanner (json_scan.c) on random documents.
 */
#include "config.h"
#include "json_skip.h"

/* Byte by byte from p (in a string or not, an escape pending or not) to lim: one past the
 * bracket that brings *depth to 0, else lim. */
static const char *skip_bytes(const char *p, const char *lim, int *depth, bool *in_str,
                              bool *esc)
{
    for (; p < lim; p++) {
        char c = *p;
        if (*in_str) {
            if (*esc)
                *esc = false;
            else if (c == '\\')
                *esc = true;
            else if (c == '"')
                *in_str = false;
        } else if (c == '"') {
            *in_str = true;
        } else if (c == '[' || c == '{') {
            ++*depth;
        } else if ((c == ']' || c == '}') && --*depth == 0) {
            return p + 1;
        }
    }
    return lim;
}

SHC_POPCNT_CLONES const char *shc_skip_container(const char *p, const char *end)
{
    int depth = 0;
    bool in_str = false, esc = false;
    while (p < end) {
        if (end - p >= 64 && !esc) {
            shc_jmasks m = shc_jmasks_of(p);
            if (!m.bslash) {
                uint64_t inside = shc_prefix_xor(m.quote) ^ (in_str ? ~(uint64_t)0 : 0);
                uint64_t close = m.close & ~inside, br = (m.open & ~inside) | close;
                if (depth - __builtin_popcountll(close) <= 0) /* it may close here */
                    for (uint64_t b = br, d = (uint64_t)depth; b; b &= b - 1)
                        if ((d += close >> __builtin_ctzll(b) & 1 ? (uint64_t)-1 : 1) == 0)
                            return p + __builtin_ctzll(b) + 1;
                depth += __builtin_popcountll(br) - 2 * __builtin_popcountll(close);
                in_str = inside >> 63;
                p += 64;
                continue;
            }
        }
        const char *lim = end - p >= 64 ? p + 64 : end, *q = skip_bytes(p, lim, &depth, &in_str, &esc);
        if (depth == 0 && q > p)
            return q;
        p = q;
    }
    return NULL;
}
