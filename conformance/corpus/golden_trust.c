/*
 * golden_trust.c — which golden files this build knows to be valid JSON: those whose
 * sha256 golden/MANIFEST listed when the build was made (golden_trust.inc, generated from it
 * by mk/corpus.am).  `make check` reads every one of them with the validating scanner, so
 * bytes with one of those hashes need not be validated again: the golden index
 * (golden_index.c) skips their values by brackets alone (json_skip.h), which is what a
 * correct candidate's verify mostly spent its time on (issue 36).  A file is vouched for
 * when shc_manifest_verify_family hashed it and found both the directory's MANIFEST and
 * this build's list agreeing; any other file, a regenerated or edited corpus included, is
 * validated as before.  Tested by check_golden_bytes (the trusted and the validating scan
 * give the same spans on every golden file; a hash not listed is not trusted).
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "golden.h"

/* Sorted, one 64-hex-digit string per golden file (and schema) of the build's corpus. */
static const char *const known[] = {
#include "conformance/corpus/golden_trust.inc"
};

/* The files vouched for in this process, by the path they were hashed under. */
#define MAX_VOUCHED 256
static char *vouched[MAX_VOUCHED];
static int nvouched;

static int cmp_hex(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

bool shc_golden_sha_known(const char *hex)
{
    size_t n = sizeof known / sizeof *known;
    return n && bsearch(&hex, known, n, sizeof *known, cmp_hex) != NULL;
}

void shc_golden_vouch(const char *path, const char *hex)
{
    if (!shc_golden_sha_known(hex) || shc_golden_vouched(path) || nvouched == MAX_VOUCHED)
        return;
    vouched[nvouched] = strdup(path);
    nvouched += vouched[nvouched] != NULL;
}

bool shc_golden_vouched(const char *path)
{
    for (int i = 0; i < nvouched; i++)
        if (!strcmp(vouched[i], path))
            return true;
    return false;
}
