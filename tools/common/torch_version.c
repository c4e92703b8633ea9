/*
 * torch_version.c — which torch release a command judges against (--torch-version), the
 * one rule for verify, run, certify, report and explain: the option, else
 * SHARDCHECK_TORCH_VERSION, else the release an input records (a results file's or a run
 * report's "torch"), else the pinned 2.13, the release the corpus's top-level answers are
 * and the one CI cross-checks in full.  A new user who names nothing gets what the
 * README's numbers and the corpus describe; a user checking a file gets what the file says
 * it was judged against; an explicit choice that contradicts a file's is refused by name
 * (exit 2), never silently compared against the wrong answers.  Tested by torch_version.sh.
 */
#include "config.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "torch_version.h"

/* Skip a JSON string at p (p at the opening quote) within [p, end): past the closing quote,
 * or NULL. */
static const char *skip_string(const char *p, const char *end)
{
    for (p++; p < end; p++) {
        if (*p == '\\')
            p++;
        else if (*p == '"')
            return p + 1;
    }
    return NULL;
}

static const char *skip_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    return p;
}

/* Walk the top-level members of the object in buf[0, n) until an array-valued one (the
 * results or testGroups, read no further): the value of "torch" when it comes first. */
static bool peek_torch(const char *buf, size_t n, char *out, size_t cap)
{
    const char *p = skip_ws(buf, buf + n), *end = buf + n;
    if (p >= end || *p != '{')
        return false;
    p++;
    for (;;) {
        p = skip_ws(p, end);
        if (p >= end || *p != '"')
            return false;
        const char *k = p + 1, *ke = skip_string(p, end);
        if (!ke)
            return false;
        p = skip_ws(ke, end);
        if (p >= end || *p != ':')
            return false;
        p = skip_ws(p + 1, end);
        if (p >= end || *p == '[')
            return false;
        bool is_torch = ke - k - 1 == 5 && !memcmp(k, "torch", 5);
        if (*p == '"') {
            const char *ve = skip_string(p, end);
            if (!ve)
                return false;
            if (is_torch) {
                size_t len = (size_t)(ve - p - 2);
                if (len >= cap)
                    len = cap - 1;
                memcpy(out, p + 1, len);
                out[len] = '\0';
                return true;
            }
            p = ve;
        } else { /* a scalar or an object: skip to the member's end */
            int depth = 0;
            while (p < end && (depth || (*p != ',' && *p != '}'))) {
                if (*p == '"') {
                    if (!(p = skip_string(p, end)))
                        return false;
                    continue;
                }
                depth += *p == '{' || *p == '[';
                depth -= *p == '}' || *p == ']';
                p++;
            }
        }
        p = skip_ws(p, end);
        if (p >= end || *p != ',')
            return false;
        p++;
    }
}

bool tv_recorded(const char *path, char *out, size_t cap)
{
    char buf[65536];
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, buf, sizeof buf);
    close(fd);
    return n > 0 && peek_torch(buf, (size_t)n, out, cap);
}

int tv_resolve(const char *opt, const char *recorded, const char *where, shc_torch_release *out,
               char *why, size_t whyn, shc_err *e)
{
    const char *env = getenv("SHARDCHECK_TORCH_VERSION");
    const char *spec = opt && *opt ? opt : env && *env ? env : NULL;
    const char *src = opt && *opt ? "--torch-version" : "SHARDCHECK_TORCH_VERSION";
    shc_torch_release rec = SHC_TORCH_PINNED;
    int rc;
    if (recorded && (rc = shc_torch_release_parse(recorded, &rec, e)))
        return shc_err_prefix(e, "%s records \"torch\": \"%s\"", where, recorded);
    if (spec) {
        if ((rc = shc_torch_release_parse(spec, out, e)))
            return shc_err_prefix(e, "%s", src);
        if (recorded && shc_torch_norm(rec) != shc_torch_norm(*out))
            return shc_fail(e, SHC_EINVAL, "%s was judged against torch %s (its \"torch\"), not "
                            "%s (%s): check it against %s, or produce it again for %s", where,
                            shc_torch_release_name(rec), shc_torch_release_name(*out), src,
                            shc_torch_release_name(rec), shc_torch_release_name(*out));
        snprintf(why, whyn, "%s", src);
    } else if (recorded) {
        *out = rec;
        snprintf(why, whyn, "recorded in %s", where);
    } else {
        *out = SHC_TORCH_PIN_RELEASE;
        snprintf(why, whyn, "the pinned default");
    }
    *out = shc_torch_norm(*out);
    return SHC_OK;
}
