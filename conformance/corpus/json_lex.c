/*
 * json_lex.c — tokens as jansson 2.14 reads them (json_lex.h): strings (escapes, UTF-8) and
 * the overflow of reals.  The rules follow jansson's src/load.c (lex_scan_string,
 * decode_unicode_escape, lex_scan_number), src/utf.c (utf8_check_first, utf8_check_full)
 * and src/strconv.c (jsonp_strtod); the code is ours.  Tested by check_golden_bytes
 * (scanner against jansson) and the verify_diff fuzz target.
 */
#include "config.h"
#include <stdint.h>
#include <string.h>
#include "json_lex.h"

/* 4 hex digits at p (either case, as jansson's l_isxdigit), or -1. */
static int32_t hex4(const char *p, const char *end)
{
    int32_t v = 0;
    if (end - p < 4)
        return -1;
    for (int i = 0; i < 4; i++) {
        char ch = p[i];
        int d = ch >= '0' && ch <= '9' ? ch - '0'
                : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        v = v << 4 | d;
    }
    return v;
}

/* After "\u": the code point of one escape, or of a surrogate pair (jansson: a high
 * surrogate must be followed at once by "\u" and a low one; a lone low surrogate is an
 * error), past it in *pp; -1 when jansson refuses it.  \u0000 is refused too: jansson
 * reads it only with JSON_ALLOW_NUL in a value ("\\u0000 is not allowed without
 * JSON_ALLOW_NUL") and never in a key ("NUL byte in object key not supported"). */
static int32_t unicode_escape(const char **pp, const char *end)
{
    const char *p = *pp;
    int32_t v = hex4(p, end);
    if (v <= 0 || (v >= 0xDC00 && v <= 0xDFFF))
        return -1;
    p += 4;
    if (v >= 0xD800 && v <= 0xDBFF) {
        int32_t w = end - p >= 2 && p[0] == '\\' && p[1] == 'u' ? hex4(p + 2, end) : -1;
        if (w < 0xDC00 || w > 0xDFFF)
            return -1;
        v = ((v - 0xD800) << 10) + (w - 0xDC00) + 0x10000;
        p += 6;
    }
    *pp = p;
    return v;
}

/* The length of the UTF-8 sequence at p, or 0 where jansson's stream_get says "unable to
 * decode byte": a continuation or 0xC0, 0xC1, >= 0xF5 first, a missing continuation, an
 * overlong form, a surrogate or a value above U+10FFFF. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
    unsigned char u = p[0];
    size_t n = u >= 0xC2 && u <= 0xDF ? 2 : u >= 0xE0 && u <= 0xEF ? 3 : u >= 0xF0 && u <= 0xF4 ? 4 : 0;
    if (!n || (size_t)(end - p) < n)
        return 0;
    int32_t v = u & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
    for (size_t i = 1; i < n; i++) {
        if (p[i] < 0x80 || p[i] > 0xBF)
            return 0;
        v = (v << 6) | (p[i] & 0x3F);
    }
    if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF) || (n == 3 && v < 0x800) ||
        (n == 4 && v < 0x10000))
        return 0;
    return n; /* (n == 2 && v < 0x80) cannot happen: 0xC0 and 0xC1 were refused */
}

const char *shc_lex_string_special(const char *p, const char *end, bool *esc)
{
    unsigned char u = (unsigned char)*p;
    if (u == '\\') {
        if (end - p < 2)
            return NULL;
        *esc = true;
        switch (p[1]) {
        case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
            return p + 2;
        case 'u':
            p += 2;
            return unicode_escape(&p, end) < 0 ? NULL : p;
        default:
            return NULL; /* "invalid escape" */
        }
    }
    if (u < 0x80)
        return NULL; /* a control character (jansson: "control character 0x.." or
                      * "unexpected newline") */
    size_t n = utf8_len((const unsigned char *)p, (const unsigned char *)end);
    return n ? p + n : NULL;
}

/* utf8_encode of jansson's utf.c for a code point it decoded. */
static size_t utf8_put(int32_t v, char *out)
{
    if (v < 0x80) {
        out[0] = (char)v;
        return 1;
    }
    if (v < 0x800) {
        out[0] = (char)(0xC0 | v >> 6);
        out[1] = (char)(0x80 | (v & 0x3F));
        return 2;
    }
    if (v < 0x10000) {
        out[0] = (char)(0xE0 | v >> 12);
        out[1] = (char)(0x80 | (v >> 6 & 0x3F));
        out[2] = (char)(0x80 | (v & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | v >> 18);
    out[1] = (char)(0x80 | (v >> 12 & 0x3F));
    out[2] = (char)(0x80 | (v >> 6 & 0x3F));
    out[3] = (char)(0x80 | (v & 0x3F));
    return 4;
}

size_t shc_lex_decode(const char *raw, size_t n, char *out)
{
    const char *p = raw, *end = raw + n;
    char *o = out;
    while (p < end) {
        const char *b = memchr(p, '\\', (size_t)(end - p));
        size_t plain = (size_t)((b ? b : end) - p);
        memmove(o, p, plain); /* out may be raw itself: decoding only shrinks */
        o += plain;
        p += plain;
        if (!b || end - p < 2)
            break;
        char e = p[1];
        p += 2;
        if (e == 'u') {
            int32_t v = unicode_escape(&p, end);
            if (v < 0)
                break; /* (not validated: stop rather than guess) */
            o += utf8_put(v, o);
            continue;
        }
        *o++ = e == 'b' ? '\b' : e == 'f' ? '\f' : e == 'n' ? '\n' : e == 'r' ? '\r'
               : e == 't' ? '\t' : e; /* '"', '\\', '/' stand for themselves */
    }
    return (size_t)(o - out);
}

/* 2^1024 - 2^970, the least magnitude glibc's strtod rounds to infinity (the midpoint
 * between DBL_MAX and 2^1024 rounds to the even 2^1024), in its 309 decimal digits. */
static const char overflow_digits[] =
    "17976931348623158079372897140530341507993413271003782693617377898044496829276475"
    "09466490179775872070963302864166928879109465555478519404026306574886715058206819"
    "08902000708383676273854845817711531764475730270069855571366959622842914819860834"
    "936475292719074168444365510704342711559699508093042880177904174497792";

bool shc_lex_real_fits(const char *s, size_t n)
{
    const char *p = s, *end = s + n;
    if (p < end && *p == '-')
        p++;
    /* value = 0.D x 10^E, D the significant digits from the first nonzero one */
    const char *first = NULL;
    int64_t int_digits = 0, lead = 0; /* lead: zeros before the first nonzero digit */
    for (; p < end && *p >= '0' && *p <= '9'; p++, int_digits++) {
        if (!first && *p != '0')
            first = p;
        lead += !first;
    }
    if (p < end && *p == '.')
        for (p++; p < end && *p >= '0' && *p <= '9'; p++) {
            if (!first && *p != '0')
                first = p;
            lead += !first;
        }
    int64_t exp = 0;
    if (p < end && (*p == 'e' || *p == 'E')) {
        bool neg = ++p < end && *p == '-';
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        for (; p < end && *p >= '0' && *p <= '9'; p++)
            exp = exp < 1000000000 ? exp * 10 + (*p - '0') : exp; /* saturates: past any file */
        exp = neg ? -exp : exp;
    }
    if (!first)
        return true; /* zero */
    int64_t e10 = int_digits - lead + exp;
    if (e10 != 309)
        return e10 < 309; /* below 10^308, or at least 10^309 */
    size_t k = 0;
    for (const char *q = first; q < end && k < sizeof overflow_digits - 1; q++) {
        if (*q == '.')
            continue;
        if (*q < '0' || *q > '9')
            break; /* the exponent */
        if (*q != overflow_digits[k])
            return *q < overflow_digits[k];
        k++;
    }
    /* equal so far: a shorter D is padded with zeros, T's digits go on (or D goes on past
     * T's end, where T has zeros: any nonzero digit left makes it larger) */
    if (k < sizeof overflow_digits - 1)
        return true; /* T has a nonzero digit left (its last one, 2, is nonzero) */
    return false; /* D >= T */
}
