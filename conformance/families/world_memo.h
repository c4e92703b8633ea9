/*
 * world_memo.h — every rank's answer to the last case a family computed whole.
 *
 * A family whose per-rank answer needs the whole world computed (redistribute-data: a plan
 * executed on every simulated rank at once, shc_exec_simulate) is asked once per rank by the
 * ref backend and the runner's workers: without a memo each rank's question simulated the
 * world again, n^2 rank executions per case (88,044 threads for the family's 787 cases,
 * issue 36).  The memo keeps the last case's n views, keyed by the case's inputs (its group's
 * members but "tests", and the test, as sorted compact JSON), so the next rank of the same
 * case is a copy.  One case at a time: the runner asks rank after rank of a case.  Guarded by
 * a mutex for a backend that asks from several threads.
 * Tested by check_world_memo (hits, misses, a changed input, threads) and, through the
 * family, by every redistribute-data run and golden_regen.sh.
 */
#ifndef SHC_WORLD_MEMO_H
#define SHC_WORLD_MEMO_H
#include <pthread.h>
#include <stdint.h>
#include <jansson.h>

typedef struct shc_world_memo {
    pthread_mutex_t mu;
    char *key;      /* the case's inputs, or NULL when empty */
    json_t **views; /* views[r]: rank r's answer */
    int64_t n;
    int64_t hits, misses; /* for its test */
} shc_world_memo;
#define SHC_WORLD_MEMO_INIT {PTHREAD_MUTEX_INITIALIZER, NULL, NULL, 0, 0, 0}

/* Rank's answer to the case (group, test) as a new reference (a deep copy), or NULL when the
 * memo holds another case or no such rank. */
json_t *shc_world_memo_get(shc_world_memo *m, const json_t *group, const json_t *test,
                           int64_t rank);
/* Keep the case's n views (taking the references in views[], the array itself stays the
 * caller's), replacing what was kept; out of memory keeps nothing. */
void shc_world_memo_put(shc_world_memo *m, const json_t *group, const json_t *test,
                        json_t **views, int64_t n);
/* Forget what is kept. */
void shc_world_memo_clear(shc_world_memo *m);
#endif
