"""test_tp_random_state.py — probes for conformance/torch_pins/test_tp_random_state.json.

The rows pin what torch's test/distributed/tensor/parallel/test_tp_random_state.py
(TensorParallelRandomStateTests.test_model_init) asserts: each rank's dp and tp coordinates on
init_device_mesh(device, (2, 2), ("dp", "tp")), and which ranks' weights the
reset_parameters() draws make equal or different with DTensor's RNG region enabled and
disabled.

Coordinates: torch's init_device_mesh on a fake process group (pins.common.tc.WORLD) seen from
the rank.  (The test also asserts the weight's mesh equals mesh_2d["tp"], so the weight mesh's
coordinate is tp_mesh's; reading it off a parallelized weight in one process is unreliable:
torch hands back a cached equal submesh made for another rank.)  Draws: the windows torch's
OffsetBasedRNGTracker gives each rank on its own tp submesh, with torch's dispatcher deciding
whether the op is tracked (pins.test_random_ops.draws).  No probe reads shardcheck.
"""

from pins.common import tc
from pins.test_random_ops import draws  # noqa: F401  (rows name test_tp_random_state.draws)


def _world_mesh(rank, names=("dp", "tp"), shape=(2, 2)):
    from torch.distributed.device_mesh import init_device_mesh
    n = 1
    for s in shape:
        n *= s
    tc.WORLD.enter(n, rank)
    return init_device_mesh("cpu", tuple(shape), mesh_dim_names=tuple(names))


def submesh_coordinate(rank, dim, names=("dp", "tp"), shape=(2, 2)):
    """mesh_2d[dim].get_coordinate()[0] as `rank` sees it (the test's dp_rank / tp_rank)."""
    mesh = _world_mesh(rank, names, shape)
    return int(mesh[dim].get_coordinate()[0])
