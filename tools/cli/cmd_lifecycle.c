/*
 * cmd_lifecycle.c — `shardcheck lifecycle`: DTensor's RNG set-up on each rank before any draw
 * (lib/offsets/rng_lifecycle.c): what manual_seed, a first random op and a random factory do
 * on every rank of a mesh's world (and a first op given a user's generator), on a CUDA-like or
 * a CPU device mesh; and torch's
 * _PhiloxState bytes for a (seed, offset), or the (seed, offset) of 16 bytes.
 *
 *   shardcheck lifecycle --mesh M [--ranks L] [--world W] [--seed N] [--device cuda|cpu]
 *                        [--rank R] [--json]
 *   shardcheck lifecycle --philox SEED,OFFSET | --philox-bytes HEX32 [--json]
 *
 * Tested by conformance/tests/cli_lifecycle.sh (values from torch's source) and
 * tools/harness/tests/test_rng_lifecycle.py (the CPU answers against real torch on gloo).
 */
#include "config.h"
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "golden.h"

typedef struct lc_opts {
    cli_common c;
    uint64_t seed;
    int device; /* 0 cuda-like, 1 cpu */
    const char *philox, *bytes;
} lc_opts;

static const char *const event_key[SHC_LC_EVENTS] = {"manualSeed", "firstOp", "factory"};
static const char *const event_text[SHC_LC_EVENTS] = {"manual_seed", "first random op",
                                                      "rand/randn factory"};

static void hex16(const uint8_t b[16], char out[33])
{
    for (int i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
}

static json_t *event_json(const shc_lc_event *ev)
{
    json_t *o = json_pack("{s:s,s:i,s:s}", "outcome", shc_lc_outcome_name(ev->outcome),
                          "collectives", ev->collectives, "what", ev->what);
    if (ev->state_from >= 0)
        json_object_set_new(o, "stateFrom", json_integer(ev->state_from));
    if (ev->state_set) {
        uint8_t b[16];
        char hex[33];
        shc_philox_state_pack(ev->seed, ev->offset, b);
        hex16(b, hex);
        json_object_set_new(o, "state", json_pack("{s:o,s:o,s:s}", "seed",
                                                  json_sprintf("%" PRIu64, ev->seed), "offset",
                                                  json_sprintf("%" PRIu64, ev->offset),
                                                  "philoxState", hex));
    }
    return o;
}

static void event_print(const char *name, const shc_lc_event *ev)
{
    printf("  %-18s %-6s %d collective%s", name, shc_lc_outcome_name(ev->outcome),
           ev->collectives, ev->collectives == 1 ? " " : "s");
    if (ev->state_from >= 0)
        printf("  state from rank %lld", (long long)ev->state_from);
    printf("  %s\n", ev->what);
}

static int per_rank(const lc_opts *o)
{
    shc_err e = {0};
    shc_mesh m;
    int rc = cli_load_mesh(&o->c, &m, &e);
    if (rc)
        return cli_report("lifecycle", rc, &e);
    int64_t lo = o->c.rank >= 0 ? o->c.rank : 0, hi = o->c.rank >= 0 ? o->c.rank : m.max_rank;
    if (o->c.rank < 0 && cli_printed_ranks_e(m.max_rank + 1, &e))
        rc = SHC_EINVAL;
    shc_lc_event ev[SHC_LC_EVENTS];
    if (!rc && o->c.rank >= 0) /* every rank of the world has an answer, the mesh's or not */
        rc = cli_check_rank(&o->c, &m, true, &e);
    cli_jstream js;
    if (!rc && o->c.json)
        cli_jstream_open(&js, json_pack("{s:s,s:s,s:o,s:I}", "torch", "2.13", "device",
                                        o->device ? "cpu" : "cuda", "seed",
                                        json_sprintf("%" PRIu64, o->seed), "world",
                                        (json_int_t)m.max_rank + 1), "ranks");
    else if (!rc)
        printf("DTensor RNG set-up (torch 2.13), %s device mesh, world of %lld, seed %" PRIu64
               ", no tracker made before\n", o->device ? "a cpu" : "a CUDA-like",
               (long long)m.max_rank + 1, o->seed);
    for (int64_t r = lo; r <= hi && !rc; r++) {
        shc_lc_event ug;
        if ((rc = shc_rng_lifecycle(&m, r, !o->device, o->seed, ev, &e)) ||
            (rc = shc_rng_lifecycle_user_generator(&m, r, !o->device, &ug, &e)))
            break;
        int64_t coord[SHC_MAX_MESH_DIMS];
        bool on = shc_mesh_coord(&m, r, coord, NULL) == SHC_OK;
        if (o->c.json) {
            json_t *x = json_pack("{s:I,s:o}", "rank", (json_int_t)r, "coord",
                                  on ? shc_json_i64_array(coord, m.ndim) : json_null());
            for (int k = 0; k < SHC_LC_EVENTS; k++)
                json_object_set_new(x, event_key[k], event_json(&ev[k]));
            json_object_set_new(x, "userGenerator", event_json(&ug));
            cli_jstream_item(&js, x);
            continue;
        }
        printf("rank %lld%s\n", (long long)r, on ? "" : " (off the mesh)");
        for (int k = 0; k < SHC_LC_EVENTS; k++)
            event_print(event_text[k], &ev[k]);
        event_print("op, generator=g", &ug);
    }
    shc_mesh_free(&m);
    if (rc)
        return cli_report("lifecycle", rc, &e);
    return o->c.json ? cli_jstream_close(&js) : EXIT_OK;
}

/* --philox SEED,OFFSET: both decimal 0..2^64-1 (torch views the offset's bytes as int64: an
 * offset past 2^63-1 reads back negative there). */
static int parse_pair(const char *s, uint64_t *seed, uint64_t *offset, shc_err *e)
{
    const char *comma = strchr(s, ',');
    if (!comma)
        return shc_fail(e, SHC_EINVAL, "--philox '%s': expected SEED,OFFSET", CLI_ECHO(s));
    char first[32];
    size_t n = (size_t)(comma - s);
    if (n >= sizeof first)
        return shc_fail(e, SHC_EINVAL, "--philox '%s': the seed is not 0..2^64-1", CLI_ECHO(s));
    memcpy(first, s, n);
    first[n] = '\0';
    int rc = cli_parse_seed(first, seed, e);
    if (!rc)
        rc = cli_parse_seed(comma + 1, offset, e);
    return rc ? shc_err_prefix(e, "--philox") : SHC_OK;
}

static int parse_bytes(const char *s, uint8_t b[16], shc_err *e)
{
    if (strlen(s) != 32)
        return shc_fail(e, SHC_EINVAL, "--philox-bytes '%s': expected 32 hex digits (16 bytes)",
                        CLI_ECHO(s));
    for (int i = 0; i < 32; i++)
        if (!isxdigit((unsigned char)s[i]))
            return shc_fail(e, SHC_EINVAL, "--philox-bytes '%s': '%c' at %d is not a hex digit",
                            CLI_ECHO(s), s[i], i);
    for (int i = 0; i < 16; i++) {
        char two[3] = {s[2 * i], s[2 * i + 1], '\0'};
        b[i] = (uint8_t)strtoul(two, NULL, 16);
    }
    return SHC_OK;
}

static int philox(const lc_opts *o)
{
    shc_err e = {0};
    uint64_t seed, offset;
    uint8_t b[16];
    int rc = o->philox ? parse_pair(o->philox, &seed, &offset, &e) : parse_bytes(o->bytes, b, &e);
    if (rc)
        return cli_report("lifecycle", rc, &e);
    if (o->philox)
        shc_philox_state_pack(seed, offset, b);
    else
        shc_philox_state_unpack(b, &seed, &offset);
    char hex[33];
    hex16(b, hex);
    if (!o->c.json) {
        printf("_PhiloxState seed %" PRIu64 " offset %" PRIu64 " (as int64 %" PRId64 ")\n"
               "bytes %s\n", seed, offset, (int64_t)offset, hex);
        return EXIT_OK;
    }
    json_t *doc = json_pack("{s:o,s:o,s:o,s:s}", "seed", json_sprintf("%" PRIu64, seed), "offset",
                            json_sprintf("%" PRIu64, offset), "offsetInt64",
                            json_sprintf("%" PRId64, (int64_t)offset), "bytes", hex);
    int x = cli_print_json(doc);
    json_decref(doc);
    return x;
}

int cmd_lifecycle(int argc, char **argv)
{
    lc_opts o;
    memset(&o, 0, sizeof o);
    cli_common_init(&o.c);
    static const char *const devices[] = {"cuda", "cpu", NULL};
    unsigned long long given = 0;
    const cli_option opts[] = {
        CLI_OPT_MESH(&o.c), CLI_OPT_RANKS(&o.c), CLI_OPT_WORLD(&o.c), CLI_OPT_RANK(&o.c),
        {.name = "seed", .kind = CLI_SEED, .meta = "N", .to = &o.seed,
         .help = "the seed manual_seed is given (default 0)"},
        {.name = "device", .kind = CLI_CHOICE, .meta = "D", .to = &o.device, .choices = devices,
         .help = "the mesh's device: cuda (CUDA-like: set_rng_state) or cpu (default cuda)"},
        {.name = "philox", .kind = CLI_STR, .meta = "SEED,OFFSET", .to = &o.philox,
         .help = "_PhiloxState's 16 bytes for a seed and an offset"},
        {.name = "philox-bytes", .kind = CLI_STR, .meta = "HEX", .to = &o.bytes,
         .help = "the seed and offset of _PhiloxState's 16 bytes (32 hex digits)"},
        CLI_OPT_JSON(&o.c), CLI_OPT_END};
    const cli_command cmd = {
        .name = "lifecycle", .opts = opts, .given = &given,
        .synopsis = "--mesh M [--ranks L] [--world W] [--seed N] [--device cuda|cpu] [--rank R]\n"
                    "                            [--json]\n"
                    "       shardcheck lifecycle --philox SEED,OFFSET | --philox-bytes HEX [--json]",
        .about = "Per rank of the mesh's world, what torch 2.13 does at manual_seed(seed, mesh),\n"
                 "at a first random op on a DTensor and at a rand/randn factory, no tracker\n"
                 "made before: runs, noop, raises or waits, the collectives it calls and the\n"
                 "state it ends with (lib/offsets/rng_lifecycle.c cites each branch).  A rank\n"
                 "off the mesh (--world) raises at manual_seed on a CUDA-like mesh; a first op\n"
                 "there leaves the mesh's ranks waiting in the tracker's broadcast.  On a cpu\n"
                 "mesh manual_seed only warns and a factory asserts.  A first op given a\n"
                 "generator of the user's (generator=g): on a CUDA-like mesh the tracker's\n"
                 "offsets move g; on a cpu mesh torch drops g (a finding)."};
    int x = cli_parse(&cmd, argc, argv, NULL);
    if (x != CLI_GO)
        return x;
    if (o.philox || o.bytes) {
        if (o.philox && o.bytes)
            return cli_usage_error("lifecycle", "--philox-bytes: not used with --philox (give one)");
        static const char *const mesh_mode[] = {"mesh", "ranks", "world", "rank", "seed",
                                                "device"};
        for (size_t i = 0; i < sizeof mesh_mode / sizeof *mesh_mode; i++)
            if (cli_given(&cmd, mesh_mode[i])) /* both named: either may be the stray one */
                return cli_usage_error("lifecycle", "--%s: not used with --%s (the bytes of a "
                                       "state take no mesh)", mesh_mode[i],
                                       o.philox ? "philox" : "philox-bytes");
        return philox(&o);
    }
    return per_rank(&o);
}
