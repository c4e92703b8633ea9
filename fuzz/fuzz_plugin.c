/*
 * fuzz_plugin.c — libFuzzer target for the plugin-results path of `shardcheck
 * run --backend plugin:` (shc_plugin_views in tools/run/backend_plugin.c and the
 * families' conversions it dispatches to in conformance/families/): turning a
 * vendor plugin's answers into golden views, then comparing them as run does.
 *
 * No dlopen: shc_plugin_views only needs the plugin's function table, so a
 * table of in-process entry points stands in for a loaded plugin.  Its answers
 * are fuzzer bytes: the input is a golden file, a NUL byte, then the answer
 * stream (return codes, shapes, offsets, group lists, step counts and kinds,
 * random floats, redistributed tensors).  The stand-in keeps the ABI's own
 * promises (it never writes past a capacity it was given, and a buffer it
 * returns holds as many elements as the shape it states) and breaks every
 * other one: lengths outside 0..cap, negative shapes, NULL kinds, refusals.
 * Tested by: make check (fuzz/replay.sh over fuzz/corpus/plugin and
 * fuzz/regressions/plugin), make fuzz (libFuzzer, --enable-fuzzing).
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#define FUZZ_WITH_GOLDEN
#include "fuzz_common.h"
#include "backend_plugin.h"

#define FUZZ_MAX_RANKS 16
#define FUZZ_MAX_TESTS 4
#define FUZZ_MAX_OUT_ELEMS 4096 /* elements in one redistributed tensor */

/* The answer stream; reads past its end give zeros. */
static const uint8_t *ans;
static size_t ans_len, ans_pos;

static uint8_t u8(void) { return ans_pos < ans_len ? ans[ans_pos++] : 0; }

static int64_t i64(void)
{
    /* Mostly small values (shapes, ranks, lengths), sometimes any int64. */
    uint8_t tag = u8();
    if (tag < 0xf0)
        return (int64_t)(tag % 24) - 4;
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | u8();
    return (int64_t)v;
}

static int ret(char *err, size_t errlen)
{
    uint8_t r = u8();
    snprintf(err, errlen, "fuzz plugin refuses (%u)", r);
    return r < 200 ? 0 : r < 230 ? SHC_BACKEND_UNSUPPORTED : 1;
}

static int f_layout(const shc_backend_case *c, int64_t rank, int64_t *ls, int64_t *off, char *err,
                    size_t errlen)
{
    for (int i = 0; i < c->ndim && i < SHC_BACKEND_MAX_DIMS; i++) {
        ls[i] = i64();
        off[i] = i64();
    }
    return ret(err, errlen);
}

static int f_group(const shc_backend_case *c, const int *axes, int naxes, int64_t rank,
                   int64_t *ranks, int64_t cap, int64_t *n, char *err, size_t errlen)
{
    *n = i64();
    for (int64_t i = 0; i < *n && i < cap; i++)
        ranks[i] = i64();
    return ret(err, errlen);
}

static int f_offsets(const shc_backend_case *c, int64_t rank, shc_backend_offsets *o, char *err,
                     size_t errlen)
{
    o->shard_linear_index = i64();
    o->start_incr = i64();
    o->end_incr = i64();
    o->local_numel = i64();
    return ret(err, errlen);
}

static int f_plan(const shc_backend_case *c, int64_t rank, int *nsteps, const char **kinds,
                  int cap, char *err, size_t errlen)
{
    static const char *const names[] = {"all_gather", "all_reduce", "reduce_scatter",
                                        "all_to_all", "local", "bogus", NULL};
    *nsteps = (int)i64();
    for (int i = 0; i < *nsteps && i < cap; i++)
        kinds[i] = names[u8() % (sizeof names / sizeof *names)];
    return ret(err, errlen);
}

static int f_random_fill(uint64_t seed, int64_t offset, int64_t n, float *out, char *err,
                         size_t errlen)
{
    for (int64_t i = 0; i < n; i++) {
        uint32_t u = (uint32_t)u8() << 24 | (uint32_t)u8() << 16 | (uint32_t)u8() << 8 | u8();
        memcpy(&out[i], &u, sizeof u);
    }
    return ret(err, errlen);
}

static int f_execute(const shc_backend_case *c, int64_t world, const void *const *in,
                     const int64_t (*in_shapes)[SHC_BACKEND_MAX_DIMS], void **out,
                     int64_t (*out_shapes)[SHC_BACKEND_MAX_DIMS], char *err, size_t errlen)
{
    int esize = 0;
    shc_err e;
    if (!c->dtype || shc_dtype_bytes(c->dtype, &esize, &e) != SHC_OK)
        esize = 0;
    for (int64_t r = 0; r < world; r++) {
        int64_t numel = 1;
        for (int d = 0; d < c->ndim && d < SHC_BACKEND_MAX_DIMS; d++) {
            out_shapes[r][d] = i64();
            if (out_shapes[r][d] < 0 || out_shapes[r][d] > FUZZ_MAX_OUT_ELEMS)
                numel = -1;
            else if (numel >= 0)
                numel *= out_shapes[r][d];
        }
        if (numel < 0 || numel > FUZZ_MAX_OUT_ELEMS || !esize || u8() == 0xff) {
            out[r] = NULL; /* a shape no buffer can hold: the plugin returns none */
            continue;
        }
        size_t bytes = (size_t)numel * (size_t)esize;
        uint8_t *b = malloc(bytes ? bytes : 1);
        if (!b)
            abort();
        for (size_t i = 0; i < bytes; i++)
            b[i] = u8();
        out[r] = b;
    }
    return ret(err, errlen);
}

static const shc_backend_v1 fuzz_backend = {
    .abi_version = SHC_BACKEND_ABI_VERSION,
    .struct_size = sizeof(shc_backend_v1),
    .name = "fuzz",
    .layout = f_layout,
    .group = f_group,
    .offsets = f_offsets,
    .plan = f_plan,
    .random_fill = f_random_fill,
    .execute = f_execute,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, 0, size);
    size_t glen = nul ? (size_t)(nul - data) : size;
    ans = nul ? nul + 1 : NULL;
    ans_len = nul ? size - glen - 1 : 0;
    ans_pos = 0;
    shc_golden g;
    shc_err e;
    if (fuzz_golden_load(data, glen, &g, &e) != SHC_OK)
        return 0;
    const shc_family *f = shc_family_find(g.family);
    shc_plugin p = {.dl = NULL, .be = &fuzz_backend, .path = "fuzz"};
    for (int64_t i = 0; f && f->world_size && i < g.ntests && i < FUZZ_MAX_TESTS; i++) {
        const json_t *group = g.groups[i], *test = g.tests[i];
        int64_t world = f->world_size(group);
        if (world < 1 || world > FUZZ_MAX_RANKS)
            continue;
        json_t *views[FUZZ_MAX_RANKS] = {NULL};
        if (shc_plugin_views(&p, f, group, test, world, views, &e) == SHC_OK) {
            for (int64_t r = 0; r < world; r++) {
                char msg[600];
                if (views[r])
                    (void)shc_compare_view(test, r, views[r], msg, sizeof msg);
            }
        }
        for (int64_t r = 0; r < world; r++)
            json_decref(views[r]);
    }
    shc_golden_free(&g);
    return 0;
}
