"""Graph analytics (the GAP kernels beyond paths) as compositions of kleene operations."""

from .betweenness import betweenness_centrality, edge_betweenness_centrality
from .components import connected_components
from .pagerank import PowerIterationFailedConvergence, pagerank
from .triangles import clustering, transitivity, triangle_count, triangles

__all__ = [
    "PowerIterationFailedConvergence",
    "betweenness_centrality",
    "clustering",
    "connected_components",
    "edge_betweenness_centrality",
    "pagerank",
    "transitivity",
    "triangle_count",
    "triangles",
]
