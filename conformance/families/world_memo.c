/*
 * world_memo.c — every rank's answer to the last case a family computed whole (world_memo.h:
 * why, and how it is tested).
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "world_memo.h"

/* The case's inputs as one string: the group's members but "tests" (the index loader gives
 * them empty, the tree loader whole) and the test, sorted compact JSON; NULL out of memory. */
static char *case_key(const json_t *group, const json_t *test)
{
    json_t *g = json_copy((json_t *)group); /* shallow: only the "tests" member goes */
    if (!g)
        return NULL;
    json_object_del(g, "tests");
    char *a = json_dumps(g, JSON_COMPACT | JSON_SORT_KEYS);
    char *b = json_dumps(test, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(g);
    char *key = a && b ? malloc(strlen(a) + strlen(b) + 2) : NULL;
    if (key)
        strcat(strcat(strcpy(key, a), "\n"), b);
    free(a);
    free(b);
    return key;
}

static void clear_locked(shc_world_memo *m)
{
    for (int64_t r = 0; r < m->n; r++)
        json_decref(m->views[r]);
    free(m->views);
    free(m->key);
    m->views = NULL;
    m->key = NULL;
    m->n = 0;
}

json_t *shc_world_memo_get(shc_world_memo *m, const json_t *group, const json_t *test,
                           int64_t rank)
{
    char *key = case_key(group, test);
    json_t *got = NULL;
    pthread_mutex_lock(&m->mu);
    if (key && m->key && !strcmp(key, m->key) && rank >= 0 && rank < m->n)
        got = json_deep_copy(m->views[rank]); /* the caller may add to its answer */
    if (got)
        m->hits++;
    else
        m->misses++;
    pthread_mutex_unlock(&m->mu);
    free(key);
    return got;
}

void shc_world_memo_put(shc_world_memo *m, const json_t *group, const json_t *test,
                        json_t **views, int64_t n)
{
    char *key = case_key(group, test);
    json_t **v = key && n > 0 ? malloc((size_t)n * sizeof *v) : NULL;
    pthread_mutex_lock(&m->mu);
    clear_locked(m);
    if (v) {
        memcpy(v, views, (size_t)n * sizeof *v);
        m->key = key, m->views = v, m->n = n;
        key = NULL;
    } else {
        for (int64_t r = 0; r < n; r++)
            json_decref(views[r]);
    }
    pthread_mutex_unlock(&m->mu);
    free(key);
}

void shc_world_memo_clear(shc_world_memo *m)
{
    pthread_mutex_lock(&m->mu);
    clear_locked(m);
    pthread_mutex_unlock(&m->mu);
}
