#!/bin/sh
# cli_placement.sh — `shardcheck placement`: torch 2.13's answers about placements apart from
# data (issue 34 item 3), and its refusals, each named as torch names it.
#
# Expected values are read off torch 2.13's source (torch/distributed/tensor/), not off
# shardcheck: placement_types.py (_StridedShard derives from torch._C StridedShard, not from
# Shard, so is_shard() is False; its __eq__ needs another _StridedShard), _ops/utils.py:173-276
# (is_tensor_shardable / is_tensor_evenly_shardable: shards counted per tensor dim in mesh-dim
# order, times split_factor for a _StridedShard; a dim past the shape is False),
# _dtensor_spec.py's docstring examples of _convert_shard_order_to_StridedShard and its
# inverse (mesh 4x3x2, tensor dim 0 sharded on mesh dims (2, 0, 1) <-> _S(0, 2),_S(0, 2),S(0)),
# _utils.py compute_local_tensor_info's docstring example (global (4,8,4) stride (32,1,8),
# S(2) on 2 ranks -> local (4,8,2) stride (16,1,8)), read backwards for
# compute_global_tensor_info, and compute_global_tensor_shape (_utils.py:359-432).
# tools/harness/tests/test_placement.py puts the same kinds of query to real torch.
. "$(dirname "$0")/testlib.sh"

P() { "$S" placement "$@"; }

# ---- predicates and equality ----
expect_out "show: S(3) is_shard, _S(3, 1) not; not equal" \
'{"placements":[{"str":"S(3)","repr":"Shard(dim=3)","is_shard":true,"is_shard_like":true,"is_replicate":false,"is_partial":false},{"str":"_S(3, 1)","repr":"_StridedShard(dim=3, sf=1)","is_shard":false,"is_shard_like":true,"is_replicate":false,"is_partial":false}],"equal":[[0],[1]]}' \
  P show --placements 'S(3),_S(3, 1)' --json
expect_out "show: equal classes (P(Sum) is not P(sum); _S by dim and split factor)" \
  'equal: [[0,3],[1],[2,4]]' \
  sh -c "\"$S\" placement show --placements 'P(sum),P(Sum),_S(0, 2),P(sum),_S(0, 2)' | tail -n 1"

# ---- shardability ----
expect_out "shardable: _S(0, 2),S(0) on 2x3, dim 10: 4 <= 10, 6 <= 10, 10 % 4 != 0" \
  '{"is_tensor_shardable":true,"is_tensor_evenly_shardable":false}' \
  P shardable --mesh 2x3 --placements '_S(0, 2),S(0)' --shape 10,4 --json
expect_out "shardable: _S(0, 3),S(0) on 2x3, dim 5 < 2 x 3" \
  '{"is_tensor_shardable":false,"is_tensor_evenly_shardable":false}' \
  P shardable --mesh 2x3 --placements '_S(0, 3),S(0)' --shape 5,4 --json
expect_out "shardable: _S(0, 2),S(0) on 2x3, dim 12 divides by 4 and 6" \
  '{"is_tensor_shardable":true,"is_tensor_evenly_shardable":true}' \
  P shardable --mesh 2x3 --placements '_S(0, 2),S(0)' --shape 12 --json
expect_out "shardable: S(2) past a 2-d shape is False (not an error)" \
  '{"is_tensor_shardable":false,"is_tensor_evenly_shardable":false}' \
  P shardable --mesh 2x2 --placements 'S(2),R' --shape 4,4 --json
expect_out "shardable: S(-1) normalised to S(1): 3 on 3 shards even, 5 on 2 not" \
  '{"is_tensor_shardable":true,"is_tensor_evenly_shardable":false}' \
  P shardable --mesh 2x3 --placements 'S(0),S(-1)' --shape 5,3 --json

# ---- shard orders: the docstring example both ways ----
expect_out "order: _S(0, 2),_S(0, 2),S(0) on 4x3x2 decodes to dim 0 on (2, 0, 1)" \
  "$(printf 'shard_order: [[0,[2,0,1]]]\ntrace: S(0)[1]S(0)[2]S(0)[0]')" \
  P order --mesh 4x3x2 --placements '_S(0, 2),_S(0, 2),S(0)'
expect_out "order: (2, 0, 1) encodes to _S(0, 2),_S(0, 2),S(0)" \
  "$(printf 'shard_order: [[0,[2,0,1]]]\nplacements: _S(0, 2),_S(0, 2),S(0)')" \
  P order --mesh 4x3x2 --placements 'S(0)[1]S(0)[2]S(0)[0]'
expect_out "order: no order gives split factor 5 on 4x3x2: None" \
  "$(printf 'shard_order: null\ntrace: not decodable (_StridedShardNotDecodableError)')" \
  P order --mesh 4x3x2 --placements '_S(0, 5),S(0),R'
expect_out "order: no _StridedShard: the default order" \
  "$(printf 'shard_order: [[0,[0]],[1,[1]]]\ntrace: S(0)S(1)')" \
  P order --mesh 2x2 --placements 'S(0),S(1)'
expect_exit "order: a _StridedShard in a shard order: torch's ValueError" 2 \
  "ValueError: Only Shard placement can be converted to _StridedShard, found _S\(0, 2\)" \
  P order --mesh 2x2 --placements 'S(0)[0]_S(0, 2)[1]'

# ---- global shape and stride ----
expect_out "global: local (4,8,2) stride (16,1,8), S(2) on 2 -> (4,8,4) stride (32,1,8)" \
  '{"global_shape":[4,8,4],"global_stride":[32,1,8]}' \
  P global --mesh 2 --placements 'S(2)' --local-shape 4,8,2 --local-stride 16,1,8 --json
expect_out "global: S(0),S(1) on 2x3, contiguous (4,6) -> (8,18) stride (18,1)" \
  '{"global_shape":[8,18],"global_stride":[18,1]}' \
  P global --mesh 2x3 --placements 'S(0),S(1)' --local-shape 4,6 --json
expect_out "global: R,P(sum) keep the local shape and stride" \
  '{"global_shape":[4,6],"global_stride":[6,1]}' \
  P global --mesh 2x2 --placements 'R,P(sum)' --local-shape 4,6 --json
expect_exit "global: S(2) on a 2-d local tensor: torch's RuntimeError" 2 \
  "RuntimeError: Sharding dim 2 greater than tensor ndim 2 for placement number 0$" \
  P global --mesh 2x2 --placements 'S(2),R' --local-shape 6,4
expect_exit "global: S(-3) on a 2-d local tensor: out of range after normalisation" 2 \
  "shard dim -3 out of range for a 2-d tensor .*AssertionError" \
  P global --mesh 2x2 --placements 'S(-3),R' --local-shape 6,4
expect_out "global shapes: uneven S(0) on 4 ranks sums dim 0" '{"global_shape":[9,2]}' \
  P global --mesh 4 --placements 'S(0)' --local-shapes '3,2;3,2;2,2;1,2' --json
expect_out "global shapes: R is the local shape" '{"global_shape":[3,2]}' \
  P global --mesh 2 --placements 'R' --local-shapes '3,2;3,2' --json
expect_out "global shapes: S(-1) sums the last dim (torch's literal dim)" \
  '{"global_shape":[3,4]}' P global --mesh 2 --placements 'S(-1)' --local-shapes '3,2;3,2' --json
expect_exit "global shapes: S(-1) with the last dims differing: torch compares every dim" 2 \
  "RuntimeError: Non-sharded dimensions should have identical size across ranks" \
  P global --mesh 2 --placements 'S(-1)' --local-shapes '3,2;3,4'
expect_exit "global shapes: other dims differ: torch's RuntimeError" 2 \
  "RuntimeError: Non-sharded dimensions should have identical size across ranks" \
  P global --mesh 4 --placements 'S(0)' --local-shapes '3,2;3,2;2,2;1,3'
expect_exit "global shapes: _StridedShard: torch's NotImplementedError" 2 \
  "NotImplementedError: Placement type <class 'torch.distributed.tensor.placement_types._StridedShard'> not supported" \
  P global --mesh 2 --placements '_S(0, 2)' --local-shapes '3,2;3,2'
expect_exit "global shapes: Partial: torch's NotImplementedError" 2 \
  "NotImplementedError: Placement type <class 'torch.distributed.tensor.placement_types.Partial'> not supported" \
  P global --mesh 2 --placements 'P(sum)' --local-shapes '3,2;3,2'
expect_exit "global shapes: two placements: torch's NotImplementedError" 2 \
  "NotImplementedError: compute_global_tensor_shape only supports 1 placement for now" \
  P global --mesh 2x2 --placements 'S(0),R' --local-shapes '1;1;1;1'
expect_exit "global shapes: one placement on a 2-d mesh: torch's RuntimeError" 2 \
  "RuntimeError: Expected one placement per mesh dim, but found 1 placements and 2 mesh dims" \
  P global --mesh 2x2 --placements 'S(0)' --local-shapes '1;1;1;1'
expect_exit "global shapes: S(2) past 2-d locals: torch's IndexError" 2 \
  "IndexError: list index out of range" \
  P global --mesh 2 --placements 'S(2)' --local-shapes '3,2;3,2'

# ---- bad input: exit 2, named ----
expect_exit "global shapes: 3 shapes for 4 ranks" 2 "3 local shapes for a mesh of 4 ranks" \
  P global --mesh 4 --placements 'S(0)' --local-shapes '1;1;1'
expect_exit "global shapes: a bad shape named with its rank" 2 "--local-shapes: shape 1" \
  P global --mesh 2 --placements 'S(0)' --local-shapes '1;x'
expect_exit "global: both forms" 2 "--local-shape or --local-shapes: exactly one" \
  P global --mesh 2 --placements 'S(0)' --local-shape 2 --local-shapes '1;1'
expect_exit "global: strides of another length" 2 "--local-stride: 1 strides for 2 dims" \
  P global --mesh 2 --placements 'S(0)' --local-shape 2,2 --local-stride 1
expect_exit "global: the global size overflows" 2 "overflows" \
  P global --mesh 4 --placements 'S(0)' --local-shape 4611686018427387904
expect_exit "shardable: placements for another mesh" 2 "1 placements for a 2-d mesh" \
  P shardable --mesh 2x2 --placements 'S(0)' --shape 4
expect_exit "shardable: S(-3) on 2-d: out of range after normalisation" 2 \
  "shard dim -3 out of range for a 2-d tensor" \
  P shardable --mesh 2 --placements 'S(-3)' --shape 4,4
expect_exit "order: placements for another mesh" 2 "1 placements for a 2-d mesh" \
  P order --mesh 2x2 --placements '_S(0, 2)'
expect_exit "placement without a subcommand" 2 "expected show, shardable, order or global" \
  P
expect_exit "placement show without --placements" 2 "--placements: required" P show
tap_done
