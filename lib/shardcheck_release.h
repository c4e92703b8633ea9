/*
 * shardcheck_release.h — the torch releases the reference models and the changes between them
 * (installed; shardcheck.h includes it): one row per behaviour in which releases differ
 * (lib/core/torch_release.c), which every release-dependent answer keys on through
 * shc_torch_has / shc_torch_ask, never on a version number.  docs/torch-releases.md is the
 * same table for people.  Tested by check_core.c and check_release_rows.c.
 */
#ifndef SHARDCHECK_RELEASE_H
#define SHARDCHECK_RELEASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
/* shc_err: shardcheck.h, which includes this header at its end (include it, not this one). */

#ifdef __cplusplus
extern "C" {
#endif


/* The torch releases the reference models: the newest patch of each minor from 2.11 to
 * 2.15.  SHC_TORCH_PINNED (0, what a zeroed struct holds) stands for the pinned release,
 * 2.13.0, whose answers the golden files' top-level expectations keep. */
typedef enum shc_torch_release {
    SHC_TORCH_PINNED = 0,
    SHC_TORCH_2_11 = 1,
    SHC_TORCH_2_12,
    SHC_TORCH_2_13,
    SHC_TORCH_2_14,
    SHC_TORCH_2_15,
    SHC_TORCH_RELEASE_END,
    /* A fictitious release, "9.99": the newest real one plus one new rule (SHC_TC_FIXTURE),
     * for the fixture test only (check_release_rows.c): no name parses to it, no family lists
     * it, and the golden writer answers for it only where a test adds it to the writer's set. */
    SHC_TORCH_FIXTURE = SHC_TORCH_RELEASE_END,
    SHC_TORCH_SLOTS
} shc_torch_release;
#define SHC_TORCH_FIRST SHC_TORCH_2_11
#define SHC_TORCH_PIN_RELEASE SHC_TORCH_2_13
/* A set of releases: bit r for release r. */
#define SHC_TORCH_SET(r) (1u << (unsigned)(r))
#define SHC_TORCH_ALL_RELEASES (((1u << SHC_TORCH_RELEASE_END) - 1u) & ~1u)
/* A change row's releases as a range, so that a release added at the end joins the rows of
 * behaviour that has not changed back ("2.14 on") and stays out of the old ones ("up to
 * 2.12") without editing them. */
#define SHC_TORCH_FROM(r) (SHC_TORCH_ALL_RELEASES & ~(SHC_TORCH_SET(r) - 1u))
#define SHC_TORCH_UP_TO(r) (SHC_TORCH_ALL_RELEASES & ((SHC_TORCH_SET(r) << 1) - 1u))

typedef struct shc_torch_release_info {
    const char *name;  /* "2.13": how golden files and --torch-version name it */
    const char *patch; /* "2.13.0": the patch modelled (the minor's newest) */
    /* plan's local ops (shc_plan_local_ops) were checked against this release's own dispatch
     * by the test command (tools/harness/plan_local_check.py); `plan` states them only here */
    bool local_ops_checked;
} shc_torch_release_info;

/* A behaviour in which releases differ: one row each (torch_release.c). */
typedef enum shc_torch_change {
    SHC_TC_SHARD_TO_PARTIAL,        /* 2.14+: S(d) -> P(sum) is one local step */
    SHC_TC_STRIDED_NO_FALLBACK,     /* 2.11: an undecodable _StridedShard raises */
    SHC_TC_STRIDED_NOT_SHARD,       /* 2.11: num_shards and merging ignore _StridedShard */
    SHC_TC_STRIDED_STEPS_RAISE,     /* 2.11: _S -> S, P -> _S, S -> _S raise */
    SHC_TC_MULTINOMIAL_NO_STRATEGY, /* 2.11, 2.12: multinomial rejected on a DTensor */
    SHC_TC_EXPONENTIAL_NO_STRATEGY, /* 2.11: exponential_ rejected on a DTensor */
    SHC_TC_DECOMPOSED_RANDOM,       /* 2.11, 2.12: log_normal_/geometric_/cauchy_ need
                                       shardable layouts */
    SHC_TC_VIEW_LEGACY_RULE,        /* 2.11: the one-pass view rule, local squeeze */
    SHC_TC_VIEW_STRICT_REPLICATES,  /* 2.11, 2.12: a strict view replicates, not raises */
    SHC_TC_VIEW_FLATTEN_SPLIT_RAISES, /* 2.12: S on a non-first dim of Split(Flatten) raises */
    SHC_TC_SQUEEZE_NOT_STRICT,      /* 2.11, 2.12: squeeze registered without strict_view */
    SHC_TC_MESH_LAYOUT_LEGACY,      /* 2.11, 2.12: a mesh dim is _MeshLayout(Layout), not a
                                       normalised _FlatLayout */
    SHC_TC_COUNT,
    /* The fixture release's one new rule (9.99: Shard -> _StridedShard raises), a row of
     * its own as a new release's new rule would be; no real release has it. */
    SHC_TC_FIXTURE = SHC_TC_COUNT,
    SHC_TC_SLOTS
} shc_torch_change;

typedef struct shc_torch_change_info {
    const char *flag;   /* the golden flag of a case whose answer the change alters */
    uint32_t releases;  /* the releases that behave so (SHC_TORCH_SET bits) */
    const char *what;   /* what differs, and which release made the change */
    const char *where;  /* torch file:line in each release */
} shc_torch_change_info;

/* The release's row (PINNED resolves to 2.13); NULL for an unknown value. */
const shc_torch_release_info *shc_torch_release_get(shc_torch_release r);
/* PINNED -> the pinned release; any other value unchanged. */
shc_torch_release shc_torch_norm(shc_torch_release r);
/* "2.13" ("?" for an unknown value). */
const char *shc_torch_release_name(shc_torch_release r);
/* Parse "2.13" or "2.13.0" (a minor or its newest patch); SHC_EINVAL otherwise, the
 * message listing the supported releases ("2.10", "2.16", "latest", "2.13.0+cu130"). */
int shc_torch_release_parse(const char *s, shc_torch_release *out, shc_err *e);
/* "2.11 (2.11.0), 2.12 (2.12.1), ..." into buf. */
void shc_torch_supported(char *buf, size_t n);
/* A change's row; NULL for an unknown value. */
const shc_torch_change_info *shc_torch_change_get(shc_torch_change c);
/* Whether release r behaves as change c describes. */
bool shc_torch_has(shc_torch_release r, shc_torch_change c);
/* The same, and *asked |= c's bit: the one call a release-dependent answer makes where a row
 * could change it (asked NULL: not recorded).  The golden writer recomputes a release only
 * when a row the pinned answer asked about holds otherwise in it, so an answer that reads
 * the release other than through this call is a silent trap (docs/torch-releases.md). */
bool shc_torch_ask(shc_torch_release r, shc_torch_change c, uint32_t *asked);
/* The changes (the fixture's row included) in which release r and the pinned release behave
 * otherwise (bit c). */
uint32_t shc_torch_differs(shc_torch_release r);
/* The rows' lockstep check: every change names a flag, text, and only known releases (none
 * outside SHC_TORCH_ALL_RELEASES, at least one); flags unique.  SHC_EINTERNAL naming the row. */
int shc_torch_check_rows(shc_err *e);
/* The change whose flag is `flag`, or -1. */
int shc_torch_change_by_flag(const char *flag);
/* "2.14, 2.15" for a set of releases. */
void shc_torch_set_format(uint32_t set, char *buf, size_t n);

#ifdef __cplusplus
}
#endif

#endif
