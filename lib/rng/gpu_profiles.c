/*
 * gpu_profiles.c — the GPU models the torch CUDA kernel emulation knows: the
 * two cudaDeviceProp fields torch's launch geometry reads
 * (multiProcessorCount, maxThreadsPerMultiProcessor), and the compute
 * capability, which picks the special-function-unit model (shc_gpu_sfu_model).
 * A GPU not listed is given as "SMSxTHREADS" or "SMSxTHREADS@sm_XY" (an H100
 * under MPS with fewer SMs is "66x2048@sm_90"; the capability must be one the
 * table holds).  Adding a GPU is adding a row.
 * shc_gpu_profile_for_device maps a device's cudaDeviceProp fields to a row,
 * or to an ad-hoc profile, so the CUDA backend can compute the CPU reference
 * for any GPU (torch's grid depends only on SMs and threads per SM).
 *
 * Values are from NVIDIA's product specifications and the CUDA programming
 * guide's compute-capability table (max resident threads per SM: 2048 for
 * sm_70/80/90/100, 1536 for sm_86/89, 1024 for sm_75).
 *
 * Tested by conformance/tests/check_torch_rng.c, check_torch_grid.c (device
 * selection with fake cudaDeviceProp values) and cli_rng.sh.
 */
#include "config.h"
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shardcheck.h"
#include "torch_cuda_rng.h"

/* The one GPU table.  The last column says which torch-cuda-rng cases the
 * golden corpus holds for the GPU (ALL: every case; COMMON: the cases every
 * profile gets); order is the corpus order. */
static const shc_gpu_profile presets[] = {
    {"a100", 108, 2048, 80, SHC_GPU_CORPUS_ALL},         /* A100 SXM4/PCIe */
    {"h100-sxm", 132, 2048, 90, SHC_GPU_CORPUS_COMMON},  /* H100 SXM5 */
    {"h100-pcie", 114, 2048, 90, SHC_GPU_CORPUS_COMMON}, /* H100 PCIe */
    {"h200", 132, 2048, 90, SHC_GPU_CORPUS_COMMON},      /* H200 SXM */
    {"b200", 148, 2048, 100, SHC_GPU_CORPUS_COMMON},     /* B200 */
    {"l4", 58, 1536, 89, SHC_GPU_CORPUS_COMMON},         /* L4 */
    {"l40s", 142, 1536, 89, SHC_GPU_CORPUS_COMMON},      /* L40S */
    {"t4", 40, 1024, 75, SHC_GPU_CORPUS_ALL},            /* T4 */
    {"a10g", 80, 1536, 86, SHC_GPU_CORPUS_COMMON},       /* A10G (AWS) */
    {"v100", 80, 2048, 70, SHC_GPU_CORPUS_NONE},         /* V100 SXM2 */
    {"rtx4090", 128, 1536, 89, SHC_GPU_CORPUS_NONE},     /* GeForce RTX 4090 */
    {NULL, 0, 0, 0, 0},
};

const shc_gpu_profile *shc_gpu_profiles(void) { return presets; }

/* "sm_XY" after '@': a compute capability the table holds (its SFU model follows it). */
static int parse_cc(const char *spec, const char *c, int *cc, shc_err *e)
{
    char known[96] = "";
    int seen[16], nseen = 0;
    for (const shc_gpu_profile *p = presets; p->name; p++) { /* distinct, ascending */
        int i = 0;
        while (i < nseen && seen[i] < p->cc)
            i++;
        if ((i < nseen && seen[i] == p->cc) || nseen == 16)
            continue;
        memmove(seen + i + 1, seen + i, sizeof *seen * (size_t)(nseen++ - i));
        seen[i] = p->cc;
    }
    for (int i = 0; i < nseen; i++)
        snprintf(known + strlen(known), sizeof known - strlen(known), "%ssm_%d", i ? " " : "",
                 seen[i]);
    size_t nd = strspn(c + (strncmp(c, "sm_", 3) ? 0 : 3), "0123456789");
    if (strncmp(c, "sm_", 3) || nd < 2 || nd > 3 || c[3 + nd])
        return shc_fail(e, SHC_EINVAL, "gpu profile '%.64s': '@%.16s' is not a compute "
                        "capability: write sm_ and its digits, e.g. @sm_90 (known: %s)", spec, c,
                        known);
    int v = atoi(c + 3);
    for (int i = 0; i < nseen; i++)
        if (seen[i] == v) {
            *cc = v;
            return SHC_OK;
        }
    return shc_fail(e, SHC_EINVAL, "gpu profile '%.64s': compute capability sm_%d is not in the "
                    "GPU table (known: %s)", spec, v, known);
}

static int parse_custom(const char *s, shc_gpu_profile *out, shc_err *e)
{
    char *end;
    errno = 0;
    long sm = strtol(s, &end, 10);
    if (end == s || *end != 'x' || errno)
        return -1;
    const char *t = end + 1;
    long th = strtol(t, &end, 10);
    if (end == t || (*end && *end != '@') || errno)
        return -1;
    int cc = 0, rc;
    if (*end == '@' && (rc = parse_cc(s, end + 1, &cc, e)))
        return rc;
    if (sm <= 0 || sm > 1000000)
        return shc_fail(e, SHC_EINVAL, "gpu profile '%.64s': SM count %ld must be in 1..1000000", s, sm);
    if (th < SHC_TORCH_BLOCK || th > 65536)
        return shc_fail(e, SHC_EINVAL,
                        "gpu profile '%.64s': max threads per SM %ld must be in %d..65536 "
                        "(torch launches blocks of %d threads)",
                        s, th, SHC_TORCH_BLOCK, SHC_TORCH_BLOCK);
    out->name = "custom";
    out->sm_count = (int)sm;
    out->max_threads_per_sm = (int)th;
    out->cc = cc; /* 0: unknown, so no SFU model (shc_gpu_sfu_model) */
    out->corpus = SHC_GPU_CORPUS_NONE;
    return SHC_OK;
}

int shc_gpu_profile_parse(const char *s, shc_gpu_profile *out, shc_err *e)
{
    if (!s || !*s)
        return shc_fail(e, SHC_EINVAL, "gpu profile is empty");
    for (const shc_gpu_profile *p = presets; p->name; p++)
        if (!strcmp(p->name, s)) {
            *out = *p;
            return SHC_OK;
        }
    int rc = parse_custom(s, out, e);
    if (rc >= 0)
        return rc;
    char names[256] = "";
    for (const shc_gpu_profile *p = presets; p->name; p++) {
        strncat(names, p->name, sizeof names - strlen(names) - 1);
        strncat(names, " ", sizeof names - strlen(names) - 1);
    }
    return shc_fail(e, SHC_EINVAL, "unknown gpu profile '%.64s' (known: %sor "
                    "SMSxTHREADS[@sm_XY], e.g. 108x2048@sm_80)", s, names);
}

/* Does lower-cased hay contain the preset name's model token (before '-')? */
static bool name_mentions(const char *hay, const char *preset)
{
    char tok[32];
    size_t n = strcspn(preset, "-");
    if (n >= sizeof tok)
        return false;
    memcpy(tok, preset, n);
    tok[n] = 0;
    char low[256];
    size_t i = 0;
    for (; hay && hay[i] && i + 1 < sizeof low; i++)
        low[i] = (char)((hay[i] >= 'A' && hay[i] <= 'Z') ? hay[i] + 32 : hay[i]);
    low[i] = 0;
    if (!strstr(low, tok))
        return false;
    const char *var = preset[n] == '-' ? preset + n + 1 : NULL; /* "pcie", "sxm" */
    return !var || strstr(low, var) || !strcmp(var, "sxm");
}

int shc_gpu_profile_for_device(const char *dev_name, int sm_count, int max_threads_per_sm,
                               int cc_major, int cc_minor, shc_gpu_profile *out, shc_err *e)
{
    char spec[48];
    snprintf(spec, sizeof spec, "%dx%d", sm_count, max_threads_per_sm);
    shc_gpu_profile custom;
    int rc = parse_custom(spec, &custom, e); /* the same bounds as a profile given by hand */
    if (rc)
        return rc < 0 ? shc_fail(e, SHC_EINVAL, "device %s: %d SMs x %d threads is not a GPU "
                                 "profile", dev_name ? dev_name : "?", sm_count,
                                 max_threads_per_sm) : rc;
    int cc = cc_major * 10 + cc_minor;
    const shc_gpu_profile *pick = NULL;
    for (const shc_gpu_profile *p = presets; p->name; p++) {
        if (p->sm_count != sm_count || p->max_threads_per_sm != max_threads_per_sm || p->cc != cc)
            continue;
        if (!pick || (name_mentions(dev_name, p->name) && !name_mentions(dev_name, pick->name)))
            pick = p;
    }
    *out = pick ? *pick : custom;
    out->cc = cc;
    return SHC_OK;
}

int shc_gpu_sfu_model(const shc_gpu_profile *g)
{
    /* only sm_90 is recorded (shared/gpu/sfu, docs/cuda-math.md); H200 is the
     * same GH100 die and instruction set as H100 */
    return g && g->cc == 90 ? SHC_SFU_SM90 : SHC_SFU_NONE;
}

void shc_gpu_profile_fill_cc(shc_gpu_profile *g)
{
    g->cc = 0;
    for (const shc_gpu_profile *p = presets; g->name && p->name; p++)
        if (!strcmp(p->name, g->name) && shc_gpu_profile_same_geometry(p, g))
            g->cc = p->cc;
}

bool shc_gpu_profile_same_geometry(const shc_gpu_profile *a, const shc_gpu_profile *b)
{
    return a->sm_count == b->sm_count && a->max_threads_per_sm == b->max_threads_per_sm;
}
