/*
 * plugin_host.h — what the runner hands an ABI v2 plugin (lib/shardcheck_backend.h): the
 * case (one JSON object built from the golden group and test, never their answer), the
 * reader over it and the writer of one rank's answer (shc_host_v2).  Implemented in
 * plugin_host.c; used by backend_plugin.c; tested by conformance/tests/plugin_v2.sh (the
 * example plugin answers every case through it; a garbage answer is refused by name)
 * and check_plugin_host (the reader's and writer's bounds and refusals).
 */
#ifndef SHC_PLUGIN_HOST_H
#define SHC_PLUGIN_HOST_H
#include <stdbool.h>
#include <jansson.h>
#include "shardcheck.h"
#include "shardcheck_backend.h"

/* One case: {"family", "torch", "tcId", "world", "group", "test"}.  Strings the reader
 * returns are kept in strs until shc_case_v2_reset (after each call into the plugin). */
struct shc_case_v2 {
    json_t *root;
    const json_t *group, *test; /* root's own members */
    char *text;                 /* case_json's answer, made once */
    char **strs;                /* json()'s answers */
    size_t nstrs, cap;
};

/* One rank's answer: the view being built, and the first refusal of a put_* call. */
struct shc_answer_v2 {
    json_t *view;
    char why[256]; /* empty: nothing refused */
};

/* The host table, for every call (it holds no state: thread-safe). */
const shc_host_v2 *shc_plugin_host(void);
/* The case of test (in group, of family) judged against release torch (NULL: not said) on
 * world ranks, as one object: group without "tests" (the other cases, answers and all: a
 * whole group of shard-layout is up to 120 KB), test without "expected", "result" and
 * "byVersion" (its answer).  NULL when either is not an object or memory runs out.  The one
 * form every backend that runs outside the runner is sent (plugin, worker, torch). */
json_t *shc_case_json(const char *family, const char *torch, const json_t *group,
                      const json_t *test, int64_t world);
/* The same as a plugin's case, with its reader's state. */
int shc_case_v2_init(shc_case_v2 *c, const char *family, const char *torch,
                     const json_t *group, const json_t *test, int64_t world, shc_err *e);
/* The same, allocated (NULL with e); free with shc_case_v2_delete. */
shc_case_v2 *shc_case_v2_new(const char *family, const char *torch, const json_t *group,
                             const json_t *test, int64_t world, shc_err *e);
void shc_case_v2_delete(shc_case_v2 *c);
/* Free the strings handed out since the last call (they live until the call returns). */
void shc_case_v2_reset(shc_case_v2 *c);
void shc_case_v2_free(shc_case_v2 *c);
/* An empty answer; free with shc_answer_v2_free unless taken. */
void shc_answer_v2_init(shc_answer_v2 *a);
void shc_answer_v2_free(shc_answer_v2 *a);
/* The view built (the caller owns it), or NULL with the reason a put_* call was refused
 * in why. */
json_t *shc_answer_v2_take(shc_answer_v2 *a, char *why, size_t n);
#endif
