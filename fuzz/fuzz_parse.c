/*
 * fuzz_parse.c — libFuzzer target for the CLI/table syntax parsers: mesh shapes
 * ("2x2x2"), rank maps ("3,1,2,0"), placements (every torch spelling and the
 * trace form) and tensor shapes ("8,16").
 *
 * The input is split at '\n' into up to four fields: mesh, ranks, placements,
 * shape; each field is copied into a buffer of exactly its length + 1 so that
 * ASan sees any read past its terminator.  Every field is parsed on its own;
 * parsed placements and shapes must survive a format/parse round trip; when
 * all four parse, the placements are checked against the mesh and the layout
 * of every rank of a small mesh is computed.
 * Tested by: make check (fuzz/replay over fuzz/corpus/parse and
 * fuzz/regressions/parse), make fuzz (libFuzzer, --enable-fuzzing).
 */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "shardcheck.h"
#include "fuzz_common.h"

/* Largest mesh and tensor whose every rank's layout is computed: keeps one input
 * fast (a _StridedShard layout lists every index of its dim on every rank). */
#define FUZZ_LAYOUT_MAX_RANKS 64
#define FUZZ_LAYOUT_MAX_NUMEL (1 << 16)

static void round_trip(const shc_placements *pl)
{
    char buf[512];
    shc_placements back;
    shc_err e;
    if (pl->has_order)
        shc_placements_format_trace(pl, buf, sizeof buf);
    else
        shc_placements_format(pl, buf, sizeof buf);
    if (shc_placements_parse(&back, buf, &e) != SHC_OK || back.n != pl->n)
        fuzz_die("placements do not round-trip through '%s'", buf);
    for (int i = 0; i < pl->n; i++)
        if (!shc_placement_eq(&back.p[i], &pl->p[i]))
            fuzz_die("placement %d changes in the round trip through '%s'", i, buf);
}

static void shape_round_trip(const shc_shape *s)
{
    char buf[256];
    shc_shape back;
    shc_err e;
    shc_shape_format(s, buf, sizeof buf);
    if (shc_shape_parse(&back, buf, &e) != SHC_OK || back.ndim != s->ndim ||
        memcmp(back.d, s->d, sizeof(int64_t) * (size_t)s->ndim) != 0)
        fuzz_die("shape does not round-trip through '%s'", buf);
}

static void layouts(const shc_mesh *m, const shc_placements *pl, const shc_shape *sh)
{
    shc_err e;
    int64_t numel;
    if (m->size > FUZZ_LAYOUT_MAX_RANKS || shc_shape_numel(sh, &numel, &e) != SHC_OK ||
        numel > FUZZ_LAYOUT_MAX_NUMEL || shc_placements_check(pl, m, sh->ndim, &e) != SHC_OK)
        return;
    for (int64_t r = 0; r < m->size; r++) {
        shc_layout l;
        memset(&l, 0, sizeof l);
        if (shc_layout_of_rank(m, pl, sh, m->ranks[r], &l, &e) == SHC_OK)
            shc_layout_free(&l);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *f[4] = {NULL, NULL, NULL, NULL};
    fuzz_split(data, size, '\n', f, 4);
    shc_err e;
    shc_mesh m;
    memset(&m, 0, sizeof m);
    shc_placements pl;
    shc_shape sh;
    int mesh_ok = shc_mesh_parse(&m, f[0], f[1], &e) == SHC_OK;
    int pl_ok = shc_placements_parse(&pl, f[2], &e) == SHC_OK;
    int sh_ok = shc_shape_parse(&sh, f[3], &e) == SHC_OK;
    if (pl_ok)
        round_trip(&pl);
    if (sh_ok)
        shape_round_trip(&sh);
    if (mesh_ok && pl_ok && sh_ok)
        layouts(&m, &pl, &sh);
    shc_mesh_free(&m);
    for (int i = 0; i < 4; i++)
        free(f[i]);
    return 0;
}
