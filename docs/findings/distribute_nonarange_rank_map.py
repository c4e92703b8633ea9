"""distribute_nonarange_rank_map.py — torch 2.13: on a DeviceMesh whose rank map is not an arange,
distribute_tensor gives ranks data that is not the slice its own layout names.  Shard's scatter
(placement_types.py Shard._shard_tensor -> _collective_utils.mesh_scatter) sends piece i of the
scatter list to the i-th rank of the dim's process group, and c10d orders a group's ranks by
global rank, while the pieces are ordered by mesh coordinate (and unpadded by the coordinate).
The layout routine (_compute_local_shape_and_global_offset, DTensor's local shape and offset) uses
the coordinate.  Found by the real-process torch backend (`shardcheck run --backend torch`,
shard-layout tc 30946, 31027, 29875; golden flag NonArangeRanks).

    torchrun --nproc-per-node 4 docs/findings/distribute_nonarange_rank_map.py

Mesh of 4 ranks with rank map [3, 1, 2, 0]; a 12x2 arange distributed S(0): the rank at mesh
coordinate c must hold rows 3c..3c+2.  Exit 1: reproduced.
"""
import torch
from torch.distributed.device_mesh import DeviceMesh
from torch.distributed.tensor import distribute_tensor
from torch.distributed.tensor._utils import compute_local_shape_and_global_offset
from torch.distributed.tensor.placement_types import Shard

import _common as c

rank = c.init(4)
m = DeviceMesh("cpu", torch.tensor([3, 1, 2, 0]))
glob = torch.arange(24).reshape(12, 2)
got = distribute_tensor(glob, m, [Shard(0)]).to_local()
shape, offset = compute_local_shape_and_global_offset(glob.shape, m, [Shard(0)])
want = glob[offset[0]:offset[0] + shape[0]]
ok = torch.equal(got, want)
c.report(rank, ok, ": coordinate %d, layout offset %d: got rows %s, want rows %s"
         % (m.get_coordinate()[0], offset[0], (got[:, 0] // 2).tolist(),
            (want[:, 0] // 2).tolist()))
