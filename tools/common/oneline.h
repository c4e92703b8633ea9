/*
 * oneline.h — an input's text printed on one line (issue 38 M4): a candidate's NotSupported
 * reason, a failure's detail, a case name, certify --name or a statement string edited in
 * statement.json, with a newline in it, printed a line of its own in TAP, text and
 * statement.txt: a forged "verdict: CONFORMANT" line that certify --check called intact.
 * Every such text goes through here: each control character (below 0x20, and 0x7f) becomes
 * a space, and at most max bytes are printed, then "...".  Used by report.c, report_groups.c
 * and certify_package.c; tested by conformance/tests/certify_tamper.sh.
 */
#ifndef SHC_ONELINE_H
#define SHC_ONELINE_H
#include <stddef.h>
#include <stdio.h>

/* s (NULL: nothing) on one line, at most max bytes, then "..." when cut. */
void oneline_put(FILE *f, const char *s, size_t max);
/* The same into buf (n bytes, at least 4; buf may be s itself); returns buf. */
const char *oneline_copy(char *buf, size_t n, const char *s);
#endif
