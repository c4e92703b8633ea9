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
double __nv_exp(double);
double __nv_log1p(double);
double __nv_tan(double);
float __nv_log1pf(float);

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
static void vd(const char *fn, double (*f)(double), double x)
{
    printf("%s %016llx %016llx\n", fn, (unsigned long long)d2u(x), (unsigned long long)d2u(f(x)));
}
static double unif(double lo, double hi) { return lo + (hi - lo) * (double)(rnd() >> 11) * 0x1p-53; }
static double anyfinite(void)
{
    uint64_t b = rnd();
    if (((b >> 52) & 0x7ff) == 0x7ff) b ^= 1ull << 62;
    return u2d(b);
}
static void vlogf(float x) { printf("logf %08x %08x\n", f2u(x), f2u(__nv_logf(x))); }

/* exp, log1p, tan: edges, the domains torch's float64 log_normal_ (exp of
 * normal*std + mean), geometric_ (log1p(-p), p in (0,1)) and cauchy_
 * (tan(pi * (u - 0.5)), u on cuRAND's 2^-53 grid) feed, then wider ranges. */
static void gen_exp_log1p_tan(void)
{
    static const uint64_t edge[] = {0, 0x8000000000000000ull, 1, 0x8000000000000001ull, 0x000fffffffffffffull,
        0x0010000000000000ull, 0x3ff0000000000000ull, 0xbff0000000000000ull, 0x7fefffffffffffffull,
        0xffefffffffffffffull, 0x7ff0000000000000ull, 0xfff0000000000000ull, 0x7ff8000000000000ull,
        0x3ca0000000000000ull, 0xbca0000000000000ull, 0x3fe0000000000000ull, 0xbfe0000000000000ull,
        0x4086232b00000000ull, 0x4086232affffffffull, 0xc086232b00000000ull, 0xc086232affffffffull,
        0x4087480000000000ull, 0x408747ffffffffffull, 0xc087480000000000ull, 0xc08747ffffffffffull,
        0x40862e42fefa39efull, 0x40862e42fefa39f0ull, 0xc0874910d52d3051ull, 0xc0874910d52d3052ull,
        0xc086232bdd7abcd2ull, 0xc08625aad16a1a3aull, 0x3fe5555500000000ull, 0x3fe55554ffffffffull,
        0xbfd9999900000000ull, 0xbfd99998ffffffffull, 0xbfefffffffffffffull, 0x3ff921fb54442d18ull,
        0xbff921fb54442d18ull, 0x3fe921fb54442d18ull, 0x3fe921fb54442d19ull, 0x400921fb54442d18ull,
        0x41dfffffffffffffull, 0xc1dfffffffffffffull, 0x3e50000000000000ull, 0x4330000000000000ull};
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) {
        double x = u2d(edge[i]);
        vd("exp", __nv_exp, x);
        vd("log1p", __nv_log1p, x);
        if (!(fabs(x) >= 0x1p31) || isinf(x) || isnan(x)) /* not the slow path */
            vd("tan", __nv_tan, x);
    }
    for (int i = 0; i < 1500; i++) /* log_normal_: normal * std + mean, a few std */
        vd("exp", __nv_exp, i < 1000 ? unif(-20, 20) : unif(-1, 1) * (double)(1 << (i % 10)));
    for (int i = 0; i < 1000; i++) /* the whole range, with its over/underflow ends */
        vd("exp", __nv_exp, i < 600 ? unif(-746, 710) : (i % 2 ? unif(-746, -700) : unif(700, 710)));
    for (int i = 0; i < 400; i++) {
        double x = anyfinite();
        vd("exp", __nv_exp, i < 200 ? x : ldexp(x, -ilogb(x) - (int)(rnd() % 60)));
    }
    for (int i = 0; i < 1500; i++) { /* geometric_: log1p(-p), p in (0, 1), some near 0 and 1 */
        double p = unif(0, 1);
        if (i >= 1000) p = i % 2 ? ldexp(p, -(int)(rnd() % 60)) : 1.0 - ldexp(p, -(int)(rnd() % 50));
        vd("log1p", __nv_log1p, -p);
    }
    for (int i = 0; i < 1000; i++) { /* both branches, and any finite */
        double x = i < 500 ? unif(-0.5, 0.8) : i < 800 ? unif(-1, 10) : anyfinite();
        vd("log1p", __nv_log1p, x);
    }
    for (int i = 0; i < 2000; i++) { /* cauchy_: pi * (u - 0.5), u = z 2^-53 + 2^-54 */
        uint64_t z = rnd() >> 11;
        if (i < 200) z >>= (i % 53);
        if (i >= 1900) z = ((1ull << 53) - 1) - (z >> (i % 53));
        double u = (double)z * 0x1p-53 + 0x1p-54;
        vd("tan", __nv_tan, 3.14159265358979323846 * (u - 0.5));
    }
    for (int i = 0; i < 1000; i++) { /* near multiples of pi/4, then up to 2^31 */
        double x;
        if (i < 300)
            x = (double)((int)(rnd() % 41) - 20) * 0.78539816339744830962 + unif(-1e-6, 1e-6);
        else if (i < 700)
            x = unif(-1, 1) * ldexp(1.0, (int)(rnd() % 31));
        else {
            x = anyfinite();
            if (fabs(x) >= 0x1p31)
                x = ldexp(x, -ilogb(x) + (int)(rnd() % 31) - (int)(rnd() % 200));
        }
        vd("tan", __nv_tan, x);
    }
}

static void vlog1pf(float x) { printf("log1pf %08x %08x\n", f2u(x), f2u(__nv_log1pf(x))); }

/* log1pf: edges (the add.rz exponent pick near powers of two, -1, 0, inf, NaN),
 * then (-1, 1), (-1, 10) and random finite floats. */
static void gen_log1pf(void)
{
    static const uint32_t edge[] = {0, 0x80000000u, 1, 0x80000001u, 0x007fffffu, 0x00800000u, 0x3f800000u,
        0xbf800000u, 0xbf7fffffu, 0x3f7fffffu, 0x3f000000u, 0xbf000000u, 0x3e800000u, 0xbe800000u,
        0x3f3fffffu, 0x3f400000u, 0xbe7fffffu, 0x4b7fffffu, 0x4b800000u, 0x4b7ffffeu, 0x7f7fffffu,
        0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u, 0xc0000000u, 0x33800000u, 0xb3800000u,
        0x337fffffu, 0x40400000u, 0x403fffffu, 0x40e00000u, 0x40dfffffu};
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++)
        vlog1pf(u2f(edge[i]));
    for (int i = 0; i < 1500; i++)
        vlog1pf((float)(i < 1000 ? unif(-1, 1) : unif(-1, 10)));
    for (int i = 0; i < 1000; i++) { /* near powers of two minus one: the rounding of 1 + a matters */
        float p = ldexpf(1.0f, (int)(rnd() % 40) - 20);
        uint32_t b = f2u(p - 1.0f) + (uint32_t)(rnd() % 9) - 4u;
        if (i % 2) {
            vlog1pf(u2f(b));
            continue;
        }
        /* or tiny a; the shift is drawn first (the committed vectors were made by a
         * compiler that evaluated ldexp's arguments right to left) */
        int sh = (int)(rnd() % 140);
        vlog1pf((float)ldexp(unif(-1, 1), -sh));
    }
    for (int i = 0; i < 500; i++) {
        uint32_t b = (uint32_t)(rnd() >> 32);
        if (((b >> 23) & 0xff) == 0xff) b ^= 1u << 30;
        vlog1pf(u2f(b));
    }
}

/* log's reduction halves m from 0x3ff6a09f (sqrt(2) on the high word): inputs whose
 * mantissa lies in [1.366, 1.4143), where lib/rng/cuda_libdevice.c once halved from
 * 0x3ff5e91f instead; appended last so that the vectors above keep their inputs. */
static void gen_log_reduction(void)
{
    for (int i = 0; i < 2000; i++) {
        double m = unif(1.366, 1.4143);
        /* u in [0.683, 0.707), where half of cuRAND's u lie and results are small;
         * then u down to 2^-54; then any exponent */
        int e = i < 1000 ? -1 : i < 1500 ? -2 - (int)(rnd() % 53) : (int)(rnd() % 2001) - 1000;
        vlog(ldexp(m, e));
    }
}

int main(void)
{
    static const uint64_t dedge[] = {0, 0x8000000000000000ull, 1, 0x000fffffffffffffull, 0x0010000000000000ull,
        0x3ff0000000000000ull, 0x3ff5e91e00000000ull, 0x3ff5e91effffffffull, 0x3ff5e91f00000000ull,
        0x3fefffffffffffffull, 0x3ff0000000000001ull, 0x7fefffffffffffffull, 0x7ff0000000000000ull,
        0xfff0000000000000ull, 0x7ff8000000000000ull, 0xbff0000000000000ull, 0x3ca0000000000000ull,
        0x3fe0000000000000ull, 0x4000000000000000ull, 0x3fd0000000000000ull, 0x3fe8000000000000ull,
        0x4330000000000000ull, 0x4340000000000000ull, 0x433fffffffffffffull, 0xc330000000000001ull,
        0x3fc0000000000000ull, 0x3ff8000000000000ull, 0xbfe0000000000000ull, 0x3e70000000000000ull,
        0x3ff6a09e00000000ull, 0x3ff6a09effffffffull, 0x3ff6a09f00000000ull, 0x3fe6a09f00000000ull,
        0x3fe6a09effffffffull};
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
    gen_exp_log1p_tan();
    gen_log1pf();
    gen_log_reduction();
    return 0;
}
