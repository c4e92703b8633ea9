#!/bin/sh
# cli_defects.sh — regression tests of issue 27's CLI defects, each with its exit code and
# message (or its answer) asserted; every one failed before its fix.  The generic rule they
# belong to ("every option acts or is refused by name") is walked by cli_options.sh.
. "$(dirname "$0")/testlib.sh"
use_tmpdir

# N11: the graph planner over every rank of a 256-rank mesh searched once per rank (0.5 s each
# here, past 2 minutes in all); the search does not depend on the rank, so it runs once.  Not a
# timing: the limit only tells a hang from an answer.
out=$(timeout 60 $S plan --mesh 2x2x2x2x2x2x2x2 --shape 16,16 --src 'S(0),S(1),R,R,R,R,R,R' \
      --dst 'R,R,R,R,R,R,S(1),S(0)' --planner graph 2>&1); rc=$?
if [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q '^ranks 0,1,2,.*,254,255:$' &&
   printf '%s\n' "$out" | grep -q 'planner graph (min-cost), 4 steps'; then
  tap_ok "plan --planner graph over all 256 ranks: one plan for every rank"
else tap_not_ok "plan --planner graph over all 256 ranks" "exit $rc" "$(printf '%s' "$out" | head -c 300)"; fi
out=$(timeout 60 $S audit plan --mesh 2x2x2x2x2x2x2x2 --shape 16,16 --src 'S(0),S(1),R,R,R,R,R,R' \
      --dst 'R,R,R,R,R,R,S(1),S(0)' --planner graph 2>&1); rc=$?
if [ $rc -eq 0 ] && [ "$out" = "0 findings" ]; then tap_ok "audit plan --planner graph over all 256 ranks"
else tap_not_ok "audit plan --planner graph over all 256 ranks" "exit $rc" "$(printf '%s' "$out" | head -c 300)"; fi

# N5: offsets --op and policies --op were parsed and ignored.  The op table decides the policy,
# as audit rng does: exponential_ is untracked (each rank's own generator, every shard from
# offset 0: windows [0, 2) on both ranks), uniform_ tracked (the tracker's windows).
L="--mesh 2 --placements S(0) --shape 4"
expect_exit "audit rng --op exponential_: untracked, [0, 2) on both ranks" 0 \
  "UntrackedOpSharedDraws ranks 0 and 1 \(distinct shards\): windows \[0, 2\) and \[0, 2\)" \
  $S audit rng $L --op exponential_
expect_exit "offsets --op exponential_: the same windows (start 0, 2 elements, both ranks)" 0 \
  '"policy":"torch-untracked".*"op":\{"name":"exponential_","dispatch":"untracked"\}.*"rank":0,[^}]*"local_numel":"2","seed":"0","start_offset":"0".*"rank":1,[^}]*"local_numel":"2","seed":"0","start_offset":"0"' \
  $S offsets $L --op exponential_ --json
expect_exit "offsets --op uniform_: tracked, rank 1 starts at 4" 0 \
  '"policy":"torch-offset".*"rank":1,[^}]*"start_offset":"4"' $S offsets $L --op uniform_ --json
expect_exit "offsets --op bogus: exit 2 naming it" 2 "^shardcheck offsets: --op: unknown random op 'bogus' \(uniform_ " \
  $S offsets $L --op bogus
expect_exit "offsets --op on a Partial input torch rejects: torch's message" 2 \
  "--op exponential_: aten.exponential_.default: in-place operations that require placement changes" \
  $S offsets --mesh 2 --placements 'P(sum)' --shape 4 --op exponential_
expect_exit "offsets --op random_ (no sharding strategy): exit 2" 2 \
  "--op random_: torch 2.13 rejects it on a DTensor: Operator aten.random_.default does not have" \
  $S offsets $L --op random_
expect_exit "offsets --op rand (no DTensor): exit 2" 2 "--op rand: takes no DTensor" $S offsets $L --op rand
expect_exit "offsets --op with --policy: exit 2" 2 "--op: and --policy exclude each other" \
  $S offsets $L --op uniform_ --policy megatron-tp
expect_exit "policies --op bogus: exit 2 naming it" 2 "^shardcheck policies: --op: unknown random op 'bogus'" \
  $S policies --op bogus
out=$($S policies --op exponential_ 2>&1); rc=$?
if [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q '^torch 2.13 running exponential_ (untracked: policy torch-untracked)$' &&
   [ "$(printf '%s\n' "$out" | grep -c '^torch-')" = 1 ] &&
   printf '%s\n' "$out" | grep -Eq '^torch-untracked .*rejects 1$'; then
  tap_ok "policies --op exponential_: torch's row for the op, the Partial layout rejected"
else tap_not_ok "policies --op exponential_" "exit $rc" "$(printf '%s' "$out" | head -c 600)"; fi
out=$($S policies --policy megatron-tp --json 2>&1); rc=$?
if [ $rc -eq 0 ] && printf '%s' "$out" | grep -q '"policies":\[{"name":"megatron-tp"' &&
   [ "$(printf '%s' "$out" | grep -o '"summary"' | wc -l)" = 1 ]; then
  tap_ok "policies --policy megatron-tp: that row only"
else tap_not_ok "policies --policy megatron-tp: that row only" "exit $rc" "$(printf '%s' "$out" | head -c 300)"; fi
expect_exit "policies --offset: not used, refused by name" 2 "^shardcheck policies: --offset: not used by policies" \
  $S policies --offset 4
expect_exit "policies --ranks: a layout option, refused" 2 "^shardcheck policies: takes no layout options" \
  $S policies --ranks 0
expect_exit "offsets --gpu for torch-offset: refused by name" 2 \
  "^shardcheck offsets: --gpu: not used with --policy torch-offset \(its offsets do not depend on the GPU\)" \
  $S offsets $L --gpu t4
for o in "--seed 3" "--offset 4" "--gpu t4" "--rank 1"; do
  # shellcheck disable=SC2086
  expect_exit "audit rng $o: refused by name" 2 "^shardcheck audit rng: ${o%% *}: not used by audit rng" \
    $S audit rng $L $o
done

# Seeds, one range everywhere: decimal 0..2^64-1 (torch's initial_seed()); -1 wrapped to
# 2^64-1 in offsets while 2^64-1 itself was refused.
for c in "offsets $L" "policies"; do
  # shellcheck disable=SC2086
  expect_exit "${c%% *} --seed -1: refused, saying how torch stores it" 2 \
    "--seed: '-1' is not a seed: a decimal integer in 0..18446744073709551615" $S $c --seed -1
done
expect_exit "offsets --seed 2^64-1 is accepted" 0 '"seed":"18446744073709551615"' \
  $S offsets $L --seed 18446744073709551615 --json --policy megatron-dp
expect_exit "policies --seed 2^64-1 is accepted" 0 '"seed":"18446744073709551615"' \
  $S policies --seed 18446744073709551615 --json --policy megatron-dp

tap_done
