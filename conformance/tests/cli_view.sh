#!/bin/sh
# cli_view.sh — `shardcheck view`: torch 2.13's view-op sharding rule and the verdict on it
# (issue 35), and 2.11's and 2.12's where they differ (--torch-version).  Expected values are
# derived by hand from each release's _view_ops.py and the torch.chunk rule (each derivation
# beside its case), and every error path.
. "$(dirname "$0")/testlib.sh"

# pytorch#179502: [12,8] S(1) on 4, view(16,6).  view_groups makes one group
# Split(Flatten(0,1),(16,6)); the second piece re-analyses the flatten and demotes the shard
# on the non-first dim 1, so torch 2.13 replicates first: R -> R, every rank [12,8] -> [16,6].
R4='{"rank":%d,"inputLocal":[12,8],"outputLocal":[16,6],"status":"correct","resultLocal":[16,6]}'
expect_out "view: pytorch#179502 is redistributed in 2.13 (json)" \
"{\"op\":\"view(16, 6)\",\"torch\":\"2.13\",\"inputShape\":[12,8],\"outputShape\":[16,6],\"mesh\":\"4\",\"placements\":\"S(1)\",\"rule\":{\"raises\":null,\"inputTarget\":\"R\",\"output\":\"R\",\"redistribute\":true},\"verdict\":\"correct\",\"firstWrongRank\":null,\"ranks\":[$(printf "$R4,$R4,$R4,$R4" 0 1 2 3)]}" \
  $S view --mesh 4 --placements 'S(1)' --shape 12,8 --op view:16,6 --json
# flatten of [2,3,4] S(1) on 3: a shard of a non-first flattened dim becomes _StridedShard
# with split factor = the sizes before it (2); each rank holds [2,1,4] -> 8 elements.
expect_exit "view: flatten gives _S(0, 2)" 0 "no redistribution, output _S\(0, 2\)" \
  $S view --mesh 3 --placements 'S(1)' --shape 2,3,4 --op flatten
expect_exit "view: flatten rank 2 holds [2,1,4] -> [8]" 0 "^2 +\[2,1,4\].\[8\].correct" \
  $S view --mesh 3 --placements 'S(1)' --shape 2,3,4 --op flatten
# transpose swaps the dims the shards name; unsqueeze(0) moves S(0) to S(1).
expect_exit "view: transpose S(0),S(1) -> S(1),S(0)" 0 "no redistribution, output S\(1\),S\(0\)" \
  $S view --mesh 2x2 --placements 'S(0),S(1)' --shape 4,6 --op transpose:0,1
expect_exit "view: unsqueeze(0) S(0) -> S(1)" 0 "no redistribution, output S\(1\)$" \
  $S view --mesh 2 --placements 'S(0)' --shape 4,6 --op unsqueeze:0
# [6,4] S(0),S(0) on 2x2, view(24): torch keeps S(0),S(0); rows 6 -> 3 -> (2,1), so rank 0
# holds 8 elements while the output spec's local shape is 24 -> 12 -> [6]: the local view
# raises (docs/findings/view_nested_shard_local_error.py).
expect_exit "view: nested uneven shard -> local error on rank 0" 0 \
  "verdict: local-error \(first at rank 0\)" \
  $S view --mesh 2x2 --placements 'S(0),S(0)' --shape 6,4 --op view:24
expect_exit "view: the local error is torch's" 0 \
  "^0 .*RuntimeError: shape '\[6\]' is invalid for input of size 8" \
  $S view --mesh 2x2 --placements 'S(0),S(0)' --shape 6,4 --op view:24
# squeeze of a sharded singleton dim: the dim leaves the map, strict view raises.
expect_exit "view: squeeze of a sharded dim raises" 0 \
  "raises RuntimeError: This operation would remove or reshape sharded dimension 1" \
  $S view --mesh 4 --placements 'S(1)' --shape 4,1,6 --op squeeze:1
# aten.reshape.default's own rule (not strict): [12,8] S(0) on 4, reshape(3,32).  The first
# piece sets "3 % 4 != 0: replicate", the second re-analyses the flatten (12 % 4 == 0) and
# allows it again: S(0) stays, and S(0) of [3,32] on 4 is [1,32] while ranks hold [3,8].
expect_exit "view: aten.reshape's rule keeps an unshardable S(0)" 0 \
  "verdict: local-error \(first at rank 0\)" \
  $S view --mesh 4 --placements 'S(0)' --shape 12,8 --op reshape:3,32
# [12,8] _S(0, 3) on 2 (what flatten(0,1) of [3,4,8] S(1) gives), view(2,48): torch keeps
# _S(1, 3).  Rank 0 holds rows 0,1,4,5,8,9; its local [2,24] element 8 is global row 1, flat 8
# = output (0,8).  _S(1, 3) of 48 columns: pieces of 16, each halved: rank 0 holds columns
# 0-7, 16-23, 32-39, so its local column 8 should be column 16
# (docs/findings/view_strided_wrong_data.py).
expect_exit "view: _StridedShard view gives wrong data" 0 "verdict: wrong \(first at rank 0\)" \
  $S view --mesh 2 --placements '_S(0, 3)' --shape 12,8 --op view:2,48
expect_exit "view: the first wrong element of rank 0" 0 \
  "^0 .*wrong: local element 8 holds \[0,8\], should hold \[0,16\]" \
  $S view --mesh 2 --placements '_S(0, 3)' --shape 12,8 --op view:2,48
expect_exit "view --help" 0 "usage: shardcheck view" $S view --help

# Bad input: ATen's refusal on a plain tensor, named, exit 2.
expect_exit "view: -1 twice" 2 "--op: RuntimeError: only one dimension can be inferred" \
  $S view --mesh 2 --placements 'S(0)' --shape 12,8 --op view:-1,-1
expect_exit "view: sizes do not match" 2 "shape '\[16, 5\]' is invalid for input of size 96" \
  $S view --mesh 2 --placements 'S(0)' --shape 12,8 --op view:16,5
expect_exit "view: negative size" 2 "invalid shape dimension -2 at index 0 of shape \[-2, 48\]" \
  $S view --mesh 2 --placements 'S(0)' --shape 12,8 --op view:-2,48
expect_exit "view: dim out of range" 2 \
  "IndexError: Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)" \
  $S view --mesh 2 --placements 'S(0)' --shape 12,8 --op transpose:0,2
expect_exit "view: permute duplicate" 2 "permute\(\): duplicate dims are not allowed" \
  $S view --mesh 2 --placements 'S(0)' --shape 12,8 --op permute:0,0
expect_exit "view: flatten start after end" 2 "start_dim cannot come after end_dim" \
  $S view --mesh 2 --placements 'S(0)' --shape 2,3,4 --op flatten:2,1
expect_exit "view: unflatten sizes" 2 "Provided sizes \[3, 3\] don.t multiply up to the size of dim 1 \(8\)" \
  $S view --mesh 2 --placements 'S(0)' --shape 12,8 --op unflatten:1:3,3
expect_exit "view: overflowing view sizes" 2 "overflows int64" \
  $S view --mesh 2 --placements 'S(0)' --shape 12,8 --op view:9223372036854775807,2
expect_exit "view: empty tensor not modelled (exit 77)" 77 "view of an empty tensor is not modelled" \
  $S view --mesh 2 --placements 'S(0)' --shape 0,8 --op view:8,0
expect_exit "view: unknown op" 2 "--op: unknown op \"expand\"" \
  $S view --mesh 2 --placements 'S(0)' --shape 12,8 --op expand:12,8
expect_exit "view: needs --op" 2 "--op are required" $S view --mesh 2 --placements 'S(0)' --shape 4
expect_exit "view: shard dim out of range" 2 "shard dim 2 out of range" \
  $S view --mesh 2 --placements 'S(2)' --shape 12,8 --op view:96
# ---- other releases (docs/torch-releases.md's view rows; each from that release's source) ----
# FlattenSplitRaises: 2.12 leaves pytorch#179502's shard on the non-first flattened dim to the
# rewrite, which raises (2.12.1 _ops/_view_ops.py:1119-1126; group_shape printed as a tuple).
expect_exit "view 2.12: pytorch#179502 raises for a non-first flatten dim" 0 \
  "^torch 2.12 rule: raises RuntimeError: Shard\(dim=1\) through Split\(Flatten\(\.\.\.\), \(16, 6\)\) is not supported yet for non-first flatten dims\.$" \
  $S view --mesh 4 --placements 'S(1)' --shape 12,8 --op view:16,6 --torch-version 2.12
# ViewRuleLegacy: 2.11's flatten branch raises for a strict op on a sharded non-first dim,
# built with two arguments, so str() is the tuple (2.11.0 _ops/_view_ops.py:577-581).
expect_exit "view 2.11: the same query raises 2.11's two-argument RuntimeError" 0 \
  "^torch 2.11 rule: raises RuntimeError: \('Attempted to flatten multiple dimensions, with dimension 1 being sharded\. ', 'It cannot be performed without redistribution, which is disallowed by the current operator\.'\)$" \
  $S view --mesh 4 --placements 'S(1)' --shape 12,8 --op view:16,6 --torch-version 2.11
# 2.11's uneven-flatten message names the position in the flatten (i), not the dim (:590-596):
# [5,4] _S(0, 2) on 3, view(10,2): one group Split(Flatten(0,1)); 5 % 3 != 0 on dim 0.
expect_exit "view 2.11: an uneven flatten names position 0" 0 \
  "raises RuntimeError: Attempted to flatten unevenly sharded dimension 0, which would require resharding the input\." \
  $S view --mesh 3 --placements '_S(0, 2)' --shape 5,4 --op view:10,2 --torch-version 2.11
# ViewStrictReplicates: [4,1,6] S(1) on 2, view(4,6): dim 1 leaves the map, so the shard
# cannot stay; 2.13 raises for the strict op (:801-817), 2.12 replicates it (:717-725).
expect_exit "view 2.13: a strict view that drops a sharded dim raises" 0 \
  "raises RuntimeError: This operation would remove or reshape sharded dimension 1" \
  $S view --mesh 2 --placements 'S(1)' --shape 4,1,6 --op view:4,6
expect_exit "view 2.12: the same view replicates the input" 0 \
  "^torch 2.12 rule: redistribute input to R, output R$" \
  $S view --mesh 2 --placements 'S(1)' --shape 4,1,6 --op view:4,6 --torch-version 2.12
# SqueezeNotStrict: 2.12 registers squeeze without strict_view (2.12.1 :1316-1330): replicate.
expect_exit "view 2.12: squeeze of a sharded dim replicates (not strict)" 0 \
  "^torch 2.12 rule: redistribute input to R, output R$" \
  env SHARDCHECK_TORCH_VERSION=2.12 $S view --mesh 2 --placements 'S(1)' --shape 4,1,6 --op squeeze
# 2.11: squeeze.dims has no strategy (only squeeze.default and squeeze.dim, :760-766) ...
expect_exit "view 2.11: squeeze([1]) has no sharding strategy" 0 \
  "^torch 2.11 rule: raises NotImplementedError: Operator aten\.squeeze\.dims does not have a sharding strategy registered\.$" \
  $S view --mesh 4 --placements 'S(0)' --shape 4,1,6 --op squeeze:1 --torch-version 2.11
# ... and squeeze() runs on the local tensor: S(0) of [4,1,6] on 4 is [1,1,6] per rank, whose
# squeeze() is [6], where the rank's slice of the [4,6] output is [1,6].
expect_exit "view 2.11: squeeze() drops a rank's own size-1 dim" 0 \
  "^0 +\[1,1,6\].\[1,6\].wrong-shape: the local op gives \[6\]$" \
  $S view --mesh 4 --placements 'S(0)' --shape 4,1,6 --op squeeze --torch-version 2.11
expect_exit "view: an unknown release is refused, listing the supported" 2 \
  "torch version '2.10': not a supported release" \
  $S view --mesh 4 --placements 'S(0)' --shape 4,1,6 --op squeeze --torch-version 2.10
tap_done
