/*
 * check_redist_dev.c — redistribute execution with device buffers
 * (lib/exec/redistribute_dev.c: the kernel bodies of redist_body.h for slicing
 * and packing, a host-staged device communicator) under the CPU grid emulator
 * (xdev_emu.c), against the host execution (redistribute_exec.c): every case of
 * the redistribute-data golden family, each rank's view (local shape, sha256 of
 * the bytes, first values, or the error) equal, with several grid shapes — one
 * thread (every element in one grid-stride loop), grids smaller than the data
 * (threads loop), odd sizes, and grids covering the output (most threads one
 * element, some idle).  The emulator fills fresh device memory with 0xa5, so an
 * element no thread writes changes the hash.
 *
 * Also the bodies alone on hand-made shapes (gather with and without an index
 * list, swap), against loops written here.  No GPU is needed; lib/cuda runs the
 * same bodies on one.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "family.h"
#include "xdev.h"

#define EXPECT(c, ...) do { if (!(c)) ck_abort_msg(__VA_ARGS__); } while (0)

static const struct { uint32_t grid, block; } GRIDS[] = {{1, 1}, {3, 32}, {2, 7}, {0, 256}, {5, 1}};
#define NGRIDS (sizeof GRIDS / sizeof *GRIDS)

typedef struct ctx {
    const shc_family *f;
    const json_t *group, *test;
    json_t **views;
    int grid;
} ctx;

static int open_emu(void *arg, int64_t rank, shc_xdev **out, shc_err *e)
{
    const ctx *c = arg;
    return shc_xdev_emu_open(GRIDS[c->grid].grid, GRIDS[c->grid].block, out, e);
}

static int rank_view(shc_dcomm *dc, void *arg, shc_err *e)
{
    ctx *c = arg;
    return c->f->exec.on_device_comm(shc_dexec_redistribute, dc, c->group, c->test, dc->host->rank, &c->views[dc->host->rank], e);
}

static shc_golden G;

START_TEST(every_case_on_the_emulated_device)
{
    static int loaded;
    shc_err e = {0};
    if (!loaded) {
        EXPECT(!shc_golden_load_family(&G, SHC_TOP_SRCDIR "/golden", "redistribute-data", &e),
               "golden: %s", e.msg);
        loaded = 1;
    }
    const shc_family *f = shc_family_find("redistribute-data");
    EXPECT(f && f->exec.on_device_comm && f->exec.simulated, "redistribute-data has no device hook");
    EXPECT(G.ntests > 700, "only %lld cases", (long long)G.ntests);
    int64_t compared = 0;
    for (int64_t i = 0; i < G.ntests; i++) {
        const json_t *group = G.groups[i], *test = G.tests[i];
        int64_t world = f->world_size(group), tc = json_integer_value(json_object_get(test, "tcId"));
        json_t **host = calloc((size_t)world, sizeof *host), **dev = calloc((size_t)world, sizeof *dev);
        EXPECT(host && dev, "oom");
        EXPECT(!f->exec.simulated(group, test, world, host, &e), "tc %lld host: %s", (long long)tc, e.msg);
        ctx c = {f, group, test, dev, _i};
        EXPECT(!shc_dexec_local_run(world, open_emu, &c, rank_view, &c, NULL, &e),
               "tc %lld grid %u x %u: %s", (long long)tc, GRIDS[_i].grid, GRIDS[_i].block, e.msg);
        for (int64_t r = 0; r < world; r++) {
            EXPECT(dev[r] && json_equal(host[r], dev[r]), "tc %lld rank %lld grid %u x %u: device "
                   "%s, host %s", (long long)tc, (long long)r, GRIDS[_i].grid, GRIDS[_i].block,
                   dev[r] ? json_dumps(dev[r], JSON_COMPACT) : "none",
                   json_dumps(host[r], JSON_COMPACT));
            compared++;
            json_decref(host[r]);
            json_decref(dev[r]);
        }
        free(host);
        free(dev);
    }
    printf("# grid %u x %u: %lld cases, %lld rank views equal\n", GRIDS[_i].grid, GRIDS[_i].block,
           (long long)G.ntests, (long long)compared);
}
END_TEST

/* gather and swap on a (3, 5, 2) float32-sized tensor, against plain loops. */
START_TEST(bodies_against_loops)
{
    shc_xdev *d;
    shc_err e = {0};
    EXPECT(!shc_xdev_emu_open(GRIDS[_i].grid, GRIDS[_i].block, &d, &e), "%s", e.msg);
    uint32_t in[30], out[60], want[60];
    for (int i = 0; i < 30; i++)
        in[i] = 1000 + (uint32_t)i;
    /* gather along dim 1 with an index list (reversed, a pad, a repeat) */
    int64_t idx[6] = {4, 3, -1, 0, 0, 2};
    shc_rk_gather g = {3, 6, 2, 5, idx, 0, 4, (const uint8_t *)in, (uint8_t *)out};
    memset(out, 0xa5, sizeof out);
    EXPECT(!d->ops->gather(d, &g, &e), "%s", e.msg);
    for (int o = 0; o < 3; o++)
        for (int j = 0; j < 6; j++)
            for (int q = 0; q < 2; q++)
                want[(o * 6 + j) * 2 + q] = idx[j] < 0 ? 0 : in[(o * 5 + idx[j]) * 2 + q];
    EXPECT(!memcmp(out, want, 36 * 4), "gather with idx differs");
    /* narrow and pad: start 3, 4 long (2 past the end) */
    shc_rk_gather n = {3, 4, 2, 5, NULL, 3, 4, (const uint8_t *)in, (uint8_t *)out};
    memset(out, 0xa5, sizeof out);
    EXPECT(!d->ops->gather(d, &n, &e), "%s", e.msg);
    for (int o = 0; o < 3; o++)
        for (int j = 0; j < 4; j++)
            for (int q = 0; q < 2; q++)
                want[(o * 4 + j) * 2 + q] = 3 + j < 5 ? in[(o * 5 + 3 + j) * 2 + q] : 0;
    EXPECT(!memcmp(out, want, 24 * 4), "narrow/pad differs");
    /* swap (B=3, A=5, run=2) -> (5, 3, 2) */
    shc_rk_swap s = {5, 3, 2, 4, (const uint8_t *)in, (uint8_t *)out};
    memset(out, 0xa5, sizeof out);
    EXPECT(!d->ops->swap(d, &s, &e), "%s", e.msg);
    for (int a = 0; a < 5; a++)
        for (int b = 0; b < 3; b++)
            for (int r = 0; r < 2; r++)
                want[(a * 3 + b) * 2 + r] = in[(b * 5 + a) * 2 + r];
    EXPECT(!memcmp(out, want, 30 * 4), "swap differs");
    d->ops->destroy(d);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("check_redist_dev");
    TCase *tc = tcase_create("redist_dev");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, bodies_against_loops, 0, (int)NGRIDS);
    tcase_add_loop_test(tc, every_case_on_the_emulated_device, 0, (int)NGRIDS);
    suite_add_tcase(s, tc);
    return shc_run_suite(s);
}
