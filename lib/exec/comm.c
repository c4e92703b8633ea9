/*
 * comm.c — what every communicator backend shares: locating a rank in a
 * group list, the element-wise reduction kernel, the dtype conversions, and
 * which process hosts which mesh ranks when a process hosts several.
 *
 * The kernel computes as torch 2.13 does on CPU: bfloat16 and float16
 * operands are widened to float, combined, and rounded back to nearest
 * even (c10/util/BFloat16.h round_to_nearest_even, c10/util/Half.h).  The
 * test data keep every reduction exact, so order of combination never
 * changes the bits, but the rounding rules still matter for R -> P(sum)'s
 * division.  Tested by conformance/tests/check_exec.c.
 */
#include "config.h"
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "comm.h"

int shc_comm_group_pos(const shc_comm *c, const int64_t *group, int n, int *pos, shc_err *e)
{
    for (int i = 0; i < n; i++)
        if (group[i] == c->rank) {
            *pos = i;
            return SHC_OK;
        }
    return shc_fail(e, SHC_EINTERNAL, "rank %lld is not in the collective's group of %d ranks",
                    (long long)c->rank, n);
}

void *shc_comm_scratch(shc_comm *c, size_t bytes)
{
    if (bytes > c->scratch_cap) {
        void *b = realloc(c->scratch, bytes);
        if (!b)
            return NULL;
        c->scratch = b;
        c->scratch_cap = bytes;
    }
    return c->scratch;
}

float shc_bf16_to_float(uint16_t h)
{
    uint32_t x = (uint32_t)h << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
}

uint16_t shc_float_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((x >> 16) | 0x40);
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}

float shc_f16_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, ex = (h >> 10) & 0x1f, man = h & 0x3ffu, x;
    float f;
    if (ex == 0) {
        f = ldexpf((float)man, -24);
        return sign ? -f : f;
    }
    if (ex == 31)
        x = sign | 0x7f800000u | (man << 13);
    else
        x = sign | ((ex + 112) << 23) | (man << 13);
    memcpy(&f, &x, 4);
    return f;
}

uint16_t shc_float_to_f16(float f)
{
    uint32_t x, sign, ax, o;
    memcpy(&x, &f, 4);
    sign = (x >> 16) & 0x8000u;
    ax = x & 0x7fffffffu;
    if (ax >= 0x47800000u) {            /* >= 2^16: inf, or NaN stays NaN */
        o = ax > 0x7f800000u ? 0x7e00u : 0x7c00u;
    } else if (ax < 0x38800000u) {      /* half subnormal: let float addition round */
        float v, magic = 0.5f;
        memcpy(&v, &ax, 4);
        v += magic;
        memcpy(&o, &v, 4);
        o -= 0x3f000000u;
    } else {
        uint32_t odd = (ax >> 13) & 1u;
        ax += 0xc8000fffu + odd;        /* rebias exponent, round to nearest even */
        o = ax >> 13;
    }
    return (uint16_t)(o | sign);
}

void shc_store_int(void *p, shc_dtype t, int64_t v)
{
    switch (t) {
    case SHC_DT_FLOAT32: { float f = (float)v; memcpy(p, &f, 4); break; }
    case SHC_DT_FLOAT64: { double d = (double)v; memcpy(p, &d, 8); break; }
    case SHC_DT_BFLOAT16: { uint16_t h = shc_float_to_bf16((float)v); memcpy(p, &h, 2); break; }
    case SHC_DT_FLOAT16: { uint16_t h = shc_float_to_f16((float)v); memcpy(p, &h, 2); break; }
    case SHC_DT_INT32: { int32_t i = (int32_t)v; memcpy(p, &i, 4); break; }
    default: memcpy(p, &v, 8); break;
    }
}

double shc_load_double(const void *p, shc_dtype t)
{
    switch (t) {
    case SHC_DT_FLOAT32: { float f; memcpy(&f, p, 4); return f; }
    case SHC_DT_FLOAT64: { double d; memcpy(&d, p, 8); return d; }
    case SHC_DT_BFLOAT16: { uint16_t h; memcpy(&h, p, 2); return shc_bf16_to_float(h); }
    case SHC_DT_FLOAT16: { uint16_t h; memcpy(&h, p, 2); return shc_f16_to_float(h); }
    case SHC_DT_INT32: { int32_t i; memcpy(&i, p, 4); return i; }
    default: { int64_t i; memcpy(&i, p, 8); return (double)i; }
    }
}

/* One float combination; NaN propagates as torch.minimum/maximum do. */
static double fop(double a, double b, shc_redop op)
{
    switch (op) {
    case SHC_OP_MIN: return (a != a || b != b) ? NAN : (a < b ? a : b);
    case SHC_OP_MAX: return (a != a || b != b) ? NAN : (a > b ? a : b);
    case SHC_OP_PRODUCT: return a * b;
    default: return a + b;
    }
}

/* Integer combination with two's-complement wrap (no signed overflow UB). */
static int64_t iop(int64_t a, int64_t b, shc_redop op)
{
    switch (op) {
    case SHC_OP_MIN: return a < b ? a : b;
    case SHC_OP_MAX: return a > b ? a : b;
    case SHC_OP_PRODUCT: return (int64_t)((uint64_t)a * (uint64_t)b);
    case SHC_OP_BAND: return a & b;
    case SHC_OP_BOR: return a | b;
    case SHC_OP_BXOR: return a ^ b;
    default: return (int64_t)((uint64_t)a + (uint64_t)b);
    }
}

static void reduce_float(void *acc, const void *x, size_t count, shc_dtype t, shc_redop op)
{
    for (size_t i = 0; i < count; i++) {
        if (t == SHC_DT_FLOAT32) {
            float a, b, r;
            memcpy(&a, (char *)acc + 4 * i, 4);
            memcpy(&b, (const char *)x + 4 * i, 4);
            r = op == SHC_OP_PRODUCT ? a * b : (op == SHC_OP_MIN || op == SHC_OP_MAX)
                ? (float)fop(a, b, op) : a + b;
            memcpy((char *)acc + 4 * i, &r, 4);
        } else if (t == SHC_DT_FLOAT64) {
            double a, b, r;
            memcpy(&a, (char *)acc + 8 * i, 8);
            memcpy(&b, (const char *)x + 8 * i, 8);
            r = fop(a, b, op);
            memcpy((char *)acc + 8 * i, &r, 8);
        } else {
            uint16_t ha, hb, hr;
            memcpy(&ha, (char *)acc + 2 * i, 2);
            memcpy(&hb, (const char *)x + 2 * i, 2);
            bool bf = t == SHC_DT_BFLOAT16;
            float a = bf ? shc_bf16_to_float(ha) : shc_f16_to_float(ha);
            float b = bf ? shc_bf16_to_float(hb) : shc_f16_to_float(hb);
            float r = op == SHC_OP_PRODUCT ? a * b : (op == SHC_OP_MIN || op == SHC_OP_MAX)
                ? (float)fop(a, b, op) : a + b;
            hr = bf ? shc_float_to_bf16(r) : shc_float_to_f16(r);
            memcpy((char *)acc + 2 * i, &hr, 2);
        }
    }
}

int shc_reduce_into(void *acc, const void *x, size_t count, shc_dtype t, shc_redop op,
                    shc_err *e)
{
    bool bitwise = op == SHC_OP_BAND || op == SHC_OP_BOR || op == SHC_OP_BXOR;
    if (!shc_dtype_is_int(t)) {
        if (bitwise)
            return shc_fail(e, SHC_EINVAL, "reduce op %s is not defined for %s tensors",
                            shc_redop_name(op), shc_dtype_name(t));
        reduce_float(acc, x, count, t, op);
        return SHC_OK;
    }
    for (size_t i = 0; i < count; i++) {
        if (t == SHC_DT_INT32) {
            int32_t a, b, r;
            memcpy(&a, (char *)acc + 4 * i, 4);
            memcpy(&b, (const char *)x + 4 * i, 4);
            r = (int32_t)(uint32_t)iop(a, b, op);
            memcpy((char *)acc + 4 * i, &r, 4);
        } else {
            int64_t a, b, r;
            memcpy(&a, (char *)acc + 8 * i, 8);
            memcpy(&b, (const char *)x + 8 * i, 8);
            r = iop(a, b, op);
            memcpy((char *)acc + 8 * i, &r, 8);
        }
    }
    return SHC_OK;
}

void shc_div_scalar(void *buf, size_t count, shc_dtype t, int64_t n)
{
    char *p = buf;
    for (size_t i = 0; i < count; i++) {
        switch (t) {
        case SHC_DT_FLOAT32: { float f; memcpy(&f, p + 4 * i, 4); f = f / (float)n;
                               memcpy(p + 4 * i, &f, 4); break; }
        case SHC_DT_FLOAT64: { double d; memcpy(&d, p + 8 * i, 8); d = d / (double)n;
                               memcpy(p + 8 * i, &d, 8); break; }
        case SHC_DT_BFLOAT16: { uint16_t h; memcpy(&h, p + 2 * i, 2);
                                h = shc_float_to_bf16(shc_bf16_to_float(h) / (float)n);
                                memcpy(p + 2 * i, &h, 2); break; }
        case SHC_DT_FLOAT16: { uint16_t h; memcpy(&h, p + 2 * i, 2);
                               h = shc_float_to_f16(shc_f16_to_float(h) / (float)n);
                               memcpy(p + 2 * i, &h, 2); break; }
        case SHC_DT_INT32: { int32_t v; memcpy(&v, p + 4 * i, 4); v = (int32_t)(v / n);
                             memcpy(p + 4 * i, &v, 4); break; }
        default: { int64_t v; memcpy(&v, p + 8 * i, 8); v = v / n;
                   memcpy(p + 8 * i, &v, 8); break; }
        }
    }
}

/* lo(p) = floor(p * world / active): blocks differ in size by at most one.  world and
 * nprocs are at most 2^31 here (the caller's checks), so the product cannot overflow. */
static int64_t host_lo(int64_t world, int64_t active, int64_t p) { return p * world / active; }

void shc_comm_host_block(int64_t world, int64_t p, int64_t nprocs, int64_t *first,
                         int64_t *count)
{
    assert(world >= 1 && nprocs >= 1 && p >= 0 && world <= INT32_MAX && nprocs <= INT32_MAX);
    int64_t active = nprocs < world ? nprocs : world;
    if (p >= active) {
        *first = world;
        *count = 0;
        return;
    }
    *first = host_lo(world, active, p);
    *count = host_lo(world, active, p + 1) - *first;
}

int64_t shc_comm_host_of(int64_t world, int64_t nprocs, int64_t rank)
{
    assert(rank >= 0 && rank < world);
    int64_t active = nprocs < world ? nprocs : world;
    int64_t p = rank * active / world; /* at most one below the answer */
    while (p + 1 < active && host_lo(world, active, p + 1) <= rank)
        p++;
    return p;
}
