/*
 * rng_device_test.cu — torch_rng_kernels.cu on a GPU against the CPU reference
 * (shc_torch_rng_fill for the device's own profile): every op and dtype of the
 * grid-emulator test, sizes around the device's grid and the 2^31 split
 * (windows), and the published torch.rand(4).  Ops whose values depend on CUDA's
 * transcendental math (float normal/exponential/log_normal/geometric/cauchy:
 * GpuOnly in the golden files) are counted and printed, not failed.
 * Exit 77 with the reason when no GPU; run by conformance/tests/cuda_rng.sh.
 */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "shardcheck.h"
#include "torch_cuda_rng.h"
#include "shc_cuda.h"

static int bad = 0, gpu_only_diff = 0, checked = 0;

static bool gpu_only(const shc_torch_rng_req &r)
{
    return r.op == SHC_TORCH_NORMAL || r.op == SHC_TORCH_EXPONENTIAL || r.op == SHC_TORCH_LOG_NORMAL ||
           r.op == SHC_TORCH_GEOMETRIC || r.op == SHC_TORCH_CAUCHY;
}

static void window(const shc_gpu_profile &g, const shc_torch_rng_req &r, int64_t s0, int64_t cnt)
{
    size_t sz = shc_dtype_size(r.dtype);
    std::vector<uint8_t> x((size_t)cnt * sz), y((size_t)cnt * sz), mx((size_t)cnt), my((size_t)cnt);
    shc_err e;
    int64_t o1 = -1, o2 = -2;
    if (shc_torch_rng_fill(&g, 99, 8, &r, s0, cnt, x.data(), mx.data(), &o1, &e) ||
        shc_cuda_torch_rng_fill(0, 99, 8, &r, s0, cnt, y.data(), my.data(), &o2, NULL, &e)) {
        printf("error: %s %s n=%lld: %s\n", shc_torch_op_name(r.op), shc_dtype_name(r.dtype),
               (long long)r.numel, e.msg);
        bad++;
        return;
    }
    int64_t diff = 0;
    for (int64_t i = 0; i < cnt; i++)
        diff += memcmp(&x[i * sz], &y[i * sz], sz) != 0 || (r.op == SHC_TORCH_DROPOUT && mx[i] != my[i]);
    checked++;
    if (o1 != o2 || (diff && !gpu_only(r))) {
        printf("FAIL %s %s n=%lld [%lld,+%lld): %lld elements differ, offsets %lld/%lld\n",
               shc_torch_op_name(r.op), shc_dtype_name(r.dtype), (long long)r.numel, (long long)s0,
               (long long)cnt, (long long)diff, (long long)o1, (long long)o2);
        bad++;
    } else if (diff) {
        printf("GpuOnly %s %s n=%lld: %lld of %lld elements differ from the CPU model\n",
               shc_torch_op_name(r.op), shc_dtype_name(r.dtype), (long long)r.numel, (long long)diff,
               (long long)cnt);
        gpu_only_diff++;
    }
}

static void sweep(const shc_gpu_profile &g)
{
    int64_t cap = 256LL * g.sm_count * (g.max_threads_per_sm / 256);
    const int64_t sizes[] = {5, 4099, cap - 256, cap + 1, 4 * cap + 5};
    for (int op = 0; op < SHC_TORCH_OP_COUNT; op++)
        for (int dt = 0; dt < SHC_DT_COUNT; dt++)
            for (int64_t n : sizes) {
                shc_torch_rng_req r;
                shc_err e;
                shc_torch_rng_req_init(&r, (shc_torch_op)op, (shc_dtype)dt, n);
                if (shc_torch_rng_check(&r, &e) == SHC_OK)
                    window(g, r, 0, n);
            }
    const struct { shc_torch_op op; shc_dtype dt; int64_t n; } big[] = {
        {SHC_TORCH_UNIFORM, SHC_DT_FLOAT32, (1LL << 29) + 1}, {SHC_TORCH_RANDOM, SHC_DT_INT8, (1LL << 31) + 12},
        {SHC_TORCH_DROPOUT, SHC_DT_FLOAT16, (1LL << 31) + 8}};
    for (auto &b : big) {
        shc_torch_rng_req r;
        shc_torch_rng_req_init(&r, b.op, b.dt, b.n);
        const int64_t at[3] = {0, b.n / 2 - 4096, b.n - 8192};
        for (int64_t a : at)
            window(g, r, a, 8192);
    }
}

int main()
{
    char why[512];
    if (shc_cuda_probe(why, sizeof why) <= 0) {
        printf("%s\n", why);
        return 77;
    }
    shc_gpu_profile g;
    char name[256];
    shc_err e;
    if (shc_cuda_profile(0, &g, name, sizeof name, &e)) {
        printf("FAIL: %s\n", e.msg);
        return 1;
    }
    printf("device 0: %s, profile %s (%d SMs x %d threads)\n", name, g.name, g.sm_count,
           g.max_threads_per_sm);
    /* published: torch.manual_seed(0); torch.rand(4, device='cuda') */
    float hf[4];
    shc_torch_rng_req r;
    shc_torch_rng_req_init(&r, SHC_TORCH_UNIFORM, SHC_DT_FLOAT32, 4);
    const float want[4] = {0.3990f, 0.5167f, 0.0249f, 0.9401f};
    if (shc_cuda_torch_rng_fill(0, 0, 0, &r, 0, 4, hf, NULL, NULL, NULL, &e))
        bad++;
    for (int i = 0; i < 4; i++)
        bad += std::fabs(hf[i] - want[i]) > 5e-5f;
    sweep(g);
    printf("%s: %d windows, %d mismatches, %d GpuOnly windows off the CPU model\n",
           bad ? "FAIL" : "ok", checked, bad, gpu_only_diff);
    return bad ? 1 : 0;
}
