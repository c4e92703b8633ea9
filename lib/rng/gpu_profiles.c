/*
 * gpu_profiles.c — the GPU models the torch CUDA kernel emulation knows: the
 * two cudaDeviceProp fields torch's launch geometry reads
 * (multiProcessorCount, maxThreadsPerMultiProcessor).  A GPU not listed is
 * given as "SMSxTHREADS".  Adding a GPU is adding a row.
 *
 * Values are from NVIDIA's product specifications and the CUDA programming
 * guide's compute-capability table (max resident threads per SM: 2048 for
 * sm_70/80/90/100, 1536 for sm_86/89, 1024 for sm_75).
 *
 * Tested by conformance/tests/check_torch_rng.c and cli_rng.sh.
 */
#include "config.h"
#include <errno.h>
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

static int parse_custom(const char *s, shc_gpu_profile *out, shc_err *e)
{
    char *end;
    errno = 0;
    long sm = strtol(s, &end, 10);
    if (end == s || *end != 'x' || errno)
        return -1;
    const char *t = end + 1;
    long th = strtol(t, &end, 10);
    if (end == t || *end || errno)
        return -1;
    if (sm <= 0 || sm > 1000000)
        return shc_fail(e, SHC_EINVAL, "gpu profile '%s': SM count %ld must be in 1..1000000", s, sm);
    if (th < SHC_TORCH_BLOCK || th > 65536)
        return shc_fail(e, SHC_EINVAL,
                        "gpu profile '%s': max threads per SM %ld must be in %d..65536 "
                        "(torch launches blocks of %d threads)",
                        s, th, SHC_TORCH_BLOCK, SHC_TORCH_BLOCK);
    out->name = "custom";
    out->sm_count = (int)sm;
    out->max_threads_per_sm = (int)th;
    out->cc = 0;
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
    return shc_fail(e, SHC_EINVAL, "unknown gpu profile '%s' (known: %sor SMSxTHREADS, e.g. 108x2048)",
                    s, names);
}
