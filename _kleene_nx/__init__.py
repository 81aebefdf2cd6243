"""What NetworkX reads about the kleene backend when it starts (``networkx.backend_info``).

A top-level package of its own, as nx-cugraph's ``_nx_cugraph``: NetworkX loads every
installed backend's info when it is imported, and this answers without importing kleene
(whose import pulls NumPy/SciPy modules and its I/O). The backend itself, ``kleene.nx``,
loads on first use.
"""

from __future__ import annotations

DEFAULT_CONFIG = {
    # Where the matrices live and the algorithms run: "cpu" or "gpu" (CuPy).
    "device": "cpu",
    # Automatic dispatch (nx.config.backend_priority) leaves graphs with fewer
    # nodes + edges than this to NetworkX; backend="kleene" always runs kleene.
    "min_size": 10_000,
}

# The functions kleene implements, with notes for NetworkX's docs (nx.<func>.__doc__).
FUNCTION_NOTES = {
    "bfs_edges": "Visits in NetworkX's order (masked min_plus vxm over adjacency ranks).",
    "shortest_path": "Ties between equally short weighted paths may resolve differently.",
    "dijkstra_path": "Negative weights raise NotImplementedError (NetworkX: undefined).",
    "floyd_warshall": "A negative cycle raises NotImplementedError.",
    "pagerank": "NetworkX's power iteration as plus_times products.",
    "betweenness_centrality": "Brandes: compiled kernels; weight= by Dijkstra (positive).",
    "edge_betweenness_centrality": "The same searches; simple graphs (multigraphs: NetworkX).",
    "clustering": "kleene.triangles; directed and weighted forms by one masked product.",
    "triangles": "kleene.triangles (masked plus_pair products), exact.",
    "strongly_connected_components": "Yielded sinks first (reverse topological order).",
}

FUNCTIONS = (
    "all_pairs_bellman_ford_path", "all_pairs_bellman_ford_path_length", "all_pairs_dijkstra",
    "all_pairs_dijkstra_path", "all_pairs_dijkstra_path_length", "all_pairs_shortest_path",
    "all_pairs_shortest_path_length", "ancestors", "average_clustering", "bellman_ford_path",
    "bellman_ford_path_length", "bellman_ford_predecessor_and_distance",
    "betweenness_centrality", "bfs_edges", "bfs_layers", "bfs_predecessors", "bfs_successors",
    "bfs_tree", "bidirectional_dijkstra", "bidirectional_shortest_path", "clustering",
    "connected_components", "descendants", "descendants_at_distance", "dijkstra_path",
    "dijkstra_path_length", "dijkstra_predecessor_and_distance", "edge_betweenness_centrality",
    "floyd_warshall",
    "floyd_warshall_numpy", "floyd_warshall_predecessor_and_distance", "has_path",
    "is_connected", "johnson", "multi_source_dijkstra", "multi_source_dijkstra_path",
    "multi_source_dijkstra_path_length", "negative_edge_cycle", "node_connected_component",
    "number_connected_components", "pagerank", "shortest_path", "shortest_path_length",
    "single_source_bellman_ford", "single_source_bellman_ford_path",
    "single_source_bellman_ford_path_length", "single_source_dijkstra",
    "single_source_dijkstra_path", "single_source_dijkstra_path_length",
    "single_source_shortest_path", "single_source_shortest_path_length",
    "single_target_shortest_path", "single_target_shortest_path_length",
    "strongly_connected_components", "transitive_closure", "transitive_closure_dag",
    "transitivity", "triangles", "weakly_connected_components",
)  # fmt: skip


def get_info() -> dict:
    """NetworkX's ``backend_info`` for kleene (entry point ``networkx.backend_info``)."""
    return {
        "backend_name": "kleene",
        "project": "kleene",
        "package": "kleene",
        "short_summary": (
            "Semiring (GraphBLAS-style) paths and graph analytics on the CPU and CUDA GPUs."
        ),
        "default_config": dict(DEFAULT_CONFIG),
        "functions": {
            name: ({"additional_docs": FUNCTION_NOTES[name]} if name in FUNCTION_NOTES else {})
            for name in FUNCTIONS
        },
    }


__all__ = ["DEFAULT_CONFIG", "FUNCTIONS", "FUNCTION_NOTES", "get_info"]
