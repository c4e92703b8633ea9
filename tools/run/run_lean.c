/*
 * run_lean.c — a trusted worker's check of a case without the expected tree (issue 36 item 1).
 *
 * Why: `run --backend ref` spent a third of its time parsing each golden test's "expected"
 * object with jansson (and freeing it), though nearly every computed view is right.  The
 * family computes from a test's inputs only, so the worker parses the test with its expected
 * value read as null (run_lean_test), computes the views, and compares each tree with the
 * golden file's own bytes, value by token (golden_bytes.c's shc_bview_same_tree: a match is
 * exactly what shc_compare_view passes, with no note).  Anything else (a difference, an error view, a family view_check that
 * objects, a world that is not the golden's) is "unsure": the caller checks the views against
 * the whole test's tree as before, which words any failure.  So the lean check can make a run
 * faster, never change what it says.  Tested by run_lean.sh: every family's run, right and
 * with planted wrong answers, prints the same bytes with and without it
 * (SHARDCHECK_RUN_TREES=1).
 */
#include "config.h"
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json_build.h"
#include "run_lean.h"

static bool trees_asked(void)
{
    static int asked = -1;
    if (asked < 0) {
        const char *v = getenv("SHARDCHECK_RUN_TREES");
        asked = v && !strcmp(v, "1");
    }
    return asked;
}

json_t *run_lean_test(run_lean *L, const shc_golden *g, int64_t i)
{
    if (trees_asked() || !g->text || g->text[i].invalid || g->tests[i])
        return NULL; /* a tree already parsed costs nothing more to use */
    shc_span t = g->text[i].test, x = g->text[i].expected;
    assert(x.p >= t.p && x.p + x.n <= t.p + t.n); /* the index's spans: expected inside */
    size_t head = (size_t)(x.p - t.p), tail = t.n - head - x.n, need = head + 4 + tail;
    if (need > L->cap) {
        char *nb = realloc(L->buf, need);
        if (!nb)
            return NULL;
        L->buf = nb;
        L->cap = need;
    }
    memcpy(L->buf, t.p, head);
    memcpy(L->buf + head, "null", 4);
    memcpy(L->buf + head + 4, x.p + x.n, tail);
    shc_map_touched(t.n);
    /* built without jansson's lexer where the text allows (json_build.h: the same tree) */
    json_t *lean = shc_json_build(L->buf, need);
    json_error_t je;
    return lean ? lean : shc_json_loadb(L->buf, need, &je); /* NULL: the whole tree instead */
}

bool run_lean_pass(run_lean *L, const shc_family *f, const shc_golden *g, int64_t i,
                   const json_t *lean, int64_t world, int64_t first, int64_t count,
                   json_t *const *views)
{
    bool same = shc_bview_split_test(&L->bv, g, i) && (!L->bv.world || L->bv.world == world);
    for (int64_t k = 0; same && k < count; k++) {
        char why[8];
        /* a rejection is worded by the trees (valid or acceptable); the family's own check
         * runs first, as check_ranks runs it (it may drop a note field from the view) */
        same = views[k] && !json_object_get(views[k], "error") &&
               (!f->view_check || f->view_check(lean, views[k], why, sizeof why)) &&
               shc_bview_same_tree(&L->bv, L->bv.world ? first + k : -1, views[k]);
    }
    same ? L->in_bytes++ : L->by_trees++;
    return same;
}

void run_lean_free(run_lean *L)
{
    const char *count = getenv("SHARDCHECK_RUN_LEAN_COUNT");
    if (count && !strcmp(count, "1") && L->in_bytes + L->by_trees) /* one that decided */
        fprintf(stderr, "run: lean check: %lld passed in bytes, %lld by the trees\n",
                (long long)L->in_bytes, (long long)L->by_trees);
    shc_bview_free(&L->bv);
    free(L->buf);
    L->buf = NULL;
    L->cap = 0;
}
