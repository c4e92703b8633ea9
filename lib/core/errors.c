/*
 * errors.c — error codes and messages.
 *
 * Errors travel as a return code plus a caller-owned shc_err whose message
 * names what was wrong and where ("placement 2 'S(5)': shard dim 5 out of
 * range for a 2-d tensor").  Callers add context with shc_err_prefix as the
 * error climbs, so the CLI can print one line that locates the problem.
 * Tested by conformance/tests/check_core.c.
 */
#include "config.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "shardcheck.h"

int shc_fail(shc_err *e, int code, const char *fmt, ...)
{
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
        e->code = code;
    }
    return code;
}

int shc_err_prefix(shc_err *e, const char *fmt, ...)
{
    if (!e)
        return SHC_EINTERNAL;
    char old[SHC_ERR_MAX];
    memcpy(old, e->msg, sizeof old);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n + 2 < sizeof e->msg) {
        size_t room = sizeof e->msg - (size_t)n;
        e->msg[n] = ':';
        e->msg[n + 1] = ' ';
        memcpy(e->msg + n + 2, old, room - 2);
        e->msg[sizeof e->msg - 1] = '\0';
    }
    return e->code;
}

void shc_err_clear(shc_err *e)
{
    if (e) {
        e->code = SHC_OK;
        e->msg[0] = '\0';
    }
}

const char *shc_strerror(int code)
{
    switch (code) {
    case SHC_OK: return "ok";
    case SHC_EINVAL: return "invalid input";
    case SHC_EOVERFLOW: return "overflow";
    case SHC_ENOMEM: return "out of memory";
    case SHC_EIO: return "i/o error";
    case SHC_EFORMAT: return "malformed file";
    case SHC_EUNSUPPORTED: return "not supported";
    default: return "internal error";
    }
}

const char *shc_version(void) { return PACKAGE_VERSION; }
