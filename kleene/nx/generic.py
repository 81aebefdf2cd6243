"""shortest_path, shortest_path_length and has_path: NetworkX's dispatch by arguments."""

from __future__ import annotations

import networkx as nx
import numpy as np

from kleene.errors import InvalidValue

from . import unweighted as U
from . import weighted as W
from ._engine import bfs_reach

__all__ = ["has_path", "shortest_path", "shortest_path_length"]


def _method(weight, method):
    if method not in ("dijkstra", "bellman-ford"):
        raise InvalidValue(f"method not supported: {method}")
    return "unweighted" if weight is None else method


def shortest_path(G, source=None, target=None, weight=None, method="dijkstra"):
    """Shortest paths: a list (source and target), a dict (one of them) or an iterator."""
    method = _method(weight, method)
    dijkstra = method == "dijkstra"
    if source is None:
        if target is None:
            if method == "unweighted":
                return U.all_pairs_shortest_path(G)
            if dijkstra:
                return W.all_pairs_dijkstra_path(G, weight=weight)
            return W.all_pairs_bellman_ford_path(G, weight=weight)
        if method == "unweighted":
            return U.single_target_shortest_path(G, target)
        if target not in G:
            raise nx.NodeNotFound(f"Node {target} not found in graph")
        S = W.Search(G, [target], weight, dijkstra=dijkstra, reverse=G.directed)
        return {v: p[::-1] for v, p in S.paths().items()}
    if target is None:
        if method == "unweighted":
            return U.single_source_shortest_path(G, source)
        if dijkstra:
            return W.single_source_dijkstra_path(G, source, weight=weight)
        return W.single_source_bellman_ford_path(G, source, weight=weight)
    if method == "unweighted":
        return U.bidirectional_shortest_path(G, source, target)
    if dijkstra:
        return W.bidirectional_dijkstra(G, source, target, weight)[1]
    return W.bellman_ford_path(G, source, target, weight)


def shortest_path_length(G, source=None, target=None, weight=None, method="dijkstra"):
    """Shortest path lengths: a number, a dict or an iterator of (node, dict)."""
    method = _method(weight, method)
    dijkstra = method == "dijkstra"
    if source is None:
        if target is None:
            if method == "unweighted":
                return U.all_pairs_shortest_path_length(G)
            if dijkstra:
                return W.all_pairs_dijkstra_path_length(G, weight=weight)
            return W.all_pairs_bellman_ford_path_length(G, weight=weight)
        if method == "unweighted":
            return U.single_target_shortest_path_length(G, target)
        if target not in G:
            raise nx.NodeNotFound(f"Node {target} not found in graph")
        S = W.Search(G, [target], weight, dijkstra=dijkstra, reverse=G.directed)
        return S.lengths()
    if target is None:
        if method == "unweighted":
            return U.single_source_shortest_path_length(G, source)
        if dijkstra:
            return W.single_source_dijkstra_path_length(G, source, weight=weight)
        return W.single_source_bellman_ford_path_length(G, source, weight=weight)
    if method == "unweighted":
        return len(U.bidirectional_shortest_path(G, source, target)) - 1
    if dijkstra:
        return W.dijkstra_path_length(G, source, target, weight)
    return W.bellman_ford_path_length(G, source, target, weight)


def has_path(G, source, target):
    """Whether a path leads from source to target (kleene.bfs levels)."""
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    if target not in G:
        raise nx.NodeNotFound(f"Target {target} is not in G")
    levels = bfs_reach(G, G.index[source])
    return bool(np.asarray(levels)[G.index[target]] >= 0)
