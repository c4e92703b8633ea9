/*
 * curand_stream.c — cuRAND's device API for curandStatePhilox4_32_10_t
 * (CUDA 13.0 curand_kernel.h, curand_philox4x32_x.h, curand_uniform.h,
 * curand_normal.h), reimplemented call for call on a CPU.
 *
 * The state keeps cuRAND's invariant: output holds Philox(ctr, key) and
 * output[STATE] is the next word curand() returns.  curand_init puts the seed
 * in the key, the subsequence in counter words 2..3 and skips `offset` single
 * words (offset/4 blocks plus STATE = offset%4).
 *
 * Quirk reproduced on purpose (curand_philox4x32_x.h, Philox_State_Incr(s, n)):
 * the carry out of counter word 1 is detected with `if (nhi <= ctr.y) return`,
 * and a carry out of word 0 is added to nhi before that, so when nhi is
 * 0xffffffff and word 0 carries, nhi wraps to 0 and the carry is lost.  The
 * public calls cannot reach it (skipahead moves at most 2^62 blocks, so nhi
 * < 2^30); we keep the code shape anyway so that it stays bit-exact.
 *
 * Normals: float Box-Muller on the GPU uses __sincosf (absolute error about
 * 2^-21.4 on the angle's sin/cos, times s <= 6.7), so float normals here
 * (accurate sinf/cosf) differ from a GPU's by up to ~1e-5 absolute.  Double
 * normals use libdevice's own log and sincospi (cuda_libdevice.c), so they
 * follow the GPU bit for bit as far as the MUFU.RCP64H seed model inside
 * __nv_log holds (docs/cuda-math.md).  Uniforms and raw words are bit-exact.
 *
 * Tested by conformance/tests/check_rng.c (libcurand host generator oracle).
 */
#include "config.h"
#include <assert.h>
#include <string.h>
#include "shardcheck.h"
#include "curand_stream.h"

#define EXTRA_FLAG_NORMAL 1

static void refresh(shc_curand_philox *s)
{
    shc_philox4x32_core(s->ctr, s->key, 10, s->output);
}

/* Philox_State_Incr(s, n), with its carry quirk (see the file comment). */
static void incr_n(shc_curand_philox *s, uint64_t n)
{
    uint32_t nlo = (uint32_t)n, nhi = (uint32_t)(n >> 32);
    s->ctr[0] += nlo;
    if (s->ctr[0] < nlo)
        nhi++;
    s->ctr[1] += nhi;
    if (nhi <= s->ctr[1])
        return;
    if (++s->ctr[2])
        return;
    ++s->ctr[3];
}

/* Philox_State_Incr(s): the counter + 1 with full carry. */
static void incr1(shc_curand_philox *s)
{
    if (++s->ctr[0]) return;
    if (++s->ctr[1]) return;
    if (++s->ctr[2]) return;
    ++s->ctr[3];
}

void shc_curand_skipahead(uint64_t n, shc_curand_philox *s)
{
    s->state += (uint32_t)(n & 3);
    n /= 4;
    if (s->state > 3) {
        n += 1;
        s->state -= 4;
    }
    assert(s->state <= 3); /* a word index into the current block */
    incr_n(s, n);
    refresh(s);
}

void shc_curand_skipahead_sequence(uint64_t n, shc_curand_philox *s)
{
    /* Philox_State_Incr_hi: words 2..3 + n, no carry out of word 3. */
    uint32_t nlo = (uint32_t)n, nhi = (uint32_t)(n >> 32);
    s->ctr[2] += nlo;
    if (s->ctr[2] < nlo)
        nhi++;
    s->ctr[3] += nhi;
    refresh(s);
}

void shc_curand_init(uint64_t seed, uint64_t subsequence, uint64_t offset, shc_curand_philox *s)
{
    memset(s, 0, sizeof *s);
    s->key[0] = (uint32_t)seed;
    s->key[1] = (uint32_t)(seed >> 32);
    shc_curand_skipahead_sequence(subsequence, s);
    shc_curand_skipahead(offset, s);
}

uint32_t shc_curand(shc_curand_philox *s)
{
    uint32_t ret = s->output[s->state & 3];
    /* cuRAND's switch sends any STATE > 3 to output.x; STATE never exceeds 3 here. */
    if (s->state > 3)
        ret = s->output[0];
    s->state++;
    if (s->state == 4) {
        incr1(s);
        refresh(s);
        s->state = 0;
    }
    assert(s->state <= 3);
    return ret;
}

void shc_curand4(shc_curand_philox *s, uint32_t out[4])
{
    uint32_t tmp[4];
    memcpy(tmp, s->output, sizeof tmp);
    incr1(s);
    refresh(s);
    uint32_t st = s->state;
    if (st > 3) /* "NOT possible" branch of curand4 */
        st = 0;
    /* words st..3 of the old block, then 0..st-1 of the new one */
    for (uint32_t i = 0; i < 4; i++)
        out[i] = st + i < 4 ? tmp[st + i] : s->output[st + i - 4];
}

float shc_curand_uniform(shc_curand_philox *s) { return shc_curand_u01(shc_curand(s)); }

void shc_curand_uniform4(shc_curand_philox *s, float out[4])
{
    uint32_t w[4];
    shc_curand4(s, w);
    for (int i = 0; i < 4; i++)
        out[i] = shc_curand_u01(w[i]);
}

double shc_curand_uniform_double(shc_curand_philox *s)
{
    return shc_curand_u01_double(shc_curand(s));
}

void shc_curand_uniform2_double(shc_curand_philox *s, double out[2])
{
    uint32_t w[4];
    shc_curand4(s, w);
    out[0] = shc_curand_u01_double_hq(w[0], w[1]);
    out[1] = shc_curand_u01_double_hq(w[2], w[3]);
}

float shc_curand_normal(shc_curand_philox *s)
{
    if (s->boxmuller_flag != EXTRA_FLAG_NORMAL) {
        uint32_t x = shc_curand(s);
        uint32_t y = shc_curand(s);
        float v[2];
        shc_curand_box_muller(x, y, v);
        s->boxmuller_extra = v[1];
        s->boxmuller_flag = EXTRA_FLAG_NORMAL;
        return v[0];
    }
    s->boxmuller_flag = 0;
    return s->boxmuller_extra;
}

void shc_curand_normal2(shc_curand_philox *s, float out[2])
{
    /* curand_box_muller: two curand() calls; the cache is neither read nor cleared. */
    uint32_t x = shc_curand(s);
    uint32_t y = shc_curand(s);
    shc_curand_box_muller(x, y, out);
}

void shc_curand_normal4(shc_curand_philox *s, float out[4])
{
    uint32_t w[4];
    shc_curand4(s, w);
    shc_curand_box_muller(w[0], w[1], out);
    shc_curand_box_muller(w[2], w[3], out + 2);
}

double shc_curand_normal_double(shc_curand_philox *s)
{
    if (s->boxmuller_flag_double != EXTRA_FLAG_NORMAL) {
        uint32_t w[4];
        shc_curand4(s, w);
        double v[2];
        shc_curand_box_muller_double(w[0], w[1], w[2], w[3], v);
        s->boxmuller_extra_double = v[1];
        s->boxmuller_flag_double = EXTRA_FLAG_NORMAL;
        return v[0];
    }
    s->boxmuller_flag_double = 0;
    return s->boxmuller_extra_double;
}

void shc_curand_normal2_double(shc_curand_philox *s, double out[2])
{
    uint32_t w[4];
    shc_curand4(s, w);
    shc_curand_box_muller_double(w[0], w[1], w[2], w[3], out);
}
