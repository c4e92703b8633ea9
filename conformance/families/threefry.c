/*
 * threefry.c — the threefry golden family: jax.random.bits(key, shape,
 * uint32) under jax_threefry_partitionable=True (counter = row-major index as
 * (hi, lo) words, output = xor of the two Threefry2x32-20 words).
 *
 * A group is {key: 2 hex words = jax.random.key_data(key)}; a test {shape};
 * expected {bits: hex per element} (numel <= 64) or {sha256 of the
 * little-endian uint32 output, samples {index, bits}}.
 * Cross-checked by tools/harness/adapters/jax_threefry.py (real jax) and
 * check_rng.c (Random123 block function).
 * Schema: golden/schemas/threefry_v1.json.
 */
#include "config.h"
#include "families.h"
#include "rng_common.h"

/* key_data of jax.random.PRNGKey(seed) is (seed >> 32, seed & 0xffffffff). */
static const uint32_t KEYS[][2] = {{0, 0}, {0, 42}, {0, 1701}, {0x12345678, 0x9abcdef0}, {~0u, ~0u}};
static const char *const SHAPES[] = {"1", "4", "3,5", "2,3,4", "64", "1000", "256,257", "0", NULL};

static int compute(const json_t *group, const json_t *test, json_t **out, shc_err *e)
{
    uint32_t k[2];
    shc_shape s;
    int64_t n;
    int rc = shcr_words(group, "key", k, 2, e);
    const json_t *sh = json_object_get(test, "shape");
    s.ndim = (int)json_array_size(sh);
    if (!rc && s.ndim > SHC_MAX_TENSOR_DIMS)
        rc = shc_fail(e, SHC_EFORMAT, "threefry: too many dims");
    for (int i = 0; !rc && i < s.ndim; i++)
        s.d[i] = json_integer_value(json_array_get(sh, (size_t)i));
    if (!rc)
        rc = shc_shape_numel(&s, &n, e);
    if (rc)
        return rc;
    if (n > (1 << 24))
        return shc_fail(e, SHC_EINVAL, "threefry: %lld elements is more than the family stores",
                        (long long)n);
    uint32_t *b = malloc(sizeof(uint32_t) * (size_t)(n ? n : 1));
    if (!b)
        return shc_fail(e, SHC_ENOMEM, "out of memory");
    shc_threefry_bits32(k, 0, n, b);
    if (n <= 64) {
        *out = json_pack("{s:o}", "bits", shcr_hex_array(b, n));
    } else {
        int64_t idx[6] = {0, 1, n / 3, n / 2, n - 2, n - 1};
        json_t *si = json_array(), *sb = json_array();
        for (int i = 0; i < 6; i++) {
            json_array_append_new(si, shc_json_i64s(idx[i]));
            json_array_append_new(sb, shcr_hex32(b[idx[i]]));
        }
        *out = json_pack("{s:o,s:{s:o,s:o}}", "sha256", shcr_sha256(b, 4 * (size_t)n), "samples",
                         "index", si, "bits", sb);
    }
    free(b);
    return SHC_OK;
}

static int compute_rank(const json_t *group, const json_t *test, int64_t rank, json_t **out,
                        shc_err *e)
{
    return compute(group, test, out, e);
}

static int64_t world_size(const json_t *group) { return 1; }

static int generate(shc_gw *w, shc_err *e)
{
    shc_gw_note(w, "EmptyTensor", "A shape with no elements.");
    int rc = shc_gw_file(w, "threefry", e);
    for (size_t ki = 0; ki < sizeof KEYS / sizeof KEYS[0] && !rc; ki++) {
        json_t *grp = json_pack("{s:o}", "key", shcr_hex_array(KEYS[ki], 2));
        json_t *keep = json_incref(grp);
        rc = shc_gw_group(w, grp, e);
        for (int si = 0; SHAPES[si] && !rc; si++) {
            shc_shape s;
            if ((rc = shc_shape_parse(&s, SHAPES[si], e)))
                break;
            json_t *t = shc_test_new("", "valid");
            json_object_set_new(t, "shape", shc_json_i64_array(s.d, s.ndim));
            int64_t n;
            shc_shape_numel(&s, &n, e);
            if (n == 0)
                shc_test_flag(t, "EmptyTensor");
            rc = shcr_add_test(w, keep, t, compute, e);
        }
        json_decref(keep);
    }
    return rc;
}

const shc_family shc_family_threefry = {
    .name = "threefry",
    .source_name = "jax",
    .source_version = "0.4+",
    .summary = "jax.random.bits uint32 with jax_threefry_partitionable=True (threefry2x32-20)",
    .generate = generate,
    .compute_rank = compute_rank,
    .world_size = world_size,
    .gives = "`jax.random.bits` with partitionable threefry",
    .oracle = "jax (harness), Random123 threefry (`make check`)",
    .harness_stride = 1,
    .claim = {.fields = SHC_NAMES("bits", "sha256", "samples")},
};
