"""The path engine: fused primitives that algorithms compose.

Frontier loops (BFS, Bellman-Ford, delta-stepping, many sources at once), the
shortest-path tree, dense closures and in-place accumulating products, and the
device machinery long runs need (replayed CUDA graphs, two lanes of work, pinned
staging buffers and tile streams). Each fused primitive has a composed twin written
with ``kleene.ops`` beside it (``fused=False``), and reaches its back end only
through ``kleene.backends.backend(xp)``.
"""

from kleene.backends.strict_sums import strict_sums

from .closure import closure, closure_base_block, mxm_accumulate
from .components import has_weak_components, strong_components, weak_components
from .frontier import (
    frontier_bellman_ford,
    frontier_bfs,
    frontier_bfs_levels,
    frontier_bfs_multi,
    frontier_delta_stepping,
    relax,
)
from .lanes import Lanes
from .power import has_power_iteration, power_iteration
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
from .tree import shortest_path_tree, tight_edges

__all__ = [
    "closure",
    "closure_base_block",
    "frontier_bellman_ford",
    "frontier_bfs",
    "frontier_bfs_levels",
    "frontier_bfs_multi",
    "frontier_delta_stepping",
    "Lanes",
    "has_power_iteration",
    "has_weak_components",
    "power_iteration",
    "multi_source_sssp",
    "mxm_accumulate",
    "pinned_empty",
    "product_scratch",
    "relax",
    "release_replays",
    "replay",
    "replay_buffers",
    "replay_bytes",
    "shortest_path_tree",
    "strong_components",
    "strict_sums",
    "take_square",
    "tight_edges",
    "tile_stream",
    "weak_components",
]
