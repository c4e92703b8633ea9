/*
 * threefry.c — Threefry2x32 (Salmon et al., SC'11; Random123 threefry.h) and
 * JAX's partitionable random-bits scheme built on it.
 *
 * Threefry2x32-R: x = ctr + key; round r: x0 += x1, x1 = rotl(x1, R[r%8]) ^ x0
 * with R = 13 15 26 6 17 29 16 24; after every 4th round the s-th key
 * injection adds ks[s%3], ks[(s+1)%3] + s, where ks[2] = k0 ^ k1 ^ 0x1BD11BDA.
 * JAX uses 20 rounds.
 *
 * jax.random.bits(key, shape, uint32) with jax_threefry_partitionable=True
 * (jax/_src/prng.py, _threefry_random_bits_partitionable): the counter of
 * element i (row-major) is the 64-bit i split into (hi, lo) words and the
 * output is the xor of the two result words.
 *
 * Tested by conformance/tests/check_rng.c (Random123 oracle) and by the jax
 * adapter tools/harness/adapters/jax_threefry.py on the threefry family.
 */
#include "config.h"
#include "shardcheck.h"

static const int ROT[8] = {13, 15, 26, 6, 17, 29, 16, 24};

static inline uint32_t rotl32(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

void shc_threefry2x32(const uint32_t ctr[2], const uint32_t key[2], int rounds, uint32_t out[2])
{
    uint32_t ks[3] = {key[0], key[1], 0x1BD11BDAu ^ key[0] ^ key[1]};
    uint32_t x0 = ctr[0] + ks[0], x1 = ctr[1] + ks[1];
    for (int r = 0; r < rounds; r++) {
        x0 += x1;
        x1 = rotl32(x1, ROT[r % 8]);
        x1 ^= x0;
        if (r % 4 == 3) {
            uint32_t s = (uint32_t)(r + 1) / 4;
            x0 += ks[s % 3];
            x1 += ks[(s + 1) % 3] + s;
        }
    }
    out[0] = x0;
    out[1] = x1;
}

void shc_threefry_bits32(const uint32_t key[2], uint64_t start, int64_t count, uint32_t *out)
{
    for (int64_t i = 0; i < count; i++) {
        uint64_t c = start + (uint64_t)i;
        uint32_t ctr[2] = {(uint32_t)(c >> 32), (uint32_t)c}, r[2];
        shc_threefry2x32(ctr, key, 20, r);
        out[i] = r[0] ^ r[1];
    }
}
