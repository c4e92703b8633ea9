/*
 * verify_engine.c — verify_candidate: the candidate sources asked in turn, the scanner
 * (verify_scan.c; bounded memory, no tree) and then the jansson trees (verify_tree.c),
 * until one decides.  SHARDCHECK_VERIFY_TREES picks one source for the tests (1: the
 * trees only, the reference; 0: the scanner only, a file it is unsure of refused).
 * Tested by verify_fast.sh (both sources, byte for byte), verify_candidate.sh and the
 * candidate and verify_diff fuzzers.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "golden.h"
#include "report.h"
#include "verify.h"

static const verify_source sources[] = {
    {"scan", false, verify_scanned},
    {"tree", true, verify_tree},
};

bool verify_trees_only(void)
{
    const char *v = getenv("SHARDCHECK_VERIFY_TREES");
    return v && !strcmp(v, "1");
}

bool verify_scan_only(void)
{
    const char *v = getenv("SHARDCHECK_VERIFY_TREES");
    return v && !strcmp(v, "0");
}

int verify_candidate(const shc_golden *g, const char *path, report *rep, shc_err *e)
{
    for (size_t i = 0; i < sizeof sources / sizeof *sources; i++) {
        const verify_source *src = &sources[i];
        if (!src->tree && verify_trees_only())
            continue;
        if (src->tree && verify_scan_only())
            return shc_fail(e, SHC_EINVAL, "candidate %s: SHARDCHECK_VERIFY_TREES=0, and the "
                            "scanner leaves this file to the jansson trees", path);
        int rc = src->check(g, path, rep, e);
        if (rc != SHC_SCAN_UNSURE)
            return rc;
    }
    return shc_fail(e, SHC_EINTERNAL, "candidate %s: no candidate source decided", path);
}
