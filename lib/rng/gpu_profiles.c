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
 * A row also says what an RNG offset addresses (issue 33).  On CUDA an op at
 * offset O draws words O, O+1, ... of one Philox stream per thread (a window);
 * on an Ascend NPU torch_npu's registered DTensor tracker keeps
 * OffsetBasedRNGTracker's offsets (16-byte seed/offset state, offsets in
 * multiples of 4) but each offset value selects an independent Philox stream
 * (Ascend/pytorch PR 165, "Register the NPU DTensor RNG tracker and dispatch
 * key", opened 2026-08-29, closed; it documents the difference against CUDA and
 * builds on pytorch PRs 195245/195246, open).  The alignment is a parameter as pytorch
 * PR 197495 (open) makes it.  ascend-910b's geometry is its 48 vector cores
 * (CANN's platform_config for Atlas A2: ai_core_cnt=24, vector_core_cnt=48,
 * hiascend.com atc --aicore_num); how an NPU kernel advances the offset is not
 * in those sources, so the row takes torch's CUDA increment at 48 x 256
 * threads — a stream profile's verdicts depend only on which offsets are
 * equal, not on how far apart they are.  Any row or SMSxTHREADS spec may end
 * in ":window" or ":stream" and "/ALIGN".
 *
 * Tested by conformance/tests/check_torch_rng.c, check_torch_grid.c (device
 * selection with fake cudaDeviceProp values, every refused spec), cli_rng.sh, and for
 * the offset semantics check_offsets.c (npu_streams, profile_semantics) and cli_offsets.sh.
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
#define W4 SHC_OFFSETS_WINDOW, 4 /* CUDA: one Philox stream, windows at multiples of 4 */
static const shc_gpu_profile presets[] = {
    {"a100", 108, 2048, 80, SHC_GPU_CORPUS_ALL, W4},     /* A100 SXM4/PCIe */
    {"h100-sxm", 132, 2048, 90, SHC_GPU_CORPUS_COMMON, W4}, /* H100 SXM5 */
    {"h100-pcie", 114, 2048, 90, SHC_GPU_CORPUS_COMMON, W4}, /* H100 PCIe */
    {"h200", 132, 2048, 90, SHC_GPU_CORPUS_COMMON, W4},  /* H200 SXM */
    {"b200", 148, 2048, 100, SHC_GPU_CORPUS_COMMON, W4}, /* B200 */
    {"l4", 58, 1536, 89, SHC_GPU_CORPUS_COMMON, W4},     /* L4 */
    {"l40s", 142, 1536, 89, SHC_GPU_CORPUS_COMMON, W4},  /* L40S */
    {"t4", 40, 1024, 75, SHC_GPU_CORPUS_ALL, W4},        /* T4 */
    {"a10g", 80, 1536, 86, SHC_GPU_CORPUS_COMMON, W4},   /* A10G (AWS) */
    {"v100", 80, 2048, 70, SHC_GPU_CORPUS_NONE, W4},     /* V100 SXM2 */
    {"rtx4090", 128, 1536, 89, SHC_GPU_CORPUS_NONE, W4}, /* GeForce RTX 4090 */
    /* Ascend 910B (Atlas A2): offsets select streams; not a CUDA device (cc 0, no corpus) */
    {"ascend-910b", 48, 256, 0, SHC_GPU_CORPUS_NONE, SHC_OFFSETS_STREAM, 4},
    {NULL, 0, 0, 0, 0, 0, 0},
};

const shc_gpu_profile *shc_gpu_profiles(void) { return presets; }

/* "sm_XY" after '@': a compute capability the table holds (its SFU model follows it). */
static int parse_cc(const char *spec, const char *c, int *cc, shc_err *e)
{
    char known[96] = "";
    int seen[16], nseen = 0;
    for (const shc_gpu_profile *p = presets; p->name; p++) { /* distinct, ascending */
        if (!p->cc) /* not a CUDA device (an NPU row) */
            continue;
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

static const char *const semantics_names[] = {"window", "stream"};
_Static_assert(sizeof semantics_names / sizeof semantics_names[0] == SHC_OFFSETS_STREAM + 1 &&
               SHC_OFFSETS_WINDOW == 0, "one name per offset semantics, indexed by it");

const char *shc_offset_semantics_name(int semantics)
{
    return semantics == SHC_OFFSETS_WINDOW || semantics == SHC_OFFSETS_STREAM
               ? semantics_names[semantics] : "?";
}

int shc_gpu_profile_align(const shc_gpu_profile *g)
{
    return g->offset_align ? g->offset_align : 4;
}

bool shc_gpu_profile_is_cuda_window(const shc_gpu_profile *g)
{
    return g->offset_semantics == SHC_OFFSETS_WINDOW && shc_gpu_profile_align(g) == 4;
}

/* ":SEMANTICS[/ALIGN]" after a profile: what an offset addresses and its alignment. */
static int parse_semantics(const char *spec, const char *c, shc_gpu_profile *out, shc_err *e)
{
    size_t n = strcspn(c, "/");
    int sem = -1;
    for (int i = 0; i < 2; i++)
        if (strlen(semantics_names[i]) == n && !strncmp(c, semantics_names[i], n))
            sem = i;
    if (sem < 0)
        return shc_fail(e, SHC_EINVAL, "gpu profile '%.64s': offset semantics '%.*s' is not "
                        "known (known: window, stream)", spec, (int)(n < 32 ? n : 32), c);
    out->offset_semantics = sem;
    if (!c[n])
        return SHC_OK;
    const char *a = c + n + 1;
    char *end;
    errno = 0;
    long v = strtol(a, &end, 10);
    if (end == a || *end || errno || v < 1 || v > 64 || (v & (v - 1)))
        return shc_fail(e, SHC_EINVAL, "gpu profile '%.64s': offset alignment '%.16s' is not a "
                        "power of two in 1..64", spec, a);
    out->offset_align = (int)v;
    return SHC_OK;
}

/* A preset or SMSxTHREADS[@sm_XY] (s's first n bytes); -1 when neither form matches. */
static int parse_base(const char *s, size_t n, shc_gpu_profile *out, shc_err *e)
{
    char b[64];
    if (n >= sizeof b)
        return -1;
    memcpy(b, s, n);
    b[n] = 0;
    for (const shc_gpu_profile *p = presets; p->name; p++)
        if (!strcmp(p->name, b)) {
            *out = *p;
            return SHC_OK;
        }
    return parse_custom(b, out, e);
}

int shc_gpu_profile_parse(const char *s, shc_gpu_profile *out, shc_err *e)
{
    if (!s || !*s)
        return shc_fail(e, SHC_EINVAL, "gpu profile is empty");
    memset(out, 0, sizeof *out);
    size_t n = strcspn(s, ":");
    int rc = parse_base(s, n, out, e);
    if (rc == 0 && s[n])
        rc = parse_semantics(s, s + n + 1, out, e);
    if (rc >= 0)
        return rc;
    char names[256] = "";
    for (const shc_gpu_profile *p = presets; p->name; p++) {
        strncat(names, p->name, sizeof names - strlen(names) - 1);
        strncat(names, " ", sizeof names - strlen(names) - 1);
    }
    return shc_fail(e, SHC_EINVAL, "unknown gpu profile '%.64s' (known: %sor "
                    "SMSxTHREADS[@sm_XY], e.g. 108x2048@sm_80; either may end in "
                    ":window or :stream and /ALIGN)", s, names);
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
    shc_gpu_profile custom = {0};
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
