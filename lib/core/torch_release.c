/*
 * torch_release.c — the torch releases the reference models (2.11 to 2.15,
 * the newest patch of each minor; 2.13.0 is the pinned one) and every
 * difference between them that changes an answer, as data: one row per
 * change, naming the releases that behave so, the golden flag a case whose
 * answer it changes carries, and the torch file:line of each release.  The
 * planners, the executor and the random-op table key their release-dependent
 * rows on these changes (shc_torch_has), so no code asks "which version?".
 * docs/torch-releases.md is the same table for people, with the evidence.
 * Tested by check_core.c (names, parsing, bad spellings) and, per release,
 * by the harness run against each torch (tools/scripts/torch_matrix.sh).
 */
#include "config.h"
#include <assert.h>
#include <stdio.h>
#include <string.h>
#include "shardcheck.h"

static const shc_torch_release_info RELEASES[] = {
    [SHC_TORCH_2_11] = {"2.11", "2.11.0"},
    [SHC_TORCH_2_12] = {"2.12", "2.12.1"},
    [SHC_TORCH_2_13] = {"2.13", "2.13.0", .local_ops_checked = true}, /* test_plan_local.py */
    [SHC_TORCH_2_14] = {"2.14", "2.14.1"},
    [SHC_TORCH_2_15] = {"2.15", "2.15.0", .local_ops_checked = true}, /* release_check.sh */
    [SHC_TORCH_FIXTURE] = {"9.99", "9.99.0"}, /* the fixture's; never parsed or listed */
};
_Static_assert(sizeof RELEASES / sizeof RELEASES[0] == SHC_TORCH_SLOTS,
               "one release row per shc_torch_release slot");
_Static_assert(SHC_TORCH_SLOTS <= 32, "a change row's releases hold one bit per release");

/* Paths are under torch/distributed/tensor/ unless absolute; "2.X a:b" is the line range in
 * that release's source (the wheels' site-packages). */
static const shc_torch_change_info CHANGES[] = {
    [SHC_TC_SHARD_TO_PARTIAL] = {
        "ShardToPartialStep", SHC_TORCH_FROM(SHC_TORCH_2_14),
        "torch 2.14 made Shard(d) -> Partial(sum) one local step: the min-cost planner offers "
        "it as an explicit-only edge of cost 0 towards a Partial(sum) target (case 7, "
        "_get_shard_to_partial_target_states), and redistribute_local_tensor executes it by "
        "embedding the shard in zeros (Shard._to_partial_tensor, comm \"zero_fill\", no "
        "collective); up to 2.13 the min-cost planner all-gathers and partitions, and the step "
        "raises \"redistribute from S(d) to P(sum) not supported yet\"",
        "2.13.0 _redistribute.py:1204 (no such edge), :1713-1716 (raises); 2.14.1 and 2.15.0 "
        "_redistribute.py:931-944 (case 7), :1180-1210, :1259-1261, :1777-1791; "
        "placement_types.py:639-664 (2.14.1), :636-661 (2.15.0)"},
    [SHC_TC_STRIDED_NO_FALLBACK] = {
        "StridedNoFallback", SHC_TORCH_UP_TO(SHC_TORCH_2_11),
        "torch 2.12 added the greedy fallback for a _StridedShard that does not decode into a "
        "shard order (_StridedShardNotDecodableError); torch 2.11 raises ValueError "
        "\"use_strided_shard_as_shard_order is True, but placements: ... is unable to be "
        "interpreted into a corresponding shard_order\" instead",
        "2.11.0 _redistribute.py:1426-1430, _dtensor_spec.py:131-136; 2.12.1 "
        "_redistribute.py:1467-1482, _dtensor_spec.py:26, :141-143"},
    [SHC_TC_STRIDED_NOT_SHARD] = {
        "StridedCountsAsReplicate", SHC_TORCH_UP_TO(SHC_TORCH_2_11),
        "torch 2.11 counts only Shard, not _StridedShard, where 2.12 calls _is_shard_like: "
        "DTensorSpec.num_shards (so the min-cost planner prices a step from a _StridedShard "
        "layout as if that mesh dim held replicas, and the greedy planner's nested-shard pass "
        "needs a Shard) and _TransformInfo._comm_type_key (so _StridedShard steps never merge)",
        "2.11.0 _dtensor_spec.py:581-586, _redistribute.py:163-170, :1331; 2.12.1 "
        "_dtensor_spec.py:610-614, _redistribute.py:168-175, :1365"},
    [SHC_TC_STRIDED_STEPS_RAISE] = {
        "StridedStepRaises", SHC_TORCH_UP_TO(SHC_TORCH_2_11),
        "torch 2.11's redistribute_local_tensor raises NotImplementedError for _StridedShard -> "
        "Shard, Partial -> _StridedShard and Shard -> _StridedShard (comm \"unsupported\"); "
        "torch 2.12 goes through Replicate",
        "2.11.0 _redistribute.py:1600-1603, :1627-1630, :1636-1640; 2.12.1 "
        "_redistribute.py:1662-1672, :1696-1704, :1710-1718"},
    [SHC_TC_MULTINOMIAL_NO_STRATEGY] = {
        "MultinomialNoStrategy", SHC_TORCH_UP_TO(SHC_TORCH_2_12),
        "torch 2.13 registered multinomial's sharding strategy; 2.11 and 2.12 reject "
        "torch.multinomial on a DTensor: \"Operator aten.multinomial.default does not have a "
        "sharding strategy registered.\"",
        "2.13.0 _ops/_random_ops.py:56-81; absent from 2.11.0 and 2.12.1 _ops/"},
    [SHC_TC_EXPONENTIAL_NO_STRATEGY] = {
        "ExponentialNoStrategy", SHC_TORCH_UP_TO(SHC_TORCH_2_11),
        "torch 2.12 gave exponential_ a (pointwise) sharding strategy; 2.11 rejects it on a "
        "DTensor: \"Operator aten.exponential_.default does not have a sharding strategy "
        "registered.\"",
        "2.12.1 _ops/_pointwise_ops.py:488; 2.13.0 _ops/_random_ops.py:46; absent from 2.11.0"},
    [SHC_TC_DECOMPOSED_RANDOM] = {
        "DecomposedRandomOp", SHC_TORCH_UP_TO(SHC_TORCH_2_12),
        "in torch 2.11 and 2.12 log_normal_, geometric_ and cauchy_ have no registered "
        "strategy: DTensor derives one from the op's decomposition, whose expansion keeps only "
        "shardable layouts (every sharded tensor dim at least as large as its number of "
        "shards, times split_factor for _StridedShard) and no Partial input; any other input "
        "must be redistributed, which an in-place op refuses (\"in-place operations that "
        "require placement changes are not supported\").  torch 2.13 registers log_normal_ and "
        "geometric_ with allow_uneven_sharding, and cauchy_'s decomposition then reaches only "
        "ops that accept any layout",
        "2.12.1 _decompositions.py:191-245, _ops/utils.py:173-225, :597-606; 2.13.0 "
        "_ops/_random_ops.py:39-53"},
    [SHC_TC_VIEW_LEGACY_RULE] = {
        "ViewRuleLegacy", SHC_TORCH_UP_TO(SHC_TORCH_2_11),
        "torch 2.12 replaced the view-op rule with a two-phase propagator "
        "(_ViewShardingPropagator: a shard of a non-first flattened dim becomes a _StridedShard, "
        "a _StridedShard through an unflatten becomes a Shard) and rewrote squeeze to the "
        "globally size-1 dims (_adjust_squeeze_to_global_singletons).  torch 2.11's one-pass "
        "propagate_shape_and_sharding keeps a shard only on a flatten's first dim and a "
        "split's first piece, keeps a _StridedShard's split factor whatever the op, raises for "
        "a strict op on a sharded non-first flattened dim, an uneven flatten or an uneven "
        "split, and asserts that a split's first piece divides by the mesh dims sharding it; "
        "its squeeze runs on the rank's own size-1 dims, and squeeze.dims (a list of dims) has "
        "no sharding strategy",
        "2.11.0 _ops/_view_ops.py:504-693 (propagate_shape_and_sharding), :431-440 "
        "(dim_squeeze), :760-766 (squeeze.default and squeeze.dim only); 2.12.1 "
        "_ops/_view_ops.py:571-1290, _sharding_prop.py:837, :1034-1075"},
    [SHC_TC_VIEW_STRICT_REPLICATES] = {
        "ViewStrictReplicates", SHC_TORCH_UP_TO(SHC_TORCH_2_12),
        "torch 2.13 raises \"This operation would remove or reshape sharded dimension D, which "
        "requires redistribution\" where a strict view op's rule cannot keep a shard; 2.12 "
        "(and 2.11's rule) replicate that mesh dim instead, and the op runs on the gathered "
        "input",
        "2.12.1 _ops/_view_ops.py:717-725; 2.13.0 _ops/_view_ops.py:801-817"},
    [SHC_TC_VIEW_FLATTEN_SPLIT_RAISES] = {
        "FlattenSplitRaises", SHC_TORCH_SET(SHC_TORCH_2_12),
        "torch 2.12 raises \"Shard(dim=D) through Split(Flatten(...), G) is not supported yet "
        "for non-first flatten dims.\" where a plain Shard on a non-first dim of a flatten "
        "reaches a split of it; 2.13 replicates that mesh dim first "
        "(strict_replicate_fallback)",
        "2.12.1 _ops/_view_ops.py:1119-1126; 2.13.0 _ops/_view_ops.py:985-1001"},
    [SHC_TC_SQUEEZE_NOT_STRICT] = {
        "SqueezeNotStrict", SHC_TORCH_UP_TO(SHC_TORCH_2_12),
        "torch 2.13 registers the squeeze ops with strict_view=True, so a squeeze the rule "
        "cannot follow raises; 2.11 and 2.12 register them without it",
        "2.11.0 _ops/_view_ops.py:760-766; 2.12.1 _ops/_view_ops.py:1316-1330; 2.13.0 "
        "_ops/_view_ops.py:1435-1459"},
    [SHC_TC_MESH_LAYOUT_LEGACY] = {
        "MeshLayoutLegacy", SHC_TORCH_UP_TO(SHC_TORCH_2_12),
        "torch 2.13 keeps each DeviceMesh dim as a _FlatLayout, normalised when made (coalesced, "
        "(1):(0) written ()) and checked by check_orthogonal; 2.11 and 2.12 keep a "
        "_MeshLayout(Layout) as given, coalesced only on request, and check it by "
        "check_non_overlap (the set of its ranks)",
        "2.12.1 _mesh_layout.py:26-272 (class _MeshLayout(Layout), check_non_overlap); 2.13.0 "
        "_mesh_layout.py:29-268 (class _FlatLayout, check_orthogonal)"},
    [SHC_TC_FIXTURE] = {
        "FixtureRule", SHC_TORCH_SET(SHC_TORCH_FIXTURE),
        "the fictitious release 9.99 of check_release_rows.c raises for a Shard -> "
        "_StridedShard step (comm \"unsupported\") where 2.15 goes through Replicate",
        "none: a test fixture"},
};
_Static_assert(sizeof CHANGES / sizeof CHANGES[0] == SHC_TC_SLOTS,
               "one change row per shc_torch_change slot");

const shc_torch_release_info *shc_torch_release_get(shc_torch_release r)
{
    r = shc_torch_norm(r);
    if ((unsigned)r >= SHC_TORCH_SLOTS || r == SHC_TORCH_PINNED)
        return NULL;
    assert(RELEASES[r].name && RELEASES[r].patch); /* no slot left without its row */
    return &RELEASES[r];
}

shc_torch_release shc_torch_norm(shc_torch_release r)
{
    return r == SHC_TORCH_PINNED ? SHC_TORCH_PIN_RELEASE : r;
}

const char *shc_torch_release_name(shc_torch_release r)
{
    const shc_torch_release_info *i = shc_torch_release_get(r);
    return i ? i->name : "?";
}

void shc_torch_supported(char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int r = SHC_TORCH_FIRST; r < SHC_TORCH_RELEASE_END && k < n; r++)
        k += (size_t)snprintf(buf + k, n - k, "%s%s (%s%s)", r > SHC_TORCH_FIRST ? ", " : "",
                              RELEASES[r].name, RELEASES[r].patch,
                              r == SHC_TORCH_PIN_RELEASE ? ", the pinned default" : "");
}

int shc_torch_release_parse(const char *s, shc_torch_release *out, shc_err *e)
{
    for (int r = SHC_TORCH_FIRST; s && r < SHC_TORCH_RELEASE_END; r++)
        if (!strcmp(s, RELEASES[r].name) || !strcmp(s, RELEASES[r].patch)) {
            *out = (shc_torch_release)r;
            return SHC_OK;
        }
    char list[256];
    shc_torch_supported(list, sizeof list);
    const char *why = !s || !*s ? "empty"
                      : strchr(s, '+') ? "a local version tag (+...) is not a release"
                      : "not a supported release";
    return shc_fail(e, SHC_EINVAL, "torch version '%s': %s; supported: %s (a minor, or its "
                    "newest patch)", s ? s : "", why, list);
}

const shc_torch_change_info *shc_torch_change_get(shc_torch_change c)
{
    if ((unsigned)c >= SHC_TC_SLOTS)
        return NULL;
    assert(CHANGES[c].flag && CHANGES[c].releases && CHANGES[c].what && CHANGES[c].where);
    return &CHANGES[c];
}

bool shc_torch_has(shc_torch_release r, shc_torch_change c)
{
    if (r == SHC_TORCH_FIXTURE && c < SHC_TC_COUNT) /* the newest release plus its own row */
        r = SHC_TORCH_RELEASE_END - 1;
    return (unsigned)c < SHC_TC_SLOTS && (CHANGES[c].releases & SHC_TORCH_SET(shc_torch_norm(r)));
}

bool shc_torch_ask(shc_torch_release r, shc_torch_change c, uint32_t *asked)
{
    if (asked && (unsigned)c < SHC_TC_SLOTS)
        *asked |= 1u << c;
    return shc_torch_has(r, c);
}

uint32_t shc_torch_differs(shc_torch_release r)
{
    uint32_t d = 0;
    for (int c = 0; c < SHC_TC_SLOTS; c++)
        if (shc_torch_has(r, (shc_torch_change)c) != shc_torch_has(SHC_TORCH_PINNED,
                                                                   (shc_torch_change)c))
            d |= 1u << c;
    return d;
}

int shc_torch_check_rows(shc_err *e)
{
    for (int c = 0; c < SHC_TC_COUNT; c++) {
        const shc_torch_change_info *ci = &CHANGES[c];
        if (!ci->flag || !*ci->flag || !ci->what || !ci->where)
            return shc_fail(e, SHC_EINTERNAL, "torch change row %d: no flag, text or source", c);
        if (!ci->releases || (ci->releases & ~(uint32_t)SHC_TORCH_ALL_RELEASES))
            return shc_fail(e, SHC_EINTERNAL, "torch change row %d (%s): releases 0x%x name "
                            "no release or one outside 2.11-2.15 (SHC_TORCH_ALL_RELEASES 0x%x)",
                            c, ci->flag, ci->releases, (unsigned)SHC_TORCH_ALL_RELEASES);
        for (int d = 0; d < c; d++)
            if (!strcmp(CHANGES[d].flag, ci->flag))
                return shc_fail(e, SHC_EINTERNAL, "torch change rows %d and %d share the flag "
                                "%s", d, c, ci->flag);
    }
    return SHC_OK;
}

int shc_torch_change_by_flag(const char *flag)
{
    for (int c = 0; flag && c < SHC_TC_COUNT; c++)
        if (!strcmp(CHANGES[c].flag, flag))
            return c;
    return -1;
}

void shc_torch_set_format(uint32_t set, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int r = SHC_TORCH_FIRST; r < SHC_TORCH_SLOTS && k < n; r++)
        if (set & SHC_TORCH_SET(r))
            k += (size_t)snprintf(buf + k, n - k, "%s%s", k ? ", " : "", RELEASES[r].name);
}
