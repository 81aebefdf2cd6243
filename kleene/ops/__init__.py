"""Containers, masks and the GraphBLAS operations on them.

This is the surface ``kleene.algorithms`` builds on: the containers, the
operations, the closure and frontier ops (which run a back end's fused kernels
where there are some), and where arrays live.
"""

from .closure import closure, closure_base_block, mxm_accumulate
from .device import (
    array_module,
    bool_tensor_cores,
    gpu_available,
    gpu_memory_free,
    host_memory_free,
    is_cupy_array,
    to_host,
)
from .diagonal import diagonal
from .frontier import (
    frontier_bellman_ford,
    frontier_bfs,
    frontier_bfs_levels,
    frontier_bfs_multi,
    frontier_delta_stepping,
    relax,
)
from .lanes import Lanes
from .mask import Mask
from .matrix import Matrix
from .operations import (
    apply,
    assign,
    ewise_add,
    ewise_mult,
    extract,
    mxm,
    mxv,
    reduce,
    select,
    transpose,
    vxm,
)
from .replayable import (
    product_scratch,
    release_replays,
    replay,
    replay_buffers,
    replay_bytes,
    take_square,
)
from .sources import multi_source_sssp
from .streaming import pinned_empty, tile_stream
from .strict_sums import strict_sums
from .symmetry import is_symmetric, symmetrize
from .tree import shortest_path_tree, tight_edges
from .vector import Vector
from .weight_scan import all_finite, first_stored, stored_min, stores

__all__ = [
    "apply",
    "array_module",
    "assign",
    "closure",
    "closure_base_block",
    "diagonal",
    "ewise_add",
    "ewise_mult",
    "extract",
    "frontier_bellman_ford",
    "frontier_bfs",
    "frontier_bfs_levels",
    "frontier_bfs_multi",
    "frontier_delta_stepping",
    "bool_tensor_cores",
    "gpu_available",
    "gpu_memory_free",
    "host_memory_free",
    "is_cupy_array",
    "is_symmetric",
    "Lanes",
    "Mask",
    "pinned_empty",
    "Matrix",
    "mxm",
    "mxm_accumulate",
    "multi_source_sssp",
    "mxv",
    "reduce",
    "relax",
    "product_scratch",
    "release_replays",
    "replay",
    "replay_buffers",
    "replay_bytes",
    "take_square",
    "select",
    "shortest_path_tree",
    "strict_sums",
    "symmetrize",
    "tight_edges",
    "tile_stream",
    "to_host",
    "transpose",
    "Vector",
    "vxm",
    "all_finite",
    "first_stored",
    "stored_min",
    "stores",
]
