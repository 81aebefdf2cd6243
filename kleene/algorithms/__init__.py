"""Path algorithms written as compositions of kleene operations."""

from .all_pairs import apsp
from .analytics import PowerIterationFailedConvergence, connected_components, pagerank
from .analytics.betweenness import betweenness_centrality, edge_betweenness_centrality
from .analytics.triangles import clustering, transitivity, triangle_count, triangles
from .breadth_first import bfs
from .cluster import cluster_runner, register_cluster_loader, register_cluster_runner
from .paths import reconstruct_path
from .single_source import sssp
from .transitive import transitive_closure

__all__ = [
    "apsp",
    "betweenness_centrality",
    "clustering",
    "connected_components",
    "edge_betweenness_centrality",
    "pagerank",
    "PowerIterationFailedConvergence",
    "bfs",
    "cluster_runner",
    "reconstruct_path",
    "register_cluster_loader",
    "register_cluster_runner",
    "sssp",
    "transitive_closure",
    "transitivity",
    "triangle_count",
    "triangles",
]
