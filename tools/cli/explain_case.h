/*
 * explain_case.h — `shardcheck explain --family F --tcid N [--candidate FILE]`, the golden-case
 * form of cmd_explain.c (explain_case.c).  Tested by conformance/tests/cli_explain.sh.
 */
#ifndef SHC_EXPLAIN_CASE_H
#define SHC_EXPLAIN_CASE_H
typedef struct explain_case_opts {
    const char *family, *golden, *candidate, *svg, *tver;
    long long tcid;
} explain_case_opts;
/* `explain --family F --tcid N [--candidate FILE] [--svg FILE]`: the case's identity,
 * inputs, picture and expected answer per rank; with a candidate its answer beside it,
 * differing fields marked.  Returns the exit code (0; 1 when the candidate fails the case;
 * 2 bad input, after a message). */
int explain_case(const explain_case_opts *o);
#endif
