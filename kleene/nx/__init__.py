"""kleene as a NetworkX backend: ``nx.shortest_path(G, s, backend="kleene")``.

NetworkX finds the backend through the ``networkx.backends`` entry point
(``kleene.nx:backend_interface``) and its settings through ``networkx.backend_info``
(``kleene.nx:get_info``): ``nx.config.backends.kleene.device`` ("cpu" or "gpu").
See docs/networkx.md. Importing this package does not import networkx; the
backend loads on first use.
"""

from __future__ import annotations

from .config import DEFAULT_CONFIG

__all__ = ["backend_interface", "convert_from_nx", "convert_to_nx", "get_info", "KleeneGraph"]

_LAZY = {
    "backend_interface": "interface",
    "BackendInterface": "interface",
    "KleeneGraph": "graph",
    "convert_from_nx": "graph",
    "convert_to_nx": "graph",
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"kleene.nx.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'kleene.nx' has no attribute {name!r}")


# The functions kleene implements, with notes for NetworkX's docs (nx.<func>.__doc__).
_FUNCTION_NOTES = {
    "bfs_edges": "Visits in NetworkX's order (masked min_plus vxm over adjacency ranks).",
    "shortest_path": "Ties between equally short weighted paths may resolve differently.",
    "dijkstra_path": "Negative weights raise NotImplementedError (NetworkX: undefined).",
    "floyd_warshall": "A negative cycle raises NotImplementedError.",
}

_FUNCTIONS = (
    "all_pairs_bellman_ford_path", "all_pairs_bellman_ford_path_length", "all_pairs_dijkstra",
    "all_pairs_dijkstra_path", "all_pairs_dijkstra_path_length", "all_pairs_shortest_path",
    "all_pairs_shortest_path_length", "ancestors", "bellman_ford_path",
    "bellman_ford_path_length", "bellman_ford_predecessor_and_distance", "bfs_edges",
    "bfs_layers", "bfs_predecessors", "bfs_successors", "bfs_tree", "bidirectional_dijkstra",
    "bidirectional_shortest_path", "descendants", "descendants_at_distance", "dijkstra_path",
    "dijkstra_path_length", "dijkstra_predecessor_and_distance", "floyd_warshall",
    "floyd_warshall_numpy", "floyd_warshall_predecessor_and_distance", "has_path", "johnson",
    "multi_source_dijkstra", "multi_source_dijkstra_path", "multi_source_dijkstra_path_length",
    "negative_edge_cycle", "shortest_path", "shortest_path_length",
    "single_source_bellman_ford", "single_source_bellman_ford_path",
    "single_source_bellman_ford_path_length", "single_source_dijkstra",
    "single_source_dijkstra_path", "single_source_dijkstra_path_length",
    "single_source_shortest_path", "single_source_shortest_path_length",
    "single_target_shortest_path", "single_target_shortest_path_length", "transitive_closure",
    "transitive_closure_dag",
)  # fmt: skip


def get_info() -> dict:
    """NetworkX's ``backend_info`` for kleene (entry point ``networkx.backend_info``)."""
    return {
        "backend_name": "kleene",
        "project": "kleene",
        "package": "kleene",
        "short_summary": "Semiring (GraphBLAS-style) path algorithms on the CPU and CUDA GPUs.",
        "default_config": dict(DEFAULT_CONFIG),
        "functions": {
            name: ({"additional_docs": _FUNCTION_NOTES[name]} if name in _FUNCTION_NOTES else {})
            for name in _FUNCTIONS
        },
    }
