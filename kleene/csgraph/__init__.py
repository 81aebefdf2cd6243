"""kleene.csgraph: ``scipy.sparse.csgraph``'s names and conventions on kleene's engine.

Swap ``from scipy.sparse import csgraph`` for ``from kleene import csgraph``: the same
functions, signatures and results (dense 0/NaN/inf and masked entries are no edge,
int32 predecessors with -9999, ``NegativeCycleError`` catchable as SciPy's), computed
by ``kleene.sssp``, ``kleene.apsp``, ``kleene.bfs`` and ``kleene.connected_components``;
CuPy / cupyx input gives CuPy results. Names this module does not define (the spanning
tree, flows, matchings, Laplacian, reorderings) are SciPy's own, passed through.
docs/csgraph.md says what differs from kleene's native API and why.

Example
-------
>>> import numpy as np
>>> from kleene import csgraph
>>> G = np.array([[0, 1, 5], [0, 0, 2], [0, 0, 0]], dtype=float)
>>> csgraph.shortest_path(G).tolist()
[[0.0, 1.0, 3.0], [inf, 0.0, 2.0], [inf, inf, 0.0]]
"""

from .components import connected_components
from .conversions import (
    csgraph_from_dense,
    csgraph_from_masked,
    csgraph_masked_from_dense,
    csgraph_to_dense,
)
from .errors import NegativeCycleError
from .paths import construct_dist_matrix, reconstruct_path
from .shortest_paths import bellman_ford, dijkstra, floyd_warshall, johnson, shortest_path
from .traversal import (
    breadth_first_order,
    breadth_first_tree,
    depth_first_order,
    depth_first_tree,
)
from .yen import yen

__all__ = [
    "bellman_ford",
    "breadth_first_order",
    "breadth_first_tree",
    "connected_components",
    "construct_dist_matrix",
    "csgraph_from_dense",
    "csgraph_from_masked",
    "csgraph_masked_from_dense",
    "csgraph_to_dense",
    "depth_first_order",
    "depth_first_tree",
    "dijkstra",
    "floyd_warshall",
    "johnson",
    "NegativeCycleError",
    "reconstruct_path",
    "shortest_path",
    "yen",
]


def __getattr__(name: str):
    """SciPy's other csgraph names (minimum_spanning_tree, maximum_flow, laplacian, ...),
    so the swapped import serves them too."""
    import scipy.sparse.csgraph as scipy_csgraph

    if name.startswith("_") or not hasattr(scipy_csgraph, name):
        raise AttributeError(f"module 'kleene.csgraph' has no attribute {name!r}")
    return getattr(scipy_csgraph, name)
