#!/bin/sh
# cli_layout.sh — `shardcheck layout` and `shardcheck groups`: outputs (expected values
# hand-derived from the torch.chunk rule and torch's docstrings) and every error path.
. "$(dirname "$0")/testlib.sh"


# The issue's example, as torch 2.13 computes it: 13 rows over 4 -> 4,4,4,1; each over 2.
expect_out "layout 4x2 S(0),S(0) 13,2 (json)" \
'{"ranks":[{"rank":0,"coord":[0,0],"localShape":[2,2],"globalOffset":["0","0"]},{"rank":1,"coord":[0,1],"localShape":[2,2],"globalOffset":["2","0"]},{"rank":2,"coord":[1,0],"localShape":[2,2],"globalOffset":["4","0"]},{"rank":3,"coord":[1,1],"localShape":[2,2],"globalOffset":["6","0"]},{"rank":4,"coord":[2,0],"localShape":[2,2],"globalOffset":["8","0"]},{"rank":5,"coord":[2,1],"localShape":[2,2],"globalOffset":["10","0"]},{"rank":6,"coord":[3,0],"localShape":[1,2],"globalOffset":["12","0"]},{"rank":7,"coord":[3,1],"localShape":[0,2],"globalOffset":["13","0"]}]}' \
  $S layout --mesh 4x2 --placements 'S(0),S(0)' --shape 13,2 --json
expect_exit "layout table shows rank 7's empty shard at offset 13" 0 "^7 +\[3,1\].\[0,2\].\[13,0\]" \
  $S layout --mesh 4x2 --placements 'S(0),S(0)' --shape 13,2
expect_out "layout --rank 6" '{"ranks":[{"rank":6,"coord":[3,0],"localShape":[1,2],"globalOffset":["12","0"]}]}' \
  $S layout --mesh 4x2 --placements 'S(0),S(0)' --shape 13,2 --json --rank 6
# _StridedShard docstring: [8,8], [_S(0, sf=2), S(0)] on 2x2: rank 1 holds rows 4-5.
expect_out "layout _S index list" '{"ranks":[{"rank":1,"coord":[0,1],"localShape":[2,8],"globalOffset":["4","0"],"indices":[[4,5],null]}]}' \
  $S layout --mesh 2x2 --placements '_S(0, 2),S(0)' --shape 8,8 --json --rank 1
expect_out "layout with a rank map" '{"ranks":[{"rank":0,"coord":[3],"localShape":[2],"globalOffset":["6"]}]}' \
  $S layout --mesh 4 --ranks 3,1,2,0 --placements 'S(0)' --shape 8 --json --rank 0
expect_out "layout shard order S(0)[1]S(0)[0]" '{"ranks":[{"rank":1,"coord":[0,1],"localShape":[2],"globalOffset":["4"]}]}' \
  $S layout --mesh 2x2 --placements 'S(0)[1]S(0)[0]' --shape 7 --json --rank 1
expect_exit "layout --help" 0 "usage: shardcheck layout" $S layout --help

expect_exit "layout needs --mesh" 2 "--mesh is required" $S layout --placements 'S(0)' --shape 4
expect_exit "layout needs --placements" 2 "--placements and --shape are required" $S layout --mesh 2 --shape 4
expect_exit "layout: unparsable mesh" 2 "--mesh 2x: mesh item 2: expected an integer" $S layout --mesh 2x --placements 'S(0)' --shape 4
expect_exit "layout: zero-size mesh dim" 2 "dim 0 has size 0" $S layout --mesh 0x2 --placements 'S(0),R' --shape 4
expect_exit "layout: duplicate rank" 2 "duplicate rank 1 at positions 0 and 1" $S layout --mesh 2 --ranks 1,1 --placements 'S(0)' --shape 4
expect_exit "layout: missing rank" 2 "rank 2 at position 1 is outside 0..1" $S layout --mesh 2 --ranks 0,2 --placements 'S(0)' --shape 4
expect_exit "layout: rank map length" 2 "3 ranks given, mesh 2 has 2" $S layout --mesh 2 --ranks 0,1,2 --placements 'S(0)' --shape 4
expect_exit "layout: unparsable placement" 2 "--placements: placement 0 of 'Q': unknown placement" $S layout --mesh 2 --placements Q --shape 4
expect_exit "layout: shard dim out of range" 2 "shard dim 1 out of range for a 1-d tensor" $S layout --mesh 2 --placements 'S(1)' --shape 4
expect_exit "layout: placement count" 2 "placements: 1 given for a 2-d mesh" $S layout --mesh 2x2 --placements 'S(0)' --shape 4
expect_exit "layout: negative size" 2 "--shape: shape '4,-2': dim 1 has negative size -2" $S layout --mesh 2 --placements 'S(0)' --shape 4,-2
expect_exit "layout: unparsable shape" 2 "--shape: shape item 2: expected an integer" $S layout --mesh 2 --placements 'S(0)' --shape 4,x
expect_exit "layout: overflowing shape" 2 "element count overflows int64" $S layout --mesh 2 --placements 'S(0)' --shape 9223372036854775807,2
expect_exit "layout: rank not in mesh" 2 "--rank: rank 4 is not in the mesh" $S layout --mesh 2x2 --placements 'S(0),R' --shape 4 --rank 4
expect_exit "layout: negative rank" 2 "--rank: -1 is negative" $S layout --mesh 2 --placements 'S(0)' --shape 4 --rank -1
expect_exit "layout: non-integer rank" 2 "--rank: 'x' is not an integer" $S layout --mesh 2 --placements 'S(0)' --shape 4 --rank x
expect_exit "layout: order with _StridedShard" 2 "cannot be combined with _StridedShard" $S layout --mesh 2x2 --placements '_S(0, 2)[0]S(0)[1]' --shape 8
expect_exit "layout: stray argument" 2 "unexpected argument 'extra'" $S layout --mesh 2 --placements 'S(0)' --shape 4 extra
expect_exit "layout: unknown option" 2 "--bogus: unknown option" $S layout --bogus

# groups: _MeshLayout.remap_to_tensor docstring (2x2, dim 0 -> [[0,2],[1,3]]) and
# DeviceMesh._flatten docstring (2x2x2, dims 0,1 -> [0,2,4,6] and [1,3,5,7]).
expect_out "groups 2x2 --axes 0 --rank 1" \
  '{"dims":[[[0,2],[1,3]],[[0,1],[2,3]]],"rank":1,"coord":[0,1],"dim_groups":[[1,3],[0,1]],"group_ranks":[0,1],"axes":[0],"flattened":[[0,2],[1,3]],"split":[[0,2],[1,3]],"group":[1,3]}' \
  $S groups --mesh 2x2 --axes 0 --rank 1 --json
expect_exit "groups flattened dims 0,1 of 2x2x2" 0 '"flattened":\[\[0,2,4,6\],\[1,3,5,7\]\]' $S groups --mesh 2x2x2 --axes 0,1 --json
# Rank map [[3,1],[2,0]]: rank 0's dim-0 group is [1,0] in mesh order, it is first when sorted.
expect_exit "groups with a rank map: sorted communicator rank" 0 '"dim_groups":\[\[1,0\],\[2,0\]\],"group_ranks":\[0,0\]' \
  $S groups --mesh 2x2 --ranks 3,1,2,0 --rank 0 --json
expect_exit "groups: seed-002 empty axes (split = whole mesh, group = [rank])" 0 '"axes":\[\],"split":\[\[0,1,2,3\]\],"group":\[2\]' \
  $S groups --mesh 2x2 --axes '' --rank 2 --json
expect_exit "groups: unsorted axes give split lists but no flattened groups" 0 '^\{"dims":[^f]*"axes":\[1,0\],"seed_axes":\[0,1\],"split":\[\[0,1,2,3\]\]\}$' \
  $S groups --mesh 2x2 --axes 1,0 --json
expect_exit "groups: HSDP" 0 '"rank":3,"sharded":\[0,1,2,3\],"unsharded":\[3,7\],"shard_size":4,"dp_size":2,"rank_size":8' \
  $S groups --mesh 2x4 --placements 'R,S(0)' --hsdp-shard-dim 1 --rank 3 --json
expect_exit "groups: HSDP invalid groups" 0 '"sharded":"invalid","unsharded":"invalid","shard_size":1,"dp_size":1,"rank_size":1' \
  $S groups --mesh 2 --placements 'P(sum)' --hsdp-shard-dim -1 --rank 0 --json
expect_exit "groups table" 0 "dim 1 groups.\[\[0,1\],\[2,3\]\]" $S groups --mesh 2x2
expect_exit "groups --help" 0 "usage: shardcheck groups" $S groups --help

expect_exit "groups needs --mesh" 2 "--mesh is required" $S groups
expect_exit "groups: unparsable rank map" 2 "rank map item 2: expected an integer" $S groups --mesh 2x2 --ranks 0,,1,2
expect_exit "groups: axis out of range" 2 "--axes '2': mesh dim 2 out of range 0..1" $S groups --mesh 2x2 --axes 2
expect_exit "groups: unparsable axes" 2 "--axes '0,a': expected a comma list of mesh dims" $S groups --mesh 2x2 --axes 0,a
expect_exit "groups: trailing comma in axes" 2 "--axes '0,': expected a comma list of mesh dims" $S groups --mesh 2x2 --axes 0,
expect_exit "groups: rank not in mesh" 2 "--rank: rank 9 is not in the mesh" $S groups --mesh 2x2 --rank 9
expect_exit "groups: HSDP needs placements" 2 "--hsdp-shard-dim needs --placements" $S groups --mesh 2x2 --hsdp-shard-dim 0
expect_exit "groups: HSDP shard dim out of range" 2 "hsdp: shard mesh dim 2 out of range 0..1" $S groups --mesh 2x2 --placements 'R,R' --hsdp-shard-dim 2
expect_exit "groups: HSDP shard dim not an integer" 2 "--hsdp-shard-dim: 'x' is not an integer" $S groups --mesh 2x2 --placements 'R,R' --hsdp-shard-dim x
expect_exit "groups: HSDP placement count" 2 "hsdp: 1 placements for a 2-d mesh" $S groups --mesh 2x2 --placements R --hsdp-shard-dim 0
expect_exit "groups: --shape is not an option" 2 "unknown option" $S groups --mesh 2 --shape 4
# README "Limits": a _StridedShard index list holds at most 2^20 entries; past it, a prompt
# refusal instead of minutes of work (found by fuzz_parse, fuzz/README.md finding 6).
expect_exit "layout: _StridedShard index list limit" 2 \
  "dim of 16222222 elements is too large for an index list \(at most 1048576\)" \
  $S layout --mesh 2x22 --placements '_S(0,8),R' --shape 16222222
# Sub-world meshes (issue 34 item 3): torch 2.13 device_mesh.py lets a mesh name any distinct
# ranks of the world; a rank off it has no coordinate and holds new_empty(0) (_api.py
# distribute_tensor), with compute_local_shape_and_global_offset's ((0,), ()) (_utils.py).
# Mesh [1,3] in a world of 4, S(0) of 8 rows: torch.chunk gives 4 and 4.
expect_out "layout --world: ranks off the mesh hold [0], no offset" \
'{"world":4,"ranks":[{"rank":0,"coord":null,"localShape":[0],"globalOffset":[]},{"rank":1,"coord":[0],"localShape":[4],"globalOffset":["0"]},{"rank":2,"coord":null,"localShape":[0],"globalOffset":[]},{"rank":3,"coord":[1],"localShape":[4],"globalOffset":["4"]}]}' \
  $S layout --mesh 2 --ranks 1,3 --world 4 --placements 'S(0)' --shape 8 --json
expect_out "layout --world --rank off the mesh" \
'{"world":6,"ranks":[{"rank":5,"coord":null,"localShape":[0],"globalOffset":[]}]}' \
  $S layout --mesh 2x2 --ranks 4,0,2,1 --world 6 --placements 'S(0),S(1)' --shape 4,4 --json --rank 5
expect_out "layout --world, a rank map in it" \
'{"world":6,"ranks":[{"rank":4,"coord":[0,0],"localShape":[2,2],"globalOffset":["0","0"]}]}' \
  $S layout --mesh 2x2 --ranks 4,0,2,1 --world 6 --placements 'S(0),S(1)' --shape 4,4 --json --rank 4
expect_out "layout --world _S: an off rank's one dim lists nothing" \
'{"world":3,"ranks":[{"rank":2,"coord":null,"localShape":[0],"globalOffset":[],"indices":[null]}]}' \
  $S layout --mesh 2 --world 3 --placements '_S(0, 2)' --shape 8 --json --rank 2
expect_exit "layout --world table marks an off rank with -" 0 "^0 +-.\[0\].\[\]" \
  $S layout --mesh 2 --ranks 1,3 --world 4 --placements 'S(0)' --shape 8
expect_exit "layout --world: the mesh bigger than the world (torch's RuntimeError)" 2 \
  "world: 4 ranks, fewer than the mesh's 6 \(torch: RuntimeError: Mesh should not be bigger than default world size 4, but found 6 ranks!\)" \
  $S layout --mesh 2x3 --world 4 --placements 'S(0),R' --shape 8
expect_exit "layout --world: a rank outside the world (torch's new_group ValueError)" 2 \
  "rank 4 at position 1 is outside the world 0..3 \(torch: ValueError: Rank 4 is out of range. Valid ranks are 0 to 3 \(world_size=4\)\)" \
  $S layout --mesh 2 --ranks 1,4 --world 4 --placements 'S(0)' --shape 8
expect_exit "layout --world: a duplicate rank" 2 "duplicate rank 1 at positions 0 and 1" \
  $S layout --mesh 2 --ranks 1,1 --world 4 --placements 'S(0)' --shape 8
expect_exit "layout --world: --rank outside the world" 2 "--rank: rank 4 is not in the world \(ranks 0..3\)" \
  $S layout --mesh 2 --world 4 --placements 'S(0)' --shape 8 --rank 4
expect_exit "layout --world 0" 2 "--world: 0 is not 1 to 16777216" \
  $S layout --mesh 2 --world 0 --placements 'S(0)' --shape 8
expect_exit "layout --world past the largest" 2 "--world: 16777217 is not 1 to 16777216" \
  $S layout --mesh 2 --world 16777217 --placements 'S(0)' --shape 8
# groups: the off rank keeps no group of the mesh (device_mesh.py _init_process_groups
# filters the None names), so no dim group, no communicator rank, no flattened group.
expect_out "groups --world --rank off the mesh" \
'{"world":8,"dims":[[[1,4],[3,6]],[[1,3],[4,6]]],"rank":2,"coord":null,"dim_groups":[],"group_ranks":[],"axes":[0,1],"flattened":[[1,3,4,6]],"split":[[1,3,4,6]],"group":null}' \
  $S groups --mesh 2x2 --ranks 1,3,4,6 --world 8 --rank 2 --axes 0,1 --json
expect_out "groups --world --rank on the mesh" \
'{"world":8,"dims":[[[1,4],[3,6]],[[1,3],[4,6]]],"rank":6,"coord":[1,1],"dim_groups":[[3,6],[4,6]],"group_ranks":[1,1]}' \
  $S groups --mesh 2x2 --ranks 1,3,4,6 --world 8 --rank 6 --json
expect_exit "groups --world: --rank outside the world" 2 "--rank: rank 9 is not in the world \(ranks 0..7\)" \
  $S groups --mesh 2x2 --world 8 --rank 9
expect_exit "groups --world with HSDP" 2 "--world: not used with --hsdp-shard-dim" \
  $S groups --mesh 2x2 --world 8 --placements 'R,R' --hsdp-shard-dim 0
tap_done
