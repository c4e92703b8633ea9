#!/bin/sh
# cli_offsets.sh — `shardcheck offsets`, `audit rng` and `policies`: the issue's
# worked examples (values derived by hand from torch 2.13's _random.py, see
# check_offsets.c) and every bad-input path, each asserting its message.
. "$(dirname "$0")/testlib.sh"
EX="--mesh 2x2x2 --placements S(1),R,S(0) --shape 8,16"

# 1. torch 2.13 start increments 0,64,0,64,32,96,32,96 and end 128, one rank at a time.
want="0 64 0 64 32 96 32 96"
got=""
for r in 0 1 2 3 4 5 6 7; do
  v=$($S offsets $EX --rank $r --json | sed -n 's/.*"start_incr":"\([0-9]*\)".*/\1/p')
  got="$got${got:+ }$v"
done
if [ "$got" = "$want" ]; then tap_ok "offsets: docstring example start increments"
else tap_not_ok "offsets: docstring example start increments" "got '$got'" "want '$want'"; fi
expect_exit "offsets: end increment 128 on every rank" 0 '"end_incr":"128".*"end_incr":"128"' \
  $S offsets $EX --json
expect_exit "offsets: --offset moves start and post" 0 '"start_offset":"1064","post_offset":"1128"' \
  $S offsets $EX --rank 1 --offset 1000 --json
expect_exit "offsets: text table" 0 "policy torch-offset" $S offsets $EX
expect_exit "offsets: the vendor port diverges (rank 1 starts at 4, ends at 8)" 0 \
  '"start_offset":"4","post_offset":"8"' $S offsets $EX --policy hyper-parallel --rank 1 --json
expect_exit "offsets: megatron tp seed = seed + 2718 + tp_rank" 0 '"seed":"3719"' \
  $S offsets --mesh 2x2 --placements R,S\(0\) --shape 8,8 --policy megatron-tp --seed 1000 --rank 3 --json

# rank 0 sits at coord (1,1): shard 3; first shard = chunk(16 global, 2) = 8, start 3*8 = 24
expect_exit "offsets: a rank map moves shards to other ranks" 0 \
  '"rank":0,"coord":\[1,1\],"shard_linear_index":3,"start_incr":"24"' \
  $S offsets --mesh 2x2 --ranks 3,2,1,0 --placements 'S(0),S(0)' --shape 16 --rank 0 --json

# 2. audit: findings are reported with exit 0.
expect_exit "audit: tiny tensor, ranks 1 and 2 start at 4" 0 \
  "OffsetSameStart +ranks 1 and 2 .*windows \[4, 5\) and \[4, 5\)" \
  $S audit rng --mesh 4 --placements 'S(0)' --shape 3
expect_exit "audit: nested S(0),S(0) overruns end_incr 8" 0 \
  "OffsetOverrun +rank 2 window \[8, 10\) runs past end_incr 8" \
  $S audit rng --mesh 2x2 --placements 'S(0),S(0)' --shape 8
expect_exit "audit: rank 3 spills [12, 14) into the next op" 0 \
  "rank 3 window \[12, 14\) runs past end_incr 8: \[12, 14\) belongs to the next op" \
  $S audit rng --mesh 2x2 --placements 'S(0),S(0)' --shape 8
expect_exit "audit: --json counts" 0 '"findings":2,"kinds":\["OffsetOverrun"\]' \
  $S audit rng --mesh 2x2 --placements 'S(0),S(0)' --shape 8 --json
expect_exit "audit: the docstring layout is clean" 0 "^0 findings|0 findings" \
  $S audit rng $EX

# 3. policies: a computed table naming every policy.
expect_exit "policies: table" 0 "single-device-equal +yes +yes +yes" $S policies
expect_exit "policies: another GPU profile" 0 "GPU profile t4" $S policies --gpu t4
expect_exit "policies: --json" 0 '"name":"hyper-parallel".*"torch-equal":\{"holds":false' \
  $S policies --json

# 4. bad input: exit 2, message names what and where.
expect_exit "bad: placements not fitting the mesh" 2 "placements: 1 given for a 2-d mesh" \
  $S offsets --mesh 2x2 --placements 'S(0)' --shape 8
expect_exit "bad: shard dim beyond the tensor" 2 "shard dim 1 out of range for a 1-d tensor" \
  $S offsets --mesh 4 --placements 'S(1)' --shape 8
expect_exit "bad: negative size" 2 "negative size" \
  $S offsets --mesh 4 --placements 'S(0)' --shape 8,-3
expect_exit "bad: overflowing size" 2 "--shape .*overflow" \
  $S offsets --mesh 4 --placements 'S(0)' --shape 4294967296,4294967296
expect_exit "bad: end_incr overflow" 2 "end_incr: rounding .* overflows int64" \
  $S offsets --mesh 2 --placements 'R' --shape 9223372036854775806
expect_exit "bad: start_incr overflow (nested first-shard quirk)" 2 "start_incr .* overflows int64" \
  $S offsets --mesh 4x4 --placements 'S(0),S(0)' --shape 4611686018427387904
expect_exit "bad: unknown policy" 2 "--policy: unknown policy 'tf-stateless' \(known: torch-offset" \
  $S offsets $EX --policy tf-stateless
expect_exit "bad: unknown GPU profile" 2 "--gpu: .*b9000" \
  $S offsets $EX --policy single-device-equal --gpu b9000
expect_exit "bad: vendor port cannot index shard dim 1 of a 1-d mesh" 77 "IndexError" \
  $S offsets --mesh 4 --placements 'S(1)' --shape 8,16 --policy hyper-parallel
expect_exit "bad: missing --mesh" 2 "--mesh is required" $S offsets --placements R --shape 8
expect_exit "bad: missing --shape" 2 "--shape is required" $S offsets --mesh 2 --placements R
expect_exit "bad: rank not in the mesh" 2 "--rank: rank 9 is not in the mesh" $S offsets $EX --rank 9
expect_exit "bad: unparsable placement" 2 "--placements 'Q\(0\)'" \
  $S offsets --mesh 2 --placements 'Q(0)' --shape 8
expect_exit "bad: negative --offset" 2 "--offset: -4 is negative" $S offsets $EX --offset -4
expect_exit "bad: stray argument" 2 "unexpected argument 'extra'" $S offsets $EX extra
expect_exit "bad: unknown option" 2 "--frob: unknown option" $S offsets $EX --frob
expect_exit "bad: audit rng with another policy" 2 "audit rng checks torch-offset" \
  $S audit rng $EX --policy megatron-tp
expect_exit "bad: audit rng shard dim beyond the tensor" 2 "shard dim 2 out of range" \
  $S audit rng --mesh 2x2 --placements 'S(2),R' --shape 4,4
expect_exit "bad: policies takes no layout" 2 "takes no layout options" $S policies --mesh 2

# The op dimension (lib/offsets/rng_ops.c; issue 14): untracked ops share draws, torch's rejections.
expect_exit "audit rng --op exponential_: every shard draws [0, 32) (H100 check)" 0 \
  "UntrackedOpSharedDraws ranks 0 and 3 .distinct shards.: windows .0, 32. and .0, 32." \
  $S audit rng --mesh 4 --placements 'S(0)' --shape 8,16 --op exponential_
expect_exit "audit rng --op uniform_: tracked, no finding" 0 "0 findings" \
  $S audit rng --mesh 4 --placements 'S(0)' --shape 8,16 --op uniform_
expect_exit "audit rng --op --json names the dispatch" 0 '"dispatch": ?"untracked"' \
  $S audit rng --mesh 4 --placements 'S(0)' --shape 8,16 --op log_normal_ --json
expect_exit "bad: exponential_ on Partial is torch's in-place rejection" 2 \
  "The input has placement .Partial.sum., Shard.dim=1.., but no valid strategy" \
  $S audit rng --mesh 2x2 --placements 'P(sum),S(1)' --shape 5,6 --op exponential_
expect_exit "bad: random_ has no sharding strategy" 2 \
  "Operator aten.random_.from does not have a sharding strategy registered." \
  $S audit rng --mesh 4 --placements 'S(0)' --shape 8 --op random_.from
expect_exit "bad: unknown op" 2 "unknown random op 'uniform'" \
  $S audit rng --mesh 4 --placements 'S(0)' --shape 8 --op uniform
expect_exit "native_dropout on Partial: redistribution not modelled (skipped)" 77 "cost model" \
  $S audit rng --mesh 2x2 --placements 'P(sum),S(1)' --shape 5,6 --op native_dropout
expect_exit "ops lists the table" 0 "exponential_           untracked" $S ops
expect_exit "ops --json carries torch's message" 0 \
  "Operator aten.poisson.default does not have a sharding strategy registered." $S ops --json
expect_exit "bad: ops takes no layout" 2 "--mesh: unknown option" $S ops --mesh 2
tap_done
