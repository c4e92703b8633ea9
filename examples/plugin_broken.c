/*
 * plugin_broken.c — a deliberately wrong vendor backend: the reference
 * plugin (plugin_ref.c) with three classic SPMD bugs planted, which
 * `shardcheck run --backend plugin:examples/.libs/plugin_broken.so` must
 * catch and report with the case, the rank and the field or bytes:
 *   1. off-by-one uneven shard: the last rank of an unevenly sharded mesh
 *      dim reports one more element than torch.chunk gives it;
 *   2. a reused RNG offset: the rank holding shard 1 starts its Philox
 *      window at shard 0's offset, so two distinct shards draw the same
 *      numbers;
 *   3. off-by-one redistributed data: on an uneven first dim the last rank's
 *      first two elements are swapped (a wrong start index);
 *   4. a reused RNG offset in random_fill: it always draws from offset 0, so
 *      a second torch.rand repeats the first one's numbers.
 * Tested by conformance/tests/run_faults.sh.
 */
#define PLUGIN_NAME "broken example (off-by-one uneven shard, reused RNG offset)"

/* 1: the last coordinate along an uneven Shard(d) mesh dim gets one extra element. */
#define HOOK_LAYOUT(c, rank, ls, off) broken_layout(c, rank, ls)
/* 2: shard 1 reuses shard 0's window. */
#define HOOK_OFFSETS(c, rank, o)                          \
    do {                                                  \
        if ((o)->shard_linear_index == 1)                 \
            (o)->start_incr = 0;                          \
    } while (0)
/* 4: random_fill ignores the generator offset. */
#define HOOK_FILL_OFFSET(offset) ((void)(offset), (int64_t)0)
/* 3: swap two elements on the last rank when dim 0 is uneven. */
#define HOOK_EXECUTE(c, world, out, oshape) broken_execute(c, world, out, oshape)

#include <stdint.h>
#include <string.h>
#include "shardcheck_backend.h"

static void broken_layout(const shc_backend_case *c, int64_t rank, int64_t *ls)
{
    int64_t pos = rank;  /* arange meshes: rank = row-major position */
    for (int i = c->mesh_ndim - 1; i >= 0; i--) {
        int64_t n = c->mesh_shape[i], coord = pos % n;
        pos /= n;
        const char *p = c->placements;
        for (int k = 0; k < i && p; k++) {  /* the i-th comma-separated placement */
            p = strchr(p, ',');
            p = p ? p + 1 : NULL;
        }
        if (!p || c->rank_map || strncmp(p, "S(", 2))
            continue;
        int d = p[2] - '0';
        if (d >= 0 && d < c->ndim && c->shape[d] % n && coord == n - 1 && ls[d] > 0)
            ls[d] += 1;
    }
}

static void broken_execute(const shc_backend_case *c, int64_t world, void **out,
                           int64_t (*oshape)[SHC_BACKEND_MAX_DIMS])
{
    if (c->ndim < 1 || c->shape[0] % world == 0 || !out[world - 1])
        return;
    int64_t numel = 1;
    for (int d = 0; d < c->ndim; d++)
        numel *= oshape[world - 1][d];
    size_t es = !strcmp(c->dtype, "float64") || !strcmp(c->dtype, "int64") ? 8
              : !strcmp(c->dtype, "bfloat16") || !strcmp(c->dtype, "float16") ? 2 : 4;
    if (numel < 2)
        return;
    unsigned char tmp[8], *p = out[world - 1];
    memcpy(tmp, p, es);
    memcpy(p, p + es, es);
    memcpy(p + es, tmp, es);
}

#include "plugin_ref.c"
