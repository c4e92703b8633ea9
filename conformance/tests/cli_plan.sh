#!/bin/sh
# cli_plan.sh — `shardcheck plan` and `shardcheck audit plan`: the issue's
# acceptance plan (torch 2.13 prints these 5 steps and 3 collectives), the
# JSON shape of docs/DESIGN.md, and every kind of bad input (exit 2, message
# naming what and where).  Expected text is torch's output, not lib/'s.
. "$(dirname "$0")/testlib.sh"
P="$S plan --mesh 2x2x2 --shape 8,8,8 --src S(0),S(0),S(0) --dst S(1),S(1),S(1)"
expect_exit "greedy 2x2x2 plan: 5 steps, 3 collectives" 0 "greedy, 5 steps, 3 collectives" \
  $P --planner greedy
expect_exit "greedy trace is torch's stringify" 0 \
  'trace: S\(0\)\[0\]S\(0\)\[1\]S\(0\)\[2\]->S\(0\)\[0\]S\(0\)\[1\]R->S\(0\)RR->S\(1\)RR->S\(1\)\[0\]S\(1\)\[1\]R->S\(1\)\[0\]S\(1\)\[1\]S\(1\)\[2\]$' \
  $P --planner greedy
expect_exit "all 8 ranks share one plan" 0 "ranks 0,1,2,3,4,5,6,7:" $P
expect_exit "step 2 is torch's all-to-all on mesh dim 0" 0 \
  "2 +0 +S\(0\) +S\(1\) +8,8,8 +all_to_all" $P --planner greedy
expect_exit "graph planner on a CPU-like topology: 6 steps" 0 "graph \(min-cost\), 6 steps" \
  $P --planner graph --devices-per-host 1
expect_exit "--json has the docs/DESIGN.md fields" 0 \
  '"rank":0,.*"steps":\[\{"mesh_dim":2,"mesh_dims":\[2\],"src":"S\(0\)","dst":"R","logical_shape":\[2,8,8\],"comm":"all_gather"\}' \
  $P --planner greedy --json --rank 0
expect_exit "a shard order selects the min-cost planner" 0 "graph \(min-cost\)" \
  $S plan --mesh 2x2 --shape 8,8 --src 'S(0)[1]S(0)[0]' --dst R,S\(1\)
expect_exit "merged step over a flattened mesh" 0 'trace: S\(0\)\[0\]S\(0\)\[1\]-->RR' \
  $S plan --mesh 2x2 --shape 5,4 --src S\(0\),S\(0\) --dst R,R --flatten 0+1
expect_exit "undecodable _StridedShard falls back to greedy" 0 "fallback: _StridedShard" \
  $S plan --mesh 2x2 --shape 8,8 --src '_S(0, 3),S(0)' --dst R,S\(1\)
# audit
expect_exit "audit: merged uneven all-gather is a finding" 1 "MergedUnevenAllGather" \
  $S audit plan --mesh 2x2 --shape 5,4 --src S\(0\),S\(0\) --dst R,R --flatten 0+1
expect_exit "audit: rank-divergent reduce-scatter merge" 1 "RankDivergentPlan" \
  $S audit plan --mesh 2x2x2 --shape 9,8 --src 'S(0),P(sum),P(sum)' --dst 'S(0),S(0),S(0)' --flatten 1+2 --planner graph
expect_exit "audit: even shapes give no finding" 0 "^0 findings" \
  $S audit plan --mesh 2x2 --shape 8,4 --src S\(0\),S\(0\) --dst R,R --flatten 0+1
expect_exit "audit --json" 1 '"findings":\[\{"code":"UnsupportedStep"' \
  $S audit plan --mesh 4 --shape 8 --src 'S(0)' --dst 'P(sum)' --json
# bad input: exit 2, the message names what and where
expect_exit "mixed partial ops" 2 "src: Mixed Partial reduce types" \
  $S plan --mesh 2x2 --shape 8,8 --src 'P(sum),P(max)' --dst R,R
expect_exit "placement count vs mesh" 2 "dst: 1 placements for a 2-d mesh" \
  $S plan --mesh 2x2 --shape 8,8 --src R,R --dst 'S(0)'
expect_exit "mismatched src and dst meshes" 2 "dst: 3 placements for a 2-d mesh" \
  $S plan --mesh 2x2 --shape 8,8 --src R,R --dst 'S(0),R,R'
expect_exit "shard dim beyond the tensor" 2 "dst: placement 1 'S\(2\)' shards dim 2 of a 2-d tensor" \
  $S plan --mesh 2x2 --shape 8,8 --src R,R --dst 'R,S(2)'
expect_exit "shard order with _StridedShard" 2 "doesn't allow specify shard_order" \
  $S plan --mesh 2x2 --shape 8,8 --src '_S(0, 2)[1]S(0)[0]' --dst R,R
expect_exit "shard order index out of range" 2 "order index \[2\] out of range" \
  $S plan --mesh 2x2 --shape 8,8 --src 'S(0)[2]S(0)[0]' --dst R,R
expect_exit "unknown planner" 2 "planner 'fast': expected auto, greedy or graph" \
  $P --planner fast
expect_exit "unknown dtype" 2 "dtype 'float13': unknown" $P --dtype float13
# One dtype table (lib/core/dtype.c): torch's aliases work for plan as for rng.
# (the graph planner prices them; the greedy one has no cost model and refuses --dtype)
expect_exit "dtype alias long prices as int64" 0 "graph" $P --dtype long --planner graph
expect_exit "size-only dtype complex64" 0 "graph" $P --dtype torch.cfloat --planner graph
expect_exit "--dtype with the greedy planner: not used, refused by name" 2 \
  "^shardcheck plan: --dtype: not used by the greedy planner" $P --dtype long
expect_exit "bad --flatten" 2 "--flatten '0': each set needs 2\+ mesh dims" $P --flatten 0
expect_exit "missing --dst" 2 "--shape, --src and --dst are required" \
  $S plan --mesh 2x2 --shape 8,8 --src R,R
expect_exit "rank outside the mesh" 2 "--rank 9: not in the mesh" $P --rank 9
# The planner is release-dependent (issue 34 item 2): plan and audit plan judge against the
# release of --torch-version or SHARDCHECK_TORCH_VERSION, and say which.  torch 2.14 and 2.15
# plan S(0) -> P(sum) as one local step that embeds the shard in zeros
# (_redistribute.py's Shard -> Partial branch, added in 2.14); 2.13 cannot execute it.
SP="$S plan --mesh 4 --shape 8 --src S(0) --dst P(sum)"
expect_exit "plan names the release it answers for (the pinned one)" 0 \
  "^redistribute plan: mesh 4, shape \[8\], S\(0\) -> P\(sum\) \(torch 2.13\)$" $SP
expect_exit "2.13: S(0) -> P(sum) is a step execution rejects" 0 "0 +0 +S\(0\) +P\(sum\) +8 +unsupported$" $SP
expect_exit "--torch-version 2.15: one local zero-fill step" 0 \
  "0 +0 +S\(0\) +P\(sum\) +8 +zero_fill$" $SP --torch-version 2.15
expect_exit "--torch-version 2.15 --json says the release" 0 \
  '^\{"torch":"2.15","ranks":\[\{"rank":0,.*"comm":"zero_fill"' $SP --torch-version 2.15 --json
SHARDCHECK_TORCH_VERSION=2.14; export SHARDCHECK_TORCH_VERSION
expect_exit "SHARDCHECK_TORCH_VERSION=2.14 is not ignored" 0 "zero_fill" $SP
expect_exit "audit plan under 2.14: no UnsupportedStep" 0 "^0 findings" \
  $S audit plan --mesh 4 --shape 8 --src 'S(0)' --dst 'P(sum)'
unset SHARDCHECK_TORCH_VERSION
expect_exit "audit plan under 2.13: UnsupportedStep" 1 "UnsupportedStep" \
  $S audit plan --mesh 4 --shape 8 --src 'S(0)' --dst 'P(sum)' --torch-version 2.13
expect_exit "unknown release: exit 2, the supported ones listed" 2 \
  "torch version '9.9': not a supported release; supported: 2.11" $SP --torch-version 9.9
tap_done
