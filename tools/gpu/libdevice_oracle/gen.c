/*
 * gen.c — writes libdevice reference vectors (see tools/gpu/libdevice_vectors.sh):
 * edge cases, then random inputs from a fixed xorshift64 stream: the domains
 * cuRAND's Box-Muller feeds (u in (0,1] on 2^-53 / 2^-32 grids, v in (0,2]) and
 * random bit patterns over all finite values.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <math.h>

double __nv_log(double);
void __nv_sincospi(double, double *, double *);
float __nv_logf(float);

static uint64_t st = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) { st ^= st << 13; st ^= st >> 7; st ^= st << 17; return st; }
static uint64_t d2u(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
static double u2d(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }
static uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

static void vlog(double x) { printf("log %016llx %016llx\n", (unsigned long long)d2u(x), (unsigned long long)d2u(__nv_log(x))); }
static void vscp(double x)
{
    double s, c;
    __nv_sincospi(x, &s, &c);
    printf("sincospi %016llx %016llx %016llx\n", (unsigned long long)d2u(x), (unsigned long long)d2u(s),
           (unsigned long long)d2u(c));
}
static void vlogf(float x) { printf("logf %08x %08x\n", f2u(x), f2u(__nv_logf(x))); }

int main(void)
{
    static const uint64_t dedge[] = {0, 0x8000000000000000ull, 1, 0x000fffffffffffffull, 0x0010000000000000ull,
        0x3ff0000000000000ull, 0x3ff5e91e00000000ull, 0x3ff5e91effffffffull, 0x3ff5e91f00000000ull,
        0x3fefffffffffffffull, 0x3ff0000000000001ull, 0x7fefffffffffffffull, 0x7ff0000000000000ull,
        0xfff0000000000000ull, 0x7ff8000000000000ull, 0xbff0000000000000ull, 0x3ca0000000000000ull,
        0x3fe0000000000000ull, 0x4000000000000000ull, 0x3fd0000000000000ull, 0x3fe8000000000000ull,
        0x4330000000000000ull, 0x4340000000000000ull, 0x433fffffffffffffull, 0xc330000000000001ull,
        0x3fc0000000000000ull, 0x3ff8000000000000ull, 0xbfe0000000000000ull, 0x3e70000000000000ull};
    for (size_t i = 0; i < sizeof dedge / sizeof dedge[0]; i++) {
        vlog(u2d(dedge[i]));
        vscp(u2d(dedge[i]));
    }
    for (int i = 0; i < 2000; i++) { /* cuRAND _curand_uniform_double_hq: z * 2^-53 + 2^-54 */
        uint64_t z = rnd() >> 11;
        if (i < 200) z >>= (i % 53);
        vlog((double)z * 0x1p-53 + 0x1p-54);
    }
    for (int i = 0; i < 600; i++) { /* any positive finite double */
        uint64_t b = rnd() & 0x7fffffffffffffffull;
        if ((b >> 52) == 0x7ff) b ^= 1ull << 62;
        vlog(u2d(b));
    }
    for (int i = 0; i < 2000; i++) { /* cuRAND's v = z * 2^-52 + 2^-53 in (0, 2] */
        uint64_t z = rnd() >> 11;
        if (i < 200) z >>= (i % 53);
        vscp((double)z * 0x1p-52 + 0x1p-53);
    }
    for (int i = 0; i < 1000; i++) { /* quarter-integers and random finite doubles */
        if (i < 200) {
            vscp((double)((int64_t)(rnd() % 4001) - 2000) * 0.25);
            continue;
        }
        uint64_t b = rnd();
        if (((b >> 52) & 0x7ff) == 0x7ff) b ^= 1ull << 62;
        if (i < 600) b = (b & 0x800fffffffffffffull) | ((uint64_t)(0x3c0 + rnd() % 0x90) << 52);
        vscp(u2d(b));
    }
    static const uint32_t fedge[] = {0, 0x80000000u, 1, 0x007fffffu, 0x00800000u, 0x3f800000u, 0x3f7fffffu,
        0x3f800001u, 0x3f2aaaaau, 0x3f2aaaabu, 0x3f2aaaacu, 0x7f7fffffu, 0x7f800000u, 0xff800000u, 0x7fc00000u,
        0xbf800000u, 0x2f800000u, 0x2f000000u, 0x3f000000u, 0x40000000u, 0x3faaaaaau, 0x3faaaaabu};
    for (size_t i = 0; i < sizeof fedge / sizeof fedge[0]; i++)
        vlogf(u2f(fedge[i]));
    for (int i = 0; i < 2000; i++) { /* cuRAND _curand_uniform: x * 2^-32 + 2^-33 */
        uint32_t x = (uint32_t)(rnd() >> 32);
        if (i < 100) x >>= (i % 32);
        vlogf((float)x * 0x1p-32f + 0x1p-33f);
    }
    for (int i = 0; i < 1000; i++) {
        uint32_t b = (uint32_t)(rnd() >> 32) & 0x7fffffffu;
        if ((b >> 23) == 0xff) b ^= 1u << 30;
        vlogf(u2f(b));
    }
    return 0;
}
