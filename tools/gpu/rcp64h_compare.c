/*
 * rcp64h_compare.c — compares a recorded MUFU.RCP64H table (tools/gpu/record_cuda_math.cu:
 * rcp64h_3ff00000.raw and rcp64h_40000000.raw, uint32 output high words for the input high
 * words 0x3ff00000 + i and 0x40000000 + i) with lib/rng/cuda_rcp64h.c's model, which was
 * inferred from 27 recorded float64 outputs only (issue 26, docs/cuda-math.md).
 *
 *   cc -O2 -I<dir with an empty config.h> -Ilib/rng tools/gpu/rcp64h_compare.c \
 *      lib/rng/cuda_rcp64h.c -lm -o rcp64h_compare
 *   rcp64h_compare OUTDIR            (record_cuda_math.sh builds and runs it)
 *
 * Prints, per binade and for the inputs libdevice log reaches (m + 1 in [1.707, 2.415),
 * high words 0x3ffb504f..0x4003504f), how many entries the model gets right, and how the
 * others relate to the truncated reciprocal and to the rule (float-rounded, then
 * truncated); writes every disagreement inside log's range to OUTDIR/rcp64h_model_diff.txt
 * ("IN_HI RECORDED MODEL TRUNC RHO") so the model's rule and exception table can be
 * replaced by the table itself.  Exit 0 when the model matches every entry in log's
 * range, 1 otherwise, 2 on a missing or short file.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cuda_rcp64h.h"

static double of_hi(uint32_t h)
{
    uint64_t u = (uint64_t)h << 32;
    double d;
    memcpy(&d, &u, 8);
    return d;
}

static uint32_t hi_of(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return (uint32_t)(u >> 32);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: rcp64h_compare OUTDIR\n");
        return 2;
    }
    static const uint32_t base[] = {0x3ff00000u, 0x40000000u};
    const uint32_t n = 1u << 20, log_lo = 0x3ffb504fu, log_hi = 0x4003504fu;
    char p[4096];
    snprintf(p, sizeof p, "%s/rcp64h_model_diff.txt", argv[1]);
    FILE *diff = fopen(p, "w");
    if (!diff) {
        fprintf(stderr, "rcp64h_compare: cannot write %s\n", p);
        return 2;
    }
    long in_log = 0, bad_log = 0;
    uint32_t *t = malloc(4ull * n);
    for (int b = 0; b < 2; b++) {
        snprintf(p, sizeof p, "%s/rcp64h_%08x.raw", argv[1], base[b]);
        FILE *f = fopen(p, "rb");
        if (!f || fread(t, 4, n, f) != n) {
            fprintf(stderr, "rcp64h_compare: cannot read %u entries from %s\n", n, p);
            return 2;
        }
        fclose(f);
        long eq = 0, trunc_eq = 0, up = 0, down = 0, other = 0;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t in = base[b] + i, rec = t[i];
            uint32_t model = hi_of(shc_cuda_rcp_approx_ftz_d(of_hi(in)));
            uint32_t tr = hi_of(shc_cuda_rcp64h_trunc(of_hi(in)));
            eq += rec == model;
            trunc_eq += rec == tr;
            up += rec == tr + 1;
            down += rec == tr - 1;
            other += rec != tr && rec != tr + 1 && rec != tr - 1;
            if (in >= log_lo && in <= log_hi) {
                in_log++;
                if (rec != model) {
                    bad_log++;
                    double r = 1.0 / of_hi(in), rho = (r - of_hi(tr)) / (of_hi(tr + 1) - of_hi(tr));
                    fprintf(diff, "%08x %08x %08x %08x %.9f\n", in, rec, model, tr, rho);
                }
            }
        }
        printf("rcp64h %08x..%08x: model %ld of %u; recorded = truncated %ld, +1 %ld, -1 %ld, "
               "other %ld\n", base[b], base[b] + n - 1, eq, n, trunc_eq, up, down, other);
    }
    fclose(diff);
    printf("rcp64h in libdevice log's range: model wrong on %ld of %ld (listed in "
           "rcp64h_model_diff.txt)\n", bad_log, in_log);
    free(t);
    return bad_log ? 1 : 0;
}
